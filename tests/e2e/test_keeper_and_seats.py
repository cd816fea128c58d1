"""An evening as it really goes, over the fake Bot API: a scorekeeper who enters every hand for
four guests, a substitute at hand 5 and a swap at hand 9 (what each person won checked by hand
against /table, /end and /settle), and the refusals around keepers and seats."""

from __future__ import annotations

import json
from typing import Any

from db import Store
from scoring.settlement import settle
from tests.fake_telegram import FakeTelegram

from .table import Table
from .test_books import upload
from .test_export import export

WINS = ("/hu 1 zimo pure", "/hu 2 from 3 all_pungs", "/hu 0 zimo", "/hu 3 from 1 pure")


async def play(table: Table, user: dict[str, Any], line: str) -> None:
    """One Luzhou hand: a win, then the wall ran out; Confirm."""
    wiz = await table.say(user, line)
    answer = await table.tap(user, wiz, "Wall exhausted")
    assert not answer.get("show_alert"), answer
    answer = await table.tap(user, wiz, "Confirm")
    assert not answer.get("show_alert"), answer
    assert "recorded" in table.message(wiz.message_id).text, table.message(wiz.message_id).text


async def seat_deltas(store: Store, session_id: int) -> list[tuple[int, ...]]:
    """Each standing hand's points by seat, oldest first (as scoring gave them)."""
    hands = await store.history(session_id, limit=100, include_voided=False)
    return [tuple(h.outcome["deltas"]) for h in reversed(hands)]


def signed(n: int) -> str:
    return f"+{n}" if n > 0 else "±0" if n == 0 else f"−{-n}"


def cents(amount: int) -> str:
    sign = "+" if amount > 0 else "−" if amount < 0 else ""
    return f"{sign}{abs(amount) // 100}.{abs(amount) % 100:02d}"


async def test_a_scorekeeper_plays_an_evening_for_four_guests(bot: object, table: Table,
                                                              store: Store, tg: FakeTelegram) -> None:
    alice, bob, carol, dan = table.players
    await table.say(alice, "/new luzhou")
    for name in ("Wang", "Li", "Zhang", "Zhao"):
        await table.say(alice, f"/guest {name}")
    await table.say(alice, "/stake 1")
    # Bob is neither seated nor keeping score: refused, and nothing is opened
    refused = await table.say(bob, WINS[0])
    assert "the scorekeeper" in refused.text
    for line in WINS[:3]:  # Alice started the session: she keeps its score
        await play(table, alice, line)
    # she names Bob, who may then enter a hand and undo it
    named = await table.say(alice, "/keeper @bob")
    assert "keeps score for session 1" in named.text and "Bob" in named.text
    await play(table, bob, WINS[3])
    undone = await table.say(bob, "/undo")
    assert "undone" in undone.text
    session = await store.running_session(table.chat_id)
    assert session is not None and len(session.keepers) == 1
    expected = [sum(d[s] for d in await seat_deltas(store, session.id)) for s in range(4)]
    assert sum(expected) == 0 and any(expected)
    # Carol offers by button; Alice, at the table as its keeper, agrees
    shown = await table.say(carol, "/keeper")
    assert "Keeping score" in shown.text and "Alice" in shown.text
    answer = await table.tap(carol, shown, "I keep score")
    assert "Asked the table" in answer["text"]
    offer = tg.last_message(table.chat_id)
    assert "offers to keep score" in offer.text
    refused_tap = await table.tap(carol, offer.message_id, "keeps score")
    assert refused_tap.get("show_alert")  # not her own call
    await table.tap(alice, offer.message_id, "keeps score")
    assert "Carol keeps score" in table.message(offer.message_id).text
    ended = await table.say(carol, "/end")  # the keeper ends it for every seat
    assert "Session over" in ended.text
    for seat, (name, points) in enumerate(zip(("Wang", "Li", "Zhang", "Zhao"), expected,
                                              strict=True)):
        assert f"{('East', 'South', 'West', 'North')[seat]} {name}: {signed(points)}" in ended.text
    results = {r.person_id: r.points for r in await store.person_results([session.id])}
    assert [results[p] for p in session.seats] == expected
    # money between two guests: the payer's word waits, the scorekeeper's counts (no phones)
    shown = await table.say(bob, "/settle")
    assert "Fewest transfers" in shown.text
    answer = await table.tap(dan, shown, "✓ 1 paid")
    assert answer.get("show_alert")  # neither of the two, nor keeping score
    answer = await table.tap(carol, shown, "✓ 1 paid")
    assert not answer.get("show_alert") and answer["text"] == "Recorded."
    assert not await store.pending_payments(table.chat_id)
    owed = {p: e * 100 for p, e in zip(session.seats, expected, strict=True) if e}
    first = settle(owed)[0]  # what /settle listed as transfer 1, now made
    owed[first.payer] += first.cents
    owed[first.payee] -= first.cents
    assert {p: c for p, c in (await store.money_balances(table.chat_id)).items() if c} == {
        p: c for p, c in owed.items() if c}


