"""Cixi (docs/rules/cixi.md; its worked examples in test_worked_examples.py): the seed's values,
who pays, 全交, 炸胡, levels' bankroll, rule options, properties, invalid records."""

from __future__ import annotations

import json

import pytest
from hypothesis import given
from hypothesis import strategies as st

from scoring import ScoringError, score

from .cli import assert_cli_error, assert_invariants, discard, robbed, self_draw


def rec(events: list[dict], **extra: object) -> dict:
    return {"variant": "cixi", "dealer": 0, "dealer_streak": 1, "events": events, **extra}


def false_win(seat: int) -> dict:
    return {"type": "false_win", "seat": seat}


def deltas(events: list[dict], **extra: object) -> list[int]:
    return score(rec(events, **extra)).to_dict()["deltas"]


# -- the seed's values ----------------------------------------------------------------------

SELF_DRAWN = [  # (name, features, after_kong, V)
    ("一龙推胡", {"jokers": 1}, False, 14),
    ("双龙推胡", {"jokers": 2}, False, 16),
    ("三龙推胡", {"jokers": 3}, False, 18),
    ("无龙会", {}, False, 16),
    ("对对胡 一龙", {"jokers": 1, "all_pungs": True}, False, 16),
    ("混一色 一龙", {"jokers": 1, "half_flush": True}, False, 16),
    ("大乱 一龙", {"jokers": 1, "chaos": True}, False, 16),
    ("有龙七对", {"jokers": 1, "seven_pairs": True}, False, 16),
    ("有龙七风", {"jokers": 1, "seven_winds": True}, False, 26),  # 1 + 大乱 1 + 5
    ("抛花 一龙", {"jokers": 1, "joker_single": True}, False, 24),
    ("飞马 一龙", {"jokers": 1, "flying_horse": True}, False, 34),
    ("杠上抛花 一龙", {"jokers": 1, "kong_joker_single": True}, True, 34),
    ("杠头开花 一龙", {"jokers": 1}, True, 24),
    ("上堂 一下", {"jokers": 1, "promotions": 1}, False, 24),
    ("上堂 两下", {"jokers": 1, "promotions": 2}, False, 34),
    ("无龙清七对", {"seven_pairs": True}, False, 26),
    ("无龙七风", {"seven_winds": True}, False, 28),
    ("有龙清一色", {"jokers": 1, "pure": True}, False, 24),
    ("独吊 一龙", {"jokers": 1, "single_wait": True}, False, 24),
    ("有龙清一色七对", {"jokers": 1, "pure": True, "seven_pairs": True}, False, 26),
]


@pytest.mark.parametrize(("name", "features", "after_kong", "value"), SELF_DRAWN,
                         ids=[r[0] for r in SELF_DRAWN])
def test_seed_value_self_drawn(name: str, features: dict, after_kong: bool, value: int) -> None:
    out = score(rec([self_draw(1, after_kong, **features)]))
    assert out.lines[0].value == value
    assert out.deltas == (-value, 3 * value, -value, -value)


def test_joker_single_after_kong_is_worth_kong_joker_single() -> None:
    a = score(rec([self_draw(1, True, jokers=1, joker_single=True)]))
    b = score(rec([self_draw(1, True, jokers=1, kong_joker_single=True)]))
    assert a.deltas == b.deltas == (-34, 102, -34, -34)


@pytest.mark.parametrize(("jokers", "paid"), [(1, (14, 7, 7)), (2, (16, 8, 8)), (3, (18, 9, 9))])
def test_discard_pays_v_and_halves(jokers: int, paid: tuple[int, int, int]) -> None:
    d, a, b = paid
    assert deltas([discard(2, 1, jokers=jokers)]) == [-a, d + a + b, -d, -b]


TONGFU = [  # 统付 hands off a discard: each of the three pays V anyway
    ("无龙清七对", {"seven_pairs": True}, 26),
    ("无龙七风", {"seven_winds": True}, 28),
    ("有龙清一色", {"jokers": 1, "pure": True}, 24),
    ("独吊", {"jokers": 1, "single_wait": True}, 24),
]


@pytest.mark.parametrize(("name", "features", "value"), TONGFU, ids=[r[0] for r in TONGFU])
def test_pays_all_hands_off_a_discard(name: str, features: dict, value: int) -> None:
    out = score(rec([discard(3, 1, **features)]))
    assert out.deltas == (-value, 3 * value, -value, -value)
    assert "pays_all" in out.lines[0].terms


