"""The page in a browser (the system's chromium, through Playwright) against the local mode's
app: a session started in the page, hands booked by features and by tiles and checked against
`python -m scoring score` of the same record, standings as the API's /table HTML, the three
languages, a 360-px phone without sideways scrolling. Screenshots of each screen go to
test-artefacts/web/ (gitignored)."""

from __future__ import annotations

import json
import subprocess
import sys
from typing import Any

import pytest

from bot.chat.settle import settlement
from bot.chat.table import table_lines
from bot.view.i18n import translator
from bot.web.local import LOCAL_CHAT_ID
from db import Store

from .browser import PHONE, no_sideways_scroll, shot

NAMES = ["Alice", "Bob", "Carol", "Dave"]


async def open_page(browser: Any, url: str, lang: str = "en") -> Any:
    context = await browser.new_context(viewport=PHONE, device_scale_factor=2, locale=lang)
    context.set_default_timeout(8000)
    page = await context.new_page()
    page.requests = []
    page.on("request", lambda r: page.requests.append(r.url))
    errors: list[str] = []
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    # what the page's Content-Security-Policy refused (bot/web/guard.py) is an error too
    page.on("console", lambda msg: errors.append(msg.text)
            if msg.type == "error" and "Content Security Policy" in msg.text else None)
    page.errors = errors
    await page.goto(url)
    await page.wait_for_selector("nav button")
    return page


async def start_in_page(page: Any, variant: str, stake: str = "",
                        names: list[str] = NAMES) -> None:
    await page.select_option("#variant", variant)
    for i, name in enumerate(names):
        await page.fill(f"input[name=name{i}]", name)
    if stake:
        await page.fill("#stake", stake)
    await page.click("#start")
    try:
        await page.wait_for_selector("#table-html")
    except Exception as exc:  # say what the page showed instead
        raise AssertionError(f"no standings: {await page.inner_text('body')!r}") from exc


def scored(record: dict[str, Any]) -> list[int]:
    """`python -m scoring score` on the record, as a player would run it."""
    done = subprocess.run([sys.executable, "-m", "scoring", "score"], input=json.dumps(record),
                          capture_output=True, text=True, check=True, timeout=60)
    return list(json.loads(done.stdout)["deltas"])


async def pick_tiles(page: Any, concealed: list[str], pung: str, winning: str) -> None:
    """Tap the concealed tiles, one exposed pung and the winning tile in the picker, and wait for
    the reading."""
    for tile in concealed:
        await page.click(f"#picker [data-tile='{tile}']")
    await page.click("[data-target=pung]")
    await page.click(f"#picker [data-tile='{pung}']")
    await page.click(f"#picker [data-tile='{winning}']")  # the target moved there
    await page.wait_for_selector("#reading b")


async def book_previewed(page: Any) -> None:
    await page.click("#preview")
    await page.wait_for_selector("#preview-html")
    await page.click("#confirm")
    await page.wait_for_selector("#table-html")


