"""Rows to domain objects, and the small checks every part of the store shares."""

from __future__ import annotations

import json
import zlib
from collections.abc import Sequence
from datetime import UTC, datetime
from typing import Any

from .. import models as M
from ..domain import (
    Chat,
    Draft,
    InvalidHand,
    Payment,
    Person,
    Points,
    RecordedHand,
    Seats,
    Session,
    SessionEnded,
    SessionView,
    StoreError,
    without_bidi_controls,
)

_NAME_MAX = 128
# No amount may come near the 64-bit columns' limit, also after adding many of them up.
MAX_CENTS = 10**15


def table_mark_of(hand_count: int, last_live_seq: int, rules: dict[str, Any], stake_cents: int,
                  seats: Seats) -> str:
    """Hands recorded, the last live one, and a checksum of what else a preview shows
    (rules, stake, who sits where: all changeable between a preview and its Confirm)."""
    rest = json.dumps([rules, stake_cents, list(seats)], sort_keys=True)
    return f"{hand_count}:{last_live_seq}:{zlib.crc32(rest.encode()):08x}"


def session_mark(session: Session) -> str | None:
    """The table mark of a session read with `chat_context` (no read needed), else None."""
    if not isinstance(session, SessionView):
        return None
    return table_mark_of(session.hand_count, session.last_live_seq, session.rules,
                         session.stake_cents, session.seats)


def as_utc(dt: datetime | None) -> datetime | None:
    """SQLite hands back naive datetimes; everything stored is UTC."""
    if dt is None or dt.tzinfo is not None:
        return dt
    return dt.replace(tzinfo=UTC)


def seats_of(row: M.Session) -> Seats:
    return (row.seat0, row.seat1, row.seat2, row.seat3)


def _four(values: Sequence[Any]) -> Points:
    if len(values) != 4:
        raise StoreError(f"expected four values, got {list(values)}")
    return (int(values[0]), int(values[1]), int(values[2]), int(values[3]))


def chat_of(row: M.Chat) -> Chat:
    return Chat(row.id, row.language, dict(row.house_rules or {}), row.migrated_to)


def person_of(row: M.Person) -> Person:
    return Person(row.id, row.telegram_id, row.name, row.username, row.guest_chat_id is not None,
                  row.language_code, row.guest_chat_id)


def session_of(row: M.Session) -> Session:
    started_at = as_utc(row.started_at)
    assert started_at is not None
    return Session(row.id, row.chat_id, row.variant, dict(row.rules or {}), row.stake_cents,
                   seats_of(row), started_at, as_utc(row.ended_at), row.hand_count, row.started_by,
                   as_utc(row.settled_at), row.number, tuple(row.keepers or ()))


def hand_of(row: M.Hand, void: M.HandVoid | None, *, created: bool = True) -> RecordedHand:
    created_at = as_utc(row.created_at)
    assert created_at is not None
    return RecordedHand(
        id=row.id, session_id=row.session_id, seq=row.seq, record=row.record, outcome=row.outcome,
        entered_by=row.entered_by, created_at=created_at, voided=bool(row.voided),
        void_reason=void.reason if void else None, voided_by=void.voided_by if void else None,
        created=created, level=row.level, voided_at=as_utc(void.voided_at) if void else None,
        idempotency_key=row.idempotency_key)


def payment_of(row: M.Payment) -> Payment:
    created_at = as_utc(row.created_at)
    assert created_at is not None
    return Payment(row.id, row.chat_id, row.from_person, row.to_person, row.cents, row.session_id,
                   row.recorded_by, created_at, bool(row.settled), bool(row.confirmed),
                   row.confirmed_by)


def draft_of(row: M.Draft) -> Draft:
    updated_at = as_utc(row.updated_at)
    assert updated_at is not None
    return Draft(row.chat_id, row.message_id, row.session_id, row.data, row.version, updated_at)


def deltas_of(outcome: Any) -> Points:
    deltas = outcome.get("deltas") if isinstance(outcome, dict) else None
    if not (isinstance(deltas, list | tuple) and len(deltas) == 4
            and all(type(d) is int for d in deltas)):
        raise InvalidHand("the outcome's deltas must be four whole numbers")
    if sum(deltas) != 0:
        raise InvalidHand(f"the deltas {list(deltas)} add up to {sum(deltas)}, not 0")
    return _four(deltas)


def json_copy(value: Any, what: str) -> Any:
    """A deep copy that is sure to be storable as JSON (and not shared with the caller)."""
    try:
        return json.loads(json.dumps(value))
    except (TypeError, ValueError) as exc:
        raise StoreError(f"the {what} cannot be stored as JSON: {exc}") from exc


def clean_name(name: str) -> str:
    """A name as stored: one space between words, no bidirectional controls, at most 128
    characters (StoreError when nothing is left)."""
    name = " ".join(without_bidi_controls(str(name)).split())
    if not name:
        raise StoreError("a name cannot be empty")
    return name[:_NAME_MAX]


def check_seat(seat: int) -> None:
    if seat not in (0, 1, 2, 3):
        raise StoreError(f"seat must be 0-3, not {seat!r}")


def check_cents(cents: int, *, allow_zero: bool) -> None:
    if type(cents) is not int or cents < 0 or (cents == 0 and not allow_zero):
        raise StoreError(f"an amount must be a whole number of cents{'' if allow_zero else ' above 0'}")
    if cents > MAX_CENTS:
        raise StoreError(f"an amount must be at most {MAX_CENTS} cents")


def draft_hand_key(draft: Draft) -> str:
    """The idempotency key of a draft's hand: the same entry confirmed twice is one hand."""
    return message_hand_key(draft.chat_id, draft.message_id)


def message_hand_key(chat_id: int, message_id: int) -> str:
    """The idempotency key of the hand entered on this wizard message."""
    return f"draft:{chat_id}:{message_id}"


def check_running(row: M.Session) -> None:
    if row.ended_at is not None:
        raise SessionEnded("this session has ended")
