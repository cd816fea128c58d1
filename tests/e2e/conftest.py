"""The real application, in polling mode, against the project's fake Bot API server."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from bot.plumbing.config import Settings
from bot.runner import serve
from db import Store
from tests.fake_telegram import FakeTelegram

from .table import Table


@pytest.fixture
async def tg() -> AsyncIterator[FakeTelegram]:
    async with FakeTelegram() as fake:
        yield fake
        assert not fake.internal_errors
        fake.assert_callbacks_answered()


@pytest.fixture
def db_url(tmp_path: Path) -> str:
    return f"sqlite+aiosqlite:///{tmp_path}/bot.sqlite3"


def settings_for(tg: FakeTelegram, db_url: str, **extra: object) -> Settings:
    return Settings(token=tg.token, base_url=tg.base_url, base_file_url=tg.base_file_url,
                    database_url=db_url, **extra)  # type: ignore[arg-type]


@pytest.fixture
async def bot(tg: FakeTelegram, db_url: str) -> AsyncIterator[object]:
    async with serve(settings_for(tg, db_url), poll_timeout=1) as app:
        yield app


@pytest.fixture
async def store(db_url: str) -> AsyncIterator[Store]:
    s = await Store.open(db_url)
    yield s
    await s.close()


@pytest.fixture
def table(tg: FakeTelegram) -> Table:
    players = [tg.user(101, "Alice", "alice"), tg.user(102, "<b>&Bob", "bob"),
               tg.user(103, "Carol", "carol"), tg.user(104, "Dan", "dan")]
    return Table(tg, tg.group("Thursday mahjong"), players)
