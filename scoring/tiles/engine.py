"""The decomposition engine: every reading of a hand, jokers included.

Input is a `Holding`: the concealed tiles as 34 counts (jokers standing as themselves counted
there), the number of jokers standing in (`wild`), the melds already resolved, and the winning
tile. A reading is a shape and its groups, each group with the tiles it stands for and which
of them are jokers; the variant's feature mapping turns a reading into winner features.

Speed (issue 13): every suit is split on its own and memoised on its count vector; with jokers
standing in, readings that the variant's features cannot tell apart (`Shapes.keep`) are merged
per suit before the suits are joined, keeping the first of each in sorted order — so 8 ghosts
make tens of readings, not thousands, and the chosen and listed readings stay the same.
A hand without a joker standing in (most hands at a table) needs no search: `plain` looks its
parts up in the generated table of complete parts and their splits.
"""

from __future__ import annotations

from functools import cache
from itertools import combinations, combinations_with_replacement, pairwise, product
from typing import NamedTuple

from . import plain
from .notation import ORPHAN_TILES, is_terminal_or_honor
from .reading import Group, Holding, Reading, Shapes, place_win
from .tables import (
    HONOR_CHOWS,
    PARTS,
    complete_plain,
    need,
    needs_plus_one,
    part_need,
    part_needs,
)

# entries each memo keeps before it starts afresh, so a long-running bot stays within tens of
# megabytes (a split of a joker-rich suit holds many groups)
SUB_LIMIT, SPLITS_LIMIT, OPTIONS_LIMIT, WILD_SUB_LIMIT = 30_000, 5_000, 5_000, 5_000



def is_complete(h: Holding, shapes: Shapes) -> bool:
    """Whether `h` is a winning shape (fast; no readings built)."""
    if h.size % 3 != 2:
        return False
    if (need(h.counts, shapes.honor_chows) <= h.wild if h.wild
            else complete_plain(bytes(h.counts), shapes.honor_chows)):
        return True
    if h.melds:
        return (shapes.orphans and _orphans_ok(h)) or (shapes.all_honors and _honors_ok(h))
    if h.size != 14:
        return False
    if shapes.seven_pairs and sum(n & 1 for n in h.counts) <= h.wild:
        return True
    return any(ok(h) for on, ok in ((shapes.thirteen_orphans, _thirteen_ok),
                                    (shapes.orphans, _orphans_ok), (shapes.waves, _waves_ok),
                                    (shapes.all_honors, _honors_ok)) if on)


def waiting(counts: list[int], wild: int, melds: tuple[Group, ...], shapes: Shapes,
            candidates: tuple[int, ...], limit: int = 99) -> list[int]:
    """Tiles of `candidates` that complete a hand one short of winning (counts + wild ≡ 1 mod 3),
    the first `limit` of them.

    Only the part (suit) of the added tile changes: each part's needs with one more of each of
    its tiles are looked up once, the others' needs are shared; the special shapes are
    checked only for the tiles the hand's own tiles leave possible."""
    if not wild:
        return plain.waits(counts, melds, shapes, candidates, limit,
                           _special_waits(counts, 0, melds, shapes))
    b = bytes(counts)
    hc = shapes.honor_chows
    keys = (b[0:9], b[9:18], b[18:27])
    parts = part_needs(b, hc)
    total = parts[0][0] + parts[1][0] + parts[2][0] + parts[3][0]
    gaps = [p[1] - p[0] for p in parts]
    # the cheapest pair among the other parts, for each part
    others = [min(gaps[j] for j in range(4) if j != k) for k in range(4)]
    plus = [None, None, None, None]
    odd = sum(n & 1 for n in counts)
    pairs_ok = shapes.seven_pairs and not melds and sum(counts) + wild == 13
    special = _special_waits(counts, wild, melds, shapes)
    out = []
    for t in candidates:
        k = t // 9
        added = plus[k]
        if added is None:
            added = plus[k] = (needs_plus_one(keys[k], False) if k < 3
                               else needs_plus_one(b[27:34], True, hc))
        part = added[t - 9 * k]
        gap = part[1] - part[0]
        if (total - parts[k][0] + part[0] + (gap if gap < others[k] else others[k]) <= wild
                or (pairs_ok and odd + (1 if counts[t] % 2 == 0 else -1) <= wild)
                or (special is not None and special(t))):
            out.append(t)
            if len(out) == limit:
                break
    return out


