"""Users' photos in the fake Bot API: the sizes Telegram makes, getFile and the file download."""

from __future__ import annotations

import io
from typing import Any

import aiohttp
import pytest
from PIL import Image
from telegram import Bot
from telegram.error import BadRequest

from tests.fake_telegram import ApiError, FakeTelegram
from tests.fake_telegram.spec import UploadedFile


def picture(width: int, height: int, fmt: str = "PNG") -> bytes:
    image = Image.new("RGB", (width, height), (30, 110, 60))
    image.paste((240, 235, 220), (width // 4, height // 4, width // 2, height // 2))
    out = io.BytesIO()
    image.save(out, fmt)
    return out.getvalue()


async def download(bot: Bot, file_id: str) -> bytes:
    return bytes(await (await bot.get_file(file_id)).download_as_bytearray())


async def test_a_users_photo_comes_in_sizes_and_each_downloads(tg: FakeTelegram, bot: Bot) -> None:
    alice, table = tg.user(11, "Alice"), tg.group("Thursday table")
    data = picture(1600, 1200)
    await tg.send_photo(table, alice, data, caption="/hu@mj_ledger_bot self-drawn")
    [update] = await bot.get_updates()
    message = update.message
    assert [(p.width, p.height) for p in message.photo] == [
        (90, 68), (320, 240), (800, 600), (1280, 960), (1600, 1200)]
    assert len({p.file_id for p in message.photo}) == len({p.file_unique_id for p in message.photo}) == 5
    assert message.caption == "/hu@mj_ledger_bot self-drawn"
    assert [(e.type, e.offset, e.length) for e in message.caption_entities] == [("bot_command", 0, 17)]
    assert await download(bot, message.photo[-1].file_id) == data  # the largest is the picture as sent
    assert message.photo[-1].file_size == len(data)
    small = Image.open(io.BytesIO(await download(bot, message.photo[0].file_id)))
    assert (small.format, small.size) == ("JPEG", (90, 68))
    tg_file = await bot.get_file(message.photo[1].file_id)
    assert tg_file.file_path.endswith(".jpg") and "/photos/" in tg_file.file_path
    assert tg_file.file_size == message.photo[1].file_size


async def test_a_small_photo_is_its_only_size(tg: FakeTelegram, bot: Bot) -> None:
    alice = tg.user(11, "Alice")
    data = picture(80, 60, "JPEG")
    sent = await tg.send_photo(tg.private_chat(alice), alice, data)
    [update] = await bot.get_updates()
    assert [(p.width, p.height) for p in update.message.photo] == [(80, 60)]
    assert update.message.caption is None and sent.caption is None
    assert await download(bot, update.message.photo[0].file_id) == data


async def test_a_command_answering_a_photo_carries_it(tg: FakeTelegram, bot: Bot) -> None:
    alice, table = tg.user(11, "Alice"), tg.group("Thursday table")
    photo = await tg.send_photo(table, alice, picture(400, 300))
    await tg.send_message(table, alice, "/hu", reply_to=photo.message_id)
    first, second = await bot.get_updates()
    assert second.message.text == "/hu"
    replied = second.message.reply_to_message
    assert replied.message_id == photo.message_id
    assert [p.file_id for p in replied.photo] == [p.file_id for p in first.message.photo]
    assert await download(bot, replied.photo[-1].file_id) == photo.file.upload.data


async def test_send_photo_takes_only_pictures(tg: FakeTelegram) -> None:
    alice = tg.user(11, "Alice")
    with pytest.raises(ValueError, match="PNG, GIF or JPEG"):
        await tg.send_photo(tg.private_chat(alice), alice, b"not a picture")
    assert not tg.injected


async def test_get_file_refuses_unknown_ids_and_big_files(tg: FakeTelegram, bot: Bot) -> None:
    alice = tg.user(11, "Alice")
    with pytest.raises(BadRequest, match=r"(?i)invalid file_id"):
        await bot.get_file("FAKEFILE999999")
    big = await tg.send_document(tg.private_chat(alice), alice, b"x" * (20 * 1024 * 1024 + 1), "big.json")
    with pytest.raises(BadRequest, match=r"(?i)file is too big"):
        await bot.get_file(big.file.file_id)
    ok = await tg.send_document(tg.private_chat(alice), alice, b"{}", "small.json")
    assert (await download(bot, ok.file.file_id)) == b"{}"


async def test_the_download_endpoint_checks_token_and_path(tg: FakeTelegram, bot: Bot) -> None:
    alice = tg.user(11, "Alice")
    await tg.send_photo(tg.private_chat(alice), alice, picture(100, 100))
    await bot.get_file(tg.injected[-1]["message"]["photo"][-1]["file_id"])
    path = tg.requests_for("getFile")[-1].result["file_path"]  # PTB turns it into a URL
    async with aiohttp.ClientSession() as session:
        async def status(url: str) -> int:
            async with session.get(url) as resp:
                return resp.status
        assert await status(f"{tg.base_file_url}{tg.token}/{path}") == 200
        assert await status(f"{tg.base_file_url}999:wrong/{path}") == 401
        assert await status(f"{tg.base_file_url}{tg.token}/photos/nothing.jpg") == 404


def test_photo_messages_are_checked_against_the_spec(tg: FakeTelegram) -> None:
    """The check send_photo relies on: a PhotoSize without its dimensions is no Message."""
    message: dict[str, Any] = {"message_id": 1, "date": 0, "chat": {"id": 1, "type": "private"},
                               "photo": [{"file_id": "a", "file_unique_id": "b", "width": 9, "height": 9}]}
    assert tg._valid("Message", message) is message
    del message["photo"][0]["height"]
    with pytest.raises(AssertionError, match='"height" of PhotoSize is required'):
        tg._valid("Message", message)
    with pytest.raises(ApiError):
        tg.spec.check_object("PhotoSize", {"file_id": "a", "file_unique_id": "b", "width": "wide",
                                           "height": 1}, "photo")
    assert UploadedFile  # the type tests use to look at uploads
