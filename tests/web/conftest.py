"""The web page's tests: the database fixtures of tests/db, the local mode's app through aiohttp's
test client, and the same app served for the browser."""

from collections.abc import AsyncIterator
from typing import Any

import pytest
from aiohttp.test_utils import TestClient, TestServer

from bot.web.local import local_app
from db import Store
from tests.db.conftest import db_url, store  # noqa: F401  # fixtures shared, not redefined

from .browser import launch


@pytest.fixture
async def client(store: Store) -> AsyncIterator[TestClient]:  # noqa: F811
    """The local mode's app, through aiohttp's test client."""
    async with TestClient(TestServer(local_app(store))) as c:
        yield c


@pytest.fixture
async def browser() -> AsyncIterator[Any]:
    async for b in launch():
        yield b


@pytest.fixture
async def site(store: Store) -> AsyncIterator[str]:  # noqa: F811
    """The local mode's app served for the browser: the page's address."""
    server = TestServer(local_app(store))
    await server.start_server()
    try:
        yield str(server.make_url("/app/"))
    finally:
        await server.close()
