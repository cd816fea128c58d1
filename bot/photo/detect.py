"""Tiles from a photo: image bytes in, the tiles the `mahjong-detector` model sees out.

Pure apart from loading the model once: no Telegram, no database. The detector is an optional
extra (`pip install -e '.[photo]'`); without it every call raises PhotoError(UNAVAILABLE), whose
message tells the chat how to enable it. It knows the 34 suited and honour tiles only (no
flowers, no joker choice): those stay for the player to add.
"""

from __future__ import annotations

import asyncio
import importlib
import io
import math
import statistics
import threading
from collections.abc import Iterable, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from functools import cache
from typing import Any

from PIL import Image, ImageOps, UnidentifiedImageError

from ..view.i18n import N_

# The project's tile names (spec/tiles.md): 1m…9m, 1p…9p, 1s…9s, 1z…7z = 东南西北白发中.
SUITS = "mpsz"
TILE_KINDS: tuple[str, ...] = tuple(f"{n}{s}" for s in "mps" for n in range(1, 10)) + tuple(
    f"{n}z" for n in range(1, 8))
# The detector's class names → ours (its honours carry their Japanese names).
DETECTOR_LABELS: dict[str, str] = {
    **{k: k for k in TILE_KINDS if not k.endswith("z")},
    "tou": "1z", "nan": "2z", "sha": "3z", "pe": "4z", "haku": "5z", "hatsu": "6z", "chun": "7z",
}
TIME_LIMIT = 20.0  # seconds for one photo, waiting for the model included
# The least confidence a detection needs to count as a tile. The model's own 0.5 misses more tiles
# than it spares false ones: on the generated photos (tests/bench/photo_accuracy.py) 0.3 leaves
# 1.5 corrections per hand against 2.2; the unsure ones are marked for the player anyway.
THRESHOLD = 0.3
# Below this confidence a tile is named as worth a second look. On the generated photos
# (tests/bench/photo_accuracy.py, 150 hands) 0.7 named 2.8 tiles a hand, 28% of them misread;
# 0.5 names 0.9, 44% misread, and still 31% of the misreads (confidence is a weak sign: a
# misread can score 0.9).
UNCERTAIN = 0.5
INPUT_PX = 640  # the model's input is a 640×640 square
TILE_PX = 22  # tile width (in input pixels) the model reads best: measured, see read_tiles
MAX_ZOOM_OUT = 4.0  # a tile filling the frame is no hand: do not shrink past this
WORK_PX = 1600  # photos are first shrunk to this on their longer side (the model sees 640)
MIN_SLANT = 2.5  # degrees: rows slanting more than this are turned level before a last look
# The largest picture read, in pixels: a phone photo is ~12 MP, a camera's 24. Checked on the
# header, before decoding: a 154 KB PNG can hold 40 MP, and reading one costs ~5 bytes a pixel.
MAX_PIXELS = 25_000_000
# Pillow's own bomb guard (every image this process opens): it refuses twice this outright.
Image.MAX_IMAGE_PIXELS = MAX_PIXELS
# Photos decoded and read at once, whatever the number of chats sending them: each holds up to
# ~130 MB at MAX_PIXELS while it is read, and the model runs one at a time anyway (_Model.lock).
# Four 25 MP pictures at once (tests/bench/photo_memory.py): one at a time peaks at 427 MB, two
# at 519 MB, and two compete more with the event loop on a two-core machine.
READERS = 1
INSTALL_HINT = "pip install -e '.[photo]'"

# Message ids of PhotoError (translated by the caller: t(exc.msgid, **exc.params)).
UNAVAILABLE = N_("Reading tiles from a photo is not enabled on this bot. "
                 "Whoever runs it can enable it with: {command}")
NOT_AN_IMAGE = N_("That file is not a picture I can read. Send the hand as a photo.")
TOO_LARGE = N_("That picture is too large to read. Send it as an ordinary photo.")
TOO_SLOW = N_("Reading the photo took too long. Try again, or enter the tiles by hand.")
NO_TILES = N_("I could not see any tiles in this photo. Lay the hand out in one row, face up, "
              "and take the photo from above.")


class PhotoError(Exception):
    """A photo that could not be read; `msgid` and `params` make the chat's message."""

    def __init__(self, msgid: str, **params: object) -> None:
        super().__init__(msgid.format(**params) if params else msgid)
        self.msgid = msgid
        self.params = params


@dataclass(frozen=True)
class DetectedTile:
    tile: str  # project notation: "5p", "7z"
    confidence: float  # the model's class score, 0…1
    box: tuple[int, int, int, int]  # x1, y1, x2, y2 in the original image's pixels

    @property
    def uncertain(self) -> bool:
        return self.confidence < UNCERTAIN


