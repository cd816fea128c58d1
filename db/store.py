"""The store: everything the bot remembers, in domain terms. The bot never writes SQL.

Every write runs in one transaction. Writers that read before they write lock first, so what
they read is current: on SQLite the transaction starts with BEGIN IMMEDIATE (one writer at a
time, the others wait up to the busy timeout); on PostgreSQL the rows in question are read
FOR UPDATE (a session's writes are serialized on its row). Unique constraints back this up.
"""

from __future__ import annotations

import asyncio
import itertools
import json
import random
import time
import uuid
import zlib
from collections.abc import AsyncIterator, Awaitable, Callable, Iterable, Sequence
from contextlib import asynccontextmanager
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, TypeVar

from sqlalchemy import BigInteger, and_, delete, func, literal, or_, select, text, update
from sqlalchemy.exc import DBAPIError, IntegrityError, OperationalError
from sqlalchemy.exc import SQLAlchemyError as SAError
from sqlalchemy.ext.asyncio import AsyncEngine, AsyncSession, async_sessionmaker
from sqlalchemy.pool import NullPool

from . import aggregates, views
from . import models as M
from .config import LOCK_WAIT, RETRY_WINDOW, START_WAIT, make_engine, reconnectable, to_fault
from .domain import (
    AlreadySeated,
    AlreadyVoided,
    ChartSeries,
    Chat,
    DatabaseBusy,
    Draft,
    DraftClosed,
    HandToImport,
    InvalidHand,
    LevelStanding,
    LevelSummary,
    NotFound,
    Payment,
    PaymentNotPending,
    Person,
    Points,
    RecordedHand,
    Seats,
    SeatStatsRow,
    SeatTaken,
    Session,
    SessionAlreadyRunning,
    SessionEnded,
    SessionLocked,
    SessionNotEnded,
    SessionNotReady,
    SessionSettled,
    SessionView,
    StaleDraft,
    StoreError,
    TableChanged,
)
from .faults import crash_point

T = TypeVar("T")

MIGRATIONS_DIR = Path(__file__).parent / "migrations"
_MIGRATION_LOCK = 0x6D6A6C67  # PostgreSQL advisory lock: one process migrates at a time
_NAME_MAX = 128
# No amount may come near the 64-bit columns' limit, also after adding many of them up.
MAX_CENTS = 10**15

# Every column that refers to a person (moved when two guests of a migrating chat merge).
_PERSON_REFS = [
    (M.Session, "seat0"), (M.Session, "seat1"), (M.Session, "seat2"), (M.Session, "seat3"),
    (M.Session, "started_by"), (M.Hand, "entered_by"), (M.HandVoid, "voided_by"),
    (M.LedgerEntry, "person_id"), (M.Payment, "from_person"), (M.Payment, "to_person"),
    (M.Payment, "recorded_by"), (M.Payment, "confirmed_by"),
]


def alembic_config() -> Any:
    """Alembic's configuration without an ini file: the migrations live in the package.
    (Alembic is imported here, not at start-up: only migrating needs it.)"""
    from alembic.config import Config

    cfg = Config()
    cfg.set_main_option("script_location", str(MIGRATIONS_DIR).replace("%", "%%"))
    return cfg


