"""Sending and editing a chat's messages: HTML text with a keyboard of Buttons, surviving
Telegram's refusals (not modified, chat migrated); and the store the application holds."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from telegram import CallbackQuery, InlineKeyboardButton, InlineKeyboardMarkup, Message, Update
from telegram.constants import ParseMode
from telegram.error import BadRequest, ChatMigrated
from telegram.ext import ContextTypes

from db import Store

Context = ContextTypes.DEFAULT_TYPE


@dataclass
class Button:
    text: str
    data: str
    style: str | None = None  # Telegram's button colour: "success", "danger" or "primary"


def store_of(context: Context) -> Store:
    return context.application.bot_data["store"]


def keyboard(rows: Sequence[Sequence[Button]]) -> InlineKeyboardMarkup | None:
    if not rows:
        return None
    return InlineKeyboardMarkup([[InlineKeyboardButton(b.text, callback_data=b.data, style=b.style)
                                  for b in row] for row in rows if row])


async def send(context: Context, chat_id: int, text: str,
               rows: Sequence[Sequence[Button]] = ()) -> Message:
    """Send HTML; when the group became a supergroup, move its data and send there."""
    try:
        return await context.bot.send_message(chat_id, text, parse_mode=ParseMode.HTML,
                                              reply_markup=keyboard(rows))
    except ChatMigrated as exc:
        await store_of(context).migrate_chat(chat_id, exc.new_chat_id)
        return await context.bot.send_message(exc.new_chat_id, text, parse_mode=ParseMode.HTML,
                                              reply_markup=keyboard(rows))


async def edit(query: CallbackQuery, text: str, rows: Sequence[Sequence[Button]] = ()) -> None:
    """Edit the message in place; an unchanged screen is not an error."""
    try:
        await query.edit_message_text(text, parse_mode=ParseMode.HTML, reply_markup=keyboard(rows))
    except BadRequest as exc:
        if "not modified" not in str(exc).lower():
            raise


async def reply(update: Update, context: Context, text: str,
                rows: Sequence[Sequence[Button]] = ()) -> Message:
    return await send(context, update.effective_chat.id, text, rows)  # type: ignore[union-attr]
