"""Payment building blocks: ladders, caps and "each other seat pays"."""

from __future__ import annotations

from collections.abc import Iterable

from .outcome import Transfer


def doubling_ladder(step: int, start: tuple[int, ...]) -> int:
    """Value at `step` of a ladder that lists its first values and then doubles.

    doubling_ladder(k, (2, 5, 10)) → 2, 5, 10, 20, 40, …
    """
    if step < len(start):
        return start[step]
    return start[-1] * 2 ** (step - len(start) + 1)


def capped(amount: int, cap: int) -> int:
    """`cap` 0 means no cap."""
    return min(amount, cap) if cap else amount


def each_pays(payers: Iterable[int], payee: int, amount: int) -> list[Transfer]:
    """Every seat in `payers` pays `amount` to `payee`."""
    return [(p, payee, amount) for p in payers if p != payee and amount]


def pays_each(payer: int, payees: Iterable[int], amount: int) -> list[Transfer]:
    """`payer` pays `amount` to every seat in `payees`."""
    return [(payer, p, amount) for p in payees if p != payer and amount]
