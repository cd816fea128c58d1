"""The store: everything the bot remembers, in domain terms. The bot never writes SQL.

Every write runs in one transaction. Writers that read before they write lock first, so what
they read is current: on SQLite the transaction starts with BEGIN IMMEDIATE (one writer at a
time, the others wait up to the busy timeout); on PostgreSQL the rows in question are read
FOR UPDATE (a session's writes are serialized on its row). Unique constraints back this up.
"""

from __future__ import annotations

import asyncio
import itertools
import random
import time
from collections.abc import AsyncIterator, Awaitable, Callable, Iterator
from contextlib import asynccontextmanager, contextmanager
from contextvars import ContextVar
from dataclasses import dataclass
from datetime import timedelta
from pathlib import Path
from typing import Any, Self, TypeVar

from sqlalchemy import select, text
from sqlalchemy.exc import DBAPIError, IntegrityError, OperationalError
from sqlalchemy.exc import SQLAlchemyError as SAError
from sqlalchemy.ext.asyncio import AsyncEngine, AsyncSession, async_sessionmaker

from .. import models as M
from ..config import LOCK_WAIT, RETRY_WINDOW, START_WAIT, make_engine, reconnectable, to_fault
from ..domain import (
    AlreadyHandled,
    DatabaseBusy,
    NotFound,
)
from ..faults import crash_point
from .turns import ChatTurns

T = TypeVar("T")
MIGRATIONS_DIR = Path(__file__).parent.parent / "migrations"
# PostgreSQL advisory lock: one process migrates a schema at a time (keyed by the schema too:
# databases holding several schemas, as the tests' shared server, migrate them side by side)
_MIGRATION_LOCK = 0x6D6A6C67
# Every column that refers to a person (moved when two guests of a migrating chat merge).
PERSON_REFS = [
    (M.Session, "seat0"), (M.Session, "seat1"), (M.Session, "seat2"), (M.Session, "seat3"),
    (M.Session, "started_by"), (M.Hand, "entered_by"), (M.HandVoid, "voided_by"),
    (M.LedgerEntry, "person_id"), (M.Payment, "from_person"), (M.Payment, "to_person"),
    (M.Payment, "recorded_by"), (M.Payment, "confirmed_by"),
    (M.Stint, "person_id"), (M.StintPattern, "person_id"),
]


@dataclass
class Delivery:
    """The Telegram update being handled (set by the bot's update processor): its first
    write that changes the books also records it in `handled_updates`, in the same
    transaction, so a redelivery of it is recognised exactly (see `StoreCore._write`)."""

    update_id: int
    chat_id: int
    recorded: bool = False  # this run already committed the update's row


_DELIVERY: ContextVar[Delivery | None] = ContextVar("mjledger_delivery", default=None)
HANDLED_KEEP = timedelta(days=3)  # Telegram keeps an unacknowledged update for 24 hours
PRUNE_EVERY = 64  # an update_id divisible by this prunes the rows older than HANDLED_KEEP


@contextmanager
def delivering(update_id: int, chat_id: int | None) -> Iterator[Delivery]:
    """Within this block (one task: a context variable), writes belong to this update."""
    delivery = Delivery(update_id, chat_id or 0)
    token = _DELIVERY.set(delivery)
    try:
        yield delivery
    finally:
        _DELIVERY.reset(token)


def alembic_config() -> Any:
    """Alembic's configuration without an ini file: the migrations live in the package.
    (Alembic is imported here, not at start-up: only migrating needs it.)"""
    from alembic.config import Config

    cfg = Config()
    cfg.set_main_option("script_location", str(MIGRATIONS_DIR).replace("%", "%%"))
    return cfg


