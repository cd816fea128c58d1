"""Translations: gettext catalogues (Babel .po files) for zh-Hans, zh-Hant and en.

Source strings are English msgids: in bot/ marked with `t(...)`, `N_(...)` or raised as
`LineError(...)` / `ImportError_(...)`; in scoring/ the templates of `ScoringError` (its second
argument), of validators' `invalid(...)` and of scoring.errors' `_msg(...)`, so the bot can explain
a refused hand in the chat's language.
tests/bot/test_i18n.py checks that every marked string is translated in every catalogue.

Refreshing the catalogues after changing marked strings (then fill in the new msgstr entries;
the loader reads the .po files, no .mo needed):

    .venv/bin/pybabel extract -k t -k N_ -k LineError -k ImportError_ -k ScoringError:2 \
        -k IncompleteHand:2 -k invalid -k _msg --no-location -o bot/locale/messages.pot bot scoring
    .venv/bin/pybabel update -i bot/locale/messages.pot -d bot/locale -D messages
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache
from pathlib import Path

from babel.messages.pofile import read_po

LANGS = ("zh-Hans", "zh-Hant", "en")
DEFAULT_LANG = "en"
LOCALE_DIR = Path(__file__).parents[1] / "locale"  # bot/locale, shipped as bot package data
_DIR_NAMES = {"zh-Hans": "zh_Hans", "zh-Hant": "zh_Hant", "en": "en"}
# Where marked strings are and how they are marked (the command above, as data for the tests).
SOURCE_DIRS = ("bot", "scoring")
KEYWORDS: dict[str, tuple[int, ...] | None] = {
    "t": None, "N_": None, "LineError": None, "ImportError_": None,
    "ScoringError": (2,), "IncompleteHand": (2,), "invalid": None, "_msg": None,
}
LANG_NAMES = {"zh-Hans": "简体中文", "zh-Hant": "繁體中文", "en": "English"}


def po_path(lang: str) -> Path:
    return LOCALE_DIR / _DIR_NAMES[lang] / "LC_MESSAGES" / "messages.po"


@cache
def catalog(lang: str) -> dict[str, str]:
    path = po_path(lang)
    if not path.exists():
        return {}
    with path.open("rb") as fh:
        cat = read_po(fh, locale=_DIR_NAMES[lang])  # Babel spells locales zh_Hans
    return {m.id: m.string for m in cat if m.id and isinstance(m.id, str) and m.string}


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
