"""Chinese Official mahjong (docs/rules/mcr.md): every element counted from tiles (a worked hand
and a near miss each), whole hands counted element by element, the 8-point minimum, payments,
false wins, rotation, hands entered by hand, the command line, properties.

The expected points are the rulebook's (RULEBOOK below, from the 1998 table), written here, not
read from the library that counts the tiles.
"""

from __future__ import annotations

import json
import random
from fractions import Fraction
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from scoring import ScoringError, score

from .cli import assert_cli_error, assert_invariants, discard, robbed, run_cli, self_draw

pytest.importorskip("MahjongGB", reason="counting from tiles needs PyMahjongGB (the mcr extra)")

# The 1998 table (中国麻将竞赛规则, 第三章 番种): each element's points.
RULEBOOK = {
    "big_four_winds": 88, "big_three_dragons": 88, "all_green": 88, "nine_gates": 88,
    "four_kongs": 88, "seven_shifted_pairs": 88, "thirteen_orphans": 88,
    "all_terminals": 64, "little_four_winds": 64, "little_three_dragons": 64, "all_honors": 64,
    "four_concealed_pungs": 64, "pure_terminal_chows": 64,
    "quadruple_chow": 48, "four_pure_shifted_pungs": 48,
    "four_pure_shifted_chows": 32, "three_kongs": 32, "all_terminals_and_honors": 32,
    "seven_pairs": 24, "greater_honors_and_knitted_tiles": 24, "all_even_pungs": 24,
    "full_flush": 24, "pure_triple_chow": 24, "pure_shifted_pungs": 24, "upper_tiles": 24,
    "middle_tiles": 24, "lower_tiles": 24,
    "pure_straight": 16, "three_suited_terminal_chows": 16, "pure_shifted_chows": 16,
    "all_fives": 16, "triple_pung": 16, "three_concealed_pungs": 16,
    "lesser_honors_and_knitted_tiles": 12, "knitted_straight": 12, "upper_four": 12,
    "lower_four": 12, "big_three_winds": 12,
    "mixed_straight": 8, "reversible_tiles": 8, "mixed_triple_chow": 8,
    "mixed_shifted_pungs": 8, "chicken_hand": 8, "last_tile_draw": 8, "last_tile_claim": 8,
    "out_with_replacement_tile": 8, "robbing_the_kong": 8,
    "all_pungs": 6, "half_flush": 6, "mixed_shifted_chows": 6, "all_types": 6,
    "melded_hand": 6, "two_concealed_kongs": 6, "two_dragon_pungs": 6,
    "outside_hand": 4, "fully_concealed_hand": 4, "two_melded_kongs": 4, "last_tile": 4,
    "dragon_pung": 2, "prevalent_wind": 2, "seat_wind": 2, "concealed_hand": 2, "all_chows": 2,
    "tile_hog": 2, "double_pung": 2, "two_concealed_pungs": 2, "concealed_kong": 2,
    "all_simples": 2,
    "pure_double_chow": 1, "mixed_double_chow": 1, "short_straight": 1, "two_terminal_chows": 1,
    "pung_of_terminals_or_honors": 1, "melded_kong": 1, "one_voided_suit": 1, "no_honors": 1,
    "edge_wait": 1, "closed_wait": 1, "single_wait": 1, "self_drawn": 1, "flower_tiles": 1,
}
# Not in the 1998 table: one concealed and one melded kong, 5 as the common competition reading
# counts them (rule mixed_kongs: together); "separate" counts 暗杠 2 + 明杠 1.
BEYOND_THE_TABLE = {"concealed_and_melded_kong": 5}
POINTS = {**RULEBOOK, **BEYOND_THE_TABLE}
NO_MINIMUM = {"minimum": 0}  # the element tests look at one element, whatever the hand's total


def rec(events: list[dict], **extra: Any) -> dict[str, Any]:
    return {"variant": "mcr", "dealer": 0, "events": events, **extra}


def win(tiles: str, by: str = "discard", seat: int = 1, frm: int = 0, after_kong: bool = False,
        **winner: Any) -> dict[str, Any]:
    features = {"tiles": tiles, **winner}
    if by == "self_draw":
        return self_draw(seat, after_kong, **features)
    if by == "robbed_kong":
        return robbed(frm, seat, **features)
    return discard(frm, seat, after_kong, **features)


def counted(tiles: str, by: str = "discard", seat: int = 1, rules: dict | None = None,
            dealer: int = 0, round_wind: int = 0, after_kong: bool = False,
            **winner: Any) -> dict[str, int]:
    """element → the points it adds, as the win line of the outcome counts them."""
    out = score(rec([win(tiles, by, seat, (seat + 3) % 4, after_kong, **winner)],
                    rules=rules if rules is not None else NO_MINIMUM, dealer=dealer,
                    round_wind=round_wind))
    line = next(x for x in out.lines if x.what == "win")
    got = {}
    for term in line.terms:
        key, _, n = term.partition(":")
        got[key] = POINTS[key] * int(n or 1)
    assert sum(got.values()) == line.value
    return got


def test_the_table_is_the_rulebooks() -> None:
    from scoring.variants.mcr.elements import ELEMENTS, NAMES

    assert len(ELEMENTS) == 81
    assert {k: p for k, (p, _) in ELEMENTS.items()} == RULEBOOK
    for key, names in NAMES.items():  # a name in each language, Chinese in Chinese
        en, hans, hant = names
        assert en and en.isascii() and not hans.isascii() and not hant.isascii(), key


# -- every element: (element, times, its worked hand, the near miss) -----------------------------
# A case is (tiles, options); options: by, seat, dealer, round_wind, after_kong, fourth_tile,
# last_of_wall, flowers. The winner is seat 1 (South) off seat 0's discard in an East round
# unless the options say otherwise.

