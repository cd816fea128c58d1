"""Singapore mahjong (issue 36) on the page, in Chromium: a hand booked with its kong, the cat
and the mouse shown during the hand (an animal pair's bite) and the winner's dragon pung; a hand
by tiles with an animal from the picker — each booked as the chat books it, scored as
`python -m scoring score` scores it."""

from __future__ import annotations

from typing import Any

from bot.web.local import LOCAL_CHAT_ID
from db import Store

from .browser import shot
from .test_page import book_previewed, open_page, pick_tiles, scored, start_in_page


async def test_a_singapore_hand_with_its_bites_on_the_page(browser: Any, site: str,
                                                           store: Store) -> None:
    page = await open_page(browser, site)
    await start_in_page(page, "singapore")
    await page.click("nav button[data-screen=hand]")
    await page.click("[data-row=winner] [data-seat='1']")
    await page.click("[data-add=kong]")
    kong = page.locator("[data-event='0']")
    await kong.locator("[data-row=seat] [data-seat='2']").click()
    await kong.locator("[data-field=kind][data-value=exposed]").click()
    await kong.locator("[data-row=from] [data-seat='3']").click()
    for i, animal in ((1, "cat"), (2, "mouse")):
        await page.click("[data-add=bonus]")
        shown = page.locator(f"[data-event='{i}']")
        await shown.locator("[data-row=seat] [data-seat='1']").click()
        await shown.locator(f"[data-field={animal}]").click()
    await page.click("#editor [data-field=dragon_pungs] [data-step='1']")
    await shot(page, "singapore-bites")
    await book_previewed(page)
    session = await store.running_session(LOCAL_CHAT_ID)
    hand = await store.last_hand(session.id)
    assert hand is not None
    assert [e["type"] for e in hand.record["events"]] == ["kong", "bonus", "bonus", "win"]
    assert hand.outcome["deltas"] == [-90, 270, -60, -120]
    assert scored(hand.record) == list(hand.outcome["deltas"])
    assert not page.errors


async def test_a_singapore_hand_by_tiles_with_an_animal(browser: Any, site: str,
                                                        store: Store) -> None:
    page = await open_page(browser, site)
    await start_in_page(page, "singapore")
    await page.click("nav button[data-screen=hand]")
    await page.click("[data-row=winner] [data-seat='3']")
    await page.click("#mode-tiles")
    codes = await page.locator("#picker [data-tile]").evaluate_all(
        "els => els.map(e => e.dataset.tile)")
    assert codes[-4:] == ["1a", "2a", "3a", "4a"], codes
    faces = await page.locator("#picker [data-tile$='a'] img").evaluate_all(
        "els => els.map(e => e.complete && e.naturalWidth > 0)")
    assert faces == [True] * 4  # each animal's own face
    await pick_tiles(page, ["1a", "1m", "2m", "3m", "4p", "5p", "6p", "7s", "8s", "9s", "1p"],
                     "5z", "1p")
    await shot(page, "singapore-tiles")
    await book_previewed(page)
    session = await store.running_session(LOCAL_CHAT_ID)
    hand = await store.last_hand(session.id)
    winner = hand.record["events"][0]["winners"][0]
    assert winner["cat"] is True and winner["dragon_pungs"] == 1
    assert hand.outcome["deltas"] == [-40, -40, -40, 120]  # 2 tai self-drawn: 40 from each
    assert scored(hand.record) == list(hand.outcome["deltas"])
    assert not page.errors
