"""Money: payments (pending until the payee confirms), balances, settling sessions."""

from __future__ import annotations

from collections.abc import Iterable

from sqlalchemy import and_, or_, select, update
from sqlalchemy.ext.asyncio import AsyncSession

from .. import models as M
from ..domain import (
    NotFound,
    NothingOwed,
    Payment,
    PaymentNotPending,
    Session,
    SessionNotEnded,
    StoreError,
)
from .core import (
    StoreCore,
)
from .rows import (
    check_cents,
    payment_of,
    session_of,
)


class MoneyMixin(StoreCore):
    async def record_payment(self, chat_id: int, from_person: int, to_person: int, cents: int, *,
                             session_id: int | None = None, recorded_by: int | None = None,
                             confirmed: bool = False, if_owed: bool = False) -> Payment:
        """`from_person` paid `to_person` `cents` (> 0) to settle debts, optionally for one
        session of this chat. It counts only once `confirmed` (here, when the payee entered
        it, or later with `confirm_payment`); until then it is pending. `if_owed`: only while
        someone in the chat owes money (`money_balances`, read in the same transaction), else
        `NothingOwed` and nothing written."""
        check_cents(cents, allow_zero=False)
        if from_person == to_person:
            raise StoreError("a payment needs two different people")

        async def write(s: AsyncSession) -> Payment:
            await self._ensure_chat_row(s, chat_id)
            for pid in (from_person, to_person, recorded_by):
                if pid is not None:
                    await self._person_row(s, pid)
            if session_id is not None:
                session = await s.get(M.Session, session_id)
                if session is None or session.chat_id != chat_id:
                    raise NotFound(f"this chat has no session {session_id}")
            if if_owed and not any((await _balances(s, chat_id, None)).values()):
                raise NothingOwed("everyone is square: nobody owes anything")
            row = M.Payment(chat_id=chat_id, from_person=from_person, to_person=to_person,
                            cents=cents, session_id=session_id, recorded_by=recorded_by,
                            created_at=M.utcnow(), settled=False, confirmed=confirmed,
                            confirmed_by=recorded_by if confirmed else None)
            s.add(row)
            await s.flush()
            return payment_of(row)

        return await self._write(write, once=True)

    async def confirm_payment(self, chat_id: int, payment_id: int, *, by: int | None) -> Payment:
        """The payee (or an admin) says the money arrived: the payment counts from now on.
        `PaymentNotPending` if it was confirmed already or is not this chat's."""

        async def write(s: AsyncSession) -> Payment:
            result = await s.execute(update(M.Payment).where(
                M.Payment.id == payment_id, M.Payment.chat_id == chat_id,
                M.Payment.confirmed.is_(False)).values(confirmed=True, confirmed_by=by))
            if result.rowcount != 1:
                raise PaymentNotPending(f"payment {payment_id} is not pending in this chat")
            row = await s.get(M.Payment, payment_id, populate_existing=True)
            assert row is not None
            return payment_of(row)

        return await self._write(write, once=True)

    async def get_payment(self, payment_id: int) -> Payment:
        async with self._read() as s:
            row = await s.get(M.Payment, payment_id)
            if row is None:
                raise NotFound(f"there is no payment {payment_id}")
            return payment_of(row)

    async def pending_payments(self, chat_id: int) -> list[Payment]:
        """Payments of the chat still waiting for their payee, oldest first."""
        async with self._read() as s:
            rows = (await s.execute(select(M.Payment).where(
                M.Payment.chat_id == chat_id, M.Payment.confirmed.is_(False),
                M.Payment.settled.is_(False)).order_by(M.Payment.id))).scalars()
            return [payment_of(r) for r in rows]

    async def money_balances(self, chat_id: int, *,
                             session_ids: list[int] | None = None) -> dict[int, int]:
        """Cents per person: + is owed money, − owes. Σ over the sessions (default: the chat's
        sessions not settled; else `session_ids`, all of this chat) of points × stake for the
        person in each seat, plus payments (the payer's balance goes up by what they paid, the
        payee's down): unsettled ones by default, else those made for `session_ids`."""
        async with self._read() as s:
            return await _balances(s, chat_id, session_ids)

    async def mark_settled(self, session_ids: Iterable[int]) -> list[Session]:
        """Mark ended sessions settled: they leave the default `money_balances`, and so do the
        payments made for them and the chat's payments made for no particular session.
        `SessionNotEnded` for a running one; settling twice changes nothing."""
        ids = sorted(set(session_ids))

        async def write(s: AsyncSession) -> list[Session]:
            rows = list((await s.execute(select(M.Session).where(M.Session.id.in_(ids))
                                         .order_by(M.Session.id).with_for_update())).scalars())
            missing = set(ids) - {r.id for r in rows}
            if missing:
                raise NotFound(f"there is no session {sorted(missing)}")
            for row in rows:
                if row.ended_at is None:
                    raise SessionNotEnded(f"session {row.id} is still running; end it first")
            now = M.utcnow()
            for row in rows:
                row.settled_at = row.settled_at or now
            chats = {r.chat_id for r in rows}
            await s.execute(update(M.Payment).where(
                M.Payment.settled.is_(False), M.Payment.confirmed.is_(True),
                or_(M.Payment.session_id.in_(ids),
                    and_(M.Payment.session_id.is_(None), M.Payment.chat_id.in_(chats))))
                .values(settled=True))
            return [session_of(r) for r in rows]

        return await self._write(write)


async def _balances(s: AsyncSession, chat_id: int, session_ids: list[int] | None) -> dict[int, int]:
    """`money_balances`, read in the session `s` (a reader's, or a writer's transaction)."""
    # Per person, over every seat they held (the stints): a substitute's points are theirs.
    stmt = (select(M.Session.id, M.Session.stake_cents, M.Stint.person_id, M.Stint.points)
            .outerjoin(M.Stint, M.Stint.session_id == M.Session.id)
            .where(M.Session.chat_id == chat_id)
            # in the order the seats' totals were read before 0009 (ties keep it on /settle)
            .order_by(M.Session.id, M.Stint.first_seq, M.Stint.seat))
    pay = select(M.Payment).where(M.Payment.chat_id == chat_id, M.Payment.confirmed.is_(True))
    if session_ids is None:
        stmt = stmt.where(M.Session.settled_at.is_(None))
        pay = pay.where(M.Payment.settled.is_(False))
    else:
        stmt = stmt.where(M.Session.id.in_(session_ids))
        pay = pay.where(M.Payment.session_id.in_(session_ids))
    balances: dict[int, int] = {}
    found = set()
    for sid, stake, person, points in (await s.execute(stmt)).all():
        found.add(sid)
        if person is not None:
            balances[person] = balances.get(person, 0) + points * stake
    if session_ids is not None and set(session_ids) - found:
        raise NotFound(f"this chat has no session {sorted(set(session_ids) - found)}")
    for p in (await s.execute(pay)).scalars():
        balances[p.from_person] = balances.get(p.from_person, 0) + p.cents
        balances[p.to_person] = balances.get(p.to_person, 0) - p.cents
    return balances
