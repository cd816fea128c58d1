"""The tile keyboard of the /hand wizard (issue 14), end to end over HTTP: a hand of every variant
entered tile by tile, stored as `python -m scoring` scores it and with the features the tiles'
best reading has; a burst of taps against a Bot API that refuses rapid edits; a photo whose
misread tile is corrected on the keyboard."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest

from db import Store
from scoring.tiles import analyze
from tests.databases import BACKENDS, fresh_database
from tests.fake_telegram import FakeTelegram

from .table import Table
from .test_table_words import players, seat
from .test_typed_tiles import cli_score, stored


@pytest.fixture(params=BACKENDS)
async def db_url(request: pytest.FixtureRequest, tmp_path: Path) -> AsyncIterator[str]:
    """Every test here on SQLite, and on PostgreSQL when TEST_DATABASE_URL is set."""
    async with fresh_database(request.param, tmp_path) as url:
        yield url


def keys_for(sets: str) -> list[str]:
    """Key presses for a hand written set by set, the way a player enters it with the set keys:
    `123m` a tile and Chow, `555p` a tile and Pung, `11s` a tile and Pair, `=` Same set,
    `[111m]` a meld in meld mode, `(8888m)` a concealed kong, anything else tile by tile
    (`45m`, `7z`, `1f`). The last tile added is the winning tile."""
    out: list[str] = []
    for token in sets.split():
        if token == "=":
            out.append("s")
        elif token.startswith("("):
            out += ["k", f"t:{token[1]}{token[-2]}"]
        elif token.startswith("["):
            out += ["g", *keys_for(token[1:-1]), "g"]
        else:
            digits, suit = token[:-1], token[-1]
            ranks = [int(d) for d in digits]
            if len(ranks) == 3 and ranks == list(range(ranks[0], ranks[0] + 3)):
                out += [f"t:{digits[0]}{suit}", "c"]
            elif len(ranks) in (2, 3) and len(set(ranks)) == 1:
                out += [f"t:{digits[0]}{suit}", str(len(ranks))]
            else:
                out += [f"t:{d}{suit}" for d in digits]
    return out


async def guiyang_keyboard(tg: FakeTelegram, name: str, lang: str) -> tuple[Table, dict, Any]:
    """A seated Guiyang table whose /hand wizard has South's self-draw keyboard open."""
    table = Table(tg, tg.group(name), players(tg, lang))
    alice = table.players[0]
    await seat(table, "guiyang")
    wiz = await table.say(alice, "/hand")
    south, self_draw, enter = (("南 Bob", "自摸", "输入手牌") if lang == "zh-hans"
                               else ("South Bob", "Self-draw", "Enter tiles"))
    await table.tap_in_row(alice, wiz, south, self_draw)
    answer = await table.tap(alice, wiz, enter)
    assert not answer.get("show_alert"), answer
    return table, alice, wiz


async def keys(table: Table, user: dict[str, Any], mid: int, presses: list[str]) -> list[dict]:
    """Press keys one after another (each answered before the next), as a quick player would."""
    answers = []
    for p in presses:
        answers.append(await table.press(user, mid, table.key(mid, p)))
    return answers


async def screen_with(table: Table, mid: int, label: str) -> None:
    """Wait for the coalesced edit that shows a button labelled (containing) `label`."""
    await table.tg.wait_for(lambda: any(label in b for b in table.message(mid).button_labels), 10)


