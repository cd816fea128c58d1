"""The page's weight and speed, in the system's chromium (Playwright) against the local mode's
app on a fresh SQLite file with a Luzhou session started in the page:

- page weight: every response of the first load (HTML, CSS, JS, the API's state and form),
  budget 300 KB; the tile faces the tile screen loads after it are reported on their own;
- a tile tap: performance.now() around the picker's click handler (it changes the local
  state and redraws synchronously) and the layout it forces, budget 50 ms, over many taps;
- first request to first paint: navigation start to the first contentful paint, and to the
  standings drawn with the API's data, budget 1 s.

    .venv/bin/python -m tests.bench.page [--runs 5] [--taps 40]

Prints JSON; exits 1 when a budget is missed. The best of `--runs` page loads counts (the
machine is shared); taps report median and worst.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import shutil
import statistics
import sys
import tempfile
from pathlib import Path
from typing import Any

from aiohttp.test_utils import TestServer
from playwright.async_api import async_playwright

from bot.web.local import local_app
from db import Store

WEIGHT_BUDGET = 300 * 1024
TAP_BUDGET_MS = 50.0
PAINT_BUDGET_MS = 1000.0
TAP = """(code) => {
  const el = document.querySelector(`#picker [data-tile='${code}']`);
  const began = performance.now();
  el.click();
  document.body.getBoundingClientRect();  // the redraw's layout, inside the measure
  return performance.now() - began;
}"""


async def load(browser: Any, url: str) -> dict[str, Any]:
    context = await browser.new_context(viewport={"width": 360, "height": 780})
    page = await context.new_page()
    sizes: dict[str, int] = {}

    async def count(response: Any) -> None:
        try:
            sizes[response.url] = len(await response.body())
        except Exception:  # a redirect has no body
            sizes[response.url] = 0

    page.on("response", lambda r: asyncio.ensure_future(count(r)))
    await page.goto(url)
    await page.wait_for_selector("#table-html")
    drawn = await page.evaluate("performance.now()")
    paint = await page.evaluate(
        "(performance.getEntriesByName('first-contentful-paint')[0] || {}).startTime || null")
    await page.wait_for_load_state("networkidle")
    first = sum(sizes.values())
    await page.click("nav button[data-screen=hand]")
    await page.click("[data-row=winner] [data-seat='1']")
    await page.click("#mode-tiles")
    await page.wait_for_function("[...document.images].every((img) => img.complete)")
    await page.wait_for_load_state("networkidle")
    await asyncio.sleep(0.2)  # the last bodies counted
    faces = sum(n for u, n in sizes.items() if "/faces/" in u)
    await context.close()
    return {"first_load_bytes": first, "first_load_files": len([u for u in sizes if "/faces/" not in u]),
            "faces_bytes": faces, "first_paint_ms": paint, "standings_drawn_ms": round(drawn, 1)}


async def taps(browser: Any, url: str, n: int) -> list[float]:
    context = await browser.new_context(viewport={"width": 360, "height": 780})
    page = await context.new_page()
    await page.goto(url)
    await page.wait_for_selector("#table-html")
    await page.click("nav button[data-screen=hand]")
    await page.click("[data-row=winner] [data-seat='1']")
    await page.click("#mode-tiles")
    out = []
    cycle = ["1m", "2m", "3m", "4m", "5m", "6m", "7m", "8m", "9m", "1p", "2p", "3p", "4p"]
    for i in range(n):
        if i and i % len(cycle) == 0:  # a full hand: take the tiles out again, then refill
            await page.click("#editor .row button")
        out.append(await page.evaluate(TAP, cycle[i % len(cycle)]))
    await context.close()
    return out


async def main(runs: int, n_taps: int) -> int:
    chromium = shutil.which("chromium")
    if chromium is None:
        print("no chromium on PATH", file=sys.stderr)
        return 2
    with tempfile.TemporaryDirectory() as tmp:
        store = await Store.open(f"sqlite+aiosqlite:///{Path(tmp) / 'bench.sqlite3'}")
        server = TestServer(local_app(store))
        await server.start_server()
        url = str(server.make_url("/app/"))
        try:
            async with async_playwright() as pw:
                browser = await pw.chromium.launch(executable_path=chromium, args=["--no-sandbox"])
                page = await browser.new_page()  # a session of four, as a player starts one
                await page.goto(url)
                await page.select_option("#variant", "luzhou")
                for i, name in enumerate(["Alice", "Bob", "Carol", "Dave"]):
                    await page.fill(f"input[name=name{i}]", name)
                await page.click("#start")
                await page.wait_for_selector("#table-html")
                await page.close()
                loads = [await load(browser, url) for _ in range(runs)]
                tapped = await taps(browser, url, n_taps)
                await browser.close()
        finally:
            await server.close()
            await store.close()
    best = min(loads, key=lambda r: r["standings_drawn_ms"])
    result = {
        **best,
        "first_paint_ms_all": [r["first_paint_ms"] for r in loads],
        "tap_ms_median": round(statistics.median(tapped), 2), "tap_ms_worst": round(max(tapped), 2),
        "taps": len(tapped),
        "budgets": {"first_load_bytes": WEIGHT_BUDGET, "tap_ms": TAP_BUDGET_MS,
                    "first_paint_ms": PAINT_BUDGET_MS}}
    print(json.dumps(result, indent=2))
    ok = (best["first_load_bytes"] < WEIGHT_BUDGET and max(tapped) < TAP_BUDGET_MS
          and best["standings_drawn_ms"] < PAINT_BUDGET_MS)
    return 0 if ok else 1


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--taps", type=int, default=40)
    args = parser.parse_args()
    sys.exit(asyncio.run(main(args.runs, args.taps)))
