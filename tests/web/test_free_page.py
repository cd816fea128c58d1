"""Any style's results (`free`) in the page, in Chromium on a 360-px phone: each seat's points
on counters under their sum, a hand off zero refused with the difference named and nothing
booked, then booked once it adds up; a winner and an amount by features; no tile entry offered
for a style that has no tiles."""

from __future__ import annotations

from typing import Any

from aiohttp.test_utils import TestClient

from bot.web.local import LOCAL_CHAT_ID
from db import Store

from .browser import no_sideways_scroll, shot
from .test_api import post
from .test_page import book_previewed, open_page, scored, start_in_page

NAMES = ["张伟", "李四", "王芳", "Bob"]


async def test_the_api_offers_the_points_per_seat(client: TestClient, store: Store) -> None:
    await post(client, "session", {"variant": "free", "names": NAMES})
    form = await post(client, "form", {})
    points = next(x for x in form["extras"] if x["type"] == "points")
    assert points["ends_hand"] and not points["after_end"] and not form["by_tiles"]
    assert points["fields"][0]["value"]["lo"] < 0  # signed: the page draws ± counters
    assert [f["name"] for f in form["winner"]] == ["amount", "all_pay"]
    refused = await post(client, "preview", {"events": [
        {"type": "points", "points": {"0": 12, "1": -4, "2": -4}}]}, status=422)
    assert "the points add up to +4, not 0" in refused["error"]


async def test_the_page_books_a_free_form_hand(browser: Any, site: str, store: Store) -> None:
    page = await open_page(browser, site)
    await start_in_page(page, "free", names=NAMES)
    await page.click("nav button[data-screen=hand]")
    assert await page.locator("#mode-tiles").count() == 0
    await page.click("[data-add=points]")
    rows = "[data-map=points] [data-seat='{}'] [data-step='{}']"
    for seat, steps in ((0, [10, 1, 1]), (1, [-1, -1, -1, -1]), (2, [-10, 1, 1])):
        for k in steps:
            await page.click(rows.format(seat, k))
    assert await page.inner_text("#sum") == "±0"
    await page.click(rows.format(3, 1))  # one too many: Σ +1
    assert await page.inner_text("#sum") == "+1"
    await shot(page, "free-points")
    await no_sideways_scroll(page)
    await page.click("#preview")
    await page.wait_for_selector("text=the points add up to +1, not 0")
    session = await store.running_session(LOCAL_CHAT_ID)
    assert await store.last_hand(session.id) is None
    await page.click(rows.format(3, -1))
    await book_previewed(page)
    first = await store.last_hand(session.id)
    assert first.record["events"] == [{"type": "points", "points": {"0": 12, "1": -4, "2": -8}}]

    # a winner and an amount: 王芳 wins 5 off Bob's discard, everyone paying
    await page.click("nav button[data-screen=hand]")
    await page.click("[data-row=winner] [data-seat='2']")
    await page.click("[data-by=discard]")
    await page.click("[data-row=from] [data-seat='3']")
    for _ in range(4):
        await page.click("[data-field=amount] [data-step='1']")
    await page.click("[data-field=all_pay]")
    await shot(page, "free-win")
    await book_previewed(page)
    second = await store.last_hand(session.id)
    assert second.record["events"] == [{"type": "win", "by": "discard", "from": 3, "winners": [
        {"seat": 2, "amount": 5, "all_pay": True}]}]
    assert scored(second.record) == [-5, -5, 15, -5]
    assert list(await store.totals(session.id)) == [12 - 5, -4 - 5, -8 + 15, -5]
    await shot(page, "free-standings")

    # the group's season under the settling up: one session so far, no chart yet
    await page.click("nav button[data-screen=settle]")
    await page.wait_for_selector("#season-html")
    season = await page.inner_text("#season-html")
    assert "1 session since" in season and "2 hands" in season, season
    assert "2. 王芳: +7\n   1 session, 2 hands, 1 win" in season and "4. 李四: −9" in season, season
    assert await page.locator("#season-chart").count() == 0
    await shot(page, "free-season")
    await no_sideways_scroll(page)
    assert not page.errors


async def test_the_api_gives_the_season_with_its_chart(client: TestClient, store: Store) -> None:
    for points in ({"0": 3, "1": -3}, {"2": 5, "0": -5}):
        await post(client, "session", {"variant": "free", "names": NAMES})
        events = [{"type": "points", "points": points}]
        shown = await post(client, "preview", {"events": events})
        await post(client, "confirm", {"events": events, "mark": shown["mark"]})
        await post(client, "end", {})
    season = await post(client, "season", {}, lang="zh-Hans")
    assert "2 场" in season["html"] and "王芳" in season["html"]
    assert season["chart"].startswith("data:image/png;base64,")
