"""Guiyang (docs/rules/guiyang.md; its worked examples in test_worked_examples.py): values, 豆,
鸡, rules, errors, properties."""

from __future__ import annotations

import json

import pytest
from hypothesis import given
from hypothesis import strategies as st

from scoring import ScoringError, score

from .cli import assert_cli_error, assert_invariants, self_draw


def rec(events: list[dict], **extra: object) -> dict:
    return {"variant": "guiyang", "dealer": 0, "dealer_streak": 1, "events": events, **extra}


def discard(frm: int, *winners: dict, after_kong: bool = False) -> dict:
    return {"type": "win", "by": "discard", "from": frm, "after_kong": after_kong,
            "winners": list(winners)}


def robbed(frm: int, *winners: dict) -> dict:
    return {"type": "win", "by": "robbed_kong", "from": frm, "winners": list(winners)}


def kong(seat: int, kind: str = "concealed", frm: int | None = None, **extra: object) -> dict:
    ev = {"type": "kong", "seat": seat, "kind": kind, **extra}
    return ev if frm is None else {**ev, "from": frm}


def ready(*seats: int) -> dict:
    return {"type": "ready", "seats": list(seats)}


def chickens(flipped: str | None, hero: int | None = None, **seats: dict) -> dict:
    return {"type": "chickens", "flipped": flipped, "hero": hero,
            "seats": {k.removeprefix("s"): v for k, v in seats.items()}}


def exhausted(**hands: dict | None) -> dict:
    return {"type": "exhausted", "ready": {k.removeprefix("s"): v for k, v in hands.items()}}


def deltas(events: list[dict], **extra: object) -> list[int]:
    return list(score(rec(events, **extra)).deltas)


def lines(events: list[dict], what: str, **extra: object) -> list[list[int]]:
    return [list(line.deltas) for line in score(rec(events, **extra)).lines if line.what == what]


# -- hand values -------------------------------------------------------------------------------

VALUES = [  # (name, features, V)
    ("平胡", {}, 1),
    ("大对子", {"form": "all_pungs"}, 5),
    ("七对", {"form": "seven_pairs"}, 10),
    ("龙七对", {"form": "seven_pairs", "quads": 1}, 20),
    ("双龙七对 is still 龙七对", {"form": "seven_pairs", "quads": 2}, 20),
    ("清一色", {"pure": True}, 10),
    ("清大对", {"form": "all_pungs", "pure": True}, 15),
    ("清七对", {"form": "seven_pairs", "pure": True}, 20),
    ("青龙背", {"form": "seven_pairs", "pure": True, "quads": 1}, 30),
    ("报听平胡", {"declared": True}, 11),
    ("报听大对子 (the seed: 15)", {"form": "all_pungs", "declared": True}, 15),
    ("报听清一色 (the seed: 20)", {"pure": True, "declared": True}, 20),
    ("报听清大对 (the seed: 25)", {"form": "all_pungs", "pure": True, "declared": True}, 25),
]


@pytest.mark.parametrize(("name", "features", "value"), VALUES, ids=[r[0] for r in VALUES])
def test_hand_value_self_drawn(name: str, features: dict, value: int) -> None:
    out = score(rec([self_draw(1, **features)]))
    assert out.lines[0].value == value
    assert out.deltas == (-value, 3 * value, -value, -value)


@pytest.mark.parametrize(("name", "features", "value"), VALUES[1:], ids=[r[0] for r in VALUES[1:]])
def test_hand_value_off_a_discard_paid_by_the_discarder_alone(name: str, features: dict,
                                                              value: int) -> None:
    assert deltas([discard(2, {"seat": 1, **features})]) == [0, value, -value, 0]


def test_kong_bloom_adds_one() -> None:
    out = score(rec([kong(1), self_draw(1, after_kong=True, form="all_pungs")]))
    assert out.lines[0].value == 6 and "kong_bloom" in out.lines[0].terms
    assert out.lines[0].deltas == (-6, 18, -6, -6)


