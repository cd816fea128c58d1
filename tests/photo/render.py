"""Test photos of mahjong hands, made rather than downloaded: the tile faces that
`pymdownx-mahjong` ships (FluffyStuff's public-domain riichi tiles, as SVG) drawn with `cairosvg`
on ivory tile bodies, laid on a table-coloured cloth, then turned, scaled, lit unevenly, blurred,
noised or JPEG-compressed as a phone photo would be. Deterministic: a scene and its seed give the
same bytes every time.

Licence: the faces are FluffyStuff's riichi-mahjong-tiles, which their author put in the public
domain; pymdownx-mahjong ships them recoloured and minified in a package licensed CC BY-NC 4.0.
They are only drawn here at test time: no face or photo is stored in the repository or shipped.

    .venv/bin/python -m tests.photo.render 42 /tmp/hand.png   # look at one
"""

from __future__ import annotations

import io
import random
import sys
from dataclasses import dataclass, replace
from functools import cache
from pathlib import Path

import cairosvg
import numpy as np
import pymdownx_mahjong
from PIL import Image, ImageDraw, ImageFilter

from bot.photo import TILE_KINDS

FACES = Path(pymdownx_mahjong.__file__).parent / "assets" / "light"  # 1m.svg … 7z.svg, same names as ours
CLOTHS = {"green": (28, 104, 62), "blue": (30, 70, 120), "wood": (120, 84, 52)}
IVORY, EDGE, BACK = (246, 243, 232), (190, 186, 172), (44, 126, 84)


@dataclass(frozen=True)
class Scene:
    """One photo: the tiles left to right (a second row for `melds`, as exposed sets lie)."""
    tiles: tuple[str, ...]
    seed: int = 0
    melds: tuple[tuple[str, ...], ...] = ()
    tile_width: int = 80  # pixels
    margin: float = 0.6  # cloth around the tiles, in tile widths
    cloth: str = "green"
    angle: float = 0.0  # the whole photo turned, degrees
    tilt: float = 0.0  # each tile turned by up to this many degrees, and nudged
    light: float = 0.0  # uneven lighting: brightness falls by this fraction across the photo
    blur: float = 0.0  # Gaussian blur radius, pixels
    noise: float = 0.0  # sensor noise, standard deviation on 0…255
    jpeg: int | None = None  # JPEG quality, None for PNG

    @property
    def all_tiles(self) -> list[str]:
        return list(self.tiles) + [t for meld in self.melds for t in meld]


@cache
def face(tile: str, width: int) -> Image.Image:
    if tile not in TILE_KINDS:
        raise ValueError(f"no face for {tile!r}")
    png = cairosvg.svg2png(url=str(FACES / f"{tile}.svg"), output_width=width)
    return Image.open(io.BytesIO(png)).convert("RGBA")


