"""How well mahjong-detector reads photos of hands: per tile and per whole hand, for each kind of
photo the generator in tests/photo/render.py makes (clean, small, large, rotated, noisy, two rows),
beside the package's own `detect_tiles` on the same photos as the baseline. "fixes/hand" is the
corrections a player makes to get the hand right. "hint" is the photo's "unsure" hint (tiles read
with confidence under UNCERTAIN): how many it names per photo, the share of the misread tiles it
names (recall) and the share of its tiles that were misread (precision), at UNCERTAIN and at
other thresholds for comparison. Seeds are fixed, so the figures reproduce:

    .venv/bin/python -m tests.bench.photo_accuracy [hands per condition, default 25] [--real DATA]

With --real DATA (the "Chinese Mahjong Detection" export, training/yolo.py) it also reads the
held-out real photos (its valid/ and test/ splits, the photos of 13–18 tiles; tests/photo/real.py),
as labelled and with the labels that tests/photo/real_errata.csv shows wrong set right:
tiles read right, precision, per-kind recall, corrections per hand (median and worst, as
corrections_between counts them: max(read, true) − in common), the labelled boxes found at all
(localization, whatever tile they were read as) and seconds per photo (these photos are 640×640;
a 12-megapixel one is timed too).
"""

from __future__ import annotations

import argparse
import statistics
from dataclasses import replace
from pathlib import Path

from PIL import Image

from bot.photo import read_tiles
from bot.photo.detect import UNCERTAIN
from tests.photo.measure import Tally, Trial, package_as_is, tally, trial
from tests.photo.real import corrected, errata, real_trial, turned, twelve_megapixels
from tests.photo.real import hands as real_hands
from tests.photo.render import CONDITIONS, scene_for

FIRST_SEED = 1000  # the floor test in tests/photo uses seeds below this


def main(hands: int) -> None:
    overall, baseline = Tally(), Tally()
    print(f"{'':<10} {'':>5} {'':>6} {'ours':-^59} {'package as is':-^34}")
    print(f"{'condition':<10} {'hands':>5} {'tiles':>6} {'tile recall':>11} {'precision':>9} "
          f"{'whole hand':>10} {'fixes/hand':>10} {'s/photo':>8}   "
          f"{'tile recall':>11} {'whole hand':>10} {'fixes/hand':>10}")
    for condition in CONDITIONS:
        scenes = [scene_for(condition, FIRST_SEED + i) for i in range(hands)]
        result = tally(trial(condition, scene) for scene in scenes)
        base = tally(trial(condition, scene, package_as_is) for scene in scenes)
        overall.trials += result.trials
        baseline.trials += base.trials
        _row(condition, result, base)
    _row("all", overall, baseline)
    print(f"\nthe unsure hint (UNCERTAIN = {UNCERTAIN}): {overall.hinted:.2f} tiles a photo, "
          f"recall {overall.hint_recall:.1%}, precision {overall.hint_precision:.1%}")
    for threshold in (0.4, 0.5, 0.6, 0.7):
        at = _hint_at(overall, threshold)
        print(f"  at {threshold}: {at.hinted:.2f} tiles a photo, recall {at.hint_recall:.1%}, "
              f"precision {at.hint_precision:.1%}")
    print("\nper tile kind (read right / present), worst first:")
    kinds = sorted(overall.per_kind().items(), key=lambda kv: kv[1][0] / kv[1][1])
    print("  " + "  ".join(f"{k} {right}/{n}" for k, (right, n) in kinds))
    print("\nmost common misreads (true → read):")
    print("  " + ", ".join(f"{a}→{b} ×{n}" for (a, b), n in overall.confusions().most_common(12)))


def _hint_at(t: Tally, threshold: float) -> Tally:
    """The trials as a hint at another threshold would have named their tiles."""
    return Tally([replace(tr, unsure=tuple(i for i, c in enumerate(tr.confidences) if c < threshold))
                  for tr in t.trials])


def _row(name: str, t: Tally, base: Tally) -> None:
    print(f"{name:<10} {len(t.trials):>5} {t.tiles:>6} {t.recall:>11.1%} {t.precision:>9.1%} "
          f"{t.hands:>10.1%} {t.corrections:>10.2f} {t.seconds:>8.3f}   {base.recall:>11.1%} "
          f"{base.hands:>10.1%} {base.corrections:>10.2f}")


def real(data: Path) -> None:
    """The held-out real photos, as labelled and with the errata (tests/photo/real_errata.csv),
    turned a quarter and upside down, and the time for one of them blown up to 12 megapixels."""
    photos = real_hands(data)
    trials = [real_trial(p) for p in photos]
    print(f"\nheld-out real photos ({data.name}/valid + test, hands of 13–18 tiles): {len(trials)} photos, "
          f"{sum(len(p.kinds) for p in photos)} tiles and {sum(len(p.flowers) for p in photos)} flowers")
    print(f"  boxes found (any tile): {sum(r.found for r in trials) / sum(r.boxes for r in trials):.1%}; "
          f"{sum(r.trial.seconds for r in trials) / len(trials):.3f} s a photo")
    fixes = errata()
    truths = [tuple((c := corrected(p, fixes)).kinds + c.flowers) for p in photos]
    print("  as labelled:")
    _real_tally([r.trial for r in trials])
    print(f"  with the {len(fixes)} labels of the errata set right:")
    _real_tally([replace(r.trial, truth=truth) for r, truth in zip(trials, truths, strict=True)])
    for turn, name in ((Image.Transpose.ROTATE_90, "a quarter"), (Image.Transpose.ROTATE_180, "upside down")):
        read_turned = [replace(real_trial(p, lambda data, t=turn: read_tiles(turned(data, t))).trial,
                               truth=truth) for p, truth in zip(photos, truths, strict=True)]
        t = tally(read_turned)
        print(f"  every photo turned {name} (errata set right): tiles read right {t.recall:.1%}, "
              f"precision {t.precision:.1%}, corrections per hand mean {t.corrections:.2f}")
    size, seconds, small = twelve_megapixels(photos[0], runs=3)
    print(f"  a 12-megapixel JPEG ({size // 1000} KB): {seconds:.3f} s, {seconds / small:.2f}× the "
          f"photo as it is ({small:.3f} s)")


def _real_tally(trials: list[Trial]) -> None:
    t = tally(trials)
    fixes = sorted(tr.corrections for tr in trials)
    print(f"    tiles read right {t.recall:.1%}, precision {t.precision:.1%}, whole hand {t.hands:.1%}, "
          f"corrections per hand median {statistics.median(fixes):g} (mean {t.corrections:.2f}, "
          f"worst {fixes[-1]}); hands with at most 1 correction: "
          f"{sum(f <= 1 for f in fixes) / len(fixes):.1%}")
    kinds = sorted(t.per_kind().items(), key=lambda kv: kv[1][0] / kv[1][1])
    print("    per kind (read right / present), worst first:")
    print("      " + "  ".join(f"{k} {right}/{n}" for k, (right, n) in kinds))
    print("    most common misreads (true → read): "
          + ", ".join(f"{a}→{b} ×{n}" for (a, b), n in t.confusions().most_common(10)))


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description="How well photos of hands are read")
    parser.add_argument("hands", nargs="?", type=int, default=25,
                        help="rendered hands per condition (0: none)")
    parser.add_argument("--real", type=Path, help="the Chinese Mahjong Detection export (its data/ folder)")
    args = parser.parse_args()
    if args.hands:
        main(args.hands)
    if args.real:
        real(args.real)
