"""Feibao (docs/rules/feibao.md; its worked examples in test_worked_examples.py): the base
table, every 番 source, who pays, kong points, the 精 bonus, 三凑承包, rule options, properties,
invalid records."""

from __future__ import annotations

import json

import pytest
from hypothesis import given
from hypothesis import strategies as st

from scoring import ScoringError, score

from .cli import assert_cli_error, assert_invariants, self_draw


def rec(events: list[dict], **extra: object) -> dict:
    return {"variant": "feibao", "dealer": 0, "dealer_streak": 1, "events": events, **extra}


def rob(frm: int, *winners: dict) -> dict:
    return {"type": "win", "by": "robbed_kong", "from": frm, "winners": list(winners)}


def kong(seat: int, kind: str = "concealed", **extra: object) -> dict:
    return {"type": "kong", "seat": seat, "kind": kind, **extra}


def fei(seat: int, count: int = 1) -> dict:
    return {"type": "fei_bao", "seat": seat, "count": count}


def jing(**seats: tuple[int, int]) -> dict:
    return {"type": "jing_bonus",
            "seats": {k[1:]: {"zheng": z, "fu": f} for k, (z, f) in seats.items()}}


def value_of(features: dict, after_kong: bool = False, events: tuple = ()) -> int:
    return score(rec([*events, self_draw(1, after_kong, **features)])).lines[-1].value


# -- the base table and 番 ---------------------------------------------------------------------

BASE = [  # (name, features, V)
    ("平和 无宝", {}, 2),
    ("平和 有宝", {"jing": True}, 2),
    ("有宝掉头", {"jing": True, "diaotou": True}, 3),
    ("七对 有宝", {"form": "seven_pairs", "jing": True}, 4),
    ("碰对 有宝", {"form": "all_pungs", "jing": True}, 4),
    ("宝对掉头", {"form": "all_pungs", "jing": True, "diaotou": True}, 8),
    ("七对 无宝", {"form": "seven_pairs"}, 10),
    ("碰对 无宝", {"form": "all_pungs"}, 10),
    ("九幺 有宝", {"form": "orphans", "jing": True}, 2),
    ("九幺 无宝", {"form": "orphans"}, 4),
    ("十三浪 有宝", {"form": "thirteen_waves", "jing": True}, 2),
    ("十三浪 无宝", {"form": "thirteen_waves"}, 4),
]


@pytest.mark.parametrize(("name", "features", "value"), BASE, ids=[r[0] for r in BASE])
def test_base_table(name: str, features: dict, value: int) -> None:
    assert value_of(features) == value


FAN = [  # (name, features, V): each source doubles
    ("七字全", {"form": "orphans", "seven_honors": True}, 8),
    ("十三浪 七字全", {"form": "thirteen_waves", "jing": True, "seven_honors": True}, 4),
    ("飞宝 ×2", {"fei_bao": 2}, 8),
    ("单张和", {"single_wait": True}, 4),
    ("宝吊还原", {"bao_restore": True}, 4),
    ("一豪华", {"form": "seven_pairs", "luxury": 1}, 20),
    ("双豪华", {"form": "seven_pairs", "luxury": 2}, 40),
    ("清一色 +2番", {"pure": True}, 8),
    ("清一色 七对", {"form": "seven_pairs", "pure": True}, 40),
    ("宝对掉头 单张", {"form": "seven_pairs", "jing": True, "diaotou": True,
                   "single_wait": True}, 16),
    ("all at once", {"fei_bao": 1, "single_wait": True, "bao_restore": True, "pure": True}, 64),
]


@pytest.mark.parametrize(("name", "features", "value"), FAN, ids=[r[0] for r in FAN])
def test_fan_doubles(name: str, features: dict, value: int) -> None:
    assert value_of(features) == value


def test_kong_chain_doubles_per_kong_and_kong_points_are_not_multiplied() -> None:
    out = score(rec([kong(1), kong(1, "added"), self_draw(1, True, kong_chain=2)]))
    assert out.lines[-1].value == 8  # 2 · 2^2
    assert [line.deltas for line in out.lines] == [(-2, 6, -2, -2), (-1, 3, -1, -1),
                                                   (-8, 24, -8, -8)]
    one = score(rec([kong(1), self_draw(1, True, kong_chain=1)]))
    assert one.lines[-1].value == 4


