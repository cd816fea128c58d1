"""Any style's results (docs/rules/free.md; its worked examples in test_worked_examples.py): the
points each seat won, a winner's amount and who pays it, the deal, refusals, properties."""

from __future__ import annotations

import json

import pytest
from hypothesis import given
from hypothesis import strategies as st

from scoring import ScoringError, get_variant, score
from scoring.variant import listed

from .cli import assert_cli_error, assert_invariants, run_cli


def rec(events: list[dict], **extra: object) -> dict:
    return {"variant": "free", "dealer": 0, "dealer_streak": 1, "events": events, **extra}


def points(**by_seat: int) -> dict:
    return {"type": "points", "points": {k[1:]: v for k, v in by_seat.items()}}


def self_draw(seat: int, **winner: object) -> dict:
    return {"type": "win", "by": "self_draw", "winners": [{"seat": seat, **winner}]}


def discard(frm: int, seat: int, **winner: object) -> dict:
    return {"type": "win", "by": "discard", "from": frm, "winners": [{"seat": seat, **winner}]}


KEEPS = {"deal": "winner_keeps"}


def test_the_style_is_listed_after_the_scored_ones() -> None:
    assert [v.name for v in listed()][-1] == "free"
    assert get_variant("free").ends_hand == frozenset({"points"})


def test_points_are_booked_as_typed_and_a_seat_not_named_scored_nothing() -> None:
    out = score(rec([points(s0=12, s1=-4, s2=-8)]))
    assert out.deltas == (12, -4, -8, 0)
    assert [(ln.what, ln.seat, ln.deltas) for ln in out.lines] == [("points", None, (12, -4, -8, 0))]


@pytest.mark.parametrize(("given", "says"), [
    ({"0": 12, "1": -4, "2": -4}, "add up to +4, not 0: someone has 4 too many"),
    ({"0": 3, "1": -4}, "add up to −1, not 0: someone has 1 too few"),
])
def test_points_that_do_not_add_up_to_zero_are_refused_naming_the_difference(
        given: dict, says: str) -> None:
    error = assert_cli_error(rec([{"type": "points", "points": given}]), "events[0].points")
    assert says in error
    with pytest.raises(ScoringError) as exc:
        score(rec([{"type": "points", "points": given}]))
    assert exc.value.params == {"total": abs(sum(given.values()))}  # what the bot translates


@pytest.mark.parametrize("given", [{"4": 1, "0": -1}, {"0": 1.5, "1": -1.5}, {"0": "+3", "1": -3},
                                   {"0": 100_000, "1": -100_000}])
def test_a_points_hand_refuses_a_seat_that_is_none_a_fraction_and_a_word(given: dict) -> None:
    error = assert_cli_error(rec([{"type": "points", "points": given}]))
    assert error.startswith("events[0].points"), error


def test_a_self_draw_takes_the_amount_from_each_other_seat() -> None:
    assert score(rec([self_draw(1, amount=7)])).deltas == (-7, 21, -7, -7)


def test_a_discard_costs_the_discarder_alone_or_everyone_where_all_pay() -> None:
    assert score(rec([discard(3, 2, amount=5)])).deltas == (0, 0, 5, -5)
    assert score(rec([discard(3, 2, amount=5, all_pay=True)])).deltas == (-5, -5, 15, -5)


def test_a_win_needs_an_amount_of_at_least_one() -> None:
    assert_cli_error(rec([self_draw(1)]), "events[0].winners[0].amount")
    assert_cli_error(rec([self_draw(1, amount=0)]), "events[0].winners[0].amount")


def test_a_win_is_self_drawn_or_off_a_discard_and_nothing_about_kongs() -> None:
    v = get_variant("free")
    assert v.win_types(v.read_rules({})) == ("self_draw", "discard")
    robbed = {"type": "win", "by": "robbed_kong", "from": 1, "winners": [{"seat": 0, "amount": 1}]}
    assert_cli_error(rec([robbed]), "events[0].by")
    assert_cli_error(rec([{**self_draw(0, amount=1), "after_kong": True}]), "events[0].after_kong")
    assert_cli_error(rec([discard(1, 1, amount=1)]), "events[0]")
    assert_cli_error(rec([{**discard(1, 0, amount=1), "from": None}]), "events[0]")
    two = {"type": "win", "by": "self_draw", "winners": [{"seat": 0, "amount": 1},
                                                         {"seat": 1, "amount": 1}]}
    assert_cli_error(rec([two]), "events[0]")


