"""What the store hands out (frozen dataclasses, never ORM objects) and the errors it raises."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Any

Seats = tuple[int | None, int | None, int | None, int | None]
Points = tuple[int, int, int, int]

# Bidirectional embeddings, overrides and isolates (U+202A–U+202E, U+2066–U+2069): in a name they
# would reverse the rest of the line it is shown in, the amounts beside it included.
_BIDI_CONTROLS = dict.fromkeys(map(ord, "\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069"))


def without_bidi_controls(text: str) -> str:
    """`text` with every bidirectional embedding, override and isolate removed."""
    return text.translate(_BIDI_CONTROLS)


class StoreError(Exception):
    """Anything the store refuses; the message is readable as it is."""


class NotFound(StoreError):
    pass


class SessionAlreadyRunning(StoreError):
    pass


class SessionEnded(StoreError):
    pass


class SessionNotEnded(StoreError):
    pass


class SessionSettled(StoreError):
    pass


class SessionLocked(StoreError):
    """Seats are fixed once a hand is recorded: hand records refer to seat numbers."""


class SessionNotReady(StoreError):
    """A hand needs four seated players."""


class SeatTaken(StoreError):
    pass


class AlreadySeated(StoreError):
    """One person, one seat: `person` (where known) already sits in `seat`."""

    def __init__(self, message: str, person: int | None = None, seat: int | None = None) -> None:
        super().__init__(message)
        self.person, self.seat = person, seat


class SeatedElsewhere(AlreadySeated):
    """The person sits at another running table of the chat (its session `number`)."""

    def __init__(self, message: str, number: int) -> None:
        super().__init__(message)
        self.number = number


class InvalidHand(StoreError):
    """The outcome's deltas are not four integers summing to zero, or the record is unusable."""


class AlreadyVoided(StoreError):
    pass


class StaleDraft(StoreError):
    """Someone saved (or deleted) the draft since it was read."""


class DatabaseFault(Exception):
    """The database could not do what was asked (not a refusal: nothing is wrong with the
    request). What the call was writing was not stored. Not a StoreError, so handlers that
    catch refusals let it through to the bot's error handler."""


class DatabaseBusy(DatabaseFault):
    """Another writer held the lock, or the database was too slow, for longer than the bot
    waits (a few seconds): try again shortly."""


class DatabaseUnavailable(DatabaseFault):
    """The database is down, unreachable, full or read-only."""


class TableChanged(StoreError):
    """A hand was added or undone since the preview being confirmed was computed."""


class DraftClosed(StoreError):
    """The draft is gone: its hand was recorded (`hand` is set) or the entry was cancelled."""

    def __init__(self, message: str, hand: RecordedHand | None = None) -> None:
        super().__init__(message)
        self.hand = hand


class PaymentNotPending(StoreError):
    """The payment was confirmed already (or does not exist in this chat)."""


class NothingOwed(StoreError):
    """Everyone in the chat is square: a payment would only make a debt."""


class AlreadyHandled(StoreError):
    """Telegram delivered this update again (the bot was stopped before it acknowledged it),
    and what it changed in the books was already committed the first time: nothing is
    written twice."""


@dataclass(frozen=True)
class Chat:
    id: int
    language: str | None
    house_rules: dict[str, dict[str, Any]]  # variant -> rule overrides
    migrated_to: int | None = None


@dataclass(frozen=True)
class Person:
    id: int
    telegram_id: int | None
    name: str
    username: str | None
    is_guest: bool
    language_code: str | None = None
    guest_chat_id: int | None = None


@dataclass(frozen=True)
class Session:
    id: int
    chat_id: int
    variant: str
    rules: dict[str, Any]
    stake_cents: int
    seats: Seats  # person ids by seat 0-3
    started_at: datetime
    ended_at: datetime | None
    hand_count: int  # hands recorded, voided ones included (= the last sequence number)
    started_by: int | None = None
    settled_at: datetime | None = None
    number: int = 0  # the chat's how-manieth session (1, 2, …): what the chat calls it
    keepers: tuple[int, ...] = ()  # named to keep score, besides whoever started it

    @property
    def running(self) -> bool:
        return self.ended_at is None

    def keeps_score(self, person_id: int | None) -> bool:
        """Whoever started the session and whom the table named keep its score."""
        return person_id is not None and (person_id == self.started_by or person_id in self.keepers)


