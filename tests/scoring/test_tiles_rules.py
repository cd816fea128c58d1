"""Tile-level tests: every hand shape the rules files name, read from tiles and valued.

`value` is what the winner collects from the win alone (docs/tiles.md), so each expected figure is
the rules file's payment for that win. Where a rules-revision-2 field is not in the scoring code
of this branch yet, the test is xfail(strict) naming the field, and flips when it lands.
"""

from __future__ import annotations

from typing import Any

import pytest

from scoring import ScoringError, score
from scoring.tiles import analyze, waits


def best(variant: str, tiles: str, **extra: Any) -> dict[str, Any]:
    return analyze({"variant": variant, "tiles": tiles, **extra})


def refused(variant: str, tiles: str, **extra: Any) -> ScoringError:
    with pytest.raises(ScoringError) as exc:
        analyze({"variant": variant, "tiles": tiles, **extra})
    assert exc.value.field == "tiles" or exc.value.field.startswith(("indicator", "rules"))
    return exc.value


def _has_rule(variant: str, rule: str) -> bool:
    from scoring import get_variant

    return rule in get_variant(variant).Rules.model_fields


# -- Luzhou ---------------------------------------------------------------------------------------

def test_luzhou_example_1_one_quad_self_draw_is_5_from_each() -> None:
    out = best("luzhou", "234m567m789p99p[(1111m)]+9p")
    assert out["winner"] == {"seat": 0, "quads": 1, "no_ghost": True}
    # 闺 5 + 无鬼 two steps → 20; with a 红中 in the pair it is the rules' plain 闺自摸 5
    ghost = best("luzhou", "234m567m789p9p中[(1111m)]+9p")
    assert ghost["winner"] == {"seat": 0, "quads": 1}
    assert ghost["value"] == 3 * 5


def test_luzhou_example_1_all_pungs_off_a_discard_pays_5() -> None:
    out = best("luzhou", "111m222m333p44p5p中+5p", by="discard")
    assert out["winner"]["form"] == "all_pungs"
    assert out["value"] == 5  # 大对子 10, halved off a discard


def test_luzhou_example_1_pure_self_draw_is_10() -> None:
    out = best("luzhou", "123m456m789m234m5m中+5m")
    assert out["winner"] == {"seat": 0, "pure": True}
    assert out["value"] == 3 * 10


def test_luzhou_example_2_pure_all_pungs_with_five_ghosts_is_at_the_cap() -> None:
    out = best("luzhou", "111m222m33m5m中中中中中+5m", rules={"ghosts": 8})
    assert out["winner"]["form"] == "all_pungs" and out["winner"]["pure"]
    assert out["value"] == 3 * 40  # 清对 k = 4: 40, the cap


def test_luzhou_seven_pairs_with_a_dragon_and_ghosts() -> None:
    out = best("luzhou", "1111m2233m4455p中+中")
    # the two 红中 pair up with 22m (or 33m …) into a second 闺
    assert out["winner"] == {"seat": 0, "form": "seven_pairs", "quads": 2}
    assert out["value"] == 3 * 40  # 双龙七对: named 1 + 1 + 2 闺 → 40
    one = best("luzhou", "1111m2233m4455p66p+6p")
    assert one["winner"] == {"seat": 0, "form": "seven_pairs", "quads": 1, "no_ghost": True}


def test_luzhou_single_tile_after_four_melds() -> None:
    out = best("luzhou", "5p[111m][222m][333p][4444p]+5p", by="discard")
    assert out["winner"] == {"seat": 0, "form": "all_pungs", "quads": 1, "no_ghost": True,
                             "single_tile": True}


def test_luzhou_a_ghost_in_a_meld_is_no_no_ghost() -> None:
    out = best("luzhou", "123m456m789m5p[11p中]+5p")
    assert out["winner"] == {"seat": 0}
    assert out["readings"][0]["sets"][-1] == {"kind": "pung", "tiles": "111p", "jokers": 1,
                                               "meld": "exposed"}
    assert best("luzhou", "123m456m789m5p[111p]+5p")["winner"] == {"seat": 0, "no_ghost": True}


