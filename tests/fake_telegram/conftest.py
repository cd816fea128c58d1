"""A python-telegram-bot Bot talking to the fake server, for the server's own tests."""

from __future__ import annotations

from collections.abc import AsyncIterator

import pytest
from telegram import Bot

from tests.fake_telegram import FakeTelegram


@pytest.fixture
async def bot(tg: FakeTelegram) -> AsyncIterator[Bot]:
    async with Bot(tg.token, base_url=tg.base_url, base_file_url=tg.base_file_url) as bot:
        yield bot
