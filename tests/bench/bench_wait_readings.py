"""Every wait's readings of a hand holding jokers at once (`waits_engine.wait_readings`)
against the per-wait path (`readings` on `with_wait(bases, t)` for each waiting tile), issue 13.

    PYTHONPATH=. /work/venv/bin/python -m tests.bench.bench_wait_readings [n] [runs]

Samples: the `waits` benchmark's requests (`bench_tiles.sample("waits", n, seed=101)`, jokers as
held at a table), only the hands holding at least one joker. Three paths: the per-wait path with
the engine of the commit this branch started from (`BASE`, loaded beside this one), the
per-wait path, and `wait_readings`. For each
path, steady state: every cache emptied, the warm-up sample (seed 202) run once, then each
measured hand timed once, right after
`engine.waiting` found its waits (untimed, as `scored_waits` does), by CPU time
(`time.process_time`), all in this process, so no path finds another's memo of a measured hand.
The whole is run `runs` times (default 3) and each hand's least time kept (a shared machine).
The answers are compared as multisets. The whole `waits` command (which reads its waits with
`wait_readings`) is timed by `bench_tiles`.
"""

from __future__ import annotations

import statistics
import subprocess
import sys
import time
import types
from pathlib import Path
from typing import Any

from scoring import ScoringError
from scoring.tiles import clear_caches
from scoring.tiles.analysis import _candidates, _holdings, _split_jokers
from scoring.tiles.engine import readings, waiting
from scoring.tiles.features import SHAPES
from scoring.tiles.request import read_request, split_win
from scoring.tiles.waits_engine import wait_readings
from tests.bench.bench_tiles import sample
from tests.scoring.tiles_reference import with_wait

CLOCK = time.process_time
ROOT = Path(__file__).resolve().parents[2]


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
    """The per-wait path: each wait's holdings read one by one (scored_waits before wait_readings)."""
    return {t: [r for h in with_wait(bases, t) for r in readings(h, shapes)] for t in tiles}


BASE = "e50c5ba"  # the commit this branch started from: the baseline's engine


def engine_at(commit: str = BASE) -> Any:
    """`scoring.tiles.engine` as it was at `commit`, loaded beside this one (its own memos)."""
    source = subprocess.run(["git", "show", f"{commit}:scoring/tiles/engine.py"], check=True,
                            capture_output=True, text=True, cwd=ROOT).stdout
    name = "scoring.tiles._engine_base"
    module = types.ModuleType(name)
    module.__package__ = "scoring.tiles"
    sys.modules[name] = module
    exec(compile(source, f"{commit}:scoring/tiles/engine.py", "exec"), module.__dict__)
    return module


def clear_base(base: Any) -> None:
    for memo in (base._SPLITS, base._SUB, base._SUB_WILD, base._REL, base._OPTIONS):
        memo.clear()


def run(path: Any, measured: list, warm: list, base: Any = None,
        ) -> tuple[list[float], list[dict]]:
    """Steady state: caches emptied, the warm-up sample run, each measured hand timed once.
    `base`: the baseline's engine module, its memos emptied too."""
    clear_caches()
    if base is not None:
        clear_base(base)
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
    return times, answers


def per_wait_at(base: Any) -> Any:
    def path(bases: list, shapes: Any, tiles: list[int]) -> dict[int, list]:
        return {t: [r for h in with_wait(bases, t) for r in base.readings(h, shapes)]
                for t in tiles}
    return path


def main(n: int = 500, repeat: int = 3) -> None:
    measured = [c for _, d in sample("waits", n, seed=101) if (c := case(d))]
    warm = [c for _, d in sample("waits", n, seed=202) if (c := case(d))]
    base = engine_at()
    paths = ((f"per-wait ({BASE})", per_wait_at(base), base), ("per-wait", per_wait, None),
             ("wait_readings", wait_readings, None))
    best: list[list[float]] = [[float("inf")] * len(measured) for _ in paths]
    first = None
    for _ in range(repeat):  # the whole run again, each hand's least time kept (a shared machine)
        for p, (_, path, module) in enumerate(paths):
            times, answers = run(path, measured, warm, module)
            first = first or answers
            assert answers == first
            best[p] = [min(a, b) for a, b in zip(best[p], times, strict=True)]
    print(f"hands with jokers: {len(measured)} of {n}; median CPU µs per hand (all its waits), "
          f"least of {repeat} runs")
    print("  jokers  hands  " + "  ".join(f"{name:>{max(len(name), 8)}}" for name, _, _ in paths)
          + "  base/wait_readings")
    groups: dict[str, list[int]] = {}
    for i, (held, _) in enumerate(measured):
        groups.setdefault(str(held) if held < 3 else "3+", []).append(i)
    groups["all"] = list(range(len(measured)))
    for name, idx in sorted(groups.items()):
        med = [statistics.median(best[p][i] for i in idx) * 1e6 for p in range(len(paths))]
        print(f"  {name:>6}  {len(idx):5}  " + "  ".join(
            f"{m:>{max(len(pn), 8)}.1f}" for m, (pn, _, _) in zip(med, paths, strict=True))
            + f"  {med[0] / med[-1]:.1f}×")


if __name__ == "__main__":
    args = [a for a in sys.argv[1:] if not a.startswith("--")]
    main(*[int(a) for a in args[:2]])
