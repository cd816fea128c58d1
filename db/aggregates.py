"""Running aggregates: what /stats, /table (a bankroll variant's levels) and /chart read instead
of every hand.

`add_hand` and `remove_hand` run inside the transaction that records (record_hand,
confirm_hand, import) or voids the hand (the session row is locked), so the aggregates change
with the hands, never apart from them. `add_hand` is one statement: its rows, computed here,
go into the `hand_effects` view, whose triggers (migration 0006) add each to its table.
Reads cost the same at 100 or 100 000 hands: per session a few rows per seat, the newest level
row, and at most a few thousand chart buckets. Migration 0004_aggregates built them from the
hands stored before.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from sqlalchemy import bindparam, case, delete, func, insert, select, update
from sqlalchemy.ext.asyncio import AsyncSession

from scoring.stats import seat_facts

from . import models as M
from .domain import ChartSeries, LevelStanding, LevelSummary, Points, SeatStatsRow

STATS = M.SeatStats.__table__
STINTS = M.Stint.__table__
STINT_PATTERNS = M.StintPattern.__table__
PATTERNS = M.SeatPattern.__table__
LEVELS = M.LevelTotal.__table__
BUCKETS = M.HandBucket.__table__
TOTALS = M.SessionTotal.__table__
BUCKET_SIZE = M.BUCKET_SIZE
MAX_CHART_POINTS = 2_000
MAX_LEVEL_BREAKS = 100  # more dashed lines than this are noise, not information

_ADD_SEATS = (
    update(STATS).where(STATS.c.session_id == bindparam("b_session"), STATS.c.seat == bindparam("b_seat"))
    .values(hands=STATS.c.hands + bindparam("b_hands"), wins=STATS.c.wins + bindparam("b_wins"),
            self_draws=STATS.c.self_draws + bindparam("b_self_draws"),
            dealt_in=STATS.c.dealt_in + bindparam("b_dealt_in"),
            levels_won=STATS.c.levels_won + bindparam("b_levels_won"),
            biggest_gain=case((STATS.c.biggest_gain < bindparam("b_gain"), bindparam("b_gain")),
                              else_=STATS.c.biggest_gain)))
_ADD_TOTALS = (update(TOTALS).where(TOTALS.c.session_id == bindparam("b_session"),
                                    TOTALS.c.seat == bindparam("b_seat"))
               .values(points=TOTALS.c.points + bindparam("b_points")))


def new_session_rows(session_id: int) -> list[Any]:
    """The rows a new session starts with (next to its four session totals)."""
    return [M.SeatStats(session_id=session_id, seat=seat, hands=0, wins=0, self_draws=0, dealt_in=0,
                        biggest_gain=0, levels_won=0) for seat in range(4)]


def _leaders(outcome: dict[str, Any]) -> list[int]:
    """1 for the seats that won the level this hand ended (the highest balance; ties share)."""
    balances = outcome.get("balances")
    if not outcome.get("level_over") or not isinstance(balances, list) or len(balances) != 4:
        return [0, 0, 0, 0]
    best = max(balances)
    return [int(b == best) for b in balances]


async def add_to_totals(s: AsyncSession, session_id: int, deltas: Sequence[int]) -> None:
    """Relative updates (correct whatever else changed the rows), one statement for all seats."""
    params = [{"b_session": session_id, "b_seat": seat, "b_points": points}
              for seat, points in enumerate(deltas) if points]
    if params:
        await s.execute(_ADD_TOTALS, params)


_EFFECT_COLUMNS = tuple(c.name for c in M.HAND_EFFECTS.c)
_NO_EFFECT = dict.fromkeys(_EFFECT_COLUMNS)
_APPLY_EFFECTS = insert(M.HAND_EFFECTS)


def _effect(kind: str, session_id: int, **values: Any) -> dict[str, Any]:
    return {**_NO_EFFECT, "kind": kind, "session_id": session_id, **values}


async def add_hand(s: AsyncSession, session_id: int, hand_id: int, seq: int, level: int | None,
                   record: dict[str, Any], outcome: dict[str, Any], deltas: Sequence[int],
                   seats: Sequence[int | None], draft: tuple[int, int, int] | None = None) -> None:
    """Count a newly stored hand in every aggregate (the session totals included), write its
    four ledger entries and, with `draft` (chat_id, message_id, version), close the wizard entry
    it came from: one prepared INSERT into the hand_effects view, executed for each row in one
    call (one round trip), whose triggers apply the rows (migration 0006). The draft must
    still be at that version, else the statement fails (IntegrityError)."""
    facts = seat_facts(record, outcome)
    won = _leaders(outcome)
    rows = [_effect("seat", session_id, seat=seat, hand_id=hand_id, person_id=seats[seat],
                    last_seq=seq, points=deltas[seat], hands=1, wins=f.wins, self_draws=f.self_draws,
                    dealt_in=f.dealt_in, levels_won=won[seat], gain=f.points)
            for seat, f in enumerate(facts)]
    counts: dict[tuple[int, str], int] = {}
    for seat, f in enumerate(facts):
        for term in f.patterns:
            counts[seat, term[:64]] = counts.get((seat, term[:64]), 0) + 1
    rows += [_effect("pattern", session_id, seat=seat, person_id=seats[seat], term=term, n=n)
             for (seat, term), n in counts.items()]
    four = {"d0": deltas[0], "d1": deltas[1], "d2": deltas[2], "d3": deltas[3]}
    if level is not None:
        rows.append(_effect("level", session_id, level=level, last_seq=seq,
                            ended=bool(outcome.get("level_over")),
                            balances=outcome.get("balances"), **four))
    rows.append(_effect("bucket", session_id, bucket=seq // BUCKET_SIZE, **four))
    if draft is not None:
        rows.append(_effect("draft", session_id, chat_id=draft[0], message_id=draft[1],
                            version=draft[2]))
    await s.execute(_APPLY_EFFECTS, rows)  # one statement, executed for each row


async def _add_patterns(s: AsyncSession, insert: Any, session_id: int, facts: Sequence[Any],
                        sign: int, people: Sequence[int | None]) -> None:
    counts: dict[tuple[int, str], int] = {}
    for seat, f in enumerate(facts):
        for term in f.patterns:
            counts[seat, term] = counts.get((seat, term), 0) + sign
    if not counts:
        return
    stmt = insert(PATTERNS)
    await s.execute(stmt.on_conflict_do_update(
        index_elements=[PATTERNS.c.session_id, PATTERNS.c.seat, PATTERNS.c.term],
        set_={"count": PATTERNS.c.count + stmt.excluded.count}),
        [{"session_id": session_id, "seat": seat, "term": term[:64], "count": n}
         for (seat, term), n in counts.items()])
    mine = [{"session_id": session_id, "seat": seat, "person_id": people[seat], "term": term[:64],
             "count": n} for (seat, term), n in counts.items() if people[seat] is not None]
    if mine:
        stmt = insert(STINT_PATTERNS)
        await s.execute(stmt.on_conflict_do_update(
            index_elements=[STINT_PATTERNS.c.session_id, STINT_PATTERNS.c.seat,
                            STINT_PATTERNS.c.person_id, STINT_PATTERNS.c.term],
            set_={"count": STINT_PATTERNS.c.count + stmt.excluded.count}), mine)


async def remove_hand(s: AsyncSession, insert: Any, hand: M.Hand, deltas: Sequence[int],
                      people: Sequence[int | None]) -> None:
    """Take a hand that was just marked voided (flushed or not) out of every aggregate;
    `people`: who sat in each seat for it (its ledger entries)."""
    session_id, seq = hand.session_id, hand.seq
    facts = seat_facts(hand.record, hand.outcome)
    won = _leaders(hand.outcome)
    await add_to_totals(s, session_id, [-d for d in deltas])
    await s.flush()  # the hand is voided before the biggest gain is looked up again
    await _remove_from_stints(s, session_id, facts, won, deltas, people)
    gains = dict((await s.execute(select(STATS.c.seat, STATS.c.biggest_gain)
                                  .where(STATS.c.session_id == session_id))).all())
    params = []
    for seat, f in enumerate(facts):
        gain = gains.get(seat, 0)
        if f.points > 0 and f.points >= gain:  # it was the biggest: find the next biggest
            gain = await _biggest_gain(s, session_id, seat)
        params.append({"b_session": session_id, "b_seat": seat, "b_hands": -1, "b_wins": -f.wins,
                       "b_self_draws": -f.self_draws, "b_dealt_in": -f.dealt_in,
                       "b_levels_won": -won[seat], "b_gain": gain})
    # CASE keeps the larger of old and new; a lowered maximum is written directly first.
    lowered = [p for p in params if p["b_gain"] < gains.get(p["b_seat"], 0)]
    if lowered:
        await s.execute(update(STATS).where(STATS.c.session_id == bindparam("b_session"),
                                            STATS.c.seat == bindparam("b_seat"))
                        .values(biggest_gain=bindparam("b_gain")), lowered)
    await s.execute(_ADD_SEATS, params)
    await _add_patterns(s, insert, session_id, facts, -1, people)
    if hand.level is not None:
        await _remove_from_level(s, session_id, hand.level, seq, deltas)
    await s.execute(update(BUCKETS).where(BUCKETS.c.session_id == session_id,
                                          BUCKETS.c.bucket == seq // BUCKET_SIZE)
                    .values(hands=BUCKETS.c.hands - 1, d0=BUCKETS.c.d0 - deltas[0],
                            d1=BUCKETS.c.d1 - deltas[1], d2=BUCKETS.c.d2 - deltas[2],
                            d3=BUCKETS.c.d3 - deltas[3]))


async def _remove_from_stints(s: AsyncSession, session_id: int, facts: Sequence[Any],
                              won: Sequence[int], deltas: Sequence[int],
                              people: Sequence[int | None]) -> None:
    """The voided hand out of the stints of the people who played it (seat by seat)."""
    key = (STINTS.c.session_id == session_id, STINTS.c.seat == bindparam("b_seat"),
           STINTS.c.person_id == bindparam("b_person"))
    gains = {(seat, person): gain for seat, person, gain in (await s.execute(
        select(STINTS.c.seat, STINTS.c.person_id, STINTS.c.biggest_gain)
        .where(STINTS.c.session_id == session_id))).all()}
    params = []
    for seat, f in enumerate(facts):
        person = people[seat]
        if person is None:
            continue
        gain = gains.get((seat, person), 0)
        if f.points > 0 and f.points >= gain:  # it was the biggest: find the next biggest
            gain = await _biggest_gain(s, session_id, seat, person)
        params.append({"b_seat": seat, "b_person": person, "b_points": deltas[seat],
                       "b_wins": f.wins, "b_self_draws": f.self_draws, "b_dealt_in": f.dealt_in,
                       "b_levels_won": won[seat], "b_gain": gain})
    if params:
        await s.execute(update(STINTS).where(*key).values(
            points=STINTS.c.points - bindparam("b_points"), hands=STINTS.c.hands - 1,
            wins=STINTS.c.wins - bindparam("b_wins"),
            self_draws=STINTS.c.self_draws - bindparam("b_self_draws"),
            dealt_in=STINTS.c.dealt_in - bindparam("b_dealt_in"),
            levels_won=STINTS.c.levels_won - bindparam("b_levels_won"),
            biggest_gain=bindparam("b_gain")), params)


async def _biggest_gain(s: AsyncSession, session_id: int, seat: int,
                        person: int | None = None) -> int:
    """The seat's biggest gain over the session's live hands (only after voiding the biggest)."""
    # Down the (session_id, seat, points) index to the first entry of a live hand.
    best = await s.scalar(select(M.LedgerEntry.points)
                          .join(M.Hand, M.Hand.id == M.LedgerEntry.hand_id)
                          .where(M.LedgerEntry.session_id == session_id, M.LedgerEntry.seat == seat,
                                 M.Hand.voided.is_(False),
                                 *([M.LedgerEntry.person_id == person] if person is not None else []))
                          .order_by(M.LedgerEntry.points.desc()).limit(1))
    return max(int(best or 0), 0)


async def _remove_from_level(s: AsyncSession, session_id: int, level: int, seq: int,
                             deltas: Sequence[int]) -> None:
    where = (LEVELS.c.session_id == session_id, LEVELS.c.level == level)
    row = (await s.execute(select(LEVELS.c.hands, LEVELS.c.last_seq).where(*where))).first()
    if row is None:
        return
    if row.hands <= 1:
        await s.execute(delete(LEVELS).where(*where))
        return
    values: dict[str, Any] = {"hands": LEVELS.c.hands - 1, "d0": LEVELS.c.d0 - deltas[0],
                              "d1": LEVELS.c.d1 - deltas[1], "d2": LEVELS.c.d2 - deltas[2],
                              "d3": LEVELS.c.d3 - deltas[3]}
    if row.last_seq == seq:  # the level now ends where its previous live hand left it
        live = (M.Hand.session_id == session_id, M.Hand.voided.is_(False))
        # Levels follow each other in seq order: the previous live hand is the level's (read
        # along the (session_id, seq) index, not every hand of a long level).
        prev = (await s.execute(select(M.Hand.seq, M.Hand.outcome, M.Hand.level)
                                .where(*live, M.Hand.seq < seq)
                                .order_by(M.Hand.seq.desc()).limit(1))).first()
        if prev is not None and prev.level != level:  # levels given out of order
            prev = (await s.execute(select(M.Hand.seq, M.Hand.outcome, M.Hand.level)
                                    .where(*live, M.Hand.level == level)
                                    .order_by(M.Hand.seq.desc()).limit(1))).first()
        if prev is not None:
            values.update(last_seq=prev.seq, ended=bool(prev.outcome.get("level_over")),
                          balances=prev.outcome.get("balances"))
    await s.execute(update(LEVELS).where(*where).values(**values))


# -- reads ---------------------------------------------------------------------------------------

async def chat_seat_stats(s: AsyncSession, chat_id: int) -> list[SeatStatsRow]:
    """Every stint (a person in a seat) of every session of the chat that played a hand,
    with its patterns: a person's numbers stay theirs when seats change hands."""
    stmt = (select(M.Session.id, M.Session.variant, STINTS)
            .join(STINTS, STINTS.c.session_id == M.Session.id)
            .where(M.Session.chat_id == chat_id, STINTS.c.hands > 0))
    rows = (await s.execute(stmt)).all()
    patterns: dict[tuple[int, int, int], dict[str, int]] = {}
    if rows:
        pstmt = (select(STINT_PATTERNS.c.session_id, STINT_PATTERNS.c.seat,
                        STINT_PATTERNS.c.person_id, STINT_PATTERNS.c.term, STINT_PATTERNS.c.count)
                 .join(M.Session, M.Session.id == STINT_PATTERNS.c.session_id)
                 .where(M.Session.chat_id == chat_id, STINT_PATTERNS.c.count > 0))
        for sid, seat, person, term, count in (await s.execute(pstmt)).all():
            patterns.setdefault((sid, seat, person), {})[term] = count
    return [SeatStatsRow(r.id, r.seat, r.person_id, r.variant, r.hands, r.wins, r.self_draws,
                         r.dealt_in, int(r.points), int(r.biggest_gain),
                         patterns.get((r.id, r.seat, r.person_id), {}))
            for r in sorted(rows, key=lambda r: (r.id, r.first_seq, r.seat))]


