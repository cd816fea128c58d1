"""How well the detector reads the generated photos: per tile and per whole hand."""

from __future__ import annotations

import io
import time
from collections import Counter
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from difflib import SequenceMatcher

from bot.photo import PhotoReading, corrections_between, read_tiles
from bot.photo.detect import DETECTOR_LABELS

from .render import Scene, render


@dataclass(frozen=True)
class Trial:
    condition: str
    truth: tuple[str, ...]  # in reading order
    detected: tuple[str, ...]
    seconds: float
    unsure: tuple[int, ...] = ()  # positions in `detected` the hint names (low confidence)
    confidences: tuple[float, ...] = ()  # of each detected tile

    @property
    def misread(self) -> set[int]:
        """Positions in `detected` outside the left-to-right alignment with the truth: misread
        or invented tiles, the ones the player has to correct."""
        right: set[int] = set()
        for op, _, _, b0, b1 in SequenceMatcher(a=self.truth, b=self.detected,
                                               autojunk=False).get_opcodes():
            if op == "equal":
                right.update(range(b0, b1))
        return set(range(len(self.detected))) - right

    @property
    def matched(self) -> int:
        """Tiles read right: the multiset intersection of truth and detection."""
        return sum((Counter(self.truth) & Counter(self.detected)).values())

    @property
    def exact(self) -> bool:
        return Counter(self.truth) == Counter(self.detected)

    @property
    def corrections(self) -> int:
        """Taps the player needs to put the hand right (replace, remove or add one tile each)."""
        return len(corrections_between(self.detected, self.truth))


@dataclass
class Tally:
    trials: list[Trial] = field(default_factory=list)

    @property
    def tiles(self) -> int:
        return sum(len(t.truth) for t in self.trials)

    @property
    def recall(self) -> float:
        """Share of the tiles on the table that were read as what they are."""
        return sum(t.matched for t in self.trials) / max(1, self.tiles)

    @property
    def precision(self) -> float:
        """Share of the detected tiles that are on the table."""
        return sum(t.matched for t in self.trials) / max(1, sum(len(t.detected) for t in self.trials))

    @property
    def hands(self) -> float:
        """Share of photos whose whole hand was read exactly."""
        return sum(t.exact for t in self.trials) / max(1, len(self.trials))

    @property
    def corrections(self) -> float:
        """Corrections per photo, on average."""
        return sum(t.corrections for t in self.trials) / max(1, len(self.trials))

    @property
    def seconds(self) -> float:
        return sum(t.seconds for t in self.trials) / max(1, len(self.trials))

    @property
    def hint_recall(self) -> float:
        """Share of the misread tiles the photo's "unsure" hint names."""
        hit = sum(len(t.misread & set(t.unsure)) for t in self.trials)
        return hit / max(1, sum(len(t.misread) for t in self.trials))

    @property
    def hint_precision(self) -> float:
        """Share of the tiles the hint names that were misread."""
        hit = sum(len(t.misread & set(t.unsure)) for t in self.trials)
        return hit / max(1, sum(len(t.unsure) for t in self.trials))

    @property
    def hinted(self) -> float:
        """Tiles the hint names per photo."""
        return sum(len(t.unsure) for t in self.trials) / max(1, len(self.trials))

    def per_kind(self) -> dict[str, tuple[int, int]]:
        """For each tile kind on the table: (read right, present)."""
        out: dict[str, tuple[int, int]] = {}
        for t in self.trials:
            truth, found = Counter(t.truth), Counter(t.detected)
            for kind, n in truth.items():
                right, total = out.get(kind, (0, 0))
                out[kind] = (right + min(n, found[kind]), total + n)
        return out

    def confusions(self) -> Counter[tuple[str, str]]:
        """(true tile, read as) for substitutions in left-to-right alignment."""
        out: Counter[tuple[str, str]] = Counter()
        for t in self.trials:
            for op, a0, a1, b0, b1 in SequenceMatcher(a=t.truth, b=t.detected, autojunk=False).get_opcodes():
                if op == "replace" and a1 - a0 == b1 - b0:
                    out.update(zip(t.truth[a0:a1], t.detected[b0:b1], strict=True))
        return out


def ours(data: bytes) -> PhotoReading:
    return read_tiles(data)


def package_as_is(data: bytes) -> list[str]:
    """The detector package's own entry point (its 0.5 threshold, one look): the baseline."""
    from mahjong_detector import detect_tiles

    return [DETECTOR_LABELS[name] for name in detect_tiles(io.BytesIO(data))]


def trial(condition: str, scene: Scene,
          reader: Callable[[bytes], list[str] | PhotoReading] = ours) -> Trial:
    data = render(scene)
    start = time.perf_counter()
    read = reader(data)
    seconds = time.perf_counter() - start
    if isinstance(read, PhotoReading):
        return Trial(condition, tuple(scene.all_tiles), tuple(read.names), seconds,
                     tuple(read.uncertain), tuple(d.confidence for d in read.tiles))
    return Trial(condition, tuple(scene.all_tiles), tuple(read), seconds)


def tally(trials: Iterable[Trial]) -> Tally:
    return Tally(list(trials))
