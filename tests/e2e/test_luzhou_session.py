"""A Luzhou session at a group table, entered by keyboard, end to end over HTTP."""

from __future__ import annotations

from db import Store

from .table import Table, cli_deltas


async def test_keyboard_session_totals_match_the_command_line(bot: object, table: Table,
                                                               store: Store) -> None:
    alice, bob, carol, dan = table.players
    lobby = await table.seat_everyone("luzhou")
    assert "Alice" in lobby.text and "<b>&Bob" in lobby.text  # shown as text, not markup

    wiz = await table.say(bob, "/hand")
    await table.tap_in_row(bob, wiz, "East Alice", "Self-draw")
    await table.tap(bob, wiz, "+")  # one 闺
    await table.tap(bob, wiz, "Add")
    await table.tap(bob, wiz, "South")  # Bob won …
    await table.tap(bob, wiz, "← West Carol")  # … off Carol's discard
    await table.tap(bob, wiz, "all pungs")
    await table.tap(bob, wiz, "Add")
    await table.tap_in_row(bob, wiz, "North Dan", "Self-draw")
    await table.tap(bob, wiz, "pure suit")
    preview = table.message(wiz.message_id)  # the third win: the form shows the payments
    assert "✔ Confirm" in preview.button_labels and "Payments" in preview.text
    answer = await table.tap(bob, wiz, "Confirm")
    assert not answer.get("show_alert")
    done = table.message(wiz.message_id)
    assert "Hand 1 recorded" in done.text and not done.buttons

    wiz2 = await table.say(alice, "/hand")
    await table.tap_in_row(alice, wiz2, "West Carol", "Self-draw")
    await table.tap(alice, wiz2, "all pungs")
    await table.tap(alice, wiz2, "Add")  # one win, and then the wall ran out
    await table.tap(alice, wiz2, "Wall exhausted")
    await table.tap(alice, wiz2, "Confirm")

    session = await store.running_session(table.chat_id)
    hands = sorted(await store.history(session.id, limit=50), key=lambda h: h.seq)
    assert [h.seq for h in hands] == [1, 2]
    by_cli = [sum(cli_deltas(h.record)[s] for h in hands) for s in range(4)]
    assert by_cli == list(await store.totals(session.id)) == [15 - 10, 0 - 10, -20 + 30, 5 - 10]
    # hand 2 was dealt by hand 1's first winner, seat 0, on a streak
    assert (hands[1].record["dealer"], hands[1].record["dealer_streak"]) == (0, 2)

    standings = await table.say(carol, "/table")
    assert "West Carol 🀄: +10" in standings.text and "East Alice: +5" in standings.text
