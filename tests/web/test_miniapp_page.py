"""The page as a Telegram Mini App, against the real bot (`serve`, polling the fake Bot API of
tests/fake_telegram) and its HTTP side: /table's and /hand's URL button only when PUBLIC_URL and
MINI_APP_NAME are set, with the chat's token; in a browser with a stubbed window.Telegram.WebApp
and initData signed with the bot's token, a hand booked in the page is announced in the group
and a hand booked in the chat shows in the page; forged initData gets nothing."""

from __future__ import annotations

import json
import socket
import time
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest

from bot.runner import serve
from bot.web.auth import HEADER, chat_token, sign_init_data
from db import Store
from tests.e2e.conftest import settings_for
from tests.e2e.table import Table
from tests.fake_telegram import FakeTelegram

from .browser import PHONE, launch, no_sideways_scroll, shot

TIMEOUT = 10.0
THEME = {"bg_color": "#17212b", "text_color": "#f5f5f5", "hint_color": "#708499",
         "button_color": "#5288c1", "button_text_color": "#ffffff",
         "secondary_bg_color": "#232e3c", "link_color": "#6ab3f3"}


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@pytest.fixture
async def tg() -> AsyncIterator[FakeTelegram]:
    async with FakeTelegram() as fake:
        yield fake


@pytest.fixture
def db_url(tmp_path: Path) -> str:
    return f"sqlite+aiosqlite:///{tmp_path}/bot.sqlite3"


def players(tg: FakeTelegram) -> Table:
    return Table(tg, tg.group("Thursday mahjong"), [
        tg.user(101, "Alice", "alice"), tg.user(102, "Bob", "bob"),
        tg.user(103, "Carol", "carol"), tg.user(104, "Dan", "dan")])


def url_buttons(message: Any) -> list[str]:
    return [b["url"] for row in message.buttons for b in row if "url" in b]


async def test_the_url_button_only_when_configured(tg: FakeTelegram, db_url: str) -> None:
    table = players(tg)
    async with serve(settings_for(tg, db_url), poll_timeout=1):
        await table.seat_everyone("guiyang")
        assert url_buttons(await table.say(table.players[0], "/table")) == []
        assert url_buttons(await table.say(table.players[0], "/hand")) == []
    configured = settings_for(tg, db_url, public_url="https://mj.example", mini_app="table")
    async with serve(configured, poll_timeout=1):
        link = f"https://t.me/mj_ledger_bot/table?startapp={chat_token(tg.token, table.chat_id)}"
        assert url_buttons(await table.say(table.players[0], "/table")) == [link]
        assert url_buttons(await table.say(table.players[0], "/hand")) == [link]


def init_data(tg: FakeTelegram, user: dict[str, Any], chat_id: int, token: str | None = None) -> str:
    fields = {"auth_date": str(int(time.time())), "query_id": "AAH",
              "user": json.dumps({"id": user["id"], "first_name": user["first_name"],
                                  "language_code": "en"}),
              "start_param": chat_token(tg.token, chat_id)}
    return sign_init_data(fields, token or tg.token)


async def telegram_page(browser: Any, url: str, data: str) -> Any:
    """The page as Telegram opens it: window.Telegram.WebApp (stubbed here, so telegram.org's
    script is not loaded) with the signed initData and a dark theme."""
    context = await browser.new_context(viewport=PHONE, device_scale_factor=2)
    context.set_default_timeout(8000)
    stub = {"initData": data, "initDataUnsafe": {}, "themeParams": THEME, "colorScheme": "dark"}
    await context.add_init_script(
        f"window.Telegram = {{WebApp: Object.assign({json.dumps(stub)}, "
        "{ready() {}, expand() {}, onEvent() {}})};")
    page = await context.new_page()
    page.requests = []
    page.on("request", lambda r: page.requests.append(r.url))
    await page.goto(url + "#tgWebAppData=" + "x&tgWebAppVersion=8.0")
    return page


