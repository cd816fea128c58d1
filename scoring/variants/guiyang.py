"""Guiyang chicken mahjong (贵阳捉鸡麻将) — docs/rules/guiyang.md.

A hand ends at its first win (several winners only on one discard). On top of the win come
豆 (kongs) and 鸡 (chickens), both paid only to seats that are ready when the hand ends; 跟张 is
paid by the dealer; an exhausted wall is settled by 黄庄查叫 alone.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Annotated, Any, Literal

from pydantic import AfterValidator, Field, model_validator

from ..errors import ScoringError, invalid
from ..model import (
    SEATS,
    ExhaustedReadyEvent,
    Hand,
    KongEvent,
    RulesBase,
    Seat,
    SeatKey,
    StrictModel,
    WinEvent,
    WinnerBase,
)
from ..outcome import Ledger, Outcome, Transfer
from ..payments import each_pays, pays_each
from ..rotation import first_in_turn
from ..tiles import features as tf
from ..variant import Shapes, TileSet, Variant, describe, register

if TYPE_CHECKING:
    from ..tiles.features import Context
    from ..tiles.reading import Reading

KONG_PAY = {"concealed": 2, "added": 3, "exposed": 1}  # 闷豆 / 转弯豆 / 点豆
CHICKEN_QUAD = 5  # a concealed kong of a chicken tile, in place of its four tiles
MAX_FOLLOW_ROUNDS = 14  # a 108-tile wall leaves 55 draws: 3 + 4·13 of them
SUITS = "mps"  # 万, 筒, 条 (幺鸡 is 1s)


class Rules(RulesBase):
    pure_seven_pairs: int = Field(default=20, ge=0)
    self_draw_bonus: int = Field(default=0, ge=0)
    streak_bonus: Literal["winner", "both", "off"] = "winner"
    gold_chicken: int = Field(default=3, ge=0)
    hero_chicken: int = Field(default=2, ge=0)
    count_discarded_yaoji: bool = True
    bao_ji: bool = False
    follow_pay: Literal["last", "sum"] = "last"


class ReadyHand(StrictModel):
    """A hand's shape: what it is worth when it wins or when 查叫 values it."""

    form: Literal["standard", "all_pungs", "seven_pairs"] = "standard"
    pure: bool = False
    quads: int = Field(default=0, ge=0, le=3)
    declared: bool = False

    @model_validator(mode="after")
    def _quads_in_pairs(self) -> ReadyHand:
        if self.quads and self.form != "seven_pairs":
            raise invalid("quads count only in seven pairs (龙七对); "
                          "record kongs as kong events")
        return self


class Winner(WinnerBase, ReadyHand):
    pass


def _check_tile(tile: str) -> str:
    if len(tile) != 2 or tile[0] not in "123456789" or tile[1] not in SUITS:
        raise invalid("must be a suited tile like '5p': rank 1–9 and suit m, p or s "
                      "(got '{tile}')", tile=tile)
    return tile


Tile = Annotated[str, AfterValidator(_check_tile)]


class ChickenHand(StrictModel):
    yaoji: int = Field(default=0, ge=0, le=4)
    fanji: int = Field(default=0, ge=0, le=4)
    yaoji_out: int = Field(default=0, ge=0, le=4)
    quads: int = Field(default=0, ge=0, le=2)


def fanji_tile(flipped: str | None) -> str | None:
    """The 翻鸡: the next rank of the flipped tile's suit, 9 wrapping to 1."""
    if flipped is None:
        return None
    return f"{int(flipped[0]) % 9 + 1}{flipped[1]}"


