"""Correcting what the detector read: the player fixes the misread tiles, the bot gets the hand.

Corrections name positions in the detected list (the photo's reading order, as the keyboard
shows it), so they do not depend on the order they are made in: replace the tile at a position,
remove a tile the detector invented, add one it missed. Pure functions.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from .detect import READ_KINDS, tile_string


@dataclass(frozen=True)
class Replace:
    index: int  # position in the detected tiles
    tile: str  # what it really is, e.g. "8s"


@dataclass(frozen=True)
class Remove:
    index: int  # a detected tile that is not in the hand


@dataclass(frozen=True)
class Add:
    tile: str  # a tile the detector missed


Correction = Replace | Remove | Add


def apply_corrections(detected: Sequence[str], corrections: Iterable[Correction]) -> list[str]:
    """The hand's tiles after the corrections: detected positions not corrected stay, replaced
    ones become their new tile, removed ones go, added tiles join (in the order given). Raises
    ValueError for a position outside the detected tiles or corrected twice, or an unknown tile."""
    tiles: list[str | None] = list(detected)
    touched: set[int] = set()
    added: list[str] = []
    for c in corrections:
        if isinstance(c, Add):
            added.append(_known(c.tile))
            continue
        if not 0 <= c.index < len(detected):
            raise ValueError(f"no detected tile at position {c.index} (there are {len(detected)})")
        if c.index in touched:
            raise ValueError(f"the tile at position {c.index} is corrected twice")
        touched.add(c.index)
        tiles[c.index] = _known(c.tile) if isinstance(c, Replace) else None
    return [t for t in tiles if t is not None] + added


def corrected_string(detected: Sequence[str], corrections: Iterable[Correction]) -> str:
    """The corrected hand in the project's notation, sorted (`123m55p789s11777z`)."""
    return tile_string(apply_corrections(detected, corrections))


def corrections_between(detected: Sequence[str], intended: Iterable[str]) -> list[Correction]:
    """The fewest corrections turning `detected` into the tiles of `intended` (as a multiset):
    every detected tile the hand has stays put, the wrong ones are replaced while the hand still
    misses tiles, the rest removed, the still-missing ones added. Their number is
    max(len(detected), len(intended)) minus the tiles both have in common."""
    missing = Counter(_known(t) for t in intended)
    wrong: list[int] = []
    for i, tile in enumerate(detected):
        if missing[tile] > 0:
            missing[tile] -= 1
        else:
            wrong.append(i)
    needed = sorted(missing.elements(), key=READ_KINDS.index)
    out: list[Correction] = [Replace(i, t) for i, t in zip(wrong, needed, strict=False)]
    out += [Remove(i) for i in wrong[len(needed):]]
    out += [Add(t) for t in needed[len(wrong):]]
    return out


def _known(tile: str) -> str:
    if tile not in READ_KINDS:
        raise ValueError(f"unknown tile {tile!r}: expected one of 1m…9m, 1p…9p, 1s…9s, 1z…7z, 1f…8f")
    return tile
