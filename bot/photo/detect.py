"""Tiles from a photo: image bytes in, the tiles read out. The `mahjong-detector` model and the
locator (locator.py) find where the tiles are, the hand's row (row.py) where both missed one; the
tile classifier (classify.py) reads each. Both of ours are trained on real photographs.

Pure apart from loading the models once: no Telegram, no database. The detector is an optional
extra (`pip install -e '.[photo]'`); without it every call raises PhotoError(UNAVAILABLE), whose
message tells the chat how to enable it. It reads the 34 suited and honour tiles and the eight
flowers and seasons (PhotoReading.flowers); not the animals, nor a joker's choice: those stay for
the player to key.
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
from typing import TYPE_CHECKING, Any

import numpy as np
from PIL import Image, ImageOps, UnidentifiedImageError

from ..view.i18n import N_
from .boxes import OVERLAP, Box, iou, same_tile, spans_several
from .classify import CLASSES, FLOWERS, NONE, classify, crop
from .locator import locate
from .row import MAX_TILES, fit_row, propose

if TYPE_CHECKING:
    from onnxruntime import InferenceSession

# The project's tile names (docs/tiles.md): 1m…9m, 1p…9p, 1s…9s, 1z…7z = 东南西北白发中, and the
# flowers and seasons 1f…8f = 春夏秋冬梅兰菊竹 (read apart from the hand: PhotoReading.flowers).
SUITS = "mpszf"
TILE_KINDS: tuple[str, ...] = tuple(f"{n}{s}" for s in "mps" for n in range(1, 10)) + tuple(
    f"{n}z" for n in range(1, 8))
READ_KINDS: tuple[str, ...] = TILE_KINDS + FLOWERS  # what a photo may read
# The detector's class names → ours (its honours carry their Japanese names).
DETECTOR_LABELS: dict[str, str] = {
    **{k: k for k in TILE_KINDS if not k.endswith("z")},
    "tou": "1z", "nan": "2z", "sha": "3z", "pe": "4z", "haku": "5z", "hatsu": "6z", "chun": "7z",
}
TIME_LIMIT = 20.0  # seconds for one photo, waiting for the model included
# The least confidence of the detector's (in whatever tile it thinks) for a box to be looked at
# by the classifier, which drops the boxes that hold no tile. Chosen on the train split's photos
# of 13–18 tiles (turned and sheared by Roboflow, so their boxes are loose): 0.1 and two looks
# find 37% of the labelled boxes at IoU 0.5, against 29% at 0.3 (one look: 33% and 22%).
LOCATE = 0.1
# Below this confidence (the classifier's) a tile is named as worth a second look.
UNCERTAIN = 0.5
# The classifier's least confidence for a place the row proposes (row.py) to be kept as a tile.
# Chosen on the train split (tests/bench/photo_train.py, every third photo: 848): 0.4 read 51.5%
# of the tiles right, 0.5 51.2%, 0.9 past the ends 50.4%; without the row's places, 44.7%.
ROW_SURE = 0.4
# The detector's own reading is kept where it is surer than this and than the classifier: it
# reads clean faces of its own (Japanese) style better. Train split, every fifth photo (509):
# never 55.8% of the tiles right, over 0.85 55.7%, 0.7 55.6%, always when surer 55.4%; 0.85
# costs nothing that the train split can tell and keeps generated clean faces at 84% (76%
# without; tests/bench/photo_accuracy.py).
DETECTOR_SURE = 0.85
# The locator (locator.py, trained on real photos of Chinese-style hands) adds the places the
# detector missed; False reads with the detector's places alone (tuning split: 55.4% of the tiles
# right against 93.6%, tests/bench/photo_train.py --tuning).
USE_LOCATOR = True
# A box of the detector's that holds the centres of more than this many of the locator's boxes
# is drawn around several tiles (a pile close up: one box over all of it), and gives way to them.
# Chosen on valid/ (tests/bench/photo_sources.py, before IMG_2779 was set right): kept always,
# red mat 75.4% of the tiles right (a pile read no tile); 2: 77.3%, Messenger 94.0% → 94.4%,
# the rest unchanged; 3: 77.3%.
SPANNED = 2
# Looks at the photo squeezed (factor, axis) for pictures stretched out of shape (_squeezed), and
# how much more confidence in all a squeezed look must add up to than the photo as it is. Chosen
# on valid/ (tests/bench/photo_sources.py): none: Messenger photos 87.5% of the tiles right,
# screenshots 0.7%; 4× both ways at 1.2: 90.7%, 33.1%; 4× and 8× at 1.5: 94.0%, 49.3% (hands
# 93.7% → 97.2%, the tray's unchanged); 3× and 6× at 1.2: 93.2%; up to 12× at 2.0: 93.5%; 4×,
# 8× and 16× at 1.5: 93.8% (the photos stretched about 16× keep too little across to read).
SQUEEZES: tuple[tuple[float, str], ...] = ((4, "y"), (4, "x"), (8, "y"), (8, "x"))
SQUEEZE_GAIN = 1.5
# At most MAX_TILES tiles (a hand's most), the surest: on the tuning split 90.6% of the tiles
# right against 93.6%, but a mean of 2.4 corrections a hand against 3.8 (worst 15 against 41).
CAP_HAND = True
# A hand's row of at least HAND_ROW tiles keeps the tiles by it (by_the_row): NEAR_ROW tile
# lengths across it, SIZE_RANGE times its tiles' area either way. Chosen on valid/'s photos of a
# hand (tests/bench/photo_sources.py): without it 52.3% of the Messenger hands and 57.1% of the
# `hand_` ones need no correction; NEAR_ROW 2: 56.9%, 71.4%; 1.5: 58.5%, 71.4%; 3: 55.4%, 71.4%.
# 2 leaves room for melds laid beside the row, which valid/ hardly shows.
HAND_ROW = 8
NEAR_ROW = 2.0
SIZE_RANGE = 2.0
INPUT_PX = 640  # the model's input is a 640×640 square
TILE_PX = 22  # tile width (in input pixels) the model reads best: measured, see read_tiles
MAX_ZOOM_OUT = 4.0  # a tile filling the frame is no hand: do not shrink past this
MIN_SLANT = 2.5  # degrees: rows slanting more than this are read in order as if turned level
WORK_PX = 1600  # photos are first shrunk to this on their longer side (the model sees 640)
# The largest picture read, in pixels: a phone photo is ~12 MP, a camera's 24. Checked on the
# header, before decoding: a 154 KB PNG can hold 40 MP, and reading one costs ~5 bytes a pixel.
MAX_PIXELS = 25_000_000
# Pillow's own bomb guard (every image this process opens): it refuses twice this outright.
Image.MAX_IMAGE_PIXELS = MAX_PIXELS
# Photos decoded and read at once, whatever the number of chats sending them: each holds up to
# ~130 MB at MAX_PIXELS while it is read, and the model runs one at a time anyway (_Model.lock).
# Four 25 MP pictures at once (tests/bench/photo_memory.py): one at a time peaks at 465 MB (474
# before the zoomed-out look was drawn at the model's input size, 427 before the classifier kept
# a colour copy beside the detector's grey one), two at 519 MB, and two compete more with the
# event loop on a two-core machine.
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
        """Every tile read, flowers and seasons included (they end in "f")."""
        return [d.tile for d in self.tiles]

    @property
    def hand(self) -> list[str]:
        """The tiles of the 34 kinds, flowers apart."""
        return [d.tile for d in self.tiles if d.tile not in FLOWERS]

    @property
    def flowers(self) -> list[str]:
        """The flowers and seasons read (1f…8f); in a hand's reading each at most once."""
        return [d.tile for d in self.tiles if d.tile in FLOWERS]

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
    session: InferenceSession
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


