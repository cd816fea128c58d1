"""Tile engine speed (issue 13), every figure next to `mahjong` measured in the same process.

    .venv/bin/python -m tests.bench.bench_tiles            # the issue's figures
    .venv/bin/python -m tests.bench.bench_tiles --quick    # smaller samples
    .venv/bin/pytest tests/bench/bench_tiles.py --benchmark-enable

Targets: joker-free agari ≥ 3× faster than `mahjong`'s `Agari.is_agari`; the whole `analyze`
(every reading, features, values) median < 200 µs. The whole `waits` command (every completing
tile with its best reading and value, `ready`, 花猫) is measured without a target (issue 21
withdrew its 50 µs).

How it is measured, so the figures are reproducible (fixed seeds, nothing random left):
- samples: requests of all five variants in turn, built by the property tests' generator
  (`random_hand`: winning hands with melds and the variants' shapes, one in five broken; for
  `waits` the winning tile is taken off). Luzhou plays with 8 红中. Two joker mixes:
  *table*: the jokers a player holds after seeing 28 tiles of a shuffled wall and keeping every
  joker (so Luzhou with 8 ghosts averages about 2, Feibao 1.6, Cixi 0.8, Guiyang and Hainan 0);
  *uniform*: every joker count the variant allows (0–8 Luzhou and Feibao, 0–4 Cixi) equally
  often, also reported per count.
- steady state: every cache emptied, then a different sample (another seed) run once, as a
  long-running bot would have seen; each measured request is then timed once, the first time
  it is seen, so no answer comes from a memo of that very request.
- cold: every memo emptied (joker counts, splits, values) right before each timed call; the
  generated tables of complete parts (`tables.part_splits`, built once per process in about
  60 ms, as an import would) stay.
- clock: the process's CPU time (`time.process_time`), for ours and mahjong's alike, so
  other work on a shared machine does not count.
- baselines: `mahjong` on the same process and machine: `Agari.is_agari` per hand; a riichi
  "waits" is `is_agari(hand + t)` for the 34 tiles; a riichi "analyze" is
  `HandCalculator.estimate_hand_value` (every decomposition, yaku, fu and value) on joker-free
  closed winning hands. Each figure is also given in `is_agari` calls (the issue quotes ~9 µs
  per call on its machine), which cancels most of the machine's load.
"""

from __future__ import annotations

import random
import statistics
import sys
import time
from collections.abc import Callable
from typing import Any

import pytest

from scoring import ScoringError, get_variant
from scoring.tiles import analyze, clear_caches, waits
from scoring.tiles.request import read_request, split_win
from scoring.tiles.tables import is_agari
from tests.scoring.test_tiles_properties import MOST_JOKERS, VARIANTS, agari_sample, random_hand
from tests.styles import tileset

# CPU time of this process, not wall time: the machine is shared, and a call that waits for
# a core would count another process's work (every figure, mahjong's too, uses this clock)
CLOCK = time.process_time

AGARI_RATIO = 3.0
ANALYZE_MEDIAN = 200e-6
ISSUE_AGARI = 9e-6  # the issue's mahjong is_agari time on its machine



def wall(variant: str) -> tuple[int, int, int]:
    """(jokers in the wall, tiles in the wall, most jokers a hand can hold), from the style's
    tile set under the house rules with the most jokers (luzhou: 8, 116, 8; hainan: 0, 144, 0)."""
    v, ts = get_variant(variant), tileset(variant)
    rules = v.read_rules(MOST_JOKERS.get(variant, {}))
    fixed = sum(v.most_of(x, rules) for x in ts.fixed)
    jokers = fixed or (4 * len(ts.jokers.turned) if ts.jokers is not None else 0)
    tiles = 27 * 4 + (7 * 4 if ts.honours else fixed) + (8 if ts.flowers else 0)
    return jokers, tiles, jokers


WALL = {v: wall(v) for v in VARIANTS}
SEEN = 28  # tiles a player has seen by the end of a hand: 13 dealt and about 15 draws


def joker_count(rng: random.Random, variant: str, mix: str) -> int:
    jokers, wall, most = WALL[variant]
    if mix == "uniform":
        return rng.randint(0, most)
    return sum(1 for x in rng.sample(range(wall), SEEN) if x < jokers)


