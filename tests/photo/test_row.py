"""The hand's row (bot/photo/row.py): its line, pitch and the places where the detector missed
tiles, on synthetic boxes at any turn; and, end to end on generated photos, that a tile the
detector misses is read after all while the table past the row's ends gives no tiles."""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

import pytest

from bot.photo import detect, read_tiles
from bot.photo.boxes import Box, centre
from bot.photo.row import MAX_TILES, MIN_TILES, Row, fit_row, propose
from tests.photo.render import Scene, random_hand, render

W, H, PITCH = 40.0, 54.0, 42.0  # a tile's box and the row's pitch, in pixels
IMAGE = (2000, 2000)


def row_boxes(n: int, angle: float, origin: tuple[float, float] = (1000, 1000)) -> list[Box]:
    """n tile boxes in a row turned by `angle` degrees about `origin` (its middle)."""
    dx, dy = math.cos(math.radians(angle)) * PITCH, math.sin(math.radians(angle)) * PITCH
    first = (n - 1) / 2
    return [(origin[0] + (i - first) * dx - W / 2, origin[1] + (i - first) * dy - H / 2,
             origin[0] + (i - first) * dx + W / 2, origin[1] + (i - first) * dy + H / 2) for i in range(n)]


def near(a: Box, b: Box) -> bool:
    return math.dist(centre(a), centre(b)) < 1e-6


def fitted(boxes: list[Box]) -> Row:
    row = fit_row(boxes)
    assert row is not None
    return row


@pytest.mark.parametrize("angle", [0, 12, -30, 45, -45, 90, 135])
def test_a_turned_row_gets_its_line_pitch_and_missed_tiles_back(angle: float) -> None:
    full = row_boxes(14, angle)
    missed = {0, 6, 7}  # the first tile and two side by side
    found = [b for i, b in enumerate(full) if i not in missed]
    row = fitted(found)
    assert row.pitch == pytest.approx(PITCH)
    assert abs(row.direction[0] * math.cos(math.radians(angle))
               + row.direction[1] * math.sin(math.radians(angle))) == pytest.approx(1)
    assert row.size == pytest.approx((W, H))
    assert len(row.members) == len(found)
    places = propose(found, row, IMAGE)
    assert len(places.gaps) == 2
    assert all(any(near(g, full[i]) for g in places.gaps) for i in (6, 7))
    # outward from both ends, nearest first; one of them starts where the first tile lies
    firsts = [end[0] for end in places.ends]
    assert any(near(f, full[0]) for f in firsts)
    assert all(len(end) == MAX_TILES - len(found) - 2 for end in places.ends)  # the image is large


def test_the_ends_stop_at_the_image_edge() -> None:
    found = row_boxes(13, 0, origin=(300, 100))  # the row spans 48…552 of 600 pixels
    places = propose(found, fitted(found), (600, 200))
    assert places.gaps == []
    assert [len(end) for end in places.ends] == [1, 1]
    assert all(0 <= centre(end[0])[0] < 600 for end in places.ends)


def test_a_space_between_sets_is_no_missed_tile() -> None:
    """Players leave about half a tile between sets: 1.5 pitches is not a whole number of them."""
    left = row_boxes(6, 0, origin=(500, 500))
    right = [(x1 + 6 * PITCH + PITCH / 2, y1, x2 + 6 * PITCH + PITCH / 2, y2) for x1, y1, x2, y2 in left]
    found = left + right
    assert propose(found, fitted(found), IMAGE).gaps == []


def test_a_second_row_is_not_part_of_the_hands_row() -> None:
    hand = row_boxes(12, 0, origin=(1000, 1000))
    melds = row_boxes(5, 0, origin=(1000, 1000 + 2 * H))
    row = fitted(hand + melds)
    assert sorted(row.members) == list(range(12))


def test_too_few_tiles_tell_no_row_and_a_full_row_wants_no_more() -> None:
    assert fit_row(row_boxes(MIN_TILES - 1, 0)) is None
    full = row_boxes(MAX_TILES, 0)
    places = propose(full, fitted(full), IMAGE)
    assert places.gaps == [] and places.ends == ([], [])


# ------------------------------------------------------------------ on generated photos


def dropping(keep: Callable[[list[Any]], list[Any]], monkeypatch: pytest.MonkeyPatch) -> None:
    """Make the detector's box finder return only `keep` of what it finds."""
    original = detect._locate  # the seam under test: where the boxes come from
    monkeypatch.setattr(detect, "_locate", lambda *args: keep(original(*args)))


def test_a_tile_the_detector_missed_is_read_from_the_rows_gap(monkeypatch: pytest.MonkeyPatch) -> None:
    """The detector's box of one tile inside the row taken away (the one the classifier reads
    surest: this is about where to look, not how well the generated faces are read)."""
    data = render(Scene(random_hand(3), seed=3))
    whole = sorted(read_tiles(data).tiles, key=lambda d: d.box[0])
    assert len(whole) == 14, [d.tile for d in whole]
    gone = max(range(2, 12), key=lambda i: whole[i].confidence)

    def without_one_tile(found: list[Any]) -> list[Any]:
        by_x = sorted(found, key=lambda f: f[0][0])
        return by_x[:gone] + by_x[gone + 1:]

    dropping(without_one_tile, monkeypatch)
    read = sorted(read_tiles(data).tiles, key=lambda d: d.box[0])
    assert [d.tile for d in read] == [d.tile for d in whole]
    back, missed = read[gone], whole[gone]
    assert math.dist(centre(back.box), centre(missed.box)) < (missed.box[2] - missed.box[0]) / 3


def test_the_table_past_the_rows_ends_gives_no_tiles() -> None:
    """Five tiles in the middle of a wide cloth: every place proposed past the ends is cloth."""
    for cloth in ("green", "blue", "wood"):
        scene = Scene(("1m", "5p", "9s", "3z", "7z"), seed=1, margin=4.0, cloth=cloth)
        read = read_tiles(render(scene))
        assert len(read.tiles) == len(scene.tiles), (cloth, read.names)
        tiles_end = max(d.box[2] for d in read.tiles) - min(d.box[0] for d in read.tiles)
        assert tiles_end < 6 * scene.tile_width  # all of them on the five tiles, none on the cloth
