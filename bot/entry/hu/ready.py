"""查叫 by tiles on a /hu line: `/hu 流局 东 111m222m333p44p55p 南 123m456m789p123p4p`.

After a word for an exhausted wall (流局, 黄庄, 荒牌, 查叫, exhausted …) each seat still in may
follow with its 13 tiles — `scoring.tiles.ready_entry` decides ready or not and the entry 查叫
values highest —, with feature words as the ready screens name them (`西 大对子`), or with
不听, or the word for a hand still holding three suits where one must be missing (花猫). A seat
named with nothing after it is ready with a plain hand; a seat not named is not ready. In a blood
battle the wall runs out after the wins: `/hu 南 自摸 清一色; 流局 …`.
Variants whose exhausted wall pays nothing for ready hands take the bare word only.
"""

from __future__ import annotations

from typing import Any

from scoring import ScoringError
from scoring.tiles import has_ready_check, ready_entry, ready_value
from scoring.variant import Variant, all_variants

from ...view.render import esc, reason, seat_label, unit, with_unit
from .. import controls
from ..ctx import Ctx
from ..screens import summarize, tile_label, value_label
from .words import TILES, LineError, norm, parse_seat, parse_winner, split_tokens, tile_token, vocabulary

EXHAUSTED = {"流局", "黄庄", "黃莊", "荒牌", "荒庄", "荒莊", "查叫", "黄庄查叫", "黃莊查叫",
             "流局查叫", "exhausted", "wallexhausted", "exhaustedwall", "draw", "drawn",
             "drawngame", "huangzhuang", "liuju", "chajiao"}
NOT_READY = {"不听", "不聽", "没叫", "沒叫", "无叫", "無叫", "未听", "未聽", "notready", "noready",
             "null", "none"}
READ = "_ready_tiles"  # a seat's tiles, until read_ready reads them


def _word_len(tokens: list[str]) -> int:
    """How many tokens the exhausted-wall word at the start takes ("wall exhausted": 2); 0
    when the tokens do not start with one."""
    for k in (2, 1):
        if len(tokens) >= k and norm("".join(tokens[:k])) in EXHAUSTED:
            return k
    return 0


def is_exhausted(tokens: list[str]) -> bool:
    """The part of a /hu line is about an exhausted wall: it starts with a word for one."""
    return _word_len(split_tokens(tokens)) > 0


def three_suits_words(variant: Variant) -> dict[str, str]:
    """What a line may call a hand of three suits where one must be missing (花猫), each word
    → the ready map's word for it: the variant's own, else any style's."""
    words: dict[str, str] = {}
    for v in [variant, *all_variants().values()]:
        tiles = v.tiles
        if tiles is not None and tiles.missing_suit:
            for w in tiles.missing_suit_words:
                words.setdefault(norm(w), tiles.missing_suit)
    return words


def _joined(tokens: list[str], marks: set[str]) -> list[str]:
    """Words of two tokens as one: "not ready", "flower cat"."""
    out: list[str] = []
    i = 0
    while i < len(tokens):
        if i + 1 < len(tokens) and norm(tokens[i] + tokens[i + 1]) in marks:
            out.append(tokens[i] + tokens[i + 1])
            i += 2
        else:
            out.append(tokens[i])
            i += 1
    return out


def _seat_of(token: str, names: list[str | None] | None) -> int | None:
    if tile_token(token) and len(token) > 1:  # 东东东 is tiles, 东 a seat
        return None
    try:
        return parse_seat(token, names)
    except LineError:
        return None


def parse_exhausted(variant: Variant, tokens: list[str],
                    names: list[str | None] | None = None) -> dict[str, Any]:
    """Tokens of `/hu 流局 …` → the exhausted event; a seat's tiles wait under READ."""
    tokens = split_tokens(tokens)
    rest = _joined(tokens[_word_len(tokens):], NOT_READY | set(three_suits_words(variant)))
    event: dict[str, Any] = {"type": "exhausted"}
    if not has_ready_check(variant.name):
        if rest:
            raise LineError("This game pays nothing for ready hands when the wall runs out: "
                            "type just /hu {word}.", word=tokens[0])
        return event
    groups: list[tuple[int, str, list[str]]] = []
    for tok in rest:
        seat = _seat_of(tok, names)
        if seat is not None:
            if any(s == seat for s, _, _ in groups):
                raise LineError("{seat} is named twice.", seat=tok)
            groups.append((seat, tok, []))
        elif not groups:
            raise LineError("Name the seat first, then its tiles: /hu 流局 东 123m456m789p1122s")
        else:
            groups[-1][2].append(tok)
    words = vocabulary(variant)
    event["ready"] = {str(seat): _entry(variant, words, seat, said, group, names)
                      for seat, said, group in groups}
    return event


def _entry(variant: Variant, words: Any, seat: int, said: str, group: list[str],
           names: list[str | None] | None) -> Any:
    three = three_suits_words(variant)
    marks = [tok for tok in group if norm(tok) in NOT_READY or norm(tok) in three]
    if marks:
        if len(group) > 1:
            raise LineError("“{word}” says all there is about {seat}: leave out the other "
                            "words.", word=marks[0], seat=said)
        return None if norm(marks[0]) in NOT_READY else three[norm(marks[0])]
    entry = parse_winner(variant, words, [str(seat), *group], names)
    entry.pop("seat")
    model = controls.spec_named(controls.event_model(variant.events, "exhausted"), "ready").model
    allowed = set(model.model_fields) if model is not None else set()
    for tok in group:  # 天胡, 手把一 …: features of a win, not of a ready hand
        alone = parse_winner(variant, words, [str(seat), tok], names)
        if set(alone) - allowed - {"seat", TILES, "_indicator"}:
            raise LineError("“{word}” does not count for a ready hand at an exhausted wall.",
                            word=tok)
    entry.pop("_indicator", None)
    if TILES in entry:
        entry[READ] = entry.pop(TILES)
    return entry


