"""Two tables in one group: eight friends, each table its own session with its own number,
wizard messages and books; commands go to the table their sender sits at, and where that is
unclear the bot asks with a button per table; one person sits at one table at a time."""

from __future__ import annotations

import base64

from bot.runner import serve
from db import Store
from tests.fake_telegram import FakeTelegram

from .conftest import settings_for
from .table import Table

ONE_PIXEL = base64.b64decode("iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQ"
                             "DwAEhQGAhKmMIQAAAABJRU5ErkJggg==")


async def _booked(table: Table, user: dict, preview: object) -> str:
    answer = await table.tap(user, preview, "Confirm")
    assert not answer.get("show_alert"), answer
    return table.message(preview.message_id).text  # type: ignore[attr-defined]


async def test_two_tables_in_one_group(bot: object, tg: FakeTelegram, table: Table,
                                       store: Store) -> None:
    alice, bob, carol, dan = table.players
    eve, frank, gina, hal = (tg.user(105, "Eve", "eve"), tg.user(106, "Frank", "frank"),
                             tg.user(107, "Gina", "gina"), tg.user(108, "Hal", "hal"))
    zed = tg.user(109, "Zed", "zed")  # sits at neither table
    tg.set_admins(table.chat_id, [zed])
    first = await table.seat_everyone("hainan")
    assert "session 1" in first.text

    # /new while a table runs asks first; its button starts a second table beside it
    asked = await table.say(eve, "/new hainan")
    assert "Table 1" in asked.text and "Start another table" in asked.button_labels[0], asked.text
    start_data = asked.callback_data("Start another table")
    await table.tap(eve, asked, "Start another table")
    second = table.message(asked.message_id)
    # the same button again (a double tap, as Telegram may deliver it): no third table
    stale = await table.press(eve, asked.message_id, start_data)
    assert stale.get("show_alert") and "no longer valid" in stale["text"], stale
    assert [s.number for s in await store.running_sessions(table.chat_id)] == [1, 2]
    assert "Table 2" in second.text and "Join" in " ".join(second.button_labels), second.text
    # one person, one table: Alice cannot also join the second
    refused = await table.tap(alice, second, "Join")
    assert refused.get("show_alert") and "table 1" in refused["text"], refused
    for p in (eve, frank, gina, hal):
        answer = await table.tap(p, second, "Join")
        assert not answer.get("show_alert"), answer
    t1, t2 = await store.running_sessions(table.chat_id)
    assert (t1.number, t2.number) == (1, 2)
    assert not {*t1.seats} & {*t2.seats} and None not in t1.seats + t2.seats

    # two wizards open at once, each naming its table; each hand goes to its sender's table
    one = await table.say(alice, "/hu 0 zimo all_pungs")
    two = await table.say(frank, "/hu 1 zimo all_pungs")
    assert "Table 1 · Hand 1" in one.text and "Table 2 · Hand 1" in two.text, (one.text, two.text)
    assert "Table 2" in await _booked(table, frank, two)
    assert "Table 1 · " in await _booked(table, alice, one)
    h1, h2 = await store.last_hand(t1.id), await store.last_hand(t2.id)
    assert h1 is not None and h2 is not None
    assert await store.totals(t1.id) == tuple(h1.outcome["deltas"])
    assert await store.totals(t2.id) == tuple(h2.outcome["deltas"])
    assert h1.outcome["deltas"][0] > 0 and h2.outcome["deltas"][1] > 0  # Alice, Frank won

    # /table and /history: the sender's own table
    mine = await table.say(bob, "/table")
    assert "Table 1" in mine.text and "Alice" in mine.text and "Eve" not in mine.text
    theirs = await table.say(gina, "/history")
    assert "Table 2" in theirs.text and "Frank" in theirs.text and "Alice" not in theirs.text

    # someone at neither table: asked which, a button per table; the asker's tap answers it
    which = await table.say(zed, "/table")
    assert "2 tables" in which.text and len(which.button_labels) == 2, which.text
    first_data = which.callback_data("Table 1")
    other = await table.tap(bob, which, "Table 2")
    assert other.get("show_alert"), other  # only the asker chooses
    answer = await table.tap(zed, which, "Table 2")
    assert not answer.get("show_alert"), answer
    shown = tg.last_message(table.chat_id)
    assert "Table 2" in shown.text and "Frank" in shown.text and "Alice" not in shown.text
    assert table.message(which.message_id).button_labels == []  # answered once
    assert (await table.press(zed, which.message_id, first_data)).get(
        "show_alert")  # a second tap of the old question is stale

    # a photo captioned /hu cannot ride on a button: told to sit down, nothing asked or booked
    await tg.send_photo(table.chat, zed, ONE_PIXEL, caption="/hu S self-draw")
    req = await tg.wait_for_request("sendMessage", 15.0, where=table._mine)
    told = table.message(req.result["message_id"])
    assert "Sit down at one of them" in told.text and told.button_labels == [], told.text

    # /undo at table 2 only
    undone = await table.say(frank, "/undo")
    assert "Table 2 · " in undone.text, undone.text
    assert await store.totals(t2.id) == (0, 0, 0, 0)
    assert await store.totals(t1.id) == tuple(h1.outcome["deltas"])
    again = await table.say(gina, "/hu 2 zimo all_pungs")
    await _booked(table, gina, again)
    h2 = await store.last_hand(t2.id)
    assert h2 is not None and h2.outcome["deltas"][2] > 0

    # stakes per table; /settle covers both, each person's money from their own table
    await table.say(bob, "/stake 1")
    await table.say(hal, "/stake 2")
    settle = await table.say(zed, "/settle")
    assert "Tables 1, 2 are still running" in settle.text, settle.text
    seats1, seats2 = (await store.get_session(t1.id)).seats, (await store.get_session(t2.id)).seats
    owed = {pid: 100 * p for pid, p in zip(seats1, await store.totals(t1.id), strict=True)}
    owed |= {pid: 200 * p for pid, p in zip(seats2, await store.totals(t2.id), strict=True)}
    assert await store.money_balances(table.chat_id) == {k: v for k, v in owed.items() if v}
    assert sum(owed.values()) == 0
    for name in ("Alice", "Carol", "Eve", "Gina"):
        assert name in settle.text

    # /end, asked by an admin at neither table: the button ends the table tapped
    which = await table.say(zed, "/end")
    assert len(which.button_labels) == 2
    await table.tap(zed, which, "Table 1")
    over = tg.last_message(table.chat_id)
    assert "Table 1 · " in over.text and "Session over" in over.text, over.text
    assert [s.number for s in await store.running_sessions(table.chat_id)] == [2]
    # one table left: no question any more
    left = await table.say(zed, "/table")
    assert "Frank" in left.text and "Table 2" not in left.text, left.text
    ended = await table.say(eve, "/end")
    assert "Session over" in ended.text and "Table" not in ended.text.split("\n")[0]
    assert await store.running_sessions(table.chat_id) == []
    final = await table.say(alice, "/settle")
    assert await store.money_balances(table.chat_id) == {k: v for k, v in owed.items() if v}
    assert "still running" not in final.text


