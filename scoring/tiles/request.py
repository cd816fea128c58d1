"""Reading an `analyze` or `waits` request (docs/tiles.md): the fields, the variant's rules
and jokers, the tiles parsed and checked against the variant's tile set (`Variant.tiles`), each
bracketed meld resolved — every refusal named before any reading is searched."""

from __future__ import annotations

import json
from functools import lru_cache
from typing import Any, NamedTuple

from pydantic import Field

from ..errors import ScoringError, validated
from ..model import Seat, StrictModel, WinBy
from ..tileset import TileSet
from ..variant import Variant, get_variant
from .notation import (
    ANIMALS,
    FIRST_ANIMAL,
    N_TILES,
    RawMeld,
    next_tile,
    parse_tiles,
    read_tiles,
    tile_name,
)
from .reading import Group
from .tables import HONOR_CHOWS


class Request(StrictModel):
    variant: str
    rules: dict[str, Any] = Field(default_factory=dict)
    tiles: str
    by: WinBy = "self_draw"
    seat: Seat = 0
    dealer: Seat = 0
    indicator: str | None = None
    round_wind: int = Field(default=0, ge=0, le=3)


class Table(NamedTuple):
    """A request read and checked: the variant, its rules, the jokers and the tiles. (A named
    tuple, not a frozen dataclass: one is built per request, and that cost a microsecond.)"""

    req: Request
    variant: Variant
    rules: Any
    jokers: frozenset[int]
    hand: tuple[int, ...]  # concealed tiles, the winning tile not among them
    melds: tuple[Group, ...]
    win: int | None
    flowers: tuple[int, ...]
    rules_json: str  # the rules as sorted JSON

    @property
    def name(self) -> str:
        return self.variant.name

    @property
    def tileset(self) -> TileSet:
        """The variant's tile set (a table is read only for a variant that has one)."""
        tiles = self.variant.tiles
        assert tiles is not None
        return tiles


def own_engine(data: Any) -> Variant | None:
    """The variant a request names, when it reads its tiles with its own engine."""
    if isinstance(data, dict) and isinstance(data.get("variant"), str):
        variant = get_variant(data["variant"])
        return variant if variant.reads_own_tiles else None
    return None


def read_request(data: Any) -> Table:
    if not isinstance(data, dict):
        raise ScoringError("request", "a request must be a JSON object")
    name = data.get("variant")
    if not isinstance(name, str):
        raise ScoringError("variant", "is required")
    variant = get_variant(name)
    if variant.tiles is None:
        raise ScoringError("variant", "{variant} reads no tiles: enter the winner's features",
                           variant=variant.name)
    req = validated(Request, data)
    rules, rules_json = _read_rules(variant, req.rules)
    jokers = _jokers(variant, req.indicator)
    hand, raw, win, flowers = read_tiles(req.tiles)
    _check_tiles(variant, hand, raw, win, flowers, jokers, rules)
    if raw:
        chows, honor_chows = variant.tiles.chows, variant.tiles.shapes.honor_chows
        melds = tuple([_meld(variant.name, m.tiles, m.concealed, jokers, chows, honor_chows)
                       for m in raw])
    else:
        melds = ()
    return Table(req, variant, rules, jokers, hand, melds, win, flowers, rules_json)


_RULES: dict[tuple, tuple[Any, str]] = {}


def _read_rules(variant: Variant, data: dict[str, Any]) -> tuple[Any, str]:
    """The variant's rules read from the request, and as sorted JSON (the value memo's key).
    Memoised on the rules as given (types included: 8.0 is not 8 to the strict model), as a
    table sends the same few every time; a refusal is not kept."""
    ck: tuple | None = (variant.name, *[(k, type(v), v) for k, v in sorted(data.items())])
    try:
        got = _RULES.get(ck)
    except TypeError:  # a list or an object as a rule's value: read it each time
        ck = got = None
    if got is None:
        rules = variant.read_rules(data)
        got = (rules, _rules_json(rules))
        if ck is not None:
            if len(_RULES) > 256:
                _RULES.clear()
            _RULES[ck] = got
    return got


def turned_jokers(turned: int, steps: tuple[int, ...]) -> tuple[int, ...]:
    """The jokers a turned tile makes: each `steps` tiles after it in indicator order."""
    out = []
    for n in steps:
        tile = turned
        for _ in range(n):
            tile = next_tile(tile)
        out.append(tile)
    return tuple(out)


def joker_codes(variant: Variant, indicator: str | None) -> tuple[str, ...]:
    """The variant's jokers as tile codes ("7z"), in its declared order: its fixed ones, or
    those the turned tile `indicator` names (none while nothing is turned); () without."""
    jokers = variant.tiles.jokers if variant.tiles else None
    if jokers is None:
        return ()
    if jokers.fixed:
        return jokers.fixed
    if indicator is None:
        return ()
    return tuple(tile_name(x) for x in turned_jokers(parse_tiles(indicator).hand[0],
                                                     jokers.turned))


@lru_cache(maxsize=256)
def _jokers(variant: Variant, indicator: str | None) -> frozenset[int]:
    variant.check_indicator(indicator)
    jokers = variant.tiles.jokers if variant.tiles else None
    if jokers is None:
        return frozenset()
    if jokers.fixed:
        return frozenset(parse_tiles("".join(jokers.fixed)).hand)
    assert indicator is not None  # check_indicator asks for it
    ts = parse_tiles(indicator)
    if len(ts.hand) != 1 or ts.melds or ts.win is not None or ts.flowers:
        raise ScoringError("indicator", "the indicator is one tile, like \"9m\" or \"北\"")
    return frozenset(turned_jokers(ts.hand[0], jokers.turned))


