"""Two tables in one chat, in the page (the system's chromium at 360 px, the local mode): a
second table started beside the first, a button per table to switch between them, each
table's standings, history and hands its own. Screenshots go to test-artefacts/web/."""

from __future__ import annotations

from typing import Any

from bot.chat.table import table_lines
from bot.view.i18n import translator
from bot.web.local import LOCAL_CHAT_ID
from db import Store

from .browser import no_sideways_scroll, shot
from .test_page import book_previewed, open_page, start_in_page

OTHERS = ["Eve", "Frank", "Gina", "Hal"]


async def book_all_pungs(page: Any, seat: int) -> None:
    """A Luzhou hand: `seat` self-draws all pungs, then the wall runs out."""
    await page.click("nav button[data-screen=hand]")
    await page.click(f"[data-row=winner] [data-seat='{seat}']")
    await page.click("[data-field=form][data-value=all_pungs]")
    await page.click("#exhausted")
    await book_previewed(page)


async def test_two_tables_switched_in_the_page(browser: Any, site: str, store: Store) -> None:
    page = await open_page(browser, site)
    await start_in_page(page, "luzhou", stake="0.5")
    assert await page.locator("#tables").count() == 0  # one table: nothing to switch
    await page.click("#another")
    await page.wait_for_selector("#start")
    await shot(page, "tables-01-another")
    await start_in_page(page, "luzhou", names=OTHERS)
    one, two = await store.running_sessions(LOCAL_CHAT_ID)
    assert (one.number, two.number) == (1, 2)

    # the new table is shown, its button lit; a hand booked here is table 2's
    buttons = page.locator("#tables button")
    assert await buttons.count() == 2
    assert await page.get_attribute("#tables button.on", "data-table") == str(two.id)
    assert "Eve" in await page.inner_text(".players")
    await book_all_pungs(page, 2)  # Gina
    await shot(page, "tables-02-second-table")
    await no_sideways_scroll(page)
    hand = await store.last_hand(two.id)
    assert hand is not None and await store.last_hand(one.id) is None
    assert await store.totals(two.id) == tuple(hand.outcome["deltas"])
    assert await page.inner_html("#table-html") == await page.evaluate("glyphs", "\n".join(
        await table_lines(store, two, translator("en"), "en", several=True)))

    # switch to table 1: its players, its (empty) books; table 2's hand is not there
    await page.click(f"#tables button[data-table='{one.id}']")
    await page.wait_for_selector(f"#tables button.on[data-table='{one.id}']")
    assert "Alice" in await page.inner_text(".players")
    assert "Gina" not in await page.inner_text("#main .players")
    assert await page.inner_html("#table-html") == await page.evaluate("glyphs", "\n".join(
        await table_lines(store, one, translator("en"), "en", several=True)))
    await page.click("nav button[data-screen=history]")
    assert "No hands yet." in await page.inner_text("#main")
    await book_all_pungs(page, 0)  # Alice, at table 1
    await shot(page, "tables-03-first-table")
    await no_sideways_scroll(page)
    first = await store.last_hand(one.id)
    assert first is not None and await store.totals(one.id) == tuple(first.outcome["deltas"])
    assert await store.totals(two.id) == tuple(hand.outcome["deltas"])  # untouched

    # back to table 2: its history has its one hand
    await page.click(f"#tables button[data-table='{two.id}']")
    await page.wait_for_selector(f"#tables button.on[data-table='{two.id}']")
    await page.click("nav button[data-screen=history]")
    await page.wait_for_selector(".card.chat")
    assert await page.locator(".card.chat").count() == 1
    assert "Gina" in await page.inner_text("#main")
    await shot(page, "tables-04-history")
    await no_sideways_scroll(page)

    # in Chinese: the tables by their Chinese names, still side by side on the phone
    for lang, word in (("zh-Hans", "第 1 桌"), ("zh-Hant", "第 2 桌")):
        await page.select_option("#lang", lang)
        await page.wait_for_function(f"() => document.querySelector('#tables').innerText.includes('{word}')")
        await shot(page, f"tables-05-{lang}")
        await no_sideways_scroll(page)
    assert not page.errors
