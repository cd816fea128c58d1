"""Every wait's readings of a hand holding jokers at once (`engine.wait_readings`) against the
per-wait path (`readings` on `with_wait(bases, t)` for each waiting tile), issue 13.

    PYTHONPATH=. /work/venv/bin/python -m tests.bench.bench_wait_readings [n]

Samples: the `waits` benchmark's requests (`bench_tiles.sample("waits", n, seed=101)`, jokers as
held at a table), only the hands holding at least one joker. Steady state: every cache emptied,
then the warm-up sample (seed 202) run once through both paths; each measured hand is then timed
once, by CPU time (`time.process_time`): first the per-wait path over every hand, then the
caches emptied and warmed again and `wait_readings` over the same hands, in this process (so
neither finds the other's memo of a measured hand). The answers are compared as multisets.
"""

from __future__ import annotations

import statistics
import sys
import time
from typing import Any

from scoring import ScoringError
from scoring.tiles import clear_caches, engine
from scoring.tiles.analysis import _candidates, _holdings, _split_jokers, with_wait
from scoring.tiles.engine import readings, waiting
from scoring.tiles.features import SHAPES
from scoring.tiles.request import read_request, split_win
from scoring.tiles.waits_engine import wait_readings
from tests.bench.bench_tiles import sample

CLOCK = time.process_time


def case(data: dict[str, Any]) -> tuple[int, Any] | None:
    """(jokers held, (bases, shapes, waiting tiles)), or None for a hand without jokers."""
    try:
        table = read_request(data)
        hand, _ = split_win(table, 13)
    except ScoringError:
        return None
    held = sum(1 for x in hand if x in table.jokers)
    if not held:
        return None
    shapes = SHAPES[table.name]
    counts, wild = _split_jokers(hand, table.jokers)
    tiles = waiting(counts, wild, table.melds, shapes, _candidates(table, hand))
    return held, (_holdings(table, hand, None), shapes, tiles)


def per_wait(bases: list, shapes: Any, tiles: list[int]) -> dict[int, list]:
    return {t: [r for h in with_wait(bases, t) for r in readings(h, shapes)] for t in tiles}


def run(path: Any, measured: list, warm: list, table: bool = True,
        ) -> tuple[list[float], list[dict]]:
    """Steady state: caches emptied, the warm-up sample run, each measured hand timed once.
    `table`: a part's splits with no joker or one from the table (False: by the search, as
    before `few_jokers`)."""
    engine.TABLE_SPLITS = table
    try:
        clear_caches()
        for _, args in warm:
            path(*args)
        times, answers = [], []
        for _, args in measured:
            start = CLOCK()
            got = path(*args)
            times.append(CLOCK() - start)
            answers.append({t: sorted(v) for t, v in got.items()})
    finally:
        engine.TABLE_SPLITS = True
    return times, answers


PATHS = (("per-wait, searched splits (main)", per_wait, False),
         ("per-wait", per_wait, True), ("wait_readings", wait_readings, True))


def main(n: int = 500, repeat: int = 3) -> None:
    measured = [c for _, d in sample("waits", n, seed=101) if (c := case(d))]
    warm = [c for _, d in sample("waits", n, seed=202) if (c := case(d))]
    best: list[list[float]] = [[float("inf")] * len(measured) for _ in PATHS]
    first = None
    for _ in range(repeat):  # the whole run again, each hand's least time kept (a shared machine)
        for p, (_, path, table) in enumerate(PATHS):
            times, answers = run(path, measured, warm, table)
            first = first or answers
            assert answers == first
            best[p] = [min(a, b) for a, b in zip(best[p], times, strict=True)]
    print(f"hands with jokers: {len(measured)} of {n}; median CPU µs per hand (all its waits), "
          f"least of {repeat} runs")
    print("  jokers  hands  " + "  ".join(f"{name:>{max(len(name), 8)}}" for name, _, _ in PATHS)
          + "  main/wait_readings")
    groups: dict[str, list[int]] = {}
    for i, (held, _) in enumerate(measured):
        groups.setdefault(str(held) if held < 3 else "3+", []).append(i)
    groups["all"] = list(range(len(measured)))
    for name, idx in sorted(groups.items()):
        med = [statistics.median(best[p][i] for i in idx) * 1e6 for p in range(len(PATHS))]
        print(f"  {name:>6}  {len(idx):5}  " + "  ".join(
            f"{m:>{max(len(pn), 8)}.1f}" for m, (pn, _, _) in zip(med, PATHS, strict=True))
            + f"  {med[0] / med[-1]:.1f}×")


if __name__ == "__main__":
    main(*(int(a) for a in sys.argv[1:3]))
