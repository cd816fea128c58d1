"""Hainan (docs/rules/hainan.md; its worked examples in test_worked_examples.py): the 番 gate,
values, 包牌, kongs, rotation, rules, errors, properties."""

from __future__ import annotations

import json

import pytest
from hypothesis import given
from hypothesis import strategies as st

from scoring import ScoringError, score

from .cli import assert_cli_error, assert_invariants, discard, robbed, self_draw


def rec(events: list[dict], **extra: object) -> dict:
    return {"variant": "hainan", "dealer": 0, "dealer_streak": 1, "events": events, **extra}




def kong(seat: int, kind: str = "concealed", frm: int | None = None, **extra: object) -> dict:
    ev = {"type": "kong", "seat": seat, "kind": kind, **extra}
    return ev if frm is None else {**ev, "from": frm}


EXHAUSTED = {"type": "exhausted"}


def deltas(events: list[dict], **extra: object) -> list[int]:
    return list(score(rec(events, **extra)).deltas)


# -- the 番 gate -----------------------------------------------------------------------------------

def test_a_win_without_fan_is_an_error_that_says_so() -> None:
    with pytest.raises(ScoringError, match="no 番, cannot win") as exc:
        score(rec([discard(3, 2)]))
    assert exc.value.field == "events[0].winners[0]"
    with pytest.raises(ScoringError, match="no 番"):  # 花上开花 is no 番 by itself
        score(rec([self_draw(2, flower_bloom=True)], rules={"self_draw_needs_fan": True}))


def test_concealed_excludes_every_kong() -> None:
    # 门清: no chow, pung or kong of any kind — a concealed kong included
    error = assert_cli_error(rec([kong(2), self_draw(2, concealed=True)]),
                             "events[1].winners[0].concealed")
    assert "concealed_kong_keeps_menqing" in error
    keep = {"concealed_kong_keeps_menqing": True}
    assert score(rec([kong(2), self_draw(2, concealed=True)], rules=keep)).deltas == (
        -4, -4, 12, -4)
    # an added kong never keeps it (补杠 came from a pung)
    assert_cli_error(rec([kong(2, "added"), self_draw(2, concealed=True)], rules=keep),
                     "events[1].winners[0].concealed")


def test_a_self_draw_needs_no_fan() -> None:
    # 自摸:无论有番或者无番: a plain self-draw is P = 1, ×2, from each
    out = score(rec([self_draw(2)]))
    assert out.deltas == (-2, -2, 6, -2)
    assert score(rec([self_draw(2, flower_bloom=True)])).deltas == (-3, -3, 9, -3)


def test_rule_self_draw_needs_fan() -> None:
    rules = {"self_draw_needs_fan": True}
    error = assert_cli_error(rec([self_draw(2)], rules=rules), "events[0].winners[0]")
    assert "no 番" in error
    assert score(rec([self_draw(2, pure=True)], rules=rules)).deltas == (-4, -4, 12, -4)


FAN = [("all_chows", True), ("concealed", True), ("all_pungs", True), ("pure", True),
       ("half_flush", True), ("eyes_258", True), ("dragon_pungs", 1), ("seat_flower", 1),
       ("seat_wind", True), ("round_wind", True), ("thirteen_orphans", True),
       ("seven_pairs", True)]


@pytest.mark.parametrize(("feature", "value"), FAN, ids=[f for f, _ in FAN])
def test_each_fan_alone_opens_the_gate(feature: str, value: object) -> None:
    out = score(rec([discard(3, 2, **{feature: value})]))
    assert out.deltas[2] > 0 and feature in out.lines[0].terms


def test_robbing_a_kong_is_itself_a_fan() -> None:
    assert deltas([kong(1, "added", robbed=True), robbed(1, 2)]) == [0, -4, 4, 0]


def test_heavenly_and_earthly_hands_are_concealed() -> None:
    assert deltas([self_draw(0, heavenly=True)]) == [9, -3, -3, -3]
    assert deltas([discard(0, 2, earthly=True)]) == [-4, -3, 10, -3]


# -- values: points × multiplier ----------------------------------------------------------------

POINTS = [  # (name, features, P)
    ("平胡", {"all_chows": True}, 1),
    ("门清", {"concealed": True}, 1),
    ("碰碰胡", {"all_pungs": True}, 2),
    ("七对", {"seven_pairs": True}, 2),
    ("豪华七对", {"seven_pairs": True, "luxury": True}, 3),
    ("十三幺", {"thirteen_orphans": True}, 13),
    ("清一色", {"pure": True}, 2),
    ("清碰", {"pure": True, "all_pungs": True}, 4),
    ("清七对", {"pure": True, "seven_pairs": True}, 4),
    ("清豪华七对", {"pure": True, "seven_pairs": True, "luxury": True}, 6),
    ("混一色 碰碰胡", {"half_flush": True, "all_pungs": True}, 2),
    ("箭刻×2", {"dragon_pungs": 2}, 1),
]