class ChickensEvent(StrictModel):
    type: Literal["chickens"]
    flipped: Tile | None  # required: null says the wall was empty
    hero: Seat | None = None
    seats: dict[SeatKey, ChickenHand] = Field(default_factory=dict)

    @model_validator(mode="after")
    def _tiles_exist(self) -> ChickensEvent:
        fan = fanji_tile(self.flipped)
        hands = self.seats.values()
        fanji = sum(h.fanji for h in hands)
        if fanji and fan is None:
            raise invalid("no tile was flipped, so there is no 翻鸡: "
                          "fanji must be 0")
        if fanji and fan == "1s":
            raise invalid("9s flipped makes 幺鸡 the 翻鸡 (金鸡): count "
                          "those tiles in yaoji, not fanji")
        # the hero tile is valued once, by `hero`, never also in anyone's yaoji or yaoji_out
        yaoji = sum(h.yaoji + h.yaoji_out for h in hands) + (self.hero is not None)
        if yaoji > 4:
            raise invalid("there are only four 幺鸡 (1s); yaoji, "
                          "yaoji_out and the hero tile add up to {n}", n=yaoji)
        kinds = 1 if fan in (None, "1s") else 2
        tiles = yaoji + fanji + 4 * sum(h.quads for h in hands)
        if tiles > 4 * kinds:
            raise invalid("more chicken tiles than exist ({n} counted, "
                          "{k} in the set)", n=tiles, k=4 * kinds)
        return self


class ReadyEvent(StrictModel):
    type: Literal["ready"]
    seats: list[Seat] = Field(default_factory=list)


class FollowEvent(StrictModel):
    type: Literal["follow"]
    rounds: int = Field(ge=1, le=MAX_FOLLOW_ROUNDS)


class DeadHandEvent(StrictModel):
    type: Literal["dead_hand"]
    seat: Seat


Exhausted = ExhaustedReadyEvent[ReadyHand]


def hand_value(h: ReadyHand, rules: Rules) -> tuple[int, list[str]]:
    """V of a hand's shape plus 报听, and the terms that name it."""
    if h.form == "seven_pairs":
        if h.pure:
            value, name = (30, "green_dragon") if h.quads else (rules.pure_seven_pairs,
                                                                "pure_seven_pairs")
        else:
            value, name = (20, "dragon_seven_pairs") if h.quads else (10, "seven_pairs")
    elif h.form == "all_pungs":
        value, name = (15, "pure_all_pungs") if h.pure else (5, "all_pungs")
    else:
        value, name = (10, "pure") if h.pure else (1, "standard")
    terms = [name]
    if h.declared:
        value += 10
        terms.append("declared")
    return value, terms


def _seats(seats: list[int] | set[int]) -> str:
    return ", ".join(str(s) for s in sorted(seats))


@dataclass
class _Read:
    """The events sorted by kind, each with its path, after the order checks."""

    end: tuple[str, WinEvent | Exhausted] | None = None
    kongs: list[tuple[str, KongEvent]] = field(default_factory=list)
    ready: tuple[str, ReadyEvent] | None = None
    chickens: tuple[str, ChickensEvent] | None = None
    follow: tuple[str, FollowEvent] | None = None
    dead: dict[int, str] = field(default_factory=dict)

    def kongs_of(self, seat: int) -> list[KongEvent]:
        return [k for _, k in self.kongs if k.seat == seat and not k.robbed]


