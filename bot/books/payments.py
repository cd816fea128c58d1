"""Money changing hands after the game: a payment of any amount recorded (/paid), an open
transfer marked paid (by the payer's word it waits for the payee; by the payee's it counts at
once), a waiting payment confirmed received.
Who pays whom is bot/chat/settle.py's `settlement` (the fewest transfers)."""

from __future__ import annotations

from db import AlreadyHandled, NothingOwed, PaymentNotPending, Store, StoreError
from scoring.settlement import Transfer, settle

from .refusals import AllSquare, PaymentConfirmed, PaymentNotOpen, PaymentWaits, StaleTransfer


async def record_payment(store: Store, chat_id: int, payer: int, payee: int, cents: int, *,
                         by: int | None, confirmed: bool) -> bool:
    """A payment between two people of the chat, by the payee's word (`confirmed`: counts at
    once) or the payer's (waits for the payee). False when this very update booked it already
    (delivered again after a crash): it counts once, and the answer says what was booked.
    `AllSquare` while nobody owes anything (checked as the payment is written)."""
    try:
        await store.record_payment(chat_id, payer, payee, cents, recorded_by=by,
                                   confirmed=confirmed, if_owed=True)
    except AlreadyHandled:
        return False
    except NothingOwed:
        raise AllSquare() from None
    return True


async def mark_paid(store: Store, chat_id: int, transfer: Transfer, *, session_id: int | None,
                    by: int | None, confirmed: bool) -> None:
    """An open transfer was made: by the payee's word (`confirmed`) it counts at once, by the
    payer's it waits for the payee. A payment already waiting is confirmed by the payee.
    `PaymentNotOpen`, `PaymentWaits`, `StaleTransfer` (the balances of a session not there);
    the store's refusals pass through."""
    ids = [session_id] if session_id is not None else None
    try:
        balances = await store.money_balances(chat_id, session_ids=ids)
    except StoreError:
        raise StaleTransfer() from None
    if transfer not in settle({k: v for k, v in balances.items() if v}):
        raise PaymentNotOpen()
    waiting = [p for p in await store.pending_payments(chat_id)
               if (p.from_person, p.to_person, p.cents) == (transfer.payer, transfer.payee, transfer.cents)]
    if waiting and not confirmed:
        raise PaymentWaits()
    if waiting:
        await store.confirm_payment(chat_id, waiting[0].id, by=by)
    else:
        await store.record_payment(chat_id, transfer.payer, transfer.payee, transfer.cents,
                                   session_id=session_id, recorded_by=by, confirmed=confirmed)


async def confirm_received(store: Store, chat_id: int, payment_id: int, by: int | None) -> None:
    """The payee says a waiting payment arrived: `PaymentConfirmed` when it was already."""
    try:
        await store.confirm_payment(chat_id, payment_id, by=by)
    except PaymentNotPending:
        raise PaymentConfirmed() from None