async def test_a_luzhou_session_by_features_and_by_tiles(browser: Any, site: str, store: Store) -> None:
    page = await open_page(browser, site)
    await shot(page, "01-new-session")
    await no_sideways_scroll(page)
    await start_in_page(page, "luzhou", stake="0.5")
    session = await store.running_session(LOCAL_CHAT_ID)
    assert session is not None and session.variant == "luzhou"
    await shot(page, "02-standings-empty")

    # by features: Bob self-draws an all-pungs hand
    await page.click("nav button[data-screen=hand]")
    await page.click("[data-row=winner] [data-seat='1']")
    await page.click("[data-field=form][data-value=all_pungs]")
    await page.click("#exhausted")  # a blood battle: the wall ran out after Bob's win
    await shot(page, "03-hand-features")
    await no_sideways_scroll(page)
    await page.click("#preview")
    await page.wait_for_selector("#preview-html")
    await shot(page, "04-preview")
    await page.click("#confirm")
    await page.wait_for_selector("#table-html")
    first = await store.last_hand(session.id)
    assert first is not None and first.record["events"][0]["winners"][0]["form"] == "all_pungs"
    assert scored(first.record) == list(first.outcome["deltas"])

    # by tiles: Carol wins on Alice's discard with 123m 456m 789m 55m [555p]
    await page.click("nav button[data-screen=hand]")
    await page.click("[data-by=discard]")
    await page.click("[data-row=winner] [data-seat='2']")
    await page.click("[data-row=from] [data-seat='0']")
    await page.click("#mode-tiles")
    await pick_tiles(page, ["1m", "2m", "3m", "4m", "5m", "6m", "7m", "8m", "9m", "5m"], "5p", "5m")
    await page.click("#exhausted")
    await shot(page, "05-hand-tiles")
    await no_sideways_scroll(page)
    await book_previewed(page)
    second = await store.last_hand(session.id)
    assert second is not None and second.id != first.id
    winner = second.record["events"][0]["winners"][0]
    assert winner["seat"] == 2 and "tiles" not in winner
    assert scored(second.record) == list(second.outcome["deltas"])
    totals = list(await store.totals(session.id))
    assert totals == [a + b for a, b in zip(first.outcome["deltas"], second.outcome["deltas"], strict=True)]

    # the standings are the API's /table HTML, the totals the store's
    expected = "\n".join(await table_lines(store, session, translator("en"), "en"))
    shown = await page.inner_html("#table-html")
    assert shown == await page.evaluate("glyphs", expected)  # 🀄 drawn from the page's faces
    pts = await page.locator(".player .pts").all_inner_texts()
    assert [int(x.replace("+", "").replace("−", "-")) for x in pts] == totals
    await shot(page, "06-standings")
    await page.click("nav button[data-screen=history]")
    await page.wait_for_selector(".card.chat")
    await shot(page, "07-history")
    await no_sideways_scroll(page)
    assert not page.errors
    assert page.requests and all(u.startswith(site) for u in page.requests)  # nothing from elsewhere


@pytest.mark.parametrize("lang", ["zh-Hans", "zh-Hant", "en"])
async def test_settling_up_in_each_language(browser: Any, site: str, store: Store, lang: str) -> None:
    """A Guiyang hand by features, then who pays whom: the chat's /settle text, and the payee's
    "received" counts the transfer (as the chat's button does)."""
    page = await open_page(browser, site, lang)
    await page.select_option("#lang", lang)
    await page.wait_for_function(f"() => document.documentElement.lang === {lang!r}")
    t = translator(lang)
    assert await page.inner_text("#start") == t("Start the session")
    await start_in_page(page, "guiyang", stake="1")
    await page.click("nav button[data-screen=hand]")
    await page.click("[data-row=winner] [data-seat='3']")
    await page.click("[data-field=pure]")
    await shot(page, f"08-hand-{lang}")
    await no_sideways_scroll(page)
    await book_previewed(page)
    session = await store.running_session(LOCAL_CHAT_ID)
    hand = await store.last_hand(session.id)
    assert hand.record["events"][0]["winners"][0] == {"seat": 3, "pure": True}
    assert scored(hand.record) == list(hand.outcome["deltas"])

    await page.click("nav button[data-screen=settle]")
    await page.wait_for_selector("#settle-html")
    expected = await settlement(store, LOCAL_CHAT_ID, t, lang, None, page=True)
    assert await page.inner_html("#settle-html") == await page.evaluate("glyphs", expected.text)
    assert len(expected.transfers) == 3  # Dave won from the three others
    await shot(page, f"09-settle-{lang}")
    await no_sideways_scroll(page)
    rows = page.locator("[data-transfer] button")
    await rows.first.click()
    await page.wait_for_function("() => document.querySelectorAll('[data-transfer] button').length === 2")
    after = await settlement(store, LOCAL_CHAT_ID, t, lang, None)
    assert len(after.transfers) == 2 and not after.pending  # counted at once: the payee said so
    assert not page.errors


@pytest.mark.parametrize("variant", ["cixi", "feibao", "hainan"])
async def test_a_hand_by_features_in_every_variant(browser: Any, site: str, store: Store,
                                                   variant: str) -> None:
    page = await open_page(browser, site)
    await start_in_page(page, variant)
    await page.click("nav button[data-screen=hand]")
    await page.click("[data-row=winner] [data-seat='2']")
    await page.click("[data-field=pure]")
    await book_previewed(page)
    session = await store.running_session(LOCAL_CHAT_ID)
    hand = await store.last_hand(session.id)
    assert hand is not None and hand.record["events"][0]["winners"][0] == {"seat": 2, "pure": True}
    assert scored(hand.record) == list(hand.outcome["deltas"])
    assert list(await store.totals(session.id)) == list(hand.outcome["deltas"])
    await shot(page, f"15-standings-{variant}")
    await no_sideways_scroll(page)
    assert not page.errors


