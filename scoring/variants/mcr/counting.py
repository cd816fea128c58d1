"""Counting a Chinese Official winning hand from its tiles, with PyMahjongGB.

PyMahjongGB (ailab-pku, MIT) is the GB fan calculator of the Botzone / IJCAI mahjong AI
contests: it splits the hand every way it can, applies the rulebook's principles (an element
implied by another is not counted, a set is not split, nor used twice the same way, the
highest-scoring reading wins) and returns the elements counted. This module owns everything
around it: reading the project's tile notation, refusing what is impossible (the library would
quietly drop a flag that cannot be), and naming what it found by the table's keys (`elements`).

It ships as source and compiles at install (the `mcr` extra, a C++ compiler); without it,
`available()` is false and a hand is entered as its elements or its total.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from ...errors import ScoringError
from .elements import ELEMENTS, MIXED_KONGS, Count, Element, at, ordered

try:  # built from source at install: absent where no compiler was at hand
    from MahjongGB import MahjongFanCalculator as _calculator
except ImportError:  # pragma: no cover - exercised by monkeypatching _calculator
    _calculator = None

# The command that works where the bot runs from its checkout (README.md): the package is not on
# a registry under its own name. The build needs a C++ compiler; README says how to tell.
HOW_TO_COUNT = "in the bot's folder: .venv/bin/pip install -e '.[mcr]', which needs g++"

# PyMahjongGB's own (simplified Chinese) name of each element → our key
_LIBRARY_NAMES = {**{names[1]: key for key, (_, names) in ELEMENTS.items()},
                  "独听・边张": "edge_wait", "独听・嵌张": "closed_wait", "独听・单钓": "single_wait",
                  "明暗杠": MIXED_KONGS}

# tile index (scoring.tiles.notation: 0–8 万, 9–17 筒, 18–26 条, 27–33 东南西北白发中) → the
# library's code: W 万, B 筒 (dots), T 条 (bamboo), F1–F4 winds, J1 中 J2 发 J3 白
CODES = ([f"W{r}" for r in range(1, 10)] + [f"B{r}" for r in range(1, 10)]
         + [f"T{r}" for r in range(1, 10)] + ["F1", "F2", "F3", "F4", "J3", "J2", "J1"])


def available() -> bool:
    """Whether tiles can be counted here: PyMahjongGB is installed."""
    return _calculator is not None


def not_installed(field: str) -> ScoringError:
    """The refusal of tiles where PyMahjongGB is missing: how to get it, and what to enter
    meanwhile."""
    return ScoringError(field, "counting from tiles needs PyMahjongGB, which is not installed "
                        "here ({how}); enter the hand's elements or its points instead",
                        how=HOW_TO_COUNT)


@dataclass(frozen=True)
class Situation:
    """How the hand was won, besides its tiles."""

    self_drawn: bool
    robbed_kong: bool = False  # 抢杠和
    after_kong: bool = False  # 杠上开花 (self-drawn kong replacement)
    fourth_tile: bool = False  # 和绝张: the other three of the winning tile were in view
    last_of_wall: bool = False  # 妙手回春 (self-drawn) / 海底捞月 (the last discard)
    seat_wind: int = 0  # 0–3 East…North
    prevailing_wind: int = 0
    flowers: int = 0


@dataclass(frozen=True)
class Tiles:
    """A winning hand read from the notation: concealed tiles (without the winning tile), the
    melds (tiles, concealed?), the winning tile and the flowers written in it."""

    hand: tuple[int, ...]
    melds: tuple[tuple[tuple[int, ...], bool], ...]
    win: int
    flowers: int


def read(text: Any, winner: str) -> Tiles:
    """The tiles of a winning hand in the project's notation (tiles.md): melds in brackets are
    melded, `[(5555p)]` a concealed kong, the winning tile after `+`. `ScoringError` at the
    `tiles` field of the object at `winner`."""
    from ...tiles.notation import group_text, read_tiles, tile_name  # loads when tiles come

    path = at(winner, "tiles")
    try:
        hand, melds, win, flowers = read_tiles(text)
    except ScoringError as exc:
        raise ScoringError(path, exc.template, **exc.params) from None
    if win is None:
        raise ScoringError(path, "give the winning tile after '+' (like 123m…+5m): the Chinese "
                           "Official rules count the wait and the winning tile")
    n = len(hand) + 3 * len(melds)
    if n == 14:  # the winning tile names one of the tiles written
        if win not in hand:
            raise ScoringError(path, "the winning tile {tile} is not among the tiles",
                               tile=tile_name(win))
        rest = list(hand)
        rest.remove(win)
        hand = tuple(rest)
    elif n != 13:
        raise ScoringError(path, "{count} tiles (a kong counts as three) but a winning hand has 14",
                           count=n + 1)
    counts = [0] * 34
    for x in (*hand, win, *(x for m in melds for x in m.tiles)):
        counts[x] += 1
    for x, c in enumerate(counts):
        if c > 4:
            raise ScoringError(path, "{count} of {tile}: there are only four of each tile",
                               count=c, tile=tile_name(x))
    if len(set(flowers)) != len(flowers):
        raise ScoringError(path, "there is only one of each flower")
    for m in melds:
        if len(set(m.tiles)) != 1 and not _is_chow(m.tiles):
            raise ScoringError(path, "{meld} is not a pung, kong or chow",
                               meld=f"[{group_text(m.tiles)}]")
    return Tiles(hand, tuple((m.tiles, m.concealed) for m in melds), win, len(flowers))


def _is_chow(tiles: tuple[int, ...]) -> bool:
    a, b, c = sorted(tiles) if len(tiles) == 3 else (0, 0, 0)
    return len(tiles) == 3 and c < 27 and a // 9 == c // 9 and (b, c) == (a + 1, a + 2)


def check(tiles: Tiles, how: Situation, winner: str) -> None:
    """What the tiles rule out: the flags PyMahjongGB would drop silently, refused instead."""
    from ...tiles.notation import tile_name

    held = sum(1 for x in tiles.hand if x == tiles.win) + 1  # the winning tile included
    in_melds = sum(1 for m, _ in tiles.melds for x in m if x == tiles.win)
    name = tile_name(tiles.win)
    if how.fourth_tile and held > 1:
        raise ScoringError(at(winner, "fourth_tile"), "the hand holds another {tile}, so the winning "
                           "{tile} is not the last one in view (和绝张)", tile=name)
    if how.robbed_kong and how.fourth_tile:
        raise ScoringError(at(winner, "fourth_tile"), "a robbed kong's tile is the fourth of its "
                           "kind already: 抢杠和 does not count 和绝张 too; leave fourth_tile off")
    if how.robbed_kong and how.last_of_wall:
        raise ScoringError(at(winner, "last_of_wall"), "a robbed kong's tile is neither the "
                           "wall's last tile nor the last discard; leave last_of_wall off")
    if how.robbed_kong and held + in_melds > 1:
        raise ScoringError(at(winner, "tiles"), "a robbed kong's tile is the fourth of its kind: the "
                           "winner cannot hold another {tile}", tile=name)
    if how.after_kong and not any(len(m) == 4 for m, _ in tiles.melds):
        raise ScoringError(at(winner, "tiles"), "a win on a kong's replacement tile (杠上开花) needs "
                           "the winner's kong among the melds, like [5555p] or [(5555p)]")


def library_input(tiles: Tiles, how: Situation) -> dict[str, Any]:
    """The calculator's arguments: packs ("PENG"/"GANG"/"CHI", tile, offer — 0 for a concealed
    kong, 1 for a melded set), the standing tiles, the winning tile and the flags."""
    packs = []
    for m, concealed in tiles.melds:
        if len(m) == 4:
            packs.append(("GANG", CODES[m[0]], 0 if concealed else 1))
        elif m[0] == m[1]:
            packs.append(("PENG", CODES[m[0]], 1))
        else:
            packs.append(("CHI", CODES[sorted(m)[1]], 1))
    return {"pack": tuple(packs), "hand": tuple(CODES[x] for x in tiles.hand),
            "winTile": CODES[tiles.win], "flowerCount": how.flowers,
            "isSelfDrawn": how.self_drawn, "is4thTile": how.fourth_tile,
            "isAboutKong": how.robbed_kong or how.after_kong, "isWallLast": how.last_of_wall,
            "seatWind": how.seat_wind, "prevalentWind": how.prevailing_wind}


def count(tiles: Tiles, how: Situation, winner: str, *, mixed_kongs: str = "together") -> Count:
    """The elements of a winning hand, counted by PyMahjongGB. `mixed_kongs`: "together" counts
    one concealed and one melded kong as 明暗杠 (5), "separate" as 暗杠 2 + 明杠 1."""
    if _calculator is None:
        raise not_installed(at(winner, "tiles"))
    check(tiles, how, winner)
    try:
        found = _calculator(**library_input(tiles, how), verbose=True)
    except TypeError as exc:  # the library reports every refusal as a TypeError with a code
        if str(exc) != "ERROR_NOT_WIN":
            raise  # the count and the tiles were checked above: anything else is a bug
        raise ScoringError(at(winner, "tiles"), "not a winning hand: these tiles make neither "
                           "four sets and a pair nor any special hand of the Chinese Official "
                           "rules") from None
    out: list[Element] = []
    for _points, times, name, _en in found:
        key = _LIBRARY_NAMES[name]
        if key == MIXED_KONGS and mixed_kongs == "separate":
            out += [Element("concealed_kong"), Element("melded_kong")]
        else:
            out.append(Element(key, times))
    return ordered(out)


