"""/export keeps each session's export and adds only the hands entered since the last one; a
hand undone after it was exported makes the next /export write again from that hand's batch."""

from __future__ import annotations

import csv
import io
import json
from typing import Any

import pytest

from db import Store
from tests.fake_telegram import FakeTelegram

from .table import Table
from .test_chat_flows import wall_out


async def export(table: Table, tg: FakeTelegram, user: dict) -> tuple[list[list[str]], dict]:
    before = len([m for m in tg.messages(table.chat_id) if m.file is not None])
    await table.say(user, "/export", method="sendDocument")

    def both() -> list:
        docs = [m for m in tg.messages(table.chat_id) if m.file is not None and m.file.upload]
        return docs[before:] if len(docs) >= before + 2 else []

    csv_doc, json_doc = await tg.wait_for(both, 10)
    assert csv_doc.file.upload.filename.endswith(".csv")
    rows = list(csv.reader(io.StringIO(csv_doc.file.upload.data.decode("utf-8-sig"))))
    return rows, json.loads(json_doc.file.upload.data)


async def test_export_adds_only_new_hands_and_rewrites_after_an_undo(
        bot: Any, table: Table, store: Store, tg: FakeTelegram,
        monkeypatch: pytest.MonkeyPatch) -> None:
    reads: list[Any] = []  # where each read of hands for the export started
    iter_hands = Store.iter_hands

    def spy(self: Store, session_id: int, **kwargs: Any) -> Any:
        reads.append(kwargs.get("after", 0))
        return iter_hands(self, session_id, **kwargs)

    monkeypatch.setattr(Store, "iter_hands", spy)
    bot.bot_data["export_keeper"].pause()  # only /export reads hands here
    alice, bob, carol, dan = table.players
    await table.seat_everyone("luzhou")
    await wall_out(table, bob, await table.say(bob, "/hu 1 zimo pure"))
    await wall_out(table, alice, await table.say(alice, "/hu 0 zimo seven_pairs"))
    rows, doc = await export(table, tg, carol)
    assert [h["seq"] for h in doc["hands"]] == [1, 2] and reads == [0]
    assert len(rows) == 1 + 2 * 4

    await wall_out(table, carol, await table.say(carol, "/hu 2 zimo"))
    rows, doc = await export(table, tg, carol)
    assert [h["seq"] for h in doc["hands"]] == [1, 2, 3]
    assert reads == [0, 2]  # only hand 3 was read
    assert not any(h["voided"] for h in doc["hands"])
    session = await store.running_session(table.chat_id)
    totals = await store.totals(session.id)
    assert [int(r[5]) for r in rows[-4:]] == list(totals)  # running totals carried over

    done = await table.say(carol, "/undo typo")  # hand 3, already in the cache
    assert "Hand 3 undone" in done.text
    rows, doc = await export(table, tg, carol)
    assert [h["voided"] for h in doc["hands"]] == [False, False, True]
    assert doc["hands"][2]["void_reason"] == "typo"
    assert reads[2:] == [2]  # nothing new after hand 3: hand 3 again (not 1 and 2)
    totals = await store.totals(session.id)
    assert [int(r[5]) for r in rows[-4:]] == list(totals)


async def test_a_long_first_export_answers_at_once_and_sends_the_files_after(
        bot: object, table: Table, tg: FakeTelegram, monkeypatch: pytest.MonkeyPatch) -> None:
    import bot.commands.ledger

    monkeypatch.setattr(bot.commands.ledger, "LONG_EXPORT", 1)  # "long": more than one hand to write
    alice, bob, carol, dan = table.players
    await table.seat_everyone("luzhou")
    await wall_out(table, bob, await table.say(bob, "/hu 1 zimo pure"))
    await wall_out(table, alice, await table.say(alice, "/hu 0 zimo seven_pairs"))
    notice = await table.say(carol, "/export")
    assert "Preparing the export of 2 hands" in notice.text
    def files() -> list:
        docs = [m for m in tg.messages(table.chat_id) if m.file is not None and m.file.upload]
        return docs if len(docs) >= 2 else []

    docs = await tg.wait_for(files, 10)
    assert [d.file.upload.filename.rsplit(".", 1)[1] for d in docs] == ["csv", "json"]
    assert [h["seq"] for h in json.loads(docs[1].file.upload.data)["hands"]] == [1, 2]
    rows, doc = await export(table, tg, carol)  # now held in the cache: the files at once
    assert [h["seq"] for h in doc["hands"]] == [1, 2] and len(rows) == 9


async def test_the_keeper_follows_the_chat_so_export_reads_no_hand(
        bot: Any, table: Table, store: Store, tg: FakeTelegram,
        monkeypatch: pytest.MonkeyPatch) -> None:
    keeper = bot.bot_data["export_keeper"]
    keeper.delay = 0.05  # the debounce, shortened
    alice, bob, carol, dan = table.players
    await table.seat_everyone("luzhou")
    await wall_out(table, bob, await table.say(bob, "/hu 1 zimo pure"))
    await wall_out(table, alice, await table.say(alice, "/hu 0 zimo seven_pairs"))
    await keeper.wait_idle(30)
    written = keeper.refreshed
    assert written >= 1
    done = await table.say(alice, "/undo typo")  # hand 2 voided
    assert "Hand 2 undone" in done.text
    await tg.wait_for(lambda: keeper.refreshed > written, 30)  # the chat was marked after it
    await keeper.wait_idle(30)
    assert keeper.failures == 0

    reads: list[Any] = []

    def spy(self: Store, session_id: int, **kwargs: Any) -> Any:
        reads.append(kwargs.get("after", 0))
        return iter_hands(self, session_id, **kwargs)

    iter_hands = Store.iter_hands
    monkeypatch.setattr(Store, "iter_hands", spy)
    rows, doc = await export(table, tg, carol)
    assert reads == []  # the cache held both hands, hand 2 voided
    assert [(h["seq"], h["voided"]) for h in doc["hands"]] == [(1, False), (2, True)]
    session = await store.running_session(table.chat_id)
    assert [int(r[5]) for r in rows[-4:]] == list(await store.totals(session.id))
