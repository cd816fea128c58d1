"""The store's side of faults, without a bot: what counts as busy or unavailable, how long a
write waits for a lock, and that reads go on meanwhile."""

from __future__ import annotations

import asyncio
import sqlite3
import time
from pathlib import Path

import pytest
from sqlalchemy import exc

from db import DatabaseBusy, DatabaseUnavailable, Store
from db.config import LOCK_WAIT, fault, make_engine, reconnectable


class _PgError(Exception):
    def __init__(self, sqlstate: str) -> None:
        super().__init__(f"pg {sqlstate}")
        self.sqlstate = sqlstate


@pytest.mark.parametrize(("error", "kind"), [
    (exc.OperationalError("x", {}, sqlite3.OperationalError("database is locked")), DatabaseBusy),
    (exc.OperationalError("x", {}, sqlite3.OperationalError("database or disk is full")),
     DatabaseUnavailable),
    (exc.OperationalError("x", {}, sqlite3.OperationalError("unable to open database file")),
     DatabaseUnavailable),
    (exc.OperationalError("x", {}, sqlite3.OperationalError("attempt to write a readonly database")),
     DatabaseUnavailable),
    (exc.DatabaseError("x", {}, sqlite3.DatabaseError("file is not a database")), DatabaseUnavailable),
    (exc.DBAPIError("x", {}, _PgError("55P03")), DatabaseBusy),  # lock_timeout
    (exc.DBAPIError("x", {}, _PgError("57014")), DatabaseBusy),  # statement_timeout
    (exc.DBAPIError("x", {}, _PgError("40P01")), DatabaseBusy),  # deadlock, after retries
    (exc.DBAPIError("x", {}, _PgError("53100")), DatabaseUnavailable),  # disk full
    (exc.DBAPIError("x", {}, _PgError("57P01")), DatabaseUnavailable),  # admin shutdown
    (exc.DBAPIError("x", {}, _PgError("08006")), DatabaseUnavailable),  # connection failure
    (exc.TimeoutError("no pooled connection"), DatabaseBusy),
    (ConnectionRefusedError(111, "refused"), DatabaseUnavailable),
    (TimeoutError(), DatabaseBusy),
    # not faults: the request itself was wrong, or the code
    (exc.IntegrityError("x", {}, sqlite3.IntegrityError("UNIQUE constraint failed")), None),
    (exc.DBAPIError("x", {}, _PgError("22003")), None),  # numeric value out of range
    (exc.ProgrammingError("x", {}, _PgError("42P01")), None),
    (ValueError("bug"), None),
])
def test_what_a_failure_means(error: BaseException, kind: type | None) -> None:
    assert fault(error) is kind


def test_lost_connections_are_worth_another_try() -> None:
    assert reconnectable(ConnectionRefusedError(111, "refused"))
    assert reconnectable(exc.DBAPIError("x", {}, _PgError("57P03")))  # starting up
    assert not reconnectable(exc.DBAPIError("x", {}, _PgError("55P03")))
    assert not reconnectable(TimeoutError())


async def test_a_write_waits_seconds_for_a_lock_and_reads_go_on(tmp_path: Path) -> None:
    path = tmp_path / "locked.sqlite3"
    store = await Store.open(f"sqlite:///{path}")
    try:
        await store.ensure_chat(1, language="en")
        session = await store.start_session(1, "luzhou", {})
        holder = sqlite3.connect(path, isolation_level=None)
        holder.execute("BEGIN IMMEDIATE")
        try:
            start = time.monotonic()
            with pytest.raises(DatabaseBusy):
                await store.set_stake(session.id, 100)
            waited = time.monotonic() - start
            # the busy timeout, once (before: 30 s, retried six times)
            assert LOCK_WAIT * 0.9 <= waited < LOCK_WAIT * 2 + 2, waited
            assert (await store.running_session(1)) is not None  # reading is not held up
        finally:
            holder.execute("ROLLBACK")
            holder.close()
        assert (await store.set_stake(session.id, 100)).stake_cents == 100
    finally:
        await store.close()


async def test_an_unreachable_server_is_unavailable_at_once_after_the_window(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """A port nobody listens on: the first request retries for the window, later ones answer
    at once (a long outage is not a wait per request)."""
    import db.store.core

    monkeypatch.setattr(db.store.core, "RETRY_WINDOW", 0.5)
    store = Store(make_engine("postgresql://nobody@127.0.0.1:9/none"))
    try:
        start = time.monotonic()
        with pytest.raises(DatabaseUnavailable):
            await store.running_session(1)
        assert time.monotonic() - start >= 0.5
        await asyncio.sleep(0.6)  # the outage is now older than the window
        start = time.monotonic()
        with pytest.raises(DatabaseUnavailable):
            await store.set_stake(1, 100)
        with pytest.raises(DatabaseUnavailable):
            await store.running_session(1)
        assert time.monotonic() - start < 0.5
    finally:
        await store.close()


async def test_many_writers_of_one_process_take_turns(tmp_path: Path) -> None:
    """A burst of writes from one process (many chats at once) all succeed, in turn; none is
    refused as busy while the file is only busy with this process's own writers."""
    store = await Store.open(f"sqlite:///{tmp_path / 'turns.sqlite3'}")
    try:
        guests = await asyncio.gather(*(store.add_guest(chat, f"guest {chat}")
                                        for chat in range(1, 101)))
        assert len({g.id for g in guests}) == 100
    finally:
        await store.close()
