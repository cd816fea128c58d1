"""`/hu 流局 …` read into an exhausted event (bot/entry/hu/ready.py): the words for an exhausted
wall, seats by wind, number or name, tiles read by scoring.tiles.ready_entry, and the words a
seat may take instead (features, 花猫, 不听)."""

from __future__ import annotations

from typing import Any

import pytest

from bot.entry.ctx import Ctx
from bot.entry.hu import parse_wins
from bot.entry.hu.ready import SeatTilesError, read_ready, ready_note
from bot.entry.hu.words import LineError
from scoring import get_variant, score
from scoring.tiles import ready_entry

NAMES = ["Alice", "Bob", "Carol", "Dan"]
PUNGS, PLAIN = "111m222m333p44p55p", "123m456m789p123p4p"


def typed(variant: str, line: str) -> list[dict[str, Any]]:
    v = get_variant(variant)
    events = parse_wins(v, line.split(), NAMES)
    read_ready(v, {"variant": variant}, events)
    return events


@pytest.mark.parametrize("word", ["流局", "黄庄", "黃莊", "荒牌", "查叫", "exhausted",
                                  "wall exhausted", "Drawn game"])
def test_every_word_for_an_exhausted_wall(word: str) -> None:
    events = typed("guiyang", f"{word} Bob {PLAIN}")
    assert events == [{"type": "exhausted", "ready": {
        "0": None, "1": ready_entry({"variant": "guiyang", "tiles": PLAIN, "seat": 1})["ready"],
        "2": None, "3": None}}]


def test_seats_by_wind_number_and_name_and_what_each_may_say() -> None:
    [event] = typed("luzhou", f"流局 E {PUNGS} 1 大对子 清一色 Carol 花猫 北 not ready")
    assert event["ready"] == {
        "0": ready_entry({"variant": "luzhou", "tiles": PUNGS})["ready"],
        "1": {"form": "all_pungs", "pure": True}, "2": "flower_cat", "3": None}
    score({"variant": "luzhou", "events": [event]})  # a record scoring takes as it is


def test_a_bare_seat_is_ready_with_a_plain_hand_and_a_missing_one_is_not() -> None:
    [event] = typed("guiyang", "流局 南")
    assert event["ready"] == {"0": None, "1": {}, "2": None, "3": None}


def test_seats_that_won_before_the_wall_ran_out_take_no_part() -> None:
    events = typed("luzhou", f"南 自摸 清一色; 流局 东 {PUNGS}")
    assert sorted(events[1]["ready"]) == ["0", "2", "3"]
    assert events[1]["ready"]["2"] is None and events[1]["ready"]["0"]["form"] == "all_pungs"


def test_words_add_what_the_tiles_cannot_show() -> None:
    [event] = typed("guiyang", f"流局 南 {PLAIN} 报听")
    assert event["ready"]["1"] == {"declared": True}
    out = score({"variant": "guiyang", "events": [event]})
    assert list(out.deltas) == [-11, 33, -11, -11]  # 平胡 1 + 报听 10 from each of three


@pytest.mark.parametrize(("variant", "line", "msgid"), [
    ("hainan", f"流局 东 {PUNGS}", "pays nothing for ready hands"),
    ("guiyang", f"流局 东 {PUNGS} 东 不听", "named twice"),
    ("guiyang", f"流局 {PUNGS}", "Name the seat first"),
    ("luzhou", f"流局 东 {PUNGS} 花猫", "says all there is"),
    ("luzhou", f"流局 东 {PUNGS} 天胡", "does not count for a ready hand"),
])
def test_lines_that_do_not_say_it_right(variant: str, line: str, msgid: str) -> None:
    with pytest.raises(LineError) as exc:
        typed(variant, line)
    assert msgid in exc.value.msgid


def test_a_game_without_ready_check_takes_the_bare_word() -> None:
    assert typed("cixi", "流局") == [{"type": "exhausted"}]


def test_tiles_scoring_refuses_are_named_by_their_seat() -> None:
    with pytest.raises(SeatTilesError) as exc:
        typed("guiyang", "流局 西 123m456m789p11s")
    assert exc.value.seat == 2 and "13" in str(exc.value)


@pytest.mark.parametrize(("lang", "ready", "flower", "unnamed"), [
    ("en", "East Alice: ready, waiting on 3p 4p 5p 6p. Counted as all pungs no ghost (on 4p): "
     "40 ke from each seat that is not ready.", "South Bob: flower cat (花猫)",
     "Not named, so not ready: West Carol, North Dan."),
    ("zh-Hant", "東 Alice：聽牌，聽 3筒 4筒 5筒 6筒。按 大對子 無鬼 算", "南 Bob：花貓",
     "沒寫到的算沒聽牌：西 Carol、北 Dan。"),
])
def test_the_note_says_per_seat_what_its_tiles_were_taken_as(
        lang: str, ready: str, flower: str, unnamed: str) -> None:
    v = get_variant("luzhou")
    ctx = Ctx(v, lang, NAMES, {"variant": "luzhou"})
    events = parse_wins(v, f"流局 东 {PUNGS} 南 123m456p789s1122m".split(), NAMES)
    note = ready_note(ctx, read_ready(v, ctx.base, events))
    assert ready in note and flower in note and unnamed in note, note
