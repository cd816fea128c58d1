"""Ledger integrity in the store: a wizard's hand is recorded with its draft closed in one
transaction and only on the table its preview saw; imports are all or nothing; payments count
once their payee confirmed them."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from db import (
    DraftClosed,
    HandToImport,
    NotFound,
    PaymentNotPending,
    StaleDraft,
    Store,
    StoreError,
    TableChanged,
)
from db import store as store_module
from db.store import MAX_CENTS

from .helpers import add_hand, outcome, record, seated_session


async def open_draft(store: Store, session_id: int, chat_id: int = -1001, message_id: int = 50) -> Any:
    draft, _ = await store.create_draft(chat_id, session_id=session_id, data={"step": "preview"})
    assert draft.message_id < 0  # stored before its message exists
    return await store.attach_draft(draft, chat_id, message_id)


async def hands_of(store: Store, session_id: int) -> list[Any]:
    return await store.history(session_id, limit=1000)


async def test_confirm_records_the_hand_and_closes_the_draft_at_once(store: Store) -> None:
    s = await seated_session(store)
    draft = await open_draft(store, s.id)
    mark = await store.table_mark(s.id)
    hand = await store.confirm_hand(draft, record(), outcome(3, -1, -1, -1), entered_by=None,
                                    table_mark=mark)
    assert hand.created and hand.seq == 1
    assert await store.get_draft(draft.chat_id, draft.message_id) is None
    again = await store.confirm_hand(draft, record(), outcome(3, -1, -1, -1), entered_by=None,
                                     table_mark=mark)
    assert (again.created, again.id) == (False, hand.id)  # a double tap is one hand
    with pytest.raises(DraftClosed) as closed:
        await store.cancel_draft(draft)  # Cancel lost the race: it learns the hand was recorded
    assert closed.value.hand is not None and closed.value.hand.id == hand.id
    assert await store.totals(s.id) == (3, -1, -1, -1)


async def test_a_cancelled_draft_records_nothing(store: Store) -> None:
    s = await seated_session(store)
    draft = await open_draft(store, s.id)
    await store.cancel_draft(draft)
    with pytest.raises(DraftClosed) as closed:
        await store.confirm_hand(draft, record(), outcome(3, -1, -1, -1), entered_by=None,
                                 table_mark=await store.table_mark(s.id))
    assert closed.value.hand is None
    assert await hands_of(store, s.id) == []


async def test_confirm_refuses_when_the_table_changed_since_the_preview(store: Store) -> None:
    s = await seated_session(store)
    first = await add_hand(store, s.id, "k1", 4, -4, 0, 0)
    draft = await open_draft(store, s.id)
    mark = await store.table_mark(s.id)
    await store.void_hand(first.id, by=None, reason="undo")  # /undo after the preview
    with pytest.raises(TableChanged):
        await store.confirm_hand(draft, record(), outcome(3, -1, -1, -1), entered_by=None,
                                 table_mark=mark)
    assert len(await hands_of(store, s.id)) == 1
    assert await store.get_draft(draft.chat_id, draft.message_id) is not None  # still open
    mark2 = await store.table_mark(s.id)
    assert mark2 != mark
    await add_hand(store, s.id, "k2", 1, -1, 0, 0)  # another hand after the (new) preview
    with pytest.raises(TableChanged):
        await store.confirm_hand(draft, record(), outcome(3, -1, -1, -1), entered_by=None,
                                 table_mark=mark2)
    hand = await store.confirm_hand(draft, record(), outcome(3, -1, -1, -1), entered_by=None,
                                    table_mark=await store.table_mark(s.id))
    assert hand.seq == 3


async def test_confirm_refuses_when_stake_rules_or_seats_changed_since_the_preview(
        store: Store) -> None:
    s = await seated_session(store)
    draft = await open_draft(store, s.id)
    for change in (lambda: store.set_stake(s.id, 250), lambda: store.swap_seats(s.id, 0, 1),
                   lambda: store.set_session_rules(s.id, {"base": 2})):
        mark = await store.table_mark(s.id)
        await change()  # after the preview, before its Confirm
        with pytest.raises(TableChanged):
            await store.confirm_hand(draft, record(), outcome(3, -1, -1, -1), entered_by=None,
                                     table_mark=mark)
        assert await hands_of(store, s.id) == []
        assert (await store.get_session(s.id)).hand_count == 0
        assert await store.get_draft(draft.chat_id, draft.message_id) is not None  # still open


async def test_confirm_by_an_unknown_person_writes_nothing(store: Store) -> None:
    s = await seated_session(store)
    draft = await open_draft(store, s.id)
    with pytest.raises(NotFound):
        await store.confirm_hand(draft, record(), outcome(3, -1, -1, -1), entered_by=987654,
                                 table_mark=await store.table_mark(s.id))
    assert await hands_of(store, s.id) == []
    assert (await store.get_session(s.id)).hand_count == 0
    assert await store.totals(s.id) == (0, 0, 0, 0)
    assert await store.get_draft(draft.chat_id, draft.message_id) is not None


async def test_confirm_of_an_older_draft_version_is_refused(store: Store) -> None:
    s = await seated_session(store)
    draft = await open_draft(store, s.id)
    await store.save_draft(draft.chat_id, draft.message_id, session_id=s.id, data={"step": "main"},
                           expected_version=draft.version)
    with pytest.raises(StaleDraft):
        await store.confirm_hand(draft, record(), outcome(3, -1, -1, -1), entered_by=None,
                                 table_mark=await store.table_mark(s.id))
    with pytest.raises(StaleDraft):
        await store.cancel_draft(draft)
    assert await hands_of(store, s.id) == []


async def test_a_new_draft_closes_the_older_ones_in_the_same_write(store: Store) -> None:
    s = await seated_session(store)
    old = await open_draft(store, s.id, message_id=50)
    new, replaced = await store.create_draft(old.chat_id, session_id=s.id, data={})
    assert [d.message_id for d in replaced] == [50]
    assert await store.get_draft(old.chat_id, 50) is None
    assert [d.message_id for d in await store.drafts_for_session(s.id)] == [new.message_id]


async def test_a_draft_a_tap_attached_first_is_attached_once(store: Store) -> None:
    """The wizard's entry is stored under its number (a negative placeholder message id) until
    its message is posted: a tap that comes before the opener's attach finds it there and
    attaches it; the opener's attach then finds it done, and once closed it is refused."""
    s = await seated_session(store)
    draft, _ = await store.create_draft(-1001, session_id=s.id, data={"step": "main"},
                                        placeholder=-123456789)
    assert draft.message_id == -123456789
    waiting = await store.get_draft(-1001, -123456789)
    assert waiting is not None
    by_tap = await store.attach_draft(waiting, -1001, 70)
    saved = await store.save_draft(-1001, 70, session_id=s.id, data={"step": "how"},
                                   expected_version=by_tap.version)
    by_opener = await store.attach_draft(draft, -1001, 70)  # later: as the tap left it
    assert (by_opener.message_id, by_opener.version, by_opener.data) == (70, 2, {"step": "how"})
    assert await store.get_draft(-1001, -123456789) is None
    await store.cancel_draft(saved)
    with pytest.raises(NotFound):
        await store.attach_draft(draft, -1001, 70)
    with pytest.raises(ValueError):
        await store.create_draft(-1001, session_id=s.id, data={}, placeholder=5)


