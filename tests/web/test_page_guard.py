"""The page in a browser where the browser holds back: storage refused (a cross-site frame, as
Telegram's web client frames the Mini App; strict settings), another site framing the local
page, and the Content-Security-Policy the page runs under (no violation in a whole session)."""

from __future__ import annotations

from typing import Any

from db import Store

from .browser import PHONE, shot

NAMES = ["Alice", "Bob", "Carol", "Dave"]
# what a browser does where storage is refused: reading window.localStorage throws
NO_STORAGE = """
for (const name of ["localStorage", "sessionStorage"]) {
  Object.defineProperty(window, name, { configurable: true, get() {
    throw new DOMException("Access is denied for this document.", "SecurityError"); } });
}
"""


async def watched_page(browser: Any, *, init_script: str = "") -> Any:
    """A phone-sized page whose script errors and CSP violations are collected in `errors`."""
    context = await browser.new_context(viewport=PHONE, device_scale_factor=2, locale="en")
    context.set_default_timeout(8000)
    if init_script:
        await context.add_init_script(init_script)
    page = await context.new_page()
    page.errors = []
    page.on("pageerror", lambda exc: page.errors.append(str(exc)))
    page.on("console", lambda msg: page.errors.append(msg.text)
            if msg.type == "error" and "Content Security Policy" in msg.text else None)
    return page


async def test_the_page_works_without_storage(browser: Any, site: str, store: Store) -> None:
    """Storage refused: the page still draws, starts a session, and changes language (which
    it then cannot remember)."""
    page = await watched_page(browser, init_script=NO_STORAGE)
    await page.goto(site)
    assert await page.evaluate("() => { try { localStorage; return false; } catch (e) { return true; } }")
    await page.wait_for_selector("nav button")
    await page.select_option("#variant", "guiyang")
    for i, name in enumerate(NAMES):
        await page.fill(f"input[name=name{i}]", name)
    await page.click("#start")
    await page.wait_for_selector("#table-html")
    await page.select_option("#lang", "zh-Hans")
    await page.wait_for_function("() => document.documentElement.lang === 'zh-Hans'")
    await page.wait_for_selector("#table-html")
    assert "Alice" in await page.inner_text("#table-html")
    await shot(page, "20-no-storage")
    assert not page.errors


async def test_another_site_cannot_frame_the_local_page(browser: Any, site: str, store: Store) -> None:
    """A page of another origin puts the local page in a frame: the browser refuses to show it
    (frame-ancestors 'none'), so no click on it can be tricked out of its user."""
    page = await watched_page(browser)
    await page.set_content(f'<p>another site</p><iframe id="f" src="{site}" width="300" '
                           'height="400"></iframe>')
    await page.wait_for_timeout(1500)
    frame = page.frame_locator("#f")
    assert await frame.locator("nav button").count() == 0
    assert await frame.locator("#main").count() == 0
    await shot(page, "21-framed-by-another-site")


async def test_a_whole_session_under_the_policy(browser: Any, site: str, store: Store) -> None:
    """The page's own scripts, styles, faces and requests are all within its
    Content-Security-Policy: a session, a hand by tiles and the settle screen break none."""
    page = await watched_page(browser)
    await page.goto(site)
    await page.wait_for_selector("nav button")
    await page.select_option("#variant", "guiyang")
    for i, name in enumerate(NAMES):
        await page.fill(f"input[name=name{i}]", name)
    await page.click("#start")
    await page.wait_for_selector("#table-html")
    await page.click("nav button[data-screen=hand]")
    await page.click("[data-row=winner] [data-seat='2']")
    await page.click("#mode-tiles")
    for tile in ("1m", "2m", "3m"):
        await page.click(f"#picker [data-tile='{tile}']")
    assert await page.locator("#picker img").count() > 0
    # the faces are drawn: an image that loaded has a width
    assert await page.locator("#picker img").first.evaluate("img => img.naturalWidth") > 0
    await shot(page, "22-tiles-under-the-policy")
    await page.click("nav button[data-screen=settle]")
    await page.wait_for_selector("#settle-html")
    assert not page.errors
