"""查叫 by tiles (scoring.tiles.ready_entry): a seat's 13 tiles → its entry in an exhausted
event's ready map, checked against a brute force that tries every tile with `analyze` and values
every reading by scoring an exhausted-wall record — no waits engine, no shared value code."""

from __future__ import annotations

import importlib
from typing import Any

import pytest

from scoring import ScoringError, get_variant, score
from scoring.tiles import analyze, ready_entry, ready_value, waits
from tests.styles import tile_styles, tileset

ALL_TILES = [f"{r}{s}" for s in "mps" for r in range(1, 10)] + [f"{r}z" for r in range(1, 8)]


def pays(variant: str, entry: dict[str, Any], rules: dict[str, Any], seat: int = 0) -> int:
    """What a not-ready seat pays `seat` at an exhausted wall for this entry."""
    ready: dict[str, Any] = {str(s): None for s in range(4)}
    ready[str(seat)] = entry
    out = score({"variant": variant, "rules": rules, "events": [
        {"type": "exhausted", "ready": ready}]})
    return -out.deltas[(seat + 1) % 4]


def brute(variant: str, tiles: str, rules: dict[str, Any], jokers: tuple[str, ...] = (),
          seat: int = 0) -> tuple[Any, int | None]:
    """(the best ready entry, its value): every tile drawn, every reading of it cut to the
    ready map's fields (the tiles never show 报听/报牌), the highest 查叫 value kept."""
    module = importlib.import_module(f"scoring.variants.{variant}")
    fields = set(module.ReadyHand.model_fields) - {"declared"}
    best: tuple[int, dict[str, Any]] | None = None
    for tile in ALL_TILES:
        if tile in jokers:
            continue  # a joker completes any ready hand: the waits are the other tiles
        try:
            out = analyze({"variant": variant, "rules": rules, "tiles": f"{tiles}+{tile}",
                           "seat": seat})
        except ScoringError:
            continue
        for r in out["readings"]:
            entry = {k: v for k, v in r["winner"].items() if k in fields}
            value = pays(variant, entry, rules, seat)
            if best is None or value > best[0]:
                best = (value, entry)
    return (best[1], best[0]) if best else (None, None)


@pytest.mark.parametrize(("tiles", "rules"), [
    ("111m222m333p44p55p", {}),  # 大对子 or 平胡 on 4p/5p; 无鬼
    ("123m456m789p123p4p", {}),  # plain, two waits
    ("1111m222m333p44p中", {}),  # a 红中 standing in: 龙七对 or pungs
    ("123m456m78m555p中中", {"ghosts": 8}),  # two ghosts
    ("1112345678999m", {"cap": 0, "ready_pay": "half"}),  # 九莲: every tile, halved, no cap
    ("1122m3344m5566m7m", {}),  # 清七对
    ("[111m][222m][333m][444m]5m", {}),  # one tile left in hand
])
def test_luzhou_ready_entry_is_the_brute_force_best(tiles: str, rules: dict[str, Any]) -> None:
    got = ready_entry({"variant": "luzhou", "tiles": tiles, "rules": rules, "seat": 2})
    entry, value = brute("luzhou", tiles, rules, jokers=("7z",), seat=2)
    assert entry is not None
    assert got["value"] == value
    assert pays("luzhou", got["ready"], rules, seat=2) == value
    assert waits({"variant": "luzhou", "tiles": tiles, "rules": rules,
                  "seat": 2})["ready_entry"] == got["ready"]


@pytest.mark.parametrize("tiles", [
    "1112345678999m",  # 九莲: 清一色 everywhere
    "1122m3344p5566s7s",  # 七对 on 7s
    "1111m2233p4455s6s",  # 龙七对 on 6s
    "111m222m333p44p55p",  # 大对子 beats 平胡
    "123m456m789p123p4p",
])
def test_guiyang_ready_entry_is_the_brute_force_best(tiles: str) -> None:
    got = ready_entry({"variant": "guiyang", "tiles": tiles, "seat": 1})
    entry, value = brute("guiyang", tiles, {}, seat=1)
    assert entry is not None
    assert (got["value"], pays("guiyang", got["ready"], {}, seat=1)) == (value, value)
    assert got["tile"] in got["waits"]


