"""Hands: recording (once), confirming a draft, voiding, and the reads built on them
(history, totals, levels, statistics, the chart, the export)."""

from __future__ import annotations

from collections.abc import AsyncIterator, Sequence
from dataclasses import replace
from typing import Any

from sqlalchemy import Integer, bindparam, case, delete, false, func, select, update
from sqlalchemy.exc import IntegrityError
from sqlalchemy.ext.asyncio import AsyncSession

from .. import aggregates
from .. import models as M
from ..domain import (
    AlreadyVoided,
    ChartSeries,
    Draft,
    DraftClosed,
    InvalidHand,
    LevelStanding,
    LevelSummary,
    NotFound,
    PersonResult,
    Points,
    RecordedHand,
    Seats,
    SeatStatsRow,
    SessionNotReady,
    SessionSettled,
    StaleDraft,
    StoreError,
    TableChanged,
)
from .core import (
    StoreCore,
    short_error,
)
from .rows import (
    as_utc,
    check_running,
    deltas_of,
    draft_hand_key,
    hand_of,
    json_copy,
    seats_of,
    table_mark_of,
)


class HandsMixin(StoreCore):
    async def record_hand(self, session_id: int, record: dict[str, Any], outcome: dict[str, Any], *,
                          entered_by: int | None, idempotency_key: str,
                          level: int | None = None) -> RecordedHand:
        """Store a scored hand with the next sequence number, its four ledger entries and the
        new session totals, in one transaction.

        `outcome["deltas"]` must be four integers summing to 0 (`InvalidHand`, nothing written).
        A repeated `idempotency_key` returns the hand stored the first time with
        `created=False` and writes nothing — also when two workers race. `level` (a bankroll
        variant's) defaults to the previous hand's level, plus one if that hand ended its
        level."""
        deltas = deltas_of(outcome)
        record = json_copy(record, "hand record")
        outcome = json_copy(outcome, "outcome")
        if not isinstance(record, dict):
            raise InvalidHand("the hand record must be a JSON object")
        if not idempotency_key or len(idempotency_key) > 200:
            raise StoreError("a hand needs an idempotency key of 1-200 characters")

        async def write(s: AsyncSession) -> RecordedHand:
            row = await self._locked_session(s, session_id)
            existing = await self._hand_by_key(s, idempotency_key, session_id)
            if existing is not None:
                return existing
            return await self._insert_hand(s, row, record, outcome, deltas, entered_by=entered_by,
                                           key=idempotency_key, level=level)

        try:
            return await self._write(write, once=True)
        except IntegrityError as exc:
            # Only a race on the key from another session's writer gets here (a session's
            # writers are serialized): whoever won stored it.
            async with self._read() as s:
                existing = await self._hand_by_key(s, idempotency_key, session_id)
            if existing is None:
                raise StoreError(f"the hand was not recorded: {short_error(exc)}") from exc
            return existing

    async def confirm_hand(self, draft: Draft, record: dict[str, Any], outcome: dict[str, Any], *,
                           entered_by: int | None, table_mark: str) -> RecordedHand:
        """Record the hand of a wizard draft and close the draft, in one transaction, only if
        the draft is still at `draft.version` and the table is still at `table_mark` (what its
        preview was computed on). The same draft confirmed twice: the hand stored the first
        time, `created=False`. `DraftClosed` (cancelled), `StaleDraft` (changed meanwhile),
        `TableChanged` (a hand was added or undone: nothing written)."""
        deltas = deltas_of(outcome)
        record = json_copy(record, "hand record")
        outcome = json_copy(outcome, "outcome")
        key = draft_hand_key(draft)
        try:  # the usual case in three statements (and the update's claim); the unusual below
            return await self._write(
                lambda s: self._confirm_fast(s, draft, record, outcome, deltas, entered_by,
                                             key, table_mark), immediate=False, once=True)
        except (_NotFast, IntegrityError):
            pass  # nothing was written: the transaction was rolled back
        table = M.Draft.__table__

        async def write(s: AsyncSession) -> RecordedHand:
            row = await self._locked_session(s, draft.session_id)
            existing = await self._hand_by_key(s, key, draft.session_id)
            if existing is not None:
                await s.execute(delete(table).where(table.c.chat_id == draft.chat_id,
                                                    table.c.message_id == draft.message_id))
                return existing
            current = await s.get(M.Draft, (draft.chat_id, draft.message_id),
                                  populate_existing=True)
            if current is None:
                raise DraftClosed("this hand entry was cancelled")
            if current.version != draft.version:
                raise StaleDraft("this hand entry was changed meanwhile")
            if await self._table_mark(s, row) != table_mark:
                raise TableChanged("the table changed since the preview")
            hand = await self._insert_hand(s, row, record, outcome, deltas, entered_by=entered_by,
                                           key=key)
            await s.delete(current)
            return hand

        return await self._write(write, once=True)

    async def _confirm_fast(self, s: AsyncSession, draft: Draft, record: dict[str, Any],
                            outcome: dict[str, Any], deltas: Points, entered_by: int | None,
                            key: str, table_mark: str) -> RecordedHand:
        """confirm_hand when nothing is unusual: (1) the session's next seq is taken only if
        no hand was added since the preview (this locks the session row; on SQLite, as the
        transaction's first statement, it takes the write lock, so what follows reads current
        data), (2) the hand is inserted only if the last live hand is still the preview's,
        (3) its aggregates and ledger entries are added and the draft is closed only at the
        version the preview had (else the statement fails). `_NotFast` or IntegrityError (a
        key used before, an unknown person, a changed draft): roll back, ask confirm_hand's
        careful path, which says what is wrong."""
        try:
            count, last_live = (int(x) for x in table_mark.split(":")[:2])
        except ValueError:
            raise _NotFast() from None
        row = (await s.execute(_TAKE_SEQ, {"b_session": draft.session_id, "b_count": count})).first()
        if row is None:
            raise _NotFast()  # a hand was added, the session ended or is gone
        seats = (row.seat0, row.seat1, row.seat2, row.seat3)
        if (None in seats or record.get("variant", row.variant) != row.variant
                or table_mark_of(count, last_live, row.rules, row.stake_cents, seats) != table_mark):
            raise _NotFast()
        hand = await self._store_hand(s, draft.session_id, count + 1, seats, record, outcome,
                                      deltas, entered_by=entered_by, key=key, last_live=last_live,
                                      draft=(draft.chat_id, draft.message_id, draft.version))
        if hand is None:
            raise _NotFast()  # a hand was undone since the preview
        return hand

    async def table_mark(self, session_id: int) -> str:
        """Where the table stands: changes with every hand recorded or undone (a preview
        computed at one mark is exact as long as the mark holds)."""
        async with self._read() as s:
            row = await s.get(M.Session, session_id)
            if row is None:
                raise NotFound(f"there is no session {session_id}")
            return await self._table_mark(s, row)

    async def hand_by_key(self, session_id: int, key: str) -> RecordedHand | None:
        """The session's hand stored under this idempotency key, if any."""
        async with self._read() as s:
            return await self._hand_by_key(s, key, session_id)

    async def void_hand(self, hand_id: int, *, by: int | None, reason: str) -> RecordedHand:
        """Mark a hand voided (it stays, with who voided it, when and why) and take it out of
        the session totals, in one transaction. `AlreadyVoided` the second time."""

        async def write(s: AsyncSession) -> RecordedHand:
            session_id = await s.scalar(select(M.Hand.session_id).where(M.Hand.id == hand_id))
            if session_id is None:
                raise NotFound(f"there is no hand {hand_id}")
            session = await self._locked_session(s, session_id)  # then read the hand: current
            if session.settled_at is not None:
                raise SessionSettled("this session is already settled")
            hand = await s.get(M.Hand, hand_id)
            assert hand is not None
            if hand.voided:
                raise AlreadyVoided(f"hand {hand.seq} is already voided")
            return await self._void(s, session_id, hand, by=by, reason=reason)

        return await self._write(write, once=True)

    async def last_hand(self, session_id: int, include_voided: bool = False) -> RecordedHand | None:
        """The session's latest hand (by default the latest that is not voided)."""
        hands = await self.history(session_id, limit=1, include_voided=include_voided)
        return hands[0] if hands else None

    async def standing_hands(self, session_id: int) -> int:
        """How many of the session's hands stand (an undone hand keeps its number, not its
        place in the count)."""
        async with self._read() as s:  # the running aggregate: no count over the hands
            return int(await s.scalar(select(M.SeatStats.hands).where(
                M.SeatStats.session_id == session_id, M.SeatStats.seat == 0)) or 0)

    async def history(self, session_id: int, *, limit: int = 10, before_seq: int | None = None,
                      include_voided: bool = True, people: bool = False) -> list[RecordedHand]:
        """A page of the session's hands, newest first: `limit` hands with seq < `before_seq`;
        with `people`, who sat in each seat for each hand (its ledger entries)."""
        stmt = (select(M.Hand, M.HandVoid).outerjoin(M.HandVoid, M.HandVoid.hand_id == M.Hand.id)
                .where(M.Hand.session_id == session_id))
        if before_seq is not None:
            stmt = stmt.where(M.Hand.seq < before_seq)
        if not include_voided:
            stmt = stmt.where(M.Hand.voided.is_(False))
        async with self._read() as s:
            rows = (await s.execute(stmt.order_by(M.Hand.seq.desc()).limit(limit))).all()
            hands = [hand_of(hand, void) for hand, void in rows]
            if people and hands:
                seated = await _people_of(s, [h.id for h in hands])
                hands = [replace(h, people=seated.get(h.id)) for h in hands]
            return hands

    async def totals(self, session_id: int) -> Points:
        """Points of the person now in each seat over the session's non-voided hands, in
        whichever seats they played them (0 for an empty seat); read from the running stints,
        no replay of the history. Until a seat changes hands these are the seats' totals."""
        async with self._read() as s:  # survives a restart like every other read
            row = await s.get(M.Session, session_id)
            if row is None:
                raise NotFound(f"there is no session {session_id}")
            seats = seats_of(row)
            own = dict((await s.execute(
                select(M.Stint.person_id, func.sum(M.Stint.points))
                .where(M.Stint.session_id == session_id).group_by(M.Stint.person_id))).all())
        a, b, c, d = (int(own.get(p, 0)) if p is not None else 0 for p in seats)
        return (a, b, c, d)

    async def seat_totals(self, session_id: int) -> Points:
        """Points per seat over the session's non-voided hands, whoever sat there."""
        stmt = (select(M.SessionTotal.points).where(M.SessionTotal.session_id == session_id)
                .order_by(M.SessionTotal.seat))
        async with self._read() as s:
            points = (await s.execute(stmt)).scalars().all()
        if len(points) != 4:
            raise NotFound(f"there is no session {session_id}")
        return (points[0], points[1], points[2], points[3])

    async def person_results(self, session_ids: Sequence[int]) -> list[PersonResult]:
        """Per session and person: what they won or lost over every seat they held, and in
        which seats (the one place that follows people across seat changes: /table, /settle,
        /stats and the season read it). Only people who played a hand there."""
        if not session_ids:
            return []
        async with self._read() as s:
            rows = (await s.execute(
                select(M.Stint.session_id, M.Stint.person_id, M.Stint.seat, M.Stint.points,
                       M.Stint.first_seq, M.Stint.hands)
                .where(M.Stint.session_id.in_(list(session_ids)))
                .order_by(M.Stint.session_id, M.Stint.first_seq, M.Stint.seat))).all()
        place = {sid: i for i, sid in enumerate(session_ids)}  # in the order asked
        return person_results_of(sorted(rows, key=lambda r: place[r[0]]))

    async def level_standings(self, session_id: int) -> list[LevelStanding]:
        """A bankroll variant: per level (in order), each seat's summed deltas over its
        non-voided hands, whether it ended (its last hand had `level_over`) and the balances
        after its last hand."""
        async with self._read() as s:
            return await aggregates.level_standings(s, session_id)

    async def level_summary(self, session_id: int) -> LevelSummary:
        """The level the next hand plays in, the running level's balances and the levels each
        seat won, from the running aggregates (flat in the length of the session)."""
        async with self._read() as s:
            return await aggregates.level_summary(s, session_id)

    async def seat_stats(self, chat_id: int) -> list[SeatStatsRow]:
        """Per seat of each of the chat's sessions: hands, wins, self-draws, dealt-in, points,
        biggest gain and winning patterns, from the running aggregates (for /stats)."""
        async with self._read() as s:
            return await aggregates.chat_seat_stats(s, chat_id)

    async def chart_series(self, session_id: int, *,
                           max_points: int = aggregates.MAX_CHART_POINTS) -> ChartSeries:
        """The session's running totals for a chart: every live hand, or for a long session the
        totals after each run of hands, at most `max_points` points."""
        async with self._read() as s:
            row = await s.get(M.Session, session_id)
            if row is None:
                raise NotFound(f"there is no session {session_id}")
            return await aggregates.chart_series(s, session_id, row.hand_count, max_points)

    async def iter_hands(self, session_id: int, *, batch: int = 200, include_voided: bool = True,
                         people: bool = False) -> AsyncIterator[list[RecordedHand]]:
        """Every hand of the session in order, `batch` at a time, never all of them in memory
        (an export of any length). PostgreSQL: one query read through a server-side cursor (one
        snapshot). SQLite: pages by seq, each its own short read (its in-memory database has one
        shared connection, which a cursor held open between pages would tie up). Close the
        iterator when leaving it early (contextlib.aclosing): it may hold a connection."""
        hand, void = M.Hand.__table__, M.HandVoid.__table__
        # Plain rows, not ORM objects: building those costs more than reading (export).
        stmt = (select(hand, void.c.reason, void.c.voided_by, void.c.voided_at)
                .outerjoin(void, void.c.hand_id == hand.c.id)
                .where(hand.c.session_id == session_id))
        if not include_voided:
            stmt = stmt.where(hand.c.voided.is_(False))
        stmt = stmt.order_by(hand.c.seq)
        if not self._sqlite:
            async with self.engine.connect() as conn:
                result = await conn.stream(stmt.execution_options(yield_per=batch))
                async for rows in result.partitions():
                    yield await self._with_people([_listed_hand(r) for r in rows], people)
            return
        after = 0
        while True:
            async with self.engine.connect() as conn:
                rows = (await conn.execute(stmt.where(hand.c.seq > after).limit(batch))).all()
            if not rows:
                return
            yield await self._with_people([_listed_hand(r) for r in rows], people)
            after = rows[-1].seq

    async def _with_people(self, hands: list[RecordedHand], people: bool) -> list[RecordedHand]:
        if not people or not hands:
            return hands
        async with self._read() as s:
            seated = await _people_of(s, [h.id for h in hands])
        return [replace(h, people=seated.get(h.id)) for h in hands]

    async def _hand_by_key(self, s: AsyncSession, key: str, session_id: int) -> RecordedHand | None:
        row = (await s.execute(select(M.Hand, M.HandVoid)
                               .outerjoin(M.HandVoid, M.HandVoid.hand_id == M.Hand.id)
                               .where(M.Hand.idempotency_key == key))).first()
        if row is None:
            return None
        hand, void = row
        if hand.session_id != session_id:
            raise StoreError(f"idempotency key {key!r} was used for a hand of another session")
        return hand_of(hand, void, created=False)

    async def _insert_hand(self, s: AsyncSession, row: M.Session, record: dict[str, Any],
                           outcome: dict[str, Any], deltas: Points, *, entered_by: int | None,
                           key: str, level: int | None = None) -> RecordedHand:
        """Add a hand to a locked session: next seq, four ledger entries, new totals."""
        if not isinstance(record, dict):
            raise InvalidHand("the hand record must be a JSON object")
        if not key or len(key) > 200:
            raise StoreError("a hand needs an idempotency key of 1-200 characters")
        check_running(row)
        seats = seats_of(row)
        if None in seats:
            raise SessionNotReady("four players must be seated before a hand is recorded")
        if record.get("variant", row.variant) != row.variant:
            raise InvalidHand(f"this session plays {row.variant}, not {record.get('variant')}")
        if entered_by is not None:
            await self._person_row(s, entered_by)
        row.hand_count += 1
        hand = await self._store_hand(s, row.id, row.hand_count, seats, record, outcome, deltas,
                                      entered_by=entered_by, key=key, level=level)
        assert hand is not None
        return hand

    async def _store_hand(self, s: AsyncSession, session_id: int, seq: int, seats: Seats,
                          record: dict[str, Any], outcome: dict[str, Any], deltas: Points, *,
                          entered_by: int | None, key: str, level: int | None = None,
                          last_live: int | None = None,
                          draft: tuple[int, int, int] | None = None) -> RecordedHand | None:
        """Insert the hand as `seq` (its level: `level`, else the previous live hand's, plus
        one if that hand ended its level), then its ledger entries and aggregates and, with
        `draft`, close that entry: two statements. With `last_live`, only if the session's
        last live hand is still that one (else None, nothing written)."""
        now = M.utcnow()
        params = {"b_session": session_id, "b_seq": seq, "b_level": level, "b_record": record,
                  "b_outcome": outcome, "b_entered_by": entered_by, "b_created_at": now,
                  "b_key": key}
        if last_live is None:
            stmt = _INSERT_HAND
        else:
            stmt, params["b_last_live"] = _INSERT_HAND_IF_LAST, last_live
        found = (await s.execute(stmt, params)).first()
        if found is None:
            return None
        hand_id, stored_level = found
        await aggregates.add_hand(s, session_id, hand_id, seq, stored_level, record, outcome,
                                  deltas, seats, draft)
        return RecordedHand(id=hand_id, session_id=session_id, seq=seq, record=record,
                            outcome=outcome, entered_by=entered_by, created_at=now, voided=False,
                            void_reason=None, voided_by=None, created=True, level=stored_level,
                            idempotency_key=key)

    async def _void(self, s: AsyncSession, session_id: int, hand: M.Hand, *, by: int | None,
                    reason: str) -> RecordedHand:
        if by is not None:
            await self._person_row(s, by)
        hand.voided = True
        void = M.HandVoid(hand_id=hand.id, voided_by=by, reason=reason, voided_at=M.utcnow())
        s.add(void)
        entries = (await s.execute(select(M.LedgerEntry.seat, M.LedgerEntry.points,
                                          M.LedgerEntry.person_id)
                                   .where(M.LedgerEntry.hand_id == hand.id))).all()
        deltas, people = [0, 0, 0, 0], [None, None, None, None]
        for seat, points, person in entries:
            deltas[seat], people[seat] = points, person
        await aggregates.remove_hand(s, self._insert, hand, deltas, people)
        return hand_of(hand, void)

    async def _table_mark(self, s: AsyncSession, row: M.Session) -> str:
        last_live = await s.scalar(select(func.max(M.Hand.seq)).where(
            M.Hand.session_id == row.id, M.Hand.voided.is_(False)))
        return table_mark_of(row.hand_count, last_live or 0, row.rules, row.stake_cents, seats_of(row))


