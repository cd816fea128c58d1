"""Train the photo reader's tile classifier (bot/photo/tiles.onnx) on crops of real photographs.

    python -m training.train_tiles DATA [--epochs N] [--out bot/photo/tiles.onnx]

DATA is the YOLO export of "Chinese Mahjong Detection" (Roboflow Universe, riichimahjongdetection,
version 4, CC BY 4.0; e.g. the `data/` folder of github.com/alanchoi00/mahjong_detection). Only its
train/ split is used, and of it only the photos made from a source photo that has no copy in
valid/ or test/ (Roboflow exported some sources into both): the reader's settings are chosen on
valid/, and test/ is read once at the end. Each labelled box gives one crop
(bot.photo.classify.crop) of its kind (a flower or season its own: 1f…8f); so does each place the locator
(bot/photo/locator.py, trained first) finds on a labelled box, and its places off every box give
NONE crops, as does one piece of table of tile size a photo. Training turns every crop by a
random quarter turn and shifts it a few pixels, with a little brightness and contrast change.
Fixed seed; PyTorch on the CPU (or a GPU when there is one); the result is exported to ONNX.
Needs the `train` extra (torch, onnx).
"""

from __future__ import annotations

import argparse
import math
import random
import time
from pathlib import Path

import numpy as np
import torch
from PIL import Image
from torch import nn

from bot.photo.boxes import Box, iou, same_tile
from bot.photo.classify import CLASSES, CROP_PX, NONE, crop
from bot.photo.locator import locate
from training.yolo import held_out_sources, photos

SEED = 24
SHIFT = 3  # pixels a crop moves either way in training, as a detector's box does
HARD_PEAK = 0.3  # the locator's places are taken down to this heat (more of its near misses)
MATCH = 0.5  # a place overlapping a labelled box this much (IoU) holds that box's tile
APART = 0.1  # a place overlapping every labelled box less than this holds none
OVERLAP_MOST = 0.3  # with --overlap, another crop covers up to this share of a crop, at one side
# With --tilt, each crop is made CONTEXT times wider each way (the tile's surroundings at the same
# scale), and TILTED of them are turned by a random angle before the middle is cut out.
CONTEXT = 2
TILTED = 0.5
ASPECT = 0.75  # a tile's width to its height: how much larger a turned tile's bounds are


def crops(data: Path, context: int = 1) -> tuple[np.ndarray, np.ndarray]:
    held_out = held_out_sources(data)
    rng = random.Random(SEED)
    xs: list[np.ndarray] = []
    ys: list[int] = []
    skipped = 0
    for photo in photos(data / "train"):
        if photo.source in held_out:
            skipped += 1
            continue
        with Image.open(photo.image) as im:
            image = im.convert("RGB")
        w, h = image.size
        labelled = [((x1 * w, y1 * h, x2 * w, y2 * h), kind) for kind, (x1, y1, x2, y2) in photo.tiles]
        pairs = labelled + _places(image, labelled) + _table(image, labelled, rng)
        xs += [crop(image, box, context) for box, _ in pairs]
        ys += [CLASSES.index(kind) for _, kind in pairs]
    print(f"{len(xs)} crops; {skipped} train photos left out (their source has a copy in valid/ or test/)")
    return np.stack(xs), np.array(ys, dtype=np.int64)


def _places(image: Image.Image, labelled: list[tuple[Box, str]]) -> list[tuple[Box, str]]:
    """The locator's places, as the reader crops them: off by a little from a labelled box (that
    box's tile), or on the table, a tile's edge or between two tiles (NONE); the doubtful left out."""
    out = []
    for box, _ in locate(image, peak=HARD_PEAK):
        overlap, kind = max(((iou(box, b), k) for b, k in labelled), default=(0.0, NONE))
        if overlap >= MATCH:
            out.append((box, kind))
        elif overlap < APART and not any(same_tile(box, b) for b, _ in labelled):
            out.append((box, NONE))
    return out


def _table(image: Image.Image, labelled: list[tuple[Box, str]], rng: random.Random) -> list[tuple[Box, str]]:
    """One piece of table (or of a tile's edge) the size of a tile, off every box, if one is found."""
    if not labelled:
        return []
    bw = float(np.median([b[2] - b[0] for b, _ in labelled]))
    bh = float(np.median([b[3] - b[1] for b, _ in labelled]))
    for _ in range(20):
        x, y = rng.uniform(0, image.width - bw), rng.uniform(0, image.height - bh)
        box = (x, y, x + bw, y + bh)
        if all(_overlap(box, b) < 0.25 for b, _ in labelled):
            return [(box, NONE)]
    return []


