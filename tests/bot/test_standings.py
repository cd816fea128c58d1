"""Hand numbers: standing hands count 1, 2, 3 …; an undone hand keeps the number it had."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta

from bot.chat.table import hand_numbers

T0 = datetime(2026, 1, 1)


@dataclass
class H:
    seq: int
    voided: bool = False
    voided_at: datetime | None = None


def numbers(hands: list[H]) -> list[int]:
    newest_first = sorted(hands, key=lambda h: -h.seq)
    got = hand_numbers(newest_first, sum(not h.voided for h in hands))
    return [got[h.seq] for h in sorted(hands, key=lambda h: h.seq)]


def test_no_undo_numbers_follow_the_sequence() -> None:
    assert numbers([H(1), H(2), H(3)]) == [1, 2, 3]


def test_a_hand_entered_after_an_undo_takes_its_number_again() -> None:
    assert numbers([H(1), H(2), H(3, True, T0), H(4)]) == [1, 2, 3, 3]


def test_undone_one_after_another_each_keeps_its_own_number() -> None:
    hands = [H(1, True, T0 + timedelta(1)), H(2, True, T0), H(3)]  # 2 undone, then 1, then 3
    assert numbers(hands) == [1, 2, 1]
    assert numbers([H(1), H(2, True, T0), H(3, True, T0 + timedelta(1)), H(4)]) == [1, 2, 2, 2]
