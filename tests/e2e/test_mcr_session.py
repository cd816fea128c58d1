"""Chinese Official mahjong (issue 30) played through the chat end to end, over HTTP against the
fake Bot API: a hand tile by tile on the keyboard (a melded chow, a concealed kong), typed /hu
lines (tiles, the elements by name, a total), a photo, the refusal of a hand under 8 points in
the chat's language, a game of 16 hands with table points through /table, /settle, /chart,
/stats, /export and /import, and the style without PyMahjongGB. The style is one folder,
scoring/variants/mcr/: nothing the chat runs names it."""

from __future__ import annotations

from collections import Counter
from typing import Any

import pytest

from db import Store
from scoring import score
from scoring.tiles import analyze
from tests.fake_telegram import FakeTelegram

from .table import Table
from .test_export import export, import_again
from .test_table_words import players, seat
from .test_tile_keyboard import correction_keys, keys, keys_for, screen_with
from .test_typed_tiles import cli_score, stored

pytest.importorskip("MahjongGB", reason="counting from tiles needs PyMahjongGB (the mcr extra)")


def best(tiles: str, seat: int, by: str = "self_draw", dealer: int = 0,
         round_wind: int = 0) -> dict[str, Any]:
    return analyze({"variant": "mcr", "tiles": tiles, "seat": seat, "by": by, "dealer": dealer,
                    "round_wind": round_wind})


def wins(hand: Any) -> list[dict[str, Any]]:
    return [e for e in hand.record["events"] if e["type"] == "win"]


async def confirmed(table: Table, user: dict[str, Any], wiz: Any, label: str = "Confirm") -> str:
    answer = await table.tap(user, wiz, label)
    assert not answer.get("show_alert"), answer
    return table.message(wiz.message_id).text


async def test_a_hand_on_the_keyboard_melded_and_concealed_lists_every_element(
        bot: object, tg: FakeTelegram, store: Store) -> None:
    """East self-draws 清龙 with 123m melded, a concealed kong of 5p and the pair of 东 waited on
    alone: the keyboard marks the chow melded and the kong concealed, the reading names the
    sets, and the recorded lines list each element with its points and the total, in Chinese."""
    table = Table(tg, tg.group("国标"), players(tg, "zh-hans"))
    alice = table.players[0]
    lobby = await seat(table, "mcr")
    assert "国标麻将" in lobby.text and "起和番：8" in lobby.text, lobby.text
    wiz = await table.say(alice, "/hand")
    await table.tap_in_row(alice, wiz, "东 Alice", "自摸")
    form = table.message(wiz.message_id)
    # the hand's tiles come from the keyboard, not from a picker of one tile
    assert not any(label.startswith("手牌") for label in form.button_labels), form.button_labels
    assert {"−10", "+10"} <= set(form.button_labels)  # the total, ten at a time too
    await table.tap(alice, wiz, "输入手牌")
    assert "PyMahjongGB" not in table.message(wiz.message_id).text
    answers = await keys(table, alice, wiz.message_id,
                         [*keys_for("[123m] (5555p) 456m 789m 1z"), "t:1z", "d"])
    assert not any(a.get("text") for a in answers), answers
    await screen_with(table, wiz.message_id, "改手牌")
    shown = table.message(wiz.message_id).text
    assert "456万 789万 东东 [123万] [(5555筒)]" in shown, shown
    text = await confirmed(table, alice, wiz, "确认")
    tiles = "456789m1z[123m][(5555p)]+1z"
    expected = best(tiles, 0)
    assert expected["points"] == 21
    assert "清龙 16 · 暗杠 2 · 缺一门 1 · 单钓将 1 · 自摸 1 = 21番" in text, text
    assert "东 +87 · 南 −29 · 西 −29 · 北 −29" in text, text
    hand = await stored(store, table)
    assert wins(hand) == [{"type": "win", "by": "self_draw", "winners": [expected["winner"]]}]
    assert expected["winner"] == {"seat": 0, "tiles": tiles}
    assert hand.outcome == cli_score(hand.record)

    # under the minimum: refused, saying the count, in the chat's language (flowers aside)
    line = await table.say(alice, "/hu 南 自摸 9番 花牌2")
    assert "不算花牌只有 7 番：起和要 8 番，这手牌不能和" in line.text, line.text


