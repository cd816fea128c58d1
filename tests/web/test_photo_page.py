"""The page reads a photo of the winner's hand (issue 38): /app/api/photo answers the tiles read
in the page's notation, with the flowers where the style counts them (left out, and said so,
where it does not), refuses a style without tiles and a photo it cannot read in the reader's
words, and books nothing; in a browser, a picture chosen with the Photo control fills the
winner's tiles, which are then booked. The reader is stubbed (the name bot/web/api.py calls), as
the classifier's model is the test photos' business (tests/photo/), not the page's."""

from __future__ import annotations

from typing import Any

import pytest
from aiohttp.test_utils import TestClient

import bot.web.api
from bot.photo.chat import MAX_BYTES
from bot.photo.detect import (
    INSTALL_HINT,
    UNAVAILABLE,
    DetectedTile,
    PhotoError,
    PhotoReading,
    photo_support,
)
from bot.web.local import LOCAL_CHAT_ID
from db import DatabaseBusy, DatabaseUnavailable, Store

from .browser import ARTEFACTS, shot
from .test_api import NAMES, post
from .test_auth import (
    ALICE,
    EVE,
    HEADER,
    init_data,
    setup,  # noqa: F401  # the Mini App's app, shared
    telegram,  # noqa: F401
)
from .test_page import open_page, scored, start_in_page

# a hand as a photo shows it, in its row's order: Summer and Spring beside it, the 5p unsure
ROW = ["1m", "2m", "3m", "2f", "4p", "5p", "6p", "7s", "8s", "9s", "1z", "1z", "5z", "5z", "5z",
       "1f"]
UNSURE = 5  # the 5p
PICTURE = b"\xff\xd8\xff\xe0" + b"\x00" * 64  # a JPEG's first bytes: the stub reads nothing


def reading(names: list[str] = ROW) -> PhotoReading:
    return PhotoReading(tuple(DetectedTile(x, 0.3 if i == UNSURE else 0.97, (40 * i, 0, 40 * i + 38, 52))
                              for i, x in enumerate(names)))


class Reader:
    """read_tiles_async's stand-in: the photos it was given, and what it answers."""

    def __init__(self, answer: PhotoReading | PhotoError) -> None:
        self.answer = answer
        self.photos: list[bytes] = []

    async def __call__(self, data: bytes, **_: Any) -> PhotoReading:
        self.photos.append(data)
        if isinstance(self.answer, PhotoError):
            raise self.answer
        return self.answer


@pytest.fixture
def reader(monkeypatch: pytest.MonkeyPatch) -> Reader:
    stub = Reader(reading())
    monkeypatch.setattr(bot.web.api, "read_tiles_async", stub)
    return stub


async def send(client: TestClient, data: bytes, status: int = 200, lang: str = "en",
               content_type: str = "image/jpeg") -> dict[str, Any]:
    resp = await client.post(f"/app/api/photo?lang={lang}", data=data,
                             headers={"Content-Type": content_type})
    answer = await resp.json()
    assert resp.status == status, answer
    return answer


async def unchanged(client: TestClient, store: Store, before: dict[str, Any]) -> None:
    """Nothing was booked or changed: the table's mark and standings are as they were."""
    session = await store.running_session(LOCAL_CHAT_ID)
    assert await store.last_hand(session.id) is None
    state = await post(client, "state", {})
    assert state["session"]["mark"] == before["session"]["mark"]
    assert state["session"]["totals"] == before["session"]["totals"] == [0, 0, 0, 0]


