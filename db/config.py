"""Where the database is and how to connect to it without blocking the event loop, and how
long anything waits for it: a request waits seconds, never minutes, then gets an answer."""

from __future__ import annotations

import errno
import os
import sqlite3
import time
from typing import Any

from sqlalchemy import event, exc
from sqlalchemy.engine import URL, make_url
from sqlalchemy.ext.asyncio import AsyncEngine, create_async_engine
from sqlalchemy.pool import StaticPool

from .domain import DatabaseBusy, DatabaseFault, DatabaseUnavailable

DEFAULT_URL = "sqlite+aiosqlite:///mjledger.sqlite3"  # relative: a file in the working directory

# How long one statement waits for another writer's lock (SQLite busy timeout, PostgreSQL
# lock_timeout), seconds; $DATABASE_LOCK_WAIT changes it. A write that hit a conflict quickly
# is tried again, so a request waits at most about twice this before "busy, try again".
LOCK_WAIT = float(os.environ.get("DATABASE_LOCK_WAIT") or 2.0)
# PostgreSQL: the longest one statement may run (a stuck or overloaded server).
STATEMENT_TIMEOUT = 8.0
# How long a request keeps trying when the connection was lost or the server is restarting.
RETRY_WINDOW = 5.0
# Waiting for a free pooled connection (many chats at once).
POOL_WAIT = 5.0
# Start-up (several processes migrating one new database) may wait longer than a request.
START_WAIT = 30.0
# PostgreSQL, several workers: how long an update waits for its chat while another worker
# handles one of the chat's updates (bounded by the waits above plus the replies' Bot API
# calls), before the chat hears "busy, try again".
TURN_WAIT = 10.0

_ASYNC_DRIVERS = {"sqlite": "sqlite+aiosqlite", "postgresql": "postgresql+asyncpg"}


def database_url(url: str | None = None) -> str:
    """The URL to use: `url`, else $DATABASE_URL, else a SQLite file in the working directory."""
    return url or os.environ.get("DATABASE_URL") or DEFAULT_URL


def async_url(url: str | URL) -> URL:
    """Turn `postgresql://…`, `postgres://…`, `postgresql+psycopg2://…` and `sqlite:///…` into
    their async-driver forms (asyncpg, aiosqlite); async URLs pass through unchanged.

    libpq's `sslmode=` becomes asyncpg's `ssl=`. A `search_path=` query parameter (PostgreSQL)
    is kept here and applied per connection by `make_engine` (asyncpg has no such argument).
    """
    if isinstance(url, str) and url.startswith("postgres://"):  # Heroku-style alias
        url = "postgresql://" + url[len("postgres://"):]
    u = make_url(url)
    backend = u.get_backend_name()
    if backend not in _ASYNC_DRIVERS:
        raise ValueError(f"unsupported database {backend!r}: use sqlite or postgresql")
    u = u.set(drivername=_ASYNC_DRIVERS[backend])
    if backend == "postgresql" and "sslmode" in u.query:
        query = dict(u.query)
        query["ssl"] = query.pop("sslmode")
        u = u.set(query=query)
    return u


def make_engine(url: str | URL | None = None, *, patient: bool = False,
                **kwargs: Any) -> AsyncEngine:
    """An async engine for `url` (see `database_url`), set up for concurrent use and bounded
    waits: SQLite gets WAL, a busy timeout and foreign keys; PostgreSQL lock and statement
    timeouts, an optional search_path, and a check on checkout that drops connections the
    server closed (a restart) without a round trip. `patient` (migrations from the command
    line): lock waits of START_WAIT and no statement timeout."""
    u = async_url(database_url(url) if not isinstance(url, URL) else url)
    connect_args: dict[str, Any] = kwargs.pop("connect_args", {})
    lock_wait = START_WAIT if patient else LOCK_WAIT
    pooled = "poolclass" not in kwargs
    if u.get_backend_name() == "sqlite":
        connect_args.setdefault("timeout", lock_wait)
        if u.database in (None, "", ":memory:"):
            # One shared connection, or every connection would see its own empty database.
            kwargs.setdefault("poolclass", StaticPool)
        elif pooled:
            kwargs.setdefault("pool_timeout", POOL_WAIT)
    else:
        query = dict(u.query)
        search_path = query.pop("search_path", None)
        settings = connect_args.setdefault("server_settings", {})
        if search_path:
            u = u.set(query=query)
            settings["search_path"] = search_path
        settings.setdefault("lock_timeout", f"{int(lock_wait * 1000)}ms")
        settings.setdefault("statement_timeout", "0" if patient else f"{int(STATEMENT_TIMEOUT * 1000)}ms")
        connect_args.setdefault("timeout", RETRY_WINDOW)  # connecting to an unreachable host
        if pooled:
            kwargs.setdefault("pool_timeout", POOL_WAIT)
            kwargs.setdefault("pool_size", 10)
            kwargs.setdefault("max_overflow", 10)
    engine = create_async_engine(u, connect_args=connect_args, **kwargs)
    if u.get_backend_name() == "sqlite":
        busy_ms = int(lock_wait * 1000)
        event.listen(engine.sync_engine, "connect",
                     lambda conn, record: _sqlite_on_connect(conn, record, busy_ms))
    else:
        event.listen(engine.sync_engine.pool, "checkout", _drop_closed_connection)
    return engine


