"""A name with bidirectional controls cannot turn the rest of a line around: the controls are
gone from what is stored and from every message, and a right-to-left name sits in its own
isolate beside the points."""

from __future__ import annotations

from db import Store
from tests.fake_telegram import FakeTelegram

from .table import Table

CONTROLS = set("\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069")
FSI, PDI = "\u2068", "\u2069"


async def test_bidi_controls_never_reach_a_message(bot: object, tg: FakeTelegram,
                                                   store: Store) -> None:
    players = [tg.user(901, "Alice", "alice"), tg.user(902, "Bob", "bob"),
               tg.user(903, "داود", "dawud"), tg.user(904, "Mal\u202eyrol", "mal")]
    table = Table(tg, tg.group("bidi"), players)
    await table.seat_everyone("luzhou")
    await table.say(players[0], "/hu N self-draw pure suit")
    session = await store.running_session(table.chat_id)
    people = {p.telegram_id: p.name for p in (await store.get_people(session.seats)).values()}
    assert people[904] == "Malyrol"
    standings = await table.say(players[1], "/table")
    assert "North Malyrol" in standings.text, standings.text
    assert f"West {FSI}داود{PDI}: " in standings.text, standings.text
    sent = [r.params["text"] for r in tg.requests
            if r.method in ("sendMessage", "editMessageText") and r.ok]
    assert sent and not any((CONTROLS - {FSI, PDI}) & set(text) for text in sent)
    assert all(text.count(FSI) == text.count(PDI) for text in sent)