async def test_a_keeper_must_be_a_member_of_the_chat(bot: object, table: Table, store: Store,
                                                     tg: FakeTelegram) -> None:
    alice, bob, *_ = table.players
    await table.seat_everyone("luzhou")
    zed = tg.user(109, "Zed", "zed")
    other = tg.group("Another table")
    await tg.send_message(other, zed, "/table")  # the bot knows Zed, from another chat
    await tg.wait_for_request("sendMessage", 10, where=lambda r: str(r.params.get("chat_id"))
                              == str(other["id"]))
    for who in ("@zed", "@nobody", "Wang"):
        answer = await table.say(alice, f"/keeper {who}")
        assert "no member of this chat that I know" in answer.text, answer.text
    session = await store.running_session(table.chat_id)
    assert session is not None and session.keepers == ()


async def test_a_substitute_at_hand_5_and_a_swap_at_hand_9(bot: object, table: Table,
                                                            store: Store, tg: FakeTelegram) -> None:
    alice, bob, carol, dan = table.players
    await table.seat_everyone("luzhou")
    await table.say(alice, "/stake 0.5")
    session = await store.running_session(table.chat_id)
    assert session is not None
    a, b, c, d = session.seats
    for i in range(4):
        await play(table, alice, WINS[i])
    # hand 5 on: Eve (a guest) plays for Dan
    sub = await table.say(alice, "/seat N Eve")
    assert "Eve sits North from the next hand on" in sub.text
    session = await store.running_session(table.chat_id)
    assert session is not None
    e = session.seats[3]
    assert e not in (a, b, c, d)
    for i in range(4):
        await play(table, bob, WINS[(i + 1) % 4])
    # hand 9 on: Alice and Bob swap seats (换位)
    swapped = await table.say(carol, "/seat 东 南")
    assert "East and South swap seats" in swapped.text
    for i in range(2):
        await play(table, carol, WINS[(i + 2) % 4])
    deltas = await seat_deltas(store, session.id)
    assert len(deltas) == 10 and all(sum(h) == 0 for h in deltas)
    # who sat where, by hand, as the table did it: the sums by hand
    sat = [(a, b, c, d)] * 4 + [(a, b, c, e)] * 4 + [(b, a, c, e)] * 2
    own: dict[int, int] = {}
    for seats, hand in zip(sat, deltas, strict=True):
        for seat, person in enumerate(seats):
            own[person] = own.get(person, 0) + hand[seat]
    assert sum(own.values()) == 0
    results = {r.person_id: r.points for r in await store.person_results([session.id])}
    assert results == own
    # /table: each seated person's own total, and Dan's, who left, kept
    shown = await table.say(dan, "/table")
    lines = shown.text.splitlines()
    for wind, person, name in (("East", b, "Bob"), ("South", a, "Alice"), ("North", e, "Eve")):
        line = next(x for x in lines if x.startswith(wind))
        assert name in line and f": {signed(own[person])} ke" in line, (line, own[person])
    assert "Played earlier, now not seated:" in shown.text
    assert any(x.startswith("Dan") and cents(own[d] * 50) in x for x in lines), shown.text
    # /chart draws a line per person: five people, Dan's flat after hand 4
    chart = await table.say(alice, "/chart", method="sendPhoto")
    assert chart.file is not None and chart.file.upload.data.startswith(b"\x89PNG")
    series = await store.chart_series(session.id)
    assert series.people is not None and set(series.people) == {a, b, c, d, e}
    assert series.people[d][4:] == [own[d]] * 7 and series.people[e][:5] == [0] * 5
    assert {p: line[-1] for p, line in series.people.items()} == own
    # /history names who played each hand; /end keeps Dan's result
    history = await table.say(dan, "/history")
    assert "Eve" in history.text
    ended = await table.say(alice, "/end")
    assert "Dan" in ended.text and "Played earlier" in ended.text
    settle = await table.say(alice, "/settle")
    balances = await store.money_balances(table.chat_id)
    assert balances == {p: pts * 50 for p, pts in own.items() if pts} | {
        p: 0 for p, pts in own.items() if not pts}
    for name, person in (("Alice", a), ("Bob", b), ("Carol", c), ("Dan", d), ("Eve", e)):
        if own[person]:
            assert any(name in x and cents(own[person] * 50) in x for x in settle.text.splitlines()), \
                (name, settle.text)
    # /export names who sat where for each hand; /import in another group gives everyone theirs
    rows, doc = await export(table, tg, carol)
    bob_name = "<b>&Bob"
    assert doc["players"] == [bob_name, "Alice", "Carol", "Eve"]  # as they sit at the end
    sat_names = [["Alice", bob_name, "Carol", "Dan"]] * 4 + [["Alice", bob_name, "Carol", "Eve"]] * 4
    assert [h.get("players") for h in doc["hands"]] == [*sat_names, None, None]
    assert [r[3] for r in rows[1:] if r[0] == "1"] == sat_names[0]  # the CSV's player column
    other = Table(tg, tg.group("Friday mahjong"), table.players)
    tg.set_admins(other.chat_id, [alice])
    text = await upload(tg, other, alice, json.dumps(doc).encode())
    assert "Imported 10 hands" in text, text
    imported = (await store.chat_sessions(other.chat_id, include_settled=True))[0]
    results = await store.person_results([imported.id])
    people = await store.get_people(r.person_id for r in results)
    assert {people[r.person_id].name: r.points for r in results} == {
        name: own[p] for name, p in ((bob_name, b), ("Alice", a), ("Carol", c), ("Dan", d),
                                     ("Eve", e))}


