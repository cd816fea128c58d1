"""The fake Bot API server answers a real python-telegram-bot client the way Telegram would."""

from __future__ import annotations

import asyncio
import datetime as dt
import html
import json
import re
import struct
import zlib
from typing import Any

import aiohttp
import pytest
from aiohttp import web
from telegram import Bot, InlineKeyboardButton, InlineKeyboardMarkup, Update
from telegram.constants import ParseMode
from telegram.error import BadRequest, ChatMigrated, Conflict, Forbidden, RetryAfter
from telegram.ext import ApplicationBuilder, CallbackQueryHandler, CommandHandler, ContextTypes

from tests.fake_telegram import FakeTelegram


def said(words: str) -> str:
    """A `match=` pattern for a Telegram description (PTB re-capitalises descriptions)."""
    return "(?i)" + re.escape(words)


NOT_MODIFIED = said("message is not modified")


async def raw_post(tg: FakeTelegram, method: str, *, json_body: Any = None,
                   data: Any = None) -> tuple[int, dict[str, Any]]:
    async with aiohttp.ClientSession() as session:
        async with session.post(f"{tg.base_url}{tg.token}/{method}", json=json_body, data=data) as resp:
            return resp.status, await resp.json()


def keyboard(*datas: str) -> InlineKeyboardMarkup:
    return InlineKeyboardMarkup([[InlineKeyboardButton(d[:10] or "x", callback_data=d)] for d in datas])


def png(width: int = 3, height: int = 2) -> bytes:
    def chunk(kind: bytes, body: bytes) -> bytes:
        return struct.pack(">I", len(body)) + kind + body + struct.pack(">I", zlib.crc32(kind + body))
    header = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)
    pixels = zlib.compress(b"".join(b"\x00" + b"\xff\x00\x00" * width for _ in range(height)))
    return b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + chunk(b"IDAT", pixels) + chunk(b"IEND", b"")


@pytest.fixture
def table(tg: FakeTelegram) -> dict[str, Any]:
    alice = tg.user(11, "Alice", "alice")
    return {"alice": alice, "group": tg.group("Thursday table")}


# ------------------------------------------------------------------------- basics


async def test_valid_calls_succeed_and_are_recorded(tg: FakeTelegram, bot: Bot, table: dict) -> None:
    assert bot.username == "mj_ledger_bot"
    chat_id = table["group"]["id"]
    sent = await bot.send_message(chat_id, "<b>East</b> wind", parse_mode=ParseMode.HTML,
                                  reply_markup=keyboard("seat:1"))
    assert sent.text == "East wind" and sent.text_html == "<b>East</b> wind"
    assert sent.reply_markup.inline_keyboard[0][0].callback_data == "seat:1"
    edited = await bot.edit_message_text("South wind", chat_id, sent.message_id)
    assert edited.text == "South wind" and edited.reply_markup is None  # no markup: keyboard removed
    assert await bot.set_my_commands([("start", "Start"), ("newhand", "Record a hand")])
    assert [c.command for c in await bot.get_my_commands()] == ["start", "newhand"]
    assert await bot.send_chat_action(chat_id, "typing")
    [stored] = tg.messages(chat_id)
    assert (stored.text, stored.raw_text, stored.edits) == ("South wind", "South wind", 1)
    req = tg.requests_for("sendMessage")[0]
    assert req.params["chat_id"] == chat_id and req.params["reply_markup"]["inline_keyboard"]
    assert [r.method for r in tg.requests] == ["getMe", "sendMessage", "editMessageText", "setMyCommands",
                                               "getMyCommands", "sendChatAction"]


async def test_unknown_method_is_404(tg: FakeTelegram) -> None:
    status, body = await raw_post(tg, "sendMesage", json_body={"chat_id": 1, "text": "x"})
    assert status == 404
    assert body == {"ok": False, "error_code": 404, "description": "Not Found: method not found"}


