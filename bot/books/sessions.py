"""A session: started (with four guests named, on the page without Telegram), seated, its stake
set, ended; the running one looked up, and a session imported from an exported file."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from db import (
    AlreadyHandled,
    AlreadySeated,
    HandToImport,
    SeatedElsewhere,
    Session,
    SessionAlreadyRunning,
    Store,
)
from scoring import all_variants, get_variant

from ..plumbing.limits import MAX_NAME, MAX_STAKE_CENTS, parse_amount, visible_name
from ..view.export import ImportedSession
from .refusals import (
    AlreadyImported,
    AlreadyRunning,
    BadName,
    BadNames,
    BadStake,
    NoSession,
    NotSeated,
    SeatsTaken,
    SeatTakenBy,
    TwoSeats,
    UnknownVariant,
)


@dataclass(frozen=True)
class Ended:
    """A session ended: as it is now, its totals and how many hands stand."""

    session: Session
    totals: tuple[int, ...]
    hands: int


async def running(store: Store, chat_id: int, table: int | None = None,
                  person_id: int | None = None) -> Session:
    """The chat's running session: of several tables, the one with the id `table`, else the
    one `person_id` sits at, else the first; `NoSession`."""
    session = table_of(await store.running_sessions(chat_id), table, person_id)
    if session is None:
        raise NoSession()
    return session


def table_of(tables: Sequence[Session], table: int | None,
             person_id: int | None) -> Session | None:
    """Of the chat's running tables: the one with the id `table` (None when it is not one of
    them), else the one `person_id` sits at (or keeps the score of), else the first."""
    if table is not None:
        return next((s for s in tables if s.id == table), None)
    mine = next((s for s in tables if person_id is not None and person_id in s.seats), None)
    keeps = next((s for s in tables if s.keeps_score(person_id)), None)  # seated nowhere
    return mine or keeps or (tables[0] if tables else None)


def seated(session: Session) -> None:
    """A hand is entered only with four players seated: `NotSeated`."""
    if None in session.seats:
        raise NotSeated()


def guest_name(raw: str) -> str:
    """A guest's name as typed, its whitespace tidied: something visible, at most MAX_NAME
    characters; `BadName`."""
    name = visible_name(raw)
    if not name or len(name) > MAX_NAME:
        raise BadName(MAX_NAME)
    return name


def stake_cents(text: str) -> int:
    """A stake typed as money per point ("0.5") in cents; `BadStake`."""
    try:
        return parse_amount(text, MAX_STAKE_CENTS)
    except ValueError:
        raise BadStake(MAX_STAKE_CENTS) from None


async def start_session(store: Store, chat_id: int, variant: str, *, by: int | None = None,
                        names: Sequence[str] | None = None, stake: Any = None,
                        another: bool = False) -> Session:
    """A session of `variant` with the chat's house rules, every rule's value kept with it (a
    later change of scoring's defaults never re-scores its hands: Variant.resolved_rules).
    `names`: four guests seated East to North; `stake`: money per point as typed (none: "",
    "0"); `another`: a table beside those running in the chat. All checked before anything
    is stored: `UnknownVariant`, `BadNames`, `BadStake`, `AlreadyRunning` (one runs, and not
    `another`), `SeatedElsewhere` (a guest named sits at a running table)."""
    if not isinstance(variant, str) or variant not in all_variants():  # the page sends any JSON
        raise UnknownVariant(variant if isinstance(variant, str) else "")
    guests = _four_names(names) if names is not None else []
    cents = stake_cents(str(stake)) if stake not in (None, "", "0") else 0
    chat = await store.ensure_chat(chat_id)
    rules = get_variant(variant).resolved_rules(dict(chat.house_rules.get(variant, {})))
    if guests and another:
        await _guests_free(store, chat_id, guests)
    try:
        session = await store.start_session(chat_id, variant, rules, stake_cents=cents,
                                            started_by=by, another=another)
    except SessionAlreadyRunning:
        raise AlreadyRunning() from None
    for name in guests:
        session = await seat_guest(store, chat_id, session, name)
    return session


async def _guests_free(store: Store, chat_id: int, names: Sequence[str]) -> None:
    """`SeatedElsewhere` when a guest of these names sits at one of the chat's running tables
    (checked before the new table is started: nothing half-made)."""
    wanted = {n.casefold() for n in names}
    for table in await store.running_sessions(chat_id):
        people = await store.get_people(p for p in table.seats if p is not None)
        if any(p.guest_chat_id == chat_id and p.name.casefold() in wanted for p in people.values()):
            raise SeatedElsewhere(f"a guest named sits at table {table.number}", table.number)


def _four_names(names: Any) -> list[str]:
    if not (isinstance(names, list | tuple) and len(names) == 4
            and all(isinstance(n, str) for n in names)):
        raise BadNames(MAX_NAME)
    try:
        clean = [guest_name(n) for n in names]
    except BadName:
        raise BadNames(MAX_NAME) from None
    if len(set(clean)) < 4:
        raise BadNames(MAX_NAME)
    return clean


async def seat_guest(store: Store, chat_id: int, session: Session, name: str) -> Session:
    """A player without Telegram, by name, in the first free seat: `BadName`, `SeatsTaken`;
    the store's refusals (seats fixed once a hand is booked …) pass through."""
    name = guest_name(name)
    free = [s for s in range(4) if session.seats[s] is None]
    if not free:
        raise SeatsTaken()
    guest = await store.add_guest(chat_id, name)
    return await store.seat_player(session.id, free[0], guest.id)


# -- seats that change hands, from the next hand on (nothing booked is changed) ------------------

async def sit(store: Store, session: Session, seat: int, person_id: int, *,
              replace: bool = False) -> Session:
    """`person_id` sits in `seat` from the next hand on: an empty seat, or with `replace` the
    seat of whoever sits there (a substitute; what they won stays theirs). `TwoSeats` when the
    person sits elsewhere already, `SeatTakenBy` when the seat is someone else's and not
    `replace`; `SessionEnded` (the store) after the end."""
    seats = session.seats
    if seats[seat] == person_id:
        return session
    if person_id in seats:
        raise TwoSeats(person_id, seats.index(person_id))
    if seats[seat] is not None and not replace:
        raise SeatTakenBy(seats[seat], seat)  # type: ignore[arg-type]
    if seats[seat] is None:
        return await store.seat_player(session.id, seat, person_id)
    return await store.replace_player(session.id, seat, person_id)


async def sit_guest(store: Store, chat_id: int, session: Session, seat: int, name: str) -> Session:
    """A player without Telegram, by name (the chat's guest of that name, else a new one), in
    `seat` from the next hand on, replacing whoever sits there: `BadName`, `TwoSeats`."""
    try:  # found or made, and seated, in one transaction
        return await store.replace_player(session.id, seat, guest_name(name))
    except AlreadySeated as exc:
        if exc.person is None or exc.seat is None:
            raise
        raise TwoSeats(exc.person, exc.seat) from None


async def swap(store: Store, session: Session, a: int, b: int) -> Session:
    """Seats `a` and `b` exchange their players (换位; either may be empty: a move), from the
    next hand on. The dealer's turn, levels and games stay with the seats."""
    if a == b:
        return session
    return await store.swap_seats(session.id, a, b)


async def leave(store: Store, session: Session, seat: int) -> Session:
    """Seat `seat` is given up from the next hand on (no hand until someone takes it)."""
    return await store.unseat(session.id, seat)


async def set_stake(store: Store, session: Session, text: str) -> Session:
    """The session's stake, money per point as typed: `BadStake`."""
    return await store.set_stake(session.id, stake_cents(text))


async def end_session(store: Store, session: Session) -> Ended:
    """End the session; its open hand entries close with it."""
    totals = await store.totals(session.id)
    for draft in await store.drafts_for_session(session.id):
        await store.delete_draft(draft.chat_id, draft.message_id)
    ended = await store.end_session(session.id)
    return Ended(ended, totals, await store.standing_hands(ended.id))


async def import_session(store: Store, chat_id: int, imported: ImportedSession,
                         members: dict[int, int], *, by: int | None, key: str) -> Session:
    """A session read from an exported file, stored ended in one transaction: its seats the
    chat's `members` (seat → person id) or, where none is given, guests named as in the file.
    `key` names this import (the same when it is delivered again): `AlreadyImported`; the
    store's refusals pass through."""
    players: list[int | str] = [members.get(seat, name) for seat, name in enumerate(imported.players)]
    # a hand played after seats changed hands names its own players: the file's names, the
    # members given for them where they are the same people
    member = {imported.players[seat].casefold(): pid for seat, pid in members.items()}

    def who(names: tuple[str, ...] | None) -> tuple[int | str, ...] | None:
        return tuple(member.get(n.casefold(), n) for n in names) if names is not None else None

    hands = [HandToImport(h.record, h.outcome.to_dict(), h.voided, h.void_reason, who(h.players))
             for h in imported.hands]
    try:
        return await store.import_session(
            chat_id, imported.variant, imported.rules, stake_cents=imported.stake_cents,
            players=players, hands=hands, imported_by=by, key_prefix=key)
    except AlreadyHandled:  # delivered again after it was imported: say as what
        done = await store.session_with_hand(f"{key}:1")
        raise AlreadyImported(done.number if done is not None else None) from None