async def test_a_flower_style_reads_the_flowers_into_the_hand(client: TestClient, store: Store,
                                                              reader: Reader) -> None:
    before = await post(client, "session", {"variant": "hainan", "names": NAMES})
    read = await send(client, PICTURE)
    assert reader.photos == [PICTURE]
    assert read["tiles"] == "123m456p789s11555z12f"
    assert read["hand"] == [x for x in ROW if not x.endswith("f")]
    assert read["flowers"] == ["2f", "1f"] and read["left_out"] == [] and read["unsure"] == ["5p"]
    assert read["note"] == ("Tiles read from the photo: 14; flowers: 2. Check them, and correct "
                            "any the photo got wrong, before you book.\n"
                            "The photo was unsure of: 5p")
    zh = await send(client, PICTURE, lang="zh-Hans")
    assert zh["note"].startswith("照片读出 14 张牌、2 张花牌。") and "照片上没看准的：5筒" in zh["note"]
    await unchanged(client, store, before)  # reading books nothing
    # the tiles read are the page's notation: previewed and booked as they stand
    events = [{"type": "win", "by": "self_draw", "winners": [{"seat": 1, "tiles": read["tiles"]}]}]
    shown = await post(client, "preview", {"events": events})
    await post(client, "confirm", {"events": events, "mark": shown["mark"]})
    session = await store.running_session(LOCAL_CHAT_ID)
    hand = await store.last_hand(session.id)
    # Summer is South's own flower: counted, as the photo read it
    assert hand.record["events"][0]["winners"] == [
        {"seat": 1, "concealed": True, "dragon_pungs": 1, "seat_flower": 1}]
    assert hand.outcome["deltas"] == shown["deltas"] == scored(hand.record)


async def test_a_style_without_flowers_leaves_them_out_and_says_so(client: TestClient,
                                                                    store: Store,
                                                                    reader: Reader) -> None:
    before = await post(client, "session", {"variant": "cixi", "names": NAMES})
    read = await send(client, PICTURE)
    assert read["tiles"] == "123m456p789s11555z" and read["flowers"] == []
    assert read["left_out"] == ["2f", "1f"]
    assert read["note"].splitlines() == [
        "Tiles read from the photo: 14. Check them, and correct any the photo got wrong, before "
        "you book.",
        "Flowers left out: Sum Spr (Cixi chongji mahjong does not count flowers).",
        "The photo was unsure of: 5p"], read["note"]
    hant = await send(client, PICTURE, lang="zh-Hant")
    assert "花牌沒有放進來：夏 春（慈溪衝級麻將不算花牌）。" in hant["note"], hant["note"]
    await unchanged(client, store, before)


async def test_a_style_without_tiles_refuses_the_photo(client: TestClient, store: Store,
                                                       reader: Reader) -> None:
    before = await post(client, "session", {"variant": "free", "names": NAMES})
    refused = await send(client, PICTURE, 422)
    assert refused["code"] == "no_tiles_style"
    assert "reads no tiles: enter the winner's features" in refused["error"], refused
    assert reader.photos == []  # refused before reading
    await unchanged(client, store, before)


async def test_a_file_that_is_no_picture_is_refused_in_the_readers_words(client: TestClient,
                                                                         store: Store) -> None:
    """The real reader (its detector, the photo extra), on a text file sent as a picture."""
    if not photo_support():
        pytest.skip("the photo extra is not installed (pip install -e '.[photo]')")
    before = await post(client, "session", {"variant": "hainan", "names": NAMES})
    refused = await send(client, b"these are not the tiles you are looking for", 422)
    assert refused == {"code": "not_an_image", "error": "That file is not a picture I can read. "
                                                        "Send the hand as a photo."}
    zh = await send(client, b"%PDF-1.4 not a picture", 422, lang="zh-Hans")
    assert zh["code"] == "not_an_image" and "图" in zh["error"] and "not" not in zh["error"]
    empty = await send(client, b"", 422)
    assert empty["code"] == "not_an_image"
    await unchanged(client, store, before)


async def test_too_large_a_picture_is_refused_unread(client: TestClient, store: Store,
                                                     reader: Reader) -> None:
    before = await post(client, "session", {"variant": "hainan", "names": NAMES})
    refused = await send(client, b"\xff" * (MAX_BYTES + 1), 413)
    assert refused == {"code": "too_large", "error": "That picture is too large to read. Send it "
                                                     "as an ordinary photo."}
    assert reader.photos == []
    # the chat's limit itself is read (aiohttp's own 1 MiB bound is not the photo's)
    assert (await send(client, b"\xff" * (2 * 1024 * 1024)))["hand"]
    await unchanged(client, store, before)


