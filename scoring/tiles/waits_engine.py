"""Every waiting tile's readings of a 13-tile hand with jokers at once (issue 13): what
`engine.readings` finds for each holding with the tile added, without reading the hand anew
for each tile.

Only the part (suit, honours) that receives the waiting tile changes: the other three parts'
options (`engine._part_options`, the winning tile not among them) are the same for every tile of
that part, and joining parts is commutative and associative (each kept reading is the first of
its look whatever the order the parts are joined in, see `engine._standard`; with `keep` "all"
the look holds each part's groups, which tell the parts apart in any order), so their join is
made once per hand and part, indexed by jokers and pairs. Each tile reads only its own part,
and of that only the options with the jokers and pairs the others' join can complete
(`engine._options` with `wanted`). The special shapes are read per tile as `readings` does.
The property tests (tests/scoring/test_tiles_wait_readings.py) compare every answer with the
per-wait path; tests/bench/bench_wait_readings.py measures both.
"""

from __future__ import annotations

from . import engine
from .engine import (
    _PARTS,
    PartKey,
    _options,
    _part_options,
    _specials,
    join,
    joined_key,
    keep_first,
    readings,
)
from .reading import Group, Holding, Reading, Shapes, place_win
from .tables import honor_need, suit_need

Options = dict[PartKey, tuple[Group, ...]]


def wait_readings(bases: list[Holding], shapes: Shapes, tiles: list[int],
                  ) -> dict[int, list[Reading]]:
    """For each tile of `tiles` (waits of the hand, none a joker), the readings of every
    holding of `bases` (`analysis._holdings` of the 13-tile hand) with that tile added as the
    winning tile: as a multiset, what `readings(h, shapes)` gives for each such holding `h`
    (`counts[t] += 1`, `win=t`) in turn (tests/scoring/tiles_reference.with_wait)."""
    out: dict[int, list[Reading]] = {t: [] for t in tiles}
    for h in bases:
        if not h.wild:
            for t in tiles:
                out[t] += readings(_added(h, t), shapes)
            continue
        _joker_waits(h, shapes, tiles, out)
    return out


def _added(h: Holding, t: int) -> Holding:
    counts = list(h.counts)
    counts[t] += 1
    return Holding(tuple(counts), h.wild, h.melds, t, False)


def _joker_waits(h: Holding, shapes: Shapes, tiles: list[int],
                 out: dict[int, list[Reading]]) -> None:
    """`engine.readings` of `h` (jokers standing in) with each tile added, into `out`."""
    size = sum(h.counts) + h.wild + 1
    if size % 3 != 2:  # (never for a 13-tile hand)
        return
    wild, keep, hc = h.wild, shapes.keep, shapes.honor_chows
    held = list(h.counts)
    for g in h.melds:
        for t in g.tiles:
            held[t] += 1
    fixed: list[Options | None] = [None] * 4
    others: list[dict[tuple[int, int], list[tuple[PartKey, tuple[Group, ...]]]] | None] = [None] * 4
    wants: list[set[tuple[int, int]] | None] = [None] * 4
    first = slice(1 if keep == "plain" else None)  # see engine._standard
    c = bytes(h.counts)
    needs = [_need(c[lo:hi], j, hc) for j, (lo, hi) in enumerate(_PARTS)]
    # tables.need with one more tile of part k: the other parts' jokers for sets, and their
    # cheapest pair
    sets_else = [sum(p[0] for j, p in enumerate(needs) if j != k) for k in range(4)]
    pair_else = [min(p[1] - p[0] for j, p in enumerate(needs) if j != k) for k in range(4)]
    for t in tiles:
        ht = _added(h, t)
        b = bytes(ht.counts)
        found = out[t]
        k = t // 9 if t < 27 else 3
        lo, hi = _PARTS[k]
        part = _need(b[lo:hi], k, hc)
        if part[0] + sets_else[k] + min(part[1] - part[0], pair_else[k]) <= wild:
            rest = others[k]
            if rest is None:
                rest = others[k] = _others(h, held, k, fixed, hc, keep)
            if rest:
                part_held = list(held[lo:hi])
                part_held[t - lo] += 1
                wanted = wants[k]
                if wanted is None:
                    wanted = wants[k] = {(wild - j, 1 - p) for j, p in rest}
                opts = _wait_options(k, b[lo:hi], bytes(part_held), t - lo, wild,
                                     hc and k == 3, keep, wanted)
                joined: Options = {}
                for kb, gb in opts.items():
                    match = rest.get((wild - kb[0], 1 - kb[1]))
                    if not match:
                        continue
                    for ka, ga in match:
                        keep_first(joined, joined_key(ka, kb), ga, gb)
                for groups in sorted(joined.values()):
                    found += place_win(ht, "standard", groups + h.melds)[first]
        found += _specials(ht, shapes, b, size)


def _wait_options(k: int, key: bytes, held: bytes, win_local: int, wild: int, hc: bool,
                  keep: str, wanted: set[tuple[int, int]]) -> Options:
    """The options of the part that received the wait: `engine._part_options`' when it has
    them (another hand met this part), else only those the other parts' join can take."""
    got = engine._OPTIONS.get((k, key, held, win_local, False, wild, hc, keep))
    if got is not None:
        return got
    return _options(k, key, held, win_local, False, wild, hc, keep, wanted)


def _need(key: bytes, k: int, hc: bool) -> tuple[int, int]:
    return suit_need(key) if k < 3 else honor_need(key, hc)


def _others(h: Holding, held: list[int], k: int, fixed: list[Options | None], hc: bool,
            keep: str) -> dict[tuple[int, int], list[tuple[PartKey, tuple[Group, ...]]]]:
    """The join of every part but `k` (none holding the winning tile), by (jokers, pairs)."""
    joined: Options = {(0, 0, 0, 0, False, False, False, False, ()): ()}
    wild = h.wild
    for j, (lo, hi) in enumerate(_PARTS):
        if j == k:
            continue
        opts = fixed[j]
        if opts is None:
            part_held = bytes(held[lo:hi]) if any(held[lo:hi]) else b""
            opts = fixed[j] = _part_options(j, bytes(h.counts[lo:hi]), part_held, -1, False,
                                            wild, hc and j == 3, keep)
        if not opts:
            return {}
        joined = join(joined, opts, wild)
    by: dict[tuple[int, int], list[tuple[PartKey, tuple[Group, ...]]]] = {}
    for key, groups in joined.items():
        by.setdefault((key[0], key[1]), []).append((key, groups))
    return by
