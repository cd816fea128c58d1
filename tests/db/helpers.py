"""Small builders shared by the database tests."""

from __future__ import annotations

from typing import Any

from db import RecordedHand, Session, Store


async def seated_session(store: Store, chat_id: int = -1001, variant: str = "luzhou", *,
                         stake_cents: int = 0, names: tuple[str, ...] = ("Ann", "Bo", "Cy", "Di"),
                         rules: dict[str, Any] | None = None) -> Session:
    """A running session with four Telegram users seated (ids derived from the chat)."""
    people = [await store.upsert_user(abs(chat_id) * 10 + i, name) for i, name in enumerate(names)]
    session = await store.start_session(chat_id, variant, rules or {}, stake_cents=stake_cents,
                                        started_by=people[0].id)
    for seat, person in enumerate(people):
        session = await store.seat_player(session.id, seat, person.id)
    return session


def outcome(*deltas: int, level_over: bool = False, balances: list[int] | None = None) -> dict[str, Any]:
    """A minimal outcome as scoring.Outcome.to_dict() gives it."""
    return {"deltas": list(deltas), "next_dealer": 0, "next_dealer_streak": 1, "next_round_wind": 0,
            "balances": balances if balances is not None else list(deltas), "level_over": level_over,
            "lines": [{"what": "win", "seat": 0, "text": "", "deltas": list(deltas)}]}


def record(variant: str = "luzhou") -> dict[str, Any]:
    return {"variant": variant, "dealer": 0, "dealer_streak": 1, "round_wind": 0,
            "events": [{"type": "win", "by": "self_draw", "winners": [{"seat": 0}]}]}


async def add_hand(store: Store, session_id: int, key: str, *deltas: int, **kw: Any) -> RecordedHand:
    """Record a Luzhou hand with these deltas, entered by nobody in particular."""
    return await store.record_hand(session_id, record(), outcome(*deltas), entered_by=None,
                                   idempotency_key=key, **kw)


async def stored_at_first_revision(store: Store, chat_id: int, variant: str, rules: dict[str, Any],
                                   hands: list[tuple[dict[str, Any], dict[str, Any]]], *,
                                   voided: set[int] = frozenset()) -> int:  # type: ignore[assignment]
    """A session of four guests with these (record, outcome) hands, written with plain inserts
    the way revision 0001's store wrote them (today's store also writes tables 0001 lacks).
    `voided`: sequence numbers of hands stored voided. Returns the session id."""
    from sqlalchemy import insert

    from db import models as M

    async with store.engine.begin() as conn:
        await conn.execute(insert(M.Chat).values(id=chat_id, house_rules={}))
        people = [(await conn.execute(insert(M.Person).values(
            name=f"{variant}{seat}", guest_chat_id=chat_id, guest_key=f"{variant}{seat}")
            .returning(M.Person.id))).scalar_one() for seat in range(4)]
        sid = (await conn.execute(insert(M.Session).values(
            chat_id=chat_id, variant=variant, rules=rules, hand_count=len(hands),
            **{f"seat{s}": people[s] for s in range(4)}).returning(M.Session.id))).scalar_one()
        totals = [0, 0, 0, 0]
        for seq, (rec, out) in enumerate(hands, 1):
            hid = (await conn.execute(insert(M.Hand).values(
                session_id=sid, seq=seq, level=1, record=rec, outcome=out,
                idempotency_key=f"first:{sid}:{seq}", voided=seq in voided)
                .returning(M.Hand.id))).scalar_one()
            await conn.execute(insert(M.LedgerEntry), [
                {"hand_id": hid, "seat": s, "session_id": sid, "person_id": people[s], "points": p}
                for s, p in enumerate(out["deltas"])])
            if seq not in voided:
                totals = [t + p for t, p in zip(totals, out["deltas"], strict=True)]
        await conn.execute(insert(M.SessionTotal), [{"session_id": sid, "seat": s, "points": totals[s]}
                                                    for s in range(4)])
    return sid
