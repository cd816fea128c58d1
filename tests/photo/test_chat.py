"""A photo of a hand sent in a chat is fetched over the (fake) Bot API and read: the largest
size, from the message or from the photo it answers, with the chat's language for problems."""

from __future__ import annotations

import io
import sys
from collections import Counter
from collections.abc import AsyncIterator

import pytest
from PIL import Image
from telegram import Update
from telegram.ext import (
    Application,
    ApplicationBuilder,
    CommandHandler,
    ContextTypes,
    MessageHandler,
    filters,
)

from bot.photo import PhotoError, read_tiles
from bot.photo import detect as D
from bot.photo.chat import NO_PHOTO, error_text, read_message_photo
from bot.view.i18n import gettext, lang_from_code, translator
from tests.fake_telegram import FakeTelegram
from tests.photo.render import render, scene_for


async def hu(update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
    """What /hu will do with a photo: read it, or say in the user's language why not."""
    message = update.effective_message
    try:
        reading = await read_message_photo(context.bot, message)
    except PhotoError as exc:
        await message.reply_text(error_text(translator(lang_from_code(update.effective_user.language_code)),
                                            exc))
        return
    await message.reply_text(reading.tile_string)


@pytest.fixture
async def app(tg: FakeTelegram) -> AsyncIterator[Application]:
    application = (ApplicationBuilder().token(tg.token).base_url(tg.base_url)
                   .base_file_url(tg.base_file_url).build())
    application.add_handler(CommandHandler("hu", hu))
    captioned = filters.CaptionRegex(r"^/hu(@\w+)?\b")
    application.add_handler(MessageHandler((filters.PHOTO | filters.Document.IMAGE) & captioned, hu))
    async with application:
        await application.start()
        await application.updater.start_polling(poll_interval=0.0, timeout=1)
        yield application
        await application.updater.stop()
        await application.stop()


async def answer(tg: FakeTelegram) -> str:
    return (await tg.wait_for_request("sendMessage", timeout=20)).result["text"]


@pytest.mark.usefixtures("app")
async def test_a_photo_captioned_hu_is_read_from_its_largest_size(tg: FakeTelegram) -> None:
    alice, table = tg.user(11, "Alice"), tg.group("Thursday table")
    scene = scene_for("clean", 1)
    data = render(scene)
    sent = await tg.send_photo(table, alice, data, caption="/hu")
    text = await answer(tg)
    assert text == read_tiles(data).tile_string
    [get_file] = tg.requests_for("getFile")
    assert get_file.params["file_id"] == sent.media["photo"][-1]["file_id"]  # not a thumbnail
    assert len(sent.media["photo"]) > 1
    assert sum((Counter(_tiles(text)) & Counter(scene.tiles)).values()) >= 10


def _tiles(notation: str) -> list[str]:
    """'123m55p' → ['1m', '2m', '3m', '5p', '5p'] (the reverse of tile_string, for the check)."""
    out, digits = [], ""
    for ch in notation:
        if ch.isdigit():
            digits += ch
        else:
            out += [d + ch for d in digits]
            digits = ""
    return out


@pytest.mark.usefixtures("app")
async def test_hu_answering_a_photo_reads_that_photo(tg: FakeTelegram) -> None:
    alice, table = tg.user(11, "Alice"), tg.group("Thursday table")
    data = render(scene_for("noisy", 2))
    photo = await tg.send_photo(table, alice, data)
    await tg.send_message(table, alice, "/hu", reply_to=photo.message_id)
    assert await answer(tg) == read_tiles(data).tile_string


@pytest.mark.usefixtures("app")
async def test_a_picture_sent_as_a_file_is_read_too(tg: FakeTelegram) -> None:
    alice, table = tg.user(11, "Alice"), tg.group("Thursday table")
    data = render(scene_for("large", 3))
    await tg.send_document(table, alice, data, "hand.png", caption="/hu", mime_type="image/png")
    assert await answer(tg) == read_tiles(data).tile_string
    not_a_picture = await tg.send_document(table, alice, b"{}", "session.json", caption="/hu")
    await tg.send_message(table, alice, "/hu", reply_to=not_a_picture.message_id)
    assert await answer(tg) == gettext("en", NO_PHOTO, command="/hu")


@pytest.mark.usefixtures("app")
async def test_hu_without_a_photo_says_how_to_send_one(tg: FakeTelegram) -> None:
    lin = tg.user(12, "林", language_code="zh-hans")
    await tg.send_message(tg.private_chat(lin), lin, "/hu")
    assert await answer(tg) == gettext("zh-Hans", NO_PHOTO, command="/hu")
    assert "照片" in gettext("zh-Hans", NO_PHOTO, command="/hu")
    assert not tg.requests_for("getFile")


@pytest.mark.usefixtures("app")
async def test_a_photo_of_an_empty_table_finds_no_tiles(tg: FakeTelegram) -> None:
    alice = tg.user(11, "Alice")
    out = io.BytesIO()
    Image.new("RGB", (1000, 700), (28, 104, 62)).save(out, "JPEG")
    await tg.send_photo(tg.private_chat(alice), alice, out.getvalue(), caption="/hu")
    assert await answer(tg) == gettext("en", D.NO_TILES)


@pytest.mark.usefixtures("app")
async def test_without_the_extra_nothing_is_downloaded_and_the_chat_learns_how_to_enable_it(
        tg: FakeTelegram, monkeypatch: pytest.MonkeyPatch) -> None:
    D._model.cache_clear()
    monkeypatch.setitem(sys.modules, "mahjong_detector.predict", None)
    try:
        chen = tg.user(13, "陳", language_code="zh-TW")
        await tg.send_photo(tg.private_chat(chen), chen, render(scene_for("clean", 1)), caption="/hu")
        text = await answer(tg)
    finally:
        D._model.cache_clear()
    assert text == gettext("zh-Hant", D.UNAVAILABLE, command="pip install -e '.[photo]'")
    assert "pip install -e '.[photo]'" in text and "照片" in text
    assert not tg.requests_for("getFile")