D: dict[str, Any] = {}
SELF = {"by": "self_draw"}
ELEMENT_CASES: list[tuple[str, int, tuple[str, dict], tuple[str, dict]]] = [
    ("big_four_winds", 1, ("[111z][222z][333z]444z5m+5m", D), ("[111z][222z][333z]44z55m+5m", D)),
    ("big_three_dragons", 1, ("[555z][666z][777z]123m9m+9m", D), ("[555z][666z]77z123m99m+9m", D)),
    ("all_green", 1, ("[234s][234s][666s]888s6z+6z", D), ("[234s][234s][666s]888s7z+7z", D)),
    ("nine_gates", 1, ("1112345678999m+5m", D), ("[111m]2345678999m+5m", D)),
    ("four_kongs", 1, ("[1111m][2222p][3333s][(4444z)]5z+5z", D),
     ("[1111m][2222p][333s][(4444z)]5z+5z", D)),
    ("seven_shifted_pairs", 1, ("1122334455667m+7m", D), ("1122334455668m+8m", D)),
    ("thirteen_orphans", 1, ("19m19p19s1234567z+1z", D), ("[111m][999p]111s111z2z+2z", D)),
    ("all_terminals", 1, ("[111m][999m][111p]999s1s+1s", D), ("[111m][999m][111p]999s1z+1z", D)),
    ("little_four_winds", 1, ("[111z][222z][333z]44z55m+5m", D),
     ("[111z][222z][333z]44m55m+5m", D)),
    ("little_three_dragons", 1, ("[555z][666z]77z123m45m+6m", D),
     ("[555z][666z]11p123m45m+6m", D)),
    ("all_honors", 1, ("[111z][222z][555z]666z7z+7z", D), ("[111z][222z][555z]666z1m+1m", D)),
    ("four_concealed_pungs", 1, ("111m222p333s444z5z+5z", D), ("111m222p333s44z55z+4z", D)),
    ("pure_terminal_chows", 1, ("1122337788995m+5m", D), ("1122337788994m+4m", D)),
    ("quadruple_chow", 1, ("1111222233334m+4m", D), ("1112223334567m+7m", D)),
    ("four_pure_shifted_pungs", 1, ("[222m][333m][444m][555m]6p+6p", D),
     ("[222m][333m][444m][666m]6p+6p", D)),
    ("four_pure_shifted_chows", 1, ("123m345m567m789m5p+5p", D), ("123m345m567m888m5p+5p", D)),
    ("three_kongs", 1, ("[1111m][2222p][3333s]456s7z+7z", D), ("[1111m][2222p][333s]456s7z+7z", D)),
    ("all_terminals_and_honors", 1, ("[111m][999p]111s111z2z+2z", D),
     ("[111m][999p]123s111z2z+2z", D)),
    ("seven_pairs", 1, ("1133m5577p22s44z6z+6z", D), ("112233m456p789s5z+5z", D)),
    ("greater_honors_and_knitted_tiles", 1, ("1234567z14m25p36s+9s", D),
     ("123456z147m25p36s+9s", D)),
    ("all_even_pungs", 1, ("[222m][444p][666s]888m2s+2s", D), ("[222m][444p][666s]777m2s+2s", D)),
    ("full_flush", 1, ("[111m]234m567m789m5m+5m", D), ("[111m]234m567m789p5m+5m", D)),
    ("pure_triple_chow", 1, ("[123m][123m]123m456p7z+7z", D), ("112233m234m456p7z+7z", D)),
    ("pure_shifted_pungs", 1, ("[111m][222m][333m]456p7z+7z", D),
     ("[111m][222m][444m]456p7z+7z", D)),
    ("upper_tiles", 1, ("[789m][789p]789s777m8s+8s", D), ("[678m][789p]789s777m8s+8s", D)),
    ("middle_tiles", 1, ("[456m][456p]456s555m6s+6s", D), ("[345m][456p]456s555m6s+6s", D)),
    ("lower_tiles", 1, ("[123m][123p]123s111m2s+2s", D), ("[234m][123p]123s111m4s+4s", D)),
    ("pure_straight", 1, ("123m456m789m123p55p+5p", D), ("123m456p789s123p55p+5p", D)),
    ("three_suited_terminal_chows", 1, ("123789m123789p5s+5s", D), ("123789m123789p5p+5p", D)),
    ("pure_shifted_chows", 1, ("123m234m345m789p5z+5z", D), ("123m234m456m789p5z+5z", D)),
    ("all_fives", 1, ("[345m][456p]567s555m5s+5s", D), ("[345m][456p]678s555m5s+5s", D)),
    ("triple_pung", 1, ("[222m][222p]222s456m7z+7z", D), ("[222m][222p]333s456m7z+7z", D)),
    ("three_concealed_pungs", 1, ("[123m]222p333s444s7z+7z", D), ("[123m]222p333s44s77z+4s", D)),
    ("lesser_honors_and_knitted_tiles", 1, ("12345z147m258p36s+9s", D),
     ("1234567z14m25p36s+9s", D)),
    ("knitted_straight", 1, ("147m258p369s123m5z+5z", D), ("123m456p789s123m5z+5z", D)),
    ("upper_four", 1, ("[678m][789p]666s999m7s+7s", D), ("[567m][789p]666s999m7s+7s", D)),
    ("lower_four", 1, ("[123m][234p]111s444m2s+2s", D), ("[123m][345p]111s444m2s+2s", D)),
    ("big_three_winds", 1, ("[111z][222z][333z]456m7m+7m", D), ("[111z][222z][555z]456m7m+7m", D)),
    ("mixed_straight", 1, ("123m456p789s123m5z+5z", D), ("123m456p678s123m5z+5z", D)),
    ("reversible_tiles", 1, ("[123p][345p]456s888s5z+5z", D), ("[123p][345p]345s888s5z+5z", D)),
    ("mixed_triple_chow", 1, ("[123m][123p]123s456m7z+7z", D), ("[123m][123p]234s456m7z+7z", D)),
    ("mixed_shifted_pungs", 1, ("[222m][333p]444s456m7z+7z", D),
     ("[222m][333p]555s456m7z+7z", D)),
    ("chicken_hand", 1, ("[234m][567p][678s]34m11z+5m", D), ("[123m][456p][789s]34m11z+5m", D)),
    ("last_tile_draw", 1, ("[234m][567p][678s]34m11z+5m", {**SELF, "last_of_wall": True}),
     ("[234m][567p][678s]34m11z+5m", {"last_of_wall": True})),
    ("last_tile_claim", 1, ("[234m][567p][678s]34m11z+5m", {"last_of_wall": True}),
     ("[234m][567p][678s]34m11z+5m", {**SELF, "last_of_wall": True})),
    ("out_with_replacement_tile", 1, ("[2222m][567p][678s]34m11z+5m", {**SELF, "after_kong": True}),
     ("[2222m][567p][678s]34m11z+5m", SELF)),
    ("robbing_the_kong", 1, ("[234m][567p][678s]34m11z+5m", {"by": "robbed_kong"}),
     ("[234m][567p][678s]34m11z+5m", D)),
    ("all_pungs", 1, ("[222m][555p]888s777m1z+1z", D), ("[234m][555p]888s777m1z+1z", D)),
    ("half_flush", 1, ("[123m][456m]789m111z2z+2z", D), ("[123m][456m]789m111m2m+2m", D)),
    ("mixed_shifted_chows", 1, ("[123m][234p]345s777s1z+1z", D), ("[123m][234p]456s777s1z+1z", D)),
    ("all_types", 1, ("[123m][456p][789s]111z5z+5z", D), ("[123m][456p][789s]111z2z+2z", D)),
    ("melded_hand", 1, ("[123m][456p][789s][111z]5z+5z", D), ("[123m][456p][789s][111z]5z+5z", SELF)),
    ("two_concealed_kongs", 1, ("[(2222m)][(5555p)]123s456s7z+7z", D),
     ("[(2222m)][5555p]123s456s7z+7z", D)),
    ("two_dragon_pungs", 1, ("[555z][666z]123m456m1p+1p", D), ("[555z][111z]123m456m1p+1p", D)),
    ("outside_hand", 1, ("[123m][789p]123s999s1z+1z", D), ("[123m][789p]234s999s1z+1z", D)),
    ("fully_concealed_hand", 1, ("123m456p789s234m5z+5z", SELF), ("123m456p789s234m5z+5z", D)),
    ("two_melded_kongs", 1, ("[2222m][5555p]123s456s7z+7z", D), ("[2222m][555p]123s456s7z+7z", D)),
    ("last_tile", 1, ("[234m][567p][678s]34m11z+5m", {"fourth_tile": True}),
     ("[234m][567p][678s]34m11z+5m", D)),
    ("dragon_pung", 1, ("[555z][123m][456p]789s1p+1p", D), ("[444z][123m][456p]789s1p+1p", D)),
    ("prevalent_wind", 1, ("[111z][123m][456p]789s1p+1p", D),
     ("[111z][123m][456p]789s1p+1p", {"round_wind": 2})),
    ("seat_wind", 1, ("[222z][123m][456p]789s1p+1p", D),
     ("[222z][123m][456p]789s1p+1p", {"seat": 2})),
    ("concealed_hand", 1, ("123m456p789s234m5z+5z", D), ("[123m]456p789s234m5z+5z", D)),
    ("all_chows", 1, ("[123m]456p789s234m5s+5s", D), ("[123m]456p789s234m5z+5z", D)),
    ("tile_hog", 1, ("[123m]111m456p789s5z+5z", D), ("[123m]999m456p789s5z+5z", D)),
    ("double_pung", 1, ("[222m][222p]123s456s7z+7z", D), ("[222m][333p]123s456s7z+7z", D)),
    ("two_concealed_pungs", 1, ("[123m]222p333s456s7z+7z", D), ("[123m][222p]333s456s7z+7z", D)),
    ("concealed_kong", 1, ("[(2222m)][123p]456s789s7z+7z", D), ("[2222m][123p]456s789s7z+7z", D)),
    ("all_simples", 1, ("[234m][567p]678s345m8s+8s", D), ("[234m][567p]678s345m9s+9s", D)),
    ("pure_double_chow", 1, ("[123m]123m456p789s5z+5z", D), ("[123m]234m456p789s5z+5z", D)),
    ("mixed_double_chow", 1, ("[123m]123p456p789s5z+5z", D), ("[123m]234p456p789s5z+5z", D)),
    ("short_straight", 1, ("[123m]456m678p789s5z+5z", D), ("[123m]567m678p789s5z+5z", D)),
    ("two_terminal_chows", 1, ("[123m]789m456p456s5z+5z", D), ("[123m]678m456p456s5z+5z", D)),
    ("pung_of_terminals_or_honors", 1, ("[111m]234m456p789s5p+5p", D),
     ("[222m]234m456p789s5p+5p", D)),
    ("melded_kong", 1, ("[2222m][123p]456s789s7z+7z", D), ("[222m][123p]456s789s7z+7z", D)),
    ("one_voided_suit", 1, ("[123m]456m456p789p5z+5z", D), ("[123m]456m456p789s5z+5z", D)),
    ("no_honors", 1, ("[123m]456m456p777s5s+5s", D), ("[123m]456m456p777s5z+5z", D)),
    ("edge_wait", 1, ("[123m]456p789s12m55z+3m", D), ("[123m]456p789s23m55z+4m", D)),
    ("closed_wait", 1, ("[123m]456p789s13m55z+2m", D), ("[123m]456p789s23m55z+4m", D)),
    ("single_wait", 1, ("[123m]456p789s234m5z+5z", D), ("[123m]456p789s55m55z+5z", D)),
    ("self_drawn", 1, ("[123m]456p789s234m5z+5z", SELF), ("[123m]456p789s234m5z+5z", D)),
    ("flower_tiles", 2, ("[123m]456p789s234m5z+5z", {"flowers": 2}),
     ("[123m]456p789s234m5z+5z", D)),
]


