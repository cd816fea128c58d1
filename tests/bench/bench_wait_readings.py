"""Every wait's readings of a hand holding jokers at once (`waits_engine.wait_readings`)
against the per-wait path (`readings` on `with_wait(bases, t)` for each waiting tile), issue 13.

    PYTHONPATH=. /work/venv/bin/python -m tests.bench.bench_wait_readings [n] [runs]

Samples: the `waits` benchmark's requests (`bench_tiles.sample("waits", n, seed=101)`, jokers as
held at a table), only the hands holding at least one joker. Three paths: the per-wait path with
the engine as on main (`_split_info_main`), the per-wait path, and `wait_readings`. For each
path, steady state: every cache emptied, the warm-up sample (seed 202) run once, then each
measured hand timed once, right after
`engine.waiting` found its waits (untimed, as `scored_waits` does), by CPU time
(`time.process_time`), all in this process, so no path finds another's memo of a measured hand.
The whole is run `runs` times (default 3) and each hand's least time kept (a shared machine).
The answers are compared as multisets.
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
from scoring.tiles.reading import Group
from scoring.tiles.request import read_request, split_win
from scoring.tiles.waits_engine import wait_readings
from tests.bench.bench_tiles import sample

CLOCK = time.process_time


def case(data: dict[str, Any]) -> tuple[int, Any] | None:
    """(jokers held, (bases, shapes, waiting tiles, the call to `waiting`)), or None for a hand
    without jokers."""
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
    ask = (counts, wild, table.melds, shapes, _candidates(table, hand))
    return held, (_holdings(table, hand, None), shapes, waiting(*ask), ask)


def per_wait(bases: list, shapes: Any, tiles: list[int]) -> dict[int, list]:
    """What `analysis.scored_waits` reads today: each wait's holdings, one by one."""
    return {t: [r for h in with_wait(bases, t) for r in readings(h, shapes)] for t in tiles}


def _split_info_main(offset: int, base: int, size: int, raw: tuple) -> engine.Split:
    """`engine._split_info` as on main (each group made anew): the baseline's."""
    ident = [0] * size
    chow = pair_wild = set_wild = False
    set_real = pair_real = 0
    shift = offset - base
    groups = []
    for kind, tiles, wilds in raw:
        mask = 0
        for t, w in zip(tiles, wilds, strict=True):
            ident[t - base] += 1
            if not w:
                mask |= 1 << (t - base)
        if kind == "pair":
            pair_wild, pair_real = True in wilds, mask
        else:
            chow = chow or kind == "chow"
            set_wild = set_wild or True in wilds
            set_real |= mask
        groups.append(Group(kind, tuple([t + shift for t in tiles]) if shift else tiles, wilds))
    return engine.Split(tuple(groups), tuple(ident), chow, pair_wild, set_wild, set_real,
                        pair_real)


def run(path: Any, measured: list, warm: list, main: bool = False,
        ) -> tuple[list[float], list[dict]]:
    """Steady state: caches emptied, the warm-up sample run, each measured hand timed once.
    `main`: the engine as on main (`_split_info_main`)."""
    mine = engine._split_info
    if main:
        engine._split_info = _split_info_main
    try:
        clear_caches()
        for _, (*args, ask) in warm:
            waiting(*ask)
            path(*args)
        times, answers = [], []
        for _, (*args, ask) in measured:
            waiting(*ask)  # as `scored_waits` does first (its needs are the parts' needs)
            start = CLOCK()
            got = path(*args)
            times.append(CLOCK() - start)
            answers.append({t: sorted(v) for t, v in got.items()})
    finally:
        engine._split_info = mine
    return times, answers


PATHS = (("per-wait (main)", per_wait, True), ("per-wait", per_wait, False),
         ("wait_readings", wait_readings, False))


def main(n: int = 500, repeat: int = 3) -> None:
    measured = [c for _, d in sample("waits", n, seed=101) if (c := case(d))]
    warm = [c for _, d in sample("waits", n, seed=202) if (c := case(d))]
    best: list[list[float]] = [[float("inf")] * len(measured) for _ in PATHS]
    first = None
    for _ in range(repeat):  # the whole run again, each hand's least time kept (a shared machine)
        for p, (_, path, main) in enumerate(PATHS):
            times, answers = run(path, measured, warm, main)
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
