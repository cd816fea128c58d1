"""Which tile a box holds: a small CNN trained on crops of real photographs (training/
train_tiles.py; MODEL_CARD.md says on what), run with onnxruntime. Pure apart from loading the
model once. Its input is the box's square surroundings in colour, CROP_PX on a side; it knows the
34 kinds, the eight flowers and seasons (1f…8f: 春夏秋冬梅兰菊竹) and NONE (no tile).
It was trained on every box in all four quarter turns and reads each crop in all four (TURNS)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
from PIL import Image

from .models import model

CROP_PX = 48  # 40 read the 34 kinds as well, but a season's number and word are a few pixels
MARGIN = 1.1  # the square crop's side, in the box's longer side: a little of the tile's edge
NONE = "none"
FLOWERS: tuple[str, ...] = tuple(f"{n}f" for n in range(1, 9))
CLASSES: tuple[str, ...] = (*(f"{n}{s}" for s in "mps" for n in range(1, 10)),
                            *(f"{n}z" for n in range(1, 8)), *FLOWERS, NONE)
MODEL_PATH = Path(__file__).with_name("tiles.onnx")
# Each crop is read in this many quarter turns (1, 2 or 4), the probabilities averaged: with 4 a
# tile reads the same whichever way up it lies. Tuning split (tests/bench/photo_train.py
# --tuning): 1 turn 90.8% of the tiles right, 2 turns 91.1%, 4 turns 91.6%; a few ms a photo.
TURNS = 4


def crop(image: Image.Image, box: tuple[float, float, float, float], context: int = 1) -> np.ndarray:
    """The square around `box` (x1, y1, x2, y2 in the image's pixels) as CROP_PX² RGB, uint8,
    channels first; outside the image is black. `context` times that square each way, at the same
    scale (training turns such a crop and cuts the middle out of it)."""
    x1, y1, x2, y2 = box
    side = max(x2 - x1, y2 - y1) * MARGIN * context / 2
    cx, cy = (x1 + x2) / 2, (y1 + y2) / 2
    square = (round(cx - side), round(cy - side), round(cx + side), round(cy + side))
    px = CROP_PX * context
    out = image.convert("RGB").crop(square).resize((px, px), Image.BILINEAR)
    return np.asarray(out, dtype=np.uint8).transpose(2, 0, 1)


def classify(crops: np.ndarray) -> np.ndarray:
    """Class probabilities (N × len(CLASSES)) for N crops (N × 3 × CROP_PX × CROP_PX, uint8)."""
    if len(crops) == 0:
        return np.zeros((0, len(CLASSES)), dtype=np.float32)
    x = crops.astype(np.float32) / 255
    turned = np.concatenate([np.rot90(x, k, axes=(2, 3)) for k in range(TURNS)])
    logits = model(MODEL_PATH).run("crops", np.ascontiguousarray(turned))
    logits = logits - logits.max(axis=1, keepdims=True)
    p = np.exp(logits)
    p /= p.sum(axis=1, keepdims=True)
    return p.reshape(TURNS, len(crops), -1).mean(axis=0)