def _counted(case: tuple[str, dict]) -> dict[str, int]:
    tiles, options = case
    return counted(tiles, **options)


def test_every_element_has_its_case() -> None:
    assert sorted(e for e, *_ in ELEMENT_CASES) == sorted(RULEBOOK)


@pytest.mark.parametrize(("element", "times", "hit", "near"), ELEMENT_CASES,
                         ids=[c[0] for c in ELEMENT_CASES])
def test_each_element_counts_in_its_hand_and_not_in_the_near_miss(
        element: str, times: int, hit: tuple[str, dict], near: tuple[str, dict]) -> None:
    got = _counted(hit)
    assert got.get(element) == RULEBOOK[element] * times, got
    missed = _counted(near)
    assert element not in missed, missed


# -- whole hands, element by element (worked here from the rulebook's definitions and its 不计
# lists; the rulebook's own worked examples were not at hand) --------------------------------------
# (name, tiles, options, every element counted with its points)
WORKED = [
    ("清龙 门前清", "123m456m789m123p55p+5p", D,
     {"pure_straight": 16, "concealed_hand": 2, "all_chows": 2, "mixed_double_chow": 1,
      "one_voided_suit": 1, "single_wait": 1}),  # 平和 不计无字
    ("混一色 清龙 箭刻, dealer self-drawn", "[555z]123m456m789m1z+1z",
     {**SELF, "seat": 0},
     {"pure_straight": 16, "half_flush": 6, "dragon_pung": 2, "single_wait": 1,
      "self_drawn": 1}),  # 混一色 不计缺一门; 箭刻 不计幺九刻
    ("七对 五门齐", "1133m5577p22s44z6z+6z", D,
     {"seven_pairs": 24, "all_types": 6}),  # 七对 不计门前清、单钓将
    ("抢杠和", "[234m][567p][678s]34m11z+5m", {"by": "robbed_kong"},
     {"robbing_the_kong": 8}),  # 不计和绝张: the robbed tile is the fourth of its kind
    ("杠上开花 明杠", "[2222m][567p][678s]34m11z+5m", {**SELF, "after_kong": True},
     {"out_with_replacement_tile": 8, "melded_kong": 1}),  # 杠上开花 不计自摸
    ("妙手回春", "[234m][567p][678s]34m11z+5m", {**SELF, "last_of_wall": True},
     {"last_tile_draw": 8}),  # 不计自摸
    ("海底捞月", "[234m][567p][678s]34m11z+5m", {"last_of_wall": True}, {"last_tile_claim": 8}),
    ("无番和 with flowers", "[234m][567p][678s]34m11z+5m", {"flowers": 3},
     {"chicken_hand": 8, "flower_tiles": 3}),
    ("大四喜", "[111z][222z][333z]444z5m+5m", D,
     {"big_four_winds": 88, "half_flush": 6, "single_wait": 1}),  # 不计三风刻、碰碰和、风刻、幺九刻
    ("十三幺", "19m19p19s1234567z+1z", D, {"thirteen_orphans": 88}),  # 不计五门齐、门前清、单钓将
    ("全不靠 组合龙", "12345z147m258p36s+9s", D,
     {"lesser_honors_and_knitted_tiles": 12, "knitted_straight": 12}),  # 全不靠 不计五门齐、门前清
    ("全求人 花龙 圈风刻 五门齐", "[123m][456p][789s][111z]5z+5z", D,
     {"melded_hand": 6, "mixed_straight": 8, "prevalent_wind": 2, "all_types": 6}),
    ("圈风刻 and 门风刻: the dealer's East in the East round", "[111z]123m456p789s5z+5z",
     {**SELF, "seat": 0},
     {"mixed_straight": 8, "prevalent_wind": 2, "seat_wind": 2, "all_types": 6, "single_wait": 1,
      "self_drawn": 1}),
    ("四暗刻 三色三节高 幺九刻×2", "111m222p333s444z5z+5z", D,
     {"four_concealed_pungs": 64, "mixed_shifted_pungs": 8, "all_types": 6,
      "pung_of_terminals_or_honors": 2, "single_wait": 1}),  # 不计门前清、碰碰和、三暗刻
    # it waits on 6m too (123 456 678 99), so no wait element
    ("清一色 清龙 一般高 平和", "[123m]123m456m789m9m+9m", D,
     {"full_flush": 24, "pure_straight": 16, "all_chows": 2, "pure_double_chow": 1}),
    # 清一色 不计缺一门、无字; 清龙 不计连六、老少副; 平和 不计无字
]


