"""Empty databases for tests: a SQLite file always, PostgreSQL when TEST_DATABASE_URL is set
(a fresh schema per use, dropped afterwards); without it the PostgreSQL cases are skipped, and
pytest's summary says why."""

from __future__ import annotations

import os
import uuid
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager
from pathlib import Path

import pytest
from sqlalchemy import text
from sqlalchemy.engine import make_url

from db.config import make_engine

PG_URL = os.environ.get("TEST_DATABASE_URL")
PG_SKIP = "PostgreSQL: TEST_DATABASE_URL is not set (e.g. postgresql://postgres@127.0.0.1:5432/test)"
# A test or fixture run on each database: the PostgreSQL case is skipped, saying why, without one
# (a plain skip mark, which pytest's summary counts on one line per file).
BACKENDS = ["sqlite", pytest.param("postgres", marks=() if PG_URL else pytest.mark.skip(reason=PG_SKIP))]
Drop = Callable[[], Awaitable[None]]


async def new_database(backend: str, directory: Path, prefix: str = "test") -> tuple[str, Drop | None]:
    """The URL of an empty database of that backend in `directory` (SQLite) or a new schema
    (PostgreSQL), and how to drop it (None: nothing to drop). Apart, for benchmarks that create
    and drop it in different event loops."""
    if backend == "sqlite":
        return f"sqlite:///{directory / f'{prefix}.sqlite3'}", None
    assert PG_URL is not None, PG_SKIP
    schema = f"{prefix}_{uuid.uuid4().hex[:12]}"
    await execute_ddl(f'CREATE SCHEMA "{schema}"')
    url = make_url(PG_URL).update_query_dict({"search_path": schema}).render_as_string(
        hide_password=False)
    return url, lambda: execute_ddl(f'DROP SCHEMA "{schema}" CASCADE')


async def execute_ddl(statement: str) -> None:
    """One statement on the PostgreSQL of TEST_DATABASE_URL, outside any test schema."""
    engine = make_engine(PG_URL or "")
    try:
        async with engine.begin() as conn:
            await conn.execute(text(statement))
    finally:
        await engine.dispose()


@asynccontextmanager
async def fresh_database(backend: str, tmp_path: Path) -> AsyncIterator[str]:
    """The URL of an empty database of that backend."""
    url, drop = await new_database(backend, tmp_path)
    try:
        yield url
    finally:
        if drop is not None:
            await drop()
