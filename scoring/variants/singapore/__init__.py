"""Singapore mahjong (新加坡麻将) — docs/rules/singapore.md.

148 tiles: the 136, eight flowers and four animals. A win is worth its tai (台), counted from the
tiles or by the players, at least the table's minimum and at most its cap (limit hands are the
cap); each tai doubles the payment. The discarder pays for all ("shooter") or double while the
others pay single ("no shooter"), as the table plays. Kongs and the sets of bonus tiles pay at
once (bites, 咬), booked as events when they happen: `kong` and `bonus` (flowers and animals shown
during the hand). Modules: `tai` (the winner, its tai elements, what the tiles show), `bonus`
(the flowers and animals, their tai and bites).
"""

from __future__ import annotations

import unicodedata
from typing import TYPE_CHECKING, Annotated, Any, Literal

from pydantic import Field, model_validator

from ...errors import ScoringError, invalid
from ...model import (
    INTEGERS_ONLY,
    ExhaustedEvent,
    Hand,
    RulesBase,
    Seat,
    StrictModel,
    WinEvent,
)
from ...outcome import Ledger, Outcome, Transfer
from ...payments import each_pays
from ...rotation import pass_deal
from ...variant import Shapes, TileSet, Variant, describe, register
from . import bonus as bn
from . import tai as ta
from .tai import Winner

if TYPE_CHECKING:
    from ...tiles.features import Context
    from ...tiles.reading import Reading

THREE_SIX = (1, 2, 3, 5, 10)  # the "3/6" table's shares of 1–5 tai, in stakes; doubling after
KONG_STAKES = {"exposed": 1, "added": 1, "concealed": 2}  # from each other seat


class Rules(RulesBase):
    # a 1-tai share (what a non-discarder pays on a 1-tai discard win), in cents: 10 → "10/20"
    stake: Annotated[Literal[5, 10, 20, 30, 50, 100, 200, 500, 1000], INTEGERS_ONLY] = 10
    # how a share grows with the tai: double each tai, or the "3/6" table 1, 2, 3, 5, 10
    ladder: Literal["double", "three_six"] = "double"
    min_tai: Annotated[Literal[1, 2, 3, 4, 5], INTEGERS_ONLY] = 1
    max_tai: Annotated[Literal[3, 4, 5, 6, 7, 8, 9, 10], INTEGERS_ONLY] = 5
    # shooter: the discarder pays for all three; no_shooter: double, the others single
    discard_pays: Literal["shooter", "no_shooter"] = "shooter"
    # instant payments for kongs and for sets of flowers and animals
    bites: bool = True
    # a predator shown against another seat's prey (its cat against a mouse): that seat pays
    cross_bites: bool = False

    @model_validator(mode="after")
    def _range(self) -> Rules:
        if self.min_tai > self.max_tai:
            raise invalid("min_tai ({low}) is above max_tai ({high})", low=self.min_tai,
                          high=self.max_tai)
        return self


class Kong(StrictModel):
    """A kong: `exposed` off a discard (`from` the discarder), `added` to a pung, `concealed`;
    `tile` (optional) names it, so that no tile is konged twice."""

    type: Literal["kong"]
    seat: Seat
    kind: Literal["concealed", "added", "exposed"]
    from_: Seat | None = Field(default=None, alias="from")
    robbed: bool = False
    tile: str | None = None

    @model_validator(mode="after")
    def _shape(self) -> Kong:
        if self.kind == "exposed":
            if self.from_ is None:
                raise invalid("an exposed kong needs 'from' (the discarder)")
            if self.from_ == self.seat:
                raise invalid("a seat cannot kong its own discard")
        elif self.from_ is not None:
            raise invalid("only an exposed kong has 'from'")
        if self.robbed and self.kind != "added":
            raise invalid("only an added kong can be robbed")
        return self


class Bonus(StrictModel):
    """Flowers and animals a seat shows as it draws them; `hidden`: drawn together before
    anyone saw (at the deal), so a bite they complete pays double (暗咬)."""

    type: Literal["bonus"]
    seat: Seat
    hidden: bool = False
    spring: bool = False
    summer: bool = False
    autumn: bool = False
    winter: bool = False
    plum: bool = False
    orchid: bool = False
    chrysanthemum: bool = False
    bamboo: bool = False
    cat: bool = False
    mouse: bool = False
    rooster: bool = False
    centipede: bool = False


def share(tai: int, rules: Rules) -> int:
    """What one non-discarder pays for a discard win of `tai`; a self-draw's share is the next
    tai's, and the discarder's without a shooter too."""
    if rules.ladder == "three_six":
        steps = THREE_SIX[tai - 1] if tai <= 5 else THREE_SIX[-1] * 2 ** (tai - 5)
        return rules.stake * steps
    return rules.stake * 2 ** (tai - 1)