@pytest.mark.parametrize(("name", "tiles", "options", "expected"), WORKED,
                         ids=[w[0] for w in WORKED])
def test_worked_hands_count_every_element(name: str, tiles: str, options: dict,
                                          expected: dict[str, int]) -> None:
    assert counted(tiles, rules={}, **options) == expected


def test_one_concealed_and_one_melded_kong_together_or_apart() -> None:
    tiles = "[(2222m)][5555p]123s456s7z+7z"
    assert counted(tiles)["concealed_and_melded_kong"] == 5
    apart = counted(tiles, rules={"minimum": 0, "mixed_kongs": "separate"})
    assert apart["concealed_kong"] == 2 and apart["melded_kong"] == 1
    assert "concealed_and_melded_kong" not in apart


def test_the_mixed_kongs_element_is_listed_by_its_points_not_after_the_flowers() -> None:
    """明暗杠 5 is no element of the 1998 table, but a line lists it where its points put it:
    after the 6s, before the 4s, 2s and 1s, the flowers last."""
    out = score(rec([win("[(2222m)][5555p]123s456s7z+7z", "self_draw", 0, flowers=2)]))
    terms = [t.partition(":")[0] for t in out.lines[0].terms]
    assert terms == ["concealed_and_melded_kong", "short_straight", "single_wait", "self_drawn",
                     "flower_tiles"]
    points = [POINTS[t] for t in terms[:-1]]
    assert points == sorted(points, reverse=True)


def test_the_fourth_tile_counts_when_the_other_three_are_in_the_winners_own_melds() -> None:
    """和绝张 needs no flag when the winner's own pung holds the other three (they are in view):
    the counting sees it; a flag for a tile the winner holds another of is refused."""
    assert counted("[555m][567p][678s]34m11z+5m")["last_tile"] == 4
    assert counted("[555m][567p][678s]34m11z+5m", fourth_tile=True)["last_tile"] == 4
    with pytest.raises(ScoringError, match="not the last one in view"):
        counted("[555m]123p456p789p1p+1p", fourth_tile=True)


@pytest.mark.parametrize("tiles", ["[234m][567p][678s]34m11z+5m", "[234m][567p][678s]345m11z+5m"])
def test_the_tiles_before_the_plus_may_hold_the_winning_tile_or_not(tiles: str) -> None:
    assert counted(tiles, "self_draw", 0, last_of_wall=True) == {"last_tile_draw": 8}


