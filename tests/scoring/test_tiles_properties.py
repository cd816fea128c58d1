"""Properties of the tile engine against a brute-force reference and the `mahjong` library.

- analysis accepts exactly the hands the brute-force enumerator accepts;
- the chosen reading's value is the maximum over every reading the enumerator finds;
- waits are exactly the tiles t for which hand + t is accepted;
- on joker-free hands the agari check agrees with `mahjong`'s `Agari.is_agari`.
"""

from __future__ import annotations

import dataclasses
import json
import random
import typing
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from pydantic import ValidationError

from scoring import ScoringError
from scoring.tiles import analyze, waits
from scoring.tiles.analysis import _candidates, _kongs, _value, paying_seat, prepare, score_readings
from scoring.tiles.engine import is_complete
from scoring.tiles.notation import group_text, next_tile, tile_name
from scoring.tiles.reading import Holding, Shapes
from scoring.tiles.request import read_request, split_win
from scoring.tiles.tables import ORPHANS, is_agari, need
from scoring.variant import all_variants, get_variant
from tests.styles import tile_styles, tileset

from .tiles_reference import brute_best, jokers_held

VARIANTS = tile_styles()  # every style the shared engine reads, from the registry
PROPERTY = settings(max_examples=60, deadline=None,
                    suppress_health_check=[HealthCheck.too_slow])
BRUTE = settings(PROPERTY, max_examples=30)  # the reference tries every joker as every tile


def _sets(rng: random.Random, tiles: list[int], chows: bool) -> list[list[int]]:
    out = []
    for _ in range(4):
        x = rng.choice(tiles)
        if chows and x < 27 and x % 9 <= 6 and rng.random() < 0.6:
            out.append([x, x + 1, x + 2])
        else:
            out.append([x, x, x])
    return out


TILE_IDS = {tile_name(x): x for x in range(34)}


def steps(tile: int, n: int) -> int:
    """The tile n steps after another in indicator order (a turned tile's jokers)."""
    for _ in range(n):
        tile = next_tile(tile)
    return tile