def _request(rng: random.Random, variant: str, jokers: int, kind: str) -> dict[str, Any] | None:
    data = random_hand(rng, variant, jokers=jokers)
    if variant in MOST_JOKERS:
        data["rules"] = MOST_JOKERS[variant]
    if kind == "waits":
        text = data["tiles"]
        data["tiles"] = text.split("+")[0] if "+" in text else text[:-2]
        data["by"] = "self_draw"
    try:
        table = read_request(data)
        split_win(table, 13 if kind == "waits" else 14)
        if kind == "analyze":
            analyze(data)  # the analyze sample holds winning hands only
    except ScoringError:
        return None
    return data


def sample(kind: str, n: int, seed: int, mix: str = "table") -> list[tuple[int, dict[str, Any]]]:
    """n requests (`analyze` or `waits`), the tile styles in turn: (jokers held, request)."""
    rng = random.Random(seed)
    out: list[tuple[int, dict[str, Any]]] = []
    while len(out) < n:
        variant = VARIANTS[len(out) % len(VARIANTS)]
        jokers = joker_count(rng, variant, mix)
        data = _request(rng, variant, jokers, kind)
        if data is not None:
            out.append((jokers, data))
    return out


def timed(function: Callable[[Any], Any], cases: list[Any], cold: bool = False) -> list[float]:
    """Seconds per call, each case timed once; `cold`: every cache emptied before each."""
    times = []
    for case in cases:
        if cold:
            clear_caches()
        start = CLOCK()
        try:
            function(case)
        except ScoringError:
            pass
        times.append(CLOCK() - start)
    return times


def stats(times: list[float]) -> dict[str, float]:
    ordered = sorted(times)
    return {"median": statistics.median(ordered), "p90": ordered[int(0.9 * (len(ordered) - 1))],
            "max": ordered[-1]}


def steady(kind: str, cases: list[dict[str, Any]], warm: list[dict[str, Any]]) -> list[float]:
    command = analyze if kind == "analyze" else waits
    clear_caches()
    timed(command, warm)
    return timed(command, cases)


# -- mahjong baselines ----------------------------------------------------------------------------

def winning_hands(n: int = 2_000) -> list[list[int]]:
    from mahjong.agari import Agari

    agari = Agari()
    return [c for c in agari_sample(4 * n, seed=21) if agari.is_agari(c)][:n]


def agari_ratio() -> tuple[float, float, float]:
    """(mahjong s per hand, ours s per hand, ratio) over the same hands, interleaved runs."""
    from mahjong.agari import Agari

    hands = winning_hands()
    agari = Agari()
    assert all(is_agari(c) for c in hands)
    theirs, ours = [], []
    for _ in range(5):
        start = CLOCK()
        for c in hands:
            agari.is_agari(c)
        theirs.append(CLOCK() - start)
        start = CLOCK()
        for c in hands:
            is_agari(c)
        ours.append(CLOCK() - start)
    a, b = min(theirs) / len(hands), min(ours) / len(hands)
    return a, b, a / b


def mahjong_waits(n: int = 300) -> list[float]:
    """A riichi `waits`: is_agari on the hand with each of the 34 tiles added, joker-free
    13-tile hands (half of them ready)."""
    from mahjong.agari import Agari

    agari = Agari()
    hands = []
    for c in agari_sample(n, seed=31):
        c = list(c)
        c[next(t for t in range(34) if c[t])] -= 1
        hands.append(c)

    def riichi_waits(c: list[int]) -> list[int]:
        out = []
        for t in range(34):
            if c[t] < 4:
                c[t] += 1
                if agari.is_agari(c):
                    out.append(t)
                c[t] -= 1
        return out

    return timed(riichi_waits, hands)


def mahjong_analyze(n: int = 300) -> list[float]:
    """A riichi `analyze`: HandCalculator on joker-free closed winning hands, self-drawn."""
    from mahjong.hand_calculating.hand import HandCalculator
    from mahjong.hand_calculating.hand_config import HandConfig

    calc, config = HandCalculator(), HandConfig(is_tsumo=True)
    cases = []
    for c in winning_hands(n):
        tiles = [4 * t + i for t in range(34) for i in range(c[t])]
        cases.append((tiles, tiles[-1]))
    return timed(lambda case: calc.estimate_hand_value(case[0], case[1], config=config), cases)