# -- who pays ----------------------------------------------------------------------------------

def test_non_winner_fei_bao_raises_his_own_payment() -> None:
    out = score(rec([fei(3, 2), self_draw(1)]))
    assert [line.deltas for line in out.lines] == [(-2, 6, -2, -2), (0, 6, 0, -6)]
    assert out.deltas == (-2, 12, -2, -8)  # seat 3 pays 2 · 2^2
    assert out.lines[1].what == "fei_bao"


def test_fei_bao_events_add_up_per_seat() -> None:
    out = score(rec([fei(3), self_draw(1, form="all_pungs"), fei(3)]))
    assert out.deltas == (-10, 60, -10, -40)


def test_fei_bao_of_a_robbed_kong_owner_doubles_his_six_shares() -> None:
    out = score(rec([fei(3), kong(3, "added", robbed=True), rob(3, {"seat": 1})]))
    assert out.deltas == (0, 24, 0, -24)


def test_fei_bao_of_a_bystander_costs_nothing_when_the_kong_owner_pays() -> None:
    out = score(rec([fei(2, 3), kong(3, "added", robbed=True), rob(3, {"seat": 1})]))
    assert out.deltas == (0, 12, 0, -12)


def test_several_robbers_each_collect_six_shares() -> None:
    out = score(rec([kong(3, "added", robbed=True),
                     rob(3, {"seat": 0}, {"seat": 1, "form": "all_pungs"})], dealer=2))
    assert out.deltas == (12, 60, 0, -72)
    assert out.next_dealer == 3  # the dealer (2) did not win


def test_robbed_jing_kong_still_pays() -> None:
    out = score(rec([kong(3, "added", robbed=True, jing=True), rob(3, {"seat": 1})]))
    assert [line.deltas for line in out.lines] == [(-10, -10, -10, 30), (0, 12, 0, -12)]


def test_kong_points() -> None:
    out = score(rec([kong(1, "concealed"), kong(2, "exposed", **{"from": 0}), kong(3, "added"),
                     kong(0, "concealed", jing=True), {"type": "exhausted"}]))
    assert [line.deltas for line in out.lines] == [
        (-2, 6, -2, -2), (-1, -1, 3, -1), (-1, -1, -1, 3), (30, -10, -10, -10)]
    assert out.deltas == (26, -6, -10, -10)
    assert out.next_dealer == 0 and out.next_dealer_streak == 2


# -- 三凑承包 ----------------------------------------------------------------------------------

@pytest.mark.parametrize(("fed", "expected"), [
    ({}, (-10, 30, -10, -10)),
    ({"2": 3}, (0, 30, -30, 0)),
    ({"2": 4}, (0, 30, -30, 0)),
    ({"2": 3, "3": 1}, (0, 30, -20, -10)),
    ({"2": 3, "0": 1}, (-10, 30, -20, 0)),
    ({"2": 2, "3": 2}, (-10, 30, -10, -10)),
])
def test_three_feed(fed: dict, expected: tuple) -> None:
    out = score(rec([self_draw(1, form="all_pungs", fed=fed)]))
    assert out.deltas == expected


def test_three_feed_leaves_fei_bao_extra_with_the_thrower() -> None:
    out = score(rec([fei(3), self_draw(1, form="all_pungs", fed={"2": 3})]))
    assert [line.deltas for line in out.lines] == [(0, 30, -30, 0), (0, 10, 0, -10)]


def test_three_feed_feeder_who_threw_jing_pays_his_shares_plus_the_extra() -> None:
    out = score(rec([fei(2, 2), self_draw(1, form="all_pungs", fed={"2": 3})]))
    # 碰对 without 精 10: seat 2 pays all three shares 30, then its 飞宝 extra 10·(2²−1) = 30
    assert [line.deltas for line in out.lines] == [(0, 30, -30, 0), (0, 30, -30, 0)]
    fourth = score(rec([fei(3), self_draw(1, form="all_pungs", fed={"2": 3, "3": 1})]))
    # seat 2 pays two shares; seat 3 fed the fourth meld: its own share 10, plus 10 for its 精
    assert fourth.deltas == (0, 40, -20, -20)


