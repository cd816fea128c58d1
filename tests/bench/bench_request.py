"""Reading a tile request (issue 13): `read_request` + `split_win`, CPU time per call.

    PYTHONPATH=. .venv/bin/python -m tests.bench.bench_request [--old DIR] [--rounds N]

Issue 13's target: at least twice as fast as before (this module's first figures, same process:
old 14.6 / 15.6 µs, new 7.0 / 7.4 µs median for waits / analyze, clock included).

The requests are those of `bench_tiles.sample("waits" | "analyze", 500, seed=101)`, after a
warm-up on `sample(..., seed=202)` with every cache emptied first (the steady state of a bot
that has read other hands: the memos of rules, digit groups and melds filled, none of the very
requests measured). Each request is new to the call that reads it: the samples hold no two
alike (and none of the warm-up's), and each is read once per round.

`--old DIR` (say `git archive main | tar -x -C /tmp/oldreq`): that tree's `scoring` is loaded
in this same process beside this one, and each request is read by both in turn (the order
alternating), so the ratio is measured under the same load; first, every request of both
samples is read by both and the results compared (each field of the table and the split, or
the refusal's field, template and values). The clock is `time.process_time`;
its own cost (an empty call timed the same way) is shown, not taken off.
"""

from __future__ import annotations

import argparse
import importlib
import statistics
import sys
import time
from collections.abc import Callable
from typing import Any

CLOCK = time.process_time
N, SEED, WARM_SEED = 500, 101, 202
WANT = {"waits": 13, "analyze": 14}

Reader = Callable[[dict[str, Any], int], Any]


def _reader(request: Any) -> Reader:
    read_request, split_win = request.read_request, request.split_win

    def read(data: dict[str, Any], want: int) -> Any:
        return split_win(read_request(data), want)

    return read


def load_old(tree: str) -> tuple[Any, Callable[[], None], type[Exception]]:
    """The `scoring` package of `tree`, imported beside the current one (its modules are kept
    under their own objects; `sys.modules` is given back to this tree's)."""
    import scoring.tiles.request  # noqa: F401 - this tree's, first

    ours = {k: v for k, v in sys.modules.items() if k == "scoring" or k.startswith("scoring.")}
    for k in ours:
        del sys.modules[k]
    sys.path.insert(0, tree)
    try:
        errors = importlib.import_module("scoring.errors")
        tiles = importlib.import_module("scoring.tiles")
        request = importlib.import_module("scoring.tiles.request")
        importlib.import_module("scoring.tiles.tables")
        # what that tree imports on first use, while its modules are the ones found: the
        # variants (else they would join this tree's registry and the old one know none)
        importlib.import_module("scoring.variant").all_variants()
        assert request.__file__.startswith(tree), request.__file__
    finally:
        sys.path.remove(tree)
        for k in [k for k in sys.modules if k == "scoring" or k.startswith("scoring.")]:
            del sys.modules[k]
        sys.modules.update(ours)
    return request, tiles.clear_caches, errors.ScoringError


def describe(read_request: Callable[[Any], Any], split_win: Callable[[Any, int], Any],
             data: Any, want: int) -> Any:
    """`outcome` in full: every field of the table, then the split (or the refusal)."""
    try:
        t = read_request(data)
        table = (t.req.model_dump(), type(t.req).__name__, t.variant.name, t.rules.model_dump(),
                 type(t.rules).__name__, t.jokers, t.hand, tuple(map(tuple, t.melds)), t.win,
                 t.flowers, t.rules_json, t.name)
        return table, split_win(t, want)
    except Exception as exc:  # either tree's ScoringError
        return ("refused", type(exc).__name__, getattr(exc, "field", None),
                getattr(exc, "template", str(exc)), getattr(exc, "params", None))


def _once(read: Reader, data: dict[str, Any], want: int, refused: tuple[type, ...]) -> float:
    start = CLOCK()
    try:
        read(data, want)
    except refused:
        pass
    return CLOCK() - start


def run(old_tree: str | None, rounds: int) -> None:
    from scoring import ScoringError
    from scoring.tiles import clear_caches
    from scoring.tiles import request as new_request
    from tests.bench.bench_tiles import sample

    readers: dict[str, tuple[Reader, Callable[[], None]]] = {}
    refused: tuple[type, ...] = (ScoringError,)
    old_request = None
    if old_tree:
        old_request, old_clear, old_error = load_old(old_tree)
        readers["old"] = (_reader(old_request), old_clear)
        refused += (old_error,)
    readers["new"] = (_reader(new_request), clear_caches)

    def empty(data: dict[str, Any], want: int) -> None:
        return None

    print(f"read_request + split_win, CPU µs per call (median / p90), {N} requests each, "
          f"{rounds} round(s)")
    for kind, want in WANT.items():
        cases = [data for _, data in sample(kind, N, seed=SEED)]
        warm = [data for _, data in sample(kind, N, seed=WARM_SEED)]
        if old_request is not None:  # the same tables and splits, the same refusals
            differ = [data for data in cases + warm
                      if describe(old_request.read_request, old_request.split_win, data, want)
                      != describe(new_request.read_request, new_request.split_win, data, want)]
            print(f"  {kind:8} {len(differ)} of {len(cases) + len(warm)} read differently"
                  + (f", first: {differ[0]}" if differ else ""))
        times: dict[str, list[float]] = {name: [] for name in readers}
        clock = []
        for read, clear in readers.values():
            clear()
            for data in warm:
                _once(read, data, want, refused)
        for r in range(rounds):
            for i, data in enumerate(cases):
                order = list(readers.items())
                if (i + r) % 2:
                    order.reverse()
                for name, (read, _) in order:
                    times[name].append(_once(read, data, want, refused))
                clock.append(_once(empty, data, want, refused))
        medians = {name: statistics.median(t) for name, t in times.items()}
        for name, t in times.items():
            p90 = sorted(t)[int(0.9 * (len(t) - 1))]
            print(f"  {kind:8} {name}: {medians[name] * 1e6:6.2f} / {p90 * 1e6:6.2f}")
        print(f"  {kind:8} clock itself: {statistics.median(clock) * 1e6:.2f}")
        if "old" in medians:
            print(f"  {kind:8} old / new: {medians['old'] / medians['new']:.2f}×")


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--old", help="another tree whose scoring to measure beside this one")
    parser.add_argument("--rounds", type=int, default=1,
                        help="times each request is read (the first time it is seen: 1)")
    args = parser.parse_args(argv)
    run(args.old, args.rounds)


if __name__ == "__main__":
    main()
