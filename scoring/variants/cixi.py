"""Cixi "chongji" mahjong (慈溪冲级麻将) — docs/rules/cixi.md.

A bankroll game: each seat starts a level with `level_points` 点 and never pays more than it
holds; the level ends when a seat reaches 0. A hand's value is V = 12 + 2·L, L counting every
龙 (joker) source. One win ends the hand; 炸胡 (false wins) may come before it.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Literal

from pydantic import Field

from ..errors import ScoringError
from ..model import SEATS, ExhaustedEvent, Hand, RulesBase, Seat, StrictModel, WinEvent, WinnerBase, only_by
from ..outcome import Ledger, Outcome, Transfer
from ..rotation import pass_deal
from ..tiles import features as tf
from ..variant import Jokers, Shapes, TileSet, Variant, describe, register

if TYPE_CHECKING:
    from ..tiles.features import Context
    from ..tiles.reading import Reading

BASE = 12  # 12点起底
PER_DRAGON = 2  # 一龙加2点


class Rules(RulesBase):
    level_points: int = Field(default=100, ge=1)
    false_win_points: int = Field(default=24, ge=0)
    streak_bonus: int = Field(default=0, ge=0)


class Winner(WinnerBase):
    jokers: int = Field(default=0, ge=0, le=4)
    all_pungs: bool = False
    half_flush: bool = False
    chaos: bool = False
    seven_pairs: bool = False
    seven_winds: bool = False
    pure: bool = False
    single_wait: bool = False
    joker_single: bool = Field(default=False, json_schema_extra=only_by("self_draw"))
    flying_horse: bool = Field(default=False, json_schema_extra=only_by("self_draw"))
    kong_joker_single: bool = Field(default=False, json_schema_extra=only_by("self_draw"))
    earthly: bool = Field(default=False, json_schema_extra=only_by("discard"))
    promotions: int = Field(default=0, ge=0)
    all_honors: bool = False
    heavenly: bool = Field(default=False, json_schema_extra=only_by("self_draw"))
    ten_winds: bool = False
    hoarded_winds_by: Seat | None = None
    flying_horse_by: Seat | None = Field(default=None, json_schema_extra=only_by("discard"))


class FalseWinEvent(StrictModel):
    type: Literal["false_win"]
    seat: Seat


FORMS = ("all_pungs", "seven_pairs", "chaos")  # 七风 is a 大乱: seven_winds implies chaos
LONE_DRAGON = ("joker_single", "flying_horse", "kong_joker_single")  # waits on a lone 龙


@dataclass
class Valuation:
    """What a winning hand is worth and who pays it."""

    dragons: int = 0
    terms: list[str] = field(default_factory=list)
    all_in: list[str] = field(default_factory=list)  # 全交 reasons; non-empty → takes everything
    pays_all: bool = False  # 统付 / valued as a self-draw
    responsible: int | None = None  # the one seat that pays all three shares

    @property
    def value(self) -> int:
        return BASE + PER_DRAGON * self.dragons

    def add(self, term: str, dragons: int) -> None:
        self.dragons += dragons
        self.terms.append(term)


def valuation(w: Winner, ev: WinEvent) -> Valuation:
    """Count the 龙 of a (checked) winner; see the table in docs/rules/cixi.md."""
    v = Valuation()
    for term, on in (("all_honors", w.all_honors), ("four_jokers", w.jokers == 4),
                     ("heavenly", w.heavenly), ("ten_winds", w.ten_winds),
                     ("clean_pure", w.pure and w.jokers == 0)):
        if on:
            v.all_in.append(term)
    if v.all_in:
        return v
    if w.jokers:
        v.add(f"jokers:{w.jokers}", w.jokers)
    else:
        v.add("no_joker", 2)  # 无龙会
    for term, dragons, on in (("all_pungs", 1, w.all_pungs), ("half_flush", 1, w.half_flush)):
        if on:
            v.add(term, dragons)
    if w.hoarded_winds_by is not None:  # 关风向: +5 in place of 大乱's +1, that seat pays all
        v.add("hoarded_winds", 5)
        v.pays_all, v.responsible = True, w.hoarded_winds_by
    elif w.chaos or w.seven_winds:
        v.add("chaos", 1)
    # without 龙, 清七对 and 七风 are 统付 hands
    if w.seven_pairs and w.jokers:
        v.add("seven_pairs", 1)
    elif w.seven_pairs:
        v.add("clean_seven_pairs", 5)
        v.pays_all = True
    if w.seven_winds:  # +5 on top of 大乱: 无龙七风 2 + 1 + 5 = 8 → 28
        v.add("seven_winds" if w.jokers else "clean_seven_winds", 5)
        v.pays_all = v.pays_all or not w.jokers
    for term, dragons, on, pays_all in (
        ("pure", 5, w.pure, True),  # 有龙清一色 (without 龙 it is 全交, above)
        ("single_wait", 5, w.single_wait, True),
        ("joker_single", 5, w.joker_single, False),
        ("flying_horse", 10, w.flying_horse, False),
        ("kong_joker_single", 10, w.kong_joker_single, False),
        ("earthly", 5, w.earthly, True),
    ):
        if on:
            v.add(term, dragons)
            v.pays_all = v.pays_all or pays_all
    if w.promotions:
        v.add(f"promotions:{w.promotions}", 5 * w.promotions)
    # 杠上抛花 already includes the kong replacement's 5
    if ev.by == "self_draw" and ev.after_kong and not w.kong_joker_single:
        v.add("kong_bloom", 5)
    if ev.by == "discard" and ev.after_kong:
        v.add("kong_discard", 5)
        v.pays_all, v.responsible = True, ev.from_
    if ev.by == "robbed_kong":
        v.add("robbed_kong", 5)
        v.pays_all, v.responsible = True, ev.from_
    if w.flying_horse_by is not None:  # 飞马's risk: the seat that broke down pays all
        v.add("flying_horse_risk", 10)
        v.pays_all, v.responsible = True, w.flying_horse_by
    return v


def _seats(seats: list[int]) -> str:
    return ", ".join(str(s) for s in seats)


@register
class Cixi(Variant):
    name = "cixi"
    title = ("Cixi chongji mahjong", "慈溪冲级麻将", "慈溪衝級麻將")
    short = ("Cixi", "慈溪", "慈溪")
    unit = ("pt", "点", "點")
    Rules = Rules
    Winner = Winner
    events = (WinEvent[Winner], FalseWinEvent, ExhaustedEvent)
    # every honour; the 龙 is the tile after the turned one
    tiles = TileSet(shapes=Shapes(waves=True, all_honors=True, keep="win"),
                    jokers=Jokers(names=(("Dragon", "龙", "龍"),), turned=(1,),
                                  words=("龙", "龍"),
                                  example=("龙=6m in Cixi", "慈溪写 龙=6m", "慈溪寫 龍=6m")))
    # what the tiles show; 天胡, 地胡, the flying horse, promotions … are the story of the hand
    tile_fields = ("jokers", "all_pungs", "half_flush", "chaos", "seven_pairs", "seven_winds", "pure",
                   "single_wait", "joker_single", "all_honors")
    # 清一色 is 有龙清一色 with 龙 and 无龙清一色 without
    terms_without = {("pure", "jokers"): "clean_pure"}
    terms = {
        "jokers": ("joker", "龙", "龍"),
        "no_joker": ("no joker", "无龙会", "無龍會"),
        "all_pungs": ("all pungs", "对对胡", "對對胡"),
        "half_flush": ("half flush", "混一色", "混一色"),
        "chaos": ("chaos", "大乱", "大亂"),
        "seven_pairs": ("seven pairs", "七对子", "七對子"),
        "clean_seven_pairs": ("clean seven pairs", "无龙清七对", "無龍清七對"),
        "seven_winds": ("seven winds", "七风", "七風"),
        "clean_seven_winds": ("clean seven winds", "无龙七风", "無龍七風"),
        "pure": ("pure suit", "有龙清一色", "有龍清一色"),
        "clean_pure": ("pure suit without jokers", "无龙清一色", "無龍清一色"),
        "single_wait": ("single wait", "独吊", "獨吊"),
        "joker_single": ("lone joker wait", "抛花", "拋花"),
        "flying_horse": ("flying horse", "飞马", "飛馬"),
        "kong_joker_single": ("lone joker on a kong", "杠上抛花", "槓上拋花"),
        "earthly": ("earthly hand", "地胡", "地胡"),
        "heavenly": ("heavenly hand", "天胡", "天胡"),
        "promotions": ("promotion", "上堂", "上堂"),
        "all_honors": ("all honours", "全风", "全風"),
        "four_jokers": ("four jokers", "四龙", "四龍"),
        "ten_winds": ("ten wind discards", "十风", "十風"),
        "kong_bloom": ("win on kong replacement", "杠头开花", "槓頭開花"),
        "kong_discard": ("discard after kong", "杠上炮", "槓上炮"),
        "robbed_kong": ("robbing the kong", "拦杠胡", "攔槓胡"),
        "hoarded_winds": ("hoarded winds", "关风向", "關風向"),
        "flying_horse_risk": ("flying horse broken off", "飞马失手", "飛馬失手"),
        "hoarded_winds_by": ("hoarded winds: who pays", "关风向的一家", "關風向的一家"),
        "flying_horse_by": ("broke down to a lone joker: who pays", "飞马放炮的一家",
                            "飛馬放炮的一家"),
        "pays_all": ("each pays in full", "统付", "統付"),
        "all_in": ("takes everything", "全交", "全交"),
        "false_win": ("false win", "炸胡", "炸胡"),
        "streak_bonus": ("dealer streak bonus", "连庄", "連莊"),
    }

    def tile_features(self, r: Reading, ctx: Context) -> dict[str, Any]:
        # `jokers` counts the 龙 held, whatever each stands for: a 龙 standing for itself is no 无龙
        jokers = ctx.joker_tiles
        if r.shape == "all_honors":
            return {"jokers": jokers, "all_honors": True}
        waves = r.shape == "waves"
        seven_winds = waves and all(r.identity[27:])
        pair = tf.pair(r)
        on_pair = r.shape == "standard" and tf.win_on_pair(r) and pair is not None
        lone_joker = on_pair and pair is not None and pair.jokers > 0 and ctx.by == "self_draw"
        pure, half_flush = tf.flushes(r)
        return {"jokers": jokers, "all_pungs": tf.all_pungs(r), "half_flush": half_flush,
                "chaos": waves, "seven_pairs": r.shape == "seven_pairs",
                "seven_winds": seven_winds, "pure": pure,
                # 独吊: chowed or punged down to one tile, and that tile's pair won
                "single_wait": on_pair and not lone_joker and tf.melds(r) == 4
                and pair is not None and pair.jokers == 0,
                "joker_single": lone_joker}

    def initial_balances(self, rules: Rules) -> tuple[int, int, int, int]:
        p = rules.level_points
        return (p, p, p, p)

    def score(self, hand: Hand) -> Outcome:
        rules: Rules = hand.rules
        self._check_balances(hand, rules)
        ledger = Ledger()
        false_winners: set[int] = set()
        winner: int | None = None
        over = False
        for i, ev in enumerate(hand.events):
            path = f"events[{i}]"
            if over:
                raise ScoringError(path, "the hand is already over (a win or the wall running out "
                                   "ends it); nothing can follow")
            if isinstance(ev, FalseWinEvent):
                self._false_win(hand, ev, ledger)
                false_winners.add(ev.seat)
            elif isinstance(ev, WinEvent):
                self.check_winner_count(ev, path)
                w = ev.winners[0]
                self._check_winner(hand, ev, w, i, false_winners)
                self._win(hand, ev, w, ledger)
                winner, over = w.seat, True
            else:
                over = True
        self.check_end_and_kongs(True if over else None, ())
        balances = ledger.held(hand.balances)
        if winner is None or winner == hand.dealer:
            nxt, wind = hand.dealer, hand.round_wind
        else:
            nxt, wind = pass_deal(hand.dealer, hand.round_wind)
        return ledger.outcome(hand, nxt, next_round_wind=wind, level_over=0 in balances)

    # -- checks ------------------------------------------------------------------------------

    def _check_balances(self, hand: Hand, rules: Rules) -> None:
        for s, b in enumerate(hand.balances):
            if b <= 0:
                raise ScoringError(f"balances[{s}]", "{seat} holds {balance}: a level ends when a "
                                   "seat reaches 0, so the next hand starts a new level with "
                                   "{level_points} each (level_points)", seat=s, balance=b,
                                   level_points=rules.level_points)

    def _check_winner(self, hand: Hand, ev: WinEvent, w: Winner, i: int,
                      false_winners: set[int]) -> None:
        wpath = f"events[{i}].winners[0]"
        if w.seat in false_winners:
            raise ScoringError(f"{wpath}.seat", "{seat} made a false win (炸胡) earlier "
                               "in this hand and may not win it", seat=w.seat)
        forms = [f for f in FORMS if getattr(w, f)]
        if len(forms) > 1:
            raise ScoringError(f"{wpath}.{forms[1]}", "a hand has one shape: {form} and "
                               "{other_form} do not go together", form=forms[0],
                               other_form=forms[1])
        if w.pure and w.half_flush:
            raise ScoringError(f"{wpath}.half_flush", "清一色 (pure) and 混一色 (half_flush) "
                               "exclude each other")
        lone = [f for f in LONE_DRAGON if getattr(w, f)]
        if len(lone) > 1:
            raise ScoringError(f"{wpath}.{lone[1]}", "{wait} and {other_wait} are different "
                               "lone-龙 waits; give the one that happened", wait=lone[0],
                               other_wait=lone[1])
        if lone and w.jokers < 1:
            raise ScoringError(f"{wpath}.jokers", "{wait} waits on a lone 龙, so jokers must "
                               "be at least 1", wait=lone[0])
        if w.single_wait:
            if lone:
                # 飞马 (+10) is itself 抛花 (+5) on a 独吊 (+5): counting both would double it
                raise ScoringError(f"{wpath}.single_wait", "a 独吊 on a lone 龙 is 飞马 "
                                   "(flying_horse) alone; do not also set single_wait")
            if forms and forms[0] != "all_pungs":
                raise ScoringError(f"{wpath}.single_wait", "独吊 needs chows or pungs; "
                                   "{form} has none", form=forms[0])
        if w.joker_single and ev.by != "self_draw":
            raise ScoringError(f"{wpath}.joker_single", "抛花 is a self-drawn win")
        if w.kong_joker_single and not (ev.by == "self_draw" and ev.after_kong):
            raise ScoringError(f"{wpath}.kong_joker_single", "杠上抛花 is a self-draw on a kong "
                               "replacement (by self_draw, after_kong true)")
        if w.flying_horse and ev.by != "self_draw":
            raise ScoringError(f"{wpath}.flying_horse", "飞马 is a self-drawn win; a win off the "
                               "discard of a seat that broke down to a lone 龙 is "
                               "flying_horse_by")
        if w.flying_horse_by is not None and (ev.by != "discard"
                                              or w.flying_horse_by != ev.from_):
            raise ScoringError(f"{wpath}.flying_horse_by", "飞马's risk falls on the seat whose "
                               "discard won this hand: the win must be a discard from "
                               "{seat_by}", seat_by=w.flying_horse_by)
        if w.hoarded_winds_by is not None:
            self._check_hoarded(ev, w, wpath)
        if w.heavenly and (w.seat != hand.dealer or ev.by != "self_draw" or i):
            raise ScoringError(f"{wpath}.heavenly", "天胡 is the dealer's self-draw on the deal, "
                               "before anything else happens")
        if w.earthly and (w.seat == hand.dealer or ev.by != "discard" or ev.from_ != hand.dealer
                          or i):
            raise ScoringError(f"{wpath}.earthly", "地胡 is a non-dealer winning on the dealer's "
                               "first discard (by discard, from the dealer, the first event)")

    def _check_hoarded(self, ev: WinEvent, w: Winner, wpath: str) -> None:
        by = w.hoarded_winds_by
        if by == w.seat:
            raise ScoringError(f"{wpath}.hoarded_winds_by", "the winner cannot pay for his own "
                               "hoarded winds")
        if not (w.chaos or w.seven_winds):
            raise ScoringError(f"{wpath}.hoarded_winds_by", "关风向 pays for a hand that became "
                               "大乱; set chaos")
        other = ev.from_ if (ev.by == "robbed_kong" or ev.after_kong
                             or w.flying_horse_by is not None) else None
        if other is not None and other != by:
            # the rules name one seat that pays all three shares; two would be a guess
            raise ScoringError(f"{wpath}.hoarded_winds_by", "{seat} already pays all "
                               "three shares for this win; {seat_by} cannot pay them too",
                               seat=other, seat_by=by)

    # -- payments ----------------------------------------------------------------------------

    def _false_win(self, hand: Hand, ev: FalseWinEvent, ledger: Ledger) -> None:
        rules: Rules = hand.rules
        s, fine = ev.seat, rules.false_win_points
        held = ledger.held(hand.balances)[s]
        order = [(s + k) % 4 for k in (1, 2, 3)]  # turn order from s's next seat
        if held >= 3 * fine:
            amounts = [fine, fine, fine]
            how = f"pays {fine}点 to each other seat"
        else:
            share, rest = divmod(held, 3)
            amounts = [share + (k < rest) for k in range(3)]
            how = f"holds only {held}点, split among the others: " + ", ".join(
                f"seat {p} {a}" for p, a in zip(order, amounts, strict=True))
        transfers = [(s, p, a) for p, a in zip(order, amounts, strict=True) if a]
        ledger.add("false_win", s, f"炸胡: seat {s} {how}", transfers, ["false_win"], fine)

    def _win(self, hand: Hand, ev: WinEvent, w: Winner, ledger: Ledger) -> None:
        rules: Rules = hand.rules
        held = ledger.held(hand.balances)
        others = [s for s in SEATS if s != w.seat]
        v = valuation(w, ev)
        if v.all_in:
            transfers = [(s, w.seat, held[s]) for s in others if held[s]]
            ledger.add("all_in", w.seat, f"{describe(self.terms, v.all_in)} 全交: seat {w.seat} "
                       "takes everything the others hold", transfers, [*v.all_in, "all_in"])
            return
        value = v.value
        bonus = rules.streak_bonus * (hand.dealer_streak - 1)

        def share(payer: int, base: int) -> int:  # 连庄: bonus on payments to or by the dealer
            return base + (bonus if hand.dealer in (payer, w.seat) else 0)

        terms = list(v.terms)
        if v.responsible is not None:
            r = v.responsible
            owed = sum(share(r, value) for _ in others)
            how = f"seat {r} pays all three shares, {owed}点"
            wanted: list[tuple[int, int]] = [(r, owed)]
        elif v.pays_all or ev.by == "self_draw":
            wanted = [(s, share(s, value)) for s in others]
            kind = "统付" if ev.by != "self_draw" else "self-draw"
            how = f"{kind}: each pays {value}点"
            if v.pays_all:
                terms.append("pays_all")
        else:
            wanted = [(s, share(s, value if s == ev.from_ else value // 2)) for s in others]
            rest = [s for s in others if s != ev.from_]
            how = f"discard: seat {ev.from_} pays {value}点, seats {_seats(rest)} {value // 2}点"
        if bonus and hand.dealer in (w.seat, *(p for p, _ in wanted)):
            terms.append("streak_bonus")
            how += f" (+{bonus}点 on each payment to or by the dealer, streak {hand.dealer_streak})"
        transfers: list[Transfer] = []
        short = []
        for payer, amount in wanted:
            paid = min(amount, held[payer])
            if paid < amount:
                short.append(f"seat {payer} has only {paid}")
            if paid:
                transfers.append((payer, w.seat, paid))
        if short:
            how += " (" + "; ".join(short) + ")"
        ledger.add("win", w.seat, f"{describe(self.terms, v.terms)} {value}点; {how}", transfers,
                   terms, value)

