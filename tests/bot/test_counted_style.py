"""A style that counts the whole hand from its tiles (Chinese Official, issue 30) through the bot's
generic entry: its winner's hand field and element list have kinds of their own (no control on
the forms), its total is a counter bounded by the model that also steps by ten, a /hu line takes
the elements by name and the total as "24番" or "24 points", and the lines name each element with
its points and the total in the hand's unit."""

from __future__ import annotations

from typing import Any

import pytest

from bot.entry import controls
from bot.entry.controls import FormError, Kind
from bot.entry.hu.words import LineError, features_help, parse_hu
from bot.view.i18n import translator
from bot.view.render import outcome_lines
from scoring import get_variant, score

NAMES: list[str | None] = ["Alice", "Bob", "Carol", "Dan"]


@pytest.fixture
def style() -> Any:
    return get_variant("mcr")


def test_the_winner_fields_kinds(style: Any) -> None:
    specs = {s.name: s for s in controls.fields_of(style.Winner)}
    assert specs["tiles"].kind is Kind.HAND and specs["elements"].kind is Kind.TERMS
    assert (specs["points"].kind, specs["points"].lo, specs["points"].hi) == (Kind.INT, 0, 999)
    assert (specs["flowers"].lo, specs["flowers"].hi) == (0, 8)
    assert controls.wide(specs["points"]) and not controls.wide(specs["flowers"])


def test_a_wide_counter_steps_by_ten_a_narrow_one_does_not(style: Any) -> None:
    refs = {s.name: str(i) for i, s in enumerate(controls.fields_of(style.Winner))}
    winner = controls.blank(style.Winner, seat=0)
    for arg in ("++", "++", "+", "+", "+", "+"):
        controls.apply(style.Winner, winner, "i", refs["points"], arg)
    assert winner["points"] == 24
    controls.apply(style.Winner, winner, "i", refs["points"], "--")
    assert winner["points"] == 14
    for _ in range(3):
        controls.apply(style.Winner, winner, "i", refs["points"], "--")
    assert winner["points"] == 0  # not below the model's bound
    with pytest.raises(FormError):
        controls.apply(style.Winner, winner, "i", refs["flowers"], "++")


@pytest.mark.parametrize(("words", "winner"), [
    (["东", "自摸", "24番"], {"seat": 0, "points": 24}),
    (["E", "zimo", "24", "points"], {"seat": 0, "points": 24}),
    (["E", "zimo", "points=24"], {"seat": 0, "points": 24}),
    (["南", "自摸", "七对", "清一色", "一般高×2"],
     {"seat": 1, "elements": ["seven_pairs", "full_flush", "pure_double_chow:2"]}),
    (["S", "zimo", "full", "flush", "Pure", "Double", "Chow", "花牌2"],
     {"seat": 1, "elements": ["full_flush", "pure_double_chow"], "flowers": 2}),
])
def test_a_line_takes_the_elements_by_name_and_the_total(style: Any, words: list[str],
                                                         winner: dict[str, Any]) -> None:
    event = parse_hu(style, words, NAMES)
    assert event["winners"] == [winner]


def test_an_unknown_element_is_answered_with_the_closest(style: Any) -> None:
    with pytest.raises(LineError) as exc:
        parse_hu(style, ["E", "zimo", "清一涩"], NAMES)
    assert "清一色" in exc.value.kwargs.get("close", ""), exc.value.kwargs
    with pytest.raises(LineError):
        parse_hu(style, ["E", "zimo", "1000番"], NAMES)  # past the model's bound


def test_help_does_not_list_the_81_elements(style: Any) -> None:
    shown = features_help(style, "zh-Hans")
    assert "番×N" in shown and "清一色" not in shown


@pytest.mark.parametrize(("lang", "line"), [
    ("zh-Hans", "• <b>南 Bob</b> 七对 24 · 一般高×2 2 · 自摸 1 = 27番：东 −35 · 南 +105 · 西 −35 · 北 −35"),
    ("en", "• <b>South Bob</b> Seven Pairs 24 · Pure Double Chow×2 2 · Self-Drawn 1 = 27 points: "
           "East −35 · South +105 · West −35 · North −35"),
])
def test_a_line_names_each_element_with_its_points(style: Any, lang: str, line: str) -> None:
    events = [{"type": "win", "by": "self_draw", "winners": [
        {"seat": 1, "elements": ["seven_pairs", "pure_double_chow:2", "self_drawn"]}]}]
    record = {"variant": "mcr", "rules": {}, "dealer": 0, "dealer_streak": 1, "round_wind": 0,
              "events": events}
    lines = outcome_lines(translator(lang), lang, style, NAMES, score(record), events)
    assert lines == [line]


def test_a_total_alone_reads_without_a_gap(style: Any) -> None:
    events = [{"type": "win", "by": "self_draw", "winners": [{"seat": 2, "points": 16}]}]
    record = {"variant": "mcr", "rules": {}, "dealer": 0, "dealer_streak": 1, "round_wind": 0,
              "events": events}
    lines = outcome_lines(translator("zh-Hant"), "zh-Hant", style, NAMES,
                          score(record), events)
    assert lines == ["• <b>西 Carol</b> 16番：東 −24 · 南 −24 · 西 +72 · 北 −24"]
