"""Luzhou (docs/rules/luzhou.md; its worked examples in test_worked_examples.py): the seed's
value table, properties, errors."""

from __future__ import annotations

import json

import pytest
from hypothesis import given
from hypothesis import strategies as st

from scoring import IncompleteHand, ScoringError, score

from .cli import assert_cli_error, assert_invariants, run_cli, self_draw


def rec(events: list[dict], *, end: bool = True, **extra: object) -> dict:
    """A Luzhou record. With `end`, a hand still going on after its wins is closed by an
    exhausted wall with every seat still in ready (查叫 then moves nothing), so a test about one
    win scores a whole hand; `end=False` leaves the events as given."""
    if end and not _over(events):
        won = {w["seat"] for e in events if e.get("type") == "win" for w in e["winners"]}
        events = [*events, {"type": "exhausted",
                            "ready": {str(s): {} for s in range(4) if s not in won}}]
    return {"variant": "luzhou", "dealer": 0, "dealer_streak": 1, "events": events, **extra}


def _over(events: list[dict]) -> bool:
    won = sum(len(e["winners"]) for e in events if isinstance(e, dict) and e.get("type") == "win")
    return won >= 3 or any(isinstance(e, dict) and e.get("type") in ("exhausted", "kong")
                           for e in events)


def discard(frm: int, *winners: dict, after_kong: bool = False) -> dict:
    return {"type": "win", "by": "discard", "from": frm, "after_kong": after_kong,
            "winners": list(winners)}


# -- the seed's value list (牌型番数), every row, uncapped ----------------------------------------

SELF_DRAWN = [  # (name in the seed, winner features, after_kong, value)
    ("平胡", {}, False, 2),
    ("闺自摸", {"quads": 1}, False, 5),
    ("双闺自摸", {"quads": 2}, False, 10),
    ("三闺自摸", {"quads": 3}, False, 20),
    ("平胡杠上花", {"quads": 1}, True, 10),
    ("双闺杠上花", {"quads": 2}, True, 20),
    ("大对子", {"form": "all_pungs"}, False, 10),
    ("七对", {"form": "seven_pairs"}, False, 10),
    ("清一色", {"pure": True}, False, 10),
    ("闺对", {"form": "all_pungs", "quads": 1}, False, 20),
    ("双闺对", {"form": "all_pungs", "quads": 2}, False, 40),
    ("龙七对", {"form": "seven_pairs", "quads": 1}, False, 20),
    ("双龙七对", {"form": "seven_pairs", "quads": 2}, False, 40),
    ("清闺", {"pure": True, "quads": 1}, False, 20),
    ("清七对", {"form": "seven_pairs", "pure": True}, False, 40),
    ("清对", {"form": "all_pungs", "pure": True}, False, 40),
    ("清双闺", {"pure": True, "quads": 2}, False, 40),
    ("无鬼杠上花", {"quads": 1, "no_ghost": True}, True, 40),
    ("大对子杠上花", {"form": "all_pungs", "quads": 1}, True, 40),
    ("清一色杠上花", {"pure": True, "quads": 1}, True, 40),
    ("无鬼清一色", {"pure": True, "no_ghost": True}, False, 40),
    ("无鬼七对", {"form": "seven_pairs", "no_ghost": True}, False, 40),
    ("无鬼大对子", {"form": "all_pungs", "no_ghost": True}, False, 40),
    ("无鬼平胡", {"no_ghost": True}, False, 10),
    ("天胡", {"heavenly": True}, False, 40),
    ("三闺对", {"form": "all_pungs", "quads": 3}, False, 80),
    ("三龙七对", {"form": "seven_pairs", "quads": 3}, False, 80),
    ("清龙七对", {"form": "seven_pairs", "pure": True, "quads": 1}, False, 80),
    ("清双龙七对", {"form": "seven_pairs", "pure": True, "quads": 2}, False, 160),
    ("清三龙七对", {"form": "seven_pairs", "pure": True, "quads": 3}, False, 320),
    ("清闺对", {"form": "all_pungs", "pure": True, "quads": 1}, False, 80),
    ("清双闺对", {"form": "all_pungs", "pure": True, "quads": 2}, False, 160),
    ("清三闺对", {"form": "all_pungs", "pure": True, "quads": 3}, False, 320),
    ("清四闺对", {"form": "all_pungs", "pure": True, "quads": 4}, False, 640),
    ("清三闺", {"pure": True, "quads": 3}, False, 80),
    ("清四闺", {"pure": True, "quads": 4}, False, 160),
    ("平胡报牌", {"declared": True}, False, 10),
    ("大对子报牌", {"form": "all_pungs", "declared": True}, False, 40),
    ("大对子手把一", {"form": "all_pungs", "single_tile": True}, False, 20),
]


