"""Luzhou ghost mahjong (泸州鬼麻将) — docs/rules/luzhou.md.

Blood battle: the hand goes on after a win until three seats have won or the wall is empty.
Values climb one ladder (2, 5, 10, 20, 40, …); discards and robbed kongs pay half.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Annotated, Any, Literal

from pydantic import BeforeValidator, Field, model_validator

from ..errors import IncompleteHand, ScoringError, invalid
from ..model import (
    INTEGERS_ONLY,
    SEATS,
    Hand,
    RulesBase,
    Seat,
    SeatKey,
    StrictModel,
    WinEvent,
    WinnerBase,
    only_by,
)
from ..outcome import Ledger, Outcome, Transfer
from ..payments import capped, doubling_ladder, each_pays, pays_each
from ..tiles import features as tf
from ..variant import Jokers, Shapes, TileSet, Variant, describe, register

if TYPE_CHECKING:
    from ..tiles.features import Context
    from ..tiles.reading import Reading

LADDER = (2, 5, 10)  # 平胡 2, 闺自摸 5, then doubling
ALWAYS_MIN_STEP = 4  # 天胡/地胡: at least 40
FLOWER_CAT_NO_CAP = 40  # 花猫 pays the cap; 40 when the table plays without one


class Rules(RulesBase):
    ghosts: Annotated[Literal[4, 8], INTEGERS_ONLY] = 4
    cap: int = Field(default=40, ge=0)
    one_ke_discard: bool = False
    no_ghost_steps: Annotated[Literal[1, 2], INTEGERS_ONLY] = 2
    ready_pay: Literal["full", "half"] = "full"
    cap_applies: Literal["value", "payment"] = "value"
    kong_discard_steps: Annotated[Literal[1, 2], INTEGERS_ONLY] = 2
    flower_cat: Literal["not_ready", "cap"] = "not_ready"
    ghost_bonus: Literal["linear", "double", "off"] = "linear"
    ghost_bonus_mode: Literal["always", "win_only"] = "always"


class ReadyHand(StrictModel):
    """What a hand is worth as such: the features 查叫 values a ready hand by."""

    form: Literal["standard", "all_pungs", "seven_pairs"] = "standard"
    pure: bool = False
    quads: int = Field(default=0, ge=0, le=4)
    no_ghost: bool = False

    @model_validator(mode="after")
    def _quads_fit(self) -> ReadyHand:
        if self.form == "seven_pairs" and self.quads > 3:
            raise invalid("seven pairs hold at most 3 quads (龙)")
        return self


class Winner(WinnerBase, ReadyHand):
    single_tile: bool = False
    declared: bool = False
    heavenly: bool = Field(default=False, json_schema_extra=only_by("self_draw"))
    earthly: bool = False

    @model_validator(mode="after")
    def _features_fit(self) -> Winner:
        if self.heavenly and self.earthly:
            raise invalid("a hand is heavenly or earthly, not both")
        if self.single_tile and self.form == "seven_pairs":
            raise invalid("single_tile (手把一) needs melds; seven pairs "
                          "have none")
        return self


FLOWER_CAT = "flower_cat"  # 花猫: still holding three suits at the end, never ready
GHOST = "7z"  # 红中, the ghost


def _ready_entry(value: object) -> object:
    """Only a hand (an object), null or "flower_cat": say so in one sentence, not a
    union of three errors."""
    if value is not None and value != FLOWER_CAT and not isinstance(value, (dict, ReadyHand)):
        raise invalid("must be a ready hand (an object), null for not ready, or \"flower_cat\" "
                      "for 花猫 (got {value})", value=repr(value))
    return value


ReadyEntry = Annotated[ReadyHand | Literal["flower_cat"] | None, BeforeValidator(_ready_entry)]


class LuzhouExhausted(StrictModel):
    """The wall ran out; `ready` maps each seat still in to its best ready hand, null (not
    ready) or "flower_cat" (花猫)."""

    type: Literal["exhausted"]
    ready: dict[SeatKey, ReadyEntry] = Field(default_factory=dict)

    def ready_seats(self) -> dict[int, ReadyHand | str | None]:
        return {int(k): v for k, v in sorted(self.ready.items())}


class GhostBonusEvent(StrictModel):
    type: Literal["ghost_bonus"]
    seat: Seat
    ghosts: int = Field(ge=5, le=8)


def hand_step(h: ReadyHand, rules: Rules) -> tuple[int, list[str]]:
    """The ladder step of a hand's shape, and the terms that explain it."""
    shaped = h.form != "standard"
    named = shaped + h.pure + (h.pure and shaped)
    step = h.quads if named == 0 else named + 1 + h.quads
    terms = [t for t, on in (("pure", h.pure), (h.form, shaped)) if on] or ["standard"]
    if h.quads:
        terms.append(f"quads:{h.quads}")
    if h.no_ghost:
        step += rules.no_ghost_steps
        terms.append("no_ghost")
    return step, terms


