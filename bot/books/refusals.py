"""What the table's use cases refuse, one class per kind, each with the data to word it and no
words of its own: the chat's handlers (bot/commands) and the page's API (bot/web) each say it
their way. Nothing was changed when one is raised. The store's own refusals (db.StoreError's
kinds: a seat taken, a session ended …) pass through the use cases as they are."""

from __future__ import annotations

from typing import Any

from db import Session
from scoring import ScoringError


class Refusal(Exception):
    """A use case said no; nothing was changed."""


# -- the session ----------------------------------------------------------------------------------

class NoSession(Refusal):
    """No session runs in the chat."""


class AlreadyRunning(Refusal):
    """A session already runs in the chat."""


class UnknownVariant(Refusal):
    """No mahjong of that name."""

    def __init__(self, name: object) -> None:
        super().__init__(name)
        self.name = name


class NotSeated(Refusal):
    """A hand needs four players seated."""


class SeatsTaken(Refusal):
    """All four seats are taken."""


class BadName(Refusal):
    """A guest's name is empty or longer than `most` characters."""

    def __init__(self, most: int) -> None:
        super().__init__(most)
        self.most = most


class BadNames(BadName):
    """Four players' names, all different, each at most `most` characters, were expected."""


class BadStake(Refusal):
    """A stake is money per point: a plain number above 0, at most `most` cents."""

    def __init__(self, most: int) -> None:
        super().__init__(most)
        self.most = most


class AlreadyImported(Refusal):
    """The same import was stored before (delivered again): as session `number` (None: not
    known)."""

    def __init__(self, number: int | None) -> None:
        super().__init__(number)
        self.number = number


# -- a hand ---------------------------------------------------------------------------------------

class FieldMissing(Refusal):
    """An event of the hand lacks a field to choose: `field` of an event of type `event`."""

    def __init__(self, event: str, field: str) -> None:
        super().__init__(event, field)
        self.event, self.field = event, field


class HandRefused(Refusal):
    """Scoring refuses the hand: `error` says why (Ctx.explain words it)."""

    def __init__(self, error: ScoringError) -> None:
        super().__init__(error)
        self.error = error


class TilesRefused(Refusal):
    """Tiles that cannot be read: `msgid` and its `params` say why (translate with t)."""

    def __init__(self, msgid: str, params: dict[str, Any]) -> None:
        super().__init__(msgid)
        self.msgid, self.params = msgid, params


class NotAHand(Refusal):
    """Events that are no hand record (a winner without a seat, and the like)."""


class NotWhole(Refusal):
    """The hand has not ended yet: more is to come (a blood battle's next win, the wall's end)."""


class TableMoved(Refusal):
    """A hand was added or undone since the preview was computed: the table is now at `mark`.
    `late`: the store found it while booking (then `session` is the session read afresh);
    else the preview's mark was already behind."""

    def __init__(self, mark: str, session: Session | None = None, *, late: bool = False) -> None:
        super().__init__(mark)
        self.mark, self.session, self.late = mark, session, late


class AlreadyBooked(Refusal):
    """This entry's hand was booked before (the same Confirm twice): as hand `number`."""

    def __init__(self, number: int) -> None:
        super().__init__(number)
        self.number = number


class NothingToUndo(Refusal):
    """The session has no hand standing."""


class NotYours(Refusal):
    """Only whoever entered the hand, or a chat admin, may undo it."""


# -- money ----------------------------------------------------------------------------------------

class PaymentNotOpen(Refusal):
    """The transfer is no longer one of those that settle the books."""


class StaleTransfer(PaymentNotOpen):
    """The transfer names a session the books do not have (an old or forged button)."""


class AllSquare(Refusal):
    """Nobody in the chat owes anything: a payment would only make a debt."""


class PaymentWaits(Refusal):
    """A payment of exactly that already waits for its payee to confirm it."""


class PaymentConfirmed(Refusal):
    """The payment was confirmed already."""


# -- seats and scorekeepers -------------------------------------------------------------------------

class TwoSeats(Refusal):
    """`person` already sits in seat `seat`: one person, one seat (a swap moves two)."""

    def __init__(self, person: int, seat: int) -> None:
        super().__init__(person, seat)
        self.person, self.seat = person, seat


class SeatTakenBy(Refusal):
    """Seat `seat` is `person`'s: take an empty one, or ask someone at the table to seat you."""

    def __init__(self, person: int, seat: int) -> None:
        super().__init__(person, seat)
        self.person, self.seat = person, seat


class NotAMember(Refusal):
    """Only a member of the chat the bot knows can keep score: `name` is none (a guest, a
    username it has not seen here, or someone who left the chat)."""

    def __init__(self, name: str) -> None:
        super().__init__(name)
        self.name = name
