"""Any style's results (自由记分) — docs/rules/free.md.

For tables whose rules this code does not score: the players count each hand themselves and
book what came of it. A hand is the points each seat won or lost (`points`, which must add up
to zero), a winner with an amount and who pays it (the discarder alone, or each of the
others), or a wall run out with nothing paid. Whether the dealer keeps the deal is a house
rule; nothing else depends on the dealer.

The style is this folder: the `Variant` here, and its refusals' translations in `locale/`.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import Field

from ...errors import ScoringError
from ...model import (
    ExhaustedEvent,
    Hand,
    RulesBase,
    SeatKey,
    StrictModel,
    WinEvent,
    WinnerBase,
    only_by,
)
from ...outcome import Ledger, Line, Outcome
from ...payments import each_pays
from ...rotation import pass_deal
from ...variant import Variant, register

MAX_POINTS = 99_999  # more than any table's hand: the bound of one seat's points in a hand
Points = Annotated[int, Field(ge=-MAX_POINTS, le=MAX_POINTS)]


class Rules(RulesBase):
    # who deals next: the next seat after every hand, or the dealer keeps the deal (连庄) when
    # winning or when the wall runs out, and it passes when another seat wins
    deal: Literal["passes", "winner_keeps"] = "passes"


class Winner(WinnerBase):
    """A win as the table counted it: the amount each payer pays the winner."""

    amount: int = Field(ge=1, le=MAX_POINTS)
    # on a discard, each of the three others pays (the table's rule), not the discarder alone
    all_pay: bool = Field(default=False, json_schema_extra=only_by("discard"))


class PointsEvent(StrictModel):
    """The hand as each seat's points won (+) or lost (−); a seat not listed scored 0."""

    type: Literal["points"]
    points: dict[SeatKey, Points]


@register
class Free(Variant):
    name = "free"
    title = ("Any style (free scoring)", "自由记分", "自由記分")
    short = ("Free scoring", "自由记分", "自由記分")
    unit = ("points", "分", "分")
    value_unit = unit  # a winner's amount is said as one: 12 points, 12分
    Rules = Rules
    Winner = Winner
    events = (WinEvent[Winner], PointsEvent, ExhaustedEvent)
    options_off = {"win": ("after_kong",)}  # the amount says all: no 杠上花 to mark
    ends_hand = frozenset({"points"})
    multi_winner = True  # 一炮多响: each winner names his own amount
    terms = {
        "amount": ("points", "分", "分"),
        "all_pay": ("everyone pays", "三家都付", "三家都付"),
        "points": ("points per seat", "各家得分", "各家得分"),
        "deal": ("who deals next", "庄家", "莊家"),
        "passes": ("the next seat, every hand", "每局轮庄", "每局輪莊"),
        "winner_keeps": ("the dealer keeps it on a win (连庄)", "庄家胡牌连庄",
                         "莊家胡牌連莊"),
    }

    def win_types(self, rules: Any) -> tuple[str, ...]:
        return ("self_draw", "discard")

    def score(self, hand: Hand) -> Outcome:
        ledger = Ledger()
        end: str | None = None
        won: list[int] = []
        for i, ev in enumerate(hand.events):
            path = f"events[{i}]"
            if end is not None:
                raise ScoringError(path, "the hand already ended at {event}: one result is one "
                                   "hand", event=end)
            end = path
            if isinstance(ev, PointsEvent):
                won = self._points(ev, path, ledger)
            elif isinstance(ev, WinEvent):
                if ev.by not in self.win_types(hand.rules):
                    raise ScoringError(f"{path}.by", "{variant} has no {option} in a {event}: "
                                       "leave {option} off", variant=self.name, option=ev.by,
                                       event="win")
                won = ev.seats
                for w in ev.winners:
                    self._win(hand, ev, w, ledger)
            else:
                ledger.add("exhausted", None, "no result: nobody pays", [], ["exhausted"])
        if end is None:
            self.check_end_and_kongs(None, ())
        dealer, wind = self.next_dealer(hand, won)
        return ledger.outcome(hand, dealer, next_round_wind=wind)

    @staticmethod
    def _points(ev: PointsEvent, path: str, ledger: Ledger) -> list[int]:
        """Each seat's points as the table typed them; the seats that gained most won the
        hand (for who deals next)."""
        deltas = tuple(ev.points.get(str(s), 0) for s in range(4))  # type: ignore[call-overload]
        total = sum(deltas)
        if total > 0:
            raise ScoringError(f"{path}.points", "the points add up to +{total}, not 0: someone "
                               "has {total} too many", total=total)
        if total < 0:
            raise ScoringError(f"{path}.points", "the points add up to −{total}, not 0: someone "
                               "has {total} too few", total=-total)
        ledger.lines.append(Line("points", None, " ".join(f"{d:+d}" for d in deltas),
                                 (deltas[0], deltas[1], deltas[2], deltas[3]), ("points",)))
        best = max(deltas)
        return [s for s in range(4) if best > 0 and deltas[s] == best]

    @staticmethod
    def _win(hand: Hand, ev: WinEvent, w: Winner, ledger: Ledger) -> None:
        if ev.by == "self_draw" or w.all_pay:
            transfers = each_pays(hand.others(w.seat), w.seat, w.amount)
            how = "each other seat pays"
        else:
            transfers = [(ev.from_, w.seat, w.amount)]
            how = f"seat {ev.from_} pays"
        ledger.add("win", w.seat, f"{w.amount}; {how}", transfers, (), w.amount)

    @staticmethod
    def next_dealer(hand: Hand, won: list[int]) -> tuple[int, int]:
        """Who deals next and in which round: the dealer stays under `winner_keeps` when he
        won or nobody did; else the deal passes."""
        if hand.rules.deal == "winner_keeps" and (not won or hand.dealer in won):
            return hand.dealer, hand.round_wind
        return pass_deal(hand.dealer, hand.round_wind)
