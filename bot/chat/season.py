"""The group's season (/season, and the page): per person across the chat's sessions and tables,
the sessions they played, hands, wins, net points and money, their best and worst evening, and
each month's results. A person's result in a session is what the running per-person aggregates
say (`Store.seat_stats`: a row per stint, a person in a seat, as /stats reads them; /settle's
money is those points at the session's stake), so the season follows people across seat
changes exactly as those do; guests count under their names."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field

from db import SeatStatsRow, Session, Store, without_bidi_controls

from ..view.i18n import Translator
from ..view.render import colon, esc, hands_count, listing, money, name_html, signed

MONTHS_SHOWN = 12  # the latest months /season lists one by one


@dataclass(frozen=True)
class Evening:
    """One person's result in one session."""

    session: int  # the chat's number for it (1, 2, …)
    date: str  # the day it started, YYYY-MM-DD (UTC)
    hands: int
    wins: int
    points: int
    cents: int  # the points at the session's stake; 0 without one


@dataclass
class PersonSeason:
    person_id: int
    evenings: list[Evening] = field(default_factory=list)

    @property
    def sessions(self) -> int:
        return len(self.evenings)

    @property
    def hands(self) -> int:
        return sum(e.hands for e in self.evenings)

    @property
    def wins(self) -> int:
        return sum(e.wins for e in self.evenings)

    @property
    def points(self) -> int:
        return sum(e.points for e in self.evenings)

    @property
    def cents(self) -> int:
        return sum(e.cents for e in self.evenings)

    def _ranked(self) -> list[Evening]:
        """Evenings from worst to best: by money where any was played for money, else by
        points; the earlier of two equal ones counts first."""
        staked = any(e.cents for e in self.evenings)
        return sorted(self.evenings, key=lambda e: ((e.cents if staked else e.points), -e.session))

    @property
    def best(self) -> Evening | None:
        return self._ranked()[-1] if self.evenings else None

    @property
    def worst(self) -> Evening | None:
        return self._ranked()[0] if self.evenings else None


@dataclass(frozen=True)
class MonthRow:
    month: str  # YYYY-MM
    sessions: int
    results: tuple[tuple[int, int, int], ...]  # (person, points, cents), best first


@dataclass
class Season:
    people: list[PersonSeason]  # best first
    sessions: list[Session]  # those with hands, oldest first
    months: list[MonthRow]
    hands: int = 0  # the hands of all those sessions

    @property
    def staked(self) -> bool:
        return any(s.stake_cents for s in self.sessions)


def season_of(rows: Iterable[SeatStatsRow], sessions: Iterable[Session]) -> Season:
    """The season from the per-person aggregates of each session (one row per seat a person
    held: a person in two seats of one session is one evening) and the sessions themselves."""
    by_id = {s.id: s for s in sessions}
    cells: dict[tuple[int, int], list[int]] = {}  # (session, person) → hands, wins, points
    seat_hands: dict[tuple[int, int], int] = {}  # (session, seat) → hands, whoever sat there
    for row in rows:
        if row.session_id not in by_id or not row.hands:
            continue
        cell = cells.setdefault((row.session_id, row.person_id), [0, 0, 0])
        cell[0] += row.hands
        cell[1] += row.wins
        cell[2] += row.points
        key = (row.session_id, row.seat)
        seat_hands[key] = seat_hands.get(key, 0) + row.hands
    people: dict[int, PersonSeason] = {}
    for (sid, pid), (hands, wins, points) in sorted(cells.items()):
        s = by_id[sid]
        people.setdefault(pid, PersonSeason(pid)).evenings.append(Evening(
            s.number or s.id, s.started_at.strftime("%Y-%m-%d"), hands, wins, points,
            points * s.stake_cents))
    hands: dict[int, int] = {}  # each seat played every hand of its session
    for (sid, _), n in seat_hands.items():
        hands[sid] = max(hands.get(sid, 0), n)
    played = sorted((by_id[sid] for sid in hands), key=lambda s: (s.started_at, s.id))
    ordered = sorted(people.values(), key=lambda p: (-p.cents, -p.points, p.person_id))
    return Season(ordered, played, _months(cells, by_id), sum(hands.values()))


def _months(cells: dict[tuple[int, int], list[int]], by_id: dict[int, Session]) -> list[MonthRow]:
    sums: dict[str, dict[int, list[int]]] = {}
    seen: dict[str, set[int]] = {}
    for (sid, pid), (_, _, points) in cells.items():
        s = by_id[sid]
        month = s.started_at.strftime("%Y-%m")
        seen.setdefault(month, set()).add(sid)
        total = sums.setdefault(month, {}).setdefault(pid, [0, 0])
        total[0] += points
        total[1] += points * s.stake_cents
    return [MonthRow(month, len(seen[month]), tuple(sorted(
        ((pid, p, c) for pid, (p, c) in sums[month].items()), key=lambda r: (-r[2], -r[1], r[0]))))
        for month in sorted(sums)]


