"""Joker-free shortcuts: a hand with no joker standing in (most hands at a table) needs no
search. Whether a part (a suit, the honours) is complete, and its every split, is one lookup in
`tables.part_splits`; a hand waits on a tile when that tile's part becomes complete and every
other part already is, exactly one part holding the pair.

`engine.readings` and `engine.waiting` come here when the holding has no joker standing in;
the readings are the same the joker search would find (a property test compares them).
"""

from __future__ import annotations

from functools import cache
from itertools import product
from typing import Any

from .reading import Group, Holding, Reading, Shapes, place_win
from .tables import HONOR_CHOWS, SUIT, complete_plain, honor_kind, part_splits

_REAL = {2: (False, False), 3: (False, False, False)}
# entries the memos of groups keep before they start afresh: a long-running bot meets at
# most the 22,000 complete suit vectors at three offsets, so this is rarely reached
GROUPS_LIMIT, PLUS_LIMIT = 100_000, 100_000


# per (offset, kind): part vector → its splits as groups, or None when not complete
_GROUPS: dict[tuple[int, int], dict[bytes, tuple[tuple[Group, ...], ...] | None]] = {}


def part_groups(key: bytes, offset: int, kind: int) -> tuple[tuple[Group, ...], ...] | None:
    """A part's splits as groups at `offset` (its first tile), each split's groups sorted;
    None when the part is not complete; a part without tiles has one empty split. Memoised
    per part and offset."""
    memo = _GROUPS.get((offset, kind))
    if memo is None:
        memo = _GROUPS[(offset, kind)] = {}
    got = memo.get(key, False)
    if got is False:
        splits = part_splits(kind).get(key)
        if splits is None:
            got = None
        else:
            made = _made(offset)
            got = tuple(tuple(made[rel] for rel in split) for split in splits)
        if len(memo) > GROUPS_LIMIT:
            memo.clear()
        memo[key] = got
    return got  # type: ignore[return-value]


@cache
def _made(offset: int) -> dict[tuple[int, ...], Group]:
    """Every group a joker-free part at `offset` can split into, by its part-local tiles."""
    out = {}
    for i in range(9 if offset < 27 else 7):
        out[(i, i)] = Group("pair", (offset + i,) * 2, _REAL[2])
        out[(i, i, i)] = Group("pung", (offset + i,) * 3, _REAL[3])
    chows = [(i, i + 1, i + 2) for i in range(7)] if offset < 27 else HONOR_CHOWS
    for rel in chows:
        out[rel] = Group("chow", tuple(offset + t for t in rel), _REAL[3])
    return out


def standard(h: Holding, shapes: Shapes, b: bytes | None = None) -> list[Reading]:
    """Four sets and a pair without a joker standing in: every split, each part's from the
    table. "plain" (`Shapes.keep`): where the winning tile sits changes no feature, so only
    its first place is kept, as the joker search does. `b`: the counts as bytes, when the
    caller has them."""
    if b is None:
        b = bytes(h.counts)
    if not complete_plain(b, shapes.honor_chows):
        return []
    # every part is complete, so each has its splits
    p0, p1, p2, p3 = (part_groups(b[0:9], 0, SUIT), part_groups(b[9:18], 9, SUIT),
                      part_groups(b[18:27], 18, SUIT),
                      part_groups(b[27:34], 27, honor_kind(shapes.honor_chows)))
    # no joker in the hand's groups: what the reading stands for is the hand and the melds
    jokers = 0
    melds = h.melds
    if melds:
        identity = list(h.counts)
        for g in melds:
            jokers += g.wild.count(True)
            for t in g.tiles:
                identity[t] += 1
        ident = tuple(identity)
    else:
        ident = h.counts
    if len(p0) == 1 and len(p1) == 1 and len(p2) == 1 and len(p3) == 1:  # the usual case
        combos: Any = ((p0[0], p1[0], p2[0], p3[0]),)
    else:
        combos = product(p0, p1, p2, p3)
    results: list[Reading] = []
    if shapes.keep == "plain" and h.win is not None:
        win = h.win
        for c0, c1, c2, c3 in combos:
            groups = (*sorted(c0 + c1 + c2 + c3), *melds)
            # the first group holding the winning tile (the melds come last and cannot)
            idx = next(i for i, g in enumerate(groups) if win in g.tiles)
            results.append(Reading("standard", groups, idx, jokers, ident))
        return results
    for c0, c1, c2, c3 in combos:
        groups = (*sorted(c0 + c1 + c2 + c3), *melds)
        results += place_win(h, "standard", groups, jokers, ident)
    return results


_PLUS: dict[tuple[bytes, int], tuple[int, ...]] = {}


def _plus(key: bytes, kind: int) -> tuple[int, ...]:
    """The tiles (part-local) that make a part complete when added. Memoised: common parts
    recur between hands."""
    ck = (key, kind)
    got = _PLUS.get(ck)
    if got is None:
        table = part_splits(kind)
        b = bytearray(key)
        out = []
        for i in range(len(key)):
            if b[i] < 4:
                b[i] += 1
                if bytes(b) in table:
                    out.append(i)
                b[i] -= 1
        got = tuple(out)
        if len(_PLUS) > PLUS_LIMIT:
            _PLUS.clear()
        _PLUS[ck] = got
    return got


def waits(counts: list[int], melds: tuple[Group, ...], shapes: Shapes,
          candidates: tuple[int, ...], limit: int, special: Any) -> list[int]:
    """`engine.waiting` without a joker: the tiles of `candidates` that complete four sets and
    a pair, seven pairs, or a special shape (`special`, engine's test for them, or None).

    A part's tile count modulo 3 says which part can take the winning tile: the one part
    one short of a pair (≡ 1), or else either of the two holding a pair (≡ 2); every other
    part must be complete already, and then one lookup per tile of the taking part tells."""
    b = bytes(counts)
    keys = (b[0:9], b[9:18], b[18:27], b[27:34])
    mods = (sum(keys[0]) % 3, sum(keys[1]) % 3, sum(keys[2]) % 3, sum(keys[3]) % 3)
    wins: list[int] = []
    ones = mods.count(1)
    # 13 tiles weigh 1 mod 3: one part ≡ 1 and none ≡ 2, or two parts ≡ 2 and none ≡ 1
    if (ones == 1 and 2 not in mods) or ones == 0:
        hk = honor_kind(shapes.honor_chows)
        suits, honors = part_splits(SUIT), part_splits(hk)
        done = (keys[0] in suits, keys[1] in suits, keys[2] in suits, keys[3] in honors)
        undone = done.count(False)
        if undone <= 1:
            takers = (mods.index(1),) if ones else [k for k in range(4) if mods[k] == 2]
            for k in takers:
                # a tile of part k helps only when every other part is complete already
                if not undone or not done[k]:
                    base = 9 * k
                    wins += [base + i for i in _plus(keys[k], hk if k == 3 else SUIT)]
    # seven pairs: the one tile held an odd number of times
    if shapes.seven_pairs and not melds and b.count(1) + b.count(3) == 1 and sum(b) == 13:
        odd = b.index(1) if 1 in b else b.index(3)
        if odd not in wins:
            wins.append(odd)
    if special is None:
        out = [t for t in sorted(wins) if t in candidates]
    else:
        out = [t for t in candidates if t in wins or special(t)]
    return out[:limit]


def clear_caches() -> None:
    """Empty this module's memos (`scoring.tiles.clear_caches`)."""
    for memo in (_GROUPS, _PLUS):
        memo.clear()
