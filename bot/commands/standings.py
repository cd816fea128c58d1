"""Where do we stand: /table and /history."""

from __future__ import annotations

from telegram import Update
from telegram.ext import CommandHandler

from ..chat.miniapp import chat_token
from ..chat.scope import ChatScope, require_session, scope
from ..chat.table import history_blocks, table_lines
from ..plumbing.messages import Button, Context, reply, store_of
from ..view.render import esc

HISTORY_PAGE = 5


async def cmd_table(update: Update, context: Context) -> None:
    sc = await scope(update, context)
    session = await require_session(update, context, sc)
    if session is None:
        return
    text = "\n".join(await table_lines(store_of(context), session, sc.t, sc.lang))
    await reply(update, context, text, mini_app_rows(context, sc))


def mini_app_rows(context: Context, sc: ChatScope) -> list[list[Button]]:
    """The page as a Telegram Mini App, opened on this chat's books by its direct link, when
    the bot has a public address and a registered Mini App (README: the Mini App)."""
    settings = context.application.bot_data.get("settings")
    if settings is None or not (settings.public_url and settings.mini_app and context.bot.username):
        return []
    link = (f"https://t.me/{context.bot.username}/{settings.mini_app}"
            f"?startapp={chat_token(settings.token, sc.chat_id)}")
    return [[Button("🀄 " + sc.t("Open the table"), "", url=link)]]


async def cmd_history(update: Update, context: Context) -> None:
    sc = await scope(update, context)
    session = await require_session(update, context, sc)
    if session is None:
        return
    blocks = await history_blocks(store_of(context), session, sc.t, sc.lang, HISTORY_PAGE)
    if not blocks:
        await reply(update, context, esc(sc.t("No hands yet. /hand enters one.")))
        return
    text = "\n\n".join(blocks)
    while len(text) > 3900 and len(blocks) > 1:  # Telegram's 4096 limit, with room to spare
        blocks.pop()
        text = "\n\n".join(blocks)
    await reply(update, context, text)


HANDLERS = [CommandHandler("table", cmd_table), CommandHandler("history", cmd_history)]
