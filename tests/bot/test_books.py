"""The table's use cases (bot/books) on a real store: what they book, what they refuse and that a
refusal changes nothing. The chat's and the page's answers on top of them: tests/e2e, tests/web."""

from __future__ import annotations

from typing import Any

import pytest

from bot.books.hands import book_entry, book_hand, check_hand, undo_last
from bot.books.payments import confirm_received, mark_paid
from bot.books.refusals import (
    AlreadyBooked,
    AlreadyRunning,
    BadNames,
    BadStake,
    FieldMissing,
    NothingToUndo,
    NotWhole,
    NotYours,
    PaymentConfirmed,
    PaymentNotOpen,
    PaymentWaits,
    TableMoved,
)
from bot.books.sessions import running, start_session
from bot.chat.table import wizard_ctx
from bot.entry.wizard.flow import new_draft
from db import Store
from scoring.settlement import Transfer

CHAT = -100123
NAMES = ["Alice", "Bob", "Carol", "Dave"]
SELF_DRAW = [{"type": "win", "by": "self_draw", "winners": [{"seat": 1}]}]


async def table(store: Store, variant: str = "guiyang", stake: str = "") -> tuple[Any, Any, str]:
    session = await start_session(store, CHAT, variant, names=NAMES, stake=stake)
    mark = await store.table_mark(session.id)
    return session, await wizard_ctx(store, session, "en"), mark


async def booked_by_page(store: Store) -> Any:
    session, ctx, mark = await table(store, stake="1")
    return await book_hand(store, CHAT, session, ctx, check_hand(ctx, SELF_DRAW), shown_at=mark,
                           mark=mark, by=None)


async def test_a_session_with_four_guests_or_nothing(store: Store) -> None:
    for names in (["A", "A", "B", "C"], ["A", "B", "C"], ["A", "B", "C", "x" * 65], "ABCD"):
        with pytest.raises(BadNames):
            await start_session(store, CHAT, "guiyang", names=names)  # type: ignore[arg-type]
    with pytest.raises(BadStake):
        await start_session(store, CHAT, "guiyang", names=NAMES, stake="-1")
    assert await store.running_session(CHAT) is None
    session, _, _ = await table(store, stake="0.5")
    assert session.stake_cents == 50 and None not in session.seats
    with pytest.raises(AlreadyRunning):
        await start_session(store, CHAT, "hainan", names=NAMES)
    assert (await running(store, CHAT)).variant == "guiyang"


async def test_a_hand_is_checked_as_the_wizard_checks_it(store: Store) -> None:
    _, ctx, _ = await table(store)
    with pytest.raises(FieldMissing) as missing:
        check_hand(ctx, [{"type": "kong", "seat": 1, "kind": None}, *SELF_DRAW])
    assert (missing.value.event, missing.value.field) == ("kong", "kind")
    whole = check_hand(ctx, [{"type": "kong", "seat": 1, "kind": "concealed", "from": None,
                              "robbed": False}, {**SELF_DRAW[0], "after_kong": True}])
    assert whole.events[0] == {"type": "kong", "seat": 1, "kind": "concealed"}  # defaults dropped


async def test_a_blood_battle_with_one_win_is_not_whole(store: Store) -> None:
    _, ctx, _ = await table(store, "luzhou")
    with pytest.raises(NotWhole):
        check_hand(ctx, [{"type": "win", "by": "self_draw", "winners": [{"seat": 0}]}])


async def test_the_pages_booking_closes_the_chats_entry_and_books_once(store: Store) -> None:
    session, ctx, mark = await table(store)
    chats, _ = await store.create_draft(CHAT, session_id=session.id, data=new_draft().dump())
    hand = check_hand(ctx, SELF_DRAW)
    with pytest.raises(TableMoved) as behind:  # a preview of another table: nothing booked
        await book_hand(store, CHAT, session, ctx, hand, shown_at="0:0:x", mark=mark, by=None)
    assert behind.value.mark == mark and not behind.value.late
    assert await store.standing_hands(session.id) == 0
    booked = await book_hand(store, CHAT, session, ctx, hand, shown_at=mark, mark=mark, by=None)
    assert [d.message_id for d in booked.replaced] == [chats.message_id]
    assert booked.hand.created and booked.totals == booked.outcome.deltas
    assert await store.drafts_for_session(session.id) == []
    assert await store.totals(session.id) == booked.outcome.deltas


