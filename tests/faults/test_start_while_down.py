"""The bot starts while its database is down: every update is answered "not available" in the
sender's language (the bot cannot know the chat's yet); once the database answers it is
migrated and the same chats work, in their own language again."""

from __future__ import annotations

import asyncio
import time
from pathlib import Path
from typing import Any

from tests.fake_telegram import FakeTelegram

from .conftest import Chat, PgDatabase, TcpProxy, people
from .drive import db_snapshot, fault_texts

BACK_TIMEOUT = 60.0


async def test_a_bot_started_while_sqlite_cannot_be_opened_answers_and_recovers(
        tg: FakeTelegram, bot_process: Any, tmp_path: Path) -> None:
    folder = tmp_path / "not-yet"
    url = f"sqlite:///{folder / 'ledger.sqlite3'}"
    await bot_process(url)  # starts although the file cannot be created
    user = tg.user(1201, "阿明", "aming", language_code="zh-hant")
    chat = Chat(tg, tg.group("先開機"), [user, *people(tg, 1210)[1:]])
    down = fault_texts("zh-Hant")["unavailable"]
    assert await chat.say(user, "/help") == down
    assert await chat.say(user, "/new luzhou") == down
    assert not folder.exists()
    folder.mkdir()
    await tg.wait_for(lambda: (folder / "ledger.sqlite3").exists(), BACK_TIMEOUT)
    await _until_answered(chat, user, down)
    lobby = await chat.seat_everyone()
    assert "阿明" in lobby.text
    tables = await db_snapshot(url)
    assert len(tables["sessions"]) == 1 and len(tables["chats"]) == 1


async def test_a_bot_started_while_postgres_is_down_answers_and_recovers(
        tg: FakeTelegram, bot_process: Any, pg_proxy: TcpProxy, pg_db: PgDatabase) -> None:
    first = await bot_process(pg_db.proxied)
    chat = Chat(tg, tg.group("重启"), people(tg, 1300, "zh-Hans"))
    lobby = await chat.seat_everyone()
    await first.stop()
    await pg_proxy.cut()
    await bot_process(pg_db.proxied)  # a new process: it knows no chat's language
    stranger = tg.user(1399, "Zoe", "zoe", language_code="en")
    down_en = fault_texts("en")["unavailable"]
    assert await chat.say(stranger, "/table") == down_en
    join = next(d for d in lobby.callback_datas if d.endswith(":j"))
    answer = await chat.answered(await chat.press(stranger, lobby.message_id, join))
    assert answer.get("text") == down_en and answer.get("show_alert")
    await pg_proxy.reopen()
    await _until_answered(chat, chat.people[0], fault_texts("zh-Hans")["unavailable"], down_en)
    table = await chat.say(chat.people[0], "/table")
    assert "阿丽" in table and "局" in table  # the chat's own language again
    tables = await db_snapshot(pg_db.direct)
    assert len(tables["sessions"]) == 1 and len(tables["people"]) == 4  # the stranger never got in


async def _until_answered(chat: Chat, user: dict[str, Any], *unavailable: str) -> None:
    """Ask /help until the answer is not "not available" (the bot migrates within seconds)."""
    deadline = time.monotonic() + BACK_TIMEOUT
    while time.monotonic() < deadline:
        text = await chat.say(user, "/help")
        if text not in unavailable:
            assert "/new" in text
            return
        await asyncio.sleep(0.5)
    raise AssertionError("the bot never came back")