@pytest.mark.parametrize(("name", "features", "points"), POINTS, ids=[r[0] for r in POINTS])
def test_hand_points(name: str, features: dict, points: int) -> None:
    assert deltas([self_draw(1, **features)]) == [-2 * points, 6 * points, -2 * points, -2 * points]
    assert deltas([discard(0, 1, **features)]) == [-points - 1, 3 * points + 1, -points, -points]


@pytest.mark.parametrize(("name", "event", "mult"), [
    ("discard", discard(2, 1, pure=True), 1),
    ("self-draw", self_draw(1, pure=True), 2),
    ("杠上开花", self_draw(1, True, pure=True), 3),
    ("花上开花", self_draw(1, pure=True, flower_bloom=True), 3),
    ("地胡 self-drawn", self_draw(1, pure=True, earthly=True), 3),
    ("地胡 off the dealer", discard(0, 1, pure=True, earthly=True), 3),
])
def test_win_multiplier(name: str, event: dict, mult: int) -> None:
    events = [kong(1), event] if event.get("after_kong") else [event]
    out = score(rec(events))
    assert next(line for line in out.lines if line.what == "win").value == 2 * mult


def test_robbed_kong_with_fan_is_an_ordinary_discard_win() -> None:
    assert deltas([kong(1, "added", robbed=True), robbed(1, 2, all_pungs=True)]) == [-2, -3, 7, -2]


def test_robbed_kong_without_other_fan_the_owner_pays_all_three_shares() -> None:
    out = score(rec([kong(3, "added", robbed=True), robbed(3, 1)]))
    assert out.deltas == (0, 4, 0, -4)
    assert "liable" in out.lines[0].terms
    assert out.lines[1].deltas == (0, 0, 0, 0)  # the robbed kong is void


def test_liable_with_a_bigger_hand() -> None:
    # 包牌 with a bigger hand: seat 1 pays seat 0's and seat 3's shares and its own + 1
    assert deltas([discard(1, 2, all_pungs=True, pure=True, liable=1)]) == [0, -13, 13, 0]


# -- kongs ---------------------------------------------------------------------------------------

def test_kong_values() -> None:
    events = [kong(1, "exposed", 3), kong(2, "added"), kong(3), self_draw(0, pure=True)]
    out = score(rec(events))
    assert [line.deltas for line in out.lines if line.what == "kong"] == [
        (-1, 3, -1, -1), (-2, -2, 6, -2), (-2, -2, -2, 6)]


def test_kongs_of_losers_pay_too() -> None:
    assert deltas([kong(3), discard(1, 2, eyes_258=True)]) == [-3, -4, 2, 5]


def test_kongs_pay_on_an_exhausted_wall() -> None:
    # 明杠暗杠都要钱: the concealed kong 2 from each, the exposed one 1 from each
    out = score(rec([kong(1), kong(2, "exposed", 0), EXHAUSTED], dealer=2, dealer_streak=2))
    assert out.deltas == (-3, 5, 1, -3)
    assert (out.next_dealer, out.next_dealer_streak, out.next_round_wind) == (2, 3, 0)


def test_rule_kongs_on_exhausted_void() -> None:
    rules = {"kongs_on_exhausted": "void"}
    out = score(rec([kong(1), kong(2, "exposed", 0), EXHAUSTED], rules=rules))
    assert out.deltas == (0, 0, 0, 0)
    # a won hand's kongs still pay
    assert score(rec([kong(1), self_draw(2, pure=True)], rules=rules)).deltas == (-6, 2, 10, -6)
    assert_cli_error(rec([EXHAUSTED], rules={"kongs_on_exhausted": "maybe"}),
                     "rules.kongs_on_exhausted")


# -- one winner, dealer rotation and the round wind (令) --------------------------------------

def test_two_winners_is_an_error() -> None:
    two = {"type": "win", "by": "discard", "from": 3,
           "winners": [{"seat": 1, "pure": True}, {"seat": 2, "pure": True}]}
    with pytest.raises(ScoringError, match="截胡") as exc:
        score(rec([two]))
    assert exc.value.field == "events[0].winners"