def test_luzhou_example_3_ready_check_from_tiles() -> None:
    pungs = waits({"variant": "luzhou", "tiles": "111m222m333p44p55p"})
    plain = waits({"variant": "luzhou", "tiles": "123m456m789p123p4p"})
    stuck = waits({"variant": "luzhou", "tiles": "1379m1468p2469p5p"})
    assert pungs["ready_entry"]["form"] == "all_pungs" and plain["ready"]
    assert {w["tile"] for w in plain["waits"]} == {"1p", "4p"}
    assert stuck == {"waits": [], "ready": False, "best": None, "flower_cat": False,
                     "ready_entry": None}
    # the rules' example 3 takes the ready entries as they are (no ghosts: 无鬼 counts too)
    ready = {"1": {"form": "all_pungs"}, "2": {}, "3": None}
    out = score({"variant": "luzhou", "events": [
        {"type": "win", "by": "self_draw", "winners": [{"seat": 0}]},
        {"type": "exhausted", "ready": ready}]})
    assert list(out.deltas) == [6, 8, 0, -14]  # the win 2 from each; 10 and 2 from seat 3
    entry = pungs["ready_entry"]
    assert {k: v for k, v in entry.items() if k != "no_ghost"} == ready["1"]


def test_luzhou_errors_are_precise() -> None:
    assert "缺一门" in str(refused("luzhou", "123m456p789s11m22m+2m"))
    assert "5 红中" in str(refused("luzhou", "123m456m78m中中中中中+9m"))
    assert "does not use 1z" in str(refused("luzhou", "123m456m789m东东东5m+5m"))
    assert "only four" in str(refused("luzhou", "11111m456m789m55p+5p"))
    assert "14" in str(refused("luzhou", "123m456m789m55p+5p"))
    assert "not a complete hand" in str(refused("luzhou", "123m456m789m1357p+5p"))
    assert "平胡" in str(refused("luzhou", "123m456m789m234p中+5p", by="discard"))


@pytest.mark.xfail(not _has_rule("luzhou", "flower_cat"), strict=True,
                   reason="rules revision 2: Luzhou ready map value \"flower_cat\" / rule flower_cat")
def test_luzhou_flower_cat_goes_into_the_ready_map() -> None:
    cat = waits({"variant": "luzhou", "tiles": "123m456p789s1122m"})
    assert cat["flower_cat"] and not cat["ready"] and cat["ready_entry"] == "flower_cat"
    out = score({"variant": "luzhou", "events": [
        {"type": "win", "by": "self_draw", "winners": [{"seat": 0}]},
        {"type": "exhausted", "ready": {"1": {"form": "all_pungs"}, "2": cat["ready_entry"],
                                        "3": None}}]})
    # flower_cat: not_ready — the 花猫 pays the ready seat like the seat that is not ready
    assert list(out.deltas) == [6, 18, -12, -12]


# -- Guiyang --------------------------------------------------------------------------------------

def test_guiyang_example_1_plain_self_draw_with_a_concealed_kong() -> None:
    out = best("guiyang", "234m567p99p234s[(1111s)]+9p")
    assert out["winner"] == {"seat": 0}
    assert out["value"] == 3


def test_guiyang_example_2_all_pungs_off_a_discard() -> None:
    out = best("guiyang", "111m333m555s7s[2222p]+7s", by="discard")
    assert out["winner"] == {"seat": 0, "form": "all_pungs"}
    assert out["value"] == 5


@pytest.mark.parametrize(("tiles", "winner", "value"), [
    ("11223344556677m", {"form": "seven_pairs", "pure": True}, 20),  # 清七对
    ("11112233445566m", {"form": "seven_pairs", "pure": True, "quads": 1}, 30),  # 青龙背
    ("11112233445566p".replace("66p", "6p6s"), None, None),  # not a hand
    ("1111223344m5566p", {"form": "seven_pairs", "quads": 1}, 20),  # 龙七对
    ("1122m3344p5566s77s", {"form": "seven_pairs"}, 10),  # 七对
    ("111222333m44455m", {"form": "all_pungs", "pure": True}, 15),  # 清大对
    ("123456789m23455m", {"pure": True}, 10),  # 清一色
])
def test_guiyang_named_shapes(tiles: str, winner: dict | None, value: int | None) -> None:
    if winner is None:
        refused("guiyang", tiles)
        return
    out = best("guiyang", tiles)
    assert out["winner"] == {"seat": 0, **winner}
    assert out["value"] == 3 * value


def test_guiyang_example_3_ready_for_all_pungs_and_plain() -> None:
    pungs = waits({"variant": "guiyang", "tiles": "111m222m333p44p55p"})
    plain = waits({"variant": "guiyang", "tiles": "123m456m789p123p4p"})
    ready = {"0": None, "1": pungs["ready_entry"], "2": plain["ready_entry"], "3": None}
    assert ready["1"] == {"form": "all_pungs"} and ready["2"] == {}
    out = score({"variant": "guiyang", "events": [{"type": "exhausted", "ready": ready}]})
    assert list(out.deltas) == [-6, 10, 2, -6]