def test_several_winners_on_one_discard_each_paid_by_the_discarder() -> None:
    out = score(rec([discard(2, {"seat": 0, "form": "all_pungs"}, {"seat": 1, "pure": True},
                             {"seat": 3, "form": "seven_pairs"})], dealer=1, dealer_streak=2))
    assert out.deltas == (5, 11, -26, 10)  # the dealer, seat 1, adds his 连庄 1
    assert out.next_dealer == 3 and out.next_dealer_streak == 1  # first after seat 2


def test_several_winners_next_dealer_wraps_round() -> None:
    out = score(rec([discard(3, {"seat": 1, "pure": True}, {"seat": 2, "pure": True})]))
    assert out.next_dealer == 1


def test_dealer_win_keeps_the_deal() -> None:
    out = score(rec([self_draw(0, form="all_pungs")], dealer_streak=2))
    assert (out.next_dealer, out.next_dealer_streak) == (0, 3)


# -- the 平胡 discard passport ---------------------------------------------------------------------

def test_plain_hand_off_a_discard_without_a_kong_is_an_error() -> None:
    with pytest.raises(ScoringError, match="平胡 may win off a discard") as exc:
        score(rec([discard(2, {"seat": 1})]))
    assert exc.value.field == "events[0].winners[0]"


@pytest.mark.parametrize("kind", ["concealed", "added", "exposed"])
def test_plain_hand_off_a_discard_with_its_own_kong(kind: str) -> None:
    events = [kong(1, kind, 3 if kind == "exposed" else None), discard(2, {"seat": 1})]
    assert lines(events, "win") == [[0, 1, -1, 0]]


def test_plain_hand_off_a_hot_discard() -> None:
    assert lines([kong(2), discard(2, {"seat": 1}, after_kong=True)], "win") == [[0, 1, -1, 0]]


def test_plain_hand_robbing_a_kong() -> None:
    events = [kong(2, "added", robbed=True), robbed(2, {"seat": 1})]
    assert deltas(events) == [0, 1, -1, 0]


def test_declared_plain_hand_may_win_off_a_discard() -> None:
    assert deltas([discard(2, {"seat": 1, "declared": True})]) == [0, 11, -11, 0]


def test_another_seats_kong_is_no_passport() -> None:
    with pytest.raises(ScoringError, match="平胡"):
        score(rec([kong(3), discard(2, {"seat": 1})]))


# -- 热炮 and robbed kongs: 一废全废 ---------------------------------------------------------------

def test_hot_discard_forfeits_all_income() -> None:
    events = [kong(2), kong(1, "added"), discard(2, {"seat": 1, "form": "all_pungs"},
                                                 after_kong=True),
              ready(2), chickens("3m", s2={"yaoji": 2, "fanji": 1}), {"type": "follow", "rounds": 1}]
    out = score(rec(events))
    by = {(line.what, line.seat): line for line in out.lines}
    assert by[("win", 1)].deltas == (0, 5, -5, 0)
    assert by[("kong", 2)].deltas == (0, 0, 0, 0) and "void" in by[("kong", 2)].terms
    assert by[("chickens", 2)].deltas == (0, 0, 0, 0)
    assert by[("follow", 0)].deltas == (-2, 1, 0, 1)  # seat 2 collects no 跟张
    assert out.deltas == (-5, 15, -8, -2)


def test_robbed_kong_is_void_and_its_owner_collects_nothing() -> None:
    events = [kong(2), kong(2, "added", robbed=True), robbed(2, {"seat": 0, "form": "all_pungs"}),
              ready(2), chickens("4p", s2={"fanji": 2})]
    out = score(rec(events))
    assert [line.deltas for line in out.lines if line.what == "kong"] == [(0, 0, 0, 0)] * 2
    assert out.deltas == (5, 0, -5, 0)


def test_robbed_kong_with_several_winners() -> None:
    events = [kong(3, "added", robbed=True), robbed(3, {"seat": 0}, {"seat": 1, "pure": True})]
    out = score(rec(events))
    assert out.deltas == (1, 10, 0, -11) and out.next_dealer == 0


# -- 豆 ------------------------------------------------------------------------------------------