@pytest.mark.parametrize("variant", ["luzhou", "guiyang"])
def test_a_hand_that_waits_on_nothing_is_not_ready(variant: str) -> None:
    tiles = "1379m1468p2469p5p"
    got = ready_entry({"variant": variant, "tiles": tiles})
    assert brute(variant, tiles, {}, jokers=("7z",)) == (None, None)
    assert got == {"ready": None, "value": None, "tile": None, "waits": [], "reading": None}


def test_luzhou_three_suits_is_flower_cat_and_scores_as_one() -> None:
    got = ready_entry({"variant": "luzhou", "tiles": "123m456p789s1122m"})
    assert got["ready"] == "flower_cat"
    ready = ready_entry({"variant": "luzhou", "tiles": "111m222m333p44p55p"})
    out = score({"variant": "luzhou", "events": [{"type": "exhausted", "ready": {
        "0": got["ready"], "1": ready["ready"], "2": None, "3": None}}]})
    assert out.deltas[1] == 3 * ready["value"]  # the 花猫 pays like a seat not ready


def test_luzhou_ghost_hand_values_the_real_tile_over_the_ghost() -> None:
    # a ready hand holding no 红中 stays 无鬼 on a real tile; the ghost is never its best wait
    got = ready_entry({"variant": "luzhou", "tiles": "123m456m789m11p22p"})
    assert got["ready"]["no_ghost"] and "中" not in got["waits"] and "7z" not in got["waits"]
    held = ready_entry({"variant": "luzhou", "tiles": "123m456m789m11p2p中"})
    assert not held["ready"].get("no_ghost") and held["value"] < got["value"]


@pytest.mark.parametrize("variant", [v for v in tile_styles() if not get_variant(v).ready_fields])
def test_variants_without_a_ready_check_refuse(variant: str) -> None:
    extra = {"indicator": "1m"} if tileset(variant).indicator else {}
    with pytest.raises(ScoringError, match="pays nothing for ready hands"):
        ready_entry({"variant": variant, "tiles": "123m456m789m11p22p", **extra})


def test_thirteen_tiles_are_required() -> None:
    with pytest.raises(ScoringError, match="13"):
        ready_entry({"variant": "guiyang", "tiles": "123m456m789m11p2p"})
    with pytest.raises(ScoringError, match="'\\+'"):
        ready_entry({"variant": "guiyang", "tiles": "123m456m789m11p22p+2p"})


@pytest.mark.parametrize("variant", ["luzhou", "guiyang"])
def test_a_ready_hand_pays_the_same_wherever_the_table_sits(variant: str) -> None:
    """ready_value is memoised for the seat counted from the dealer in an east round: every
    entry, turned round the table and through the winds, pays what the variant scores."""
    module = importlib.import_module(f"scoring.variants.{variant}")
    fields = module.ReadyHand.model_fields
    forms = fields["form"].annotation.__args__ if "form" in fields else ("standard",)
    entries = [{"form": form, "pure": pure} for form in forms for pure in (False, True)]
    entries += [{**e, "quads": 1} for e in entries if e["form"] == "seven_pairs"]
    if "no_ghost" in fields:
        entries += [{**e, "no_ghost": True} for e in entries]
    for entry in entries:
        for seat, dealer, wind in ((0, 0, 0), (1, 0, 2), (2, 3, 1), (3, 1, 3), (0, 2, 0)):
            ready: dict[str, Any] = {str(s): None for s in range(4)}
            ready[str(seat)] = entry
            record = {"variant": variant, "dealer": dealer, "round_wind": wind,
                      "events": [{"type": "exhausted", "ready": ready}]}
            expected = -score(record).deltas[(seat + 1) % 4]
            assert ready_value(variant, entry, seat, {}, dealer, wind) == expected, (entry, seat)