def _open_image(data: bytes) -> tuple[Image.Image, tuple[int, int]]:
    """The picture, decoded no larger than it need be, and its full size (width, height, turned
    as its EXIF says). A JPEG decodes at a half, a quarter or an eighth of its size for a fraction
    of the work (Pillow's draft): a 12 MP photo at 2000×1500, which still holds WORK_PX."""
    try:
        image = Image.open(io.BytesIO(data))
        width, height = image.size
        if width * height > MAX_PIXELS:
            raise PhotoError(TOO_LARGE)
        shrink = max(width, height) / WORK_PX
        if shrink > 1:
            image.draft("RGB", (math.ceil(width / shrink), math.ceil(height / shrink)))
        image.load()
        turned = image.size
        # A phone stores "rotate me" in EXIF rather than turning the pixels (in place: no copy).
        ImageOps.exif_transpose(image, in_place=True)
        if image.size != turned:  # a quarter turn: the full size turns too
            width, height = height, width
        return image, (width, height)
    except Image.DecompressionBombError:
        raise PhotoError(TOO_LARGE) from None
    except (UnidentifiedImageError, OSError, ValueError, SyntaxError):
        raise PhotoError(NOT_AN_IMAGE) from None


def read_tiles(data: bytes, *, threshold: float = LOCATE, hand: bool = True) -> PhotoReading:
    """The tiles in an image (PNG, JPEG, …). Blocking (0.1–0.4 s of CPU): call it off the event
    loop, as read_tiles_async does. Raises PhotoError.

    The detector (_locate) and our locator (locator.py) find where the tiles are, the classifier
    (classify.py, trained on real photographs in all four orientations) says which tile each
    place holds, in colour, and the hand's row (_fill_row) gives the places both missed. The
    detector alone read a third of the tiles of real photos right: it learned Japanese tiles
    (tests/bench/photo_accuracy.py --real). `hand`: at most a hand's tiles (MAX_TILES) and one of
    each flower, the surest; False reads every tile seen (a set laid out, a pile)."""
    model = _model()
    photo, size = _open_image(data)
    shrink = max(size) / WORK_PX
    if shrink > 1:  # the detector sees 640 pixels and the classifier 48 a tile: spare the rest
        photo = photo.resize((round(size[0] / shrink), round(size[1] / shrink)), Image.BILINEAR)
    photo = photo.convert("RGB")
    pre = model.preprocess
    gray = pre.stretch_contrast(pre.convert_to_grayscale(photo))  # the detector's view
    boxes = _locate(model, gray, threshold)
    del gray
    if USE_LOCATOR:  # our own locator's places that the detector missed (its reading: none)
        mine = [box for box, _ in locate(photo)]
        boxes = [b for b in boxes if not spans_several(b[0], mine, SPANNED)]
        boxes = boxes + [(box, "", 0.0) for box in mine if not any(same_tile(box, b[0]) for b in boxes)]
    probs = _classify_at(photo, [b[0] for b in boxes])
    found: list[tuple[Box, str, float]] = []  # in the working photo's pixels
    # The classifier's reading, but the detector's where it is very sure (DETECTOR_SURE).
    for (box, seen, sure), p in zip(boxes, probs, strict=True):
        read = _tile(p)
        if read is not None:
            # the detector knows no flowers: where the classifier sees one, its reading stands
            mine = read[1] >= sure or sure <= DETECTOR_SURE or read[0] in FLOWERS
            found.append((box, *read) if mine else (box, seen, sure))
    found += _fill_row(photo, found)
    found = _squeezed(photo, found)
    if CAP_HAND and hand:
        found = cap_hand(by_the_row(found))
    scale = max(1.0, shrink)
    tiles = [DetectedTile(tile, round(confidence, 3),
                          (max(0, round(x1 * scale)), max(0, round(y1 * scale)),
                           min(size[0], round(x2 * scale)), min(size[1], round(y2 * scale))))
             for (x1, y1, x2, y2), tile, confidence in found]
    return PhotoReading(tuple(_level_order(tiles)))


