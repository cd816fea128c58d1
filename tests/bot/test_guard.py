"""The guard before every handler drops edited commands and channel posts outright (Telegram
delivers them if a deployment asks for those update types)."""

from __future__ import annotations

from types import SimpleNamespace

import pytest
from telegram import Update
from telegram.ext import ApplicationHandlerStop

from bot.app import guard

CHAT = {"id": -5, "type": "group", "title": "t"}
USER = {"id": 7, "is_bot": False, "first_name": "Ann"}
UNDO = {"message_id": 3, "date": 0, "chat": CHAT, "from": USER, "text": "/undo",
        "entities": [{"type": "bot_command", "offset": 0, "length": 5}]}


@pytest.mark.parametrize("kind", ["edited_message", "channel_post", "edited_channel_post"])
async def test_edited_commands_and_channel_posts_are_dropped(kind: str) -> None:
    update = Update.de_json({"update_id": 1, kind: UNDO}, None)
    context = SimpleNamespace()  # nothing of it may be needed: no store, no bot
    with pytest.raises(ApplicationHandlerStop):
        await guard(update, context)  # type: ignore[arg-type]


async def test_a_plain_command_passes() -> None:
    update = Update.de_json({"update_id": 1, "message": UNDO}, None)
    context = SimpleNamespace(bot=SimpleNamespace(username="mj_ledger_bot"))
    assert await guard(update, context) is None  # type: ignore[arg-type]
