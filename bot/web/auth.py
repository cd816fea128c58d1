"""Who a request of the Mini App comes from: Telegram's signed initData, checked as Telegram
documents it (https://core.telegram.org/bots/webapps#validating-data-received-via-the-mini-app),
and the chat token the page was opened with, which must be the one signed in the same initData
(its start_param) and one this bot made for that chat. Then the chat's own rules: seated players
and the chat's admins (a private chat: its owner) book hands. Anything else is 403."""

from __future__ import annotations

import hashlib
import hmac
import json
import time
from collections.abc import Awaitable, Callable
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
IsAdmin = Callable[[int, int], Awaitable[bool]]  # (chat id, Telegram user id) → an admin there


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


def telegram_authorize(store: Store, bot_token: str, is_admin: IsAdmin) -> Authorize:
    """The Mini App's Authorize: initData in the X-Telegram-Init-Data header, its start_param
    the chat's token; the user becomes the chat's person (as a message of theirs would)."""

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
        session = await store.running_session(chat_id)
        # at the table: seated, or keeping its score (whoever started it, whom it named)
        seated = session is not None and (person.id in session.seats
                                          or session.keeps_score(person.id))
        private = chat_id == user_id  # the bot's private chat with this user
        admin: bool | None = True if private else None

        async def chat_admin() -> bool:  # asked of Telegram once a request, when it matters
            nonlocal admin
            if admin is None:
                admin = await is_admin(chat_id, user_id)
            return admin

        if not (seated or await chat_admin()):
            # not of this table: reading its books is for its players and admins too
            raise Refused(403, translator(lang)(NOT_YOURS), code="not_yours")
        return Caller(chat_id, person.id, lang, may_book=True, ask_admin=chat_admin)

    return authorize


__all__ = ["HEADER", "Forbidden", "chat_of_token", "chat_token", "check_init_data", "sign_init_data",
           "telegram_authorize"]
