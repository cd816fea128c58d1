"""Seats that change hands on the page (a 360-px phone in chromium, and the API): a guest
takes a seat from the next hand on, two seats swap, what each person won stays theirs, and a
person given two seats is refused with nothing changed."""

from __future__ import annotations

from typing import Any

from aiohttp.test_utils import TestClient

from bot.chat.table import table_lines
from bot.view.i18n import translator
from bot.web.local import LOCAL_CHAT_ID
from db import Store

from .browser import no_sideways_scroll, shot
from .test_api import post
from .test_page import book_previewed, open_page, start_in_page


async def book_self_draw(page: Any, seat: int) -> None:
    await page.click("nav button[data-screen=hand]")
    await page.click(f"[data-row=winner] [data-seat='{seat}']")
    await page.click("[data-field=form][data-value=all_pungs]")
    await page.click("#exhausted")
    await book_previewed(page)


async def test_a_substitute_and_a_swap_on_a_phone(browser: Any, site: str, store: Store) -> None:
    page = await open_page(browser, site)
    await start_in_page(page, "luzhou", stake="0.5")
    session = await store.running_session(LOCAL_CHAT_ID)
    assert session is not None
    alice, bob, carol, dave = session.seats
    await book_self_draw(page, 1)  # hand 1: Bob wins, Dave in the North seat
    first = await store.last_hand(session.id)
    assert first is not None
    # Eve takes Dave's seat from hand 2 on
    await page.fill("#guest-name", "Eve")
    await page.select_option("#guest-seat", "3")
    await page.click("#guest-sit")
    await page.wait_for_selector("#leave-3:has-text('Eve')")
    await shot(page, "seats-01-substitute")
    await no_sideways_scroll(page)
    # a person given two seats: refused, said, nothing changed
    await page.fill("#guest-name", "Eve")
    await page.select_option("#guest-seat", "0")
    await page.click("#guest-sit")
    await page.wait_for_selector("#problem:has-text('Eve already sits North')")
    now = await store.running_session(LOCAL_CHAT_ID)
    assert now is not None and now.seats[0] == alice
    eve = now.seats[3]
    await book_self_draw(page, 3)  # hand 2: Eve wins in the North seat
    second = await store.last_hand(session.id)
    assert second is not None and second.id != first.id
    # East and South swap (换位)
    await page.click("#swap-0-1")
    await page.wait_for_selector("#leave-0:has-text('Bob')")
    now = await store.running_session(LOCAL_CHAT_ID)
    assert now is not None and now.seats == (bob, alice, carol, eve)
    # each person's own: checked by hand from the two hands' seat points
    d1, d2 = first.outcome["deltas"], second.outcome["deltas"]
    own = {alice: d1[0] + d2[0], bob: d1[1] + d2[1], carol: d1[2] + d2[2], dave: d1[3], eve: d2[3]}
    assert {r.person_id: r.points for r in await store.person_results([session.id])} == own
    shown = await page.inner_html("#table-html")
    assert shown == await page.evaluate("glyphs", "\n".join(
        await table_lines(store, now, translator("en"), "en")))  # 🀄 drawn from the page's faces
    assert "Played earlier, now not seated:" in shown and "Dave" in shown
    pts = await page.locator(".player .pts").all_inner_texts()
    assert [int(x.replace("+", "").replace("−", "-")) for x in pts] == [own[p] for p in now.seats]
    await shot(page, "seats-02-swapped")
    await no_sideways_scroll(page)
    assert not page.errors


async def test_the_seat_api_refuses_what_it_cannot_do(client: TestClient, store: Store) -> None:
    await post(client, "session", {"variant": "luzhou", "names": ["A", "B", "C", "D"]})
    session = await store.running_session(LOCAL_CHAT_ID)
    assert session is not None
    for body in ({"op": "swap", "seat": 0, "other": 7}, {"op": "fly", "seat": 0},
                 {"op": "sit", "seat": 0}):  # the local user is nobody at the table
        data = await post(client, "seat", body, status=422)
        assert data["code"] == "not_a_seat", (body, data)
    data = await post(client, "seat", {"op": "guest", "seat": 1, "name": "D"}, status=409)
    assert "D already sits North" in data["error"] and data["code"] == "two_seats"
    assert (await store.running_session(LOCAL_CHAT_ID)).seats == session.seats  # type: ignore[union-attr]
    data = await post(client, "seat", {"op": "leave", "seat": 2})
    assert data["session"]["names"][2] is None and not data["session"]["seated"]
    await post(client, "end", {})
    data = await post(client, "seat", {"op": "swap", "seat": 0, "other": 1}, status=409)
    assert data["code"] == "no_session"