# -- chained kongs robbed (连杠被抢) --------------------------------------------------------------

CHAIN = [kong(0, "concealed"), kong(3, "concealed"), kong(3, "exposed", **{"from": 1}),
         kong(3, "added", robbed=True)]


def test_robbed_chain_keeps_earlier_kong_points_by_default() -> None:
    out = score(rec([*CHAIN, rob(3, {"seat": 1})]))
    kongs = [line.deltas for line in out.lines if line.what == "kong"]
    # seat 0's kong and seat 3's two earlier kongs pay (前槓分值有效); the robbed one does not
    assert kongs == [(6, -2, -2, -2), (-2, -2, -2, 6), (-1, -1, -1, 3)]
    assert out.deltas == (3, 7, -5, -5)


def test_robs_earlier_kongs_voids_the_whole_chain() -> None:
    out = score(rec([*CHAIN, {**rob(3, {"seat": 1}), "robs_earlier_kongs": True}]))
    kongs = [line.deltas for line in out.lines if line.what == "kong"]
    assert kongs == [(6, -2, -2, -2)]  # seat 0's kong is not in seat 3's chain: it stands
    assert out.deltas == (6, 10, -2, -14)


def test_robs_earlier_kongs_a_jing_kong_keeps_its_10() -> None:
    events = [kong(3, "concealed", jing=True), kong(3, "concealed"), kong(3, "added", robbed=True),
              {**rob(3, {"seat": 1}), "robs_earlier_kongs": True}]
    kongs = [line.deltas for line in score(rec(events)).lines if line.what == "kong"]
    assert kongs == [(-10, -10, -10, 30)]


def test_robs_earlier_kongs_needs_a_chain_and_a_robbed_kong_win() -> None:
    lone = [kong(0), kong(3, "added", robbed=True),
            {**rob(3, {"seat": 1}), "robs_earlier_kongs": True}]
    assert "no kong right before" in assert_cli_error(rec(lone), "events[2].robs_earlier_kongs")
    drawn = [kong(1), {**self_draw(1, True, kong_chain=1), "robs_earlier_kongs": True}]
    assert_cli_error(rec(drawn), "events[1].robs_earlier_kongs")


# -- whole hands -------------------------------------------------------------------------------

@pytest.mark.parametrize("events", [[], [kong(1)], [fei(2)], [kong(1), fei(2), jing(s0=(1, 0))]],
                         ids=["no events", "only a kong", "only 飞宝", "kong, 飞宝 and 精"])
def test_a_hand_without_its_end_is_refused(events: list[dict]) -> None:
    assert "the hand has no end" in assert_cli_error(rec(events), "events")


def test_a_robbed_kong_win_needs_the_robbed_kong() -> None:
    assert "needs the robbed kong" in assert_cli_error(rec([rob(3, {"seat": 1})]), "events[0].by")
    # another seat's kong between the robbed kong and the win is refused too
    between = [kong(3, "added", robbed=True), kong(2), rob(3, {"seat": 1})]
    assert_cli_error(rec(between), "events[1]")


def test_kong_bloom_needs_the_winners_own_kong() -> None:
    assert_cli_error(rec([kong(2), self_draw(1, True, kong_chain=1)]),
                     "events[1].winners[0].kong_chain")


# -- the 精 bonus ------------------------------------------------------------------------------

@pytest.mark.parametrize(("zheng", "fu", "points"), [
    (0, 1, 1), (1, 0, 2), (1, 2, 4), (2, 1, 10), (2, 2, 18), (3, 1, 28), (4, 0, 40), (3, 3, 54),
    (4, 2, 70), (4, 3, 88)])
def test_chong_guan_table(zheng: int, fu: int, points: int) -> None:
    # seat 1 holds a 副精 too, so seat 0 is no 霸王
    out = score(rec([self_draw(2), jing(s0=(zheng, fu), s1=(0, 1))]))
    assert out.lines[1].value == points
    assert out.lines[1].deltas == (3 * points, -points, -points, -points)