@pytest.mark.parametrize(("variant", "sets", "tiles", "indicator", "ended", "n_keys"), [
    # Luzhou: 红中 is the ghost, standing in for a 5p; the wall runs out after the win
    ("luzhou", "123m 456m 789m 11p 7z 55p", "123m456m789m11p5p中+5p", None, False, 11),
    ("guiyang", "123m 456m 789m 11s 555s", "123m456m789m11s55s+5s", None, True, 10),
    # Same set: two identical chows (112233m)
    ("guiyang", "123m = 456m 77p 789p", "112233456m77p78p+9p", None, True, 9),
    ("cixi", "123m 789p 11s 555p 456m", "123m45m789p11s555p+6m", "5m", True, 12),
    ("feibao", "123m 789p 11s 555p 456m", "123m45m789p11s555p+6m", "5m", True, 12),
    # Hainan: an exposed pung (meld mode, Pung) and a flower
    ("hainan", "234m 567m 888m [111m] 1f 99m", "234m567m888m9m[111m]1f+9m", None, True, 13),
])
async def test_a_hand_of_every_variant_entered_on_the_tile_keyboard(
        bot: object, tg: FakeTelegram, store: Store, variant: str, sets: str, tiles: str,
        indicator: str | None, ended: bool, n_keys: int) -> None:
    table = Table(tg, tg.group(f"{variant} keys"), players(tg, "en"))
    alice = table.players[0]
    await seat(table, variant)
    wiz = await table.say(alice, "/hand")
    await table.tap_in_row(alice, wiz, "South Bob", "Self-draw")
    answer = await table.tap(alice, wiz, "Enter tiles")
    assert not answer.get("show_alert"), answer
    assert "Tiles of South Bob" in table.message(wiz.message_id).text
    presses = keys_for(sets)
    if indicator:
        presses = ["i", f"t:{indicator}", *presses]
    assert len(presses) == n_keys  # the keys (Done apart) this hand takes
    answers = await keys(table, alice, wiz.message_id, [*presses, "d"])
    assert not any(a.get("text") for a in answers), answers
    await screen_with(table, wiz.message_id, "Correct the tiles")
    shown = table.message(wiz.message_id)
    assert "Read from the tiles of South Bob" in shown.text, shown.text
    if not ended:  # Luzhou's blood battle: the hand goes on until the wall runs out
        await table.tap(alice, wiz, "Add")
        await table.tap(alice, wiz, "Wall exhausted")
        shown = table.message(wiz.message_id)
        assert "Read from the tiles of South Bob" in shown.text, shown.text  # redrawn, still named
    answer = await table.tap(alice, wiz, "Confirm")
    assert not answer.get("show_alert"), answer
    hand = await stored(store, table)
    best = analyze({"variant": variant, "tiles": tiles, "seat": 1, "by": "self_draw",
                    "indicator": indicator})
    win = next(e for e in hand.record["events"] if e["type"] == "win")
    assert win["winners"] == [best["winner"]]
    assert hand.outcome == cli_score(hand.record)
    assert hand.outcome["deltas"][1] == best["value"]


async def test_refusals_are_short_answers_and_change_nothing(
        bot: object, tg: FakeTelegram, store: Store) -> None:
    table, alice, wiz = await guiyang_keyboard(tg, "guiyang keys", "zh-hans")
    answers = await keys(table, alice, wiz.message_id,
                         ["t:5m", "3", "t:5m", "t:5m", "t:1z", "t:8s", "c", "s", "2"])
    assert not answers[1].get("text") and not answers[2].get("text"), answers
    assert "只有 4 张" in answers[3]["text"], answers[3]
    assert answers[4].get("text"), answers[4]  # no honours in Guiyang
    assert "顺子" in answers[6]["text"] and "8条" in answers[6]["text"], answers[6]  # no 8s9s10s
    assert "再一组" in answers[7]["text"], answers[7]  # no set entered since the 8s
    assert not answers[8].get("text"), answers[8]  # the 8s is still the one tapped: a pair
    answers = await keys(table, alice, wiz.message_id, ["d"])
    assert "6" in answers[0]["text"] and "14" in answers[0]["text"], answers
    await table.tg.wait_for(lambda: "6/14" in table.message(wiz.message_id).text, 10)