@dataclass(frozen=True)
class PhotoReading:
    """What the detector saw, in reading order (rows top to bottom, each left to right)."""
    tiles: tuple[DetectedTile, ...]

    @property
    def names(self) -> list[str]:
        return [d.tile for d in self.tiles]

    @property
    def sorted_tiles(self) -> list[DetectedTile]:
        return sorted(self.tiles, key=lambda d: tile_order(d.tile))

    @property
    def tile_string(self) -> str:
        """The tiles in the project's notation, sorted: `123m55p789s11777z`."""
        return tile_string(self.names)

    @property
    def uncertain(self) -> list[int]:
        """Positions (in `tiles`) of the tiles the model was unsure of."""
        return [i for i, d in enumerate(self.tiles) if d.uncertain]


def tile_order(tile: str) -> tuple[int, int]:
    return SUITS.index(tile[1]), int(tile[0])


def tile_string(tiles: Iterable[str]) -> str:
    """Tiles (each like "5p") as one sorted notation string, digits grouped per suit."""
    ordered = sorted(tiles, key=tile_order)
    out: list[str] = []
    for i, tile in enumerate(ordered):
        out.append(tile[0])
        if i + 1 == len(ordered) or ordered[i + 1][1] != tile[1]:
            out.append(tile[1])
    return "".join(out)


# ------------------------------------------------------------------------- the model


@dataclass(frozen=True)
class _Model:
    session: Any  # onnxruntime.InferenceSession
    predict: Any  # the package's predict module (tensor layout, post-processing, class names)
    preprocess: Any
    lock: threading.Lock  # one inference at a time: the machine's cores are better spent on one


@cache
def _model() -> _Model:
    try:
        onnxruntime = importlib.import_module("onnxruntime")
        predict = importlib.import_module("mahjong_detector.predict")
        preprocess = importlib.import_module("mahjong_detector.preprocess")
    except ImportError:
        raise PhotoError(UNAVAILABLE, command=INSTALL_HINT) from None
    session = onnxruntime.InferenceSession(str(predict.model_path), providers=["CPUExecutionProvider"])
    return _Model(session, predict, preprocess, threading.Lock())


def load_model() -> None:
    """Load the detector now (blocking, ~0.3 s the first time); PhotoError(UNAVAILABLE) without
    the extra."""
    _model()


def photo_support() -> bool:
    """Whether the photo extra is installed (the model loads)."""
    try:
        load_model()
    except PhotoError:
        return False
    return True


def _open_image(data: bytes) -> Any:
    try:
        image = Image.open(io.BytesIO(data))
        if image.width * image.height > MAX_PIXELS:
            raise PhotoError(TOO_LARGE)
        image.load()
        # A phone stores "rotate me" in EXIF rather than turning the pixels (in place: no copy).
        ImageOps.exif_transpose(image, in_place=True)
        return image
    except Image.DecompressionBombError:
        raise PhotoError(TOO_LARGE) from None
    except (UnidentifiedImageError, OSError, ValueError, SyntaxError):
        raise PhotoError(NOT_AN_IMAGE) from None


def read_tiles(data: bytes, *, threshold: float = THRESHOLD) -> PhotoReading:
    """The tiles in an image (PNG, JPEG, …). Blocking (0.1–0.3 s of CPU): call it off the event
    loop, as read_tiles_async does. Raises PhotoError.

    The model reads tiles best at about TILE_PX pixels wide in its 640-pixel input, and in rows
    that run level. A close-up (the hand filling the frame) gives it tiles twice that wide, so
    when the first look finds tiles much wider the photo is set on a larger black canvas and
    looked at again; when the tiles' rows slant, it is turned level and looked at once more. On
    the generated photos (tests/bench/photo_accuracy.py) these and THRESHOLD take the tiles read
    right from 71% to 90% and the corrections per hand from 4.0 to 1.4."""
    model = _model()
    pre = model.preprocess
    photo = _open_image(data)
    size = photo.size
    gray = pre.convert_to_grayscale(photo)
    del photo  # the colour pixels (3 bytes each) go before the next copy is made
    image = pre.stretch_contrast(gray)
    del gray
    shrink = max(image.size) / WORK_PX
    if shrink > 1:  # the model sees 640 pixels anyway: spare the canvas below a 12-megapixel photo
        image = image.resize((round(image.width / shrink), round(image.height / shrink)), Image.BILINEAR)
    view = image
    found, scale = _detect(model, view, threshold)
    if found:
        width = statistics.median(d.x2 - d.x1 for d in found) * scale
        if width > TILE_PX * 1.2:
            factor = min(width / TILE_PX, MAX_ZOOM_OUT)
            view = Image.new("L", (round(image.width * factor), round(image.height * factor)), 0)
            view.paste(image, (0, 0))  # at the origin: the boxes stay in the photo's pixels
            found, _ = _detect(model, view, threshold)
    angle = _slant(found)
    turned = view.rotate(angle, resample=Image.BICUBIC, expand=True, fillcolor=0) if angle else view
    if angle:
        found, _ = _detect(model, turned, threshold)
    names = model.predict.CLASS_NAMES
    level = [DetectedTile(DETECTOR_LABELS[names[d.class_id]], round(float(d.confidence), 3),
                          (d.x1, d.y1, d.x2, d.y2)) for d in found]
    tiles = [_back(d, angle, view.size, turned.size, image.size, max(1.0, shrink), size)
             for d in reading_order(level)]
    return PhotoReading(tuple(d for d in tiles if d is not None))


