"""Chinese Official mahjong (国标麻将, Mahjong Competition Rules) — docs/rules/mcr.md.

A hand is worth the points (番) of its elements (scoring.guobiao: 81 elements from 1 to 88,
counted from the tiles by PyMahjongGB, or named or totalled by the players). A win needs 8 points
besides flowers. Every payer adds the base of 8: off a discard the discarder pays 8 + points and
the other two 8 each; self-drawn each of the three pays 8 + points. The deal passes after every
hand; the prevailing wind turns after every four (16 hands a game).
"""

from __future__ import annotations

from collections.abc import Sequence
from fractions import Fraction
from typing import Any, ClassVar, Literal

from pydantic import Field, model_validator

from .. import guobiao
from ..errors import IncompleteHand, ScoringError, invalid, validated
from ..guobiao import Count, Situation
from ..model import (
    ExhaustedEvent,
    Hand,
    RulesBase,
    Seat,
    StrictModel,
    WinBy,
    WinEvent,
    WinnerBase,
    only_by,
)
from ..outcome import Ledger, Outcome
from ..payments import each_pays, pays_each
from ..rotation import pass_deal
from ..validation import build_hand
from ..variant import Variant, register

BASE = 8  # 底分: what every payer adds to the hand's points
GAME_HANDS = 16  # four rounds of four hands, the prevailing wind turning each round
TABLE_POINTS = (4, 2, 1, 0)  # league table points for the places of a game
# elements only a self-drawn win has; those only a win on another's tile has
SELF_DRAWN_ONLY = ("self_drawn", "last_tile_draw", "out_with_replacement_tile",
                   "fully_concealed_hand")
CLAIMED_ONLY = ("last_tile_claim", "robbing_the_kong")


class Rules(RulesBase):
    minimum: int = Field(default=8, ge=0)  # 起和: the points a win needs, flowers not counted
    false_win_penalty: int = Field(default=10, ge=0)  # 错和: paid to each other seat
    mixed_kongs: Literal["together", "separate"] = "together"  # 明暗杠 5, or 暗杠 2 + 明杠 1
    table_points: bool = False  # leagues: 4-2-1-0 by place at the end of each game


class Winner(WinnerBase):
    """The hand as tiles (counted here), as the elements the players counted, or as its total
    (`points`, flowers included). `fourth_tile` (和绝张) and `last_of_wall` (妙手回春 / 海底捞月)
    count from tiles; named elements say them themselves."""

    tiles: str | None = None
    elements: list[str] | None = None
    points: int | None = Field(default=None, ge=0)
    flowers: int = Field(default=0, ge=0, le=8)
    # 抢杠和 is the fourth tile already (不计和绝张), and a kong's tile is no tile of the wall
    fourth_tile: bool = Field(default=False, json_schema_extra=only_by("self_draw", "discard"))
    last_of_wall: bool = Field(default=False, json_schema_extra=only_by("self_draw", "discard"))

    @model_validator(mode="after")
    def _one_way_to_count(self) -> Winner:
        if self.tiles is not None and self.elements is not None:
            raise invalid("give the hand's tiles or its elements, not both")
        if self.tiles is None and self.elements is None and self.points is None:
            raise invalid("count the hand: give its tiles, its elements or its points")
        if self.tiles is None and (self.fourth_tile or self.last_of_wall):
            raise invalid("fourth_tile and last_of_wall count from tiles; without tiles name "
                          "last_tile, last_tile_draw or last_tile_claim among the elements")
        return self


class FalseWinEvent(StrictModel):
    type: Literal["false_win"]
    seat: Seat


def table_points(totals: Sequence[int]) -> tuple[Fraction, Fraction, Fraction, Fraction]:
    """A game's league table points by place, 4-2-1-0; seats tied share the points of the
    places they hold between them (two tied first: 3 each)."""
    order = sorted(range(4), key=lambda s: -totals[s])
    out = [Fraction(0)] * 4
    place = 0
    while place < 4:
        tied = [s for s in order if totals[s] == totals[order[place]]]
        share = Fraction(sum(TABLE_POINTS[place:place + len(tied)]), len(tied))
        for s in tied:
            out[s] = share
        place += len(tied)
    return (out[0], out[1], out[2], out[3])


