"""Faults injected into real bot processes: `python -m bot` (as deployed) talks to the fake Bot
API in this process; the test locks its SQLite file, cuts or restarts its PostgreSQL (through a
TCP proxy of its own: the shared server is never touched), or kills the process.

Fixtures: `tg` (FakeTelegram), `bot_process` (a factory: `await bot_process(db_url)` starts one
and waits until it polls), `sqlite_url`, `pg_proxy` (a TcpProxy in front of the PostgreSQL of
TEST_DATABASE_URL; the test is skipped without one) and `pg_db` (a fresh schema: its URL
direct and through that proxy). Helpers: `Chat` (a chat as its members drive it; every call waits for
the bot's answer), `Trials` (counts repeated trials for the report).
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import signal
import socket
import sys
import time
from collections.abc import AsyncIterator, Awaitable, Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import aiohttp
import pytest
from sqlalchemy.engine import make_url

from tests.databases import PG_URL, fresh_database
from tests.fake_telegram import FakeTelegram
from tests.fake_telegram.models import RecordedRequest, StoredMessage

ROOT = Path(__file__).resolve().parents[2]
ANSWER_TIMEOUT = 20.0  # generous: the machine is shared; the bounds under test are checked apart
START_TIMEOUT = 60.0  # a loaded machine: imports and migration take long


# -- the bot as a process ------------------------------------------------------------------------

class BotProcess:
    """`python -m bot` in polling mode against the fake Bot API, its log in a file."""

    def __init__(self, tg: FakeTelegram, db_url: str, log_path: Path, **env: str) -> None:
        self.tg, self.db_url, self.log_path, self.extra_env = tg, db_url, log_path, env
        self.proc: asyncio.subprocess.Process | None = None
        self.starts = 0

    def env(self) -> dict[str, str]:
        env = {k: v for k, v in os.environ.items()
               if k not in ("DATABASE_URL", "BOT_MODE", "WEBHOOK_URL", "WEBHOOK_SECRET", "PORT")}
        env.update(TELEGRAM_BOT_TOKEN=self.tg.token, TELEGRAM_BASE_URL=self.tg.base_url,
                   TELEGRAM_BASE_FILE_URL=self.tg.base_file_url, DATABASE_URL=self.db_url,
                   PYTHONUNBUFFERED="1", **self.extra_env)
        return env

    async def start(self) -> None:
        """Start and wait until the process polls for updates (it has migrated and is ready)."""
        assert self.proc is None or self.proc.returncode is not None, "already running"
        mark = len(self.tg.requests)
        self.starts += 1
        with self.log_path.open("ab") as log:
            log.write(f"\n---- start {self.starts} ----\n".encode())
            self.proc = await asyncio.create_subprocess_exec(
                sys.executable, "-m", "bot", cwd=ROOT, env=self.env(),
                stdout=log, stderr=log, start_new_session=True)
        webhook = self.extra_env.get("BOT_MODE") == "webhook"
        try:
            await self.tg.wait_for_request("setWebhook" if webhook else "getUpdates", START_TIMEOUT,
                                           after=mark)
            if webhook:
                await self._wait_for_http()
        except TimeoutError:
            raise AssertionError(f"the bot did not start; its log:\n{self.log()}") from None

    async def _wait_for_http(self) -> None:
        """Webhook mode: ready once /healthz answers."""
        url = f"http://127.0.0.1:{self.extra_env['PORT']}/healthz"
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
                await asyncio.sleep(0.1)

    @property
    def running(self) -> bool:
        return self.proc is not None and self.proc.returncode is None

    async def kill(self) -> None:
        """SIGKILL: no clean-up of any kind."""
        if self.running:
            assert self.proc is not None
            self.proc.send_signal(signal.SIGKILL)
            await self.proc.wait()

    async def stop(self) -> int | None:
        """SIGTERM and wait (SIGKILL after 15 s); the exit code."""
        if not self.running:
            return self.proc.returncode if self.proc else None
        assert self.proc is not None
        self.proc.send_signal(signal.SIGTERM)
        try:
            return await asyncio.wait_for(self.proc.wait(), 15)
        except TimeoutError:
            await self.kill()
            return self.proc.returncode

    def log(self) -> str:
        return self.log_path.read_text(errors="replace") if self.log_path.exists() else ""


@pytest.fixture
async def bot_process(tg: FakeTelegram, tmp_path: Path
                      ) -> AsyncIterator[Callable[..., Awaitable[BotProcess]]]:
    """`await bot_process(db_url, **env)`: a started bot process; all stopped at the end."""
    started: list[BotProcess] = []

    async def start(db_url: str, **env: str) -> BotProcess:
        bot = BotProcess(tg, db_url, tmp_path / f"bot{len(started)}.log", **env)
        started.append(bot)
        await bot.start()
        return bot

    yield start
    for bot in started:
        await bot.stop()
    tg.assert_callbacks_answered()


@pytest.fixture
def sqlite_url(tmp_path: Path) -> str:
    return f"sqlite:///{tmp_path / 'faults.sqlite3'}"


# -- PostgreSQL behind a proxy the test controls ---------------------------------------------------

class TcpProxy:
    """127.0.0.1:<port> → target. `cut()` drops every connection and refuses new ones (the
    server is down); `reopen()` listens again on the same port; `reset()` drops every
    connection but keeps listening (a restart as clients see it)."""

    def __init__(self, host: str, port: int) -> None:
        self.target = (host, port)
        self.port = free_port()
        self.server: asyncio.Server | None = None
        self.links: set[asyncio.StreamWriter] = set()
        self.accepted = 0

    async def open(self) -> None:
        self.server = await asyncio.start_server(self._serve, "127.0.0.1", self.port,
                                                 reuse_address=True)

    async def _serve(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self.accepted += 1
        try:
            up_reader, up_writer = await asyncio.open_connection(*self.target)
        except OSError:
            writer.close()
            return
        self.links |= {writer, up_writer}

        async def pump(src: asyncio.StreamReader, dst: asyncio.StreamWriter) -> None:
            try:
                while data := await src.read(65536):
                    dst.write(data)
                    await dst.drain()
            except (OSError, asyncio.CancelledError):
                pass
            finally:
                dst.close()

        await asyncio.gather(pump(reader, up_writer), pump(up_reader, writer))
        self.links -= {writer, up_writer}

    def reset(self) -> int:
        """Drop every open connection (both ends); the number dropped."""
        dropped = len(self.links) // 2
        for w in list(self.links):
            with contextlib.suppress(Exception):
                w.transport.abort()
        self.links.clear()
        return dropped

    async def cut(self) -> None:
        if self.server is not None:
            self.server.close()
            await self.server.wait_closed()
            self.server = None
        self.reset()

    async def reopen(self) -> None:
        if self.server is None:
            await self.open()


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture
async def pg_proxy() -> AsyncIterator[TcpProxy]:
    if not PG_URL:
        pytest.skip("TEST_DATABASE_URL is not set")
    u = make_url(PG_URL)
    proxy = TcpProxy(u.host or "127.0.0.1", u.port or 5432)
    await proxy.open()
    yield proxy
    await proxy.cut()


@dataclass(frozen=True)
class PgDatabase:
    direct: str  # for the test's own checks
    proxied: str  # for the bot: through the proxy the test cuts


@pytest.fixture
async def pg_db(pg_proxy: TcpProxy, tmp_path: Path) -> AsyncIterator[PgDatabase]:
    """A fresh schema (made and dropped directly), reached by the bot through the proxy."""
    async with fresh_database("postgres", tmp_path) as url:
        yield PgDatabase(url, make_url(url).set(host="127.0.0.1", port=pg_proxy.port)
                         .render_as_string(hide_password=False))


# -- chats ---------------------------------------------------------------------------------------

class Chat:
    """A chat as its members use it; each call waits for the bot's answer to that update."""

    def __init__(self, tg: FakeTelegram, chat: dict[str, Any], people: list[dict[str, Any]]) -> None:
        self.tg, self.chat, self.people = tg, chat, people

    @property
    def id(self) -> int:
        return int(self.chat["id"])

    def _mine(self, r: RecordedRequest) -> bool:
        return r.ok and str(r.params.get("chat_id")) == str(self.id)

    async def send(self, user: dict[str, Any], text: str) -> int:
        """Inject a message; returns the request count before it (for `answer_after`)."""
        mark = len(self.tg.requests)
        await self.tg.send_message(self.chat, user, text)
        return mark

    async def answer_after(self, mark: int, timeout: float = ANSWER_TIMEOUT,
                           methods: tuple[str, ...] = ("sendMessage", "sendPhoto",
                                                       "sendDocument")) -> RecordedRequest:
        """The bot's first message to this chat among requests[mark:]."""
        return await self.tg.wait_for(
            lambda: next((r for r in self.tg.requests[mark:]
                          if r.method in methods and self._mine(r)), None), timeout)

    async def answers_after(self, mark: int, n: int, timeout: float = ANSWER_TIMEOUT
                            ) -> list[RecordedRequest]:
        """The bot's first `n` messages to this chat among requests[mark:] (a chat's updates
        are answered in order, so: the answers to the next `n` updates that send one)."""
        def found() -> list[RecordedRequest] | None:
            mine = [r for r in self.tg.requests[mark:] if r.method == "sendMessage" and self._mine(r)]
            return mine[:n] if len(mine) >= n else None
        return await self.tg.wait_for(found, timeout)

    async def say(self, user: dict[str, Any], text: str, timeout: float = ANSWER_TIMEOUT) -> str:
        """Send and return the text of the bot's answer."""
        req = await self.answer_after(await self.send(user, text), timeout)
        return str(req.params.get("text") or req.params.get("caption") or "")

    async def press(self, user: dict[str, Any], message_id: int, data: str) -> str:
        return await self.tg.press(self.id, message_id, user, data, check=False)

    async def answered(self, query_id: str, timeout: float = ANSWER_TIMEOUT) -> dict[str, Any]:
        await self.tg.wait_for(lambda: query_id in self.tg.callback_answers, timeout)
        return self.tg.callback_answers[query_id]

    def last(self) -> StoredMessage:
        return self.tg.last_message(self.id)

    async def seat_everyone(self, variant: str = "guiyang") -> StoredMessage:
        text = await self.say(self.people[0], f"/new {variant}")
        lobby = self.last()
        assert lobby.callback_datas, text
        join = next(d for d in lobby.callback_datas if d.endswith(":j"))
        for person in self.people:
            answer = await self.answered(await self.press(person, lobby.message_id, join))
            assert not answer.get("show_alert"), answer
        return self.tg.message(self.id, lobby.message_id)


def people(tg: FakeTelegram, first_id: int, lang: str = "en") -> list[dict[str, Any]]:
    code = {"en": "en", "zh-Hans": "zh-hans", "zh-Hant": "zh-hant"}[lang]
    names = ["Alice", "Bob", "Carol", "Dan"] if lang == "en" else ["阿丽", "小波", "卡萝", "阿丹"]
    return [tg.user(first_id + i, name, f"u{first_id + i}", language_code=code)
            for i, name in enumerate(names)]


@dataclass
class Trials:
    """Counts repeated trials of a fault or race, for the report (printed with -s or -rP)."""

    name: str
    runs: int = 0
    failures: list[str] = field(default_factory=list)
    started: float = field(default_factory=time.monotonic)

    def report(self) -> str:
        return (f"{self.name}: {self.runs} trials, {len(self.failures)} failed, "
                f"{time.monotonic() - self.started:.1f}s")