def test_dealer_win_keeps_the_deal_and_the_round() -> None:
    out = score(rec([self_draw(3, pure=True)], dealer=3, dealer_streak=2, round_wind=1))
    assert (out.next_dealer, out.next_dealer_streak, out.next_round_wind) == (3, 3, 1)


@pytest.mark.parametrize(("dealer", "wind", "nxt", "next_wind"),
                         [(0, 0, 1, 0), (1, 2, 2, 2), (2, 3, 3, 3), (3, 0, 0, 1), (3, 1, 0, 2),
                          (3, 3, 0, 0)])
def test_deal_passes_and_the_round_wind_turns_from_seat_3_to_0(dealer: int, wind: int, nxt: int,
                                                                next_wind: int) -> None:
    winner = (dealer + 2) % 4
    out = score(rec([self_draw(winner, pure=True)], dealer=dealer, dealer_streak=4, round_wind=wind))
    assert (out.next_dealer, out.next_dealer_streak, out.next_round_wind) == (nxt, 1, next_wind)


# -- rule options: each one's effect against the default ---------------------------------------

def test_rule_discarder_extra() -> None:
    assert deltas([discard(3, 2, pure=True)]) == [-2, -2, 7, -3]
    assert deltas([discard(3, 2, pure=True)], rules={"discarder_extra": 0}) == [-2, -2, 6, -2]
    assert deltas([discard(3, 2, pure=True)], rules={"discarder_extra": 2}) == [-2, -2, 8, -4]
    # no discarder on a self-draw
    assert deltas([self_draw(2, pure=True)], rules={"discarder_extra": 2}) == [-4, -4, 12, -4]


def test_rule_dealer_extra() -> None:
    assert deltas([discard(3, 2, pure=True)], rules={"dealer_extra": 1}) == [-3, -2, 8, -3]
    # the dealer wins: every payment to him is one more
    assert deltas([self_draw(0, pure=True)], rules={"dealer_extra": 1}) == [15, -5, -5, -5]
    # kongs are not win payments: dealer_extra never touches them, paid or received
    assert deltas([kong(1), EXHAUSTED], rules={"dealer_extra": 1}) == [-2, 6, -2, -2]
    assert deltas([kong(0), EXHAUSTED], rules={"dealer_extra": 1}) == [6, -2, -2, -2]
    assert deltas([kong(0), self_draw(1, all_chows=True)],
                  rules={"dealer_extra": 1}) == [3, 5, -4, -4]


def test_rule_exposed_kong_discarder() -> None:
    events = [kong(1, "exposed", 3), self_draw(2, pure=True)]
    kongs = [line.deltas for line in score(rec(events)).lines if line.what == "kong"]
    assert kongs == [(-1, 3, -1, -1)]
    out = score(rec(events, rules={"exposed_kong_discarder": 1}))
    assert [line.deltas for line in out.lines if line.what == "kong"] == [(-1, 4, -1, -2)]
    # only exposed kongs
    out = score(rec([kong(1), self_draw(2, pure=True)], rules={"exposed_kong_discarder": 1}))
    assert [line.deltas for line in out.lines if line.what == "kong"] == [(-2, 6, -2, -2)]


def test_liable_pays_the_dealer_extra_share_too() -> None:
    # seat 3 is liable: it pays the dealer's share (2 + 1) as well as its own (2 + 1) and seat 1's
    assert deltas([discard(3, 2, pure=True, liable=3)], rules={"dealer_extra": 1}) == [0, 0, 8, -8]


def test_rules_are_validated() -> None:
    with pytest.raises(ScoringError, match=r"rules\.discarder_extra"):
        score(rec([self_draw(1, pure=True)], rules={"discarder_extra": -1}))
    with pytest.raises(ScoringError, match=r"rules\.cap"):
        score(rec([self_draw(1, pure=True)], rules={"cap": 40}))


# -- invalid records -----------------------------------------------------------------------------

INVALID_CLI = [
    ("two winners", rec([{"type": "win", "by": "discard", "from": 0,
                          "winners": [{"seat": 1, "pure": True}, {"seat": 2, "pure": True}]}]),
     "events[0].winners"),
    ("no 番", rec([discard(3, 1)]), "events[0].winners[0]"),
    ("no 番 self-drawn, rule self_draw_needs_fan", rec([self_draw(1)],
                                                     rules={"self_draw_needs_fan": True}),
     "events[0].winners[0]"),
    ("seat out of range", rec([discard(3, 7, pure=True)]), "events[0].winners[0].seat"),
    ("from out of range", rec([discard(-1, 2, pure=True)]), "events[0].from"),
    ("liable on a self-draw", rec([self_draw(1, pure=True, liable=2)]),
     "events[0].winners[0].liable"),
    ("event after the win", rec([self_draw(1, pure=True), kong(1)]), "events[1]"),
    ("unknown event", rec([{"type": "chickens", "flipped": None}]), "events[0]"),
    ("wrong type", rec([self_draw(1, pure=1)]), "events[0].winners[0].pure"),
]


