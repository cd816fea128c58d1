"""HTML for the chat: seat labels, outcome lines, tables. Every name goes through `esc`."""

from __future__ import annotations

import html
import re
import unicodedata
from collections.abc import Sequence
from typing import Any

from db import without_bidi_controls
from scoring.errors import ScoringError, seat_params
from scoring.outcome import Outcome
from scoring.settlement import format_cents
from scoring.variant import Variant, in_lang, term_name

from .i18n import N_, Translator

WINDS = (N_("East"), N_("South"), N_("West"), N_("North"))
NAME_MAX = 24


MINUS = "−"  # one minus sign in every message (U+2212), for points and money alike


def money(cents: int) -> str:
    return format_cents(cents).replace("-", MINUS)


def is_zh(t: Translator) -> bool:
    return t.lang.startswith("zh")


def colon(t: Translator) -> str:
    """": " in English, "：" in Chinese text."""
    return "：" if is_zh(t) else ": "


def comma(t: Translator) -> str:
    """", " in English, "，" in Chinese text."""
    return "，" if is_zh(t) else ", "


def semicolon(t: Translator) -> str:
    """"; " in English, "；" in Chinese text."""
    return "；" if is_zh(t) else "; "


def listing(t: Translator) -> str:
    """Between the items of a list: ", " in English, "、" in Chinese text."""
    return "、" if is_zh(t) else ", "


def and_list(t: Translator, items: Sequence[str]) -> str:
    """"A and B", "A, B and C" in English; "A、B、C" in Chinese text."""
    if is_zh(t) or len(items) < 2:
        return listing(t).join(items)
    return ", ".join(items[:-1]) + " " + t("and") + " " + items[-1]


def styles_named(t: Translator, variants: Sequence[Variant]) -> str:
    """Styles by their short names in running text: "Luzhou and Guiyang", "泸州、贵阳"."""
    return and_list(t, [in_lang(v.short, t.lang) for v in variants])


def with_unit(t: Translator, text: str, u: str) -> str:
    """"+13 ke" in English, "+13颗" in Chinese."""
    if not u:
        return text
    return f"{text}{u}" if is_zh(t) else f"{text} {u}"


def esc(text: object) -> str:
    return html.escape(str(text), quote=False)


def short(name: str, limit: int = NAME_MAX) -> str:
    return name if len(name) <= limit else name[: limit - 1] + "…"


FSI, PDI = "\u2068", "\u2069"  # first-strong isolate … pop directional isolate
_RTL = frozenset({"R", "AL", "AN"})


def shown_name(name: str, limit: int | None = NAME_MAX) -> str:
    """A person's name as every message and button shows it (plain text): without bidirectional
    controls, shortened to `limit`, and kept in its own isolate (FSI … PDI) when it holds
    right-to-left letters or digits, so that it cannot reorder the points beside it. A name of
    left-to-right letters only reads the same either way and stays as it is."""
    name = without_bidi_controls(name)
    name = short(name, limit) if limit else name
    if any(unicodedata.bidirectional(c) in _RTL for c in name):
        return f"{FSI}{name}{PDI}"
    return name


def name_html(name: str, limit: int | None = None) -> str:
    """`shown_name` for a message's HTML."""
    return esc(shown_name(name, limit))


def wind(t: Translator, seat: int) -> str:
    return t(WINDS[seat])


def seat_label(t: Translator, seat: int, names: Sequence[str | None], *, html_out: bool = True) -> str:
    """"East Alice" — for buttons (plain text) or messages (escaped HTML)."""
    name = names[seat] if seat < len(names) and names[seat] else t("(empty)")
    text = f"{wind(t, seat)} {shown_name(name)}"
    return esc(text) if html_out else text


def reason(t: Translator, lang: str, exc: ScoringError, names: Sequence[str | None],
           variant: Variant | None = None) -> str:
    """Why scoring refused a hand, in the chat's language with seats as players (plain text:
    escape it before it goes into HTML)."""
    def players(seats: list[int]) -> str:
        return listing(t).join(seat_label(t, int(s), names, html_out=False) for s in seats)

    params = seat_params(exc.params, players)
    if variant is not None and params.get("variant") == variant.name:  # its title, not its key
        params["variant"] = in_lang(variant.title, lang)
    return plain_words(t, t(exc.template, **params), variant)


