"""Where do we stand: /table and /history."""

from __future__ import annotations

from telegram import Update
from telegram.ext import CommandHandler

from ..chat.miniapp import mini_app_rows
from ..chat.scope import require_session, scope
from ..chat.table import history_blocks, seats_rows, table_lines
from ..plumbing.messages import Context, reply, store_of
from ..view.render import esc

HISTORY_PAGE = 5


async def cmd_table(update: Update, context: Context) -> None:
    sc = await scope(update, context)
    session = await require_session(update, context, sc)
    if session is None:
        return
    text = "\n".join(await table_lines(store_of(context), session, sc.t, sc.lang,
                                       several=sc.several))
    await reply(update, context, text,
                [*seats_rows(sc.t, session), *mini_app_rows(context, sc.chat_id, sc.t)])


async def cmd_history(update: Update, context: Context) -> None:
    sc = await scope(update, context)
    session = await require_session(update, context, sc)
    if session is None:
        return
    blocks = await history_blocks(store_of(context), session, sc.t, sc.lang, HISTORY_PAGE)
    if not blocks:
        await reply(update, context, esc(sc.t("No hands yet. /hand enters one.")))
        return
    if sc.several:  # which table's hands these are
        blocks.insert(0, "<b>" + esc(sc.t("Table {n}", n=session.number)) + "</b>")
    await reply(update, context, "\n\n".join(blocks))  # a long page goes as several messages


HANDLERS = [CommandHandler("table", cmd_table), CommandHandler("history", cmd_history)]
