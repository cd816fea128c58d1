"""A brute-force reference for the tile engine, written without its tables or its search.

Every joker is tried as every tile the variant plays (and, where jokers may stand as
themselves, as itself); every joker-free result is split every possible way, each tile
labelled "real" or "joker". Slow by design: it is the engine's oracle in the property tests.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator
from functools import cache
from itertools import combinations_with_replacement, pairwise, product
from typing import Any

from scoring import ScoringError, get_variant
from scoring.tiles.analysis import _context, _kongs, _shown, _value
from scoring.tiles.notation import ORPHAN_TILES, is_terminal_or_honor, tile_name
from scoring.tiles.reading import Group, Reading
from scoring.tiles.request import Table, read_request, split_win
from scoring.tileset import TileSet

Item = tuple[int, bool]  # (the tile it stands for, a joker standing in)


def tile_set(tiles: TileSet) -> range:
    """What a joker may stand for: the suits, and the honours where the set has them."""
    return range(34) if tiles.honours else range(27)


def substitutions(t: Table, tiles: list[int]) -> Iterator[Counter[Item]]:
    """Every labelled multiset the concealed tiles can stand for (34^jokers of them: keep the
    jokers few)."""
    plain = Counter((x, False) for x in tiles if x not in t.jokers)
    per_kind = []
    for j in sorted(t.jokers):
        n = tiles.count(j)
        options: list[Item] = [(x, True) for x in tile_set(t.tileset)]
        if t.tileset.jokers is not None and t.tileset.jokers.as_themselves:
            options.append((j, False))
        per_kind.append(list(combinations_with_replacement(options, n)))
    for choice in product(*per_kind):
        items = Counter(plain)
        for chosen in choice:
            items.update(chosen)
        yield items


def _runs(x: int, honor_chows: bool) -> list[tuple[int, ...]]:
    runs = [(s, s + 1, s + 2) for s in range(x - 2, x + 1) if 0 <= s and s < 27 and s % 9 <= 6]
    if honor_chows and x >= 27:
        winds = [(27, 28, 29), (27, 28, 30), (27, 29, 30), (28, 29, 30), (31, 32, 33)]
        runs = [r for r in winds if x in r]
    return [r for r in runs if x in r]


@cache
def _splits_at_all(ids: tuple[int, ...], pair: bool, honor_chows: bool) -> bool:
    """Whether sorted tiles `ids` are sets (and one pair when `pair`): the plain textbook
    recursion, to skip the labelled search for the many substitutions that win no way."""
    if not ids:
        return not pair
    x, rest = ids[0], list(ids[1:])
    if pair and rest[:1] == [x] and _splits_at_all(tuple(rest[1:]), False, honor_chows):
        return True
    if rest[:2] == [x, x] and _splits_at_all(tuple(rest[2:]), pair, honor_chows):
        return True
    for run in _runs(x, honor_chows):
        if run[0] == x and all(y in rest for y in run[1:]):
            left = list(rest)
            for y in run[1:]:
                left.remove(y)
            if _splits_at_all(tuple(left), pair, honor_chows):
                return True
    return False


def standard_splits(items: Counter[Item], honor_chows: bool) -> set[tuple[Group, ...]]:
    """Every split of the labelled items into sets and exactly one pair."""
    out: set[tuple[Group, ...]] = set()
    ids = tuple(sorted(x for (x, _), n in items.items() for _ in range(n)))
    if not _splits_at_all(ids, True, honor_chows):
        return out

    def take(kinds: tuple[int, ...], left: Counter[Item]):
        """Every way to pick one item of each tile in `kinds` (joker or not)."""
        choices = [[(x, w) for w in (False, True) if left[(x, w)]] for x in kinds]
        for pick in product(*choices):
            need = Counter(pick)
            if all(left[k] >= n for k, n in need.items()):
                yield pick

    def go(left: Counter[Item], acc: list[Group], pair: bool) -> None:
        live = sorted(k for k, n in left.items() if n)
        if not live:
            if pair:
                out.add(tuple(sorted(acc)))
            return
        x = live[0][0]
        shapes: list[tuple[str, tuple[int, ...]]] = [("pung", (x, x, x))]
        if not pair:
            shapes.append(("pair", (x, x)))
        shapes += [("chow", r) for r in _runs(x, honor_chows) if r[0] == x]  # x is the lowest left
        for kind, kinds in shapes:
            for pick in set(take(kinds, left)):
                rest = Counter(left)
                rest.subtract(Counter(pick))
                if kind == "chow":
                    wild = tuple(w for _, w in pick)
                else:
                    wild = tuple(sorted(w for _, w in pick))
                go(+rest, [*acc, Group(kind, kinds, wild)], pair or kind == "pair")

    go(+items, [], False)
    return out


def seven_pairs(items: Counter[Item]) -> list[tuple[Group, ...]]:
    ident: Counter[int] = Counter()
    for (x, _), n in items.items():
        ident[x] += n
    if sum(ident.values()) != 14 or any(n % 2 for n in ident.values()):
        return []
    per_tile = []
    for x in sorted(ident):
        r, w = items[(x, False)], items[(x, True)]
        ways = []
        for mixed in range(min(r, w) + 1):
            if (r - mixed) % 2 == 0 and (w - mixed) % 2 == 0:
                ways.append([Group("pair", (x, x), (False, False))] * ((r - mixed) // 2)
                            + [Group("pair", (x, x), (False, True))] * mixed
                            + [Group("pair", (x, x), (True, True))] * ((w - mixed) // 2))
        per_tile.append(ways)
    return [tuple(sorted(g for part in combo for g in part)) for combo in product(*per_tile)]


def loose_shapes(t: Table, items: Counter[Item]) -> list[str]:
    ids = sorted(x for (x, _), n in items.items() for _ in range(n))
    real = [x for (x, w), n in items.items() for _ in range(n) if not w]
    melded = [x for g in t.melds for x in g.tiles]
    shapes = []
    s = t.tileset.shapes
    if s.orphans and all(is_terminal_or_honor(x) for x in ids + melded):
        shapes.append("orphans")
    if s.all_honors and all(x >= 27 for x in real + melded):
        shapes.append("all_honors")
    if t.melds or len(ids) != 14:
        return shapes
    if s.thirteen_orphans and set(ids) == set(ORPHAN_TILES):
        shapes.append("thirteen_orphans")
    if s.waves and len(set(ids)) == 14 and all(
            b - a >= 3 for a, b in pairwise(ids) if b < 27 and a // 9 == b // 9):
        shapes.append("waves")
    return shapes


def _place(t: Table, win: int | None, shape: str, groups: tuple[Group, ...],
           jokers: int) -> list[Reading]:
    ident = [0] * 34
    for g in groups:
        for x in g.tiles:
            ident[x] += 1
    if win is None:
        return [Reading(shape, groups, -1, jokers, tuple(ident))]
    out = []
    for i, g in enumerate(groups):
        if g.meld:
            continue
        if win in t.jokers:
            holds = any(g.wild) or any(x == win and not w for x, w in zip(g.tiles, g.wild, strict=True))
        else:
            holds = any(x == win and not w for x, w in zip(g.tiles, g.wild, strict=True))
        if holds:
            out.append(Reading(shape, groups, i, jokers, tuple(ident)))
    return out


def brute_readings(t: Table, hand: tuple[int, ...], win: int | None) -> list[Reading]:
    tiles = list(hand) + ([win] if win is not None else [])
    found: list[Reading] = []
    meld_jokers = sum(g.jokers for g in t.melds)
    for items in substitutions(t, tiles):
        jokers = sum(n for (_, w), n in items.items() if w) + meld_jokers
        for groups in standard_splits(items, t.tileset.shapes.honor_chows):
            found += _place(t, win, "standard", groups + t.melds, jokers)
        if not t.melds and t.tileset.shapes.seven_pairs:
            for groups in seven_pairs(items):
                found += _place(t, win, "seven_pairs", groups, jokers)
        for shape in loose_shapes(t, items):
            real = tuple(sorted(x for (x, w), n in items.items() for _ in range(n) if not w))
            wild = tuple(sorted(x for (x, w), n in items.items() for _ in range(n) if w))
            group = Group("loose", real + wild, (False,) * len(real) + (True,) * len(wild))
            found += _place(t, win, shape, (group, *t.melds), jokers)
    if t.tileset.missing_suit is not None:  # 缺一门
        found = [r for r in found if sum(1 for k in range(3) if any(r.identity[9 * k:9 * k + 9])) < 3]
    return found


def jokers_held(data: dict[str, Any]) -> int:
    """How many joker tiles the request's concealed hand holds (the reference's cost)."""
    t = read_request(data)
    return sum(1 for x in (*t.hand, *(() if t.win is None else (t.win,))) if x in t.jokers)


def brute_best(data: dict[str, Any]) -> int | None:
    """The most any reading of the hand collects, or None when no reading is a legal win."""
    import json

    t = read_request(data)
    hand, win = split_win(t, 14)
    ctx = _context(t, hand, win, t.req.by)
    rules = json.dumps(t.rules.model_dump(), sort_keys=True)
    best: int | None = None
    for r in brute_readings(t, hand, win):
        winner = {"seat": t.req.seat, **_shown(t.variant.tile_features(r, ctx))}
        value = _value(t.name, rules, t.req.by, t.req.seat, t.req.dealer, t.req.round_wind,
                       _kongs(t), json.dumps(winner, sort_keys=True))
        if not isinstance(value, ScoringError):
            best = value if best is None else max(best, value)
    return best


def refuse_tiles(variant: str, all_tiles: list[int], flowers: tuple[int, ...],
                 jokers: frozenset[int], rules: Any) -> None:
    """The first thing wrong with the tiles, in the order a player reads them: the tile check
    as `request` once stated it step by step beside a quick path (the oracle of its one check)."""
    v = get_variant(variant)
    tiles = v.tiles
    assert tiles is not None
    if flowers and not tiles.flowers:
        raise ScoringError("tiles", "{variant} plays without flowers", variant=variant)
    if len(set(flowers)) != len(flowers):
        raise ScoringError("tiles", "there is only one of each flower")
    if not tiles.honours:  # the suits only (and a fixed joker)
        for x in all_tiles:
            if x >= 27 and x not in jokers:
                raise v.refuse_tile(tile_name(x))  # in the style's words
    counts = [0] * 34
    for x in all_tiles:
        counts[x] += 1
    for x in sorted(set(all_tiles)):
        n = counts[x]
        if n > v.most_of(tile_name(x), rules):  # four of each, or as the style counts them
            raise v.refuse_count(tile_name(x), n, rules)