def test_guiyang_plain_needs_a_kong_to_win_off_a_discard() -> None:
    assert "平胡" in str(refused("guiyang", "234m567p99p123s111s+9p", by="discard"))
    assert best("guiyang", "234m567p99p234s[(1111s)]+9p", by="discard")["value"] == 1
    assert "no chow" in str(refused("guiyang", "234m567p99p111s[123s]+9p"))


# -- Cixi (龙 = the tile after the indicator) ---------------------------------------------------

def cixi(tiles: str, indicator: str = "8s", **extra: Any) -> dict[str, Any]:
    return best("cixi", tiles, indicator=indicator, **extra)  # 龙 is 9s


def test_cixi_example_1_two_jokers_off_a_discard() -> None:
    out = cixi("123m456p78s11m99p9s9s+1m", by="discard")
    assert out["winner"]["jokers"] == 2
    assert out["value"] == 16 + 8 + 8


def test_cixi_example_2_all_pungs_with_one_joker() -> None:
    out = cixi("111m222p333s44m9s55p+5p")
    assert out["winner"] == {"seat": 0, "jokers": 1, "all_pungs": True}
    assert out["value"] == 3 * 16


@pytest.mark.parametrize(("tiles", "features", "each"), [
    ("123m456p789m23p4m9s+1p", {"jokers": 1}, 14),  # 一龙推胡
    ("123m456p678s234m55p+5p", {}, 16),  # 无龙会
    ("123m456p789s234m55p+5p", {"jokers": 1}, 14),  # the 9s is a 龙 as itself: 一龙推胡, not 无龙会
    ("123m456m789m11m23m9s+1m", {"jokers": 1, "pure": True, "joker_single": True}, 34),
    ("123m456m789m11m9s东东+东", {"jokers": 1, "half_flush": True}, 16),  # 混一色
    ("123m456p789m11p9s+5p", None, None),  # 13 tiles: refused
])
def test_cixi_named_values(tiles: str, features: dict | None, each: int | None) -> None:
    if features is None:
        refused("cixi", tiles, indicator="8s")
        return
    out = cixi(tiles)
    assert out["winner"] == {"seat": 0, **features}
    assert out["value"] == 3 * each


def test_cixi_single_wait_after_four_melds_with_one_joker() -> None:
    out = cixi("5p[129s][456m][789p][111s]+5p", by="discard")  # [1m2m9s] is 123m with a 龙
    assert out["winner"] == {"seat": 0, "jokers": 1, "single_wait": True}
    assert out["value"] == 3 * 24  # 独吊 with one 龙 24, 统付 even off a discard


def test_cixi_joker_single_is_a_lone_joker_self_drawn() -> None:
    out = cixi("123m456m789p111s9s+5p")
    assert out["winner"] == {"seat": 0, "jokers": 1, "joker_single": True}
    assert out["value"] == 3 * 24  # 抛花 with one 龙
    plain = cixi("123m456m789p111s9s+5p", by="discard")
    assert "joker_single" not in plain["winner"]


def test_cixi_chaos_and_all_honours() -> None:
    out = cixi("147m258p36s东南西北白9s+9s")
    # the 龙 standing as itself (9s after 36s) is still a 龙 held: one 龙 + 大乱, never 无龙会
    assert out["winner"] == {"seat": 0, "jokers": 1, "chaos": True}
    assert out["value"] == 3 * (12 + 2 * 2)
    lone = cixi("147m258p3s东南西北白9s9s+9s")  # the two 龙 stand for 发 and 中: 七风
    assert lone["winner"] == {"seat": 0, "jokers": 2, "chaos": True, "seven_winds": True}
    assert lone["value"] == 3 * (12 + 2 * 8)
    assert cixi("东东东南南南西西西北北白白白")["winner"] == {"seat": 0, "all_honors": True}
    assert cixi("东东东南南南西西西北北白白白")["value"] == 300  # 全交: everything the others hold


def test_cixi_a_joker_standing_for_itself_is_never_no_joker() -> None:
    # docs/tiles.md: what a 龙 stands for changes the shape, never how many are held. The 9s (the 龙
    # after 8s) stands for itself in this 七风: 有龙七风 (1 龙 + 大乱 1 + 七风 5 → 26 each), not
    # 无龙七风 (28 each, 统付)
    out = cixi("东南西北白发147m258p9s+中")
    assert out["winner"] == {"seat": 0, "jokers": 1, "chaos": True, "seven_winds": True}
    assert out["value"] == 3 * (12 + 2 * 7)
    assert all(r["winner"]["jokers"] == 1 for r in out["readings"])


