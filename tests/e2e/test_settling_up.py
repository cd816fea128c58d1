"""When the game ends: stake, /end, /settle with paid buttons, /paid, /stats, /chart, /export and
/import of that file into another group — end to end over HTTP."""

from __future__ import annotations

import json

from db import Store
from tests.fake_telegram import FakeTelegram

from .table import Table


async def test_settle_pay_chart_export_import(bot: object, table: Table, store: Store,
                                               tg: FakeTelegram) -> None:
    alice, bob, carol, dan = table.players
    await table.seat_everyone("luzhou")
    stake = await table.say(alice, "/stake 0.5")
    assert "0.50" in stake.text
    for user, line in ((bob, "/hu 1 zimo pure"), (carol, "/hu 2 from 3 all_pungs")):
        wiz = await table.say(user, line)  # one Luzhou win, then the wall ran out
        await table.tap(user, wiz, "Wall exhausted")
        await table.tap(user, wiz, "Confirm")
    session = await store.running_session(table.chat_id)
    assert await store.totals(session.id) == (-10, 30, -5, -15)

    stats = await table.say(carol, "/stats")
    assert "Statistics" in stats.text and "Bob" in stats.text
    chart = await table.say(alice, "/chart", method="sendPhoto")
    assert chart.caption and "2 hands" in chart.caption
    assert chart.file is not None and chart.file.upload.data.startswith(b"\x89PNG")

    final = await table.say(alice, "/end")
    assert "Session over" in final.text and "15.00" in final.text

    settle = await table.say(dan, "/settle")
    assert "Fewest transfers (3)" in settle.text
    assert "Bob" in settle.text and "+15.00" in settle.text
    # someone who is neither payer nor payee (and no admin) cannot mark a transfer paid
    first = settle.buttons[0][0]["callback_data"]
    payer = int(first.split(":")[1])
    people = {p.id: p for p in [await store.get_person(pid) for pid in session.seats]}
    who = {p.name: p for p in people.values()}
    outsider = next(u for u in table.players
                    if who[u["first_name"]].id not in (payer, int(first.split(":")[2])))
    answer = await table.tap(outsider, settle, "✓ 1 paid")
    assert answer.get("show_alert")
    payer_user = next(u for u in table.players if who[u["first_name"]].id == payer)
    payee_user = next(u for u in table.players
                      if who[u["first_name"]].id == int(first.split(":")[2]))
    # the payer's word alone books nothing: the payment waits for the payee
    answer = await table.tap(payer_user, settle, "✓ 1 paid")
    assert not answer.get("show_alert") and "once the payee confirms" in answer["text"]
    again = table.message(settle.message_id)
    assert "Fewest transfers (3)" in again.text and "Pending" in again.text
    assert sorted((await store.money_balances(table.chat_id)).values()) == [-750, -500, -250, 1500]
    stale = await table.press(payer_user, settle.message_id, first)  # the same transfer twice
    assert stale.get("show_alert") and "waits for the payee" in stale["text"]
    for not_payee in (payer_user, outsider):
        answer = await table.tap(not_payee, settle, "received")
        assert answer.get("show_alert"), answer
    answer = await table.tap(payee_user, settle, "received")
    assert not answer.get("show_alert")
    again = table.message(settle.message_id)
    assert "Fewest transfers (2)" in again.text and "Pending" not in again.text
    stale = await table.press(payer_user, settle.message_id, first)
    assert stale.get("show_alert") and "no longer open" in stale["text"]

    for _ in range(2):  # the remaining transfers, each by its payee: counts at once
        current = table.message(settle.message_id)
        data = current.buttons[0][0]["callback_data"]
        payee_user = next(u for u in table.players
                          if who[u["first_name"]].id == int(data.split(":")[2]))
        await table.press(payee_user, settle.message_id, data)
    assert "Everyone is square" in table.message(settle.message_id).text
    assert await store.chat_sessions(table.chat_id) == []  # settled sessions drop out
    assert all(c == 0 for c in (await store.money_balances(table.chat_id)).values())

    await table.say(alice, "/export", method="sendDocument")  # the CSV, then the JSON

    def json_docs() -> list:
        return [m for m in tg.messages(table.chat_id) if m.file is not None and m.file.upload
                and (m.file.upload.filename or "").endswith(".json")]

    docs = await tg.wait_for(json_docs, 10)
    exported = json.loads(docs[-1].file.upload.data)
    assert [h["record"]["events"][0]["winners"][0]["seat"] for h in exported["hands"]] == [1, 2]

    other = Table(tg, tg.group("Friday mahjong"), table.players)
    tg.set_admins(other.chat_id, [alice])
    file_id = docs[-1].media["document"]["file_id"]
    await tg.inject({"message": {
        "message_id": 1, "date": 0, "chat": other.chat, "from": alice,
        "document": {"file_id": file_id, "file_unique_id": docs[-1].media["document"][
            "file_unique_id"], "file_name": "session.json"},
        "caption": "/import", "caption_entities": [{"type": "bot_command", "offset": 0,
                                                    "length": 7}]}})
    done = await tg.wait_for_request("sendMessage", 15,
                                     where=lambda r: r.ok and str(r.params.get("chat_id"))
                                     == str(other.chat_id))
    assert "Imported 2 hands" in done.params["text"]
    imported = (await store.chat_sessions(other.chat_id, include_settled=True))[0]
    assert await store.totals(imported.id) == (-10, 30, -5, -15)
    assert imported.stake_cents == 50


async def test_a_refused_import_says_why_in_the_chat_language(bot: object, tg: FakeTelegram,
                                                              store: Store) -> None:
    mei = tg.user(401, "美玲", "meiling", language_code="zh-TW")
    group = tg.group("週五麻將")
    tg.set_admins(group["id"], [mei])
    players = ["美玲", "阿傑", "小芳", "<b>老陳"]
    doc = {"format": "mjledger-session/1", "variant": "luzhou", "players": players, "hands": [
        {"record": {"variant": "luzhou", "events": [
            {"type": "win", "by": "self_draw", "winners": [{"seat": 0, "form": "all_pungs"}]},
            {"type": "exhausted", "ready": {"1": {}, "2": {}, "3": {}}}]}},
        {"record": {"variant": "luzhou", "events": [
            {"type": "win", "by": "discard", "from": 3, "winners": [{"seat": 3}]}]}}]}
    await tg.send_document(group, mei, json.dumps(doc).encode(), "session.json",
                           caption="/import")
    answer = await tg.wait_for_request("sendMessage", 15, where=lambda r: r.ok)
    text = tg.message(group["id"], answer.result["message_id"]).text
    assert text == "⚠️ 無法匯入：第 2 局：北 <b>老陳 不能胡自己打出的牌"  # escaped on the wire
    assert "&lt;b&gt;" in answer.params["text"]
    assert await store.chat_sessions(group["id"], include_settled=True) == []  # nothing stored
