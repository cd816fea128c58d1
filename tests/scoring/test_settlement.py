"""Settlement: exact cents, fewest transfers (checked against brute force), money helpers."""

from __future__ import annotations

import random
from collections.abc import Mapping

import pytest
from hypothesis import given
from hypothesis import strategies as st

from scoring.settlement import (
    EXACT_LIMIT,
    Transfer,
    format_cents,
    greedy_settle,
    money_balances,
    parse_stake,
    settle,
    to_cents,
)

# --- independent references ----------------------------------------------------------------------


def brute_min_by_transfers(amounts: list[int]) -> int:
    """Search over transfer sequences: someone settles their whole balance with someone of the
    other sign, and the search tries every such someone (the classic backtracking)."""
    debts = [a for a in amounts if a]

    def search(start: int) -> int:
        while start < len(debts) and debts[start] == 0:
            start += 1
        if start == len(debts):
            return 0
        best = len(debts)
        for j in range(start + 1, len(debts)):
            if debts[j] * debts[start] < 0:
                debts[j] += debts[start]
                best = min(best, 1 + search(start + 1))
                debts[j] -= debts[start]
        return best

    return search(0)


def brute_min_by_partitions(amounts: list[int]) -> int:
    """n − (most blocks) over every set partition whose blocks all sum to zero."""
    values = [a for a in amounts if a]
    best = 0

    def assign(i: int, blocks: list[int]) -> None:
        nonlocal best
        if i == len(values):
            if not any(blocks):
                best = max(best, len(blocks))
            return
        for b in range(len(blocks)):
            blocks[b] += values[i]
            assign(i + 1, blocks)
            blocks[b] -= values[i]
        blocks.append(values[i])
        assign(i + 1, blocks)
        blocks.pop()

    assign(0, [])
    return len(values) - best


def apply(balances: Mapping, transfers: list[Transfer]) -> dict:
    left = dict(balances)
    for t in transfers:
        left[t.payer] += t.cents  # paying clears a debt (negative balance)
        left[t.payee] -= t.cents
    return left


def check_settles(balances: Mapping, transfers: list[Transfer]) -> None:
    assert all(v == 0 for v in apply(balances, transfers).values())
    for t in transfers:
        assert type(t.cents) is int and t.cents > 0
        assert t.payer != t.payee
        assert balances[t.payer] < 0 < balances[t.payee]  # only debtors pay, only creditors receive


def zero_sum(values: list[int]) -> dict[str, int]:
    values = [*values, -sum(values)]
    return {f"p{i}": v for i, v in enumerate(values)}


# Small values make many zero-sum subgroups (the hard part); large ones look like real cents.
amount = st.one_of(st.integers(-6, 6), st.integers(-10_000, 10_000).map(lambda c: c * 50),
                   st.integers(-10**6, 10**6))

@st.composite
def grouped(draw) -> dict[str, int]:
    """Zero-sum groups hidden in a shuffled table: where fewest transfers and greedy part ways."""
    values: list[int] = []
    people = draw(st.integers(2, 9))
    while len(values) < people - 1:
        group = draw(st.lists(amount, min_size=1, max_size=min(4, 8 - len(values))))
        values += [*group, -sum(group)]
    return zero_sum(draw(st.permutations(values))[:8])


small_tables = st.one_of(st.lists(amount, min_size=1, max_size=8).map(zero_sum), grouped())


# --- optimality and exactness --------------------------------------------------------------------

@given(small_tables)
def test_settle_is_exact_and_minimal(balances):
    transfers = settle(balances)
    check_settles(balances, transfers)
    amounts = list(balances.values())
    assert len(transfers) == brute_min_by_transfers(amounts)
    if len(amounts) <= 8:
        assert len(transfers) == brute_min_by_partitions(amounts)


@given(small_tables)
def test_never_more_than_greedy(balances):
    greedy = greedy_settle(balances)
    check_settles(balances, greedy)
    assert len(settle(balances)) <= len(greedy)


@given(small_tables, st.randoms(use_true_random=False))
def test_same_input_same_list(balances, rnd):
    shuffled = list(balances.items())
    rnd.shuffle(shuffled)
    assert settle(balances) == settle(dict(shuffled)) == settle(balances)


def test_fewer_than_greedy_when_groups_hide():
    # Greedy: e→d 5, a→b 3, a→c 2, e→c 1. Seeing the groups {a, d} and {b, c, e}: 3 transfers.
    balances = {"a": -5, "b": 3, "c": 3, "d": 5, "e": -6}
    assert len(greedy_settle(balances)) == 4
    assert settle(balances) == [Transfer("a", "d", 5), Transfer("e", "b", 3), Transfer("e", "c", 3)]
    # No opposite pairs here, so only the subset DP finds {b, c, e} and {a, d, f}.
    balances = {"a": 8, "b": -9, "c": 6, "d": -7, "e": 3, "f": -1}
    assert len(greedy_settle(balances)) == 5
    assert settle(balances) == [Transfer("b", "c", 6), Transfer("b", "e", 3),
                                Transfer("d", "a", 7), Transfer("f", "a", 1)]