def test_kong_values_for_a_ready_owner() -> None:
    events = [kong(1), kong(1, "added"), kong(1, "exposed", 3), self_draw(1, form="all_pungs")]
    assert lines(events, "kong") == [[-2, 6, -2, -2], [-3, 9, -3, -3], [0, 1, 0, -1]]


def test_kong_of_a_seat_not_ready_pays_nothing() -> None:
    events = [kong(2), kong(3), self_draw(1, form="all_pungs"), ready(3)]
    assert lines(events, "kong") == [[0, 0, 0, 0], [-2, -2, -2, 6]]


def test_no_kong_pays_on_an_exhausted_wall() -> None:
    events = [kong(1), kong(2, "added"), exhausted(s0=None, s1={}, s2={}, s3=None)]
    assert lines(events, "kong") == [[0, 0, 0, 0]] * 2
    assert deltas(events) == [-2, 2, 2, -2]  # 查叫 alone


# -- 鸡 ------------------------------------------------------------------------------------------

@pytest.mark.parametrize(("flipped", "fan"), [("5p", "6p"), ("9p", "1p"), ("9m", "1m"),
                                              ("8s", "9s"), ("1s", "2s")])
def test_flipped_chicken_is_the_next_rank_nine_wraps(flipped: str, fan: str) -> None:
    from scoring.variants.guiyang import fanji_tile

    assert fanji_tile(flipped) == fan


def test_yaoji_always_counts_even_with_an_empty_wall() -> None:
    events = [self_draw(1, form="all_pungs"), chickens(None, s1={"yaoji": 2})]
    assert lines(events, "chickens") == [[-2, 6, -2, -2]]
    assert deltas(events) == [-7, 21, -7, -7]


def test_no_fanji_when_nothing_was_flipped() -> None:
    with pytest.raises(ScoringError, match="no 翻鸡"):
        score(rec([self_draw(1, form="all_pungs"), chickens(None, s1={"fanji": 1})]))


def test_gold_chicken_when_9s_is_flipped() -> None:
    events = [self_draw(1, form="all_pungs"), chickens("9s", s1={"yaoji": 1})]
    assert lines(events, "chickens") == [[-3, 9, -3, -3]]


def test_discarded_yaoji_hero_and_chicken_quad() -> None:
    events = [kong(1), self_draw(1, form="all_pungs"), ready(2),
              chickens("2m", hero=2, s1={"yaoji_out": 1, "quads": 1}, s2={"fanji": 1})]
    assert lines(events, "chickens") == [[-6, 18, -6, -6], [-3, -3, 9, -3]]


def test_chicken_quad_needs_a_concealed_kong() -> None:
    with pytest.raises(ScoringError, match="concealed kong") as exc:
        score(rec([self_draw(1, form="all_pungs"), chickens("2m", s1={"quads": 1})]))
    assert exc.value.field == "events[1].seats['1'].quads"


def test_too_many_yaoji() -> None:
    with pytest.raises(ScoringError, match="only four 幺鸡"):
        score(rec([self_draw(1, form="all_pungs"),
                   chickens("2m", hero=0, s1={"yaoji": 3}, s2={"yaoji_out": 1})]))


def test_hero_chicken_not_ready_collects_nothing() -> None:
    events = [self_draw(1, form="all_pungs"), chickens("2m", hero=3)]
    assert lines(events, "chickens") == [[0, 0, 0, 0]]


# -- 跟张, 相公, ready events ----------------------------------------------------------------------

@pytest.mark.parametrize(("rounds", "each"), [(1, 1), (2, 2), (3, 4), (4, 8)])
def test_follow_doubles_per_round(rounds: int, each: int) -> None:
    events = [self_draw(1, form="all_pungs"), {"type": "follow", "rounds": rounds}]
    assert lines(events, "follow", dealer=3) == [[each, each, each, -3 * each]]