async def test_typed_lines_by_tiles_by_elements_and_by_total(
        bot: object, tg: FakeTelegram, store: Store) -> None:
    table = Table(tg, tg.group("typed"), players(tg, "en"))
    alice, bob, carol, dan = table.players
    await seat(table, "mcr")
    # tiles: South wins off East's discard; East pays 8 + points, the others 8 each
    wiz = await table.say(bob, "/hu S from E 123m456m789m123p5p+5p")
    tiles = best("123m456m789m123p5p+5p", 1, "discard")
    assert tiles["points"] == 23
    assert ("South Bob Pure Straight 16 · Concealed Hand 2 · All Chows 2 · Mixed Double Chow 1 · "
            "One Voided Suit 1 · Single Wait 1 = 23 points: East −31 · South +47 · West −8 · "
            "North −8") in wiz.text, wiz.text
    assert "Read from the tiles of South Bob: 123m 456m 789m 123p 55p" in wiz.text, wiz.text
    await confirmed(table, bob, wiz)
    # the elements by name, in any language: counted as the table names them
    wiz = await table.say(carol, "/hu W from N full flush 碰碰和")
    assert "Full Flush 24 · All Pungs 6 = 30 points: East −8 · South −8 · West +54 · North −38" \
        in wiz.text, wiz.text
    await confirmed(table, carol, wiz)
    # the total alone, as players who counted it themselves say it
    wiz = await table.say(dan, "/hu N zimo 24 points")
    assert "North Dan 24 points: East −32 · South −32 · West −32 · North +96" in wiz.text, wiz.text
    await confirmed(table, dan, wiz)
    hands = sorted(await store.history((await store.running_session(table.chat_id)).id,
                                       limit=5), key=lambda h: h.seq)
    assert [w["winners"] for h in hands for w in wins(h)] == [
        [tiles["winner"]], [{"seat": 2, "elements": ["full_flush", "all_pungs"]}],
        [{"seat": 3, "points": 24}]]
    assert all(h.outcome == cli_score(h.record) for h in hands)
    # a word that is no element is answered with the closest ones
    line = await table.say(alice, "/hu E zimo ful flush")
    assert "Unknown word" in line.text and "Full Flush" in line.text, line.text


MCR_HAND = ("1m", "2m", "3m", "4m", "5m", "6m", "7m", "8m", "9m", "1p", "2p", "3p", "5p", "5p")


async def test_a_photo_of_the_hand(bot: object, tg: FakeTelegram, store: Store) -> None:
    """The photo's tiles open the keyboard; what it misread is corrected there, the winning tile
    tapped last, and the hand is counted from the tiles like any other."""
    from bot.photo import read_tiles, tile_string
    from tests.photo.render import Scene, render

    table = Table(tg, tg.group("photo"), players(tg, "en"))
    alice = table.players[0]
    await seat(table, "mcr")
    data = render(Scene(MCR_HAND))
    detected = read_tiles(data).names
    await tg.send_photo(table.chat, alice, data, caption="/hu E self-draw")
    req = await tg.wait_for_request("sendMessage", 30, where=table._mine)
    wiz = table.message(req.result["message_id"])
    assert "Tiles of East Alice" in wiz.text, wiz.text
    assert f"<code>{tile_string(detected)}</code>" in wiz.raw_text, wiz.raw_text
    # what it misread put right; then the winning tile (a photo does not say which it is) taken
    # out and tapped again, the last tile added
    presses = [*correction_keys(detected, MCR_HAND), "r", "t:5p", "t:5p"]
    answers = await keys(table, alice, wiz.message_id, [*presses, "d"])
    assert not any(a.get("text") for a in answers), answers
    await screen_with(table, wiz.message_id, "Confirm")
    await confirmed(table, alice, wiz)
    last = presses[-1].removeprefix("t:")
    rest = Counter(MCR_HAND) - Counter([last])
    expected = best(tile_string(rest.elements()) + "+" + last, 0)
    hand = await stored(store, table)
    assert wins(hand) == [{"type": "win", "by": "self_draw", "winners": [expected["winner"]]}]
    assert hand.outcome == cli_score(hand.record)


def game_line(i: int) -> tuple[str, int]:
    """Hand i of a game: who self-draws (the dealer, turn about) and for how many points."""
    return "ESWN"[i % 4], 8 + (i % 4) * 2 + i // 4