def test_earthly_on_the_dealers_first_discard_pays_all() -> None:
    assert deltas([discard(0, 2, jokers=1, earthly=True)]) == [-24, -24, 72, -24]


# -- one seat pays all three shares -----------------------------------------------------------

def test_kong_discard_pays_three_shares() -> None:  # 杠上炮: 72 from the kong player
    out = score(rec([discard(3, 1, after_kong=True, jokers=1)]))
    assert out.deltas == (0, 72, 0, -72)
    assert "kong_discard" in out.lines[0].terms


def test_robbed_kong_owner_pays_three_shares() -> None:  # 拦杠胡
    assert deltas([robbed(2, 0, jokers=1)]) == [72, 0, -72, 0]


RICH_2 = [50, 50, 250, 50]  # seat 2 can pay more than 100


def test_flying_horse_is_a_self_draw_34_from_each() -> None:
    assert deltas([self_draw(1, jokers=1, flying_horse=True)], balances=RICH_2) == [
        -34, 102, -34, -34]
    assert_cli_error(rec([discard(2, 1, jokers=1, flying_horse=True)]),
                     "events[0].winners[0].flying_horse")


def test_flying_horse_by_the_seat_that_broke_down_pays_three_shares() -> None:  # seed: 102
    out = score(rec([discard(2, 1, jokers=1, flying_horse_by=2)], balances=RICH_2))
    assert out.deltas == (0, 102, -102, 0)
    assert out.lines[0].value == 34 and "flying_horse_risk" in out.lines[0].terms
    # without a 龙 in the winner's hand: 无龙会 2 + 10, V 36
    assert deltas([discard(2, 1, flying_horse_by=2)], balances=RICH_2) == [0, 108, -108, 0]


@pytest.mark.parametrize("event", [
    self_draw(1, jokers=1, flying_horse_by=2),
    discard(3, 1, jokers=1, flying_horse_by=2),
    robbed(2, 1, jokers=1, flying_horse_by=2),
], ids=["self-draw", "another discarder", "robbed kong"])
def test_flying_horse_by_needs_a_discard_from_that_seat(event: dict) -> None:
    error = assert_cli_error(rec([event]), "events[0].winners[0].flying_horse_by")
    assert "seat 2" in error


def test_flying_horse_by_and_hoarded_winds_by_two_seats_is_refused() -> None:
    both = discard(2, 1, jokers=1, chaos=True, flying_horse_by=2, hoarded_winds_by=3)
    assert "seat 2 already pays all three shares" in assert_cli_error(
        rec([both]), "events[0].winners[0].hoarded_winds_by")


def test_hoarded_winds_seat_pays_three_shares() -> None:
    # 关风向 +5 in place of 大乱's +1, one 龙: L 6, V 24; the hoarder pays 72 (the seed's 72)
    out = score(rec([discard(2, 1, jokers=1, chaos=True, hoarded_winds_by=3)]))
    assert out.deltas == (0, 72, 0, -72)
    assert "chaos" not in out.lines[0].terms and "hoarded_winds" in out.lines[0].terms
    assert score(rec([self_draw(1, jokers=1, chaos=True, hoarded_winds_by=0)])).deltas == (
        -72, 72, 0, 0)


def test_hoarder_may_also_be_the_kong_discarder() -> None:
    out = score(rec([discard(2, 1, after_kong=True, jokers=1, chaos=True, hoarded_winds_by=2)],
                    balances=RICH_2))
    assert out.deltas == (0, 102, -102, 0)  # L = 1 + 5 (关风向) + 5 (杠上炮) = 11, V 34


def test_seven_winds_is_a_chaos_hand_counted_once() -> None:
    both = score(rec([self_draw(1, jokers=1, seven_winds=True, chaos=True)]))
    alone = score(rec([self_draw(1, jokers=1, seven_winds=True)]))
    assert both.deltas == alone.deltas == (-26, 78, -26, -26)
    assert both.lines[0].terms.count("chaos") == 1
    # 无龙七风: 无龙会 2 + 大乱 1 + 5 = 8 → 28, 统付 off a discard too
    clean = score(rec([discard(3, 1, seven_winds=True, chaos=True)]))
    assert clean.deltas == (-28, 84, -28, -28)
    # 关风向 on a 七风: its +5 replaces 大乱's +1
    assert score(rec([discard(3, 1, jokers=1, seven_winds=True, hoarded_winds_by=0)],
                     balances=[250, 50, 50, 50])).deltas == (-102, 102, 0, 0)