# The house rules' names, as the /rules screen shows them and refusals name them
RULE_LABELS = {
    "ghosts": N_("Ghost tiles"), "cap": N_("Cap (0 = none)"),
    "one_ke_discard": N_("Plain hand may win off a discard (1颗)"),
    "no_ghost_steps": N_("无鬼 steps"), "ready_pay": N_("查叫 pays"),
    "ghost_bonus": N_("喜钱 amount"), "ghost_bonus_mode": N_("喜钱 when"),
    "pure_seven_pairs": N_("清七对 value"), "self_draw_bonus": N_("Self-draw bonus"),
    "streak_bonus": N_("Dealer streak bonus"), "gold_chicken": N_("金鸡 value"),
    "hero_chicken": N_("英雄鸡 value"), "count_discarded_yaoji": N_("Count discarded 幺鸡"),
    "bao_ji": N_("包鸡: not-ready seats pay their chickens"),
    "discarder_extra": N_("Discarder pays extra"), "dealer_extra": N_("Dealer extra"),
    "exposed_kong_discarder": N_("Exposed kong: discarder pays extra"),
    "level_points": N_("Points per level"), "false_win_points": N_("False win (炸胡) pays"),
    "discard_wins": N_("Wins off a discard allowed"), "rob_multiplier": N_("Robbed kong multiplier"),
    "three_feed": N_("三凑承包"), "jing_on_exhausted": N_("精 bonus on an exhausted wall"),
    "cap_applies": N_("The cap limits"), "kong_discard_steps": N_("杠上炮/抢杠 steps"),
    "flower_cat": N_("花猫 (three suits at the end)"), "follow_pay": N_("跟张 pays"),
    "self_draw_needs_fan": N_("A self-draw needs a 番"),
    "concealed_kong_keeps_menqing": N_("A concealed kong keeps 门清"),
    "kongs_on_exhausted": N_("Kongs on an exhausted wall"),
}


def rule_label(t: Translator, variant: Variant, key: str) -> str:
    """A house rule's name as /rules shows it: the shared label, else the variant's own term
    for it, else its key."""
    if key in RULE_LABELS:
        return t(RULE_LABELS[key])
    if key in variant.terms:
        return term(variant, key, t.lang)
    return key


RAW_KEY = re.compile(r"\s?[（(]([a-z]+(?:_[a-z0-9]+)+)(?::\s*[^)）]*)?[)）]|\b([a-z]+(?:_[a-z0-9]+)+)\b")


def plain_words(t: Translator, text: str, variant: Variant | None = None) -> str:
    """Scoring's reasons name rules and fields by their keys ("only with rule one_ke_discard",
    "清一色（pure）"): a key in brackets after its own name goes, a rule key reads as the
    /rules screen names it, a feature key as the variant's term."""
    lang = t.lang

    def word(m: re.Match[str]) -> str:
        if m.group(1):  # a gloss in brackets: the name it glosses is right before it
            return ""
        key = m.group(2)
        if key in RULE_LABELS:
            name = t(RULE_LABELS[key])
            return f"「{name}」" if is_zh(t) else f"“{name}”"
        if variant is not None and key in variant.terms:
            return term(variant, key, lang)
        return key.replace("_", " ") if not is_zh(t) else key

    out = RAW_KEY.sub(word, text)
    return re.sub(r"\s*(「[^」]*」)\s*", r"\1", out) if is_zh(t) else out


def plural(t: Translator, n: int, forms: tuple[str, str], **kwargs: object) -> str:
    """A counted phrase in the chat's language, `forms` being its msgids for one and for any
    other count ("{n} chat", "{n} chats"): English says "1 chat" and "3 chats"; Chinese has one
    form, and both msgids translate the same."""
    return t(forms[0] if n == 1 else forms[1], n=n, **kwargs)


