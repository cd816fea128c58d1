"""How well the reader reads real photographs: the held-out photos of the "Chinese Mahjong
Detection" set (training/yolo.py), each a hand of 13–18 of the 34 kinds, with the flowers and
seasons beside it (read as the very flower: 1f…8f). Per photo: the tiles read (as the
measure of tests/photo/measure.py: tiles right = the multiset intersection, corrections =
corrections_between, i.e. max(read, true) − in common), and localization alone: the labelled
boxes (flowers too) that some read box overlaps by IoU ≥ 0.5, whatever tile it was read as."""

from __future__ import annotations

import csv
import io
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass, replace
from pathlib import Path

from PIL import Image

from bot.photo import PhotoReading, read_tiles
from bot.photo.boxes import iou
from training.yolo import Labelled, photos

from .measure import Trial

IOU = 0.5
ERRATA = Path(__file__).with_name("real_errata.csv")
HAND = range(13, 19)  # tiles of the 34 kinds in a photo that counts as a hand


def hands(data: Path, splits: Iterable[str] = ("valid", "test")) -> list[Labelled]:
    """The photos of a hand in the held-out splits of the data set at `data`."""
    return [p for s in splits for p in photos(data / s) if len(p.kinds) in HAND]


def errata() -> dict[tuple[str, str, int], tuple[str, str]]:
    """(split, image name, line of its label file) → (tile labelled, tile the box holds)."""
    with ERRATA.open(newline="") as f:
        return {(r["split"], r["image"], int(r["line"])): (r["labelled"], r["seen"])
                for r in csv.DictReader(f)}


def corrected(photo: Labelled, fixes: dict[tuple[str, str, int], tuple[str, str]]) -> Labelled:
    """The photo with the errata's tiles in place of the wrong labels."""
    split = photo.image.parent.parent.name
    tiles = []
    for line, (kind, box) in enumerate(photo.tiles):
        fix = fixes.get((split, photo.image.name, line))
        if fix is not None:
            assert fix[0] == kind, (photo.image.name, line, kind, fix)
            kind = fix[1]
        tiles.append((kind, box))
    return replace(photo, tiles=tuple(tiles))


@dataclass(frozen=True)
class RealTrial:
    trial: Trial
    boxes: int  # labelled boxes (flowers included)
    found: int  # of them, overlapped by a read box


def localized(truth: list[tuple[float, float, float, float]], read: list[tuple[float, ...]]) -> int:
    """Labelled boxes matched one to one by a read box with IoU ≥ IOU (greedy, best pairs first)."""
    pairs = sorted(((iou(t, r), i, j) for i, t in enumerate(truth) for j, r in enumerate(read)), reverse=True)
    used_t: set[int] = set()
    used_r: set[int] = set()
    for score, i, j in pairs:
        if score < IOU:
            break
        if i not in used_t and j not in used_r:
            used_t.add(i)
            used_r.add(j)
    return len(used_t)


def real_trial(photo: Labelled, reader: Callable[[bytes], PhotoReading] = read_tiles) -> RealTrial:
    data = photo.image.read_bytes()
    start = time.perf_counter()
    read = reader(data)
    seconds = time.perf_counter() - start
    with Image.open(photo.image) as im:
        w, h = im.size
    boxes = [(d.box[0] / w, d.box[1] / h, d.box[2] / w, d.box[3] / h) for d in read.tiles]
    truth_boxes = [box for _, box in photo.tiles]
    trial = Trial("real", tuple(photo.kinds + photo.flowers), tuple(read.names), seconds,
                  tuple(read.uncertain), tuple(d.confidence for d in read.tiles))
    return RealTrial(trial, len(truth_boxes), localized(truth_boxes, boxes))


def turned(data: bytes, turn: Image.Transpose | None) -> bytes:
    """The photo turned (None: as it is), as a PNG: every tile in it lies sideways or upside down."""
    if turn is None:
        return data
    out = io.BytesIO()
    with Image.open(io.BytesIO(data)) as im:
        im.transpose(turn).save(out, "PNG")
    return out.getvalue()


def twelve_megapixels(photo: Labelled, runs: int) -> tuple[int, float, float]:
    """The photo blown up to a 12-megapixel JPEG: its size in bytes, and the mean seconds of
    `runs` readings of it and of the photo as it is (the baseline, in the same process), each
    after one to warm up."""
    with Image.open(photo.image) as im:
        big = im.convert("RGB").resize((4000, 3000))
    out = io.BytesIO()
    big.save(out, "JPEG", quality=90)
    data = out.getvalue()

    def mean(picture: bytes) -> float:
        read_tiles(picture)  # warm
        start = time.perf_counter()
        for _ in range(runs):
            read_tiles(picture)
        return (time.perf_counter() - start) / runs

    return len(data), mean(data), mean(photo.image.read_bytes())
