"""The reader's handling of how a hand lies in a photo: a picture stretched out of shape is read
through a squeezed look (detect._squeezed), a pile close up tile by tile though the detector drew
one box over all of it (detect.SPANNED), and only the tiles by the hand's row are the hand's
(detect.by_the_row); flowers apart from the hand, one of each."""

from __future__ import annotations

import io
from collections import Counter
from pathlib import Path

import pytest
from PIL import Image

from bot.photo import detect as D
from bot.photo import read_tiles
from training.yolo import Labelled, photos

REAL = Path(__file__).with_name("real")


def real(stem: str) -> Labelled:
    """A held-out real photo (real/ATTRIBUTION.md): real5 a hand in a row with a flower beside it,
    real6 a pile of tiles lying askew, close up."""
    return next(p for p in photos(REAL) if p.image.stem == stem)


def real5() -> Labelled:
    return real("real5")


def stretched(photo: Labelled) -> bytes:
    """The photo's strip holding the hand, squeezed into a square as an app's export does: the
    tiles come out about six times taller than wide."""
    with Image.open(photo.image) as im:
        image = im.convert("RGB")
    top = min(b[1] for _, b in photo.tiles) * image.height
    bottom = max(b[3] for _, b in photo.tiles) * image.height
    pad = (bottom - top) * 0.3
    strip = image.crop((0, round(top - pad), image.width, round(bottom + pad)))
    assert strip.width / strip.height > 5
    out = io.BytesIO()
    strip.resize((640, 640)).save(out, "PNG")
    return out.getvalue()


def right(photo: Labelled, names: list[str]) -> int:
    return sum((Counter(photo.kinds + photo.flowers) & Counter(names)).values())


def test_a_stretched_picture_is_read_through_a_squeezed_look(monkeypatch: pytest.MonkeyPatch) -> None:
    photo = real5()
    data = stretched(photo)
    seen = read_tiles(data)
    assert right(photo, seen.names) >= 14 and len(seen.names) <= 16, seen.names
    monkeypatch.setattr(D, "SQUEEZES", ())  # without the squeezed looks, the tiles are lost
    assert right(photo, read_tiles(data).names) <= 5


def test_a_pile_close_up_is_read_tile_by_tile(monkeypatch: pytest.MonkeyPatch) -> None:
    """The detector draws one box over the whole pile; the locator's boxes inside it are read
    instead (measured: 11 of the 18 tiles right, nothing read that is not there; a riichi set,
    whose faces the models never saw; without the locator's boxes none)."""
    photo = real("real6")
    data = photo.image.read_bytes()
    seen = read_tiles(data, hand=False)
    assert right(photo, seen.names) >= 9 and len(seen.names) <= 18, seen.names
    monkeypatch.setattr(D, "SPANNED", 1000)  # the detector's box kept: it hides every tile
    assert right(photo, read_tiles(data, hand=False).names) <= 2


def _box(x: float, y: float, w: float = 40, h: float = 56) -> D.Box:
    return (x, y, x + w, y + h)


def test_the_hand_is_the_row_and_what_lies_by_it() -> None:
    row = [(_box(100 + 44 * i, 500), "1m", 0.9) for i in range(13)]
    meld = [(_box(100 + 44 * i, 580), "7z", 0.9) for i in range(3)]  # a pung put beside the row
    flower = (_box(60, 620), "5f", 0.8)
    wall = [(_box(100 + 44 * i, 200), "2p", 0.99) for i in range(4)]  # five tiles' lengths off
    tray = ((300, 500, 700, 800), "5z", 0.99)  # a white tray read as a white dragon: too large
    kept = D.by_the_row([*row, *meld, flower, *wall, tray])
    assert kept == [*row, *meld, flower]


def test_a_hand_keeps_one_of_each_flower_and_the_surest_tiles() -> None:
    tiles = [(_box(44 * i, 0), "1m", 0.5 + i / 100) for i in range(20)]
    flowers = [(_box(0, 100), "2f", 0.6), (_box(50, 100), "2f", 0.9), (_box(100, 100), "3f", 0.7)]
    kept = D.cap_hand([*tiles, *flowers])
    assert [f for f in kept if f[1] == "1m"] == sorted(tiles, key=lambda f: -f[2])[:18]
    assert [f[1:] for f in kept if f[1].endswith("f")] == [("2f", 0.9), ("3f", 0.7)]
