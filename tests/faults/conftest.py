"""Faults injected into real bot processes: `python -m bot` (as deployed) talks to the fake Bot
API in this process; the test locks its SQLite file, cuts or restarts its PostgreSQL (through a
TCP proxy of its own: the shared server is never touched), or kills the process.

Fixtures: `tg` (FakeTelegram), `bot_process` (a factory: `await bot_process(db_url)` starts one
and waits until it is ready; the process itself is tests/faults/process.py), `sqlite_url`,
`pg_proxy` (a TcpProxy in front of the PostgreSQL of TEST_DATABASE_URL; the test is skipped
without one) and `pg_db` (a fresh schema: its URL direct and through that proxy). Helpers: `Chat`
(a chat as its members drive it; every call waits for the bot's answer), `Trials` (counts
repeated trials for the report).
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections.abc import AsyncIterator, Awaitable, Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy.engine import make_url

from tests.databases import PG_SKIP, PG_URL, fresh_database
from tests.fake_telegram import FakeTelegram
from tests.fake_telegram.models import RecordedRequest, StoredMessage

from .process import BotProcess, free_port

ANSWER_TIMEOUT = 20.0  # generous: the machine is shared; the bounds under test are checked apart


# -- the bot as a process (tests/faults/process.py) ----------------------------------------------

MODES = ["polling", "webhook"]


@pytest.fixture
async def bot_process(tg: FakeTelegram, tmp_path: Path
                      ) -> AsyncIterator[Callable[..., Awaitable[BotProcess]]]:
    """`await bot_process(db_url, crash_at=None, mode="polling", worker=0, **env)`: a started bot
    process (`mode="webhook"`: served through a webhook, on the port of the test's earlier webhook
    bots of the same `worker` number: Telegram's URL is fixed; another `worker` is one more
    webhook worker behind the proxy, the fake Bot API posting to each in turn). All stopped at
    the end."""
    started: list[BotProcess] = []
    ports: dict[int, int] = {}

    async def start(db_url: str, *, crash_at: str | None = None, mode: str = "polling",
                    worker: int = 0, **env: str) -> BotProcess:
        assert mode in MODES, mode
        port = None
        if mode == "webhook":
            port = ports.setdefault(worker, free_port())
        bot = BotProcess(tg, db_url, tmp_path / f"bot{len(started)}.log", crash_at=crash_at,
                         webhook_port=port, **env)
        started.append(bot)
        return await bot.start()

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


@pytest.fixture
async def pg_proxy() -> AsyncIterator[TcpProxy]:
    if not PG_URL:
        pytest.skip(PG_SKIP)
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
