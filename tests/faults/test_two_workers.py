"""Two webhook workers, one PostgreSQL, behind one proxy (the fake Bot API posts to each in turn
and, as Telegram and the proxy together do, gives an update whose worker died to the other):
a chat's updates are handled one at a time across both (its turn: an advisory lock), in order,
and a worker killed in the middle of a burst costs no update and books nothing twice.

"In order": a chat's updates are answered in update_id order. Telegram sends a chat's next
update once the previous one was answered (the fake does: each injected update is awaited),
so with two workers consecutive updates of a chat go to different workers; an update that
reaches one worker while the other still handles its chat waits for it."""

from __future__ import annotations

import asyncio
import re
from collections.abc import Awaitable
from typing import Any

from sqlalchemy import text

from db import Store
from tests.fake_telegram import FakeTelegram
from tests.fake_telegram.models import RecordedRequest

from .conftest import ANSWER_TIMEOUT, Chat, PgDatabase, people
from .process import WEBHOOK_SECRET

NOTED = re.compile(r"Payment of (\d+)\.00 to \S+ noted")
# a payment delivered again after it was booked: said as booked, and that it was done already
ALREADY = re.compile(r"That was already done: payment of (\d+)\.00 to \S+ noted")
CHATS, BURST = 3, 8  # chats at once, /paid updates each (one at a time, as Telegram sends them)
BURST_TIMEOUT = 120.0  # the whole burst, kill and restart included, on a shared machine


async def held_back(tg: FakeTelegram, act: Awaitable[Any]) -> dict[str, Any]:
    """Run `act` (a user's message) without delivering its update; returns the update."""
    hook, tg.webhook = tg.webhook, None
    try:
        await act
        return tg.injected[-1]
    finally:
        tg.webhook = hook


async def seated(tg: FakeTelegram, n: int) -> tuple[Chat, str]:
    """A chat with a session (everyone seated), and the text that makes one payment."""
    chat = Chat(tg, tg.group(f"workers {n}"), people(tg, 900 + 10 * n))
    await chat.seat_everyone()
    await owed(chat)
    return chat, f"/paid @{chat.people[1]['username']}"


async def owed(chat: Chat) -> None:
    """A stake and a hand: money is owed, so payments are taken (not refused as square)."""
    await chat.say(chat.people[0], "/stake 1")
    await chat.say(chat.people[0], "/hu 0 zimo")
    wizard = chat.last()
    confirm = next(d for d in wizard.callback_datas if d.endswith(":ok"))
    await chat.answered(await chat.press(chat.people[0], wizard.message_id, confirm))


def answers(tg: FakeTelegram, chat: Chat, mark: int) -> list[str]:
    return [str(r.params.get("text")) for r in tg.requests[mark:]
            if r.method == "sendMessage" and chat._mine(r)]


async def payments(url: str, chat_id: int) -> list[int]:
    """The chat's payments in whole units, as booked, in the order they were booked."""
    store = await Store.open(url, migrate=False)
    try:
        async with store.engine.connect() as conn:
            rows = await conn.execute(text("SELECT cents FROM payments WHERE chat_id = :c ORDER BY id"),
                                      {"c": chat_id})
            return [cents // 100 for (cents,) in rows]
    finally:
        await store.close()


async def test_an_update_waits_while_the_other_worker_handles_its_chat(
        tg: FakeTelegram, bot_process: Any, pg_db: PgDatabase) -> None:
    """Update N is being handled by worker A (its answer waits a second: Telegram said 429)
    when N+1 of the same chat reaches worker B: B waits for A, so N is answered first (without
    the chat's turn across processes B answers N+1 at once, before N)."""
    a = await bot_process(pg_db.proxied, mode="webhook", worker=0)
    b = await bot_process(pg_db.proxied, mode="webhook", worker=1)
    chat, pay = await seated(tg, 0)
    first = await held_back(tg, tg.send_message(chat.chat, chat.people[0], f"{pay} 1"))
    second = await held_back(tg, tg.send_message(chat.chat, chat.people[0], f"{pay} 2"))
    mark = len(tg.requests)
    tg.fail_next("sendMessage", retry_after=1)

    def refused(r: RecordedRequest) -> bool:
        return r.method == "sendMessage" and not r.ok

    on_a = asyncio.create_task(tg.deliver_webhook(a.hook_url, WEBHOOK_SECRET, first))
    await tg.wait_for(lambda: any(refused(r) for r in tg.requests[mark:]), ANSWER_TIMEOUT)
    on_b = await tg.deliver_webhook(b.hook_url, WEBHOOK_SECRET, second)  # A is waiting out the 429
    assert on_b[0] == 200 and (await on_a)[0] == 200
    said = answers(tg, chat, mark)
    assert [int(m.group(1)) for t in said if (m := NOTED.search(t))] == [1, 2], said
    assert await payments(pg_db.direct, chat.id) == [1, 2]


async def test_a_worker_killed_mid_burst(tg: FakeTelegram, bot_process: Any,
                                         pg_db: PgDatabase) -> None:
    """Bursts of payments to three chats at once, spread over both workers; worker A is killed
    (SIGKILL) a third of the way in and started again while B serves. Every update is answered,
    each chat's payments are answered in the order sent, each is booked once: an update A
    was handling went to B, which found it booked ("already done") or booked it."""
    a = await bot_process(pg_db.proxied, mode="webhook", worker=0)
    await bot_process(pg_db.proxied, mode="webhook", worker=1)
    chats = [await seated(tg, n) for n in range(CHATS)]
    mark, delivered = len(tg.requests), len(tg.webhook_deliveries)
    sent: list[int] = []

    async def burst(chat: Chat, pay: str) -> None:
        for amount in range(1, BURST + 1):  # each awaited: the next goes once this was answered
            await tg.send_message(chat.chat, chat.people[0], f"{pay} {amount}")
            sent.append(tg.injected[-1]["update_id"])

    async def kill_and_restart() -> None:
        await tg.wait_for(lambda: len(sent) >= CHATS * BURST // 3, ANSWER_TIMEOUT)
        await a.kill()
        await bot_process(pg_db.proxied, mode="webhook", worker=0)  # rolled while B serves

    await asyncio.wait_for(asyncio.gather(*(burst(*c) for c in chats), kill_and_restart()),
                           BURST_TIMEOUT)
    deliveries = tg.webhook_deliveries[delivered:]
    answered = {u["update_id"] for u, status in deliveries if status == 200}
    assert set(sent) <= answered and not tg.webhook_pending  # every update, answered 200
    assert any(status == 0 for _, status in deliveries)  # A died with updates still coming
    for chat, _ in chats:
        said = answers(tg, chat, mark)
        noted = [int(m.group(1)) for t in said if (m := NOTED.search(t))]
        assert noted == sorted(noted) and len(set(noted)) == len(noted), said  # in order, once
        missing = set(range(1, BURST + 1)) - set(noted)  # answered by a dead A, or "already done"
        again = [int(m.group(1)) for t in said if (m := ALREADY.search(t))]
        assert missing <= set(again) and len(again) <= 1, said
        assert all(ALREADY.search(t) or NOTED.search(t) for t in said), said
        assert await payments(pg_db.direct, chat.id) == list(range(1, BURST + 1))  # each once