async def test_seat_refusals_change_nothing(bot: object, table: Table, store: Store,
                                            tg: FakeTelegram) -> None:
    alice, bob, carol, dan = table.players
    lobby = await table.seat_everyone("luzhou")
    await play(table, alice, WINS[0])
    before = await store.running_session(table.chat_id)
    assert before is not None
    # a person given two seats
    two = await table.say(alice, "/seat W @alice")
    assert "Alice already sits East: one person, one seat" in two.text
    await table.say(alice, "/seat N Eve")
    again = await table.say(alice, "/seat W Eve")
    assert "Eve already sits North" in again.text
    # a late arrival cannot take someone's seat by button; an empty one, yes
    late = tg.user(105, "Frank", "frank")
    screen = await table.say(late, "/seat")
    answer = await table.tap(late, screen, "🚪 West")
    assert answer.get("show_alert") and "scorekeeper" in answer["text"]
    await table.say(carol, "/seat W -")
    screen = await table.say(late, "/seat")
    answer = await table.tap(late, screen, "🙋 West")
    assert "Frank sits West" in answer["text"]
    now = await store.running_session(table.chat_id)
    assert now is not None and now.seats[2] != before.seats[2]
    # a seat change while a hand is being entered: its Confirm says so and asks again
    wiz = await table.say(bob, WINS[1])
    await table.tap(bob, wiz, "Wall exhausted")
    await table.say(alice, "/seat 0 1")
    answer = await table.tap(bob, wiz, "Confirm")
    assert "a seat changed hands" in table.message(wiz.message_id).text
    session = await store.running_session(table.chat_id)
    assert session is not None and await store.standing_hands(session.id) == 1
    await table.tap(bob, wiz, "Confirm")
    assert "recorded" in table.message(wiz.message_id).text
    last = (await store.history(session.id, limit=1, people=True))[0]
    assert last.people == session.seats  # booked with who sits there now
    # a seat change in an ended session
    await table.say(alice, "/end")
    answer = await table.tap(alice, lobby, "Leave")
    assert answer.get("show_alert") and "over" in answer["text"]
    stale = await table.say(alice, "/seat 0 1")
    assert "No session is running" in stale.text
    answer = await table.press(alice, screen.message_id,
                               screen.buttons[2][0]["callback_data"])  # ⇅ on the old screen
    assert answer.get("show_alert") and "over" in answer["text"]
    ended = await store.get_session(session.id)
    assert ended.seats == session.seats