# -- the 8-point minimum ----------------------------------------------------------------------------

LOW = "[234m][345p]678s456m5z+5z"  # 单钓将 alone: 1 point


def test_fewer_than_8_points_cannot_win_and_the_refusal_says_the_count() -> None:
    with pytest.raises(ScoringError) as exc:
        score(rec([win(LOW, flowers=2)]))
    assert exc.value.field == "events[0].winners[0]"
    assert exc.value.params == {"count": 1, "minimum": 8}  # the 2 flowers do not count toward 8
    assert "1 points without flowers" in str(exc.value)


def test_flowers_do_not_reach_the_minimum_but_are_paid() -> None:
    chicken = "[234m][567p][678s]34m11z+5m"  # exactly 8
    out = score(rec([win(chicken, flowers=3)]))  # P = 8 + 3
    assert out.deltas == (-19, 35, -8, -8)
    assert out.lines[0].value == 11


def test_rule_minimum() -> None:
    assert score(rec([win(LOW)], rules={"minimum": 1})).deltas == (-9, 25, -8, -8)
    with pytest.raises(ScoringError, match="a win needs 16"):
        score(rec([win("[234m][567p][678s]34m11z+5m")], rules={"minimum": 16}))


# -- payments ---------------------------------------------------------------------------------------

def test_a_discard_pays_8_plus_points_the_others_8() -> None:
    code, out, err = run_cli(rec([win("123m456m789m123p55p+5p", frm=3)]))  # 23 points
    assert code == 0, err
    assert out["deltas"] == [-8, 47, -8, -31]
    assert out["lines"][0]["value"] == 23
    assert_invariants(out)


def test_a_self_draw_pays_8_plus_points_from_each() -> None:
    out = score(rec([win("[555z]123m456m789m1z+1z", "self_draw", seat=0)]))  # 26 points
    assert out.deltas == (102, -34, -34, -34)


def test_a_robbed_kong_is_paid_by_the_kongs_owner() -> None:
    out = score(rec([win("[234m][567p][678s]34m11z+5m", "robbed_kong", seat=1, frm=2)]))
    assert out.deltas == (-8, 32, -16, -8)


def test_an_exhausted_wall_pays_nothing_and_the_deal_passes() -> None:
    out = score(rec([{"type": "exhausted"}], dealer=2, round_wind=1))
    assert out.deltas == (0, 0, 0, 0) and out.lines[0].terms == ("exhausted",)
    assert (out.next_dealer, out.next_round_wind, out.next_dealer_streak) == (3, 1, 1)


def test_the_win_line_names_every_element_and_the_total() -> None:
    line = score(rec([win("123m456m789m123p55p+5p", frm=3)])).lines[0]
    assert line.terms == ("pure_straight", "concealed_hand", "all_chows", "mixed_double_chow",
                          "one_voided_suit", "single_wait")
    assert line.text.startswith("清龙 16 · 门前清 2 · 平和 2 · 喜相逢 1 · 缺一门 1 · 单钓将 1 = 23番")
    twice = score(rec([win(LOW, flowers=2)], rules={"minimum": 0})).lines[0]
    assert twice.terms == ("single_wait", "flower_tiles:2")


# -- false wins -------------------------------------------------------------------------------------

def test_a_false_win_pays_10_to_each_other_seat_and_play_goes_on() -> None:
    out = score(rec([{"type": "false_win", "seat": 2}, win("[234m][567p][678s]34m11z+5m")]))
    false = out.lines[0]
    assert (false.what, false.deltas) == ("false_win", (10, 10, -30, 10))
    assert out.deltas == (-6, 42, -38, 2)


def test_rule_false_win_penalty() -> None:
    out = score(rec([{"type": "false_win", "seat": 0}, {"type": "exhausted"}],
                    rules={"false_win_penalty": 8}))
    assert out.deltas == (-24, 8, 8, 8)


# -- rotation: the deal passes every hand, 16 hands a game ------------------------------------------

def test_sixteen_hands_make_a_game() -> None:
    from scoring.variants.mcr import ends_game

    dealer, wind, seen = 0, 0, []
    for _ in range(16):
        seen.append((wind, dealer))
        out = score(rec([win("[555z]123m456m789m1z+1z", "self_draw", seat=dealer)],
                        dealer=dealer, round_wind=wind))
        assert out.next_dealer_streak == 1
        assert ends_game(dealer, wind) == (len(seen) == 16)
        dealer, wind = out.next_dealer, out.next_round_wind
    assert seen == [(w, d) for w in range(4) for d in range(4)]
    assert (dealer, wind) == (0, 0)  # the next game starts as the first did


def test_a_dealer_streak_is_refused() -> None:
    assert_cli_error(rec([{"type": "exhausted"}], dealer_streak=2), "dealer_streak")


def test_seat_wind_follows_the_dealer() -> None:
    # seat 3 holds the 南 pung: South's seat when seat 2 deals
    assert "seat_wind" in counted("[222z][123m][456p]789s1p+1p", seat=3, dealer=2)
    assert "seat_wind" not in counted("[222z][123m][456p]789s1p+1p", seat=3, dealer=0)


@pytest.mark.parametrize(("totals", "points"), [
    ((50, 10, -20, -40), (4, 2, 1, 0)),
    ((-40, 50, 10, -20), (0, 4, 2, 1)),
    ((30, 30, -30, -30), (3, 3, Fraction(1, 2), Fraction(1, 2))),
    ((0, 0, 0, 0), (Fraction(7, 4),) * 4),
    ((20, 10, 10, -40), (4, Fraction(3, 2), Fraction(3, 2), 0)),
])
def test_table_points_by_place_ties_share(totals: tuple, points: tuple) -> None:
    from scoring.variants.mcr import table_points

    assert table_points(totals) == points
    assert sum(table_points(totals)) == 7


def test_the_table_points_rule_is_a_house_option() -> None:
    from scoring import get_variant

    assert get_variant("mcr").resolved_rules({}) == {
        "minimum": 8, "false_win_penalty": 10, "mixed_kongs": "together", "table_points": False}
    assert get_variant("mcr").resolved_rules({"table_points": True})["table_points"] is True


