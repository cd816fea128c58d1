"""Coalesced edits (bot/plumbing/throttle.py): a run of states for one message becomes few edits, spaced
by the interval, the last state always shown; a 429 is waited out and the latest state sent."""

from __future__ import annotations

import asyncio
import itertools
import time
from datetime import timedelta
from typing import Any

import pytest
from telegram.error import RetryAfter

from bot.plumbing.throttle import EditThrottle


class Bot:
    """Records edits with their time; answers 429 to the edits listed in `refuse`."""

    def __init__(self, refuse: tuple[int, ...] = ()) -> None:
        self.edits: list[tuple[float, str]] = []
        self.calls = 0
        self.refuse = refuse

    async def edit_message_text(self, text: str, **_: Any) -> None:
        self.calls += 1
        if self.calls in self.refuse:
            raise RetryAfter(timedelta(seconds=0.2))
        self.edits.append((time.monotonic(), text))


async def test_a_burst_is_one_edit_with_its_last_state_and_the_next_waits() -> None:
    bot, throttle = Bot(), EditThrottle(interval=0.3)
    for i in range(10):  # taps handled before the edit could go out
        throttle.show(bot, 1, 7, f"state {i}")
    await throttle.show_now(bot, 1, 7, "state 10")
    await throttle.show_now(bot, 1, 7, "state 11")
    assert [text for _, text in bot.edits] == ["state 10", "state 11"]
    assert bot.edits[1][0] - bot.edits[0][0] >= 0.3


async def test_paced_states_are_spaced_by_the_interval_and_the_last_one_wins() -> None:
    bot, throttle = Bot(), EditThrottle(interval=0.2)
    for i in range(12):
        throttle.show(bot, 1, 7, f"state {i}")
        await asyncio.sleep(0.05)
    await throttle.show_now(bot, 1, 7, "last")
    times = [at for at, _ in bot.edits]
    assert all(b - a >= 0.2 for a, b in itertools.pairwise(times))
    assert 2 <= len(bot.edits) < 13 and bot.edits[-1][1] == "last"
    assert throttle.recent(1, 7) and not throttle.recent(1, 8)


@pytest.mark.filterwarnings("ignore::telegram.warnings.PTBDeprecationWarning")  # RetryAfter's own
async def test_a_429_is_waited_out_and_the_latest_state_sent() -> None:
    bot, throttle = Bot(refuse=(1,)), EditThrottle(interval=0.1)
    throttle.show(bot, 1, 7, "first")
    await asyncio.sleep(0.05)  # refused; meanwhile a newer state comes
    await throttle.show_now(bot, 1, 7, "second")
    assert [text for _, text in bot.edits] == ["second"]
