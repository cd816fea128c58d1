"""Telegram unreachable when the bot starts: it migrates, then tries again with backoff and one
log line per attempt (no traceback, no exit), and works once Telegram answers; a stop while it
waits ends it cleanly. `python -m bot` as deployed, Telegram behind a TCP proxy the test cuts."""

from __future__ import annotations

import asyncio
from pathlib import Path

from tests.fake_telegram import FakeTelegram

from .conftest import Chat, TcpProxy, people
from .process import START_TIMEOUT, BotProcess

RETRY_LINE = "Telegram cannot be reached (attempt"


async def attempts(bot: BotProcess, n: int) -> None:
    """Wait until the log shows `n` failed attempts to reach Telegram."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + START_TIMEOUT
    while bot.log().count(RETRY_LINE) < n:
        assert bot.running, bot.log()
        assert loop.time() < deadline, bot.log()
        await asyncio.sleep(0.1)


async def test_the_bot_waits_for_telegram_at_start_and_then_works(
        tg: FakeTelegram, tmp_path: Path, sqlite_url: str) -> None:
    proxy = TcpProxy("127.0.0.1", tg.port)  # not listening yet: Telegram is unreachable
    bot = BotProcess(tg, sqlite_url, tmp_path / "bot.log", telegram_port=proxy.port)
    await bot.launch()
    try:
        await attempts(bot, 2)
        assert not tg.requests  # nothing got through
        await proxy.open()
        await tg.wait_for_request("getUpdates", START_TIMEOUT)
        chat = Chat(tg, tg.group("Waited"), people(tg, 1500))
        assert "/new" in await chat.say(chat.people[0], "/help")
        assert await bot.stop() == 0
    finally:
        await bot.stop()
        await proxy.cut()
    log = bot.log()
    assert "Traceback" not in log
    lines = [line for line in log.splitlines() if RETRY_LINE in line]
    assert len(lines) >= 2 and all("trying again in" in line for line in lines)


async def test_a_stop_while_waiting_for_telegram_ends_the_bot_cleanly(
        tg: FakeTelegram, tmp_path: Path, sqlite_url: str) -> None:
    proxy = TcpProxy("127.0.0.1", tg.port)
    bot = BotProcess(tg, sqlite_url, tmp_path / "bot.log", telegram_port=proxy.port)
    await bot.launch()
    try:
        await attempts(bot, 1)
        assert await bot.stop() == 0
    finally:
        await bot.stop()
    assert "Traceback" not in bot.log()
    assert not tg.requests