class Store:
    """The bot's memory. Open with `await Store.open(url)`; every method is a coroutine and
    returns frozen dataclasses from `db.domain`; refusals raise `StoreError` subclasses."""

    def __init__(self, engine: AsyncEngine) -> None:
        self.engine = engine
        self._sqlite = engine.dialect.name == "sqlite"
        self._sessions = async_sessionmaker(engine, expire_on_commit=False)
        self._read_sessions = async_sessionmaker(engine, class_=_ReadSession, expire_on_commit=False)
        self._outage: float | None = None  # when the database stopped answering, if it has
        self._write_turn = asyncio.Lock() if self._sqlite else None

    # -- lifecycle -------------------------------------------------------------------------

    @classmethod
    async def open(cls, url: str | None = None, *, migrate: bool = True) -> Store:
        """Connect to `url` (default: $DATABASE_URL, else `mjledger.sqlite3` in the working
        directory; plain `postgresql://` / `sqlite:///` URLs get async drivers) and, with
        `migrate`, bring the schema up to the newest migration."""
        return await cls.from_engine(make_engine(url), migrate=migrate)

    @classmethod
    async def from_engine(cls, engine: AsyncEngine, *, migrate: bool = True) -> Store:
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
                await conn.execute(text("SELECT pg_advisory_xact_lock(:k)"), {"k": _MIGRATION_LOCK})
            await conn.run_sync(upgrade)

    async def close(self) -> None:
        """Close every connection."""
        await self.engine.dispose()

    async def ping(self) -> bool:
        """True when the database answers (health checks); never raises."""
        try:
            async with self.engine.connect() as conn:
                await conn.execute(text("SELECT 1"))
            return True
        except Exception:
            return False

    # -- chats -----------------------------------------------------------------------------

    async def ensure_chat(self, chat_id: int, *, language: str | None = None) -> Chat:
        """The chat, created (with `language`) when it is new; an existing chat is unchanged."""
        async with self._read() as s:
            row = await s.get(M.Chat, chat_id)
            if row is not None:
                return _chat(row)

        async def write(s: AsyncSession) -> Chat:
            await self._ensure_chat_row(s, chat_id, language)
            return _chat(await self._locked_chat(s, chat_id))

        return await self._write(write)

    async def set_chat_language(self, chat_id: int, lang: str | None) -> Chat:
        """Set the chat's language (created if new)."""

        async def write(s: AsyncSession) -> Chat:
            await self._ensure_chat_row(s, chat_id)
            row = await self._locked_chat(s, chat_id)
            row.language = lang
            return _chat(row)

        return await self._write(write)

    async def set_house_rules(self, chat_id: int, variant: str, rules: dict[str, Any]) -> Chat:
        """Replace the chat's house rules for one variant (what new sessions start with)."""
        rules = _json_copy(rules, "house rules")

        async def write(s: AsyncSession) -> Chat:
            await self._ensure_chat_row(s, chat_id)
            row = await self._locked_chat(s, chat_id)
            row.house_rules = {**(row.house_rules or {}), variant: rules}  # a new dict: saved
            return _chat(row)

        return await self._write(write)

    async def migrate_chat(self, old_chat_id: int, new_chat_id: int) -> Chat:
        """A group became a supergroup: everything of the old chat id moves to the new one —
        sessions, drafts, payments, guests, language and house rules (the old chat's choices
        win over the defaults the new id may have got). Idempotent. Should both ids have a
        running session, the one with fewer hands is ended (it keeps its hands). Returns the
        new chat; the old one stays, pointing at it (`migrated_to`)."""
        if old_chat_id == new_chat_id:
            return await self.ensure_chat(new_chat_id)

        async def write(s: AsyncSession) -> Chat:
            await self._ensure_chat_row(s, new_chat_id)
            old = await self._locked_chat(s, old_chat_id, missing_ok=True)
            new = await self._locked_chat(s, new_chat_id)
            if old is None:
                return _chat(new)
            if old.migrated_to not in (None, new_chat_id):
                raise StoreError(f"chat {old_chat_id} already moved to chat {old.migrated_to}")
            new.language = old.language or new.language
            new.house_rules = {**(new.house_rules or {}), **(old.house_rules or {})}
            await self._end_second_running(s, old_chat_id, new_chat_id)
            await s.execute(update(M.Session).where(M.Session.chat_id == old_chat_id)
                            .values(chat_id=new_chat_id))
            await s.execute(update(M.Payment).where(M.Payment.chat_id == old_chat_id)
                            .values(chat_id=new_chat_id))
            # A message id the new chat already uses keeps its own draft.
            taken = select(M.Draft.message_id).where(M.Draft.chat_id == new_chat_id)
            await s.execute(delete(M.Draft).where(M.Draft.chat_id == old_chat_id,
                                                  M.Draft.message_id.in_(taken)))
            await s.execute(update(M.Draft).where(M.Draft.chat_id == old_chat_id)
                            .values(chat_id=new_chat_id))
            await self._move_guests(s, old_chat_id, new_chat_id)
            old.migrated_to = new_chat_id
            return _chat(new)

        return await self._write(write)

    async def chat_context(self, chat_id: int, *, language: str | None = None,
                           telegram_id: int | None = None, name: str | None = None,
                           username: str | None = None,
                           language_code: str | None = None) -> views.ChatContext:
        """What an update needs first, in one read: the chat (created with `language` when
        new), the sender (a Telegram user, created or brought up to date when `telegram_id`
        and `name` are given) and the running session with seat names, totals and the last
        live hand's outcome. Writes only when something is new or changed."""
        async with self._read() as s:
            found = await views.chat_context(s, chat_id, telegram_id)
        stale = False
        if found.chat is None:
            await self.ensure_chat(chat_id, language=language)
        if telegram_id is not None and name is not None:
            person = found.person
            if person is None or (person.name, person.username, person.language_code) != (
                    _clean_name(name), username, language_code):
                await self.upsert_user(telegram_id, name, username=username,
                                       language_code=language_code)
                stale = True
        if found.chat is None or stale:  # read again: what was written is part of the picture
            async with self._read() as s:
                found = await views.chat_context(s, chat_id, telegram_id)
        return found

    # -- people ----------------------------------------------------------------------------

    async def upsert_user(self, telegram_id: int, name: str, *, username: str | None = None,
                          language_code: str | None = None) -> Person:
        """The person for a Telegram user, created or brought up to date (name, username,
        language code)."""
        name = _clean_name(name)
        async with self._read() as s:
            row = await self._user_row(s, telegram_id)
            if row is not None and (row.name, row.username, row.language_code) == (
                    name, username, language_code):
                return _person(row)  # nothing changed: no write (this runs on every update)

        async def write(s: AsyncSession) -> Person:
            values = {"name": name, "username": username, "language_code": language_code,
                      "updated_at": M.utcnow()}
            await s.execute(self._insert(M.Person)
                            .values(telegram_id=telegram_id, created_at=M.utcnow(), **values)
                            .on_conflict_do_update(index_elements=[M.Person.telegram_id], set_=values))
            row = await self._user_row(s, telegram_id)
            assert row is not None
            return _person(row)

        return await self._write(write)

    async def add_guest(self, chat_id: int, name: str) -> Person:
        """A named guest (no Telegram account) of the chat; the same name (ignoring case and
        extra spaces) gives the same guest."""
        name = _clean_name(name)
        key = name.casefold()

        async def find(s: AsyncSession) -> M.Person | None:
            return (await s.execute(select(M.Person).where(
                M.Person.guest_chat_id == chat_id, M.Person.guest_key == key))).scalar_one_or_none()

        async with self._read() as s:
            row = await find(s)
            if row is not None:
                return _person(row)

        async def write(s: AsyncSession) -> Person:
            await self._ensure_chat_row(s, chat_id)
            await s.execute(self._insert(M.Person)
                            .values(name=name, guest_chat_id=chat_id, guest_key=key,
                                    created_at=M.utcnow(), updated_at=M.utcnow())
                            .on_conflict_do_nothing(index_elements=[M.Person.guest_chat_id,
                                                                    M.Person.guest_key]))
            row = await find(s)
            assert row is not None
            return _person(row)

        return await self._write(write)

    async def person_by_username(self, username: str) -> Person | None:
        """The Telegram user with this @username (ignoring case), if the bot has seen them."""
        async with self._read() as s:
            rows = list((await s.execute(select(M.Person).where(
                func.lower(M.Person.username) == username.lstrip("@").lower(),
                M.Person.telegram_id.is_not(None)))).scalars())
            return _person(rows[0]) if len(rows) == 1 else None

    async def _guest_id(self, s: AsyncSession, chat_id: int, name: str) -> int:
        name = _clean_name(name)
        key = name.casefold()
        await s.execute(self._insert(M.Person)
                        .values(name=name, guest_chat_id=chat_id, guest_key=key,
                                created_at=M.utcnow(), updated_at=M.utcnow())
                        .on_conflict_do_nothing(index_elements=[M.Person.guest_chat_id,
                                                                M.Person.guest_key]))
        pid = await s.scalar(select(M.Person.id).where(M.Person.guest_chat_id == chat_id,
                                                       M.Person.guest_key == key))
        assert pid is not None
        return int(pid)

    async def get_person(self, person_id: int) -> Person:
        """The person with this id (`NotFound` if none)."""
        async with self._read() as s:
            return _person(await self._person_row(s, person_id))

    async def get_people(self, person_ids: Iterable[int]) -> dict[int, Person]:
        """The people with these ids, in one read (ids not found are left out)."""
        ids = sorted(set(person_ids))
        if not ids:
            return {}
        async with self._read() as s:
            rows = (await s.execute(select(M.Person).where(M.Person.id.in_(ids)))).scalars()
            return {row.id: _person(row) for row in rows}

    # -- sessions --------------------------------------------------------------------------

    async def start_session(self, chat_id: int, variant: str, rules: dict[str, Any], *,
                            stake_cents: int = 0, started_by: int | None = None) -> Session:
        """Start a session of `variant` in the chat with a snapshot of `rules` and empty seats.
        `SessionAlreadyRunning` if the chat has one (also enforced by a unique index)."""
        _check_cents(stake_cents, allow_zero=True)
        rules = _json_copy(rules, "rules")

        async def write(s: AsyncSession) -> Session:
            await self._ensure_chat_row(s, chat_id)
            await self._locked_chat(s, chat_id)  # session starts in one chat take turns
            running = await self._running_row(s, chat_id)
            if running is not None:
                raise SessionAlreadyRunning(
                    f"a session is already running in this chat (session {running.id})")
            if started_by is not None:
                await self._person_row(s, started_by)
            row = M.Session(chat_id=chat_id, variant=variant, rules=rules, stake_cents=stake_cents,
                            started_by=started_by, started_at=M.utcnow(), hand_count=0)
            s.add(row)
            await s.flush()
            s.add_all(M.SessionTotal(session_id=row.id, seat=seat, points=0) for seat in range(4))
            s.add_all(aggregates.new_session_rows(row.id))
            return _session(row)

        try:
            return await self._write(write)
        except IntegrityError as exc:  # the running-session index: someone else was quicker
            raise SessionAlreadyRunning("a session is already running in this chat") from exc

    async def import_session(self, chat_id: int, variant: str, rules: dict[str, Any], *,
                             stake_cents: int, players: Sequence[int | str],
                             hands: Sequence[HandToImport], imported_by: int | None,
                             key_prefix: str) -> Session:
        """An imported session, ended, in one transaction: its seats (a person id, or a name
        that becomes a guest of the chat), every hand with its ledger entries and totals, and
        the voids. Nothing is written when anything is refused."""
        _check_cents(stake_cents, allow_zero=True)
        rules = _json_copy(rules, "rules")
        if len(players) != 4:
            raise StoreError("an imported session needs four players")
        prepared = [(_json_copy(h.record, "hand record"), _json_copy(h.outcome, "outcome"),
                     _deltas(h.outcome), h) for h in hands]

        async def write(s: AsyncSession) -> Session:
            await self._ensure_chat_row(s, chat_id)
            await self._locked_chat(s, chat_id)
            seats: list[int] = []
            for player in players:
                if isinstance(player, str):
                    seats.append(await self._guest_id(s, chat_id, player))
                else:
                    seats.append((await self._person_row(s, player)).id)
            if len(set(seats)) != 4:
                raise AlreadySeated("one person cannot take two seats")
            row = M.Session(chat_id=chat_id, variant=variant, rules=rules, stake_cents=stake_cents,
                            started_by=imported_by, started_at=M.utcnow(), hand_count=0,
                            **dict(zip(M.SEAT_COLUMNS, seats, strict=True)))
            s.add(row)
            await s.flush()
            s.add_all(M.SessionTotal(session_id=row.id, seat=seat, points=0) for seat in range(4))
            s.add_all(aggregates.new_session_rows(row.id))
            await s.flush()
            for i, (record, outcome, deltas, h) in enumerate(prepared):
                stored = await self._insert_hand(s, row, record, outcome, deltas,
                                                 entered_by=imported_by, key=f"{key_prefix}:{i + 1}")
                if h.voided:
                    hand = await s.get(M.Hand, stored.id)
                    assert hand is not None
                    await self._void(s, row.id, hand, by=imported_by,
                                     reason=(h.void_reason or "import")[:200])
                if i == 0:
                    crash_point("mid_import")
            row.ended_at = M.utcnow()
            await s.flush()
            return _session(row)

        return await self._write(write)

    async def running_session(self, chat_id: int) -> Session | None:
        """The chat's running session, if any."""
        async with self._read() as s:
            row = await self._running_row(s, chat_id)
            return _session(row) if row is not None else None

    async def get_session(self, session_id: int) -> Session:
        """The session with this id (`NotFound` if none)."""
        async with self._read() as s:
            row = await s.get(M.Session, session_id)
            if row is None:
                raise NotFound(f"there is no session {session_id}")
            return _session(row)

    async def seat_player(self, session_id: int, seat: int, person_id: int) -> Session:
        """Put a person in an empty seat (0-3) before the first hand. `SeatTaken`,
        `AlreadySeated` (elsewhere in this session), `SessionLocked`, `SessionEnded`."""
        _check_seat(seat)

        async def change(s: AsyncSession, row: M.Session) -> None:
            await self._person_row(s, person_id)
            seats = _seats(row)
            if seats[seat] == person_id:
                return
            if person_id in seats:
                raise AlreadySeated(f"that player already sits in seat {seats.index(person_id)}")
            if seats[seat] is not None:
                raise SeatTaken(f"seat {seat} is taken")
            setattr(row, M.SEAT_COLUMNS[seat], person_id)

        return await self._change_seating(session_id, change)

    async def unseat(self, session_id: int, seat: int) -> Session:
        """Empty a seat before the first hand (no-op when empty)."""
        _check_seat(seat)

        async def change(s: AsyncSession, row: M.Session) -> None:
            setattr(row, M.SEAT_COLUMNS[seat], None)

        return await self._change_seating(session_id, change)

    async def swap_seats(self, session_id: int, a: int, b: int) -> Session:
        """Exchange who sits in seats `a` and `b` (either may be empty) before the first hand."""
        _check_seat(a)
        _check_seat(b)

        async def change(s: AsyncSession, row: M.Session) -> None:
            ca, cb = M.SEAT_COLUMNS[a], M.SEAT_COLUMNS[b]
            pa, pb = getattr(row, ca), getattr(row, cb)
            setattr(row, ca, pb)
            setattr(row, cb, pa)

        return await self._change_seating(session_id, change)

    async def set_stake(self, session_id: int, cents: int) -> Session:
        """Money per point, in cents (also after the session ended, until it is settled)."""
        _check_cents(cents, allow_zero=True)

        async def write(s: AsyncSession) -> Session:
            row = await self._locked_session(s, session_id)
            if row.settled_at is not None:
                raise SessionSettled("this session is already settled")
            row.stake_cents = cents
            return _session(row)

        return await self._write(write)

    async def set_session_rules(self, session_id: int, rules: dict[str, Any]) -> Session:
        """Replace the running session's rules (each hand record keeps its own copy)."""
        rules = _json_copy(rules, "rules")

        async def write(s: AsyncSession) -> Session:
            row = await self._locked_session(s, session_id)
            _check_running(row)
            row.rules = rules
            return _session(row)

        return await self._write(write)

    async def end_session(self, session_id: int) -> Session:
        """End the session (ending an ended session changes nothing)."""

        async def write(s: AsyncSession) -> Session:
            row = await self._locked_session(s, session_id)
            if row.ended_at is None:
                row.ended_at = M.utcnow()
            return _session(row)

        return await self._write(write)

    async def chat_sessions(self, chat_id: int, *, include_settled: bool = False) -> list[Session]:
        """The chat's sessions, newest first; settled ones only when asked."""
        stmt = select(M.Session).where(M.Session.chat_id == chat_id)
        if not include_settled:
            stmt = stmt.where(M.Session.settled_at.is_(None))
        async with self._read() as s:
            rows = (await s.execute(stmt.order_by(M.Session.id.desc()))).scalars()
            return [_session(r) for r in rows]

    # -- hands -----------------------------------------------------------------------------

    async def record_hand(self, session_id: int, record: dict[str, Any], outcome: dict[str, Any], *,
                          entered_by: int | None, idempotency_key: str,
                          level: int | None = None) -> RecordedHand:
        """Store a scored hand with the next sequence number, its four ledger entries and the
        new session totals, in one transaction.

        `outcome["deltas"]` must be four integers summing to 0 (`InvalidHand`, nothing written).
        A repeated `idempotency_key` returns the hand stored the first time with
        `created=False` and writes nothing — also when two workers race. `level` (Cixi) defaults
        to the previous hand's level, plus one if that hand ended its level."""
        deltas = _deltas(outcome)
        record = _json_copy(record, "hand record")
        outcome = _json_copy(outcome, "outcome")
        if not isinstance(record, dict):
            raise InvalidHand("the hand record must be a JSON object")
        if not idempotency_key or len(idempotency_key) > 200:
            raise StoreError("a hand needs an idempotency key of 1-200 characters")

        async def write(s: AsyncSession) -> RecordedHand:
            row = await self._locked_session(s, session_id)
            existing = await self._hand_by_key(s, idempotency_key, session_id)
            if existing is not None:
                return existing
            return await self._insert_hand(s, row, record, outcome, deltas, entered_by=entered_by,
                                           key=idempotency_key, level=level)

        try:
            return await self._write(write)
        except IntegrityError as exc:
            # Only a race on the key from another session's writer gets here (a session's
            # writers are serialized): whoever won stored it.
            async with self._read() as s:
                existing = await self._hand_by_key(s, idempotency_key, session_id)
            if existing is None:
                raise StoreError(f"the hand was not recorded: {_short(exc)}") from exc
            return existing

    async def confirm_hand(self, draft: Draft, record: dict[str, Any], outcome: dict[str, Any], *,
                           entered_by: int | None, table_mark: str) -> RecordedHand:
        """Record the hand of a wizard draft and close the draft, in one transaction, only if
        the draft is still at `draft.version` and the table is still at `table_mark` (what its
        preview was computed on). The same draft confirmed twice: the hand stored the first
        time, `created=False`. `DraftClosed` (cancelled), `StaleDraft` (changed meanwhile),
        `TableChanged` (a hand was added or undone: nothing written)."""
        deltas = _deltas(outcome)
        record = _json_copy(record, "hand record")
        outcome = _json_copy(outcome, "outcome")
        key = draft_hand_key(draft)
        table = M.Draft.__table__

        async def write(s: AsyncSession) -> RecordedHand:
            row = await self._locked_session(s, draft.session_id)
            existing = await self._hand_by_key(s, key, draft.session_id)
            if existing is not None:
                await s.execute(delete(table).where(table.c.chat_id == draft.chat_id,
                                                    table.c.message_id == draft.message_id))
                return existing
            current = await s.get(M.Draft, (draft.chat_id, draft.message_id),
                                  populate_existing=True)
            if current is None:
                raise DraftClosed("this hand entry was cancelled")
            if current.version != draft.version:
                raise StaleDraft("this hand entry was changed meanwhile")
            if await self._table_mark(s, row) != table_mark:
                raise TableChanged("the table changed since the preview")
            hand = await self._insert_hand(s, row, record, outcome, deltas, entered_by=entered_by,
                                           key=key)
            await s.delete(current)
            return hand

        return await self._write(write)

    async def table_mark(self, session_id: int) -> str:
        """Where the table stands: changes with every hand recorded or undone (a preview
        computed at one mark is exact as long as the mark holds)."""
        async with self._read() as s:
            row = await s.get(M.Session, session_id)
            if row is None:
                raise NotFound(f"there is no session {session_id}")
            return await self._table_mark(s, row)

    async def hand_by_key(self, session_id: int, key: str) -> RecordedHand | None:
        """The session's hand stored under this idempotency key, if any."""
        async with self._read() as s:
            return await self._hand_by_key(s, key, session_id)

    async def void_hand(self, hand_id: int, *, by: int | None, reason: str) -> RecordedHand:
        """Mark a hand voided (it stays, with who voided it, when and why) and take it out of
        the session totals, in one transaction. `AlreadyVoided` the second time."""

        async def write(s: AsyncSession) -> RecordedHand:
            session_id = await s.scalar(select(M.Hand.session_id).where(M.Hand.id == hand_id))
            if session_id is None:
                raise NotFound(f"there is no hand {hand_id}")
            session = await self._locked_session(s, session_id)  # then read the hand: current
            if session.settled_at is not None:
                raise SessionSettled("this session is already settled")
            hand = await s.get(M.Hand, hand_id)
            assert hand is not None
            if hand.voided:
                raise AlreadyVoided(f"hand {hand.seq} is already voided")
            return await self._void(s, session_id, hand, by=by, reason=reason)

        return await self._write(write)

    async def last_hand(self, session_id: int, include_voided: bool = False) -> RecordedHand | None:
        """The session's latest hand (by default the latest that is not voided)."""
        hands = await self.history(session_id, limit=1, include_voided=include_voided)
        return hands[0] if hands else None

    async def standing_hands(self, session_id: int) -> int:
        """How many of the session's hands stand (an undone hand keeps its number, not its
        place in the count)."""
        async with self._read() as s:  # the running aggregate: no count over the hands
            return int(await s.scalar(select(M.SeatStats.hands).where(
                M.SeatStats.session_id == session_id, M.SeatStats.seat == 0)) or 0)

    async def history(self, session_id: int, *, limit: int = 10, before_seq: int | None = None,
                      include_voided: bool = True) -> list[RecordedHand]:
        """A page of the session's hands, newest first: `limit` hands with seq < `before_seq`."""
        stmt = (select(M.Hand, M.HandVoid).outerjoin(M.HandVoid, M.HandVoid.hand_id == M.Hand.id)
                .where(M.Hand.session_id == session_id))
        if before_seq is not None:
            stmt = stmt.where(M.Hand.seq < before_seq)
        if not include_voided:
            stmt = stmt.where(M.Hand.voided.is_(False))
        async with self._read() as s:
            rows = (await s.execute(stmt.order_by(M.Hand.seq.desc()).limit(limit))).all()
            return [_hand(hand, void) for hand, void in rows]

    async def totals(self, session_id: int) -> Points:
        """Points per seat over the session's non-voided hands, read from the running totals
        (four rows by primary key; no replay of the history)."""
        stmt = (select(M.SessionTotal.points).where(M.SessionTotal.session_id == session_id)
                .order_by(M.SessionTotal.seat))
        async with self._read() as s:  # survives a restart like every other read
            points = (await s.execute(stmt)).scalars().all()
        if len(points) != 4:
            raise NotFound(f"there is no session {session_id}")
        return (points[0], points[1], points[2], points[3])

    async def level_standings(self, session_id: int) -> list[LevelStanding]:
        """Cixi: per level (in order), each seat's summed deltas over its non-voided hands,
        whether it ended (its last hand had `level_over`) and the balances after its last hand."""
        async with self._read() as s:
            return await aggregates.level_standings(s, session_id)

    async def level_summary(self, session_id: int) -> LevelSummary:
        """The level the next hand plays in, the running level's balances and the levels each
        seat won, from the running aggregates (flat in the length of the session)."""
        async with self._read() as s:
            return await aggregates.level_summary(s, session_id)

    async def seat_stats(self, chat_id: int) -> list[SeatStatsRow]:
        """Per seat of each of the chat's sessions: hands, wins, self-draws, dealt-in, points,
        biggest gain and winning patterns, from the running aggregates (for /stats)."""
        async with self._read() as s:
            return await aggregates.chat_seat_stats(s, chat_id)

    async def chart_series(self, session_id: int, *,
                           max_points: int = aggregates.MAX_CHART_POINTS) -> ChartSeries:
        """The session's running totals for a chart: every live hand, or for a long session the
        totals after each run of hands, at most `max_points` points."""
        async with self._read() as s:
            row = await s.get(M.Session, session_id)
            if row is None:
                raise NotFound(f"there is no session {session_id}")
            return await aggregates.chart_series(s, session_id, row.hand_count, max_points)

    async def iter_hands(self, session_id: int, *, batch: int = 2_000,
                         include_voided: bool = True) -> AsyncIterator[list[RecordedHand]]:
        """Every hand of the session in order, `batch` at a time, each batch its own short read:
        an export of any length holds one batch in memory."""
        hand, void = M.Hand.__table__, M.HandVoid.__table__
        after = 0
        while True:
            # Plain rows, not ORM objects: building those costs more than reading (export).
            stmt = (select(hand, void.c.reason, void.c.voided_by, void.c.voided_at)
                    .outerjoin(void, void.c.hand_id == hand.c.id)
                    .where(hand.c.session_id == session_id, hand.c.seq > after))
            if not include_voided:
                stmt = stmt.where(hand.c.voided.is_(False))
            async with self.engine.connect() as conn:
                rows = (await conn.execute(stmt.order_by(hand.c.seq).limit(batch))).all()
            hands = [RecordedHand(
                id=r.id, session_id=r.session_id, seq=r.seq, record=r.record, outcome=r.outcome,
                entered_by=r.entered_by, created_at=_utc(r.created_at), voided=bool(r.voided),  # type: ignore[arg-type]
                void_reason=r.reason, voided_by=r.voided_by, created=False, level=r.level,
                voided_at=_utc(r.voided_at), idempotency_key=r.idempotency_key) for r in rows]
            if not hands:
                return
            yield hands
            after = hands[-1].seq

    async def consume_hands_off_loop(self, session_id: int, consume: Callable[[list[RecordedHand]], None],
                                     *, batch: int = 2_000) -> int:
        """Feed every hand of the session, in order and `batch` at a time, to `consume`, all in a
        worker thread with its own connection: reading, decoding and whatever `consume` does
        (writing an export) leave this event loop free for the other chats. Returns the count."""
        url = self.engine.url
        if self._sqlite and url.database in (None, "", ":memory:"):  # one shared connection
            count = 0
            async for hands in self.iter_hands(session_id, batch=batch):
                await asyncio.to_thread(consume, hands)
                count += len(hands)
            return count
        if not self._sqlite:  # make_engine moved it out of the URL into the connection settings
            async with self.engine.connect() as conn:
                path = (await conn.execute(text("SHOW search_path"))).scalar()
            url = url.update_query_dict({"search_path": path})

        async def read() -> int:
            engine = make_engine(url, poolclass=NullPool)
            count = 0
            try:
                async for hands in Store(engine).iter_hands(session_id, batch=batch):
                    consume(hands)
                    count += len(hands)
            finally:
                await engine.dispose()
            return count

        return await asyncio.to_thread(asyncio.run, read())

    # -- money -----------------------------------------------------------------------------

    async def record_payment(self, chat_id: int, from_person: int, to_person: int, cents: int, *,
                             session_id: int | None = None, recorded_by: int | None = None,
                             confirmed: bool = False) -> Payment:
        """`from_person` paid `to_person` `cents` (> 0) to settle debts, optionally for one
        session of this chat. It counts only once `confirmed` (here, when the payee entered
        it, or later with `confirm_payment`); until then it is pending."""
        _check_cents(cents, allow_zero=False)
        if from_person == to_person:
            raise StoreError("a payment needs two different people")

        async def write(s: AsyncSession) -> Payment:
            await self._ensure_chat_row(s, chat_id)
            for pid in (from_person, to_person, recorded_by):
                if pid is not None:
                    await self._person_row(s, pid)
            if session_id is not None:
                session = await s.get(M.Session, session_id)
                if session is None or session.chat_id != chat_id:
                    raise NotFound(f"this chat has no session {session_id}")
            row = M.Payment(chat_id=chat_id, from_person=from_person, to_person=to_person,
                            cents=cents, session_id=session_id, recorded_by=recorded_by,
                            created_at=M.utcnow(), settled=False, confirmed=confirmed,
                            confirmed_by=recorded_by if confirmed else None)
            s.add(row)
            await s.flush()
            return _payment(row)

        return await self._write(write)

    async def confirm_payment(self, chat_id: int, payment_id: int, *, by: int | None) -> Payment:
        """The payee (or an admin) says the money arrived: the payment counts from now on.
        `PaymentNotPending` if it was confirmed already or is not this chat's."""

        async def write(s: AsyncSession) -> Payment:
            result = await s.execute(update(M.Payment).where(
                M.Payment.id == payment_id, M.Payment.chat_id == chat_id,
                M.Payment.confirmed.is_(False)).values(confirmed=True, confirmed_by=by))
            if result.rowcount != 1:
                raise PaymentNotPending(f"payment {payment_id} is not pending in this chat")
            row = await s.get(M.Payment, payment_id, populate_existing=True)
            assert row is not None
            return _payment(row)

        return await self._write(write)

    async def get_payment(self, payment_id: int) -> Payment:
        async with self._read() as s:
            row = await s.get(M.Payment, payment_id)
            if row is None:
                raise NotFound(f"there is no payment {payment_id}")
            return _payment(row)

    async def pending_payments(self, chat_id: int) -> list[Payment]:
        """Payments of the chat still waiting for their payee, oldest first."""
        async with self._read() as s:
            rows = (await s.execute(select(M.Payment).where(
                M.Payment.chat_id == chat_id, M.Payment.confirmed.is_(False),
                M.Payment.settled.is_(False)).order_by(M.Payment.id))).scalars()
            return [_payment(r) for r in rows]

    async def money_balances(self, chat_id: int, *,
                             session_ids: list[int] | None = None) -> dict[int, int]:
        """Cents per person: + is owed money, − owes. Σ over the sessions (default: the chat's
        sessions not settled; else `session_ids`, all of this chat) of points × stake for the
        person in each seat, plus payments (the payer's balance goes up by what they paid, the
        payee's down): unsettled ones by default, else those made for `session_ids`."""
        stmt = (select(M.Session, M.SessionTotal.seat, M.SessionTotal.points)
                .join(M.SessionTotal, M.SessionTotal.session_id == M.Session.id)
                .where(M.Session.chat_id == chat_id))
        pay = select(M.Payment).where(M.Payment.chat_id == chat_id, M.Payment.confirmed.is_(True))
        if session_ids is None:
            stmt = stmt.where(M.Session.settled_at.is_(None))
            pay = pay.where(M.Payment.settled.is_(False))
        else:
            stmt = stmt.where(M.Session.id.in_(session_ids))
            pay = pay.where(M.Payment.session_id.in_(session_ids))
        balances: dict[int, int] = {}
        async with self._read() as s:
            found = set()
            for session, seat, points in (await s.execute(stmt)).all():
                found.add(session.id)
                person = _seats(session)[seat]
                if person is not None:
                    balances[person] = balances.get(person, 0) + points * session.stake_cents
            if session_ids is not None and set(session_ids) - found:
                raise NotFound(f"this chat has no session {sorted(set(session_ids) - found)}")
            for p in (await s.execute(pay)).scalars():
                balances[p.from_person] = balances.get(p.from_person, 0) + p.cents
                balances[p.to_person] = balances.get(p.to_person, 0) - p.cents
        return balances

    async def mark_settled(self, session_ids: Iterable[int]) -> list[Session]:
        """Mark ended sessions settled: they leave the default `money_balances`, and so do the
        payments made for them and the chat's payments made for no particular session.
        `SessionNotEnded` for a running one; settling twice changes nothing."""
        ids = sorted(set(session_ids))

        async def write(s: AsyncSession) -> list[Session]:
            rows = list((await s.execute(select(M.Session).where(M.Session.id.in_(ids))
                                         .order_by(M.Session.id).with_for_update())).scalars())
            missing = set(ids) - {r.id for r in rows}
            if missing:
                raise NotFound(f"there is no session {sorted(missing)}")
            for row in rows:
                if row.ended_at is None:
                    raise SessionNotEnded(f"session {row.id} is still running; end it first")
            now = M.utcnow()
            for row in rows:
                row.settled_at = row.settled_at or now
            chats = {r.chat_id for r in rows}
            await s.execute(update(M.Payment).where(
                M.Payment.settled.is_(False), M.Payment.confirmed.is_(True),
                or_(M.Payment.session_id.in_(ids),
                    and_(M.Payment.session_id.is_(None), M.Payment.chat_id.in_(chats))))
                .values(settled=True))
            return [_session(r) for r in rows]

        return await self._write(write)

    # -- drafts ----------------------------------------------------------------------------

    async def create_draft(self, chat_id: int, *, session_id: int,
                           data: dict[str, Any]) -> tuple[Draft, list[Draft]]:
        """A new hand entry, stored before its message exists: it gets a placeholder (negative)
        message id until `attach_draft`. The session's other open entries are closed in the
        same transaction; they are returned, so their messages can say so."""
        data = _json_copy(data, "draft")
        placeholder = -(uuid.uuid4().int >> 66) - 1  # 62 bits: never a real message id

        table, sessions = M.Draft.__table__, M.Session.__table__

        async def write(s: AsyncSession) -> tuple[Draft, list[Draft]]:
            if not self._sqlite:  # in turn with confirm_hand (SQLite: BEGIN IMMEDIATE did it)
                await self._locked_session(s, session_id)
            # Few statements (an entry is opened often): the old entries are deleted and read
            # back in one, the new one is inserted only if the session runs.
            gone = (await s.execute(delete(table).where(table.c.session_id == session_id)
                                    .returning(*table.c))).all()
            old = [Draft(r.chat_id, r.message_id, r.session_id, r.data, r.version,
                         _utc(r.updated_at) or M.utcnow()) for r in gone]
            now = M.utcnow()
            added = await s.execute(table.insert().from_select(
                ["chat_id", "message_id", "session_id", "data", "version", "updated_at"],
                select(literal(chat_id, BigInteger), literal(placeholder, BigInteger), sessions.c.id,
                       literal(data, M.Draft.data.type), literal(1), literal(now, M.Draft.updated_at.type))
                .where(sessions.c.id == session_id, sessions.c.ended_at.is_(None))))
            if added.rowcount != 1:
                _check_running(await self._locked_session(s, session_id))  # NotFound, SessionEnded
            return Draft(chat_id, placeholder, session_id, data, 1, now), old

        try:
            return await self._write(write)
        except IntegrityError:  # a chat row is missing (a draft in a chat not seen before)
            await self.ensure_chat(chat_id)
            return await self._write(write)

    async def attach_draft(self, draft: Draft, chat_id: int, message_id: int) -> Draft:
        """Move a new draft onto the message that shows it (`chat_id` differs from the
        draft's when the group became a supergroup meanwhile). `NotFound` if it was closed."""

        async def write(s: AsyncSession) -> Draft:
            table = M.Draft.__table__
            result = await s.execute(update(table).where(
                table.c.chat_id == chat_id, table.c.message_id == draft.message_id)
                .values(message_id=message_id))
            if result.rowcount != 1:
                raise NotFound("this hand entry was closed meanwhile")
            return Draft(chat_id, message_id, draft.session_id, draft.data, draft.version,
                         draft.updated_at)

        return await self._write(write, immediate=False)  # one statement

    async def unattached_draft(self, chat_id: int, *, seconds: float) -> bool:
        """True while a draft of the chat made in the last `seconds` waits for its message."""
        since = M.utcnow().timestamp() - seconds
        async with self._read() as s:
            rows = (await s.execute(select(M.Draft.updated_at).where(
                M.Draft.chat_id == chat_id, M.Draft.message_id < 0))).scalars()
            return any((_utc(t) or M.utcnow()).timestamp() >= since for t in rows)

    async def cancel_draft(self, draft: Draft) -> None:
        """Close a hand entry without recording it, if it is still at `draft.version`.
        `DraftClosed` (with `.hand` when its hand was recorded first), `StaleDraft`."""
        key = draft_hand_key(draft)

        async def write(s: AsyncSession) -> None:
            await self._locked_session(s, draft.session_id)  # in turn with confirm_hand
            current = await s.get(M.Draft, (draft.chat_id, draft.message_id),
                                  populate_existing=True)
            if current is None:
                raise DraftClosed("this hand entry is closed",
                                  await self._hand_by_key(s, key, draft.session_id))
            if current.version != draft.version:
                raise StaleDraft("this hand entry was changed meanwhile")
            await s.delete(current)

        await self._write(write)

    async def save_draft(self, chat_id: int, message_id: int, *, session_id: int,
                         data: dict[str, Any], expected_version: int | None) -> Draft:
        """Save the hand being entered on a message. `expected_version=None` creates it
        (`StaleDraft` if it exists); otherwise it must still be at that version (`StaleDraft`
        if someone saved or deleted it meanwhile). The saved version is one higher."""
        data = _json_copy(data, "draft")
        table = M.Draft.__table__

        async def write(s: AsyncSession) -> Draft:
            now = M.utcnow()
            if expected_version is None:
                version = 1
                result = await s.execute(
                    self._insert(table).values(chat_id=chat_id, message_id=message_id,
                                               session_id=session_id, data=data, version=version,
                                               updated_at=now)
                    .on_conflict_do_nothing(index_elements=["chat_id", "message_id"]))
                if result.rowcount != 1:
                    raise StaleDraft("this hand entry already exists")
            else:
                version = expected_version + 1
                result = await s.execute(
                    update(table).where(table.c.chat_id == chat_id, table.c.message_id == message_id,
                                        table.c.version == expected_version)
                    .values(session_id=session_id, data=data, version=version, updated_at=now))
                if result.rowcount != 1:
                    raise StaleDraft("this hand entry was changed or closed meanwhile")
            return Draft(chat_id, message_id, session_id, data, version, now)

        # One statement (a tap saves a draft): the foreign keys check the session and the chat.
        try:
            return await self._write(write, immediate=False)
        except IntegrityError:
            async with self._read() as s:
                if await s.get(M.Session, session_id) is None:
                    raise NotFound(f"there is no session {session_id}") from None
            await self.ensure_chat(chat_id)  # a draft in a chat not seen before
            return await self._write(write, immediate=False)

    async def get_draft(self, chat_id: int, message_id: int) -> Draft | None:
        """The draft on this message, if any."""
        async with self._read() as s:
            row = await s.get(M.Draft, (chat_id, message_id))
            return _draft(row) if row is not None else None

    async def delete_draft(self, chat_id: int, message_id: int) -> bool:
        """Forget the draft on this message; True if there was one."""

        async def write(s: AsyncSession) -> bool:
            result = await s.execute(delete(M.Draft.__table__).where(
                M.Draft.chat_id == chat_id, M.Draft.message_id == message_id))
            return result.rowcount > 0

        return await self._write(write, immediate=False)

    async def drafts_for_session(self, session_id: int) -> list[Draft]:
        """Every open draft of the session, oldest first."""
        async with self._read() as s:
            rows = (await s.execute(select(M.Draft).where(M.Draft.session_id == session_id)
                                    .order_by(M.Draft.updated_at, M.Draft.message_id))).scalars()
            return [_draft(r) for r in rows]

    # -- internals -------------------------------------------------------------------------

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

    async def _write(self, fn: Callable[[AsyncSession], Awaitable[T]], *, immediate: bool = True) -> T:
        """Run `fn` in one transaction, again when the database asks to (deadlock,
        serialization failure, SQLite lock wait timed out) or the connection was lost, for up
        to RETRY_WINDOW; then a `DatabaseFault` (busy or unavailable). `immediate=False` is for
        a writer of one statement that reads nothing first: SQLite then needs no BEGIN
        IMMEDIATE (the statement takes the write lock itself)."""
        start = time.monotonic()
        window = self._retry_window()
        for attempt in itertools.count():
            committing = False
            try:
                async with self._writer_turn(), self._sessions() as s, s.begin():
                    if self._sqlite and immediate:
                        # Take the write lock first, so every read below is current.
                        await s.execute(text("BEGIN IMMEDIATE"))
                    result = await fn(s)
                    committing = True
                self._outage = None
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
        return (await s.execute(select(M.Session).where(
            M.Session.chat_id == chat_id, M.Session.ended_at.is_(None)))).scalar_one_or_none()

    async def _person_row(self, s: AsyncSession, person_id: int) -> M.Person:
        row = await s.get(M.Person, person_id)
        if row is None:
            raise NotFound(f"there is no person {person_id}")
        return row

    async def _user_row(self, s: AsyncSession, telegram_id: int) -> M.Person | None:
        return (await s.execute(select(M.Person).where(M.Person.telegram_id == telegram_id)
                                .execution_options(populate_existing=True))).scalar_one_or_none()

    async def _change_seating(self, session_id: int,
                              change: Callable[[AsyncSession, M.Session], Awaitable[None]]) -> Session:
        async def write(s: AsyncSession) -> Session:
            row = await self._locked_session(s, session_id)
            _check_running(row)
            if row.hand_count > 0:
                raise SessionLocked("seats are fixed once the first hand is recorded")
            await change(s, row)
            return _session(row)

        return await self._write(write)

    async def _hand_by_key(self, s: AsyncSession, key: str, session_id: int) -> RecordedHand | None:
        row = (await s.execute(select(M.Hand, M.HandVoid)
                               .outerjoin(M.HandVoid, M.HandVoid.hand_id == M.Hand.id)
                               .where(M.Hand.idempotency_key == key))).first()
        if row is None:
            return None
        hand, void = row
        if hand.session_id != session_id:
            raise StoreError(f"idempotency key {key!r} was used for a hand of another session")
        return _hand(hand, void, created=False)

    async def _next_level(self, s: AsyncSession, session_id: int) -> int:
        last = (await s.execute(select(M.Hand.level, M.Hand.outcome)
                                .where(M.Hand.session_id == session_id, M.Hand.voided.is_(False))
                                .order_by(M.Hand.seq.desc()).limit(1))).first()
        if last is None:
            return 1
        level = last.level or 1
        return level + 1 if last.outcome.get("level_over") else level

    async def _insert_hand(self, s: AsyncSession, row: M.Session, record: dict[str, Any],
                           outcome: dict[str, Any], deltas: Points, *, entered_by: int | None,
                           key: str, level: int | None = None) -> RecordedHand:
        """Add a hand to a locked session: next seq, four ledger entries, new totals."""
        if not isinstance(record, dict):
            raise InvalidHand("the hand record must be a JSON object")
        if not key or len(key) > 200:
            raise StoreError("a hand needs an idempotency key of 1-200 characters")
        _check_running(row)
        seats = _seats(row)
        if None in seats:
            raise SessionNotReady("four players must be seated before a hand is recorded")
        if record.get("variant", row.variant) != row.variant:
            raise InvalidHand(f"this session plays {row.variant}, not {record.get('variant')}")
        if entered_by is not None:
            await self._person_row(s, entered_by)
        row.hand_count += 1
        hand = M.Hand(session_id=row.id, seq=row.hand_count,
                      level=level if level is not None else await self._next_level(s, row.id),
                      record=record, outcome=outcome, entered_by=entered_by,
                      created_at=M.utcnow(), idempotency_key=key, voided=False)
        s.add(hand)
        await s.flush()
        s.add_all(M.LedgerEntry(hand_id=hand.id, seat=seat, session_id=row.id,
                                person_id=seats[seat], points=points)
                  for seat, points in enumerate(deltas))
        await aggregates.add_hand(s, self._insert, row.id, hand.seq, hand.level, record, outcome,
                                  deltas)
        return _hand(hand, None)

    async def _void(self, s: AsyncSession, session_id: int, hand: M.Hand, *, by: int | None,
                    reason: str) -> RecordedHand:
        if by is not None:
            await self._person_row(s, by)
        hand.voided = True
        void = M.HandVoid(hand_id=hand.id, voided_by=by, reason=reason, voided_at=M.utcnow())
        s.add(void)
        entries = (await s.execute(select(M.LedgerEntry.seat, M.LedgerEntry.points)
                                   .where(M.LedgerEntry.hand_id == hand.id))).all()
        deltas = [0, 0, 0, 0]
        for seat, points in entries:
            deltas[seat] = points
        await aggregates.remove_hand(s, self._insert, hand, deltas)
        return _hand(hand, void)

    async def _table_mark(self, s: AsyncSession, row: M.Session) -> str:
        last_live = await s.scalar(select(func.max(M.Hand.seq)).where(
            M.Hand.session_id == row.id, M.Hand.voided.is_(False)))
        return table_mark_of(row.hand_count, last_live or 0, row.rules, row.stake_cents, _seats(row))

    async def _end_second_running(self, s: AsyncSession, old_chat_id: int, new_chat_id: int) -> None:
        rows = list((await s.execute(select(M.Session).where(
            M.Session.chat_id.in_([old_chat_id, new_chat_id]), M.Session.ended_at.is_(None))
            .with_for_update())).scalars())
        if len(rows) == 2:
            # Fewer hands ends; on a tie the new chat's (the old one was there first).
            loser = min(rows, key=lambda r: (r.hand_count, r.chat_id == old_chat_id))
            loser.ended_at = M.utcnow()
            await s.flush()

    async def _move_guests(self, s: AsyncSession, old_chat_id: int, new_chat_id: int) -> None:
        guests = (await s.execute(select(M.Person).where(M.Person.guest_chat_id == old_chat_id))).scalars()
        for guest in list(guests):
            twin = (await s.execute(select(M.Person).where(
                M.Person.guest_chat_id == new_chat_id,
                M.Person.guest_key == guest.guest_key))).scalar_one_or_none()
            if twin is None:
                guest.guest_chat_id = new_chat_id
                continue
            # The same guest name in both chats is one person: keep the new chat's.
            for model, column in _PERSON_REFS:
                await s.execute(update(model).where(getattr(model, column) == guest.id)
                                .values({column: twin.id}))
            await s.delete(guest)
        await s.flush()


