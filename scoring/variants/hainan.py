"""Hainan mahjong (海南麻将) — docs/rules/hainan.md.

有番才能胡: a win needs at least one 番, but 番 only opens the gate. The payment is hand points ×
the win's multiplier from every other seat, the discarder paying one more; kongs pay on their
own. One winner per discard (截胡); the round wind (令) turns as the deal goes round.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Literal

from pydantic import Field, model_validator

from ..errors import ScoringError, invalid
from ..model import ExhaustedEvent, Hand, KongEvent, RulesBase, Seat, WinEvent, WinnerBase, only_by
from ..outcome import Ledger, Outcome, Transfer
from ..payments import each_pays
from ..rotation import pass_deal
from ..tiles import features as tf
from ..variant import Shapes, TileSet, Variant, describe, register

if TYPE_CHECKING:
    from ..tiles.features import Context
    from ..tiles.reading import Reading

KONG_PAY = {"exposed": 1, "added": 2, "concealed": 2}  # 明杠算胡, 暗杠 (and 补杠) 算自摸
# the boolean 番 sources, in the order lines name them
FAN_FLAGS = ("thirteen_orphans", "seven_pairs", "all_pungs", "all_chows", "concealed", "pure",
             "half_flush", "eyes_258", "seat_wind", "round_wind")


class Rules(RulesBase):
    discarder_extra: int = Field(default=1, ge=0)
    dealer_extra: int = Field(default=0, ge=0)
    exposed_kong_discarder: int = Field(default=0, ge=0)
    self_draw_needs_fan: bool = False
    concealed_kong_keeps_menqing: bool = False
    kongs_on_exhausted: Literal["pay", "void"] = "pay"


class Winner(WinnerBase):
    all_chows: bool = False
    concealed: bool = False
    all_pungs: bool = False
    pure: bool = False
    half_flush: bool = False
    eyes_258: bool = False
    dragon_pungs: int = Field(default=0, ge=0, le=3)
    seat_flower: int = Field(default=0, ge=0, le=2)
    seat_wind: bool = False
    round_wind: bool = False
    thirteen_orphans: bool = False
    seven_pairs: bool = False
    luxury: bool = False
    flower_bloom: bool = Field(default=False, json_schema_extra=only_by("self_draw"))
    heavenly: bool = Field(default=False, json_schema_extra=only_by("self_draw"))
    earthly: bool = Field(default=False, json_schema_extra=only_by("self_draw", "discard"))
    liable: Seat | None = Field(default=None, json_schema_extra=only_by("discard", "robbed_kong"))

    @model_validator(mode="after")
    def _shape_fits(self) -> Winner:
        pungs = self.dragon_pungs or self.seat_wind or self.round_wind
        if self.thirteen_orphans and (self.seven_pairs or self.all_pungs or self.all_chows
                                      or self.pure or self.half_flush or self.eyes_258 or pungs):
            raise invalid("十三幺 (thirteen_orphans) is single terminals and honours: no pungs, "
                          "chows, pairs of 2/5/8, flush or seven pairs with it")
        if self.seven_pairs and (self.all_pungs or self.all_chows or self.eyes_258 or pungs):
            raise invalid("seven pairs has no chows, pungs or single pair of eyes")
        if self.all_chows and (self.all_pungs or pungs):
            raise invalid("all_chows (平胡) has no pungs")
        if self.pure and self.half_flush:
            raise invalid("a hand is pure (清一色) or half flush (混一色), not both")
        if self.luxury and not self.seven_pairs:
            raise invalid("luxury (豪华) is quads inside seven pairs: set seven_pairs")
        if self.heavenly and self.earthly:
            raise invalid("a hand is heavenly or earthly, not both")
        return self

    def fan(self) -> list[str]:
        """The 番 this hand has on its own, as term keys ("dragon_pungs:2" for two)."""
        out = [f for f in FAN_FLAGS if getattr(self, f)]
        for name in ("dragon_pungs", "seat_flower"):
            n = getattr(self, name)
            if n:
                out.append(f"{name}:{n}" if n > 1 else name)
        # 天胡/地胡 are won before any meld, so they are 门清 whether or not it was ticked
        if (self.heavenly or self.earthly) and not self.concealed:
            out.append("concealed")
        return out


def hand_points(w: Winner) -> tuple[int, str]:
    if w.thirteen_orphans:
        return 13, "thirteen_orphans"
    if w.seven_pairs:
        points, name = (3, "luxury") if w.luxury else (2, "seven_pairs")
    elif w.all_pungs:
        points, name = 2, "all_pungs"
    else:
        points, name = 1, "standard"
    return (points * 2 if w.pure else points), name


def multiplier(w: Winner, ev: WinEvent) -> tuple[int, str]:
    special = [t for t, on in (("kong_bloom", ev.by == "self_draw" and ev.after_kong),
                               ("flower_bloom", w.flower_bloom), ("heavenly", w.heavenly),
                               ("earthly", w.earthly)) if on]
    if special:
        return 3, special[0]
    return (2, "self_draw") if ev.by == "self_draw" else (1, ev.by)


@register
class Hainan(Variant):
    name = "hainan"
    title = ("Hainan mahjong", "海南麻将", "海南麻將")
    short = ("Hainan", "海南", "海南")
    unit = ("fen", "分", "分")
    Rules = Rules
    Winner = Winner
    events = (WinEvent[Winner], KongEvent, ExhaustedEvent)
    multi_winner = False
    tiles = TileSet(flowers=True, shapes=Shapes(thirteen_orphans=True))  # every honour, flowers
    # what the tiles show; 杠上花, 天胡, 地胡 and who is liable are the story of the hand
    tile_fields = ("all_chows", "concealed", "all_pungs", "pure", "half_flush", "eyes_258",
                   "dragon_pungs", "seat_flower", "seat_wind", "round_wind", "thirteen_orphans",
                   "seven_pairs", "luxury")
    terms = {
        "all_chows": ("all chows", "平胡", "平胡"),
        "concealed": ("concealed hand", "门清", "門清"),
        "all_pungs": ("all pungs", "碰碰胡", "碰碰胡"),
        "pure": ("pure suit", "清一色", "清一色"),
        "half_flush": ("half flush", "混一色", "混一色"),
        "eyes_258": ("2-5-8 eyes", "二五八将", "二五八將"),
        "dragon_pungs": ("dragon pung", "箭刻", "箭刻"),
        "seat_flower": ("own flower", "正花", "正花"),
        "seat_wind": ("seat wind pung", "门风", "門風"),
        "round_wind": ("round wind pung", "圈风", "圈風"),
        "thirteen_orphans": ("thirteen orphans", "十三幺", "十三幺"),
        "seven_pairs": ("seven pairs", "七对", "七對"),
        "luxury": ("luxury seven pairs", "豪华七对", "豪華七對"),
        "robbed_kong": ("robbing the kong", "抢杠", "搶槓"),
        "discard": ("off a discard", "点炮", "點炮"),
        "self_draw": ("self-draw", "自摸", "自摸"),
        "kong_bloom": ("win on kong replacement", "杠上开花", "槓上開花"),
        "flower_bloom": ("win on flower replacement", "花上开花", "花上開花"),
        "heavenly": ("heavenly hand", "天胡", "天胡"),
        "earthly": ("earthly hand", "地胡", "地胡"),
        "liable": ("pays for all", "包牌", "包牌"),
        "kong": ("kong", "杠", "槓"),
        "exposed_kong": ("exposed kong", "明杠", "明槓"),
        "added_kong": ("added kong", "补杠", "補槓"),
        "concealed_kong": ("concealed kong", "暗杠", "暗槓"),
        "void": ("void", "不算", "不算"),
        "exhausted": ("wall exhausted", "黄庄", "黃莊"),
    }

    def tile_features(self, r: Reading, ctx: Context) -> dict[str, Any]:
        own = (ctx.seat - ctx.dealer) % 4
        flowers = sum(1 for f in ctx.flowers if f % 4 == own)
        if r.shape == "thirteen_orphans":
            return {"thirteen_orphans": True, "concealed": True, "seat_flower": flowers}
        pure, half = tf.flushes(r)
        if r.shape == "seven_pairs":
            return {"seven_pairs": True, "concealed": True, "pure": pure, "half_flush": half,
                    "luxury": tf.quads(r) > 0, "seat_flower": flowers}
        seat_wind, round_wind = 27 + own, 27 + ctx.round_wind
        keeps = getattr(ctx.rules, "concealed_kong_keeps_menqing", False)
        pair = None
        pungs: list[int] = []  # the tiles of the pungs and kongs
        chows = 0
        concealed = True
        for g in r.groups:  # one look at the groups for every feature
            kind = g.kind
            if kind == "pair":
                pair = g.tiles[0]
            elif kind == "chow":
                chows += 1
            else:
                pungs.append(g.tiles[0])
            if g.meld and not (keeps and g.meld == "concealed_kong"):
                concealed = False
        dragons = tf.DRAGONS
        scoring_pair = pair is not None and pair in (*dragons, seat_wind, round_wind)
        return {"all_chows": not pungs and not scoring_pair,
                "concealed": concealed, "all_pungs": not chows, "pure": pure,
                "half_flush": half,
                "eyes_258": pair is not None and pair < 27 and pair % 9 in (1, 4, 7),
                "dragon_pungs": sum(1 for t in pungs if t in dragons),
                "seat_flower": flowers, "seat_wind": seat_wind in pungs,
                "round_wind": round_wind in pungs}

    def refuse_tiles(self, errors: list[ScoringError], by: str) -> ScoringError | None:
        # 有番才能胡: every reading lacks a 番, said of the tiles rather than of one reading
        if not all(e.template.startswith("no 番") for e in errors):
            return None
        if by == "discard":
            return ScoringError("tiles", "no 番 in these tiles, so the hand cannot win off a "
                                "discard (有番才能胡)")
        return ScoringError("tiles", "no 番 in these tiles, so the hand cannot win, not even "
                            "self-drawn (有番才能胡)")

    def score(self, hand: Hand) -> Outcome:
        end_path, end, kongs = self._read(hand)
        ledger = Ledger()
        if isinstance(end, WinEvent):
            self.check_winner_count(end, end_path)
            self._check_win(hand, end, end_path, kongs)
            self._win(hand, end, ledger)
        else:
            for path, k in kongs:
                if k.robbed:
                    raise ScoringError(f"{path}.robbed", "a robbed kong ends the hand in a "
                                       "robbed_kong win, not an exhausted wall")
            void = hand.rules.kongs_on_exhausted == "void"
            ledger.add("exhausted", None, "黄庄: nobody won; no win payments" + (
                ", kongs void (kongs_on_exhausted: void)" if void else ", kongs still pay"),
                [], ["exhausted"])
        void_kongs = isinstance(end, ExhaustedEvent) and hand.rules.kongs_on_exhausted == "void"
        for _, k in kongs:
            self._kong(hand, k, void_kongs, ledger)
        if isinstance(end, WinEvent) and end.seats[0] != hand.dealer:
            nxt, wind = pass_deal(hand.dealer, hand.round_wind)
        else:
            nxt, wind = hand.dealer, hand.round_wind
        return ledger.outcome(hand, nxt, next_round_wind=wind)

    def _read(self, hand: Hand) -> tuple[str, WinEvent | ExhaustedEvent,
                                         list[tuple[str, KongEvent]]]:
        end: tuple[str, WinEvent | ExhaustedEvent] | None = None
        kongs: list[tuple[str, KongEvent]] = []
        for i, ev in enumerate(hand.events):
            path = f"events[{i}]"
            if end is not None:
                raise ScoringError(path, "the hand already ended at {event}: a Hainan hand has "
                                   "one win (截胡) or an exhausted wall, and nothing after it",
                                   event=end[0])
            if isinstance(ev, KongEvent):
                kongs.append((path, ev))
            else:
                end = (path, ev)
        self.check_end_and_kongs(end, (k for _, k in kongs))
        assert end is not None
        return end[0], end[1], kongs

    def _check_win(self, hand: Hand, ev: WinEvent, path: str,
                   kongs: list[tuple[str, KongEvent]]) -> None:
        rules: Rules = hand.rules
        w: Winner = ev.winners[0]
        wpath = f"{path}.winners[0]"
        own = [k for _, k in kongs if k.seat == w.seat]
        if own and (w.seven_pairs or w.thirteen_orphans or w.all_chows):
            raise ScoringError(wpath, "{seat} made a kong, so its hand cannot be seven pairs, "
                               "thirteen orphans or all chows", seat=w.seat)
        if w.concealed and own and not rules.concealed_kong_keeps_menqing:
            raise ScoringError(f"{wpath}.concealed", "{seat} made a kong, so its hand is not 门清 "
                               "(no chow, pung or kong of any kind; rule "
                               "concealed_kong_keeps_menqing lets a concealed kong keep it)",
                               seat=w.seat)
        if w.concealed and any(k.kind != "concealed" for k in own):
            raise ScoringError(f"{wpath}.concealed", "{seat} has an exposed or added kong, so "
                               "its hand is not 门清", seat=w.seat)
        if ev.after_kong:
            kong_seat = w.seat if ev.by == "self_draw" else ev.from_
            if not any(k.seat == kong_seat and not k.robbed for _, k in kongs):
                raise ScoringError(f"{path}.after_kong", "after_kong needs a kong by {seat} in "
                                   "the events", seat=kong_seat)
        if w.flower_bloom and ev.by != "self_draw":
            raise ScoringError(f"{wpath}.flower_bloom", "花上开花 is a self-draw")
        if w.heavenly and (w.seat != hand.dealer or ev.by != "self_draw"):
            raise ScoringError(f"{wpath}.heavenly", "天胡 is the dealer's self-draw on the deal")
        if w.earthly and (w.seat == hand.dealer or ev.by == "robbed_kong"
                          or (ev.by == "discard" and ev.from_ != hand.dealer)):
            raise ScoringError(f"{wpath}.earthly", "地胡 is a non-dealer's first-turn win: a "
                               "self-draw or the dealer's first discard")
        if (w.heavenly or w.earthly) and kongs:
            raise ScoringError(f"{wpath}", "天胡/地胡 come before anyone can kong")
        if w.liable is not None and (ev.by == "self_draw" or w.liable != ev.from_):
            raise ScoringError(f"{wpath}.liable", "包牌 falls on the seat that dealt in: liable "
                               "must be the win's 'from' (and a self-draw has none)")
        # robbed_kong is itself a 番; a self-draw needs none (自摸:无论有番或者无番)
        gated = ev.by == "discard" or (ev.by == "self_draw" and rules.self_draw_needs_fan)
        if gated and not w.fan():
            raise ScoringError(wpath, "no 番, cannot win: 有番才能胡 (mark at least one 番 "
                               "feature of the hand)")
        self.check_robbed_kong(ev, path, kongs)

    def _win(self, hand: Hand, ev: WinEvent, ledger: Ledger) -> None:
        rules: Rules = hand.rules
        w: Winner = ev.winners[0]
        points, shape = hand_points(w)
        mult, how = multiplier(w, ev)
        fan = w.fan()
        # a 1-point hand is named by its 番 alone; 豪华七对 stands for 七对
        named = {shape, "seven_pairs"} if shape == "luxury" else {shape}
        terms = [t for t in (shape,) if t != "standard"] + [t for t in fan if t not in named]
        if ev.by == "robbed_kong" or how not in ("discard", "self_draw"):
            terms.append(how)
        liable = w.liable
        if ev.by == "robbed_kong" and not fan:
            liable = ev.from_  # 无番抢杠算包杠的人
        base = mult * points
        shares: list[Transfer] = []
        for p in hand.others(w.seat):
            amount = base + (rules.discarder_extra if p == ev.from_ else 0)
            if hand.dealer in (p, w.seat):
                amount += rules.dealer_extra
            shares.append((p, w.seat, amount))
        notes = [f"{points}分 × {mult} = {base}分 from each other seat"]
        if ev.from_ is not None and rules.discarder_extra:
            notes.append(f"seat {ev.from_} dealt in: +{rules.discarder_extra}")
        if rules.dealer_extra:
            notes.append(f"dealer seat {hand.dealer}: +{rules.dealer_extra}")
        if liable is not None:
            total = sum(a for _, _, a in shares)
            shares = [(liable, w.seat, total)]
            terms.append("liable")
            notes.append(f"包牌: seat {liable} pays all three shares, {total}分")
        ledger.add("win", w.seat, f"{describe(self.terms, terms)}; " + "; ".join(notes),
                   shares, terms, base)

    def _kong(self, hand: Hand, k: KongEvent, exhausted: bool, ledger: Ledger) -> None:
        term = f"{k.kind}_kong"
        name = self.terms[term][1]
        if k.robbed or exhausted:
            why = "robbed" if k.robbed else "the wall ran out"
            ledger.add("kong", k.seat, f"{name}: void, {why}", [], [term, "void"])
            return
        amount = KONG_PAY[k.kind]
        transfers = each_pays(hand.others(k.seat), k.seat, amount)
        text = f"{name}: {amount}分 from each other seat"
        if k.kind == "exposed" and hand.rules.exposed_kong_discarder:
            extra = hand.rules.exposed_kong_discarder
            transfers.append((k.from_, k.seat, extra))
            text += f"; seat {k.from_} discarded it: +{extra}"
        ledger.add("kong", k.seat, text, transfers, [term], amount)
