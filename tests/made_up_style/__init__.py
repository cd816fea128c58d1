"""A small made-up style, defined by the tests alone: everything the bot, the page and the tile
analysis know of it is what its `Variant` declares and its folder holds, so a test that plays it
end to end shows that a style needs no line of code outside its own folder. It is a folder like
a style in scoring/variants/ would be: this module, and its own messages' translations in
`locale/` (refreshed by `python -m bot.view.catalogues tests/made_up_style`), which the bot loads
while the style is registered.

Toy mahjong: the three suits and one joker, 白板 (5z), which always stands in. A hand ends at
its one win or an exhausted wall. Kongs are entered but pay nothing, and nobody robs one: its
`win_types` has no robbed_kong, so the shared kong event is used as it is and its `robbed`
option is off (`Variant.lacks`); nor has it 杠上花 / 杠上炮 (`options_off`). A win is worth
`base` × 2 per 番 (seven pairs, a pure suit while the rule `pure_doubles` is on, no 白板 held); a
self-draw takes that from each other seat, a discard from the discarder alone. The deal passes
when someone other than the dealer wins.

`made_up_style` (a fixture) registers it for one test and takes it out again after.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any, Literal

import pytest
from pydantic import Field

from scoring.errors import ScoringError
from scoring.model import ExhaustedEvent, Hand, KongEvent, RulesBase, WinEvent, WinnerBase
from scoring.outcome import Ledger, Outcome
from scoring.rotation import pass_deal
from scoring.tiles import clear_caches
from scoring.tiles import features as tf
from scoring.tiles.features import Context
from scoring.tiles.reading import Reading
from scoring.variant import Jokers, Shapes, TileSet, Variant, describe, register, unregister

NAME = "toy"
BLANK = "5z"


class Rules(RulesBase):
    base: int = Field(default=1, ge=1, le=100)
    pure_doubles: bool = True


class Winner(WinnerBase):
    form: Literal["standard", "seven_pairs"] = "standard"
    pure: bool = False
    no_blank: bool = False


class Toy(Variant):
    name = NAME
    title = ("Toy mahjong", "玩具麻将", "玩具麻將")
    short = ("Toy", "玩具", "玩具")
    unit = ("pt", "分", "分")
    Rules = Rules
    Winner = Winner
    events = (WinEvent[Winner], KongEvent, ExhaustedEvent)
    options_off = {"win": ("after_kong",)}  # no 杠上花 nor 杠上炮
    tiles = TileSet(honours=False, shapes=Shapes(keep="plain"),
                    jokers=Jokers(names=(("Blank", "白板", "白板"),), fixed=(BLANK,),
                                  as_themselves=False))
    tile_fields = ("form", "pure", "no_blank")  # its tiles show a winner whole
    terms = {
        "standard": ("plain", "平和", "平和"),
        "seven_pairs": ("seven pairs", "七对", "七對"),
        "pure": ("pure suit", "清一色", "清一色"),
        "no_blank": ("no blank", "无白板", "無白板"),
        "base": ("chips for a plain win", "平和的枚数", "平和的枚數"),
        "pure_doubles": ("a pure suit doubles", "清一色翻倍", "清一色翻倍"),
        "exhausted": ("wall exhausted", "流局", "流局"),
    }

    def win_types(self, rules: Any) -> tuple[str, ...]:
        return ("self_draw", "discard")  # nobody robs a kong

    def tile_features(self, r: Reading, ctx: Context) -> dict[str, Any]:
        form = "seven_pairs" if r.shape == "seven_pairs" else "standard"
        return {"form": form, "pure": tf.pure(r), "no_blank": ctx.joker_tiles == 0}

    def value(self, w: Winner, rules: Rules) -> tuple[int, list[str]]:
        fan = [t for t, on in (("seven_pairs", w.form == "seven_pairs"),
                               ("pure", w.pure and rules.pure_doubles),
                               ("no_blank", w.no_blank)) if on]
        return rules.base * 2 ** len(fan), fan or ["standard"]

    def score(self, hand: Hand) -> Outcome:
        ledger = Ledger()
        end = None
        kongs = []
        for i, ev in enumerate(hand.events):
            if end is not None:
                raise ScoringError(f"events[{i}]", "a toy hand ends at its one win or when the wall "
                                   "runs out; nothing comes after {event}", event=f"events[{i - 1}]")
            if isinstance(ev, KongEvent):
                kongs.append(ev)
            else:
                end = ev
        self.check_end_and_kongs(end, kongs)
        nxt = hand.dealer
        if isinstance(end, WinEvent):
            self.check_winner_count(end, "events[0]")
            w = end.winners[0]
            value, terms = self.value(w, hand.rules)
            payers = hand.others(w.seat) if end.by == "self_draw" else [end.from_]
            ledger.add("win", w.seat, f"{describe(self.terms, terms)} {value}",
                       [(p, w.seat, value) for p in payers], terms, value)
            if w.seat != hand.dealer:
                nxt, wind = pass_deal(hand.dealer, hand.round_wind)
                return ledger.outcome(hand, nxt, next_round_wind=wind)
        return ledger.outcome(hand, nxt)


@pytest.fixture
def made_up_style() -> Iterator[Variant]:
    """Toy mahjong in the registry for one test."""
    register(Toy)
    try:
        from scoring import get_variant

        yield get_variant(NAME)
    finally:
        unregister(NAME)
        clear_caches()  # memos keyed by the style's name