def test_known_examples():
    assert settle({"a": 0, "b": 0}) == []
    assert settle({}) == []
    assert settle({"a": 500, "b": -500}) == [Transfer("b", "a", 500)]
    assert settle({"东": 300, "南": -100, "西": -200, "北": 0}) == [
        Transfer("南", "东", 100), Transfer("西", "东", 200)]
    # Two pairs and a triple: 7 people, 3 groups, 4 transfers.
    balances = {"a": 9, "b": -9, "c": 4, "d": -4, "e": 5, "f": 3, "g": -8}
    check_settles(balances, settle(balances))
    assert len(settle(balances)) == 4


def test_sixteen_people():
    rng = random.Random(16)
    for _ in range(20):
        balances = zero_sum([rng.randint(-50_000, 50_000) for _ in range(15)])
        check_settles(balances, settle(balances))
        assert len(settle(balances)) <= len(greedy_settle(balances))
    # Built from 6 zero-sum groups of distinct sizes: at least 6 groups, so at most 16 − 6 transfers.
    groups = [[5, -5], [7, 11, -18], [13, 17, -14, -16], [23, -23], [29, 31, -60], [37, -37]]
    balances = {f"p{i}": v for i, v in enumerate(v for g in groups for v in g)}
    assert len(balances) == 16
    check_settles(balances, settle(balances))
    assert len(settle(balances)) <= 16 - len(groups)
    # Many equal amounts: the DP's worst case for zero-sum subsets.
    for values, fewest in (([1] * 10 + [2] * 3 + [-5, -5, -6], 13), ([3] * 4 + [-1] * 12, 12),
                           ([1] * 8 + [-1] * 8, 8), ([2] * 6 + [-3] * 4 + [1, 1, -1, -1, 5, -5], 11)):
        balances = dict(enumerate(values))
        transfers = settle(balances)
        check_settles(balances, transfers)
        assert len(transfers) == fewest


def test_more_than_the_exact_limit_uses_the_heuristic_and_settles_exactly():
    rng = random.Random(17)
    for n in (EXACT_LIMIT + 1, 25, 60):
        for _ in range(5):
            balances = zero_sum([rng.randint(-9_999, 9_999) for _ in range(n - 1)])
            transfers = settle(balances)
            check_settles(balances, transfers)
            assert len(transfers) <= n - 1
    # Pairs and triples are found even among many people: 10 pairs + 4 triples = 32 people, 18 transfers.
    values = [v for k in range(1, 11) for v in (k * 101, -k * 101)]
    values += [v for k in range(1, 5) for v in (k * 7, k * 1000, -(k * 1007))]
    rng.shuffle(values)
    balances = dict(enumerate(values))
    transfers = settle(balances)
    check_settles(balances, transfers)
    assert len(transfers) == 10 + 2 * 4


def test_mixed_key_types_keep_mapping_order():
    balances = {"a": -300, 2: 100, (3,): 200}
    transfers = settle(balances)
    check_settles(balances, transfers)
    assert transfers == settle(balances)


# --- input errors ------------------------------------------------------------------------------------

def test_non_zero_sum_raises():
    with pytest.raises(ValueError, match=r"sum to zero.*sum to 1 cents"):
        settle({"a": 100, "b": -99})
    with pytest.raises(ValueError, match="sum to zero"):
        greedy_settle({"a": 1})


@pytest.mark.parametrize("bad", [0.5, "1", True, None])
def test_non_integer_balances_raise(bad):
    with pytest.raises(ValueError, match="integer cents"):
        settle({"a": bad, "b": 0})


# --- money helpers -----------------------------------------------------------------------------------

@given(st.lists(st.integers(-10**6, 10**6), min_size=1, max_size=10), st.integers(1, 10**4))
def test_money_balances_keep_every_cent(points, stake):
    totals = zero_sum(points)
    money = money_balances(totals, stake)
    assert sum(money.values()) == 0
    assert money == {k: to_cents(v, stake) for k, v in totals.items()}
    check_settles(money, settle(money))


@pytest.mark.parametrize(("text", "cents"), [
    ("0.5", 50), ("2", 200), (" 1.25 ", 125), ("0.50", 50), ("0.500", 50), ("3.", 300),
    (".05", 5), ("0.01", 1), ("100", 10000),
])
def test_parse_stake(text, cents):
    assert parse_stake(text) == cents


@pytest.mark.parametrize("text", ["0.005", "1.001", "0", "0.00", "-1", "", "abc", "1e2", "nan",
                                  "Infinity", "1,5", "+1"])
def test_parse_stake_rejects(text):
    with pytest.raises(ValueError):
        parse_stake(text)


@pytest.mark.parametrize(("cents", "text"), [
    (1250, "12.50"), (-305, "-3.05"), (0, "0.00"), (5, "0.05"), (-5, "-0.05"), (100000, "1000.00"),
])
def test_format_cents(cents, text):
    assert format_cents(cents) == text


@given(st.integers(-10**9, 10**9))
def test_format_cents_round_trips(cents):
    from decimal import Decimal
    assert Decimal(format_cents(cents)) * 100 == cents
