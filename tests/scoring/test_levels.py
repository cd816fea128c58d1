"""Cixi levels over a session (scoring/levels.py)."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from scoring import ScoringError
from scoring.levels import session_levels
from scoring.stats import ScoredHand

from .test_cixi import cixi_records, discard, false_win, rec, self_draw

FRESH = (100, 100, 100, 100)


def test_no_hands_yet() -> None:
    st_ = session_levels("cixi", [])
    assert st_.levels == () and st_.outcomes == ()
    assert st_.next_balances == FRESH and st_.next_level == 1 and st_.current is None
    assert st_.levels_won == (0, 0, 0, 0)
    assert session_levels("cixi", [], rules={"level_points": 200}).next_balances == (200, 200, 200, 200)
    assert session_levels("cixi", [], start=[50, 150, 100, 100]).next_balances == (50, 150, 100, 100)


def test_a_level_ends_and_the_next_one_starts_afresh() -> None:
    hands = [rec([self_draw(1, jokers=1)]),  # 86 142 86 86
             rec([self_draw(3, jokers=4)]),  # 四龙 全交: 0 0 0 400
             rec([discard(0, 1, jokers=2)])]  # level 2: 84 132 92 92
    st_ = session_levels("cixi", hands)
    one, two = st_.levels
    assert (one.number, one.hands, one.ended, one.ended_at) == (1, (0, 1), True, 1)
    assert one.start_balances == FRESH and one.final_balances == (0, 0, 0, 400)
    assert one.deltas == (-100, -100, -100, 300)
    assert one.ended_by == (0, 1, 2) and one.won_by == (3,)
    assert (two.number, two.hands, two.ended, two.ended_at) == (2, (2,), False, None)
    assert two.start_balances == FRESH and two.final_balances == (84, 132, 92, 92)
    assert two.ended_by == () and two.won_by == () and two.leaders == (1,)
    assert st_.current is two and st_.finished == (one,)
    assert st_.next_balances == (84, 132, 92, 92) and st_.next_level == 2
    assert st_.levels_won == (0, 0, 0, 1)
    assert [o.balances for o in st_.outcomes] == [(86, 142, 86, 86), (0, 0, 0, 400),
                                                  (84, 132, 92, 92)]


def test_level_ending_on_the_last_hand() -> None:
    st_ = session_levels("cixi", [rec([self_draw(2, jokers=1)], balances=[10, 100, 100, 190])])
    (lv,) = st_.levels
    assert lv.ended and lv.final_balances == (0, 86, 138, 176) and lv.won_by == (3,)
    assert lv.ended_by == (0,)
    assert st_.next_balances == FRESH and st_.next_level == 2 and st_.current is None


def test_false_win_alone_can_end_a_level() -> None:
    st_ = session_levels("cixi", [rec([false_win(0), {"type": "exhausted"}])], start=[20, 120, 130, 130])
    (lv,) = st_.levels
    assert lv.final_balances == (0, 127, 137, 136) and lv.ended and lv.won_by == (2,)


def test_stored_balances_are_rebuilt_from_the_chain() -> None:
    # hand 1 was stored with balances from a hand later undone; the chain wins
    hands = [rec([self_draw(1, jokers=1)]),
             rec([self_draw(2, jokers=1)], balances=[5, 5, 5, 385])]
    st_ = session_levels("cixi", hands)
    assert st_.outcomes[1].balances == (72, 128, 128, 72)
    assert not st_.levels[0].ended


def test_first_record_balances_or_start_begin_the_chain() -> None:
    first = rec([self_draw(1, jokers=1)], balances=[10, 100, 100, 190])
    assert session_levels("cixi", [first]).levels[0].start_balances == (10, 100, 100, 190)
    st_ = session_levels("cixi", [first], start=[100, 100, 100, 100])
    assert st_.levels[0].start_balances == FRESH and not st_.levels[0].ended


def test_level_points_of_the_ending_hand_start_the_next_level() -> None:
    hands = [rec([self_draw(1, jokers=4)], rules={"level_points": 50})]
    st_ = session_levels("cixi", hands)
    assert st_.levels[0].final_balances == (0, 200, 0, 0)
    assert st_.next_balances == (50, 50, 50, 50)


def test_tied_winners_each_win_the_level() -> None:
    st_ = session_levels("cixi", [rec([self_draw(1, jokers=1)], balances=[14, 14, 186, 186])])
    (lv,) = st_.levels
    assert lv.final_balances == (0, 56, 172, 172) and lv.won_by == (2, 3)
    assert st_.levels_won == (0, 0, 1, 1)


def test_stored_hands_with_a_record_attribute() -> None:
    stored = [ScoredHand(rec([self_draw(1, jokers=1)]), {}, ("a", "b", "c", "d"))]
    assert session_levels("cixi", stored).next_balances == (86, 142, 86, 86)


def test_other_variants_are_refused() -> None:
    with pytest.raises(ScoringError) as exc:
        session_levels("cixi", [rec([{"type": "exhausted"}]), {"variant": "luzhou", "events": []}])
    assert exc.value.field == "hands[1].variant"


def test_an_invalid_hand_names_its_position() -> None:
    with pytest.raises(ScoringError) as exc:
        session_levels("cixi", [rec([{"type": "exhausted"}]), rec([self_draw(1, jokers=9)])])
    assert exc.value.field == "hands[1].events[0].winners[0].jokers"


# -- properties over random sessions ------------------------------------------------------------

@st.composite
def sessions(draw: st.DrawFn) -> tuple[dict, list[dict]]:
    rules = {"level_points": draw(st.sampled_from([30, 100])),
             "false_win_points": draw(st.sampled_from([24, 12])),
             "streak_bonus": draw(st.sampled_from([0, 3]))}
    hands = draw(st.lists(cixi_records(), max_size=12))
    for hand in hands:
        hand["rules"] = rules
        hand.pop("balances")
    return rules, hands


@given(sessions())
def test_property_levels_partition_and_chain(session: tuple[dict, list[dict]]) -> None:
    rules, hands = session
    lp = rules["level_points"]
    st_ = session_levels("cixi", hands, rules=rules)
    assert [i for lv in st_.levels for i in lv.hands] == list(range(len(hands)))
    assert [lv.number for lv in st_.levels] == list(range(1, len(st_.levels) + 1))
    for lv in st_.levels:
        assert lv.start_balances == (lp,) * 4
        assert sum(lv.final_balances) == 4 * lp
        assert min(lv.final_balances) >= 0
        assert lv.ended == (0 in lv.final_balances)
        assert st_.outcomes[lv.hands[-1]].balances == lv.final_balances
    assert all(lv.ended for lv in st_.levels[:-1])
    start = (lp,) * 4
    for out in st_.outcomes:  # each hand starts where the last one left off, or afresh
        assert min(out.balances) >= 0
        assert tuple(b - d for b, d in zip(out.balances, out.deltas, strict=True)) == start
        start = (lp,) * 4 if out.level_over else out.balances
    assert st_.next_balances == start
    assert sum(st_.levels_won) >= len(st_.finished)