@pytest.mark.parametrize(("error", "status", "code", "words"), [
    (PhotoError(UNAVAILABLE, command=INSTALL_HINT), 501, "no_photo_reader", "pip install -e '.[photo]'"),
    (PhotoError("Reading the photo took too long. Try again, or enter the tiles by hand."), 503,
     "too_slow", "took too long"),
])
async def test_a_reader_that_cannot_read_says_why(client: TestClient, store: Store,
                                                  monkeypatch: pytest.MonkeyPatch,
                                                  error: PhotoError, status: int, code: str,
                                                  words: str) -> None:
    before = await post(client, "session", {"variant": "hainan", "names": NAMES})
    monkeypatch.setattr(bot.web.api, "read_tiles_async", Reader(error))
    refused = await send(client, PICTURE, status)
    assert refused["code"] == code and words in refused["error"], refused
    await unchanged(client, store, before)


async def test_no_tiles_seen_is_said(client: TestClient, store: Store,
                                     monkeypatch: pytest.MonkeyPatch) -> None:
    await post(client, "session", {"variant": "hainan", "names": NAMES})
    monkeypatch.setattr(bot.web.api, "read_tiles_async", Reader(reading([])))
    refused = await send(client, PICTURE, 422, lang="zh-Hant")
    assert refused["code"] == "no_tiles" and "照片" in refused["error"]


async def test_flowers_alone_where_none_are_played_are_no_tiles_seen(
        client: TestClient, store: Store, monkeypatch: pytest.MonkeyPatch) -> None:
    before = await post(client, "session", {"variant": "cixi", "names": NAMES})
    monkeypatch.setattr(bot.web.api, "read_tiles_async", Reader(reading(["2f", "1f"])))
    refused = await send(client, PICTURE, 422)
    assert refused["code"] == "no_tiles" and "could not see any tiles" in refused["error"], refused
    await unchanged(client, store, before)


@pytest.mark.parametrize(("fault", "lang", "words"), [
    (DatabaseUnavailable, "en", "The ledger's database is not available right now"),
    (DatabaseBusy, "zh-Hans", "账本正忙")])
async def test_with_the_database_failing_the_photo_is_answered_unread(
        client: TestClient, store: Store, reader: Reader, monkeypatch: pytest.MonkeyPatch,
        fault: type[Exception], lang: str, words: str) -> None:
    """The database down or busy: the page is told so in its language (503, as the chat is
    told), and the picture is not read."""
    await post(client, "session", {"variant": "hainan", "names": NAMES})

    async def failing(*_: Any, **__: Any) -> Any:
        raise fault("the database could not answer")

    monkeypatch.setattr(bot.web.api, "running", failing)
    refused = await send(client, PICTURE, 503, lang=lang)
    assert refused["code"] == ("database_busy" if fault is DatabaseBusy else "database_unavailable")
    assert words in refused["error"], refused
    assert reader.photos == []
    resp = await client.post(f"/app/api/tiles?lang={lang}", json={"tiles": "123m"})
    assert resp.status == 503 and (await resp.json())["code"] == refused["code"]  # every API call


async def test_the_photo_comes_as_a_picture_never_as_a_form(client: TestClient, store: Store,
                                                            reader: Reader) -> None:
    """A form on another site sends multipart or text without asking first: refused unread, as
    is a body without a type; JSON is no picture either."""
    await post(client, "session", {"variant": "hainan", "names": NAMES})
    for kind in ("multipart/form-data; boundary=x", "text/plain",
                 "application/x-www-form-urlencoded"):
        refused = await send(client, PICTURE, 415, content_type=kind)
        assert refused["code"] == "not_json"
    resp = await client.post("/app/api/photo", data=PICTURE, skip_auto_headers=["Content-Type"])
    assert resp.status == 415
    assert reader.photos == []
    assert (await send(client, PICTURE, content_type="application/octet-stream"))["tiles"]
    assert (await send(client, PICTURE, content_type="image/png"))["tiles"]


async def test_in_the_mini_app_only_who_books_at_the_table_reads_a_photo(
        setup: Any, store: Store, reader: Reader) -> None:  # noqa: F811
    client, told = setup

    async def send_as(data: str) -> Any:
        return await client.post("/app/api/photo", data=PICTURE,
                                 headers={HEADER: data, "Content-Type": "image/jpeg"})

    # Eve is in the group but at no table; a forged initData is nobody
    for data in (init_data(EVE), init_data(ALICE).replace("U11", "Mallory")):
        resp = await send_as(data)
        assert resp.status == 403, await resp.text()
    assert reader.photos == []
    resp = await send_as(init_data(ALICE))  # seated at the group's (Guiyang) table
    read = await resp.json()
    assert resp.status == 200, read
    assert read["hand"] and read["flowers"] == [] and read["left_out"] == ["2f", "1f"]
    assert reader.photos == [PICTURE] and not told


