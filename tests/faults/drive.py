"""Every command and every button of a chat, driven while a fault is on; what each got back."""

from __future__ import annotations

import re
import sqlite3
from dataclasses import dataclass
from typing import Any

from sqlalchemy import select

from bot.app import BUSY, FAILED, UNAVAILABLE
from bot.view.i18n import translator
from db.config import make_engine
from db.models import Base
from tests.fake_telegram import FakeTelegram
from tests.fake_telegram.models import StoredMessage
from tests.photo.render import Scene, render

from .conftest import Chat, people

CJK = re.compile(r"[\u4e00-\u9fff]")
# a winning Guiyang hand as a phone would photograph it (the detector reads it in under a second)
HAND = ("1m", "2m", "3m", "4m", "5m", "6m", "7m", "8m", "9m", "1s", "1s", "5s", "5s", "5s")
PHOTO_CAPTION = "/hu 1 zimo"
# the photo handler (bot/commands/hands.py hu_photo), both ways in: a photo captioned /hu, and /hu
# answering a photo already in the chat (posted by `prepare`)
PHOTO_COMMANDS = [f"photo {PHOTO_CAPTION}", "/hu answering a photo"]


def hand_photo() -> bytes:
    return render(Scene(HAND))


def commands(chat: Chat) -> list[str]:
    """Every command of the bot's menu (and /start), with arguments that make it do its work."""
    payee = chat.people[1].get("username", "x")
    return ["/start", "/help", "/new luzhou", "/hand", "/hu 1 zimo", "/table", "/history",
            "/undo", "/guest Zed", "/stake 2", "/rules", "/lang", "/settle",
            f"/paid @{payee} 5", "/stats", "/chart", "/import", "/end",
            *PHOTO_COMMANDS, "/export"]  # last: it answers with two documents


@dataclass
class Answer:
    what: str  # the command, or "button <data>"
    text: str  # the message text, caption or callback answer ("" for a bare document)
    alert: bool = False


async def prepare(chat: Chat) -> None:
    """A session with four players, one hand recorded, a wizard open, and the screens with
    buttons (/lang, /rules) posted: everything the fault run presses."""
    await chat.seat_everyone("guiyang")  # one self-draw is a whole hand
    await chat.say(chat.people[0], "/hu 0 zimo")
    preview = chat.last()
    confirm = next((d for d in preview.callback_datas if d.endswith(":ok")), None)
    assert confirm is not None, preview.button_labels
    answer = await chat.answered(await chat.press(chat.people[0], preview.message_id, confirm))
    assert not answer.get("show_alert"), answer
    await chat.say(chat.people[0], "/hand")
    await open_tile_keyboard(chat, chat.last().message_id)
    # a photo of a hand, no caption: the bot says nothing; /hu will answer it
    await chat.tg.send_photo(chat.chat, chat.people[0], hand_photo())
    for command in ("/lang", "/rules"):
        await chat.say(chat.people[0], command)


def posted_photo(chat: Chat) -> StoredMessage:
    """The photo `prepare` posted (a user's photo without caption)."""
    return next(m for m in reversed(chat.tg.messages(chat.id, include_users=True))
                if "photo" in m.media and not m.from_bot and not m.caption)


async def send_command(chat: Chat, user: dict[str, Any], command: str) -> int:
    """Send a command (one of PHOTO_COMMANDS: the photo way); the mark for `answer_after`."""
    mark = len(chat.tg.requests)
    if command == f"photo {PHOTO_CAPTION}":
        await chat.tg.send_photo(chat.chat, user, hand_photo(), caption=PHOTO_CAPTION)
    elif command == "/hu answering a photo":
        await chat.tg.send_message(chat.chat, user, "/hu", reply_to=posted_photo(chat).message_id)
    else:
        await chat.tg.send_message(chat.chat, user, command)
    return mark


