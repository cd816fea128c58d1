"""/hu with the tiles typed in place of feature words (issue 14 "Typed"), end to end over HTTP:
the preview says which reading it chose, Confirm stores exactly what `python -m scoring score`
makes of the record; tiles that do not win are refused in the chat's language."""

from __future__ import annotations

import json
import subprocess
import sys
from typing import Any

import pytest

from db import Store
from scoring.tiles import analyze
from tests.fake_telegram import FakeTelegram

from .table import Table
from .test_table_words import players, seat


def cli_score(record: dict[str, Any]) -> dict[str, Any]:
    proc = subprocess.run([sys.executable, "-m", "scoring", "score"], input=json.dumps(record),
                          capture_output=True, text=True, check=True)
    return json.loads(proc.stdout)


async def stored(store: Store, table: Table) -> Any:
    session = await store.running_session(table.chat_id)
    return (await store.history(session.id, limit=1))[0]


def best(variant: str, tiles: str, seat: int, by: str = "self_draw", dealer: int = 0,
         indicator: str | None = None) -> dict[str, Any]:
    return analyze({"variant": variant, "tiles": tiles, "seat": seat, "by": by,
                    "dealer": dealer, "indicator": indicator})


@pytest.mark.parametrize(("variant", "code", "line", "shown", "confirm", "events"), [
    # a blood battle: three wins, each by its tiles, make a whole hand
    ("luzhou", "zh-hans",
     "/hu 南 自摸 123m456m789m11p555p; 西 点炮 北 123p456p789p 22s 333s; 东 自摸 一万一万一万 "
     "二万二万二万 三万三万三万 四万四万 五万五万五万",
     "按牌读出", "确认",
     [{"type": "win", "by": "self_draw",
       "winners": [best("luzhou", "123m456m789m11p555p", 1)["winner"]]},
      {"type": "win", "by": "discard", "from": 3,
       "winners": [best("luzhou", "123p456p789p22s333s", 2, "discard")["winner"]]},
      {"type": "win", "by": "self_draw",
       "winners": [best("luzhou", "111m222m333m44m555m", 0)["winner"]]}]),
    ("guiyang", "en", "/hu S self-draw 123m456m789m11s555s", "Read from the tiles", "Confirm",
     [{"type": "win", "by": "self_draw",
       "winners": [best("guiyang", "123m456m789m11s555s", 1)["winner"]]}]),
    # words add what tiles cannot show: 杠上花 / after a kong is not in Hainan's tiles
    ("hainan", "zh-tw", "/hu W 放炮 N 111m234m567m888m99m", "按牌讀出", "確認",
     [{"type": "win", "by": "discard", "from": 3,
       "winners": [best("hainan", "111m234m567m888m99m", 2, "discard")["winner"]]}]),
    # a concealed kong among the tiles is the kong event before the win (Guiyang's kongs pay)
    ("guiyang", "zh-hans", "/hu 南 自摸 234m567m99m111m [(8888m)]", "按牌读出", "确认",
     [{"type": "kong", "seat": 1, "kind": "concealed"},
      {"type": "win", "by": "self_draw",
       "winners": [best("guiyang", "234m567m99m111m[(8888m)]", 1)["winner"]]}]),
    ("feibao", "en", "/hu S self-draw 123m45m789p11s555p6m indicator=5m", "Read from the tiles",
     "Confirm",
     [{"type": "win", "by": "self_draw",
       "winners": [best("feibao", "123m45m789p11s555p6m", 1, indicator="5m")["winner"]]}]),
    ("cixi", "zh-hans", "/hu 南 自摸 123m 45m 789p 11s 555p 6m 翻=5m", "按牌读出", "确认",
     [{"type": "win", "by": "self_draw",
       "winners": [best("cixi", "123m45m789p11s555p6m", 1, indicator="5m")["winner"]]}]),
    # 龙 names Cixi's joker itself: 龙=6m is the tile after the turned 5m, so the same hand
    ("cixi", "zh-hans", "/hu 南 自摸 123m 45m 789p 11s 555p 6m 龙=6m", "按牌读出", "确认",
     [{"type": "win", "by": "self_draw",
       "winners": [best("cixi", "123m45m789p11s555p6m", 1, indicator="5m")["winner"]]}]),
    ("cixi", "en", "/hu S self-draw 123m45m789p11s555p6m turned=5m", "Read from the tiles",
     "Confirm",
     [{"type": "win", "by": "self_draw",
       "winners": [best("cixi", "123m45m789p11s555p6m", 1, indicator="5m")["winner"]]}]),
    # Feibao's 正精 is the turned tile itself: 精=5m and 翻=5m say the same
    ("feibao", "zh-tw", "/hu 南 自摸 123m45m789p11s555p6m 精=5m", "按牌讀出", "確認",
     [{"type": "win", "by": "self_draw",
       "winners": [best("feibao", "123m45m789p11s555p6m", 1, indicator="5m")["winner"]]}]),
    ("feibao", "zh-hans", "/hu 南 自摸 123m45m789p11s555p6m 翻=5m", "按牌读出", "确认",
     [{"type": "win", "by": "self_draw",
       "winners": [best("feibao", "123m45m789p11s555p6m", 1, indicator="5m")["winner"]]}]),
])
async def test_a_hand_typed_as_tiles_is_scored_by_its_best_reading(
        bot: object, tg: FakeTelegram, store: Store, variant: str, code: str, line: str,
        shown: str, confirm: str, events: list[dict[str, Any]]) -> None:
    table = Table(tg, tg.group(f"{variant} tiles"), players(tg, code))
    await seat(table, variant)
    preview = await table.say(table.players[0], line)
    assert shown in preview.text, preview.text
    assert any(confirm in label for label in preview.button_labels), preview.text
    answer = await table.tap(table.players[0], preview, confirm)
    assert not answer.get("show_alert"), answer
    hand = await stored(store, table)
    assert hand.record["events"] == events
    assert hand.outcome == cli_score(hand.record)