def test_ba_wang_with_every_jing() -> None:
    out = score(rec([self_draw(2), jing(s3=(4, 4))]))
    assert out.lines[1].value == 216  # 12 → 冲关 108 → 霸王 216


def test_jing_bonus_several_holders_no_ba_wang() -> None:
    out = score(rec([self_draw(2), jing(s0=(2, 1), s1=(0, 1), s3=(0, 0))]))
    assert [line.deltas for line in out.lines[1:]] == [(30, -10, -10, -10), (-1, 3, -1, -1)]


def test_jing_bonus_not_counted_without_a_winner() -> None:
    out = score(rec([{"type": "exhausted"}, jing(s0=(2, 1))]))
    assert out.deltas == (0, 0, 0, 0)
    assert out.lines[0].what == "jing_bonus" and "not counted" in out.lines[0].text


# -- the dealer --------------------------------------------------------------------------------

def test_dealer_stays_on_his_win_or_an_exhausted_wall() -> None:
    assert score(rec([self_draw(1)], dealer=1, dealer_streak=2)).next_dealer_streak == 3
    out = score(rec([{"type": "exhausted"}], dealer=3))
    assert (out.next_dealer, out.next_dealer_streak) == (3, 2)


def test_deal_passes_to_the_next_seat() -> None:
    out = score(rec([self_draw(1)], dealer=3, round_wind=2))
    assert (out.next_dealer, out.next_dealer_streak, out.next_round_wind) == (0, 1, 3)


def test_dealer_among_several_robbers_stays() -> None:
    out = score(rec([kong(3, "added", robbed=True), rob(3, {"seat": 0}, {"seat": 1})]))
    assert (out.next_dealer, out.next_dealer_streak) == (0, 2)


# -- rule options ------------------------------------------------------------------------------

def test_rule_discard_wins() -> None:
    ev = [{"type": "win", "by": "discard", "from": 2, "winners": [{"seat": 1, "pure": True}]}]
    with pytest.raises(ScoringError, match="discard_wins"):
        score(rec(ev))
    assert score(rec(ev, rules={"discard_wins": True})).deltas == (0, 8, -8, 0)


def test_rule_rob_multiplier() -> None:
    events = [kong(3, "added", robbed=True), rob(3, {"seat": 1})]
    assert score(rec(events)).deltas == (0, 12, 0, -12)
    assert score(rec(events, rules={"rob_multiplier": 3})).deltas == (0, 6, 0, -6)


def test_rule_three_feed_off() -> None:
    ev = [self_draw(1, form="all_pungs", fed={"2": 3})]
    assert score(rec(ev)).deltas == (0, 30, -30, 0)
    assert score(rec(ev, rules={"three_feed": False})).deltas == (-10, 30, -10, -10)


def test_rule_jing_on_exhausted() -> None:
    ev = [{"type": "exhausted"}, jing(s2=(1, 0))]
    assert score(rec(ev)).deltas == (0, 0, 0, 0)
    assert score(rec(ev, rules={"jing_on_exhausted": True})).deltas == (-4, -4, 12, -4)


# -- invalid records -----------------------------------------------------------------------------