def ends_game(dealer: int, round_wind: int) -> bool:
    """The hand dealt by `dealer` in round `round_wind` is a game's sixteenth and last."""
    return 4 * round_wind + dealer == GAME_HANDS - 1


def _names(count: Count) -> str:
    return " · ".join(f"{guobiao.NAMES[e.key][1]}{'×' + str(e.count) if e.count > 1 else ''} "
                      f"{e.points}" for e in count.elements)


@register
class Mcr(Variant):
    name = "mcr"
    title = ("Chinese Official", "国标麻将", "國標麻將")
    short = ("Chinese Official", "国标", "國標")
    unit = ("points", "分", "分")
    Rules = Rules
    Winner = Winner
    events = (WinEvent[Winner], FalseWinEvent, ExhaustedEvent)
    multi_winner = False  # 截和: the first seat in turn order after the discarder wins
    terms = {
        **guobiao.NAMES,
        # the winner's fields, as the forms name them
        "tiles": ("tiles", "手牌", "手牌"),
        "elements": ("scoring elements", "番种", "番種"),
        "points": ("points", "番数", "番數"),
        "flowers": ("flowers", "花牌", "花牌"),
        "fourth_tile": ("fourth tile (last in view)", "绝张", "絕張"),
        "last_of_wall": ("last tile of the wall", "海底", "海底"),
        "false_win": ("false win", "错和", "錯和"),
        "exhausted": ("exhausted wall", "荒庄", "荒莊"),
    }
    element_points: ClassVar[dict[str, int]] = guobiao.POINTS  # a term's points, each time
    reads_own_tiles = True

    @property
    def counting(self) -> bool:
        """Whether tiles can be counted here (PyMahjongGB installed)."""
        return guobiao.available()

    def score(self, hand: Hand) -> Outcome:
        rules: Rules = hand.rules
        if hand.dealer_streak != 1:
            raise ScoringError("dealer_streak", "the deal passes after every hand, so "
                               "dealer_streak is always 1 (got {count})", count=hand.dealer_streak)
        ledger = Ledger()
        end = None
        for i, ev in enumerate(hand.events):
            path = f"events[{i}]"
            if end is not None:
                raise ScoringError(path, "the hand already ended at {event}: one win or the wall "
                                   "running out ends it, and nothing follows", event=end)
            if isinstance(ev, FalseWinEvent):
                fine = rules.false_win_penalty
                ledger.add("false_win", ev.seat, f"错和: seat {ev.seat} pays {fine}分 to each "
                           "other seat", pays_each(ev.seat, hand.others(ev.seat), fine),
                           ["false_win"], fine)
                continue
            end = path
            if isinstance(ev, WinEvent):
                self.check_winner_count(ev, path)
                self._win(hand, ev, path, ledger)
            else:
                ledger.add("exhausted", None, "荒庄: the wall ran out; nobody pays", [],
                           ["exhausted"])
        if end is None:
            raise IncompleteHand("events", "the hand has no end: add its win or exhausted event")
        nxt, wind = pass_deal(hand.dealer, hand.round_wind)
        return ledger.outcome(hand, nxt, next_round_wind=wind)

    def count(self, hand: Hand, ev: WinEvent, path: str) -> Count | None:
        """The winner's elements, or None for a hand entered as its total alone."""
        w: Winner = ev.winners[0]
        wpath = f"{path}.winners[0]"
        if ev.after_kong and ev.by == "discard":
            raise ScoringError(f"{path}.after_kong", "a discard after a kong (杠上炮) is no "
                               "element of the Chinese Official rules; leave after_kong off")
        if w.tiles is None:
            if w.elements is None:
                return None
            counted = guobiao.entered(w.elements, w.flowers, wpath)
            self._check_entered(counted, ev, wpath)
            return counted
        tiles = guobiao.read(w.tiles, wpath)
        if tiles.flowers and w.flowers:
            raise ScoringError(f"{wpath}.flowers", "the flowers are already written in the "
                               "tiles: give them once, in the tiles or as flowers")
        how = Situation(self_drawn=ev.by == "self_draw", robbed_kong=ev.by == "robbed_kong",
                        after_kong=ev.after_kong, fourth_tile=w.fourth_tile,
                        last_of_wall=w.last_of_wall, seat_wind=(w.seat - hand.dealer) % 4,
                        prevailing_wind=hand.round_wind, flowers=tiles.flowers or w.flowers)
        return guobiao.count(tiles, how, wpath, mixed_kongs=hand.rules.mixed_kongs)

    @staticmethod
    def _check_entered(counted: Count, ev: WinEvent, wpath: str) -> None:
        keys = [e.key for e in counted.elements]
        for key in keys:
            if key in SELF_DRAWN_ONLY and ev.by != "self_draw":
                raise ScoringError(f"{wpath}.elements", "{element} counts only in a self-drawn "
                                   "win", element=key)
            if key in CLAIMED_ONLY and ev.by == "self_draw":
                raise ScoringError(f"{wpath}.elements", "{element} counts only in a win on "
                                   "another seat's tile, not in a self-drawn one", element=key)
        if (ev.by == "robbed_kong") != ("robbing_the_kong" in keys):
            raise ScoringError(f"{wpath}.elements", "robbing_the_kong (抢杠和) is named exactly "
                               "when the win is by robbed_kong")
        if (ev.by == "self_draw" and ev.after_kong) != ("out_with_replacement_tile" in keys):
            raise ScoringError(f"{wpath}.elements", "out_with_replacement_tile (杠上开花) is named "
                               "exactly when the win is self-drawn after a kong (after_kong)")

    def _win(self, hand: Hand, ev: WinEvent, path: str, ledger: Ledger) -> None:
        rules: Rules = hand.rules
        w: Winner = ev.winners[0]
        wpath = f"{path}.winners[0]"
        counted = self.count(hand, ev, path)
        if counted is None:
            assert w.points is not None  # the model asks for one way to count
            points, flowers, terms, text = w.points, w.flowers, (), f"{w.points}"
        else:
            points, flowers, terms = counted.total, counted.flowers, counted.terms
            text = f"{_names(counted)} = {points}"
            if w.points is not None and w.points != points:
                raise ScoringError(f"{wpath}.points", "the hand counts {counted} points but "
                                   "points says {points}", counted=points, points=w.points)
        if points - flowers < rules.minimum:
            raise ScoringError(wpath, "{count} points without flowers: a win needs {minimum} "
                               "(起和), so this hand cannot win", count=points - flowers,
                               minimum=rules.minimum)
        if ev.by == "self_draw":
            transfers = each_pays(hand.others(w.seat), w.seat, BASE + points)
            how = f"self-drawn: each pays {BASE}+{points}"
        else:
            transfers = [(p, w.seat, BASE + points if p == ev.from_ else BASE)
                         for p in hand.others(w.seat)]
            how = f"seat {ev.from_} pays {BASE}+{points}, the others {BASE} each"
        ledger.add("win", w.seat, f"{text}番; {how}", transfers, terms, points)

    # -- tiles: `python -m scoring analyze` and `waits` ------------------------------------

    def analyze_tiles(self, data: Any) -> dict[str, Any]:
        req, rules = self._request(data)
        winner = {"seat": req.seat, "tiles": req.tiles,
                  **{k: v for k, v in (("flowers", req.flowers), ("fourth_tile", req.fourth_tile),
                                       ("last_of_wall", req.last_of_wall)) if v}}
        return self._valued(req, rules, winner, req.by, req.after_kong)

    def waits_tiles(self, data: Any) -> dict[str, Any]:
        """Every tile that completes the 13 tiles into a hand that may win, valued self-drawn."""
        from ..tiles.notation import read_tiles, tile_name

        req, rules = self._request(data)
        try:
            hand, melds, win, _ = read_tiles(req.tiles)
        except ScoringError as exc:
            raise ScoringError("tiles", exc.template, **exc.params) from None
        if win is not None:
            raise ScoringError("tiles", "a hand waiting for its tile has no winning tile: drop "
                               "the '+'")
        if len(hand) + 3 * len(melds) != 13:
            raise ScoringError("tiles", "{count} tiles (a kong counts as three) but a waiting hand "
                               "has 13", count=len(hand) + 3 * len(melds))
        found: list[dict[str, Any]] = []
        best: dict[str, Any] | None = None
        for x in range(34):
            winner = {"seat": req.seat, "tiles": f"{req.tiles}+{tile_name(x)}",
                      **({"flowers": req.flowers} if req.flowers else {})}
            try:
                got = self._valued(req, rules, winner, "self_draw", False)
            except ScoringError:
                continue  # no win on this tile: no shape, a fifth tile, under the minimum
            wait = {"tile": tile_name(x), **got}
            found.append(wait)
            if best is None or wait["value"] > best["value"]:
                best = wait
        return {"waits": found, "ready": bool(found),
                "best": {k: best[k] for k in ("tile", "winner", "value")} if best else None}

    def _request(self, data: Any) -> tuple[TilesRequest, Any]:
        """The request and its rules, read (refusals name ``rules.<name>``)."""
        req = validated(TilesRequest, data)
        if req.indicator is not None:
            raise ScoringError("indicator", "{variant} plays without jokers; it turns no "
                               "indicator", variant=self.name)
        return req, self.read_rules(req.rules)

    def _valued(self, req: TilesRequest, rules: Any, winner: dict[str, Any], by: str,
                after_kong: bool) -> dict[str, Any]:
        """The winner object's elements and what it collects, scored as a one-win record with
        the tile as it came (from the seat before it, when claimed)."""
        win: dict[str, Any] = {"type": "win", "by": by, "winners": [winner]}
        if after_kong:
            win["after_kong"] = True
        if by != "self_draw":
            win["from"] = (req.seat + 3) % 4
        try:
            out = self.score(build_hand(self, rules, [win], req.dealer, req.round_wind))
        except ScoringError as exc:  # the record's field, as the request names it
            raise ScoringError(_request_field(exc.field), exc.template, **exc.params) from None
        line = next(x for x in out.lines if x.what == "win")
        reading = {"winner": winner, "value": line.deltas[req.seat], "points": line.value,
                   "elements": _elements(line.terms)}
        return {**reading, "readings": [reading]}


