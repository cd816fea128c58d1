"""A group's first evening as issue 37 found it, end to end over HTTP against the fake Bot API:
/help's /hu examples are the chat's style's own and each is taken by /hu; the English texts
(units, plurals, no "+0" gain, one wording for an exhausted wall); a stale button tapped just
after another player's tap moved the screen; /paid while everyone is square; a name that reads
as mathematics on /chart."""

from __future__ import annotations

import asyncio
import re

import pytest

from bot.entry.hu.examples import help_examples
from db import Store
from scoring.variant import all_variants
from tests.fake_telegram import FakeTelegram

from .table import Table
from .test_table_words import players, seat


@pytest.mark.parametrize(("variant", "code", "lang"), [
    ("luzhou", "en", "en"), ("guiyang", "zh-hans", "zh-Hans"), ("mcr", "zh-tw", "zh-Hant"),
    ("cixi", "en", "en")])
async def test_each_example_help_shows_is_taken_by_hu(bot: object, tg: FakeTelegram,
                                                       variant: str, code: str,
                                                       lang: str) -> None:
    table = Table(tg, tg.group(f"help {variant}"), players(tg, code))
    alice = table.players[0]
    await seat(table, variant)
    shown = await table.say(alice, "/help")
    ex = help_examples(all_variants()[variant], lang)
    lines = [x for x in (*ex.words, ex.count, ex.two, ex.battle, ex.tiles, ex.ready) if x]
    assert len(lines) >= 2
    for line in lines:
        assert line in shown.text, (line, shown.text)
        answer = await table.say(alice, line)
        assert "⚠️" not in answer.text and answer.buttons, (line, answer.text)


async def luzhou_hand(table: Table, wall: str = "Wall exhausted", confirm: str = "Confirm") -> None:
    """Seated at Luzhou; Bob self-draws a pure suit (each pays him 10), the wall runs out."""
    await seat(table, "luzhou")
    bob = table.players[1]
    wiz = await table.say(bob, "/hu 1 zimo pure")
    await table.tap(bob, wiz, wall)
    await table.tap(bob, wiz, confirm)


async def test_english_counts_units_and_plurals(bot: object, tg: FakeTelegram, table: Table,
                                                store: Store) -> None:
    """Without a stake /settle counts in the style's unit, spaced as English spaces it; /stats
    says "1 win in 1 hand" and "0 wins in 1 hand", and names no biggest gain where none was;
    the chart's caption "1 hand"."""
    alice = table.players[0]
    await luzhou_hand(table)
    settle = await table.say(alice, "/settle")
    assert "settles in points" in settle.text, settle.text
    assert "+30 ke" in settle.text and "10 ke" in settle.text, settle.text
    assert not re.search(r"\d(ke|points)\b", settle.text), settle.text
    stats = await table.say(alice, "/stats")
    assert "1 win in 1 hand (100%)" in stats.text, stats.text
    assert "0 wins in 1 hand (0%)" in stats.text, stats.text
    assert "+0" not in stats.text and stats.text.count("biggest") == 1, stats.text
    assert "+30 ke in 1 hand (" in stats.text, stats.text
    chart = await table.say(alice, "/chart", method="sendPhoto")
    assert chart.caption == "Running totals over 1 hand", chart.caption


async def test_the_same_in_chinese_reads_naturally(bot: object, tg: FakeTelegram,
                                                   store: Store) -> None:
    table = Table(tg, tg.group("统计"), players(tg, "zh-hans"))
    await luzhou_hand(table, "流局", "确认")
    stats = await table.say(table.players[0], "/stats")
    assert "1 局胡 1 次（100%）" in stats.text and "1 局胡 0 次（0%）" in stats.text, stats.text
    settle = await table.say(table.players[0], "/settle")
    assert "+30颗" in settle.text, settle.text


async def test_paid_while_everyone_is_square_is_refused(bot: object, tg: FakeTelegram,
                                                        table: Table, store: Store) -> None:
    """Nobody owes money (no hand yet, or no stake): /paid books nothing and says why; with a
    stake and a hand it is taken."""
    alice, bob = table.players[:2]
    await luzhou_hand(table)  # points, but no stake: no money is owed
    for line in ("/paid @bob 5", "/paid from @bob 5"):
        answer = await table.say(alice, line)
        assert "Nobody here owes any money" in answer.text, answer.text
    assert await store.pending_payments(table.chat_id) == []
    assert not any((await store.money_balances(table.chat_id)).values())
    await table.say(alice, "/stake 1")
    answer = await table.say(alice, "/paid @bob 5")
    assert "noted" in answer.text, answer.text
    assert len(await store.pending_payments(table.chat_id)) == 1


async def test_a_stale_tap_just_after_anothers_tap_edits_nothing(bot: object, tg: FakeTelegram,
                                                                 table: Table) -> None:
    """Alice's key on the tile keyboard moves the screen; Bob's tap on a button of the screen
    before, within the second the edits are spaced by, is answered ("out of date") and edits
    nothing: the message shows the current screen already, and Telegram would refuse the edit
    as "message is not modified" (the fake Bot API does)."""
    alice, bob = table.players[:2]
    await table.seat_everyone("guiyang")
    wiz = await table.say(alice, "/hand")
    await table.tap_in_row(alice, wiz, "South", "Self-draw")
    stale = table.message(wiz.message_id).callback_data("Enter tiles")
    await table.tap(alice, wiz, "Enter tiles")
    await table.press(alice, wiz.message_id, table.key(wiz.message_id, "t:1m"))
    await tg.wait_for(lambda: "1m" in table.message(wiz.message_id).text
                      or "1万" in table.message(wiz.message_id).text, 5)
    shown = table.message(wiz.message_id).text
    mark = len(tg.requests)
    answer = await table.press(bob, wiz.message_id, stale)
    assert "out of date" in answer.get("text", ""), answer
    await asyncio.sleep(1.5)  # past the edits' spacing: anything queued would have gone
    edits = [r for r in tg.requests[mark:] if r.method.startswith("editMessage")]
    assert edits == [], [(r.method, r.description) for r in edits]
    assert table.message(wiz.message_id).text == shown


async def test_a_name_that_reads_as_mathematics_is_drawn_as_written(
        bot: object, tg: FakeTelegram, table: Table, store: Store) -> None:
    alice, bob, carol = table.players[:3]
    lobby = await table.say(alice, "/new luzhou")
    for p in (alice, bob, carol):
        await table.tap(p, lobby, "Join")
    await table.say(alice, "/guest $\\frac$")
    wiz = await table.say(bob, "/hu 1 zimo pure")
    await table.tap(bob, wiz, "Wall exhausted")
    await table.tap(bob, wiz, "Confirm")
    chart = await table.say(alice, "/chart", method="sendPhoto")
    assert chart.file is not None and chart.file.upload.data.startswith(b"\x89PNG"), chart
