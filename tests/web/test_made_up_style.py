"""A style made up by the tests (tests/made_up_style/, registered for the test alone) in the
page: the API offers it with its own title, its winner features by its own names, its tile set
and its joker, books its hands by features and by tiles as the chat would; and the page in a
browser plays it from what the API says, keeping no list of its own."""

from __future__ import annotations

from typing import Any

from aiohttp.test_utils import TestClient

from bot.chat.table import wizard_ctx
from bot.entry.wizard.flow import new_draft, screen
from bot.web.local import LOCAL_CHAT_ID
from db import Store
from scoring import score
from scoring.variant import Variant
from scoring.variants import ORDER

from .browser import shot
from .test_api import post
from .test_page import NAMES, book_previewed, open_page, start_in_page

SUITED = [f"{n}{s}" for s in "mps" for n in range(1, 10)]


async def test_the_api_offers_and_books_a_made_up_style(made_up_style: Variant, client: TestClient,
                                                        store: Store) -> None:
    state = await post(client, "state", {}, lang="zh-Hans")
    assert {"name": "toy", "title": "玩具麻将"} in state["variants"]
    await post(client, "session", {"variant": "toy", "names": NAMES})
    form = await post(client, "form", {})
    assert [(f["name"], f["label"]) for f in form["winner"]] == [
        ("form", "Form"), ("pure", "pure suit"), ("no_blank", "no blank")]
    assert [c["label"] for c in form["winner"][0]["choices"]] == ["plain", "seven pairs"]
    tiles = form["tiles"]
    assert tiles["codes"] == [*SUITED, "5z"] and tiles["jokers"] == {"": ["5z"]}
    assert not tiles["indicator"] and not form["blood_battle"] and form["exhausted"] is not None
    assert tiles["story"] == []  # its tiles show a winner whole: nothing to add beside them

    session = await store.running_session(LOCAL_CHAT_ID)
    ctx = await wizard_ctx(store, session, "en")
    by_features = [{"type": "win", "by": "discard", "from": 3,
                    "winners": [{"seat": 2, "form": "seven_pairs"}]}]
    shown = await post(client, "preview", {"events": by_features})
    assert shown["html"] == screen(new_draft(by_features, step="preview"), ctx).text
    assert shown["deltas"] == [0, 0, 2, -2]
    await post(client, "confirm", {"events": by_features, "mark": shown["mark"]})

    reading = await post(client, "tiles", {"tiles": "123m456m789m111p2p+5z", "seat": 1})
    assert reading["winner"] == {"seat": 1} and reading["value"] == 3  # 1 from each, the blank held
    by_tiles = [{"type": "win", "by": "self_draw",
                 "winners": [{"seat": 1, "tiles": "123m456m789m111p2p+5z"}]}]
    shown = await post(client, "preview", {"events": by_tiles})
    assert "Read from the tiles" in shown["html"] and shown["deltas"] == [-1, 3, -1, -1]
    await post(client, "confirm", {"events": by_tiles, "mark": shown["mark"]})
    hands = sorted(await store.history(session.id, limit=5), key=lambda h: h.seq)
    assert [h.outcome == score(h.record).to_dict() for h in hands] == [True, True]
    assert list(await store.totals(session.id)) == [-1, 3, 1, -3]


async def test_the_page_plays_a_made_up_style(made_up_style: Variant, browser: Any,
                                              site: str, store: Store) -> None:
    page = await open_page(browser, site)
    # the page lists the styles as /new and /help do: ORDER's, then the made-up one
    offered = await page.locator("#variant option").evaluate_all("els => els.map(e => e.value)")
    assert offered == [*ORDER, "toy"]
    await start_in_page(page, "toy")
    await page.click("nav button[data-screen=hand]")
    await page.click("[data-row=winner] [data-seat='2']")
    await page.click("[data-field=pure]")
    await shot(page, "made-up-style-features")
    await book_previewed(page)
    session = await store.running_session(LOCAL_CHAT_ID)
    first = await store.last_hand(session.id)
    assert first.record["events"] == [{"type": "win", "by": "self_draw",
                                       "winners": [{"seat": 2, "pure": True}]}]

    # by tiles: the picker holds the suits and the blank alone, the blank marked as the joker
    await page.click("nav button[data-screen=hand]")
    await page.click("[data-row=winner] [data-seat='0']")
    await page.click("#mode-tiles")
    shown = await page.locator("#picker [data-tile]").evaluate_all(
        "els => els.map(e => e.dataset.tile)")
    assert shown == [*SUITED, "5z"]
    assert await page.locator("#picker [data-tile='5z'].joker").count() == 1
    assert await page.locator("#story").count() == 0  # nothing beside its tiles
    for tile in ["1m", "2m", "3m", "4m", "5m", "6m", "7m", "8m", "9m", "1p", "1p", "1p", "2p", "5z"]:
        await page.click(f"#picker [data-tile='{tile}']")
    await page.wait_for_selector("#reading b")
    await shot(page, "made-up-style-tiles")
    await book_previewed(page)
    second = await store.last_hand(session.id)
    assert second.id != first.id
    assert second.record["events"][0]["winners"] == [{"seat": 0}]
    assert list(await store.totals(session.id)) == [-2 + 3, -2 - 1, 6 - 1, -2 - 1]
    assert not page.errors