async def test_a_burst_of_taps_coalesces_its_edits_and_meets_no_429(
        bot: object, tg: FakeTelegram, store: Store) -> None:
    """A hand's ten keys sent without waiting for each other, to a Bot API that answers 429 to an
    edit of a message within a second of its last: every tap is answered, no edit is refused,
    fewer edits than taps are made, and the last screen shows the whole hand."""
    table, alice, wiz = await guiyang_keyboard(tg, "burst", "en")
    tg.limit_edits(interval=1.0)
    before = len(tg.requests_for("editMessageText"))
    presses = keys_for("123m 456m 789m 11s 555s")
    qids = [await tg.press(table.chat_id, wiz.message_id, alice, table.key(wiz.message_id, p),
                           check=False) for p in presses]
    await tg.wait_for(lambda: all(q in tg.callback_answers for q in qids), 15)
    assert not any(tg.callback_answers[q].get("text") for q in qids)
    await tg.wait_for(lambda: "<code>123456789m1155s+5s</code>"
                      in table.message(wiz.message_id).raw_text, 10)
    await asyncio.sleep(1.2)  # nothing stale lands after the last state
    assert "<code>123456789m1155s+5s</code>" in table.message(wiz.message_id).raw_text
    edits = tg.requests_for("editMessageText")[before:]
    assert all(r.status == 200 for r in edits), [r.response for r in edits if r.status != 200]
    assert 1 <= len(edits) < len(presses), len(edits)
    # Done right after the burst: the form follows, within the limit too
    answer = await table.press(alice, wiz.message_id, table.key(wiz.message_id, "d"))
    assert not answer.get("text"), answer
    await screen_with(table, wiz.message_id, "Confirm")
    answer = await table.tap(alice, wiz, "Confirm")
    assert not answer.get("show_alert"), answer
    edits = tg.requests_for("editMessageText")[before:]
    assert all(r.status == 200 for r in edits), [r.response for r in edits if r.status != 200]


GUIYANG_HAND = ("1m", "2m", "3m", "4m", "5m", "6m", "7m", "8m", "9m", "1s", "1s", "5s", "5s", "5s")


def correction_keys(detected: list[str], intended: tuple[str, ...]) -> list[str]:
    """The keys that turn what the photo showed into the hand: take out each wrong tile, then tap
    the right ones (a photo may read more than a hand holds, and a full hand takes no tile; the
    last tapped becomes the winning tile)."""
    from bot.photo import Add, Remove, Replace, corrections_between

    fixes = corrections_between(detected, intended)
    out: list[str] = []
    for c in fixes:
        if isinstance(c, (Replace, Remove)):
            out += ["r", f"t:{detected[c.index]}"]
    return out + [f"t:{c.tile}" for c in fixes if isinstance(c, (Replace, Add))]


@pytest.mark.parametrize("by_reply", [False, True])
async def test_a_photo_opens_the_keyboard_and_a_misread_tile_is_corrected(
        bot: object, tg: FakeTelegram, store: Store, by_reply: bool) -> None:
    from collections import Counter

    from bot.photo import read_tiles, tile_string
    from tests.photo.render import Scene, render

    table = Table(tg, tg.group("photo"), players(tg, "en"))
    alice = table.players[0]
    await seat(table, "guiyang")
    # taken from further away: the reader misses both birds (1s) of these Japanese-style faces
    # (it is deterministic)
    data = render(Scene(GUIYANG_HAND, tile_width=44, margin=3.0))
    reading = read_tiles(data)
    detected = reading.names
    unsure = " ".join(detected[i] for i in reading.uncertain)
    assert Counter(detected) != Counter(GUIYANG_HAND), "the photo is read right: pick another"
    if by_reply:  # /hu answering the photo, no words: the wizard asks who won first
        photo = await tg.send_photo(table.chat, alice, data)
        await tg.send_message(table.chat, alice, "/hu", reply_to=photo.message_id)
        req = await tg.wait_for_request("sendMessage", 30, where=table._mine)
        wiz = table.message(req.result["message_id"])
        assert "tiles read from the photo" in wiz.text and "First tap who won" in wiz.text
        await table.tap_in_row(alice, wiz, "South Bob", "Self-draw")
    else:
        await tg.send_photo(table.chat, alice, data, caption="/hu S self-draw")
        req = await tg.wait_for_request("sendMessage", 30, where=table._mine)
        wiz = table.message(req.result["message_id"])
    shown = table.message(wiz.message_id)
    assert "Tiles of South Bob" in shown.text, shown.text
    # while the photo was read, the chat showed "typing…"
    actions = tg.requests_for("sendChatAction")
    assert actions and all(r.status == 200 for r in actions), actions
    assert {(r.params["chat_id"], r.params["action"]) for r in actions} == {
        (table.chat_id, "typing")}
    assert f"<code>{tile_string(detected)}</code>" in shown.raw_text, shown.raw_text
    assert "Payments" not in shown.text  # nothing scored before the tiles are checked
    assert not unsure or f"The photo was unsure of: {unsure}" in shown.text, shown.text
    presses = correction_keys(detected, GUIYANG_HAND)
    answers = await keys(table, alice, wiz.message_id, [*presses, "d"])
    assert not any(a.get("text") for a in answers), answers
    await screen_with(table, wiz.message_id, "Confirm")
    answer = await table.tap(alice, wiz, "Confirm")
    assert not answer.get("show_alert"), answer
    last = presses[-1].removeprefix("t:")  # the last tile tapped is the winning one
    rest = Counter(GUIYANG_HAND) - Counter([last])
    best = analyze({"variant": "guiyang", "tiles": tile_string(rest.elements()) + "+" + last,
                    "seat": 1, "by": "self_draw"})
    hand = await stored(store, table)
    assert hand.record["events"] == [{"type": "win", "by": "self_draw",
                                      "winners": [best["winner"]]}]
    assert hand.outcome == cli_score(hand.record)


