"""bot/plumbing/ratelimit.py: a 429 pauses only the chat it was for (all requests when it named no chat),
retries up to max_retries, then lets RetryAfter surface."""

from __future__ import annotations

import asyncio
import datetime as dt
import time
from typing import Any

import pytest
from telegram.error import RetryAfter

from bot.plumbing.ratelimit import ChatRateLimiter

pytestmark = pytest.mark.filterwarnings("ignore::telegram.warnings.PTBDeprecationWarning")

WAIT = dt.timedelta(seconds=0.3)  # paused for WAIT + 0.1 s


class Api:
    """Callbacks that log each call and answer 429 as told."""

    def __init__(self) -> None:
        self.calls: list[str] = []
        self.times: list[float] = []  # monotonic, one per call
        self.refuse: dict[str, int] = {}  # name: 429s still to give
        self.first_429 = asyncio.Event()

    async def call(self, limiter: ChatRateLimiter, name: str, chat_id: Any = None,
                   retries: int | None = None) -> str:
        async def callback() -> dict[str, Any]:
            self.calls.append(name)
            self.times.append(time.monotonic())
            if self.refuse.get(name):
                self.refuse[name] -= 1
                self.first_429.set()
                raise RetryAfter(WAIT)
            return {"name": name}

        data = {} if chat_id is None else {"chat_id": chat_id}
        result = await limiter.process_request(callback, (), {}, "sendMessage", data, retries)
        return result["name"]  # type: ignore[index]


async def test_a_429_pauses_only_its_chat() -> None:
    limiter, api = ChatRateLimiter(max_retries=5), Api()
    api.refuse["busy"] = 1
    busy = asyncio.create_task(api.call(limiter, "busy", -1))
    await api.first_429.wait()
    assert limiter.paused(-1) > 0 and limiter.paused(-2) == 0 and limiter.paused(None) == 0
    later_busy = asyncio.create_task(api.call(limiter, "busy again", "-1"))  # same chat as a str
    assert await api.call(limiter, "quiet", -2) == "quiet"
    assert await api.call(limiter, "no chat") == "no chat"
    assert await busy == "busy" and await later_busy == "busy again"
    assert api.calls[:3] == ["busy", "quiet", "no chat"], api.calls
    assert sorted(api.calls[3:]) == ["busy", "busy again"]


async def test_a_429_without_a_chat_pauses_everything() -> None:
    limiter, api = ChatRateLimiter(max_retries=5), Api()
    api.refuse["callback answer"] = 1
    first = asyncio.create_task(api.call(limiter, "callback answer"))
    await api.first_429.wait()
    assert limiter.paused(-2) > 0
    assert await api.call(limiter, "chat", -2) == "chat"
    assert await first == "callback answer"
    assert sorted(api.calls) == ["callback answer", "callback answer", "chat"]
    waited = api.times[api.calls.index("chat")] - api.times[0]
    assert waited >= WAIT.total_seconds()  # not before the pause was over


async def test_retry_after_surfaces_after_max_retries() -> None:
    limiter, api = ChatRateLimiter(max_retries=1), Api()
    api.refuse["edit"] = 5
    with pytest.raises(RetryAfter):
        await api.call(limiter, "edit", -1)
    assert api.calls == ["edit", "edit"]  # one try and one retry
    api.calls.clear()
    with pytest.raises(RetryAfter):  # a call's own rate_limit_args wins
        await api.call(limiter, "edit", -1, retries=2)
    assert api.calls == ["edit"] * 3


async def test_the_overall_cap_lets_a_burst_through_at_once_and_never_holds_chatless_calls() -> None:
    # 3 per minute: the burst's size is the cap (as 30 a second lets 30 answers of a wave go at
    # once), the next one waits for the bucket to drain, calls without a chat do not count
    limiter, api = ChatRateLimiter(overall_max_rate=3, overall_time_period=60), Api()
    burst = [asyncio.create_task(api.call(limiter, f"reply {n}", -n)) for n in range(1, 4)]
    assert sorted(await asyncio.gather(*burst)) == ["reply 1", "reply 2", "reply 3"]
    fourth = asyncio.create_task(api.call(limiter, "reply 4", -4))
    assert await api.call(limiter, "callback answer") == "callback answer"
    await asyncio.sleep(0.05)
    assert not fourth.done() and "reply 4" not in api.calls  # ~20 s to go
    fourth.cancel()