def _squeezed(photo: Image.Image, found: list[tuple[Box, str, float]]) -> list[tuple[Box, str, float]]:
    """The tiles of the photo squeezed back into shape where that reads better: a wide picture
    squeezed into a square (as some apps and the data set's export do) leaves tiles many times
    taller than wide, which neither model knows. Each look of SQUEEZES (the factor and the axis)
    runs the locator and the classifier on the photo shrunk along that axis; the look whose tiles
    add up to the most confidence wins, the photo as it is unless another beats it by SQUEEZE_GAIN."""
    best, score = found, sum(f[2] for f in found) * SQUEEZE_GAIN
    for factor, axis in SQUEEZES:
        w, h = photo.size
        size = (w, max(1, round(h / factor))) if axis == "y" else (max(1, round(w / factor)), h)
        view = photo.resize(size, Image.BILINEAR)
        boxes = [box for box, _ in locate(view)]
        if not boxes:
            continue
        sx, sy = w / size[0], h / size[1]
        look = [((x1 * sx, y1 * sy, x2 * sx, y2 * sy), *read)
                for (x1, y1, x2, y2), p in zip(boxes, _classify_at(view, boxes), strict=True)
                if (read := _tile(p)) is not None]
        total = sum(f[2] for f in look)
        if total > score:
            best, score = look, total
    return best