def test_one_result_is_one_hand() -> None:
    assert_cli_error(rec([points(s0=1, s1=-1), points(s0=1, s1=-1)]), "events[1]")
    assert_cli_error(rec([self_draw(1, amount=1), {"type": "exhausted"}]), "events[1]")
    assert_cli_error(rec([]), "events")


def test_no_result_pays_nothing() -> None:
    assert score(rec([{"type": "exhausted"}])).deltas == (0, 0, 0, 0)


@pytest.mark.parametrize(("events", "rules", "dealer"), [
    ([points(s0=5, s1=-5)], {}, 1),  # passes: every hand
    ([points(s0=5, s1=-5)], KEEPS, 0),  # the dealer gained most
    ([points(s0=5, s2=5, s1=-10)], KEEPS, 0),  # tied for most: he keeps it
    ([points(s1=5, s0=-5)], KEEPS, 1),  # another seat won
    ([points()], KEEPS, 0),  # all at 0: nobody won
    ([{"type": "exhausted"}], KEEPS, 0),
    ([discard(1, 2, amount=3)], KEEPS, 1),
    ([self_draw(0, amount=3)], KEEPS, 0),
])
def test_who_deals_next(events: list[dict], rules: dict, dealer: int) -> None:
    assert score(rec(events, rules=rules)).next_dealer == dealer


def test_the_round_wind_turns_when_the_deal_comes_back_to_seat_0() -> None:
    out = score(rec([points(s0=1, s3=-1)], dealer=3, round_wind=1))
    assert (out.next_dealer, out.next_round_wind) == (0, 2)


def test_an_unknown_deal_rule_is_refused() -> None:
    assert_cli_error(rec([{"type": "exhausted"}], rules={"deal": "sometimes"}), "rules.deal")


# -- properties ----------------------------------------------------------------------------------

@st.composite
def zero_sum_points(draw: st.DrawFn) -> dict[str, int]:
    three = draw(st.lists(st.integers(-500, 500), min_size=3, max_size=3))
    values = [*three, -sum(three)]
    return {str(s): v for s, v in enumerate(values) if v}


@st.composite
def free_records(draw: st.DrawFn) -> dict:
    kind = draw(st.sampled_from(["points", "self_draw", "discard", "exhausted"]))
    if kind == "points":
        event: dict = {"type": "points", "points": draw(zero_sum_points())}
    elif kind == "exhausted":
        event = {"type": "exhausted"}
    else:
        winner = draw(st.integers(0, 3))
        amount = draw(st.integers(1, 1000))
        if kind == "self_draw":
            event = self_draw(winner, amount=amount)
        else:
            frm = draw(st.sampled_from([s for s in range(4) if s != winner]))
            event = discard(frm, winner, amount=amount, all_pay=draw(st.booleans()))
    return rec([event], dealer=draw(st.integers(0, 3)),
               rules={"deal": draw(st.sampled_from(["passes", "winner_keeps"]))})


@given(free_records())
def test_every_hand_is_zero_sum_and_books_what_was_typed(record: dict) -> None:
    out = score(record).to_dict()
    assert_invariants(out)
    ev = record["events"][0]
    if ev["type"] == "points":
        assert out["deltas"] == [ev["points"].get(str(s), 0) for s in range(4)]


@given(free_records())
def test_scoring_is_deterministic(record: dict) -> None:
    assert score(json.loads(json.dumps(record))).to_dict() == score(record).to_dict()


@given(zero_sum_points(), st.integers(-50, 50).filter(bool), st.integers(0, 3))
def test_any_points_off_zero_are_refused(pts: dict[str, int], off: int, seat: int) -> None:
    moved = dict(pts)
    moved[str(seat)] = moved.get(str(seat), 0) + off
    with pytest.raises(ScoringError, match="add up to"):
        score(rec([{"type": "points", "points": moved}]))


def test_the_command_line_scores_a_points_hand() -> None:
    code, out, _ = run_cli(rec([points(s0=2, s1=-2)]))
    assert code == 0 and out["deltas"] == [2, -2, 0, 0]
