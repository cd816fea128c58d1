"""Polling acknowledges an update only once it was handled, and handles chats side by side
(a PTB Application with the bot's update processor, polling the fake Bot API)."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator

import pytest
from telegram import Update
from telegram.ext import Application, ApplicationBuilder, TypeHandler

from bot.plumbing.polling import Poller
from bot.plumbing.updates import PerChatProcessor
from tests.fake_telegram import FakeTelegram


@pytest.fixture
async def app(tg: FakeTelegram) -> AsyncIterator[Application]:
    application = (ApplicationBuilder().token(tg.token).base_url(tg.base_url)
                   .concurrent_updates(PerChatProcessor()).updater(None).build())
    async with application:
        await application.start()
        yield application
        await application.stop()


def waiting_ids(tg: FakeTelegram) -> list[int]:
    """Updates the fake still holds: not acknowledged by any getUpdates offset."""
    return [u["update_id"] for u in tg._updates]


async def test_an_update_is_acknowledged_only_after_it_was_handled(
        tg: FakeTelegram, app: Application) -> None:
    stuck, done = asyncio.Event(), []

    async def handle(update: Update, _: object) -> None:
        if update.effective_chat.id == slow["id"]:  # type: ignore[union-attr]
            await stuck.wait()  # a locked database, say
        done.append(update.update_id)

    app.add_handler(TypeHandler(Update, handle))
    slow, fast = tg.group("slow"), tg.group("fast")
    alice = tg.user(1, "Alice")
    poller = Poller(app, timeout=5, allowed_updates=["message"])
    poller.start()
    try:
        await tg.send_message(slow, alice, "/table")
        first = tg.injected[-1]["update_id"]
        await tg.wait_for(lambda: len(tg.requests_for("getUpdates")) >= 3)
        # another chat is handled, and acknowledged, while the slow one waits...
        await tg.send_message(fast, alice, "/table")
        second = tg.injected[-1]["update_id"]
        await tg.wait_for(lambda: second in done)
        assert first not in done
        # ...but the slow chat's update stays on the server: a restart would get it again
        await asyncio.sleep(0.6)
        assert waiting_ids(tg)[:1] == [first]
        stuck.set()
        await tg.wait_for(lambda: first in done)
        await tg.wait_for(lambda: not waiting_ids(tg))  # now acknowledged, both
    finally:
        await poller.stop()
    assert sorted(done) == [first, second]  # each handled once


async def test_a_clean_stop_acknowledges_what_was_handled(tg: FakeTelegram,
                                                          app: Application) -> None:
    done: list[int] = []

    async def handle(update: Update, _: object) -> None:
        await asyncio.sleep(0.3)
        done.append(update.update_id)

    app.add_handler(TypeHandler(Update, handle))
    poller = Poller(app, timeout=5, allowed_updates=["message"])
    poller.start()
    await tg.send_message(tg.group("g"), tg.user(1, "Alice"), "/help")
    await tg.wait_for(lambda: poller._handling)
    await poller.stop()  # while the update is being handled: it finishes, then is acknowledged
    assert done == [tg.injected[-1]["update_id"]]
    assert waiting_ids(tg) == []


async def test_updates_fetched_again_while_being_handled_are_handled_and_read_once(
        tg: FakeTelegram, app: Application, monkeypatch: pytest.MonkeyPatch) -> None:
    release, done = asyncio.Event(), []

    async def handle(update: Update, _: object) -> None:
        await release.wait()  # every update stays in flight: each getUpdates returns it again
        done.append(update.update_id)

    parsed: list[int] = []
    de_json = Update.de_json

    def counting_de_json(data: dict, bot: object = None) -> Update:
        parsed.append(data["update_id"])
        return de_json(data, bot)  # type: ignore[arg-type]

    monkeypatch.setattr("bot.plumbing.polling.Update.de_json", counting_de_json)
    app.add_handler(TypeHandler(Update, handle))
    alice = tg.user(1, "Alice")
    poller = Poller(app, timeout=5, allowed_updates=["message"])
    poller.start()
    try:
        for n in range(5):
            await tg.send_message(tg.group(f"g{n}"), alice, "/table")
        sent = [u["update_id"] for u in tg.injected]
        await tg.wait_for(lambda: len(poller._handling) == 5)
        polls = len(tg.requests_for("getUpdates"))
        await tg.wait_for(lambda: len(tg.requests_for("getUpdates")) >= polls + 3)
        assert waiting_ids(tg) == sent  # fetched again and again, never acknowledged
        release.set()
        await tg.wait_for(lambda: not waiting_ids(tg))
    finally:
        await poller.stop()
    assert sorted(done) == sent  # each handled once
    assert sorted(parsed) == sent  # and read once, though fetched many times


async def test_an_update_that_cannot_be_read_is_acknowledged_and_the_rest_go_on(
        tg: FakeTelegram, app: Application, monkeypatch: pytest.MonkeyPatch) -> None:
    done: list[int] = []

    async def handle(update: Update, _: object) -> None:
        done.append(update.update_id)

    app.add_handler(TypeHandler(Update, handle))
    await tg.send_message(tg.group("g"), tg.user(1, "Alice"), "/table")
    bad = tg.injected[-1]
    await tg.send_message(tg.group("g"), tg.user(1, "Alice"), "/table")
    good = tg.injected[-1]["update_id"]
    de_json = Update.de_json

    def picky_de_json(data: dict, bot: object = None) -> Update:
        if data["update_id"] == bad["update_id"]:  # a field this PTB version cannot read, say
            raise TypeError("cannot read it")
        return de_json(data, bot)  # type: ignore[arg-type]

    monkeypatch.setattr("bot.plumbing.polling.Update.de_json", picky_de_json)
    poller = Poller(app, timeout=5, allowed_updates=["message"])
    poller.start()
    try:
        await tg.wait_for(lambda: good in done)
        await tg.wait_for(lambda: not waiting_ids(tg))  # the bad one too: it would never pass
    finally:
        await poller.stop()
    assert done == [good] and bad["update_id"] < good
