"""A hand: checked whole (the page sends it at once; the wizard builds it step by step), booked
only at the table its preview was computed on (the wizard's Confirm, the page's), and undone.

Booking is one store transaction (`Store.confirm_hand`) on an entry: the wizard's open entry in
the chat, or one the page opens for its hand (which closes the chat's open entry, as a newer
/hand does). The same entry confirmed twice is one hand."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field, replace
from typing import Any

from db import Draft, RecordedHand, Session, SessionView, Store, TableChanged, crash_point
from db.store import session_mark
from scoring import Outcome, ScoringError

from ..chat.table import hand_number
from ..entry import controls
from ..entry.ctx import Ctx
from ..entry.hu.tiles import read_tiles
from ..entry.hu.words import TILES, LineError
from ..entry.preview import reads_from
from ..entry.record import hand_state, missing, prune
from ..entry.wizard.draft import Read, Step, new_draft
from .refusals import (
    AlreadyBooked,
    FieldMissing,
    HandRefused,
    NotAHand,
    NothingToUndo,
    NotWhole,
    NotYours,
    TableMoved,
    TilesRefused,
)

UNDO = "undo"  # the reason of an undo given none (history shows none)


@dataclass(frozen=True)
class Hand:
    """A whole hand as the record has it, and the reading of each winner's tiles that were
    read (entry/preview.py's `reads`)."""

    events: list[dict[str, Any]]
    reads: dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class Booked:
    """A hand booked: the stored hand, its record and outcome, the totals after it and the
    session's stake; and the chat's open entries its booking closed (the page's)."""

    hand: RecordedHand
    record: dict[str, Any]
    outcome: Outcome
    totals: tuple[int, ...]
    stake_cents: int
    replaced: list[Draft] = field(default_factory=list)


@dataclass(frozen=True)
class Undone:
    """The hand undone went by `number`; the session and its totals after the undo."""

    number: int
    session: Session
    totals: tuple[int, ...]


def check_hand(ctx: Ctx, events: list[dict[str, Any]]) -> Hand:
    """The events of a hand entered at once, as the record keeps them: an event other than a
    win stored as the wizard stores it (its defaults dropped), a winner's tiles (`TILES`, the
    turned tile as `_indicator`) read as /hu reads typed tiles. `FieldMissing`, `TilesRefused`,
    `HandRefused`, `NotAHand`; `NotWhole` while the hand goes on."""
    events = list(events)
    known = set(controls.event_types(ctx.variant.events)) - {"win"}
    for i, event in enumerate(events):
        if event.get("type") not in known:  # a win, or a type scoring will refuse
            continue
        events[i] = prune(controls.event_model(ctx.variant.events, event["type"]), event)
        name = missing(ctx, events[i], events[:i])
        if name is not None:
            raise FieldMissing(event["type"], name)
    typed = {w["seat"]: "".join(w[TILES]) for e in events for w in e.get("winners", [])
             if isinstance(w.get(TILES), list) and isinstance(w.get("seat"), int)}
    try:
        read = read_tiles(ctx.variant, ctx.base, events)
    except ScoringError as exc:
        raise HandRefused(exc) from None
    except LineError as exc:
        raise TilesRefused(exc.msgid, exc.kwargs) from None
    except (KeyError, TypeError, ValueError):  # a winner without a seat, and the like
        raise NotAHand() from None
    ended, exc = hand_state(ctx, events)
    if exc is not None:
        raise HandRefused(exc)
    if not ended:
        raise NotWhole()
    return Hand(events, reads_from(read, typed) if read else {})


async def book_entry(store: Store, session: Session, ctx: Ctx, entry: Draft,
                     events: list[dict[str, Any]], *, shown_at: str | None, mark: str,
                     by: int | None) -> Booked:
    """The wizard's Confirm: book the hand of the chat's open `entry` (its `events` as the
    preview showed them, computed at table mark `shown_at`), only if the table is still at
    `mark` (read before `ctx`). `TableMoved`, `HandRefused`, `AlreadyBooked`; the store's
    `DraftClosed` (cancelled), `StaleDraft` (changed meanwhile), `NotFound` pass through."""
    if shown_at != mark:
        raise TableMoved(mark)
    record, outcome = _scored(ctx, events)
    return await _book(store, session, entry, record, outcome, mark=mark, by=by)


async def book_hand(store: Store, chat_id: int, session: Session, ctx: Ctx, hand: Hand, *,
                    shown_at: str | None, mark: str, by: int | None) -> Booked:
    """The page's Confirm: book a hand checked whole (check_hand), in an entry of its own that
    closes the chat's open one (`Booked.replaced`), on the terms of book_entry; the entry is
    closed again when the table moved."""
    if shown_at != mark:
        raise TableMoved(mark)
    record, outcome = _scored(ctx, hand.events)
    data = new_draft(hand.events, step=Step.PREVIEW)  # as the wizard keeps an entry
    data.reads = {seat: Read.model_validate(read) for seat, read in hand.reads.items()}
    data.table, data.web = mark, True
    entry, replaced = await store.create_draft(chat_id, session_id=session.id, data=data.dump())
    try:
        booked = await _book(store, session, entry, record, outcome, mark=mark, by=by)
    except TableMoved:
        await store.cancel_draft(entry)
        raise
    return replace(booked, replaced=replaced)


def _scored(ctx: Ctx, events: list[dict[str, Any]]) -> tuple[dict[str, Any], Outcome]:
    try:  # as the preview or the wizard's Confirm scored it in this update, if they did
        return ctx.record(events), ctx.score(events)
    except ScoringError as exc:
        raise HandRefused(exc) from None


async def _book(store: Store, session: Session, entry: Draft, record: dict[str, Any],
                outcome: Outcome, *, mark: str, by: int | None) -> Booked:
    try:
        hand = await store.confirm_hand(entry, record, outcome.to_dict(), entered_by=by,
                                        table_mark=mark)
    except TableChanged:
        fresh = await store.get_session(session.id)  # not the update's snapshot
        raise TableMoved(await store.table_mark(fresh.id), fresh, late=True) from None
    crash_point("after_hand_stored")
    if not hand.created:
        raise AlreadyBooked(await hand_number(store, hand))
    # the snapshot (a SessionView has a mark) was the table the hand was added to
    if isinstance(session, SessionView) and session_mark(session) == mark:
        totals = tuple(t + d for t, d in zip(session.totals, outcome.deltas, strict=True))
    else:
        session = await store.get_session(session.id)
        totals = await store.totals(session.id)
    return Booked(hand, record, outcome, totals, session.stake_cents)


async def undo_last(store: Store, session: Session, *, by: int | None,
                    anyone: Callable[[], Awaitable[bool]], reason: str = "") -> Undone:
    """Undo the session's last standing hand (it stays in the books, struck through, with
    `reason`). Whoever entered it may; `anyone()` says whether the asker may undo anyone's (a
    chat admin), asked only then. `NothingToUndo`, `NotYours`; the store's refusals pass."""
    last = await store.last_hand(session.id)
    if last is None:
        raise NothingToUndo()
    own = by is not None and last.entered_by == by
    if not (own or await anyone()):
        raise NotYours()
    await store.void_hand(last.id, by=by, reason=(reason.strip() or UNDO)[:200])
    session = await store.get_session(session.id)
    number = await store.standing_hands(session.id) + 1  # the number it went by
    return Undone(number, session, await store.totals(session.id))
