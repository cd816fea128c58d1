"""Every user-visible string is translated into zh-Hans and zh-Hant, placeholders intact."""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest
from babel.messages.extract import extract_from_dir
from babel.messages.pofile import read_po

import bot.view.i18n
from bot.view.i18n import KEYWORDS, LANGS, LOCALE_DIR, SOURCE_DIRS, catalog, gettext, lang_from_code, po_path

ROOT = Path(__file__).resolve().parents[2]
TEMPLATE = LOCALE_DIR / "messages.pot"
REFRESH = f"refresh the catalogues as bot/view/i18n.py says:\n{bot.view.i18n.__doc__}"
PLACEHOLDER = re.compile(r"\{(\w+)\}")


def source_messages() -> set[str]:
    found = set()
    for folder in SOURCE_DIRS:
        for _file, _line, message, _comments, _context in extract_from_dir(
                str(ROOT / folder), keywords=KEYWORDS):
            found.add(message)
    return found


MESSAGES = sorted(source_messages())


def test_the_source_has_messages() -> None:
    assert len(MESSAGES) > 50


@pytest.mark.parametrize("lang", ["zh-Hans", "zh-Hant"])
def test_every_message_is_translated(lang: str) -> None:
    missing = [m for m in MESSAGES if not catalog(lang).get(m)]
    assert not missing, f"{len(missing)} untranslated in {lang}: {missing[:10]}"


@pytest.mark.parametrize("lang", LANGS)
def test_placeholders_survive_translation(lang: str) -> None:
    for msgid in MESSAGES:
        text = catalog(lang).get(msgid, msgid)
        assert set(PLACEHOLDER.findall(text)) == set(PLACEHOLDER.findall(msgid)), (lang, msgid)


def _read(path: Path, locale: str | None = None) -> list:
    with path.open("rb") as fh:
        return [m for m in read_po(fh, locale=locale) if m.id]


def test_the_template_is_up_to_date() -> None:
    assert {m.id for m in _read(TEMPLATE)} == set(MESSAGES), REFRESH


@pytest.mark.parametrize("lang", LANGS)
def test_catalogues_follow_the_template(lang: str) -> None:
    """`pybabel update` was run: every msgid is in the catalogue, and no fuzzy guess is live."""
    entries = _read(po_path(lang), locale=po_path(lang).parent.parent.name)
    assert {m.id for m in entries} >= set(MESSAGES), REFRESH
    fuzzy = [m.id for m in entries if m.fuzzy]
    assert not fuzzy, f"fuzzy entries in {lang} (check the translation, drop the flag): {fuzzy[:5]}"


@pytest.mark.parametrize("lang", ["zh-Hans", "zh-Hant"])
def test_line_structure_survives_translation(lang: str) -> None:
    for msgid in MESSAGES:
        text = catalog(lang).get(msgid, msgid)
        assert text.count("\n") == msgid.count("\n"), (lang, msgid[:40])


def test_scripts_differ_where_they_should() -> None:
    assert gettext("zh-Hans", "Hand entry cancelled.") != gettext("zh-Hant", "Hand entry cancelled.")


@pytest.mark.parametrize(("code", "lang"), [(None, "en"), ("en-US", "en"), ("zh-hans", "zh-Hans"),
                                            ("zh-CN", "zh-Hans"), ("zh", "zh-Hans"),
                                            ("zh-TW", "zh-Hant"), ("zh-hk", "zh-Hant"),
                                            ("zh-hant", "zh-Hant"), ("fr", "en")])
def test_language_from_telegram_code(code: str | None, lang: str) -> None:
    assert lang_from_code(code) == lang


def _error_calls() -> list[tuple[str, int, ast.expr]]:
    """Every call in scoring/ whose argument is a message template, with that argument."""
    calls = []
    for path in sorted((ROOT / "scoring").rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Name):
                spec = KEYWORDS.get(node.func.id, False)
                if spec is not False:
                    calls.append((path.name, node.lineno, node.args[(spec or (1,))[0] - 1]))
    return calls


def test_scoring_errors_raise_literal_templates() -> None:
    """A reason the bot shows must be a msgid: a literal template, its changing parts given as
    keyword arguments (an f-string would make every message a new, untranslated key). Only
    re-raising a caught error's `.template` is allowed besides."""
    calls = _error_calls()
    assert len(calls) > 120
    bad = [(f, n) for f, n, arg in calls
           if not (isinstance(arg, ast.Constant) and isinstance(arg.value, str))
           and not (isinstance(arg, ast.Attribute) and arg.attr == "template")]
    assert not bad, f"ScoringError with a non-literal template at {bad}"


@pytest.mark.parametrize("lang", LANGS)
def test_catalogues_parse_without_a_broken_entry(lang: str) -> None:
    """A merge that leaves an msgid without its msgstr only warns when the bot loads it."""
    with po_path(lang).open("rb") as fh:
        read_po(fh, abort_invalid=True)
