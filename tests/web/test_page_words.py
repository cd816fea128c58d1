"""What the page says after an action, as a new table meets it (issue 37): a blood battle's
first win says the hand goes on; a refusal sits beside the buttons, without "Not allowed:", over
neither the title nor the tabs; Settle lists each transfer once and sends nobody to type /paid;
the chat's emoji and tile characters never show as empty boxes."""

from __future__ import annotations

import re
from typing import Any

from aiohttp.test_utils import TestClient

from bot.chat.settle import settlement
from bot.chat.table import wizard_ctx
from bot.entry.screens import heading
from bot.view.i18n import translator
from bot.web.local import LOCAL_CHAT_ID
from db import Store

from .browser import no_sideways_scroll, shot
from .test_api import post, start
from .test_page import book_previewed, open_page, start_in_page

# Emoji (and the mahjong tiles' block) the chat's HTML carries; a page without an emoji font
# draws them as boxes
EMOJI = re.compile("[\U0001F000-\U0001FAFF\u2600-\u26FF\u23E9-\u23FA\u2705]")


def boxes(a: dict[str, float], b: dict[str, float]) -> bool:
    """Whether two bounding boxes overlap."""
    return not (a["x"] + a["width"] <= b["x"] or b["x"] + b["width"] <= a["x"]
                or a["y"] + a["height"] <= b["y"] or b["y"] + b["height"] <= a["y"])


async def test_a_blood_battle_goes_on_after_its_first_win(browser: Any, site: str,
                                                          store: Store) -> None:
    page = await open_page(browser, site)
    await start_in_page(page, "luzhou")
    await page.click("nav button[data-screen=hand]")
    await page.click("[data-row=winner] [data-seat='1']")
    await page.click("[data-field=form][data-value=all_pungs]")
    await page.click("#preview")  # only Bob has won: the hand goes on
    await page.wait_for_selector("#problem")
    asked = await page.inner_text("#problem")
    assert asked.startswith("The hand goes on: who won next?"), asked
    assert "Anything else" not in await page.inner_text("main")
    assert await page.inner_text("#won") == "Won so far: Bob"  # his win is kept
    await shot(page, "words-blood-battle-goes-on")
    await no_sideways_scroll(page)
    # the wall runs out: the hand is whole and books with Bob's win in it
    await page.click("#exhausted")
    assert not await page.locator("#problem").count()  # a tap clears what was said
    await book_previewed(page)
    session = await store.running_session(LOCAL_CHAT_ID)
    hand = await store.last_hand(session.id)
    assert [e["type"] for e in hand.record["events"]] == ["win", "exhausted"]
    assert hand.record["events"][0]["winners"][0] == {"seat": 1, "form": "all_pungs"}
    assert not page.errors


async def test_a_refusal_sits_beside_the_buttons_in_plain_words(browser: Any, site: str,
                                                                store: Store) -> None:
    page = await open_page(browser, site)
    await start_in_page(page, "guiyang")
    await page.click("nav button[data-screen=hand]")
    await page.click("[data-by=discard]")
    await page.click("[data-row=winner] [data-seat='2']")
    await page.click("[data-row=from] [data-seat='0']")
    await page.click("#mode-tiles")
    # fourteen tiles that make no hand: scoring refuses them at Preview
    for tile in ["1m", "2m", "4m", "5m", "7m", "8m", "1p", "2p", "4p", "5p", "7p", "8p", "9s", "9s"]:
        await page.click(f"#picker [data-tile='{tile}']")
    await page.click("#preview")
    await page.wait_for_selector("#problem")
    text = await page.inner_text("#problem")
    assert text and not text.startswith("Not allowed"), text
    assert "guiyang" not in text and "Guiyang" in text, text  # the style's name, not its key
    await page.wait_for_timeout(4500)  # it stays until the next tap, not four seconds
    problem = await page.locator("#problem").bounding_box()
    for other in ("#title", "#tabs", "#lang", "#preview"):
        box = await page.locator(other).bounding_box()
        assert not boxes(problem, box), other
    await shot(page, "words-refusal-beside-buttons")
    await page.click("#picker [data-tile='9s']")  # the next tap
    assert not await page.locator("#problem").count()
    assert not await store.last_hand((await store.running_session(LOCAL_CHAT_ID)).id)


