"""The bot as a process, as deployed: `python -m bot` against the fake Bot API (polling, or served
by it through a webhook) and a database, its log in a file. It can be told to SIGKILL itself at
a crash point (db/faults.py), reach Telegram through a proxy the test cuts, be stopped (SIGTERM)
or killed (SIGKILL), and started again on the same database and port."""

from __future__ import annotations

import asyncio
import contextlib
import os
import signal
import socket
import sys
import time
from pathlib import Path

import aiohttp

from db.faults import ENV as CRASH_ENV
from tests.fake_telegram import FakeTelegram

ROOT = Path(__file__).resolve().parents[2]
START_TIMEOUT = 60.0  # a loaded machine: imports and migration take long
WEBHOOK_SECRET = "webhook-secret_for-the-fault-suite"
WEBHOOK_URL = "https://bot.example.com/telegram"  # what the bot registers; the fake posts locally
# the test decides these; never inherited from the shell that runs pytest
OWN_ENV = ("DATABASE_URL", "BOT_MODE", "WEBHOOK_URL", "WEBHOOK_SECRET", "PORT", "LISTEN", CRASH_ENV)


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class BotProcess:
    """One bot process (restartable: `start` again after `stop`, `kill` or its crash point).

    `crash_at`: the crash point it SIGKILLs itself at (None: never). `webhook_port`: webhook
    mode, listening there (None: polling). `telegram_port`: reach the fake Bot API through a
    proxy on this port rather than directly. `env`: more environment (e.g. DATABASE_LOCK_WAIT).
    """

    def __init__(self, tg: FakeTelegram, db_url: str, log_path: Path, *,
                 crash_at: str | None = None, webhook_port: int | None = None,
                 telegram_port: int | None = None, **env: str) -> None:
        self.tg, self.db_url, self.log_path = tg, db_url, log_path
        self.crash_at, self.webhook_port, self.telegram_port = crash_at, webhook_port, telegram_port
        self.extra_env = env
        self.proc: asyncio.subprocess.Process | None = None
        self._copier: asyncio.Task[None] | None = None
        self.starts = 0

    @property
    def webhook(self) -> bool:
        return self.webhook_port is not None

    @property
    def hook_url(self) -> str:
        """Where the webhook listens (webhook mode)."""
        return f"http://127.0.0.1:{self.webhook_port}/telegram"

    def env(self) -> dict[str, str]:
        env = {k: v for k, v in os.environ.items() if k not in OWN_ENV}
        base, files = self.tg.base_url, self.tg.base_file_url
        if self.telegram_port is not None:
            direct, through = f"127.0.0.1:{self.tg.port}", f"127.0.0.1:{self.telegram_port}"
            base, files = base.replace(direct, through), files.replace(direct, through)
        env.update(TELEGRAM_BOT_TOKEN=self.tg.token, TELEGRAM_BASE_URL=base,
                   TELEGRAM_BASE_FILE_URL=files, DATABASE_URL=self.db_url, PYTHONUNBUFFERED="1")
        if self.crash_at:
            env[CRASH_ENV] = self.crash_at
        if self.webhook:
            env.update(BOT_MODE="webhook", WEBHOOK_URL=WEBHOOK_URL, WEBHOOK_SECRET=WEBHOOK_SECRET,
                       PORT=str(self.webhook_port), LISTEN="127.0.0.1")
        env.update(self.extra_env)
        return env

    async def launch(self) -> None:
        """Start the process without waiting for it to be ready."""
        assert not self.running, "already running"
        self.starts += 1
        with self.log_path.open("ab") as log:
            log.write(f"\n---- start {self.starts} ----\n".encode())
        # through a pipe, copied here: the log goes on while the bot may write no file (a full disk)
        self.proc = await asyncio.create_subprocess_exec(
            sys.executable, "-m", "bot", cwd=ROOT, env=self.env(), stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.STDOUT, start_new_session=True)
        assert self.proc.stdout is not None
        self._copier = asyncio.create_task(self._copy_log(self.proc.stdout))

    async def _copy_log(self, out: asyncio.StreamReader) -> None:
        with self.log_path.open("ab") as log:
            while chunk := await out.read(65536):
                log.write(chunk)
                log.flush()

    async def _exited(self) -> int:
        """Wait for the process to end and its log to be copied; the exit code."""
        assert self.proc is not None
        code = await self.proc.wait()
        if self._copier is not None:  # EOF once the bot (and any child it left) is gone
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(asyncio.shield(self._copier), 10)
        return code

    async def start(self) -> BotProcess:
        """Start and wait until it is ready: it polls for updates (or has set its webhook and
        answers /healthz), so it has migrated. In webhook mode the fake Bot API then posts to it
        (among the other workers' webhooks, in turn), and hands out again the updates a dead
        process left unanswered, as Telegram does."""
        ready = "setWebhook" if self.webhook else "getUpdates"
        mark = len(self.tg.requests)
        await self.launch()
        try:
            await self.tg.wait_for(
                lambda: not self.running or any(r.method == ready for r in self.tg.requests[mark:]),
                START_TIMEOUT)
            assert self.running, "it exited"
            if self.webhook:
                await self._wait_for_http()
        except (TimeoutError, AssertionError):
            raise AssertionError(f"the bot did not start; its log:\n{self.log()[-5000:]}") from None
        if self.webhook:
            if self.hook_url not in self.tg.webhook_targets:  # one more worker behind the proxy
                self.tg.webhook_targets.append(self.hook_url)
            await self.tg.redeliver_webhook()
        return self

    async def _wait_for_http(self) -> None:
        """Webhook mode: ready once /healthz answers."""
        url = f"http://127.0.0.1:{self.webhook_port}/healthz"
        deadline = time.monotonic() + START_TIMEOUT
        async with aiohttp.ClientSession() as http:
            while True:
                try:
                    async with http.get(url) as resp:
                        if resp.status == 200:
                            return
                except aiohttp.ClientError:
                    pass
                if time.monotonic() > deadline or not self.running:
                    raise TimeoutError
                await asyncio.sleep(0.05)

    @property
    def running(self) -> bool:
        return self.proc is not None and self.proc.returncode is None

    async def killed(self, timeout: float = 30.0) -> None:
        """Wait until it died at its crash point (SIGKILL: no clean-up ran)."""
        assert self.proc is not None
        code = await asyncio.wait_for(self._exited(), timeout)
        assert code == -signal.SIGKILL, (code, self.log()[-3000:])

    async def kill(self) -> None:
        """SIGKILL: no clean-up of any kind."""
        if self.running:
            assert self.proc is not None
            self.proc.send_signal(signal.SIGKILL)
            await self._exited()

    async def stop(self) -> int | None:
        """SIGTERM and wait (SIGKILL after 15 s); the exit code."""
        if not self.running:
            return self.proc.returncode if self.proc else None
        assert self.proc is not None
        self.proc.send_signal(signal.SIGTERM)
        try:
            return await asyncio.wait_for(self._exited(), 15)
        except TimeoutError:
            await self.kill()
            return self.proc.returncode

    def log(self) -> str:
        return self.log_path.read_text(errors="replace") if self.log_path.exists() else ""