async def test_wrong_token_is_401(tg: FakeTelegram) -> None:
    async with aiohttp.ClientSession() as session:
        async with session.post(f"{tg.base_url}1:wrong/getMe") as resp:
            assert resp.status == 401


async def test_unknown_missing_and_mistyped_parameters(tg: FakeTelegram, bot: Bot, table: dict) -> None:
    chat_id = table["group"]["id"]
    status, body = await raw_post(tg, "sendMessage", json_body={"chat_id": chat_id, "text": "x", "colour": 1})
    assert status == 400
    assert body["description"] == 'Bad Request: unknown parameter "colour" for method sendMessage'
    with pytest.raises(BadRequest, match=said("unknown parameter")):
        await bot.send_message(chat_id, "x", api_kwargs={"disable_web_preview": True})
    status, body = await raw_post(tg, "sendMessage", data={"chat_id": str(chat_id)})
    assert status == 400 and body["description"] == "Bad Request: message text is empty"
    status, body = await raw_post(tg, "getUpdates", data={"limit": "many"})
    assert status == 400 and "limit" in body["description"]
    status, body = await raw_post(tg, "sendMessage", data={"chat_id": chat_id, "text": "x",
                                                           "disable_notification": "maybe"})
    assert status == 400 and "disable_notification" in body["description"]
    status, body = await raw_post(tg, "sendMessage", data={"chat_id": chat_id, "text": "x",
                                                           "reply_markup": "{not json"})
    assert status == 400 and "can't parse reply keyboard markup JSON object" in body["description"]
    assert not any(r.ok for r in tg.requests if r.method == "sendMessage")


async def test_json_and_form_bodies_both_work(tg: FakeTelegram, table: dict) -> None:
    chat_id = table["group"]["id"]
    markup = {"inline_keyboard": [[{"text": "Join", "callback_data": "join"}]]}
    status, body = await raw_post(tg, "sendMessage", json_body={"chat_id": chat_id, "text": "a",
                                                                "reply_markup": markup})
    assert status == 200 and body["result"]["reply_markup"] == markup
    status, body = await raw_post(tg, "sendMessage", data={"chat_id": str(chat_id), "text": "b",
                                                           "reply_markup": json.dumps(markup)})
    assert status == 200 and body["result"]["reply_markup"] == markup


async def test_unknown_chats_and_users(tg: FakeTelegram, bot: Bot) -> None:
    with pytest.raises(BadRequest, match=said("Chat not found")):
        await bot.send_message(-999, "hello")
    stranger = tg.user(77, "Stranger")
    with pytest.raises(Forbidden, match=said("can't initiate conversation")):
        await bot.send_message(stranger["id"], "hello")
    await tg.send_message(tg.private_chat(stranger), stranger, "hi")
    assert (await bot.send_message(stranger["id"], "hello")).chat.type == "private"


# ------------------------------------------------------------------------- limits


async def test_callback_data_is_at_most_64_bytes(bot: Bot, table: dict) -> None:
    chat_id = table["group"]["id"]
    await bot.send_message(chat_id, "ok", reply_markup=keyboard("x" * 64))
    with pytest.raises(BadRequest, match=said("BUTTON_DATA_INVALID")):
        await bot.send_message(chat_id, "too long", reply_markup=keyboard("x" * 65))
    with pytest.raises(BadRequest, match=said("BUTTON_DATA_INVALID")):
        await bot.send_message(chat_id, "bytes, not characters", reply_markup=keyboard("é" * 33))


async def test_buttons_need_exactly_one_action(tg: FakeTelegram, table: dict) -> None:
    chat_id = table["group"]["id"]
    for button, words in [({"text": "Nothing"}, "Text buttons are unallowed"),
                          ({"text": "Two", "callback_data": "a", "url": "https://x.org"}, "exactly one"),
                          ({"callback_data": "a"}, '"text" of InlineKeyboardButton is required'),
                          ({"text": "Typo", "callbak_data": "a"}, 'unknown field "callbak_data"')]:
        status, body = await raw_post(tg, "sendMessage", json_body={
            "chat_id": chat_id, "text": "x", "reply_markup": {"inline_keyboard": [[button]]}})
        assert status == 400 and words in body["description"], body


