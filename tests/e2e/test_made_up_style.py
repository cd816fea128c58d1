"""A style made up by the tests (tests/made_up_style/, registered for the test alone) played
through the chat like any other, end to end over HTTP: seated, a hand by the wizard's buttons, a
win in one /hu line, a hand tile by tile on the keyboard with its joker, /stats, /export, and the
exported file imported back. No code outside its module names it, so this shows that a style
needs nothing but its `Variant`."""

from __future__ import annotations

from typing import Any

from db import Store
from scoring import score
from scoring.tiles import analyze
from scoring.variant import Variant
from tests.fake_telegram import FakeTelegram

from .table import Table
from .test_export import export, import_again
from .test_tile_keyboard import keys, keys_for, screen_with


async def hands_of(store: Store, table: Table) -> list[Any]:
    session = await store.running_session(table.chat_id)
    return sorted(await store.history(session.id, limit=50), key=lambda h: h.seq)


async def confirm(table: Table, user: dict[str, Any], wiz: Any) -> None:
    answer = await table.tap(user, wiz, "Confirm")
    assert not answer.get("show_alert"), answer
    assert "recorded" in table.message(wiz.message_id).text


async def test_a_made_up_style_plays_through_the_chat(made_up_style: Variant, bot: object,
                                                      table: Table, store: Store,
                                                      tg: FakeTelegram) -> None:
    alice, bob, carol, dan = table.players
    lobby = await table.seat_everyone("toy")
    # its title, and its house rules by its own names for them
    assert "Toy mahjong" in lobby.text and "chips for a plain win: 1" in lobby.text

    # by buttons: South self-draws a pure suit, 2 from each other seat
    wiz = await table.say(bob, "/hand")
    await table.tap_in_row(bob, wiz, "South", "Self-draw")
    await table.tap(bob, wiz, "pure suit")
    assert "pure suit 2 pt" in table.message(wiz.message_id).text
    await confirm(table, bob, wiz)

    # one /hu line in its own words: West wins off North's discard with seven pairs, no blank
    wiz = await table.say(carol, "/hu W from N seven pairs no blank")
    assert "seven pairs no blank 4 pt" in wiz.text, wiz.text
    await confirm(table, carol, wiz)

    # tile by tile: East self-draws, the blank (its joker, keyed beside the suits) the last tile
    wiz = await table.say(alice, "/hand")
    await table.tap_in_row(alice, wiz, "East", "Self-draw")
    await table.tap(alice, wiz, "Enter tiles")
    assert "🀆 Blank" in table.message(wiz.message_id).button_labels
    answers = await keys(table, alice, wiz.message_id,
                         [*keys_for("123m 456m 789m 111p 2p"), "t:5z", "d"])
    assert not any(a.get("text") for a in answers), answers
    await screen_with(table, wiz.message_id, "Correct the tiles")
    assert "Read from the tiles of East Alice" in table.message(wiz.message_id).text
    await confirm(table, alice, wiz)

    hands = await hands_of(store, table)
    wins = [next(e for e in h.record["events"] if e["type"] == "win") for h in hands]
    best = analyze({"variant": "toy", "tiles": "123m456m789m111p2p+5z", "seat": 0})
    assert [w["winners"] for w in wins] == [
        [{"seat": 1, "pure": True}], [{"seat": 2, "form": "seven_pairs", "no_blank": True}],
        [best["winner"]]]
    assert all(h.outcome == score(h.record).to_dict() for h in hands)
    session = await store.running_session(table.chat_id)
    totals = list(await store.totals(session.id))
    assert totals == [-2 + 1 * 3, 6 - 1, -2 + 4 - 1, -2 - 4 - 1]

    stats = await table.say(dan, "/stats")
    assert "Toy mahjong: 0 wins in 3 hands" in stats.text, stats.text
    assert "Most frequent: pure suit ×1" in stats.text

    rows, doc = await export(table, tg, dan)
    assert doc["variant"] == "toy" and [h["seq"] for h in doc["hands"]] == [1, 2, 3]
    assert [int(r[5]) for r in rows[-4:]] == totals
    imported = await import_again(table, tg, store, alice, doc)
    assert imported.id != session.id and imported.variant == "toy"
    assert list(await store.totals(imported.id)) == totals
