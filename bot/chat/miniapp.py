"""A chat's token for the Mini App's direct link (?startapp=…): the chat id and a MAC of it
with a key derived from the bot token, so nobody without the token can make one for a chat."""

from __future__ import annotations

import base64
import hashlib
import hmac
import re

from ..plumbing.messages import Button, Context
from ..view.i18n import Translator

_TOKEN = re.compile(r"([mp])(\d{1,20})_([A-Za-z0-9_-]{22})")


class Forbidden(Exception):
    """initData or a chat token that does not hold (why, for the log; the page only gets 403)."""


def _mac(key: bytes, msg: str) -> bytes:
    return hmac.new(key, msg.encode(), hashlib.sha256).digest()


def chat_token(bot_token: str, chat_id: int) -> str:
    """The chat's token for the Mini App's link (?startapp=…): the chat id and a MAC of it
    with a key derived from the bot token, so nobody without the token can make one."""
    mac = _mac(_mac(b"MiniAppChat", bot_token), str(chat_id))
    tail = base64.urlsafe_b64encode(mac).decode()[:22]
    return f"{'m' if chat_id < 0 else 'p'}{abs(chat_id)}_{tail}"


def chat_of_token(bot_token: str, token: str) -> int:
    match = _TOKEN.fullmatch(token)
    if match is None:
        raise Forbidden("not a chat token")
    chat_id = int(match.group(2)) * (-1 if match.group(1) == "m" else 1)
    if not hmac.compare_digest(chat_token(bot_token, chat_id).encode(), token.encode()):
        raise Forbidden("a chat token this bot did not make")
    return chat_id


def mini_app_link(context: Context, chat_id: int) -> str | None:
    """The Mini App's direct link opening this chat's books, when the bot has a public address
    and a registered Mini App (docs/page.md: the Mini App); else None."""
    settings = context.application.bot_data.get("settings")
    if settings is None or not (settings.public_url and settings.mini_app and context.bot.username):
        return None
    return (f"https://t.me/{context.bot.username}/{settings.mini_app}"
            f"?startapp={chat_token(settings.token, chat_id)}")


def mini_app_rows(context: Context, chat_id: int, t: Translator) -> list[list[Button]]:
    """A URL button row opening the page on this chat's books (none when not configured)."""
    link = mini_app_link(context, chat_id)
    return [[Button("🀄 " + t("Open the table"), "", url=link)]] if link else []
