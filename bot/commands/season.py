"""The group's season: /season, per person across every session and table of the chat, with a
chart of each person's running net over the sessions (bot/chat/season.py)."""

from __future__ import annotations

import asyncio

from telegram import InputFile, Update
from telegram.constants import ParseMode
from telegram.ext import CommandHandler

from ..chat.scope import scope
from ..chat.season import season, season_chart, season_lines
from ..chat.settle import people_of
from ..plumbing.messages import Context, reply, store_of
from ..view.render import esc


async def cmd_season(update: Update, context: Context) -> None:
    sc = await scope(update, context)
    t, store = sc.t, store_of(context)
    found = await season(store, sc.chat_id)
    people = await people_of(store, sc.chat_id)
    names = {pid: p.name for pid, p in people.items()}
    await reply(update, context, "\n".join(season_lines(t, found, names)))
    png = await asyncio.to_thread(season_chart, t, found, names)
    if png is None:
        return
    caption = esc(t("Each player's running net over {n} sessions", n=len(found.sessions)))
    await context.bot.send_photo(sc.chat_id, InputFile(png, filename="season.png"), caption=caption,
                                 parse_mode=ParseMode.HTML)


HANDLERS = [CommandHandler("season", cmd_season)]
