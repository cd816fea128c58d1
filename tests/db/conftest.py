"""Database fixtures: every `store` test runs on SQLite (a fresh file) and, when
TEST_DATABASE_URL is set, on PostgreSQL (a fresh schema per test, dropped afterwards)."""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any

import pytest

from db import Store
from tests.databases import BACKENDS, fresh_database


@pytest.fixture(params=BACKENDS)
async def db_url(request: pytest.FixtureRequest, tmp_path: Any) -> AsyncIterator[str]:
    """The URL of an empty database."""
    async with fresh_database(request.param, tmp_path) as url:
        yield url


@pytest.fixture
async def store(db_url: str) -> AsyncIterator[Store]:
    store = await Store.open(db_url)
    try:
        yield store
    finally:
        await store.close()


@pytest.fixture
async def other_store(db_url: str, store: Store) -> AsyncIterator[Store]:
    """A second store (its own engine and connections) on the same database."""
    second = await Store.open(db_url)
    try:
        yield second
    finally:
        await second.close()
