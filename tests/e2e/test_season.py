"""/season over three sessions of one chat, end to end over the fake Bot API: members and
guests (under their names), one session without a stake and two at different stakes, in two
months; every figure the reply shows worked out by hand below, and the chart sent after it."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from sqlalchemy import update

from db import Store
from db import models as M
from tests.fake_telegram import FakeTelegram

from .table import Table


async def play(table: Table, user: dict[str, Any], line: str) -> None:
    wiz = await table.say(user, line)
    assert wiz.buttons, wiz.text
    answer = await table.tap(user, wiz, "Confirm")
    assert not answer.get("show_alert"), answer
    assert "recorded" in table.message(wiz.message_id).text, table.message(wiz.message_id).text


async def started(store: Store, table: Table, day: datetime) -> None:
    """The running session began on `day` (the season spans months the test cannot wait for)."""
    session = await store.running_session(table.chat_id)
    async with store.engine.begin() as conn:
        await conn.execute(update(M.Session).where(M.Session.id == session.id)
                           .values(started_at=day))


async def test_the_season_over_three_sessions(bot: object, table: Table, store: Store,
                                              tg: FakeTelegram) -> None:
    alice, bob, carol, dan = table.players
    answer = await table.say(alice, "/season")
    assert "No hands yet" in answer.text

    # session 1, 5 September, 1.00 a point: Alice +12 Bob −4 Carol −8; Dan self-draws 5
    await table.seat_everyone("free")
    await started(store, table, datetime(2026, 9, 5, 19, tzinfo=UTC))
    await table.say(alice, "/stake 1")
    await play(table, alice, "/hu Alice +12 S -4 Carol -8")
    await play(table, dan, "/hu Dan self-draw 5 points")
    await table.say(alice, "/end")  # Alice 7, Bob −9, Carol −13, Dan 15

    # session 2, 10 October, no stake: Alice and Bob with two guests
    lobby = await table.say(alice, "/new free")
    for p in (alice, bob):
        await table.tap(p, lobby, "Join")
    await table.say(alice, "/guest 张伟")
    await table.say(alice, "/guest 李四")
    await started(store, table, datetime(2026, 10, 10, 19, tzinfo=UTC))
    await play(table, alice, "/hu 张伟 +20 李四 -10 Alice -6 南 -4")
    await table.say(alice, "/end")

    # session 3, 24 October, 0.50 a point: Carol wins 10 off Alice's discard; 张伟 again
    lobby = await table.say(alice, "/new free")
    for p in (alice, bob, carol):
        await table.tap(p, lobby, "Join")
    await table.say(alice, "/guest 张伟")
    await started(store, table, datetime(2026, 10, 24, 19, tzinfo=UTC))
    await table.say(alice, "/stake 0.5")
    await play(table, carol, "/hu Carol from Alice 10 points")
    await table.say(alice, "/end")

    await tg.send_message(table.chat, bob, "/season")
    text_req = await tg.wait_for_request("sendMessage", 15, where=lambda r: r.ok and "season" in
                                         r.params.get("text", "").lower())
    text = text_req.params["text"]
    photo = await tg.wait_for_request("sendPhoto", 15, where=lambda r: r.ok)
    # by hand — points; money (points × stake):
    # Dan    S1 +15                    = +15;  15.00
    # Alice  S1 +7,  S2 −6, S3 −10     = −9;   7.00 + 0 − 5.00 = +2.00
    # 张伟    S2 +20, S3 0               = +20;  0.00
    # 李四    S2 −10                     = −10;  0.00
    # Carol  S1 −13, S3 +10            = −3;   −13.00 + 5.00 = −8.00
    # Bob    S1 −9,  S2 −4, S3 0       = −13;  −9.00
    # (zero-sum: 15 − 9 + 20 − 10 − 3 − 13 = 0 points; 15 + 2 − 8 − 9 = 0 money)
    assert "3 sessions since 2026-09-05 · 4 hands" in text, text
    lines = text.splitlines()
    ranked = [ln for ln in lines if ln[:2] in ("1.", "2.", "3.", "4.", "5.", "6.")]
    assert ranked == ["1. <b>Dan</b>: <b>+15 (+15.00)</b>",
                      "2. <b>Alice</b>: <b>−9 (+2.00)</b>",
                      "3. <b>张伟</b>: <b>+20 (0.00)</b>",
                      "4. <b>李四</b>: <b>−10 (0.00)</b>",
                      "5. <b>Carol</b>: <b>−3 (−8.00)</b>",
                      "6. <b>&lt;b&gt;&amp;Bob</b>: <b>−13 (−9.00)</b>"], ranked
    after = {ln: lines[i + 1] for i, ln in enumerate(lines) if ln in ranked}
    assert after[ranked[1]].strip() == "3 sessions, 4 hands, 0 wins"
    assert after[ranked[4]].strip() == "2 sessions, 3 hands, 1 win"
    assert after[ranked[0]].strip() == "1 session, 2 hands, 1 win"
    # best and worst evening, by money where any was played for money, else by points
    assert "best +7 (+7.00) (#1, 2026-09-05), worst −10 (−5.00) (#3, 2026-10-24)" in text
    assert "best +20 (0.00) (#2, 2026-10-10), worst ±0 (0.00) (#3, 2026-10-24)" in text
    assert ("2026-09 · 1 session: Dan +15 (+15.00), Alice +7 (+7.00), &lt;b&gt;&amp;Bob −9 "
            "(−9.00), Carol −13 (−13.00)") in text
    # each month best first, by money, then points
    assert ("2026-10 · 2 sessions: Carol +10 (+5.00), 张伟 +20 (0.00), &lt;b&gt;&amp;Bob −4 (0.00), "
            "李四 −10 (0.00), Alice −16 (−5.00)") in text
    assert "running net over 3 sessions" in photo.params["caption"]
    sent = tg.message(table.chat_id, photo.result["message_id"])
    assert sent.file is not None and sent.file.upload.data.startswith(b"\x89PNG")
