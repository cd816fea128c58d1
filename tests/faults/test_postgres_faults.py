"""PostgreSQL down or restarting, simulated by a TCP proxy between the bot and the shared server
(the server itself is never touched). Down: every command and button is answered "not
available" in the chat's language and nothing changes. A restart costs no request."""

from __future__ import annotations

import asyncio
import random
from typing import Any

from db import Store
from tests.fake_telegram import FakeTelegram

from .conftest import Chat, PgDatabase, TcpProxy, Trials, people
from .drive import (
    PHOTO_COMMANDS,
    check_language,
    db_snapshot,
    drive,
    fault_texts,
    photos_work_again,
    three_chats,
)


async def test_every_command_and_button_is_answered_while_postgres_is_down(
        tg: FakeTelegram, bot_process: Any, pg_proxy: TcpProxy, pg_db: PgDatabase) -> None:
    await bot_process(pg_db.proxied)
    chats = await three_chats(tg)
    trials = Trials("PostgreSQL down: every command and button answered")
    before = await db_snapshot(pg_db.direct)
    # a chat the bot has not seen since it started: its language is unknown, the sender's
    # Telegram language (zh-Hant here) is used
    stranger = tg.user(599, "陌生人", "stranger", language_code="zh-TW")
    new_chat = Chat(tg, tg.group("新來的"), [stranger])
    await pg_proxy.cut()
    try:
        results = await asyncio.gather(*(drive(chat, sender) for chat, _, sender in chats))
        assert await new_chat.say(stranger, "/table") == fault_texts("zh-Hant")["unavailable"]
    finally:
        await pg_proxy.reopen()
    for (_chat, lang, _), answers in zip(chats, results, strict=True):
        check_language(answers, lang)
        assert any(a.what.startswith("button k:") for a in answers)  # the tile keyboard too
        down = fault_texts(lang)["unavailable"]
        # every update needs the database: each one says so, in the chat's language
        assert [a for a in answers if a.text != down] == [], lang
        assert {a.what for a in answers} >= set(PHOTO_COMMANDS)  # the photo handler too
        assert all(a.alert for a in answers if a.what.startswith("button"))
        trials.runs += len(answers)
    assert await db_snapshot(pg_db.direct) == before
    for chat, _, sender in chats:  # back: the same chats work again
        assert "2" in await chat.say(sender, "/stake 2")
    await photos_work_again(chats[2][0], chats[2][2])
    print(trials.report())


async def _hand_via_restart(chat: Chat, proxy: TcpProxy, *, down_for: float) -> None:
    """Preview a hand, restart the database (connections dropped, refused for `down_for`
    seconds), then Confirm: recorded, answered as usual."""
    text = await chat.say(chat.people[0], "/hu 0 zimo")
    preview = chat.last()
    confirm = next((d for d in preview.callback_datas if d.endswith(":ok")), None)
    assert confirm, (text, preview.text, preview.button_labels)
    await proxy.cut()
    query = await chat.press(chat.people[1], preview.message_id, confirm)
    await asyncio.sleep(down_for)
    await proxy.reopen()
    answer = await chat.answered(query)
    assert not answer.get("show_alert"), answer