async def test_the_photo_fills_the_winners_tiles_on_the_page(browser: Any, site: str,
                                                            store: Store, reader: Reader) -> None:
    page = await open_page(browser, site)
    await start_in_page(page, "hainan")
    await page.click("nav button[data-screen=hand]")
    await page.click("[data-row=winner] [data-seat='1']")
    await page.click("#mode-tiles")
    photo = page.locator("#photo")
    assert await photo.inner_text() == "Photo"
    assert await page.get_attribute("#photo-file", "accept") == "image/*"
    await page.set_input_files("#photo-file", files=[{"name": "hand.jpg", "mimeType": "image/jpeg",
                                                      "buffer": PICTURE}])
    await page.wait_for_selector("#photo-note")
    assert reader.photos == [PICTURE]
    held = await page.locator("#held [data-tile]").evaluate_all("els => els.map(e => e.dataset.tile)")
    assert held == ["1m", "2m", "3m", "4p", "5p", "6p", "7s", "8s", "9s", "1z", "1z", "5z", "5z",
                    "5z", "1f", "2f"]
    assert await page.locator("#held .unsure").evaluate_all(
        "els => els.map(e => e.dataset.tile)") == ["5p"]
    note = await page.inner_text("#photo-note")
    assert "Tiles read from the photo: 14; flowers: 2." in note and "unsure of: 5p" in note
    assert await page.inner_text("#count") == "Tiles: 14 of 14"
    await page.wait_for_selector("#reading b")  # the reading of the tiles read, no winning tile named
    assert (await page.inner_text("#reading b")).startswith("Best reading:")
    ARTEFACTS.mkdir(parents=True, exist_ok=True)
    await page.screenshot(path="/tmp/w38-photo-read.png", full_page=True)
    await shot(page, "photo-read")

    # the photo names no winning tile: the 5z is tapped as the winning one, then booked
    await page.click("[data-target=win]")
    assert "Tap the winning tile above." in await page.inner_text("#editor")
    await page.locator("#held [data-tile='5z']").first.click()
    assert await page.locator("#held .win").get_attribute("data-tile") == "5z"
    await page.wait_for_selector("#reading b")
    await page.click("#preview")
    await page.wait_for_selector("#preview-html")
    await page.screenshot(path="/tmp/w38-photo-preview.png", full_page=True)
    await page.click("#confirm")
    await page.wait_for_selector("#table-html")
    session = await store.running_session(LOCAL_CHAT_ID)
    hand = await store.last_hand(session.id)
    assert hand is not None
    # the flowers read counted: Summer is South's own
    assert hand.record["events"][0]["winners"] == [
        {"seat": 1, "concealed": True, "dragon_pungs": 1, "seat_flower": 1}], hand.record
    assert scored(hand.record) == list(hand.outcome["deltas"])
    assert not page.errors


async def test_a_photo_the_reader_refuses_is_said_beside_the_tiles(browser: Any, site: str,
                                                                   store: Store,
                                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(bot.web.api, "read_tiles_async", Reader(reading([])))
    page = await open_page(browser, site, lang="zh-CN")
    await start_in_page(page, "hainan")
    await page.click("nav button[data-screen=hand]")
    await page.click("[data-row=winner] [data-seat='0']")
    await page.click("#mode-tiles")
    assert await page.inner_text("#photo") == "拍照读牌"
    await page.set_input_files("#photo-file", files=[{"name": "dark.png", "mimeType": "image/png",
                                                      "buffer": PICTURE}])
    await page.wait_for_selector("#problem")
    assert "照片" in await page.inner_text("#problem")
    assert await page.locator("#held [data-tile]").count() == 0  # nothing filled
    await page.screenshot(path="/tmp/w38-photo-refused.png", full_page=True)
    assert not page.errors
