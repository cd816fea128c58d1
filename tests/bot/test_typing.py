"""While a photo is read (up to ~20 s), the chat shows "typing…", renewed before Telegram lets it
fade (about 5 s), and a failing chat action does not stop the reading."""

from __future__ import annotations

import asyncio

import pytest
from telegram.error import NetworkError

from bot.commands import hands


class Bot:
    def __init__(self, fail: bool = False) -> None:
        self.actions: list[tuple[int, str]] = []
        self.fail = fail

    async def send_chat_action(self, chat_id: int, action: str) -> bool:
        self.actions.append((chat_id, action))
        if self.fail:
            raise NetworkError("down")
        return True


@pytest.mark.parametrize("fail", [False, True])
async def test_typing_is_renewed_while_the_body_runs_and_stops_after(
        monkeypatch: pytest.MonkeyPatch, fail: bool) -> None:
    monkeypatch.setattr(hands, "TYPING_EVERY", 0.05)
    bot = Bot(fail)
    async with hands._typing(bot, 42):
        await asyncio.sleep(0.18)
    sent = len(bot.actions)
    assert sent >= 2 and set(bot.actions) == {(42, "typing")}, bot.actions  # renewed
    await asyncio.sleep(0.15)
    assert len(bot.actions) == sent  # none after the body ended
