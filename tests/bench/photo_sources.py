"""How well the reader reads real photos, by source: the held-out photos of the "Chinese Mahjong
Detection" export (training/yolo.py), in the families of their file names (yolo.SOURCES: a set in
its tray or on a table, a riichi set piled on a red mat, Messenger photos, hands on a mat,
screenshots), each as it is, turned a quarter and
upside down. Per family:

- tiles: of the labelled tiles of the 34 kinds (the errata of tests/photo/real_errata.csv set
  right), how many the reader reads (the multiset in common, every tile seen: no hand's cap), and
  how many of the tiles it reads are right (precision);
- flowers: of the labelled flowers and seasons, how many it reads as the very one (1f…8f);
- hands: the photos of a hand (13–18 tiles), read as the chat reads them (at most a hand's tiles
  and one of each flower): the share that needs no correction at all, flowers included, and the
  mean corrections (corrections_between: replace, remove or add one tile each);
- seconds a photo (640×640), and at the end one photo blown up to 12 megapixels, with the
  process's peak memory (tests/bench/photo_memory.py measures four pictures at once in the bot).

A family that holds photos the export squeezed out of shape (its labelled tiles over STRETCHED
times longer one way than a tile is: a strip of the photo stretched into the square) is also
shown split in two, as shot and stretched, under the table; the family's own line counts both.

    python -m tests.bench.photo_sources DATA [--split valid|test] [--upright]

The settings are chosen on valid/; test/ is read once, at the end (the model card says when).
"""

from __future__ import annotations

import argparse
import resource
import time
from collections import Counter, defaultdict
from collections.abc import Callable
from dataclasses import dataclass, field, fields
from pathlib import Path

from PIL import Image

from bot.photo import PhotoReading, corrections_between, read_tiles
from tests.photo.real import corrected, errata, turned, twelve_megapixels
from training.yolo import SOURCES, Labelled, family, photos

HAND = range(13, 19)
STRETCHED = 3.0  # a tile is about 1.3 times taller than wide: past 3× either way, the export's
TURNS = {"as is": None, "a quarter": Image.Transpose.ROTATE_90, "upside down": Image.Transpose.ROTATE_180}


@dataclass
class Count:
    tiles: int = 0
    tiles_right: int = 0
    tiles_read: int = 0
    flowers: int = 0
    flowers_right: int = 0
    flowers_read: int = 0
    hands: int = 0
    hands_exact: int = 0
    corrections: int = 0
    photos: int = 0
    seconds: float = 0.0
    confusions: Counter[tuple[str, str]] = field(default_factory=Counter)

    def add(self, photo: Labelled, seen: PhotoReading, seconds: float) -> None:
        truth, read = Counter(photo.kinds), Counter(seen.hand)
        self.photos += 1
        self.seconds += seconds
        self.tiles += len(photo.kinds)
        self.tiles_read += len(seen.hand)
        self.tiles_right += sum((truth & read).values())
        missed, invented = truth - read, read - truth
        for a, b in zip(sorted(missed.elements()), sorted(invented.elements()), strict=False):
            self.confusions[(a, b)] += 1
        flowers, read_flowers = Counter(photo.flowers), Counter(seen.flowers)
        self.flowers += len(photo.flowers)
        self.flowers_read += len(seen.flowers)
        self.flowers_right += sum((flowers & read_flowers).values())

    def merge(self, other: Count) -> None:
        """Add another family's counts to these (the line for all of them)."""
        for f in fields(self):
            setattr(self, f.name, getattr(self, f.name) + getattr(other, f.name))

    def add_hand(self, photo: Labelled, seen: PhotoReading) -> None:
        fixes = len(corrections_between(seen.names, photo.kinds + photo.flowers))
        self.hands += 1
        self.hands_exact += fixes == 0
        self.corrections += fixes


