"""Singapore (docs/rules/singapore.md; its worked examples in test_worked_examples.py): each tai
element read from the tiles beside a near miss, the tai cross-checked against a count of its
own, payments, bites, refusals naming their field, and the properties every outcome keeps."""

from __future__ import annotations

import json
from collections import Counter
from typing import Any

import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from scoring import ScoringError, score
from scoring.tiles import analyze

from .cli import assert_cli_error, assert_invariants


def rec(events: list[dict], **extra: Any) -> dict:
    return {"variant": "singapore", "dealer": 0, "dealer_streak": 1, "events": events, **extra}


def win(seat: int, by: str = "self_draw", frm: int | None = None, **features: Any) -> dict:
    ev: dict = {"type": "win", "by": by, "winners": [{"seat": seat, **features}]}
    return ev if frm is None else {**ev, "from": frm}


def read(tiles: str, seat: int = 1, by: str = "self_draw", **extra: Any) -> dict:
    """The best reading's winner of these tiles (seat 1, South, East round, dealer 0)."""
    return analyze({"variant": "singapore", "tiles": tiles, "seat": seat, "dealer": 0,
                    "by": by, **extra})["winner"]


EXHAUSTED = {"type": "exhausted"}

# -- every tai element the tiles show, and a near miss -------------------------------------------
# (feature, value, tiles, near miss, its value); 猫 gives each near miss the tai it needs to win
ELEMENTS = [
    ("dragon_pungs", 1, "123m456p789s555z11p猫+1p", "123m456p789s55z111p猫+1p", 0),
    ("seat_wind", True, "222z123m456p789s11p猫+1p", "444z123m456p789s11p猫+1p", False),
    ("round_wind", True, "111z123m456p789s11p猫+1p", "333z123m456p789s11p猫+1p", False),
    ("all_chows", True, "123m456m789p55p23s+4s", "123m456m789p55p12s猫+3s", False),
    ("all_pungs", True, "[111m][222p]333s444m55p猫+5p", "[111m][222p]333s456m55p猫+5p", False),
    ("half_flush", True, "123m456m789m111z55m+5m", "123m456m789m111z55p+5p", False),
    ("pure", True, "123m456m789m234m55m+5m", "123m456m789m234p55m猫+5m", False),
    ("mixed_terminals", True, "[111m][999p]111s777z99m+9m", "[111m][999p]123s777z99m+9m", False),
    ("small_dragons", True, "[555z][666z]77z123m456m+7z", "[555z][666z]11p123m456m+1p", False),
    ("small_winds", True, "[111z][222z][333z]44z123m+4z", "[111z][222z][333z]55m123m+5m", False),
    ("big_dragons", True, "[555z][666z][777z]123m11p+1p", "[555z][666z]77z123m111p+1p", False),
    ("big_winds", True, "[111z][222z][333z][444z]11p+1p", "[111z][222z][333z]44z111p+1p", False),
    ("nine_gates", True, "1112345678999m+5m", "[111m]2345678999m+5m", False),
    ("all_honours", True, "111z222z333z555z66z+6z", "111z222z333z555z11m+1m", False),
    ("all_terminals", True, "[111m][999m][111p]999p11s+1s", "[111m][999m][111p]999p11z+1z",
     False),
    ("four_kongs", True, "[1111m][2222p][3333s][4444m]55p+5p", "[1111m][2222p][3333s][444m]55p+5p",
     False),
    ("four_concealed", True, "111m222p333s444m55p+5p", "[111m]222p333s444m55p+5p", False),
    ("thirteen_orphans", True, "19m19p19s1234567z+1m", None, None),
]


@pytest.mark.parametrize(("key", "want", "tiles", "near", "near_want"), ELEMENTS,
                         ids=[e[0] for e in ELEMENTS])
def test_each_tai_element_from_the_tiles_and_its_near_miss(key: str, want: Any, tiles: str,
                                                          near: str | None, near_want: Any) -> None:
    assert read(tiles).get(key, False) == want
    if near is None:  # one tile off 十三幺 is no winning hand at all
        with pytest.raises(ScoringError, match=r"not a complete hand|not a winning"):
            read("19m19p19s1234566z+1m")
        return
    assert read(near).get(key, 0 if isinstance(want, int) and want is not True else False) \
        == near_want