def test_luzhou_a_ghost_standing_for_itself_is_no_no_ghost() -> None:
    out = best("luzhou", "123m456m789m中中中5p+5p")  # 红中 as 红中: a pung of them
    assert "no_ghost" not in out["winner"]
    plain = best("luzhou", "123m456m789m111p5p+5p")
    assert plain["winner"]["no_ghost"] is True


def test_cixi_seven_pairs_without_jokers_pays_each_in_full() -> None:
    out = cixi("1133m5577p1122s东东+东", by="discard")
    assert out["winner"] == {"seat": 0, "seven_pairs": True}
    assert out["value"] == 3 * 26  # 无龙会 2 + 无龙清七对 5 → 26, 统付


def _seven_winds_is_a_form() -> bool:
    from scoring.variants import cixi as module

    return "seven_winds" in module.FORMS


@pytest.mark.xfail(_seven_winds_is_a_form(), strict=True,
                   reason="rules revision 2: Cixi seven_winds is a chaos (大乱) holding all seven "
                   "honours; setting both counts 大乱 once")
def test_cixi_seven_winds_is_a_chaos_with_all_seven_honours() -> None:
    out = cixi("147m258p3s东南西北白发中+中")
    assert out["winner"] == {"seat": 0, "chaos": True, "seven_winds": True}
    assert out["value"] == 3 * 28  # 无龙七风 2 + 1 + 5 = 8 → 28, 统付


# -- Feibao (精 = the indicator and the next tile) ------------------------------------------------

def feibao(tiles: str, indicator: str = "9p", **extra: Any) -> dict[str, Any]:
    return best("feibao", tiles, indicator=indicator, **extra)  # 精 are 9p and 1p


def test_feibao_example_1_plain_on_a_single_wait() -> None:
    out = feibao("123m456p789s东东46m+5m")
    assert out["winner"] == {"seat": 0, "single_wait": True}
    assert out["value"] == 3 * 4  # 2 · 2^1; the 飞宝 番 is the player's to add


def test_feibao_example_3_robbing_a_kong_pays_six_times() -> None:
    out = feibao("123m456p789s东东45m+6m", by="robbed_kong")
    assert out["winner"] == {"seat": 0}
    assert out["value"] == 12


@pytest.mark.parametrize(("tiles", "features", "each"), [
    ("123m456p789s234s9p+5m", {"jing": True, "diaotou": True}, 3),  # 有宝掉头 3
    ("1133m5577s99s东东9p+南", {"form": "seven_pairs", "jing": True, "diaotou": True}, 8),
    ("1133m5577s99s东东南南", {"form": "seven_pairs"}, 10),  # 七对 without 精
    ("1111m5577s99s东东南南", {"form": "seven_pairs", "luxury": 1}, 20),  # 豪华
    ("111m222s333s东东东9p+南", {"form": "all_pungs", "jing": True, "diaotou": True}, 8),
    ("11m999s东南西北白发中19s", {"form": "orphans", "seven_honors": True}, 8),  # 九幺 七字全
    ("147m258p369s东南西北白", {"form": "thirteen_waves"}, 4),  # 十三浪 without 精
    ("147m25p36s东南西北白发中", {"form": "thirteen_waves", "seven_honors": True}, 8),
    ("147m25p36s东南西北白发9p", {"form": "thirteen_waves", "jing": True,
                                   "seven_honors": True}, 4),
    ("123456789m11m东南西", {}, 2),  # a chow of three different winds
    ("123456789m11123m", {"pure": True}, 8),  # 清一色 +2番
])
def test_feibao_named_values(tiles: str, features: dict, each: int) -> None:
    out = feibao(tiles)
    assert out["winner"] == {"seat": 0, **features}
    assert out["value"] == 3 * each


def test_feibao_forbids_discard_wins_unless_the_rule_allows_them() -> None:
    assert "discard_wins" in str(refused("feibao", "123m456s789s东东45m+6m", indicator="9p",
                                         by="discard"))
    out = feibao("123m456s789s东东45m+6m", by="discard", rules={"discard_wins": True})
    assert out["value"] == 2


def test_feibao_and_cixi_need_the_indicator() -> None:
    assert refused("feibao", "123m456s789s东东45m+6m").field == "indicator"
    assert refused("luzhou", "123m456m789m55p+5p", indicator="1m").field == "indicator"


# -- Hainan ---------------------------------------------------------------------------------------

