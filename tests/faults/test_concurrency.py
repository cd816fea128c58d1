"""Chats side by side, each chat in order: a burst of updates in several chats at once is
answered chat by chat in the order sent, and a chat whose write waits for a lock holds up no
other chat (SQLite: tests/faults/test_sqlite_faults.py; here PostgreSQL's row locks)."""

from __future__ import annotations

import asyncio
import time
from typing import Any

import pytest
from sqlalchemy import text

from db import Store
from db.config import make_engine
from tests.databases import BACKENDS, fresh_database
from tests.fake_telegram import FakeTelegram

from .conftest import Chat, PgDatabase, Trials, people
from .drive import fault_texts

BUSY_BOUND = 10.0


@pytest.mark.parametrize("backend", BACKENDS)
async def test_each_chat_is_answered_in_order_while_chats_run_side_by_side(
        tg: FakeTelegram, bot_process: Any, tmp_path: Any, backend: str) -> None:
    async with fresh_database(backend, tmp_path) as url:
        await bot_process(url)
        chats = [Chat(tg, tg.group(f"burst {n}"), people(tg, 800 + 10 * n, lang))
                 for n, lang in enumerate(["en", "zh-Hans", "en", "zh-Hant"])]
        for chat in chats:
            await chat.seat_everyone()
        trials = Trials(f"burst of 4 chats x 8 updates, order per chat ({backend})")
        for trial in range(5):
            stakes = [(trial * 10 + k) for k in range(1, 5)]
            marks = {chat.id: len(tg.requests) for chat in chats}
            # interleaved: a write and a read per step in every chat, nothing awaited between
            for stake in stakes:
                for chat in chats:
                    await tg.send_message(chat.chat, chat.people[0], f"/stake {stake}")
                    await tg.send_message(chat.chat, chat.people[1], "/history")
            for chat in chats:
                answers = [r.params["text"] for r in await chat.answers_after(marks[chat.id], 8)]
                stake_lines = answers[0::2]
                # /stake k answered k-th, each followed by the /history sent after it
                for stake, line in zip(stakes, stake_lines, strict=True):
                    assert f"{stake}.00" in line, (backend, trial, answers)
                assert all(".00" not in a for a in answers[1::2]), answers
            store = await Store.open(url, migrate=False)
            try:
                for chat in chats:
                    session = await store.running_session(chat.id)
                    assert session is not None and session.stake_cents == stakes[-1] * 100
            finally:
                await store.close()
            trials.runs += 1
        print(trials.report())


async def test_a_locked_row_holds_up_only_that_chat(tg: FakeTelegram, bot_process: Any,
                                                   pg_db: PgDatabase) -> None:
    """PostgreSQL: another transaction holds the writer's session row; the writer hears busy
    within seconds, another chat is answered meanwhile."""
    await bot_process(pg_db.proxied)
    writer = Chat(tg, tg.group("行锁"), people(tg, 900, "zh-Hant"))
    reader = Chat(tg, tg.group("reads"), people(tg, 910))
    await writer.seat_everyone()
    await reader.seat_everyone()
    busy = fault_texts("zh-Hant")["busy"]
    engine = make_engine(pg_db.direct)
    trials = Trials("PostgreSQL row lock: writer busy, other chat answered meanwhile")
    try:
        for i in range(1, 5):
            async with engine.connect() as conn:
                await conn.execute(text("SELECT 1 FROM sessions WHERE chat_id = :c FOR UPDATE"),
                                   {"c": writer.id})
                mark = await writer.send(writer.people[0], f"/stake {i}")
                sent = time.monotonic()
                table = await reader.say(reader.people[0], "/table")
                assert "Alice" in table
                assert not [r for r in tg.requests[mark:] if r.method == "sendMessage"
                            and r.params.get("chat_id") == writer.id], "the writer was answered first"
                answer = await writer.answer_after(mark)
                assert answer.params["text"] == busy
                assert time.monotonic() - sent < BUSY_BOUND
                await conn.rollback()
            assert f"{i}.00" in await writer.say(writer.people[0], f"/stake {i}")
            trials.runs += 1
    finally:
        await engine.dispose()
    store = await Store.open(pg_db.direct, migrate=False)
    try:
        session = await store.running_session(writer.id)
        assert session is not None and session.stake_cents == 400
    finally:
        await store.close()
    print(trials.report())


async def test_concurrent_updates_really_overlap(tg: FakeTelegram, bot_process: Any,
                                                 sqlite_url: str) -> None:
    """Many chats at once: all answered, each once, none twice (a smoke test of the processor
    under a burst of 30 chats)."""
    await bot_process(sqlite_url)
    chats = [Chat(tg, tg.group(f"crowd {n}"), people(tg, 1000 + 10 * n)) for n in range(30)]
    marks = [await chat.send(chat.people[0], "/help") for chat in chats]
    await asyncio.gather(*(chat.answer_after(mark) for chat, mark in zip(chats, marks, strict=True)))
    for chat in chats:
        sent = [r for r in tg.requests if r.method == "sendMessage" and r.params.get("chat_id") == chat.id]
        assert len(sent) == 1
