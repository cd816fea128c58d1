"""Drafts: the wizard's hand in progress, stored before its message is posted."""

from __future__ import annotations

import uuid
from typing import Any

from sqlalchemy import BigInteger, bindparam, delete, literal, select, update
from sqlalchemy.exc import IntegrityError
from sqlalchemy.ext.asyncio import AsyncSession

from .. import models as M
from ..domain import (
    Draft,
    DraftClosed,
    NotFound,
    StaleDraft,
)
from .core import (
    StoreCore,
)
from .rows import (
    as_utc,
    check_running,
    draft_hand_key,
    draft_of,
    json_copy,
)


class DraftsMixin(StoreCore):
    async def create_draft(self, chat_id: int, *, session_id: int, data: dict[str, Any],
                           placeholder: int | None = None) -> tuple[Draft, list[Draft]]:
        """A new hand entry, stored before its message exists: under a placeholder (negative)
        message id until `attach_draft`, the caller's (the entry's number its buttons name, so
        a tap before the attach finds it) or a random one. The session's other open entries
        are closed in the same transaction; they are returned, so their messages can say so."""
        data = json_copy(data, "draft")
        if placeholder is None:
            placeholder = -(uuid.uuid4().int >> 66) - 1  # 62 bits: never a real message id
        if placeholder >= 0:
            raise ValueError("a draft's placeholder message id is negative")

        async def write(s: AsyncSession) -> tuple[Draft, list[Draft]]:
            if not self._sqlite:  # in turn with confirm_hand (SQLite: the DELETE's write lock)
                await s.execute(_LOCK_SESSION, {"b_session": session_id})
            # Few statements (an entry is opened often): the old entries are deleted and read
            # back in one, the new one is inserted only if the session runs.
            gone = (await s.execute(_CLOSE_SESSION_DRAFTS, {"b_session": session_id})).all()
            old = [Draft(r.chat_id, r.message_id, r.session_id, r.data, r.version,
                         as_utc(r.updated_at) or M.utcnow()) for r in gone]
            now = M.utcnow()
            added = await s.execute(_OPEN_DRAFT, {
                "b_chat": chat_id, "b_message": placeholder, "b_session": session_id,
                "b_data": data, "b_now": now})
            if added.rowcount != 1:
                check_running(await self._locked_session(s, session_id))  # NotFound, SessionEnded
            return Draft(chat_id, placeholder, session_id, data, 1, now), old

        # SQLite: the DELETE, a write reading nothing before, takes the write lock itself, so
        # no BEGIN IMMEDIATE is needed for the reads after it to be current.
        try:
            return await self._write(write, immediate=False)
        except IntegrityError:  # a chat row is missing (a draft in a chat not seen before)
            await self.ensure_chat(chat_id)
            return await self._write(write, immediate=False)

    async def attach_draft(self, draft: Draft, chat_id: int, message_id: int) -> Draft:
        """Move a new draft onto the message that shows it (`chat_id` differs from the
        draft's when the group became a supergroup meanwhile); as it is there now if a tap on
        that message attached it first. `NotFound` if it was closed."""

        async def write(s: AsyncSession) -> Draft:
            result = await s.execute(_ATTACH_DRAFT, {"b_chat": chat_id, "b_old": draft.message_id,
                                                     "b_message": message_id})
            if result.rowcount == 1:
                return Draft(chat_id, message_id, draft.session_id, draft.data, draft.version,
                             draft.updated_at)
            there = await s.get(M.Draft, (chat_id, message_id), populate_existing=True)
            if there is None or there.session_id != draft.session_id:
                raise NotFound("this hand entry was closed meanwhile")
            return draft_of(there)

        return await self._write(write, immediate=False)  # one statement (two if attached)

    async def cancel_draft(self, draft: Draft) -> None:
        """Close a hand entry without recording it, if it is still at `draft.version`.
        `DraftClosed` (with `.hand` when its hand was recorded first), `StaleDraft`."""
        key = draft_hand_key(draft)

        async def write(s: AsyncSession) -> None:
            await self._locked_session(s, draft.session_id)  # in turn with confirm_hand
            current = await s.get(M.Draft, (draft.chat_id, draft.message_id),
                                  populate_existing=True)
            if current is None:
                raise DraftClosed("this hand entry is closed",
                                  await self._hand_by_key(s, key, draft.session_id))
            if current.version != draft.version:
                raise StaleDraft("this hand entry was changed meanwhile")
            await s.delete(current)

        await self._write(write)

    async def save_draft(self, chat_id: int, message_id: int, *, session_id: int,
                         data: dict[str, Any], expected_version: int | None) -> Draft:
        """Save the hand being entered on a message. `expected_version=None` creates it
        (`StaleDraft` if it exists); otherwise it must still be at that version (`StaleDraft`
        if someone saved or deleted it meanwhile). The saved version is one higher."""
        data = json_copy(data, "draft")
        table = M.Draft.__table__

        async def write(s: AsyncSession) -> Draft:
            now = M.utcnow()
            if expected_version is None:
                version = 1
                result = await s.execute(
                    self._insert(table).values(chat_id=chat_id, message_id=message_id,
                                               session_id=session_id, data=data, version=version,
                                               updated_at=now)
                    .on_conflict_do_nothing(index_elements=["chat_id", "message_id"]))
                if result.rowcount != 1:
                    raise StaleDraft("this hand entry already exists")
            else:
                version = expected_version + 1
                result = await s.execute(_SAVE_DRAFT, {
                    "b_chat": chat_id, "b_message": message_id, "b_version": expected_version,
                    "b_session": session_id, "b_data": data, "b_new_version": version,
                    "b_now": now})
                if result.rowcount != 1:
                    raise StaleDraft("this hand entry was changed or closed meanwhile")
            return Draft(chat_id, message_id, session_id, data, version, now)

        # One statement (a tap saves a draft): the foreign keys check the session and the chat.
        try:
            return await self._write(write, immediate=False)
        except IntegrityError:
            async with self._read() as s:
                if await s.get(M.Session, session_id) is None:
                    raise NotFound(f"there is no session {session_id}") from None
            await self.ensure_chat(chat_id)  # a draft in a chat not seen before
            return await self._write(write, immediate=False)

    async def get_draft(self, chat_id: int, message_id: int) -> Draft | None:
        """The draft on this message, if any."""
        async with self._read() as s:
            row = await s.get(M.Draft, (chat_id, message_id))
            return draft_of(row) if row is not None else None

    async def delete_draft(self, chat_id: int, message_id: int) -> bool:
        """Forget the draft on this message; True if there was one."""

        async def write(s: AsyncSession) -> bool:
            result = await s.execute(delete(M.Draft.__table__).where(
                M.Draft.chat_id == chat_id, M.Draft.message_id == message_id))
            return result.rowcount > 0

        return await self._write(write, immediate=False)

    async def drafts_for_session(self, session_id: int) -> list[Draft]:
        """Every open draft of the session, oldest first."""
        async with self._read() as s:
            rows = (await s.execute(select(M.Draft).where(M.Draft.session_id == session_id)
                                    .order_by(M.Draft.updated_at, M.Draft.message_id))).scalars()
            return [draft_of(r) for r in rows]


