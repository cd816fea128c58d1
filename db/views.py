"""What a handler needs at the start of every update, read in one statement: the chat, the
person who sent the update, the chat's running sessions (its tables: a row each) with their
seat names, totals and last live hand's outcome (the table state the next hand starts from)
and, for a button, the wizard draft on its message."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from sqlalchemy import bindparam, func, literal, select
from sqlalchemy.ext.asyncio import AsyncSession

from . import models as M
from .domain import Chat, Draft, Person, SessionView
from .store.rows import as_utc  # one conversion of stored times, shared with the store

CHATS, PEOPLE, SESSIONS = M.Chat.__table__, M.Person.__table__, M.Session.__table__
STINTS, HANDS, STATS = M.Stint.__table__, M.Hand.__table__, M.SeatStats.__table__
DRAFTS = M.Draft.__table__


@dataclass(frozen=True)
class ChatContext:
    chat: Chat | None  # None: the chat is new
    person: Person | None  # None: no sender, or a new one
    session: SessionView | None  # the running session the update is about, if one is clear
    draft: Draft | None = None  # the draft on the message asked about, if any
    tables: tuple[SessionView, ...] = ()  # every running session of the chat, by number


def table_of(tables: tuple[SessionView, ...], person_id: int | None,
             draft: Draft | None) -> SessionView | None:
    """The table an update is about: the one the draft on its message belongs to, else the one
    the sender sits at (or keeps the score of), else the chat's only one; None when none runs
    or it is unclear (several run and the sender sits at none)."""
    if draft is not None:
        for table in tables:
            if table.id == draft.session_id:
                return table
    if person_id is not None:
        for table in tables:
            if person_id in table.seats:
                return table
        for table in tables:  # a scorekeeper, seated nowhere
            if table.keeps_score(person_id):
                return table
    return tables[0] if len(tables) == 1 else None


def _statement() -> Any:
    """Built once (with bound parameters): building it costs more than running it."""
    chat_id, telegram_id = bindparam("b_chat_id"), bindparam("b_telegram_id")
    message_id = bindparam("b_message_id")
    anchor = select(literal(1).label("one")).subquery("k")
    me = PEOPLE.alias("me")
    seats = [PEOPLE.alias(f"p{i}") for i in range(4)]
    standing = STATS.alias("standing")  # seat 0's live hands: the session's standing hands
    s = SESSIONS
    def last_live(column: Any) -> Any:  # of the newest live hand, along the (session_id, seq) index
        return (select(column).where(HANDS.c.session_id == s.c.id, HANDS.c.voided.is_(False))
                .order_by(HANDS.c.seq.desc()).limit(1).scalar_subquery())

    columns = [CHATS.c.id.label("chat_id"), CHATS.c.language, CHATS.c.house_rules, CHATS.c.migrated_to,
               me.c.id.label("me_id"), me.c.telegram_id.label("me_telegram_id"),
               me.c.name.label("me_name"), me.c.username.label("me_username"),
               me.c.language_code.label("me_language_code"),
               me.c.guest_chat_id.label("me_guest_chat_id"),
               *(c.label(f"s_{c.name}") for c in s.c),
               *(p.c.name.label(f"name{i}") for i, p in enumerate(seats)),
               # what the person in each seat won or lost in this session, in whichever seats
               *(_own_points(s, i).label(f"points{i}") for i in range(4)),
               _someone_left(s).label("someone_left"),
               last_live(HANDS.c.outcome).label("last_outcome"),
               last_live(HANDS.c.seq).label("last_live_seq"), standing.c.hands.label("standing"),
               *(c.label(f"d_{c.name}") for c in DRAFTS.c)]
    stmt = (select(*columns).select_from(anchor)
            .outerjoin(CHATS, CHATS.c.id == chat_id)
            .outerjoin(me, me.c.telegram_id == telegram_id)
            .outerjoin(s, (s.c.chat_id == chat_id) & s.c.ended_at.is_(None))
            .outerjoin(DRAFTS, (DRAFTS.c.chat_id == chat_id) & (DRAFTS.c.message_id == message_id))
            .order_by(s.c.number))
    stmt = stmt.outerjoin(standing, (standing.c.session_id == s.c.id) & (standing.c.seat == 0))
    for i in range(4):
        stmt = stmt.outerjoin(seats[i], seats[i].c.id == s.c[f"seat{i}"])
    return stmt


def _own_points(s: Any, seat: int) -> Any:
    """The points of the person in `seat`, over their stints (a few rows, by index)."""
    return (select(func.sum(STINTS.c.points))
            .where(STINTS.c.session_id == s.c.id, STINTS.c.person_id == s.c[f"seat{seat}"])
            .scalar_subquery())


def _someone_left(s: Any) -> Any:
    """Whether someone played a hand of the session and sits in none of its seats now."""
    seated = [func.coalesce(s.c[f"seat{i}"], -1) for i in range(4)]
    return (select(STINTS.c.person_id).where(STINTS.c.session_id == s.c.id,
                                             STINTS.c.person_id.not_in(seated))
            .limit(1).exists())


_STATEMENT = _statement()


async def chat_context(s: AsyncSession, chat_id: int, telegram_id: int | None,
                       message_id: int | None = None) -> ChatContext:
    rows = (await s.execute(_STATEMENT, {"b_chat_id": chat_id,
                                         "b_telegram_id": telegram_id if telegram_id is not None else 0,
                                         # 0: no message (drafts sit on real, positive ids or
                                         # on negative placeholders)
                                         "b_message_id": message_id or 0})).all()
    row = rows[0]  # one a running session; one with no session when none runs
    chat = (Chat(row.chat_id, row.language, dict(row.house_rules or {}), row.migrated_to)
            if row.chat_id is not None else None)
    person = (Person(row.me_id, row.me_telegram_id, row.me_name, row.me_username,
                     row.me_guest_chat_id is not None, row.me_language_code, row.me_guest_chat_id)
              if row.me_id is not None else None)
    tables = tuple(_session_view(r) for r in rows if r.s_id is not None)
    draft = None
    if row.d_chat_id is not None:
        draft = Draft(row.d_chat_id, row.d_message_id, row.d_session_id, row.d_data, row.d_version,
                      as_utc(row.d_updated_at) or M.utcnow())
    session = table_of(tables, person.id if person is not None else None, draft)
    return ChatContext(chat, person, session, draft, tables)


def _session_view(row: Any) -> SessionView:
    started_at = as_utc(row.s_started_at)
    assert started_at is not None
    return SessionView(
        row.s_id, row.s_chat_id, row.s_variant, dict(row.s_rules or {}), row.s_stake_cents,
        (row.s_seat0, row.s_seat1, row.s_seat2, row.s_seat3), started_at, as_utc(row.s_ended_at),
        row.s_hand_count, row.s_started_by, as_utc(row.s_settled_at), row.s_number,
        tuple(row.s_keepers or ()),
        names=(row.name0, row.name1, row.name2, row.name3),
        totals=(int(row.points0 or 0), int(row.points1 or 0), int(row.points2 or 0),
                int(row.points3 or 0)),
        last_outcome=row.last_outcome, last_live_seq=int(row.last_live_seq or 0),
        standing_hands=int(row.standing or 0), someone_left=bool(row.someone_left))