def test_three_shares_are_cut_to_what_the_payer_holds() -> None:
    out = score(rec([robbed(2, 0, jokers=1)], balances=[150, 150, 50, 50]))
    assert out.deltas == (50, 0, -50, 0)
    assert out.balances == (200, 150, 0, 50)
    assert out.level_over


# -- 全交 --------------------------------------------------------------------------------------

ALL_IN = [
    ("全风", {"jokers": 1, "all_honors": True}, "self_draw"),
    ("四龙", {"jokers": 4}, "self_draw"),
    ("天胡", {"jokers": 1, "heavenly": True}, "self_draw"),
    ("十风", {"ten_winds": True}, "self_draw"),
    ("无龙清一色", {"pure": True}, "discard"),
    ("无龙清一色清七对", {"pure": True, "seven_pairs": True}, "self_draw"),
]


@pytest.mark.parametrize(("name", "features", "by"), ALL_IN, ids=[r[0] for r in ALL_IN])
def test_all_in_takes_every_balance(name: str, features: dict, by: str) -> None:
    ev = self_draw(0, **features) if by == "self_draw" else discard(1, 0, **features)
    out = score(rec([ev], balances=[40, 130, 70, 160]))
    assert out.deltas == (360, -130, -70, -160)
    assert out.balances == (400, 0, 0, 0)
    assert out.level_over
    assert out.lines[0].what == "all_in"


# -- 炸胡 --------------------------------------------------------------------------------------

def test_false_win_pays_each_and_play_goes_on() -> None:
    out = score(rec([false_win(1), discard(3, 2, jokers=1)]))
    assert [line.deltas for line in out.lines] == [(24, -72, 24, 24), (-7, -7, 28, -14)]
    assert out.deltas == (17, -79, 52, 10)


EXHAUSTED = {"type": "exhausted"}


def test_false_win_short_splits_equally_remainder_in_turn_order() -> None:
    out = score(rec([false_win(2), EXHAUSTED], balances=[130, 130, 10, 130]))
    # 10 → 3 each, the remaining 1 to seat 2's next seat (3)
    assert out.deltas == (3, 3, -10, 4)
    assert out.level_over


def test_false_win_then_the_offender_pays_nothing_more() -> None:
    out = score(rec([false_win(2), self_draw(0, jokers=1)], balances=[130, 130, 10, 130]))
    assert out.lines[1].deltas == (28, -14, 0, -14)
    assert out.balances == (161, 119, 0, 120)


def test_false_winner_may_not_win_later() -> None:
    with pytest.raises(ScoringError, match="false win") as exc:
        score(rec([false_win(1), self_draw(1, jokers=1)]))
    assert exc.value.field == "events[1].winners[0].seat"


# -- the dealer ---------------------------------------------------------------------------------

def test_dealer_stays_on_his_win() -> None:
    out = score(rec([self_draw(2, jokers=1)], dealer=2, dealer_streak=3))
    assert (out.next_dealer, out.next_dealer_streak) == (2, 4)


def test_dealer_stays_on_exhausted_wall() -> None:
    out = score(rec([false_win(1), {"type": "exhausted"}], dealer=1))
    assert (out.next_dealer, out.next_dealer_streak) == (1, 2)
    assert out.deltas == (24, -72, 24, 24)


def test_deal_passes_and_round_wind_turns() -> None:
    out = score(rec([self_draw(1, jokers=1)], dealer=3, dealer_streak=2, round_wind=1))
    assert (out.next_dealer, out.next_dealer_streak, out.next_round_wind) == (0, 1, 2)


# -- rule options ------------------------------------------------------------------------------

def test_rule_level_points_sets_the_starting_balances() -> None:
    out = score(rec([self_draw(1, jokers=1)]))
    assert out.balances == (86, 142, 86, 86)
    out = score(rec([self_draw(1, jokers=1)], rules={"level_points": 200}))
    assert out.balances == (186, 242, 186, 186)


def test_rule_false_win_points() -> None:
    assert deltas([false_win(0), EXHAUSTED]) == [-72, 24, 24, 24]
    assert deltas([false_win(0), EXHAUSTED], rules={"false_win_points": 12}) == [-36, 12, 12, 12]
    # the equal split starts below 3 × the rule's points
    assert deltas([false_win(0), EXHAUSTED], rules={"false_win_points": 50}) == [
        -100, 34, 33, 33]