@pytest.mark.parametrize(("rounds", "each"), [(1, 1), (2, 3), (3, 7), (4, 15)])
def test_rule_follow_pay_sum_pays_every_round(rounds: int, each: int) -> None:
    events = [self_draw(1, form="all_pungs"), {"type": "follow", "rounds": rounds}]
    assert lines(events, "follow", dealer=3, rules={"follow_pay": "sum"}) == [
        [each, each, each, -3 * each]]
    assert_cli_error(rec(events, rules={"follow_pay": "double"}), "rules.follow_pay")


def test_follow_is_paid_on_an_exhausted_wall_too() -> None:
    events = [{"type": "follow", "rounds": 1}, exhausted(s0=None, s1=None, s2=None, s3=None)]
    assert deltas(events) == [-3, 1, 1, 1]


def test_dead_hand_cannot_win() -> None:
    with pytest.raises(ScoringError, match="相公") as exc:
        score(rec([{"type": "dead_hand", "seat": 1}, self_draw(1, form="all_pungs")]))
    assert exc.value.field == "events[1].winners[0].seat"


def test_dead_hand_is_not_ready_and_collects_nothing() -> None:
    events = [{"type": "dead_hand", "seat": 2}, kong(2), self_draw(1, form="all_pungs"),
              chickens("2m", s2={"yaoji": 1}), {"type": "follow", "rounds": 1}]
    out = score(rec(events, rules={"bao_ji": True}))
    assert [line.deltas for line in out.lines if line.what == "kong"] == [(0, 0, 0, 0)]
    assert [line.deltas for line in out.lines if line.what == "bao_ji"] == [(0, 1, -1, 0)]
    assert [line.deltas for line in out.lines if line.what == "follow"] == [(-2, 1, 0, 1)]
    with pytest.raises(ScoringError, match="相公 and cannot be ready"):
        score(rec([{"type": "dead_hand", "seat": 2}, self_draw(1, pure=True), ready(2)]))


def test_dead_hand_pays_at_the_ready_check() -> None:
    events = [{"type": "dead_hand", "seat": 3}, exhausted(s0={}, s1={}, s2={}, s3=None)]
    assert deltas(events) == [1, 1, 1, -3]
    with pytest.raises(ScoringError, match="相公") as exc:
        score(rec([{"type": "dead_hand", "seat": 3}, exhausted(s0={}, s1={}, s2={}, s3={})]))
    assert exc.value.field == "events[1].ready['3']"


@pytest.mark.parametrize("ready_hand", [None, {}])
def test_ready_check_all_or_none_ready_nobody_pays(ready_hand: dict | None) -> None:
    events = [exhausted(s0=ready_hand, s1=ready_hand, s2=ready_hand, s3=ready_hand)]
    out = score(rec(events, dealer=2, dealer_streak=3))
    assert out.deltas == (0, 0, 0, 0)
    assert (out.next_dealer, out.next_dealer_streak) == (2, 4)


def test_ready_check_three_ready_one_pays_all() -> None:
    events = [exhausted(s0={"form": "seven_pairs"}, s1={"declared": True}, s2={"pure": True},
                        s3=None)]
    assert deltas(events) == [10, 11, 10, -31]


# -- rule options: each one's effect against the default ---------------------------------------

def test_rule_pure_seven_pairs() -> None:
    hand = [self_draw(1, form="seven_pairs", pure=True)]
    assert score(rec(hand)).lines[0].value == 20
    assert score(rec(hand, rules={"pure_seven_pairs": 25})).lines[0].value == 25
    # 青龙背 is not touched by it
    dragon = [self_draw(1, form="seven_pairs", pure=True, quads=1)]
    assert score(rec(dragon, rules={"pure_seven_pairs": 25})).lines[0].value == 30


def test_rule_self_draw_bonus() -> None:
    assert deltas([self_draw(1, form="all_pungs")]) == [-5, 15, -5, -5]
    assert deltas([self_draw(1, form="all_pungs")], rules={"self_draw_bonus": 1}) == [-6, 18, -6, -6]
    # not on a discard
    assert deltas([discard(2, {"seat": 1, "form": "all_pungs"})],
                  rules={"self_draw_bonus": 1}) == [0, 5, -5, 0]