def _four(values: Sequence[Any]) -> Points:
    return (int(values[0]), int(values[1]), int(values[2]), int(values[3]))


async def level_summary(s: AsyncSession, session_id: int) -> LevelSummary:
    """The newest level and the levels each seat won: two short reads."""
    last = (await s.execute(select(LEVELS).where(LEVELS.c.session_id == session_id)
                            .order_by(LEVELS.c.level.desc()).limit(1))).first()
    won = dict((await s.execute(select(STATS.c.seat, STATS.c.levels_won)
                                .where(STATS.c.session_id == session_id))).all())
    levels_won = _four([won.get(seat, 0) for seat in range(4)])
    if last is None:
        return LevelSummary(1, None, levels_won)
    running = None if last.ended else _four(last.balances) if last.balances else None
    return LevelSummary(last.level + 1 if last.ended else last.level, running, levels_won)


async def level_standings(s: AsyncSession, session_id: int) -> list[LevelStanding]:
    rows = (await s.execute(select(LEVELS).where(LEVELS.c.session_id == session_id, LEVELS.c.hands > 0)
                            .order_by(LEVELS.c.level))).all()
    return [LevelStanding(r.level, (r.d0, r.d1, r.d2, r.d3), r.hands, bool(r.ended),
                          _four(r.balances) if r.balances else (r.d0, r.d1, r.d2, r.d3)) for r in rows]


