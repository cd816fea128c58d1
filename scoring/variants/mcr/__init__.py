"""Chinese Official mahjong (国标麻将, Mahjong Competition Rules) — docs/rules/mcr.md.

A hand is worth the points (番) of its elements (`elements`: 81 from 1 to 88, counted from the
tiles by PyMahjongGB in `counting`, or named or totalled by the players). A win needs 8 points
besides flowers. Every payer adds the base of 8: off a discard the discarder pays 8 + points and
the other two 8 each; self-drawn each of the three pays 8 + points. The deal passes after every
hand; the prevailing wind turns after every four (16 hands a game).

The style is this folder: the element table (`elements`), the counting (`counting`), the tile
analysis for `analyze` and `waits` (`analysis`), and the `Variant` here.
"""

from __future__ import annotations

from collections.abc import Sequence
from fractions import Fraction
from typing import Any, Literal

from pydantic import Field, model_validator

from ...errors import IncompleteHand, ScoringError, invalid
from ...model import (
    ExhaustedEvent,
    Hand,
    RulesBase,
    Seat,
    StrictModel,
    WinEvent,
    WinnerBase,
    hand_tiles,
    only_by,
    term_list,
)
from ...outcome import Ledger, Outcome
from ...payments import each_pays, pays_each
from ...rotation import pass_deal
from ...variant import Shapes, TileSet, Variant, register
from . import counting, elements
from .elements import Count

BASE = 8  # 底分: what every payer adds to the hand's points
GAME_HANDS = 16  # four rounds of four hands, the prevailing wind turning each round
TABLE_POINTS = (4, 2, 1, 0)  # league table points for the places of a game
MAX_POINTS = 999  # more than any hand counts: the bound of a total entered by hand
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

    tiles: str | None = Field(default=None, json_schema_extra=hand_tiles())
    elements: list[str] | None = Field(default=None, json_schema_extra=term_list())
    points: int | None = Field(default=None, ge=0, le=MAX_POINTS)
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
    return " · ".join(f"{elements.NAMES[e.key][1]}{'×' + str(e.count) if e.count > 1 else ''} "
                      f"{e.points}" for e in count.elements)


@register
class Mcr(Variant):
    name = "mcr"
    title = ("Chinese Official", "国标麻将", "國標麻將")
    short = ("Chinese Official", "国标", "國標")
    unit = ("points", "分", "分")
    value_unit = ("points", "番", "番")
    Rules = Rules
    Winner = Winner
    events = (WinEvent[Winner], FalseWinEvent, ExhaustedEvent)
    multi_winner = False  # 截和: the first seat in turn order after the discarder wins
    terms = {
        **elements.NAMES,
        # the winner's fields, as the forms name them ("24番" on a /hu line: `points`)
        "tiles": ("tiles", "手牌", "手牌"),
        "elements": ("scoring elements", "番种", "番種"),
        "points": ("points", "番", "番"),
        "flowers": ("flowers", "花牌", "花牌"),
        "fourth_tile": ("fourth tile (last in view)", "绝张", "絕張"),
        "last_of_wall": ("last tile of the wall", "妙手回春/海底捞月", "妙手回春/海底撈月"),
        "false_win": ("false win", "错和", "錯和"),
        "exhausted": ("wall exhausted", "荒庄", "荒莊"),
        # the house rules and their values, as /rules names them
        "minimum": ("points a win needs, flowers aside", "起和番", "起和番"),
        "false_win_penalty": ("a false win pays each seat", "错和罚分", "錯和罰分"),
        "mixed_kongs": ("a concealed and a melded kong", "明杠暗杠同在", "明槓暗槓同在"),
        "together": ("one element, 5", "合计明暗杠5番", "合計明暗槓5番"),
        "separate": ("concealed 2 + melded 1", "暗杠2番＋明杠1番", "暗槓2番＋明槓1番"),
        "table_points": ("table points 4-2-1-0 per game", "每盘名次分4-2-1-0", "每盤名次分4-2-1-0"),
    }
    # 144 tiles: the suits, the honours and eight flowers; no jokers
    tiles = TileSet(honours=True, flowers=True, shapes=Shapes(thirteen_orphans=True))
    reads_own_tiles = True  # PyMahjongGB counts the whole hand (`counting`)
    # the hand counted by its tiles, or by its elements or total in their place; beside tiles
    # a player adds the flowers, 绝张 and the last tile of the wall
    tile_fields = ("tiles", "elements", "points")
    term_points = elements.POINTS
    # beside the tiles, the elements of the story are the flags that count them
    story_terms = {"last_tile_draw": "last_of_wall", "last_tile_claim": "last_of_wall",
                   "last_tile": "fourth_tile", "out_with_replacement_tile": "after_kong"}
    game_hands = GAME_HANDS

    def cannot_count(self) -> ScoringError | None:
        if counting.available():
            return None
        return counting.not_installed("tiles")

    def game_points(self, totals: tuple[int, int, int, int], rules: Any
                    ) -> tuple[Fraction, Fraction, Fraction, Fraction] | None:
        return table_points(totals) if rules.table_points else None

    def analyze_tiles(self, data: Any) -> dict[str, Any]:
        from .analysis import analyze  # the tile reader loads when tiles come

        return analyze(self, data)

    def waits_tiles(self, data: Any) -> dict[str, Any]:
        from .analysis import waits

        return waits(self, data)

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
        return ledger.outcome(hand, nxt, next_round_wind=wind,
                              level_over=ends_game(hand.dealer, hand.round_wind))

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
            counted = elements.entered(w.elements, w.flowers, wpath)
            self._check_entered(counted, ev, wpath)
            return counted
        tiles = counting.read(w.tiles, wpath)
        if tiles.flowers and w.flowers:
            raise ScoringError(f"{wpath}.flowers", "the flowers are already written in the "
                               "tiles: give them once, in the tiles or as flowers")
        how = counting.Situation(self_drawn=ev.by == "self_draw", robbed_kong=ev.by == "robbed_kong",
                        after_kong=ev.after_kong, fourth_tile=w.fourth_tile,
                        last_of_wall=w.last_of_wall, seat_wind=(w.seat - hand.dealer) % 4,
                        prevailing_wind=hand.round_wind, flowers=tiles.flowers or w.flowers)
        return counting.count(tiles, how, wpath, mixed_kongs=hand.rules.mixed_kongs)

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