def _special_waits(counts: list[int], wild: int, melds: tuple[Group, ...],
                   shapes: Shapes):
    """A test for the tiles that complete a special shape (九幺, 全风, 十三幺, 十三浪), or None
    when the hand's own tiles already rule every special shape out."""
    if not (shapes.orphans or shapes.all_honors or shapes.thirteen_orphans or shapes.waves):
        return None
    tests = []
    if not melds and sum(counts) + wild != 13:
        return None
    if shapes.orphans and all(is_terminal_or_honor(t) for t in range(34) if counts[t]) and all(
            is_terminal_or_honor(t) for g in melds for t in g.tiles):
        tests.append(is_terminal_or_honor)
    if shapes.all_honors and not any(counts[:27]) and all(t >= 27 for g in melds for t in g.tiles):
        tests.append(lambda t: t >= 27)
    if not melds and sum(counts) + wild == 13:
        if shapes.thirteen_orphans and max(counts) <= 2 and not _middles(bytes(counts)):
            tests.append(lambda t: _thirteen_ok(_with(counts, t, wild)))
        if shapes.waves and max(counts) <= 1:
            tests.append(lambda t: not counts[t] and _waves_ok(_with(counts, t, wild)))
    if not tests:
        return None
    return lambda t: any(test(t) for test in tests)


def _with(counts: list[int], t: int, wild: int) -> Holding:
    c = list(counts)
    c[t] += 1
    return Holding(tuple(c), wild)


# -- readings -----------------------------------------------------------------------------------

def readings(h: Holding, shapes: Shapes) -> list[Reading]:
    """Every distinct reading of a complete hand (empty when it is not complete); of the
    four-sets-and-a-pair readings that look the same to the features (`Shapes.keep`), only the
    first in the order of `(groups, win)`."""
    found: list[Reading] = []
    b = bytes(h.counts)
    size = sum(b) + h.wild
    if size % 3 != 2:
        return found
    if not h.wild:  # one lookup per part says whether it is complete, and how it splits
        found += plain.standard(h, shapes, b)
    elif need(b, shapes.honor_chows) <= h.wild:
        found += _standard(h, shapes)
    return found + _specials(h, shapes, b, size)


def _specials(h: Holding, shapes: Shapes, b: bytes, size: int) -> list[Reading]:
    """The set-less shapes, each behind a quick look at the counts."""
    found: list[Reading] = []
    if not h.melds and size == 14:
        if shapes.seven_pairs and b.count(1) + b.count(3) <= h.wild:
            found += _seven_pairs(h, shapes.keep)
        if shapes.thirteen_orphans and not _middles(b) and _thirteen_ok(h):
            found += _loose(h, "thirteen_orphans", [ORPHAN_TILES])
        if shapes.waves and max(b) <= 1 and _waves_ok(h):
            found += _loose(h, "waves", _waves_fills(h))
    if shapes.orphans and not _middles(b) and _orphans_ok(h):
        found += _loose(h, "orphans", _orphan_fills(h))
    if shapes.all_honors and b[:27] == bytes(27) and _honors_ok(h):
        found += _loose(h, "all_honors", [tuple(range(27, 34))])
    return found


def _middles(b: bytes) -> bool:
    """Whether the counts hold a suited tile from 2 to 8."""
    return b[1:8] != _ZERO7 or b[10:17] != _ZERO7 or b[19:26] != _ZERO7


_ZERO7 = bytes(7)


Raw = tuple[str, tuple[int, ...], tuple[bool, ...]]  # a group while splitting: kind, tiles, wild
PartKey = tuple  # what of one part (suit) of a reading its features can see, see _part_key


