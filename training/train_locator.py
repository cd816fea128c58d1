"""Train the photo reader's tile locator (bot/photo/locator.onnx): where the tiles of a photo are,
whatever tile each one is (the classifier, train_tiles.py, reads them).

    python -m training.train_locator DATA [--epochs N] [--out bot/photo/locator.onnx]

DATA as for train_tiles.py: only the train/ split, less the photos whose source photo has a copy
in valid/ or test/ (the reader's settings are chosen on valid/, test/ is read once at the end).
A small CenterNet-style network: the photo as a
SIZE×SIZE square (letterboxed), a heat map of tile centres at a quarter of that, and each
centre's box size and sub-cell offset.
Training shrinks each batch by a random factor onto a grey square (phone photos are letterboxed,
their hands smaller), turns it a random quarter turn and varies brightness and contrast. Fixed
seed; PyTorch on the CPU (or a GPU when there is one); exported to ONNX. The `train` extra.
"""

from __future__ import annotations

import argparse
import math
import random
import time
from pathlib import Path

import numpy as np
import torch
import torch.nn.functional as F
from PIL import Image
from torch import nn

from bot.photo.locator import GREY, SIZE, STRIDE, letterbox
from training.yolo import held_out_sources, photos

SEED = 24
Boxes = list[tuple[float, float, float, float]]  # x1, y1, x2, y2, relative to the square


def load(data: Path) -> tuple[torch.Tensor, list[Boxes]]:
    """The train photos as SIZE×SIZE RGB (uint8) and their tiles' boxes, flowers included (a
    flower is a tile on the table: the classifier leaves it out)."""
    held_out = held_out_sources(data)
    images, boxes = [], []
    for photo in photos(data / "train"):
        if photo.source in held_out or not photo.tiles:
            continue
        with Image.open(photo.image) as im:
            square = letterbox(im.convert("RGB"))[0]
        images.append(torch.from_numpy(np.array(square)).permute(2, 0, 1))
        boxes.append([b for _, b in photo.tiles])
    print(f"{len(images)} train photos")
    return torch.stack(images), boxes


class Locator(nn.Module):
    """Four stride-2 stages down to 1/16, back up to 1/4 with the skips added; three heads:
    centre heat map (1), log box size in cells (2), sub-cell offset (2)."""

    def __init__(self) -> None:
        super().__init__()

        def block(cin: int, cout: int, stride: int = 1) -> nn.Sequential:
            return nn.Sequential(nn.Conv2d(cin, cout, 3, stride, 1, bias=False), nn.BatchNorm2d(cout),
                                 nn.ReLU(inplace=True))

        self.s2 = nn.Sequential(block(3, 16, 2), block(16, 16))
        self.s4 = nn.Sequential(block(16, 32, 2), block(32, 32))
        self.s8 = nn.Sequential(block(32, 64, 2), block(64, 64))
        self.s16 = nn.Sequential(block(64, 96, 2), block(96, 96), block(96, 96))
        self.up8 = nn.Conv2d(96, 64, 1)
        self.up4 = nn.Conv2d(64, 32, 1)
        self.head = nn.Sequential(block(32, 32), nn.Conv2d(32, 5, 1))
        self.head[-1].bias.data[0] = -2.19  # a centre is rare: start the heat map low (p ≈ 0.1)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x4 = self.s4(self.s2(x))
        x8 = self.s8(x4)
        x16 = self.s16(x8)
        y8 = x8 + F.interpolate(self.up8(x16), scale_factor=2, mode="nearest")
        y4 = x4 + F.interpolate(self.up4(y8), scale_factor=2, mode="nearest")
        return self.head(y4)


