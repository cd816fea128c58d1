"""Where the database is and how to connect to it without blocking the event loop."""

from __future__ import annotations

import os
import sqlite3
import time
from typing import Any

from sqlalchemy import event
from sqlalchemy.engine import URL, make_url
from sqlalchemy.ext.asyncio import AsyncEngine, create_async_engine
from sqlalchemy.pool import StaticPool

DEFAULT_URL = "sqlite+aiosqlite:///mjledger.sqlite3"  # relative: a file in the working directory

# How long a SQLite writer waits for another writer's lock before giving up (seconds).
SQLITE_BUSY_TIMEOUT = 30

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


def make_engine(url: str | URL | None = None, **kwargs: Any) -> AsyncEngine:
    """An async engine for `url` (see `database_url`), set up for concurrent use:
    SQLite gets WAL, a busy timeout and foreign keys; PostgreSQL an optional search_path."""
    u = async_url(database_url(url) if not isinstance(url, URL) else url)
    connect_args: dict[str, Any] = kwargs.pop("connect_args", {})
    if u.get_backend_name() == "sqlite":
        connect_args.setdefault("timeout", SQLITE_BUSY_TIMEOUT)
        if u.database in (None, "", ":memory:"):
            # One shared connection, or every connection would see its own empty database.
            kwargs.setdefault("poolclass", StaticPool)
    else:
        query = dict(u.query)
        search_path = query.pop("search_path", None)
        if search_path:
            u = u.set(query=query)
            settings = connect_args.setdefault("server_settings", {})
            settings["search_path"] = search_path
    engine = create_async_engine(u, connect_args=connect_args, **kwargs)
    if u.get_backend_name() == "sqlite":
        event.listen(engine.sync_engine, "connect", _sqlite_on_connect)
    return engine


def _sqlite_on_connect(dbapi_conn: Any, _record: Any) -> None:
    cur = dbapi_conn.cursor()
    # The busy timeout makes a second writer wait for the lock instead of failing at once;
    # SQLite checks foreign keys only when asked.
    cur.execute(f"PRAGMA busy_timeout={SQLITE_BUSY_TIMEOUT * 1000}")
    cur.execute("PRAGMA foreign_keys=ON")
    _use_wal(cur)
    cur.close()


def _use_wal(cur: Any) -> None:
    """Switch the file to WAL (readers run while one writer writes). The mode is stored in the
    file, so only a new file switches; SQLite does not call the busy handler for the switch,
    so processes opening a new file together retry here (up to the busy timeout)."""
    deadline = time.monotonic() + SQLITE_BUSY_TIMEOUT
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