async def test_text_length_counts_visible_characters(bot: Bot, table: dict) -> None:
    chat_id = table["group"]["id"]
    assert len((await bot.send_message(chat_id, "x" * 4096)).text) == 4096
    with pytest.raises(BadRequest, match=said("Message is too long")):
        await bot.send_message(chat_id, "x" * 4097)
    rich = "<b>" + "x" * 4000 + "</b>" + "&amp;" * 96  # 4096 visible, 4583 raw
    assert len(rich) > 4096
    sent = await bot.send_message(chat_id, rich, parse_mode=ParseMode.HTML)
    assert len(sent.text) == 4096
    with pytest.raises(BadRequest, match=said("Message is too long")):
        await bot.send_message(chat_id, rich + "x", parse_mode=ParseMode.HTML)
    with pytest.raises(BadRequest, match=said("Message text is empty")):
        await bot.send_message(chat_id, "<b> </b>", parse_mode=ParseMode.HTML)


async def test_html_must_be_escaped(tg: FakeTelegram, bot: Bot, table: dict) -> None:
    chat_id = table["group"]["id"]
    name = "<b>&Bob"
    with pytest.raises(BadRequest, match=said("Can't parse entities")):
        await bot.send_message(chat_id, f"Seated: {name}", parse_mode=ParseMode.HTML)
    assert "can't parse entities" in tg.requests[-1].description
    sent = await bot.send_message(chat_id, f"Seated: <i>{html.escape(name)}</i>", parse_mode=ParseMode.HTML)
    assert sent.text == "Seated: <b>&Bob"
    for bad in ["a < b", "Tom & Jerry", "<b>x</i>", "<span>x</span>", "<blink>x</blink>"]:
        with pytest.raises(BadRequest, match=said("Can't parse entities")):
            await bot.send_message(chat_id, bad, parse_mode=ParseMode.HTML)
    # Without a parse mode nothing is markup.
    assert (await bot.send_message(chat_id, "a < b & c")).text == "a < b & c"


async def test_callback_answer_text_limit(tg: FakeTelegram, bot: Bot, table: dict) -> None:
    chat_id = table["group"]["id"]
    sent = await bot.send_message(chat_id, "pick", reply_markup=keyboard("a"))
    query_id = await tg.press(chat_id, sent.message_id, table["alice"], "a")
    with pytest.raises(BadRequest):
        await bot.answer_callback_query(query_id, "x" * 201)
    assert await bot.answer_callback_query(query_id, "x" * 200)


# ------------------------------------------------------------------------- edits and callbacks


async def test_edits(tg: FakeTelegram, bot: Bot, table: dict) -> None:
    chat_id = table["group"]["id"]
    sent = await bot.send_message(chat_id, "<b>Hand 1</b>", parse_mode=ParseMode.HTML,
                                  reply_markup=keyboard("a", "b"))
    with pytest.raises(BadRequest, match=NOT_MODIFIED):
        await bot.edit_message_text("<strong>Hand 1</strong>", chat_id, sent.message_id,
                                    parse_mode=ParseMode.HTML, reply_markup=keyboard("a", "b"))
    with pytest.raises(BadRequest, match=NOT_MODIFIED):
        await bot.edit_message_reply_markup(chat_id, sent.message_id, reply_markup=keyboard("a", "b"))
    await bot.edit_message_reply_markup(chat_id, sent.message_id, reply_markup=keyboard("a"))
    assert tg.message(chat_id, sent.message_id).callback_datas == ["a"]
    with pytest.raises(BadRequest, match=said("Message to edit not found")):
        await bot.edit_message_text("x", chat_id, sent.message_id + 1)
    other = tg.group("Other table")
    with pytest.raises(BadRequest, match=said("Message to edit not found")):
        await bot.edit_message_text("x", other["id"], sent.message_id)
    user_msg = await tg.send_message(chat_id, table["alice"], "hello")
    with pytest.raises(BadRequest, match=said("Message can't be edited")):
        await bot.edit_message_text("x", chat_id, user_msg.message_id)