class _ReadSession(AsyncSession):
    """A session that only reads: a statement whose connection was lost (the server restarted
    under it) runs again on a new connection for up to `retry_window` seconds. Reading twice is
    harmless; rows loaded before are detached first, so they keep their values."""

    retry_window = RETRY_WINDOW

    async def _again(self, call: Callable[..., Awaitable[T]], *args: Any, **kwargs: Any) -> T:
        start = time.monotonic()
        for attempt in itertools.count():
            try:
                return await call(*args, **kwargs)
            except (DBAPIError, SAError, OSError) as exc:
                if not reconnectable(exc) or time.monotonic() - start > self.retry_window:
                    raise
            self.expunge_all()
            await self.rollback()
            await asyncio.sleep(_backoff(attempt))
        raise AssertionError("unreachable")

    async def execute(self, *args: Any, **kwargs: Any) -> Any:
        return await self._again(super().execute, *args, **kwargs)

    async def scalar(self, *args: Any, **kwargs: Any) -> Any:
        return await self._again(super().scalar, *args, **kwargs)

    async def scalars(self, *args: Any, **kwargs: Any) -> Any:
        return await self._again(super().scalars, *args, **kwargs)

    async def get(self, *args: Any, **kwargs: Any) -> Any:
        return await self._again(super().get, *args, **kwargs)


def _transient(exc: BaseException) -> bool:
    """A conflict that goes away when the transaction is simply run again."""
    if not isinstance(exc, DBAPIError) or isinstance(exc, IntegrityError):
        return False
    code = getattr(exc.orig, "sqlstate", None) or getattr(exc.orig, "pgcode", None)
    if code in ("40001", "40P01"):  # serialization failure, deadlock
        return True
    return isinstance(exc, OperationalError) and "locked" in str(exc.orig)


def _raise_fault(exc: BaseException) -> None:
    """Re-raise a database failure as the DatabaseFault it is (anything else unchanged)."""
    made = to_fault(exc)
    if made is None:
        raise exc
    raise made from exc


def _backoff(attempt: int) -> float:
    return min(1.0, random.uniform(0.01, 0.05) * 2**attempt)


def short_error(exc: DBAPIError) -> str:
    return str(exc.orig).strip().splitlines()[0] if exc.orig else str(exc)


