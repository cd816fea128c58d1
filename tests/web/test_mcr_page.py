"""Chinese Official mahjong (issue 30) on the page: the API's form for it (its winner's flags and
total, no control for the tiles the tile picker fills, the honours and flowers), a hand booked
by tiles and one by its total; and in a browser, a hand picked tile by tile with a melded pung,
then one by its points counter, each booked as the chat would book it."""

from __future__ import annotations

from typing import Any

import pytest
from aiohttp.test_utils import TestClient

from bot.web.local import LOCAL_CHAT_ID
from db import Store
from scoring import score
from scoring.tiles import analyze

from .browser import no_sideways_scroll, shot
from .test_api import post
from .test_page import NAMES, book_previewed, open_page, start_in_page

pytest.importorskip("MahjongGB", reason="counting from tiles needs PyMahjongGB (the mcr extra)")

SUITED = [f"{n}{s}" for s in "mps" for n in range(1, 10)]


async def test_the_api_offers_and_books_a_chinese_official_hand(client: TestClient,
                                                               store: Store) -> None:
    state = await post(client, "state", {}, lang="zh-Hans")
    assert {"name": "mcr", "title": "国标麻将"} in state["variants"]
    await post(client, "session", {"variant": "mcr", "names": NAMES})
    form = await post(client, "form", {})
    # the hand's tiles and its elements have no control of their own on the form
    assert [(f["name"], f["kind"]) for f in form["winner"]] == [
        ("points", "int"), ("flowers", "int"), ("fourth_tile", "bool"), ("last_of_wall", "bool")]
    assert form["winner"][0]["hi"] == 999  # the model's bound, not a counter's 8
    tiles = form["tiles"]
    assert tiles["codes"] == [*SUITED, *(f"{n}z" for n in range(1, 8)),
                              *(f"{n}f" for n in range(1, 9))]
    assert tiles["jokers"] == {"": []} and not tiles["indicator"]
    assert [e["type"] for e in form["extras"]] == ["false_win"]

    reading = await post(client, "tiles", {"tiles": "123m456m789m55p[123p]+5p", "seat": 1,
                                        "by": "discard"})
    assert reading.pop("label") == "Best reading: 21 points, the winner collects 45 points"
    assert reading == analyze({"variant": "mcr", "tiles": "123m456m789m55p[123p]+5p", "seat": 1,
                               "by": "discard"})
    assert reading["points"] == 21 and reading["readings"][0]["sets"][-1] == {
        "kind": "chow", "tiles": "123p", "meld": "exposed"}
    by_tiles = [{"type": "win", "by": "discard", "from": 0,
                 "winners": [{"seat": 1, "tiles": "123m456m789m55p[123p]+5p"}]}]
    shown = await post(client, "preview", {"events": by_tiles})
    assert "Pure Straight 16 · All Chows 2 · Mixed Double Chow 1 · One Voided Suit 1 · Single " \
           "Wait 1 = 21 points" in shown["html"], shown["html"]
    assert shown["deltas"] == [-29, 45, -8, -8]
    await post(client, "confirm", {"events": by_tiles, "mark": shown["mark"]})

    by_total = [{"type": "win", "by": "self_draw", "winners": [{"seat": 2, "points": 16}]}]
    shown = await post(client, "preview", {"events": by_total})
    assert shown["deltas"] == [-24, -24, 72, -24]
    await post(client, "confirm", {"events": by_total, "mark": shown["mark"]})
    too_few = [{"type": "win", "by": "self_draw", "winners": [{"seat": 3, "points": 7}]}]
    refused = await post(client, "preview", {"events": too_few}, status=422, lang="zh-Hant")
    assert "不算花牌只有 7 番：起和要 8 番" in refused["error"], refused

    session = await store.running_session(LOCAL_CHAT_ID)
    hands = sorted(await store.history(session.id, limit=5), key=lambda h: h.seq)
    assert [h.record["events"][0]["winners"] for h in hands] == [
        [{"seat": 1, "tiles": "123m456m789m55p[123p]+5p"}], [{"seat": 2, "points": 16}]]
    assert all(h.outcome == score(h.record).to_dict() for h in hands)