# -- helpers ---------------------------------------------------------------------------------


def table_mark_of(hand_count: int, last_live_seq: int, rules: dict[str, Any], stake_cents: int,
                  seats: Seats) -> str:
    """Hands recorded, the last live one, and a checksum of what else a preview shows
    (rules, stake, who sits where: all changeable between a preview and its Confirm)."""
    rest = json.dumps([rules, stake_cents, list(seats)], sort_keys=True)
    return f"{hand_count}:{last_live_seq}:{zlib.crc32(rest.encode()):08x}"


def session_mark(session: Session) -> str | None:
    """The table mark of a session read with `chat_context` (no read needed), else None."""
    if not isinstance(session, SessionView):
        return None
    return table_mark_of(session.hand_count, session.last_live_seq, session.rules,
                         session.stake_cents, session.seats)


def _utc(dt: datetime | None) -> datetime | None:
    """SQLite hands back naive datetimes; everything stored is UTC."""
    if dt is None or dt.tzinfo is not None:
        return dt
    return dt.replace(tzinfo=UTC)


def _seats(row: M.Session) -> Seats:
    return (row.seat0, row.seat1, row.seat2, row.seat3)


def _four(values: Sequence[Any]) -> Points:
    if len(values) != 4:
        raise StoreError(f"expected four values, got {list(values)}")
    return (int(values[0]), int(values[1]), int(values[2]), int(values[3]))


