"""Per-suit lookup tables: how many jokers a suit's tiles need to become sets (and a pair),
and, for hands without jokers, whether they already are (much cheaper on unseen vectors).

A suit is a 9-digit count vector (each digit 0–4), keyed as `bytes`. The tables are filled
lazily and cached, so importing `scoring` (and `python -m scoring score`) costs nothing.
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
    """The same for the seven honours (东南西北白发中); `honor_chows`: Feibao's chows of three
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
            out.append(honor_need(bytes(b), honor_chows) if honours else suit_need(bytes(b)))
            b[i] -= 1
        got = _ADD[ck] = tuple(out)
    return got


# -- joker-free completeness: what `waiting` asks of a hand without a joker standing in --------

_WHOLE: dict[bytes, bool] = {}


def suit_complete(key: bytes) -> bool:
    """Whether one suit's counts are sets only (sum ≡ 0 mod 3) or sets and one pair (≡ 2).

    Without jokers no search is needed: the lowest tile's count modulo 3 must start that many
    chows (three equal chows are three pungs), and the pair is tried on each tile held twice.
    Much cheaper than `suit_need` on a vector it has not seen (a joker-free hand's waits look
    at nine new vectors per suit)."""
    got = _WHOLE.get(key)
    if got is None:
        if len(_WHOLE) > MEMO_LIMIT:
            _WHOLE.clear()
        size = sum(key)
        if size % 3 == 0:
            got = _sets_only(list(key))
        elif size % 3 == 2:
            got = False
            # sets weigh 0 mod 3 (rank sums 3i, 3i + 3), so the pair's rank p has 2p ≡ the
            # suit's rank sum: p ≡ 2 · sum mod 3
            first = 2 * sum(i * n for i, n in enumerate(key)) % 3
            for p in range(first, 9, 3):
                if key[p] >= 2:
                    c = list(key)
                    c[p] -= 2
                    if _sets_only(c):
                        got = True
                        break
        else:
            got = False
        _WHOLE[key] = got
    return got


def _sets_only(c: list[int]) -> bool:
    for i in range(9):
        r = c[i] % 3
        if r:
            if i > 6 or c[i + 1] < r or c[i + 2] < r:
                return False
            c[i + 1] -= r
            c[i + 2] -= r
    return True


def honors_complete(key: bytes, honor_chows: bool) -> bool:
    """`suit_complete` for the honours."""
    size = sum(key)
    if size % 3 == 1:
        return False
    if honor_chows:
        return honor_need(key, True)[size % 3 == 2] == 0
    return 2 * key.count(2) == size % 3 and key.count(1) == 0 and key.count(4) == 0


_PLUS: dict[tuple[bytes, bool | None], tuple[int, ...]] = {}


def plus_complete(key: bytes, honours: bool, honor_chows: bool = False) -> tuple[int, ...]:
    """For each tile of a suit (or of the honours), what the part is with one more of it:
    0 not complete, 1 sets only, 2 sets and the pair. Memoised: a hand's candidate waits
    share it, and common parts recur between hands."""
    ck = (key, honor_chows if honours else None)
    got = _PLUS.get(ck)
    if got is None:
        if len(_PLUS) > MEMO_LIMIT:
            _PLUS.clear()
        mod = (sum(key) + 1) % 3
        if mod == 1:
            got = (0,) * len(key)
        else:
            b = bytearray(key)
            out = []
            weight = sum(i * n for i, n in enumerate(key))
            for i in range(len(key)):
                if not honours and (
                        # sets only weigh 0 mod 3 (see suit_complete); a lone tile joins nothing
                        (mod == 0 and (weight + i) % 3) or not any(key[max(i - 2, 0):i + 3])):
                    out.append(0)
                    continue
                b[i] += 1
                done = (honors_complete(bytes(b), honor_chows) if honours
                        else suit_complete(bytes(b)))
                out.append((2 if mod == 2 else 1) if done else 0)
                b[i] -= 1
            got = tuple(out)
        _PLUS[ck] = got
    return got


def complete_plain(b: bytes, honor_chows: bool = False) -> bool:
    """`need(b) == 0` without the joker counts: every part complete, exactly one with the
    pair (a hand without a joker standing in)."""
    keys = (b[0:9], b[9:18], b[18:27])
    pairs = 0
    for key in keys:
        if any(key):
            if not suit_complete(key):
                return False
            pairs += sum(key) % 3 == 2
    honors = b[27:34]
    if any(honors):
        if not honors_complete(honors, honor_chows):
            return False
        pairs += sum(honors) % 3 == 2
    return pairs == 1


def need(counts: list[int] | tuple[int, ...], honor_chows: bool = False) -> int:
    """Fewest jokers that make `counts` (34 tiles) into sets and exactly one pair."""
    b = bytes(counts)
    parts = (suit_need(b[0:9]), suit_need(b[9:18]), suit_need(b[18:27]),
             honor_need(b[27:34], honor_chows))
    total0 = parts[0][0] + parts[1][0] + parts[2][0] + parts[3][0]
    return total0 + min(p[1] - p[0] for p in parts)


def need_sets(counts: list[int] | tuple[int, ...], honor_chows: bool = False) -> int:
    """Fewest jokers that make `counts` into sets only (the pair is already placed)."""
    b = bytes(counts)
    return (suit_need(b[0:9])[0] + suit_need(b[9:18])[0] + suit_need(b[18:27])[0]
            + honor_need(b[27:34], honor_chows)[0])


# -- joker-free agari: every complete suit vector, generated once -------------------------------

@cache
def complete_suits() -> dict[bytes, int]:
    """Every suit count vector that is only sets (→ 0) or sets and one pair (→ 1)."""
    sets = [(i, i, i) for i in range(9)] + [(i, i + 1, i + 2) for i in range(7)]
    out: dict[bytes, int] = {}
    for n in range(5):
        for combo in combinations_with_replacement(sets, n):
            base = [0] * 9
            for s in combo:
                for t in s:
                    base[t] += 1
            if max(base) > 4:
                continue
            out[bytes(base)] = 0
            for p in range(9):
                if base[p] <= 2:
                    base[p] += 2
                    out[bytes(base)] = 1
                    base[p] -= 2
    return out


@cache
def complete_honors() -> dict[bytes, int]:
    """Honour vectors made of pungs and pairs (no chows), → the number of pairs."""
    out: dict[bytes, int] = {}
    for digits in range(3 ** 7):
        v, pairs = [], 0
        for _ in range(7):
            d = (0, 2, 3)[digits % 3]
            digits //= 3
            v.append(d)
            pairs += d == 2
        out[bytes(v)] = pairs
    return out


def is_agari(counts: list[int]) -> bool:
    """A joker-free 14-tile hand (34 counts) is four sets and a pair, seven distinct pairs or
    thirteen orphans — the shapes riichi's agari check knows."""
    b = bytes(counts)
    suits = complete_suits()
    m, p, s = suits.get(b[0:9]), suits.get(b[9:18]), suits.get(b[18:27])
    if m is not None and p is not None and s is not None:
        z = complete_honors().get(b[27:34])
        if z is not None and m + p + s + z == 1:
            return True
    return b.count(2) == 7 or (b.count(0) == 21 and all(counts[t] for t in ORPHANS))

