"""A photo's flowers in the chat (issue 38), end to end over HTTP against the fake Bot API: in a
style that plays flowers they open among the keyboard's flowers and the booked hand counts them
as if tapped; in one that plays none they are left out and the note says so.

The last test reads a real photo with the shipped models (a hand with its flower, booked with no
correction). The others stub the reader (`photo_read_as` makes any picture read as the tiles
given), to follow each style's rule whatever the models read; the line marked `REAL PHOTO` is where
a real photo of the same tiles would go."""

from __future__ import annotations

import io
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from PIL import Image

from bot.photo import chat
from bot.photo.detect import DetectedTile, PhotoReading
from db import Store
from tests.fake_telegram import FakeTelegram

from .table import Table
from .test_table_words import players, seat
from .test_tile_keyboard import keys, screen_with
from .test_typed_tiles import cli_score, stored

TIMEOUT = 30
# 111m 234m 555p 789s 99s is no Singapore win on its own (0 台); East's own flowers make it one
SG_HAND = ["1m", "1m", "1m", "2m", "3m", "4m", "5p", "5p", "5p", "7s", "8s", "9s", "9s", "9s"]
HAND = ["1m", "2m", "3m", "4m", "5m", "6m", "7m", "8m", "9m", "1s", "1s", "5s", "5s", "5s"]


@pytest.fixture
def photo_read_as(monkeypatch: pytest.MonkeyPatch) -> Callable[[list[str]], bytes]:
    """A stand-in for a real photo: returns a picture's bytes, and the bot's reader then reads
    any picture as `names` (PhotoReading.names: the tiles in reading order, flowers `1f`…`8f`
    among them), each read with confidence."""
    def stub(names: list[str]) -> bytes:
        reading = PhotoReading(tuple(DetectedTile(x, 0.97, (60 * i, 0, 60 * i + 50, 70))
                                     for i, x in enumerate(names)))

        async def read(data: bytes, *, timeout: float = 0) -> PhotoReading:
            assert data, "the bot read no picture"
            return reading

        monkeypatch.setattr(chat, "load_model", lambda: None)
        monkeypatch.setattr(chat, "read_tiles_async", read)
        out = io.BytesIO()
        Image.new("RGB", (960, 240), (30, 110, 60)).save(out, format="PNG")  # green cloth
        return out.getvalue()
    return stub


async def photo_wizard(tg: FakeTelegram, table: Table, user: dict[str, Any], data: bytes,
                       caption: str) -> Any:
    await tg.send_photo(table.chat, user, data, caption=caption)
    req = await tg.wait_for_request("sendMessage", TIMEOUT, where=table._mine)
    return table.message(req.result["message_id"])


async def done_and_booked(table: Table, store: Store, user: dict[str, Any], wiz: Any,
                          confirm: str) -> tuple[Any, dict[str, Any]]:
    """Done on the keyboard as the photo left it (no key refused), then Confirm: the hand booked
    and its one event."""
    answers = await keys(table, user, wiz.message_id, ["d"])
    assert not any(a.get("text") for a in answers), answers
    await screen_with(table, wiz.message_id, confirm)
    answer = await table.tap(user, wiz, confirm)
    assert not answer.get("show_alert"), answer
    hand = await stored(store, table)
    [win] = hand.record["events"]
    return hand, win


async def test_singapore_books_the_flowers_a_photo_read_as_if_tapped(
        bot: object, tg: FakeTelegram, store: Store,
        photo_read_as: Callable[[list[str]], bytes]) -> None:
    """East's photo shows the hand and 春 and 梅, his own flowers: the keyboard opens with them
    among the flowers, Done and Confirm with no correction, and the hand is booked with both
    flowers, paid at 2 台 (without them it would not win at all)."""
    table = Table(tg, tg.group("sg flowers"), players(tg, "en"))
    alice = table.players[0]
    await seat(table, "singapore")
    data = photo_read_as([*SG_HAND, "1f", "5f"])  # REAL PHOTO: data = <a photo of these tiles>
    wiz = await photo_wizard(tg, table, alice, data, "/hu E self-draw")
    assert "14 tiles and 2 flowers read from the photo" in wiz.text, wiz.text
    assert "Tiles of East Alice" in wiz.text and "14 of 14 tiles" in wiz.text, wiz.text
    assert "<code>111234m555p78999s15f</code>" in wiz.raw_text, wiz.raw_text
    labels = wiz.button_labels
    assert "✅Spr" in labels and "✅Plum" in labels and "Sum" in labels, labels  # as if tapped
    hand, win = await done_and_booked(table, store, alice, wiz, "Confirm")
    assert win["winners"] == [{"seat": 0, "spring": True, "plum": True}], win
    assert hand.outcome["deltas"] == [120, -40, -40, -40]
    assert hand.outcome == cli_score(hand.record)