def _width(text: str) -> int:
    """Columns a text takes in a fixed-width font: a Chinese character two."""
    return sum(2 if unicodedata.east_asian_width(c) in "WF" else 1 for c in text)


def _dollars(cents: int) -> str:
    return f"${cents // 100}.{cents % 100:02d}"


@register
class Singapore(Variant):
    name = "singapore"
    title = ("Singapore mahjong", "新加坡麻将", "新加坡麻將")
    short = ("Singapore", "新加坡", "新加坡")
    unit = ("cents", "分", "分")
    value_unit = ("tai", "台", "台")
    Rules = Rules
    Winner = Winner
    events = (WinEvent[Winner], Kong, Bonus, ExhaustedEvent)
    multi_winner = False
    values_by_seat = True  # the flowers a winner holds are named, and only a seat's own pay
    tiles = TileSet(flowers=True, animals=True, single_wait=True,
                    shapes=Shapes(seven_pairs=False, thirteen_orphans=True))
    # what the tiles decide; and `tai`, counted in their place
    tile_fields = ("tai", "dragon_pungs", "seat_wind", "round_wind", "all_chows", "all_pungs",
                   "half_flush", "pure", "mixed_terminals", "small_dragons", "small_winds",
                   "big_dragons", "big_winds", "thirteen_orphans", "nine_gates", "all_honours",
                   "all_terminals", "four_kongs", "four_concealed", *bn.BONUS)
    terms = {
        "tai": ("tai", "台", "台"),
        "dragon_pungs": ("dragon pung", "箭刻", "箭刻"),
        "seat_wind": ("seat wind pung", "门风", "門風"),
        "round_wind": ("prevailing wind pung", "圈风", "圈風"),
        "all_chows": ("all chows", "平胡", "平胡"),
        "all_chows_clean": ("all chows, no flowers", "平胡无花", "平胡無花"),
        "all_pungs": ("all pungs", "对对胡", "對對胡"),
        "half_flush": ("half flush", "混一色", "混一色"),
        "pure": ("full flush", "清一色", "清一色"),
        "mixed_terminals": ("terminals and honours", "混幺九", "混幺九"),
        "small_dragons": ("small three dragons", "小三元", "小三元"),
        "small_winds": ("small four winds", "小四喜", "小四喜"),
        "big_dragons": ("big three dragons", "大三元", "大三元"),
        "big_winds": ("big four winds", "大四喜", "大四喜"),
        "thirteen_orphans": ("thirteen orphans", "十三幺", "十三幺"),
        "nine_gates": ("nine gates", "九莲宝灯", "九蓮寶燈"),
        "all_honours": ("all honours", "字一色", "字一色"),
        "all_terminals": ("all terminals", "清幺九", "清幺九"),
        "four_kongs": ("four kongs", "十八罗汉", "十八羅漢"),
        "four_concealed": ("four concealed pungs", "四暗刻", "四暗刻"),
        "heavenly": ("heavenly hand", "天胡", "天胡"),
        "earthly": ("earthly hand", "地胡", "地胡"),
        "seven_flowers": ("seven flowers", "七花", "七花"),
        "kong_bloom": ("win on kong replacement", "杠上开花", "槓上開花"),
        "flower_bloom": ("win on flower replacement", "花上开花", "花上開花"),
        "robbed_kong": ("robbing the kong", "抢杠", "搶槓"),
        "last_tile": ("last tile", "海底捞月", "海底撈月"),
        "own_flower": ("own flower", "正花", "正花"),
        "flower_set": ("set of flowers", "一套花", "一套花"),
        "season_set": ("set of seasons", "一套季", "一套季"),
        "animal": ("animal", "动物", "動物"),
        "all_animals": ("all four animals", "四动物", "四動物"),
        "spring": ("spring", "春", "春"), "summer": ("summer", "夏", "夏"),
        "autumn": ("autumn", "秋", "秋"), "winter": ("winter", "冬", "冬"),
        "plum": ("plum", "梅", "梅"), "orchid": ("orchid", "兰", "蘭"),
        "chrysanthemum": ("chrysanthemum", "菊", "菊"), "bamboo": ("bamboo flower", "竹", "竹"),
        "cat": ("cat", "猫", "貓"), "mouse": ("mouse", "鼠", "鼠"),
        "rooster": ("rooster", "鸡", "雞"), "centipede": ("centipede", "蜈蚣", "蜈蚣"),
        "limit": ("limit", "满台", "滿台"),
        "self_draw": ("self-draw", "自摸", "自摸"),
        "discard": ("off a discard", "放炮", "放炮"),
        "shooter": ("the shooter pays for all", "放炮者包赔", "放炮者包賠"),
        "no_shooter": ("the shooter pays double, the others single", "放炮者付双，其余付单",
                       "放炮者付雙，其餘付單"),
        "discard_pays": ("on a discard", "放炮", "放炮"),
        "stake": ("1-tai share (cents)", "一台底（分）", "一台底（分）"),
        "ladder": ("payment ladder", "算钱法", "算錢法"),
        "min_tai": ("minimum tai", "起胡台数", "起胡台數"),
        "max_tai": ("tai cap", "封顶台数", "封頂台數"),
        "bites": ("bites (instant payments)", "咬钱（即时付）", "咬錢（即時付）"),
        "kong": ("kong", "杠", "槓"),
        "tile": ("the kong's tile", "杠的牌", "槓的牌"),
        "exposed_kong": ("exposed kong", "明杠", "明槓"),
        "added_kong": ("added kong", "加杠", "加槓"),
        "concealed_kong": ("concealed kong", "暗杠", "暗槓"),
        "bonus": ("flowers and animals shown", "补花", "補花"),
        "hidden": ("hidden bite", "暗咬", "暗咬"),
        "animal_pair": ("animal pair", "咬·一对动物", "咬·一對動物"),
        "own_flowers": ("own flower and season", "一对正花", "一對正花"),
        "cross_bite": ("caught another's prey", "捉（咬别家）", "捉（咬別家）"),
        "cross_bites": ("a predator against another's prey pays", "咬别家的动物",
                        "咬別家的動物"),
        "void": ("void", "不算", "不算"),
        "exhausted": ("wall exhausted", "流局", "流局"),
        "three_six": ("3/6 (1, 2, 3, 5, 10)", "三六制（1、2、3、5、10）", "三六制（1、2、3、5、10）"),
        "double": ("doubling", "每台翻倍", "每台翻倍"),
    }

    def tile_features(self, r: Reading, ctx: Context) -> dict[str, Any]:
        return ta.tile_features(r, ctx)

    def rules_notes(self, rules: Any, lang: str) -> list[str]:
        """The payment table, per tai up to the cap, as the Singapore bots show it: a share, the
        self-draw share, what a discard costs under this table's rule, in dollars."""
        head = {"en": ("tai", "share", "self-draw", "shooter", "discarder/others"),
                "zh-Hans": ("台", "每份", "自摸每家", "放炮包赔", "放炮/其余"),
                "zh-Hant": ("台", "每份", "自摸每家", "放炮包賠", "放炮/其餘")}.get(lang)
        head = head or ("tai", "share", "self-draw", "shooter", "discarder/others")
        shooter = rules.discard_pays == "shooter"
        cols = (head[0], head[1], head[2], head[3] if shooter else head[4])
        rows = [cols]
        for t in range(1, rules.max_tai + 1):
            a, z = share(t, rules), share(t + 1, rules)
            rows.append((str(t), _dollars(a), _dollars(z),
                         _dollars(z + 2 * a) if shooter else f"{_dollars(z)}/{_dollars(a)}"))
        widths = [max(_width(r[i]) for r in rows) for i in range(4)]
        return ["  ".join(" " * (w - _width(c)) + c for c, w in zip(r, widths, strict=True))
                for r in rows]

    def most_of(self, tile: str, rules: Any) -> int:
        return 1 if tile.endswith(("f", "a")) else 4

    # -- scoring ---------------------------------------------------------------------------

    def score(self, hand: Hand) -> Outcome:
        ledger = Ledger()
        shown: dict[int, frozenset[int]] = {s: frozenset() for s in range(4)}
        whose: dict[int, int] = {}  # bonus tile → the seat that showed it
        konged: dict[str, str] = {}  # tile → the event that konged it
        kongs: list[tuple[str, Kong]] = []
        end: tuple[str, Any] | None = None
        for i, ev in enumerate(hand.events):
            path = f"events[{i}]"
            if end is not None:
                raise ScoringError(path, "the hand already ended at {event}: a Singapore hand "
                                   "has one win or an exhausted wall, and nothing after it",
                                   event=end[0])
            if isinstance(ev, Bonus):
                self._bonus(hand, ev, path, shown, whose, ledger)
            elif isinstance(ev, Kong):
                self._check_kong(ev, path, konged)
                kongs.append((path, ev))
                self._kong(hand, ev, ledger)
            else:
                end = (path, ev)
        if end is None:
            self.check_end_and_kongs(None, ())
        assert end is not None
        path, ev = end
        self._check_robbed(ev, path, kongs)
        if isinstance(ev, WinEvent):
            self.check_winner_count(ev, path)
            self._win(hand, ev, path, shown, whose, ledger)
            if ev.seats[0] != hand.dealer:
                nxt, wind = pass_deal(hand.dealer, hand.round_wind)
                return ledger.outcome(hand, nxt, next_round_wind=wind)
        else:
            ledger.add("exhausted", None, "流局: nobody won; the bites stand", [], ["exhausted"])
        return ledger.outcome(hand, hand.dealer)

    def _bonus(self, hand: Hand, ev: Bonus, path: str, shown: dict[int, frozenset[int]],
               whose: dict[int, int], ledger: Ledger) -> None:
        tiles = bn.held(ev)
        if not tiles:
            raise ScoringError(path, "a bonus event shows at least one flower or animal")
        for t in sorted(tiles):
            if t in whose:
                raise ScoringError(f"{path}.{bn.BONUS[t]}", "there is one {tile}, and "
                                   "{seat} showed it already", tile=bn.CHARS[t],
                                   seat=whose[t])
            whose[t] = ev.seat
        before = shown[ev.seat]
        after = before | tiles
        shown[ev.seat] = after
        terms = bn.names(tiles)
        if not hand.rules.bites:
            ledger.add("bonus", ev.seat, describe(self.terms, terms) + ": shown (no bites)",
                       [], ["bonus", *terms])
            return
        found = bn.bites(before, after, ev.seat, hand.dealer)
        crossed = bn.crossed(tiles, ev.seat, whose) if hand.rules.cross_bites else []
        if not found and not crossed:
            ledger.add("bonus", ev.seat, describe(self.terms, terms) + ": shown", [],
                       ["bonus", *terms])
        for bite in found:
            stakes = bn.BITE_STAKES[bite] * (2 if ev.hidden else 1)
            amount = stakes * hand.rules.stake
            keys = [bite, "hidden"] if ev.hidden else [bite]
            ledger.add("bite", ev.seat, f"{describe(self.terms, keys)}: {amount} from each "
                       "other seat", each_pays(hand.others(ev.seat), ev.seat, amount),
                       [*keys, *terms], amount)
        for predator, prey in crossed:  # 捉: the predator's seat takes from the prey's
            amount = hand.rules.stake * (2 if ev.hidden else 1)
            keys = ["cross_bite", "hidden"] if ev.hidden else ["cross_bite"]
            payee, payer = whose[predator], whose[prey]
            ledger.add("bite", payee, f"{describe(self.terms, keys)}: seat {payer}'s "
                       f"{self.terms[bn.BONUS[prey]][0]} pays {amount}", [(payer, payee, amount)],
                       [*keys, bn.BONUS[predator], bn.BONUS[prey]], amount)

    @staticmethod
    def _check_kong(ev: Kong, path: str, konged: dict[str, str]) -> None:
        if ev.tile is None:
            return
        from ...tiles.notation import parse_tiles

        ts = parse_tiles(ev.tile)
        if len(ts.hand) != 1 or ts.melds or ts.win is not None or ts.flowers:
            raise ScoringError(f"{path}.tile", "a kong's tile is one tile, like \"5p\" or \"中\"")
        name = str(ts.hand[0])
        if name in konged:
            raise ScoringError(f"{path}.tile", "{tile} was konged already ({event}): there "
                               "are only four of it", tile=ev.tile, event=konged[name])
        konged[name] = path

    def _check_robbed(self, ev: Any, path: str, kongs: list[tuple[str, Kong]]) -> None:
        robbed = [(p, k) for p, k in kongs if k.robbed]
        if robbed and not (isinstance(ev, WinEvent) and ev.by == "robbed_kong"
                           and ev.from_ == robbed[-1][1].seat):
            raise ScoringError(f"{robbed[0][0]}.robbed", "{seat}'s kong was robbed, so the hand "
                               "ends in a robbed_kong win from {seat}", seat=robbed[0][1].seat)
        if len(robbed) > 1:
            raise ScoringError(f"{robbed[1][0]}.robbed", "only one kong can be robbed in a hand")
        if isinstance(ev, WinEvent) and ev.by == "robbed_kong" and not robbed:
            raise ScoringError(f"{path}.by", "a robbed_kong win needs the robbed kong: a kong by "
                               "{seat} with robbed: true", seat=ev.from_)
        if isinstance(ev, WinEvent) and ev.after_kong and ev.by == "self_draw":
            seat = ev.winners[0].seat
            if not any(k.seat == seat for _, k in kongs):
                raise ScoringError(f"{path}.after_kong", "after_kong needs a kong by {seat} in "
                                   "the events", seat=seat)

    def _kong(self, hand: Hand, k: Kong, ledger: Ledger) -> None:
        term = f"{k.kind}_kong"
        rules: Rules = hand.rules
        if k.robbed or not rules.bites:
            why = "robbed" if k.robbed else "no bites at this table"
            ledger.add("kong", k.seat, f"{self.terms[term][1]}: {why}", [], [term, "void"])
            return
        stakes = KONG_STAKES[k.kind]
        amount = stakes * rules.stake
        if k.kind == "exposed" and rules.discard_pays == "shooter":
            assert k.from_ is not None
            transfers: list[Transfer] = [(k.from_, k.seat, 3 * amount)]
            text = f"{self.terms[term][1]}: seat {k.from_} discarded it and pays for all, " \
                   f"{3 * amount}"
        else:
            transfers = each_pays(hand.others(k.seat), k.seat, amount)
            text = f"{self.terms[term][1]}: {amount} from each other seat"
        ledger.add("kong", k.seat, text, transfers, [term], sum(a for _, _, a in transfers))

    def _win(self, hand: Hand, ev: WinEvent, path: str, shown: dict[int, frozenset[int]],
             whose: dict[int, int], ledger: Ledger) -> None:
        rules: Rules = hand.rules
        w: Winner = ev.winners[0]
        wpath = f"{path}.winners[0]"
        held = w.bonus()
        for t in sorted(held):
            if whose.get(t, w.seat) != w.seat:
                raise ScoringError(f"{wpath}.{bn.BONUS[t]}", "there is one {tile}, and {seat} "
                                   "showed it", tile=bn.CHARS[t], seat=whose[t])
        self._check_story(hand, ev, w, wpath)
        bonus = held | shown[w.seat]
        if w.tai is not None:
            raw, terms = w.tai, []
            limits: list[str] = []
        else:
            found, limits = ta.elements(w, ev, bonus, hand.dealer)
            raw = sum(t for _, t in found)
            terms = [k for k, _ in found]
        tai = rules.max_tai if limits else min(raw, rules.max_tai)
        if not limits and raw < rules.min_tai:
            where = f"{wpath}.tai" if w.tai is not None else wpath
            raise ScoringError(where, "{tai} 台 is under this table's minimum of {low} 台 "
                               "(min_tai): the hand cannot win", tai=raw, low=rules.min_tai)
        notes = [f"{raw}台" if not limits else "满台"]
        if limits or raw > rules.max_tai:
            notes.append(f"capped at {rules.max_tai}台")
        a, z = share(tai, rules), share(tai + 1, rules)
        others = hand.others(w.seat)
        if ev.by == "self_draw":
            shares = each_pays(others, w.seat, z)
            notes.append(f"{z} from each other seat")
        elif rules.discard_pays == "shooter":
            assert ev.from_ is not None
            total = z + 2 * a
            shares = [(ev.from_, w.seat, total)]
            notes.append(f"seat {ev.from_} shot and pays for all: {z} + 2×{a} = {total}")
        else:
            shares = [(p, w.seat, z if p == ev.from_ else a) for p in others]
            notes.append(f"seat {ev.from_} pays {z}, the others {a}")
        keys = [*limits, *terms] if limits else terms
        if raw > rules.max_tai or limits:
            keys.append("limit")
        ledger.add("win", w.seat, f"{describe(self.terms, keys)}; " + "; ".join(notes), shares,
                   keys, tai)

    @staticmethod
    def _check_story(hand: Hand, ev: WinEvent, w: Winner, wpath: str) -> None:
        if w.heavenly and (w.seat != hand.dealer or ev.by != "self_draw"):
            raise ScoringError(f"{wpath}.heavenly", "天胡 is the dealer's self-draw on the deal")
        if w.earthly and (w.seat == hand.dealer or ev.by == "robbed_kong"
                          or (ev.by == "discard" and ev.from_ != hand.dealer)):
            raise ScoringError(f"{wpath}.earthly", "地胡 is a non-dealer's first-turn win: a "
                               "self-draw or the dealer's first discard")
        if w.flower_bloom and ev.by != "self_draw":
            raise ScoringError(f"{wpath}.flower_bloom", "花上开花 is a self-draw")
        if w.last_tile and ev.by == "robbed_kong":
            raise ScoringError(f"{wpath}.last_tile", "海底捞月 is the wall's last tile, drawn "
                               "or discarded, not a robbed kong")
