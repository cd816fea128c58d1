"""The README's pictures, made from the real thing: the bot (its real handlers, against the
fake Bot API server) plays a first evening in a group, and its messages, as sent, are drawn
as a chat; the local page is opened in the system's chromium on the same kind of books.

    .venv/bin/python -m tests.screenshots          # writes docs/img/chat.png and docs/img/page.png

tests/test_first_hour.py makes them too (into a temporary folder) and checks the ones in
docs/img/ are there. The chat's emoji need an emoji font where they are made (Debian:
fonts-noto-color-emoji, as for the committed pictures); without one they are empty boxes."""

from __future__ import annotations

import asyncio
import html
import sys
import tempfile
from pathlib import Path
from typing import Any

from aiohttp.test_utils import TestServer

from bot.runner import serve
from bot.web.local import local_app
from db import Store
from tests.e2e.conftest import settings_for
from tests.e2e.table import Table
from tests.fake_telegram import FakeTelegram
from tests.web.browser import launch

ROOT = Path(__file__).resolve().parents[1]
IMAGES = ROOT / "docs" / "img"
NAMES = ("Alice", "Bob", "Carol", "Dan")

# A Telegram-like chat: the bot's HTML as it sent it (Telegram shows the same tags), its buttons
# under the message, what each player typed on the right.
STYLE = """
body { margin: 0; background: #c8d9b4;
       font: 15px/1.35 system-ui, "Noto Sans CJK SC", sans-serif, "Noto Color Emoji"; }
.chat { width: 420px; padding: 12px; display: flex; flex-direction: column; gap: 8px; }
.msg { max-width: 340px; padding: 7px 10px; border-radius: 12px; white-space: pre-wrap;
       overflow-wrap: anywhere; box-shadow: 0 1px 1px #0002; }
.bot { background: #fff; align-self: flex-start; }
.me { background: #effdde; align-self: flex-end; }
.who { font-weight: 600; color: #3a8d5d; font-size: 13px; display: block; }
.keys { display: grid; gap: 4px; margin-top: 4px; max-width: 360px; }
.row { display: flex; gap: 4px; }
.row span { flex: 1; text-align: center; background: #5b8a5faa; color: #fff; border-radius: 8px;
            padding: 6px 4px; font-size: 13px; }
pre, code { font-family: ui-monospace, monospace; font-size: 13px; }
"""


async def first_evening(folder: Path) -> list[dict[str, Any]]:
    """What a group sees on its first evening: the bubbles in order (who, HTML, buttons)."""
    bubbles: list[dict[str, Any]] = []
    async with FakeTelegram() as tg:
        db_url = f"sqlite+aiosqlite:///{folder}/chat.sqlite3"
        async with serve(settings_for(tg, db_url), poll_timeout=1):
            players = [tg.user(101 + i, name, name.lower()) for i, name in enumerate(NAMES)]
            table = Table(tg, tg.group("Thursday mahjong"), players)
            alice, bob = players[:2]

            def said(user: dict[str, Any], text: str) -> None:
                bubbles.append({"who": user["first_name"], "html": html.escape(text), "keys": []})

            def answer(mid: int) -> None:
                msg = table.message(mid)
                bubbles.append({"who": None, "html": msg.raw_text or html.escape(msg.text or ""),
                                "keys": [[b["text"] for b in row] for row in msg.buttons]})

            said(alice, "/new guiyang")
            lobby = await table.seat_everyone("guiyang")
            answer(lobby.message_id)
            said(bob, "/hu 1 zimo")
            preview = await table.say(bob, "/hu 1 zimo")
            await table.tap(bob, preview, "Confirm")
            answer(preview.message_id)
            said(alice, "/table")
            answer((await table.say(alice, "/table")).message_id)
    return bubbles


def chat_html(bubbles: list[dict[str, Any]]) -> str:
    parts = []
    for b in bubbles:
        if b["who"]:
            parts.append(f'<div class="msg me"><span class="who">{html.escape(b["who"])}</span>'
                         f'{b["html"]}</div>')
            continue
        keys = "".join('<div class="row">' + "".join(f"<span>{html.escape(k)}</span>" for k in row)
                       + "</div>" for row in b["keys"])
        parts.append(f'<div><div class="msg bot">{b["html"]}</div>'
                     + (f'<div class="keys">{keys}</div>' if keys else "") + "</div>")
    return (f"<!doctype html><meta charset=utf-8><style>{STYLE}</style>"
            f'<div class="chat">{"".join(parts)}</div>')


async def make(out: Path) -> list[Path]:
    """chat.png and page.png into `out`."""
    out.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory() as work:
        folder = Path(work)
        bubbles = await first_evening(folder)
        store = await Store.open(f"sqlite+aiosqlite:///{folder}/page.sqlite3")
        server = TestServer(local_app(store))
        await server.start_server()
        try:
            async for browser in launch():
                context = await browser.new_context(viewport={"width": 444, "height": 400},
                                                    device_scale_factor=1, locale="en")
                page = await context.new_page()
                await page.set_content(chat_html(bubbles))
                await page.locator(".chat").screenshot(path=str(out / "chat.png"))
                await context.close()
                await page_shot(browser, str(server.make_url("/app/")), out / "page.png")
        finally:
            await server.close()
            await store.close()
    return [out / "chat.png", out / "page.png"]


async def page_shot(browser: Any, url: str, path: Path) -> None:
    """The local page after a session started and one hand booked: the standings."""
    context = await browser.new_context(viewport={"width": 390, "height": 700},
                                        device_scale_factor=1, locale="en")
    context.set_default_timeout(15000)
    page = await context.new_page()
    await page.goto(url)
    await page.select_option("#variant", "guiyang")
    for i, name in enumerate(NAMES):
        await page.fill(f"input[name=name{i}]", name)
    await page.click("#start")
    await page.wait_for_selector("#table-html")
    await page.click("nav button[data-screen=hand]")
    await page.click("[data-row=winner] [data-seat='2']")
    await page.click("[data-field=pure]")
    await page.click("#preview")
    await page.wait_for_selector("#preview-html")
    await page.click("#confirm")
    await page.wait_for_selector("#table-html")
    await page.screenshot(path=str(path))
    await context.close()


if __name__ == "__main__":
    for made in asyncio.run(make(Path(sys.argv[1]) if len(sys.argv) > 1 else IMAGES)):
        print(made)