@pytest.mark.parametrize(("name", "features", "after_kong", "value"), SELF_DRAWN,
                         ids=[row[0] for row in SELF_DRAWN])
def test_seed_value_self_drawn(name: str, features: dict, after_kong: bool, value: int) -> None:
    out = score(rec([self_draw(0, after_kong, **features)], rules={"cap": 0})).to_dict()
    assert out["lines"][0]["value"] == value
    assert out["deltas"] == [3 * value, -value, -value, -value]


def test_seed_value_earthly() -> None:
    out = score(rec([self_draw(2, earthly=True)], rules={"cap": 0})).to_dict()
    assert out["deltas"] == [-40, -40, 120, -40]


PAID_BY_ONE = [  # (name, event, what the one payer pays)
    ("闺 off a discard (放炮2颗)", discard(1, {"seat": 0, "quads": 1}), 2),
    ("平胡杠上炮 (5颗)", discard(1, {"seat": 0}, after_kong=True), 5),
    ("大对子杠上炮 (20颗)", discard(1, {"seat": 0, "form": "all_pungs"}, after_kong=True), 20),
    ("大对子 off a discard", discard(1, {"seat": 0, "form": "all_pungs"}), 5),
    ("平胡抢杠 (10 → 5)", {"type": "win", "by": "robbed_kong", "from": 1, "winners": [{"seat": 0}]},
     5),
    ("清四闺对 off a discard", discard(1, {"seat": 0, "form": "all_pungs", "pure": True,
                                            "quads": 4}), 320),
]


@pytest.mark.parametrize(("name", "event", "paid"), PAID_BY_ONE, ids=[r[0] for r in PAID_BY_ONE])
def test_seed_value_paid_by_discarder(name: str, event: dict, paid: int) -> None:
    out = score(rec([event], rules={"cap": 0})).to_dict()
    assert out["deltas"] == [paid, -paid, 0, 0]


# -- the cap, halving, multi-winner discards, rotation ---------------------------------------

def test_cap_limits_the_value_then_a_discard_halves_it() -> None:
    shape = {"form": "all_pungs", "pure": True, "quads": 2}  # 160
    big = {"seat": 0, **shape}
    assert score(rec([self_draw(0, **shape)])).deltas == (120, -40, -40, -40)
    assert score(rec([discard(1, big)])).deltas == (20, -20, 0, 0)  # 160 → cap 40 → half 20
    assert score(rec([discard(1, big)], rules={"cap": 100})).deltas == (50, -50, 0, 0)
    assert score(rec([discard(1, big)], rules={"cap": 0})).deltas == (80, -80, 0, 0)
    # the seed's own words: 清闺对 (80) off a discard pays 20
    qgd = {"seat": 0, "form": "all_pungs", "pure": True, "quads": 1}
    assert score(rec([discard(1, qgd)])).deltas == (20, -20, 0, 0)


def test_rule_cap_applies_payment_halves_then_caps() -> None:
    big = {"seat": 0, "form": "all_pungs", "pure": True, "quads": 2}  # 160
    rules = {"cap_applies": "payment"}
    assert score(rec([discard(1, big)], rules=rules)).deltas == (40, -40, 0, 0)
    assert score(rec([discard(1, big)], rules={**rules, "cap": 100})).deltas == (80, -80, 0, 0)
    # a self-draw is capped the same way under either reading
    assert score(rec([self_draw(0, form="all_pungs", pure=True, quads=2)],
                     rules=rules)).deltas == (120, -40, -40, -40)