async def test_beside_tiles_a_chinese_official_winner_adds_the_fourth_tile_the_last_tile_and_flowers(
        client: TestClient, store: Store) -> None:
    await post(client, "session", {"variant": "mcr", "names": NAMES})
    form = await post(client, "form", {})
    assert form["tiles"]["story"] == ["flowers", "fourth_tile", "last_of_wall"]
    tiles = "123m456m789m55p[123p]+5p"
    drawn = {"seat": 1, "tiles": tiles, "last_of_wall": True, "flowers": 2}
    by_tiles = [{"type": "win", "by": "self_draw", "winners": [drawn]}]
    shown = await post(client, "preview", {"events": by_tiles})
    assert "Last Tile Draw 8" in shown["html"] and "Flower Tiles×2 2" in shown["html"], shown["html"]
    best = analyze({"variant": "mcr", "tiles": tiles, "seat": 1, "last_of_wall": True,
                    "flowers": 2})
    assert best["winner"] == drawn and f"= {best['points']} points" in shown["html"]
    assert shown["deltas"] == [-(8 + best["points"]), 3 * (8 + best["points"]),
                               -(8 + best["points"]), -(8 + best["points"])]
    await post(client, "confirm", {"events": by_tiles, "mark": shown["mark"]})

    claimed = {"seat": 2, "tiles": "123m456m789m12p55p+3p", "fourth_tile": True}
    off_discard = [{"type": "win", "by": "discard", "from": 0, "winners": [claimed]}]
    shown = await post(client, "preview", {"events": off_discard})
    assert "Last Tile 4" in shown["html"] and "Last Tile Draw" not in shown["html"], shown["html"]
    await post(client, "confirm", {"events": off_discard, "mark": shown["mark"]})
    # given twice, in the tiles and as the count, the flowers are refused in the chat's words
    twice = [{"type": "win", "by": "self_draw",
              "winners": [{"seat": 3, "tiles": "123m456m789m55p[123p]1f+5p", "flowers": 1}]}]
    refused = await post(client, "preview", {"events": twice}, status=422)
    assert "give them once" in refused["error"], refused

    session = await store.running_session(LOCAL_CHAT_ID)
    hands = sorted(await store.history(session.id, limit=5), key=lambda h: h.seq)
    assert [h.record["events"][0]["winners"] for h in hands] == [[drawn], [claimed]]
    assert all(h.outcome == score(h.record).to_dict() for h in hands)

async def test_the_pages_tiles_request_counts_the_story_beside_the_tiles(
        client: TestClient, store: Store) -> None:
    """The reading the page asks for as the tiles are picked counts what the page says beside
    them (妙手回春, 杠上开花, flowers) before the 8-point minimum, as /hu and Confirm do."""
    await post(client, "session", {"variant": "mcr", "names": NAMES})
    chicken, kong = "[234m][567p][678s]34m11z+5m", "[2222m][567p][678s]34m11z+5m"
    alone = await post(client, "tiles", {"tiles": chicken, "seat": 0, "by": "self_draw"},
                       status=422)
    assert "without flowers" in alone["error"], alone
    last = await post(client, "tiles", {"tiles": chicken, "seat": 0, "by": "self_draw",
                                        "story": {"last_of_wall": True}})
    assert (last["points"], last["value"]) == (8, 48)
    assert last["winner"] == {"seat": 0, "tiles": chicken, "last_of_wall": True}
    after = await post(client, "tiles", {"tiles": kong, "seat": 0, "by": "self_draw",
                                         "after_kong": True, "story": {"flowers": 1}})
    assert (after["points"], after["value"]) == (10, 54)  # 杠上开花 8, 明杠 1, a flower
    await post(client, "tiles", {"tiles": chicken, "story": ["last_of_wall"]}, status=422)


async def test_the_page_books_a_chinese_official_hand_by_tiles_and_by_points(
        browser: Any, site: str, store: Store) -> None:
    page = await open_page(browser, site)
    await start_in_page(page, "mcr")
    await page.click("nav button[data-screen=hand]")
    await page.click("[data-row=winner] [data-seat='0']")
    await page.click("#mode-tiles")
    shown = await page.locator("#picker [data-tile]").evaluate_all(
        "els => els.map(e => e.dataset.tile)")
    assert "7z" in shown and "8f" in shown  # honours and flowers
    for tile in ["1m", "2m", "3m", "4m", "5m", "6m", "7m", "8m", "9m", "1z"]:
        await page.click(f"#picker [data-tile='{tile}']")
    await page.click("[data-target=pung]")  # a melded pung of 红中
    await page.click("#picker [data-tile='7z']")
    await page.click("#picker [data-tile='1z']")  # the winning tile: the target moved there
    await page.wait_for_selector("#reading b")
    tiles = "123456789m1z[777z]+1z"
    best = analyze({"variant": "mcr", "tiles": tiles, "seat": 0})
    # the points the hand counts, then what the winner collects (not the sum alone)
    assert await page.inner_text("#reading b") == (
        f"Best reading: {best['points']} points, the winner collects {best['value']} points")
    await page.click("#preview")
    await page.wait_for_selector("#preview-html")
    preview = await page.inner_text("#preview-html")
    assert "Pure Straight 16 · Half Flush 6 · Dragon Pung 2" in preview, preview
    assert f"= {best['points']} points" in preview, preview
    await shot(page, "mcr-preview-tiles")
    await no_sideways_scroll(page)
    await page.click("#confirm")
    await page.wait_for_selector("#table-html")
    session = await store.running_session(LOCAL_CHAT_ID)
    first = await store.last_hand(session.id)
    assert first.record["events"] == [{"type": "win", "by": "self_draw",
                                       "winners": [best["winner"]]}]
    assert best["winner"] == {"seat": 0, "tiles": tiles}

    # by its points: the counter, ten at a time too
    await page.click("nav button[data-screen=hand]")
    await page.click("[data-row=winner] [data-seat='2']")
    await page.click("#mode-features")
    counter = page.locator("[data-field=points]")
    await counter.locator("[data-step='10']").click()
    await counter.locator("[data-step='10']").click()
    await counter.locator("[data-step='1']").click()
    await shot(page, "mcr-points")
    await book_previewed(page)
    second = await store.last_hand(session.id)
    assert second.record["events"] == [{"type": "win", "by": "self_draw",
                                        "winners": [{"seat": 2, "points": 21}]}]
    assert list(await store.totals(session.id)) == [
        a + b for a, b in zip(score(first.record).deltas, score(second.record).deltas,
                              strict=True)]
    assert not page.errors


