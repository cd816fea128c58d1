"""Where the tiles of a photo are, whichever tiles they are: a small CenterNet-style network
trained on real photographs of Chinese-style hands (training/train_locator.py; MODEL_CARD.md says
on what), run with onnxruntime. It adds the places the `mahjong-detector` misses (it learned
Japanese tiles); the classifier (classify.py) then reads every place. Pure apart from loading the
model once."""

from __future__ import annotations

from pathlib import Path

import numpy as np
from PIL import Image

from .boxes import OVERLAP, Box, iou
from .models import model

SIZE = 256  # the network's input square
STRIDE = 4  # its heat map's cell, in input pixels
GREY = (114, 114, 114)  # the letterbox, as in training
MODEL_PATH = Path(__file__).with_name("locator.onnx")
# The least heat for a centre to count. Chosen on the train split's photos the locator was not
# trained on (tests/bench/photo_train.py --tuning, 369): 0.3 94.1% of the tiles right but a mean
# of 4.6 corrections a hand, 0.5 93.6% and 3.8, 0.6 92.8% and 3.7, 0.8 59.4%.
PEAK = 0.5


def letterbox(image: Image.Image) -> tuple[Image.Image, float]:
    """The image shrunk to fit SIZE×SIZE at the top left of a GREY square (as the network was
    trained: training/train_locator.py), and the factor it was shrunk by."""
    factor = SIZE / max(image.size)
    small = image.resize((max(1, round(image.width * factor)), max(1, round(image.height * factor))),
                         Image.BILINEAR)
    square = Image.new("RGB", (SIZE, SIZE), GREY)
    square.paste(small, (0, 0))
    return square, factor


def locate(image: Image.Image, peak: float | None = None) -> list[tuple[Box, float]]:
    """The tiles' boxes in `image` (RGB; x1, y1, x2, y2 in its pixels), each with its heat."""
    peak = PEAK if peak is None else peak
    square, factor = letterbox(image)
    x = np.asarray(square, dtype=np.float32).transpose(2, 0, 1)[None] / 255
    maps = model(MODEL_PATH).run("image", x)[0]
    heat = 1 / (1 + np.exp(-maps[0]))
    # a centre is a cell hotter than its eight neighbours
    padded = np.pad(heat, 1, constant_values=0)
    around = np.max([padded[dy:dy + heat.shape[0], dx:dx + heat.shape[1]]
                     for dy in range(3) for dx in range(3) if (dy, dx) != (1, 1)], axis=0)
    rows, cols = np.nonzero((heat >= peak) & (heat >= around))
    out: list[tuple[Box, float]] = []
    scale = STRIDE / factor
    for r, c in sorted(zip(rows.tolist(), cols.tolist(), strict=True), key=lambda rc: -heat[rc]):
        w, h = np.exp(maps[1, r, c]) * scale, np.exp(maps[2, r, c]) * scale
        cx, cy = (c + maps[3, r, c]) * scale, (r + maps[4, r, c]) * scale
        box = (float(cx - w / 2), float(cy - h / 2), float(cx + w / 2), float(cy + h / 2))
        # a large tile may light two centres; a neighbour's box may hold this one's centre, so
        # only overlap counts here (tuning split: 90.6% of tiles right; with centres, 82.8%)
        if not any(iou(box, kept) > OVERLAP for kept, _ in out):
            out.append((box, float(heat[r, c])))
    return out