def _chat(row: M.Chat) -> Chat:
    return Chat(row.id, row.language, dict(row.house_rules or {}), row.migrated_to)


def _person(row: M.Person) -> Person:
    return Person(row.id, row.telegram_id, row.name, row.username, row.guest_chat_id is not None,
                  row.language_code, row.guest_chat_id)


def _session(row: M.Session) -> Session:
    started_at = _utc(row.started_at)
    assert started_at is not None
    return Session(row.id, row.chat_id, row.variant, dict(row.rules or {}), row.stake_cents,
                   _seats(row), started_at, _utc(row.ended_at), row.hand_count, row.started_by,
                   _utc(row.settled_at))


def _hand(row: M.Hand, void: M.HandVoid | None, *, created: bool = True) -> RecordedHand:
    created_at = _utc(row.created_at)
    assert created_at is not None
    return RecordedHand(
        id=row.id, session_id=row.session_id, seq=row.seq, record=row.record, outcome=row.outcome,
        entered_by=row.entered_by, created_at=created_at, voided=bool(row.voided),
        void_reason=void.reason if void else None, voided_by=void.voided_by if void else None,
        created=created, level=row.level, voided_at=_utc(void.voided_at) if void else None,
        idempotency_key=row.idempotency_key)


def _payment(row: M.Payment) -> Payment:
    created_at = _utc(row.created_at)
    assert created_at is not None
    return Payment(row.id, row.chat_id, row.from_person, row.to_person, row.cents, row.session_id,
                   row.recorded_by, created_at, bool(row.settled), bool(row.confirmed),
                   row.confirmed_by)


