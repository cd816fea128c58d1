"""The questions a style's winner features ask of one reading of the tiles (flush, pungs,
quads, where the winning tile sat …), and what besides the reading decides them (`Context`).
Each style answers with its own features in `Variant.tile_features` (scoring/variants/).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, NamedTuple

if TYPE_CHECKING:  # the styles' modules import these questions without the engine's modules
    from .reading import Group, Reading

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


def sets(r: Reading) -> list[Group]:
    return [g for g in r.groups if g.kind != "pair"]


def pair(r: Reading) -> Group | None:
    for g in r.groups:
        if g.kind == "pair":
            return g
    return None


def parts(r: Reading) -> set[int]:
    """The parts (0–2 the suits, 3 the honours) of what the reading stands for: a set or a
    pair lies in one part, a loose group may span them."""
    if r.shape == "standard" or r.shape == "seven_pairs":
        return {g.tiles[0] // 9 for g in r.groups}
    return {t // 9 for g in r.groups for t in g.tiles}


def pure(r: Reading) -> bool:
    found = parts(r)
    return len(found) == 1 and 3 not in found


def half_flush(r: Reading) -> bool:
    found = parts(r)
    return len(found) == 2 and 3 in found


def flushes(r: Reading) -> tuple[bool, bool]:
    """`(pure(r), half_flush(r))` from one look at the parts."""
    found = parts(r)
    return len(found) == 1 and 3 not in found, len(found) == 2 and 3 in found


def all_pungs(r: Reading) -> bool:
    # a standard reading's sets are pungs, kongs or chows
    return r.shape == "standard" and all(g.kind != "chow" for g in r.groups)


def quads(r: Reading) -> int:
    ident = r.identity
    return sum(n // 4 for n in ident if n >= 4) if max(ident) >= 4 else 0


def win_on_pair(r: Reading) -> bool:
    return r.win >= 0 and r.groups[r.win].kind == "pair"


def melds(r: Reading) -> int:
    return sum(1 for g in r.groups if g.meld)


def form(r: Reading) -> str:
    if r.shape == "seven_pairs":
        return "seven_pairs"
    return "all_pungs" if all_pungs(r) else "standard"


def suits(r: Reading) -> int:
    """How many of the three suits the reading stands for."""
    return sum(1 for k in range(3) if any(r.identity[9 * k:9 * k + 9]))


def named(features: dict[str, Any]) -> int:
    """How many named features a winner object has (the tie-break between equal values)."""
    return sum(1 for k, v in features.items()
               if k != "seat" and v not in (False, 0, None, "standard", {}))
