"""Per-suit lookup tables: how many jokers a suit's tiles need to become sets (and a pair),
and, for hands without jokers, every complete part and its splits.

A suit is a 9-digit count vector (each digit 0–4), keyed as `bytes`. The tables are filled
lazily (the joker counts as vectors are met, the complete parts generated at first use), so
importing `scoring` (and `python -m scoring score`) costs nothing.
"""

from __future__ import annotations

from functools import cache
from itertools import combinations, combinations_with_replacement

from .notation import ORPHAN_TILES as ORPHANS

INF = 99
_SUIT: dict[bytes, tuple[int, int]] = {}
_HON: dict[tuple[bytes, bool], tuple[int, int]] = {}
MEMO_LIMIT = 100_000  # entries a table keeps before it starts afresh (a long-running bot)


def suit_need(key: bytes) -> tuple[int, int]:
    """(jokers to make only sets, jokers to make sets and one pair) for one suit's counts."""
    got = _SUIT.get(key)
    if got is None:
        if len(_SUIT) > MEMO_LIMIT:
            _SUIT.clear()
        got = _SUIT[key] = _solve_suit(key)
    return got


def _solve_suit(key: bytes) -> tuple[int, int]:
    i = len(key) - len(key.lstrip(b"\0"))  # the lowest tile held: every set holding it
    if i == len(key):
        return 0, 2  # nothing left; a pair would be two jokers
    get = _SUIT.get
    best0 = best1 = INF
    c = bytearray(key)
    ci = c[i]
    for real in range(1, (ci if ci < 3 else 3) + 1):  # pung of tile i, jokers for the rest
        c[i] = ci - real
        sub = bytes(c)
        a0, a1 = get(sub) or suit_need(sub)
        if a0 + 3 - real < best0:
            best0 = a0 + 3 - real
        if a1 + 3 - real < best1:
            best1 = a1 + 3 - real
    c[i] = ci
    for start in range(i - 2 if i >= 2 else 0, (i if i < 6 else 6) + 1):
        # a chow holding tile i, the lowest left: jokers for the tiles below it or missing
        used = [j for j in range(i, start + 3) if c[j]]
        for j in used:
            c[j] -= 1
        sub = bytes(c)
        for j in used:
            c[j] += 1
        a0, a1 = get(sub) or suit_need(sub)
        cost = 3 - len(used)
        if a0 + cost < best0:
            best0 = a0 + cost
        if a1 + cost < best1:
            best1 = a1 + cost
    for real in range(1, (ci if ci < 2 else 2) + 1):  # the pair
        c[i] = ci - real
        sub = bytes(c)
        a0 = (get(sub) or suit_need(sub))[0] + 2 - real
        if a0 < best1:
            best1 = a0
    return best0, best1


def honor_need(key: bytes, honor_chows: bool) -> tuple[int, int]:
    """The same for the seven honours (东南西北白发中); `honor_chows`: the chows of three
    different winds or of 中发白."""
    got = _HON.get((key, honor_chows))
    if got is None:
        got = _HON[(key, honor_chows)] = (_solve_honor_chows(key) if honor_chows
                                          else _solve_honors(key))
    return got


def _solve_honors(key: bytes) -> tuple[int, int]:
    need0 = sum((3 - n % 3) % 3 for n in key)
    # the pair: on a held honour (its count drops by 2, or 1 plus a joker) or two jokers
    extra = 2
    for n in key:
        if n >= 2:
            extra = min(extra, (3 - (n - 2) % 3) % 3 - (3 - n % 3) % 3)
        elif n == 1:
            extra = min(extra, 1 - 2)
    return need0, need0 + extra


HONOR_CHOWS = (*tuple(combinations(range(4), 3)), (4, 5, 6))


def _solve_honor_chows(key: bytes) -> tuple[int, int]:
    c = list(key)
    i = next((j for j, n in enumerate(c) if n), None)
    if i is None:
        return 0, 2
    best0 = best1 = INF
    ci = c[i]
    for real in range(1, min(ci, 3) + 1):
        c[i] -= real
        a0, a1 = honor_need(bytes(c), True)
        c[i] += real
        best0, best1 = min(best0, a0 + 3 - real), min(best1, a1 + 3 - real)
    for chow in HONOR_CHOWS:
        if i not in chow:
            continue  # winds below i are all gone, but a wind chow may still take them as jokers
        used = [j for j in chow if c[j]]
        for j in used:
            c[j] -= 1
        a0, a1 = honor_need(bytes(c), True)
        for j in used:
            c[j] += 1
        cost = 3 - len(used)
        best0, best1 = min(best0, a0 + cost), min(best1, a1 + cost)
    for real in range(1, min(ci, 2) + 1):
        c[i] -= real
        a0, _ = honor_need(bytes(c), True)
        c[i] += real
        best1 = min(best1, a0 + 2 - real)
    return best0, best1


PARTS = ((0, 9), (9, 18), (18, 27), (27, 34))  # a hand's parts: the three suits, the honours


def part_need(key: bytes, honours: bool, honor_chows: bool = False) -> tuple[int, int]:
    """A part's needs (`suit_need`, or `honor_need` for the honours)."""
    return honor_need(key, honor_chows) if honours else suit_need(key)


