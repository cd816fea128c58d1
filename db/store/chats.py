"""Chats and people: a chat's settings, its migration to a supergroup, users and guests."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from sqlalchemy import delete, func, select, update
from sqlalchemy.ext.asyncio import AsyncSession

from .. import models as M
from .. import views
from ..domain import (
    Chat,
    Person,
    StoreError,
)
from .core import (
    PERSON_REFS,
    StoreCore,
)
from .rows import (
    chat_of,
    clean_name,
    json_copy,
    person_of,
    seats_of,
)


class ChatsMixin(StoreCore):
    async def ensure_chat(self, chat_id: int, *, language: str | None = None) -> Chat:
        """The chat, created (with `language`) when it is new; an existing chat is unchanged."""
        async with self._read() as s:
            row = await s.get(M.Chat, chat_id)
            if row is not None:
                return chat_of(row)

        async def write(s: AsyncSession) -> Chat:
            await self._ensure_chat_row(s, chat_id, language)
            return chat_of(await self._locked_chat(s, chat_id))

        return await self._write(write)

    async def set_chat_language(self, chat_id: int, lang: str | None) -> Chat:
        """Set the chat's language (created if new)."""

        async def write(s: AsyncSession) -> Chat:
            await self._ensure_chat_row(s, chat_id)
            row = await self._locked_chat(s, chat_id)
            row.language = lang
            return chat_of(row)

        return await self._write(write)

    async def set_house_rules(self, chat_id: int, variant: str, rules: dict[str, Any]) -> Chat:
        """Replace the chat's house rules for one variant (what new sessions start with)."""
        rules = json_copy(rules, "house rules")

        async def write(s: AsyncSession) -> Chat:
            await self._ensure_chat_row(s, chat_id)
            row = await self._locked_chat(s, chat_id)
            row.house_rules = {**(row.house_rules or {}), variant: rules}  # a new dict: saved
            return chat_of(row)

        return await self._write(write)

    async def migrate_chat(self, old_chat_id: int, new_chat_id: int) -> Chat:
        """A group became a supergroup: everything of the old chat id moves to the new one —
        sessions, drafts, payments, guests, language and house rules (the old chat's choices
        win over the defaults the new id may have got). Idempotent. Running sessions of both
        ids become the new chat's tables, except where one person sits at a running table on
        each side: of those two, the one with fewer hands is ended (it keeps its hands), as
        one person plays at one table. Returns the new chat; the old one stays, pointing at it
        (`migrated_to`)."""
        if old_chat_id == new_chat_id:
            return await self.ensure_chat(new_chat_id)

        async def write(s: AsyncSession) -> Chat:
            await self._ensure_chat_row(s, new_chat_id)
            old = await self._locked_chat(s, old_chat_id, missing_ok=True)
            new = await self._locked_chat(s, new_chat_id)
            if old is None:
                return chat_of(new)
            if old.migrated_to not in (None, new_chat_id):
                raise StoreError(f"chat {old_chat_id} already moved to chat {old.migrated_to}")
            new.language = old.language or new.language
            new.house_rules = {**(new.house_rules or {}), **(old.house_rules or {})}
            sides = [await self._running_ids(s, chat) for chat in (old_chat_id, new_chat_id)]
            # The old chat's sessions keep their numbers; any the new id began meanwhile follow.
            moved = (await s.execute(select(func.max(M.Session.number))
                                     .where(M.Session.chat_id == old_chat_id))).scalar() or 0
            for step in (-M.Session.number, moved - M.Session.number):  # unique at every row
                await s.execute(update(M.Session).where(M.Session.chat_id == new_chat_id)
                                .values(number=step))
            await s.execute(update(M.Session).where(M.Session.chat_id == old_chat_id)
                            .values(chat_id=new_chat_id))
            await s.execute(update(M.Payment).where(M.Payment.chat_id == old_chat_id)
                            .values(chat_id=new_chat_id))
            # A message id the new chat already uses keeps its own draft.
            taken = select(M.Draft.message_id).where(M.Draft.chat_id == new_chat_id)
            await s.execute(delete(M.Draft).where(M.Draft.chat_id == old_chat_id,
                                                  M.Draft.message_id.in_(taken)))
            await s.execute(update(M.Draft).where(M.Draft.chat_id == old_chat_id)
                            .values(chat_id=new_chat_id))
            await self._move_guests(s, old_chat_id, new_chat_id)
            await self._end_shared_tables(s, *sides)  # guests merged: one person, one id
            old.migrated_to = new_chat_id
            return chat_of(new)

        return await self._write(write)

    async def chat_context(self, chat_id: int, *, language: str | None = None,
                           telegram_id: int | None = None, name: str | None = None,
                           username: str | None = None, language_code: str | None = None,
                           message_id: int | None = None) -> views.ChatContext:
        """What an update needs first, in one read: the chat (created with `language` when
        new), the sender (a Telegram user, created or brought up to date when `telegram_id`
        and `name` are given), the running session with seat names, totals and the last
        live hand's outcome, and with `message_id` the draft on that message of the chat.
        Writes only when something is new or changed."""
        async with self._read() as s:
            found = await views.chat_context(s, chat_id, telegram_id, message_id)
        stale = False
        if found.chat is None:
            await self.ensure_chat(chat_id, language=language)
        if telegram_id is not None and name is not None:
            person = found.person
            if person is None or (person.name, person.username, person.language_code) != (
                    clean_name(name), username, language_code):
                await self.upsert_user(telegram_id, name, username=username,
                                       language_code=language_code)
                stale = True
        if found.chat is None or stale:  # read again: what was written is part of the picture
            async with self._read() as s:
                found = await views.chat_context(s, chat_id, telegram_id, message_id)
        return found

    async def answer_once(self, chat_id: int, message_id: int) -> bool:
        """True the first time a question of the bot (a message whose buttons each run a
        command once: "which table?") is answered, False after, on any worker. Kept among the
        handled updates under the message's negative id (Telegram's update ids are positive)
        and pruned with them."""

        async def write(s: AsyncSession) -> bool:
            row = (await s.execute(self._insert(M.HandledUpdate)
                                   .values(update_id=-message_id, chat_id=chat_id,
                                           handled_at=M.utcnow())
                                   .on_conflict_do_nothing()
                                   .returning(M.HandledUpdate.update_id))).first()
            return row is not None

        return await self._write(write, immediate=False)

    async def upsert_user(self, telegram_id: int, name: str, *, username: str | None = None,
                          language_code: str | None = None) -> Person:
        """The person for a Telegram user, created or brought up to date (name, username,
        language code)."""
        name = clean_name(name)
        async with self._read() as s:
            row = await self._user_row(s, telegram_id)
            if row is not None and (row.name, row.username, row.language_code) == (
                    name, username, language_code):
                return person_of(row)  # nothing changed: no write (this runs on every update)

        async def write(s: AsyncSession) -> Person:
            values = {"name": name, "username": username, "language_code": language_code,
                      "updated_at": M.utcnow()}
            await s.execute(self._insert(M.Person)
                            .values(telegram_id=telegram_id, created_at=M.utcnow(), **values)
                            .on_conflict_do_update(index_elements=[M.Person.telegram_id], set_=values))
            row = await self._user_row(s, telegram_id)
            assert row is not None
            return person_of(row)

        return await self._write(write)

    async def add_guest(self, chat_id: int, name: str) -> Person:
        """A named guest (no Telegram account) of the chat; the same name (ignoring case and
        extra spaces) gives the same guest."""
        name = clean_name(name)
        key = name.casefold()

        async def find(s: AsyncSession) -> M.Person | None:
            return (await s.execute(select(M.Person).where(
                M.Person.guest_chat_id == chat_id, M.Person.guest_key == key))).scalar_one_or_none()

        async with self._read() as s:
            row = await find(s)
            if row is not None:
                return person_of(row)

        async def write(s: AsyncSession) -> Person:
            await self._ensure_chat_row(s, chat_id)
            await s.execute(self._insert(M.Person)
                            .values(name=name, guest_chat_id=chat_id, guest_key=key,
                                    created_at=M.utcnow(), updated_at=M.utcnow())
                            .on_conflict_do_nothing(index_elements=[M.Person.guest_chat_id,
                                                                    M.Person.guest_key]))
            row = await find(s)
            assert row is not None
            return person_of(row)

        return await self._write(write)

    async def person_by_username(self, username: str) -> Person | None:
        """The Telegram user with this @username (ignoring case), if the bot has seen them."""
        async with self._read() as s:
            rows = list((await s.execute(select(M.Person).where(
                func.lower(M.Person.username) == username.lstrip("@").lower(),
                M.Person.telegram_id.is_not(None)))).scalars())
            return person_of(rows[0]) if len(rows) == 1 else None

    async def _guest_id(self, s: AsyncSession, chat_id: int, name: str) -> int:
        name = clean_name(name)
        key = name.casefold()
        await s.execute(self._insert(M.Person)
                        .values(name=name, guest_chat_id=chat_id, guest_key=key,
                                created_at=M.utcnow(), updated_at=M.utcnow())
                        .on_conflict_do_nothing(index_elements=[M.Person.guest_chat_id,
                                                                M.Person.guest_key]))
        pid = await s.scalar(select(M.Person.id).where(M.Person.guest_chat_id == chat_id,
                                                       M.Person.guest_key == key))
        assert pid is not None
        return int(pid)

    async def get_person(self, person_id: int) -> Person:
        """The person with this id (`NotFound` if none)."""
        async with self._read() as s:
            return person_of(await self._person_row(s, person_id))

    async def get_people(self, person_ids: Iterable[int]) -> dict[int, Person]:
        """The people with these ids, in one read (ids not found are left out)."""
        ids = sorted(set(person_ids))
        if not ids:
            return {}
        async with self._read() as s:
            rows = (await s.execute(select(M.Person).where(M.Person.id.in_(ids)))).scalars()
            return {row.id: person_of(row) for row in rows}

    async def _running_ids(self, s: AsyncSession, chat_id: int) -> list[int]:
        return list((await s.execute(select(M.Session.id).where(
            M.Session.chat_id == chat_id, M.Session.ended_at.is_(None))
            .with_for_update())).scalars())

    async def _end_shared_tables(self, s: AsyncSession, old_ids: list[int], new_ids: list[int]) -> None:
        """Of a running table from each side with a person in common, end the one with fewer
        hands; on a tie the new chat's (the old one was there first)."""
        if not old_ids or not new_ids:
            return
        rows = {r.id: r for r in (await s.execute(select(M.Session).where(
            M.Session.id.in_(old_ids + new_ids)).execution_options(populate_existing=True)))
            .scalars()}
        for a in (rows[i] for i in old_ids):
            for b in (rows[i] for i in new_ids):
                shared = {*seats_of(a)} & {*seats_of(b)} - {None}
                if shared and a.ended_at is None and b.ended_at is None:
                    loser = min((a, b), key=lambda r: (r.hand_count, r.id in old_ids))
                    loser.ended_at = M.utcnow()
        await s.flush()

    async def _move_guests(self, s: AsyncSession, old_chat_id: int, new_chat_id: int) -> None:
        guests = (await s.execute(select(M.Person).where(M.Person.guest_chat_id == old_chat_id))).scalars()
        for guest in list(guests):
            twin = (await s.execute(select(M.Person).where(
                M.Person.guest_chat_id == new_chat_id,
                M.Person.guest_key == guest.guest_key))).scalar_one_or_none()
            if twin is None:
                guest.guest_chat_id = new_chat_id
                continue
            # The same guest name in both chats is one person: keep the new chat's.
            for model, column in PERSON_REFS:
                await s.execute(update(model).where(getattr(model, column) == guest.id)
                                .values({column: twin.id}))
            await s.delete(guest)
        await s.flush()