DISCARD = {"type": "win", "by": "discard", "from": 2, "winners": [{"seat": 1}, {"seat": 3}]}
INVALID = [
    ("discard win by default", rec([{**DISCARD, "winners": [{"seat": 1}]}]), "events[0].by"),
    ("two winners on a discard", rec([DISCARD], rules={"discard_wins": True}), "events[0].winners"),
    ("diaotou without jing", rec([self_draw(1, diaotou=True)]), "events[0].winners[0].diaotou"),
    ("seven honours on a plain hand", rec([self_draw(1, seven_honors=True)]),
     "events[0].winners[0].seven_honors"),
    ("luxury outside seven pairs", rec([self_draw(1, form="all_pungs", luxury=1)]),
     "events[0].winners[0].luxury"),
    ("pure thirteen waves", rec([self_draw(1, form="thirteen_waves", pure=True)]),
     "events[0].winners[0].pure"),
    ("kong_chain without after_kong", rec([kong(1), self_draw(1, kong_chain=1)]),
     "events[1].winners[0].kong_chain"),
    ("after_kong without kong_chain", rec([kong(1), self_draw(1, True)]),
     "events[1].winners[0].kong_chain"),
    ("more chained kongs than kongs", rec([kong(1), self_draw(1, True, kong_chain=2)]),
     "events[1].winners[0].kong_chain"),
    ("feeding yourself", rec([self_draw(1, fed={"1": 3})]), "events[0].winners[0].fed['1']"),
    ("five melds fed", rec([self_draw(1, fed={"2": 3, "3": 2})]), "events[0].winners[0].fed"),
    ("winner in a fei_bao event", rec([fei(1), self_draw(1)]), "events[0].seat"),
    ("nine 精 thrown", rec([fei(2, 5), fei(3, 4), {"type": "exhausted"}]), "events[1].count"),
    ("five 正精 held", rec([jing(s0=(3, 0), s1=(2, 0))]), "events[0].seats"),
    ("two jing bonuses", rec([jing(s0=(1, 0)), jing(s1=(1, 0))]), "events[1]"),
    ("robbed kong not robbed", rec([kong(3, "added", robbed=True), self_draw(1)]), "events[1]"),
    ("robbed kong from the wrong seat", rec([kong(3, "added", robbed=True), rob(2, {"seat": 1})]),
     "events[1].from"),
    ("robbed kong not marked robbed", rec([kong(3, "added"), rob(3, {"seat": 1})]),
     "events[0].robbed"),
    ("kong after the win", rec([self_draw(1), kong(2)]), "events[1]"),
    ("robbing a concealed kong", rec([kong(3, "concealed", robbed=True)]), "events[0]"),
    ("rob multiplier 0", rec([], rules={"rob_multiplier": 0}), "rules.rob_multiplier"),
    ("unknown form", rec([self_draw(1, form="dragons")]), "events[0].winners[0].form"),
    ("fei_bao count 0", rec([fei(2, 0)]), "events[0].count"),
    ("jing kong not a bool", rec([kong(2, jing="yes")]), "events[0].jing"),
    ("too many 正精 for one seat", rec([jing(s0=(5, 0))]), "events[0].seats"),
]


@pytest.mark.parametrize(("name", "record", "field"), INVALID, ids=[r[0] for r in INVALID])
def test_invalid_records_raise(name: str, record: dict, field: str) -> None:
    with pytest.raises(ScoringError) as exc:
        score(record)
    assert exc.value.field.startswith(field), exc.value


@pytest.mark.parametrize(("name", "record", "field"), INVALID[:6], ids=[r[0] for r in INVALID[:6]])
def test_invalid_records_exit_2(name: str, record: dict, field: str) -> None:
    assert_cli_error(record, field)


# -- properties over random valid records --------------------------------------------------------

@st.composite
def winner(draw: st.DrawFn, seat: int, chain: int) -> dict:
    form = draw(st.sampled_from(["standard", "seven_pairs", "all_pungs", "orphans",
                                 "thirteen_waves"]))
    irregular = form in ("orphans", "thirteen_waves")
    f: dict = {"seat": seat, "form": form, "jing": draw(st.booleans()),
               "fei_bao": draw(st.integers(0, 2)), "single_wait": draw(st.booleans()),
               "bao_restore": draw(st.booleans())}
    if f["jing"] and not irregular:
        f["diaotou"] = draw(st.booleans())
    if irregular:
        f["seven_honors"] = draw(st.booleans())
    else:
        f["pure"] = draw(st.booleans())
    if form == "seven_pairs":
        f["luxury"] = draw(st.integers(0, 3))
    if chain:
        f["kong_chain"] = chain
    if form not in ("seven_pairs", "thirteen_waves"):
        others = [s for s in range(4) if s != seat]
        fed: dict = {}
        for s in draw(st.lists(st.sampled_from(others), max_size=2, unique=True)):
            if sum(fed.values()) < 4:
                fed[str(s)] = draw(st.integers(1, 4 - sum(fed.values())))
        f["fed"] = fed
    return f