def _standard(h: Holding, shapes: Shapes) -> list[Reading]:
    """Four sets and a pair (melds included) with jokers standing in (without: `plain`). Each
    part (a suit, the honours) is read on its own — its tiles split into sets (cached per suit
    vector), groups made only of jokers, the pair — and the parts' readings that look the same
    to the variant's features (`Shapes.keep`) are one: only the first in sorted order is kept.
    Joining the parts keeps that: for parts of equal length, the sorted join of the smaller
    part is the smaller join, so each kept reading is the first (in the order of
    `(groups, win)`) of all the readings it stands for."""
    c = h.counts
    held = h.held()
    win = h.win if h.win is not None and not h.win_wild else None
    any_held = any(held)
    joined: dict[PartKey, tuple[Group, ...]] = {(0, 0, 0, 0, False, False, False, False, ()): ()}
    for k, (a, b) in enumerate(PARTS):
        win_local = win - a if win is not None and a <= win < b else -1
        if any_held:
            part_held = bytes(held[a:b]) if any(held[a:b]) else b""
        else:  # only jokers: their groups stand for 1m (see _classes)
            part_held = bytes(held[a:b]) if k == 0 else b""
        opts = _part_options(k, bytes(c[a:b]), part_held, win_local, h.win_wild, h.wild,
                             shapes.honor_chows and k == 3, shapes.keep)
        if not opts:
            return []
        joined = _join(joined, opts, h.wild)
    results: list[Reading] = []
    # "plain": where the winning tile sits changes no feature, so its first place will do
    first = slice(1 if shapes.keep == "plain" else None)
    for key, groups in sorted(joined.items(), key=lambda kv: kv[1]):
        if key[0] == h.wild and key[1] == 1:
            results += place_win(h, "standard", groups + h.melds)[first]
    return results


def _join(joined: dict[PartKey, tuple[Group, ...]], opts: dict[PartKey, tuple[Group, ...]],
          wild: int) -> dict[PartKey, tuple[Group, ...]]:
    """Two sets of part readings joined: each pair of looks that uses at most `wild` jokers
    and one pair, keeping the first groups of each joined look (see `_standard`)."""
    nxt: dict[PartKey, tuple[Group, ...]] = {}
    for ka, ga in joined.items():
        for kb, gb in opts.items():
            if ka[0] + kb[0] <= wild and ka[1] + kb[1] <= 1:
                key = (ka[0] + kb[0], ka[1] + kb[1], ka[2] | kb[2], ka[3] + kb[3],
                       ka[4] or kb[4], ka[5] or kb[5], ka[6] or kb[6], ka[7] or kb[7],
                       ka[8] + kb[8])
                groups = tuple(sorted(ga + gb)) if ga and gb else ga or gb
                old = nxt.get(key)
                if old is None or groups < old:
                    nxt[key] = groups
    return nxt


_OPTIONS: dict[tuple, dict[PartKey, tuple[Group, ...]]] = {}


def _part_options(k: int, key: bytes, held: bytes, win_local: int, win_wild: bool, wild: int,
                  honor_chows: bool, keep: str) -> dict[PartKey, tuple[Group, ...]]:
    """Every reading of one part with at most `wild` jokers — its tiles' splits, joker pungs
    and a joker pair standing for the part's tiles — the first of each look: (jokers, pairs,
    suit bit, quads, a chow, a set holds the winning tile, the pair holds it, the pair has a
    joker, the rest), as much of it as `keep` asks. `held`: the part's tiles with the melds'
    (empty when the part holds none). Cached."""
    ck = (k, key, held, win_local, win_wild, wild, honor_chows, keep)
    got = _OPTIONS.get(ck)
    if got is None:
        got = _options(k, key, held, win_local, win_wild, wild, honor_chows, keep)
        if len(_OPTIONS) > OPTIONS_LIMIT:
            _OPTIONS.clear()
        _OPTIONS[ck] = got
    return got