def test_rule_kong_discard_steps() -> None:
    pao = [discard(1, {"seat": 0, "form": "all_pungs"}, after_kong=True)]
    rob = [{"type": "win", "by": "robbed_kong", "from": 1,
            "winners": [{"seat": 0, "form": "all_pungs"}]}]
    assert score(rec(pao)).deltas == (20, -20, 0, 0)  # 10 + 2 steps = 40, half 20
    assert score(rec(rob)).deltas == (20, -20, 0, 0)
    one = {"kong_discard_steps": 1}  # the seed's "10颗X2=20颗", paid half: 10
    assert score(rec(pao, rules=one)).deltas == (10, -10, 0, 0)
    assert score(rec(rob, rules=one)).deltas == (10, -10, 0, 0)
    assert score(rec(pao, rules=one)).lines[0].value == 20


def test_one_pao_three_winners_discarder_deals_next() -> None:
    out = score(rec([discard(2, {"seat": 0, "form": "all_pungs"}, {"seat": 1, "quads": 1},
                             {"seat": 3, "pure": True})])).to_dict()
    assert out["deltas"] == [5, 2, -12, 5]
    assert out["next_dealer"] == 2 and out["next_dealer_streak"] == 1


def test_two_winners_then_the_hand_goes_on() -> None:
    out = score(rec([discard(3, {"seat": 1, "form": "all_pungs"}, {"seat": 2, "form": "all_pungs"}),
                     self_draw(0, pure=True)], dealer=1, dealer_streak=3)).to_dict()
    # seat 0 self-draws with only seat 3 still in
    assert out["deltas"] == [10, 5, 5, -20]
    assert out["next_dealer"] == 3


def test_robbed_kong_owner_pays_half() -> None:
    out = score(rec([{"type": "win", "by": "robbed_kong", "from": 2,
                      "winners": [{"seat": 1, "form": "all_pungs"}]}])).to_dict()
    assert out["deltas"] == [0, 20, -20, 0]  # 大对子 10 + 抢杠 2 steps = 40, half 20


def test_no_win_dealer_stays() -> None:
    out = score(rec([{"type": "exhausted", "ready": {"0": None, "1": None, "2": None, "3": None}}],
                    dealer=2, dealer_streak=4)).to_dict()
    assert out["deltas"] == [0, 0, 0, 0]
    assert (out["next_dealer"], out["next_dealer_streak"]) == (2, 5)


def test_all_ready_nobody_pays() -> None:
    out = score(rec([{"type": "exhausted", "ready": {"0": {}, "1": {}, "2": {"pure": True},
                                                      "3": {}}}])).to_dict()
    assert out["deltas"] == [0, 0, 0, 0]


# -- rule options: each one's effect -----------------------------------------------------------

def test_rule_one_ke_discard() -> None:
    with pytest.raises(ScoringError, match="one_ke_discard"):
        score(rec([discard(1, {"seat": 0})]))
    assert score(rec([discard(1, {"seat": 0})], rules={"one_ke_discard": True})).deltas == (
        1, -1, 0, 0)


def test_rule_no_ghost_steps() -> None:
    hand = [self_draw(0, form="seven_pairs", no_ghost=True)]
    assert score(rec(hand)).lines[0].value == 40
    assert score(rec(hand, rules={"no_ghost_steps": 1})).lines[0].value == 20  # the seed's note


def test_rule_ready_pay_half() -> None:
    ex = {"type": "exhausted", "ready": {"0": {"form": "all_pungs"}, "1": None, "2": {}, "3": None}}
    assert score(rec([ex])).deltas == (20, -12, 4, -12)
    assert score(rec([ex], rules={"ready_pay": "half"})).deltas == (10, -6, 2, -6)