def part_needs(b: bytes, honor_chows: bool = False) -> tuple[tuple[int, int], ...]:
    """The needs of a hand's four parts (34 counts as bytes)."""
    return (suit_need(b[0:9]), suit_need(b[9:18]), suit_need(b[18:27]),
            honor_need(b[27:34], honor_chows))


_ADD: dict[tuple[bytes, bool | None], tuple[tuple[int, int], ...]] = {}


def needs_plus_one(key: bytes, honours: bool, honor_chows: bool = False
                   ) -> tuple[tuple[int, int], ...]:
    """For each tile of a suit (or of the honours), the part's needs with one more of it:
    a hand's 34 candidate waits share its other parts' needs and these."""
    ck = (key, honor_chows if honours else None)
    got = _ADD.get(ck)
    if got is None:
        if len(_ADD) > MEMO_LIMIT:
            _ADD.clear()
        b = bytearray(key)
        out = []
        for i in range(len(key)):
            b[i] += 1
            out.append(part_need(bytes(b), honours, honor_chows))
            b[i] -= 1
        got = _ADD[ck] = tuple(out)
    return got


# -- joker-free splits: every complete part and its splits, generated once ----------------------

SUIT, HONORS, HONORS_CHOWS = 0, 1, 2  # the kinds of part: a suit, the honours, the honours with chows


def honor_kind(honor_chows: bool) -> int:
    """The kind of the honours' part: with honour chows or without."""
    return HONORS_CHOWS if honor_chows else HONORS


@cache
def part_splits(kind: int) -> dict[bytes, tuple[tuple[tuple[int, ...], ...], ...]]:
    """Every count vector of one part (a suit, or the honours with or without their chows)
    that is sets only or sets and one pair → its splits, each a sorted tuple of the groups'
    tiles (part-local: a set has three, the pair two).

    Static data, not a memo: generated from the at most four sets and one pair a part can
    hold (23,533 splits of 21,743 suit vectors, in tens of milliseconds), so a joker-free
    hand's completeness and splits are one lookup, whatever hands came before."""
    if kind == SUIT:
        size, sets = 9, [(i, i, i) for i in range(9)] + [(i, i + 1, i + 2) for i in range(7)]
    else:
        size, sets = 7, [(i, i, i) for i in range(7)]
        if kind == HONORS_CHOWS:
            sets += list(HONOR_CHOWS)
    found: dict[bytes, list[tuple[tuple[int, ...], ...]]] = {}
    base = [0] * size
    for n in range(5):
        for combo in combinations_with_replacement(sets, n):
            for s in combo:
                for t in s:
                    base[t] += 1
            if max(base, default=0) <= 4:
                found.setdefault(bytes(base), []).append(tuple(sorted(combo)))
                for p in range(size):
                    if base[p] <= 2:
                        base[p] += 2
                        found.setdefault(bytes(base), []).append(tuple(sorted((*combo, (p, p)))))
                        base[p] -= 2
            base = [0] * size
    # each split's groups in the order of `Group` (kind, then tiles), whatever the offset
    return {key: tuple(sorted(tuple(sorted(split, key=_group_order)) for split in splits))
            for key, splits in found.items()}


def _group_order(rel: tuple[int, ...]) -> tuple[str, tuple[int, ...]]:
    return ("pair" if len(rel) == 2 else "pung" if rel[0] == rel[1] else "chow"), rel


def complete_plain(b: bytes, honor_chows: bool = False) -> bool:
    """`need(b) == 0` without the joker counts (a hand without a joker standing in): every
    part is in the table of complete parts, exactly one holding the pair (four pairs weigh
    2 mod 3 as well as one: the count is what tells)."""
    suits = pairs_of(SUIT)
    m, p, s = suits.get(b[0:9]), suits.get(b[9:18]), suits.get(b[18:27])
    if m is None or p is None or s is None:
        return False
    z = pairs_of(honor_kind(honor_chows)).get(b[27:34])
    return z is not None and m + p + s + z == 1


@cache
def pairs_of(kind: int) -> dict[bytes, int]:
    """Every complete part of a kind → 1 when it holds the pair, else 0."""
    return {key: int(sum(key) % 3 == 2) for key in part_splits(kind)}


def need(counts: list[int] | tuple[int, ...], honor_chows: bool = False) -> int:
    """Fewest jokers that make `counts` (34 tiles) into sets and exactly one pair."""
    parts = part_needs(bytes(counts), honor_chows)
    total0 = parts[0][0] + parts[1][0] + parts[2][0] + parts[3][0]
    return total0 + min(p[1] - p[0] for p in parts)


# -- joker-free agari ----------------------------------------------------------------------------

def is_agari(counts: list[int]) -> bool:
    """A joker-free 14-tile hand (34 counts) is four sets and a pair, seven distinct pairs or
    thirteen orphans — the shapes riichi's agari check knows."""
    b = bytes(counts)
    return complete_plain(b) or b.count(2) == 7 or (
        b.count(0) == 21 and all(counts[t] for t in ORPHANS))


def clear_caches() -> None:
    """Empty this module's memos (`scoring.tiles.clear_caches`); `part_splits`, static
    data, stays."""
    for memo in (_SUIT, _HON, _ADD):
        memo.clear()