async def test_another_reading_is_one_tap_away_and_the_preview_keeps_naming_it(
        bot: object, tg: FakeTelegram, store: Store) -> None:
    """111m222m333m44m55m+5m reads as four pungs (大对子) or as three chows: the best is taken,
    the other is one tap, and every later screen says which reading the hand was scored by."""
    table, alice, wiz = await guiyang_keyboard(tg, "readings", "zh-hans")
    tiles = "111m222m333m44m55m+5m"
    await keys(table, alice, wiz.message_id, [*keys_for("111m 222m 333m 44m 555m"), "d"])
    await screen_with(table, wiz.message_id, "改手牌")
    readings = analyze({"variant": "guiyang", "tiles": tiles, "seat": 1})["readings"]
    assert len(readings) == 2
    labels = table.message(wiz.message_id).button_labels
    assert f"✅ 1 · {readings[0]['value']}" in labels and f"2 · {readings[1]['value']}" in labels
    assert "共 2 种读法，取最值钱的一种" in table.message(wiz.message_id).text
    await table.tap(alice, wiz, f"2 · {readings[1]['value']}")
    shown = table.message(wiz.message_id)
    assert "共 2 种读法，这是第 2 种" in shown.text and "123万 123万 123万" in shown.text, shown.text
    answer = await table.tap(alice, wiz, "确认")
    assert not answer.get("show_alert"), answer
    hand = await stored(store, table)
    assert hand.record["events"] == [{"type": "win", "by": "self_draw",
                                      "winners": [readings[1]["winner"]]}]
    assert hand.outcome == cli_score(hand.record)


async def test_a_concealed_kong_among_the_tiles_is_entered_before_the_win(
        bot: object, tg: FakeTelegram, store: Store) -> None:
    table, alice, wiz = await guiyang_keyboard(tg, "kong keys", "en")
    answers = await keys(table, alice, wiz.message_id,
                         [*keys_for("(8888m) 234m 567m 99m 111m"), "d"])
    assert not any(a.get("text") for a in answers), answers
    await screen_with(table, wiz.message_id, "Confirm")
    await table.tap(alice, wiz, "Confirm")
    hand = await stored(store, table)
    best = analyze({"variant": "guiyang", "tiles": "234m567m99m11m[(8888m)]+1m", "seat": 1})
    assert hand.record["events"] == [{"type": "kong", "seat": 1, "kind": "concealed"},
                                     {"type": "win", "by": "self_draw",
                                      "winners": [best["winner"]]}]
    assert hand.outcome == cli_score(hand.record)


