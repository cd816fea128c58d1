"""Settlement speed (target: under 50 ms for 16 people) and transfer counts against the greedy baseline.

Timings need `pytest tests/bench --benchmark-enable`; the default run executes each once as a test.
Add `-s` to see the transfer-count comparison.
"""

from __future__ import annotations

import itertools
import random

import pytest

from scoring.settlement import greedy_settle, settle

TARGET_SECONDS = 0.050


def uniform_cents(rng: random.Random, people: int) -> dict[int, int]:
    """Arbitrary balances in cents: few hidden zero-sum groups."""
    values = [rng.randint(-20_000, 20_000) for _ in range(people - 1)]
    return dict(enumerate([*values, -sum(values)]))


def mahjong_night(rng: random.Random, people: int, stake_cents: int = 50) -> dict[int, int]:
    """Balances as tables produce them: hands among 4 of the people, the winner paid by the other
    three in doubling amounts, times a stake. Round numbers, so zero-sum groups are common."""
    points = dict.fromkeys(range(people), 0)
    for _ in range(rng.randint(8, 40)):
        table = rng.sample(range(people), 4)
        owed = rng.choice((1, 2, 4, 8, 16))
        for loser in table[1:]:
            points[loser] -= owed
            points[table[0]] += owed
    return {p: v * stake_cents for p, v in points.items()}


def worst_case() -> dict[int, int]:
    """Many equal amounts: thousands of zero-sum subsets for the DP to go through."""
    return dict(enumerate([1] * 10 + [2] * 3 + [-5, -5, -6]))


def check_timing(benchmark) -> None:
    if benchmark.stats:  # only when timing is enabled
        assert benchmark.stats.stats.mean < TARGET_SECONDS


def each_in_turn(function, cases):
    """One call per round, on the next case: the mean is per table, over varied tables."""
    turn = itertools.cycle(cases)
    return lambda: function(next(turn))


@pytest.mark.parametrize("make", [uniform_cents, mahjong_night], ids=["uniform", "mahjong"])
def test_settle_16_people(benchmark, make):
    rng = random.Random(16)
    cases = [make(rng, 16) for _ in range(20)]
    assert benchmark(each_in_turn(settle, cases))
    check_timing(benchmark)


def test_settle_16_people_worst_case(benchmark):
    assert len(benchmark(settle, worst_case())) == 13
    check_timing(benchmark)


def test_greedy_16_people(benchmark):
    """The baseline's speed, for scale."""
    rng = random.Random(16)
    assert benchmark(each_in_turn(greedy_settle, [uniform_cents(rng, 16) for _ in range(20)]))


@pytest.mark.parametrize("make", [uniform_cents, mahjong_night], ids=["uniform", "mahjong"])
def test_transfers_vs_greedy(make):
    rng = random.Random(200)
    ours = theirs = fewer = 0
    for _ in range(200):
        balances = make(rng, rng.randint(6, 16))
        mine, greedy = len(settle(balances)), len(greedy_settle(balances))
        assert mine <= greedy, balances
        ours, theirs, fewer = ours + mine, theirs + greedy, fewer + (mine < greedy)
    print(f"\n{make.__name__}: 200 cases of 6-16 people: settle {ours / 200:.2f} transfers on average,"
          f" greedy {theirs / 200:.2f}, ratio {ours / theirs:.3f}; fewer in {fewer} cases")
