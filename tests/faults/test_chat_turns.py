"""The store's chat turn across processes (PostgreSQL advisory locks), without a bot: two
stores on one schema stand for two workers. One chat at a time, other chats free, a turn
given back at once, none kept by a worker whose connection died, and no wait at all while
the database is down."""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncIterator

import pytest

from db import DatabaseBusy, Store

from .conftest import PgDatabase, TcpProxy

CHAT, OTHER = -1001, -1002


@pytest.fixture
async def workers(pg_db: PgDatabase) -> AsyncIterator[tuple[Store, Store]]:
    """Worker A through the proxy the test cuts, worker B directly."""
    a = await Store.open(pg_db.proxied)
    b = await Store.open(pg_db.direct, migrate=False)
    try:
        yield a, b
    finally:
        await a.close()
        await b.close()


async def test_one_worker_at_a_time_per_chat(workers: tuple[Store, Store]) -> None:
    a, b = workers
    async with a.chat_turn(CHAT):
        with pytest.raises(DatabaseBusy):
            async with b.chat_turn(CHAT, wait=0.3):
                pytest.fail("both workers held the chat")
        async with b.chat_turn(OTHER, wait=0.3):  # another chat is free
            pass
    async with b.chat_turn(CHAT, wait=0.3):  # given back on leaving
        pass


async def test_a_waiting_worker_gets_the_chat_when_it_is_given_back(
        workers: tuple[Store, Store]) -> None:
    a, b = workers
    order: list[str] = []
    given_back = asyncio.Event()

    async def first() -> None:
        async with a.chat_turn(CHAT):
            given_back.set()
            await asyncio.sleep(0.3)
            order.append("a")

    async def second() -> None:
        await given_back.wait()
        async with b.chat_turn(CHAT, wait=5):
            order.append("b")

    await asyncio.gather(first(), second())
    assert order == ["a", "b"]


async def test_a_dead_workers_chats_are_free(workers: tuple[Store, Store],
                                             pg_proxy: TcpProxy) -> None:
    """A's connections die (its process was killed, as PostgreSQL sees it): B gets the chat
    without waiting for A to give it back."""
    a, b = workers
    async with a.chat_turn(CHAT):
        pg_proxy.reset()
        started = time.monotonic()
        async with b.chat_turn(CHAT, wait=5):
            assert time.monotonic() - started < 2
    async with a.chat_turn(CHAT, wait=5):  # A takes turns again on a new connection
        async with b.chat_turn(OTHER, wait=0.3):
            pass


async def test_no_wait_while_the_database_is_down(workers: tuple[Store, Store],
                                                  pg_proxy: TcpProxy) -> None:
    """The update goes ahead (its handlers answer "not available"), at once."""
    a, _ = workers
    await pg_proxy.cut()
    started = time.monotonic()
    for _ in range(3):
        async with a.chat_turn(CHAT, wait=5):
            pass
    assert time.monotonic() - started < 2
    await pg_proxy.reopen()
    async with a.chat_turn(CHAT, wait=5):
        pass
