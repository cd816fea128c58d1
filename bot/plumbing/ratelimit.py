"""A rate limiter that waits out Telegram's 429s per chat: a busy group pays its own flood penalty
and every other chat goes on.

PTB's AIORateLimiter answers any 429 (RetryAfter) by pausing every request of the bot for
retry_after seconds. Telegram throttles per chat (about 20 messages a minute in a group) and
answers a too-busy chat with retry_after up to tens of seconds, so one busy group would freeze
the bot for everyone. This one:

- caps requests that name a chat at 30 per second overall (Telegram's bot-wide limit; 0 lifts
  the cap);
- on a 429 for a request with a chat_id, pauses only that chat: its requests (this one's retry
  and any later ones) wait until retry_after + 0.1 s has passed, others go on at once;
- on a 429 for a request without a chat_id (answerCallbackQuery, getUpdates…), pauses all
  requests, as AIORateLimiter does;
- retries a request up to `max_retries` times (or `rate_limit_args` of the call), then lets the
  RetryAfter surface (bot/plumbing/throttle.py relies on that to retry an edit later).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
import warnings
from collections.abc import Callable, Coroutine
from typing import Any

from aiolimiter import AsyncLimiter
from telegram.error import RetryAfter
from telegram.ext import BaseRateLimiter
from telegram.warnings import PTBDeprecationWarning

log = logging.getLogger(__name__)

Result = bool | dict[str, Any] | list[dict[str, Any]]
ChatKey = int | str
MAX_PAUSED = 512  # chats remembered as paused before expired pauses are swept


def retry_seconds(exc: RetryAfter) -> float:
    """retry_after in seconds, whether PTB gives an int or (PTB_TIMEDELTA) a timedelta."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", PTBDeprecationWarning)
        delay = exc.retry_after
    return float(delay) if isinstance(delay, (int, float)) else delay.total_seconds()


class ChatRateLimiter(BaseRateLimiter[int]):
    def __init__(self, overall_max_rate: float = 30, overall_time_period: float = 1,
                 max_retries: int = 0) -> None:
        self._overall: AsyncLimiter | None = (
            AsyncLimiter(overall_max_rate, overall_time_period)
            if overall_max_rate and overall_time_period else None)  # 0: no cap (benchmarks)
        self._max_retries = max_retries
        self._paused_all_until = 0.0  # time.monotonic() deadlines
        self._paused_until: dict[ChatKey, float] = {}

    async def initialize(self) -> None:
        """Nothing to set up."""

    async def shutdown(self) -> None:
        """Nothing to release."""

    def paused(self, chat: ChatKey | None) -> float:
        """Seconds until requests for `chat` (None: without a chat) may go out again."""
        until = self._paused_all_until
        if chat is not None:
            until = max(until, self._paused_until.get(chat, 0.0))
        return max(0.0, until - time.monotonic())

    def _pause(self, chat: ChatKey | None, seconds: float) -> None:
        until = time.monotonic() + seconds
        if chat is None:
            self._paused_all_until = max(self._paused_all_until, until)
            return
        if len(self._paused_until) >= MAX_PAUSED:
            now = time.monotonic()
            self._paused_until = {k: v for k, v in self._paused_until.items() if v > now}
        self._paused_until[chat] = max(self._paused_until.get(chat, 0.0), until)

    async def _wait(self, chat: ChatKey | None) -> None:
        # A loop, not one sleep: the pause may be extended by another 429 meanwhile.
        while (delay := self.paused(chat)) > 0:
            await asyncio.sleep(delay)

    async def process_request(
        self,
        callback: Callable[..., Coroutine[Any, Any, Result]],
        args: Any,
        kwargs: dict[str, Any],
        endpoint: str,
        data: dict[str, Any],
        rate_limit_args: int | None,
    ) -> Result:
        max_retries = rate_limit_args or self._max_retries
        chat = _chat_key(data.get("chat_id"))
        for attempt in range(max_retries + 1):
            await self._wait(chat)
            try:
                if chat is None or self._overall is None:
                    return await callback(*args, **kwargs)
                async with self._overall:
                    return await callback(*args, **kwargs)
            except RetryAfter as exc:
                if attempt == max_retries:
                    log.exception("Rate limit hit after maximum of %d retries", max_retries,
                                  exc_info=exc)
                    raise
                sleep = retry_seconds(exc) + 0.1
                log.info("Rate limit hit (%s, chat %s). Retrying after %f seconds", endpoint,
                         "all" if chat is None else chat, sleep)
                self._pause(chat, sleep)
        raise AssertionError("unreachable")  # the loop returns or raises


def _chat_key(chat_id: Any) -> ChatKey | None:
    """The chat a request is for: an int id, or a @username as given (unknown: None)."""
    if chat_id is None:
        return None
    with contextlib.suppress(ValueError, TypeError):
        return int(chat_id)
    return str(chat_id)
