"""What the engine finds: a reading's groups (sets, pairs, loose tiles), the holding it reads,
the shapes a variant knows, and where the winning tile can sit — shared by the joker search
(`engine`) and the joker-free shortcuts (`plain`)."""

from __future__ import annotations

from functools import lru_cache
from typing import NamedTuple

from ..tileset import Shapes
from .notation import group_text

__all__ = ["Group", "Holding", "Reading", "Shapes", "groups_out", "place_win"]


class Group(NamedTuple):
    """One set, pair or loose run of tiles of a reading. `tiles` are what the group stands for,
    `wild[i]` is true where a joker stands in; `meld` is "" (in hand), "exposed" or
    "concealed_kong". A tuple, so readings hash and sort fast."""

    kind: str  # pair, pung, kong, chow, loose
    tiles: tuple[int, ...]
    wild: tuple[bool, ...]
    meld: str = ""

    @property
    def jokers(self) -> int:
        return sum(self.wild)

    def to_dict(self) -> dict[str, object]:
        return dict(_group_dict(self))


@lru_cache(maxsize=4096)
def _group_dict(g: Group) -> dict[str, object]:
    """A group as output (copied by `to_dict`): a hand's groups recur in every reading."""
    out: dict[str, object] = {"kind": g.kind, "tiles": group_text(g.tiles)}
    if True in g.wild:
        out["jokers"] = g.wild.count(True)
    if g.meld:
        out["meld"] = g.meld
    return out


def groups_out(groups: tuple[Group, ...]) -> list[dict[str, object]]:
    """A reading's groups as output, each a fresh dict (the caller may change it)."""
    made = _group_dict
    return [made(g).copy() for g in groups]


class Holding(NamedTuple):
    """What one reading search looks at (a tuple, so a hand's waits build theirs cheaply)."""

    counts: tuple[int, ...]  # concealed tiles (winning tile included) standing as themselves
    wild: int  # jokers in the concealed hand standing in for other tiles
    melds: tuple[Group, ...] = ()
    win: int | None = None  # the winning tile (what it stands as)
    win_wild: bool = False  # the winning tile is a joker standing in

    @property
    def size(self) -> int:
        return sum(self.counts) + self.wild

    def held(self) -> list[int]:
        """34 counts of the tiles held, the melds' included."""
        held = list(self.counts)
        for g in self.melds:
            for t in g.tiles:
                held[t] += 1
        return held


class Reading(NamedTuple):
    """One way to read a hand (a tuple: thousands are built and thrown away per hand)."""

    shape: str  # standard, seven_pairs, thirteen_orphans, orphans, waves, all_honors
    groups: tuple[Group, ...]  # melds included
    win: int = -1  # index of the group holding the winning tile; -1 unknown
    jokers: int = 0  # jokers standing in, melds included
    identity: tuple[int, ...] = ()  # 34 counts of what it stands for (from the groups)

    @property
    def win_group(self) -> Group | None:
        return self.groups[self.win] if self.win >= 0 else None


def place_win(h: Holding, shape: str, groups: tuple[Group, ...], jokers: int = -1,
               identity: tuple[int, ...] = ()) -> list[Reading]:
    """One reading per distinct group that can hold the winning tile (melds cannot).
    `jokers` and `identity`: the groups' joker count and 34 counts, when the caller knows
    them."""
    if jokers < 0:
        jokers = 0
        c = [0] * 34
        for g in groups:
            jokers += g.wild.count(True)
            for t in g.tiles:
                c[t] += 1
        identity = tuple(c)
    win = h.win
    if win is None:
        return [Reading(shape, groups, -1, jokers, identity)]
    # features ask only whether the winning tile completed a pair (and which pair), so one
    # reading per pair that can hold it and one for "in a set"
    out, seen, in_set = [], set(), False
    win_wild = h.win_wild
    for idx, g in enumerate(groups):
        if g.meld or g in seen or (in_set and g.kind != "pair"):
            continue
        if (True in g.wild) if win_wild else (win in g.tiles and (True not in g.wild or any(
                t == win and not w for t, w in zip(g.tiles, g.wild, strict=True)))):
            seen.add(g)
            in_set = in_set or g.kind != "pair"
            out.append(Reading(shape, groups, idx, jokers, identity))
    return out


def clear_caches() -> None:
    """Empty this module's memos (`scoring.tiles.clear_caches`)."""
    _group_dict.cache_clear()
