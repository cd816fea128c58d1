"""Turn balances into money and propose the fewest transfers that settle them. Pure: no I/O, no clock.

Balances are integer cents per person (positive: is owed; negative: owes) and must sum to zero.
Everything stays an integer, so no cent is ever lost to rounding.

Fewest transfers: with n non-zero balances, the minimum is n − k, where k is the largest number of
groups the people can be split into so that each group sums to zero (each group of size s settles
in s − 1 payments, and no settlement does better). `settle` finds k exactly with a subset DP when at
most `EXACT_LIMIT` balances are left after pairing off exact opposites, and uses a heuristic above.
"""

from __future__ import annotations

import heapq
import re
from collections import defaultdict
from collections.abc import Hashable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from decimal import Decimal, InvalidOperation
from functools import lru_cache
from typing import Generic, TypeVar

K = TypeVar("K", bound=Hashable)

# 2^16 subsets is still a few milliseconds; each extra person doubles the work.
EXACT_LIMIT = 16


@dataclass(frozen=True)
class Transfer(Generic[K]):
    """`payer` pays `payee` this many cents (always > 0)."""

    payer: K
    payee: K
    cents: int


# --- money -------------------------------------------------------------------------------------

def to_cents(points: int, stake_cents: int) -> int:
    """Points times the stake per point, in cents."""
    return points * stake_cents


def money_balances(totals_by_person: Mapping[K, int], stake_cents: int) -> dict[K, int]:
    """Point totals to cent balances; integers throughout, so they still sum to zero."""
    return {person: to_cents(points, stake_cents) for person, points in totals_by_person.items()}


_STAKE = re.compile(r"\d+(?:\.\d*)?|\.\d+", re.ASCII)  # not ², １２


def parse_stake(text: str) -> int:
    """A stake per point such as "0.5" or "2" to integer cents; sub-cent stakes are refused."""
    cleaned = text.strip()
    if not _STAKE.fullmatch(cleaned):
        raise ValueError(f"stake must be a plain positive amount like 0.5 or 2, not {text!r}")
    try:
        cents = Decimal(cleaned) * 100
    except InvalidOperation as exc:  # pragma: no cover - the regex already rules this out
        raise ValueError(f"stake {text!r} is not a number") from exc
    if cents != cents.to_integral_value():
        raise ValueError(f"stake {text!r} has a fraction of a cent")
    if cents <= 0:
        raise ValueError(f"stake must be more than zero, not {text!r}")
    return int(cents)


def format_cents(cents: int) -> str:
    """12.50, -3.05, 0.00: a plain two-decimal amount without currency."""
    sign = "-" if cents < 0 else ""
    whole, part = divmod(abs(cents), 100)
    return f"{sign}{whole}.{part:02d}"


# --- settlement --------------------------------------------------------------------------------

def settle(balances: Mapping[K, int]) -> list[Transfer[K]]:
    """The fewest transfers that bring every balance to zero (exact up to `EXACT_LIMIT` people).

    Steps, each keeping the count minimal: drop zero balances; pair off exact opposites (x, −x)
    (an optimal settlement can always pay those as one transfer); split the rest into the most
    zero-sum groups with the subset DP; settle each group largest-debtor-first, which takes
    exactly size − 1 transfers in a group with no smaller zero-sum part.

    Above the limit the grouping is a heuristic: after the pairs, take zero-sum triples while more
    than `EXACT_LIMIT` people are left, then use the exact DP if that brought it under the limit,
    else plain greedy on the rest. It always settles exactly; it may use a few more transfers.
    """
    people, amounts = _nonzero(balances)
    groups, rest = _opposite_pairs(amounts)
    while len(rest) > EXACT_LIMIT:
        triple = _zero_sum_triple(amounts, rest)
        if triple is None:
            break
        groups.append(triple)
        rest = [i for i in rest if i not in triple]
    if len(rest) <= EXACT_LIMIT:
        groups += _max_zero_sum_groups(amounts, rest)
    else:
        groups.append(rest)

    transfers = [t for group in groups for t in _greedy(amounts, group)]
    transfers.sort()  # (payer, payee) by person order: same input, same list
    return [Transfer(people[p], people[q], cents) for p, q, cents in transfers]


def greedy_settle(balances: Mapping[K, int]) -> list[Transfer[K]]:
    """The common ledger rule: the largest debtor pays the largest creditor, repeat.

    Kept as the baseline the benchmark compares `settle` against; at most n − 1 transfers.
    """
    people, amounts = _nonzero(balances)
    transfers = _greedy(amounts, range(len(amounts)))
    return [Transfer(people[p], people[q], cents) for p, q, cents in transfers]


def _nonzero(balances: Mapping[K, int]) -> tuple[list[K], list[int]]:
    """People with a non-zero balance in a stable order, and their balances."""
    for person, cents in balances.items():
        if not isinstance(cents, int) or isinstance(cents, bool):
            raise ValueError(f"balance of {person!r} must be integer cents, not {cents!r}")
    total = sum(balances.values())
    if total != 0:
        raise ValueError(f"balances must sum to zero, but they sum to {total} cents")
    people = [person for person, cents in balances.items() if cents]
    try:  # sortable keys give an order independent of how the mapping was built
        people = sorted(people)  # type: ignore[type-var]
    except TypeError:
        pass  # mixed keys: keep the mapping's own order
    return people, [balances[person] for person in people]


