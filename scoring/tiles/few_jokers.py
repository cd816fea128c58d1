"""A part's splits with no joker or one, from the table of complete parts instead of a search.

`engine._rel_splits` keeps, of the splits of a part (a suit, the honours) with `wild` jokers
standing in, one per look (sets without their jokers' places, the pair with them): the first
`engine._split` finds, its groups sorted. Without a joker every split is its own look: the
table's (`tables.part_splits`). With one joker standing for tile u, a split is a split of the
part with one more u (complete, so in the table) with the joker in one of the groups holding u;
where a look comes from several such splits, the first `_split` finds is the one whose choices,
read in `_split`'s order (the lowest tile held first; at it the pair with most real tiles, the
pung with most, then the chows by their tiles, a real tile before a joker), come first (`_order`).
A property test compares both with the search on every kind of part.
"""

from __future__ import annotations

from .tables import HONORS, HONORS_CHOWS, SUIT, part_splits

Raw = tuple[str, tuple[int, ...], tuple[bool, ...]]  # as engine.Raw
_REAL = {2: (False, False), 3: (False, False, False)}
_RAW: dict[tuple[tuple[int, ...], int], Raw] = {}


def _raw(rel: tuple[int, ...], base: int) -> Raw:
    got = _RAW.get((rel, base))
    if got is None:
        kind = "pair" if len(rel) == 2 else "pung" if rel[0] == rel[1] else "chow"
        got = _RAW[(rel, base)] = (kind, tuple(base + t for t in rel), _REAL[len(rel)])
    return got


def table_splits(base: int, key: bytes, wild: int, pair: bool, honor_chows: bool,
                 ) -> tuple[tuple[Raw, ...], ...] | None:
    """`engine._rel_splits`' answer for `wild` 0 or 1 (as a set: the order may differ), or
    None where the table cannot tell (more jokers, or a tile the joker would make a fifth)."""
    table = part_splits(SUIT if base < 27 else HONORS_CHOWS if honor_chows else HONORS)
    if not wild:
        splits = table.get(key)
        if splits is None:
            return ()
        return tuple(tuple(_raw(rel, base) for rel in split) for split in splits)
    if wild != 1 or 4 in key:
        return None
    out: list[tuple[Raw, ...]] = []
    more = bytearray(key)
    for u in range(len(key)):
        more[u] += 1
        full = bytes(more)
        more[u] -= 1
        if full in table:
            got = _ONE.get((full, u, base, honor_chows))
            if got is None:
                got = _one_joker(table, full, u, base, honor_chows)
            out += got
    return tuple(out)


# a complete part and a tile of it → the splits with one joker for that tile (a few of each
# part; kept until a long-running bot has met this many)
_ONE: dict[tuple[bytes, int, int, bool], tuple[tuple[Raw, ...], ...]] = {}
ONE_LIMIT = 50_000


def _one_joker(table: dict, full: bytes, u: int, base: int, honor_chows: bool,
               ) -> tuple[tuple[Raw, ...], ...]:
    """The splits of `full` less one `u`, a joker standing for it: each split of `full` with the
    joker in a group holding u, one per look (splits alike but for which set holds the joker
    are one: the first `_split` finds)."""
    firsts: dict[tuple, tuple[tuple[Raw, ...], tuple | None]] = {}
    key = bytearray(full)
    key[u] -= 1
    for split in table[full]:
        raws = [_raw(rel, base) for rel in split]
        done: set[tuple[int, ...]] = set()
        for g, rel in enumerate(split):
            if u not in rel or rel in done:
                continue
            done.add(rel)
            kind, tiles, _ = raws[g]
            if kind == "chow":
                flags = tuple(t == u for t in rel)
            else:
                flags = (False,) * (len(rel) - 1) + (True,)
            found = list(raws)
            found[g] = (kind, tiles, flags)
            found.sort()
            made = tuple(found)
            look = tuple((k, t, w if k == "pair" else ()) for k, t, w in made)
            old = firsts.get(look)
            if old is None:
                firsts[look] = (made, None)
            elif old[0] != made:
                old_order = old[1] if old[1] is not None else _order(old[0], key, base)
                order = _order(made, key, base)
                firsts[look] = (made, order) if order < old_order else (old[0], old_order)
    got = tuple(made for made, _ in firsts.values())
    if len(_ONE) > ONE_LIMIT:
        _ONE.clear()
    _ONE[(full, u, base, honor_chows)] = got
    return got


def _order(split: tuple[Raw, ...], key: bytes | bytearray, base: int) -> tuple:
    """The choices `engine._split` makes to find `split` first: at each step the lowest tile
    held, and of the groups that take it as a real tile (the lower ones as jokers), the one
    `_split` tries first."""
    c = bytearray(key)
    left = list(split)
    out = []
    while left:
        i = len(c) - len(c.lstrip(b"\0"))
        best = None
        for n, (kind, tiles, wilds) in enumerate(left):
            rel = tuple(t - base for t in tiles)
            if i not in rel:
                continue
            if kind == "chow":
                if wilds[rel.index(i)]:  # (tiles below i are used up: jokers there)
                    continue
                rank: tuple = (2, rel, wilds)
            else:
                rank = (0 if kind == "pair" else 1, -wilds.count(False))
            if best is None or rank < best[0]:
                best = (rank, n)
        assert best is not None, (split, key)
        out.append(best[0])
        _, tiles, wilds = left.pop(best[1])
        for t, w in zip(tiles, wilds, strict=True):
            if not w:
                c[t - base] -= 1
    return tuple(out)