def test_rule_ready_check_is_capped() -> None:
    ex = {"type": "exhausted", "ready": {"0": {"form": "all_pungs", "pure": True, "quads": 1},
                                         "1": None, "2": None, "3": None}}
    assert score(rec([ex])).deltas == (120, -40, -40, -40)
    assert score(rec([ex], rules={"cap": 0})).deltas == (240, -80, -80, -80)


def test_ready_check_amounts_follow_cap_applies() -> None:
    ex = {"type": "exhausted", "ready": {"0": {"form": "all_pungs", "pure": True, "quads": 1},
                                         "1": None, "2": None, "3": None}}  # 80
    half = {"ready_pay": "half"}
    assert score(rec([ex], rules=half)).deltas == (60, -20, -20, -20)  # cap 40, then half
    assert score(rec([ex], rules={**half, "cap_applies": "payment"})).deltas == (
        120, -40, -40, -40)  # half 40, then cap


FLOWER_CAT = {"type": "exhausted", "ready": {"0": {"form": "all_pungs"}, "1": None,
                                             "2": "flower_cat", "3": {}}}


def test_flower_cat_pays_like_a_seat_not_ready_by_default() -> None:
    out = score(rec([FLOWER_CAT]))
    # seats 1 and 2 each pay seat 0 10 and seat 3 2
    assert out.deltas == (20, -12, -12, 4)


def test_rule_flower_cat_cap_pays_the_cap_to_every_other_seat_still_in() -> None:
    out = score(rec([FLOWER_CAT], rules={"flower_cat": "cap"}))
    # seat 1 (not ready) pays the ready seats 10 and 2; 花猫 seat 2 pays 40 to seats 0, 1, 3
    assert out.deltas == (50, 28, -120, 42)
    cat = [line for line in out.lines if line.what == "flower_cat"]
    assert [line.deltas for line in cat] == [(40, 40, -120, 40)]
    # never halved; with no cap it is 40
    assert score(rec([FLOWER_CAT], rules={"flower_cat": "cap", "ready_pay": "half"})).deltas == (
        45, 34, -120, 41)
    assert score(rec([FLOWER_CAT], rules={"flower_cat": "cap", "cap": 0})).deltas == (
        50, 28, -120, 42)
    assert score(rec([FLOWER_CAT], rules={"flower_cat": "cap", "cap": 20})).deltas == (
        30, 8, -60, 22)


def test_rule_flower_cat_cap_cats_do_not_pay_each_other_nor_seats_that_won() -> None:
    ex = {"type": "exhausted", "ready": {"1": "flower_cat", "2": "flower_cat", "3": None}}
    out = score(rec([self_draw(0, pure=True), ex], rules={"flower_cat": "cap"}))
    assert [line.deltas for line in out.lines if line.what == "flower_cat"] == [
        (0, -40, 0, 40), (0, 0, -40, 40)]


def test_flower_cat_is_validated() -> None:
    bad = {"type": "exhausted", "ready": {"0": "flower_kitten", "1": None, "2": None, "3": None}}
    assert_cli_error(rec([bad]), "events[0].ready.0")
    bad_hand = {"type": "exhausted", "ready": {"0": {"pure": 1}, "1": None, "2": None, "3": None}}
    assert_cli_error(rec([bad_hand]), "events[0].ready.0.pure")
    assert_cli_error(rec([FLOWER_CAT], rules={"flower_cat": "dog"}), "rules.flower_cat")


@pytest.mark.parametrize("events", [
    [],
    [self_draw(0)],
    [self_draw(0), discard(2, {"seat": 1, "form": "all_pungs"})],
    [discard(2, {"seat": 1, "form": "all_pungs"}, {"seat": 3, "pure": True})],
], ids=["no events", "one win", "two wins", "two winners on one discard"])
def test_a_hand_without_its_end_is_refused(events: list[dict]) -> None:
    error = assert_cli_error(rec(events, end=False), "events")
    assert "the hand has no end" in error
    with pytest.raises(IncompleteHand):
        score(rec(events, end=False))


