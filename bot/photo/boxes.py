"""Boxes on a photo, as the reader's parts draw them: (x1, y1, x2, y2) in pixels, their centre,
their overlap, and when two boxes are one tile."""

from __future__ import annotations

from collections.abc import Sequence

Box = tuple[float, float, float, float]  # x1, y1, x2, y2
Point = tuple[float, float]
OVERLAP = 0.4  # IoU over which two boxes (two looks, two models) are one tile


def centre(box: Sequence[float]) -> Point:
    return (box[0] + box[2]) / 2, (box[1] + box[3]) / 2


def iou(a: Sequence[float], b: Sequence[float]) -> float:
    """Intersection over union of two (x0, y0, x1, y1) boxes."""
    w = min(a[2], b[2]) - max(a[0], b[0])
    h = min(a[3], b[3]) - max(a[1], b[1])
    if w <= 0 or h <= 0:
        return 0.0
    inter = w * h
    return inter / ((a[2] - a[0]) * (a[3] - a[1]) + (b[2] - b[0]) * (b[3] - b[1]) - inter)


def holds(outer: Sequence[float], inner: Sequence[float]) -> bool:
    """`inner`'s centre lies in `outer`."""
    cx, cy = centre(inner)
    return outer[0] <= cx <= outer[2] and outer[1] <= cy <= outer[3]


def same_tile(a: Sequence[float], b: Sequence[float]) -> bool:
    """Two boxes of one tile: they overlap over OVERLAP, or either's centre lies in the other
    (two models draw a tilted tile's box differently; a large tile may light two centres)."""
    return iou(a, b) > OVERLAP or holds(a, b) or holds(b, a)


def spans_several(box: Sequence[float], tiles: Sequence[Sequence[float]], most: int) -> bool:
    """`box` holds the centres of more than `most` of `tiles`: it is drawn around several tiles,
    not one."""
    return sum(holds(box, t) for t in tiles) > most