async def test_without_the_photo_extra_the_chat_learns_how_to_enable_it(
        bot: object, tg: FakeTelegram, store: Store, monkeypatch: pytest.MonkeyPatch) -> None:
    import sys

    from bot.photo import detect
    from tests.photo.render import Scene, render

    table = Table(tg, tg.group("no extra"), players(tg, "zh-hans"))
    await seat(table, "guiyang")
    detect._model.cache_clear()
    monkeypatch.setitem(sys.modules, "mahjong_detector.predict", None)
    try:
        await tg.send_photo(table.chat, table.players[0], render(Scene(GUIYANG_HAND)),
                            caption="/hu 南 自摸")
        req = await tg.wait_for_request("sendMessage", 30, where=table._mine)
    finally:
        detect._model.cache_clear()
    text = req.result["text"]
    assert "pip install -e '.[photo]'" in text and "照片" in text, text
    assert not tg.requests_for("getFile")
    session = await store.running_session(table.chat_id)
    assert await store.history(session.id, limit=1) == []


async def test_taps_at_a_quick_players_pace_edit_about_once_a_second_within_the_limit(
        bot: object, tg: FakeTelegram, store: Store) -> None:
    """A tap every 0.2 s for about three seconds: the message follows along, at most one edit a
    second (the fake answers 429 to anything faster, and none comes), and ends on the last tap."""
    table, alice, wiz = await guiyang_keyboard(tg, "paced", "en")
    tg.limit_edits(interval=1.0)
    before = len(tg.requests_for("editMessageText"))
    presses = keys_for("123m 456m 789m 11s 555s")
    for p in presses:
        await tg.press(table.chat_id, wiz.message_id, alice, table.key(wiz.message_id, p),
                       check=False)
        await asyncio.sleep(0.2)
    await tg.wait_for(lambda: "<code>123456789m1155s+5s</code>"
                      in table.message(wiz.message_id).raw_text, 10)
    tg.assert_callbacks_answered()
    edits = tg.requests_for("editMessageText")[before:]
    assert all(r.status == 200 for r in edits), [r.response for r in edits if r.status != 200]
    assert 2 <= len(edits) <= len(presses) * 0.2 + 2, len(edits)


@pytest.mark.filterwarnings("ignore::telegram.warnings.PTBDeprecationWarning")  # retry_after's type
async def test_a_429_in_the_middle_of_the_taps_is_waited_out(
        bot: object, tg: FakeTelegram, store: Store) -> None:
    """Telegram says "too many requests" to two edits: they wait, and the message still ends on
    the last tap."""
    table, alice, wiz = await guiyang_keyboard(tg, "too many", "en")
    await asyncio.sleep(1.0)
    tg.fail_next("editMessageText", times=2, retry_after=1)
    presses = keys_for("123m 456m 789m 11s 555s")
    for p in presses:
        await tg.press(table.chat_id, wiz.message_id, alice, table.key(wiz.message_id, p),
                       check=False)
        await asyncio.sleep(0.1)
    await tg.wait_for(lambda: "<code>123456789m1155s+5s</code>"
                      in table.message(wiz.message_id).raw_text, 15)
    assert [r.status for r in tg.requests_for("editMessageText")].count(429) == 2
    await table.press(alice, wiz.message_id, table.key(wiz.message_id, "d"))
    await screen_with(table, wiz.message_id, "Confirm")


async def test_tile_keys_on_a_screen_without_the_keyboard_are_answered_and_edit_nothing(
        bot: object, tg: FakeTelegram, store: Store) -> None:
    """Stale or forged tile keys tapped on a Luzhou wizard that shows "谁胡了？" (no keyboard
    open): each tap is answered, and the message, already showing the current screen, is not
    edited (Telegram refuses an edit to what a message shows: "message is not modified")."""
    table = Table(tg, tg.group("泸州 stale keys"), players(tg, "zh-hans"))
    alice = table.players[0]
    await seat(table, "luzhou")
    wiz = await table.say(alice, "/hand")
    shown = table.message(wiz.message_id)
    assert "谁胡了" in shown.text, shown.text
    start = len(tg.requests)
    answers = await keys(table, alice, wiz.message_id, ["t:5m", "d", "t:1f"])
    assert all(a.get("show_alert") and "当前" in a.get("text", "") for a in answers), answers
    await asyncio.sleep(1.2)  # past the throttle's interval: an edit queued would have gone
    refused = [(r.method, r.response) for r in tg.requests[start:] if not r.ok]
    assert refused == []
    assert not [r for r in tg.requests[start:] if r.method.startswith("editMessage")]
    assert table.message(wiz.message_id).text == shown.text
