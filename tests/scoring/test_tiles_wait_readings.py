"""Every wait's readings at once (`waits_engine.wait_readings`) against reading each wait on
its own (`engine.readings` on `analysis.with_wait`), on random hands holding jokers: Luzhou with
8 ghosts (1–4 in hand), Cixi and Feibao (1–3), with the variant's `Shapes.keep` and with every
reading kept ("all")."""

from __future__ import annotations

import dataclasses
import random
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from scoring import ScoringError
from scoring.tiles import clear_caches
from scoring.tiles.analysis import _candidates, _holdings, _split_jokers
from scoring.tiles.engine import readings, waiting
from scoring.tiles.features import SHAPES
from scoring.tiles.reading import Reading, Shapes
from scoring.tiles.request import read_request, split_win
from scoring.tiles.waits_engine import wait_readings

from .test_tiles_properties import random_hand
from .tiles_reference import with_wait

CASES = settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow])
MOST = {"luzhou": 4, "cixi": 3, "feibao": 3}


def _waiting_hand(seed: int, variant: str, jokers: int) -> tuple[Any, tuple[int, ...]] | None:
    """A 13-tile hand (the winning tile taken off a random hand), or None when unusable."""
    data = random_hand(random.Random(seed), variant, jokers=jokers)
    if variant == "luzhou":
        data["rules"] = {"ghosts": 8}
    text = data["tiles"]
    data["tiles"] = text.split("+")[0] if "+" in text else text[:-2]
    data["by"] = "self_draw"
    try:
        table = read_request(data)
        hand, _ = split_win(table, 13)
    except ScoringError:
        return None
    return table, hand


def _per_wait(bases: list, shapes: Shapes, tiles: list[int]) -> dict[int, list[Reading]]:
    return {t: sorted(r for h in with_wait(bases, t) for r in readings(h, shapes)) for t in tiles}


def _sorted(got: dict[int, list[Reading]]) -> dict[int, list[Reading]]:
    return {t: sorted(v) for t, v in got.items()}


@pytest.mark.parametrize("keep", ["variant", "all"])
@pytest.mark.parametrize("variant", sorted(MOST))
@CASES
@given(seed=st.integers(0, 2 ** 32), jokers=st.integers(1, 4))
def test_wait_readings_are_each_waits_readings(variant: str, keep: str, seed: int,
                                               jokers: int) -> None:
    made = _waiting_hand(seed, variant, min(jokers, MOST[variant]))
    if made is None:
        return
    table, hand = made
    shapes = SHAPES[variant] if keep == "variant" else dataclasses.replace(SHAPES[variant],
                                                                           keep="all")
    counts, wild = _split_jokers(hand, table.jokers)
    tiles = waiting(counts, wild, table.melds, shapes, _candidates(table, hand))
    bases = _holdings(table, hand, None)
    expected = _per_wait(bases, shapes, tiles)
    clear_caches()  # nothing the per-wait path left behind
    got = wait_readings(bases, shapes, tiles)
    assert list(got) == tiles
    assert _sorted(got) == expected, (table.req.tiles, variant)
    clear_caches()



@pytest.mark.parametrize("variant", sorted(MOST))
def test_wait_readings_on_fixed_hands_most_of_them_ready(variant: str) -> None:
    """The same on 40 fixed hands per variant, most of them ready (the comparison is not
    vacuous), every joker count in turn."""
    ready = 0
    for seed in range(40):
        made = _waiting_hand(seed, variant, 1 + seed % MOST[variant])
        if made is None:
            continue
        table, hand = made
        shapes = SHAPES[variant]
        counts, wild = _split_jokers(hand, table.jokers)
        tiles = waiting(counts, wild, table.melds, shapes, _candidates(table, hand))
        bases = _holdings(table, hand, None)
        got = wait_readings(bases, shapes, tiles)
        assert _sorted(got) == _per_wait(bases, shapes, tiles), (table.req.tiles, variant)
        ready += any(got.values())
    assert ready >= 20
