"""/export reads the session from the database each time (one pass over its hands) and sends
the CSV and the JSON file: hands added or undone since the last /export are in the next one, a
long session is announced first and its files follow, and a failure is told as what it is."""

from __future__ import annotations

import csv
import io
import json
from typing import Any

import pytest

from db import DatabaseUnavailable, Session, Store
from tests.fake_telegram import FakeTelegram

from .table import Table
from .test_books import upload
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


async def import_again(table: Table, tg: FakeTelegram, store: Store, admin: dict, doc: dict) -> Session:
    """The session ended, then its export imported by a chat admin: the session it made, after
    the chat says all its hands were imported."""
    await table.say(admin, "/end")
    tg.set_admins(table.chat_id, [admin])
    text = await upload(tg, table, admin, json.dumps(doc).encode())
    assert f"Imported {len(doc['hands'])} hands" in text, text
    return (await store.chat_sessions(table.chat_id, include_settled=True))[0]


async def test_each_export_reads_the_session_as_it_is_now(
        bot: Any, table: Table, store: Store, tg: FakeTelegram,
        monkeypatch: pytest.MonkeyPatch) -> None:
    reads: list[int] = []  # the session each read of hands was for
    iter_hands = Store.iter_hands

    def spy(self: Store, session_id: int, **kwargs: Any) -> Any:
        reads.append(session_id)
        return iter_hands(self, session_id, **kwargs)

    monkeypatch.setattr(Store, "iter_hands", spy)
    alice, bob, carol, dan = table.players
    await table.seat_everyone("luzhou")
    await wall_out(table, bob, await table.say(bob, "/hu 1 zimo pure"))
    await wall_out(table, alice, await table.say(alice, "/hu 0 zimo seven_pairs"))
    rows, doc = await export(table, tg, carol)
    assert [h["seq"] for h in doc["hands"]] == [1, 2] and len(reads) == 1
    assert len(rows) == 1 + 2 * 4

    await wall_out(table, carol, await table.say(carol, "/hu 2 zimo"))
    rows, doc = await export(table, tg, carol)
    assert [h["seq"] for h in doc["hands"]] == [1, 2, 3] and len(reads) == 2
    assert not any(h["voided"] for h in doc["hands"])
    session = await store.running_session(table.chat_id)
    totals = await store.totals(session.id)
    assert [int(r[5]) for r in rows[-4:]] == list(totals)  # running totals

    done = await table.say(carol, "/undo typo")  # hand 3, in the export before
    assert "Hand 3 undone" in done.text
    rows, doc = await export(table, tg, carol)
    assert [h["voided"] for h in doc["hands"]] == [False, False, True]
    assert doc["hands"][2]["void_reason"] == "typo"
    totals = await store.totals(session.id)
    assert [int(r[5]) for r in rows[-4:]] == list(totals)
    assert reads == [session.id] * 3


async def test_a_long_export_answers_at_once_and_sends_the_files_after(
        bot: object, table: Table, tg: FakeTelegram, monkeypatch: pytest.MonkeyPatch) -> None:
    import bot.commands.ledger

    monkeypatch.setattr(bot.commands.ledger, "LONG_EXPORT", 1)  # "long": more than one hand
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
    rows, doc = await export(table, tg, carol)  # again: the same files
    assert [h["seq"] for h in doc["hands"]] == [1, 2] and len(rows) == 9


@pytest.mark.parametrize(("fault", "said"), [
    (DatabaseUnavailable("the database is down"), "database is not available"),
    (ValueError("a hand it cannot write"), "Something went wrong"),
])
@pytest.mark.parametrize("long", [False, True])
async def test_a_failed_export_says_what_failed_and_the_next_one_works(
        bot: object, table: Table, tg: FakeTelegram, monkeypatch: pytest.MonkeyPatch,
        fault: Exception, said: str, long: bool) -> None:
    import bot.commands.ledger
    from bot.view.export import SessionExport

    if long:  # the files from a task of their own: its failure is told all the same
        monkeypatch.setattr(bot.commands.ledger, "LONG_EXPORT", 0)
    alice, bob, carol, dan = table.players
    await table.seat_everyone("luzhou")
    await wall_out(table, bob, await table.say(bob, "/hu 1 zimo pure"))
    write = SessionExport.write

    def failing(self: SessionExport, hands: Any) -> None:
        raise fault

    monkeypatch.setattr(SessionExport, "write", failing)
    before = len(tg.messages(table.chat_id))
    await table.say(carol, "/export")

    def told() -> list:
        return [m for m in tg.messages(table.chat_id)[before:] if said in (m.text or "")]

    await tg.wait_for(told, 10)
    assert not [m for m in tg.messages(table.chat_id)[before:] if m.file is not None]
    monkeypatch.setattr(SessionExport, "write", write)
    rows, doc = await export(table, tg, carol)
    assert [h["seq"] for h in doc["hands"]] == [1] and len(rows) == 5