def _slant(found: Sequence[Any]) -> float:
    """The angle (degrees, counter-clockwise) the tiles' rows run at: the median direction from
    each tile to its nearest neighbour on the right in the same row; 0 when under MIN_SLANT or
    too few tiles to tell."""
    centres = [((d.x1 + d.x2) / 2, (d.y1 + d.y2) / 2, d.y2 - d.y1) for d in found]
    angles = []
    for x, y, height in centres:
        right = [(bx - x, by - y) for bx, by, _ in centres if bx > x and abs(by - y) < height * 0.6]
        if right:
            dx, dy = min(right)
            angles.append(math.degrees(math.atan2(dy, dx)))
    if len(angles) < 3:
        return 0.0
    angle = statistics.median(angles)
    return angle if abs(angle) >= MIN_SLANT else 0.0


def _back(tile: DetectedTile, angle: float, size: tuple[int, int], turned: tuple[int, int],
          image: tuple[int, int], shrink: float, photo: tuple[int, int]) -> DetectedTile | None:
    """A tile found in the turned view, with its box moved back to the photo's pixels (same size,
    centred where the tile is in the photo); None when it lies on the added canvas."""
    x1, y1, x2, y2 = tile.box
    cx, cy = (x1 + x2) / 2 - turned[0] / 2, (y1 + y2) / 2 - turned[1] / 2
    a = math.radians(angle)
    x = size[0] / 2 + cx * math.cos(a) - cy * math.sin(a)
    y = size[1] / 2 + cx * math.sin(a) + cy * math.cos(a)
    if not (0 <= x < image[0] and 0 <= y < image[1]):
        return None
    x, y, w, h = x * shrink, y * shrink, (x2 - x1) / 2 * shrink, (y2 - y1) / 2 * shrink
    box = (max(0, round(x - w)), max(0, round(y - h)),
           min(photo[0], round(x + w)), min(photo[1], round(y + h)))
    return DetectedTile(tile.tile, tile.confidence, box)


def _detect(model: _Model, image: Image.Image, threshold: float) -> tuple[list[Any], float]:
    """The model's detections on a grayscale image (boxes in its pixels), and the scale to 640."""
    padded, padding = model.preprocess.scale_and_pad_to_square(image, INPUT_PX, (0, 0, 0))
    tensor = model.predict.create_input_tensor(padded)
    with model.lock:
        output = model.session.run(None, {model.session.get_inputs()[0].name: tensor})[0]
    names = model.predict.CLASS_NAMES
    found = model.predict.postprocess(output[0], padding, num_classes=len(names), conf_threshold=threshold)
    return found, padding.scale


# READERS worker threads of their own: a photo waiting its turn holds no thread and no decoded
# pixels, and a timed-out read keeps its place until it really ends (a thread cannot be stopped),
# so the bound holds even then. The event loop never decodes.
_readers = ThreadPoolExecutor(max_workers=READERS, thread_name_prefix="photo")


async def read_tiles_async(data: bytes, *, timeout: float = TIME_LIMIT) -> PhotoReading:
    """read_tiles on one of READERS worker threads under a time limit (the wait for a free one
    included); the event loop keeps serving meanwhile. A photo still waiting when the time is up
    is dropped; one being read finishes in its thread, but nobody waits for it."""
    loop = asyncio.get_running_loop()
    try:
        return await asyncio.wait_for(loop.run_in_executor(_readers, read_tiles, data), timeout)
    except TimeoutError:
        raise PhotoError(TOO_SLOW) from None


def reading_order(tiles: Sequence[DetectedTile]) -> list[DetectedTile]:
    """Rows top to bottom, each left to right: a tile starts a new row when its centre lies below
    the current row's tiles by more than half a tile's height."""
    by_y = sorted(tiles, key=lambda d: (d.box[1] + d.box[3]) / 2)
    rows: list[list[DetectedTile]] = []
    for d in by_y:
        centre, height = (d.box[1] + d.box[3]) / 2, d.box[3] - d.box[1]
        if rows:
            last = rows[-1]
            row_centre = sum((e.box[1] + e.box[3]) / 2 for e in last) / len(last)
            if centre - row_centre <= height / 2:
                last.append(d)
                continue
        rows.append([d])
    return [d for row in rows for d in sorted(row, key=lambda d: d.box[0])]
