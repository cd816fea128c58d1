"""A Luzhou session at a group table, entered by keyboard, end to end over HTTP."""

from __future__ import annotations

import pytest

from db import Store

from .table import Table, cli_deltas


@pytest.mark.xfail(strict=False, reason="wizard builds whole hands: ux branch")
async def test_keyboard_session_totals_match_the_command_line(bot: object, table: Table,
                                                               store: Store) -> None:
    alice, bob, carol, dan = table.players
    lobby = await table.seat_everyone("luzhou")
    assert "Alice" in lobby.text and "<b>&Bob" in lobby.text  # shown as text, not markup

    wiz = await table.say(bob, "/hand")
    await table.tap(bob, wiz, "Self-draw")
    await table.tap(bob, wiz, "Alice")
    await table.tap(bob, wiz, "+")  # one 闺
    await table.tap(bob, wiz, "Add")
    await table.tap(bob, wiz, "Win on discard")
    await table.tap(bob, wiz, "Bob")
    await table.tap(bob, wiz, "Next")
    await table.tap(bob, wiz, "Carol")
    await table.tap(bob, wiz, "plain")  # → all pungs
    await table.tap(bob, wiz, "Add")
    await table.tap(bob, wiz, "Self-draw")
    await table.tap(bob, wiz, "Dan")
    await table.tap(bob, wiz, "pure suit")
    await table.tap(bob, wiz, "Add")
    await table.tap(bob, wiz, "Preview")
    preview = table.message(wiz.message_id)
    assert "✔ Confirm" in preview.button_labels and "Payments" in preview.text
    answer = await table.tap(bob, wiz, "Confirm")
    assert not answer.get("show_alert")
    done = table.message(wiz.message_id)
    assert "Hand 1 recorded" in done.text and not done.buttons

    wiz2 = await table.say(alice, "/hand")
    await table.tap(alice, wiz2, "Self-draw")
    await table.tap(alice, wiz2, "Carol")
    await table.tap(alice, wiz2, "plain")
    await table.tap(alice, wiz2, "Add")
    await table.tap(alice, wiz2, "Preview")
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