def _drop_closed_connection(dbapi_conn: Any, _record: Any, _proxy: Any) -> None:
    """A pooled PostgreSQL connection whose server went away (restart, failover) is replaced
    before use. asyncpg notices the closed socket by itself, so this costs no round trip."""
    raw = getattr(dbapi_conn, "_connection", None)
    if raw is not None and raw.is_closed():
        raise exc.DisconnectionError("connection closed by the server")


def _sqlite_on_connect(dbapi_conn: Any, _record: Any, busy_ms: int) -> None:
    cur = dbapi_conn.cursor()
    # The busy timeout makes a second writer wait for the lock instead of failing at once;
    # SQLite checks foreign keys only when asked.
    cur.execute(f"PRAGMA busy_timeout={busy_ms}")
    cur.execute("PRAGMA foreign_keys=ON")
    _use_wal(cur)
    cur.close()


def _use_wal(cur: Any) -> None:
    """Switch the file to WAL (readers run while one writer writes). The mode is stored in the
    file, so only a new file switches; SQLite does not call the busy handler for the switch,
    so processes opening a new file together retry here (up to START_WAIT)."""
    deadline = time.monotonic() + START_WAIT
    while True:
        try:
            cur.execute("PRAGMA journal_mode")
            if cur.fetchone()[0] != "wal":
                cur.execute("PRAGMA journal_mode=WAL")
            return
        except sqlite3.OperationalError as e:
            if "locked" not in str(e) or time.monotonic() > deadline:
                raise
            time.sleep(0.01)


# -- faults ----------------------------------------------------------------------------------

# PostgreSQL error classes (SQLSTATE) that mean "not now" rather than "no".
_PG_BUSY = {"55P03", "57014", "40001", "40P01", "53300"}  # lock/statement timeout, conflicts, slots
_PG_RESTARTING = {"57P01", "57P02", "57P03"}  # admin shutdown, crash shutdown, cannot connect now


_LOST = ("connection was closed", "connection is closed", "connection reset",
         "server closed the connection", "connection refused")


def _sqlstate(error: BaseException) -> str | None:
    orig = getattr(error, "orig", None)
    return getattr(orig, "sqlstate", None) or getattr(orig, "pgcode", None)


def reconnectable(error: BaseException) -> bool:
    """The connection was lost or the server is (re)starting: the same request, made again on a
    new connection, may well succeed."""
    if isinstance(error, exc.DBAPIError):
        if error.connection_invalidated or _sqlstate(error) in _PG_RESTARTING:
            return True
        # lost while a new connection was being set up: SQLAlchemy does not flag those
        text = str(error.orig).lower()
        return any(words in text for words in _LOST)
    return isinstance(error, (ConnectionError, exc.DisconnectionError)) or (
        isinstance(error, OSError) and not isinstance(error, TimeoutError))


def fault(error: BaseException) -> type[DatabaseFault] | None:
    """What a failure of the database means to a user: busy (try again soon), unavailable
    (down, unreachable, full, read-only), or None (a bug or a refusal: not a fault)."""
    if isinstance(error, DatabaseFault):
        return type(error)
    if isinstance(error, exc.TimeoutError):  # no free pooled connection in time
        return DatabaseBusy
    if isinstance(error, exc.DBAPIError):
        if isinstance(error, (exc.IntegrityError, exc.ProgrammingError, exc.DataError)):
            return None
        code = _sqlstate(error)
        if code in _PG_BUSY:
            return DatabaseBusy
        if reconnectable(error):
            return DatabaseUnavailable
        text = str(error.orig).lower()
        if "locked" in text or "busy" in text:  # SQLite: the busy timeout ran out
            return DatabaseBusy
        if code is not None and code[:2] not in ("08", "53", "57", "58", "XX"):
            return None  # PostgreSQL said no to the statement itself
        return DatabaseUnavailable  # disk full, read-only, cannot open, connection failures
    if isinstance(error, TimeoutError):  # asyncpg's client-side timeouts
        return DatabaseBusy
    if isinstance(error, OSError):  # cannot connect (refused, unreachable, no such file)
        return DatabaseUnavailable
    return None


_FULL_TEXT = ("database or disk is full", "no space left on device", "disk quota exceeded")


def disk_full(error: BaseException) -> bool:
    """The failure (or what caused it) is a full disk: the database's (SQLite "database or
    disk is full", PostgreSQL disk_full) or any file's (ENOSPC, EDQUOT)."""
    seen: BaseException | None = error
    for _ in range(8):  # the chain of causes, not forever
        if seen is None:
            return False
        if isinstance(seen, OSError) and seen.errno in (errno.ENOSPC, errno.EDQUOT):
            return True
        if _sqlstate(seen) == "53100" or any(w in str(seen).lower() for w in _FULL_TEXT):
            return True
        seen = seen.__cause__ or seen.__context__
    return False


def to_fault(error: BaseException) -> DatabaseFault | None:
    """`error` as a DatabaseFault when it is one (raise it `from error`), else None."""
    kind = fault(error)
    if kind is None or isinstance(error, DatabaseFault):
        return None
    first = str(getattr(error, "orig", None) or error).strip().splitlines() or [type(error).__name__]
    return kind(first[0][:200])
