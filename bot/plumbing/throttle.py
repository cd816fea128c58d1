"""Coalesced edits of one message: a screen tapped many times in a row (the tile keyboard) is
edited at most once per INTERVAL, and the last state wins. Telegram throttles rapid edits of one
message (429 Too Many Requests); the bot's rate limiter (ratelimit.py) already waits out a 429's
retry_after, and this keeps the keyboard from causing them.

    throttle = throttle_of(context)
    throttle.show(bot, chat_id, message_id, text, rows)            # queue; returns at once
    await throttle.show_now(bot, chat_id, message_id, text, rows)  # this state, waited for

A message the throttle has not edited lately is edited at once. Per process: updates of one chat
run in order (updates.py), so one process sees a message's taps in turn.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from telegram.constants import ParseMode
from telegram.error import BadRequest, RetryAfter

from .messages import Button, keyboard, one_message
from .ratelimit import retry_seconds

log = logging.getLogger(__name__)

INTERVAL = 1.0  # seconds between two edits of one message


@dataclass
class _Slot:
    last: float = 0.0  # when the last edit's answer came back (monotonic)
    latest: tuple[str, Sequence[Sequence[Button]]] | None = None
    task: asyncio.Task[None] | None = None
    sent: asyncio.Event = field(default_factory=asyncio.Event)


class EditThrottle:
    def __init__(self, interval: float = INTERVAL) -> None:
        self.interval = interval
        self._slots: dict[tuple[int, int], _Slot] = {}
        self.edits = 0  # edits sent (for tests and benchmarks)

    def recent(self, chat_id: int, message_id: int) -> bool:
        """The message was edited through the throttle within the interval, or will be."""
        slot = self._slots.get((chat_id, message_id))
        return slot is not None and (slot.latest is not None or
                                     time.monotonic() - slot.last < self.interval)

    def busy(self, chat_id: int, message_id: int) -> bool:
        """An edit of the message waits or is on its way: what the message shows now may not
        be what it will show."""
        slot = self._slots.get((chat_id, message_id))
        return slot is not None and (slot.latest is not None or
                                     (slot.task is not None and not slot.task.done()))

    def show(self, bot: Any, chat_id: int, message_id: int, text: str,
             rows: Sequence[Sequence[Button]] = ()) -> _Slot:
        """Make `text`/`rows` the message's next state; it is sent now, or when the interval
        since the last edit has passed (unless a later state replaced it first)."""
        key = (chat_id, message_id)
        slot = self._slots.setdefault(key, _Slot())
        slot.latest = (text, rows)
        slot.sent.clear()
        if slot.task is None or slot.task.done():
            slot.task = asyncio.get_running_loop().create_task(self._run(bot, key, slot))
        return slot

    async def show_now(self, bot: Any, chat_id: int, message_id: int, text: str,
                       rows: Sequence[Sequence[Button]] = ()) -> None:
        """As show, then wait until this state (or a later one) is on the message."""
        slot = self.show(bot, chat_id, message_id, text, rows)
        await slot.sent.wait()

    async def _run(self, bot: Any, key: tuple[int, int], slot: _Slot) -> None:
        try:
            while slot.latest is not None:
                wait = slot.last + self.interval - time.monotonic()
                if wait > 0:
                    await asyncio.sleep(wait)
                text, rows = slot.latest
                slot.latest = None
                try:
                    await bot.edit_message_text(one_message(text), chat_id=key[0], message_id=key[1],
                                                parse_mode=ParseMode.HTML,
                                                reply_markup=keyboard(rows))
                    self.edits += 1
                except RetryAfter as exc:  # past the rate limiter's own retries: later
                    if slot.latest is None:
                        slot.latest = (text, rows)
                    await asyncio.sleep(retry_seconds(exc))
                except BadRequest as exc:
                    if "not modified" not in str(exc).lower():
                        log.warning("edit of %s failed: %s", key, exc)
                except Exception:
                    log.exception("edit of %s failed", key)
                slot.last = time.monotonic()
                if slot.latest is None:
                    slot.sent.set()
        finally:
            slot.sent.set()
            self._forget_later(key, slot)

    def _forget_later(self, key: tuple[int, int], slot: _Slot) -> None:
        """Drop an idle slot once its interval is over (a long game keeps no state per message)."""
        def drop() -> None:
            if self._slots.get(key) is slot and slot.latest is None and (
                    slot.task is None or slot.task.done()):
                del self._slots[key]
        asyncio.get_running_loop().call_later(self.interval, drop)


def throttle_of(context: Any) -> EditThrottle:
    data = context.application.bot_data
    if "edit_throttle" not in data:
        data["edit_throttle"] = EditThrottle()
    return data["edit_throttle"]