async def test_a_changed_table_shows_the_fresh_preview(browser: Any, site: str, store: Store) -> None:
    """Confirm after someone else booked a hand: 409, nothing booked, the fresh preview shown;
    confirming that books it."""
    page = await open_page(browser, site)
    await start_in_page(page, "hainan")
    await page.click("nav button[data-screen=hand]")
    await page.click("[data-row=winner] [data-seat='0']")
    await page.click("[data-field=pure]")
    await page.click("#preview")
    await page.wait_for_selector("#preview-html")
    before = await page.inner_html("#preview-html")
    other = await open_page(browser, site)  # a second phone books a hand meanwhile
    await other.click("nav button[data-screen=hand]")
    await other.click("[data-row=winner] [data-seat='1']")
    await other.click("[data-field=pure]")
    await book_previewed(other)
    await page.click("#confirm")
    await page.wait_for_selector("#changed")
    session = await store.running_session(LOCAL_CHAT_ID)
    assert await store.standing_hands(session.id) == 1
    assert await page.inner_html("#preview-html") != before  # hand 2 now, after the new totals
    await shot(page, "14-table-changed")
    await page.click("#confirm")
    await page.wait_for_selector("#table-html")
    assert await store.standing_hands(session.id) == 2


async def test_cixi_by_tiles_with_the_turned_tile(browser: Any, site: str, store: Store) -> None:
    """The turned tile makes the next one the 龙 (marked in the picker); the reading counts it."""
    page = await open_page(browser, site)
    await start_in_page(page, "cixi")
    await page.click("nav button[data-screen=hand]")
    await page.click("[data-row=winner] [data-seat='2']")
    await page.click("#mode-tiles")
    await page.click("[data-target=indicator]")
    await page.click("#picker [data-tile='1m']")
    assert await page.locator("#picker .joker").evaluate_all("els => els.map(e => e.dataset.tile)") == ["2m"]
    await pick_tiles(page, ["1m", "2m", "3m", "4m", "5m", "6m", "7m", "8m", "9m", "1p"], "5s", "1p")
    await shot(page, "16-cixi-tiles")
    await no_sideways_scroll(page)
    await book_previewed(page)
    session = await store.running_session(LOCAL_CHAT_ID)
    hand = await store.last_hand(session.id)
    assert hand.record["events"][0]["winners"][0]["jokers"] == 1
    assert scored(hand.record) == list(hand.outcome["deltas"])


@pytest.mark.parametrize("lang", ["zh-Hans", "en"])
async def test_guiyang_kong_win_on_its_replacement_and_chickens(browser: Any, site: str,
                                                                store: Store, lang: str) -> None:
    """The events around a win, as the chat's wizard offers them: Bob's concealed kong before
    his self-drawn win on its replacement (杠上花), then the chickens with the flipped tile and
    who was ready."""
    page = await open_page(browser, site, lang)
    await page.select_option("#lang", lang)
    await page.wait_for_function(f"() => document.documentElement.lang === {lang!r}")
    await start_in_page(page, "guiyang")
    await page.click("nav button[data-screen=hand]")
    await page.click("[data-row=winner] [data-seat='1']")
    await page.click("[data-field=after_kong]")
    await page.click("[data-add=kong]")
    kong = page.locator("[data-event='0']")
    await kong.locator("[data-row=seat] [data-seat='1']").click()
    await kong.locator("[data-field=kind][data-value=concealed]").click()
    await page.click("[data-add=chickens]")
    chickens = page.locator("[data-event='1']")
    await chickens.locator("[data-tile-field=flipped] [data-tile='5s']").click()
    await chickens.locator("[data-map=seats] [data-seat='0'] [data-field=yaoji]").click()
    await page.click("[data-add=ready]")  # Alice was ready: her chicken counts
    await page.locator("[data-event='2'] [data-row=seats] [data-seat='0']").click()
    await shot(page, f"17-guiyang-events-{lang}")
    await no_sideways_scroll(page)
    await book_previewed(page)
    session = await store.running_session(LOCAL_CHAT_ID)
    hand = await store.last_hand(session.id)
    assert hand is not None
    assert hand.record["events"] == [
        {"type": "kong", "seat": 1, "kind": "concealed"},
        {"type": "win", "by": "self_draw", "after_kong": True, "winners": [{"seat": 1}]},
        {"type": "chickens", "flipped": "5s", "seats": {"0": {"yaoji": 1}}},
        {"type": "ready", "seats": [0]}]
    assert scored(hand.record) == list(hand.outcome["deltas"])
    assert not page.errors