class SeatTilesError(ScoringError):
    """Scoring's refusal of one seat's tiles, and whose they were."""

    def __init__(self, seat: int, exc: ScoringError) -> None:
        super().__init__(exc.field, exc.template, **exc.params)
        self.seat = seat


def refusal(ctx: Ctx, exc: ScoringError) -> str:
    """Why a /hu line's tiles were refused, naming whose tiles at an exhausted wall."""
    if not isinstance(exc, SeatTilesError):
        return ctx.explain(exc)
    why = reason(ctx.t, ctx.lang, exc, ctx.names, ctx.variant)
    return ctx.t("The tiles of {seat}: {reason}", seat=seat_label(
        ctx.t, exc.seat, ctx.names, html_out=False), reason=why)


def read_ready(v: Variant, base: dict[str, Any],
               events: list[dict[str, Any]]) -> list[tuple[int, dict[str, Any]]]:
    """Fill the ready map of an exhausted event in place: each seat's tiles become its entry
    (words on the line add what tiles cannot show, 报听), and every seat still in that was not
    named is not ready. Returns (seat, what `ready_entry` said) per seat that showed tiles,
    and (seat, {"ready": None, "unnamed": True}) per seat taken as not ready."""
    read: list[tuple[int, dict[str, Any]]] = []
    won: set[int] = set()
    for event in events:
        if event.get("type") == "win":
            won |= {w["seat"] for w in event.get("winners", [])}
        if event.get("type") != "exhausted" or "ready" not in event:
            continue
        ready = event["ready"]
        for key, entry in list(ready.items()):
            if not isinstance(entry, dict) or READ not in entry:
                continue
            tiles = entry.pop(READ)
            try:
                result = ready_entry({"variant": v.name, "rules": base.get("rules") or {},
                                      "tiles": "".join(tiles), "seat": int(key),
                                      "dealer": base.get("dealer", 0),
                                      "round_wind": base.get("round_wind", 0)})
                hand = result["ready"]
                if isinstance(hand, dict) and entry:  # 报听 and the like, said in words
                    hand = {**hand, **entry}
                    result = {**result, "ready": hand, "value": ready_value(
                        v.name, hand, int(key), base.get("rules") or {},
                        base.get("dealer", 0), base.get("round_wind", 0))}
            except ScoringError as exc:
                raise SeatTilesError(int(key), exc) from None
            ready[key] = hand
            read.append((int(key), result))
        for s in range(4):
            if s not in won and str(s) not in ready:
                ready[str(s)] = None
                read.append((s, {"ready": None, "unnamed": True}))
        event["ready"] = dict(sorted(ready.items()))
    return sorted(read, key=lambda r: r[0])


def ready_note(ctx: Ctx, read: list[tuple[int, dict[str, Any]]]) -> str:
    """Per seat, what its tiles were taken as at the exhausted wall, for the preview."""
    if not read:
        return ""
    t = ctx.t
    lines = ["🀄 " + esc(seat_text(ctx, seat, result)) for seat, result in read
             if not result.get("unnamed")]
    unnamed = [s for s, r in read if r.get("unnamed")]
    if unnamed and len(unnamed) < len(read):
        sep = "、" if ctx.lang.startswith("zh") else ", "
        who = sep.join(seat_label(t, s, ctx.names, html_out=False) for s in unnamed)
        lines.append("🀄 " + esc(t("Not named, so not ready: {seats}.", seats=who)))
    return "\n".join(lines)


def seat_text(ctx: Ctx, seat: int, result: dict[str, Any]) -> str:
    """Plain text: a seat's tiles at the exhausted wall — ready, its waits, the entry and value
    taken — from `ready_entry`'s result."""
    t = ctx.t
    who = seat_label(t, seat, ctx.names, html_out=False)
    hand = result["ready"]
    tiles = ctx.variant.tiles
    if tiles is not None and tiles.missing_suit and hand == tiles.missing_suit:
        return t("{seat}: 花猫 — the tiles still hold all three suits.", seat=who)
    if hand is None:
        return t("{seat}: not ready — no tile completes these tiles.", seat=who)
    model = controls.spec_named(controls.event_model(ctx.variant.events, "exhausted"), "ready").model
    plain = not any(hand.get(k) for k in ("form", "pure", "quads"))
    shown = " ".join(filter(None, (value_label(ctx, "standard") if plain else "",
                                   summarize(ctx, model, hand))))
    return t("{seat}: ready, waiting on {tiles}. Counted as {hand} (on {tile}): {value} from "
             "each seat that is not ready.", seat=who,
             tiles=" ".join(tile_label(ctx, x) for x in result["waits"]), hand=shown,
             tile=tile_label(ctx, result["tile"]),
             value=with_unit(t, str(result["value"]), unit(ctx.variant, ctx.lang)))
