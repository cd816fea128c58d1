"""Tile model and the notation parser (docs/tiles.md).

A tile is an index 0–33: 0–8 万 (m), 9–17 筒 (p), 18–26 条 (s), 27–33 东南西北白发中 (z).
Flowers are kept apart as 0–7 = 春夏秋冬梅兰菊竹, and the animals after them as 8–11 = 猫鼠鸡蜈
(cat, mouse, rooster, centipede: Singapore's bonus tiles, `1a`–`4a`).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from itertools import chain
from typing import Any

from ..errors import ScoringError

SUITS = "mps"
HONORS = "东南西北白发中"
FLOWERS = "春夏秋冬梅兰菊竹"
ANIMALS = "猫鼠鸡蜈"  # bonus tiles 8–11, after the flowers
FIRST_ANIMAL = 8
N_TILES = 34
EAST, RED = 27, 33
ORPHAN_TILES = (0, 8, 9, 17, 18, 26, 27, 28, 29, 30, 31, 32, 33)  # 1 and 9 of each suit, honours
_HONOR_CHARS = {**{c: 27 + i for i, c in enumerate(HONORS)},
                **{c: 27 + i for i, c in enumerate("東南西北白發中")}}
_FLOWER_CHARS = {**{c: i for i, c in enumerate(FLOWERS)}, "蘭": 5,
                 **{c: FIRST_ANIMAL + i for i, c in enumerate(ANIMALS)},
                 "貓": 8, "雞": 10, "鷄": 10}
# the second character of an animal's two-character name, skipped: 老鼠, 公鸡, 蜈蚣
_ANIMAL_PREFIX = {"老": "鼠", "公": "鸡雞鷄"}
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


_RUN = re.compile(r"(?:[0-9]+[mpszfa])+")
_GROUP = re.compile(r"[0-9]+[mpszfa]")
# the memos of the pieces that recur from hand to hand, valid ones only: a digit group's tiles
# ("123m" → (0, 1, 2)), a bracketed meld as written but its "]" ("[(9999m)" → its RawMeld)
_GROUP_TILES: dict[str, tuple[int, ...]] = {}
_MELDS: dict[str, RawMeld] = {}
# the tile (or flower) each valid digit and letter name; others go through _numbered's errors
_NUMBERED = {**{(str(d), letter): 9 * k + d - 1 for k, letter in enumerate(SUITS)
                for d in range(1, 10)},
             **{(str(d), "z"): 26 + d for d in range(1, 8)},
             **{(str(d), "f"): d - 1 for d in range(1, 9)},
             **{(str(d), "a"): FIRST_ANIMAL + d - 1 for d in range(1, 5)}}


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
                if group[-1] in "fa":
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
            if c in "mpszfa":
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
                if c == "蜈" and text[self.pos:self.pos + 1] == "蚣":
                    self.pos += 1
            elif c in _ANIMAL_PREFIX and text[self.pos:self.pos + 1] and \
                    text[self.pos] in _ANIMAL_PREFIX[c]:
                continue  # 老鼠, 公鸡: the animal is the next character
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
        out = tuple(got)
        _remember(_GROUP_TILES, group, out)  # type: ignore[arg-type]
        return out  # type: ignore[return-value]

    def _numbered(self, d: int, letter: str, tiles: list[int], flowers: list[int]) -> None:
        if letter == "f":
            if not 1 <= d <= 8:
                raise ScoringError("tiles", "flowers are 1f–8f (got {tile})", tile=f"{d}f")
            flowers.append(d - 1)
        elif letter == "a":
            if not 1 <= d <= 4:
                raise ScoringError("tiles", "animals are 1a–4a: cat, mouse, rooster, centipede "
                                   "(got {tile})", tile=f"{d}a")
            flowers.append(FIRST_ANIMAL + d - 1)
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
    """Parse the notation of docs/tiles.md; `ScoringError` on field `tiles` for anything malformed.

    The winning tile after `+` may be one more tile (`…中+5m`, 13 + 1) or name one of the tiles
    already written (`…77s…+7s`, 14 with it); which one is decided by the count (see
    `request.split_win`)."""
    return TileString(*read_tiles(text))


def read_tiles(text: str) -> tuple[tuple[int, ...], tuple[RawMeld, ...], int | None,
                                   tuple[int, ...]]:
    """`parse_tiles` as a tuple (hand, melds, win, flowers), with the same refusals.

    The common form, digit groups and bracketed melds then at most one winning tile after `+`
    (no spaces, flowers or characters outside the melds), is read at C speed: the melds from
    the memo of those seen before, the digits from their bytes. Anything else, or a meld or
    group not seen yet, or anything wrong, goes through the reader, which fills the memo and
    names the first problem."""
    if type(text) is str:
        body, plus, win_text = text.partition("+")
        win = _ONE_TILE.get(win_text) if plus else None
        if win is not None or not plus:
            try:
                melds: tuple[RawMeld, ...] = ()
                if "[" in body:
                    at = body.index("[")
                    parts = body[at:].split("]")  # "[555p", "[(9999m)", "" as melds end it
                    if parts[-1]:  # tiles after a meld
                        parts = _MELD_TEXT.split(body)  # the melds at odd places
                        melds = tuple(map(_MELDS.__getitem__, parts[1::2]))
                        if not all(map(_HAND.fullmatch, parts[0::2])):  # each whole groups
                            return _read(text)  # ("1[555p]m" is no "1m")
                        body = "".join(parts[0::2])
                    else:
                        del parts[-1]
                        melds = tuple(map(_MELDS.__getitem__, parts))
                        body = body[:at]
                hand = _pairs(body)
                if hand is None and _HAND.fullmatch(body):
                    hand = tuple(chain.from_iterable(map(_GROUP_TILES.__getitem__,
                                                         _GROUP.findall(body))))
                if hand is not None:
                    return hand, melds, win, ()
            except KeyError:  # a meld or group not seen yet
                pass
    return _read(text)


_ONE_TILE = {tile_name(t): t for t in range(N_TILES)}  # "5m" → 4: a winning tile after `+`
_MELD_TEXT = re.compile(r"(\[[^]]*)\]")  # a meld's key in the memo: without its "]"
_HAND = re.compile(r"(?:[0-9]+[mpsz])*")
# each digit as its rank - 1, each suit letter as its first tile; anything else as 255
_RANK_BYTES = bytes(i - 49 if 49 <= i <= 57 else 255 for i in range(256))
_SUIT_BYTES = bytes({109: 0, 112: 9, 115: 18, 122: 27}.get(i, 255) for i in range(256))


def _pairs(body: str) -> tuple[int, ...] | None:
    """The tiles of a string of one-digit groups (`7z6p5p…`, as a photo or the keyboard
    writes them), or None when it is anything else. The ranks and the suits' first tiles are
    two big numbers, one byte a tile; their sum holds the tiles, no byte carrying (≤ 35)."""
    raw = body.encode()
    if len(raw) & 1:
        return None
    ranks = raw[0::2].translate(_RANK_BYTES)
    suits = raw[1::2].translate(_SUIT_BYTES)
    if 255 in ranks or 255 in suits:
        return None
    tiles = (int.from_bytes(ranks, "big") + int.from_bytes(suits, "big")).to_bytes(len(ranks), "big")
    if "8z" in body or "9z" in body:  # (a digit stands at an even place, a letter after it)
        return None
    return tuple(tiles)


def _read(text: str) -> tuple[tuple[int, ...], tuple[RawMeld, ...], int | None, tuple[int, ...]]:
    """The reader: any tile string, character by character where it must be."""
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
            start = r.pos - 1
            meld = _meld(r)
            melds.append(meld)
            _remember(_MELDS, text[start:r.pos - 1], meld)  # "[555p" (a "]" ends it)
        elif c == "+":
            if win is not None:
                raise ScoringError("tiles", "only one winning tile may follow '+'")
            tiles, more_flowers = r.tiles("[]+()")
            if len(tiles) != 1 or more_flowers:
                raise ScoringError("tiles", "exactly one tile follows '+' (the winning tile)")
            win = tiles[0]
        else:
            raise ScoringError("tiles", "unexpected '{char}' at position {at}", char=c, at=r.pos)
    return tuple(hand), tuple(melds), win, tuple(flowers)


def _remember(memo: dict[str, Any], text: str, piece: Any) -> None:
    if len(memo) > 4096:
        memo.clear()
    memo[text] = piece


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


def clear_caches() -> None:
    """Empty this module's memos (`scoring.tiles.clear_caches`)."""
    _GROUP_TILES.clear()
    _MELDS.clear()