@pytest.mark.parametrize("events", [[], [false_win(0)], [false_win(0), false_win(1)]],
                         ids=["no events", "a false win only", "two false wins"])
def test_a_hand_without_its_end_is_refused(events: list[dict]) -> None:
    error = assert_cli_error(rec(events), "events")
    assert "the hand has no end" in error


def test_rule_streak_bonus_on_payments_to_and_by_the_dealer() -> None:
    ev = [discard(0, 1, jokers=1)]
    assert deltas(ev, dealer_streak=3) == [-14, 28, -7, -7]
    # 2 per extra dealer hand: the dealer (seat 0, third hand) pays 14 + 4
    assert deltas(ev, dealer_streak=3, rules={"streak_bonus": 2}) == [-18, 32, -7, -7]
    # the dealer winning collects +4 on every payment
    won = [self_draw(0, jokers=1)]
    assert deltas(won, dealer_streak=3, rules={"streak_bonus": 2}) == [54, -18, -18, -18]
    # a first-hand dealer has no streak to pay for
    assert deltas(ev, rules={"streak_bonus": 2}) == [-14, 28, -7, -7]


def test_balances_default_to_level_points_each() -> None:
    out = score(rec([self_draw(1, jokers=1)], rules={"level_points": 10}))
    assert out.deltas == (-10, 30, -10, -10)
    assert out.level_over


# -- invalid records -----------------------------------------------------------------------------

INVALID = [
    ("two winners on a discard",
     rec([{"type": "win", "by": "discard", "from": 0, "winners": [{"seat": 1}, {"seat": 2}]}]),
     "events[0].winners"),
    ("false winner wins", rec([false_win(1), self_draw(1)]), "events[1].winners[0].seat"),
    ("a seat at 0", rec([], balances=[0, 130, 130, 140]), "balances[0]"),
    ("negative balance", rec([], balances=[-5, 130, 130, 145]), "balances[0]"),
    ("too many jokers", rec([self_draw(1, jokers=5)]), "events[0].winners[0].jokers"),
    ("unknown feature", rec([self_draw(1, dragons=2)]), "events[0].winners[0].dragons"),
    ("unknown rule", rec([], rules={"level_pts": 100}), "rules.level_pts"),
    ("joker_single off a discard", rec([discard(0, 1, jokers=1, joker_single=True)]),
     "events[0].winners[0].joker_single"),
    ("lone-龙 wait without a 龙", rec([self_draw(1, flying_horse=True)]),
     "events[0].winners[0].jokers"),
    ("飞马 and 独吊", rec([self_draw(1, jokers=1, flying_horse=True, single_wait=True)]),
     "events[0].winners[0].single_wait"),
    ("earthly by the dealer", rec([self_draw(0, jokers=1, earthly=True)]),
     "events[0].winners[0].earthly"),
    ("heavenly by a non-dealer", rec([self_draw(1, heavenly=True)]),
     "events[0].winners[0].heavenly"),
    ("hoarding without 大乱", rec([self_draw(1, jokers=1, hoarded_winds_by=2)]),
     "events[0].winners[0].hoarded_winds_by"),
    ("two responsible seats", rec([robbed(2, 1, jokers=1, chaos=True, hoarded_winds_by=3)]),
     "events[0].winners[0].hoarded_winds_by"),
    ("two shapes", rec([self_draw(1, all_pungs=True, seven_pairs=True)]),
     "events[0].winners[0].seven_pairs"),
    ("kong_joker_single not on a kong", rec([self_draw(1, jokers=1, kong_joker_single=True)]),
     "events[0].winners[0].kong_joker_single"),
    ("events after the win", rec([self_draw(1), false_win(2)]), "events[1]"),
    ("ready hands are not checked", rec([{"type": "exhausted", "ready": {}}]), "events[0].ready"),
    ("kong events are not scored", rec([{"type": "kong", "seat": 0, "kind": "concealed"}]),
     "events[0]"),
]


@pytest.mark.parametrize(("name", "record", "field"), INVALID, ids=[r[0] for r in INVALID])
def test_invalid_records_raise(name: str, record: dict, field: str) -> None:
    with pytest.raises(ScoringError) as exc:
        score(record)
    assert exc.value.field == field, exc.value


@pytest.mark.parametrize(("name", "record", "field"), INVALID[:6], ids=[r[0] for r in INVALID[:6]])
def test_invalid_records_exit_2(name: str, record: dict, field: str) -> None:
    assert_cli_error(record, field)


# -- properties over random valid records --------------------------------------------------------