def stretched(photo: Labelled) -> bool:
    """The export squeezed the photo out of shape: its median tile is over STRETCHED times longer
    one way than the other."""
    sides = sorted(max((x2 - x1) / (y2 - y1), (y2 - y1) / (x2 - x1))
                   for _, (x1, y1, x2, y2) in photo.tiles if x2 > x1 and y2 > y1)
    return bool(sides) and sides[len(sides) // 2] > STRETCHED


def _share(a: int, b: int) -> str:
    return f"{a / b:6.1%}" if b else "     —"


def _row(name: str, c: Count) -> str:
    return (f"{name:<11} {c.photos:>6} {c.tiles:>6} {_share(c.tiles_right, c.tiles)} "
            f"{_share(c.tiles_right, c.tiles_read)} {c.flowers:>7} {_share(c.flowers_right, c.flowers)} "
            f"{_share(c.flowers_right, c.flowers_read)} {c.hands:>6} {_share(c.hands_exact, c.hands)} "
            f"{(c.corrections / c.hands if c.hands else 0):>8.2f} {c.seconds / max(1, c.photos):>7.3f}")


HEADER = (f"{'source':<11} {'photos':>6} {'tiles':>6} {'right':>6} {'prec.':>6} {'flowers':>7} "
          f"{'right':>6} {'prec.':>6} {'hands':>6} {'exact':>6} {'fix/hand':>8} {'s/photo':>7}")


def _timed(read: Callable[[], PhotoReading]) -> tuple[PhotoReading, float]:
    start = time.perf_counter()
    seen = read()
    return seen, time.perf_counter() - start


def measure(data: Path, split: str, turns: dict[str, Image.Transpose | None]) -> dict[str, dict[str, Count]]:
    """turn → family → Count, over the split's photos that hold any tile."""
    fixes = errata()
    out: dict[str, dict[str, Count]] = {name: defaultdict(Count) for name in turns}
    for photo in photos(data / split):
        if not photo.tiles:
            continue
        photo = corrected(photo, fixes)
        raw = photo.image.read_bytes()
        fam = family(photo.source)
        shape = f"{fam}, {'stretched' if stretched(photo) else 'as shot'}"
        for name, turn in turns.items():
            image = turned(raw, turn)
            seen, seconds = _timed(lambda image=image: read_tiles(image, hand=False))
            hand = read_tiles(image) if len(photo.kinds) in HAND else None
            for count in (out[name][fam], out[name][shape]):
                count.add(photo, seen, seconds)
                if hand is not None:
                    count.add_hand(photo, hand)
    return out


def report(results: dict[str, dict[str, Count]]) -> None:
    for name, by_family in results.items():
        print(f"\nturned {name}:" if name != "as is" else "\nas it is:")
        print(HEADER)
        total = Count()
        for fam in SOURCES:
            if fam in by_family:
                c = by_family[fam]
                print(_row(fam, c))
                total.merge(c)
        print(_row("all", total))
        for fam in SOURCES:
            if f"{fam}, stretched" in by_family:
                for shape in ("as shot", "stretched"):
                    if f"{fam}, {shape}" in by_family:
                        print(_row(f" {shape}", by_family[f"{fam}, {shape}"]) + f"  ({fam})")
        print("  most common misreads (labelled → read): "
              + ", ".join(f"{a}→{b} ×{n}" for (a, b), n in total.confusions.most_common(8)))


def big_photo(data: Path, split: str) -> None:
    photo = next(p for p in photos(data / split) if len(p.kinds) in HAND)
    runs = 5
    size, seconds, small = twelve_megapixels(photo, runs)
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(f"\na 12-megapixel JPEG ({size // 1000} KB): {seconds:.3f} s a photo (mean of {runs}), "
          f"{seconds / small:.2f}× the same photo as it is ({small:.3f} s); "
          f"this process's peak memory {peak:.0f} MB")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("data", type=Path, help="the export's data/ folder")
    parser.add_argument("--split", default="valid", choices=("valid", "test"))
    parser.add_argument("--upright", action="store_true", help="only the photos as they are")
    args = parser.parse_args()
    turns = {"as is": None} if args.upright else TURNS
    report(measure(args.data, args.split, turns))
    big_photo(args.data, args.split)


if __name__ == "__main__":
    main()