def test_rule_streak_bonus_winner_default() -> None:
    # n连庄胡牌付n个: the dealer on his 3rd hand wins 平胡: 1 + 2 from each
    assert deltas([self_draw(0)], dealer_streak=3) == [9, -3, -3, -3]
    assert deltas([discard(1, {"seat": 0, "form": "all_pungs"})], dealer_streak=3) == [7, -7, 0, 0]
    # a non-dealer's win is not affected
    assert deltas([self_draw(1)], dealer_streak=3) == [-1, 3, -1, -1]


def test_rule_streak_bonus_both() -> None:
    rules = {"streak_bonus": "both"}
    assert deltas([self_draw(0)], dealer_streak=3, rules=rules) == [9, -3, -3, -3]
    assert deltas([self_draw(1)], dealer_streak=3, rules=rules) == [-3, 5, -1, -1]
    assert deltas([discard(0, {"seat": 2, "pure": True})], dealer_streak=3,
                  rules=rules) == [-12, 0, 12, 0]
    assert deltas([discard(3, {"seat": 2, "pure": True})], dealer_streak=3,
                  rules=rules) == [0, 0, 10, -10]


def test_rule_streak_bonus_off() -> None:
    assert deltas([self_draw(0)], dealer_streak=3, rules={"streak_bonus": "off"}) == [3, -1, -1, -1]


def test_rule_gold_chicken() -> None:
    events = [self_draw(1, form="all_pungs"), chickens("9s", s1={"yaoji": 2})]
    assert lines(events, "chickens") == [[-6, 18, -6, -6]]
    assert lines(events, "chickens", rules={"gold_chicken": 2}) == [[-4, 12, -4, -4]]
    # only when 9s is flipped
    assert lines([events[0], chickens("9p", s1={"yaoji": 2})], "chickens",
                 rules={"gold_chicken": 2}) == [[-2, 6, -2, -2]]


def test_rule_hero_chicken() -> None:
    events = [self_draw(1, form="all_pungs"), chickens("2m", hero=1)]
    assert lines(events, "chickens") == [[-2, 6, -2, -2]]
    assert lines(events, "chickens", rules={"hero_chicken": 4}) == [[-4, 12, -4, -4]]
    assert lines(events, "chickens", rules={"hero_chicken": 0}) == []


def test_rule_count_discarded_yaoji() -> None:
    events = [self_draw(1, form="all_pungs"), chickens("2m", s1={"yaoji_out": 2, "yaoji": 1})]
    assert lines(events, "chickens") == [[-3, 9, -3, -3]]
    assert lines(events, "chickens", rules={"count_discarded_yaoji": False}) == [[-1, 3, -1, -1]]


def test_rule_bao_ji() -> None:
    events = [self_draw(1, form="all_pungs"), ready(2),
              chickens("2m", s0={"yaoji": 1, "fanji": 1}, s3={"fanji": 1})]
    assert lines(events, "bao_ji") == []
    assert sum(map(abs, deltas(events))) == 30  # only the win
    # seats 0 and 3 are not ready: each pays its own chicken value to each ready seat (1, 2)
    assert lines(events, "bao_ji", rules={"bao_ji": True}) == [[-4, 2, 2, 0], [0, 1, 1, -2]]


def test_rules_are_validated() -> None:
    with pytest.raises(ScoringError, match=r"rules\.streak_bonus"):
        score(rec([self_draw(0)], rules={"streak_bonus": "sometimes"}))
    with pytest.raises(ScoringError, match=r"rules\.gold_chicken"):
        score(rec([self_draw(0)], rules={"gold_chicken": -1}))


# -- invalid records: exit 2, one JSON error naming the field, no traceback --------------------

