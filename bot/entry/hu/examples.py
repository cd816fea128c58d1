"""/help's /hu lines, drawn from the chat's style in the chat's language: its own feature words,
counts, two winners where it has them, win after win in a blood battle, a line of tiles where it
reads tiles (the turned tile where its jokers follow one), an exhausted wall with 查叫 where it
has one. Each line is one the style accepts: it is read as /hu reads it (words, tiles, 查叫)
and checked as /hu checks it before it is shown, so an example can never be refused."""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache
from itertools import combinations
from typing import Any

from scoring import ScoringError
from scoring.variant import Variant, in_lang, term_name

from ...view.i18n import N_, Translator, translator
from .. import controls
from ..controls import Kind
from ..ctx import Ctx
from ..record import hand_state
from ..screens import COMMON_LABELS
from . import parse_wins
from .ready import read_ready
from .tiles import TURNED_EXAMPLE, read_tiles
from .words import LineError

SEATS = {"en": ("E", "S", "W", "N"), "zh-Hans": ("东", "南", "西", "北"),
         "zh-Hant": ("東", "南", "西", "北")}
SELF_DRAW = {"en": "self-draw", "zh-Hans": "自摸", "zh-Hant": "自摸"}
FROM = {"en": "from", "zh-Hans": "点炮", "zh-Hant": "點炮"}
EXHAUSTED = {"en": "exhausted", "zh-Hans": "流局", "zh-Hant": "流局"}
THEN = {"en": "; ", "zh-Hans": "；", "zh-Hant": "；"}  # one win, then the next
NOT_READY = "不听"
# winning hands tried in turn for the line of tiles: the first the style takes is shown
TILE_HANDS = ("123m456m789m123p55p+5p", "123m456m789m11p555p+5p", "111m234m567m789m99m+9m",
              "123m456m789m123p5p+5p")
# 13 tiles per seat at an exhausted wall: a ready hand, and one more
READY_HANDS = (("111m222m333p44p55p", "123m456m789p123p4p"), ("111m222m333m44m55m", "123m456m789m12m3m"))
COUNTS = (2, 24, 8, 1)  # a count's values tried in turn
TERM_POINTS, MAX_TERMS = 24, 12  # elements named in an example: worth at most 24, the first 12


@dataclass(frozen=True)
class Examples:
    """The lines, each with what it shows: `words` (two: self-drawn and off a discard), `count`,
    `two` (two winners on one discard), `battle` (win after win), `tiles`, `ready` (查叫)."""

    words: tuple[str, ...] = ()
    count: str = ""
    two: str = ""
    battle: str = ""
    tiles: str = ""
    ready: str = ""


def example_ctx(variant: Variant, lang: str) -> Ctx:
    """The first hand of a session of the style under its default rules, nobody named."""
    rules = variant.read_rules({})
    base: dict[str, Any] = {"variant": variant.name, "rules": variant.resolved_rules({}),
                            "dealer": 0, "dealer_streak": 1, "round_wind": 0}
    start = variant.initial_balances(rules)
    if any(start):
        base["balances"] = list(start)
    return Ctx(variant=variant, lang=lang, names=[None] * 4, base=base)


def accepted(ctx: Ctx, line: str) -> list[dict[str, Any]] | None:
    """The events of a /hu line when /hu takes it (its words, tiles and 查叫 read, and the hand
    whole or going on, never refused), else None."""
    try:
        events = parse_wins(ctx.variant, line.split()[1:], ctx.names)
        read_tiles(ctx.variant, ctx.base, events)
        read_ready(ctx.variant, ctx.base, events)
    except (LineError, ScoringError):
        return None
    _, refused = hand_state(ctx, events)
    return None if refused is not None else events


@cache
def help_examples(variant: Variant, lang: str) -> Examples:
    """The style's example lines in `lang` (made once per style and language)."""
    ctx = example_ctx(variant, lang)
    seat = SEATS[lang]
    features = _features(variant, lang)

    def first(lines: list[tuple[str, dict[str, Any] | None]]) -> str:
        """The first line taken as meant (`meant`: its first winner's fields, when words)."""
        for line, meant in lines:
            events = accepted(ctx, line)
            if events is not None and (meant is None or _as_meant(events, meant)):
                return line
        return ""

    def said(words: list[tuple[str, dict[str, Any]]]) -> tuple[str, dict[str, Any]]:
        return " ".join(w for w, _ in words), {k: v for _, f in words for k, v in f.items()}

    flags = [f for f in features if f[2] == "flag"]
    pairs = [said([a[:2], b[:2]]) for a, b in combinations(flags, 2) if not a[1].keys() & b[1].keys()]
    ones = [said([f[:2]]) for f in features if f[2] != "count"]
    drawn = first([(f"/hu {seat[1]} {SELF_DRAW[lang]} {text}", meant)
                   for text, meant in [*pairs, *ones]])
    used = drawn.split()[3:]
    off = first([(f"/hu {seat[2]} {FROM[lang]} {seat[3]} {text}", meant)
                 for text, meant in [*ones, *pairs] if text.split() != used]
                + [(f"/hu {seat[2]} {FROM[lang]} {seat[3]} {text}", meant) for text, meant in ones])
    count = first([(f"/hu {seat[1]} {SELF_DRAW[lang]} {text}", meant)
                   for text, meant, kind in features if kind == "count"])
    words = tuple(x for x in (drawn, off) if x)
    two = battle = ""
    if variant.multi_winner:
        two = first([(f"/hu {seat[1]} {a} + {seat[3]} {b} {FROM[lang]} {seat[0]}", None)
                     for a, _ in ones for b, _ in ones if a != b]
                    + [(f"/hu {seat[1]} {a} + {seat[3]} {a} {FROM[lang]} {seat[0]}", None)
                       for a, _ in ones])
    if variant.blood_battle and drawn:
        rest = " ".join(drawn.split()[1:])
        then = THEN[lang]
        battle = first([(f"/hu {rest}{then}{seat[2]} {FROM[lang]} {seat[3]} {a}{then}{seat[0]} "
                         f"{SELF_DRAW[lang]}", None) for a, _ in ones])
    return Examples(words=words, count=count, two=two, battle=battle,
                    tiles=_tiles(ctx, first, seat, lang), ready=_ready(ctx, first, seat, lang))


