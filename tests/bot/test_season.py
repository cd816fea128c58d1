"""The season's figures from the per-person aggregates (bot/chat/season.py): one evening per
person and session whatever seats they held, money at each session's stake, best and worst
evening, months, the chart's running nets; zero-sum across everyone (hypothesis)."""

from __future__ import annotations

from datetime import UTC, datetime

from hypothesis import given
from hypothesis import strategies as st

from bot.chat.season import season_lines, season_of, season_series
from bot.view.i18n import translator
from db import SeatStatsRow, Session


def session(sid: int, month: int, day: int, stake: int = 0) -> Session:
    return Session(id=sid, chat_id=1, variant="free", rules={}, stake_cents=stake,
                   seats=(1, 2, 3, 4), started_at=datetime(2026, month, day, 20, tzinfo=UTC),
                   ended_at=None, hand_count=0, number=sid)


def row(sid: int, seat: int, person: int, hands: int, points: int, wins: int = 0) -> SeatStatsRow:
    return SeatStatsRow(session_id=sid, seat=seat, person_id=person, variant="free", hands=hands,
                        wins=wins, self_draws=0, dealt_in=0, points=points, biggest_gain=0,
                        patterns={})


def test_a_person_who_held_two_seats_has_one_evening_of_both() -> None:
    """Seat changes (a person moving seats mid-session) give the person two rows: one evening."""
    found = season_of([row(1, 0, 7, 3, 10, 1), row(1, 0, 10, 2, 1), row(1, 2, 11, 3, -1),
                       row(1, 2, 7, 2, -4), row(1, 1, 8, 5, -6, 2), row(1, 3, 9, 5, 0)],
                      [session(1, 11, 2, stake=50)])
    alice = next(p for p in found.people if p.person_id == 7)
    assert (alice.sessions, alice.hands, alice.wins, alice.points, alice.cents) == (1, 5, 1, 6, 300)
    assert found.hands == 5 and found.staked


def test_rows_of_other_chats_sessions_and_empty_seats_do_not_count() -> None:
    found = season_of([row(1, 0, 7, 2, 5), row(1, 1, 8, 2, -5), row(2, 0, 7, 4, 100),
                       row(1, 2, 9, 0, 0)], [session(1, 11, 2)])
    assert [p.person_id for p in found.people] == [7, 8]
    assert [len(found.sessions), found.hands] == [1, 2]


def test_best_and_worst_go_by_money_where_any_evening_had_a_stake() -> None:
    """+20 points unstaked is no better evening than +5 points at 1.00: money decides."""
    found = season_of([row(1, 0, 7, 1, 20), row(1, 1, 8, 1, -20),
                       row(2, 0, 7, 1, 5), row(2, 1, 8, 1, -5),
                       row(3, 0, 7, 1, -1), row(3, 1, 8, 1, 1)],
                      [session(1, 9, 1), session(2, 9, 8, stake=100), session(3, 10, 1, stake=100)])
    seven = next(p for p in found.people if p.person_id == 7)
    assert seven.best is not None and seven.best.session == 2
    assert seven.worst is not None and seven.worst.session == 3
    assert [m.month for m in found.months] == ["2026-09", "2026-10"]
    assert found.months[0].results == ((7, 25, 500), (8, -25, -500))


def test_the_chart_runs_each_persons_net_over_the_sessions() -> None:
    found = season_of([row(1, 0, 7, 1, 3), row(1, 1, 8, 1, -3), row(2, 0, 8, 1, 2),
                       row(2, 1, 9, 1, -2)], [session(1, 9, 1), session(2, 9, 2)])
    series, staked = season_series(found, {7: "Ann", 8: "Bo", 9: "Ann"})
    assert not staked
    assert series == {"Ann": [0, 3, 3], "Bo": [0, -3, -1], "Ann′": [0, 0, -2]}


def test_the_lines_escape_names_and_read_in_chinese() -> None:
    found = season_of([row(1, 0, 7, 1, 3), row(1, 1, 8, 1, -3)], [session(1, 9, 1)])
    text = "\n".join(season_lines(translator("zh-Hant"), found, {7: "<i>Ann", 8: "阿明"}))
    assert "&lt;i&gt;Ann" in text and "<i>Ann" not in text
    assert "賽季" in text and "按月" in text and "1 場" in text


@st.composite
def seasons(draw: st.DrawFn) -> tuple[list[SeatStatsRow], list[Session]]:
    n = draw(st.integers(1, 5))
    sessions = [session(i + 1, draw(st.integers(1, 12)), draw(st.integers(1, 28)),
                        draw(st.sampled_from([0, 50, 100]))) for i in range(n)]
    rows = []
    for s in sessions:
        people = draw(st.lists(st.integers(1, 6), min_size=4, max_size=4))
        hands = draw(st.integers(1, 30))
        three = draw(st.lists(st.integers(-99, 99), min_size=3, max_size=3))
        for seat, (person, pts) in enumerate(zip(people, [*three, -sum(three)], strict=True)):
            rows.append(row(s.id, seat, person, hands, pts))
    return rows, sessions


@given(seasons())
def test_the_season_is_zero_sum_and_adds_up_to_its_rows(data: tuple) -> None:
    rows, sessions = data
    found = season_of(rows, sessions)
    assert sum(p.points for p in found.people) == 0
    assert sum(p.cents for p in found.people) == 0
    assert sum(r for m in found.months for _, r, _ in m.results) == 0
    for p in found.people:
        mine = [r for r in rows if r.person_id == p.person_id]
        assert p.points == sum(r.points for r in mine)
        assert p.sessions == len({r.session_id for r in mine})
    assert [c for c in (p.cents for p in found.people)] == sorted(
        (p.cents for p in found.people), reverse=True)
    series, _ = season_series(found, {i: f"p{i}" for i in range(1, 7)})
    assert sum(line[-1] for line in series.values()) == 0
