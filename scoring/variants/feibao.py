"""Feibao mahjong (飞宝麻将, Shangrao 九幺) — docs/rules/feibao.md.

Self-drawn wins (or robbing a kong), V = base · 2^番 with no cap; kong points and the 精 bonus
are paid on top and never multiplied by 番. A non-winner who threw away 精 (飞宝) pays double
for each one.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Annotated, Any, Literal

from pydantic import Field

from ..errors import ScoringError
from ..model import (
    SEATS,
    ExhaustedEvent,
    Hand,
    KongEvent,
    RulesBase,
    Seat,
    SeatKey,
    StrictModel,
    WinEvent,
    WinnerBase,
    only_by,
)
from ..outcome import Ledger, Outcome, Transfer
from ..payments import each_pays
from ..rotation import pass_deal
from ..tiles import features as tf
from ..variant import Jokers, Shapes, TileSet, Variant, describe, register

if TYPE_CHECKING:
    from ..tiles.features import Context
    from ..tiles.reading import Reading

Form = Literal["standard", "seven_pairs", "all_pungs", "orphans", "thirteen_waves"]
PAIRS = ("seven_pairs", "all_pungs")  # 对和
IRREGULAR = ("orphans", "thirteen_waves")  # 九幺 / 十三浪
KONG_POINTS = {"exposed": 1, "added": 1, "concealed": 2}  # 碰杠 1, 自杠 2
JING_KONG_POINTS = 10  # 宝杠
ALL_JING = 8  # 4 正精 + 4 副精


class Rules(RulesBase):
    discard_wins: bool = False
    rob_multiplier: int = Field(default=6, ge=1)
    three_feed: bool = True
    jing_on_exhausted: bool = False


class Winner(WinnerBase):
    form: Form = "standard"
    jing: bool = False
    diaotou: bool = False
    seven_honors: bool = False
    fei_bao: int = Field(default=0, ge=0, le=ALL_JING)
    single_wait: bool = False
    bao_restore: bool = False
    luxury: int = Field(default=0, ge=0, le=3)
    kong_chain: int = Field(default=0, ge=0, le=4)
    pure: bool = False
    fed: dict[SeatKey, Annotated[int, Field(ge=1, le=4)]] = Field(default_factory=dict)


class FeibaoWin(WinEvent[Winner]):
    # 连杠被抢: the robbers could also have won on the chain's earlier kongs (槓分全無)
    robs_earlier_kongs: bool = Field(default=False, json_schema_extra=only_by("robbed_kong"))


class FeibaoKong(KongEvent):
    jing: bool = False  # a kong of 精 (宝杠): 10 from each, even when robbed


class FeiBaoEvent(StrictModel):
    """A non-winner threw away `count` 精 this hand."""

    type: Literal["fei_bao"]
    seat: Seat
    count: int = Field(ge=1, le=ALL_JING)


class JingHeld(StrictModel):
    zheng: int = Field(default=0, ge=0, le=4)
    fu: int = Field(default=0, ge=0, le=4)


class JingBonusEvent(StrictModel):
    type: Literal["jing_bonus"]
    seats: dict[SeatKey, JingHeld] = Field(default_factory=dict)


def base_value(w: Winner) -> tuple[int, list[str]]:
    """The seed's base table by form and 精 use, with the terms that explain it."""
    terms: list[str] = [w.form, "jing" if w.jing else "no_jing"]
    if w.form == "standard":
        if w.diaotou:
            terms.append("diaotou")
        return (3 if w.diaotou else 2), terms
    if w.form in PAIRS:
        return (4 if w.jing else 10), terms
    return (2 if w.jing else 4), terms


