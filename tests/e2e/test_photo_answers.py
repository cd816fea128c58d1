"""What the chat hears about a photo of a hand (issue 22), end to end over HTTP: a file that is
no picture, a photo fetched from the Bot API server the bot is configured with (not
api.telegram.org), a download that fails, the size limit /help states, and the "unsure" hint
that goes once the hand is corrected."""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any

import pytest

from bot.photo import detect
from bot.photo.chat import NOT_FETCHED
from bot.plumbing.config import Settings
from bot.runner import serve
from bot.view.i18n import gettext
from tests.fake_telegram import FakeTelegram
from tests.photo.render import Scene, render

from .table import Table
from .test_table_words import players, seat
from .test_tile_keyboard import GUIYANG_HAND, correction_keys, keys

TIMEOUT = 30  # a photo is read in ~0.3 s, but a loaded machine is slow


@pytest.fixture
async def bot(tg: FakeTelegram, db_url: str) -> AsyncIterator[object]:
    """The bot told only where the Bot API is (TELEGRAM_BASE_URL), not where its files are."""
    settings = Settings(token=tg.token, base_url=tg.base_url, database_url=db_url)
    async with serve(settings, poll_timeout=1) as app:
        yield app


async def seated(tg: FakeTelegram, name: str, lang: str = "en") -> Table:
    table = Table(tg, tg.group(name), players(tg, lang))
    await seat(table, "guiyang")
    return table


async def answer(tg: FakeTelegram, table: Table) -> Any:
    req = await tg.wait_for_request("sendMessage", TIMEOUT, where=table._mine)
    return table.message(req.result["message_id"])


def test_the_file_address_follows_the_bot_api_server() -> None:
    local = Settings.from_env({"TELEGRAM_BOT_TOKEN": "1:x",
                               "TELEGRAM_BASE_URL": "http://127.0.0.1:8081/bot"})
    assert local.file_url == "http://127.0.0.1:8081/file/bot"
    assert Settings(token="1:x").file_url == "https://api.telegram.org/file/bot"
    assert Settings(token="1:x", base_url="http://files.example/bot{token}").file_url == \
        "http://files.example/file/bot"
    told = Settings.from_env({"TELEGRAM_BOT_TOKEN": "1:x", "TELEGRAM_BASE_URL": "http://a/bot",
                              "TELEGRAM_BASE_FILE_URL": "http://b/files/bot"})
    assert told.file_url == "http://b/files/bot"


async def test_a_file_that_is_no_picture_gets_the_answer_a_mislabelled_picture_gets(
        bot: object, tg: FakeTelegram) -> None:
    table = await seated(tg, "documents")
    alice = table.players[0]
    await tg.send_document(table.chat, alice, b"East 3, South 1\n", "scores.txt",
                           caption="/hu S self-draw", mime_type="text/plain")
    text_file = await answer(tg, table)
    await tg.send_document(table.chat, alice, b"not a PNG at all", "hand.png",
                           caption="/hu S self-draw", mime_type="image/png")
    mislabelled = await answer(tg, table)
    expected = "⚠️ " + gettext("en", detect.NOT_AN_IMAGE)
    assert text_file.text == mislabelled.text == expected, (text_file.text, mislabelled.text)
    assert [path for path, _ in tg.downloads] == [tg.requests_for("getFile")[0].result["file_path"]]


async def test_a_photo_is_fetched_from_the_configured_server_and_its_hint_goes_once_corrected(
        bot: object, tg: FakeTelegram) -> None:
    table = await seated(tg, "photo")
    alice = table.players[0]
    # the reader misses both birds (1s) of these Japanese-style faces and is unsure of its 9m (it
    # is deterministic)
    data = render(Scene(GUIYANG_HAND, tile_width=52, margin=2.0))
    reading = detect.read_tiles(data)
    await tg.send_photo(table.chat, alice, data, caption="/hu S self-draw")
    wiz = await answer(tg, table)
    assert "Tiles of South Bob" in wiz.text, wiz.text
    [(path, status)] = tg.downloads
    assert status == 200 and path == tg.requests_for("getFile")[0].result["file_path"]
    # the hint names the tiles read with low confidence only
    assert reading.uncertain and all(reading.tiles[i].confidence < detect.UNCERTAIN
                                     for i in reading.uncertain)
    hint = "The photo was unsure of: " + " ".join(reading.names[i] for i in reading.uncertain)
    assert hint in table.message(wiz.message_id).text
    fixes = correction_keys(reading.names, GUIYANG_HAND)
    await keys(table, alice, wiz.message_id, fixes)
    last = fixes[-1].removeprefix("t:")  # the last tile tapped is the winning tile
    corrected = await tg.wait_for(  # the edits go through the throttle: the last one shows it
        lambda: (m := table.message(wiz.message_id)) and f"+{last}</code>" in m.raw_text
        and "14 of 14 tiles" in m.text and m, TIMEOUT)
    assert "14 of 14 tiles" in corrected.text, corrected.text
    assert "unsure" not in corrected.text, corrected.text


async def test_a_failed_download_says_the_picture_could_not_be_fetched(
        bot: object, tg: FakeTelegram) -> None:
    table = await seated(tg, "no file", "zh-hans")
    tg.fail_downloads(1, status=502)
    await tg.send_photo(table.chat, table.players[0], render(Scene(GUIYANG_HAND)),
                        caption="/hu 南 自摸")
    shown = await answer(tg, table)
    assert shown.text == "⚠️ " + gettext("zh-Hans", NOT_FETCHED), shown.text
    assert "Telegram" in shown.text and "图片" in shown.text
    assert tg.downloads and tg.downloads[0][1] == 502


@pytest.mark.parametrize(("lang", "words"), [("en", "up to 25 megapixels"),
                                             ("zh-hans", "最多 25 百万像素"),
                                             ("zh-hant", "最多 25 百萬像素")])
async def test_help_states_the_largest_picture_read(bot: object, tg: FakeTelegram, lang: str,
                                                    words: str) -> None:
    table = Table(tg, tg.group("help"), players(tg, lang))
    shown = await table.say(table.players[0], "/help")
    assert words in shown.text, shown.text
    assert detect.MAX_PIXELS == 25_000_000