async def test_a_guest_at_one_table_is_refused_at_the_other(bot: object, tg: FakeTelegram,
                                                             table: Table, store: Store) -> None:
    alice, bob, carol, dan = table.players
    await table.seat_everyone("hainan")
    asked = await table.say(alice, "/new")
    await table.tap(alice, asked, "Start another table")
    picker = table.message(asked.message_id)
    await table.tap(alice, picker, "Hainan")
    second = table.message(asked.message_id)
    assert "Table 2" in second.text, second.text
    # Alice sits at table 1, so /guest is about table 1 (full); a seated player's /guest goes
    # to their table. An admin at neither is asked which.
    zed = tg.user(109, "Zed", "zed")
    tg.set_admins(table.chat_id, [zed])
    which = await table.say(zed, "/guest Wang")
    await table.tap(zed, which, "Table 2")
    t1, t2 = await store.running_sessions(table.chat_id)
    people = await store.get_people(p for p in t2.seats if p is not None)
    assert [p.name for p in people.values()] == ["Wang"]
    # Wang now sits at table 2: seating Wang at table 1 too is refused
    await table.say(alice, "/end")
    asked = await table.say(alice, "/new hainan")
    await table.tap(alice, asked, "Start another table")
    t3 = (await store.running_sessions(table.chat_id))[-1]
    which = await table.say(zed, "/guest Wang")
    await table.tap(zed, which, f"Table {t3.number}")
    refused = tg.last_message(table.chat_id)
    assert "table 2" in refused.text and "one table at a time" in refused.text, refused.text
    assert all(p is None for p in (await store.get_session(t3.id)).seats)


async def test_a_question_is_answered_after_a_restart(tg: FakeTelegram, db_url: str,
                                                      table: Table) -> None:
    """The question names its command in its own text: the bot started again (or another
    worker) answers its buttons."""
    others = [tg.user(105 + i, name, name.lower()) for i, name in enumerate(("Eve", "Fay", "Gus", "Hal"))]
    zed = tg.user(109, "Zed", "zed")
    async with serve(settings_for(tg, db_url), poll_timeout=1):
        await table.seat_everyone("hainan")
        asked = await table.say(others[0], "/new hainan")
        await table.tap(others[0], asked, "Start another table")
        for p in others:
            await table.tap(p, asked, "Join")
        which = await table.say(zed, "/history")
    assert which.text.split("\n")[0] == "/history"
    async with serve(settings_for(tg, db_url), poll_timeout=1):
        answer = await table.tap(zed, which, "Table 2")
        assert not answer.get("show_alert"), answer
        shown = tg.last_message(table.chat_id)
        assert "No hands yet" in shown.text, shown.text
        assert table.message(which.message_id).text.startswith("Table 2: Eve")