def _greedy(amounts: Sequence[int], group: Iterable[int]) -> list[tuple[int, int, int]]:
    """Largest debtor pays largest creditor within `group`, as (payer, payee, cents) by index.

    A zero-sum group that has no smaller zero-sum part takes exactly len(group) − 1 transfers.
    """
    # Heaps of (-size, index): ties go to the earlier person, so the result is deterministic.
    creditors = [(-amounts[i], i) for i in group if amounts[i] > 0]
    debtors = [(amounts[i], i) for i in group if amounts[i] < 0]
    heapq.heapify(creditors)
    heapq.heapify(debtors)
    transfers = []
    while creditors and debtors:
        owed, payee = heapq.heappop(creditors)
        owes, payer = heapq.heappop(debtors)
        cents = min(-owed, -owes)
        transfers.append((payer, payee, cents))
        if -owed > cents:
            heapq.heappush(creditors, (owed + cents, payee))
        if -owes > cents:
            heapq.heappush(debtors, (owes + cents, payer))
    return transfers


def _opposite_pairs(amounts: Sequence[int]) -> tuple[list[list[int]], list[int]]:
    """Pair each x with a −x. Safe for optimality: if x and −x sit in different groups of an optimal
    split, moving them out together leaves as many groups; if in one group, splitting adds one."""
    waiting: dict[int, list[int]] = defaultdict(list)
    pairs: list[list[int]] = []
    for i, cents in enumerate(amounts):
        if waiting[-cents]:
            pairs.append([waiting[-cents].pop(0), i])
        else:
            waiting[cents].append(i)
    paired = {i for pair in pairs for i in pair}
    return pairs, [i for i in range(len(amounts)) if i not in paired]


def _zero_sum_triple(amounts: Sequence[int], indexes: Sequence[int]) -> list[int] | None:
    """Some three of `indexes` whose amounts sum to zero, or None. O(n²) with a lookup table."""
    where: dict[int, list[int]] = defaultdict(list)
    for i in indexes:
        where[amounts[i]].append(i)
    for a, i in enumerate(indexes):
        for j in indexes[a + 1:]:
            for k in where.get(-amounts[i] - amounts[j], ()):
                if k > j:  # i < j < k in `indexes` order: each triple looked at once
                    return [i, j, k]
    return None


def _max_zero_sum_groups(amounts: Sequence[int], indexes: Sequence[int]) -> list[list[int]]:
    """Split `indexes` (summing to zero) into the largest number of zero-sum groups.

    Bit b of a subset mask stands for indexes[b]. Tables over all 2^n masks are kept as one big
    Python int with bit `mask` set (a bitset), so a pass over every mask is one int operation:
      zero   = masks summing to zero (the empty mask excluded);
      at[k]  = zero-sum masks that split into at least k zero-sum groups; at[1] = zero, and
      at[k+1] = zero masks that strictly contain some mask of at[k] (the rest is zero-sum too).
    The largest k with the full mask in at[k] is the answer; walking back recovers the groups.
    """
    n = len(indexes)
    if n == 0:
        return []
    zero_masks = _zero_sum_masks([amounts[i] for i in indexes])
    raw = bytearray((1 << n) // 8 + 1)
    for mask in zero_masks:
        raw[mask >> 3] |= 1 << (mask & 7)
    zero = int.from_bytes(raw, "little")
    everything, without = _bitset_masks(n)

    full = (1 << n) - 1
    at = [everything, zero]
    while at[-1] >> full & 1:
        supersets = at[-1]
        for b in range(n):
            supersets |= (supersets & without[b]) << (1 << b)
        strict = 0
        for b in range(n):
            strict |= (supersets & without[b]) << (1 << b)
        at.append(zero & strict)
    k = len(at) - 2  # at[k + 1] lacked the full mask

    # Walk back: the lowest member of `left` is in some group g with left − g splitting k − 1 ways.
    groups, left = [], full
    for level in range(k - 1, 0, -1):
        low = left & -left
        group = next(g for g in zero_masks
                     if g & low and g & left == g and g != left and at[level] >> (left ^ g) & 1)
        groups.append(group)
        left ^= group
    groups.append(left)
    return [[indexes[b] for b in range(n) if mask >> b & 1] for mask in groups]


def _zero_sum_masks(values: Sequence[int]) -> list[int]:
    """Every non-empty mask over `values` that sums to zero, met in the middle: the sums of the low
    and the high half's subsets (2^(n/2) each) are matched, instead of summing all 2^n masks."""
    half = len(values) // 2
    low_by_sum: dict[int, list[int]] = defaultdict(list)
    for mask, total in enumerate(_subset_sums(values[:half])):
        low_by_sum[total].append(mask)
    return [high << half | low
            for high, total in enumerate(_subset_sums(values[half:]))
            for low in low_by_sum.get(-total, ())
            if high or low]


def _subset_sums(values: Sequence[int]) -> list[int]:
    """sums[mask] for every mask over `values`, built by doubling."""
    sums = [0]
    for value in values:
        sums += [s + value for s in sums]
    return sums


@lru_cache(maxsize=EXACT_LIMIT + 1)
def _bitset_masks(n: int) -> tuple[int, tuple[int, ...]]:
    """The bitset of all 2^n masks, and per bit b the bitset of masks lacking b.

    (table & without[b]) << 2^b then moves every mask of `table` lacking b to the mask with b.
    """
    size = 1 << n
    without = []
    for b in range(n):
        pattern, width = (1 << (1 << b)) - 1, 2 << b  # 2^b ones, then 2^b zeros, repeated
        while width < size:
            pattern |= pattern << width
            width *= 2
        without.append(pattern)
    return (1 << size) - 1, tuple(without)