@cache
def tile_image(tile: str, width: int) -> Image.Image:
    """A tile seen from above and a little in front: ivory face, the coloured back below it."""
    height, depth, radius = round(width * 4 / 3), max(2, width // 7), max(2, width // 9)
    body = Image.new("RGBA", (width, height + depth), (0, 0, 0, 0))
    draw = ImageDraw.Draw(body)
    draw.rounded_rectangle((0, 0, width - 1, height + depth - 1), radius=radius, fill=(*BACK, 255))
    draw.rounded_rectangle((0, 0, width - 1, height - 1), radius=radius, fill=(*IVORY, 255),
                           outline=(*EDGE, 255), width=max(1, width // 40))
    art = face(tile, round(width * 0.86))
    body.alpha_composite(art, ((width - art.width) // 2, (height - art.height) // 2))
    return body


def render_image(scene: Scene) -> Image.Image:
    rng = random.Random(scene.seed)
    w = scene.tile_width
    gap = max(1, w // 30)
    rows = [list(scene.tiles)] + ([[t for meld in scene.melds for t in meld]] if scene.melds else [])
    row_h = tile_image(scene.tiles[0] if scene.tiles else "1m", w).height
    width = max(len(r) for r in rows) * (w + gap) + (len(scene.melds) * w // 3 if scene.melds else 0)
    margin = round(scene.margin * w) + round(abs(scene.tilt) * w / 20)
    canvas = Image.new("RGB", (width + 2 * margin, len(rows) * row_h + (len(rows) - 1) * w // 2 + 2 * margin),
                       CLOTHS[scene.cloth])
    _shadow_and_place(canvas, rows, scene, rng, margin, row_h)
    if scene.angle:
        canvas = canvas.rotate(scene.angle, resample=Image.BICUBIC, expand=True,
                               fillcolor=CLOTHS[scene.cloth])
    return _camera(canvas, scene)


def _shadow_and_place(canvas: Image.Image, rows: list[list[str]], scene: Scene, rng: random.Random,
                      margin: int, row_h: int) -> None:
    w = scene.tile_width
    gap = max(1, w // 30)
    for r, row in enumerate(rows):
        x, y = margin, margin + r * (row_h + w // 2)
        meld_ends = _meld_ends(scene) if r == 1 else set()
        for i, tile in enumerate(row):
            img = tile_image(tile, w)
            dx = dy = 0
            if scene.tilt:
                img = img.rotate(rng.uniform(-scene.tilt, scene.tilt), resample=Image.BICUBIC, expand=True)
                dx, dy = (rng.randint(-w // 20, w // 20) for _ in range(2))
            shadow = Image.new("RGBA", img.size, (0, 0, 0, 0))
            shadow.paste((0, 0, 0, 70), mask=img.getchannel("A"))
            shadow = shadow.filter(ImageFilter.GaussianBlur(w / 25))
            canvas.paste(shadow, (x + dx + w // 25, y + dy + w // 20), shadow)
            canvas.paste(img, (x + dx, y + dy), img)
            x += w + gap + (w // 3 if i in meld_ends else 0)


def _meld_ends(scene: Scene) -> set[int]:
    ends, n = set(), 0
    for meld in scene.melds:
        n += len(meld)
        ends.add(n - 1)
    return ends


def _camera(image: Image.Image, scene: Scene) -> Image.Image:
    if scene.blur:
        image = image.filter(ImageFilter.GaussianBlur(scene.blur))
    if scene.light or scene.noise:
        pixels = np.asarray(image, dtype=np.float32)
        if scene.light:
            h, w = pixels.shape[:2]
            across, down = np.linspace(0, 1, w)[None, :], np.linspace(0, 1, h)[:, None]
            ramp = 1.0 - scene.light * (across * 0.6 + down * 0.4)
            pixels *= ramp[..., None]
        if scene.noise:
            pixels += np.random.default_rng(scene.seed).normal(0, scene.noise, pixels.shape)
        image = Image.fromarray(pixels.clip(0, 255).astype(np.uint8))
    return image


def render(scene: Scene) -> bytes:
    """The scene as PNG bytes, or JPEG when scene.jpeg gives a quality."""
    out = io.BytesIO()
    image = render_image(scene)
    if scene.jpeg:
        image.save(out, "JPEG", quality=scene.jpeg)
    else:
        image.save(out, "PNG")
    return out.getvalue()


# ------------------------------------------------------------------------- hands and conditions


def random_hand(seed: int, size: int = 14) -> tuple[str, ...]:
    """`size` tiles drawn from a full set of 136 (four of each of the 34), sorted as players lay them."""
    wall = [t for t in TILE_KINDS for _ in range(4)]
    drawn = random.Random(seed).sample(wall, size)
    return tuple(sorted(drawn, key=TILE_KINDS.index))


# How a phone photo differs from the clean picture; each a function of the seed so the set is fixed.
CONDITIONS = {
    "clean": lambda s, rng: s,
    "small": lambda s, rng: replace(s, tile_width=44, margin=3.0),  # taken from further away
    "large": lambda s, rng: replace(s, tile_width=150, margin=0.3),
    "rotated": lambda s, rng: replace(s, angle=rng.choice([-1, 1]) * rng.uniform(4, 12), tilt=3.0),
    "noisy": lambda s, rng: replace(s, noise=14.0, blur=1.2, light=0.35, jpeg=55,
                                    cloth=rng.choice(sorted(CLOTHS))),
    "two rows": lambda s, rng: _with_melds(s, rng),
}


def _with_melds(scene: Scene, rng: random.Random) -> Scene:
    """The last six tiles laid apart as two exposed sets in a second row."""
    tiles = list(scene.tiles)
    return replace(scene, tiles=tuple(tiles[:-6]), melds=(tuple(tiles[-6:-3]), tuple(tiles[-3:])))


def scene_for(condition: str, seed: int) -> Scene:
    rng = random.Random(f"{condition}:{seed}")
    return CONDITIONS[condition](Scene(random_hand(seed), seed=seed), rng)


if __name__ == "__main__":
    seed = int(sys.argv[1]) if len(sys.argv) > 1 else 1
    condition = sys.argv[3] if len(sys.argv) > 3 else "clean"
    Path(sys.argv[2] if len(sys.argv) > 2 else "hand.png").write_bytes(render(scene_for(condition, seed)))