async def open_tile_keyboard(chat: Chat, wizard_id: int) -> None:
    """On the /hand wizard: South self-draws, then "Enter tiles" (its keys are pressed too)."""
    for op in (":wz:1", ":kt:0"):
        datas = chat.tg.message(chat.id, wizard_id).callback_datas
        data = next(d for d in datas if d.startswith("h:") and d.endswith(op))
        answer = await chat.answered(await chat.press(chat.people[0], wizard_id, data))
        assert not answer.get("show_alert"), answer
    assert any(d.startswith("k:") for d in chat.tg.message(chat.id, wizard_id).callback_datas)


async def every_command(chat: Chat, user: dict[str, Any]) -> list[Answer]:
    """Send each command in turn and wait for the bot's answer to it."""
    answers = []
    for command in commands(chat):
        req = await chat.answer_after(await send_command(chat, user, command))
        answers.append(Answer(command, str(req.params.get("text") or req.params.get("caption") or "")))
    return answers


async def photos_work_again(chat: Chat, sender: dict[str, Any]) -> None:
    """Both ways into the photo handler open the tile keyboard with what the photo shows."""
    for command in PHOTO_COMMANDS:
        answer = await chat.answer_after(await send_command(chat, sender, command))
        assert "tiles read from the photo" in answer.params["text"], (command, answer.params)


async def every_button(chat: Chat, user: dict[str, Any], per_message: int = 4) -> list[Answer]:
    """Press buttons of every message with a keyboard (the first few of each, and Join)."""
    answers = []
    for message in list(chat.tg.messages(chat.id)):
        datas = list(dict.fromkeys(message.callback_datas))
        chosen = datas[:per_message] + [d for d in datas[per_message:] if d.endswith(":j")]
        for data in chosen:
            if chat.id not in chat.tg._messages or message.message_id not in chat.tg._messages[chat.id]:
                break  # the message went away (a replaced wizard)
            answer = await chat.answered(await chat.press(user, message.message_id, data))
            answers.append(Answer(f"button {data}", str(answer.get("text") or ""),
                                  bool(answer.get("show_alert"))))
    return answers


async def drive(chat: Chat, sender: dict[str, Any]) -> list[Answer]:
    return [*await every_command(chat, sender), *await every_button(chat, sender)]


async def three_chats(tg: FakeTelegram) -> list[tuple[Chat, str, dict[str, Any]]]:
    """A chat per language, with a session, a hand and screens with buttons. The one who then
    drives it is seated, but Telegram says they speak another language: answers in the chat's
    language show the chat's setting was used."""
    out = []
    for n, (lang, other) in enumerate([("zh-Hans", "en"), ("zh-Hant", "en"), ("en", "zh-hans")]):
        members = people(tg, 400 + 10 * n, lang)
        members[3]["language_code"] = other
        chat = Chat(tg, tg.group(f"chat {lang}"), members)
        await prepare(chat)
        out.append((chat, lang, members[3]))
    return out


def fault_texts(lang: str) -> dict[str, str]:
    t = translator(lang)
    return {"busy": t(BUSY), "unavailable": t(UNAVAILABLE), "failed": t(FAILED)}


def check_language(answers: list[Answer], lang: str) -> None:
    """Every answer with text is in the chat's language; none is the generic failure."""
    failed = translator(lang)(FAILED)
    for a in answers:
        assert a.text != failed and "Something went wrong" not in a.text, a
        if lang != "en" and a.text:
            assert CJK.search(a.text), f"not in {lang}: {a}"


def snapshot(sqlite_path: str) -> dict[str, list[tuple]]:
    """Every row of every table (a SQLite file), for comparing before and after a fault."""
    with sqlite3.connect(sqlite_path) as conn:
        tables = [r[0] for r in conn.execute(
            "SELECT name FROM sqlite_master WHERE type='table' AND name NOT LIKE 'sqlite_%'")]
        return {t: sorted(conn.execute(f'SELECT * FROM "{t}"').fetchall(), key=repr) for t in tables}


async def db_snapshot(url: str) -> dict[str, list[tuple]]:
    """Every row of every table of the bot's schema (any backend), for before/after checks."""
    engine = make_engine(url)
    try:
        async with engine.connect() as conn:
            return {table.name: sorted((tuple(r) for r in await conn.execute(select(table))), key=repr)
                    for table in Base.metadata.sorted_tables}
    finally:
        await engine.dispose()