@pytest.mark.parametrize("trial", range(5))
async def test_racing_confirms_and_cancels_store_each_hand_once(store: Store, other_store: Store,
                                                                trial: int) -> None:
    s = await seated_session(store)
    draft = await open_draft(store, s.id)
    mark = await store.table_mark(s.id)

    async def confirm(st: Store) -> str:
        try:
            hand = await st.confirm_hand(draft, record(), outcome(3, -1, -1, -1), entered_by=None,
                                         table_mark=mark)
            return "new" if hand.created else "again"
        except DraftClosed:
            return "closed"

    async def cancel(st: Store) -> str:
        try:
            await st.cancel_draft(draft)
            return "cancelled"
        except DraftClosed as exc:
            return "too late" if exc.hand is not None else "closed"

    results = await asyncio.gather(confirm(store), confirm(other_store), cancel(other_store))
    stored = await hands_of(store, s.id)
    assert len(stored) <= 1
    if stored:  # the hand won: one "new", the Cancel says it came too late
        assert results.count("new") == 1 and results[2] == "too late"
        assert await store.totals(s.id) == (3, -1, -1, -1)
    else:  # Cancel won: neither Confirm recorded anything
        assert results == ["closed", "closed", "cancelled"]
        assert await store.totals(s.id) == (0, 0, 0, 0)


def imported_hands(n: int = 3) -> list[HandToImport]:
    return [HandToImport(record(), outcome(3, -1, -1, -1), voided=(i == 1), void_reason="x")
            for i in range(n)]


async def test_an_import_is_one_transaction(store: Store) -> None:
    me = await store.upsert_user(7, "Me")
    session = await store.import_session(-5, "luzhou", {}, stake_cents=10,
                                         players=[me.id, "Ann", "Bo", "Cy"], hands=imported_hands(),
                                         imported_by=me.id, key_prefix="import:a")
    assert session.ended_at is not None and session.hand_count == 3
    assert session.seats[0] == me.id
    guests = [await store.get_person(pid) for pid in session.seats[1:]]
    assert all(g.is_guest and g.guest_chat_id == -5 for g in guests)
    assert await store.totals(session.id) == (6, -2, -2, -2)  # the voided hand counts nothing