async def chart_series(s: AsyncSession, session_id: int, hand_count: int,
                       max_points: int = MAX_CHART_POINTS) -> ChartSeries:
    """Running totals after each live hand, or, for a long session, after each run of hands
    (at most `max_points` points); level ends as hand numbers when there are few enough."""
    people: dict[int, list[int]] | None = None  # each person's running total, where read
    if hand_count <= max_points:
        stmt = (select(M.Hand.seq, M.LedgerEntry.seat, M.LedgerEntry.points, M.LedgerEntry.person_id)
                .join(M.LedgerEntry, M.LedgerEntry.hand_id == M.Hand.id)
                .where(M.Hand.session_id == session_id, M.Hand.voided.is_(False))
                .order_by(M.Hand.seq, M.LedgerEntry.seat))
        steps: list[tuple[int, int, list[int]]] = []  # (last seq, hands, deltas)
        per_hand: list[dict[int, int]] = []  # each hand's points by person
        for seq, seat, points, person in (await s.execute(stmt)).all():
            if not steps or steps[-1][0] != seq:
                steps.append((seq, 1, [0, 0, 0, 0]))
                per_hand.append({})
            steps[-1][2][seat] += points
            per_hand[-1][person] = per_hand[-1].get(person, 0) + points
        people = {}
        for person in dict.fromkeys(p for hand in per_hand for p in hand):  # first played first
            line = [0]
            for hand in per_hand:
                line.append(line[-1] + hand.get(person, 0))
            people[person] = line
    else:
        per = -(-(hand_count // BUCKET_SIZE + 1) // max_points)  # buckets per point
        group = BUCKETS.c.bucket / per if per > 1 else BUCKETS.c.bucket
        stmt = (select(func.max(BUCKETS.c.bucket), func.sum(BUCKETS.c.hands), func.sum(BUCKETS.c.d0),
                       func.sum(BUCKETS.c.d1), func.sum(BUCKETS.c.d2), func.sum(BUCKETS.c.d3))
                .where(BUCKETS.c.session_id == session_id, BUCKETS.c.hands > 0)
                .group_by(group).order_by(group))
        steps = [((bucket + 1) * BUCKET_SIZE - 1, int(n), [int(d0), int(d1), int(d2), int(d3)])
                 for bucket, n, d0, d1, d2, d3 in (await s.execute(stmt)).all()]
    x, totals, running, played, ends_at = [0], [(0, 0, 0, 0)], [0, 0, 0, 0], 0, []
    for last_seq, n, deltas in steps:
        played += n
        running = [r + d for r, d in zip(running, deltas, strict=True)]
        x.append(played)
        totals.append(_four(running))
        ends_at.append(last_seq)
    breaks: list[int] = []
    ended = await s.scalar(select(func.count()).select_from(LEVELS).where(
        LEVELS.c.session_id == session_id, LEVELS.c.ended.is_(True), LEVELS.c.hands > 0))
    if ended and ended <= MAX_LEVEL_BREAKS:
        seqs = (await s.execute(select(LEVELS.c.last_seq).where(
            LEVELS.c.session_id == session_id, LEVELS.c.ended.is_(True), LEVELS.c.hands > 0)
            .order_by(LEVELS.c.last_seq))).scalars().all()
        i = 0
        for seq in seqs:  # the first point at or after the level's last hand
            while i < len(ends_at) and ends_at[i] < seq:
                i += 1
            if i < len(ends_at):
                breaks.append(x[i + 1])
    return ChartSeries(x, totals, breaks, played, people)