async def test_a_wall_run_out_with_ready_hands(browser: Any, site: str, store: Store) -> None:
    """Luzhou, the wall runs out with no win: South is ready for all pungs, the others not;
    the three not-ready seats pay the ready one (docs/rules/luzhou.md)."""
    page = await open_page(browser, site)
    await start_in_page(page, "luzhou")
    await page.click("nav button[data-screen=hand]")
    await page.click("#exhausted")
    south = page.locator("#exhausted-form [data-seat='1']")
    await south.locator("[data-state=hand]").click()
    await south.locator("[data-field=form][data-value=all_pungs]").click()
    await shot(page, "18-wall-exhausted")
    await no_sideways_scroll(page)
    await book_previewed(page)
    session = await store.running_session(LOCAL_CHAT_ID)
    hand = await store.last_hand(session.id)
    assert hand is not None
    assert hand.record["events"] == [{"type": "exhausted", "ready": {
        "0": None, "1": {"form": "all_pungs"}, "2": None, "3": None}}]
    assert scored(hand.record) == list(hand.outcome["deltas"])
    assert hand.outcome["deltas"][1] > 0
    assert not page.errors


async def test_feibao_who_fed_the_winner(browser: Any, site: str, store: Store) -> None:
    """A winner's per-seat count (三凑承包: West fed two of Alice's melds); the winner is not
    among the seats that may have fed him."""
    page = await open_page(browser, site)
    await start_in_page(page, "feibao")
    await page.click("nav button[data-screen=hand]")
    await page.click("[data-row=winner] [data-seat='0']")
    fed = page.locator("[data-map=fed]")
    seats = await fed.locator("[data-seat]").evaluate_all("els => els.map(e => e.dataset.seat)")
    assert seats == ["1", "2", "3"]
    plus = fed.locator("[data-seat='2'] button >> nth=1")
    await plus.click()
    await plus.click()
    await book_previewed(page)
    session = await store.running_session(LOCAL_CHAT_ID)
    hand = await store.last_hand(session.id)
    assert hand.record["events"][0]["winners"][0] == {"seat": 0, "fed": {"2": 2}}
    assert scored(hand.record) == list(hand.outcome["deltas"])
    assert not page.errors


@pytest.mark.parametrize("variant", ["guiyang", "feibao", "hainan"])
async def test_a_hand_by_tiles_in_every_variant(browser: Any, site: str, store: Store,
                                                variant: str) -> None:
    """Dave self-draws 123m 456m 789m 11p [555s] (Feibao: 中 turned, so 中 and 发 are 精;
    Hainan: with his own flower 冬, seat 4): the reading fills his features, and the booked hand
    scores as `python -m scoring score`."""
    page = await open_page(browser, site)
    await start_in_page(page, variant)
    await page.click("nav button[data-screen=hand]")
    await page.click("[data-row=winner] [data-seat='3']")
    await page.click("#mode-tiles")
    if variant == "feibao":
        await page.click("[data-target=indicator]")
        await page.click("#picker [data-tile='7z']")
    tiles = ["1m", "2m", "3m", "4m", "5m", "6m", "7m", "8m", "9m", "1p"]
    if variant == "hainan":
        tiles.append("4f")
    await pick_tiles(page, tiles, "5s", "1p")
    await shot(page, f"19-tiles-{variant}")
    await no_sideways_scroll(page)
    await book_previewed(page)
    session = await store.running_session(LOCAL_CHAT_ID)
    hand = await store.last_hand(session.id)
    winner = hand.record["events"][0]["winners"][0]
    assert winner["seat"] == 3 and "tiles" not in winner
    if variant == "hainan":
        assert winner.get("seat_flower") == 1
    assert scored(hand.record) == list(hand.outcome["deltas"])
    assert list(await store.totals(session.id)) == list(hand.outcome["deltas"])
    assert not page.errors