def targets(batch_boxes: list[Boxes], cells: int) -> tuple[torch.Tensor, ...]:
    """Heat maps (Gaussian around each centre, 1 at its cell), and at each centre cell its log
    size and offset, with a mask of those cells."""
    n = len(batch_boxes)
    heat = torch.zeros(n, cells, cells)
    size = torch.zeros(n, 2, cells, cells)
    offset = torch.zeros(n, 2, cells, cells)
    mask = torch.zeros(n, cells, cells)
    ys, xs = torch.meshgrid(torch.arange(cells).float(), torch.arange(cells).float(), indexing="ij")
    for i, boxes in enumerate(batch_boxes):
        for x1, y1, x2, y2 in boxes:
            cx, cy = (x1 + x2) / 2 * cells, (y1 + y2) / 2 * cells
            w, h = (x2 - x1) * cells, (y2 - y1) * cells
            if not (0 <= cx < cells and 0 <= cy < cells) or w < 0.5 or h < 0.5:
                continue
            sx, sy = max(w / 6, 0.7), max(h / 6, 0.7)
            g = torch.exp(-((xs - cx + 0.5) ** 2 / (2 * sx * sx) + (ys - cy + 0.5) ** 2 / (2 * sy * sy)))
            heat[i] = torch.maximum(heat[i], g)
            c, r = int(cx), int(cy)
            heat[i, r, c] = 1.0
            size[i, :, r, c] = torch.tensor([math.log(w), math.log(h)])
            offset[i, :, r, c] = torch.tensor([cx - c, cy - r])
            mask[i, r, c] = 1.0
    return heat, size, offset, mask


def tilted(canvas: torch.Tensor, boxes: list[Boxes], degrees: float) -> tuple[torch.Tensor, list[Boxes]]:
    """The batch turned `degrees` about the square's centre, grey where it turns in from outside;
    each tile's box the upright bounds of its turned corners (as the data set boxes a tile lying
    askew), and the tiles whose centre leaves the square dropped."""
    a = math.radians(degrees)
    cos, sin = math.cos(a), math.sin(a)
    grey = GREY[0] / 255
    theta = torch.tensor([[cos, -sin, 0.0], [sin, cos, 0.0]]).expand(len(canvas), 2, 3)
    grid = F.affine_grid(theta, list(canvas.shape), align_corners=False)
    turned = F.grid_sample(canvas - grey, grid, mode="bilinear", align_corners=False) + grey
    out: list[Boxes] = []
    for bs in boxes:
        kept = []
        for x1, y1, x2, y2 in bs:
            # an output point p shows the input at R·p (centred, -1…1): a corner q goes to Rᵀ·q
            corners = [((2 * x - 1) * cos + (2 * y - 1) * sin, -(2 * x - 1) * sin + (2 * y - 1) * cos)
                       for x in (x1, x2) for y in (y1, y2)]
            us, vs = [(u + 1) / 2 for u, _ in corners], [(v + 1) / 2 for _, v in corners]
            cx, cy = (min(us) + max(us)) / 2, (min(vs) + max(vs)) / 2
            if 0 <= cx < 1 and 0 <= cy < 1:
                kept.append((max(0.0, min(us)), max(0.0, min(vs)), min(1.0, max(us)), min(1.0, max(vs))))
        out.append(kept)
    return turned, out


def augment(images: torch.Tensor, boxes: list[Boxes], gen: random.Random,
            tilt: float = 0.0) -> tuple[torch.Tensor, list[Boxes]]:
    """Shrink the batch onto a grey square at a random place, turn it a random quarter turn (and
    up to `tilt` degrees either way), and vary each photo's brightness and contrast."""
    x = images.float() / 255
    scale = gen.uniform(0.6, 1.0)
    side = max(32, int(SIZE * scale))
    dx, dy = gen.randint(0, SIZE - side), gen.randint(0, SIZE - side)
    canvas = torch.full_like(x, GREY[0] / 255)
    canvas[:, :, dy:dy + side, dx:dx + side] = F.interpolate(x, size=(side, side), mode="bilinear",
                                                             align_corners=False)
    f, ox, oy = side / SIZE, dx / SIZE, dy / SIZE
    moved = [[(ox + a * f, oy + b * f, ox + c * f, oy + d * f) for a, b, c, d in bs] for bs in boxes]
    k = gen.randrange(4)
    canvas = torch.rot90(canvas, k, dims=(2, 3))  # counter-clockwise, k times
    for _ in range(k):  # (x, y) → (y, 1 − x)
        moved = [[(b, 1 - c, d, 1 - a) for a, b, c, d in bs] for bs in moved]
    if tilt:  # drawn only then: without it the draws, and so the model, are as before
        canvas, moved = tilted(canvas, moved, gen.uniform(-tilt, tilt))
    n = len(boxes)
    contrast = torch.empty(n, 1, 1, 1).uniform_(0.7, 1.3)
    bright = torch.empty(n, 1, 1, 1).uniform_(-0.12, 0.12)
    mean = canvas.mean(dim=(1, 2, 3), keepdim=True)
    return ((canvas - mean) * contrast + mean + bright).clamp(0, 1), moved


