"""Answers longer than one Telegram message arrive whole, as several messages cut at line ends."""

from __future__ import annotations

from tests.fake_telegram import FakeTelegram

from .table import TIMEOUT, Table
from .test_books import export, upload


async def test_stats_of_many_players_with_long_names_arrive_whole(
        bot: object, tg: FakeTelegram, table: Table) -> None:
    alice = table.players[0]
    tg.set_admins(table.chat_id, [alice])
    names = [f"P{i:02d} <&> " + "长" * 55 for i in range(28)]  # 64 characters each
    for four in range(0, 28, 4):
        assert "Imported 2 hands" in await upload(tg, table, alice, export(names[four:four + 4]))
    start = len(tg.requests)
    await table.say(alice, "/stats")
    await tg.send_message(table.chat, alice, "/help")  # answered in turn: after all of /stats
    await tg.wait_for_request("sendMessage", TIMEOUT,
                              where=lambda r: table._mine(r) and "/new" in r.params["text"])
    sent = [r for r in tg.requests[start:] if r.method == "sendMessage"
            and str(r.params.get("chat_id")) == str(table.chat_id)]
    assert all(r.ok for r in sent), [r.response for r in sent if not r.ok]
    stats = [table.message(r.result["message_id"]).text for r in sent[:-1]]
    assert len(stats) > 1 and stats[0].startswith("📊")
    text = "\n".join(stats)
    assert "went wrong" not in text
    for name in names:
        assert text.count(name) == 1, name  # everyone, once
    for piece in stats:  # cut between players' lines: each piece starts with a name
        assert piece is stats[0] or piece.startswith("P"), piece[:40]
