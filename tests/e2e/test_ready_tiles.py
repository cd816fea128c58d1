"""查叫 by tiles (issue 14): at an exhausted wall each seat still in gives its 13 tiles, and
`scoring.tiles.ready_entry` decides ready or not and the value. End to end over HTTP: the
preview says per seat what its tiles were taken as; Confirm stores exactly what
`python -m scoring score` makes of the record built from `python -m scoring waits`."""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import AsyncIterator
from itertools import groupby
from pathlib import Path
from typing import Any

import pytest

from db import Store
from tests.databases import BACKENDS, fresh_database
from tests.fake_telegram import FakeTelegram

from .table import Table
from .test_table_words import players, seat
from .test_typed_tiles import best, cli_score, stored


def cli_ready(variant: str, tiles: str, seat: int) -> Any:
    """A seat's ready entry as `python -m scoring waits` gives it."""
    proc = subprocess.run([sys.executable, "-m", "scoring", "waits"], capture_output=True,
                          text=True, check=True, input=json.dumps(
                              {"variant": variant, "tiles": tiles, "seat": seat},
                              ensure_ascii=False))
    return json.loads(proc.stdout)["ready_entry"]


@pytest.fixture(params=BACKENDS)
async def db_url(request: pytest.FixtureRequest, tmp_path: Path) -> AsyncIterator[str]:
    """SQLite, and PostgreSQL too when TEST_DATABASE_URL is set."""
    async with fresh_database(request.param, tmp_path) as url:
        yield url


PUNGS, PLAIN, STUCK = "111m222m333p44p55p", "123m456m789p123p4p", "1379m1468p2469p5p"


@pytest.mark.parametrize(("variant", "code", "line", "says", "confirm", "events"), [
    ("guiyang", "zh-hans", f"/hu 流局 东 {PUNGS} 南 {PLAIN} 西 {STUCK}",
     ["东 Alice：听牌，听 3筒 4筒 5筒 6筒。按 大对子 算", "西 Carol：没听牌",
      "没写到的算没听牌：北 Dan。"], "确认",
     [{"type": "exhausted", "ready": {"0": cli_ready("guiyang", PUNGS, 0),
                                      "1": cli_ready("guiyang", PLAIN, 1), "2": None,
                                      "3": None}}]),
    # the blood battle: a win first, then the wall runs out for the three still in; 花猫 typed
    ("luzhou", "en", f"/hu S self-draw 123m456m789m11p555p; exhausted E {PUNGS} W 123m456p789s1122m",
     ["East Alice: ready, waiting on 3p 4p 5p 6p. Counted as all pungs no ghost (on 4p): 40 ke",
      "West Carol: flower cat (花猫)", "Not named, so not ready: North Dan."], "Confirm",
     [{"type": "win", "by": "self_draw",
       "winners": [best("luzhou", "123m456m789m11p555p", 1)["winner"]]},
      {"type": "exhausted", "ready": {"0": cli_ready("luzhou", PUNGS, 0), "2": "flower_cat",
                                      "3": None}}]),
    # words add what tiles cannot show: 报听 (declared ready)
    ("guiyang", "zh-tw", f"/hu 黃莊 南 {PLAIN} 報聽 北 {PUNGS}",
     ["南 Bob：聽牌，聽 1筒 4筒。按 平胡 報聽 算（胡 1筒）：沒聽牌的每家付 11個。"], "確認",
     [{"type": "exhausted", "ready": {"0": None, "1": {**cli_ready("guiyang", PLAIN, 1),
                                                       "declared": True}, "2": None,
                                      "3": cli_ready("guiyang", PUNGS, 3)}}]),
])
async def test_an_exhausted_wall_typed_with_tiles_is_checked_by_them(
        bot: object, tg: FakeTelegram, store: Store, variant: str, code: str, line: str,
        says: list[str], confirm: str, events: list[dict[str, Any]]) -> None:
    table = Table(tg, tg.group(f"{variant} 查叫"), players(tg, code))
    await seat(table, variant)
    preview = await table.say(table.players[0], line)
    for text in says:
        assert text in preview.text, preview.text
    answer = await table.tap(table.players[0], preview, confirm)
    assert not answer.get("show_alert"), answer
    hand = await stored(store, table)
    assert hand.record["events"] == events
    assert hand.outcome == cli_score(hand.record)
    assert any(hand.outcome["deltas"]), hand.outcome  # somebody paid for not being ready


async def test_a_game_without_ready_check_takes_the_bare_word(
        bot: object, tg: FakeTelegram, store: Store) -> None:
    table = Table(tg, tg.group("hainan 流局"), players(tg, "zh-hans"))
    await seat(table, "hainan")
    refused = await table.say(table.players[0], f"/hu 流局 东 {PUNGS}")
    assert refused.text.startswith("⚠️") and "不查叫" in refused.text, refused.text
    preview = await table.say(table.players[0], "/hu 流局")
    await table.tap(table.players[0], preview, "确认")
    hand = await stored(store, table)
    assert hand.record["events"] == [{"type": "exhausted"}]
    assert hand.outcome == cli_score(hand.record)