@pytest.mark.parametrize(("name", "record", "field"), INVALID_CLI, ids=[r[0] for r in INVALID_CLI])
def test_invalid_records_exit_2(name: str, record: dict, field: str) -> None:
    assert_cli_error(record, field)


INVALID = [  # (name, events, field, words in the message)
    ("liable not the discarder", [discard(3, 2, pure=True, liable=1)],
     "events[0].winners[0].liable", "from"),
    ("pure and half flush", [self_draw(1, pure=True, half_flush=True)], "events[0].winners[0]",
     "not both"),
    ("luxury without seven pairs", [self_draw(1, luxury=True, pure=True)], "events[0].winners[0]",
     "seven_pairs"),
    ("all chows with pungs", [self_draw(1, all_chows=True, all_pungs=True)],
     "events[0].winners[0]", "no pungs"),
    ("thirteen orphans and pure", [self_draw(1, thirteen_orphans=True, pure=True)],
     "events[0].winners[0]", "十三幺"),
    ("seven pairs with a kong", [kong(1), self_draw(1, seven_pairs=True)], "events[1].winners[0]",
     "kong"),
    ("concealed with an exposed kong", [kong(1, "exposed", 0), self_draw(1, concealed=True)],
     "events[1].winners[0].concealed", "门清"),
    ("no events", [], "events", "the hand has no end"),
    ("only a kong", [kong(1)], "events", "the hand has no end"),
    ("robbed_kong win without the robbed kong", [kong(1, "added"), robbed(1, 2, pure=True)],
     "events[1].by", "needs the robbed kong"),
    ("another kong between the robbed kong and its win",
     [kong(1, "added", robbed=True), kong(3), robbed(1, 2, pure=True)], "events[1]",
     "no other kong"),
    ("kong bloom on another seat's kong", [kong(3), self_draw(1, True, pure=True)],
     "events[1].after_kong", "seat 1"),
    ("discard after kong, the kong not the discarder's", [kong(1), discard(3, 2, True, pure=True)],
     "events[1].after_kong", "seat 3"),
    ("kong bloom without a kong", [self_draw(1, True, pure=True)], "events[0].after_kong",
     "kong by seat 1"),
    ("flower bloom off a discard", [discard(0, 1, pure=True, flower_bloom=True)],
     "events[0].winners[0].flower_bloom", "self-draw"),
    ("heavenly non-dealer", [self_draw(1, heavenly=True)], "events[0].winners[0].heavenly", "dealer"),
    ("earthly off a non-dealer", [discard(2, 1, earthly=True)], "events[0].winners[0].earthly",
     "dealer"),
    ("robbed kong without its win", [kong(1, "added", robbed=True), self_draw(2, pure=True)],
     "events[0].robbed", "robbed_kong win"),
    ("robbed kong on an exhausted wall", [kong(1, "added", robbed=True), EXHAUSTED],
     "events[0].robbed", "exhausted"),
    ("no end", [kong(1)], "events", "no end"),
    ("exhausted twice", [EXHAUSTED, EXHAUSTED], "events[1]", "already ended"),
    ("five kongs", [kong(2)] * 5 + [EXHAUSTED], "events", "four kongs"),
    ("too many seat flowers", [self_draw(1, seat_flower=3)], "events[0].winners[0].seat_flower",
     "≤ 2"),
]


@pytest.mark.parametrize(("name", "events", "field", "words"), INVALID, ids=[r[0] for r in INVALID])
def test_invalid_records(name: str, events: list[dict], field: str, words: str) -> None:
    with pytest.raises(ScoringError) as exc:
        score(rec(events))
    assert exc.value.field == field
    assert words in exc.value.message


# -- properties over random valid records ------------------------------------------------------