# -- hands entered as elements or as a total ---------------------------------------------------------

def test_a_total_entered_by_hand() -> None:
    out = score(rec([self_draw(2, points=24)]))  # /hu 东 自摸 24番
    assert out.deltas == (-32, -32, 96, -32)
    assert out.lines[0].terms == () and out.lines[0].value == 24
    with pytest.raises(ScoringError, match="7 points without flowers"):
        score(rec([self_draw(2, points=9, flowers=2)]))


def test_elements_entered_by_hand() -> None:
    out = score(rec([discard(3, 1, elements=["full_flush", "pure_double_chow:2"], flowers=1)]))
    assert out.lines[0].value == 27
    assert out.lines[0].terms == ("full_flush", "pure_double_chow:2", "flower_tiles")
    assert out.deltas == (-8, 51, -8, -35)
    same = score(rec([discard(3, 1, elements=["full_flush", "pure_double_chow:2"], flowers=1,
                              points=27)]))
    assert same.deltas == out.deltas


ENTERED_REFUSALS = [
    ("unknown", {"elements": ["big_dragons"]}, "discard", "elements[0]", "unknown element"),
    ("twice", {"elements": ["full_flush", "full_flush"]}, "discard", "elements[1]", "twice"),
    ("bad count", {"elements": ["full_flush:9"]}, "discard", "elements[0]", "1 to 4 times"),
    ("flowers", {"elements": ["full_flush", "flower_tiles:2"]}, "discard", "elements[1]",
     "flowers field"),
    ("self-drawn only", {"elements": ["full_flush", "self_drawn"]}, "discard", "elements",
     "only in a self-drawn win"),
    ("claimed only", {"elements": ["full_flush", "last_tile_claim"]}, "self_draw", "elements",
     "not in a self-drawn one"),
    ("robbed kong missing", {"elements": ["full_flush"]}, "robbed_kong", "elements",
     "exactly when the win is by robbed_kong"),
    ("kong bloom missing", {"elements": ["full_flush"], "after_kong": True}, "self_draw",
     "elements", "self-drawn after a kong"),
    ("points disagree", {"elements": ["full_flush"], "points": 25}, "discard", "points",
     "counts 24 points but points says 25"),
    ("nothing to count", {}, "discard", "", "give its tiles, its elements or its points"),
    ("tiles and elements", {"tiles": "19m19p19s1234567z+1z", "elements": ["full_flush"]},
     "discard", "", "not both"),
    ("flags without tiles", {"points": 24, "fourth_tile": True}, "discard", "",
     "count from tiles"),
]


@pytest.mark.parametrize(("name", "winner", "by", "field", "words"), ENTERED_REFUSALS,
                         ids=[r[0] for r in ENTERED_REFUSALS])
def test_entered_hands_refused(name: str, winner: dict, by: str, field: str, words: str) -> None:
    winner = dict(winner)
    after_kong = winner.pop("after_kong", False)  # the event's, not the winner's
    ev = {"self_draw": self_draw(1, after_kong, **winner), "discard": discard(0, 1, **winner),
          "robbed_kong": robbed(0, 1, **winner)}[by]
    error = assert_cli_error(rec([ev]), "events[0].winners[0]" + (f".{field}" if field else ""))
    assert words in error


# -- tiles refused ----------------------------------------------------------------------------------

TILE_REFUSALS = [
    ("no winning tile", "123m456m789m123p55p", D, "tiles", "after '+'"),
    ("thirteen tiles", "123m456m789m12p5p+5p", D, "tiles", "13 tiles"),
    ("a fifth tile", "11111m456m789m12p+3p", D, "tiles", "5 of 1m"),
    ("not a win", "123m456m789m124p55p+5p", D, "tiles", "not a winning hand"),
    ("no such meld", "[135m]456m789m123p55p+5p", D, "tiles", "[135m] is not a pung"),
    ("bad notation", "123x", D, "tiles", "tiles"),
    ("fourth tile held", "[123m]456m789m123p55p+5p", {"fourth_tile": True}, "fourth_tile",
     "holds another 5p"),
    ("robbed tile held", "[123m]456m789m123p55p+5p", {"by": "robbed_kong"}, "tiles",
     "cannot hold another 5p"),
    ("robbed and fourth tile", "[234m][567p][678s]34m11z+5m",
     {"by": "robbed_kong", "fourth_tile": True}, "fourth_tile", "抢杠和 does not count 和绝张"),
    ("robbed and last of the wall", "[234m][567p][678s]34m11z+5m",
     {"by": "robbed_kong", "last_of_wall": True}, "last_of_wall", "neither the wall's last"),
    ("kong bloom without a kong", "[123m]456m789m123p55p+5p", {**SELF, "after_kong": True},
     "tiles", "needs the winner's kong"),
    ("flowers twice", "[234m][567p][678s]34m11z1f2f+5m", {"flowers": 2}, "flowers",
     "already written in the tiles"),
]


@pytest.mark.parametrize(("name", "tiles", "options", "field", "words"), TILE_REFUSALS,
                         ids=[r[0] for r in TILE_REFUSALS])
def test_tiles_refused(name: str, tiles: str, options: dict, field: str, words: str) -> None:
    options = dict(options)
    by = options.pop("by", "discard")
    after_kong = options.pop("after_kong", False)
    error = assert_cli_error(rec([win(tiles, by, 1, 0, after_kong, **options)]),
                             f"events[0].winners[0].{field}")
    assert words in error


def test_flowers_in_the_tiles_count() -> None:
    got = counted("[234m][567p][678s]34m11z1f2f+5m")
    assert got["flower_tiles"] == 2


def test_a_discard_after_a_kong_is_no_element() -> None:
    assert_cli_error(rec([win("[2222m][567p][678s]34m11z+5m", after_kong=True)]),
                     "events[0].after_kong")


def test_one_winner_per_discard() -> None:
    ev = {"type": "win", "by": "discard", "from": 0,
          "winners": [{"seat": 1, "points": 8}, {"seat": 2, "points": 8}]}
    assert_cli_error(rec([ev]), "events[0].winners")