def _overlap(a: tuple[float, ...], b: tuple[float, ...]) -> float:
    """The share of `a` that `b` covers."""
    w = max(0.0, min(a[2], b[2]) - max(a[0], b[0]))
    h = max(0.0, min(a[3], b[3]) - max(a[1], b[1]))
    return w * h / ((a[2] - a[0]) * (a[3] - a[1]))


def network() -> nn.Module:
    def stage(cin: int, cout: int) -> list[nn.Module]:
        return [nn.Conv2d(cin, cout, 3, padding=1, bias=False), nn.BatchNorm2d(cout), nn.ReLU(inplace=True)]

    return nn.Sequential(
        *stage(3, 24), nn.MaxPool2d(2),  # 40 → 20
        *stage(24, 48), nn.MaxPool2d(2),  # → 10
        *stage(48, 96), *stage(96, 96), nn.MaxPool2d(2),  # → 5
        *stage(96, 192), nn.AdaptiveAvgPool2d(1), nn.Flatten(),
        nn.Dropout(0.2), nn.Linear(192, len(CLASSES)),
    )


def augment(batch: torch.Tensor, gen: torch.Generator, overlap: float = 0.0,
            tilt: float = 0.0) -> torch.Tensor:
    """A random quarter turn and shift of each crop, and brightness/contrast jitter (uint8 → 0…1);
    with `overlap`, that share of the crops also covered at one edge by another crop's, and with
    `tilt` (crops made CONTEXT times wider), TILTED of them turned up to that many degrees."""
    n = batch.shape[0]
    x = batch.float() / 255
    turns = torch.randint(0, 4, (n,), generator=gen)
    x = torch.stack([torch.rot90(x[i], int(turns[i]), (1, 2)) for i in range(n)])
    if tilt:
        x = tilted(x, gen, tilt)
    else:
        padded = nn.functional.pad(x, (SHIFT,) * 4)
        dx, dy = torch.randint(0, 2 * SHIFT + 1, (2, n), generator=gen)
        x = torch.stack([padded[i, :, dy[i]:dy[i] + CROP_PX, dx[i]:dx[i] + CROP_PX] for i in range(n)])
    if overlap:  # drawn only then: without it the draws, and so the model, are as before
        x = overlapped(x, gen, overlap)
    gain = 1 + (torch.rand(n, 1, 1, 1, generator=gen) - 0.5) * 0.4
    bias = (torch.rand(n, 1, 1, 1, generator=gen) - 0.5) * 0.2
    return (x * gain + bias).clamp(0, 1)


def tilted(x: torch.Tensor, gen: torch.Generator, degrees: float) -> torch.Tensor:
    """The middle CROP_PX² of crops made wider (CONTEXT), TILTED of them turned by up to
    `degrees` either way (with the quarter turns, 45 reaches every angle) and shrunk as a turned
    tile's bounds grow (the locator's box is those bounds), every one shifted up to SHIFT pixels:
    a tile lying askew, as on a mat or in a pile, with its real surroundings around it."""
    n = x.shape[0]
    angle = (torch.rand(n, generator=gen) * 2 - 1) * math.radians(degrees)
    angle = torch.where(torch.rand(n, generator=gen) < TILTED, angle, torch.zeros(n))
    cos, sin = angle.cos(), angle.sin()
    grow = torch.maximum(cos.abs() + ASPECT * sin.abs(), ASPECT * cos.abs() + sin.abs())
    shift = torch.randint(-SHIFT, SHIFT + 1, (2, n), generator=gen).float() * 2 / x.shape[-1]
    scale = grow * CROP_PX / x.shape[-1]  # output → input, in grid_sample's -1…1 coordinates
    theta = torch.stack([torch.stack([cos * scale, -sin * scale, shift[0]], 1),
                         torch.stack([sin * scale, cos * scale, shift[1]], 1)], 1)
    grid = nn.functional.affine_grid(theta, [n, 3, CROP_PX, CROP_PX], align_corners=False)
    return nn.functional.grid_sample(x, grid, mode="bilinear", padding_mode="zeros", align_corners=False)