def fan(w: Winner) -> tuple[int, list[str]]:
    """番 from every source; each one doubles the value."""
    total, terms = 0, []
    for term, n in (("diaotou", int(w.diaotou and w.form in PAIRS)),  # 宝对掉头 +1番
                    ("seven_honors", int(w.seven_honors)), ("fei_bao", w.fei_bao),
                    ("single_wait", int(w.single_wait)), ("bao_restore", int(w.bao_restore)),
                    ("luxury", w.luxury), ("kong_chain", w.kong_chain), ("pure", 2 * w.pure)):
        if n:
            total += n
            terms.append(term if n == 1 or term == "pure" else f"{term}:{n}")
    return total, terms


def win_value(w: Winner) -> tuple[int, int, int, list[str]]:
    """(base, 番, V = base·2^番, terms)."""
    base, terms = base_value(w)
    n, more = fan(w)
    return base, n, base * 2 ** n, terms + more


def jing_points(held: JingHeld) -> int:
    """2 per 正精, 1 per 副精; 冲关 from 5 on: s·(s−3)."""
    s = 2 * held.zheng + held.fu
    return s * (s - 3) if s >= 5 else s


@dataclass
class WinRecord:
    ev: WinEvent
    path: str
    values: dict[int, int]  # winner seat → V