async def test_the_mini_app_books_and_the_chat_hears(tg: FakeTelegram, db_url: str) -> None:
    table = players(tg)
    alice, bob = table.players[0], table.players[1]
    port = free_port()
    settings = settings_for(tg, db_url, port=port, listen="127.0.0.1",
                            public_url="https://mj.example", mini_app="table")
    async for browser in launch():
        async with serve(settings, poll_timeout=1):
            await table.seat_everyone("guiyang")
            url = f"http://127.0.0.1:{port}/app/"
            page = await telegram_page(browser, url, init_data(tg, alice, table.chat_id))
            await page.wait_for_selector("#table-html")
            bg = await page.evaluate("getComputedStyle(document.body).backgroundColor")
            assert bg == "rgb(23, 33, 43)"  # Telegram's theme, not the page's own
            await shot(page, "10-miniapp-standings")
            await no_sideways_scroll(page)

            # a hand booked in the page: the group is told, as the wizard's Confirm tells it
            mark = len(tg.requests)
            await page.click("nav button[data-screen=hand]")
            await page.click("[data-row=winner] [data-seat='1']")
            await page.click("[data-field=form][data-value=seven_pairs]")
            await shot(page, "11-miniapp-hand")
            await page.click("#preview")
            await page.click("#confirm")
            await page.wait_for_selector("#table-html")
            to_group = lambda r: str(r.params.get("chat_id")) == str(table.chat_id)  # noqa: E731
            told = await tg.wait_for_request("sendMessage", TIMEOUT, after=mark, where=to_group)
            assert "Hand 1 recorded" in tg.message(table.chat_id, told.result["message_id"]).text

            # a hand booked in the chat: the page shows it
            await table.tap(bob, await table.say(bob, "/hu 1 zimo"), "Confirm")
            await page.reload()
            await page.click("nav button[data-screen=history]")
            await page.wait_for_selector(".card.chat")
            history = await page.locator(".card.chat").all_inner_texts()
            assert any("Hand 2" in block for block in history), history
            await shot(page, "12-miniapp-history")
            assert not [u for u in page.requests if not u.startswith(url)]  # nothing fetched elsewhere

            # forged initData (another bot's signature): refused, nothing shown, nothing booked
            forged = await telegram_page(browser, url, init_data(tg, alice, table.chat_id, "1:forged"))
            await forged.wait_for_selector("#main .error")
            assert await forged.locator("#table-html").count() == 0
            await shot(forged, "13-miniapp-forged")
            store = await Store.open(db_url)
            try:
                session = await store.running_session(table.chat_id)
                assert await store.standing_hands(session.id) == 2
            finally:
                await store.close()


async def test_a_player_kicked_from_the_group_books_nothing(tg: FakeTelegram, db_url: str) -> None:
    """The real bot's HTTP side and the fake Bot API's getChatMember: Alice, seated, is removed
    from the group; her page's Confirm is refused and nothing is booked; Bob books. The page's
    answers carry the Mini App's frame policy (Telegram's web clients only)."""
    import aiohttp

    table = players(tg)
    alice, bob = table.players[0], table.players[1]
    port = free_port()
    settings = settings_for(tg, db_url, port=port, listen="127.0.0.1",
                            public_url="https://mj.example", mini_app="table")
    api = f"http://127.0.0.1:{port}/app/api/"
    event = {"events": [{"type": "win", "by": "self_draw", "winners": [{"seat": 1}]}]}

    async def book(http: aiohttp.ClientSession, user: dict[str, Any]) -> int:
        headers = {HEADER: init_data(tg, user, table.chat_id)}
        async with http.post(api + "preview", json=event, headers=headers) as shown:
            if shown.status != 200:
                return shown.status
            mark = (await shown.json())["mark"]
        async with http.post(api + "confirm", json={**event, "mark": mark}, headers=headers) as done:
            return done.status

    async with serve(settings, poll_timeout=1), aiohttp.ClientSession() as http:
        await table.seat_everyone("guiyang")
        async with http.get(f"http://127.0.0.1:{port}/app/") as page:
            policy = page.headers["Content-Security-Policy"]
            assert "frame-ancestors https://web.telegram.org" in policy
            assert "script-src 'self' https://telegram.org" in policy
            assert "X-Frame-Options" not in page.headers
        assert await book(http, alice) == 200
        tg.remove_member(table.chat_id, alice, banned=True)
        assert await book(http, alice) == 403
        asked = [r for r in tg.requests_for("getChatMember") if r.params.get("user_id") == alice["id"]]
        assert asked, "Telegram was not asked whether Alice is still in the group"
        assert await book(http, bob) == 200
    store = await Store.open(db_url)
    try:
        assert await store.standing_hands((await store.running_session(table.chat_id)).id) == 2
    finally:
        await store.close()