@st.composite
def winner(draw: st.DrawFn, *, seat: int, by: str, after_kong: bool, frm: int | None, dealer: int,
           first: bool) -> dict:
    f: dict = {"seat": seat, "jokers": draw(st.integers(0, 4))}
    form = draw(st.sampled_from([None, "all_pungs", "seven_pairs", "chaos", "seven_winds"]))
    if form:
        f[form] = True
    if form == "seven_winds":
        f["chaos"] = draw(st.booleans())  # implied; saying it too counts 大乱 once
    suit = draw(st.sampled_from([None, "pure", "half_flush"]))
    if suit:
        f[suit] = True
    lone_choices: list[str | None] = [None]
    if by == "self_draw":
        lone_choices += ["joker_single", "flying_horse"]
        if after_kong:
            lone_choices.append("kong_joker_single")
    lone = draw(st.sampled_from(lone_choices))
    if lone:
        f[lone] = True
        f["jokers"] = max(1, f["jokers"])
    elif form in (None, "all_pungs"):
        f["single_wait"] = draw(st.booleans())
    f["promotions"] = draw(st.integers(0, 2))
    f["all_honors"] = draw(st.booleans()) and draw(st.booleans())
    f["ten_winds"] = draw(st.booleans()) and draw(st.booleans())
    if first and by == "self_draw" and seat == dealer:
        f["heavenly"] = draw(st.booleans())
    if first and by == "discard" and frm == dealer and seat != dealer:
        f["earthly"] = draw(st.booleans())
    if by == "discard" and draw(st.booleans()):
        f["flying_horse_by"] = frm
    if form in ("chaos", "seven_winds") and draw(st.booleans()):
        forced = frm if (by == "robbed_kong" or (by == "discard" and (
            after_kong or "flying_horse_by" in f))) else None
        f["hoarded_winds_by"] = forced if forced is not None else draw(
            st.sampled_from([s for s in range(4) if s != seat]))
    return f


@st.composite
def cixi_records(draw: st.DrawFn) -> dict:
    rules = {"level_points": draw(st.sampled_from([100, 200, 30])),
             "false_win_points": draw(st.sampled_from([24, 12, 0, 50])),
             "streak_bonus": draw(st.sampled_from([0, 1, 5]))}
    balances = draw(st.lists(st.integers(1, 250), min_size=4, max_size=4))
    dealer = draw(st.integers(0, 3))
    events: list[dict] = []
    offenders: set[int] = set()
    for _ in range(draw(st.integers(0, 2))):
        seat = draw(st.integers(0, 3))
        offenders.add(seat)
        events.append(false_win(seat))
    end = draw(st.sampled_from(["win", "win", "win", "exhausted"]))
    if end == "exhausted" or len(offenders) == 4:
        events.append({"type": "exhausted"})
    elif end == "win" and len(offenders) < 4:
        seat = draw(st.sampled_from([s for s in range(4) if s not in offenders]))
        by = draw(st.sampled_from(["self_draw", "discard", "robbed_kong"]))
        after_kong = by != "robbed_kong" and draw(st.booleans())
        frm = None if by == "self_draw" else draw(st.sampled_from([s for s in range(4) if s != seat]))
        w = draw(winner(seat=seat, by=by, after_kong=after_kong, frm=frm, dealer=dealer,
                        first=not events))
        ev: dict = {"type": "win", "by": by, "after_kong": after_kong, "winners": [w]}
        if frm is not None:
            ev["from"] = frm
        events.append(ev)
    return rec(events, rules=rules, balances=balances, dealer=dealer,
               dealer_streak=draw(st.integers(1, 5)))


@given(cixi_records())
def test_property_zero_sum_and_lines_add_up(record: dict) -> None:
    assert_invariants(score(record).to_dict(), record["balances"])


@given(cixi_records())
def test_property_deterministic(record: dict) -> None:
    again = json.loads(json.dumps(record))
    assert score(record).to_dict() == score(again).to_dict()


@given(cixi_records())
def test_property_never_below_zero_and_level_over_exactly_at_zero(record: dict) -> None:
    out = score(record)
    assert min(out.balances) >= 0
    assert out.level_over == (0 in out.balances)


@given(cixi_records())
def test_property_only_the_winner_gains_from_a_win(record: dict) -> None:
    for line in score(record).lines:
        if line.what in ("win", "all_in"):
            assert [s for s in range(4) if line.deltas[s] > 0] in ([], [line.seat])
