"""Who a request of the Mini App comes from: Telegram's signed initData, checked as Telegram
documents it (https://core.telegram.org/bots/webapps#validating-data-received-via-the-mini-app),
and the chat token the page was opened with, which must be the one signed in the same initData
(its start_param) and one this bot made for that chat. Then the chat's own rules: seated players
and the chat's admins (a private chat: its owner) book hands, and only while they are still in
the chat: a seated player removed from the group is refused, as everyone else is (403).

Who is in the chat is Telegram's to say (getChatMember, through `MemberOf`); `Memberships`
keeps as little of it as the page allows: a request that changes the books (CHANGES) always
asks; a request that only reads may take a "still in the chat" answer up to FRESH_FOR seconds
old, since the page reads at every tile tap and asking Telegram each time would spend a
table's share of the bot's requests on taps; "not in the chat" is never kept, so a player
added back is let in at once. Telegram not answering is 503, never a guess."""

from __future__ import annotations

import hashlib
import hmac
import json
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any
from urllib.parse import parse_qsl, urlencode

from aiohttp import web

from db import Store

from ..chat.miniapp import Forbidden, chat_of_token, chat_token
from ..view.i18n import N_, lang_from_code, translator
from .api import Authorize, Caller, Refused, request_lang

MAX_AGE = 24 * 3600  # seconds: initData older than a day is refused
HEADER = "X-Telegram-Init-Data"
NOT_YOURS = N_("This table's page is for its seated players and the chat's admins: open it with "
               "the button under /table in the chat.")
NOT_IN_CHAT = N_("You are not a member of this chat (any more), so its table is closed to you.")
UNCHECKED = N_("Telegram did not answer who is in this chat; nothing was changed. Try again in a "
               "moment.")
# the API's requests that change the books: who asks is checked with Telegram every time
CHANGES = frozenset({"confirm", "received", "session", "end", "seat"})
FRESH_FOR = 60.0  # seconds a reading request may trust "still in the chat"
KEPT = 10_000  # answers kept at most (the oldest go first)


@dataclass(frozen=True)
class Membership:
    """What Telegram says of a user in a chat: still in it (a member, an admin, its owner, or
    restricted but in it), and an admin or its owner."""

    member: bool
    admin: bool


class Unanswered(Exception):
    """Telegram could not be asked (unreachable, or it asked to wait)."""


MemberOf = Callable[[int, int], Awaitable[Membership]]  # (chat id, Telegram user id), from Telegram


class Memberships:
    """getChatMember's answers, kept as the module's docstring says."""

    def __init__(self, ask: MemberOf, clock: Callable[[], float] = time.monotonic) -> None:
        self._ask = ask
        self._clock = clock
        self._kept: dict[tuple[int, int], tuple[float, Membership]] = {}

    async def of(self, chat_id: int, user_id: int, *, fresh: bool) -> Membership:
        """The user's standing in the chat; `fresh`: asked of Telegram now."""
        key = (chat_id, user_id)
        kept = self._kept.get(key)
        if not fresh and kept is not None and self._clock() - kept[0] < FRESH_FOR:
            return kept[1]
        answer = await self._ask(chat_id, user_id)
        self._kept.pop(key, None)
        if answer.member:
            self._kept[key] = (self._clock(), answer)
            while len(self._kept) > KEPT:
                del self._kept[next(iter(self._kept))]
        return answer


def _mac(key: bytes, msg: str) -> bytes:
    return hmac.new(key, msg.encode(), hashlib.sha256).digest()


def _digest(fields: dict[str, str], bot_token: str) -> str:
    """hex HMAC-SHA256 of the sorted key=value lines, keyed with HMAC-SHA256("WebAppData",
    bot token)."""
    check = "\n".join(f"{k}={v}" for k, v in sorted(fields.items()) if k != "hash")
    return hmac.new(_mac(b"WebAppData", bot_token), check.encode(), hashlib.sha256).hexdigest()


def sign_init_data(fields: dict[str, str], bot_token: str) -> str:
    """initData as Telegram signs it (for the tests' Telegram)."""
    return urlencode({**fields, "hash": _digest(fields, bot_token)})


def check_init_data(init_data: str, bot_token: str, *, now: float | None = None) -> dict[str, str]:
    """The fields of initData signed with this bot's token and at most a day old."""
    try:
        fields = dict(parse_qsl(init_data, keep_blank_values=True, strict_parsing=True))
    except ValueError:
        raise Forbidden("initData is not a query string") from None
    given = fields.pop("hash", "")
    if not hmac.compare_digest(given.encode(), _digest(fields, bot_token).encode()):
        raise Forbidden("initData is not signed with this bot's token")
    try:
        age = (time.time() if now is None else now) - int(fields.get("auth_date", ""))
    except ValueError:
        raise Forbidden("initData has no auth_date") from None
    if not -60 <= age <= MAX_AGE:
        raise Forbidden("initData is older than a day")
    return fields


def telegram_authorize(store: Store, bot_token: str, member_of: MemberOf) -> Authorize:
    """The Mini App's Authorize: initData in the X-Telegram-Init-Data header, its start_param
    the chat's token; the user becomes the chat's person (as a message of theirs would), and
    must still be in the chat (Telegram says so: `member_of`)."""
    memberships = Memberships(member_of)

    async def authorize(request: web.Request, _: dict[str, Any]) -> Caller:
        try:
            fields = check_init_data(request.headers.get(HEADER, ""), bot_token)
            chat_id = chat_of_token(bot_token, fields.get("start_param", ""))
            user = json.loads(fields.get("user", ""))
            user_id = user["id"]
            if not isinstance(user_id, int) or isinstance(user_id, bool):
                raise Forbidden("user id")
        except (Forbidden, ValueError, KeyError, TypeError) as exc:
            raise Refused(403, translator(request_lang(request))(NOT_YOURS), code="not_yours") from exc
        name = " ".join(str(user.get(k) or "") for k in ("first_name", "last_name")).strip()
        person = await store.upsert_user(user_id, name or str(user_id),
                                         username=user.get("username") or None,
                                         language_code=user.get("language_code") or None)
        chat = await store.ensure_chat(chat_id)
        lang = request_lang(request, chat.language or lang_from_code(user.get("language_code")))
        # at one of the chat's running tables: seated, or keeping its score (whoever started
        # it, whom it named); the page then shows theirs
        seated = any(person.id in s.seats or s.keeps_score(person.id)
                     for s in await store.running_sessions(chat_id))
        if chat_id == user_id:  # the bot's private chat with this user: theirs alone
            membership = Membership(member=True, admin=True)
        else:
            changes = request.path.rpartition("/")[2] in CHANGES
            try:
                membership = await memberships.of(chat_id, user_id, fresh=changes)
            except Unanswered:
                raise Refused(503, translator(lang)(UNCHECKED), code="unchecked") from None
        if not membership.member:
            raise Refused(403, translator(lang)(NOT_IN_CHAT), code="not_in_chat")
        if not (seated or membership.admin):
            # not of this table: reading its books is for its players and admins too
            raise Refused(403, translator(lang)(NOT_YOURS), code="not_yours")

        async def chat_admin() -> bool:
            return membership.admin

        return Caller(chat_id, person.id, lang, may_book=True, ask_admin=chat_admin)

    return authorize


__all__ = ["HEADER", "Forbidden", "MemberOf", "Membership", "Memberships", "Unanswered",
           "chat_of_token", "chat_token", "check_init_data", "sign_init_data", "telegram_authorize"]
