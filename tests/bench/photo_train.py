"""The reader's figures on the photos of a hand of the valid/ split (`--split valid`), where its
settings are chosen, or of the train split (less the photos whose source photo has a copy in
valid/ or test/, as the training leaves them out); test/ is read once at the end
(tests/bench/photo_sources.py). Each variant sets module constants of bot.photo.detect or bot.photo.row;
the detector runs once a photo (its boxes are kept for the other variants), so a variant costs
only the classifier:

    .venv/bin/python -m tests.bench.photo_train DATA "" "ROW_SURE=0.6" "locator.MODEL_PATH=other.onnx" ...

("" is the settings as shipped). Each variant prints tiles read right, precision, corrections
per hand (median, mean, worst), whole hands right and the labelled boxes found.
"""

from __future__ import annotations

import argparse
import pickle
import statistics
from pathlib import Path
from typing import Any

from bot.photo import classify, detect, locator, row
from tests.photo.measure import tally
from tests.photo.real import RealTrial, hands, real_trial
from training.yolo import Labelled, held_out_sources

_MODULES = (detect, row, locator, classify)


def split_hands(data: Path, split: str = "train") -> list[Labelled]:
    """The split's hands; of train/, less the sources with a copy in valid/ or test/."""
    if split != "train":
        return hands(data, (split,))
    held_out = held_out_sources(data)
    return [p for p in hands(data, ("train",)) if p.source not in held_out]


class _CachedLocate:
    """detect's box finder, run once per photo: its boxes do not depend on the variants."""

    def __init__(self) -> None:
        self.original = getattr(detect, "_locate")  # noqa: B009 (patched, not imported)
        self.cache: dict[Path, Any] = {}
        self.photo: Path | None = None

    def __call__(self, *args: Any) -> Any:
        assert self.photo is not None
        if self.photo not in self.cache:
            self.cache[self.photo] = self.original(*args)
        return self.cache[self.photo]


def set_variant(variant: str) -> dict[str, Any]:
    """Set the variant's constants ("NAME=value", or "module.NAME=value" where two modules have
    the name); returns the old values."""
    old: dict[str, Any] = {}
    for item in filter(None, variant.split(",")):
        name, value = item.split("=")
        old[name] = getattr(_owners(name)[0], name.split(".")[-1])
        _put(name, value == "True" if isinstance(old[name], bool) else type(old[name])(value))
    return old


def _owners(name: str) -> list[Any]:
    """The modules a constant is set in: the one named, or every one that has it (detect imports
    some of row's)."""
    module, _, attr = name.rpartition(".")
    return [m for m in _MODULES if hasattr(m, attr) and module in ("", m.__name__.rpartition(".")[2])]


def _put(name: str, value: Any) -> None:
    for module in _owners(name):
        setattr(module, name.split(".")[-1], value)


def unset_variant(old: dict[str, Any]) -> None:
    for name, value in old.items():
        _put(name, value)


def measure(pictures: list[Labelled], locate: _CachedLocate) -> list[RealTrial]:
    trials = []
    for p in pictures:
        locate.photo = p.image
        trials.append(real_trial(p))
    return trials


def report(name: str, trials: list[RealTrial]) -> None:
    t = tally(r.trial for r in trials)
    fixes = sorted(r.trial.corrections for r in trials)
    print(f"{name or 'as shipped':<40} right {t.recall:.1%}  precision {t.precision:.1%}  "
          f"corrections median {statistics.median(fixes):g} mean {t.corrections:.2f} worst {fixes[-1]}  "
          f"≤1 {sum(f <= 1 for f in fixes) / len(fixes):.1%}  exact {t.hands:.1%}  "
          f"boxes {sum(r.found for r in trials) / sum(r.boxes for r in trials):.1%}", flush=True)


def main() -> None:
    parser = argparse.ArgumentParser(description="The reader's figures on a split's photos of a hand")
    parser.add_argument("data", type=Path)
    parser.add_argument("variants", nargs="*", default=[""])
    parser.add_argument("--every", type=int, default=1, help="take every n-th photo (1: all)")
    parser.add_argument("--split", default="valid", choices=("valid", "train"))
    parser.add_argument("--cache", type=Path, help="keep the detector's boxes in this file for the next run")
    args = parser.parse_args()
    pictures = split_hands(args.data, args.split)[::args.every]
    print(f"{len(pictures)} {args.split} photos of a hand")
    locate = _CachedLocate()
    if args.cache and args.cache.exists():
        locate.cache = pickle.loads(args.cache.read_bytes())
    setattr(detect, "_locate", locate)  # noqa: B010
    for variant in args.variants:
        old = set_variant(variant)
        report(variant, measure(pictures, locate))
        unset_variant(old)
        if args.cache:
            args.cache.write_bytes(pickle.dumps(locate.cache))


if __name__ == "__main__":
    main()