async def test_settling_lists_each_transfer_once_with_no_command_to_type(
        browser: Any, site: str, store: Store) -> None:
    page = await open_page(browser, site)
    await start_in_page(page, "guiyang", stake="1")
    await page.click("nav button[data-screen=hand]")
    await page.click("[data-row=winner] [data-seat='3']")
    await page.click("[data-field=pure]")
    await book_previewed(page)
    await page.click("nav button[data-screen=settle]")
    await page.wait_for_selector("[data-transfer]")
    body = await page.inner_text("main")
    for payer in ("Alice", "Bob", "Carol"):
        assert body.count(f"{payer} → Dave") == 1, body
    assert "/paid" not in body and "type" not in body.lower()
    assert "The payee taps Received when the money arrives." in body
    assert not EMOJI.search(body), body  # 💰 left out: a box without an emoji font
    await shot(page, "words-settle-once")
    # the chat's /settle is as it was: the numbered transfers and /paid
    chat = await settlement(store, LOCAL_CHAT_ID, translator("en"), "en", None)
    assert "1. Alice → Dave" in chat.text and "/paid" in chat.text
    assert not page.errors


async def test_the_dealers_tile_is_drawn_from_the_pages_faces(browser: Any, site: str) -> None:
    page = await open_page(browser, site)
    await start_in_page(page, "luzhou")
    table = await page.inner_html("#table-html")
    assert 'class="glyph"' in table and "faces/7z.svg" in table  # 🀄 marks the dealer
    assert not EMOJI.search(await page.inner_text("#table-html"))
    drawn = await page.locator("#table-html img.glyph").first.evaluate("el => el.naturalWidth")
    assert drawn > 0  # the face loaded
    await shot(page, "words-dealer-tile")


async def test_the_api_words_a_counted_reading_and_a_blood_battle(client: TestClient,
                                                                  store: Store) -> None:
    await start(client, "luzhou")
    reading = await post(client, "tiles", {"tiles": "123m456m789m55m[555p]+5m", "seat": 0})
    assert reading["label"] == f"Best reading: {reading['value']} ke"  # Luzhou counts 颗
    first = [{"type": "win", "by": "self_draw", "winners": [{"seat": 1, "form": "all_pungs"}]}]
    goes_on = await post(client, "preview", {"events": first}, status=422)
    assert goes_on["incomplete"] and goes_on["error"].startswith("The hand goes on")
    zh = await post(client, "preview", {"events": first}, status=422, lang="zh-Hans")
    ctx = await wizard_ctx(store, await store.running_session(LOCAL_CHAT_ID), "zh-Hans")
    assert zh["error"] == ctx.t(
        "The hand goes on: who won next? Or tap “{exhausted}” if the wall ran out.",
        exhausted=heading(ctx, "exhausted"))
    assert zh["error"] != goes_on["error"]


async def test_settling_in_points_names_no_command(client: TestClient) -> None:
    """Without a stake the page settles in points and, being no chat, sends nobody to /stake."""
    await start(client, "guiyang")
    hand = [{"type": "win", "by": "self_draw", "winners": [{"seat": 3, "pure": True}]}]
    shown = await post(client, "preview", {"events": hand})
    await post(client, "confirm", {"events": hand, "mark": shown["mark"]})
    settled = await post(client, "settle", {})
    assert "No stake is set, so this settles in points." in settled["html"]
    assert "/stake" not in settled["html"] and "/paid" not in settled["html"]
    zh = await post(client, "settle", {}, lang="zh-Hant")
    assert "還沒設底注，所以按分數結算。" in zh["html"] and "/stake" not in zh["html"]