@dataclass(frozen=True)
class PersonResult:
    """What one person won or lost in one session, over every seat they held in it."""

    session_id: int
    person_id: int
    points: int
    seats: tuple[int, ...]  # the seats they played in, in the order they first did
    first_seq: int  # the first hand they played
    hands: int


@dataclass(frozen=True)
class RecordedHand:
    id: int
    session_id: int
    seq: int
    record: dict[str, Any]
    outcome: dict[str, Any]
    entered_by: int | None
    created_at: datetime
    voided: bool
    void_reason: str | None
    voided_by: int | None
    created: bool = True  # False: the idempotency key was used before; nothing was written
    level: int | None = None
    voided_at: datetime | None = None
    idempotency_key: str = ""
    people: Seats | None = None  # who sat in each seat for it, where read (history, export)

    @property
    def deltas(self) -> Points:
        d = self.outcome["deltas"]
        return (d[0], d[1], d[2], d[3])


@dataclass(frozen=True)
class LevelStanding:
    """One level of a bankroll variant: what each seat won or lost in it, and how it stands (or ended)."""

    level: int
    deltas: Points
    hand_count: int
    ended: bool  # its last hand's outcome had level_over
    final_balances: Points  # balances after its last hand


@dataclass(frozen=True)
class Payment:
    id: int
    chat_id: int
    from_person: int
    to_person: int
    cents: int
    session_id: int | None
    recorded_by: int | None
    created_at: datetime
    settled: bool = False
    confirmed: bool = True  # False: pending until the payee (or an admin) confirms it
    confirmed_by: int | None = None


@dataclass(frozen=True)
class Draft:
    chat_id: int
    message_id: int
    session_id: int
    data: dict[str, Any]
    version: int
    updated_at: datetime


@dataclass(frozen=True)
class SeatStatsRow:
    """What one seat of one session adds to a person's statistics (running aggregates)."""

    session_id: int
    seat: int
    person_id: int
    variant: str
    hands: int
    wins: int
    self_draws: int
    dealt_in: int
    points: int
    biggest_gain: int
    patterns: dict[str, int]  # term key -> wins with it


@dataclass(frozen=True)
class LevelSummary:
    """A bankroll variant's levels at a glance: the level the next hand plays in, the balances the running
    level's last hand left (None when no level is running) and how many levels each seat won."""

    next_level: int
    running_balances: Points | None
    levels_won: Points

    @property
    def finished(self) -> bool:
        return any(self.levels_won)


@dataclass(frozen=True)
class ChartSeries:
    """Running totals for a chart: `totals[i]` after `x[i]` live hands (x[0] = 0, the start),
    at most a few thousand points; `level_breaks` are hand numbers where a level ended."""

    x: list[int]
    totals: list[Points]
    level_breaks: list[int]
    hands: int  # live hands in all
    # person id → their running total at each x, when every hand was read (not buckets)
    people: dict[int, list[int]] | None = None


@dataclass(frozen=True)
class SessionView(Session):
    """A running session as read at the start of an update, with what every screen shows:
    seat names, totals and the outcome of the last live hand (None before the first). A
    snapshot: after a write, read the session again (the store's writes return plain ones)."""

    names: tuple[str | None, str | None, str | None, str | None] = (None, None, None, None)
    totals: Points = (0, 0, 0, 0)
    last_outcome: dict[str, Any] | None = None
    last_live_seq: int = 0  # the seq of that hand (0 before the first)
    standing_hands: int = 0  # hands not undone
    someone_left: bool = False  # someone played a hand and sits in no seat now


@dataclass(frozen=True)
class HandToImport:
    """One hand of an imported file, scored and checked already."""

    record: dict[str, Any]
    outcome: dict[str, Any]
    voided: bool = False
    void_reason: str | None = None
    # who sat where for this hand, where it differs from the session's players (a person id,
    # or a name that becomes a guest of the chat)
    players: tuple[int | str, ...] | None = None
