"""The "Chinese Mahjong Detection" photos (Roboflow Universe, workspace riichimahjongdetection,
version 4, CC BY 4.0) in their YOLO export: images/ and labels/ per split, one line a tile
(class, centre x, centre y, width, height, all relative). Pure PIL: the training script and the
real-photo measure (tests/photo/real.py, tests/bench/photo_accuracy.py) both read it.

The 42 classes, checked on crops of the photos: `sc` are the characters (m), `sd` the dots (p),
`sb` the bamboo (s, sb1 the bird), `hw` the winds (e s w n), `hd` the dragons (w = white,
g = green, r = red). `bs1-4` are the seasons 春夏秋冬 (red number and character on the face) and
`bf1-4` the flowers 梅兰菊竹 (blue ones: plum, orchid, chrysanthemum, bamboo), checked on the
largest crops of each (python -m training.flower_sheet DATA draws them): `1f`…`4f` and `5f`…`8f`
in the project's notation (docs/tiles.md).
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

NAMES = ("bs1 sc1 sd1 sb1 hwe bs2 sc2 sd2 sb2 hws bs3 sc3 sd3 sb3 hww bs4 sc4 sd4 sb4 hwn bf1 sc5 sd5 "
         "sb5 hdw bf2 sc6 sd6 sb6 hdg bf3 sc7 sd7 sb7 hdr bf4 sc8 sd8 sb8 sc9 sd9 sb9").split()
FLOWERS = tuple(f"{n}f" for n in range(1, 9))  # 春夏秋冬梅兰菊竹
_SUITS = {"sc": "m", "sd": "p", "sb": "s"}
_HONOURS = {"hwe": "1z", "hws": "2z", "hww": "3z", "hwn": "4z", "hdw": "5z", "hdg": "6z", "hdr": "7z"}
_BONUS = {"bs": 0, "bf": 4}  # seasons 1f…4f, flowers 5f…8f


def kind_of(name: str) -> str:
    """A dataset class name in the project's notation ("sc4" → "4m", "bf2" → "6f")."""
    if name in _HONOURS:
        return _HONOURS[name]
    if name[:2] in _SUITS:
        return name[2] + _SUITS[name[:2]]
    return f"{_BONUS[name[:2]] + int(name[2])}f"


def is_flower(kind: str) -> bool:
    return kind in FLOWERS


KINDS: tuple[str, ...] = tuple(kind_of(n) for n in NAMES)


@dataclass(frozen=True)
class Labelled:
    image: Path
    tiles: tuple[tuple[str, tuple[float, float, float, float]], ...]  # (kind, (x1, y1, x2, y2) relative)

    @property
    def source(self) -> str:
        """The photo this export was made from (Roboflow writes up to 3 augmented copies of each)."""
        return re.sub(r"\.rf\.[0-9a-f]+$", "", self.image.stem)

    @property
    def kinds(self) -> list[str]:
        """The hand's tiles of the 34 kinds (flowers apart)."""
        return [k for k, _ in self.tiles if not is_flower(k)]

    @property
    def flowers(self) -> list[str]:
        """The flowers and seasons in the photo."""
        return [k for k, _ in self.tiles if is_flower(k)]


def photos(split_dir: Path) -> Iterator[Labelled]:
    """The labelled photos of one split (e.g. data/valid), in name order."""
    for label in sorted((split_dir / "labels").glob("*.txt")):
        tiles = []
        for line in label.read_text().splitlines():
            parts = line.split()
            if len(parts) != 5:  # a polygon or an empty line: none in this export, but skip them
                continue
            x, y, w, h = map(float, parts[1:])
            tiles.append((KINDS[int(parts[0])], (x - w / 2, y - h / 2, x + w / 2, y + h / 2)))
        images = list((split_dir / "images").glob(label.stem + ".*"))
        if images:
            yield Labelled(images[0], tuple(tiles))


SOURCES = {  # the families of source photos, by their file names (docs/photo.md)
    "table": "IMG_2023…: a set packed in rows in its black tray, or on a wooden table, from above",
    "red mat": "IMG_27…: a riichi set's tiles piled on a red mat, close up, overlapping (valid/ only)",
    "messenger": "…_n: photos sent over Messenger, mostly a row of standing tiles on a green mat",
    "hand": "hand_…: a hand laid in a row on a green mat, shot from the side or above",
    "screenshot": "Screenshot-…: close-ups from a screen, stretched tall by the export",
    "other": "the rest (train only): sets and piles on tables, at every angle",
}


def family(source: str) -> str:
    """The family (a key of SOURCES) of a source photo, by its file name."""
    if source.startswith("IMG_2023"):
        return "table"
    if source.startswith("IMG_"):
        return "red mat"
    if re.match(r"\d+_\d+_\d+_n_", source):
        return "messenger"
    if source.startswith("hand_"):
        return "hand"
    if source.startswith("Screenshot"):
        return "screenshot"
    return "other"


def held_out_sources(data: Path) -> set[str]:
    """The source photos of the valid/ and test/ splits: their copies in train/ are never trained
    on (Roboflow exported some sources into both)."""
    return {p.source for s in ("valid", "test") for p in photos(data / s)}
