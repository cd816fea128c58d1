"""Polling that acknowledges an update only after it was handled.

getUpdates acknowledges every update below the `offset` it is given; there is no way to
acknowledge one update alone. PTB's Updater acknowledges an update when it fetches the next
batch, before the update was handled, so a process killed while handling one loses it. Here
the offset is the lowest update still being handled (or the next one when none is): a restart
gets every update that was not finished again, and the store recognises those whose change was
already committed (bot/plumbing/updates.py).

Updates are handled concurrently through the per-chat processor, so one chat's slow update
does not hold up the others: while some are being handled, getUpdates returns them again at
once (they are not acknowledged), together with any new ones. So the batch is fetched as raw
JSON and only the unseen updates are parsed (PTB's get_updates would build every Update of the
batch again, each time). While updates are being handled the loop asks again every POLL_BUSY
seconds (a new update waits for its fetch at most that long; at once after a full batch), and
goes back to the long poll the moment the last one finished. A stuck update delays what comes
after it only when 100 newer ones (a batch) arrived meanwhile; a stuck update is bounded by the
store's waits (a few seconds).
"""

from __future__ import annotations

import asyncio
import logging
import warnings
from contextlib import suppress
from typing import Any

from telegram import Update
from telegram.error import Conflict, InvalidToken, NetworkError, RetryAfter, TelegramError, TimedOut
from telegram.ext import Application
from telegram.warnings import PTBUserWarning

from .ratelimit import retry_seconds
from .updates import handle

log = logging.getLogger(__name__)
POLL_BUSY = 0.05  # seconds between getUpdates while updates are being handled
STOP_WAIT = 10.0  # seconds a clean stop waits for the updates being handled
MAX_BACKOFF = 30.0
BATCH = 100  # getUpdates' largest batch
READ_SLACK = 10.0  # seconds a getUpdates answer may take beyond its long-poll timeout


def _quiet_do_api_request_warning() -> None:
    """do_api_request("getUpdates") is how to get the batch as JSON; PTB warns that get_updates
    exists. (Filtered when a poller is made: filters set at import do not survive pytest's.)"""
    warnings.filterwarnings("ignore", message=r"Please use 'Bot\.getUpdates'",
                            category=PTBUserWarning)


class Poller:
    """getUpdates in a loop: `start()`, then `await stop()`."""

    def __init__(self, app: Application, *, timeout: int, allowed_updates: list[str]) -> None:
        self.app, self.timeout, self.allowed_updates = app, timeout, allowed_updates
        _quiet_do_api_request_warning()
        self._next = 0  # above every update fetched so far
        self._handling: dict[int, asyncio.Task[None]] = {}
        self._finished: set[int] = set()  # handled, but not yet below the offset
        self._idle = asyncio.Event()  # set when the last update being handled finished
        self._loop: asyncio.Task[None] | None = None
        self._stopping = False
        self._quick_poll = False  # in a getUpdates that answers at once

    @property
    def offset(self) -> int:
        """Every update below this one was handled."""
        return min(self._handling, default=self._next)

    def start(self) -> None:
        self._loop = asyncio.create_task(self._run(), name="poller")

    async def stop(self) -> None:
        """Stop fetching, let the updates being handled finish (bounded), acknowledge them."""
        self._stopping = True
        self._idle.set()
        if self._loop is not None:
            # A quick getUpdates is let finish: it holds the connection the acknowledgement
            # below needs. A long poll is abandoned (it acknowledged everything before it, and
            # nothing was being handled when it began), and so is a pause between polls.
            if not self._quick_poll:
                self._loop.cancel()
            await asyncio.gather(self._loop, return_exceptions=True)
            self._loop = None
        if self._handling:
            await asyncio.wait(list(self._handling.values()), timeout=STOP_WAIT)
        if self.offset:
            try:  # acknowledge what was handled (the updates returned stay on the server)
                await self.app.bot.get_updates(offset=self.offset, limit=1, timeout=0,
                                               allowed_updates=self.allowed_updates)
            except TelegramError as exc:
                log.warning("could not acknowledge the handled updates: %s", exc)

    async def _run(self) -> None:
        failures = 0
        first = True  # a quick look first: what waited while the bot was down starts at once
        while not self._stopping:
            self._idle.clear()  # before asking: the last update finishing meanwhile is noticed
            offset = self.offset
            timeout = 0 if first or self._handling else self.timeout
            try:
                batch = await self._fetch(offset, timeout)
                failures, first = 0, False
            except TimedOut:
                continue
            except RetryAfter as exc:
                await asyncio.sleep(retry_seconds(exc))
                continue
            except InvalidToken:
                log.error("Telegram refused the bot token; polling stops")
                raise
            except (Conflict, NetworkError, TelegramError) as exc:
                failures += 1
                delay = min(MAX_BACKOFF, 0.5 * 2 ** min(failures, 6))
                log.warning("getUpdates failed (%s); again in %.1f s", exc, delay)
                await asyncio.sleep(delay)
                continue
            self._finished = {i for i in self._finished if i >= offset}  # acknowledged now
            fresh = [raw for raw in batch if self._unseen(raw, offset)]
            for raw in fresh if not self._stopping else []:  # else: delivered again later
                self._begin(raw)
            if self._handling and not (fresh and len(batch) >= BATCH):
                # not a full batch of new ones: look again in a moment, or at once when the
                # last update being handled finished (the long poll then acknowledges them all)
                with suppress(TimeoutError):
                    await asyncio.wait_for(self._idle.wait(), POLL_BUSY)

    def _unseen(self, raw: Any, offset: int) -> bool:
        uid = raw.get("update_id") if isinstance(raw, dict) else None
        return (isinstance(uid, int) and uid >= offset and uid not in self._handling
                and uid not in self._finished)

    async def _fetch(self, offset: int, timeout: int) -> list[Any]:
        """The batch from `offset` on, as JSON: most of it may be updates being handled."""
        self._quick_poll = timeout == 0
        params: dict[str, Any] = {"timeout": timeout, "limit": BATCH,
                                  "allowed_updates": self.allowed_updates}
        if offset:
            params["offset"] = offset
        try:
            batch = await self.app.bot.do_api_request("getUpdates", api_kwargs=params,
                                                      read_timeout=timeout + READ_SLACK)
        finally:
            self._quick_poll = False
        return batch if isinstance(batch, list) else []

    def _begin(self, raw: dict[str, Any]) -> None:
        uid = raw["update_id"]
        self._next = max(self._next, uid + 1)
        try:
            update = Update.de_json(raw, self.app.bot)
            self.app.bot.insert_callback_data(update)  # as ExtBot.get_updates does
        except Exception:  # never handleable: acknowledged with the next poll, not retried
            log.exception("update %s could not be read: %.200r", uid, raw)
            self._finished.add(uid)
            return
        self._handling[uid] = asyncio.create_task(self._handle(update), name=f"update {uid}")

    async def _handle(self, update: Update) -> None:
        try:
            await handle(self.app, update)
        except Exception:  # the handlers' errors went to the error handler already
            log.exception("update %s could not be handled", update.update_id)
        finally:
            self._handling.pop(update.update_id, None)
            self._finished.add(update.update_id)
            if not self._handling:
                self._idle.set()
