"""A real bot process (`python -m bot`, polling the fake Bot API or served by it through a
webhook) that can be told to SIGKILL itself at a crash point (db/faults.py), and restarted on
the same database."""

from __future__ import annotations

import asyncio
import os
import signal
import sys
import time
from collections.abc import AsyncIterator
from pathlib import Path

import aiohttp
import pytest

from db.faults import ENV as CRASH_ENV
from tests.fake_telegram import FakeTelegram

from .conftest import free_port

ROOT = Path(__file__).resolve().parents[2]
START_TIMEOUT = 60.0
MODES = ["polling", "webhook"]
SECRET = "kill-suite-webhook-secret"
HOOK = "https://bot.example.com/telegram"


class BotProcess:
    """One run of the bot; `crash_at` names the crash point it dies at (None: never); `port`
    (webhook mode) where it listens."""

    def __init__(self, tg: FakeTelegram, db_url: str, log: Path, crash_at: str | None = None,
                 port: int | None = None):
        self.tg, self.db_url, self.log, self.crash_at, self.port = tg, db_url, log, crash_at, port
        self.proc: asyncio.subprocess.Process | None = None

    def env(self) -> dict[str, str]:
        env = {k: v for k, v in os.environ.items() if k != CRASH_ENV}
        env.update(TELEGRAM_BOT_TOKEN=self.tg.token, TELEGRAM_BASE_URL=self.tg.base_url,
                   TELEGRAM_BASE_FILE_URL=self.tg.base_file_url, DATABASE_URL=self.db_url,
                   PYTHONPATH=str(ROOT), MJ_SHARED_DIR=os.environ.get("MJ_SHARED_DIR", ""))
        if not env["MJ_SHARED_DIR"]:
            del env["MJ_SHARED_DIR"]
        if self.crash_at:
            env[CRASH_ENV] = self.crash_at
        for name in ("BOT_MODE", "WEBHOOK_URL", "WEBHOOK_SECRET", "PORT", "LISTEN"):
            env.pop(name, None)
        if self.port is not None:
            env.update(BOT_MODE="webhook", WEBHOOK_URL=HOOK, WEBHOOK_SECRET=SECRET,
                       PORT=str(self.port), LISTEN="127.0.0.1")
        return env

    async def start(self) -> BotProcess:
        ready = "getUpdates" if self.port is None else "setWebhook"
        calls = len(self.tg.requests_for(ready))
        with self.log.open("ab") as out:
            self.proc = await asyncio.create_subprocess_exec(
                sys.executable, "-m", "bot", cwd=self.log.parent, env=self.env(),
                stdout=out, stderr=out)
        # Up once it polls (or set its webhook): commands set, store migrated.
        await self.tg.wait_for(lambda: len(self.tg.requests_for(ready)) > calls
                               or self.proc.returncode is not None, START_TIMEOUT)
        assert self.proc.returncode is None, self.log.read_text()[-3000:]
        if self.port is not None:
            await self._listening()
            self.tg.webhook_target = f"http://127.0.0.1:{self.port}/telegram"
        return self

    async def _listening(self) -> None:
        deadline = time.monotonic() + START_TIMEOUT
        async with aiohttp.ClientSession() as http:
            while time.monotonic() < deadline:
                try:
                    async with http.get(f"http://127.0.0.1:{self.port}/healthz") as resp:
                        if resp.status == 200:
                            return
                except aiohttp.ClientError:
                    pass
                await asyncio.sleep(0.05)
        raise AssertionError(self.log.read_text()[-3000:])

    async def killed(self, timeout: float = 30.0) -> None:
        """Wait until it died at its crash point (SIGKILL: no cleanup ran)."""
        assert self.proc is not None
        code = await asyncio.wait_for(self.proc.wait(), timeout)
        assert code == -signal.SIGKILL, (code, self.log.read_text()[-3000:])

    async def stop(self) -> None:
        if self.proc is not None and self.proc.returncode is None:
            self.proc.send_signal(signal.SIGTERM)
            try:
                await asyncio.wait_for(self.proc.wait(), 20)
            except TimeoutError:
                self.proc.kill()
                await self.proc.wait()


@pytest.fixture
async def bots(tg: FakeTelegram, tmp_path: Path) -> AsyncIterator[list[BotProcess]]:
    """Bot processes started by the test (appended to this list); all stopped at the end."""
    started: list[BotProcess] = []
    yield started
    for bot in started:
        await bot.stop()


async def run_bot(bots: list[BotProcess], tg: FakeTelegram, db_url: str, tmp_path: Path,
                  crash_at: str | None = None, mode: str = "polling") -> BotProcess:
    """Start a bot; in webhook mode on the port of the earlier ones (Telegram's URL is fixed),
    then hand it the updates the dead one left unanswered, as Telegram does."""
    port = None
    if mode == "webhook":
        port = next((b.port for b in bots if b.port is not None), None) or free_port()
    bot = BotProcess(tg, db_url, tmp_path / "bot.log", crash_at, port)
    bots.append(bot)
    await bot.start()
    if mode == "webhook":
        await tg.redeliver_webhook()
    return bot
