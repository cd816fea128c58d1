"""SIGKILL at the three dangerous points — right after a wizard's draft is saved, right after a
hand is stored, in the middle of an import — and right after an update's change to the books
committed, then a restart on the same database, polling and through a webhook: a hand is
stored once or not at all, an import wholly or not at all, and every update gets its answer,
also the one the dead process was handling: Telegram delivers it again (it was not
acknowledged), and what it had already booked is not booked twice."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import text

from db import Store
from tests.databases import BACKENDS, fresh_database
from tests.e2e.table import Table
from tests.fake_telegram import FakeTelegram

from .conftest import MODES

WIN = {"variant": "guiyang", "events": [{"type": "win", "by": "self_draw",
                                        "winners": [{"seat": 0}]}]}
RETRY_WAIT = 15.0  # the redelivered update's answer (a restarted process on a busy machine)


def make_table(tg: FakeTelegram) -> Table:
    players = [tg.user(101, "Alice", "alice"), tg.user(102, "Bob", "bob"),
               tg.user(103, "Carol", "carol"), tg.user(104, "Dan", "dan")]
    return Table(tg, tg.group("Kill table"), players)


async def settled(tg: FakeTelegram) -> None:
    """Everything sent so far is handled and confirmed, so the update the process dies on is
    the only one delivered again after the restart. (A bot that dies within a moment of
    finishing an update may not have confirmed it yet: Telegram hands that one out again too,
    as it should, and the restarted process would answer it first.)"""
    await tg.wait_until_confirmed(RETRY_WAIT)


async def redelivered(tg: FakeTelegram, table: Table, method: str = "sendMessage") -> Any:
    """The answer to the dead process's update, which Telegram handed out again."""
    return await tg.wait_for_request(method, RETRY_WAIT, where=table._mine)


def import_file(hands: int = 3) -> bytes:
    return json.dumps({"format": "mjledger-session/1", "variant": "guiyang",
                       "players": ["Ann", "Bo", "Cy", "Di"], "stake_cents": 50,
                       "hands": [{"seq": i + 1, "record": WIN, "voided": i == 1}
                                 for i in range(hands)]}).encode()


async def counts(url: str, chat_id: int) -> dict[str, int]:
    store = await Store.open(url, migrate=False)
    try:
        async with store.engine.connect() as conn:
            one = {"c": chat_id}
            return {
                "sessions": (await conn.execute(text(
                    "SELECT count(*) FROM sessions WHERE chat_id = :c"), one)).scalar_one(),
                "hands": (await conn.execute(text(
                    "SELECT count(*) FROM hands h JOIN sessions s ON s.id = h.session_id "
                    "WHERE s.chat_id = :c"), one)).scalar_one(),
                "entries": (await conn.execute(text(
                    "SELECT count(*) FROM ledger_entries e JOIN sessions s ON s.id = e.session_id "
                    "WHERE s.chat_id = :c"), one)).scalar_one(),
                "guests": (await conn.execute(text(
                    "SELECT count(*) FROM people WHERE guest_chat_id = :c"), one)).scalar_one(),
                "drafts": (await conn.execute(text(
                    "SELECT count(*) FROM drafts WHERE chat_id = :c"), one)).scalar_one(),
            }
    finally:
        await store.close()


async def handled(url: str, chat_id: int) -> int:
    """Updates of the chat recorded as having changed the books."""
    store = await Store.open(url, migrate=False)
    try:
        async with store.engine.connect() as conn:
            return (await conn.execute(text("SELECT count(*) FROM handled_updates WHERE chat_id = :c"),
                                       {"c": chat_id})).scalar_one()
    finally:
        await store.close()