def test_ghost_bonus_may_follow_the_end_but_is_no_end_itself() -> None:
    bonus = {"type": "ghost_bonus", "seat": 1, "ghosts": 5}
    assert_cli_error(rec([self_draw(0), bonus], end=False, rules={"ghosts": 8}), "events")
    out = score(rec([self_draw(0), discard(2, {"seat": 1, "pure": True}), self_draw(3, pure=True),
                     bonus], end=False, rules={"ghosts": 8}))
    assert out.lines[-1].deltas == (-10, 30, -10, -10)


@pytest.mark.parametrize(("ghosts", "linear", "double"), [(5, 10, 10), (6, 20, 20), (7, 30, 40),
                                                          (8, 40, 80)])
def test_rule_ghost_bonus_shapes(ghosts: int, linear: int, double: int) -> None:
    events = [self_draw(1), {"type": "ghost_bonus", "seat": 3, "ghosts": ghosts}]
    lin = score(rec(events, rules={"ghosts": 8})).lines[-1]
    dbl = score(rec(events, rules={"ghosts": 8, "ghost_bonus": "double"})).lines[-1]
    assert lin.deltas == (-linear, -linear, -linear, 3 * linear)
    assert dbl.deltas == (-double, -double, -double, 3 * double)


def test_rule_ghost_bonus_mode_win_only() -> None:
    events = [self_draw(1), {"type": "ghost_bonus", "seat": 3, "ghosts": 5},
              {"type": "ghost_bonus", "seat": 1, "ghosts": 6}]
    out = score(rec(events, rules={"ghosts": 8, "ghost_bonus_mode": "win_only"}))
    assert out.lines[1].deltas == (10, 10, 10, -30)  # seat 3 did not win: pays each
    assert out.lines[2].deltas == (-20, 60, -20, -20)  # seat 1 won: collects


def test_rule_ghost_bonus_off_and_four_ghosts_refuse_the_event() -> None:
    bonus = [self_draw(1), {"type": "ghost_bonus", "seat": 3, "ghosts": 5}]
    with pytest.raises(ScoringError, match="ghosts: 8"):
        score(rec(bonus))
    with pytest.raises(ScoringError, match="off"):
        score(rec(bonus, rules={"ghosts": 8, "ghost_bonus": "off"}))


def test_rule_ghosts_value_is_validated() -> None:
    with pytest.raises(ScoringError, match=r"rules\.ghosts"):
        score(rec([], rules={"ghosts": 6}))


# -- invalid records: exit 2, one JSON error naming the field, no traceback --------------------

INVALID = [
    ("unknown variant", {"variant": "tokyo", "events": []}, "variant"),
    ("unknown field", {**rec([]), "colour": "red"}, "colour"),
    ("unknown rule", rec([], rules={"kap": 40}), "rules.kap"),
    ("bad rule value", rec([], rules={"cap": -1}), "rules.cap"),
    ("wrong type", rec([self_draw(0, pure="yes")]), "events[0].winners[0].pure"),
    ("seat out of range", rec([self_draw(4)]), "events[0].winners[0].seat"),
    ("dealer out of range", rec([], dealer=7), "dealer"),
    ("unknown event", rec([{"type": "kong", "seat": 0, "kind": "concealed"}]), "events[0]"),
    ("unknown winner feature", rec([self_draw(0, chickens=2)]), "events[0].winners[0].chickens"),
    ("plain discard win", rec([discard(1, {"seat": 0})]), "events[0].winners[0]"),
    ("winning twice", rec([self_draw(0), self_draw(0)]), "events[1].winners[0].seat"),
    ("discarder already won", rec([self_draw(0), discard(0, {"seat": 1, "pure": True})]),
     "events[1].from"),
    ("four winners", rec([self_draw(0), discard(1, {"seat": 2, "pure": True},
                                               {"seat": 3, "pure": True}, {"seat": 0})]),
     "events[1].winners"),
    ("events after the hand is over",
     rec([discard(0, {"seat": 1, "pure": True}, {"seat": 2, "pure": True},
                  {"seat": 3, "pure": True}), self_draw(0)]), "events[1]"),
    ("events after exhausted",
     rec([{"type": "exhausted", "ready": {"0": None, "1": None, "2": None, "3": None}},
          self_draw(0)]), "events[1]"),
    ("ready check misses a seat", rec([{"type": "exhausted", "ready": {"0": None}}]),
     "events[0].ready"),
    ("ready check names a winner",
     rec([self_draw(0), {"type": "exhausted", "ready": {"0": None, "1": None, "2": None,
                                                         "3": None}}]), "events[1].ready"),
    ("self-draw with from", rec([{**self_draw(0), "from": 1}]), "events[0]"),
    ("kong bloom without a quad", rec([self_draw(0, True)]), "events[0].winners[0].quads"),
    ("heavenly by a non-dealer", rec([self_draw(1, heavenly=True)]),
     "events[0].winners[0].heavenly"),
    ("ghost bonus in a 4-ghost game", rec([{"type": "ghost_bonus", "seat": 0, "ghosts": 5}]),
     "events[0].type"),
    ("too few ghosts", rec([{"type": "ghost_bonus", "seat": 0, "ghosts": 4}],
                           rules={"ghosts": 8}), "events[0].ghosts"),
    ("not an object", [1, 2], "record"),
    ("bad JSON", "{not json", None),
]


