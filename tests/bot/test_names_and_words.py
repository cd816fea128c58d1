"""Words of issue 22: names that cannot reorder a line, Luzhou's halved discard said aloud, ready
hands named, tiles named as the keyboard names them, and Cixi's 龙=… read as the 龙."""

from __future__ import annotations

from typing import Any

import pytest

from bot.entry.ctx import Ctx
from bot.entry.hu.words import turned_for
from bot.entry.screens import summarize_event
from bot.view.i18n import translator
from bot.view.render import FSI, PDI, outcome_lines, seat_label, shown_name, totals_block
from bot.view.tiles import notation_text, tile_label
from db.store.rows import clean_name
from scoring import Outcome, get_variant, score

BIDI = "\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069"


def luzhou_ctx(lang: str) -> Ctx:
    record = {"variant": "luzhou", "rules": {}, "dealer": 0, "dealer_streak": 1, "round_wind": 0}
    return Ctx(get_variant("luzhou"), lang, ["东家", "南家", "西家", "北家"], record)


def test_a_stored_name_loses_its_bidi_controls() -> None:
    assert clean_name("Mal\u202eyrol") == "Malyrol"
    assert clean_name(f"A{BIDI}B  C\u2069") == "AB C"


def test_a_shown_name_cannot_reverse_the_points_after_it() -> None:
    t = translator("en")
    line = totals_block(t, [None, None, None, "Mal\u202eyrol"], [0, 0, 10, -10])[3]
    assert not set(BIDI) - {FSI, PDI} & set(line) and "North Malyrol: <b>−10</b>" in line
    # right-to-left letters are kept in their own isolate, so ": −10" stays after the name
    assert shown_name("داود") == f"{FSI}داود{PDI}"
    assert seat_label(t, 0, ["\u202bداود\u202c"]) == f"East {FSI}داود{PDI}"
    assert shown_name("Alice") == "Alice" and shown_name("小红") == "小红"


def luzhou_discard() -> tuple[dict[str, Any], Outcome]:
    record = {"variant": "luzhou", "rules": {}, "dealer": 0, "dealer_streak": 1, "round_wind": 0,
              "events": [{"type": "win", "by": "discard", "from": 0,
                          "winners": [{"seat": 1, "form": "all_pungs"}]},
                         {"type": "exhausted", "ready": {"0": None, "2": None, "3": None}}]}
    return record, score(record)


@pytest.mark.parametrize(("lang", "line"), [
    ("zh-Hans", "大对子 10颗，点炮者付一半：东 −5 · 南 +5"),
    ("zh-Hant", "大對子 10顆，點炮者付一半：東 −5 · 南 +5"),
    ("en", "all pungs 10 ke, the discarder pays half: East −5 · South +5"),
])
def test_a_luzhou_discard_line_says_the_discarder_pays_half(lang: str, line: str) -> None:
    record, outcome = luzhou_discard()
    shown = outcome_lines(translator(lang), lang, get_variant("luzhou"), ["A", "B", "C", "D"],
                          outcome, record["events"])
    print(shown[0])
    assert shown[0].endswith(line), shown[0]


def test_a_ready_seat_names_its_plain_hand() -> None:
    ev = {"type": "exhausted", "ready": {"1": {"no_ghost": True}, "2": {"form": "all_pungs"},
                                         "3": None}}
    text = summarize_event(luzhou_ctx("zh-Hans"), ev)
    print(text)
    assert "南 平胡 无鬼；西 大对子；北 没听牌" in text, text
    assert "South plain no ghost; West all pungs" in summarize_event(luzhou_ctx("en"), ev)


@pytest.mark.parametrize(("lang", "shown"), [
    ("zh-Hans", "东东东 白白白🃏 [123万] [(5555筒)] 99条"),
    ("zh-Hant", "東東東 白白白🃏 [123萬] [(5555筒)] 99條"),
    ("en", "111z 555z🃏 [123m] [(5555p)] 99s"),
])
def test_a_reading_names_tiles_as_the_keyboard_does(lang: str, shown: str) -> None:
    t = translator(lang)
    assert notation_text(t, "111z 555z🃏 [123m] [(5555p)] 99s") == shown
    if lang != "en":  # the keyboard's own label for 1z, three times
        assert shown.startswith(tile_label(t, "1z") * 3)


@pytest.mark.parametrize(("joker", "turned"), [
    ("2m", "1m"), ("1m", "9m"), ("1p", "9p"), ("南", "1z"), ("东", "4z"), ("中", "5z"),
    ("白", "6z"), ("发", "7z"),
])
def test_cixi_s_dragon_names_the_joker_and_the_turned_tile_is_the_one_before(
        joker: str, turned: str) -> None:
    assert turned_for(get_variant("cixi"), joker) == turned
    assert turned_for(get_variant("feibao"), joker) == joker  # 正精 is the turned tile