async def test_a_game_of_sixteen_hands_with_table_points(
        bot: object, tg: FakeTelegram, store: Store) -> None:
    table = Table(tg, tg.group("league"), players(tg, "en"))
    alice, bob, carol, dan = table.players
    lobby = await seat(table, "mcr")
    await table.tap(alice, lobby, "House rules")
    await table.tap(alice, lobby, "table points 4-2-1-0 per game: no")
    assert "table points 4-2-1-0 per game: yes 🔄" in table.message(lobby.message_id).button_labels
    await table.say(alice, "/stake 0.5")
    records = []
    for i in range(17):
        who, points = game_line(i)
        wiz = await table.say(alice, f"/hu {who} zimo {points} points")
        text = await confirmed(table, alice, wiz)
        records.append((await stored(store, table)).record)
        ends = "That was the game's last hand" in text
        assert ends == (i == 15), (i, text)
        if i == 4:
            shown = await table.say(bob, "/table")
            assert "Game 1, hand 6 of 16" in shown.text, shown.text
    # the sixteenth hand closed the game: its scores and its table points
    game = [sum(score(r).deltas[s] for r in records[:16]) for s in range(4)]
    assert sorted(game) == sorted(set(game)), game  # four places, no tie
    order = sorted(range(4), key=lambda s: -game[s])
    points = {order[0]: 4, order[1]: 2, order[2]: 1, order[3]: 0}
    assert records[15]["round_wind"] == 3 and records[15]["dealer"] == 3
    assert records[16]["round_wind"] == 0 and "balances" not in records[16]  # afresh
    assert records[15]["balances"] == [sum(score(r).deltas[s] for r in records[:15])
                                       for s in range(4)]
    shown = await table.say(bob, "/table")
    winds = ("East", "South", "West", "North")
    assert "Game 2, hand 2 of 16" in shown.text, shown.text
    assert "Table points so far: " + " · ".join(f"{winds[s]} {points[s]}" for s in range(4)) \
        in shown.text, shown.text
    totals = [sum(score(r).deltas[s] for r in records) for s in range(4)]
    session = await store.running_session(table.chat_id)
    assert list(await store.totals(session.id)) == totals
    assert all(h.outcome == score(h.record).to_dict()
               for h in await store.history(session.id, limit=20))

    settle = await table.say(carol, "/settle")
    names = ("Alice", "Bob", "Carol", "Dan")
    for s in range(4):  # money at the stake: half a unit a point
        cents = totals[s] * 50
        sign = "+" if cents > 0 else "−"
        assert f"{names[s]}: <b>{sign}{abs(cents) // 100}.{abs(cents) % 100:02d}</b>" \
            in settle.raw_text, settle.raw_text
    await table.say(dan, "/chart", method="sendPhoto")
    assert (await store.chart_series(session.id)).level_breaks == [16]  # where the game ended
    stats = await table.say(dan, "/stats")
    assert "Chinese Official: " in stats.text, stats.text

    rows, doc = await export(table, tg, dan)
    assert doc["variant"] == "mcr" and len(doc["hands"]) == 17
    assert [int(r[5]) for r in rows[-4:]] == totals
    imported = await import_again(table, tg, store, alice, doc)
    assert imported.id != session.id and imported.variant == "mcr"
    assert list(await store.totals(imported.id)) == totals


async def test_without_pymahjonggb_the_hand_is_entered_by_its_points(
        bot: object, tg: FakeTelegram, store: Store, monkeypatch: pytest.MonkeyPatch) -> None:
    """Where the counter could not be built, the keyboard says how to get it, tiles are refused
    with the same words, and the hand goes in by its total."""
    from scoring.variants.mcr import counting

    monkeypatch.setattr(counting, "_calculator", None)
    table = Table(tg, tg.group("no counter"), players(tg, "en"))
    alice, bob = table.players[:2]
    await seat(table, "mcr")
    wiz = await table.say(alice, "/hand")
    await table.tap_in_row(alice, wiz, "East Alice", "Self-draw")
    await table.tap(alice, wiz, "Enter tiles")
    shown = table.message(wiz.message_id).text
    assert "counting from tiles needs PyMahjongGB" in shown and "pip install -e '.[mcr]'" in shown, shown
    # the wizard's way of a total: back to the form, its points counter (ten at a time too)
    await table.tap(alice, wiz, "Back")
    await screen_with(table, wiz.message_id, "Enter tiles")
    for label in ("+10", "+", "+"):
        await table.tap_in_row(alice, wiz, "points: ", label)
    await screen_with(table, wiz.message_id, "points: 12")
    text = await confirmed(table, alice, wiz)
    assert "East Alice 12 points: East +60 · South −20 · West −20 · North −20" in text, text
    hand = await stored(store, table)
    assert wins(hand)[0]["winners"] == [{"seat": 0, "points": 12}]
    line = await table.say(bob, "/hu S zimo 123m456m789m123p5p+5p")
    assert "pip install -e '.[mcr]'" in line.text and "points instead" in line.text, line.text
    wiz = await table.say(bob, "/hu S zimo 24 points")
    await confirmed(table, bob, wiz)
    hand = await stored(store, table)
    assert wins(hand)[0]["winners"] == [{"seat": 1, "points": 24}]
    assert hand.outcome == score(hand.record).to_dict()


async def test_a_false_win_then_a_total_by_the_wizards_buttons(
        bot: object, tg: FakeTelegram, store: Store) -> None:
    """错和 from the wizard's first screen (the house rule's 10 to each other seat), then South's
    self-draw entered by its total on the form's counter, in Chinese."""
    table = Table(tg, tg.group("错和"), players(tg, "zh-hans"))
    alice = table.players[0]
    await seat(table, "mcr")
    wiz = await table.say(alice, "/hand")
    await table.tap(alice, wiz, "错和")
    await table.tap(alice, wiz, "北")
    await table.tap(alice, wiz, "添加")
    await table.tap_in_row(alice, wiz, "南 Bob", "自摸")
    await table.tap(alice, wiz, "+10")
    await table.tap(alice, wiz, "+10")
    text = await confirmed(table, alice, wiz, "确认")
    assert "• 北 Dan 错和 10分：东 +10 · 南 +10 · 西 +10 · 北 −30" in text, text
    assert "• 南 Bob 20番：东 −28 · 南 +84 · 西 −28 · 北 −28" in text, text
    hand = await stored(store, table)
    assert hand.record["events"] == [
        {"type": "false_win", "seat": 3},
        {"type": "win", "by": "self_draw", "winners": [{"seat": 1, "points": 20}]}]
    assert hand.outcome == cli_score(hand.record)