class StoreCore:
    """The engine, its sessions, and the one way to read and to write (retried, bounded,
    translated into `DatabaseFault`s); the concerns live in the mixins beside this file."""

    def __init__(self, engine: AsyncEngine) -> None:
        self.engine = engine
        self._sqlite = engine.dialect.name == "sqlite"
        self._sessions = async_sessionmaker(engine, expire_on_commit=False)
        self._read_sessions = async_sessionmaker(engine, class_=_ReadSession, expire_on_commit=False)
        self._outage: float | None = None  # when the database stopped answering, if it has
        self._write_turn = asyncio.Lock() if self._sqlite else None
        self._chat_turns = None if self._sqlite else ChatTurns(engine)

    @classmethod
    async def open(cls, url: str | None = None, *, migrate: bool = True) -> Self:
        """Connect to `url` (default: $DATABASE_URL, else `mjledger.sqlite3` in the working
        directory; plain `postgresql://` / `sqlite:///` URLs get async drivers) and, with
        `migrate`, bring the schema up to the newest migration."""
        return await cls.from_engine(make_engine(url), migrate=migrate)

    @classmethod
    async def from_engine(cls, engine: AsyncEngine, *, migrate: bool = True) -> Self:
        """A store on an engine made elsewhere (see `db.config.make_engine`)."""
        store = cls(engine)
        if migrate:
            await store.migrate()
        return store

    async def migrate(self) -> None:
        """Run `alembic upgrade head` on this database, in one transaction."""

        from alembic import command

        def upgrade(connection: Any) -> None:
            cfg = alembic_config()
            cfg.attributes["connection"] = connection  # env.py uses it instead of connecting
            command.upgrade(cfg, "head")

        async with self.engine.begin() as conn:
            # Two processes starting at once: the second waits for the first (longer than a
            # request would), then finds the schema current. On SQLite the explicit transaction
            # also makes the DDL all-or-nothing.
            if self._sqlite:
                await conn.exec_driver_sql(f"PRAGMA busy_timeout={int(START_WAIT * 1000)}")
                await conn.exec_driver_sql("BEGIN IMMEDIATE")
                await conn.exec_driver_sql(f"PRAGMA busy_timeout={int(LOCK_WAIT * 1000)}")
            else:
                await conn.exec_driver_sql(f"SET LOCAL lock_timeout = '{int(START_WAIT)}s'")
                await conn.exec_driver_sql("SET LOCAL statement_timeout = 0")  # big tables
                await conn.execute(text("SELECT pg_advisory_xact_lock(:k, hashtext(current_schema()))"),
                                   {"k": _MIGRATION_LOCK})
            await conn.run_sync(upgrade)

    async def close(self) -> None:
        """Close every connection."""
        if self._chat_turns is not None:
            await self._chat_turns.close()
        await self.engine.dispose()

    @asynccontextmanager
    async def chat_turn(self, chat_id: int, *, wait: float | None = None) -> AsyncIterator[None]:
        """Hold the chat for this block: no other process on this database handles one of
        its updates meanwhile (PostgreSQL: db/store/turns.py; SQLite: one process, nothing to
        do). `DatabaseBusy` when another process held it for `wait` seconds (TURN_WAIT); when
        the database is down the block runs without it."""
        if self._chat_turns is None:
            yield
            return
        async with self._chat_turns.turn(chat_id, wait):
            yield

    async def ping(self) -> bool:
        """True when the database answers (health checks); never raises."""
        try:
            async with self.engine.connect() as conn:
                await conn.execute(text("SELECT 1"))
            return True
        except Exception:
            return False

    @asynccontextmanager
    async def _read(self) -> AsyncIterator[AsyncSession]:
        """A session for reading. Its connection is taken before the body runs and a statement
        that lost its connection runs again (the server restarted); a database failure that
        remains comes out as a `DatabaseFault`."""
        s = self._read_sessions()
        try:
            s.retry_window = self._retry_window()
            await self._connect(s)
            try:
                yield s
            except (DBAPIError, SAError, OSError) as exc:
                _raise_fault(exc)
        finally:
            try:
                await s.close()
            except (DBAPIError, SAError, OSError) as exc:
                if not reconnectable(exc):  # lost after reading: what was read stands
                    raise

    async def _connect(self, s: AsyncSession) -> None:
        deadline = time.monotonic() + self._retry_window()
        for attempt in itertools.count():
            try:
                await s.connection()
                self._outage = None
                return
            except (DBAPIError, SAError, OSError) as exc:
                if not reconnectable(exc) or time.monotonic() > deadline:
                    self._note_outage(exc)
                    _raise_fault(exc)
            await s.rollback()
            await asyncio.sleep(_backoff(attempt))

    def _retry_window(self) -> float:
        """How long a request may wait for a lost database to come back: RETRY_WINDOW early
        in an outage (a restart), nothing once it has lasted longer than that, so that during
        a long outage every request is answered at once instead of after the window."""
        if self._outage is not None and time.monotonic() - self._outage > RETRY_WINDOW:
            return 0.0
        return RETRY_WINDOW

    def _note_outage(self, exc: BaseException) -> None:
        if self._outage is None and reconnectable(exc):
            self._outage = time.monotonic()

    async def _write(self, fn: Callable[[AsyncSession], Awaitable[T]], *, immediate: bool = True,
                     once: bool = False) -> T:
        """Run `fn` in one transaction, again when the database asks to (deadlock,
        serialization failure, SQLite lock wait timed out) or the connection was lost, for up
        to RETRY_WINDOW; then a `DatabaseFault` (busy or unavailable). `immediate=False` is for
        a writer of one statement that reads nothing first: SQLite then needs no BEGIN
        IMMEDIATE (the statement takes the write lock itself).

        `once`: a change to the books that must not happen twice (a hand, an undo, a payment,
        an import, seating). The first such write of an update records the update in
        `handled_updates` in its own transaction; if the row is there already, Telegram
        delivered the update again after it was committed, and `AlreadyHandled` is raised with
        nothing written. Writes that may simply be repeated (drafts, names, settings) are not
        `once`; an update's writes before its first `once` write are all of that kind."""
        delivery = _DELIVERY.get() if once else None
        claim = delivery is not None and not delivery.recorded
        start = time.monotonic()
        window = self._retry_window()
        for attempt in itertools.count():
            committing = False
            try:
                async with self._writer_turn(), self._sessions() as s, s.begin():
                    if self._sqlite and immediate:
                        # Take the write lock first, so every read below is current.
                        await s.execute(text("BEGIN IMMEDIATE"))
                    if claim:
                        assert delivery is not None
                        await self._claim(s, delivery)
                    result = await fn(s)
                    committing = True
                self._outage = None
                if claim:
                    assert delivery is not None
                    delivery.recorded = True
                    crash_point("after_booked")  # committed, the update not yet answered
                return result
            except (DBAPIError, SAError, OSError) as exc:
                waited = time.monotonic() - start
                # A conflict is tried again only while the lock waits so far were short: a
                # request waits about 2 x LOCK_WAIT at most, not once per attempt. A connection
                # lost during COMMIT is not: the server may have committed (a payment would
                # be booked twice).
                if not ((_transient(exc) and waited < LOCK_WAIT)
                        or (reconnectable(exc) and not committing and waited < window)):
                    self._note_outage(exc)
                    _raise_fault(exc)
            await asyncio.sleep(_backoff(attempt))
        raise AssertionError("unreachable")

    async def _claim(self, s: AsyncSession, delivery: Delivery) -> None:
        """Record the update as handled (in the caller's transaction), or raise
        `AlreadyHandled` when it was: a concurrent claim waits on the key and then sees it."""
        now = M.utcnow()
        row = (await s.execute(self._insert(M.HandledUpdate)
                               .values(update_id=delivery.update_id, chat_id=delivery.chat_id,
                                       handled_at=now)
                               .on_conflict_do_nothing()
                               .returning(M.HandledUpdate.update_id))).first()
        if row is None:
            raise AlreadyHandled(f"update {delivery.update_id} was handled already")
        if delivery.update_id % PRUNE_EVERY == 0:  # now and then, by the handled_at index
            await s.execute(M.HandledUpdate.__table__.delete()
                            .where(M.HandledUpdate.handled_at < now - HANDLED_KEEP))

    @asynccontextmanager
    async def _writer_turn(self) -> AsyncIterator[None]:
        """SQLite: this process's writers take turns in arrival order, waiting on the event
        loop instead of spinning in SQLite's busy handler (which favours no one, so under
        load some would wait past the busy timeout). Bounded: a queue that does not move
        (another program holds the file) answers busy within seconds."""
        if self._write_turn is None:
            yield
            return
        try:
            async with asyncio.timeout(RETRY_WINDOW):
                await self._write_turn.acquire()
        except TimeoutError:
            raise DatabaseBusy("other writers of this process held the database") from None
        try:
            yield
        finally:
            self._write_turn.release()

    def _insert(self, table: Any) -> Any:
        """INSERT with ON CONFLICT support for this database."""
        if self._sqlite:
            from sqlalchemy.dialects.sqlite import insert
        else:
            from sqlalchemy.dialects.postgresql import insert
        return insert(table)

    async def _ensure_chat_row(self, s: AsyncSession, chat_id: int,
                               language: str | None = None) -> None:
        await s.execute(self._insert(M.Chat)
                        .values(id=chat_id, language=language, house_rules={}, created_at=M.utcnow())
                        .on_conflict_do_nothing(index_elements=[M.Chat.id]))

    async def _locked_chat(self, s: AsyncSession, chat_id: int, *,
                           missing_ok: bool = False) -> Any:
        row = (await s.execute(select(M.Chat).where(M.Chat.id == chat_id).with_for_update()
                               .execution_options(populate_existing=True))).scalar_one_or_none()
        if row is None and not missing_ok:
            raise NotFound(f"there is no chat {chat_id}")
        return row

    async def _locked_session(self, s: AsyncSession, session_id: int) -> M.Session:
        row = (await s.execute(select(M.Session).where(M.Session.id == session_id)
                               .with_for_update())).scalar_one_or_none()
        if row is None:
            raise NotFound(f"there is no session {session_id}")
        return row

    async def _running_row(self, s: AsyncSession, chat_id: int) -> M.Session | None:
        """The chat's first running session (the lowest number: a chat may run several)."""
        return (await s.execute(select(M.Session).where(
            M.Session.chat_id == chat_id, M.Session.ended_at.is_(None))
            .order_by(M.Session.number).limit(1))).scalar_one_or_none()

    async def _person_row(self, s: AsyncSession, person_id: int) -> M.Person:
        row = await s.get(M.Person, person_id)
        if row is None:
            raise NotFound(f"there is no person {person_id}")
        return row

    async def _user_row(self, s: AsyncSession, telegram_id: int) -> M.Person | None:
        return (await s.execute(select(M.Person).where(M.Person.telegram_id == telegram_id)
                                .execution_options(populate_existing=True))).scalar_one_or_none()