async def test_the_same_entry_confirmed_twice_is_one_hand(store: Store) -> None:
    session, ctx, mark = await table(store)
    entry, _ = await store.create_draft(CHAT, session_id=session.id,
                                        data=new_draft(SELF_DRAW, step="preview").dump())
    first = await book_entry(store, session, ctx, entry, SELF_DRAW, shown_at=mark, mark=mark, by=None)
    with pytest.raises(AlreadyBooked) as again:
        await book_entry(store, session, ctx, entry, SELF_DRAW, shown_at=mark, mark=mark, by=None)
    assert again.value.number == 1 and first.hand.created
    assert await store.standing_hands(session.id) == 1


async def test_a_table_moved_while_booking_books_nothing(store: Store) -> None:
    """The preview's mark held when the tap came, then a hand was undone before the store
    wrote: the store refuses, and the refusal carries the table as it is now."""
    first = await booked_by_page(store)
    session = await store.get_session(first.hand.session_id)
    ctx, mark = await wizard_ctx(store, session, "en"), await store.table_mark(session.id)
    entry, _ = await store.create_draft(CHAT, session_id=session.id,
                                        data=new_draft(SELF_DRAW, step="preview").dump())

    async def admin() -> bool:
        return True

    await undo_last(store, session, by=None, anyone=admin)
    with pytest.raises(TableMoved) as moved:
        await book_entry(store, session, ctx, entry, SELF_DRAW, shown_at=mark, mark=mark, by=None)
    assert moved.value.late and moved.value.mark == await store.table_mark(session.id) != mark
    assert moved.value.session.id == session.id
    assert await store.standing_hands(session.id) == 0


async def test_only_whoever_entered_a_hand_or_an_admin_undoes_it(store: Store) -> None:
    session, ctx, mark = await table(store)
    asked: list[bool] = []

    async def not_admin() -> bool:
        asked.append(True)
        return False

    with pytest.raises(NothingToUndo):
        await undo_last(store, session, by=None, anyone=not_admin)
    alice = session.seats[0]
    entry, _ = await store.create_draft(CHAT, session_id=session.id, data=new_draft().dump())
    await book_entry(store, session, ctx, entry, SELF_DRAW, shown_at=mark, mark=mark, by=alice)
    with pytest.raises(NotYours):
        await undo_last(store, session, by=session.seats[1], anyone=not_admin)
    assert asked == [True] and await store.standing_hands(session.id) == 1
    undone = await undo_last(store, session, by=alice, anyone=not_admin, reason="  ")
    assert asked == [True]  # her own hand: nobody asked whether she is an admin
    assert undone.number == 1 and undone.totals == (0, 0, 0, 0)
    hand = (await store.history(session.id, limit=1))[0]
    assert hand.voided and hand.void_reason == "undo"


async def test_a_transfer_paid_then_received(store: Store) -> None:
    booked = await booked_by_page(store)
    assert booked.stake_cents == 100
    owed = {pid: c for pid, c in (await store.money_balances(CHAT)).items() if c}
    payee = max(owed, key=owed.__getitem__)
    payer = min(owed, key=owed.__getitem__)
    transfer = Transfer(payer, payee, -owed[payer])
    with pytest.raises(PaymentNotOpen):
        await mark_paid(store, CHAT, Transfer(payer, payee, 1), session_id=None, by=payer,
                        confirmed=False)
    await mark_paid(store, CHAT, transfer, session_id=None, by=payer, confirmed=False)
    with pytest.raises(PaymentWaits):  # the payer says so twice: one payment waits
        await mark_paid(store, CHAT, transfer, session_id=None, by=payer, confirmed=False)
    (waiting,) = await store.pending_payments(CHAT)
    await confirm_received(store, CHAT, waiting.id, payee)
    with pytest.raises(PaymentConfirmed):
        await confirm_received(store, CHAT, waiting.id, payee)
    assert await store.pending_payments(CHAT) == []
