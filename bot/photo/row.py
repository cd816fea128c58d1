"""The row a hand lies in, and where in it the detector missed tiles. Pure geometry on boxes: a
hand is one row of tiles of nearly equal size and pitch, so a gap of k pitches between two found
tiles holds k − 1 missed ones, and the row may go on past either end. The reader (detect.py)
classifies each place proposed here and keeps those that hold a tile."""

from __future__ import annotations

import math
import statistics
from collections.abc import Sequence
from dataclasses import dataclass
from itertools import pairwise

from .boxes import Box, Point, centre

# The settings were chosen on the train split's photos (tests/bench/photo_train.py, every third:
# 848), by the tiles read right: 3 tiles 50.9%, 4 50.2%.
MIN_TILES = 3  # fewer found tiles than this tell no row (nor its pitch)
# A gap is k pitches when its length in pitches lies within this of the whole number k ≥ 2; one
# further off is the space players leave between sets. 0.4: 51.2%, 0.3: 50.9%, 0.2: 50.4%; 0.5
# (every gap of 1.5 pitches or more) 51.5% but fewer whole hands exact (15.0% against 15.7%).
GAP_SLACK = 0.4
# Tiles whose centres lie further than this (in pitches) off the row's line are not in it (a
# second row, a flower put aside); 0.35 and 0.8 read the same.
OFF_ROW = 0.5
MAX_TILES = 18  # the most tiles one row holds (a hand of four kongs); no proposals past it


@dataclass(frozen=True)
class Row:
    members: tuple[int, ...]  # positions in the boxes given, in order along the row
    direction: Point  # unit vector along the row
    pitch: float  # centre to centre, between neighbours
    size: tuple[float, float]  # a tile's box: median width and height


@dataclass(frozen=True)
class Proposals:
    gaps: list[Box]  # inside the row, between found tiles
    ends: tuple[list[Box], list[Box]]  # past the first tile, past the last: nearest first


def fit_row(boxes: Sequence[Box]) -> Row | None:
    """The row holding most of the boxes, or None under MIN_TILES boxes."""
    if len(boxes) < MIN_TILES:
        return None
    points = [centre(b) for b in boxes]
    direction = _direction(points)
    along = [_dot(p, direction) for p in points]
    across = [_dot(p, (-direction[1], direction[0])) for p in points]
    spacing = statistics.median(_nearest(points))
    # the largest group of centres lying on one line across the row's direction
    order = sorted(range(len(points)), key=lambda i: across[i])
    groups: list[list[int]] = [[order[0]]]
    for i, j in pairwise(order):
        if across[j] - across[i] > OFF_ROW * spacing:
            groups.append([])
        groups[-1].append(j)
    members = sorted(max(groups, key=len), key=lambda i: along[i])
    if len(members) < MIN_TILES:
        return None
    steps = [along[j] - along[i] for i, j in pairwise(members)]
    # each tile's nearer neighbour: a gap of missed tiles does not stretch the pitch
    near = [min(a, b) for a, b in zip([math.inf, *steps], [*steps, math.inf], strict=True)]
    pitch = statistics.median(near)
    if pitch <= 0:
        return None
    size = (statistics.median(boxes[i][2] - boxes[i][0] for i in members),
            statistics.median(boxes[i][3] - boxes[i][1] for i in members))
    return Row(tuple(members), direction, pitch, size)


def propose(boxes: Sequence[Box], row: Row, image: tuple[int, int]) -> Proposals:
    """The places in `row` (fitted to `boxes`) where a tile may have been missed, each a box of the
    row's tile size: evenly in every gap of about k pitches, then outward past both ends while
    inside `image` (width, height), up to MAX_TILES in the row."""
    points = [centre(boxes[i]) for i in row.members]
    room = MAX_TILES - len(points)
    gaps: list[Box] = []
    for (ax, ay), (bx, by) in pairwise(points):
        k = math.hypot(bx - ax, by - ay) / row.pitch
        n = round(k)
        if n >= 2 and abs(k - n) <= GAP_SLACK and len(gaps) + n - 1 <= room:
            gaps += [_box((ax + (bx - ax) * j / n, ay + (by - ay) * j / n), row.size) for j in range(1, n)]
    room -= len(gaps)
    ends: tuple[list[Box], list[Box]] = ([], [])
    for side, ((x, y), sign) in enumerate(((points[0], -1), (points[-1], 1))):
        dx, dy = sign * row.direction[0] * row.pitch, sign * row.direction[1] * row.pitch
        for j in range(1, room + 1):
            cx, cy = x + j * dx, y + j * dy
            if not (0 <= cx < image[0] and 0 <= cy < image[1]):
                break
            ends[side].append(_box((cx, cy), row.size))
    return Proposals(gaps, ends)


def _direction(points: Sequence[Point]) -> Point:
    """The unit vector the row runs along, pointing right (or down): the mean of the vectors from
    each centre to its nearest neighbour, taken on doubled angles (a vector and its reverse are one
    direction), so any turn of the photo is read alike."""
    cos2 = sin2 = 0.0
    for i, (x, y) in enumerate(points):
        j = min((k for k in range(len(points)) if k != i),
                key=lambda k: (points[k][0] - x) ** 2 + (points[k][1] - y) ** 2)
        angle = math.atan2(points[j][1] - y, points[j][0] - x)
        cos2 += math.cos(2 * angle)
        sin2 += math.sin(2 * angle)
    angle = math.atan2(sin2, cos2) / 2  # in (−90°, 90°]
    return math.cos(angle), math.sin(angle)


def _nearest(points: Sequence[Point]) -> list[float]:
    return [min(math.hypot(px - x, py - y) for k, (px, py) in enumerate(points) if k != i)
            for i, (x, y) in enumerate(points)]


def _dot(p: Point, d: Point) -> float:
    return p[0] * d[0] + p[1] * d[1]


def _box(c: Point, size: tuple[float, float]) -> Box:
    return c[0] - size[0] / 2, c[1] - size[1] / 2, c[0] + size[0] / 2, c[1] + size[1] / 2