def hands_count(t: Translator, n: int) -> str:
    """"1 hand", "4 hands" (Chinese: "4 局")."""
    return t("1 hand") if n == 1 else t("{n} hands", n=n)


def signed(n: int) -> str:
    return f"+{n}" if n > 0 else ("±0" if n == 0 else f"−{-n}")


def term(variant: Variant, key: str, lang: str) -> str:
    return term_name(variant.terms, key, lang)


def unit(variant: Variant, lang: str) -> str:
    return in_lang(variant.unit, lang)


def term_points(variant: Variant, key: str) -> int | None:
    """What a term is worth where the variant's terms carry points (`Variant.term_points`):
    "pure_double_chow:2" counts twice; None for a term that is no element."""
    name, _, times = key.partition(":")
    points = variant.term_points.get(name)
    if points is None:
        return None
    return points * (int(times) if times.isdigit() else 1)


def deltas_text(t: Translator, deltas: Sequence[int]) -> str:
    return " · ".join(f"{wind(t, s)} {signed(d)}" for s, d in enumerate(deltas) if d)


# Where the discarder (or robbed kong's owner) pays half the hand's value, not all of it
# (`Variant.discard_pays_half`), the line says so, else "大对子 10颗" beside −5 reads wrong.
HALF_NOTES = {"discard": N_("the discarder pays half"),
              "robbed_kong": N_("the kong's owner pays half")}


def outcome_lines(t: Translator, lang: str, variant: Variant, names: Sequence[str | None],
                  outcome: Outcome, events: Sequence[dict[str, Any]] = ()) -> list[str]:
    """One readable HTML line per payment item, in the chat's language; `events` (the hand's)
    tell how each winner won, for the variants where a discard pays half."""
    out = []
    u = unit(variant, lang)
    won_by = {w.get("seat"): ev.get("by") for ev in events if ev.get("type") == "win"
              for w in ev.get("winners") or []} if variant.discard_pays_half else {}
    worth = in_lang(variant.value_unit, lang) if variant.value_unit else u
    for line in outcome.lines:
        who = seat_label(t, line.seat, names) if line.seat is not None else ""
        what = line.what
        terms = [k for k in line.terms if k != what]
        label = term(variant, what, lang) if what in variant.terms and what != "win" else ""
        pointed = bool(terms) and all(term_points(variant, k) is not None for k in terms)
        named = (" · ".join(f"{esc(term(variant, k, lang))} {term_points(variant, k)}" for k in terms)
                 if pointed else " ".join(esc(term(variant, k, lang)) for k in terms))
        parts = [p for p in (label, named) if p]
        value = ""
        if line.value is not None:  # a table of elements: "七对 24 · 自摸 1 = 25番"
            shown = with_unit(t, str(line.value), worth if what == "win" else u)
            value = (" = " if pointed else " ") + esc(shown)
        how = won_by.get(line.seat) if line.what == "win" else None
        if value and how in HALF_NOTES:
            value += esc(comma(t) + t(HALF_NOTES[how]))
        head = f"<b>{who}</b> " if who else ""
        body = esc(" ".join(parts)) if not terms else " ".join(parts)
        value = value if body else value.lstrip()  # a hand entered by its total alone
        out.append(f"• {head}{body}{value}{colon(t)}{deltas_text(t, line.deltas) or '±0'}")
    return out


def totals_block(t: Translator, names: Sequence[str | None], totals: Sequence[int],
                 stake_cents: int = 0, dealer: int | None = None, u: str = "") -> list[str]:
    """A line a seat: points in the variant's unit `u`, money at the stake; 🀄 marks the
    dealer, explained on a legend line."""
    rows = []
    for s, pts in enumerate(totals):
        mark = " 🀄" if dealer == s else ""
        cash = f"  ({money(pts * stake_cents)})" if stake_cents else ""
        rows.append(f"{seat_label(t, s, names)}{mark}{colon(t)}<b>{esc(with_unit(t, signed(pts), u))}"
                    f"</b>{cash}")
    if dealer is not None:
        rows.append(esc(t("🀄 deals the next hand.")))
    return rows