async def test_callback_queries_must_be_answered_once(tg: FakeTelegram, bot: Bot, table: dict) -> None:
    chat_id = table["group"]["id"]
    sent = await bot.send_message(chat_id, "pick", reply_markup=keyboard("seat:1", "seat:2"))
    with pytest.raises(LookupError):
        await tg.press(chat_id, sent.message_id, table["alice"], "seat:3")
    first = await tg.press_button(chat_id, sent.message_id, table["alice"], "seat:2")
    forged = await tg.press(chat_id, sent.message_id, table["alice"], "seat:9", check=False)
    assert tg.unanswered_callbacks() == [first, forged]
    with pytest.raises(AssertionError):
        tg.assert_callbacks_answered()
    await bot.answer_callback_query(first, "Seated")
    with pytest.raises(BadRequest, match=said("Query is too old")):
        await bot.answer_callback_query(first)
    with pytest.raises(BadRequest, match=said("Query is too old")):
        await bot.answer_callback_query("12345")
    await bot.answer_callback_query(forged)
    tg.assert_callbacks_answered()
    assert tg.callback_answers[first]["text"] == "Seated"
    updates = await bot.get_updates()
    assert [u.callback_query.data for u in updates] == ["seat:2", "seat:9"]


# ------------------------------------------------------------------------- failures on demand


@pytest.mark.filterwarnings("ignore::telegram.warnings.PTBDeprecationWarning")  # retry_after's future type
async def test_429_surfaces_as_retry_after(tg: FakeTelegram, bot: Bot, table: dict) -> None:
    tg.fail_next("sendMessage", retry_after=3)
    with pytest.raises(RetryAfter) as info:
        await bot.send_message(table["group"]["id"], "x")
    assert info.value.retry_after in (3, dt.timedelta(seconds=3))
    assert tg.requests[-1].response == {"ok": False, "error_code": 429,
                                        "description": "Too Many Requests: retry after 3",
                                        "parameters": {"retry_after": 3}}
    assert (await bot.send_message(table["group"]["id"], "x")).text == "x"


@pytest.mark.filterwarnings("ignore::telegram.warnings.PTBDeprecationWarning")  # retry_after's future type
async def test_group_flood_limit(tg: FakeTelegram, bot: Bot, table: dict) -> None:
    group, other = table["group"]["id"], tg.group("Friday table")["id"]
    private = tg.private_chat(table["alice"])
    await tg.send_message(private, table["alice"], "hello")  # the chat exists once she writes
    await bot.send_message(group, "before")  # not limited yet: does not count
    tg.limit_group_messages(per_minute=3, retry_after=1)
    for i in range(3):
        await bot.send_message(group, f"m{i}")
    with pytest.raises(RetryAfter) as info:
        await bot.send_photo(group, png(4, 4))
    assert info.value.retry_after in (1, dt.timedelta(seconds=1))
    with pytest.raises(RetryAfter):  # the penalty holds for every send to that group
        await bot.send_message(group, "again")
    for _ in range(3):  # other chats are not held up, private chats have no such limit
        await bot.send_message(other, "elsewhere")
    with pytest.raises(RetryAfter):
        await bot.send_message(other, "too many")
    for _ in range(5):
        await bot.send_message(private["id"], "private")
    last = tg.last_message(group).message_id
    edited = await bot.edit_message_text("edited", chat_id=group, message_id=last)
    assert edited.text == "edited"  # edits are not message sends
    await asyncio.sleep(1.05)
    assert (await bot.send_message(group, "after")).text == "after"  # waited out: count afresh
    assert [m.text for m in tg.messages(group)][-1] == "after"
    assert len([r for r in tg.requests if r.status == 429]) == 3

    tg.limit_group_messages(per_minute=2)  # Telegram's way: until the oldest is a minute old
    await bot.send_message(group, "1")
    await bot.send_message(group, "2")
    with pytest.raises(RetryAfter) as info:
        await bot.send_message(group, "3")
    assert info.value.retry_after in (60, dt.timedelta(seconds=60))


