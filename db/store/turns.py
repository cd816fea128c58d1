"""A chat's turn across processes: several bot workers on one PostgreSQL handle one chat's
updates one at a time. (Within a process the update processor already does; SQLite is one
process by nature, so there this is a no-op.)

The turn is a session-level advisory lock held by ONE connection per process, kept for that
purpose: a lock per update in flight would cost a pooled connection per update, and the
handlers need those. A session lock dies with its session, so a worker that crashed (or whose
host vanished: TCP keepalives below) holds no chat for long. PostgreSQL cannot make one session
wait for several locks at once, so a chat held elsewhere is tried again every few ms, up to
TURN_WAIT; then `DatabaseBusy`.

When the database cannot be reached the update goes ahead without its turn: its handlers
then answer "not available" on their own, and the books never depend on the turn (a change
to them is recorded once whoever makes it: `handled_updates`, row locks, unique keys). A lock
connection lost while updates held turns loses those turns; the updates finish unguarded."""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager, suppress
from functools import partial

from sqlalchemy import text
from sqlalchemy.exc import DBAPIError
from sqlalchemy.exc import SQLAlchemyError as SAError
from sqlalchemy.ext.asyncio import AsyncConnection, AsyncEngine

from ..config import RETRY_WINDOW, TURN_WAIT
from ..domain import DatabaseBusy

log = logging.getLogger(__name__)
# The key: the schema and the chat (schemas sharing a database, as the tests' do, have their
# own chats), hashed to the one-bigint key space (the migration lock uses the two-int one).
_KEY = "hashtextextended(current_schema() || '/' || :chat, 0)"
_TAKE = text(f"SELECT pg_try_advisory_lock({_KEY})")
_GIVE = text(f"SELECT pg_advisory_unlock({_KEY})")
# A dead worker host (no FIN ever comes) frees its chats in about 10 + 3 x 5 seconds.
_KEEPALIVE = ("SET tcp_keepalives_idle = 10", "SET tcp_keepalives_interval = 5",
              "SET tcp_keepalives_count = 3")
POLL_FIRST, POLL_MAX = 0.005, 0.1  # seconds between tries for a chat held elsewhere
_FAILURES = (DBAPIError, SAError, OSError, TimeoutError)


class ChatTurns:
    """`async with turns.turn(chat_id):` this process alone handles the chat in the block."""

    def __init__(self, engine: AsyncEngine, wait: float = TURN_WAIT) -> None:
        self.engine, self.wait = engine, wait
        self._conn: AsyncConnection | None = None
        self._use = asyncio.Lock()  # one statement at a time on the lock connection
        self._unguarded_until = 0.0  # after a failed connect: no new attempt before this
        self._background: set[asyncio.Task[None]] = set()

    @asynccontextmanager
    async def turn(self, chat_id: int, wait: float | None = None) -> AsyncIterator[None]:
        conn = await self._take(chat_id, self.wait if wait is None else wait)
        try:
            yield
        finally:
            if conn is not None:
                await asyncio.shield(self._give(conn, chat_id))

    async def _take(self, chat_id: int, wait: float) -> AsyncConnection | None:
        """Wait for the chat's lock: the connection holding it, or None (database down)."""
        deadline = time.monotonic() + wait
        pause, failed = POLL_FIRST, False
        while True:
            conn = await self._connection()
            if conn is None:
                return None
            step = asyncio.ensure_future(self._run(conn, _TAKE, chat_id))
            try:
                taken = await asyncio.shield(step)  # a cancel must not leave the lock taken
            except asyncio.CancelledError:
                step.add_done_callback(partial(self._give_if_taken, conn, chat_id))
                raise
            except _FAILURES as exc:
                await self._lost(conn, exc)
                if failed:  # on a new connection too: unguarded for a while
                    self._unguarded_until = time.monotonic() + RETRY_WINDOW
                    return None
                failed = True
                continue
            if taken:
                return conn
            if time.monotonic() >= deadline:
                raise DatabaseBusy(f"chat {chat_id} is being handled by another worker")
            await asyncio.sleep(pause)
            pause = min(POLL_MAX, pause * 2)

    async def _give(self, conn: AsyncConnection, chat_id: int) -> None:
        if conn is not self._conn:  # the connection was lost: so was the lock
            return
        try:
            await self._run(conn, _GIVE, chat_id)
        except _FAILURES as exc:
            await self._lost(conn, exc)

    def _give_if_taken(self, conn: AsyncConnection, chat_id: int, step: asyncio.Future[bool]) -> None:
        if not step.cancelled() and step.exception() is None and step.result():
            task = asyncio.ensure_future(self._give(conn, chat_id))
            self._background.add(task)
            task.add_done_callback(self._background.discard)

    async def _run(self, conn: AsyncConnection, statement: object, chat_id: int) -> bool:
        async with self._use:
            return bool((await conn.execute(statement, {"chat": str(chat_id)})).scalar())  # type: ignore[call-overload]

    async def _connection(self) -> AsyncConnection | None:
        """The lock connection, made when missing; None while the database is unreachable."""
        async with self._use:
            if self._conn is not None:
                return self._conn
            if time.monotonic() < self._unguarded_until:
                return None
            try:
                conn = await self.engine.connect()
                await conn.execution_options(isolation_level="AUTOCOMMIT")
                for statement in _KEEPALIVE:
                    await conn.exec_driver_sql(statement)
            except _FAILURES as exc:
                # every update of the next few seconds goes unguarded at once, instead of each
                # waiting for a connect that fails
                self._unguarded_until = time.monotonic() + RETRY_WINDOW
                log.warning("chat turns: no lock connection (%s); updates go unguarded",
                            _first_line(exc))
                return None
            self._conn = conn
            return conn

    async def _lost(self, conn: AsyncConnection, exc: BaseException) -> None:
        async with self._use:
            if self._conn is conn:
                self._conn = None
                log.warning("chat turns: the lock connection was lost (%s)", _first_line(exc))
        with suppress(Exception):
            await conn.invalidate()
            await conn.close()

    async def close(self) -> None:
        """Give every turn back (the session ends)."""
        async with self._use:
            conn, self._conn = self._conn, None
        if conn is not None:
            with suppress(Exception):
                await conn.invalidate()  # closed, not pooled: a pooled session keeps its locks
                await conn.close()


def _first_line(exc: BaseException) -> str:
    return str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
