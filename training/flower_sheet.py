"""Draw the flowers and seasons of the training photos side by side, to check by eye which of the
data set's classes is which (training/yolo.py: bs1-4 → 1f…4f 春夏秋冬, bf1-4 → 5f…8f 梅兰菊竹).

    python -m training.flower_sheet DATA [--out flowers.png]

One row per class, the six largest boxes of six different source photos, each cropped with its
surroundings (a tile's number and word are legible at that size).
"""

from __future__ import annotations

import argparse
from pathlib import Path

from PIL import Image, ImageDraw

from training.yolo import NAMES, photos

CLASSES = ("bs1", "bs2", "bs3", "bs4", "bf1", "bf2", "bf3", "bf4")
SIDE = 160  # pixels a crop
PER_ROW = 6


def sheet(data: Path) -> Image.Image:
    Box = tuple[float, float, float, float]  # centre x, centre y, width, height (relative)
    by_class: dict[str, list[tuple[float, Path, Box]]] = {c: [] for c in CLASSES}
    for photo in photos(data / "train"):
        for line in (data / "train" / "labels" / f"{photo.image.stem}.txt").read_text().splitlines():
            parts = line.split()
            if len(parts) == 5 and NAMES[int(parts[0])] in by_class:
                x, y, w, h = map(float, parts[1:])
                by_class[NAMES[int(parts[0])]].append((w * h, photo.image, (x, y, w, h)))
    out = Image.new("RGB", (40 + PER_ROW * SIDE, len(CLASSES) * SIDE), "white")
    draw = ImageDraw.Draw(out)
    for row, name in enumerate(CLASSES):
        draw.text((2, row * SIDE + SIDE // 2), name, fill="black")
        sources: set[str] = set()
        for _, image, (x, y, w, h) in sorted(by_class[name], key=lambda c: -c[0]):
            source = image.name.split(".rf.")[0]
            if source in sources:
                continue
            sources.add(source)
            with Image.open(image) as im:
                pic = im.convert("RGB")
            half = max(w * pic.width, h * pic.height) * 0.55
            cx, cy = x * pic.width, y * pic.height
            tile = pic.crop((round(cx - half), round(cy - half), round(cx + half), round(cy + half)))
            out.paste(tile.resize((SIDE, SIDE)), (40 + (len(sources) - 1) * SIDE, row * SIDE))
            if len(sources) == PER_ROW:
                break
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("data", type=Path)
    parser.add_argument("--out", type=Path, default=Path("flowers.png"))
    args = parser.parse_args()
    sheet(args.data).save(args.out)
    print(f"wrote {args.out}")


if __name__ == "__main__":
    main()