def test_bonus_tiles_from_the_tiles_own_sets_and_animals() -> None:
    hand = "123m456p789s555z11p"
    assert read(hand + "夏兰+1p")["summer"] and read(hand + "夏兰+1p")["orchid"]
    # their tai: seat 1's own 夏 and 兰 are 1 each; seat 2's are 秋 and 菊: 0
    own = score(rec([win(1, summer=True, orchid=True, dragon_pungs=1)])).lines[-1]
    other = score(rec([win(2, summer=True, orchid=True, dragon_pungs=1)])).lines[-1]
    assert (own.value, other.value) == (3, 1)
    # a set of four flowers is one more; three of them are not
    full = score(rec([win(3, plum=True, orchid=True, chrysanthemum=True, bamboo=True)]))
    three = score(rec([win(3, plum=True, orchid=True, chrysanthemum=True, dragon_pungs=1)]))
    assert (full.lines[-1].value, three.lines[-1].value) == (2, 1)
    # four animals are five tai, three are three
    four = score(rec([win(1, cat=True, mouse=True, rooster=True, centipede=True)]))
    assert four.lines[-1].value == 5
    assert score(rec([win(1, cat=True, mouse=True, rooster=True)])).lines[-1].value == 3
    # seven flowers is the limit, six are six tai
    seven = dict.fromkeys(["spring", "summer", "autumn", "winter", "plum", "orchid",
                           "chrysanthemum"], True)
    assert "seven_flowers" in score(rec([win(0, **seven)])).lines[-1].terms
    six = {k: True for k in list(seven)[:6]}
    assert "seven_flowers" not in score(rec([win(0, **six)], rules={"max_tai": 10})).lines[-1].terms


def test_all_chows_is_four_tai_only_without_bonus_tiles() -> None:
    clean = analyze({"variant": "singapore", "tiles": "123m456m789p55p23s+4s", "seat": 1,
                     "dealer": 0, "by": "self_draw"})
    with_cat = analyze({"variant": "singapore", "tiles": "123m456m789p55p23s猫+4s", "seat": 1,
                        "dealer": 0, "by": "self_draw"})
    assert clean["value"] == 3 * 160  # 4 tai: the self-draw share of 4 tai is 160
    assert with_cat["value"] == 3 * 40  # 平胡 1 + the cat 1


def test_story_elements_each_one_tai_and_their_near_misses() -> None:
    kong = {"type": "kong", "seat": 1, "kind": "concealed"}
    assert "kong_bloom" in score(rec([kong, {**win(1), "after_kong": True}])).lines[-1].terms
    with pytest.raises(ScoringError, match="0 台"):  # the kong without the replacement win
        score(rec([kong, win(1)]))
    assert score(rec([win(1, flower_bloom=True)])).lines[-1].value == 1
    with pytest.raises(ScoringError) as exc:
        score(rec([win(1, "discard", 0, flower_bloom=True)]))
    assert exc.value.field == "events[0].winners[0].flower_bloom"
    robbed = [{"type": "kong", "seat": 2, "kind": "added", "robbed": True},
              {**win(1, "robbed_kong", 2)}]
    assert score(rec(robbed)).lines[-1].value == 1
    assert score(rec([win(0, "discard", 3, last_tile=True)])).lines[-1].value == 1


# -- a second, independent count: brute force over the tile counts -------------------------------

DRAGONS, WINDS = (31, 32, 33), (27, 28, 29, 30)


def splits(counts: list[int]) -> list[list[tuple[str, int]]]:
    """Every way to split 34 counts into sets and one pair (brute force, no tables)."""
    first = next((t for t, n in enumerate(counts) if n), None)
    if first is None:
        return [[]]
    out = []
    c = counts
    if c[first] >= 3:
        c[first] -= 3
        out += [[("pung", first), *rest] for rest in splits(c)]
        c[first] += 3
    if first < 27 and first % 9 <= 6 and c[first + 1] and c[first + 2]:
        for t in (first, first + 1, first + 2):
            c[t] -= 1
        out += [[("chow", first), *rest] for rest in splits(c)]
        for t in (first, first + 1, first + 2):
            c[t] += 1
    if c[first] >= 2:
        c[first] -= 2
        out += [[("pair", first), *rest] for rest in splits(c) if all(k != "pair" for k, _ in rest)]
        c[first] += 2
    return out


