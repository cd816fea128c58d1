"""Who waits for whom: updates of different chats run concurrently, updates of one chat in the
order Telegram sent them. One chat's slow write (a locked SQLite file, a slow PostgreSQL) then
holds up only that chat.

Across processes (several webhook workers on one PostgreSQL) an update is handled in its chat's
turn (`Store.chat_turn`, an advisory lock): one chat's updates one at a time, whichever worker
got them, so two workers never handle one chat at once. In order: Telegram sends a chat's next
update only once the previous one was answered, and a worker answers once the update was
handled, so a chat's updates are handled in update_id order. When one chat's updates do reach
two workers at once (Telegram delivering an update again that a worker still handles, after a
proxy lost the connection; any sender that does not wait) they take turns in the order they
came for the chat: one that comes while another worker handles the chat waits for it. (A
worker cannot hold back an update for an earlier one that has not reached any worker: update
ids are shared by all chats, so it cannot know one is missing.) A chat held elsewhere for
TURN_WAIT is answered "busy".

Telegram is told an update arrived (the webhook's 200, the next getUpdates offset) only once
`handle` returned for it: a process killed while handling it gets it again after a restart.
Such a redelivery is recognised by the store (`db.delivering`): what was booked is not booked
twice."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable
from typing import Any

from telegram import Update
from telegram.ext import Application, BaseUpdateProcessor

from db import DatabaseBusy, Store, delivering

# Updates handed to the processor at once (PTB's semaphore). Waiting for a chat's turn holds
# one of these, so it is large; RUNNING bounds the updates actually being handled.
QUEUED = 4096
RUNNING = 64
# Of those, SOON at a time have the CPU to themselves until they wait longer than GIVE_WAY
# seconds (a lock, the database, the send cap): a burst of N chats is then handled roughly in
# arrival order, the first answered in milliseconds, instead of all N interleaved and every
# answer coming after most of the burst's work was done. A slow update only delays the others
# by GIVE_WAY. Three: one process is one core, and a few keep it busy across database round trips.
SOON = 3
GIVE_WAY = 0.05


def chat_key(update: object) -> int | None:
    """The chat an update belongs to (a user's own key when it has no chat), None for
    updates that concern nobody in particular."""
    if not isinstance(update, Update):
        return None
    if update.effective_chat is not None:
        return update.effective_chat.id
    if update.effective_user is not None:
        return update.effective_user.id
    return None


class PerChatProcessor(BaseUpdateProcessor):
    """One chat's updates in turn, chats side by side.

    PTB starts one task per update in arrival order; each takes its chat's lock, and asyncio's
    locks are granted first come, first served, so a chat's updates run in arrival order."""

    def __init__(self, queued: int = QUEUED, running: int = RUNNING, soon: int = SOON,
                 give_way: float = GIVE_WAY) -> None:
        super().__init__(queued)
        self._running = asyncio.BoundedSemaphore(running)
        self._soon = asyncio.Semaphore(soon)
        self._give_way = give_way
        self._locks: dict[int, asyncio.Lock] = {}
        self._waiting: dict[int, int] = {}  # updates holding or awaiting each lock

    async def do_process_update(self, update: object, coroutine: Awaitable[Any]) -> None:
        key = chat_key(update)
        if key is None:
            async with self._running:
                await self._in_turn(update, key, coroutine)
            return
        lock = self._locks.setdefault(key, asyncio.Lock())
        self._waiting[key] = self._waiting.get(key, 0) + 1
        try:
            async with lock, self._running:
                await self._in_turn(update, key, coroutine)
        finally:
            self._waiting[key] -= 1
            if not self._waiting[key]:  # nobody else needs this chat's lock: forget it
                del self._waiting[key], self._locks[key]

    async def _in_turn(self, update: object, key: int | None, coroutine: Awaitable[Any]) -> None:
        """Handle the update among the SOON ones, or on its own once it took GIVE_WAY."""
        await self._soon.acquire()
        turn = _Turn(self._soon)
        timer = asyncio.get_running_loop().call_later(self._give_way, turn.end)
        try:
            await _delivered(update, key, coroutine)
        finally:
            timer.cancel()
            turn.end()

    async def initialize(self) -> None:
        pass

    async def shutdown(self) -> None:
        pass


class _Turn:
    """One update's place among the SOON: given back once, when it is done or slow."""

    def __init__(self, places: asyncio.Semaphore) -> None:
        self.places: asyncio.Semaphore | None = places

    def end(self) -> None:
        if self.places is not None:
            self.places.release()
            self.places = None


async def _delivered(update: object, key: int | None, coroutine: Awaitable[Any]) -> None:
    """Run the update's handlers with the store knowing which update they serve."""
    if not isinstance(update, Update):
        await coroutine
        return
    with delivering(update.update_id, key):
        await coroutine


async def handle(app: Application, update: object) -> None:
    """Process one update through the application's processor (its chat's turn, then the
    handlers) and return when it was handled: only then may Telegram be told it arrived."""
    await app.update_processor.process_update(update, _in_chat_turn(app, update))


async def _in_chat_turn(app: Application, update: object) -> None:
    """The handlers, in the chat's turn across processes (taken after this process's own turn
    for the chat, so the processes' locks are wanted by one update per chat at a time)."""
    store, key = app.bot_data.get("store"), chat_key(update)
    if not isinstance(store, Store) or key is None:
        await app.process_update(update)
        return
    entered = False
    try:
        async with store.chat_turn(key):
            entered = True
            await app.process_update(update)
    except DatabaseBusy as exc:
        if entered:
            raise
        await app.process_error(update, exc)  # the chat hears "busy", in its language