async def test_chat_migration(tg: FakeTelegram, bot: Bot, table: dict) -> None:
    old = table["group"]["id"]
    await tg.send_message(old, table["alice"], "hi")
    new = await tg.migrate_chat(old)
    with pytest.raises(ChatMigrated) as info:
        await bot.send_message(old, "x")
    assert info.value.new_chat_id == new
    assert tg.requests[-1].response["parameters"] == {"migrate_to_chat_id": new}
    updates = await bot.get_updates()
    service = [u.message for u in updates][1:]
    assert service[0].migrate_to_chat_id == new and service[0].chat.id == old
    assert service[1].migrate_from_chat_id == old and service[1].chat.type == "supergroup"
    assert (await bot.send_message(new, "moved")).chat.id == new


async def test_admins_back_get_chat_member(tg: FakeTelegram, bot: Bot, table: dict) -> None:
    chat_id = table["group"]["id"]
    bob = tg.user(12, "Bob")
    await tg.send_message(chat_id, bob, "hi")
    tg.user(13, "Carol")
    tg.set_admins(chat_id, [table["alice"]], creator=13)
    assert (await bot.get_chat_member(chat_id, 11)).status == "administrator"
    assert (await bot.get_chat_member(chat_id, 12)).status == "member"
    assert (await bot.get_chat_member(chat_id, 13)).status == "creator"
    assert {m.user.id for m in await bot.get_chat_administrators(chat_id)} == {11, 13}
    assert (await bot.get_chat(chat_id)).title == "Thursday table"


async def test_members_leave_are_kicked_and_come_back(tg: FakeTelegram, bot: Bot, table: dict) -> None:
    chat_id = table["group"]["id"]
    bob, carol = tg.user(12, "Bob"), tg.user(13, "Carol")
    for user in (bob, carol):
        await tg.send_message(chat_id, user, "hi")
    tg.remove_member(chat_id, bob)
    tg.remove_member(chat_id, carol, banned=True)
    assert (await bot.get_chat_member(chat_id, 12)).status == "left"
    kicked = await bot.get_chat_member(chat_id, 13)
    assert kicked.status == "kicked" and kicked.user.id == 13
    tg.add_member(chat_id, carol, restricted=True)
    restricted = await bot.get_chat_member(chat_id, 13)
    assert restricted.status == "restricted" and restricted.is_member
    assert not restricted.can_send_messages
    tg.add_member(chat_id, bob)
    assert (await bot.get_chat_member(chat_id, 12)).status == "member"


# ------------------------------------------------------------------------- updates


async def test_long_poll_returns_an_injected_message(tg: FakeTelegram, bot: Bot, table: dict) -> None:
    loop = asyncio.get_running_loop()
    started = loop.time()
    poll = asyncio.create_task(bot.get_updates(timeout=5))
    await asyncio.sleep(0.2)
    assert not poll.done()
    await tg.send_message(table["group"], table["alice"], "/newhand@mj_ledger_bot now")
    [update] = await asyncio.wait_for(poll, 2)
    assert loop.time() - started < 2
    assert update.message.text == "/newhand@mj_ledger_bot now"
    assert update.message.entities[0].type == "bot_command" and update.message.entities[0].length == 22
    # Unconfirmed until an offset past it; then gone.
    assert [u.update_id for u in await bot.get_updates()] == [update.update_id]
    assert await bot.get_updates(offset=update.update_id + 1) == ()