def complete(counts: list[int]) -> bool:
    return any(sum(k == "pair" for k, _ in s) == 1 and len(s) == 5 for s in splits(list(counts)))


def own_tai(counts: list[int], win_tile: int, seat: int, wind: int, bonus: set[int]) -> int | None:
    """The tai of a concealed self-drawn hand, counted here from scratch: None for a limit hand,
    -1 for no winning hand."""
    waits = [t for t in range(34) if counts[t] - (t == win_tile) < 4 and complete(
        [n - (i == win_tile) + (i == t) for i, n in enumerate(counts)])]
    single = len(waits) == 1
    best = -1
    for s in splits(list(counts)):
        if len(s) != 5:
            continue
        pungs = [t for k, t in s if k == "pung"]
        pair = next(t for k, t in s if k == "pair")
        tiles = [t for t, n in enumerate(counts) if n]
        honours = [t for t in tiles if t >= 27]
        suits = {t // 9 for t in tiles if t < 27}
        terminal = all(t >= 27 or t % 9 in (0, 8) for t in tiles)
        if (len([t for t in pungs if t in DRAGONS]) == 3 or len([t for t in pungs if t in WINDS]) == 4
                or not suits or (terminal and not honours) or len(pungs) == 4):
            return None  # 大三元, 大四喜, 字一色, 清幺九, 四暗刻 (all concealed, self-drawn)
        if len(suits) == 1 and not honours:
            c = counts[9 * min(suits):9 * min(suits) + 9]
            if c[0] >= 3 and c[8] >= 3 and all(c[1:8]):
                return None  # 九莲宝灯
        tai = sum(1 for t in pungs if t in DRAGONS)
        tai += (27 + (seat % 4)) in pungs
        tai += (27 + wind) in pungs
        scoring_pair = pair in DRAGONS or pair in (27 + seat, 27 + wind)
        if not pungs and not scoring_pair and not single:
            tai += 1 if bonus else 4
        if len(pungs) == 4:
            tai += 2
        if len(suits) == 1:
            tai += 2 if honours else 4
        if terminal and honours and suits:
            tai += 1
        dragon_pungs = sum(1 for t in pungs if t in DRAGONS)
        if dragon_pungs == 2 and pair in DRAGONS:
            tai += 3
        if sum(1 for t in pungs if t in WINDS) == 3 and pair in WINDS:
            tai += 4
        tai += len(bonus & {seat, 4 + seat})
        tai += {0, 1, 2, 3} <= bonus
        tai += {4, 5, 6, 7} <= bonus
        animals = len(bonus & {8, 9, 10, 11})
        tai += animals + (animals == 4)
        if len(bonus & set(range(8))) >= 7:
            return None
        best = max(best, tai)
    return best


@st.composite
def hands(draw: st.DrawFn) -> tuple[list[int], int, set[int]]:
    counts = [0] * 34
    for _ in range(4):
        if draw(st.booleans()):
            t = draw(st.integers(0, 33))
            if counts[t] > 1:
                assume(False)
            counts[t] += 3
        else:
            suit, rank = draw(st.integers(0, 2)), draw(st.integers(0, 6))
            for t in range(9 * suit + rank, 9 * suit + rank + 3):
                counts[t] += 1
    pair = draw(st.integers(0, 33))
    counts[pair] += 2
    assume(max(counts) <= 4)
    win_tile = draw(st.sampled_from([t for t, n in enumerate(counts) if n]))
    bonus = draw(st.sets(st.integers(0, 11), max_size=5))
    return counts, win_tile, bonus


def notation(counts: list[int], win_tile: int, bonus: set[int]) -> str:
    rest = list(counts)
    rest[win_tile] -= 1
    text = "".join(f"{t % 9 + 1}{'mps'[t // 9]}" if t < 27 else f"{t - 26}z"
                   for t in range(34) for _ in range(rest[t]))
    text += "".join(f"{b + 1}f" if b < 8 else f"{b - 7}a" for b in sorted(bonus))
    return text + "+" + (f"{win_tile % 9 + 1}{'mps'[win_tile // 9]}" if win_tile < 27
                         else f"{win_tile - 26}z")


@settings(max_examples=150, deadline=None)
@given(hands(), st.integers(0, 3), st.integers(0, 3))
def test_tai_from_tiles_agrees_with_a_count_of_its_own(hand: tuple, seat: int, wind: int) -> None:
    counts, win_tile, bonus = hand
    mine = own_tai(counts, win_tile, seat, wind, bonus)
    req = {"variant": "singapore", "tiles": notation(counts, win_tile, bonus), "seat": seat,
           "dealer": 0, "by": "self_draw", "round_wind": wind}
    if mine is not None and mine < 1:
        with pytest.raises(ScoringError, match="under this table's minimum"):
            analyze(req)
        return
    tai = 5 if mine is None else min(mine, 5)
    assert analyze(req)["value"] == 3 * 10 * 2 ** tai, (req, mine)


# -- payments ----------------------------------------------------------------------------------

@pytest.mark.parametrize("tai", range(1, 6))
def test_payment_table_shooter_no_shooter_self_draw(tai: int) -> None:
    share = 10 * 2 ** (tai - 1)
    shot = score(rec([win(1, "discard", 3, tai=tai)])).deltas
    assert shot == (0, 4 * share, 0, -4 * share)
    spread = score(rec([win(1, "discard", 3, tai=tai)], rules={"discard_pays": "no_shooter"})).deltas
    assert spread == (-share, 4 * share, -share, -2 * share)
    drawn = score(rec([win(1, tai=tai)])).deltas
    assert drawn == (-2 * share, 6 * share, -2 * share, -2 * share)


def test_three_six_ladder_and_cap() -> None:
    rules = {"ladder": "three_six", "stake": 100}
    got = [score(rec([win(1, "discard", 0, tai=t)], rules=rules | {"discard_pays": "no_shooter"}))
           .deltas[2] for t in range(1, 6)]
    assert got == [-100, -200, -300, -500, -1000]
    capped = score(rec([win(1, tai=9)], rules={"max_tai": 3})).lines[-1]
    assert capped.value == 3 and "limit" in capped.terms


# -- bites ---------------------------------------------------------------------------------------

def bonus(seat: int, *tiles: str, hidden: bool = False) -> dict:
    return {"type": "bonus", "seat": seat, "hidden": hidden, **dict.fromkeys(tiles, True)}


def test_animal_pair_bites_and_its_near_miss() -> None:
    pair = score(rec([bonus(1, "cat"), bonus(1, "mouse"), EXHAUSTED]))
    assert pair.deltas == (-10, 30, -10, -10)
    # cat and rooster are no pair; a cat and another seat's mouse are none either
    assert score(rec([bonus(1, "cat"), bonus(1, "rooster"), EXHAUSTED])).deltas == (0, 0, 0, 0)
    assert score(rec([bonus(1, "cat"), bonus(2, "mouse"), EXHAUSTED])).deltas == (0, 0, 0, 0)


def test_all_four_animals_in_place_of_the_second_pair() -> None:
    step = score(rec([bonus(2, "cat", "mouse"), bonus(2, "rooster", "centipede"), EXHAUSTED]))
    assert [line.terms[0] for line in step.lines if line.what == "bite"] == [
        "animal_pair", "all_animals"]
    assert step.deltas == (-30, -30, 90, -30)
    three = score(rec([bonus(2, "cat", "mouse", "rooster"), EXHAUSTED]))
    assert three.deltas == (-10, -10, 30, -10)


def test_own_flowers_and_sets_bite_and_their_near_misses() -> None:
    assert score(rec([bonus(1, "summer"), bonus(1, "orchid"), EXHAUSTED])).deltas == (
        -10, 30, -10, -10)
    assert score(rec([bonus(1, "summer"), bonus(1, "plum"), EXHAUSTED])).deltas == (0, 0, 0, 0)
    seasons = rec([bonus(0, "spring", "summer"), bonus(0, "autumn", "winter"), EXHAUSTED])
    assert score(seasons).deltas == (60, -20, -20, -20)
    assert score(rec([bonus(0, "spring", "summer", "autumn"), EXHAUSTED])).deltas == (0, 0, 0, 0)


def test_a_predator_against_another_seats_prey_under_cross_bites() -> None:
    split = [bonus(2, "mouse"), bonus(1, "cat"), EXHAUSTED]
    assert score(rec(split, rules={"cross_bites": True})).deltas == (0, 10, -10, 0)
    # whichever came first, the predator's seat collects: here the rooster after the centipede
    later = [bonus(3, "rooster"), bonus(0, "centipede", hidden=True), EXHAUSTED]
    assert score(rec(later, rules={"cross_bites": True})).deltas == (-20, 0, 0, 20)
    # near misses: the rule off, or a cat against a centipede, bite nothing
    assert score(rec(split)).deltas == (0, 0, 0, 0)
    assert score(rec([bonus(2, "centipede"), bonus(1, "cat"), EXHAUSTED],
                     rules={"cross_bites": True})).deltas == (0, 0, 0, 0)


def test_hidden_bites_pay_double() -> None:
    assert score(rec([bonus(1, "cat", "mouse", hidden=True), EXHAUSTED])).deltas == (
        -20, 60, -20, -20)


def test_kong_bites_by_kind_and_table() -> None:
    def kong(kind: str, **extra: Any) -> dict:
        ev = {"type": "kong", "seat": 2, "kind": kind}
        return ev | ({"from": 3} if kind == "exposed" else {}) | extra
    assert score(rec([kong("exposed"), EXHAUSTED])).deltas == (0, 0, 30, -30)
    assert score(rec([kong("exposed"), EXHAUSTED], rules={"discard_pays": "no_shooter"})).deltas == (
        -10, -10, 30, -10)
    assert score(rec([kong("added"), EXHAUSTED])).deltas == (-10, -10, 30, -10)
    assert score(rec([kong("concealed"), EXHAUSTED])).deltas == (-20, -20, 60, -20)
    assert score(rec([kong("concealed"), EXHAUSTED], rules={"bites": False})).deltas == (
        0, 0, 0, 0)


def test_flowers_shown_during_the_hand_count_at_the_win() -> None:
    out = score(rec([bonus(2, "autumn"), win(2, "discard", 1, dragon_pungs=1)]))
    assert out.lines[-1].value == 2
    # the same tile on the winner again is the same tile, not a second one
    again = score(rec([bonus(2, "autumn"), win(2, "discard", 1, dragon_pungs=1, autumn=True)]))
    assert again.lines[-1].value == 2


# -- refusals, naming the field ------------------------------------------------------------------

def test_tai_under_the_minimum() -> None:
    error = assert_cli_error(rec([win(1, "discard", 0, tai=1)], rules={"min_tai": 2}),
                             "events[0].winners[0].tai")
    assert "minimum of 2" in error
    assert_cli_error(rec([win(1, "discard", 0)]), "events[0].winners[0]")


def test_more_than_the_tiles_allow() -> None:
    with pytest.raises(ScoringError, match="only four") as exc:
        read("55555m456p789s11p猫")
    assert exc.value.field == "tiles"
    with pytest.raises(ScoringError, match="1f–8f"):
        read("123m456p789s555z11p9f+1p")
    with pytest.raises(ScoringError, match="only one of each animal"):
        read("123m456p789s555z11p猫猫+1p")
    error = assert_cli_error(rec([bonus(1, "cat"), bonus(2, "cat"), EXHAUSTED]), "events[1].cat")
    assert "seat" in error or "1" in error
    assert_cli_error(rec([bonus(1, "cat"), win(2, dragon_pungs=1, cat=True)]),
                     "events[1].winners[0].cat")
    with pytest.raises(ScoringError, match="animals"):
        analyze({"variant": "hainan", "tiles": "123m456p789s555z11p猫+1p", "seat": 1})


def test_a_bite_that_cannot_happen() -> None:
    twice = [{"type": "kong", "seat": 1, "kind": "concealed", "tile": "5p"},
             {"type": "kong", "seat": 2, "kind": "exposed", "from": 0, "tile": "5p"}, EXHAUSTED]
    assert "only four" in assert_cli_error(rec(twice), "events[1].tile")
    assert_cli_error(rec([{"type": "bonus", "seat": 1}, EXHAUSTED]), "events[0]")
    assert_cli_error(rec([{"type": "kong", "seat": 1, "kind": "concealed", "tile": "5p5p"},
                          EXHAUSTED]), "events[0].tile")


def test_counted_tai_goes_alone_and_rules_check() -> None:
    assert_cli_error(rec([win(1, tai=3, pure=True)]), "events[0].winners[0]")
    assert_cli_error(rec([EXHAUSTED], rules={"min_tai": 4, "max_tai": 3}), "rules")


# -- properties -----------------------------------------------------------------------------------

KEYS = ("spring", "summer", "autumn", "winter", "plum", "orchid", "chrysanthemum", "bamboo",
        "cat", "mouse", "rooster", "centipede")
FEATURES = ("seat_wind", "round_wind", "all_pungs", "half_flush", "mixed_terminals",
            "big_winds", "last_tile")


@st.composite
def records(draw: st.DrawFn) -> dict:
    rules = {"stake": draw(st.sampled_from([10, 20, 50, 100])),
             "ladder": draw(st.sampled_from(["double", "three_six"])),
             "max_tai": draw(st.integers(3, 10)), "discard_pays": draw(st.sampled_from(
                 ["shooter", "no_shooter"])), "bites": draw(st.booleans()),
             "cross_bites": draw(st.booleans())}
    events: list[dict] = []
    owner = draw(st.lists(st.integers(0, 4), min_size=12, max_size=12))  # 4: not shown
    for seat in range(4):
        mine = [k for k, o in zip(KEYS, owner, strict=True) if o == seat]
        while mine:
            n = draw(st.integers(1, len(mine)))
            events.append(bonus(seat, *mine[:n], hidden=draw(st.booleans())))
            mine = mine[n:]
    for seat in draw(st.lists(st.integers(0, 3), max_size=3)):
        kind = draw(st.sampled_from(["concealed", "added", "exposed"]))
        ev: dict = {"type": "kong", "seat": seat, "kind": kind}
        if kind == "exposed":
            ev["from"] = (seat + draw(st.integers(1, 3))) % 4
        events.append(ev)
    events = draw(st.permutations(events))
    if draw(st.booleans()):
        events.append(EXHAUSTED)
    else:
        seat = draw(st.integers(0, 3))
        by = draw(st.sampled_from(["self_draw", "discard"]))
        frm = None if by == "self_draw" else (seat + draw(st.integers(1, 3))) % 4
        if draw(st.booleans()):
            features: dict = {"tai": draw(st.integers(1, 12))}
        else:
            features = {k: True for k in draw(st.sets(st.sampled_from(FEATURES), min_size=1))}
        events.append(win(seat, by, frm, **features))
    return rec(events, rules=rules, dealer=draw(st.integers(0, 3)),
               round_wind=draw(st.integers(0, 3)),
               balances=draw(st.lists(st.integers(-500, 500), min_size=4, max_size=4)))


@given(records())
def test_property_zero_sum_and_lines_add_up(record: dict) -> None:
    assert_invariants(score(record).to_dict(), record["balances"])


@given(records())
def test_property_deterministic(record: dict) -> None:
    again = json.loads(json.dumps(record))
    assert score(record).to_dict() == score(again).to_dict()


@given(records())
def test_property_the_winner_alone_gains_from_the_win_within_the_cap(record: dict) -> None:
    out = score(record)
    cap = record["rules"]["max_tai"]
    for line in out.lines:
        if line.what == "win":
            assert [s for s, d in enumerate(line.deltas) if d > 0] == [line.seat]
            assert 1 <= line.value <= cap
    bites = Counter(line.what for line in out.lines)
    if not record["rules"]["bites"]:
        assert "bite" not in bites


@settings(max_examples=60, deadline=None)
@given(hands(), st.integers(0, 3), st.integers(0, 3), st.integers(0, 3))
def test_property_the_reading_scores_what_it_says_and_again_the_same(
        hand: tuple, seat: int, dealer: int, wind: int) -> None:
    counts, win_tile, bonus = hand
    req = {"variant": "singapore", "tiles": notation(counts, win_tile, bonus), "seat": seat,
           "dealer": dealer, "by": "self_draw", "round_wind": wind}
    try:
        got = analyze(req)
    except ScoringError:
        return
    assert analyze(json.loads(json.dumps(req))) == got
    out = score(rec([win(seat, **{k: v for k, v in got["winner"].items() if k != "seat"})],
                    dealer=dealer, round_wind=wind))
    assert out.lines[-1].deltas[seat] == got["value"]