def by_the_row(found: list[tuple[Box, str, float]]) -> list[tuple[Box, str, float]]:
    """Where the hand lies in a row (at least HAND_ROW tiles), the tiles by it: across the row
    at most NEAR_ROW tiles' lengths from its line (melds and flowers put beside it), and of about
    its tiles' size (SIZE_RANGE in area); the rest (the wall, loose tiles further off, a white tray
    read as a white dragon) is no part of the hand."""
    row = fit_row([f[0] for f in found])
    if row is None or len(row.members) < HAND_ROW:
        return found
    boxes = [found[i][0] for i in row.members]
    cx = statistics.median((b[0] + b[2]) / 2 for b in boxes)
    cy = statistics.median((b[1] + b[3]) / 2 for b in boxes)
    normal = (-row.direction[1], row.direction[0])
    length = max(row.size)
    area = row.size[0] * row.size[1]

    def near(box: Box) -> bool:
        x, y = (box[0] + box[2]) / 2 - cx, (box[1] + box[3]) / 2 - cy
        ratio = (box[2] - box[0]) * (box[3] - box[1]) / area
        across = abs(x * normal[0] + y * normal[1])
        return across <= NEAR_ROW * length and 1 / SIZE_RANGE <= ratio <= SIZE_RANGE

    return [f for f in found if near(f[0])]


def cap_hand(found: list[tuple[Box, str, float]]) -> list[tuple[Box, str, float]]:
    """A hand holds at most MAX_TILES tiles and one of each flower: past that, the least sure are
    not of it."""
    surest = sorted(found, key=lambda f: -f[2])
    tiles = [f for f in surest if f[1] not in FLOWERS][:MAX_TILES]
    flowers: dict[str, tuple[Box, str, float]] = {}
    for f in surest:
        if f[1] in FLOWERS:
            flowers.setdefault(f[1], f)  # the surest of each
    return tiles + list(flowers.values())


def _classify_at(image: Image.Image, boxes: Sequence[Box]) -> np.ndarray:
    """The classifier's probabilities for the tile at each box of `image`."""
    if not boxes:
        return np.zeros((0, len(CLASSES)), dtype=np.float32)
    return classify(np.stack([crop(image, b) for b in boxes]))


def _tile(p: np.ndarray) -> tuple[str, float] | None:
    """The classifier's tile (a flower too) and its confidence, or None for no tile at all."""
    best = int(p.argmax())
    return None if CLASSES[best] == NONE else (CLASSES[best], float(p[best]))


def _fill_row(photo: Image.Image, found: list[tuple[Box, str, float]]) -> list[tuple[Box, str, float]]:
    """The tiles the detector missed in the hand's row (row.py proposes the places): those the
    classifier reads as a tile, surer than ROW_SURE; past the row's ends one at a time outward,
    up to the first place that holds none (the table)."""
    boxes = [box for box, _, _ in found]
    row = fit_row(boxes)
    if row is None:
        return []
    places = propose(boxes, row, photo.size)
    candidates = places.gaps + places.ends[0] + places.ends[1]
    if not candidates:
        return []
    probs = _classify_at(photo, candidates)
    added: list[tuple[Box, str, float]] = []

    def keep(box: Box, p: np.ndarray) -> bool | None:
        """True: a tile, added; None: a found tile is already there; False: no tile."""
        if any(iou(box, b) > OVERLAP for b in boxes + [a[0] for a in added]):
            return None
        read = _tile(p)
        if read is None or read[1] < ROW_SURE:
            return False
        added.append((box, *read))
        return True

    for box, p in zip(places.gaps, probs, strict=False):
        keep(box, p)
    start = len(places.gaps)
    for end in places.ends:
        for box, p in zip(end, probs[start:start + len(end)], strict=True):
            if len(row.members) + len(added) >= MAX_TILES or keep(box, p) is False:
                break
        start += len(end)
    return added