@pytest.mark.parametrize(("name", "record", "field"), INVALID, ids=[r[0] for r in INVALID])
def test_invalid_records_exit_2(name: str, record: object, field: str | None) -> None:
    assert_cli_error(record, field)


def test_four_winners_is_refused_with_a_reason() -> None:
    events = [self_draw(0), self_draw(1, pure=True), discard(3, {"seat": 2, "pure": True}),
              self_draw(3, pure=True)]
    with pytest.raises(ScoringError, match="hand is already over"):
        score(rec(events))


def test_cli_reads_a_file(tmp_path) -> None:
    path = tmp_path / "hand.json"
    path.write_text(json.dumps(rec([self_draw(2, form="all_pungs")])), encoding="utf-8")
    code, out, _ = run_cli("", str(path))
    assert code == 0 and out["deltas"] == [-10, -10, 30, -10]


def test_cli_missing_file_is_a_json_error(tmp_path) -> None:
    code, out, _ = run_cli("", str(tmp_path / "nope.json"))
    assert code == 2 and "cannot read" in out["error"]


# -- properties over random valid records ------------------------------------------------------

FORMS = st.sampled_from(["standard", "all_pungs", "seven_pairs"])


@st.composite
def features(draw: st.DrawFn, *, by: str, after_kong: bool) -> dict:
    form = draw(FORMS)
    f: dict = {"form": form, "pure": draw(st.booleans()),
               "quads": draw(st.integers(0, 3 if form == "seven_pairs" else 4)),
               "no_ghost": draw(st.booleans()), "declared": draw(st.booleans())}
    if form != "seven_pairs":
        f["single_tile"] = draw(st.booleans())
    if by == "self_draw" and after_kong:
        f["form"] = "all_pungs" if form == "seven_pairs" else form
        f["quads"] = max(1, f["quads"])
    plain = (f["form"] == "standard" and not f["pure"] and not f["quads"] and not f["no_ghost"]
             and not f["declared"] and not f.get("single_tile"))
    if by == "discard" and not after_kong and plain:
        f["quads"] = 1  # a plain 平胡 may not win off a discard under the default rules
    return f


