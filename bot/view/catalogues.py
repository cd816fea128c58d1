"""Extracting the marked strings and refreshing the catalogues (bot/view/i18n.py says which).

    .venv/bin/python -m bot.view.catalogues scoring/variants/<style>   # one style folder only
    .venv/bin/python -m bot.view.catalogues                            # the shared catalogues

A style folder's refresh writes `<folder>/locale/messages.pot` and adds its new messages, with
empty translations, to `<folder>/locale/{en,zh_Hans,zh_Hant}.po` (creating them the first time);
messages no longer in the folder are dropped. Nothing outside the folder changes. The shared
refresh reads bot/ and scoring/ less the style folders: it appends the new messages at the end
of `bot/locale/messages.pot` and of each shared catalogue and takes those no longer marked out
of the template; nothing else there is rewritten or moved (others edit those files too).
The tests read the same extraction (tests/bot/test_i18n.py).
"""

from __future__ import annotations

import sys
from collections.abc import Iterable
from datetime import UTC, datetime
from io import BytesIO
from pathlib import Path

from babel.messages.catalog import Catalog
from babel.messages.extract import extract_from_dir
from babel.messages.pofile import read_po, write_po

from .i18n import DIR_NAMES, KEYWORDS, LANGS, LOCALE_DIR, SOURCE_DIRS, STYLE_LOCALE, po_path, style_po_path

ROOT = Path(__file__).resolve().parents[2]
VARIANTS = ROOT / "scoring" / "variants"


def style_folders() -> list[Path]:
    """The styles in scoring/variants/ that are folders: each keeps its own catalogues."""
    return sorted(p for p in VARIANTS.iterdir() if (p / "__init__.py").is_file())


def _messages(folder: Path, skip: Iterable[Path] = ()) -> list[str]:
    """The marked strings under a folder, in the order they appear, each once."""
    skipped = {p.resolve() for p in skip}

    def keep(path: str) -> bool:
        p = Path(path)
        return not p.name.startswith((".", "_")) and p.resolve() not in skipped

    found: dict[str, None] = {}
    for _file, _line, message, _comments, _context in extract_from_dir(
            str(folder), keywords=KEYWORDS, directory_filter=keep):
        if isinstance(message, str):
            found[message] = None
    return list(found)


def shared_messages() -> list[str]:
    """The marked strings of the shared catalogues: bot/ and scoring/, less the style folders."""
    return [m for folder in SOURCE_DIRS for m in _messages(ROOT / folder, skip=style_folders())]


def style_messages(folder: Path) -> list[str]:
    """The marked strings of one style folder (its own catalogues hold them)."""
    return _messages(folder, skip=[folder / STYLE_LOCALE])


def _write(path: Path, catalog: Catalog) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("wb") as fh:
        write_po(fh, catalog, omit_header=False, ignore_obsolete=True, sort_output=False)


def _unchanged(messages: list[str], path: Path) -> bool:
    """The template already lists these messages in this order: a refresh changes nothing
    (not even a date)."""
    if not path.exists():
        return False
    with path.open("rb") as fh:
        return [m.id for m in read_po(fh) if m.id] == messages


def _template(messages: list[str], path: Path) -> Catalog:
    pot = Catalog(creation_date=datetime.now(UTC))
    for msgid in messages:
        pot.add(msgid)
    _write(path, pot)
    return pot


def _refresh(messages: list[str], template: Path, po_of: dict[str, Path]) -> None:
    if _unchanged(messages, template) and all(p.exists() for p in po_of.values()):
        return
    pot = _template(messages, template)
    for lang, path in po_of.items():
        locale = DIR_NAMES[lang]
        if path.exists():
            with path.open("rb") as fh:
                catalog = read_po(fh, locale=locale)
        else:
            catalog = Catalog(locale=locale, project="mahjong-ledger", fuzzy=False)
        catalog.update(pot, no_fuzzy_matching=True)  # a guessed translation would show unchecked
        _write(path, catalog)


def refresh_style(folder: Path) -> None:
    """Refresh one style folder's catalogues from its marked strings; nothing else changes."""
    _refresh(style_messages(folder), folder / STYLE_LOCALE / "messages.pot",
             {lang: style_po_path(folder, lang) for lang in LANGS})


def _ids(data: bytes, locale: str | None = None) -> set[str]:
    return {m.id for m in read_po(BytesIO(data), locale=locale) if m.id and isinstance(m.id, str)}


def _append(path: Path, messages: list[str], locale: str | None, width: int) -> None:
    """Append the messages a catalogue lacks at its end, with empty translations."""
    have = _ids(path.read_bytes(), locale)
    new = Catalog(locale=locale)
    for msgid in messages:
        if msgid not in have:
            new.add(msgid)
    if len(new):
        buf = BytesIO()
        write_po(buf, new, omit_header=True, width=width)
        with path.open("ab") as fh:
            fh.write(b"\n" + buf.getvalue().strip(b"\n") + b"\n")


def _drop(path: Path, stale: set[str]) -> None:
    """Take the entries of these messages out of a catalogue, leaving every other line as is."""
    blocks = path.read_text(encoding="utf-8").split("\n\n")
    kept = [b for b in blocks if not (_ids(b.encode("utf-8")) & stale)]
    path.write_text("\n\n".join(kept).rstrip("\n") + "\n", encoding="utf-8")


def refresh_shared() -> None:
    """The shared template and catalogues: new messages appended at the end, those no longer
    marked taken out of the template (a catalogue may keep them: they do no harm)."""
    messages = shared_messages()
    template = LOCALE_DIR / "messages.pot"
    stale = _ids(template.read_bytes()) - set(messages)
    if stale:
        _drop(template, stale)
    _append(template, messages, None, 76)  # the template's lines wrap, as pybabel wrote them
    for lang in LANGS:
        _append(po_path(lang), messages, DIR_NAMES[lang], 0)  # the catalogues' lines do not


def main(argv: list[str]) -> int:
    if not argv:
        refresh_shared()
        return 0
    folder = Path(argv[0]).resolve()
    if not (folder / "__init__.py").is_file():
        print(f"{argv[0]}: not a style folder (no __init__.py)", file=sys.stderr)
        return 2
    refresh_style(folder)
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