async def season(store: Store, chat_id: int) -> Season:
    """The chat's season: every session, settled or not, of every table."""
    sessions = await store.chat_sessions(chat_id, include_settled=True)
    return season_of(await store.seat_stats(chat_id), sessions)


def sessions_count(t: Translator, n: int) -> str:
    """"1 session", "3 sessions" (Chinese: "3 场")."""
    return t("1 session") if n == 1 else t("{n} sessions", n=n)


def wins_count(t: Translator, n: int) -> str:
    return t("1 win") if n == 1 else t("{n} wins", n=n)


def _result(t: Translator, points: int, cents: int, staked: bool) -> str:
    """"+12 (+¥6.00)", or the points alone where nothing was played for money."""
    text = signed(points)
    return f"{text} ({'+' if cents > 0 else ''}{money(cents)})" if staked else text


def season_lines(t: Translator, s: Season, names: dict[int, str]) -> list[str]:
    """/season's HTML: a block a person, best first, then the latest months."""
    if not s.people:
        return [esc(t("No hands yet. /hand enters one."))]
    first = s.sessions[0].started_at.strftime("%Y-%m-%d")
    lines = ["🏆 <b>" + esc(t("The season")) + "</b> · " + esc(t(
        "{sessions} since {date}", sessions=sessions_count(t, len(s.sessions)), date=first))
        + " · " + esc(hands_count(t, s.hands)), ""]
    for rank, p in enumerate(s.people, 1):
        who = name_html(names.get(p.person_id, "?"))
        lines.append(f"{rank}. <b>{who}</b>{colon(t)}<b>{esc(_result(t, p.points, p.cents, s.staked))}"
                     "</b>")
        lines.append("   " + esc(listing(t).join((sessions_count(t, p.sessions), hands_count(t, p.hands),
                                                  wins_count(t, p.wins)))))
        best, worst = p.best, p.worst
        if best is not None and worst is not None and p.sessions > 1:
            lines.append("   " + esc(t(
                "best {best} (#{best_no}, {best_date}), worst {worst} (#{worst_no}, {worst_date})",
                best=_result(t, best.points, best.cents, s.staked), best_no=best.session,
                best_date=best.date, worst=_result(t, worst.points, worst.cents, s.staked),
                worst_no=worst.session, worst_date=worst.date)))
    lines += ["", "📅 <b>" + esc(t("By month")) + "</b>"]
    for m in s.months[-MONTHS_SHOWN:]:
        results = listing(t).join(f"{name_html(names.get(pid, '?'))} {esc(_result(t, p, c, s.staked))}"
                            for pid, p, c in m.results)
        lines.append(f"{m.month} · " + esc(sessions_count(t, m.sessions)) + colon(t) + results)
    return lines


def season_series(s: Season, names: dict[int, str]) -> tuple[dict[str, list[int]], bool]:
    """Each person's running net after each of the season's sessions (0 before the first):
    money in cents where anything was played for money, else points; and which of the two."""
    index = {sess.number or sess.id: i for i, sess in enumerate(s.sessions)}
    series: dict[str, list[int]] = {}
    for p in s.people:
        steps = [0] * len(s.sessions)
        for e in p.evenings:
            steps[index[e.session]] += e.cents if s.staked else e.points
        running, total = [0], 0
        for step in steps:
            total += step
            running.append(total)
        name = names.get(p.person_id, "?")
        while name in series:  # two people of one name: both lines, told apart
            name += "′"
        series[name] = running
    return series, s.staked


def season_chart(t: Translator, s: Season, names: dict[int, str]) -> bytes | None:
    """The season's chart as PNG bytes: each person's running net after each session, money
    in whole units where any session had a stake, else points; None for fewer than two
    sessions (one evening is /chart's). Slow (matplotlib): run it off the event loop."""
    if len(s.sessions) < 2:
        return None
    from ..view.charts import render_balance_chart  # matplotlib loads with the first chart

    series, staked = season_series(s, {pid: without_bidi_controls(n) for pid, n in names.items()})
    shown = {n: [c / 100 for c in line] for n, line in series.items()} if staked else series
    return render_balance_chart(shown, title=t("The season"), x_label=t("Session"),
                                y_label=t("Money") if staked else t("points"))
