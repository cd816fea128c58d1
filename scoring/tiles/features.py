"""Per variant: what a reading is, in the winner features of docs/rules/<variant>.md.

Only what the tiles show is set; features that need the story of the hand (天胡, 报牌, 飞宝,
杠上花 …) stay for the player to add.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, NamedTuple

from .reading import Group, Reading, Shapes

DRAGONS = (31, 32, 33)


class Context(NamedTuple):
    """What besides the reading decides features: how the hand was won and where the seat sits."""

    by: str
    seat: int
    dealer: int
    round_wind: int
    rules: Any
    flowers: tuple[int, ...] = ()
    joker_tiles: int = 0  # joker tiles held (as jokers or as themselves), melds included
    single_wait: bool = False  # the hand before the winning tile waited on one tile only


def _sets(r: Reading) -> list[Group]:
    return [g for g in r.groups if g.kind != "pair"]


def _pair(r: Reading) -> Group | None:
    for g in r.groups:
        if g.kind == "pair":
            return g
    return None


def _parts(r: Reading) -> set[int]:
    """The parts (0–2 the suits, 3 the honours) of what the reading stands for: a set or a
    pair lies in one part, a loose group may span them."""
    if r.shape == "standard" or r.shape == "seven_pairs":
        return {g.tiles[0] // 9 for g in r.groups}
    return {t // 9 for g in r.groups for t in g.tiles}


def _pure(r: Reading) -> bool:
    parts = _parts(r)
    return len(parts) == 1 and 3 not in parts


def _half_flush(r: Reading) -> bool:
    parts = _parts(r)
    return len(parts) == 2 and 3 in parts


def _flushes(r: Reading) -> tuple[bool, bool]:
    """`(_pure(r), _half_flush(r))` from one look at the parts (Hainan and Cixi ask both)."""
    parts = _parts(r)
    return len(parts) == 1 and 3 not in parts, len(parts) == 2 and 3 in parts


def _all_pungs(r: Reading) -> bool:
    # a standard reading's sets are pungs, kongs or chows
    return r.shape == "standard" and all(g.kind != "chow" for g in r.groups)


def _quads(r: Reading) -> int:
    ident = r.identity
    return sum(n // 4 for n in ident if n >= 4) if max(ident) >= 4 else 0


def _win_on_pair(r: Reading) -> bool:
    return r.win >= 0 and r.groups[r.win].kind == "pair"


def _melds(r: Reading) -> int:
    return sum(1 for g in r.groups if g.meld)


def _form(r: Reading) -> str:
    if r.shape == "seven_pairs":
        return "seven_pairs"
    return "all_pungs" if _all_pungs(r) else "standard"


def luzhou(r: Reading, ctx: Context) -> dict[str, Any]:
    form = _form(r)
    return {"form": form, "pure": _pure(r),
            "quads": min(_quads(r), 3 if form == "seven_pairs" else 4),
            "no_ghost": ctx.joker_tiles == 0,
            "single_tile": r.shape == "standard" and _melds(r) == 4}


def guiyang(r: Reading, ctx: Context) -> dict[str, Any]:
    form = _form(r)
    return {"form": form, "pure": _pure(r),
            "quads": min(_quads(r), 3) if form == "seven_pairs" else 0}


def cixi(r: Reading, ctx: Context) -> dict[str, Any]:
    # `jokers` counts the 龙 held, whatever each stands for: a 龙 standing for itself is no 无龙
    jokers = ctx.joker_tiles
    if r.shape == "all_honors":
        return {"jokers": jokers, "all_honors": True}
    waves = r.shape == "waves"
    seven_winds = waves and all(r.identity[27:])
    pair = _pair(r)
    on_pair = r.shape == "standard" and _win_on_pair(r) and pair is not None
    lone_joker = on_pair and pair is not None and pair.jokers > 0 and ctx.by == "self_draw"
    return {"jokers": jokers, "all_pungs": _all_pungs(r), "half_flush": _half_flush(r),
            "chaos": waves, "seven_pairs": r.shape == "seven_pairs",
            "seven_winds": seven_winds, "pure": _pure(r),
            # 独吊: chowed or punged down to one tile, and that tile's pair won
            "single_wait": on_pair and not lone_joker and _melds(r) == 4
            and pair is not None and pair.jokers == 0,
            "joker_single": lone_joker}


def feibao(r: Reading, ctx: Context) -> dict[str, Any]:
    if r.shape in ("orphans", "waves"):
        form = "orphans" if r.shape == "orphans" else "thirteen_waves"
        return {"form": form, "jing": r.jokers > 0, "seven_honors": all(r.identity[27:]),
                "single_wait": ctx.single_wait}
    form = _form(r)
    jing = r.jokers > 0
    pair = r.win_group
    diaotou = jing and _win_on_pair(r) and pair is not None and pair.jokers > 0
    return {"form": form, "jing": jing, "diaotou": diaotou, "single_wait": ctx.single_wait,
            "luxury": min(_quads(r), 3) if form == "seven_pairs" else 0, "pure": _pure(r)}


def hainan(r: Reading, ctx: Context) -> dict[str, Any]:
    own = (ctx.seat - ctx.dealer) % 4
    flowers = sum(1 for f in ctx.flowers if f % 4 == own)
    if r.shape == "thirteen_orphans":
        return {"thirteen_orphans": True, "concealed": True, "seat_flower": flowers}
    pure, half = _flushes(r)
    if r.shape == "seven_pairs":
        return {"seven_pairs": True, "concealed": True, "pure": pure, "half_flush": half,
                "luxury": _quads(r) > 0, "seat_flower": flowers}
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
    scoring_pair = pair is not None and pair in (*DRAGONS, seat_wind, round_wind)
    return {"all_chows": not pungs and not scoring_pair,
            "concealed": concealed, "all_pungs": not chows, "pure": pure,
            "half_flush": half, "eyes_258": pair is not None and pair < 27 and pair % 9 in (1, 4, 7),
            "dragon_pungs": sum(1 for t in pungs if t in DRAGONS),
            "seat_flower": flowers, "seat_wind": seat_wind in pungs,
            "round_wind": round_wind in pungs}


FEATURES: dict[str, Callable[[Reading, Context], dict[str, Any]]] = {
    "luzhou": luzhou, "guiyang": guiyang, "cixi": cixi, "feibao": feibao, "hainan": hainan}

SHAPES: dict[str, Shapes] = {
    "luzhou": Shapes(keep="plain"),
    "guiyang": Shapes(keep="plain"),
    "cixi": Shapes(waves=True, all_honors=True, keep="win"),
    "feibao": Shapes(honor_chows=True, orphans=True, waves=True, keep="win"),
    "hainan": Shapes(thirteen_orphans=True),
}

# what an exhausted event's `ready` map takes for a seat, where the variant has one
READY_FIELDS: dict[str, tuple[str, ...]] = {
    "luzhou": ("form", "pure", "quads", "no_ghost"),
    "guiyang": ("form", "pure", "quads"),
}


def named(features: dict[str, Any]) -> int:
    """How many named features a winner object has (the tie-break between equal values)."""
    return sum(1 for k, v in features.items()
               if k != "seat" and v not in (False, 0, None, "standard", {}))