INVALID_CLI = [
    ("chickens on an exhausted wall",
     rec([exhausted(s0=None, s1={}, s2=None, s3=None), chickens("5p", s1={"yaoji": 1})]),
     "events[1].type"),
    ("相公 winning", rec([{"type": "dead_hand", "seat": 2}, self_draw(2, pure=True)]),
     "events[1].winners[0].seat"),
    ("seat out of range", rec([self_draw(4)]), "events[0].winners[0].seat"),
    ("平胡 off a discard", rec([discard(0, {"seat": 1})]), "events[0].winners[0]"),
    ("bad tile", rec([self_draw(1, pure=True), chickens("0z")]), "events[1].flipped"),
    ("unknown rule", rec([self_draw(1)], rules={"cap": 40}), "rules.cap"),
    ("ready lists a winner", rec([self_draw(1, pure=True), ready(1)]), "events[1].seats[0]"),
    ("ready check misses a seat", rec([exhausted(s0=None)]), "events[0].ready"),
    ("two wins", rec([self_draw(1, pure=True), self_draw(2, pure=True)]), "events[1]"),
    ("no end", rec([kong(1)]), "events"),
    ("kong after the win", rec([self_draw(1, pure=True), kong(1)]), "events[1]"),
    ("quads outside seven pairs", rec([self_draw(1, form="all_pungs", quads=1)]),
     "events[0].winners[0]"),
]


@pytest.mark.parametrize(("name", "record", "field"), INVALID_CLI, ids=[r[0] for r in INVALID_CLI])
def test_invalid_records_exit_2(name: str, record: dict, field: str) -> None:
    assert_cli_error(record, field)


INVALID = [  # (name, events, field, words in the message)
    ("kong bloom without a kong", [self_draw(1, True, pure=True)], "events[0].after_kong", "杠上花"),
    ("hot discard without a kong", [discard(2, {"seat": 1, "pure": True}, after_kong=True)],
     "events[0].after_kong", "热炮"),
    ("seven pairs with a kong", [kong(1), self_draw(1, form="seven_pairs")],
     "events[1].winners[0].form", "seven pairs"),
    ("robbed kong without its win", [kong(1, "added", robbed=True), self_draw(2, pure=True)],
     "events[0].robbed", "robbed_kong win"),
    ("robbed kong from another seat", [kong(1, "added", robbed=True), robbed(3, {"seat": 2})],
     "events[0].robbed", "seat 1"),
    ("ready before the win", [ready(2), self_draw(1, pure=True)], "events[0].type", "after the win"),
    ("ready on an exhausted wall", [exhausted(s0=None, s1=None, s2=None, s3=None), ready(2)],
     "events[1].type", "exhausted"),
    ("two chickens events", [self_draw(1, pure=True), chickens("2m"), chickens("3m")], "events[2]",
     "already"),
    ("two follow events", [{"type": "follow", "rounds": 1}, {"type": "follow", "rounds": 2},
                           self_draw(1, pure=True)], "events[1]", "already"),
    ("follow rounds too many", [{"type": "follow", "rounds": 15}], "events[0].rounds", "≤ 14"),
    ("dead hand twice", [{"type": "dead_hand", "seat": 1}, {"type": "dead_hand", "seat": 1}],
     "events[1].seat", "already"),
    ("fanji counted when 9s is flipped", [self_draw(1, pure=True), chickens("9s", s1={"fanji": 1})],
     "events[1]", "yaoji"),
    ("too many chicken tiles", [kong(1), kong(2), self_draw(1, pure=True),
                                chickens("2m", s1={"quads": 1}, s2={"quads": 1}, s3={"fanji": 1})],
     "events[3]", "more chicken tiles"),
    ("ready listed twice", [self_draw(1, pure=True), ready(2, 2)], "events[1].seats[1]", "twice"),
    ("five kongs", [kong(1)] * 5 + [self_draw(1, pure=True)], "events", "four kongs"),
    ("robbed_kong win without a robbed kong", [kong(1, "added"), robbed(1, {"seat": 2})],
     "events[1].by", "needs the robbed kong"),
    ("robbed_kong win with no kong at all", [robbed(1, {"seat": 2})], "events[0].by",
     "needs the robbed kong"),
    ("another kong between the robbed kong and its win",
     [kong(1, "added", robbed=True), kong(3), robbed(1, {"seat": 2})], "events[1]",
     "no other kong"),
    ("only a kong", [kong(1, "added")], "events", "the hand has no end"),
    ("dead hand after the win", [self_draw(1, pure=True), {"type": "dead_hand", "seat": 2}],
     "events[1]", "before the event that ended the hand"),
    ("no events", [], "events", "the hand has no end"),
    ("hot discard after another seat's kong", [kong(3), discard(2, {"seat": 1, "pure": True},
                                                                after_kong=True)],
     "events[1].after_kong", "热炮"),
    ("kong bloom after another seat's kong", [kong(3), self_draw(1, True, pure=True)],
     "events[1].after_kong", "杠上花"),
    ("robbed kong on an exhausted wall",
     [kong(1, "added", robbed=True), exhausted(s0=None, s1=None, s2=None, s3=None)],
     "events[0].robbed", "exhausted"),
]