@st.composite
def luzhou_records(draw: st.DrawFn) -> dict:
    rules = {"cap": draw(st.sampled_from([0, 10, 40, 100])),
             "ghosts": draw(st.sampled_from([4, 8])),
             "ready_pay": draw(st.sampled_from(["full", "half"])),
             "no_ghost_steps": draw(st.sampled_from([1, 2])),
             "ghost_bonus": draw(st.sampled_from(["linear", "double"])),
             "ghost_bonus_mode": draw(st.sampled_from(["always", "win_only"])),
             "cap_applies": draw(st.sampled_from(["value", "payment"])),
             "kong_discard_steps": draw(st.sampled_from([1, 2])),
             "flower_cat": draw(st.sampled_from(["not_ready", "cap"]))}
    events: list[dict] = []
    still_in = [0, 1, 2, 3]
    for _ in range(draw(st.integers(0, 3))):
        if len(still_in) < 2:
            break
        by = draw(st.sampled_from(["self_draw", "discard", "robbed_kong"]))
        if by == "self_draw":
            seat = draw(st.sampled_from(still_in))
            after_kong = draw(st.booleans())
            winners = [{"seat": seat, **draw(features(by=by, after_kong=after_kong))}]
            ev = {"type": "win", "by": by, "after_kong": after_kong, "winners": winners}
        else:
            frm = draw(st.sampled_from(still_in))
            room = min(3 - (4 - len(still_in)), len(still_in) - 1)
            seats = draw(st.lists(st.sampled_from([s for s in still_in if s != frm]),
                                  min_size=1, max_size=room, unique=True))
            after_kong = by == "discard" and draw(st.booleans())
            winners = [{"seat": s, **draw(features(by=by, after_kong=after_kong))} for s in seats]
            ev = {"type": "win", "by": by, "from": frm, "after_kong": after_kong,
                  "winners": winners}
        events.append(ev)
        still_in = [s for s in still_in if s not in [w["seat"] for w in ev["winners"]]]
    if len(still_in) >= 2 and draw(st.booleans()):
        ready = {}
        for s in still_in:
            if draw(st.booleans()):
                form = draw(FORMS)
                ready[str(s)] = {"form": form, "pure": draw(st.booleans()),
                                 "quads": draw(st.integers(0, 3)), "no_ghost": draw(st.booleans())}
            else:
                ready[str(s)] = draw(st.sampled_from([None, "flower_cat"]))
        events.append({"type": "exhausted", "ready": ready})
    if rules["ghosts"] == 8:
        for s in draw(st.lists(st.sampled_from([0, 1, 2, 3]), max_size=2, unique=True)):
            events.append({"type": "ghost_bonus", "seat": s, "ghosts": draw(st.integers(5, 8))})
    return rec(events, rules=rules, dealer=draw(st.integers(0, 3)),
               dealer_streak=draw(st.integers(1, 6)))


@given(luzhou_records())
def test_property_zero_sum_and_lines_add_up(record: dict) -> None:
    assert_invariants(score(record).to_dict())


@given(luzhou_records())
def test_property_deterministic(record: dict) -> None:
    again = json.loads(json.dumps(record))
    assert score(record).to_dict() == score(again).to_dict()


@given(luzhou_records())
def test_property_no_payment_above_the_cap(record: dict) -> None:
    cap = record["rules"]["cap"]
    for line in score(record).to_dict()["lines"]:
        if cap and line["what"] in ("win", "ready_check"):
            assert min(line["deltas"]) >= -cap, line
        if cap and line["what"] == "flower_cat":  # one 花猫 pays the cap to each seat
            assert max(line["deltas"]) == cap, line


@given(luzhou_records())
def test_property_winners_never_pay_later(record: dict) -> None:
    won: set[int] = set()
    for line in score(record).to_dict()["lines"]:
        if line["what"] in ("win", "ready_check", "flower_cat"):
            assert all(line["deltas"][s] >= 0 for s in won), (won, line)
        if line["what"] == "win":
            won.add(line["seat"])


@given(luzhou_records())
def test_property_next_dealer_follows_the_first_win(record: dict) -> None:
    out = score(record).to_dict()
    wins = [e for e in record["events"] if e["type"] == "win"]
    if not wins:
        assert out["next_dealer"] == record["dealer"]
    elif len(wins[0]["winners"]) == 1:
        assert out["next_dealer"] == wins[0]["winners"][0]["seat"]
    else:
        assert out["next_dealer"] == wins[0]["from"]