@pytest.mark.parametrize(("line", "says"), [
    ("/hu 流局 东 123m456m789p11s", "东 Alice 的牌：共 11 张牌"),  # 11 tiles: whose, and how many
    ("/hu 流局 东 111m222m333p44p55p 东 不听", "写了两次"),
    ("/hu 流局 123m456m789p1122s", "先写座位"),
])
async def test_bad_ready_tiles_are_refused_and_nothing_is_stored(
        bot: object, tg: FakeTelegram, store: Store, line: str, says: str) -> None:
    table = Table(tg, tg.group("贵阳 查叫"), players(tg, "zh-hans"))
    await seat(table, "guiyang")
    answer = await table.say(table.players[0], line)
    assert answer.text.startswith("⚠️") and says in answer.text, answer.text
    assert not answer.button_labels
    session = await store.running_session(table.chat_id)
    assert await store.history(session.id, limit=1) == []


async def keys(table: Table, user: dict[str, Any], mid: int, tiles: str) -> None:
    """Tap a 13-tile hand on the keyboard (`111m22p` → 1m Pung, 2p Pair, …), then Done; every
    key is answered without a complaint."""
    presses = []
    for run in tiles.replace("m", "m ").replace("p", "p ").replace("s", "s ").split():
        digits = run[:-1]
        for n, same in groupby(digits):
            k = len(list(same))
            presses += [f"t:{n}{run[-1]}", *([f"{min(k, 3)}"] if k > 1 else [])]
            if k == 4:
                presses.append(f"t:{n}{run[-1]}")
    for p in presses:
        answer = await table.press(user, mid, table.key(mid, p))
        assert not answer.get("text"), (p, answer)
    answer = await table.press(user, mid, table.key(mid, "d"))
    assert not answer.get("show_alert"), answer


async def screen_with(table: Table, mid: int, text: str) -> None:
    """Wait for the (coalesced) edit whose text holds `text`."""
    await table.tg.wait_for(lambda: text in table.message(mid).text, 10)


@pytest.mark.parametrize(("variant", "code", "exhausted", "tiles_of", "hands", "says", "confirm"), [
    ("guiyang", "en", "Wall exhausted", "'s tiles", {"East": PUNGS, "North": STUCK},
     ["East Alice: ready, waiting on 3p 4p 5p 6p. Counted as all pungs",
      "North Dan: not ready"], "Confirm"),
    ("luzhou", "zh-hans", "流局", "的手牌", {"南": PLAIN, "西": "123m456p789s1122m"},
     ["南 Bob：听牌，听 1筒 4筒。", "西 Carol：花猫"], "确认"),
])
async def test_the_wizard_takes_each_seats_tiles_at_an_exhausted_wall(
        bot: object, tg: FakeTelegram, store: Store, variant: str, code: str, exhausted: str,
        tiles_of: str, hands: dict[str, str], says: list[str], confirm: str) -> None:
    table = Table(tg, tg.group(f"{variant} 查叫 keys"), players(tg, code))
    alice = table.players[0]
    await seat(table, variant)
    seats = {w: i for i, w in enumerate(("East", "South", "West", "North"))} | {
        w: i for i, w in enumerate("东南西北")}
    wiz = await table.say(alice, "/hand")
    await table.tap(alice, wiz, exhausted)
    for seat_name, tiles in hands.items():
        answer = await table.tap(alice, wiz, f"🀄 {seat_name}{tiles_of}")
        assert not answer.get("show_alert"), answer
        await keys(table, alice, wiz.message_id, tiles)
        # back on the form, which says what the seat's tiles were taken as
        player = ("Alice", "Bob", "Carol", "Dan")[seats[seat_name]]
        await screen_with(table, wiz.message_id, f"🀄 {seat_name} {player}")
    shown = table.message(wiz.message_id)
    for text in says:
        assert text in shown.text, shown.text
    answer = await table.tap(alice, wiz, confirm)
    assert not answer.get("show_alert"), answer
    hand = await stored(store, table)
    ready = {str(s): None for s in range(4)}
    for seat_name, tiles in hands.items():
        ready[str(seats[seat_name])] = cli_ready(variant, tiles, seats[seat_name])
    assert hand.record["events"] == [{"type": "exhausted", "ready": ready}]
    assert hand.outcome == cli_score(hand.record)
    assert any(hand.outcome["deltas"]), hand.outcome


@pytest.mark.parametrize(("code", "example"), [
    ("zh-hans", "流局查叫：/hu 流局 东 111m222m333p44p55p"),
    ("zh-tw", "流局查叫：/hu 流局 東 111m222m333p44p55p"),
    ("en", "the wall ran out (查叫): /hu exhausted E 111m222m333p44p55p S 123m456m789p123p4p"),
])
async def test_help_shows_the_exhausted_wall_line(bot: object, tg: FakeTelegram, code: str,
                                                  example: str) -> None:
    table = Table(tg, tg.group("help 查叫"), players(tg, code))
    answer = await table.say(table.players[0], "/help")
    assert example in answer.text, answer.text
