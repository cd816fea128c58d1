"""The browser for the page's tests: the system's chromium driven by Playwright (never a
downloaded browser). Without chromium or Playwright the tests are skipped with the reason
printed, except in CI (env CI=true), where that is a failure."""

from __future__ import annotations

import os
import shutil
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest

ARTEFACTS = Path(__file__).resolve().parents[2] / "test-artefacts" / "web"
PHONE = {"width": 360, "height": 780}


def missing(reason: str) -> None:
    if os.environ.get("CI") == "true":
        pytest.fail(f"{reason} (CI=true: the browser tests must run)")
    print(f"skipping the browser tests: {reason}")
    pytest.skip(reason)


def cjk_fonts() -> dict[str, str]:
    """The screenshots' Chinese: the Noto Sans CJK the charts use (a dependency), added to the
    system's fonts through a fontconfig file of the tests' own."""
    try:
        import noto_cjk_sans_otc
    except ImportError:
        return {}
    ARTEFACTS.mkdir(parents=True, exist_ok=True)
    conf = ARTEFACTS / "fonts.conf"
    folder = Path(noto_cjk_sans_otc.__file__).parent
    conf.write_text('<?xml version="1.0"?><!DOCTYPE fontconfig SYSTEM "fonts.dtd"><fontconfig>'
                    '<include ignore_missing="yes">/etc/fonts/fonts.conf</include>'
                    f"<dir>{folder}</dir></fontconfig>", encoding="utf-8")
    return {"FONTCONFIG_FILE": str(conf)}


async def launch() -> AsyncIterator[Any]:
    """A headless chromium (the system's)."""
    chromium = shutil.which("chromium")
    if chromium is None:
        missing("no chromium on PATH (apt-get install chromium)")
    try:
        from playwright.async_api import async_playwright
    except ImportError:
        missing("playwright is not installed (pip install -e '.[test]')")
    async with async_playwright() as pw:
        browser = await pw.chromium.launch(executable_path=chromium, args=["--no-sandbox"],
                                           env={**os.environ, **cjk_fonts()})
        try:
            yield browser
        finally:
            await browser.close()


async def shot(page: Any, name: str) -> Path:
    """A full-page screenshot under test-artefacts/web/ (gitignored), to look at."""
    ARTEFACTS.mkdir(parents=True, exist_ok=True)
    path = ARTEFACTS / f"{name}.png"
    await page.screenshot(path=str(path), full_page=True)
    return path


async def no_sideways_scroll(page: Any) -> None:
    root = "document.documentElement"
    width = await page.evaluate(f"[{root}.scrollWidth, {root}.clientWidth]")
    assert width[0] <= width[1], f"the page scrolls sideways: {width}"
