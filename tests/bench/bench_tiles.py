"""Tile engine speed, measured against `mahjong` in the same process.

Targets (issue 13): joker-free agari at least 3× faster than `mahjong`'s `Agari.is_agari` on the
same winning hands; `waits` with up to 8 jokers median < 50 µs; full `analyze` median < 200 µs.

    .venv/bin/python -m tests.bench.bench_tiles          # prints the figures and the ratio
    .venv/bin/pytest tests/bench/bench_tiles.py --benchmark-enable

The default test run executes each benchmark once as a test.
"""

from __future__ import annotations

import itertools
import random
import statistics
import time
from collections.abc import Callable
from typing import Any

import pytest

from scoring.tiles import analyze
from scoring.tiles.analysis import read_request
from scoring.tiles.engine import waiting
from scoring.tiles.features import SHAPES
from scoring.tiles.tables import is_agari
from tests.scoring.test_tiles_properties import VARIANTS, agari_sample, random_hand, usable

AGARI_RATIO = 3.0
WAITS_MEDIAN = 50e-6
ANALYZE_MEDIAN = 200e-6


def winning_hands(n: int = 2_000) -> list[list[int]]:
    from mahjong.agari import Agari

    agari = Agari()
    return [c for c in agari_sample(4 * n, seed=21) if agari.is_agari(c)][:n]


def ready_hands(n: int = 400, seed: int = 3) -> list[tuple[list[int], int]]:
    """13-tile Luzhou hands (8-ghost table) with 0–8 ghosts: (counts without ghosts, ghosts)."""
    rng = random.Random(seed)
    out = []
    while len(out) < n:
        data = random_hand(rng, "luzhou", max_jokers=8)
        data["rules"] = {"ghosts": 8}
        data["tiles"] = data["tiles"].split("+")[0]
        try:
            t = read_request(data)
        except Exception:
            continue
        tiles = list(t.hand)
        if t.melds or len(tiles) != 14:
            continue
        tiles.pop()
        counts = [0] * 34
        for x in tiles:
            if x != 33:
                counts[x] += 1
        out.append((counts, tiles.count(33)))
    return out


def analyze_requests(n: int = 500, seed: int = 9) -> list[dict[str, Any]]:
    """Winning hands of every variant, jokers included, as `analyze` requests."""
    rng = random.Random(seed)
    out = []
    while len(out) < n:
        data = random_hand(rng, rng.choice(VARIANTS), max_jokers=3)
        if usable(data):
            try:
                analyze(data)
            except Exception:
                continue
            out.append(data)
    return out


def per_call(function: Callable[[Any], Any], cases: list[Any], rounds: int = 3) -> list[float]:
    """Seconds per call, each case timed on its own (best of `rounds`)."""
    times = []
    for case in cases:
        best = float("inf")
        for _ in range(rounds):
            start = time.perf_counter()
            function(case)
            best = min(best, time.perf_counter() - start)
        times.append(best)
    return times


def agari_ratio() -> tuple[float, float, float]:
    """(mahjong µs per hand, ours µs per hand, ratio) over the same hands, interleaved runs."""
    from mahjong.agari import Agari

    hands = winning_hands()
    agari = Agari()
    assert all(is_agari(c) for c in hands)
    theirs, ours = [], []
    for _ in range(5):
        start = time.perf_counter()
        for c in hands:
            agari.is_agari(c)
        theirs.append(time.perf_counter() - start)
        start = time.perf_counter()
        for c in hands:
            is_agari(c)
        ours.append(time.perf_counter() - start)
    a, b = min(theirs) / len(hands), min(ours) / len(hands)
    return a * 1e6, b * 1e6, a / b


def waits_median() -> float:
    shapes = SHAPES["luzhou"]
    tiles = tuple(range(27))
    cases = ready_hands()
    return statistics.median(per_call(lambda c: waiting(c[0], c[1], (), shapes, tiles), cases))


def waits_command_median() -> float:
    """The whole `waits` answer (each completing tile analysed and valued), Luzhou 0–8 ghosts."""
    from scoring.tiles import waits

    rng = random.Random(4)
    cases = []
    while len(cases) < 100:
        data = random_hand(rng, "luzhou", max_jokers=8)
        data.update(rules={"ghosts": 8}, tiles=data["tiles"].split("+")[0][:-2])
        try:
            waits(data)
        except Exception:
            continue
        cases.append(data)
    return statistics.median(per_call(waits, cases))


def analyze_median() -> float:
    return statistics.median(per_call(analyze, analyze_requests()))


def analyze_cold_median() -> float:
    """Every cache emptied before each call: suit splits and values computed afresh."""
    from scoring.tiles import analysis, engine

    def cold(data: dict[str, Any]) -> None:
        analysis._value.cache_clear()
        engine._SPLITS.clear()
        start = time.perf_counter()
        analyze(data)
        times.append(time.perf_counter() - start)

    times: list[float] = []
    for data in analyze_requests():
        cold(data)
    return statistics.median(times)


def check(benchmark: Any, limit: float, stat: str = "median") -> None:
    if benchmark.stats:  # only when timing is enabled
        assert getattr(benchmark.stats.stats, stat) < limit


def each_in_turn(function: Callable[[Any], Any], cases: list[Any]) -> Callable[[], Any]:
    turn = itertools.cycle(cases)
    return lambda: function(next(turn))


def test_agari_is_at_least_three_times_faster_than_mahjong(benchmark: Any) -> None:
    pytest.importorskip("mahjong")
    hands = winning_hands(500)
    benchmark(lambda: [is_agari(c) for c in hands])
    if benchmark.stats:
        theirs, ours, ratio = agari_ratio()
        assert ratio >= AGARI_RATIO, (theirs, ours, ratio)


def test_waits_with_up_to_eight_jokers(benchmark: Any) -> None:
    shapes = SHAPES["luzhou"]
    tiles = tuple(range(27))
    benchmark(each_in_turn(lambda c: waiting(c[0], c[1], (), shapes, tiles), ready_hands(100)))
    check(benchmark, WAITS_MEDIAN)


def test_full_analyze(benchmark: Any) -> None:
    benchmark(each_in_turn(analyze, analyze_requests(100)))
    check(benchmark, ANALYZE_MEDIAN)


def main() -> None:
    theirs, ours, ratio = agari_ratio()
    print(f"agari (joker-free winning hands): mahjong {theirs:.2f} µs, ours {ours:.2f} µs, "
          f"ratio {ratio:.1f}× (target ≥ {AGARI_RATIO:.0f}×)")
    print(f"waits, Luzhou with 0–8 ghosts: median {waits_median() * 1e6:.1f} µs "
          f"(target < {WAITS_MEDIAN * 1e6:.0f} µs)")
    print(f"waits command (every wait analysed and valued): median "
          f"{waits_command_median() * 1e6:.1f} µs")
    print(f"analyze, five variants, 0–3 jokers: median {analyze_median() * 1e6:.1f} µs "
          f"(target < {ANALYZE_MEDIAN * 1e6:.0f} µs)")
    print(f"analyze with every cache emptied before each call: median "
          f"{analyze_cold_median() * 1e6:.1f} µs")


if __name__ == "__main__":
    main()