def _options(k: int, key: bytes, held: bytes, win_local: int, win_wild: bool, wild: int,
             honor_chows: bool, keep: str) -> dict[PartKey, tuple[Group, ...]]:
    """`_part_options`, not cached."""
    offset = 9 * k
    size = sum(key)
    # what jokers standing alone (pungs, a pair: two at least) may stand for
    classes = _part_classes(offset, held, win_local) if held and wild >= 2 else []
    needs = part_need(key, k == 3, honor_chows) if size else (0, 0)
    meld_ident = [h - n for h, n in zip(held, key, strict=False)] if held else [0] * len(key)
    melded = any(meld_ident)
    win_keep, all_keep = keep == "win", keep == "all"
    jp_tiles = [t for reps in classes for t in reps[:2]]
    got = {}
    for pair in (False, True):
        for w in range(wild + 1):
            room = wild - w
            if size:
                if w < needs[pair] or (size + w - 2 * pair) % 3:
                    continue
                splits = _part_splits(offset, key, w, pair, honor_chows)
            else:
                splits = [_split_info(offset, offset, len(key), ())] if not w and not pair else []
            for sp in splits:
                if melded:
                    ident = [m + n for m, n in zip(meld_ident, sp.ident, strict=True)]
                    quads0 = sum(n // 4 for n in ident if n >= 4)
                else:
                    ident, quads0 = sp.ident, sp.quads
                if win_wild:
                    win_set0, win_pair0 = sp.set_wild, sp.pair_wild
                elif win_local >= 0:
                    win_set0 = bool(sp.set_real >> win_local & 1)
                    win_pair0 = bool(sp.pair_real >> win_local & 1)
                else:
                    win_set0 = win_pair0 = False
                for free in range(room // 3 + 1):
                    if free and not classes:
                        break
                    jps: list[int | None] = [None]
                    if not pair and room - 3 * free >= 2:
                        jps += jp_tiles
                    for pungs in _free_choices(classes, free) if free else [()]:
                        for jp in jps:
                            quads = quads0
                            if pungs or jp is not None:
                                adds: dict[int, int] = {}
                                groups = list(sp.groups)
                                for t in pungs:
                                    adds[t] = adds.get(t, 0) + 3
                                    groups.append(Group("pung", (t, t, t), (True, True, True)))
                                if jp is not None:
                                    adds[jp] = adds.get(jp, 0) + 2
                                    groups.append(Group("pair", (jp, jp), (True, True)))
                                for t, more in adds.items():
                                    n = ident[t - offset]
                                    quads += (n + more) // 4 - n // 4
                                ordered = tuple(sorted(groups))
                            else:
                                ordered = sp.groups
                            jokers = w + 3 * free + (2 if jp is not None else 0)
                            pairs = 1 if pair or jp is not None else 0
                            bit = (1 << k) if ordered else 0
                            if win_keep:
                                if jp is not None:  # a pair of jokers holds a joker's win
                                    pk = (jokers, pairs, bit, quads, sp.chow,
                                          win_set0 or (win_wild and bool(pungs)), win_wild,
                                          True, ())
                                else:
                                    pk = (jokers, pairs, bit, quads, sp.chow,
                                          win_set0 or (win_wild and bool(pungs)), win_pair0,
                                          sp.pair_wild, ())
                            else:
                                pk = (jokers, pairs, bit, quads, sp.chow, False, False, False,
                                      ordered if all_keep else ())
                            old = got.get(pk)
                            if old is None or ordered < old:
                                got[pk] = ordered
    return got


class Split(NamedTuple):
    """One split of a part's tiles, with what `_part_options` asks of it."""

    groups: tuple[Group, ...]  # sorted
    ident: tuple[int, ...]  # the part's tiles it stands for
    chow: bool
    pair_wild: bool  # its pair has a joker
    set_wild: bool  # a set has a joker
    set_real: int  # bit i: a set holds the part's tile i as itself
    pair_real: int  # the same for the pair
    quads: int  # tiles it stands for four times


def _split_info(offset: int, base: int, size: int, raw: tuple[Raw, ...]) -> Split:
    """A split found at `base` (0 for every suit, see `_rel_splits`) placed at `offset`."""
    ident = [0] * size
    chow = pair_wild = set_wild = False
    set_real = pair_real = 0
    groups = []
    get = _AT.get
    for r in raw:
        got = get((r, offset))
        if got is None:
            got = _group_at(r, offset, base)
        group, rel, mask = got
        for i in rel:
            ident[i] += 1
        kind, _, wilds = r
        if kind == "pair":
            pair_wild, pair_real = True in wilds, mask
        else:
            if kind == "chow":
                chow = True
            if not set_wild and True in wilds:
                set_wild = True
            set_real |= mask
        groups.append(group)
    return Split(tuple(groups), tuple(ident), chow, pair_wild, set_wild, set_real, pair_real,
                 sum(n // 4 for n in ident if n >= 4))


# a split's group at an offset: the Group, its tiles within the part, the bits of its real ones
_AT: dict[tuple[Raw, int], tuple[Group, tuple[int, ...], int]] = {}


def _group_at(r: Raw, offset: int, base: int) -> tuple[Group, tuple[int, ...], int]:
    kind, tiles, wilds = r
    rel = tuple(t - base for t in tiles)
    mask = 0
    for i, w in zip(rel, wilds, strict=True):
        if not w:
            mask |= 1 << i
    shift = offset - base
    got = (Group(kind, tuple([t + shift for t in tiles]) if shift else tiles, wilds), rel, mask)
    if len(_AT) > SUB_LIMIT:
        _AT.clear()
    _AT[(r, offset)] = got
    return got


def _part_classes(offset: int, held: bytes, win_local: int) -> list[list[int]]:
    """`_classes` for one part: its tiles grouped by how often they are held (the winning
    tile apart), a few of each."""
    if not any(held):
        return [[0]]  # a hand of jokers only: they stand for 1m (any tile would do)
    by_class: dict[int, list[int]] = {}
    for i, n in enumerate(held):
        by_class.setdefault(-1 if i == win_local else n, []).append(offset + i)
    return [ts[:4] for ts in by_class.values()]


_SPLITS: dict[tuple[int, bytes, int, bool, bool], list[Split]] = {}


def _part_splits(offset: int, key: bytes, wild: int, pair: bool,
                 honor_chows: bool) -> list[Split]:
    """Every way one suit (or the honours) with `wild` jokers is sets (and the pair), each group
    holding at least one of the suit's own tiles. Cached: a suit vector is split once."""
    ck = (offset, key, wild, pair, honor_chows and offset == 27)
    got = _SPLITS.get(ck)
    if got is None:
        base = 27 if offset == 27 else 0
        got = [_split_info(offset, base, len(key), raw)
               for raw in _rel_splits(base, key, wild, pair, ck[4])]
        if len(_SPLITS) > SPLITS_LIMIT:
            _SPLITS.clear()
        _SPLITS[ck] = got
    return got


_REL: dict[tuple[int, bytes, int, bool, bool], tuple[tuple[Raw, ...], ...]] = {}


def _rel_splits(base: int, key: bytes, wild: int, pair: bool,
                honor_chows: bool) -> tuple[tuple[Raw, ...], ...]:
    """`_part_splits`' raw groups, found once for the three suits alike (at `base` 0, the
    honours at 27): a suit's splits differ from another's only in where its tiles sit."""
    ck = (base, key, wild, pair, honor_chows)
    got = _REL.get(ck)
    if got is None:
        if not any(key):
            got = ((),) if not wild and not pair else ()
        else:
            sets = (sum(key) + wild - 2 * pair) // 3
            # few jokers: tails shared between calls; more: many splits each, kept only here
            memo = None if not wild else _SUB_WILD if wild <= 2 else {}
            out = _split(key, base, wild, pair, sets, honor_chows, memo)
            # which tiles of a set are jokers changes no feature (only the total does, and the
            # pair's: 宝掉头, 抛花), so sets that differ only there are one split
            firsts: dict[tuple, tuple[Raw, ...]] = {}
            looks = _LOOKS.get
            for found in out:
                if wild:
                    look = tuple(sorted([looks(g) or _look(g) for g in found]))
                else:  # no joker, nothing to tell apart
                    look = tuple(sorted(found))
                if look not in firsts:
                    firsts[look] = look if not wild else tuple(sorted(found))
            got = tuple(firsts.values())
        if len(_REL) > SPLITS_LIMIT:
            _REL.clear()
        _REL[ck] = got
    return got


# a group as `_rel_splits` tells splits apart: a set without its jokers' places, the pair as is
_LOOKS: dict[Raw, Raw] = {}


def _look(g: Raw) -> Raw:
    kind, tiles, _ = g
    got = _LOOKS[g] = g if kind == "pair" else (kind, tiles, ())
    return got


_SUB: dict[tuple[bytes, int, int, bool, int, bool], tuple[tuple[Raw, ...], ...]] = {}
# the same with one or two jokers: a hand's waits in one suit share most tails (the suit's
# other tiles); more jokers make many splits per tail, kept only while one suit is split
_SUB_WILD: dict[tuple[bytes, int, int, bool, int, bool], tuple[tuple[Raw, ...], ...]] = {}


def _split(c: bytes, offset: int, wild: int, pair: bool, sets: int, honor_chows: bool,
           memo: dict | None = None) -> tuple[tuple[Raw, ...], ...]:
    """Every split of the counts `c` into `sets` sets (and the pair) with exactly `wild` jokers,
    the lowest tile left first. Memoised on the counts left (splits share their tails): in
    `_SUB` without jokers, in `memo` with them (`_SUB_WILD`, or one suit's own)."""
    if memo is None:
        memo = _SUB
    ck = (c, offset, wild, pair, sets, honor_chows)
    got = memo.get(ck)
    if got is not None:
        return got
    i = len(c) - len(c.lstrip(b"\0"))  # the first tile held
    if i == len(c):
        got = ((),) if not wild and not pair and not sets else ()
    elif wild and part_need(c, offset == 27, honor_chows)[pair] > wild:
        got = ()
    else:
        out: list[tuple[Raw, ...]] = []
        ci, t = c[i], offset + i
        cl = bytearray(c)
        if pair:
            for real in range(min(ci, 2), 0, -1):
                if 2 - real <= wild:
                    cl[i] -= real
                    group = ("pair", (t, t), (False,) * real + (True,) * (2 - real))
                    out += [(group, *rest) for rest in
                            _split(bytes(cl), offset, wild - 2 + real, False, sets,
                                   honor_chows, memo)]
                    cl[i] += real
        if sets:
            for real in range(min(ci, 3), 0, -1):
                if 3 - real <= wild:
                    cl[i] -= real
                    group = ("pung", (t, t, t), (False,) * real + (True,) * (3 - real))
                    out += [(group, *rest) for rest in
                            _split(bytes(cl), offset, wild - 3 + real, pair, sets - 1,
                                   honor_chows, memo)]
                    cl[i] += real
            held = 0  # which of the tiles above i are still held (a chow takes them or jokers)
            for j in range(i + 1, min(len(c), i + 3) if offset < 27 else len(c)):
                if c[j]:
                    held |= 1 << (j - i)
            for group, reals, jokers in _chow_moves(i, offset, honor_chows, held):
                if jokers > wild:
                    continue
                for j in reals:
                    cl[j] -= 1
                out += [(group, *rest) for rest in
                        _split(bytes(cl), offset, wild - jokers, pair, sets - 1,
                               honor_chows, memo)]
                for j in reals:
                    cl[j] += 1
        got = tuple(out)
    if len(memo) > (WILD_SUB_LIMIT if memo is _SUB_WILD else SUB_LIMIT):
        memo.clear()
    memo[ck] = got
    return got


@cache
def _chow_moves(i: int, offset: int, honor_chows: bool, held: int,
                ) -> tuple[tuple[Raw, tuple[int, ...], int], ...]:
    """The chows `_split` tries at local tile i, in its order, when `held` (bit j - i) tells
    which tiles above i are still held: each chow (tiles below i are used up, so jokers stand
    for them; above i a tile, then a joker), the local tiles it takes, its jokers."""
    out = []
    for chow in _chows_with(i, offset, honor_chows):
        options = [((False,) if j == i else (True,) if j < i or not held >> (j - i) & 1
                    else (False, True)) for j in chow]
        for wilds in product(*options):
            out.append((("chow", tuple(offset + j for j in chow), wilds),
                        tuple(j for j, w in zip(chow, wilds, strict=True) if not w), sum(wilds)))
    return tuple(out)


def _chows_with(i: int, offset: int, honor_chows: bool) -> list[tuple[int, ...]]:
    """Chows (local indices) holding local tile i."""
    if offset < 27:
        return [(s, s + 1, s + 2) for s in range(max(0, i - 2), min(i, 6) + 1)]
    if not honor_chows:
        return []
    return [chow for chow in HONOR_CHOWS if i in chow]


def _classes(h: Holding) -> list[list[int]]:
    """Tiles a group made only of jokers may stand for, by class: tiles of one suit held the
    same number of times are interchangeable for every feature (the winning tile's kind is a
    class of its own), so a few of each class stand for all of it."""
    held = h.held()
    suits = {t // 9 for t in range(34) if held[t]}
    if not suits:
        return [[0]]
    win = h.win if h.win is not None and not h.win_wild else None
    by_class: dict[tuple[int, int], list[int]] = {}
    for t in range(34):
        if t // 9 in suits:
            by_class.setdefault((t // 9, -1 if t == win else held[t]), []).append(t)
    return [ts[:4] for ts in by_class.values()]


# the ways k joker groups of one class can share its tiles (same tile, two tiles, …)
_PARTITIONS = {1: [(1,)], 2: [(2,), (1, 1)], 3: [(3,), (2, 1), (1, 1, 1)],
               4: [(4,), (3, 1), (2, 2), (2, 1, 1), (1, 1, 1, 1)]}


def _free_choices(classes: list[list[int]], n: int) -> list[tuple[int, ...]]:
    """What n groups made only of jokers stand for, one choice per distinct outcome."""
    out: list[tuple[int, ...]] = []
    for combo in combinations_with_replacement(range(len(classes)), n):
        per_class = []
        for c in sorted(set(combo)):
            reps = classes[c]
            per_class.append([tuple(t for t, k in zip(reps, parts, strict=False) for _ in range(k))
                              for parts in _PARTITIONS[combo.count(c)] if len(parts) <= len(reps)])
        out += [tuple(t for part in pick for t in part) for pick in product(*per_class)]
    return out or [()]



def _seven_pairs(h: Holding, keep: str = "all") -> list[Reading]:
    """Seven pairs, jokers pairing with a single or with each other; of the readings alike
    to the features (`keep`), only the first."""
    firsts: dict[tuple, tuple[Group, ...]] = {}
    pairs: list[Group] = []
    singles: list[int] = []
    for t, n in enumerate(h.counts):
        if not n:
            continue
        if n >= 2:
            pairs += [Group("pair", (t, t), (False, False))] * (n // 2)
        if n & 1:
            singles.append(t)
            pairs.append(Group("pair", (t, t), (False, True)))
    free = (h.wild - len(singles)) // 2
    first = slice(1 if keep == "plain" else None)  # see _standard
    if not free:  # every joker pairs with a single: one reading, whatever its look
        return place_win(h, "seven_pairs", tuple(sorted(pairs)))[first]
    out: list[Reading] = []
    seen: set[tuple[Group, ...]] = set()
    win = h.win if h.win is not None and not h.win_wild else None
    for ids in _free_choices(_classes(h), free):
        made = pairs + [Group("pair", (t, t), (True, True)) for t in ids]
        ways = [made]
        real_pair = Group("pair", (win, win), (False, False))
        if win in ids and real_pair in made:
            # two jokers may pair with the two real tiles instead (宝对掉头 on the winning pair)
            mixed = list(made)
            mixed.remove(real_pair)
            mixed.remove(Group("pair", (win, win), (True, True)))
            ways.append(mixed + [Group("pair", (win, win), (False, True))] * 2)
        for way in ways:
            groups = tuple(sorted(way))
            if groups not in seen:
                seen.add(groups)
                if keep == "all":
                    out += place_win(h, "seven_pairs", groups)
                    continue
                look = _pairs_look(h, groups, keep)
                old = firsts.get(look)
                if old is None or groups < old:
                    firsts[look] = groups
    for groups in sorted(firsts.values()):
        out += place_win(h, "seven_pairs", groups)[first]
    return out


def _pairs_look(h: Holding, groups: tuple[Group, ...], keep: str) -> tuple:
    """What the features can tell of a seven-pairs reading: quads and suits, and (`keep`
    "win") whether a pair with or without a joker can hold the winning tile."""
    c = [0] * 34
    holds_wild = holds_real = False
    for g in groups:
        t = g.tiles[0]
        c[t] += 2
        if keep == "win" and h.win is not None and (
                True in g.wild if h.win_wild else t == h.win and False in g.wild):
            if True in g.wild:
                holds_wild = True
            else:
                holds_real = True
    quads = sum(n // 4 for n in c if n >= 4)
    suits = tuple(any(c[a:b]) for a, b in PARTS)
    return quads, suits, holds_wild, holds_real


def _loose(h: Holding, shape: str, fills: list[tuple[int, ...]]) -> list[Reading]:
    """Shapes without sets: the concealed tiles as one loose group, jokers standing for `fill`
    tiles (one reading per distinct way of filling that changes a feature)."""
    real = tuple(t for t, n in enumerate(h.counts) for _ in range(n))
    out = []
    for fill in dict.fromkeys((f + (0,) * h.wild)[:h.wild] for f in fills):
        group = Group("loose", real + fill, (False,) * len(real) + (True,) * h.wild)
        out += place_win(h, shape, (group, *h.melds))
    return out


def _thirteen_ok(h: Holding) -> bool:
    c = h.counts
    if any(c[t] for t in range(34) if t not in ORPHAN_TILES) or max(c) > 2:
        return False
    missing = sum(1 for t in ORPHAN_TILES if not c[t])
    return missing + (0 if 2 in c else 1) <= h.wild  # a joker fills each gap, or the pair


def _orphans_ok(h: Holding) -> bool:
    return all(is_terminal_or_honor(t) for t in range(34) if h.counts[t]) and all(
        is_terminal_or_honor(t) for g in h.melds for t in g.tiles)


def _orphan_fills(h: Holding) -> list[tuple[int, ...]]:
    """Jokers in 九幺: first on missing honours (七字全), else a terminal."""
    missing = tuple(t for t in range(27, 34) if not h.counts[t])
    return [missing + (0,) * h.wild] if missing else [(0,) * h.wild]


def _honors_ok(h: Holding) -> bool:
    return not any(h.counts[:27]) and all(t >= 27 for g in h.melds for t in g.tiles)


def _suit_room(ranks: list[int]) -> int:
    """How many ranks a suit can still take so that no two are closer than three apart."""
    return _room(tuple(ranks))


@cache
def _room(ranks: tuple[int, ...]) -> int:
    best = 0
    for k in range(1, 4):
        for extra in combinations([r for r in range(9) if r not in ranks], k):
            full = sorted(ranks + extra)
            if all(b - a >= 3 for a, b in pairwise(full)):
                best = k
                break
    return best


def _waves_ok(h: Holding) -> bool:
    return _waves_room(h) is not None


def _waves_room(h: Holding) -> tuple[int, int] | None:
    """(room in the suits, room in the honours) of a 十三浪 / 大乱 hand, or None."""
    c = h.counts
    if max(c) > 1:
        return None
    room = 0
    for k in range(3):
        ranks = [r for r in range(9) if c[9 * k + r]]
        if any(b - a < 3 for a, b in pairwise(ranks)):
            return None
        room += _suit_room(ranks)
    honors = 7 - sum(c[27:])
    return (room, honors) if h.wild <= room + honors else None


def _waves_suited(counts: tuple[int, ...]) -> tuple[int, ...]:
    """Suited tiles jokers may stand for in a 十三浪 / 大乱 without two coming closer than three."""
    out = []
    for k in range(3):
        ranks = [r for r in range(9) if counts[9 * k + r]]
        for r in range(9):
            if all(abs(r - q) >= 3 for q in ranks):
                ranks.append(r)
                out.append(9 * k + r)
    return tuple(out)


def _waves_fills(h: Holding) -> list[tuple[int, ...]]:
    """Jokers of a 十三浪: with and, where they reach, without all seven honours."""
    room, honors = _waves_room(h) or (0, 0)
    missing = tuple(t for t in range(27, 34) if not h.counts[t])
    suited = _waves_suited(h.counts)
    fills = [suited] if h.wild <= room else []
    if h.wild >= honors and h.wild - honors <= room:
        fills.append(missing + suited)
    elif h.wild <= honors:
        fills.append(missing[:h.wild])
    return fills


def clear_caches() -> None:
    """Empty this module's memos (`scoring.tiles.clear_caches`)."""
    for memo in (_SPLITS, _SUB, _SUB_WILD, _REL, _OPTIONS, _AT, _LOOKS):
        memo.clear()
    _room.cache_clear()
    _chow_moves.cache_clear()
