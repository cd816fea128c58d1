"""Where PyMahjongGB could not be built, the page says so as soon as Chinese Official's tile
picker opens (issue 37: not after the fourteenth tile), with the command that gets counting
from the bot's checkout, and in the page's language."""

from __future__ import annotations

from typing import Any

import pytest

from db import Store

from .browser import shot
from .test_page import open_page, start_in_page


async def test_the_tile_picker_says_at_once_that_counting_is_missing(
        browser: Any, site: str, store: Store, monkeypatch: pytest.MonkeyPatch) -> None:
    from scoring.variants.mcr import counting

    monkeypatch.setattr(counting, "_calculator", None)
    page = await open_page(browser, site)
    await start_in_page(page, "mcr")
    await page.click("nav button[data-screen=hand]")
    await page.click("[data-row=winner] [data-seat='0']")
    await page.click("#mode-tiles")
    hint = await page.inner_text("#cannot-count")  # no tile picked yet
    assert "counting from tiles needs PyMahjongGB" in hint, hint
    assert ".venv/bin/pip install -e '.[mcr]'" in hint and "points instead" in hint, hint
    await shot(page, "mcr-cannot-count")


async def test_with_its_counter_the_picker_says_nothing_of_it(browser: Any, site: str,
                                                              store: Store) -> None:
    pytest.importorskip("MahjongGB", reason="counting from tiles needs PyMahjongGB (the mcr extra)")
    page = await open_page(browser, site)
    await start_in_page(page, "mcr")
    await page.click("nav button[data-screen=hand]")
    await page.click("[data-row=winner] [data-seat='0']")
    await page.click("#mode-tiles")
    await page.wait_for_selector("#picker")
    assert await page.locator("#cannot-count").count() == 0
