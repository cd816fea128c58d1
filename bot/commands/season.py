"""The group's season: /season, per person across every session and table of the chat, with a
chart of each person's running net over the sessions (bot/chat/season.py)."""

from __future__ import annotations

import asyncio

from telegram import InputFile, Update
from telegram.constants import ParseMode
from telegram.ext import CommandHandler

from db import without_bidi_controls

from ..chat.scope import scope
from ..chat.season import season, season_lines, season_series
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
    if len(found.sessions) < 2:
        return  # one evening's lines are /chart's
    series, staked = season_series(found, {pid: without_bidi_controls(n) for pid, n in names.items()})
    chart = {n: [c / 100 for c in line] for n, line in series.items()}  # money, in whole units
    from ..view.charts import render_balance_chart  # matplotlib loads with the first chart

    png = await asyncio.to_thread(render_balance_chart, chart if staked else series, title=t("The season"),
                                  x_label=t("Session"),
                                  y_label=t("Money") if staked else t("points"))
    caption = esc(t("Each player's running net over {n} sessions", n=len(found.sessions)))
    await context.bot.send_photo(sc.chat_id, InputFile(png, filename="season.png"), caption=caption,
                                 parse_mode=ParseMode.HTML)


HANDLERS = [CommandHandler("season", cmd_season)]