def test_nothing_follows_the_end_and_a_hand_needs_one() -> None:
    assert_cli_error(rec([{"type": "exhausted"}, {"type": "exhausted"}]), "events[1]")
    assert_cli_error(rec([{"type": "false_win", "seat": 1}]), "events")


def test_without_the_library_tiles_are_refused_with_how_to_count(monkeypatch: pytest.MonkeyPatch,
                                                                  ) -> None:
    from scoring import get_variant
    from scoring.variants.mcr import counting

    assert get_variant("mcr").cannot_count() is None
    monkeypatch.setattr(counting, "_calculator", None)
    refused = get_variant("mcr").cannot_count()
    assert refused is not None and ".venv/bin/pip install -e '.[mcr]'" in str(refused)
    with pytest.raises(ScoringError) as exc:
        score(rec([win("123m456m789m123p55p+5p")]))
    assert exc.value.field == "events[0].winners[0].tiles"
    assert ".venv/bin/pip install -e '.[mcr]'" in str(exc.value)
    # the hand entered by hand is still scored
    assert score(rec([discard(0, 1, points=8)])).deltas == (-16, 32, -8, -8)


# -- the command line: analyze and waits ------------------------------------------------------------

def _tiles_cli(command: str, request: Any) -> tuple[int, dict[str, Any]]:
    import subprocess
    import sys

    proc = subprocess.run([sys.executable, "-m", "scoring", command], capture_output=True,
                          text=True, input=json.dumps(request, ensure_ascii=False), timeout=60,
                          check=False)
    assert "Traceback" not in proc.stderr
    return proc.returncode, json.loads(proc.stdout)


def test_analyze_on_the_command_line() -> None:
    code, out = _tiles_cli("analyze", {"variant": "mcr", "tiles": "123m456m789m123p55p+5p",
                                       "by": "discard", "seat": 1})
    assert code == 0, out
    assert out["winner"] == {"seat": 1, "tiles": "123m456m789m123p55p+5p"}
    assert out["points"] == 23
    assert out["value"] == 31 + 8 + 8  # the discarder and the other two
    assert {e["key"]: e["points"] for e in out["elements"]} == WORKED[0][3]
    # the winner object, put in a record, pays what analyze says
    record = rec([{"type": "win", "by": "discard", "from": 0, "winners": [out["winner"]]}])
    assert score(record).deltas[1] == out["value"]


@pytest.mark.parametrize(("request_", "field"), [
    ({"variant": "mcr", "tiles": LOW}, "tiles"),  # under the minimum
    ({"variant": "mcr", "tiles": "123m456m789m124p55p+5p"}, "tiles"),  # not a win
    ({"variant": "mcr", "tiles": "123m456m789m123p55p+5p", "indicator": "5m"}, "indicator"),
    ({"variant": "mcr", "tiles": "123m456m789m123p55p+5p", "rules": {"minimum": -1}},
     "rules.minimum"),
    ({"variant": "mcr", "tiles": "123m456m789m123p55p+5p", "fourth_tile": True}, "fourth_tile"),
    ({"variant": "mcr", "tiles": "123m456m789m123p55p+5p", "colour": 1}, "colour"),
    ({"variant": "mcr", "tiles": "[2222m][567p][678s]34m11z+5m", "by": "discard",
      "after_kong": True}, "after_kong"),
])
def test_analyze_refusals_name_the_field(request_: dict, field: str) -> None:
    code, out = _tiles_cli("analyze", request_)
    assert code == 2 and set(out) == {"error"}
    assert out["error"].startswith(field + ":"), out


def test_waits_on_the_command_line() -> None:
    code, out = _tiles_cli("waits", {"variant": "mcr", "tiles": "[234m][567p][678s]34m11z",
                                     "seat": 1})
    assert code == 0, out
    # 2m or 5m complete it, but self-drawn it is no 无番和: 自摸 alone, 1 point, so neither wins
    assert out == {"waits": [], "ready": False, "best": None}
    code, out = _tiles_cli("waits", {"variant": "mcr", "tiles": "123m456m789m123p5p", "seat": 1})
    assert [w["tile"] for w in out["waits"]] == ["5p"]
    assert out["best"]["value"] == 3 * (8 + out["waits"][0]["points"])
    code, out = _tiles_cli("waits", {"variant": "mcr", "tiles": "123m456m789m123p5p+5p"})
    assert code == 2 and out["error"].startswith("tiles:")


@pytest.mark.parametrize(("tiles", "shape", "sets", "at"), [
    # four sets and a pair, the melds as melded; the winning 5p completed the pair
    ("123m456m789m55p[123p]+5p", "standard",
     [("chow", "123m", ""), ("chow", "456m", ""), ("chow", "789m", ""), ("pair", "55p", ""),
      ("chow", "123p", "exposed")], 3),
    # a concealed kong as the record writes it
    ("456789m1z[123m][(5555p)]+1z", "standard",
     [("chow", "456m", ""), ("chow", "789m", ""), ("pair", "11z", ""), ("chow", "123m", "exposed"),
      ("kong", "5555p", "concealed_kong")], 2),
    # counted as seven shifted pairs, so shown as pairs, not as the chows they also make
    ("11223344556677m+7m", "seven_pairs",
     [("pair", f"{n}{n}m", "") for n in range(1, 8)], 6),
    # a knitted hand (全不靠 + 组合龙) is no shape of sets: its tiles as one loose group
    ("147m258p369s东南西北+白", "knitted", [("loose", "147m258p369s12345z", "")], None),
])
def test_analyze_shows_the_sets_as_the_wizard_reads_them(tiles: str, shape: str,
                                                        sets: list[tuple[str, str, str]],
                                                        at: int | None) -> None:
    from scoring.tiles import analyze

    out = analyze({"variant": "mcr", "tiles": tiles})
    assert len(out["readings"]) == 1  # the counter took the reading worth most already
    reading = out["readings"][0]
    assert reading["winner"] == out["winner"] == {"seat": 0, "tiles": tiles}
    assert reading["value"] == out["value"] and reading["points"] == out["points"]
    assert reading["shape"] == shape
    assert [(g["kind"], g["tiles"], g.get("meld", "")) for g in reading["sets"]] == sets
    assert reading.get("winning_group") == at
    assert sum(e["points"] for e in reading["elements"]) == out["points"]