async def test_hainan_answering_a_photo_keeps_its_flowers_until_the_winner_is_tapped(
        bot: object, tg: FakeTelegram, store: Store,
        photo_read_as: Callable[[list[str]], bytes]) -> None:
    """/hu answering the photo, no words: who won is asked first, then the keyboard opens with
    the photo's flowers; East's own 春 and 梅 are booked as his two own-flower 番, 夏 beside them."""
    table = Table(tg, tg.group("hainan flowers"), players(tg, "zh-hans"))
    alice = table.players[0]
    await seat(table, "hainan")
    data = photo_read_as(["1f", *HAND, "2f", "5f"])  # REAL PHOTO: data = <a photo of these tiles>
    photo = await tg.send_photo(table.chat, alice, data)
    await tg.send_message(table.chat, alice, "/hu", reply_to=photo.message_id)
    req = await tg.wait_for_request("sendMessage", TIMEOUT, where=table._mine)
    wiz = table.message(req.result["message_id"])
    assert "从照片里认出 14 张牌和 3 张花牌" in wiz.text, wiz.text
    await table.tap_in_row(alice, wiz, "东 Alice", "自摸")
    shown = table.message(wiz.message_id)
    assert "<code>123456789m1155s+5s125f</code>" not in shown.raw_text  # no winning tile yet
    assert "<code>123456789m11555s125f</code>" in shown.raw_text, shown.raw_text
    hand, win = await done_and_booked(table, store, alice, wiz, "确认")
    assert win["winners"][0]["seat"] == 0 and win["winners"][0]["seat_flower"] == 2, win
    assert any("seat_flower:2" in str(line) for line in hand.outcome["lines"]), hand.outcome
    assert hand.outcome == cli_score(hand.record)


async def test_a_style_without_flowers_leaves_the_photos_flowers_out(
        bot: object, tg: FakeTelegram, store: Store,
        photo_read_as: Callable[[list[str]], bytes]) -> None:
    """Guiyang plays no flowers: the two read are left out (the note says so), never hand tiles;
    Done reads the hand as it is."""
    table = Table(tg, tg.group("guiyang flowers"), players(tg, "zh-hant"))
    bob = table.players[1]
    await seat(table, "guiyang")
    data = photo_read_as([*HAND, "3f", "7f"])  # REAL PHOTO: data = <a photo of these tiles>
    wiz = await photo_wizard(tg, table, bob, data, "/hu 南 自摸")
    assert "從照片裡認出 14 張牌：請核對" in wiz.text, wiz.text
    assert "照片裡的 2 張花牌沒有算進去：這種玩法不用花牌。" in wiz.text, wiz.text
    assert "<code>123456789m11555s</code>" in wiz.raw_text, wiz.raw_text
    hand, win = await done_and_booked(table, store, bob, wiz, "確認")
    assert win["winners"][0]["seat"] == 1 and "f" not in win["winners"][0].get("tiles", ""), win
    assert hand.outcome == cli_score(hand.record)


REAL_PHOTO = Path(__file__).parents[1] / "photo" / "real" / "images" / "real5.jpg"


async def test_a_real_photo_with_its_flower_is_booked_without_a_correction(
        bot: object, tg: FakeTelegram, store: Store) -> None:
    """A held-out real photo (tests/photo/real/ATTRIBUTION.md), read by the shipped models: South's
    333p 456p 777p 444z 66z laid in a row with 夏 (Summer, South's own flower) beside it. Done and
    Confirm with no correction; the hand is booked with the flower, as if it had been tapped."""
    table = Table(tg, tg.group("sg real photo"), players(tg, "en"))
    bob = table.players[1]
    await seat(table, "singapore")
    wiz = await photo_wizard(tg, table, bob, REAL_PHOTO.read_bytes(), "/hu S self-draw")
    assert "14 tiles and 1 flower read from the photo" in wiz.text, wiz.text
    assert "<code>333456777p44466z2f</code>" in wiz.raw_text, wiz.raw_text
    assert "✅Sum" in wiz.button_labels, wiz.button_labels
    hand, win = await done_and_booked(table, store, bob, wiz, "Confirm")
    assert win["winners"] == [{"seat": 1, "half_flush": True, "summer": True}], win
    deltas = hand.outcome["deltas"]
    assert deltas[1] > 0 and all(d < 0 for i, d in enumerate(deltas) if i != 1), deltas
    assert hand.outcome == cli_score(hand.record)


async def test_flowers_alone_where_none_are_played_are_no_tiles_seen(
        bot: object, tg: FakeTelegram, store: Store,
        photo_read_as: Callable[[list[str]], bytes]) -> None:
    """Guiyang plays no flowers: a photo that shows only flowers shows nothing of a hand, and is
    answered as a photo without tiles (no keyboard opened, nothing booked)."""
    table = Table(tg, tg.group("guiyang only flowers"), players(tg, "en"))
    bob = table.players[1]
    await seat(table, "guiyang")
    shown = await photo_wizard(tg, table, bob, photo_read_as(["3f", "7f"]), "/hu S self-draw")
    assert shown.text.startswith("⚠️ I could not see any tiles in this photo"), shown.text
    assert not shown.button_labels
    assert await store.history((await store.running_session(table.chat_id)).id, limit=1) == []
