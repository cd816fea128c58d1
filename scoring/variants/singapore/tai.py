"""Singapore's winner features and the tai they are worth (docs/rules/singapore.md).

A winner is either the tai the players counted (`tai`), or the features of the hand, which the
tiles decide (`tile_features`) or a player ticks, each worth its tai; limit hands (满台) are
worth the table's cap. The bonus tiles a winner holds are its booleans `spring` … `centipede`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from pydantic import Field, model_validator

from ...errors import invalid
from ...model import WinEvent, WinnerBase, only_by
from ...tiles import features as tf
from .bonus import BONUS, FLOWERS, SEASONS, held, tai_elements

if TYPE_CHECKING:
    from ...tiles.features import Context
    from ...tiles.reading import Reading

# the features worth a fixed number of tai, in the order lines name them
TAI = {"all_chows": 1, "all_pungs": 2, "half_flush": 2, "pure": 4, "mixed_terminals": 1,
       "small_dragons": 3, "small_winds": 4, "seat_wind": 1, "round_wind": 1}
CLEAN_ALL_CHOWS = 4  # 平胡 with no flower or animal at all
# the limit hands: each worth the table's cap (满台)
LIMITS = ("big_dragons", "big_winds", "thirteen_orphans", "nine_gates", "all_honours",
          "all_terminals", "four_kongs", "four_concealed", "heavenly", "earthly")
# what the story of the win adds, 1 tai each
STORY = ("kong_bloom", "flower_bloom", "robbed_kong", "last_tile")
WINDS = (27, 28, 29, 30)


class Winner(WinnerBase):
    # the tai the players counted, in place of the features: `/hu 东 自摸 3台`
    tai: int | None = Field(default=None, ge=0, le=20)
    dragon_pungs: int = Field(default=0, ge=0, le=3)
    seat_wind: bool = False
    round_wind: bool = False
    all_chows: bool = False
    all_pungs: bool = False
    half_flush: bool = False
    pure: bool = False
    mixed_terminals: bool = False
    small_dragons: bool = False
    small_winds: bool = False
    big_dragons: bool = False
    big_winds: bool = False
    thirteen_orphans: bool = False
    nine_gates: bool = False
    all_honours: bool = False
    all_terminals: bool = False
    four_kongs: bool = False
    four_concealed: bool = False
    heavenly: bool = Field(default=False, json_schema_extra=only_by("self_draw"))
    earthly: bool = Field(default=False, json_schema_extra=only_by("self_draw", "discard"))
    flower_bloom: bool = Field(default=False, json_schema_extra=only_by("self_draw"))
    last_tile: bool = False
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

    @model_validator(mode="after")
    def _shape_fits(self) -> Winner:
        if self.tai is not None and self.features():
            raise invalid("tai is the tai the players counted, and goes alone: without "
                          "{features}", features=", ".join(self.features()))
        pungs = self.dragon_pungs or self.seat_wind or self.round_wind
        if self.all_chows and (self.all_pungs or pungs or self.four_kongs
                               or self.four_concealed):
            raise invalid("平胡 (all_chows) has no pungs")
        if self.pure and self.half_flush:
            raise invalid("a hand is pure (清一色) or half flush (混一色), not both")
        if self.small_dragons and self.dragon_pungs != 2:
            raise invalid("小三元 (small_dragons) is two dragon pungs and the third dragon's "
                          "pair: dragon_pungs 2")
        if self.big_dragons and self.dragon_pungs != 3:
            raise invalid("大三元 (big_dragons) is three dragon pungs: dragon_pungs 3")
        if self.heavenly and self.earthly:
            raise invalid("a hand is heavenly or earthly, not both")
        return self

    def features(self) -> list[str]:
        """The features ticked (the bonus tiles aside), as their keys."""
        skip = {"seat", "tai", *BONUS}
        return [k for k, v in self.__dict__.items() if k not in skip and v]

    def bonus(self) -> frozenset[int]:
        return held(self)


def elements(w: Winner, ev: WinEvent, bonus: frozenset[int], dealer: int
             ) -> tuple[list[tuple[str, int]], list[str]]:
    """The tai elements of a winner's features, each (term, tai), and the limit hands it is;
    `bonus`: every bonus tile the winner holds (its own and those it showed in the hand)."""
    out: list[tuple[str, int]] = []
    if w.dragon_pungs:
        n = w.dragon_pungs
        out.append((f"dragon_pungs:{n}" if n > 1 else "dragon_pungs", n))
    for key, tai in TAI.items():
        if getattr(w, key):
            if key == "all_chows" and not bonus:
                out.append(("all_chows_clean", CLEAN_ALL_CHOWS))
            else:
                out.append((key, tai))
    out += tai_elements(bonus, w.seat, dealer)
    story = {"kong_bloom": ev.by == "self_draw" and ev.after_kong,
             "flower_bloom": w.flower_bloom, "robbed_kong": ev.by == "robbed_kong",
             "last_tile": w.last_tile}
    out += [(key, 1) for key in STORY if story[key]]
    limits = [key for key in LIMITS if getattr(w, key)]
    if len(bonus & (SEASONS | FLOWERS)) >= 7:
        limits.append("seven_flowers")
    return out, limits


def tile_features(r: Reading, ctx: Context) -> dict[str, Any]:
    """The features one reading of the tiles shows (docs/rules/singapore.md)."""
    bonus = {BONUS[i]: True for i in ctx.flowers}
    if r.shape == "thirteen_orphans":
        return {"thirteen_orphans": True, **bonus}
    own = (ctx.seat - ctx.dealer) % 4
    seat_wind, round_wind = 27 + own, 27 + ctx.round_wind
    pair = -1
    pungs: list[int] = []
    chows = kongs = concealed = 0
    for i, g in enumerate(r.groups):
        if g.kind == "pair":
            pair = g.tiles[0]
        elif g.kind == "chow":
            chows += 1
        else:
            pungs.append(g.tiles[0])
            kongs += g.kind == "kong"
            # a pung the discard completed is exposed
            if g.meld in ("", "concealed_kong") and not (i == r.win and ctx.by != "self_draw"):
                concealed += 1
    dragons = sum(1 for t in pungs if t in tf.DRAGONS)
    winds = sum(1 for t in pungs if t in WINDS)
    pure, half = tf.flushes(r)
    ident = r.identity
    honours = any(ident[27:])
    terminals = all(not n or t >= 27 or t % 9 in (0, 8) for t, n in enumerate(ident))
    scoring_pair = pair in (*tf.DRAGONS, seat_wind, round_wind)
    out: dict[str, Any] = {
        "dragon_pungs": dragons, "seat_wind": seat_wind in pungs,
        "round_wind": round_wind in pungs,
        "all_chows": not pungs and not scoring_pair and not ctx.single_wait,
        "all_pungs": not chows, "half_flush": half, "pure": pure,
        "mixed_terminals": terminals and honours and any(ident[:27]),
        "small_dragons": dragons == 2 and pair in tf.DRAGONS,
        "small_winds": winds == 3 and pair in WINDS,
        "big_dragons": dragons == 3, "big_winds": winds == 4,
        "nine_gates": pure and not tf.melds(r) and _nine_gates(ident),
        "all_honours": not any(ident[:27]), "all_terminals": terminals and not honours,
        "four_kongs": kongs == 4, "four_concealed": concealed == 4, **bonus}
    return out


def _nine_gates(ident: tuple[int, ...]) -> bool:
    """九莲宝灯: 1112345678999 of one suit and one more of it."""
    for k in range(3):
        c = ident[9 * k:9 * k + 9]
        if sum(c) == 14:
            return c[0] >= 3 and c[8] >= 3 and all(c[1:8])
    return False
