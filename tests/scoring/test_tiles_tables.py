"""The joker-free shortcuts of the tile engine (issue 13's speed work) against the general
joker-counting solver they stand in for, on every small suit vector; the notation's fast path
against the character-by-character reader."""

from __future__ import annotations

import random
from itertools import product

import pytest

from scoring import ScoringError
from scoring.tiles import analyze, clear_caches, engine, plain
from scoring.tiles.notation import parse_tiles
from scoring.tiles.reading import Group
from scoring.tiles.tables import (
    HONORS,
    HONORS_CHOWS,
    SUIT,
    complete_plain,
    honor_need,
    need,
    part_splits,
    suit_need,
)


def _complete(key: bytes, honours: bool, honor_chows: bool = False) -> bool:
    """The general joker-counting solver's answer: sets only, or sets and one pair, with no
    joker."""
    size = sum(key)
    needs = honor_need(key, honor_chows) if honours else suit_need(key)
    return size % 3 != 1 and needs[size % 3 == 2] == 0


def test_the_suit_table_holds_exactly_the_complete_suits() -> None:
    table = part_splits(SUIT)
    # every vector a hand's suit can hold (at most 14 tiles): in the table iff complete
    seen = 0
    for v in product(range(5), repeat=9):
        if sum(v) <= 14:
            key = bytes(v)
            assert (key in table) == _complete(key, False), v
            seen += key in table
    assert seen == len(table) == 21_743


@pytest.mark.parametrize("honor_chows", [False, True])
def test_the_honour_tables_hold_exactly_the_complete_honours(honor_chows: bool) -> None:
    table = part_splits(HONORS_CHOWS if honor_chows else HONORS)
    seen = 0
    for v in product(range(5), repeat=7):
        if sum(v) <= 14:
            key = bytes(v)
            assert (key in table) == _complete(key, True, honor_chows), (v, honor_chows)
            seen += key in table
    assert seen == len(table)


def test_plain_plus_is_completeness_with_one_more_tile() -> None:
    for v in product(range(5), repeat=9):
        if sum(v) > 10:
            continue
        key = bytes(v)
        want = []
        for i in range(9):
            if v[i] == 4:  # no fifth tile
                continue
            more = bytearray(key)
            more[i] += 1
            if _complete(bytes(more), False):
                want.append(i)
        assert plain._plus(key, SUIT) == tuple(want), v


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
def test_table_splits_are_the_joker_search_without_jokers(offset: int, honor_chows: bool) -> None:
    width = 7 if offset == 27 else 9
    part = SUIT if offset < 27 else HONORS_CHOWS if honor_chows else HONORS
    most = 11 if offset < 27 else 14  # every split of a suit up to 11 tiles, of the honours all
    for v in product(range(5), repeat=width):
        if not 0 < sum(v) <= most or sum(v) % 3 == 1:
            continue
        key = bytes(v)
        pair = sum(v) % 3 == 2
        # the search may yield a split more than once; the table holds each once
        want = sorted({tuple(sorted(Group(kind, tiles, wild) for kind, tiles, wild in split))
                       for split in engine._split(key, offset, 0, pair, sum(v) // 3,
                                                  honor_chows)})
        got = plain.part_groups(key, offset, part)
        assert sorted(got or ()) == want, (v, pair)


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


def test_every_part_complete_is_not_enough_when_two_hold_a_pair() -> None:
    # 33m 55p666p 333s66s 66z: each part is sets and a pair, four pairs in all — no hand (the
    # joker-free shortcut once read it as one, 3s completing it)
    with pytest.raises(ScoringError) as err:
        analyze({"variant": "hainan", "tiles": "33m55p666p33s66s66z+3s"})
    assert "not a complete hand" in str(err.value)
    assert complete_plain(bytes(plain_counts("33m55p666p333s66s66z"))) is False


def plain_counts(text: str) -> list[int]:
    counts = [0] * 34
    for t in parse_tiles(text).hand:
        counts[t] += 1
    return counts
