"""Every user-visible string is translated into zh-Hans and zh-Hant, placeholders intact: in the
shared catalogues and in each style folder's own (scoring/variants/<style>/locale/, and the made-up
style's, tests/made_up_style/locale/)."""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest
from babel.messages.pofile import read_po

import bot.view.i18n
from bot.view.catalogues import shared_messages, style_folders, style_messages
from bot.view.i18n import (
    DIR_NAMES,
    KEYWORDS,
    LANGS,
    LOCALE_DIR,
    STYLE_LOCALE,
    catalog,
    gettext,
    lang_from_code,
    po_path,
    style_folder,
    style_po_path,
)
from bot.view.render import reason
from scoring import ScoringError, score
from scoring.variant import Variant, all_variants

ROOT = Path(__file__).resolve().parents[2]
TEMPLATE = LOCALE_DIR / "messages.pot"
REFRESH = f"refresh the catalogues as bot/view/i18n.py says:\n{bot.view.i18n.__doc__}"
PLACEHOLDER = re.compile(r"\{(\w+)\}")
MESSAGES = sorted(shared_messages())
MADE_UP = ROOT / "tests" / "made_up_style"
# every style folder with messages of its own keeps its own catalogues (one that marks no string
# needs none); the made-up style shows how a new one does
STYLES = [*(f for f in style_folders() if style_messages(f)), MADE_UP]
STYLE_LANGS = [(f, lang) for f in STYLES for lang in LANGS]


def _id(value: object) -> str:
    return value.name if isinstance(value, Path) else str(value)


def test_the_source_has_messages() -> None:
    assert len(MESSAGES) > 50
    assert style_messages(MADE_UP) and len(STYLES) > 1


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


def _translations(path: Path, lang: str) -> dict[str, str]:
    return {m.id: m.string for m in _read(path, DIR_NAMES[lang]) if m.string}


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


# -- the style folders' own catalogues -------------------------------------------------------


def test_every_folder_style_is_checked() -> None:
    """Every registered style that is a folder has its catalogues checked here."""
    folders = {f for v in all_variants().values() if (f := style_folder(v)) is not None}
    assert folders == set(style_folders()) and folders


def test_no_style_message_sits_in_the_shared_catalogues() -> None:
    """A message only a style folder marks is the style's own: the shared template and
    catalogues do not hold it (a refresh of the shared ones never asks for it)."""
    shared = {m.id for path in (TEMPLATE, *(po_path(lang) for lang in LANGS)) for m in _read(path)}
    for folder in STYLES:
        own = set(style_messages(folder)) - set(MESSAGES)
        assert own or folder != MADE_UP
        assert not own & shared, (folder.name, sorted(own & shared)[:3])


@pytest.mark.parametrize("folder", STYLES, ids=_id)
def test_a_style_template_is_up_to_date(folder: Path) -> None:
    template = folder / STYLE_LOCALE / "messages.pot"
    assert template.exists(), f"{folder} has no catalogues; {REFRESH}"
    assert {m.id for m in _read(template)} == set(style_messages(folder)), REFRESH


@pytest.mark.parametrize(("folder", "lang"), STYLE_LANGS, ids=_id)
def test_a_style_catalogue_translates_its_messages(folder: Path, lang: str) -> None:
    path = style_po_path(folder, lang)
    entries = _read(path, DIR_NAMES[lang])
    messages = style_messages(folder)
    assert {m.id for m in entries} >= set(messages), REFRESH
    assert not [m.id for m in entries if m.fuzzy], f"fuzzy entries in {path}"
    texts = _translations(path, lang)
    if lang != "en":
        missing = [m for m in messages if not texts.get(m)]
        assert not missing, f"{len(missing)} untranslated in {path}: {missing[:5]}"
    for msgid in messages:
        text = texts.get(msgid, msgid)
        assert set(PLACEHOLDER.findall(text)) == set(PLACEHOLDER.findall(msgid)), (path, msgid)
        assert text.count("\n") == msgid.count("\n"), (path, msgid[:40])
    with path.open("rb") as fh:
        read_po(fh, abort_invalid=True)


@pytest.mark.parametrize("lang", LANGS)
def test_catalogues_agree_where_they_share_a_message(lang: str) -> None:
    """The bot merges the catalogues into one: a message two of them hold reads the same in both."""
    seen = {m: (TEMPLATE.parent.name, text) for m, text in _translations(po_path(lang), lang).items()}
    for folder in STYLES:
        for msgid, text in _translations(style_po_path(folder, lang), lang).items():
            where, before = seen.setdefault(msgid, (folder.name, text))
            assert before == text, f"{msgid!r}: {where} says {before!r}, {folder.name} {text!r}"


def _toy_refusal() -> ScoringError:
    with pytest.raises(ScoringError) as exc:
        score({"variant": "toy", "events": [{"type": "exhausted"}, {"type": "exhausted"}]})
    return exc.value


def test_a_registered_style_brings_its_own_catalogues(made_up_style: Variant) -> None:
    """The made-up style's refusal is in no shared catalogue: the bot reads it from the style's
    folder, in the chat's language, while the style is registered."""
    exc = _toy_refusal()
    assert reason(bot.view.i18n.translator("zh-Hans"), "zh-Hans", exc, ["A", "B", "C", "D"]) == (
        "玩具麻将一局在唯一的胡牌或牌墙摸完时结束；events[0] 之后不能再有事件")
    assert gettext("zh-Hant", exc.template, event="events[0]") == (
        "玩具麻將一局在唯一的胡牌或牌牆摸完時結束；events[0] 之後不能再有事件")
    assert exc.template not in {m.id for m in _read(TEMPLATE)}


def test_an_unregistered_style_brings_nothing() -> None:
    template = style_messages(MADE_UP)[0]
    assert template not in catalog("zh-Hans")
    assert gettext("zh-Hans", template, event="events[0]").startswith("a toy hand")


def test_the_package_ships_every_style_catalogue() -> None:
    """pyproject.toml's package-data takes each style folder's catalogues into the wheel."""
    import fnmatch
    import tomllib

    data = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    globs = data["tool"]["setuptools"]["package-data"]["scoring"]
    for folder in style_folders():
        for lang in LANGS:
            path = style_po_path(folder, lang).relative_to(ROOT / "scoring").as_posix()
            assert any(fnmatch.fnmatch(path, g) for g in globs), path