async def test_the_preview_names_the_sets_and_words_add_to_the_tiles(
        bot: object, tg: FakeTelegram, store: Store) -> None:
    table = Table(tg, tg.group("hainan words"), players(tg, "en"))
    await seat(table, "hainan")
    preview = await table.say(table.players[0], "/hu E self-draw 111m234m567m888m99m heavenly")
    assert "<code>234m 567m 99m 111m 888m</code>" in preview.raw_text, preview.text
    assert "the only reading" in preview.text, preview.text
    await table.tap(table.players[0], preview, "Confirm")
    winner = (await stored(store, table)).record["events"][0]["winners"][0]
    assert winner["pure"] is True and winner.get("heavenly") is True, winner


@pytest.mark.parametrize(("variant", "line", "says"), [
    ("guiyang", "/hu 南 自摸 123m456m789m11s 135s", "没有胡"),
    ("luzhou", "/hu 南 自摸 123m456m789p11s555s", "缺一门"),
    ("cixi", "/hu 南 自摸 123m45m789p11s555p6m", "翻=5m"),
    ("guiyang", "/hu 南 自摸 234m567m99m111m [8888m]", "明杠要由点杠的人付钱"),
])
async def test_tiles_that_do_not_win_are_refused_in_chinese(
        bot: object, tg: FakeTelegram, store: Store, variant: str, line: str, says: str) -> None:
    table = Table(tg, tg.group(f"{variant} 不和"), players(tg, "zh-hans"))
    await seat(table, variant)
    answer = await table.say(table.players[0], line)
    assert answer.text.startswith("⚠️") and says in answer.text, answer.text
    assert not answer.button_labels
    session = await store.running_session(table.chat_id)
    assert await store.history(session.id, limit=1) == []


@pytest.mark.parametrize(("code", "example"), [
    ("zh-hans", "也可以直接写牌代替番型：/hu 南 自摸 123m456m789m123p55p+5p"),
    ("zh-tw", "也可以直接寫牌代替番型：/hu 南 自摸 123m456m789m123p55p+5p"),
    ("en", "or the tiles in place of feature words: /hu S self-draw 123m456m789m123p55p+5p"),
])
async def test_help_shows_a_line_of_tiles(bot: object, tg: FakeTelegram, code: str,
                                          example: str) -> None:
    table = Table(tg, tg.group(f"help {code}"), players(tg, code))
    answer = await table.say(table.players[0], "/help")
    assert example in answer.text, answer.text
