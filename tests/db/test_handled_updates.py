"""At-least-once delivery: an update's first change to the books records the update in the same
transaction; the same update delivered again changes nothing (AlreadyHandled)."""

from __future__ import annotations

import asyncio
from datetime import timedelta

import pytest
from sqlalchemy import func, select, update

from db import AlreadyHandled, AlreadySeated, Store, delivering
from db import models as M
from db.store.core import HANDLED_KEEP, PRUNE_EVERY

from .helpers import add_hand, seated_session

CHAT = -1001


async def rows(store: Store) -> list[tuple[int, int]]:
    async with store.engine.connect() as conn:
        return sorted(tuple(r) for r in await conn.execute(
            select(M.HandledUpdate.update_id, M.HandledUpdate.chat_id)))


async def payments(store: Store) -> int:
    async with store.engine.connect() as conn:
        return (await conn.execute(select(func.count()).select_from(M.Payment))).scalar_one()


async def test_a_redelivered_update_books_nothing_twice(store: Store) -> None:
    session = await seated_session(store, CHAT)
    ann, bo = session.seats[0], session.seats[1]
    with delivering(7, CHAT):
        await store.record_payment(CHAT, ann, bo, 500)
        await store.confirm_payment(CHAT, (await store.pending_payments(CHAT))[0].id, by=bo)
    assert await rows(store) == [(7, CHAT)]  # the update's first booking recorded it, once
    with delivering(7, CHAT), pytest.raises(AlreadyHandled):  # Telegram delivers it again
        await store.record_payment(CHAT, ann, bo, 500)
    assert await payments(store) == 1
    with delivering(8, CHAT):  # the next update books as usual
        await store.record_payment(CHAT, ann, bo, 300)
    assert await payments(store) == 2
    assert await rows(store) == [(7, CHAT), (8, CHAT)]


async def test_repeatable_writes_and_refusals_record_nothing(store: Store) -> None:
    session = await seated_session(store, CHAT)
    with delivering(9, CHAT):
        await store.set_chat_language(CHAT, "en")  # a setting: may simply run again
        await store.upsert_user(5, "Eve")
        with pytest.raises(AlreadySeated):  # refused: rolled back with its record
            await store.seat_player(session.id, 0, session.seats[1])
    assert await rows(store) == []
    with delivering(9, CHAT):  # so the same update may still book
        await add_hand(store, session.id, "k1", 3, -1, -1, -1)
    assert await rows(store) == [(9, CHAT)]
    with delivering(9, CHAT), pytest.raises(AlreadyHandled):
        await add_hand(store, session.id, "k2", 3, -1, -1, -1)
    assert await store.standing_hands(session.id) == 1


async def test_old_records_are_pruned(store: Store) -> None:
    session = await seated_session(store, CHAT)
    with delivering(1, CHAT):
        await add_hand(store, session.id, "k1", 3, -1, -1, -1)
    async with store.engine.begin() as conn:  # make it older than what is kept
        await conn.execute(update(M.HandledUpdate).values(
            handled_at=M.utcnow() - HANDLED_KEEP - timedelta(hours=1)))
    with delivering(PRUNE_EVERY * 3, CHAT):
        await add_hand(store, session.id, "k2", 3, -1, -1, -1)
    assert await rows(store) == [(PRUNE_EVERY * 3, CHAT)]


async def test_two_processes_handling_the_same_update_book_it_once(store: Store,
                                                                   other_store: Store) -> None:
    """Telegram gave up waiting for one process and delivered the update to another: both
    book at the same moment; one wins, the other is told it was handled."""
    session = await seated_session(store, CHAT)
    ann, bo = session.seats[0], session.seats[1]

    async def book(s: Store) -> str:
        with delivering(11, CHAT):
            try:
                await s.record_payment(CHAT, ann, bo, 500)
            except AlreadyHandled:
                return "handled"
            return "booked"

    results = await asyncio.gather(book(store), book(other_store))
    assert sorted(results) == ["booked", "handled"]
    assert await payments(store) == 1
