"""A real bot process (`python -m bot`, polling the fake Bot API) that can be told to SIGKILL
itself at a crash point (db/faults.py), and restarted on the same database."""

from __future__ import annotations

import asyncio
import os
import signal
import sys
from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from db.faults import ENV as CRASH_ENV
from tests.fake_telegram import FakeTelegram

ROOT = Path(__file__).resolve().parents[2]
START_TIMEOUT = 60.0


class BotProcess:
    """One run of the bot; `crash_at` names the crash point it dies at (None: never)."""

    def __init__(self, tg: FakeTelegram, db_url: str, log: Path, crash_at: str | None = None):
        self.tg, self.db_url, self.log, self.crash_at = tg, db_url, log, crash_at
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
        return env

    async def start(self) -> BotProcess:
        polls = len(self.tg.requests_for("getUpdates"))
        with self.log.open("ab") as out:
            self.proc = await asyncio.create_subprocess_exec(
                sys.executable, "-m", "bot", cwd=self.log.parent, env=self.env(),
                stdout=out, stderr=out)
        # Up once it polls: commands set, webhook deleted, store migrated.
        await self.tg.wait_for(lambda: len(self.tg.requests_for("getUpdates")) > polls
                               or self.proc.returncode is not None, START_TIMEOUT)
        assert self.proc.returncode is None, self.log.read_text()[-3000:]
        return self

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
                  crash_at: str | None = None) -> BotProcess:
    bot = BotProcess(tg, db_url, tmp_path / "bot.log", crash_at)
    bots.append(bot)
    return await bot.start()