def _elements(terms: tuple[str, ...]) -> list[dict[str, Any]]:
    """A win line's terms as the elements `analyze` lists: key, times counted, points."""
    out = []
    for term in terms:
        key, _, times = term.partition(":")
        n = int(times or 1)
        out.append({"key": key, "count": n, "points": guobiao.POINTS[key] * n})
    return out


def _request_field(field: str) -> str:
    """A one-win record's field as the tiles request names it: ``events[0].winners[0].tiles``
    → ``tiles``, ``events[0].after_kong`` → ``after_kong``; the winner itself (a refusal of
    the whole hand) → ``tiles``."""
    if field == "events[0].winners[0]":
        return "tiles"
    for prefix in ("events[0].winners[0].", "events[0]."):
        if field.startswith(prefix):
            return field[len(prefix):]
    return "tiles"


class TilesRequest(StrictModel):
    """An `analyze` / `waits` request for this style (docs/tiles.md), with the ways of winning
    the elements need."""

    variant: str
    rules: dict[str, Any] = Field(default_factory=dict)
    tiles: str
    by: WinBy = "self_draw"
    seat: Seat = 0
    dealer: Seat = 0
    indicator: str | None = None
    round_wind: int = Field(default=0, ge=0, le=3)
    after_kong: bool = False
    fourth_tile: bool = False
    last_of_wall: bool = False
    flowers: int = Field(default=0, ge=0, le=8)