def win_step(w: Winner, ev: WinEvent, rules: Rules) -> tuple[int, list[str]]:
    step, terms = hand_step(w, rules)
    kong_discard = rules.kong_discard_steps
    extras = (
        ("kong_bloom", 1, ev.by == "self_draw" and ev.after_kong),
        ("kong_discard", kong_discard, ev.by == "discard" and ev.after_kong),
        ("robbed_kong", kong_discard, ev.by == "robbed_kong"),
        ("single_tile", 1, w.single_tile),
        ("declared", 2, w.declared),
    )
    for term, steps, on in extras:
        if on:
            step += steps
            terms.append(term)
    for term, on in (("heavenly", w.heavenly), ("earthly", w.earthly)):
        if on:
            step = max(step, ALWAYS_MIN_STEP)
            terms.append(term)
    return step, terms


def ghost_bonus_amount(ghosts: int, rules: Rules) -> int:
    if rules.ghost_bonus == "double":
        return 10 * 2 ** (ghosts - 5)
    return 10 * (ghosts - 4)


def owed(value: int, halved: bool, rules: Rules) -> int:
    """What one payer pays for a hand worth `value`: halved or not, capped as `cap_applies`
    says (`value`: cap the hand's value, then halve; `payment`: halve, then cap)."""
    if rules.cap_applies == "value":
        value = capped(value, rules.cap)
        return value // 2 if halved else value
    return capped(value // 2 if halved else value, rules.cap)


def _seats(seats: list[int]) -> str:
    return ", ".join(str(s) for s in seats)


def _cap_note(amount: int, paid: int) -> str:
    return f" (cap {paid})" if paid < amount else ""


@register
class Luzhou(Variant):
    name = "luzhou"
    title = ("Luzhou ghost mahjong", "泸州鬼麻将", "瀘州鬼麻將")
    short = ("Luzhou", "泸州", "瀘州")
    unit = ("ke", "颗", "顆")
    Rules = Rules
    Winner = Winner
    events = (WinEvent[Winner], LuzhouExhausted, GhostBonusEvent)
    multi_winner = True
    blood_battle = True
    after_end = frozenset({"ghost_bonus"})
    discard_pays_half = True  # ⌊V/2⌋
    ready_fields = ("form", "pure", "quads", "no_ghost")
    # the three suits and 红中, the ghosts (as many as rule ghosts says), which always stand in
    tiles = TileSet(honours=False, chows=False, shapes=Shapes(keep="plain"),
                    jokers=Jokers(names=(("Ghost", "鬼", "鬼"),), fixed=(GHOST,),
                                  as_themselves=False),
                    missing_suit=FLOWER_CAT,
                    missing_suit_words=("花猫", "花貓", "花猪", "花豬", "flowercat", "flower_cat"))
    tile_fields = (*ready_fields, "single_tile")  # 报叫, 天胡 and 地胡 the tiles do not show
    terms = {
        "standard": ("plain", "平胡", "平胡"),
        "all_pungs": ("all pungs", "大对子", "大對子"),
        "seven_pairs": ("seven pairs", "七对", "七對"),
        "pure": ("pure suit", "清一色", "清一色"),
        "quads": ("quad", "闺", "閨"),
        "no_ghost": ("no ghost", "无鬼", "無鬼"),
        "kong_bloom": ("win on kong replacement", "杠上花", "槓上花"),
        "kong_discard": ("discard after kong", "杠上炮", "槓上炮"),
        "robbed_kong": ("robbing the kong", "抢杠", "搶槓"),
        "single_tile": ("single tile left", "手把一", "手把一"),
        "declared": ("declared ready", "报牌", "報牌"),
        "heavenly": ("heavenly hand", "天胡", "天胡"),
        "earthly": ("earthly hand", "地胡", "地胡"),
        "ghost_bonus": ("ghost bonus", "喜钱", "喜錢"),
        "ready_check": ("ready check", "查叫", "查叫"),
        "flower_cat": ("flower cat (three suits)", "花猫", "花貓"),
    }

    def value(self, step: int) -> int:
        return doubling_ladder(step, LADDER)

    def offers(self, event_type: str, rules: Any) -> bool:
        # 喜钱 needs the 8-ghost set and the rule on
        if event_type == "ghost_bonus":
            return rules.ghosts == 8 and rules.ghost_bonus != "off"
        return True

    def tile_features(self, r: Reading, ctx: Context) -> dict[str, Any]:
        form = tf.form(r)
        return {"form": form, "pure": tf.pure(r),
                "quads": min(tf.quads(r), 3 if form == "seven_pairs" else 4),
                "no_ghost": ctx.joker_tiles == 0,
                "single_tile": r.shape == "standard" and tf.melds(r) == 4}

    def check_indicator(self, indicator: str | None) -> None:
        if indicator is not None:
            raise ScoringError("indicator", "luzhou's jokers are always 红中; it turns no "
                               "indicator")

    def most_of(self, tile: str, rules: Any) -> int:
        return rules.ghosts if tile == GHOST else super().most_of(tile, rules)

    def refuse_count(self, tile: str, count: int, rules: Any) -> ScoringError:
        if tile == GHOST:
            return ScoringError("tiles", "{count} 红中 but this table plays with {ghosts} "
                                "(rule ghosts)", count=count, ghosts=rules.ghosts)
        return super().refuse_count(tile, count, rules)

    def refuse_tile(self, tile: str) -> ScoringError:
        return ScoringError("tiles", "luzhou does not use {tile}: it plays the three suits and "
                            "红中 (7z) only", tile=tile)

    def refuse_three_suits(self) -> ScoringError:
        return ScoringError("tiles", "缺一门: a Luzhou hand lacks one suit, and these tiles hold "
                            "all three")

    def score(self, hand: Hand) -> Outcome:
        rules: Rules = hand.rules
        ledger = Ledger()
        won: list[int] = []
        first_win: WinEvent | None = None
        over = False
        bonuses: list[tuple[str, GhostBonusEvent]] = []
        for i, ev in enumerate(hand.events):
            path = f"events[{i}]"
            if isinstance(ev, GhostBonusEvent):
                self._check_bonus(ev, path, rules, [b for _, b in bonuses])
                bonuses.append((path, ev))
                continue
            if over:
                raise ScoringError(path, "the hand is already over (three seats have won or the "
                                   "wall ran out); nothing can follow")
            if isinstance(ev, WinEvent):
                self._win(hand, ev, path, won, ledger)
                first_win = first_win or ev
                won.extend(ev.seats)
                over = len(won) == 3
            else:
                self._ready_check(ev, path, won, rules, ledger)
                over = True
        if not over:
            raise IncompleteHand("events", "the hand has no end: add its third win or the "
                                 "exhausted event")
        for _, ev in bonuses:
            self._ghost_bonus(ev, won, rules, ledger)
        if first_win is None:
            nxt = hand.dealer
        else:
            nxt = first_win.seats[0] if len(first_win.winners) == 1 else first_win.from_
        return ledger.outcome(hand, nxt)

    def _win(self, hand: Hand, ev: WinEvent, path: str, won: list[int], ledger: Ledger) -> None:
        rules: Rules = hand.rules
        if len(won) + len(ev.winners) > 3:
            raise ScoringError(f"{path}.winners", "at most three seats win a hand; {won} "
                               "already won and this adds {adding}", won=len(won),
                               adding=len(ev.winners))
        if ev.from_ is not None and ev.from_ in won:
            raise ScoringError(f"{path}.from", "{seat} has already won and is out of the hand",
                               seat=ev.from_)
        still_in = [s for s in SEATS if s not in won]
        for j, w in enumerate(ev.winners):
            wpath = f"{path}.winners[{j}]"
            self._check_winner(hand, ev, w, wpath, won)
            step, terms = win_step(w, ev, rules)
            value = self.value(step)
            names = describe(self.terms, terms)
            if ev.by == "self_draw":
                paid = owed(value, False, rules)
                payers = [s for s in still_in if s != w.seat]
                transfers: list[Transfer] = each_pays(payers, w.seat, paid)
                how = f"self-draw: {paid}颗 from each of seats {_seats(payers)}"
            else:
                if value // 2 < 2 and not rules.one_ke_discard:
                    raise ScoringError(wpath, "plain 平胡 cannot win off a discard (it would pay "
                                       "1颗); only with rule one_ke_discard")
                paid = owed(value, True, rules)
                transfers = [(ev.from_, w.seat, paid)]
                kind = "discard" if ev.by == "discard" else "robbed kong"
                how = f"{kind} halves: {paid}颗 from seat {ev.from_}"
            amount = value if ev.by == "self_draw" else value // 2
            ledger.add("win", w.seat, f"{names} {value}颗; {how}{_cap_note(amount, paid)}",
                       transfers, terms, value)

    def _check_winner(self, hand: Hand, ev: WinEvent, w: Winner, wpath: str,
                      won: list[int]) -> None:
        if w.seat in won:
            raise ScoringError(f"{wpath}.seat", "{seat} has already won this hand", seat=w.seat)
        if ev.by == "self_draw" and ev.after_kong and w.quads < 1:
            raise ScoringError(f"{wpath}.quads", "杠上花 (self_draw after_kong): the kong just "
                               "made is one of the quads, so quads must be at least 1")
        if ev.by == "self_draw" and ev.after_kong and w.form == "seven_pairs":
            raise ScoringError(f"{wpath}.form", "seven pairs cannot kong, so no 杠上花")
        if (w.heavenly or w.earthly) and won:
            raise ScoringError(wpath, "天胡/地胡 can only be the first win of a hand")
        if w.heavenly and (w.seat != hand.dealer or ev.by != "self_draw"):
            raise ScoringError(f"{wpath}.heavenly", "天胡 is the dealer's self-draw on the deal")
        if w.earthly and w.seat == hand.dealer:
            raise ScoringError(f"{wpath}.earthly", "地胡 is a non-dealer's win; the dealer's is 天胡")

    def _ready_check(self, ev: LuzhouExhausted, path: str, won: list[int], rules: Rules,
                     ledger: Ledger) -> None:
        still_in = [s for s in SEATS if s not in won]
        ready = ev.ready_seats()
        for s in ready:
            if s in won:
                raise ScoringError(f"{path}.ready", "{seat} has already won and takes no part "
                                   "in 查叫", seat=s)
        missing = [s for s in still_in if s not in ready]
        if missing:
            raise ScoringError(f"{path}.ready", "no ready entry for {seats_missing}, still in "
                               "the hand: give each one's best ready hand, null when not "
                               "ready, or \"flower_cat\" for 花猫", seats_missing=missing)
        cats = [s for s in still_in if ready[s] == FLOWER_CAT]
        # flower_cat: not_ready — a 花猫 pays the ready seats like any seat that is not ready
        not_ready = [s for s in still_in if ready[s] is None
                     or (ready[s] == FLOWER_CAT and rules.flower_cat == "not_ready")]
        for s in still_in:
            h = ready[s]
            if not isinstance(h, ReadyHand) or not not_ready:
                continue
            step, terms = hand_step(h, rules)
            value = self.value(step)
            half = rules.ready_pay == "half"
            paid = owed(value, half, rules)
            amount = value // 2 if half else value
            note = " halved" if half else ""
            ledger.add("ready_check", s,
                       f"查叫: ready for {describe(self.terms, terms)} {value}颗; not ready seats "
                       f"{_seats(not_ready)} pay{note} {paid}颗 each{_cap_note(amount, paid)}",
                       each_pays(not_ready, s, paid), ["ready_check", *terms], value)
        if rules.flower_cat == "cap":
            fine = rules.cap or FLOWER_CAT_NO_CAP
            for cat in cats:
                payees = [s for s in still_in if s not in cats]
                if not payees:
                    continue
                ledger.add("flower_cat", cat,
                           f"花猫: pays {fine}颗 to each of seats {_seats(payees)}",
                           pays_each(cat, payees, fine), ["flower_cat"], fine)

    def _check_bonus(self, ev: GhostBonusEvent, path: str, rules: Rules,
                     earlier: list[GhostBonusEvent]) -> None:
        if rules.ghosts != 8:
            raise ScoringError(f"{path}.type", "喜钱 (ghost_bonus) exists only with rule ghosts: 8")
        if rules.ghost_bonus == "off":
            raise ScoringError(f"{path}.type", "喜钱 is off in this table's rules (ghost_bonus: off)")
        if any(b.seat == ev.seat for b in earlier):
            raise ScoringError(f"{path}.seat", "{seat} already has a ghost_bonus event",
                               seat=ev.seat)

    def _ghost_bonus(self, ev: GhostBonusEvent, won: list[int], rules: Rules,
                     ledger: Ledger) -> None:
        amount = ghost_bonus_amount(ev.ghosts, rules)
        others = [s for s in SEATS if s != ev.seat]
        if rules.ghost_bonus_mode == "win_only" and ev.seat not in won:
            transfers = pays_each(ev.seat, others, amount)
            how = f"did not win, pays {amount}颗 to each other seat"
        else:
            transfers = each_pays(others, ev.seat, amount)
            how = f"collects {amount}颗 from each other seat"
        ledger.add("ghost_bonus", ev.seat, f"喜钱: {ev.ghosts} ghosts drawn, {how}", transfers,
                   ["ghost_bonus"], amount)
