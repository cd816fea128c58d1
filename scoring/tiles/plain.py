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

from .reading import Group, Holding, Reading, Shapes, place_win
from .tables import HONOR_CHOWS, HONORS, HONORS_CHOWS, SUIT, part_splits

_REAL = {2: (False, False), 3: (False, False, False)}
# entries the memos of groups keep before they start afresh: a long-running bot meets at
# most the 22,000 complete suit vectors at three offsets, so this is rarely reached
GROUPS_LIMIT, PLUS_LIMIT = 100_000, 100_000


def _honor_kind(honor_chows: bool) -> int:
    return HONORS_CHOWS if honor_chows else HONORS


_GROUPS: dict[tuple[bytes, int, int], tuple[tuple[Group, ...], ...] | None] = {}


def part_groups(key: bytes, offset: int, kind: int) -> tuple[tuple[Group, ...], ...] | None:
    """A part's splits as groups at `offset` (its first tile), each split's groups sorted;
    None when the part is not complete; a part without tiles has one empty split. Memoised
    per part and offset."""
    ck = (key, offset, kind)
    got = _GROUPS.get(ck, False)
    if got is False:
        splits = part_splits(kind).get(key)
        if splits is None:
            got = None
        else:
            made = _made(offset)
            got = tuple(tuple(made[rel] for rel in split) for split in splits)
        if len(_GROUPS) > GROUPS_LIMIT:
            _GROUPS.clear()
        _GROUPS[ck] = got
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
    hk = _honor_kind(shapes.honor_chows)
    keys = (b[0:9], b[9:18], b[18:27], b[27:34])
    per = (part_groups(keys[0], 0, SUIT), part_groups(keys[1], 9, SUIT),
           part_groups(keys[2], 18, SUIT), part_groups(keys[3], 27, hk))
    # every part complete, and exactly one holding the pair (four pairs also weigh 2 mod 3)
    if None in per or [sum(key) % 3 for key in keys].count(2) != 1:
        return []
    # no joker in the hand's groups: what the reading stands for is the hand and the melds
    jokers = 0
    if h.melds:
        identity = list(h.counts)
        for g in h.melds:
            jokers += g.wild.count(True)
            for t in g.tiles:
                identity[t] += 1
        ident = tuple(identity)
    else:
        ident = h.counts
    first = 1 if shapes.keep == "plain" else None
    results: list[Reading] = []
    for combo in product(*per):  # type: ignore[arg-type]
        groups = tuple(sorted([g for part in combo for g in part]))
        results += place_win(h, "standard", groups + h.melds, jokers, ident)[:first]
    return results


_PLUS: dict[tuple[bytes, int], tuple[int | None, ...]] = {}


def _plus(key: bytes, kind: int) -> tuple[int | None, ...]:
    """For each tile of a part, the part with one more of it: None not complete, else how
    many pairs it holds (0 or 1). Memoised: common parts recur between hands."""
    ck = (key, kind)
    got = _PLUS.get(ck)
    if got is None:
        table = part_splits(kind)
        b = bytearray(key)
        out = []
        for i in range(len(key)):
            if b[i] == 4:
                out.append(None)
                continue
            b[i] += 1
            out.append(None if bytes(b) not in table else (sum(b) % 3 == 2))
            b[i] -= 1
        got = tuple(out)
        if len(_PLUS) > PLUS_LIMIT:
            _PLUS.clear()
        _PLUS[ck] = got
    return got


def waits(counts: list[int], melds: tuple[Group, ...], shapes: Shapes,
          candidates: tuple[int, ...], limit: int, special) -> list[int]:
    """`engine.waiting` without a joker: the tiles of `candidates` that complete four sets and
    a pair (one lookup per part and one per added tile), seven pairs, or a special shape
    (`special`, engine's test for them, or None)."""
    b = bytes(counts)
    hk = _honor_kind(shapes.honor_chows)
    keys = (b[0:9], b[9:18], b[18:27], b[27:34])
    kinds = (SUIT, SUIT, SUIT, hk)
    tables = (part_splits(SUIT), part_splits(hk))
    done = [keys[k] in tables[k == 3] for k in range(4)]
    paired = [sum(key) % 3 == 2 for key in keys]
    wins: set[int] = set()
    incomplete = done.count(False)
    for k in range(4):
        # a tile of part k can only help when every other part is complete already
        if incomplete > 1 or (incomplete == 1 and done[k]):
            continue
        others = sum(paired) - paired[k]
        for i, pairs in enumerate(_plus(keys[k], kinds[k])):
            if pairs is not None and pairs + others == 1:
                wins.add(9 * k + i)
    # seven pairs: the one tile held an odd number of times
    if shapes.seven_pairs and not melds and b.count(1) + b.count(3) == 1 and sum(b) == 13:
        wins.add(next(t for t in range(34) if counts[t] & 1))
    out = [t for t in candidates if t in wins or (special is not None and special(t))]
    return out[:limit]