@st.composite
def feibao_records(draw: st.DrawFn) -> dict:
    rules = {"discard_wins": draw(st.booleans()), "rob_multiplier": draw(st.sampled_from([6, 3])),
             "three_feed": draw(st.booleans()), "jing_on_exhausted": draw(st.booleans())}
    events: list[dict] = []
    kongs = [0, 0, 0, 0]
    for _ in range(draw(st.integers(0, 3))):
        seat = draw(st.integers(0, 3))
        kind = draw(st.sampled_from(["concealed", "added", "exposed"]))
        ev = kong(seat, kind, jing=draw(st.booleans()))
        if kind == "exposed":
            ev["from"] = (seat + draw(st.integers(1, 3))) % 4
        events.append(ev)
        kongs[seat] += 1
    end = draw(st.sampled_from(["self_draw", "self_draw", "robbed_kong", "discard", "exhausted"]))
    winners: list[dict] = []
    if end == "self_draw":
        seat = draw(st.integers(0, 3))
        chain = draw(st.integers(0, kongs[seat]))
        winners = [draw(winner(seat, chain))]
        events.append(self_draw(seat, bool(chain), **{k: v for k, v in winners[0].items()
                                                      if k != "seat"}))
    elif end == "robbed_kong":
        owner = draw(st.integers(0, 3))
        events.append(kong(owner, "added", robbed=True, jing=draw(st.booleans())))
        seats = draw(st.lists(st.sampled_from([s for s in range(4) if s != owner]), min_size=1,
                              max_size=3, unique=True))
        winners = [draw(winner(s, 0)) for s in seats]
        events.append(rob(owner, *winners))
        if len(events) > 2 and events[-3]["seat"] == owner:
            events[-1]["robs_earlier_kongs"] = draw(st.booleans())
    elif end == "discard" and rules["discard_wins"]:
        frm, seat = draw(st.permutations(range(4)))[:2]
        winners = [draw(winner(seat, 0))]
        events.append({"type": "win", "by": "discard", "from": frm, "winners": winners})
    else:
        events.append({"type": "exhausted"})
    won = {w["seat"] for w in winners}
    room = 8 - sum(w["fei_bao"] for w in winners)
    for s in draw(st.lists(st.sampled_from([s for s in range(4) if s not in won]), max_size=2)):
        if room:
            n = draw(st.integers(1, min(2, room)))
            room -= n
            events.insert(draw(st.integers(0, len(events))), fei(s, n))
    if draw(st.booleans()):
        zheng, fu, seats = 4, 4, {}
        for s in draw(st.lists(st.sampled_from(["s0", "s1", "s2", "s3"]), max_size=3, unique=True)):
            z, f = draw(st.integers(0, zheng)), draw(st.integers(0, fu))
            zheng, fu = zheng - z, fu - f
            seats[s] = (z, f)
        events.append(jing(**seats))
    return rec(events, rules=rules, dealer=draw(st.integers(0, 3)),
               dealer_streak=draw(st.integers(1, 4)))


@given(feibao_records())
def test_property_zero_sum_and_lines_add_up(record: dict) -> None:
    assert_invariants(score(record).to_dict())


@given(feibao_records())
def test_property_deterministic(record: dict) -> None:
    again = json.loads(json.dumps(record))
    assert score(record).to_dict() == score(again).to_dict()


@given(feibao_records())
def test_property_wins_pay_only_the_winners(record: dict) -> None:
    out = score(record)
    won = {w["seat"] for e in record["events"] if e["type"] == "win" for w in e["winners"]}
    for line in out.lines:
        if line.what in ("win", "fei_bao"):
            assert all(line.deltas[s] <= 0 for s in range(4) if s not in won), line
    if not won:
        assert {line.what for line in out.lines} <= {"kong", "jing_bonus"}


@given(feibao_records())
def test_property_next_dealer(record: dict) -> None:
    out = score(record)
    won = {w["seat"] for e in record["events"] if e["type"] == "win" for w in e["winners"]}
    stays = not won or record["dealer"] in won
    assert out.next_dealer == (record["dealer"] if stays else (record["dealer"] + 1) % 4)