def _check_tiles(variant: Variant, hand: tuple[int, ...], melds: tuple[RawMeld, ...],
                 win: int | None, flowers: tuple[int, ...], jokers: frozenset[int],
                 rules: Any) -> None:
    """The first thing wrong with the tiles, in the order a player reads them."""
    tileset = variant.tiles
    assert tileset is not None
    if flowers and not tileset.flowers:
        raise ScoringError("tiles", "{variant} plays without flowers", variant=variant.name)
    if not tileset.animals and any(f >= FIRST_ANIMAL for f in flowers):
        raise ScoringError("tiles", "{variant} plays without animals", variant=variant.name)
    if len(set(flowers)) != len(flowers):
        twice = sorted(f for f in set(flowers) if flowers.count(f) > 1)
        if twice[0] >= FIRST_ANIMAL:
            raise ScoringError("tiles", "there is only one of each animal (got {tile} twice)",
                               tile=ANIMALS[twice[0] - FIRST_ANIMAL])
        raise ScoringError("tiles", "there is only one of each flower")
    all_tiles = list(hand)  # as written
    for m in melds:
        all_tiles += m.tiles
    if win is not None:
        all_tiles.append(win)
    if not tileset.honours:
        for x in all_tiles:
            if x >= 27 and x not in jokers:
                raise variant.refuse_tile(tile_name(x))
    counts = [0] * N_TILES
    for x in all_tiles:
        counts[x] += 1
    for x, n in enumerate(counts):
        if n > 1 and n > variant.most_of(tile_name(x), rules):
            raise variant.refuse_count(tile_name(x), n, rules)


@lru_cache(maxsize=4096)
def _meld(variant: str, tiles: tuple[int, ...], concealed: bool, jokers: frozenset[int],
          chows: bool = True, honor_chows: bool = False) -> Group:
    """What a bracketed meld stands for: as written when that is a set, else jokers stand in."""
    text = "[" + "".join(tile_name(x) for x in tiles) + "]"
    kind = "kong" if len(tiles) == 4 else "pung"
    real = [x for x in tiles if x not in jokers]
    if len(set(tiles)) == 1:
        stands = (tiles[0],) * len(tiles)
        wild = (False,) * len(tiles)
    elif real and len(set(real)) == 1:
        stands = (real[0],) * len(tiles)
        wild = tuple(x != real[0] for x in tiles)
    else:
        stands, wild = _chow(tiles, jokers, honor_chows)
        kind = "chow"
        if not stands:
            raise ScoringError("tiles", "{meld} is not a pung, kong or chow", meld=text)
        if not chows:
            raise ScoringError("tiles", "{variant} has no chow, so {meld} cannot be a meld",
                               variant=variant, meld=text)
    return Group(kind, stands, wild, "concealed_kong" if concealed else "exposed")


_RUNS = frozenset((s, s + 1, s + 2) for s in range(27) if s % 9 <= 6)
_HONOR_RUNS = frozenset(((27, 28, 29), (27, 28, 30), (27, 29, 30), (28, 29, 30), (31, 32, 33)))


def _chow(tiles: tuple[int, ...], jokers: frozenset[int],
          honor_chows: bool) -> tuple[tuple[int, ...], tuple[bool, ...]]:
    if len(tiles) != 3:
        return (), ()
    natural_run = tuple(sorted(tiles))
    if natural_run in _RUNS or (honor_chows and natural_run in _HONOR_RUNS):
        return natural_run, (False, False, False)  # the common case: three tiles in a row
    runs = [(s, s + 1, s + 2) for s in range(27) if s % 9 <= 6]
    if honor_chows:
        runs += [tuple(27 + j for j in c) for c in HONOR_CHOWS]  # type: ignore[misc]
    for natural in (True, False):
        for run in runs:
            left = list(run)
            wild = []
            for x in sorted(tiles, key=lambda x: x in jokers):
                if x in left and (natural or x not in jokers):
                    left.remove(x)
                    wild.append(False)
                elif x in jokers and not natural:
                    wild.append(True)
                else:
                    break
            else:
                if natural and not left:
                    return run, (False, False, False)
                if not natural and len(wild) == 3:
                    return run, tuple(sorted(wild))
    return (), ()


def split_win(table: Table, want: int) -> tuple[tuple[int, ...], int | None]:
    """The concealed tiles without the winning tile, and that tile. The tile after `+` is one
    more tile when the rest count 13, and names one of them when they count 14."""
    n = len(table.hand) + 3 * len(table.melds)
    if table.win is None:
        if n != want:
            raise _count_error(n, want)
        return table.hand, None
    if want == 13:
        raise ScoringError("tiles", "a hand waiting for its tile has no winning tile: drop "
                           "the '+'")
    if n == 13:
        return table.hand, table.win
    if n == 14:
        if table.win not in table.hand:
            raise ScoringError("tiles", "the winning tile {tile} is not among the tiles",
                               tile=tile_name(table.win))
        rest = list(table.hand)
        rest.remove(table.win)
        return tuple(rest), table.win
    raise _count_error(n + 1, want)


def _count_error(n: int, want: int) -> ScoringError:
    if want == 14:
        return ScoringError("tiles", "{count} tiles (a kong counts as three) but a winning hand "
                            "has 14", count=n)
    return ScoringError("tiles", "{count} tiles (a kong counts as three) but a waiting hand "
                        "has 13", count=n)


@lru_cache(maxsize=256)
def _rules_json(rules: Any) -> str:
    """A variant's rules (a frozen model, so hashable) as sorted JSON."""
    return json.dumps(rules.model_dump(), sort_keys=True)


def clear_caches() -> None:
    """Empty this module's memos (`scoring.tiles.clear_caches`)."""
    _rules_json.cache_clear()
    _RULES.clear()
    _jokers.cache_clear()
    _meld.cache_clear()