async def test_an_import_that_fails_midway_leaves_nothing(store: Store,
                                                          monkeypatch: pytest.MonkeyPatch) -> None:
    real = store_module.Store._insert_hand
    calls = 0

    async def fail_on_third(self: Store, *args: Any, **kw: Any) -> Any:
        nonlocal calls
        calls += 1
        if calls == 3:
            raise StoreError("disk full")
        return await real(self, *args, **kw)

    monkeypatch.setattr(store_module.Store, "_insert_hand", fail_on_third)
    with pytest.raises(StoreError):
        await store.import_session(-5, "luzhou", {}, stake_cents=0, players=["Ann", "Bo", "Cy", "Di"],
                                   hands=imported_hands(), imported_by=None, key_prefix="import:b")
    assert calls == 3
    assert await store.chat_sessions(-5, include_settled=True) == []
    monkeypatch.undo()
    ann = await store.add_guest(-5, "Ann")  # the guests of the failed import were not kept
    s = await store.import_session(-5, "luzhou", {}, stake_cents=0,
                                   players=["Ann", "Bo", "Cy", "Di"], hands=imported_hands(1),
                                   imported_by=None, key_prefix="import:c")
    assert s.seats[0] == ann.id and ann.id == min(s.seats)


async def test_an_import_cannot_seat_one_person_twice(store: Store) -> None:
    me = await store.upsert_user(7, "Me")
    with pytest.raises(StoreError):
        await store.import_session(-5, "luzhou", {}, stake_cents=0, players=[me.id, me.id, "A", "B"],
                                   hands=imported_hands(), imported_by=None, key_prefix="import:d")
    assert await store.chat_sessions(-5, include_settled=True) == []


async def test_pending_payments_count_only_once_the_payee_confirms(store: Store) -> None:
    s = await seated_session(store, 1, stake_cents=100)
    a, b = s.seats[:2]
    await add_hand(store, s.id, "h", 10, -10, 0, 0)
    pay = await store.record_payment(1, b, a, 400, recorded_by=b)  # the payer's word
    assert not pay.confirmed
    assert await store.money_balances(1) == {a: 1000, b: -1000, s.seats[2]: 0, s.seats[3]: 0}
    assert [p.id for p in await store.pending_payments(1)] == [pay.id]
    await store.end_session(s.id)
    await store.mark_settled([s.id])
    assert [p.id for p in await store.pending_payments(1)] == [pay.id]  # settling skips it
    done = await store.confirm_payment(1, pay.id, by=a)
    assert (done.confirmed, done.confirmed_by) == (True, a)
    with pytest.raises(PaymentNotPending):
        await store.confirm_payment(1, pay.id, by=a)
    with pytest.raises(PaymentNotPending):
        await store.confirm_payment(2, pay.id, by=a)  # another chat's payment
    assert await store.pending_payments(1) == []


async def test_amounts_stay_far_from_the_64_bit_limit(store: Store) -> None:
    s = await seated_session(store, 1)
    a, b = s.seats[:2]
    for cents in (MAX_CENTS + 1, 2**63):
        with pytest.raises(StoreError):
            await store.record_payment(1, a, b, cents)
        with pytest.raises(StoreError):
            await store.set_stake(s.id, cents)
    assert await store.pending_payments(1) == []


async def test_payments_booked_before_the_upgrade_stay_counted(db_url: str) -> None:
    from sqlalchemy import text

    from db.config import make_engine

    from .test_migrations import alembic

    assert alembic(db_url, "upgrade", "0001").returncode == 0
    engine = make_engine(db_url)
    try:
        async with engine.begin() as conn:
            await conn.execute(text("INSERT INTO chats (id, house_rules, created_at) "
                                    "VALUES (1, '{}', CURRENT_TIMESTAMP)"))
            for pid in (1, 2):
                await conn.execute(text("INSERT INTO people (id, telegram_id, name, created_at, "
                                        "updated_at) VALUES (:p, :p, 'x', CURRENT_TIMESTAMP, "
                                        "CURRENT_TIMESTAMP)"), {"p": pid})
            await conn.execute(text("INSERT INTO payments (chat_id, from_person, to_person, cents, "
                                    "created_at, settled) VALUES (1, 1, 2, 500, CURRENT_TIMESTAMP, "
                                    "false)"))
    finally:
        await engine.dispose()
    store = await Store.open(db_url)
    try:
        assert await store.pending_payments(1) == []
        assert await store.money_balances(1) == {1: 500, 2: -500}
        new = await store.record_payment(1, 2, 1, 100)
        assert not new.confirmed
    finally:
        await store.close()
    assert alembic(db_url, "downgrade", "0001").returncode == 0


async def test_the_table_mark_follows_rules_stake_and_seats(store: Store) -> None:
    s = await seated_session(store)
    marks = {await store.table_mark(s.id)}
    await store.set_session_rules(s.id, {"cap": 20})
    marks.add(await store.table_mark(s.id))
    await store.set_stake(s.id, 50)
    marks.add(await store.table_mark(s.id))
    await store.swap_seats(s.id, 0, 1)
    marks.add(await store.table_mark(s.id))
    assert len(marks) == 4
    assert await store.table_mark(s.id) in marks  # reading it changes nothing