async def test_the_page_ticks_the_last_tile_beside_the_tiles(browser: Any, site: str,
                                                            store: Store) -> None:
    """In tiles mode the page offers what the tiles cannot show (the flowers, 绝张, the last
    tile of the wall), not the total they count: 妙手回春 ticked shows in the preview and the
    booked record."""
    page = await open_page(browser, site, lang="zh-Hans")
    await start_in_page(page, "mcr")
    await page.click("nav button[data-screen=hand]")
    await page.click("[data-row=winner] [data-seat='0']")
    await page.click("#mode-tiles")
    assert await page.inner_text("#story h3") == "牌面看不出的"
    story = await page.locator("#story [data-field]").evaluate_all(
        "els => els.map(e => e.dataset.field)")
    assert story == ["fourth_tile", "last_of_wall", "flowers"]  # toggles first, then the counter
    for tile in ["1m", "2m", "3m", "4m", "5m", "6m", "7m", "8m", "9m", "1z"]:
        await page.click(f"#picker [data-tile='{tile}']")
    await page.click("[data-target=pung]")
    await page.click("#picker [data-tile='7z']")
    await page.click("#picker [data-tile='1z']")
    await page.wait_for_selector("#reading b")
    await page.click("#story [data-field=last_of_wall]")
    await page.locator("#story [data-field=flowers] [data-step='1']").click()
    assert await page.get_attribute("#story [data-field=last_of_wall]", "class") == "on"
    await shot(page, "mcr-tiles-story")
    await no_sideways_scroll(page)
    await page.click("#preview")
    await page.wait_for_selector("#preview-html")
    preview = await page.inner_text("#preview-html")
    assert "妙手回春 8" in preview and "花牌 1" in preview, preview
    await shot(page, "mcr-tiles-story-preview")
    await page.click("#confirm")
    await page.wait_for_selector("#table-html")
    session = await store.running_session(LOCAL_CHAT_ID)
    hand = await store.last_hand(session.id)
    tiles = "123456789m1z[777z]+1z"
    best = analyze({"variant": "mcr", "tiles": tiles, "seat": 0, "last_of_wall": True,
                    "flowers": 1})
    assert hand.record["events"] == [{"type": "win", "by": "self_draw", "winners": [best["winner"]]}]
    assert best["winner"] == {"seat": 0, "tiles": tiles, "last_of_wall": True, "flowers": 1}
    assert list(await store.totals(session.id)) == list(score(hand.record).deltas)
    assert not page.errors


async def test_the_reading_counts_the_last_tile_ticked_beside_the_tiles(
        browser: Any, site: str, store: Store) -> None:
    """Tiles worth 5 points alone are refused under the minimum as they are picked; ticking
    妙手回春 beside them asks again with it, and the reading is that hand's (13 points, each
    pays 8 + 13), as the chat counts it."""
    page = await open_page(browser, site)
    await start_in_page(page, "mcr")
    await page.click("nav button[data-screen=hand]")
    await page.click("[data-row=winner] [data-seat='0']")
    await page.click("#mode-tiles")
    for tile in ["1m", "2m", "3m", "4p", "5p", "6p", "6s", "7s", "8s", "2s", "3s", "4s", "5z",
                 "5z"]:
        await page.click(f"#picker [data-tile='{tile}']")
    await page.wait_for_selector("#reading .error")
    assert "5 points without flowers" in await page.inner_text("#reading"), \
        await page.inner_text("#reading")
    await page.click("#story [data-field=last_of_wall]")
    await page.wait_for_selector("#reading b")
    best = analyze({"variant": "mcr", "tiles": "123m456p678s234s5z+5z", "seat": 0,
                    "last_of_wall": True})
    assert (best["points"], best["value"]) == (13, 63)
    assert f"{best['value']}" in await page.inner_text("#reading b")
    await shot(page, "mcr-tiles-last-tile-reading")
    assert not page.errors