async def test_allowed_updates_filter(tg: FakeTelegram, bot: Bot, table: dict) -> None:
    sent = await bot.send_message(table["group"]["id"], "pick", reply_markup=keyboard("a"))
    await tg.press(table["group"]["id"], sent.message_id, table["alice"], "a")
    await tg.send_message(table["group"], table["alice"], "text")
    updates = await bot.get_updates(allowed_updates=["message"])
    assert [u.message.text for u in updates] == ["text"]


async def test_second_poller_conflicts(tg: FakeTelegram, bot: Bot) -> None:
    first = asyncio.create_task(bot.get_updates(timeout=5))
    await asyncio.sleep(0.1)
    async with Bot(tg.token, base_url=tg.base_url) as second:
        await second.get_updates()
    with pytest.raises(Conflict):
        await asyncio.wait_for(first, 2)


async def test_photo_and_document_uploads(tg: FakeTelegram, bot: Bot, table: dict) -> None:
    chat_id = table["group"]["id"]
    image = png(3, 2)
    sent = await bot.send_photo(chat_id, image, caption="<b>Standings</b>", parse_mode=ParseMode.HTML,
                                filename="standings.png")
    assert (sent.photo[-1].width, sent.photo[-1].height) == (3, 2) and sent.caption == "Standings"
    req = tg.requests_for("sendPhoto")[-1]
    assert req.params["photo"].data == image and req.params["photo"].filename == "standings.png"
    downloaded = await (await bot.get_file(sent.photo[-1].file_id)).download_as_bytearray()
    assert bytes(downloaded) == image
    doc = await bot.send_document(chat_id, b"a,b\n1,2\n", filename="scores.csv")
    assert doc.document.file_name == "scores.csv"
    assert tg.last_message(chat_id).file.upload.data == b"a,b\n1,2\n"
    with pytest.raises(BadRequest, match=said("IMAGE_PROCESS_FAILED")):
        await bot.send_photo(chat_id, b"not an image", filename="x.png")
    with pytest.raises(BadRequest, match=said("caption is too long")):
        await bot.send_photo(chat_id, image, caption="x" * 1025)


async def test_commands_are_validated(bot: Bot) -> None:
    with pytest.raises(BadRequest, match=said("BOT_COMMAND_INVALID")):
        await bot.set_my_commands([("New-Hand", "Record a hand")])


# ------------------------------------------------------------------------- webhooks


async def test_webhook_mode(tg: FakeTelegram, bot: Bot, table: dict, unused_tcp_port: int) -> None:
    received: list[tuple[str | None, dict]] = []

    async def hook(request: web.Request) -> web.Response:
        received.append((request.headers.get("X-Telegram-Bot-Api-Secret-Token"), await request.json()))
        return web.json_response({"ok": True})

    app = web.Application()
    app.router.add_post("/telegram", hook)
    runner = web.AppRunner(app)
    await runner.setup()
    await web.TCPSite(runner, "127.0.0.1", unused_tcp_port).start()
    try:
        with pytest.raises(BadRequest, match=said("HTTPS URL must be provided")):
            await bot.set_webhook(f"http://127.0.0.1:{unused_tcp_port}/telegram")
        assert await bot.set_webhook("https://mj.example.org/telegram", secret_token="s3cret")
        assert tg.webhook is not None and tg.webhook["secret_token"] == "s3cret"
        with pytest.raises(Conflict, match=said("webhook is active")):
            await bot.get_updates()
        tg.webhook_target = f"http://127.0.0.1:{unused_tcp_port}/telegram"
        await tg.send_message(table["group"], table["alice"], "/start")
        assert received[0][0] == "s3cret" and received[0][1]["message"]["text"] == "/start"
        status, _ = await tg.deliver_webhook(tg.webhook_target, None, {"update_id": 99})
        assert status == 200 and len(received) == 2
        assert (await bot.get_webhook_info()).url == "https://mj.example.org/telegram"
    finally:
        await runner.cleanup()