class _NotFast(Exception):
    """confirm_hand's quick path met something unusual: its transaction is rolled back."""


_SESSIONS, _HANDS = M.Session.__table__, M.Hand.__table__
# Built once (bound parameters): building a statement costs more than running it.
_TAKE_SEQ = (update(_SESSIONS)
             .where(_SESSIONS.c.id == bindparam("b_session"),
                    _SESSIONS.c.hand_count == bindparam("b_count"), _SESSIONS.c.ended_at.is_(None))
             .values(hand_count=_SESSIONS.c.hand_count + 1)
             .returning(_SESSIONS.c.variant, _SESSIONS.c.rules, _SESSIONS.c.stake_cents,
                        _SESSIONS.c.seat0, _SESSIONS.c.seat1, _SESSIONS.c.seat2, _SESSIONS.c.seat3))


def _last_live(column: Any) -> Any:
    """`column` of the session's newest live hand (along the (session_id, seq) index)."""
    return (select(column).where(_HANDS.c.session_id == bindparam("b_session"),
                                 _HANDS.c.voided.is_(False))
            .order_by(_HANDS.c.seq.desc()).limit(1).scalar_subquery())


def _insert_hand(*only_if: Any) -> Any:
    level = func.coalesce(_HANDS.c.level, 1)
    next_level = func.coalesce(bindparam("b_level", type_=Integer), _last_live(
        case((_HANDS.c.outcome["level_over"].as_boolean(), level + 1), else_=level)), 1)
    values = select(bindparam("b_session", type_=_HANDS.c.session_id.type),
                    bindparam("b_seq", type_=Integer), next_level,
                    bindparam("b_record", type_=_HANDS.c.record.type),
                    bindparam("b_outcome", type_=_HANDS.c.outcome.type),
                    bindparam("b_entered_by", type_=_HANDS.c.entered_by.type),
                    bindparam("b_created_at", type_=_HANDS.c.created_at.type),
                    bindparam("b_key", type_=_HANDS.c.idempotency_key.type), false())
    return (_HANDS.insert()
            .from_select(["session_id", "seq", "level", "record", "outcome", "entered_by",
                          "created_at", "idempotency_key", "voided"], values.where(*only_if))
            .returning(_HANDS.c.id, _HANDS.c.level))