async def test_the_mini_app_opens_on_the_callers_table(tg: FakeTelegram, db_url: str) -> None:
    """Two tables in the group: each player's Mini App opens on their own table, switches to the
    other to read it, and books only where they sit."""
    table = players(tg)
    eve, frank, gina, hal = (tg.user(105, "Eve", "eve"), tg.user(106, "Frank", "frank"),
                             tg.user(107, "Gina", "gina"), tg.user(108, "Hal", "hal"))
    port = free_port()
    settings = settings_for(tg, db_url, port=port, listen="127.0.0.1",
                            public_url="https://mj.example", mini_app="table")
    async for browser in launch():
        async with serve(settings, poll_timeout=1):
            await table.seat_everyone("guiyang")
            asked = await table.say(eve, "/new guiyang")
            await table.tap(eve, asked, "Start another table")
            for p in (eve, frank, gina, hal):
                await table.tap(p, asked.message_id, "Join")
            store = await Store.open(db_url)
            try:
                one, two = await store.running_sessions(table.chat_id)
            finally:
                await store.close()
            url = f"http://127.0.0.1:{port}/app/"
            page = await telegram_page(browser, url, init_data(tg, eve, table.chat_id))
            await page.wait_for_selector("#table-html")
            assert await page.get_attribute("#tables button.on", "data-table") == str(two.id)
            assert "Eve" in await page.inner_text(".players")
            assert await page.locator("nav button[data-screen=hand]").count() == 1
            await shot(page, "14-miniapp-own-table")
            await no_sideways_scroll(page)

            await page.click(f"#tables button[data-table='{one.id}']")
            await page.wait_for_selector(f"#tables button.on[data-table='{one.id}']")
            assert "Alice" in await page.inner_text(".players")
            assert await page.locator("nav button[data-screen=hand]").count() == 0  # not hers
            refused = await page.evaluate("api('confirm', {}).then((r) => r.status)")
            assert refused == 403
            await shot(page, "15-miniapp-other-table")
            await no_sideways_scroll(page)

            alice_page = await telegram_page(browser, url, init_data(tg, table.players[0],
                                                                     table.chat_id))
            await alice_page.wait_for_selector("#table-html")
            assert await alice_page.get_attribute("#tables button.on", "data-table") == str(one.id)


async def test_a_scorekeeper_of_four_guests_books_and_ends_in_the_mini_app(
        tg: FakeTelegram, db_url: str) -> None:
    """Alice seats four guests and sits nowhere: as the session's scorekeeper the Mini App lets
    her book a hand, change a seat and end the session; Dan, who neither sits nor keeps score,
    is refused."""
    table = players(tg)
    alice, dan = table.players[0], table.players[3]
    port = free_port()
    settings = settings_for(tg, db_url, port=port, listen="127.0.0.1",
                            public_url="https://mj.example", mini_app="table")
    async for browser in launch():
        async with serve(settings, poll_timeout=1):
            await table.say(alice, "/new guiyang")
            for name in ("Wang", "Li", "Zhang", "Zhao"):
                await table.say(alice, f"/guest {name}")
            await table.say(dan, "/table")  # Dan is known to the bot, but not at this table
            url = f"http://127.0.0.1:{port}/app/"
            outsider = await telegram_page(browser, url, init_data(tg, dan, table.chat_id))
            await outsider.wait_for_selector("#main .error")
            assert await outsider.locator("#table-html").count() == 0
            page = await telegram_page(browser, url, init_data(tg, alice, table.chat_id))
            await page.wait_for_selector("#table-html")
            await page.click("nav button[data-screen=hand]")
            await page.click("[data-row=winner] [data-seat='2']")
            await page.click("[data-field=form][data-value=seven_pairs]")
            await page.click("#preview")
            await page.click("#confirm")
            await page.wait_for_selector("#table-html")
            await page.fill("#guest-name", "Qian")  # a substitute for Zhao from hand 2 on
            await page.select_option("#guest-seat", "3")
            await page.click("#guest-sit")
            await page.wait_for_selector("#leave-3:has-text('Qian')")
            await shot(page, "14-miniapp-scorekeeper")
            await no_sideways_scroll(page)
            page.on("dialog", lambda dialog: dialog.accept())
            await page.click("#end")
            await page.wait_for_selector("#table-html", state="detached")  # no session now
            store = await Store.open(db_url)
            try:
                sessions = await store.chat_sessions(table.chat_id, include_settled=True)
                assert sessions[0].ended_at is not None
                assert await store.standing_hands(sessions[0].id) == 1
                results = await store.person_results([sessions[0].id])
                people = await store.get_people(r.person_id for r in results)
                assert {people[r.person_id].name for r in results} == {"Wang", "Li", "Zhang", "Zhao"}
                assert sum(r.points for r in results) == 0
            finally:
                await store.close()