def test_the_docker_image_builds_the_extras_counter() -> None:
    """deploy/Dockerfile's build stage compiles the PyMahjongGB the `mcr` extra asks for."""
    import re
    import tomllib
    from pathlib import Path

    root = Path(__file__).resolve().parents[2]
    extra = tomllib.loads((root / "pyproject.toml").read_text())["project"][
        "optional-dependencies"]["mcr"]
    docker = (root / "deploy" / "Dockerfile").read_text()
    assert extra == ["PyMahjongGB>=1.4,<1.5"]
    assert re.search(r'pip wheel .*"PyMahjongGB>=1\.4,<1\.5"', docker), docker
    assert '".[mcr]"' in docker


def test_ready_entry_is_refused_for_a_style_without_a_ready_map() -> None:
    from scoring.tiles import ready_entry

    with pytest.raises(ScoringError, match="no ready map"):
        ready_entry({"variant": "mcr", "tiles": "123m456m789m123p5p"})


# -- an independent check: the `mahjong` library's agari agrees on which hands are complete ----------

def _complete(rng: random.Random) -> list[int]:
    """Four random sets and a pair, all concealed, no tile more than four times."""
    while True:
        counts = [0] * 34
        for _ in range(4):
            x = rng.randrange(34)
            if x < 27 and x % 9 <= 6 and rng.random() < 0.6:
                for y in (x, x + 1, x + 2):
                    counts[y] += 1
            else:
                counts[x] += 3
        counts[rng.randrange(34)] += 2
        if max(counts) <= 4:
            return [x for x in range(34) for _ in range(counts[x])]


def _text(tiles: list[int], win_tile: int) -> str:
    from scoring.tiles.notation import tile_name

    rest = list(tiles)
    rest.remove(win_tile)
    return "".join(tile_name(x) for x in rest) + "+" + tile_name(win_tile)


@given(st.integers(0, 2**32 - 1), st.booleans())
def test_property_complete_hands_count_and_incomplete_do_not(seed: int, broken: bool) -> None:
    from mahjong.agari import Agari

    rng = random.Random(seed)
    tiles = _complete(rng)
    if broken:  # one tile swapped for another: most often no longer complete
        i = rng.randrange(14)
        tiles[i] = rng.randrange(34)
        if tiles.count(tiles[i]) > 4:
            return
    counts = [tiles.count(x) for x in range(34)]
    agari = Agari().is_agari(counts)
    try:
        got = counted(_text(tiles, tiles[-1]))
    except ScoringError as exc:
        assert exc.template.startswith("not a winning hand"), exc
        assert not agari, tiles
        return
    # the Chinese Official rules know shapes `mahjong` (riichi) does not: the knitted ones, and
    # seven pairs with four of a tile as two of them (counted 四归一 too)
    knitted = {"knitted_straight", "lesser_honors_and_knitted_tiles",
               "greater_honors_and_knitted_tiles"}
    four_as_two_pairs = "seven_pairs" in got and 4 in counts
    assert agari or knitted & set(got) or four_as_two_pairs, (tiles, got)


# -- properties of every outcome -----------------------------------------------------------------

HANDS = ["123m456m789m123p55p+5p", "[555z]123m456m789m1z+1z", "1133m5577p22s44z6z+6z",
         "[234m][567p][678s]34m11z+5m", "19m19p19s1234567z+1z", "111m222p333s444z5z+5z"]


@st.composite
def mcr_records(draw: st.DrawFn) -> dict[str, Any]:
    dealer = draw(st.integers(0, 3))
    events: list[dict[str, Any]] = [{"type": "false_win", "seat": draw(st.integers(0, 3))}
                                    for _ in range(draw(st.integers(0, 2)))]
    seat = draw(st.integers(0, 3))
    kind = draw(st.sampled_from(["tiles", "points", "elements", "exhausted"]))
    if kind == "exhausted":
        events.append({"type": "exhausted"})
    else:
        winner: dict[str, Any] = {"seat": seat, "flowers": draw(st.integers(0, 8))}
        if kind == "tiles":
            winner["tiles"] = draw(st.sampled_from(HANDS))
        elif kind == "points":
            winner["points"] = winner["flowers"] + draw(st.integers(8, 400))
        else:
            winner["elements"] = draw(st.lists(st.sampled_from(
                ["full_flush", "pure_straight", "all_types", "seven_pairs", "mixed_straight"]),
                min_size=1, max_size=3, unique=True))
        by = draw(st.sampled_from(["self_draw", "discard"]))
        ev: dict[str, Any] = {"type": "win", "by": by, "winners": [winner]}
        if by == "discard":
            ev["from"] = draw(st.sampled_from([s for s in range(4) if s != seat]))
        events.append(ev)
    return rec(events, dealer=dealer, round_wind=draw(st.integers(0, 3)),
               rules={"false_win_penalty": draw(st.integers(0, 30)), "minimum": 0})


@given(mcr_records())
def test_property_zero_sum_and_lines_add_up(record: dict) -> None:
    out = score(record).to_dict()
    assert_invariants(out)


@given(mcr_records())
def test_property_deterministic(record: dict) -> None:
    again = json.loads(json.dumps(record))
    assert score(record).to_dict() == score(again).to_dict()


@given(mcr_records())
def test_property_the_deal_passes_every_hand(record: dict) -> None:
    out = score(record)
    dealer, wind = record["dealer"], record["round_wind"]
    assert out.next_dealer == (dealer + 1) % 4
    assert out.next_round_wind == ((wind + 1) % 4 if dealer == 3 else wind)


@given(mcr_records())
def test_property_the_winner_collects_8_plus_points_from_each_payer_at_least(record: dict) -> None:
    for line in score(record).lines:
        if line.what == "win":
            assert [s for s, d in enumerate(line.deltas) if d > 0] == [line.seat]
            assert line.deltas[line.seat] == 3 * 8 + line.value * (
                3 if record["events"][-1]["by"] == "self_draw" else 1)