_INSERT_HAND = _insert_hand()
_INSERT_HAND_IF_LAST = _insert_hand(
    func.coalesce(_last_live(_HANDS.c.seq), 0) == bindparam("b_last_live", type_=Integer))


async def _people_of(s: AsyncSession, hand_ids: Sequence[int]) -> dict[int, Seats]:
    """Who sat in each seat for each of these hands (their ledger entries)."""
    seated: dict[int, list[int | None]] = {}
    rows = await s.execute(select(M.LedgerEntry.hand_id, M.LedgerEntry.seat, M.LedgerEntry.person_id)
                           .where(M.LedgerEntry.hand_id.in_(list(hand_ids))))
    for hand_id, seat, person in rows.all():
        seated.setdefault(hand_id, [None, None, None, None])[seat] = person
    return {h: (p[0], p[1], p[2], p[3]) for h, p in seated.items()}


def person_results_of(rows: Sequence[Any]) -> list[PersonResult]:
    """Stint rows (session, person, seat, points, first seq, hands; by session and first
    seq) summed per session and person."""
    found: dict[tuple[int, int], PersonResult] = {}
    for sid, person, seat, points, first, hands in rows:
        had = found.get((sid, person))
        if had is None:
            found[sid, person] = PersonResult(sid, person, int(points), (seat,), first, int(hands))
        else:
            found[sid, person] = replace(had, points=had.points + int(points),
                                         seats=(*had.seats, seat), hands=had.hands + int(hands))
    return list(found.values())


def _listed_hand(r: Any) -> RecordedHand:
    """A hand from a row of `iter_hands`' query (the hand's columns and its void's)."""
    return RecordedHand(
        id=r.id, session_id=r.session_id, seq=r.seq, record=r.record, outcome=r.outcome,
        entered_by=r.entered_by, created_at=as_utc(r.created_at), voided=bool(r.voided),  # type: ignore[arg-type]
        void_reason=r.reason, voided_by=r.voided_by, created=False, level=r.level,
        voided_at=as_utc(r.voided_at), idempotency_key=r.idempotency_key)