def _level_order(tiles: list[DetectedTile]) -> list[DetectedTile]:
    """reading_order of the tiles as if the photo were turned so that their rows run level."""
    angle = _slant(tiles)
    if not angle:
        return reading_order(tiles)
    cos, sin = math.cos(math.radians(angle)), math.sin(math.radians(angle))
    level = {}  # id of the turned stand-in → the tile
    for d in tiles:
        cx, cy = (d.box[0] + d.box[2]) / 2, (d.box[1] + d.box[3]) / 2
        x, y = cx * cos + cy * sin, cy * cos - cx * sin
        w, h = (d.box[2] - d.box[0]) / 2, (d.box[3] - d.box[1]) / 2
        turned = DetectedTile(d.tile, d.confidence, (round(x - w), round(y - h), round(x + w), round(y + h)))
        level[id(turned)] = (turned, d)
    return [level[id(t)][1] for t in reading_order([t for t, _ in level.values()])]


def _slant(tiles: Sequence[DetectedTile]) -> float:
    """The angle (degrees, clockwise in the image) the tiles' rows run at: the median direction
    from each tile to its nearest neighbour on the right in the same row; 0 when under MIN_SLANT
    or too few tiles to tell."""
    centres = [((d.box[0] + d.box[2]) / 2, (d.box[1] + d.box[3]) / 2, d.box[3] - d.box[1]) for d in tiles]
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


def _locate(model: _Model, image: Image.Image, threshold: float) -> list[tuple[Box, str, float]]:
    """Where the tiles are (x1, y1, x2, y2 in `image`'s pixels), with the tile the detector reads
    there and its confidence: one look at the photo as it is and one turned a quarter (it finds tiles lying
    sideways there), the boxes of both merged.

    The detector reads tiles best at about TILE_PX pixels wide in its 640-pixel input: when the
    first look finds tiles much wider (a close-up), both looks are at the photo set on a larger
    black canvas."""
    found, scale = _detect(model, image, threshold)
    view, back = image, 1.0  # back: the view's pixels → the image's
    if found:
        width = statistics.median(d.x2 - d.x1 for d in found) * scale
        if width > TILE_PX * 1.2:
            factor = min(width / TILE_PX, MAX_ZOOM_OUT)
            view, back = _zoomed_out(image, factor)
            found, _ = _detect(model, view, threshold)
    names = model.predict.CLASS_NAMES
    scored = [((d.x1 * back, d.y1 * back, d.x2 * back, d.y2 * back), DETECTOR_LABELS[names[d.class_id]],
               float(d.confidence)) for d in found]
    turned, _ = _detect(model, view.transpose(Image.Transpose.ROTATE_90), threshold)
    # ROTATE_90 turns counter-clockwise: (x, y) in the view is (y, width - x) in the turned one
    scored += [(((view.width - d.y2) * back, d.x1 * back, (view.width - d.y1) * back, d.x2 * back),
                DETECTOR_LABELS[names[d.class_id]], float(d.confidence)) for d in turned]
    kept: list[tuple[Box, str, float]] = []
    # the upright look's boxes first (best first), then the turned look's tiles that it missed
    for box, tile, confidence in (sorted(scored[:len(found)], key=lambda s: -s[2])
                                  + sorted(scored[len(found):], key=lambda s: -s[2])):
        inside = (box[0] + box[2]) / 2 < image.width and (box[1] + box[3]) / 2 < image.height
        if inside and all(iou(box, k[0]) < OVERLAP for k in kept):
            kept.append((box, tile, confidence))
    return kept


def _zoomed_out(image: Image.Image, factor: float) -> tuple[Image.Image, float]:
    """The photo at the top left of a black canvas `factor` times its size each way (its tiles
    `factor` times smaller to the detector), and the factor from the view's pixels back to the
    photo's. A photo of the detector's input size or less is pasted as it is, and the model's
    preprocessing shrinks the canvas (as the settings were chosen). A larger one (a 12 MP photo's
    working copy: a canvas of 30 MP) is shrunk first to the size it takes in that input and the
    canvas drawn at the input's size: the picture the model sees, resampled once as before (not
    pixel for pixel), for a small part of the work."""
    canvas = (round(image.width * factor), round(image.height * factor))
    if max(image.size) <= INPUT_PX:
        view = Image.new("L", canvas, 0)
        view.paste(image, (0, 0))  # at the origin: the boxes stay in the photo's pixels
        return view, 1.0
    back = max(canvas) / INPUT_PX
    view = Image.new("L", (round(canvas[0] / back), round(canvas[1] / back)), 0)
    view.paste(image.resize((max(1, round(image.width / back)), max(1, round(image.height / back))),
                            Image.BILINEAR), (0, 0))
    return view, back


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