def random_hand(rng: random.Random, variant: str, max_jokers: int = 2,
                complete: bool = True, jokers: int | None = None) -> dict[str, Any]:
    """A request: most often a winning hand, with melds, jokers and shapes of the variant;
    `jokers`: exactly that many joker tiles in the concealed hand (as far as it holds them)."""
    ts = tileset(variant)
    suits = rng.sample([0, 1, 2], 2) if ts.missing_suit is not None else [0, 1, 2]  # 缺一门
    tiles = [9 * k + r for k in suits for r in range(9)]
    if ts.honours:
        tiles += list(range(27, 34))
    if rng.random() < 0.3:  # a one-suit hand now and then (清一色)
        tiles = [x for x in tiles if x // 9 == tiles[0] // 9]
    shape = rng.random()
    melds: list[str] = []
    if shape < 0.15:  # seven pairs
        concealed = [x for x in rng.choices(tiles, k=7) for _ in range(2)]
    elif shape < 0.22 and ts.shapes.waves:  # nothing connects
        pool = [9 * k + r for k in (0, 1, 2) for r in rng.choice([(0, 3, 6), (1, 4, 7), (2, 5, 8)])]
        concealed = rng.sample(pool + list(range(27, 34)), 14)
    else:
        groups = _sets(rng, tiles, True)
        concealed = [rng.choice(tiles)] * 2
        for g in groups:
            if rng.random() < 0.25 and (g[0] == g[1] or ts.chows):
                if g[0] == g[1] and rng.random() < 0.3:
                    melds.append("[(" + "".join(tile_name(x) for x in [*g, g[0]]) + ")]")
                else:
                    melds.append("[" + "".join(tile_name(x) for x in g) + "]")
            else:
                concealed += g
    if not complete or rng.random() < 0.2:  # break it
        concealed[rng.randrange(len(concealed))] = rng.choice(tiles)
    rng.shuffle(concealed)
    extra: dict[str, Any] = {}
    joker_tiles: list[int] = []
    if ts.fixed:
        joker_tiles = [TILE_IDS[x] for x in ts.fixed]
    elif ts.indicator:
        assert ts.jokers is not None
        indicator = rng.randrange(34)
        extra["indicator"] = tile_name(indicator)
        joker_tiles = [steps(indicator, n) for n in ts.jokers.turned]
    if jokers is None and joker_tiles:
        jokers = rng.randint(0, min(max_jokers, len(concealed)))
    for i in rng.sample(range(len(concealed)), min(jokers or 0, len(concealed)) if joker_tiles else 0):
        concealed[i] = rng.choice(joker_tiles)
    win = concealed.pop()
    text = "".join(tile_name(x) for x in concealed) + "".join(melds)
    if rng.random() < 0.8:
        text += "+" + tile_name(win)
    else:
        text += tile_name(win)
    by = rng.choice(["self_draw", "self_draw", "discard", "robbed_kong"])
    return {"variant": variant, "tiles": text, "by": by, "seat": rng.randrange(4),
            "dealer": rng.randrange(4), "round_wind": rng.randrange(4), **extra}


def outcome(data: dict[str, Any]) -> int | None:
    try:
        return analyze(data)["value"]
    except ScoringError:
        return None


def usable(data: dict[str, Any]) -> bool:
    """The request passes the checks before analysis (counts, tile set)."""
    try:
        t = read_request(data)
        split_win(t, 14)
    except ScoringError:
        return False
    return True


@pytest.mark.parametrize("variant", VARIANTS)
@BRUTE
@given(seed=st.integers(0, 2 ** 32))
def test_analysis_agrees_with_brute_force(variant: str, seed: int) -> None:
    data = random_hand(random.Random(seed), variant)
    # the random hand may hold joker tiles of its own; the reference tries 34^jokers hands
    if not usable(data) or jokers_held(data) > 3:
        return
    got = outcome(data)
    assert got == brute_best(data), data


@pytest.mark.parametrize("variant", VARIANTS)
@PROPERTY
@given(seed=st.integers(0, 2 ** 32))
def test_best_reading_is_the_maximum_and_scores_as_stated(variant: str, seed: int) -> None:
    data = random_hand(random.Random(seed), variant, max_jokers=3)
    if not usable(data):
        return
    try:
        out = analyze(data)
    except ScoringError:
        return
    values = [r["value"] for r in out["readings"]]
    assert out["value"] == max(values) == values[0]
    assert values == sorted(values, reverse=True)
    assert out["winner"] == out["readings"][0]["winner"]


@pytest.mark.parametrize("variant", VARIANTS)
@PROPERTY
@given(seed=st.integers(0, 2 ** 32))
def test_the_tiles_decide_only_the_declared_fields(variant: str, seed: int) -> None:
    """Every feature a reading of the tiles gives (false ones too) is in the variant's
    `tile_fields`: the page offers the others beside tiles, and a field the tiles decide must
    not be among them."""
    data = random_hand(random.Random(seed), variant, max_jokers=3)
    if not usable(data):
        return
    table = read_request(data)
    hand, win = split_win(table, 14)
    prep = prepare(table, hand, win, table.req.by)
    _, found, _ = score_readings(table, hand, win, table.req.by, prep)
    declared = set(get_variant(variant).tile_fields)
    for r in found:
        assert set(table.variant.tile_features(r, prep.ctx)) <= declared, (data, r.shape)


def test_the_fields_beside_tiles_are_the_winners_other_fields() -> None:
    for name, v in all_variants().items():
        if v.tiles is None:
            continue
        fields = set(v.Winner.model_fields) - {"seat"}
        assert v.tile_fields and set(v.tile_fields) <= fields, name
        assert set(v.story_fields()) == fields - set(v.tile_fields), name
    assert get_variant("mcr").story_fields() == ("flowers", "fourth_tile", "last_of_wall")
    assert get_variant("luzhou").story_fields() == ("declared", "heavenly", "earthly")

def analyzed(rng: random.Random, variant: str) -> tuple[dict[str, Any], Any, Any] | None:
    """A random winning hand (up to three jokers), its analysis and its table; None when the
    hand is refused."""
    data = random_hand(rng, variant, max_jokers=3)
    if not usable(data):
        return None
    try:
        out = analyze(data)
    except ScoringError:
        return None
    return data, out, read_request(data)


@pytest.mark.parametrize("variant", VARIANTS)
@PROPERTY
@given(seed=st.integers(0, 2 ** 32))
def test_a_win_pays_the_same_wherever_the_table_sits(variant: str, seed: int) -> None:
    """The values are memoised for the seat counted from the dealer in an east round: turning
    the whole table (winner and dealer one seat on) or the round's wind must not change what
    any reading collects."""
    found = analyzed(random.Random(seed), variant)
    if found is None:
        return
    data, out, t = found
    rules = json.dumps(t.rules.model_dump(), sort_keys=True)
    for reading in out["readings"]:
        for turn in (1, 2, 3):
            seat, dealer = (t.req.seat + turn) % 4, (t.req.dealer + turn) % 4
            winner = json.dumps({**reading["winner"], "seat": seat}, sort_keys=True)
            got = _value(variant, rules, t.req.by, seat, dealer, (t.req.round_wind + turn) % 4,
                         _kongs(t), winner)
            assert got == reading["value"], (data, reading, turn)


def random_rules(rng: random.Random, variant: str) -> Any:
    """A variant's house rules, each field drawn from its choices (numbers near the default)."""
    model = get_variant(variant).Rules
    data: dict[str, Any] = {}
    for name, info in model.model_fields.items():
        kind = info.annotation
        if typing.get_origin(kind) is typing.Literal:
            data[name] = rng.choice(typing.get_args(kind))
        elif kind is bool:
            data[name] = rng.random() < 0.5
        elif kind is int:
            data[name] = rng.choice([info.default, info.default + 1, 1, 2, 3])
    try:
        return model.model_validate(data)
    except ValidationError:  # a combination the variant refuses: its defaults
        return model()


@pytest.mark.parametrize("variant", VARIANTS)
@PROPERTY
@given(seed=st.integers(0, 2 ** 32), by=st.sampled_from(["self_draw", "discard",
                                                         "robbed_kong"]))
def test_the_seats_paid_alike_are_valued_once(variant: str, seed: int, by: str) -> None:
    """Values are kept for the dealer and for one other seat (`paying_seat`): under random
    house rules and kongs, every seat's win pays what its kind's does (or is refused alike),
    also when the dealer discarded it."""
    if get_variant(variant).values_by_seat:
        pytest.skip("its winners are valued at their own seat")
    rng = random.Random(seed)
    found = analyzed(rng, variant)
    if found is None:
        return
    _, out, t = found
    rules = json.dumps(random_rules(rng, variant).model_dump(), sort_keys=True)

    def value(seat: int, winner: dict[str, Any]) -> Any:
        got = _value(variant, rules, by, seat, 0, 0, _kongs(t),
                     json.dumps({**winner, "seat": seat}, sort_keys=True))
        return (got.template, got.params) if isinstance(got, ScoringError) else got

    for reading in out["readings"][:4]:
        for seat in range(4):
            assert value(seat, reading["winner"]) == value(paying_seat(seat),
                                                           reading["winner"]), (rules, seat)


@pytest.mark.parametrize("variant", VARIANTS)
@PROPERTY
@given(seed=st.integers(0, 2 ** 32))
def test_waits_are_the_tiles_that_complete_the_hand(variant: str, seed: int) -> None:
    rng = random.Random(seed)
    data = random_hand(rng, variant, max_jokers=4 if tileset(variant).fixed else 2)
    data["tiles"] = data["tiles"].split("+")[0]
    data["by"] = "self_draw"
    try:
        t = read_request(data)
        t = read_request({**data, "tiles": data["tiles"][:-2]}) if len(t.hand) + 3 * len(
            t.melds) == 14 else t
        hand, _ = split_win(t, 13)
    except ScoringError:
        return
    text = data["tiles"] if t.req.tiles == data["tiles"] else data["tiles"][:-2]
    got = waits({**data, "tiles": text})
    expected = set()
    for x in _candidates(t, hand) if not got.get("flower_cat") else ():
        if outcome({**data, "tiles": text + "+" + tile_name(x)}) is not None:
            expected.add(tile_name(x))
    assert {w["tile"] for w in got["waits"]} == expected, text
    assert got["ready"] == bool(expected)


# house rules that let a hand hold the most jokers, where the defaults hold fewer
MOST_JOKERS = {"luzhou": {"ghosts": 8}}


@pytest.mark.parametrize("variant", [v for v in VARIANTS if tileset(v).jokers is not None])
@settings(PROPERTY, max_examples=25)
@given(seed=st.integers(0, 2 ** 32), jokers=st.integers(3, 6))
def test_merging_readings_that_look_alike_changes_no_answer(variant: str, seed: int,
                                                             jokers: int) -> None:
    """The engine keeps one reading per look the variant's features can tell apart (`keep`);
    keeping every reading instead must give the same analysis and the same waits."""
    data = random_hand(random.Random(seed), variant, jokers=jokers)
    if variant in MOST_JOKERS:
        data["rules"] = MOST_JOKERS[variant]
    wait = {**data, "by": "self_draw", "tiles": data["tiles"].split("+")[0]
            if "+" in data["tiles"] else data["tiles"][:-2]}
    style = type(get_variant(variant))
    tiles = style.tiles
    assert tiles is not None
    every = dataclasses.replace(tiles, shapes=dataclasses.replace(tiles.shapes, keep="all"))
    answers = []
    for kept in (tiles, every):
        with pytest.MonkeyPatch.context() as mp:
            mp.setattr(style, "tiles", kept)
            answers.append([_answer(analyze, data), _answer(waits, wait)])
    assert answers[0] == answers[1], data


def _answer(command: Any, data: dict[str, Any]) -> Any:
    try:
        return command(data)
    except ScoringError as exc:
        return str(exc)


def test_a_wind_chow_below_the_lowest_wind_held_is_a_wait() -> None:
    """Found by the property above (Feibao, seed 3829): 西北 and a 精 make a wind chow with the
    精 standing for 东 or 南, winds below the lowest one held, so 北 is a wait."""
    data = {"variant": "feibao", "tiles": "3m1z1p4m3z5m1p[7z7z7z][9m9m9m]", "by": "self_draw",
            "seat": 0, "dealer": 2, "round_wind": 0, "indicator": "1z"}
    assert {w["tile"] for w in waits(data)["waits"]} == {"1p", "3z", "4z"}


def test_luzhou_eight_ghost_hands_agree_with_brute_force() -> None:
    rng = random.Random(8)
    checked = 0
    for _ in range(25):
        data = random_hand(rng, "luzhou", max_jokers=3)
        data["rules"] = {"ghosts": 8}
        if usable(data) and jokers_held(data) <= 3:
            assert outcome(data) == brute_best(data), data
            checked += 1
    assert checked > 10


# -- joker-free agari against the mahjong library ------------------------------------------------

def agari_sample(n: int, seed: int = 13) -> list[list[int]]:
    """Joker-free 14-tile hands: half built as winning hands, half drawn from a shuffled wall."""
    rng = random.Random(seed)
    hands = []
    wall = [x for x in range(34) for _ in range(4)]
    while len(hands) < n:
        if len(hands) % 2:
            tiles = rng.sample(wall, 14)
        else:
            tiles = [rng.randrange(34)] * 2
            for g in _sets(rng, list(range(34)), True):
                tiles += g
            if rng.random() < 0.3:
                tiles[rng.randrange(14)] = rng.randrange(34)
        counts = [0] * 34
        for x in tiles:
            counts[x] += 1
        if max(counts) <= 4:
            hands.append(counts)
    return hands


def test_agari_agrees_with_the_mahjong_library() -> None:
    agari = pytest.importorskip("mahjong.agari").Agari()
    hands = agari_sample(20_000)
    wins = 0
    for counts in hands:
        expected = agari.is_agari(counts)
        assert is_agari(counts) == expected, counts
        # the joker tables with no joker give the same answer
        seven = counts.count(2) == 7
        thirteen = all(counts[x] for x in ORPHANS) and sum(counts[x] for x in ORPHANS) == 14
        assert (need(counts) == 0 or seven or thirteen) == expected, counts
        wins += expected
    assert wins > 5_000  # the sample holds plenty of winning hands


def test_engine_completeness_agrees_with_the_mahjong_library_on_standard_hands() -> None:
    agari = pytest.importorskip("mahjong.agari").Agari()
    for counts in agari_sample(5_000, seed=5):
        if counts.count(2) == 7 or all(counts[x] for x in ORPHANS):
            continue  # shapes riichi knows beyond four sets and a pair
        h = Holding(tuple(counts), 0)
        assert is_complete(h, Shapes(seven_pairs=False)) == agari.is_agari(counts), group_text(
            [x for x in range(34) for _ in range(counts[x])])