def overlapped(x: torch.Tensor, gen: torch.Generator, share: float) -> torch.Tensor:
    """`share` of the crops covered from one side (a random one of four), over OVERLAP_MOST of
    the crop at most, by the far side of another crop of the batch: a neighbour lying over the
    edge of the tile in the box, as in a pile or a packed row. The label stays the box's."""
    n = x.shape[0]
    out = x.clone()
    hit = torch.rand(n, generator=gen) < share
    other = torch.randint(0, n, (n,), generator=gen)
    side = torch.randint(0, 4, (n,), generator=gen)
    depth = (torch.rand(n, generator=gen) * OVERLAP_MOST * CROP_PX).long() + 1
    for i in torch.nonzero(hit).flatten().tolist():
        d, j = int(depth[i]), int(other[i])
        near, far = slice(0, d), slice(CROP_PX - d, None)
        if side[i] == 0:  # from the left: the neighbour's right side
            out[i, :, :, near] = x[j, :, :, far]
        elif side[i] == 1:
            out[i, :, :, far] = x[j, :, :, near]
        elif side[i] == 2:  # from above: the neighbour's bottom
            out[i, :, near, :] = x[j, :, far, :]
        else:
            out[i, :, far, :] = x[j, :, near, :]
    return out


def train(x: np.ndarray, y: np.ndarray, epochs: int, batch: int = 128, overlap: float = 0.0,
          tilt: float = 0.0) -> nn.Module:
    torch.manual_seed(SEED)
    gen = torch.Generator().manual_seed(SEED)
    device = "cuda" if torch.cuda.is_available() else "cpu"
    model = network().to(device)
    opt = torch.optim.AdamW(model.parameters(), lr=3e-3, weight_decay=5e-4)
    steps = epochs * ((len(x) + batch - 1) // batch)
    sched = torch.optim.lr_scheduler.OneCycleLR(opt, max_lr=3e-3, total_steps=steps)
    xt, yt = torch.from_numpy(x), torch.from_numpy(y)
    loss_fn = nn.CrossEntropyLoss(label_smoothing=0.05)
    for epoch in range(epochs):
        model.train()
        order = torch.randperm(len(x), generator=gen)
        start, total, right = time.perf_counter(), 0.0, 0
        for i in range(0, len(x), batch):
            idx = order[i:i + batch]
            inputs, labels = augment(xt[idx], gen, overlap, tilt).to(device), yt[idx].to(device)
            out = model(inputs)
            loss = loss_fn(out, labels)
            opt.zero_grad()
            loss.backward()
            opt.step()
            sched.step()
            total += loss.item() * len(idx)
            right += int((out.argmax(1) == labels).sum())
        print(f"epoch {epoch + 1}/{epochs}: loss {total / len(x):.3f}, train accuracy {right / len(x):.3f}, "
              f"{time.perf_counter() - start:.0f} s", flush=True)
    return model.cpu().eval()


def export(model: nn.Module, out: Path) -> None:
    dummy = torch.zeros(1, 3, CROP_PX, CROP_PX)
    torch.onnx.export(model, (dummy,), str(out), input_names=["crops"], output_names=["logits"],
                      dynamic_axes={"crops": {0: "n"}, "logits": {0: "n"}}, opset_version=17, dynamo=False)
    print(f"wrote {out} ({out.stat().st_size / 1e6:.2f} MB)")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("data", type=Path)
    parser.add_argument("--epochs", type=int, default=12)
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--overlap", type=float, default=0.0,
                        help="this share of the crops also covered at one edge by another's")
    parser.add_argument("--tilt", type=float, default=0.0,
                        help=f"{TILTED:.0%} of the crops turned up to this many degrees")
    parser.add_argument("--out", type=Path, default=Path("bot/photo/tiles.onnx"))
    args = parser.parse_args()
    torch.set_num_threads(args.threads)
    random.seed(SEED)
    np.random.seed(SEED)
    start = time.perf_counter()
    x, y = crops(args.data, CONTEXT if args.tilt else 1)
    print(f"crops made in {time.perf_counter() - start:.0f} s")
    model = train(x, y, args.epochs, overlap=args.overlap, tilt=args.tilt)
    export(model, args.out)
    print(f"trained and exported in {time.perf_counter() - start:.0f} s")


if __name__ == "__main__":
    main()