async def test_a_postgres_restart_costs_no_request(tg: FakeTelegram, bot_process: Any,
                                                   pg_proxy: TcpProxy, pg_db: PgDatabase) -> None:
    await bot_process(pg_db.proxied)
    chats = [Chat(tg, tg.group(f"restart {n}"), people(tg, 600 + 10 * n, lang))
             for n, lang in enumerate(["zh-Hans", "en", "zh-Hant"])]
    for chat in chats:
        await chat.seat_everyone()
    down = {lang: fault_texts(lang)["unavailable"] for lang in ("zh-Hans", "en", "zh-Hant")}
    trials = Trials("PostgreSQL restarts: no request lost")
    hands = 0
    for trial in range(6):
        # connections dropped while idle (every pooled one is dead), or dropped and refused
        # for a moment while requests wait
        down_for = [0.0, 0.0, 0.5, 1.0, 1.5, 2.5][trial]
        dropped = pg_proxy.reset()
        assert dropped > 0 or trial > 0
        if down_for:
            await pg_proxy.cut()
        marks = [await chat.send(chat.people[0], f"/stake {trial + 1}") for chat in chats]
        for chat in chats:
            await chat.send(chat.people[2], "/table")
        await asyncio.sleep(down_for)
        await pg_proxy.reopen()
        for chat, mark in zip(chats, marks, strict=True):
            stake, table = [r.params["text"] for r in await chat.answers_after(mark, 2)]
            assert f"{trial + 1}.00" in stake and "·" in table, (trial, stake, table)
            assert not {stake, table} & set(down.values())
        await _hand_via_restart(chats[trial % 3], pg_proxy, down_for=down_for)
        hands += 1
        trials.runs += 1
    store = await Store.open(pg_db.direct, migrate=False)
    try:
        recorded = 0
        for chat in chats:
            session = await store.running_session(chat.id)
            assert session is not None and session.stake_cents == 600
            recorded += session.hand_count
            assert sum(await store.totals(session.id)) == 0
            assert len(await store.history(session.id, limit=100)) == session.hand_count
        assert recorded == hands  # none lost, none counted twice
    finally:
        await store.close()
    print(trials.report(), f"hands {hands} recorded {recorded}")


async def test_restarts_in_the_middle_of_traffic_lose_and_double_no_hand(
        tg: FakeTelegram, bot_process: Any, pg_proxy: TcpProxy, pg_db: PgDatabase) -> None:
    """Connections dropped every few hundred milliseconds while three chats enter hands. Reads
    and writes that lose their connection run again; only a write whose COMMIT was cut (the
    server may have committed it) is answered "not available" rather than risk booking it
    twice. Never silence; a hand the bot said it recorded is stored exactly once; the totals
    agree with the hands."""
    await bot_process(pg_db.proxied)
    chats = [Chat(tg, tg.group(f"busy table {n}"), people(tg, 650 + 10 * n, lang))
             for n, lang in enumerate(["zh-Hans", "en", "zh-Hant"])]
    for chat in chats:
        await chat.seat_everyone()
    down = {fault_texts(lang)["unavailable"] for lang in ("zh-Hans", "en", "zh-Hant")}
    stop = asyncio.Event()
    resets = 0

    async def restarts() -> None:
        nonlocal resets
        rng = random.Random(7)
        while not stop.is_set():
            await asyncio.sleep(rng.uniform(0.1, 0.4))
            pg_proxy.reset()
            resets += 1

    confirmed: dict[int, set[str]] = {chat.id: set() for chat in chats}
    costs = 0

    async def enter_hands(chat: Chat, n: int) -> None:
        nonlocal costs
        for _ in range(n):
            text = await chat.say(chat.people[0], "/hu 0 zimo")
            if text in down:
                costs += 1
                continue
            preview = chat.last()
            confirm = next(d for d in preview.callback_datas if d.endswith(":ok"))
            for _attempt in range(5):  # pressed again after "not available"
                answer = await chat.answered(await chat.press(chat.people[1], preview.message_id,
                                                              confirm))
                if answer.get("text") in down:
                    costs += 1
                    continue
                if not answer.get("show_alert"):
                    confirmed[chat.id].add(f"draft:{chat.id}:{preview.message_id}")
                break

    restarter = asyncio.create_task(restarts())
    try:
        await asyncio.gather(*(enter_hands(chat, 6) for chat in chats))
    finally:
        stop.set()
        await restarter
    store = await Store.open(pg_db.direct, migrate=False)
    try:
        stored = 0
        for chat in chats:
            session = await store.running_session(chat.id)
            assert session is not None
            hands = await store.history(session.id, limit=1000)
            keys = [h.idempotency_key for h in hands]
            assert len(keys) == len(set(keys)) == session.hand_count  # none twice
            assert confirmed[chat.id] <= set(keys)  # none the bot said it recorded is lost
            live = [h for h in hands if not h.voided]
            assert list(await store.totals(session.id)) == [
                sum(h.deltas[s] for h in live) for s in range(4)]
            stored += len(hands)
    finally:
        await store.close()
    print(f"PostgreSQL resets during traffic: {resets} resets, {stored} hands stored, "
          f"{sum(map(len, confirmed.values()))} confirmed, {costs} requests answered 'not available'")
