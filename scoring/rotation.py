"""Dealer rotation shared by the variants."""

from __future__ import annotations


def next_seat(seat: int) -> int:
    """The seat after `seat` in turn order (下家)."""
    return (seat + 1) % 4


def next_streak(dealer: int, next_dealer: int, streak: int) -> int:
    """A dealer who stays adds one to the streak; a new dealer starts at 1."""
    return streak + 1 if next_dealer == dealer else 1


def pass_deal(dealer: int, round_wind: int) -> tuple[int, int]:
    """The deal passes to the next seat; the round wind advances when it comes back to seat 0."""
    nxt = next_seat(dealer)
    return nxt, (round_wind + 1) % 4 if nxt == 0 else round_wind


def first_in_turn(after: int, seats: list[int]) -> int:
    """Of `seats`, the first one after seat `after` in turn order (截胡 / who deals next)."""
    return min(seats, key=lambda s: (s - after - 1) % 4)