@pytest.mark.parametrize(("name", "events", "field", "words"), INVALID, ids=[r[0] for r in INVALID])
def test_invalid_records(name: str, events: list[dict], field: str, words: str) -> None:
    with pytest.raises(ScoringError) as exc:
        score(rec(events))
    assert exc.value.field == field
    assert words in exc.value.message


# -- properties over random valid records ------------------------------------------------------

def _shape(draw: st.DrawFn, pairs_ok: bool) -> dict:
    form = draw(st.sampled_from(["standard", "all_pungs", "seven_pairs"] if pairs_ok
                                else ["standard", "all_pungs"]))
    h: dict = {"form": form, "pure": draw(st.booleans()), "declared": draw(st.booleans())}
    if form == "seven_pairs":
        h["quads"] = draw(st.integers(0, 3))
    return h


@st.composite
def guiyang_records(draw: st.DrawFn) -> dict:
    rules = {"pure_seven_pairs": draw(st.sampled_from([20, 25])),
             "self_draw_bonus": draw(st.integers(0, 2)),
             "streak_bonus": draw(st.sampled_from(["winner", "both", "off"])),
             "gold_chicken": draw(st.integers(1, 4)), "hero_chicken": draw(st.integers(0, 3)),
             "count_discarded_yaoji": draw(st.booleans()), "bao_ji": draw(st.booleans()),
             "follow_pay": draw(st.sampled_from(["last", "sum"]))}
    dead = draw(st.lists(st.integers(0, 3), max_size=2, unique=True))
    events: list[dict] = [{"type": "dead_hand", "seat": s} for s in dead]
    if draw(st.booleans()):
        events.append({"type": "follow", "rounds": draw(st.integers(1, 5))})
    kongs: dict[int, list[str]] = {s: draw(st.lists(st.sampled_from(["concealed", "added",
                                                                      "exposed"]), max_size=2))
                                   for s in range(4)}
    for s, kinds in kongs.items():
        for kind in kinds:
            events.append(kong(s, kind, draw(st.sampled_from([x for x in range(4) if x != s]))
                               if kind == "exposed" else None))
    if draw(st.integers(0, 3)) == 0:
        hands = {f"s{s}": None if s in dead or draw(st.booleans()) else _shape(draw, True)
                 for s in range(4)}
        events.append(exhausted(**hands))
        return rec(events, rules=rules, dealer=draw(st.integers(0, 3)),
                   dealer_streak=draw(st.integers(1, 4)))
    can_win = [s for s in range(4) if s not in dead]
    by = draw(st.sampled_from(["self_draw", "discard", "robbed_kong"]))
    if by == "self_draw":
        seats = [draw(st.sampled_from(can_win))]
        frm = None
    else:
        frm = draw(st.integers(0, 3))
        seats = draw(st.lists(st.sampled_from([s for s in can_win if s != frm] or can_win),
                              min_size=1, max_size=3, unique=True))
        if frm in seats:
            by, frm, seats = "self_draw", None, seats[:1]
    after_kong = False
    if by == "self_draw":
        after_kong = bool(kongs[seats[0]]) and draw(st.booleans())
    elif by == "discard":
        after_kong = bool(kongs[frm]) and draw(st.booleans())
    else:
        events.append(kong(frm, "added", robbed=True))
    winners = []
    for s in seats:
        w = {"seat": s, **_shape(draw, not kongs[s])}
        plain = w["form"] == "standard" and not w["pure"] and not w["declared"]
        if by == "discard" and not after_kong and plain and not kongs[s]:
            w["pure"] = True  # the 平胡 passport
        winners.append(w)
    win: dict = {"type": "win", "by": by, "after_kong": after_kong, "winners": winners}
    if frm is not None:
        win["from"] = frm
    events.append(win)
    others = [s for s in range(4) if s not in seats and s not in dead]
    events.append(ready(*draw(st.lists(st.sampled_from(others), unique=True)) if others else []))
    if draw(st.booleans()):
        events.append(_chickens(draw, kongs))
    return rec(events, rules=rules, dealer=draw(st.integers(0, 3)),
               dealer_streak=draw(st.integers(1, 4)),
               balances=draw(st.lists(st.integers(-100, 100), min_size=4, max_size=4)))


