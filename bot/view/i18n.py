"""Translations: gettext catalogues (Babel .po files) for zh-Hans, zh-Hant and en.

Source strings are English msgids: in bot/ marked with `t(...)`, `N_(...)` or raised as
`LineError(...)` / `ImportError_(...)`; in scoring/ the templates of `ScoringError` (its second
argument), of validators' `invalid(...)` and of scoring.errors' `_msg(...)`, so the bot can explain
a refused hand in the chat's language.

Two kinds of catalogue, merged when the bot reads them:
- the shared ones, `bot/locale/<lang>/LC_MESSAGES/messages.po` (template `bot/locale/messages.pot`):
  every marked string in bot/ and scoring/ outside a style folder;
- a style folder's own (a style that is a package, like `scoring/variants/mcr/`):
  `<folder>/locale/{en,zh_Hans,zh_Hant}.po` (template `<folder>/locale/messages.pot`): the marked
  strings in that folder. They are loaded for every registered style, so a style added as a folder
  brings its messages with it and never edits the shared catalogues.
tests/bot/test_i18n.py checks that every marked string is translated in every catalogue.

Refreshing after changing marked strings (`bot/view/catalogues.py`; then fill in the new, empty
msgstr entries; the loader reads the .po files, no .mo needed):

    .venv/bin/python -m bot.view.catalogues scoring/variants/<style>   # one style folder only
    .venv/bin/python -m bot.view.catalogues                            # the shared catalogues

A style folder's refresh writes only that folder's `locale/`. The shared refresh rewrites the
shared template and appends the new messages at the end of each shared catalogue, moving nothing.
"""

from __future__ import annotations

import sys
from dataclasses import dataclass
from functools import cache
from pathlib import Path

from babel.messages.pofile import read_po

from scoring.variant import Variant, all_variants, registry_changes

LANGS = ("zh-Hans", "zh-Hant", "en")
DEFAULT_LANG = "en"
LOCALE_DIR = Path(__file__).parents[1] / "locale"  # bot/locale, shipped as bot package data
DIR_NAMES = {"zh-Hans": "zh_Hans", "zh-Hant": "zh_Hant", "en": "en"}
# Where marked strings are and how they are marked (the command above, as data for the tests).
SOURCE_DIRS = ("bot", "scoring")
KEYWORDS: dict[str, tuple[int, ...] | None] = {
    "t": None, "N_": None, "LineError": None, "ImportError_": None,
    "ScoringError": (2,), "IncompleteHand": (2,), "invalid": None, "_msg": None,
}
LANG_NAMES = {"zh-Hans": "简体中文", "zh-Hant": "繁體中文", "en": "English"}


STYLE_LOCALE = "locale"  # a style folder's catalogues: <folder>/locale/<lang>.po


def po_path(lang: str) -> Path:
    """The shared catalogue of a language."""
    return LOCALE_DIR / DIR_NAMES[lang] / "LC_MESSAGES" / "messages.po"


def style_po_path(folder: Path, lang: str) -> Path:
    """A style folder's own catalogue of a language."""
    return folder / STYLE_LOCALE / f"{DIR_NAMES[lang]}.po"


def style_folder(variant: Variant) -> Path | None:
    """The folder of a style that is a package (its `Variant` in the folder's `__init__.py`),
    where its own catalogues live; None for a style that is one module."""
    return _folder_of(type(variant).__module__)


@cache
def _folder_of(module: str) -> Path | None:
    path = Path(getattr(sys.modules.get(module), "__file__", None) or "")
    return path.parent if path.name == "__init__.py" else None


@cache
def _read(path: Path, lang: str) -> dict[str, str]:
    if not path.exists():
        return {}
    with path.open("rb") as fh:
        cat = read_po(fh, locale=DIR_NAMES[lang])  # Babel spells locales zh_Hans
    return {m.id: m.string for m in cat if m.id and isinstance(m.id, str) and m.string}


_CURRENT: dict[str, tuple[int, dict[str, str]]] = {}  # lang → (registry_changes(), catalogue)


def catalog(lang: str) -> dict[str, str]:
    """Every translation of a language: the shared catalogue and those of the registered styles'
    folders (the test that registers a style of its own brings its catalogues for that test)."""
    known = _CURRENT.get(lang)
    if known is not None and known[0] == registry_changes():
        return known[1]
    folders = tuple(f for v in all_variants().values() if (f := style_folder(v)) is not None)
    merged = _merged(lang, folders)
    _CURRENT[lang] = (registry_changes(), merged)  # read after all_variants() loaded them all
    return merged


@cache
def _merged(lang: str, folders: tuple[Path, ...]) -> dict[str, str]:
    merged = dict(_read(po_path(lang), lang))
    for folder in folders:  # a message a style shares with bot/ or scoring/ keeps the shared words
        for msgid, text in _read(style_po_path(folder, lang), lang).items():
            merged.setdefault(msgid, text)
    return merged


def gettext(lang: str, msgid: str, **kwargs: object) -> str:
    text = catalog(lang).get(msgid) or msgid
    return text.format(**kwargs) if kwargs else text


def lang_from_code(code: str | None) -> str:
    """A Telegram user's language_code → one of LANGS (Chinese script by region)."""
    if not code:
        return DEFAULT_LANG
    code = code.lower().replace("_", "-")
    if code.startswith("zh"):
        hant = any(tag in code for tag in ("hant", "tw", "hk", "mo"))
        return "zh-Hant" if hant else "zh-Hans"
    return "en"


@dataclass(frozen=True)
class Translator:
    """t("Seat {n}", n=2) in one language; `lang` lets renderers pick punctuation and units."""

    lang: str

    def __call__(self, msgid: str, /, **kwargs: object) -> str:
        return gettext(self.lang, msgid, **kwargs)


def translator(lang: str) -> Translator:
    """The translator for one of LANGS."""
    return Translator(lang)


def N_(msgid: str) -> str:
    return msgid