@register
class Feibao(Variant):
    name = "feibao"
    title = ("Feibao mahjong", "飞宝麻将", "飛寶麻將")
    short = ("Feibao", "飞宝", "飛寶")
    unit = ("pt", "分", "分")
    Rules = Rules
    Winner = Winner
    events = (FeibaoWin, FeibaoKong, FeiBaoEvent, JingBonusEvent, ExhaustedEvent)
    multi_winner = True  # 一杠多抢: any number may rob a kong; a discard has one winner
    after_end = frozenset({"fei_bao", "jing_bonus"})
    # every honour; the turned tile is the 正精 and the next one the 副精
    tiles = TileSet(shapes=Shapes(honor_chows=True, orphans=True, waves=True, keep="win"),
                    jokers=Jokers(names=(("Jing", "正精", "正精"), ("Next jing", "副精", "副精")),
                                  turned=(0, 1), words=("精", "正精"),
                                  example=("精=5m (正精) in Feibao",
                                           "飞宝写 精=5m（正精就是翻开的那张）",
                                           "飛寶寫 精=5m（正精就是翻開的那張）")),
                    single_wait=True)
    # what the tiles show; 飞宝, 宝还原, a chain of kongs and who fed the winner are not
    tile_fields = ("form", "jing", "diaotou", "seven_honors", "single_wait", "luxury", "pure")
    terms = {
        "standard": ("plain", "平和", "平和"),
        "seven_pairs": ("seven pairs", "七对", "七對"),
        "all_pungs": ("all pungs", "碰对", "碰對"),
        "orphans": ("terminals and honours", "九幺", "九幺"),
        "thirteen_waves": ("thirteen waves", "十三浪", "十三浪"),
        "jing": ("with jing", "有宝", "有寶"),
        "no_jing": ("without jing", "无宝", "無寶"),
        "diaotou": ("jing on the pair", "宝掉头", "寶掉頭"),
        "seven_honors": ("all seven honours", "七字全", "七字全"),
        "fei_bao": ("jing thrown", "飞宝", "飛寶"),
        "single_wait": ("single wait", "单张和", "單張和"),
        "bao_restore": ("jing restored", "宝吊还原", "寶吊還原"),
        "luxury": ("luxury", "豪华", "豪華"),
        "kong_chain": ("kong chain", "连杠", "連槓"),
        "pure": ("pure suit", "清一色", "清一色"),
        "robbed_kong": ("robbing the kong", "抢杠", "搶槓"),
        "robs_earlier_kongs": ("could also rob the earlier kongs (all kong points void)",
                               "前杠也可抢（杠分全无）", "前槓也可搶（槓分全無）"),
        "discard": ("off a discard", "点炮", "點炮"),
        "three_feed": ("three melds fed", "三凑承包", "三湊承包"),
        "kong": ("kong", "杠分", "槓分"),
        "exposed": ("exposed kong", "碰杠", "碰槓"),
        "added": ("added kong", "碰杠", "碰槓"),
        "concealed": ("concealed kong", "自杠", "自槓"),
        "jing_kong": ("jing kong", "宝杠", "寶槓"),
        "jing_bonus": ("jing bonus", "精分", "精分"),
        "chong_guan": ("over the top", "冲关", "衝關"),
        "ba_wang": ("sole jing holder", "霸王精", "霸王精"),
    }

    def tile_features(self, r: Reading, ctx: Context) -> dict[str, Any]:
        if r.shape in ("orphans", "waves"):
            form = "orphans" if r.shape == "orphans" else "thirteen_waves"
            return {"form": form, "jing": r.jokers > 0, "seven_honors": all(r.identity[27:]),
                    "single_wait": ctx.single_wait}
        form = tf.form(r)
        jing = r.jokers > 0
        pair = r.win_group
        diaotou = jing and tf.win_on_pair(r) and pair is not None and pair.jokers > 0
        return {"form": form, "jing": jing, "diaotou": diaotou, "single_wait": ctx.single_wait,
                "luxury": min(tf.quads(r), 3) if form == "seven_pairs" else 0,
                "pure": tf.pure(r)}

    def win_types(self, rules: Rules) -> tuple[str, ...]:
        if rules.discard_wins:
            return ("self_draw", "discard", "robbed_kong")
        return ("self_draw", "robbed_kong")

    def score(self, hand: Hand) -> Outcome:
        rules: Rules = hand.rules
        ledger = Ledger()
        kongs: list[tuple[str, FeibaoKong]] = []  # every kong so far, in order
        robbed: tuple[int, str] | None = None  # a robbed kong still waiting for its robbers
        win: WinRecord | None = None
        end: object = None
        fei: list[tuple[str, FeiBaoEvent]] = []
        bonus: tuple[str, JingBonusEvent] | None = None
        for i, ev in enumerate(hand.events):
            path = f"events[{i}]"
            if isinstance(ev, FeiBaoEvent):
                fei.append((path, ev))
                continue
            if isinstance(ev, JingBonusEvent):
                if bonus is not None:
                    raise ScoringError(path, "the 精 bonus is counted once per hand; "
                                       "{event} already gives it", event=bonus[0])
                self._check_jing(ev, path)
                bonus = (path, ev)
                continue
            if end is not None:
                raise ScoringError(path, "the hand is already over (a win or the wall running out "
                                   "ends it); only fei_bao and jing_bonus may follow")
            if robbed is not None and not (isinstance(ev, WinEvent) and ev.by == "robbed_kong"):
                raise ScoringError(path, "{seat}'s kong at {at} was robbed: the next event is "
                                   "the robbed_kong win", seat=robbed[0], at=robbed[1])
            if isinstance(ev, FeibaoKong):
                kongs.append((path, ev))
                if ev.robbed:
                    robbed = (ev.seat, path)
            elif isinstance(ev, WinEvent):
                void = self._check_robbing(ev, path, robbed, kongs)
                self._pay_kongs(kongs, void, ledger)
                made = [0, 0, 0, 0]
                for _, k in kongs:
                    made[k.seat] += not k.robbed
                win = self._win(hand, ev, path, made, ledger)
                end = ev
            else:
                self._pay_kongs(kongs, set(), ledger)
                end = ev
        self.check_end_and_kongs(end, (k for _, k in kongs))
        winners = win.ev.seats if win else []
        self._check_fei_bao(fei, win)
        if win is not None:
            self._fei_bao_extra(fei, win, rules, ledger)
        if bonus is not None:
            self._jing_bonus(bonus[1], bool(winners) or rules.jing_on_exhausted, ledger)
        if not winners or hand.dealer in winners:
            nxt, wind = hand.dealer, hand.round_wind
        else:
            nxt, wind = pass_deal(hand.dealer, hand.round_wind)
        return ledger.outcome(hand, nxt, next_round_wind=wind)

    def _check_robbing(self, ev: FeibaoWin, path: str, robbed: tuple[int, str] | None,
                       kongs: list[tuple[str, FeibaoKong]]) -> set[int]:
        """A robbed_kong win needs the robbed kong, the event just before it; returns the
        indexes (into `kongs`) of the kongs whose points are void."""
        if ev.by != "robbed_kong":
            if ev.robs_earlier_kongs:
                raise ScoringError(f"{path}.robs_earlier_kongs", "robs_earlier_kongs goes with "
                                   "a robbed_kong win")
            return set()
        if robbed is None:
            last = kongs[-1][1] if kongs else None
            if last is not None and last.seat == ev.from_ and last.kind == "added":
                # that kong was the one robbed: it must not also collect kong points
                raise ScoringError(f"{kongs[-1][0]}.robbed", "{seat}'s added kong was robbed by "
                                   "the next win; mark it robbed: true", seat=ev.from_)
            raise ScoringError(f"{path}.by", "a robbed_kong win needs the robbed kong: an added "
                               "kong by {seat} with robbed: true right before it", seat=ev.from_)
        if ev.from_ != robbed[0]:
            raise ScoringError(f"{path}.from", "the robbed kong is {seat}'s ({at})",
                               seat=robbed[0], at=robbed[1])
        chain = []  # 连杠: the konger's kongs one after another right before the robbed one
        for j in range(len(kongs) - 2, -1, -1):
            if kongs[j][1].seat != ev.from_:
                break
            chain.append(j)
        if ev.robs_earlier_kongs and not chain:
            raise ScoringError(f"{path}.robs_earlier_kongs", "{seat} made no kong right before "
                               "the robbed one, so there are no earlier kongs to rob",
                               seat=ev.from_)
        return set(chain) if ev.robs_earlier_kongs else set()

    def _pay_kongs(self, kongs: list[tuple[str, FeibaoKong]], void: set[int],
                   ledger: Ledger) -> None:
        for j, (_, k) in enumerate(kongs):
            self._kong(k, ledger, voided=j in void)

    # -- kongs -------------------------------------------------------------------------------

    def _kong(self, ev: FeibaoKong, ledger: Ledger, voided: bool = False) -> None:
        others = [s for s in SEATS if s != ev.seat]
        kind = "jing_kong" if ev.jing else ev.kind
        if (ev.robbed or voided) and not ev.jing:
            return  # a robbed kong, or one voided with it (槓分全無), scores nothing
        points = JING_KONG_POINTS if ev.jing else KONG_POINTS[ev.kind]
        note = " (robbed, a 宝杠 still pays)" if ev.robbed or voided else ""
        ledger.add("kong", ev.seat, f"{describe(self.terms, [kind])}: {points}分 from each other "
                   f"seat{note}", each_pays(others, ev.seat, points), ["kong", kind], points)

    # -- wins --------------------------------------------------------------------------------

    def _win(self, hand: Hand, ev: WinEvent, path: str, kongs: list[int],
             ledger: Ledger) -> WinRecord:
        rules: Rules = hand.rules
        if ev.by not in self.win_types(rules):
            raise ScoringError(f"{path}.by", "feibao wins are self-drawn or by robbing a kong; a "
                               "discard win needs rule discard_wins")
        if ev.by == "discard" and len(ev.winners) > 1:
            raise ScoringError(f"{path}.winners", "one winner per discard; got {count}",
                               count=len(ev.winners))
        if ev.after_kong and ev.by != "self_draw":
            raise ScoringError(f"{path}.after_kong", "after_kong is the kong player's own draw "
                               "(杠上开花): by self_draw")
        values: dict[int, int] = {}
        for j, w in enumerate(ev.winners):
            wpath = f"{path}.winners[{j}]"
            self._check_winner(ev, w, wpath, kongs)
            base, n, value, terms = win_value(w)
            values[w.seat] = value
            names = f"{describe(self.terms, terms)} {base}分" + (f" ×2^{n}番 = {value}分" if n else "")
            if ev.by == "robbed_kong":
                paid = rules.rob_multiplier * value
                transfers: list[Transfer] = [(ev.from_, w.seat, paid)]
                how = f"robbed kong: seat {ev.from_} pays {rules.rob_multiplier}×{value} = {paid}分"
                terms = [*terms, "robbed_kong"]
            elif ev.by == "discard":
                transfers = [(ev.from_, w.seat, value)]
                how = f"discard: seat {ev.from_} pays {value}分"
                terms = [*terms, "discard"]
            else:
                transfers, how = self._self_draw(w, value, rules)
                if how.startswith("三凑"):
                    terms = [*terms, "three_feed"]
            ledger.add("win", w.seat, f"{names}; {how}", transfers, terms, value)
        return WinRecord(ev, path, values)

    def _self_draw(self, w: Winner, value: int, rules: Rules) -> tuple[list[Transfer], str]:
        """Each other seat pays V, unless 三凑承包 moves the shares onto the feeder."""
        others = [s for s in SEATS if s != w.seat]
        fed = {int(k): n for k, n in w.fed.items()}
        feeder = next((s for s, n in fed.items() if n >= 3), None)
        if not rules.three_feed or feeder is None:
            return each_pays(others, w.seat, value), f"self-draw: {value}分 from each"
        fourth = next((s for s, n in fed.items() if s != feeder), None)
        if fourth is None:
            return ([(feeder, w.seat, 3 * value)],
                    f"三凑承包: seat {feeder} fed three melds and pays all three shares, "
                    f"{3 * value}分")
        return ([(feeder, w.seat, 2 * value), (fourth, w.seat, value)],
                f"三凑承包: seat {feeder} fed three melds and pays two shares ({2 * value}分); "
                f"seat {fourth} fed the fourth and pays its own ({value}分)")

    def _check_winner(self, ev: WinEvent, w: Winner, wpath: str, kongs: list[int]) -> None:
        if w.diaotou and not w.jing:
            raise ScoringError(f"{wpath}.diaotou", "宝掉头 is winning on the pair with a 精; set "
                               "jing")
        if w.diaotou and w.form in IRREGULAR:
            raise ScoringError(f"{wpath}.diaotou", "{form} has no 掉头 in the base table",
                               form=w.form)
        if w.seven_honors and w.form not in IRREGULAR:
            raise ScoringError(f"{wpath}.seven_honors", "七字全 goes with orphans or "
                               "thirteen_waves")
        if w.luxury and w.form != "seven_pairs":
            raise ScoringError(f"{wpath}.luxury", "豪华 is four of a kind inside seven pairs")
        if w.pure and w.form in IRREGULAR:
            raise ScoringError(f"{wpath}.pure", "{form} holds several suits; it cannot be 清一色",
                               form=w.form)
        if ev.after_kong and w.kong_chain < 1:
            raise ScoringError(f"{wpath}.kong_chain", "a win on a kong replacement (after_kong) "
                               "counts at least one kong: kong_chain ≥ 1")
        if w.kong_chain and not ev.after_kong:
            raise ScoringError(f"{wpath}.kong_chain", "kong_chain counts the kongs right before "
                               "a win on the replacement tile; set after_kong")
        if w.kong_chain > kongs[w.seat]:
            raise ScoringError(f"{wpath}.kong_chain", "kong_chain {chain} but {seat} made {kongs} "
                               "kong(s) before this win; record each kong as a kong event",
                               chain=w.kong_chain, seat=w.seat, kongs=kongs[w.seat])
        self._check_fed(w, wpath)

    def _check_fed(self, w: Winner, wpath: str) -> None:
        for key in w.fed:
            if int(key) == w.seat:
                raise ScoringError(f"{wpath}.fed['{key}']", "the winner does not feed himself; "
                                   "list the seats that supplied his melds")
        if sum(w.fed.values()) > 4:
            raise ScoringError(f"{wpath}.fed", "a hand has at most 4 melds (got {count})",
                               count=sum(w.fed.values()))
        if w.fed and w.form in ("seven_pairs", "thirteen_waves"):
            raise ScoringError(f"{wpath}.fed", "{form} has no chow or pung melds", form=w.form)

    # -- 飞宝 --------------------------------------------------------------------------------

    def _check_fei_bao(self, fei: list[tuple[str, FeiBaoEvent]], win: WinRecord | None) -> None:
        winners = win.ev.winners if win else []
        thrown = sum(w.fei_bao for w in winners)
        for path, ev in fei:
            if ev.seat in (win.ev.seats if win else []):
                raise ScoringError(f"{path}.seat", "{seat} won: its 飞宝 goes in the winner's "
                                   "fei_bao field", seat=ev.seat)
            thrown += ev.count
            if thrown > ALL_JING:
                raise ScoringError(f"{path}.count", "only {limit} 精 are in play; this hand now "
                                   "throws {thrown}", limit=ALL_JING, thrown=thrown)

    def _fei_bao_extra(self, fei: list[tuple[str, FeiBaoEvent]], win: WinRecord, rules: Rules,
                       ledger: Ledger) -> None:
        """飞宝者未和牌, 加付和牌者一番分值: the thrower's own share doubles per 精 thrown,
        paid by the thrower even when 三凑 moved the share itself onto a feeder."""
        counts = [0, 0, 0, 0]
        for _, ev in fei:
            counts[ev.seat] += ev.count
        for s in SEATS:
            if not counts[s]:
                continue
            transfers: list[Transfer] = []
            for w, value in win.values.items():
                if win.ev.by == "self_draw":
                    share = value
                elif win.ev.from_ == s:
                    share = value * (rules.rob_multiplier if win.ev.by == "robbed_kong" else 1)
                else:
                    share = 0
                extra = share * (2 ** counts[s] - 1)
                if extra:
                    transfers.append((s, w, extra))
            if transfers:
                ledger.add("fei_bao", s, f"飞宝: seat {s} threw {counts[s]} 精 and did not win; "
                           f"its share doubles {counts[s]}×: +" + ", ".join(
                               f"{a}分 to seat {w}" for _, w, a in transfers),
                           transfers, ["fei_bao"], counts[s])

    # -- 精 bonus ----------------------------------------------------------------------------

    def _check_jing(self, ev: JingBonusEvent, path: str) -> None:
        for kind in ("zheng", "fu"):
            total = sum(getattr(h, kind) for h in ev.seats.values())
            if total > 4 and kind == "zheng":
                raise ScoringError(f"{path}.seats", "there are 4 正精 (zheng); the seats hold "
                                   "{total}", total=total)
            if total > 4:
                raise ScoringError(f"{path}.seats", "there are 4 副精 (fu); the seats hold {total}",
                                   total=total)

    def _jing_bonus(self, ev: JingBonusEvent, counted: bool, ledger: Ledger) -> None:
        held = {int(k): h for k, h in sorted(ev.seats.items()) if h.zheng or h.fu}
        if not counted:
            ledger.add("jing_bonus", None, "精 bonus not counted: nobody won (rule "
                       "jing_on_exhausted)", [], ["jing_bonus"])
            return
        for s, h in held.items():
            raw = 2 * h.zheng + h.fu
            points = jing_points(h)
            terms = ["jing_bonus"] + (["chong_guan"] if raw >= 5 else [])
            how = f"{h.zheng} 正 + {h.fu} 副 = {raw}"
            if raw >= 5:
                how += f", 冲关 {raw}×{raw - 3} = {points}"
            if len(held) == 1:
                points *= 2
                terms.append("ba_wang")
                how += f", 霸王精 ×2 = {points}"
            others = [o for o in SEATS if o != s]
            ledger.add("jing_bonus", s, f"精: {how}; {points}分 from each other seat",
                       each_pays(others, s, points), terms, points)