def test_hainan_example_1_all_pungs_self_draw() -> None:
    out = best("hainan", "111m222p333s44m[555p]+4m", seat=1)
    assert out["winner"] == {"seat": 1, "all_pungs": True}
    assert out["value"] == 3 * 4


def test_hainan_example_2_all_chows_off_a_discard() -> None:
    out = best("hainan", "123m456m789p5s[678s]+5s", seat=2, by="discard")
    assert out["winner"] == {"seat": 2, "all_chows": True, "eyes_258": True}
    assert out["value"] == 1 + 1 + 2


def test_hainan_example_3_concealed_kong_and_258_eyes() -> None:
    out = best("hainan", "234p567s789s2m[(1111m)]+2m", seat=2, by="discard")
    assert out["winner"] == {"seat": 2, "eyes_258": True}
    assert out["value"] == 4  # 1 + 1 + 2; 包牌 (liable) is the player's to add


@pytest.mark.parametrize(("tiles", "features", "points"), [
    ("19m19p19s东南西北白发中中", {"thirteen_orphans": True, "concealed": True}, 13),
    ("1133m5577p99s东东南南", {"seven_pairs": True, "concealed": True}, 2),
    ("1111m5577p99s东东南南", {"seven_pairs": True, "concealed": True, "luxury": True}, 3),
    ("11335577m99m东东南南", {"seven_pairs": True, "concealed": True, "half_flush": True}, 2),
    ("123m456m789m11m[中中中]", {"half_flush": True, "dragon_pungs": 1}, 1),
    ("123m456p789s11p[东东东]", {"seat_wind": True, "round_wind": True}, 1),
])
def test_hainan_fan_sources(tiles: str, features: dict, points: int) -> None:
    out = best("hainan", tiles)
    assert out["winner"] == {"seat": 0, **features}
    assert out["value"] == 3 * 2 * points  # self-drawn: ×2 from each


def test_hainan_seat_flowers_and_winds_follow_the_seat() -> None:
    # seat 1 with dealer 0 is South: 夏 and 兰 are its own, 南 its wind; the round is East
    out = best("hainan", "123m456p789s11p[南南南]夏兰春", seat=1)
    assert out["winner"] == {"seat": 1, "seat_flower": 2, "seat_wind": True}


def test_hainan_no_fan_cannot_win_off_a_discard() -> None:
    err = refused("hainan", "123m456p789s11p[北北北]", seat=2, by="discard")
    assert err.template.startswith("no 番 in these tiles")
    assert "plays without flowers" in str(refused("luzhou", "123m456m789m55p春+5p"))


@pytest.mark.xfail(not _has_rule("hainan", "self_draw_needs_fan"), strict=True,
                   reason="rules revision 2: Hainan self_draw_needs_fan (a self-draw needs no 番)")
def test_hainan_self_draw_needs_no_fan() -> None:
    out = best("hainan", "123m456p789s11p[北北北]", seat=2)
    assert out["value"] == 3 * 2
    assert "no 番" in str(refused("hainan", "123m456p789s11p[北北北]", seat=2,
                                  rules={"self_draw_needs_fan": True}))


@pytest.mark.xfail(not _has_rule("hainan", "concealed_kong_keeps_menqing"), strict=True,
                   reason="rules revision 2: Hainan concealed_kong_keeps_menqing")
def test_hainan_concealed_kong_keeps_menqing_by_rule() -> None:
    out = best("hainan", "234p567s789s2m[(1111m)]+2m", by="discard",
               rules={"concealed_kong_keeps_menqing": True})
    assert out["winner"] == {"seat": 0, "concealed": True, "eyes_258": True}


@pytest.mark.parametrize("tiles", [
    "3m1m2m4m2m5m3m3m3m4m[9m9m9m]",  # 3m would complete it too, but all four are in the hand
    "1m2m3m4m4m6m7m7m8m9m[8m8m8m]",  # 8m too, but the fourth is the hand's, three are melded
])
def test_feibao_single_wait_counts_only_tiles_still_to_be_had(tiles: str) -> None:
    # 单张和: only one tile could complete the hand; a fifth copy is no tile
    data = {"variant": "feibao", "tiles": tiles, "indicator": "5s", "seat": 1, "dealer": 0}
    got = waits(data)
    assert len(got["waits"]) == 1
    tile = got["waits"][0]["tile"]
    assert got["waits"][0]["winner"].get("single_wait") is True
    assert analyze({**data, "tiles": f"{tiles}+{tile}"})["winner"].get("single_wait") is True