async def test_what_was_typed_survives_a_change_of_language(browser: Any, site: str, store: Store) -> None:
    """The new-session form is drawn again in the new language with the names still in it."""
    page = await open_page(browser, site)
    await page.select_option("#variant", "cixi")
    for i, name in enumerate(NAMES):
        await page.fill(f"input[name=name{i}]", name)
    await page.select_option("#lang", "zh-Hant")
    await page.wait_for_function("() => document.documentElement.lang === 'zh-Hant'")
    assert await page.inner_text("#start") == translator("zh-Hant")("Start the session")
    assert [await page.input_value(f"input[name=name{i}]") for i in range(4)] == NAMES
    assert await page.input_value("#variant") == "cixi"
    await page.click("#start")
    await page.wait_for_selector("#table-html")
    session = await store.running_session(LOCAL_CHAT_ID)
    assert session is not None and session.variant == "cixi"


# the text of each element, measured as drawn: its glyphs' box against the element's own
SPILLS = """(sel) => [...document.querySelectorAll(sel)].filter((el) => {
  const range = document.createRange();
  range.selectNodeContents(el);
  const text = range.getBoundingClientRect(), box = el.getBoundingClientRect();
  return text.left < box.left - 0.5 || text.right > box.right + 0.5
      || text.top < box.top - 0.5 || text.bottom > box.bottom + 0.5;
}).map((el) => el.textContent)"""


async def test_long_names_stay_inside_the_seat_buttons(browser: Any, site: str, store: Store) -> None:
    """One-word names too long for a seat button on a 360-px phone (a 17-character handle,
    "Christopher") wrap inside it, the selected one too: no text outside its button."""
    names = ["Christopher", "xX_DragonSlayer_X", "Bartholomew_1987", "Maximilianus"]
    page = await open_page(browser, site)
    await start_in_page(page, "luzhou", names=names)
    await page.click("nav button[data-screen=hand]")
    await page.click("[data-by=discard]")
    await page.click("[data-row=winner] [data-seat='1']")
    await page.click("[data-row=from] [data-seat='0']")
    await shot(page, "16-long-names")
    await no_sideways_scroll(page)
    seats = "[data-row=winner] button, [data-row=from] button"
    assert len(await page.locator(seats).all()) == 4 + 3  # the winner is not his own payer
    assert await page.evaluate(SPILLS, seats) == []
    assert await page.evaluate(SPILLS, "main button, main .counter span") == []
    assert not page.errors


# what the shown notice lies over: every control of the page whose box meets the notice's
COVERED = """() => {
  const note = document.getElementById("note");
  if (note.hidden) return null;
  const n = note.getBoundingClientRect();
  return [...document.querySelectorAll("button, select, input, a")].filter((el) => {
    const b = el.getBoundingClientRect();
    return b.width && b.left < n.right && b.right > n.left && b.top < n.bottom && b.bottom > n.top;
  }).map((el) => el.id || el.textContent);
}"""


async def test_the_booked_notice_covers_nothing_tapped_next(browser: Any, site: str,
                                                             store: Store) -> None:
    """After Confirm the "Booked." notice shows for a while: on the standings, and on the next
    hand's screen with its Preview button at the bottom, it lies over no control."""
    page = await open_page(browser, site)
    await start_in_page(page, "guiyang")
    await page.click("nav button[data-screen=hand]")
    await page.click("[data-row=winner] [data-seat='3']")
    await page.click("[data-field=pure]")
    await book_previewed(page)
    assert await page.inner_text("#note") == "Booked."
    await shot(page, "17-booked-standings")
    assert await page.evaluate(COVERED) == []
    await page.click("nav button[data-screen=hand]")  # the next hand, at once
    await page.click("[data-row=winner] [data-seat='1']")
    await shot(page, "18-booked-next-hand")
    assert await page.is_visible("#preview")
    assert await page.evaluate(COVERED) == []  # shown still, and over no button
    assert not page.errors


async def test_the_bare_address_opens_the_page_with_its_icon(browser: Any, site: str) -> None:
    """Host and port typed alone open the page; the browser fetches its icon, and nothing it
    asks for is refused (no /favicon.ico 404 in its console)."""
    context = await browser.new_context(viewport=PHONE)
    page = await context.new_page()
    answers: list[tuple[int, str]] = []
    page.on("response", lambda r: answers.append((r.status, r.url)))
    await page.goto(site.removesuffix("app/"))
    await page.wait_for_selector("nav button")
    await page.wait_for_load_state("networkidle")
    assert page.url == site
    assert [a for a in answers if a[0] >= 400] == []
    assert (200, site + "faces/7z.svg") in answers, answers
