"""A contact sheet of the held-out labels that tests/photo/real_errata.csv says are wrong, to check
each by eye: every box's surroundings, the box drawn in, the tile labelled and the tile it holds.

    .venv/bin/python -m tests.bench.photo_errata DATA [sheet.png]
"""

from __future__ import annotations

import argparse
from pathlib import Path

from PIL import Image, ImageDraw

from tests.photo.real import errata
from training.yolo import photos

CELL = 200  # pixels a crop on the sheet
COLUMNS = 8


def cell(image: Image.Image, box: tuple[float, float, float, float], caption: str) -> Image.Image:
    """The box's square surroundings (one and a half times its longer side), the box drawn in."""
    w, h = image.size
    x1, y1, x2, y2 = box[0] * w, box[1] * h, box[2] * w, box[3] * h
    half = max(x2 - x1, y2 - y1) * 0.75
    left, top = (x1 + x2) / 2 - half, (y1 + y2) / 2 - half
    out = image.crop((round(left), round(top), round(left + 2 * half), round(top + 2 * half)))
    out = out.resize((CELL, CELL), Image.LANCZOS)
    scale = CELL / (2 * half)
    draw = ImageDraw.Draw(out)
    draw.rectangle(((x1 - left) * scale, (y1 - top) * scale, (x2 - left) * scale, (y2 - top) * scale),
                   outline=(0, 255, 0))
    draw.rectangle((0, 0, CELL, 14), fill=(0, 0, 0))
    draw.text((2, 1), caption, fill=(255, 255, 0))
    return out


def main(data: Path, out: Path) -> None:
    fixes = errata()
    cells = []
    for split in ("valid", "test"):
        for photo in photos(data / split):
            lines = sorted(line for s, name, line in fixes if s == split and name == photo.image.name)
            if not lines:
                continue
            with Image.open(photo.image) as im:
                image = im.convert("RGB")
            for line in lines:
                labelled, seen = fixes[(split, photo.image.name, line)]
                caption = f"#{len(cells)} labelled {labelled}, is {seen}"
                cells.append(cell(image, photo.tiles[line][1], caption))
    sheet = Image.new("RGB", (COLUMNS * CELL, -(-len(cells) // COLUMNS) * CELL))
    for i, c in enumerate(cells):
        sheet.paste(c, (i % COLUMNS * CELL, i // COLUMNS * CELL))
    sheet.save(out)
    print(f"{len(cells)} of {len(fixes)} errata drawn in {out}")


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description="The errata of the held-out labels, as a contact sheet")
    parser.add_argument("data", type=Path)
    parser.add_argument("out", nargs="?", type=Path, default=Path("errata.png"))
    args = parser.parse_args()
    main(args.data, args.out)