# Built once (bound parameters): a draft is written on every tap, and building a statement
# costs more than running it.
_DRAFTS, _SESSIONS = M.Draft.__table__, M.Session.__table__
_LOCK_SESSION = select(_SESSIONS.c.id).where(_SESSIONS.c.id == bindparam("b_session")).with_for_update()
_CLOSE_SESSION_DRAFTS = (delete(_DRAFTS).where(_DRAFTS.c.session_id == bindparam("b_session"))
                         .returning(*_DRAFTS.c))
_OPEN_DRAFT = _DRAFTS.insert().from_select(
    ["chat_id", "message_id", "session_id", "data", "version", "updated_at"],
    select(bindparam("b_chat", type_=BigInteger), bindparam("b_message", type_=BigInteger),
           _SESSIONS.c.id, bindparam("b_data", type_=_DRAFTS.c.data.type), literal(1),
           bindparam("b_now", type_=_DRAFTS.c.updated_at.type))
    .where(_SESSIONS.c.id == bindparam("b_session"), _SESSIONS.c.ended_at.is_(None)))
_ATTACH_DRAFT = (update(_DRAFTS)
                 .where(_DRAFTS.c.chat_id == bindparam("b_chat"),
                        _DRAFTS.c.message_id == bindparam("b_old"))
                 .values(message_id=bindparam("b_message")))
_SAVE_DRAFT = (update(_DRAFTS)
               .where(_DRAFTS.c.chat_id == bindparam("b_chat"),
                      _DRAFTS.c.message_id == bindparam("b_message"),
                      _DRAFTS.c.version == bindparam("b_version"))
               .values(session_id=bindparam("b_session"), data=bindparam("b_data"),
                       version=bindparam("b_new_version"), updated_at=bindparam("b_now")))