def _tiles(ctx: Ctx, first: Any, seat: tuple[str, ...], lang: str) -> str:
    v = ctx.variant
    if v.tiles is None or v.cannot_count() is not None:
        return ""
    turned = f" {TURNED_EXAMPLE}" if v.tiles.indicator else ""
    return str(first([(f"/hu {seat[1]} {SELF_DRAW[lang]} {hand}{turned}", None)
                      for hand in TILE_HANDS]))


def _ready(ctx: Ctx, first: Any, seat: tuple[str, ...], lang: str) -> str:
    if not ctx.variant.ready_fields or ctx.variant.tiles is None:
        return ""
    lines = [f"/hu {EXHAUSTED[lang]} {seat[0]} {a} {seat[1]} {b}" for a, b in READY_HANDS]
    lines += [f"/hu {EXHAUSTED[lang]} {seat[0]} {a} {seat[1]} {NOT_READY}" for a, _ in READY_HANDS]
    return str(first([(line, None) for line in lines]))


def _as_meant(events: list[dict[str, Any]], meant: dict[str, Any]) -> bool:
    """The line's first winner has exactly the fields the words were meant to set."""
    winner = next((e["winners"][0] for e in events if e.get("winners")), None)
    return winner is not None and {k: v for k, v in winner.items() if k != "seat"} == meant


def _features(variant: Variant, lang: str) -> list[tuple[str, dict[str, Any], str]]:
    """(the words, the winner's fields they set, "flag" or "count") for each feature the
    style's winner has a word for, in the order its form shows them."""
    out: list[tuple[str, dict[str, Any], str]] = []
    unit = in_lang(variant.value_unit, lang) if variant.value_unit else None
    for spec in controls.fields_of(variant.Winner):
        if spec.name == "seat":
            continue
        if spec.kind is Kind.BOOL:
            out.append((_word(variant, spec.name, lang), {spec.name: True}, "flag"))
        elif spec.kind is Kind.CHOICE:
            out += [(_word(variant, str(c), lang), {spec.name: c}, "flag")
                    for c in spec.choices if c != spec.default]
        elif spec.kind is Kind.INT:
            name = _word(variant, spec.name, lang)
            for n in COUNTS:
                if not spec.lo <= n <= spec.hi or n == spec.default:
                    continue
                if name == unit:  # an amount: 24番, 24 points
                    forms = [f"{n}{name}" if lang != "en" else f"{n} {name}"]
                else:  # quad=2, 闺2; a name of several words by its key: fly_jing=2
                    forms = [f"{name}={n}" if lang == "en" else f"{name}{n}", f"{spec.name}={n}"]
                out += [(text, {spec.name: n}, "count") for text in dict.fromkeys(forms)
                        if " " not in text or text[0].isdigit()]
        elif spec.kind is Kind.TERMS:  # an element named, one of the table's middle ones
            terms = [k for k, p in sorted(variant.term_points.items(), key=lambda kv: -kv[1])
                     if p <= TERM_POINTS]
            out += [(_word(variant, k, lang), {spec.name: [k]}, "term")
                    for k in terms[:MAX_TERMS]]
    return out


def _word(variant: Variant, key: str, lang: str) -> str:
    """A field's or value's name as the screens of `lang` show it (its key where none)."""
    if key in variant.terms:
        return term_name(variant.terms, key, lang)
    if key in COMMON_LABELS:
        return translator(lang)(COMMON_LABELS[key])
    return key


HELP_TWO = N_("  two winners on one discard: {line}")
HELP_BATTLE = N_("  win after win: {line}")
HELP_COUNT = N_("  a count: {line}")
HELP_TILES = N_("  or the tiles in place of feature words: {line} (mps or 一万 二筒 …; melds as "
                "[555p], the winning tile as +7s)")
HELP_TURNED = N_("  the tile turned up, which the jokers follow: turned=5m or 翻=5m")
HELP_JOKER = N_("  the tile turned up, which the jokers follow: turned=5m or 翻=5m, or the joker "
                "itself: {joker}")
HELP_READY = N_("  the wall ran out (查叫): {line} — each seat still in with its 13 tiles, its "
                "ready features or 不听; a seat left out is not ready.")


def help_lines(variant: Variant, t: Translator) -> list[str]:
    """/help's /hu lines for the style, in `t`'s language, each captioned (plain text)."""
    ex = help_examples(variant, t.lang)
    lines = [f"  {line}" for line in ex.words]
    for caption, line in ((HELP_COUNT, ex.count), (HELP_TWO, ex.two), (HELP_BATTLE, ex.battle),
                          (HELP_TILES, ex.tiles)):
        if line:
            lines.append(t(caption, line=line))
    jokers = variant.tiles.jokers if variant.tiles is not None else None
    if ex.tiles and variant.tiles is not None and variant.tiles.indicator:
        example = in_lang(jokers.example, t.lang) if jokers is not None and jokers.example else ""
        lines.append(t(HELP_JOKER, joker=example) if example else t(HELP_TURNED))
    if ex.ready:
        lines.append(t(HELP_READY, line=ex.ready))
    return lines
