"""The joker-free shortcuts of the tile engine (issue 13's speed work) against the general
joker-counting solver they stand in for, on every small suit vector; the notation's fast path
against the character-by-character reader."""

from __future__ import annotations

import random
from itertools import product

import pytest

from scoring import ScoringError
from scoring.tiles import analyze, clear_caches, engine
from scoring.tiles.notation import parse_tiles
from scoring.tiles.reading import Group
from scoring.tiles.tables import (
    complete_plain,
    honor_need,
    honors_complete,
    need,
    plus_complete,
    suit_complete,
    suit_need,
)


def _suits(most: int) -> list[bytes]:
    return [bytes(v) for v in product(range(5), repeat=9) if sum(v) <= most]


SMALL_SUITS = _suits(8)


def test_suit_complete_is_a_zero_joker_need() -> None:
    for key in SMALL_SUITS:
        size = sum(key)
        want = size % 3 != 1 and suit_need(key)[size % 3 == 2] == 0
        assert suit_complete(key) == want, key


def test_plus_complete_is_the_need_with_one_more_tile() -> None:
    for key in SMALL_SUITS:
        if max(key) == 4:
            continue
        got = plus_complete(key, False)
        for i in range(9):
            more = bytearray(key)
            more[i] += 1
            size = sum(more)
            done = size % 3 != 1 and suit_need(bytes(more))[size % 3 == 2] == 0
            assert got[i] == ((2 if size % 3 == 2 else 1) if done else 0), (key, i)


@pytest.mark.parametrize("honor_chows", [False, True])
def test_honors_complete_is_a_zero_joker_need(honor_chows: bool) -> None:
    for v in product(range(5), repeat=7):
        if sum(v) > 11:
            continue
        key, size = bytes(v), sum(v)
        want = size % 3 != 1 and honor_need(key, honor_chows)[size % 3 == 2] == 0
        assert honors_complete(key, honor_chows) == want, (v, honor_chows)


def test_complete_plain_is_need_zero_on_random_hands() -> None:
    rng = random.Random(13)
    seen = {True: 0, False: 0}
    for _ in range(3000):
        counts = [0] * 34
        pool = list(range(rng.choice((9, 18, 34))))
        while sum(counts) < 14:
            t = rng.choice(pool)
            if counts[t] < 4:
                counts[t] += 1
        for hc in (False, True):
            want = need(counts, hc) == 0
            seen[want] += 1
            assert complete_plain(bytes(counts), hc) == want, (counts, hc)
    assert seen[True] and seen[False]  # both answers were exercised


@pytest.mark.parametrize(("offset", "honor_chows"), [(0, False), (9, False), (27, False),
                                                      (27, True)])
def test_plain_splits_are_split_without_jokers(offset: int, honor_chows: bool) -> None:
    width = 7 if offset == 27 else 9
    chows = engine._plain_chows(offset, honor_chows)
    for v in product(range(4), repeat=width):
        if not 0 < sum(v) <= 8:
            continue
        key = bytes(v)
        for pair in (False, True):
            if sum(v) % 3 != 2 * pair:
                continue
            want = tuple(tuple(Group(kind, tiles, wild) for kind, tiles, wild in split)
                         for split in engine._split(key, offset, 0, pair, sum(v) // 3,
                                                    honor_chows))
            assert engine._plain_splits(key, offset, pair, chows) == want, (v, pair)


def test_the_notation_fast_path_reads_as_the_reader_does() -> None:
    # spaces inside a run send the same tiles through the per-character reader
    for fast, slow in [("123m456p789s11z", "1 2 3m 4 5 6 p 789s 1 1z"),
                       ("19m19p19s1234567z+5z", "1 9m 1 9p 1 9s 1 2 3 4 5 6 7 z + 5 z"),
                       ("123m[555p][(9999m)]77s+7s", "1 23m [5 55p] [(9 999m)] 7 7s + 7s"),
                       ("12f345m", "1 2 f 3 4 5 m")]:
        assert parse_tiles(fast) == parse_tiles(slow)
    for text, message in [("120m", "suited tiles are 1–9 (got 0m)"),
                          ("18z", "honours are 1z–7z (got 8z)"),
                          ("19f", "flowers are 1f–8f (got 9f)"),
                          ("123m45", "the digits 45 at the end need a suit letter"),
                          ("123m45中", "the digits 45 before position 7 need a suit letter")]:
        with pytest.raises(ScoringError) as err:
            parse_tiles(text)
        assert message in str(err.value), (text, str(err.value))


def test_honour_splits_without_chows_are_not_reused_for_feibao() -> None:
    # Hainan reads 东东东南南南西西西 as pungs only; Feibao also as three wind chows — the memo of
    # joker-free splits once gave Feibao the pungs alone after a Hainan hand
    tiles = "111222333z444m55m+5m"
    feibao = {"variant": "feibao", "tiles": tiles, "indicator": "9p"}
    clear_caches()
    alone = analyze(feibao)
    clear_caches()
    analyze({"variant": "hainan", "tiles": tiles})
    after = analyze(feibao)
    assert after == alone
    assert {tuple(s["kind"] for s in r["sets"]).count("chow") for r in after["readings"]} == {
        0, 3}
