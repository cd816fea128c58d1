"""Sessions: starting (or importing) one, seating, stake, rules, ending."""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Sequence
from typing import Any

from sqlalchemy import func, or_, select
from sqlalchemy.exc import IntegrityError
from sqlalchemy.ext.asyncio import AsyncSession

from .. import aggregates
from .. import models as M
from ..domain import (
    AlreadySeated,
    HandToImport,
    NotFound,
    SeatedElsewhere,
    SeatTaken,
    Session,
    SessionAlreadyRunning,
    SessionSettled,
    StoreError,
)
from ..faults import crash_point
from .core import (
    StoreCore,
)
from .rows import (
    check_cents,
    check_running,
    check_seat,
    deltas_of,
    json_copy,
    seats_of,
    session_of,
)


class SessionsMixin(StoreCore):
    async def start_session(self, chat_id: int, variant: str, rules: dict[str, Any], *,
                            stake_cents: int = 0, started_by: int | None = None,
                            another: bool = False) -> Session:
        """Start a session of `variant` in the chat with a snapshot of `rules` and empty seats.
        `SessionAlreadyRunning` if the chat has one running, unless `another` (a second table
        beside it, asked for)."""
        check_cents(stake_cents, allow_zero=True)
        rules = json_copy(rules, "rules")

        async def write(s: AsyncSession) -> Session:
            await self._ensure_chat_row(s, chat_id)
            await self._locked_chat(s, chat_id)  # session starts in one chat take turns
            running = await self._running_row(s, chat_id)
            if running is not None and not another:
                raise SessionAlreadyRunning(
                    f"a session is already running in this chat (session {running.id})")
            if started_by is not None:
                await self._person_row(s, started_by)
            row = M.Session(chat_id=chat_id, number=await self._next_number(s, chat_id),
                            variant=variant, rules=rules, stake_cents=stake_cents,
                            started_by=started_by, started_at=M.utcnow(), hand_count=0, keepers=[])
            s.add(row)
            await s.flush()
            s.add_all(M.SessionTotal(session_id=row.id, seat=seat, points=0) for seat in range(4))
            s.add_all(aggregates.new_session_rows(row.id))
            return session_of(row)

        try:
            return await self._write(write, once=True)
        except IntegrityError as exc:  # the chat's numbers: someone else was quicker
            raise SessionAlreadyRunning("a session was started in this chat meanwhile") from exc

    async def import_session(self, chat_id: int, variant: str, rules: dict[str, Any], *,
                             stake_cents: int, players: Sequence[int | str],
                             hands: Sequence[HandToImport], imported_by: int | None,
                             key_prefix: str) -> Session:
        """An imported session, ended, in one transaction: its seats (a person id, or a name
        that becomes a guest of the chat), every hand with its ledger entries and totals, and
        the voids. Nothing is written when anything is refused."""
        check_cents(stake_cents, allow_zero=True)
        rules = json_copy(rules, "rules")
        if len(players) != 4:
            raise StoreError("an imported session needs four players")
        prepared = [(json_copy(h.record, "hand record"), json_copy(h.outcome, "outcome"),
                     deltas_of(h.outcome), h) for h in hands]

        async def write(s: AsyncSession) -> Session:
            await self._ensure_chat_row(s, chat_id)
            await self._locked_chat(s, chat_id)
            known: dict[int | str, int] = {}

            async def four(given: Sequence[int | str]) -> list[int]:
                seats = []
                for player in given:
                    if player not in known:
                        known[player] = (await self._guest_id(s, chat_id, player)
                                         if isinstance(player, str)
                                         else (await self._person_row(s, player)).id)
                    seats.append(known[player])
                if len(seats) != 4 or len(set(seats)) != 4:
                    raise AlreadySeated("one person cannot take two seats")
                return seats

            seats = await four(players)
            row = M.Session(chat_id=chat_id, number=await self._next_number(s, chat_id),
                            variant=variant, rules=rules, stake_cents=stake_cents,
                            started_by=imported_by, started_at=M.utcnow(), hand_count=0, keepers=[],
                            **dict(zip(M.SEAT_COLUMNS, seats, strict=True)))
            s.add(row)
            await s.flush()
            s.add_all(M.SessionTotal(session_id=row.id, seat=seat, points=0) for seat in range(4))
            s.add_all(aggregates.new_session_rows(row.id))
            await s.flush()
            for i, (record, outcome, deltas, h) in enumerate(prepared):
                for column, person in zip(M.SEAT_COLUMNS, await four(h.players or players),
                                          strict=True):
                    setattr(row, column, person)  # who sat where for this hand
                stored = await self._insert_hand(s, row, record, outcome, deltas,
                                                 entered_by=imported_by, key=f"{key_prefix}:{i + 1}")
                if h.voided:
                    hand = await s.get(M.Hand, stored.id)
                    assert hand is not None
                    await self._void(s, row.id, hand, by=imported_by,
                                     reason=(h.void_reason or "import")[:200])
                if i == 0:
                    crash_point("mid_import")
            row.ended_at = M.utcnow()
            await s.flush()
            return session_of(row)

        return await self._write(write, once=True)

    async def _next_number(self, s: AsyncSession, chat_id: int) -> int:
        """The number of the chat's next session (the caller holds the chat's row lock)."""
        last = (await s.execute(select(func.max(M.Session.number))
                                .where(M.Session.chat_id == chat_id))).scalar()
        return int(last or 0) + 1

    async def running_session(self, chat_id: int) -> Session | None:
        """The chat's running session, if any (of several tables, the first: the lowest
        number; `running_sessions` lists them all)."""
        async with self._read() as s:
            row = await self._running_row(s, chat_id)
            return session_of(row) if row is not None else None

    async def running_sessions(self, chat_id: int) -> list[Session]:
        """The chat's running sessions (its tables), by number."""
        async with self._read() as s:
            rows = (await s.execute(select(M.Session).where(
                M.Session.chat_id == chat_id, M.Session.ended_at.is_(None))
                .order_by(M.Session.number))).scalars()
            return [session_of(r) for r in rows]

    async def session_with_hand(self, key: str) -> Session | None:
        """The session holding the hand stored under this idempotency key, if any (what an
        import that was done already made)."""
        async with self._read() as s:
            row = (await s.execute(select(M.Session).join(M.Hand, M.Hand.session_id == M.Session.id)
                                   .where(M.Hand.idempotency_key == key))).scalar_one_or_none()
            return session_of(row) if row is not None else None

    async def get_session(self, session_id: int) -> Session:
        """The session with this id (`NotFound` if none)."""
        async with self._read() as s:
            row = await s.get(M.Session, session_id)
            if row is None:
                raise NotFound(f"there is no session {session_id}")
            return session_of(row)

    async def seat_player(self, session_id: int, seat: int, person_id: int) -> Session:
        """Put a person in an empty seat (0-3), from the next hand on. `SeatTaken`,
        `AlreadySeated` (elsewhere in this session), `SeatedElsewhere` (at another running
        table of the chat), `SessionEnded`."""
        check_seat(seat)

        async def change(s: AsyncSession, row: M.Session) -> None:
            await self._person_row(s, person_id)
            seats = seats_of(row)
            if seats[seat] == person_id:
                return
            if person_id in seats:
                raise AlreadySeated(f"that player already sits in seat {seats.index(person_id)}")
            if seats[seat] is not None:
                raise SeatTaken(f"seat {seat} is taken")
            await self._check_not_seated_elsewhere(s, row, person_id)
            setattr(row, M.SEAT_COLUMNS[seat], person_id)

        return await self._change_seating(session_id, change)

    async def replace_player(self, session_id: int, seat: int, person: int | str) -> Session:
        """`person` (an id, or a name: the chat's guest of that name, made if new) takes seat
        `seat` from whoever sits there, from the next hand on (a substitute): what the one
        leaving won stays theirs. One transaction. `AlreadySeated` (elsewhere in this session,
        with `person` and `seat`), `SeatedElsewhere` (at another running table of the chat),
        `SessionEnded`."""
        check_seat(seat)

        async def change(s: AsyncSession, row: M.Session) -> None:
            if isinstance(person, str):
                person_id = await self._guest_id(s, row.chat_id, person)
            else:
                person_id = (await self._person_row(s, person)).id
            seats = seats_of(row)
            if seats[seat] == person_id:
                return
            if person_id in seats:
                raise AlreadySeated(f"that player already sits in seat {seats.index(person_id)}",
                                    person_id, seats.index(person_id))
            await self._check_not_seated_elsewhere(s, row, person_id)
            setattr(row, M.SEAT_COLUMNS[seat], person_id)

        return await self._change_seating(session_id, change)

    async def name_keeper(self, session_id: int, person_id: int) -> Session:
        """Name a person to keep the running session's score (enter, confirm and undo hands,
        end it for every seat). Naming someone twice changes nothing; `SessionEnded`."""

        async def write(s: AsyncSession) -> Session:
            row = await self._locked_session(s, session_id)
            check_running(row)
            await self._person_row(s, person_id)
            keepers = list(row.keepers or ())
            if person_id not in keepers and person_id != row.started_by:
                row.keepers = [*keepers, person_id]
            return session_of(row)

        return await self._write(write, once=True)

    async def unseat(self, session_id: int, seat: int) -> Session:
        """Empty a seat, from the next hand on (no-op when empty)."""
        check_seat(seat)

        async def change(s: AsyncSession, row: M.Session) -> None:
            setattr(row, M.SEAT_COLUMNS[seat], None)

        return await self._change_seating(session_id, change)

    async def swap_seats(self, session_id: int, a: int, b: int) -> Session:
        """Exchange who sits in seats `a` and `b` (either may be empty), from the next hand on
        (换位): the seats' dealer turn, levels and games go on by seat."""
        check_seat(a)
        check_seat(b)

        async def change(s: AsyncSession, row: M.Session) -> None:
            ca, cb = M.SEAT_COLUMNS[a], M.SEAT_COLUMNS[b]
            pa, pb = getattr(row, ca), getattr(row, cb)
            setattr(row, ca, pb)
            setattr(row, cb, pa)

        return await self._change_seating(session_id, change)

    async def set_stake(self, session_id: int, cents: int) -> Session:
        """Money per point, in cents (also after the session ended, until it is settled)."""
        check_cents(cents, allow_zero=True)

        async def write(s: AsyncSession) -> Session:
            row = await self._locked_session(s, session_id)
            if row.settled_at is not None:
                raise SessionSettled("this session is already settled")
            row.stake_cents = cents
            return session_of(row)

        return await self._write(write)

    async def set_session_rules(self, session_id: int, rules: dict[str, Any]) -> Session:
        """Replace the running session's rules (each hand record keeps its own copy)."""
        rules = json_copy(rules, "rules")

        async def write(s: AsyncSession) -> Session:
            row = await self._locked_session(s, session_id)
            check_running(row)
            row.rules = rules
            return session_of(row)

        return await self._write(write)

    async def end_session(self, session_id: int) -> Session:
        """End the session (ending an ended session changes nothing)."""

        async def write(s: AsyncSession) -> Session:
            row = await self._locked_session(s, session_id)
            if row.ended_at is None:
                row.ended_at = M.utcnow()
            return session_of(row)

        return await self._write(write)

    async def chat_sessions(self, chat_id: int, *, include_settled: bool = False) -> list[Session]:
        """The chat's sessions, newest first; settled ones only when asked."""
        stmt = select(M.Session).where(M.Session.chat_id == chat_id)
        if not include_settled:
            stmt = stmt.where(M.Session.settled_at.is_(None))
        async with self._read() as s:
            rows = (await s.execute(stmt.order_by(M.Session.id.desc()))).scalars()
            return [session_of(r) for r in rows]

    async def _check_not_seated_elsewhere(self, s: AsyncSession, row: M.Session,
                                          person_id: int) -> None:
        """`SeatedElsewhere` when the person sits at another running table of the chat. The
        chat's row is locked first: two tables seating the same person at once take turns."""
        await self._locked_chat(s, row.chat_id)
        other = (await s.execute(select(M.Session.number).where(
            M.Session.chat_id == row.chat_id, M.Session.ended_at.is_(None),
            M.Session.id != row.id,
            or_(*(getattr(M.Session, c) == person_id for c in M.SEAT_COLUMNS)))
            .order_by(M.Session.number).limit(1))).scalar()
        if other is not None:
            raise SeatedElsewhere(f"that person sits at table {other} of this chat", int(other))

    async def _change_seating(self, session_id: int,
                              change: Callable[[AsyncSession, M.Session], Awaitable[None]]) -> Session:
        """Who sits where from the next hand on. Books nothing: each hand's ledger entries
        keep who sat where when it was played, and the stints what each person won."""
        async def write(s: AsyncSession) -> Session:
            row = await self._locked_session(s, session_id)
            check_running(row)
            await change(s, row)
            return session_of(row)

        return await self._write(write, once=True)