def _draft(row: M.Draft) -> Draft:
    updated_at = _utc(row.updated_at)
    assert updated_at is not None
    return Draft(row.chat_id, row.message_id, row.session_id, row.data, row.version, updated_at)


def _deltas(outcome: Any) -> Points:
    deltas = outcome.get("deltas") if isinstance(outcome, dict) else None
    if not (isinstance(deltas, list | tuple) and len(deltas) == 4
            and all(type(d) is int for d in deltas)):
        raise InvalidHand("the outcome's deltas must be four whole numbers")
    if sum(deltas) != 0:
        raise InvalidHand(f"the deltas {list(deltas)} add up to {sum(deltas)}, not 0")
    return _four(deltas)


def _json_copy(value: Any, what: str) -> Any:
    """A deep copy that is sure to be storable as JSON (and not shared with the caller)."""
    try:
        return json.loads(json.dumps(value))
    except (TypeError, ValueError) as exc:
        raise StoreError(f"the {what} cannot be stored as JSON: {exc}") from exc


def _clean_name(name: str) -> str:
    name = " ".join(str(name).split())
    if not name:
        raise StoreError("a name cannot be empty")
    return name[:_NAME_MAX]


def _check_seat(seat: int) -> None:
    if seat not in (0, 1, 2, 3):
        raise StoreError(f"seat must be 0-3, not {seat!r}")


def _check_cents(cents: int, *, allow_zero: bool) -> None:
    if type(cents) is not int or cents < 0 or (cents == 0 and not allow_zero):
        raise StoreError(f"an amount must be a whole number of cents{'' if allow_zero else ' above 0'}")
    if cents > MAX_CENTS:
        raise StoreError(f"an amount must be at most {MAX_CENTS} cents")


def draft_hand_key(draft: Draft) -> str:
    """The idempotency key of a draft's hand: the same entry confirmed twice is one hand."""
    return message_hand_key(draft.chat_id, draft.message_id)


def message_hand_key(chat_id: int, message_id: int) -> str:
    """The idempotency key of the hand entered on this wizard message."""
    return f"draft:{chat_id}:{message_id}"


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


def _check_running(row: M.Session) -> None:
    if row.ended_at is not None:
        raise SessionEnded("this session has ended")


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


def _short(exc: DBAPIError) -> str:
    return str(exc.orig).strip().splitlines()[0] if exc.orig else str(exc)