@st.composite
def winner_features(draw: st.DrawFn, *, own_kongs: list[str], by: str,
                    keeps_menqing: bool = False) -> dict:
    shapes = ["plain", "all_pungs"] + ([] if own_kongs else ["seven_pairs", "thirteen_orphans",
                                                             "all_chows"])
    shape = draw(st.sampled_from(shapes))
    f: dict = {}
    if shape == "thirteen_orphans":
        f["thirteen_orphans"] = True
    elif shape == "seven_pairs":
        f.update(seven_pairs=True, luxury=draw(st.booleans()))
    else:
        if shape != "plain":
            f[shape] = True
        if shape != "all_chows":
            f.update(dragon_pungs=draw(st.integers(0, 2)), seat_wind=draw(st.booleans()),
                     round_wind=draw(st.booleans()))
        f["eyes_258"] = draw(st.booleans())
    if shape != "thirteen_orphans":
        flush = draw(st.sampled_from(["none", "pure", "half_flush"]))
        if flush != "none":
            f[flush] = True
    if not own_kongs or (keeps_menqing and all(k == "concealed" for k in own_kongs)):
        f["concealed"] = draw(st.booleans())
    f["seat_flower"] = draw(st.integers(0, 2))
    if by == "self_draw":
        f["flower_bloom"] = draw(st.booleans())
    if by == "discard" and not any(v for k, v in f.items() if k != "flower_bloom"):
        f["seat_flower"] = 1  # 有番才能胡 (a self-draw needs no 番)
    return f


@st.composite
def hainan_records(draw: st.DrawFn) -> dict:
    rules = {"discarder_extra": draw(st.integers(0, 2)), "dealer_extra": draw(st.integers(0, 2)),
             "exposed_kong_discarder": draw(st.integers(0, 2)),
             "concealed_kong_keeps_menqing": draw(st.booleans()),
             "kongs_on_exhausted": draw(st.sampled_from(["pay", "void"]))}
    events: list[dict] = []
    kongs: dict[int, list[str]] = {}
    for s in range(4):
        kongs[s] = draw(st.lists(st.sampled_from(["concealed", "added", "exposed"]), max_size=2))
        for kind in kongs[s]:
            frm = draw(st.sampled_from([x for x in range(4) if x != s])) if kind == "exposed" else None
            events.append(kong(s, kind, frm))
    dealer = draw(st.integers(0, 3))
    if draw(st.integers(0, 4)) == 0:
        events.append(EXHAUSTED)
    else:
        by = draw(st.sampled_from(["self_draw", "discard", "robbed_kong"]))
        seat = draw(st.integers(0, 3))
        frm = None if by == "self_draw" else draw(st.sampled_from([x for x in range(4) if x != seat]))
        if by == "robbed_kong":
            events.append(kong(frm, "added", robbed=True))
        f = draw(winner_features(own_kongs=kongs[seat], by=by,
                                 keeps_menqing=rules["concealed_kong_keeps_menqing"]))
        if frm is not None and draw(st.booleans()):
            f["liable"] = frm
        kong_seat = seat if by == "self_draw" else frm
        after_kong = by != "robbed_kong" and bool(kongs[kong_seat]) and draw(st.booleans())
        win: dict = {"type": "win", "by": by, "after_kong": after_kong,
                     "winners": [{"seat": seat, **f}]}
        if frm is not None:
            win["from"] = frm
        events.append(win)
    return rec(events, rules=rules, dealer=dealer, dealer_streak=draw(st.integers(1, 5)),
               round_wind=draw(st.integers(0, 3)),
               balances=draw(st.lists(st.integers(-100, 100), min_size=4, max_size=4)))


@given(hainan_records())
def test_property_zero_sum_and_lines_add_up(record: dict) -> None:
    assert_invariants(score(record).to_dict(), record["balances"])


@given(hainan_records())
def test_property_deterministic(record: dict) -> None:
    again = json.loads(json.dumps(record))
    assert score(record).to_dict() == score(again).to_dict()


@given(hainan_records())
def test_property_next_dealer_and_round_wind(record: dict) -> None:
    out = score(record)
    win = next((e for e in record["events"] if e["type"] == "win"), None)
    dealer, wind = record["dealer"], record["round_wind"]
    if win is None or win["winners"][0]["seat"] == dealer:
        assert (out.next_dealer, out.next_round_wind) == (dealer, wind)
    else:
        assert out.next_dealer == (dealer + 1) % 4
        assert out.next_round_wind == ((wind + 1) % 4 if dealer == 3 else wind)


@given(hainan_records())
def test_property_only_the_winner_gains_from_the_win(record: dict) -> None:
    for line in score(record).lines:
        if line.what == "win":
            assert [s for s, d in enumerate(line.deltas) if d > 0] == [line.seat]
            assert line.deltas[line.seat] >= 3 * line.value, line