@register
class Guiyang(Variant):
    name = "guiyang"
    title = ("Guiyang chicken mahjong", "贵阳捉鸡麻将", "貴陽捉雞麻將")
    short = ("Guiyang", "贵阳", "貴陽")
    unit = ("ge", "个", "個")
    Rules = Rules
    Winner = Winner
    events = (WinEvent[Winner], KongEvent, ReadyEvent, ChickensEvent, FollowEvent,
              DeadHandEvent, Exhausted)
    multi_winner = True
    after_end = frozenset({"ready", "chickens", "follow", "dead_hand"})
    ready_fields = ("form", "pure", "quads")  # 报听 the tiles do not show
    tiles = TileSet(honours=False, chows=False, shapes=Shapes(keep="plain"))  # the three suits
    tile_fields = ready_fields  # a win shows what a ready hand shows
    terms = {
        "standard": ("plain", "平胡", "平胡"),
        "all_pungs": ("all pungs", "大对子", "大對子"),
        "seven_pairs": ("seven pairs", "七对", "七對"),
        "dragon_seven_pairs": ("dragon seven pairs", "龙七对", "龍七對"),
        "pure": ("pure suit", "清一色", "清一色"),
        "pure_all_pungs": ("pure all pungs", "清大对", "清大對"),
        "pure_seven_pairs": ("pure seven pairs", "清七对", "清七對"),
        "green_dragon": ("pure dragon seven pairs", "青龙背", "青龍背"),
        "declared": ("declared ready", "报听", "報聽"),
        "kong_bloom": ("win on kong replacement", "杠上花", "槓上花"),
        "hot_discard": ("discard after kong", "热炮", "熱炮"),
        "robbed_kong": ("robbing the kong", "抢杠", "搶槓"),
        "self_draw_bonus": ("self-draw bonus", "自摸加个", "自摸加個"),
        "streak": ("dealer streak", "连庄", "連莊"),
        "kong": ("kong", "豆", "豆"),
        "concealed_kong": ("concealed kong", "闷豆", "悶豆"),
        "added_kong": ("added kong", "转弯豆", "轉彎豆"),
        "exposed_kong": ("exposed kong", "点豆", "點豆"),
        "void": ("void", "不算", "不算"),
        "chickens": ("chickens", "鸡", "雞"),
        "yaoji": ("1 bamboo", "幺鸡", "幺雞"),
        "gold_chicken": ("golden chicken", "金鸡", "金雞"),
        "fanji": ("flipped chicken", "翻鸡", "翻雞"),
        "yaoji_out": ("discarded 1 bamboo", "打出幺鸡", "打出幺雞"),
        "hero": ("hero chicken", "英雄鸡", "英雄雞"),
        "chicken_quad": ("chicken kong", "鸡闷豆", "雞悶豆"),
        "bao_ji": ("chickens paid by a seat not ready", "包鸡", "包雞"),
        "follow": ("following the dealer", "跟张", "跟張"),
        "ready_check": ("ready check", "黄庄查叫", "黃莊查叫"),
    }

    def tile_features(self, r: Reading, ctx: Context) -> dict[str, Any]:
        form = tf.form(r)
        return {"form": form, "pure": tf.pure(r),
                "quads": min(tf.quads(r), 3) if form == "seven_pairs" else 0}

    def score(self, hand: Hand) -> Outcome:
        rules: Rules = hand.rules
        read = self._read(hand)
        assert read.end is not None
        path, end = read.end
        ledger = Ledger()
        if isinstance(end, WinEvent):
            ready = self._check_won(hand, read, path, end)
            blocked = set(read.dead)  # 相公 and 一废全废 seats collect nothing
            if end.by == "robbed_kong" or (end.by == "discard" and end.after_kong):
                blocked.add(end.from_)
            collectors = ready - blocked
            for w in end.winners:
                self._win(hand, end, w, ledger)
            self._kongs(read, collectors, blocked, None, ledger)
            if read.chickens:
                self._chickens(read.chickens[1], ready, collectors, rules, ledger)
            self._follow(hand, read, blocked, ledger)
            nxt = end.seats[0] if len(end.winners) == 1 else first_in_turn(end.from_, end.seats)
        else:
            self._check_exhausted(read, path, end)
            self._kongs(read, set(), set(), "the wall ran out", ledger)
            self._ready_check(end, rules, ledger)
            self._follow(hand, read, set(read.dead), ledger)
            nxt = hand.dealer
        return ledger.outcome(hand, nxt)

    # -- reading and checking the record ---------------------------------------------------------

    def _read(self, hand: Hand) -> _Read:
        read = _Read()
        for i, ev in enumerate(hand.events):
            path = f"events[{i}]"
            if isinstance(ev, WinEvent | ExhaustedReadyEvent):
                if read.end is not None:
                    raise ScoringError(path, "the hand already ended at {event}; a Guiyang "
                                       "hand ends at its first win (several winners of one "
                                       "discard go in one win event)", event=read.end[0])
                read.end = (path, ev)
            elif isinstance(ev, KongEvent):
                if read.end is not None:
                    raise ScoringError(path, "a kong must come before the event that ended the "
                                       "hand ({event})", event=read.end[0])
                read.kongs.append((path, ev))
            elif isinstance(ev, ReadyEvent | ChickensEvent):
                kind = "ready" if isinstance(ev, ReadyEvent) else "chickens"
                if read.end is None:
                    raise ScoringError(f"{path}.type", "{kind} comes after the win it belongs to",
                                       kind=kind)
                if not isinstance(read.end[1], WinEvent):
                    raise ScoringError(f"{path}.type", "{kind} belongs to a won hand; on an "
                                       "exhausted wall there are no 鸡 and 查叫 uses "
                                       "exhausted.ready", kind=kind)
                if getattr(read, kind) is not None:
                    raise ScoringError(path, "there is already a {kind} event ({event})",
                                       kind=kind, event=getattr(read, kind)[0])
                setattr(read, kind, (path, ev))
            elif isinstance(ev, FollowEvent):
                if read.follow is not None:
                    raise ScoringError(path, "there is already a follow event ({event})",
                                       event=read.follow[0])
                read.follow = (path, ev)
            else:
                if read.end is not None:
                    raise ScoringError(path, "相公 (dead_hand) happens during play: it comes "
                                       "before the event that ended the hand ({event})",
                                       event=read.end[0])
                if ev.seat in read.dead:
                    raise ScoringError(f"{path}.seat", "{seat} is already 相公 ({event})",
                                       seat=ev.seat, event=read.dead[ev.seat])
                read.dead[ev.seat] = path
        self.check_end_and_kongs(read.end, (k for _, k in read.kongs))
        return read

    def _check_won(self, hand: Hand, read: _Read, path: str, ev: WinEvent) -> set[int]:
        """Check the win against the other events; return the ready seats."""
        for j, w in enumerate(ev.winners):
            wpath = f"{path}.winners[{j}]"
            if w.seat in read.dead:
                raise ScoringError(f"{wpath}.seat", "{seat} is 相公 (dead_hand, {event}) and may "
                                   "not win", seat=w.seat, event=read.dead[w.seat])
            own = read.kongs_of(w.seat)
            if w.form == "seven_pairs" and own:
                raise ScoringError(f"{wpath}.form", "{seat} made a kong, so its hand cannot be "
                                   "seven pairs", seat=w.seat)
            if ev.by == "self_draw" and ev.after_kong and not own:
                raise ScoringError(f"{path}.after_kong", "杠上花 needs a kong by {seat} in the "
                                   "events", seat=w.seat)
            plain = w.form == "standard" and not w.pure and not w.declared
            if ev.by == "discard" and not ev.after_kong and plain and not own:
                raise ScoringError(wpath, "平胡 may win off a discard only with a 豆 (a kong "
                                   "this hand), off a 热炮, or by robbing a kong")
        if ev.by == "discard" and ev.after_kong and not read.kongs_of(ev.from_):
            raise ScoringError(f"{path}.after_kong", "热炮 means {seat} had just made a kong; "
                               "add its kong event", seat=ev.from_)
        self.check_robbed_kong(ev, path, read.kongs)
        ready = set(ev.seats)
        if read.ready:
            rpath, rev = read.ready
            for j, s in enumerate(rev.seats):
                if s in rev.seats[:j]:
                    raise ScoringError(f"{rpath}.seats[{j}]", "{seat} is listed twice", seat=s)
                if s in ev.seats:
                    raise ScoringError(f"{rpath}.seats[{j}]", "{seat} won; list only the "
                                       "non-winners who were ready", seat=s)
                if s in read.dead:
                    raise ScoringError(f"{rpath}.seats[{j}]", "{seat} is 相公 and cannot be ready",
                                       seat=s)
            ready |= set(rev.seats)
        if read.chickens:
            cpath, cev = read.chickens
            for key, ch in sorted(cev.seats.items()):
                concealed = [k for k in read.kongs_of(int(key)) if k.kind == "concealed"]
                if ch.quads > len(concealed):
                    raise ScoringError(f"{cpath}.seats['{key}'].quads", "{seat} has {kongs} "
                                       "concealed kong(s) in the events, fewer than its {quads} "
                                       "chicken quad(s)", seat=int(key), kongs=len(concealed),
                                       quads=ch.quads)
        return ready

    def _check_exhausted(self, read: _Read, path: str, ev: Exhausted) -> None:
        ready = ev.ready_seats()
        missing = [s for s in SEATS if s not in ready]
        if missing:
            raise ScoringError(f"{path}.ready", "黄庄查叫 needs every seat: give {seats_missing} "
                               "its ready hand, or null when not ready", seats_missing=missing)
        for s in read.dead:
            if ready[s] is not None:
                raise ScoringError(f"{path}.ready['{s}']", "{seat} is 相公 and cannot be ready",
                                   seat=s)
        for p, k in read.kongs:
            if k.robbed:
                raise ScoringError(f"{p}.robbed", "a robbed kong ends the hand in a win, not an "
                                   "exhausted wall")

    # -- payments --------------------------------------------------------------------------------

    def _win(self, hand: Hand, ev: WinEvent, w: Winner, ledger: Ledger) -> None:
        rules: Rules = hand.rules
        value, terms = hand_value(w, rules)
        if ev.by == "self_draw" and ev.after_kong:
            value += 1
            terms.append("kong_bloom")
        if ev.by == "self_draw" and rules.self_draw_bonus:
            value += rules.self_draw_bonus
            terms.append("self_draw_bonus")
        if ev.by == "discard" and ev.after_kong:
            terms.append("hot_discard")
        if ev.by == "robbed_kong":
            terms.append("robbed_kong")
        payers = hand.others(w.seat) if ev.by == "self_draw" else [ev.from_]
        extra = hand.dealer_streak - 1  # "n连庄胡牌付n个"
        dealer_win = w.seat == hand.dealer and rules.streak_bonus != "off"
        dealer_pays = w.seat != hand.dealer and rules.streak_bonus == "both"
        each = value + extra if dealer_win else value
        transfers: list[Transfer] = []
        for p in payers:
            transfers.append((p, w.seat, each + extra if dealer_pays and p == hand.dealer else each))
        note = ""
        if extra and (dealer_win or (dealer_pays and hand.dealer in payers)):
            terms.append("streak")
            who = "each pays" if dealer_win else f"dealer seat {hand.dealer} pays"
            note = f" (连庄 {hand.dealer_streak}: {who} {extra}个 more)"
        if ev.by == "self_draw":
            how = f"self-draw: {each}个 from each of seats {_seats(payers)}"
        else:
            kind = {"discard": "discard", "robbed_kong": "robbed kong"}[ev.by]
            how = f"{kind}: seat {ev.from_} pays"
        ledger.add("win", w.seat, f"{describe(self.terms, terms)} {value}个; {how}{note}",
                   transfers, terms, each)

    def _kongs(self, read: _Read, collectors: set[int], blocked: set[int], void: str | None,
               ledger: Ledger) -> None:
        for _, k in read.kongs:
            term = f"{k.kind}_kong"
            amount = KONG_PAY[k.kind]
            payers = [k.from_] if k.kind == "exposed" else [s for s in SEATS if s != k.seat]
            reason = void or ("robbed" if k.robbed else None)
            if reason is None and k.seat in blocked:
                reason = f"seat {k.seat} collects nothing this hand"
            if reason is None and k.seat not in collectors:
                reason = f"seat {k.seat} is not ready"
            if reason:
                ledger.add("kong", k.seat, f"{self.terms[term][1]}: void, {reason}", [],
                           [term, "void"])
                continue
            ledger.add("kong", k.seat, f"{self.terms[term][1]}: {amount}个 from seat(s) "
                       f"{_seats(payers)}", each_pays(payers, k.seat, amount), [term], amount)

    def _chickens(self, ev: ChickensEvent, ready: set[int], collectors: set[int], rules: Rules,
                  ledger: Ledger) -> None:
        fan = fanji_tile(ev.flipped)
        gold = fan == "1s"
        for s in SEATS:
            ch = ev.seats.get(str(s), ChickenHand())  # type: ignore[call-overload]
            value, terms = self._chicken_value(ch, s == ev.hero, gold, rules)
            if not value:
                continue
            named = describe(self.terms, terms) + (f" ({fan})" if ch.fanji else "")
            if s in collectors:
                ledger.add("chickens", s, f"鸡 {named} = {value}个, from each other seat",
                           each_pays(SEATS, s, value), ["chickens", *terms], value)
            elif s not in ready and rules.bao_ji and collectors:
                ledger.add("bao_ji", s, f"包鸡: not ready, pays its 鸡 {named} = {value}个 to "
                           f"each ready seat {_seats(collectors)}", pays_each(s, collectors, value),
                           ["bao_ji", *terms], value)
            else:
                why = "collects nothing this hand" if s in ready else "not ready"
                ledger.add("chickens", s, f"鸡 {named} = {value}个: {why}", [],
                           ["chickens", *terms, "void"])

    def _chicken_value(self, ch: ChickenHand, hero: bool, gold: bool,
                       rules: Rules) -> tuple[int, list[str]]:
        parts = [
            ("gold_chicken" if gold else "yaoji", ch.yaoji, rules.gold_chicken if gold else 1),
            ("fanji", ch.fanji, 1),
            ("yaoji_out", ch.yaoji_out if rules.count_discarded_yaoji else 0, 1),
            ("chicken_quad", ch.quads, CHICKEN_QUAD),
            ("hero", int(hero), rules.hero_chicken),
        ]
        value = sum(n * each for _, n, each in parts)
        terms = [f"{t}:{n}" if n > 1 else t for t, n, each in parts if n and each]
        return value, terms

    def _follow(self, hand: Hand, read: _Read, blocked: set[int], ledger: Ledger) -> None:
        if read.follow is None:
            return
        rounds = read.follow[1].rounds
        # last: the last round's doubling, 2^(r−1); sum: every round paid, 1 + 2 + … = 2^r − 1
        amount = 2 ** rounds - 1 if hand.rules.follow_pay == "sum" else 2 ** (rounds - 1)
        payees = [s for s in hand.others(hand.dealer) if s not in blocked]
        left_out = blocked - {hand.dealer}
        skipped = f"; seat {_seats(left_out)} collects nothing" if left_out else ""
        ledger.add("follow", hand.dealer, f"跟张 {rounds} round(s): the dealer pays {amount}个 "
                   f"to each other seat{skipped}", pays_each(hand.dealer, payees, amount),
                   ["follow"], amount)

    def _ready_check(self, ev: Exhausted, rules: Rules, ledger: Ledger) -> None:
        ready = ev.ready_seats()
        not_ready = [s for s in SEATS if ready[s] is None]
        if len(not_ready) in (0, 4):
            who = "nobody" if not_ready else "everybody"
            ledger.add("ready_check", None, f"黄庄查叫: {who} is ready, nobody pays", [],
                       ["ready_check"])
            return
        for s in SEATS:
            h = ready[s]
            if h is None:
                continue
            value, terms = hand_value(h, rules)
            ledger.add("ready_check", s, f"查叫: ready for {describe(self.terms, terms)} "
                       f"{value}个; seats {_seats(not_ready)} pay {value}个 each",
                       each_pays(not_ready, s, value), ["ready_check", *terms], value)