def loss(out: torch.Tensor, heat: torch.Tensor, size: torch.Tensor, offset: torch.Tensor,
         mask: torch.Tensor) -> torch.Tensor:
    """CenterNet's: a focal loss on the heat map, L1 on size and offset at the centres."""
    p = torch.sigmoid(out[:, 0]).clamp(1e-4, 1 - 1e-4)
    pos = heat.eq(1).float()
    focal = -(pos * (1 - p) ** 2 * torch.log(p) + (1 - pos) * (1 - heat) ** 4 * p ** 2 * torch.log(1 - p))
    count = mask.sum().clamp(min=1)
    l1 = ((out[:, 1:3] - size).abs().sum(1) * mask).sum() + ((out[:, 3:5] - offset).abs().sum(1) * mask).sum()
    return focal.sum() / count + 0.5 * l1 / count


def train(images: torch.Tensor, boxes: list[Boxes], epochs: int, batch: int = 32,
          tilt: float = 0.0) -> nn.Module:
    torch.manual_seed(SEED)
    gen = random.Random(SEED)
    device = "cuda" if torch.cuda.is_available() else "cpu"
    model = Locator().to(device)
    steps = epochs * math.ceil(len(images) / batch)
    opt = torch.optim.AdamW(model.parameters(), lr=2e-3, weight_decay=1e-4)
    sched = torch.optim.lr_scheduler.OneCycleLR(opt, max_lr=4e-3, total_steps=steps, pct_start=0.15)
    cells = SIZE // STRIDE
    started = time.time()
    for epoch in range(epochs):
        order = list(range(len(images)))
        gen.shuffle(order)
        total = 0.0
        model.train()
        for at in range(0, len(order), batch):
            pick = order[at:at + batch]
            x, moved = augment(images[pick], [boxes[i] for i in pick], gen, tilt)
            heat, size, offset, mask = targets(moved, cells)
            out = model(x.to(device))
            value = loss(out, heat.to(device), size.to(device), offset.to(device), mask.to(device))
            opt.zero_grad()
            value.backward()
            opt.step()
            sched.step()
            total += value.item() * len(pick)
        print(f"epoch {epoch + 1}/{epochs}: loss {total / len(images):.3f}, {time.time() - started:.0f} s")
    return model.cpu().eval()


def export(model: nn.Module, out: Path) -> None:
    torch.onnx.export(model, torch.zeros(1, 3, SIZE, SIZE), str(out), input_names=["image"],
                      output_names=["maps"], opset_version=17, dynamo=False)
    print(f"wrote {out} ({out.stat().st_size / 1e6:.2f} MB)")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("data", type=Path)
    parser.add_argument("--epochs", type=int, default=16)
    parser.add_argument("--out", type=Path, default=Path("bot/photo/locator.onnx"))
    parser.add_argument("--tilt", type=float, default=0.0, help="turn each batch up to this many degrees")
    args = parser.parse_args()
    torch.set_num_threads(max(1, torch.get_num_threads()))
    images, boxes = load(args.data)
    export(train(images, boxes, args.epochs, tilt=args.tilt), args.out)


if __name__ == "__main__":
    main()
