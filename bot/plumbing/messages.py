"""Sending and editing a chat's messages: HTML text with a keyboard of Buttons, surviving
Telegram's refusals (not modified, chat migrated), a text longer than one message sent as
several; and the store the application holds."""

from __future__ import annotations

import html
import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from telegram import CallbackQuery, InlineKeyboardButton, InlineKeyboardMarkup, Message, Update
from telegram.constants import ParseMode
from telegram.error import BadRequest, ChatMigrated
from telegram.ext import ContextTypes, ExtBot

from db import Store

Context = ContextTypes.DEFAULT_TYPE

# Telegram's limit on a message's text, in UTF-16 code units of the text as shown. The HTML is
# measured instead: never shorter than what it shows, so a piece that fits is never refused.
MAX_TEXT = 4096
# A line longer than this is cut between its words (tags and entities stay whole).
_LONG_LINE = MAX_TEXT // 2
_TOKEN = re.compile(r"<[^>]*>|&#?\w+;|\s+|[^<&\s]+|.", re.S)
_TAG = re.compile(r"<(/?)([A-Za-z][\w-]*)[^>]*>")


@dataclass
class Button:
    text: str
    data: str
    style: str | None = None  # Telegram's button colour: "success", "danger" or "primary"
    url: str | None = None  # a link button (the Mini App's) instead of a callback


QUERY_TOO_OLD = "query is too old"  # Telegram's 400 for a query answered after ~15 s


class QueryExpired(BadRequest):
    """Telegram no longer takes the answer to a button tap (the tap waited too long: a slow
    update, a restart). Carries the answer, so the chat can be told it another way."""

    def __init__(self, message: str, text: str | None, show_alert: bool) -> None:
        super().__init__(message)
        self.text, self.show_alert = text, show_alert


class LedgerBot(ExtBot):  # type: ignore[type-arg]
    """The bot, whose answer to an expired tap raises `QueryExpired` (with the answer)."""

    async def answer_callback_query(self, callback_query_id: str, text: str | None = None,
                                    show_alert: bool | None = None, *args: Any,
                                    **kwargs: Any) -> bool:
        try:
            return await super().answer_callback_query(callback_query_id, text, show_alert,
                                                       *args, **kwargs)
        except BadRequest as exc:
            if QUERY_TOO_OLD not in str(exc).lower():
                raise
            raise QueryExpired(exc.message, text, bool(show_alert)) from exc


def store_of(context: Context) -> Store:
    return context.application.bot_data["store"]


def keyboard(rows: Sequence[Sequence[Button]]) -> InlineKeyboardMarkup | None:
    if not rows:
        return None
    return InlineKeyboardMarkup([[InlineKeyboardButton(b.text, url=b.url, style=b.style) if b.url
                                  else InlineKeyboardButton(b.text, callback_data=b.data, style=b.style)
                                  for b in row] for row in rows if row])


def _u16(text: str) -> int:
    return len(text.encode("utf-16-le")) // 2


def _open_after(stack: list[tuple[str, str]], html: str) -> list[tuple[str, str]]:
    """The tags (name, opening tag) still open after `html`, given those open before it."""
    stack = list(stack)
    for m in _TAG.finditer(html):
        name = m.group(2).lower()
        if not m.group(1):
            stack.append((name, m.group(0)))
        elif stack and stack[-1][0] == name:
            stack.pop()
    return stack


def _closing(stack: list[tuple[str, str]]) -> str:
    return "".join(f"</{name}>" for name, _ in reversed(stack))


def split_html(text: str, limit: int = MAX_TEXT) -> list[str]:
    """`text` (Telegram HTML) as pieces that each fit one message: cut at a blank line in the
    last quarter of a piece, else at a line end, a line longer than half a message between its
    words; never inside a tag or an entity. A tag open at a cut is closed before it and opened
    again after it. Pieces showing nothing are left out."""
    if _u16(text) <= limit:
        return [text]
    units: list[str] = []
    for line in text.splitlines(keepends=True):
        if _u16(line) <= _LONG_LINE:
            units.append(line)
            continue
        for token in _TOKEN.findall(line):  # a word longer than a line: its characters
            units.extend([token] if _u16(token) <= _LONG_LINE else list(token))
    pieces: list[str] = []
    piece: list[tuple[str, list[tuple[str, str]]]] = []  # units, each with the tags open before it
    stack: list[tuple[str, str]] = []
    for unit in units:
        after = _open_after(stack, unit)
        body = "".join(u for u, _ in piece)
        if piece and _u16(body + unit + _closing(after)) > limit:
            blank = [i for i, (u, _) in enumerate(piece) if i and not u.strip()]
            cut = blank[-1] if blank and _u16(body) - _u16(
                "".join(u for u, _ in piece[:blank[-1]])) < limit // 4 else len(piece)
            before = piece[cut][1] if cut < len(piece) else stack
            pieces.append("".join(u for u, _ in piece[:cut]) + _closing(before))
            piece = [("".join(tag for _, tag in before), before), *piece[cut + 1:]]
        piece.append((unit, stack))
        stack = after
    pieces.append("".join(u for u, _ in piece) + _closing(stack))
    return [p.strip() for p in pieces if _TAG.sub("", p).strip()]


def one_message(text: str, limit: int = MAX_TEXT) -> str:
    """`text` cut to what one message holds (an edit cannot become several messages): its
    first piece, then "…"."""
    pieces = split_html(text, limit - 2)
    return pieces[0] + "\n…" if len(pieces) > 1 else text


async def send(context: Context, chat_id: int, text: str,
               rows: Sequence[Sequence[Button]] = ()) -> Message:
    """Send HTML; a text longer than one message goes as several (`split_html`), the keyboard
    under the last, which is returned. When the group became a supergroup, move its data and
    send there."""
    pieces = split_html(text)
    for i, piece in enumerate(pieces):
        markup = keyboard(rows) if i == len(pieces) - 1 else None
        try:
            message = await context.bot.send_message(chat_id, piece, parse_mode=ParseMode.HTML,
                                                     reply_markup=markup)
        except ChatMigrated as exc:
            await store_of(context).migrate_chat(chat_id, exc.new_chat_id)
            chat_id = exc.new_chat_id
            message = await context.bot.send_message(chat_id, piece, parse_mode=ParseMode.HTML,
                                                     reply_markup=markup)
    return message


def shows(message: object, text: str, rows: Sequence[Sequence[Button]] = ()) -> bool:
    """The message (as a callback query carries it: as it is now) shows `text` with this
    keyboard already, so an edit would be refused as "not modified". Compares the text as
    shown and the buttons (formatting alone never changes between two screens of the bot)."""
    if not isinstance(message, Message) or message.text is None:
        return False
    plain = html.unescape(_TAG.sub("", one_message(text))).strip()
    return message.text == plain and message.reply_markup == keyboard(rows)


async def edit(query: CallbackQuery, text: str, rows: Sequence[Sequence[Button]] = ()) -> None:
    """Edit the message in place (cut to one message: `one_message`); a screen it shows
    already is not sent again (Telegram refuses it), nor is one that raced to the same."""
    if shows(query.message, text, rows):
        return
    try:
        await query.edit_message_text(one_message(text), parse_mode=ParseMode.HTML,
                                      reply_markup=keyboard(rows))
    except BadRequest as exc:
        if "not modified" not in str(exc).lower():
            raise


async def reply(update: Update, context: Context, text: str,
                rows: Sequence[Sequence[Button]] = ()) -> Message:
    return await send(context, update.effective_chat.id, text, rows)  # type: ignore[union-attr]