def _chickens(draw: st.DrawFn, kongs: dict[int, list[str]]) -> dict:
    flipped = draw(st.one_of(st.none(), st.sampled_from([f"{r}{s}" for r in range(1, 10)
                                                         for s in "mps"])))
    fan_kind = flipped is not None and flipped != "9s"
    yaoji_left, fanji_left = 4, 4 if fan_kind else 0
    quad_seat = draw(st.one_of(st.none(), st.sampled_from(
        [s for s in range(4) if "concealed" in kongs[s]] or [None])))
    if quad_seat is not None:  # a quad of the 翻鸡 if there is one, else of 幺鸡
        if fan_kind:
            fanji_left = 0
        else:
            yaoji_left = 0
    hero = None
    if yaoji_left and draw(st.booleans()):
        hero = draw(st.integers(0, 3))
        yaoji_left -= 1
    seats: dict = {}
    for s in range(4):
        h = {"yaoji": draw(st.integers(0, yaoji_left))}
        yaoji_left -= h["yaoji"]
        h["yaoji_out"] = draw(st.integers(0, yaoji_left))
        yaoji_left -= h["yaoji_out"]
        h["fanji"] = draw(st.integers(0, fanji_left))
        fanji_left -= h["fanji"]
        if s == quad_seat:
            h["quads"] = 1
        seats[f"s{s}"] = h
    return chickens(flipped, hero, **seats)


@given(guiyang_records())
def test_property_zero_sum_and_lines_add_up(record: dict) -> None:
    assert_invariants(score(record).to_dict(), record.get("balances"))


@given(guiyang_records())
def test_property_deterministic(record: dict) -> None:
    again = json.loads(json.dumps(record))
    assert score(record).to_dict() == score(again).to_dict()


@given(guiyang_records())
def test_property_dead_hands_never_gain(record: dict) -> None:
    dead = {e["seat"] for e in record["events"] if e["type"] == "dead_hand"}
    for line in score(record).lines:
        assert all(line.deltas[s] <= 0 for s in dead), line


@given(guiyang_records())
def test_property_only_ready_seats_collect_kongs_and_chickens(record: dict) -> None:
    win = next((e for e in record["events"] if e["type"] == "win"), None)
    ready_ev = next((e for e in record["events"] if e["type"] == "ready"), {"seats": []})
    ready_seats = set(ready_ev["seats"]) | ({w["seat"] for w in win["winners"]} if win else set())
    for line in score(record).lines:
        if line.what in ("kong", "chickens"):
            assert all(d <= 0 for s, d in enumerate(line.deltas) if s not in ready_seats), line


@given(guiyang_records())
def test_property_next_dealer(record: dict) -> None:
    out = score(record)
    win = next((e for e in record["events"] if e["type"] == "win"), None)
    if win is None:
        assert out.next_dealer == record["dealer"]
    elif len(win["winners"]) == 1:
        assert out.next_dealer == win["winners"][0]["seat"]
    else:
        seats = [w["seat"] for w in win["winners"]]
        assert out.next_dealer == min(seats, key=lambda s: (s - win["from"]) % 4)
