"""Hello once, when the bot is added to a group: the three steps to a scored hand, in the
group's language (that of whoever added it, until /lang changes it)."""

from __future__ import annotations

from telegram import ChatMember, Update
from telegram.ext import ChatMemberHandler

from scoring.variant import listed

from ..chat.scope import scope
from ..plumbing.messages import Context, send
from ..view.i18n import N_
from ..view.render import esc, listing

GREETING = N_("""Hello! I keep score at your mahjong table, in three steps:
1. /new {first} (or {others}) starts a session.
2. Each of the four players taps Join.
3. After every hand, /hand enters it in a few taps (or /hu in one line).
/help says more; /lang changes my language.""")
OUT = (ChatMember.LEFT, ChatMember.BANNED)


async def on_added(update: Update, context: Context) -> None:
    change = update.my_chat_member
    if change is None or change.chat.type not in ("group", "supergroup"):
        return
    was, now = change.old_chat_member.status, change.new_chat_member.status
    if was in OUT and now not in OUT:  # added, not promoted or restricted: greet once
        sc = await scope(update, context)
        codes = [v.name for v in listed()]
        await send(context, sc.chat_id, esc(sc.t(GREETING, first=codes[0],
                                                 others=listing(sc.t).join(codes[1:]))))


HANDLERS = [ChatMemberHandler(on_added, ChatMemberHandler.MY_CHAT_MEMBER)]
