"""What of a photo's reading goes into a hand, by the style: one rule for the chat's keyboard
(wizard/reading.py) and the page (bot/web/api.py)."""

from __future__ import annotations

from dataclasses import dataclass, field

from scoring.variant import Variant

from .keyboard import BONUS


@dataclass(frozen=True)
class PhotoTiles:
    """What of a photo's reading goes into the keyboard: the hand's tiles, the flowers taken
    in (a style that plays them), and the flowers left out (a style that plays none)."""

    hand: list[str]
    flowers: list[str] = field(default_factory=list)
    left_out: list[str] = field(default_factory=list)

    @property
    def tiles(self) -> list[str]:
        """The keyboard's tiles: new_state puts the flowers apart from the hand."""
        return [*self.hand, *self.flowers]


def photo_tiles(v: Variant, names: list[str]) -> PhotoTiles:
    """A photo's tiles (PhotoReading.names) split for style `v`: its flowers (animals too,
    though the photo reads none) go into the hand where the style plays them, each once, as if
    tapped on their keys; elsewhere they are left out, so they never become hand tiles nor make
    the keyboard's Done refused."""
    tileset = v.tiles
    hand = [x for x in names if x not in BONUS]
    bonus = list(dict.fromkeys(x for x in names if x in BONUS))  # one of each, in reading order
    plays = {"f": bool(tileset and tileset.flowers), "a": bool(tileset and tileset.animals)}
    return PhotoTiles(hand, [x for x in bonus if plays[x[1]]],
                      [x for x in bonus if not plays[x[1]]])