async def test_webhook_workers_in_turn_and_failover(tg: FakeTelegram, bot: Bot, table: dict,
                                                     unused_tcp_port_factory: Any) -> None:
    """Several webhook targets get the updates in turn; one that does not answer (a dead
    worker) passes its update to the next at once; none answering keeps it pending."""
    received: dict[str, list[int]] = {"a": [], "b": []}

    def hook(name: str) -> Any:
        async def serve(request: web.Request) -> web.Response:
            received[name].append((await request.json())["update_id"])
            return web.json_response({"ok": True})
        return serve

    runners, urls = [], {}
    for name in ("a", "b"):
        app = web.Application()
        app.router.add_post("/telegram", hook(name))
        runner = web.AppRunner(app)
        await runner.setup()
        port = unused_tcp_port_factory()
        await web.TCPSite(runner, "127.0.0.1", port).start()
        runners.append(runner)
        urls[name] = f"http://127.0.0.1:{port}/telegram"
    dead = f"http://127.0.0.1:{unused_tcp_port_factory()}/telegram"
    try:
        await bot.set_webhook("https://mj.example.org/telegram", secret_token="s3cret")
        tg.webhook_targets = [urls["a"], urls["b"]]
        ids = [(await tg.send_message(table["group"], table["alice"], f"/m{i}")) and
               tg.injected[-1]["update_id"] for i in range(4)]
        assert received == {"a": ids[0::2], "b": ids[1::2]}  # in turn
        tg.webhook_targets = [dead, urls["b"]]
        await tg.send_message(table["group"], table["alice"], "/after")
        moved = tg.injected[-1]["update_id"]
        assert received["b"][-1] == moved and not tg.webhook_pending  # the next one took it
        assert [s for u, s in tg.webhook_deliveries if u["update_id"] == moved] in ([0, 200], [200])
        tg.webhook_targets = [dead]
        await tg.send_message(table["group"], table["alice"], "/lost")
        assert [u["update_id"] for u in tg.webhook_pending] == [tg.injected[-1]["update_id"]]
        tg.webhook_targets = [urls["a"]]
        await tg.redeliver_webhook()  # delivered again once a worker is back
        assert received["a"][-1] == tg.injected[-1]["update_id"] and not tg.webhook_pending
    finally:
        for runner in runners:
            await runner.cleanup()


# ------------------------------------------------------------------------- a whole Application


async def test_application_polls_and_replies(tg: FakeTelegram, table: dict) -> None:
    async def start(update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
        await update.effective_message.reply_html(
            f"Welcome, {html.escape(update.effective_user.first_name)}!", reply_markup=keyboard("go"))

    async def pressed(update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
        await update.callback_query.answer("Going")
        await update.callback_query.edit_message_text("Gone")

    app = ApplicationBuilder().token(tg.token).base_url(tg.base_url).base_file_url(tg.base_file_url).build()
    app.add_handler(CommandHandler("start", start))
    app.add_handler(CallbackQueryHandler(pressed))
    bob = tg.user(12, "<b>&Bob")
    async with app:
        await app.start()
        await app.updater.start_polling(poll_interval=0.0, timeout=1)
        try:
            await tg.send_message(tg.private_chat(bob), bob, "/start")
            reply = await tg.wait_for_request("sendMessage", timeout=5)
            assert reply.ok and reply.result["text"] == "Welcome, <b>&Bob!"
            await tg.send_message(table["group"], table["alice"], "/start@mj_ledger_bot")
            await tg.wait_for_request("sendMessage", timeout=5)
            welcome = tg.last_message(table["group"]["id"])
            assert welcome.text == "Welcome, Alice!" and welcome.reply_to_message is not None
            await tg.press_button(welcome.chat_id, welcome.message_id, table["alice"], "go")
            await tg.wait_for(lambda: welcome.text == "Gone", timeout=5)
            tg.assert_callbacks_answered()
        finally:
            await app.updater.stop()
            await app.stop()
