"""Empty databases for tests: a SQLite file always, PostgreSQL when TEST_DATABASE_URL is set
(a fresh schema per use, dropped afterwards)."""

from __future__ import annotations

import os
import uuid
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path

from sqlalchemy import text
from sqlalchemy.engine import make_url

from db.config import make_engine

PG_URL = os.environ.get("TEST_DATABASE_URL")
BACKENDS = ["sqlite"] + (["postgres"] if PG_URL else [])


@asynccontextmanager
async def fresh_database(backend: str, tmp_path: Path) -> AsyncIterator[str]:
    """The URL of an empty database of that backend."""
    if backend == "sqlite":
        yield f"sqlite:///{tmp_path / 'test.sqlite3'}"
        return
    assert PG_URL is not None, "postgres needs TEST_DATABASE_URL"
    schema = f"test_{uuid.uuid4().hex[:12]}"
    admin = make_engine(PG_URL)
    async with admin.begin() as conn:
        await conn.execute(text(f'CREATE SCHEMA "{schema}"'))
    try:
        yield make_url(PG_URL).update_query_dict({"search_path": schema}).render_as_string(
            hide_password=False)
    finally:
        async with admin.begin() as conn:
            await conn.execute(text(f'DROP SCHEMA "{schema}" CASCADE'))
        await admin.dispose()