# -- report ---------------------------------------------------------------------------------------

def _line(name: str, figures: dict[str, float], unit: float, target: float | None = None) -> str:
    text = (f"{name}: median {figures['median'] * 1e6:.1f} µs ({figures['median'] / unit:.1f} "
            f"is_agari), p90 {figures['p90'] * 1e6:.1f} µs, max {figures['max'] * 1e6:.0f} µs")
    if target is not None:
        scaled = target / ISSUE_AGARI
        text += (f"  [target median < {target * 1e6:.0f} µs: "
                 f"{'met' if figures['median'] < target else 'NOT met'}; scaled to the issue's "
                 f"machine, < {scaled:.1f} is_agari: "
                 f"{'met' if figures['median'] / unit < scaled else 'NOT met'}]")
    return text


def main(quick: bool = False) -> None:
    n = 150 if quick else 500
    n_cold = 60 if quick else 200
    theirs, ours, ratio = agari_ratio()
    unit = theirs
    print(f"mahjong is_agari {theirs * 1e6:.2f} µs per winning hand (the issue: ~9 µs); "
          "figures below also in is_agari calls")
    print(f"agari, joker-free winning hands: ours {ours * 1e6:.2f} µs, {ratio:.1f}× faster than "
          f"mahjong (target ≥ {AGARI_RATIO:.0f}×: {'met' if ratio >= AGARI_RATIO else 'NOT met'})")
    riichi_w = stats(mahjong_waits())
    riichi_a = stats(mahjong_analyze())
    print(_line("mahjong riichi waits (34 × is_agari)", riichi_w, unit))
    print(_line("mahjong HandCalculator (riichi analyze)", riichi_a, unit))
    for kind, target, riichi in (("waits", None, riichi_w),
                                 ("analyze", ANALYZE_MEDIAN, riichi_a)):
        command = analyze if kind == "analyze" else waits
        table = sample(kind, n, seed=101)
        warm = [d for _, d in sample(kind, n, seed=202)]
        got = stats(steady(kind, [d for _, d in table], warm))
        print(_line(f"{kind}, five variants, jokers as held at a table, steady state", got, unit,
                    target) + f"; median {got['median'] / riichi['median']:.1f}× mahjong's "
              f"riichi {kind}")
        uniform = sample(kind, n, seed=303, mix="uniform")
        times = steady(kind, [d for _, d in uniform], warm)
        print(_line(f"{kind}, jokers uniform over 0–8, steady state", stats(times), unit))
        per = {j: [t for (k, _), t in zip(uniform, times, strict=True) if k == j]
               for j in range(9)}
        print("    median by jokers held: " + ", ".join(
            f"{j}: {statistics.median(ts) * 1e6:.0f} µs" for j, ts in per.items() if ts))
        cold = stats(timed(command, [d for _, d in table[:n_cold]], cold=True))
        print(_line(f"{kind}, jokers as held at a table, every cache emptied before each call",
                    cold, unit))
    clear_caches()


# -- as pytest-benchmark tests (each runs once as a test in the default run) --------------------

def _each(function: Callable[[Any], Any], cases: list[Any]) -> Callable[[], Any]:
    turn = iter(cases * 1000)
    return lambda: function(next(turn))


def test_agari_is_at_least_three_times_faster_than_mahjong(benchmark: Any) -> None:
    pytest.importorskip("mahjong")
    hands = winning_hands(500)
    benchmark(lambda: [is_agari(c) for c in hands])
    if benchmark.stats:
        theirs, ours, ratio = agari_ratio()
        assert ratio >= AGARI_RATIO, (theirs, ours, ratio)


def test_waits_command(benchmark: Any) -> None:
    benchmark(_each(waits, [d for _, d in sample("waits", 100, seed=101)]))


def test_full_analyze(benchmark: Any) -> None:
    benchmark(_each(analyze, [d for _, d in sample("analyze", 100, seed=101)]))
    if benchmark.stats:
        assert benchmark.stats.stats.median < ANALYZE_MEDIAN


if __name__ == "__main__":
    main(quick="--quick" in sys.argv)