async def consistent(url: str, chat_id: int) -> None:
    """The running totals are the sum of the live hands' deltas; each hand has four entries."""
    store = await Store.open(url, migrate=False)
    try:
        for session in await store.chat_sessions(chat_id, include_settled=True):
            hands = await store.history(session.id, limit=10_000)
            live = [h for h in hands if not h.voided]
            expected = tuple(sum(h.deltas[s] for h in live) for s in range(4))
            assert await store.totals(session.id) == expected
            assert len({h.idempotency_key for h in hands}) == len(hands)
    finally:
        await store.close()


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("backend", BACKENDS)
async def test_killed_right_after_the_draft_is_saved(tg: FakeTelegram, bot_process: Any,
                                                     tmp_path: Path, backend: str, mode: str) -> None:
    async with fresh_database(backend, tmp_path) as url:
        table = make_table(tg)
        alice, bob = table.players[:2]
        bot = await bot_process(url, crash_at="after_draft_saved", mode=mode)
        await table.seat_everyone("guiyang")
        await settled(tg)
        await tg.send_message(table.chat, bob, "/hu 1 zimo")
        await bot.killed()
        assert await counts(url, table.chat_id) == {
            "sessions": 1, "hands": 0, "entries": 0, "guests": 0, "drafts": 1}  # never posted

        await bot_process(url, mode=mode)
        answer = await redelivered(tg, table)  # the /hu again: this time its preview is posted
        preview = table.message(answer.result["message_id"])
        assert "Confirm" in " ".join(preview.button_labels)
        reply = await table.tap(bob, preview, "Confirm")
        assert not reply.get("show_alert"), reply
        assert "Hand 1 recorded" in table.message(preview.message_id).text
        assert (await counts(url, table.chat_id))["hands"] == 1
        assert (await counts(url, table.chat_id))["drafts"] == 0  # the orphan was closed too
        status = await table.say(alice, "/table")
        assert "Bob" in status.text
        await consistent(url, table.chat_id)
        tg.assert_callbacks_answered()


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("backend", BACKENDS)
async def test_killed_right_after_the_hand_is_stored(tg: FakeTelegram, bot_process: Any,
                                                     tmp_path: Path, backend: str, mode: str) -> None:
    async with fresh_database(backend, tmp_path) as url:
        table = make_table(tg)
        alice, bob = table.players[:2]
        bot = await bot_process(url, crash_at="after_hand_stored", mode=mode)
        await table.seat_everyone("guiyang")
        preview = await table.say(bob, "/hu 1 zimo")
        await settled(tg)
        confirm = preview.callback_data("Confirm")
        lost = await tg.press(table.chat_id, preview.message_id, bob, confirm)
        await bot.killed()
        assert await counts(url, table.chat_id) == {
            "sessions": 1, "hands": 1, "entries": 4, "guests": 0, "drafts": 0}

        assert lost in tg.unanswered_callbacks()  # the dead process never answered Bob's tap

        await bot_process(url, mode=mode)
        reply = await table.answered(lost)  # Telegram delivered the tap again
        assert reply.get("show_alert") and "Hand 1 is already recorded" in reply["text"], reply
        assert not table.message(preview.message_id).button_labels  # no Confirm left to tap
        assert (await counts(url, table.chat_id))["hands"] == 1  # not twice
        second = await table.say(alice, "/hu 0 zimo")
        reply = await table.tap(alice, second, "Confirm")
        assert not reply.get("show_alert"), reply
        assert "Hand 2 recorded" in table.message(second.message_id).text
        assert (await counts(url, table.chat_id))["hands"] == 2
        await consistent(url, table.chat_id)
        tg.assert_callbacks_answered()


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("backend", BACKENDS)
async def test_killed_in_the_middle_of_an_import(tg: FakeTelegram, bot_process: Any,
                                                 tmp_path: Path, backend: str, mode: str) -> None:
    async with fresh_database(backend, tmp_path) as url:
        table = make_table(tg)
        alice = table.players[0]
        tg.set_admins(table.chat_id, [alice])
        data = import_file()
        bot = await bot_process(url, crash_at="mid_import", mode=mode)
        await table.say(alice, "/help")
        await settled(tg)
        await tg.send_document(table.chat, alice, data, "session.json", caption="/import")
        await bot.killed()
        assert await counts(url, table.chat_id) == {
            "sessions": 0, "hands": 0, "entries": 0, "guests": 0, "drafts": 0}  # nothing at all

        await bot_process(url, mode=mode)
        answer = await redelivered(tg, table)  # the same file again: imported this time
        assert "Imported 3 hands" in answer.params["text"]
        assert await counts(url, table.chat_id) == {
            "sessions": 1, "hands": 3, "entries": 12, "guests": 4, "drafts": 0}
        await consistent(url, table.chat_id)


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("backend", BACKENDS)
async def test_killed_after_the_import_committed(tg: FakeTelegram, bot_process: Any,
                                                 tmp_path: Path, backend: str, mode: str) -> None:
    """At-least-once delivery: the import was committed, the process died before answering,
    so Telegram delivers the update again. It is recognised (handled_updates, written in the
    import's own transaction): answered, and nothing imported twice."""
    async with fresh_database(backend, tmp_path) as url:
        table = make_table(tg)
        alice = table.players[0]
        tg.set_admins(table.chat_id, [alice])
        bot = await bot_process(url, crash_at="after_booked", mode=mode)
        await table.say(alice, "/help")
        await settled(tg)
        await tg.send_document(table.chat, alice, import_file(), "session.json", caption="/import")
        await bot.killed()
        imported = {"sessions": 1, "hands": 3, "entries": 12, "guests": 4, "drafts": 0}
        assert await counts(url, table.chat_id) == imported  # committed; no answer yet
        assert await handled(url, table.chat_id) == 1  # in the import's own transaction

        await bot_process(url, mode=mode)
        answer = await redelivered(tg, table)
        assert "already done" in answer.params["text"], answer.params
        assert "imported as session 1" in answer.params["text"], answer.params  # what was done
        assert "Cannot import" not in answer.params["text"], answer.params
        assert await counts(url, table.chat_id) == imported  # not twice
        assert await handled(url, table.chat_id) == 1
        await consistent(url, table.chat_id)
        tg.assert_callbacks_answered()


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("backend", BACKENDS)
async def test_killed_after_a_payment_committed(tg: FakeTelegram, bot_process: Any,
                                                tmp_path: Path, backend: str, mode: str) -> None:
    """/paid from @bob 22.15: booked, then the process died before answering. Telegram delivers
    it again: the answer says what was booked the first time (as that answer would have, and
    that it was done already), with the balances; nothing is booked twice."""
    async with fresh_database(backend, tmp_path) as url:
        table = make_table(tg)
        alice = table.players[0]
        bot = await bot_process(url, mode=mode)
        await table.seat_everyone("guiyang")
        await table.say(alice, "/stake 1")  # money is owed (a payment while square is refused)
        await table.tap(alice, await table.say(alice, "/hu 0 zimo"), "Confirm")
        await bot.stop()  # seating and the hand are booked too: the crash is for the payment
        bot = await bot_process(url, crash_at="after_booked", mode=mode)
        await settled(tg)
        await tg.send_message(table.chat, alice, "/paid from @bob 22.15")
        await bot.killed()
        assert await handled(url, table.chat_id) == 7  # /new, four seats, the hand, the payment

        await bot_process(url, mode=mode)
        answer = await redelivered(tg, table)
        said = answer.params["text"]
        assert "That was already done: payment of 22.15 from Bob recorded." in said, said
        assert "nothing was changed" not in said
        store = await Store.open(url, migrate=False)
        try:
            async with store.engine.connect() as conn:
                rows = (await conn.execute(text(
                    "SELECT cents, confirmed FROM payments WHERE chat_id = :c"),
                    {"c": table.chat_id})).all()
        finally:
            await store.close()
        assert [tuple(r) for r in rows] == [(2215, True)]  # once, counted (the payee's word)
        tg.assert_callbacks_answered()
