"""Tile model and the notation parser (shared/spec/tiles.md).

A tile is an index 0–33: 0–8 万 (m), 9–17 筒 (p), 18–26 条 (s), 27–33 东南西北白发中 (z).
Flowers (Hainan) are kept apart as 0–7 = 春夏秋冬梅兰菊竹.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from ..errors import ScoringError

SUITS = "mps"
HONORS = "东南西北白发中"
FLOWERS = "春夏秋冬梅兰菊竹"
N_TILES = 34
EAST, RED = 27, 33
ORPHAN_TILES = (0, 8, 9, 17, 18, 26, 27, 28, 29, 30, 31, 32, 33)  # 1 and 9 of each suit, honours
_HONOR_CHARS = {**{c: 27 + i for i, c in enumerate(HONORS)},
                **{c: 27 + i for i, c in enumerate("東南西北白發中")}}
_FLOWER_CHARS = {**{c: i for i, c in enumerate(FLOWERS)}, "蘭": 5}
_NUMERALS = {c: i for i, c in enumerate("一二三四五六七八九")}
_SUIT_CHARS = {"万": 0, "萬": 0, "筒": 1, "饼": 1, "餅": 1, "条": 2, "條": 2, "索": 2}
_SUIT_LETTERS = {"m": 0, "p": 1, "s": 2}


def tile_name(t: int) -> str:
    """`5m`, `7z` …: the compact mps name of a tile index."""
    if t >= 27:
        return f"{t - 26}z"
    return f"{t % 9 + 1}{SUITS[t // 9]}"


def suit_of(t: int) -> int:
    """0 m, 1 p, 2 s, 3 honours."""
    return t // 9


def rank_of(t: int) -> int:
    return t % 9 + 1


def is_terminal_or_honor(t: int) -> bool:
    return t >= 27 or t % 9 in (0, 8)


def next_tile(t: int) -> int:
    """The tile after `t` in indicator order: 9 → 1 in a suit, E→S→W→N→E, 中→发→白→中."""
    if t < 27:
        return t - t % 9 + (t % 9 + 1) % 9
    if t < 31:
        return 27 + (t - 27 + 1) % 4
    return {33: 32, 32: 31, 31: 33}[t]


def group_text(tiles: list[int] | tuple[int, ...]) -> str:
    """Compact notation of a few tiles: (0, 1, 2) → `123m`, (27, 27) → `11z`."""
    out, run, suit = "", "", None
    for t in sorted(tiles):
        s = "mpsz"[t // 9] if t < 27 else "z"
        if suit is not None and s != suit:
            out += run + suit
            run = ""
        suit = s
        run += str(t - 26 if t >= 27 else t % 9 + 1)
    return out + (run + suit if suit else "")


@dataclass(frozen=True)
class RawMeld:
    """A bracketed meld as written: its tiles (jokers not yet known) and whether it is a
    concealed kong `[(5555p)]`."""

    tiles: tuple[int, ...]
    concealed: bool


@dataclass(frozen=True)
class TileString:
    """A parsed tile string: the concealed tiles (the winning tile not among them), the melds,
    the winning tile when given after `+`, and the flowers."""

    hand: tuple[int, ...]
    melds: tuple[RawMeld, ...]
    win: int | None
    flowers: tuple[int, ...]


_RUN = re.compile(r"(?:[0-9]+[mpszf])+")
_GROUP = re.compile(r"[0-9]+[mpszf]")
_GROUP_TILES: dict[str, tuple[int, ...]] = {}
# the tile (or flower) each valid digit and letter name; others go through _numbered's errors
_NUMBERED = {**{(str(d), letter): 9 * k + d - 1 for k, letter in enumerate(SUITS)
                for d in range(1, 10)},
             **{(str(d), "z"): 26 + d for d in range(1, 8)},
             **{(str(d), "f"): d - 1 for d in range(1, 9)}}


class _Reader:
    def __init__(self, text: str) -> None:
        self.text = text
        self.pos = 0

    def tiles(self, stop: str) -> tuple[list[int], list[int]]:
        """Read tiles and flowers up to a character of `stop` (or the end)."""
        tiles: list[int] = []
        flowers: list[int] = []
        digits = ""
        text = self.text
        run = _RUN.match(text, self.pos)
        if run:  # the common case, digits then their letter, read at C speed
            for group in _GROUP.findall(run.group()):
                got = _GROUP_TILES.get(group)
                if got is None:
                    got = self._group(group)
                if group[-1] == "f":
                    flowers += got
                else:
                    tiles += got
            self.pos = run.end()
        while self.pos < len(text) and text[self.pos] not in stop:
            c = text[self.pos]
            self.pos += 1
            if c.isspace():
                continue
            if c in "0123456789":
                digits += c
                continue
            if c in "mpszf":
                if not digits:
                    raise ScoringError("tiles", "'{letter}' at position {at} has no digits before it",
                                    letter=c, at=self.pos)
                for d in digits:
                    self._numbered(int(d), c, tiles, flowers)
                digits = ""
                continue
            if digits:
                raise ScoringError("tiles", "the digits {digits} before position {at} need a suit letter "
                                "(m, p, s, z or f)", digits=digits, at=self.pos)
            if c in _HONOR_CHARS:
                tiles.append(_HONOR_CHARS[c])
            elif c in _FLOWER_CHARS:
                flowers.append(_FLOWER_CHARS[c])
            elif c in _NUMERALS:
                tiles.append(self._chinese_suited(_NUMERALS[c]))
            elif c in "幺么" and text[self.pos:self.pos + 1] in ("鸡", "鷄", "雞"):
                self.pos += 1
                tiles.append(18)  # 幺鸡 = 1s
            else:
                raise ScoringError("tiles", "unknown tile character '{char}' at position {at}", char=c,
                                at=self.pos)
        if digits:
            raise ScoringError("tiles", "the digits {digits} at the end need a suit letter (m, p, s, z or f)",
                            digits=digits)
        return tiles, flowers

    def _group(self, group: str) -> tuple[int, ...]:
        """The tiles (or flowers) of digits and their letter, like `123m`; memoised, as the
        same few recur in every request."""
        letter = group[-1]
        got = []
        for d in group[:-1]:
            t = _NUMBERED.get((d, letter))
            if t is None:
                self._numbered(int(d), letter, [], [])  # raises
            got.append(t)
        if len(_GROUP_TILES) > 4096:
            _GROUP_TILES.clear()
        out = _GROUP_TILES[group] = tuple(got)  # type: ignore[arg-type]
        return out

    def _numbered(self, d: int, letter: str, tiles: list[int], flowers: list[int]) -> None:
        if letter == "f":
            if not 1 <= d <= 8:
                raise ScoringError("tiles", "flowers are 1f–8f (got {tile})", tile=f"{d}f")
            flowers.append(d - 1)
        elif letter == "z":
            if not 1 <= d <= 7:
                raise ScoringError("tiles", "honours are 1z–7z (got {tile})", tile=f"{d}z")
            tiles.append(26 + d)
        else:
            if d == 0:
                raise ScoringError("tiles", "suited tiles are 1–9 (got {tile})", tile=f"0{letter}")
            tiles.append(_SUIT_LETTERS[letter] * 9 + d - 1)

    def _chinese_suited(self, rank: int) -> int:
        suit = _SUIT_CHARS.get(self.text[self.pos:self.pos + 1])
        if suit is None:
            raise ScoringError("tiles", "'{char}' at position {at} must be followed by 万, 筒 or 条",
                            char=self.text[self.pos - 1], at=self.pos)
        self.pos += 1
        return suit * 9 + rank


def parse_tiles(text: str) -> TileString:
    """Parse the notation of tiles.md; `ScoringError` on field `tiles` for anything malformed.

    The winning tile after `+` may be one more tile (`…中+5m`, 13 + 1) or name one of the tiles
    already written (`…77s…+7s`, 14 with it); which one is decided by the count (see
    `analysis.split_win`)."""
    if not isinstance(text, str):
        raise ScoringError("tiles", "must be a string (got {value})", value=repr(text))
    r = _Reader(text)
    hand: list[int] = []
    flowers: list[int] = []
    melds: list[RawMeld] = []
    win: int | None = None
    while r.pos < len(text):
        tiles, more_flowers = r.tiles("[]+()")
        hand += tiles
        flowers += more_flowers
        if r.pos >= len(text):
            break
        c = text[r.pos]
        r.pos += 1
        if c == "[":
            melds.append(_meld(r))
        elif c == "+":
            if win is not None:
                raise ScoringError("tiles", "only one winning tile may follow '+'")
            tiles, more_flowers = r.tiles("[]+()")
            if len(tiles) != 1 or more_flowers:
                raise ScoringError("tiles", "exactly one tile follows '+' (the winning tile)")
            win = tiles[0]
        else:
            raise ScoringError("tiles", "unexpected '{char}' at position {at}", char=c, at=r.pos)
    return TileString(tuple(hand), tuple(melds), win, tuple(flowers))


def _meld(r: _Reader) -> RawMeld:
    concealed = r.text[r.pos:r.pos + 1] == "("
    if concealed:
        r.pos += 1
    tiles, flowers = r.tiles("[]+()")
    if flowers:
        raise ScoringError("tiles", "a flower cannot be part of a meld")
    if concealed:
        if r.text[r.pos:r.pos + 1] != ")":
            raise ScoringError("tiles", "a concealed kong is written [(5555p)]: ')' missing")
        r.pos += 1
        if len(tiles) != 4:
            raise ScoringError("tiles", "a concealed kong [(…)] has four tiles (got {count})",
                               count=len(tiles))
    if r.text[r.pos:r.pos + 1] != "]":
        raise ScoringError("tiles", "a meld opened with '[' is not closed with ']'")
    r.pos += 1
    if len(tiles) not in (3, 4):
        raise ScoringError("tiles", "a meld has three tiles (pung, chow) or four (kong); got {count}",
                     count=len(tiles))
    return RawMeld(tuple(tiles), concealed)
