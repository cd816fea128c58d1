"""The page's JSON API in the local mode (no Telegram), through aiohttp's test client, on SQLite
and (TEST_DATABASE_URL) PostgreSQL: a session with four named players, previews that are the
wizard's, hands by features and by tiles booked with the wizard's Confirm at the preview's
table mark, standings as /table draws them, and the password off loopback."""

from __future__ import annotations

import base64
import json
import os
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from aiohttp.test_utils import TestClient, TestServer

from bot.chat.table import table_lines, wizard_ctx
from bot.entry.controls import event_model, fields_of, spec_named
from bot.entry.record import extras
from bot.entry.screens import label
from bot.entry.wizard.flow import new_draft, screen
from bot.plumbing.config import ConfigError, LocalSettings, is_loopback
from bot.plumbing.limits import MAX_STAKE_CENTS
from bot.view.i18n import translator
from bot.view.render import money
from bot.web.local import LOCAL_CHAT_ID, local_app
from db import Store
from scoring import score
from scoring.variant import listed
from scoring.variants import ORDER

ROOT = Path(__file__).resolve().parents[2]

NAMES = ["Alice", "Bob", "Carol", "Dave"]
SELF_DRAW = [{"type": "win", "by": "self_draw", "winners": [{"seat": 1}]}]


async def post(client: TestClient, path: str, body: dict[str, Any], status: int = 200,
               lang: str = "en") -> dict[str, Any]:
    resp = await client.post(f"/app/api/{path}?lang={lang}", json=body)
    data = await resp.json()
    assert resp.status == status, data
    return data


async def start(client: TestClient, variant: str = "guiyang", stake: str = "") -> dict[str, Any]:
    return await post(client, "session", {"variant": variant, "names": NAMES, "stake": stake})


async def test_state_without_a_session_lists_the_variants(client: TestClient) -> None:
    data = await post(client, "state", {}, lang="zh-Hans")
    assert data["session"] is None and data["local"] and data["may_book"]
    # every registered style, in the registry's order (as /new and /help list them)
    assert [v["name"] for v in data["variants"]] == list(ORDER) == [v.name for v in listed()]
    assert any(v["title"] == "贵阳捉鸡" for v in data["variants"]) or all(
        v["title"] != v["name"] for v in data["variants"])


async def test_start_names_four_players_and_standings_are_tables(client: TestClient,
                                                                  store: Store) -> None:
    data = await start(client, stake="0.5")
    session = data["session"]
    assert session["names"] == NAMES and session["seated"] and session["stake_cents"] == 50
    running = await store.running_session(LOCAL_CHAT_ID)
    assert running is not None and None not in running.seats
    expected = await table_lines(store, running, translator("en"), "en")
    assert session["table_html"] == "\n".join(expected)
    # a second start while one runs: refused, nothing changed
    refused = await post(client, "session", {"variant": "hainan", "names": NAMES}, 409)
    assert "already running" in refused["error"]
    assert (await store.running_session(LOCAL_CHAT_ID)).variant == "guiyang"


async def test_names_must_be_four_distinct(client: TestClient, store: Store) -> None:
    await post(client, "session", {"variant": "guiyang", "names": ["A", "A", "B", "C"]}, 422)
    await post(client, "session", {"variant": "guiyang", "names": ["A", "B", "C"]}, 422)
    await post(client, "session", {"variant": "mahjong", "names": NAMES}, 422)
    assert await store.running_session(LOCAL_CHAT_ID) is None


async def test_preview_is_the_wizards_and_confirm_books_at_its_mark(client: TestClient,
                                                                     store: Store) -> None:
    await start(client)
    shown = await post(client, "preview", {"events": SELF_DRAW})
    session = await store.running_session(LOCAL_CHAT_ID)
    ctx = await wizard_ctx(store, session, "en")
    assert shown["html"] == screen(new_draft(SELF_DRAW, step="preview"), ctx).text
    record = ctx.record(SELF_DRAW)
    assert shown["deltas"] == list(score(record).deltas)
    booked = await post(client, "confirm", {"events": SELF_DRAW, "mark": shown["mark"]})
    assert "Hand 1 recorded" in booked["html"]
    assert list(await store.totals(session.id)) == shown["deltas"]
    # the same Confirm again: the mark moved, nothing booked twice
    again = await post(client, "confirm", {"events": SELF_DRAW, "mark": shown["mark"]}, 409)
    assert "table changed" in again["error"]
    assert await store.standing_hands(session.id) == 1
    state = await post(client, "state", {})
    assert state["session"]["totals"] == shown["deltas"]
    assert "Hand 1" in state["session"]["history_html"][0]


async def test_a_hand_by_tiles_reads_as_hu_does(client: TestClient, store: Store) -> None:
    await start(client, "hainan")
    tiles = "123m456m789m123p55p"
    events = [{"type": "win", "by": "self_draw", "winners": [{"seat": 2, "tiles": tiles}]}]
    shown = await post(client, "preview", {"events": events})
    analysis = await post(client, "tiles", {"tiles": tiles, "seat": 2})
    winner = {**analysis["winner"], "seat": 2}
    session = await store.running_session(LOCAL_CHAT_ID)
    ctx = await wizard_ctx(store, session, "en")
    expected = score(ctx.record([{"type": "win", "by": "self_draw", "winners": [winner]}]))
    assert shown["deltas"] == list(expected.deltas)
    assert "Read from the tiles" in shown["html"]
    await post(client, "confirm", {"events": events, "mark": shown["mark"]})
    assert list(await store.totals(session.id)) == list(expected.deltas)



async def test_beside_tiles_a_winner_adds_what_they_cannot_show(client: TestClient,
                                                                store: Store) -> None:
    """A flag the tiles cannot show (Hainan's 花上开花) sent beside them is laid over the reading,
    as a /hu line's words are: the preview counts it and the booked record keeps it."""
    await start(client, "hainan")
    form = await post(client, "form", {})
    assert form["tiles"]["story"] == ["flower_bloom", "heavenly", "earthly", "liable"]
    tiles = "123m456m789m123p55p"
    plain = [{"type": "win", "by": "self_draw", "winners": [{"seat": 2, "tiles": tiles}]}]
    told = [{"type": "win", "by": "self_draw",
             "winners": [{"seat": 2, "tiles": tiles, "flower_bloom": True}]}]
    bare = await post(client, "preview", {"events": plain})
    shown = await post(client, "preview", {"events": told})
    analysis = await post(client, "tiles", {"tiles": tiles, "seat": 2})
    assert "flower_bloom" not in analysis["winner"]
    winner = {**analysis["winner"], "seat": 2, "flower_bloom": True}
    session = await store.running_session(LOCAL_CHAT_ID)
    ctx = await wizard_ctx(store, session, "en")
    expected = score(ctx.record([{"type": "win", "by": "self_draw", "winners": [winner]}]))
    assert shown["deltas"] == list(expected.deltas) != bare["deltas"]
    assert shown["events"][-1]["winners"] == [winner]
    assert "win on flower replacement" in shown["html"]
    assert "win on flower replacement" not in bare["html"]
    await post(client, "confirm", {"events": told, "mark": shown["mark"]})
    hand = await store.last_hand(session.id)
    assert hand.record["events"][-1]["winners"] == [winner]
    assert list(await store.totals(session.id)) == list(expected.deltas)

async def test_refusals_in_the_chats_words_change_nothing(client: TestClient, store: Store) -> None:
    await post(client, "preview", {"events": SELF_DRAW}, 409)  # no session
    await start(client)
    session = await store.running_session(LOCAL_CHAT_ID)
    bad = await post(client, "preview", {"events": [{"type": "win", "by": "self_draw",
                                                      "winners": [{"seat": 1, "tiles": "1m"}]}]},
                     422, lang="zh-Hans")
    assert bad["error"]
    await post(client, "preview", {"events": "nonsense"}, 422)
    await post(client, "preview", {"events": [{"type": "win", "winners": [{}]}]}, 422)
    resp = await client.post("/app/api/preview", data=b"\xff",
                             headers={"Content-Type": "application/json"})
    assert resp.status == 400
    await post(client, "confirm", {"events": SELF_DRAW, "mark": "0:0:x"}, 409)
    assert await store.standing_hands(session.id) == 0


async def test_a_password_off_loopback(store: Store) -> None:
    with pytest.raises(ConfigError):
        LocalSettings.from_env("0.0.0.0", 8080, {})
    long = "a long enough password"
    assert LocalSettings.from_env("0.0.0.0", 8080, {"WEB_PASSWORD": long}).password == long
    assert is_loopback("127.0.0.1") and is_loopback("::1") and not is_loopback("192.168.1.2")
    async with TestClient(TestServer(local_app(store, "s3cret"))) as c:
        assert (await c.get("/app/api/state")).status == 401
        wrong = base64.b64encode(b"x:nope").decode()
        assert (await c.get("/app/api/state", headers={"Authorization": f"Basic {wrong}"})).status == 401
        right = base64.b64encode(b"x:s3cret").decode()
        assert (await c.get("/app/api/state", headers={"Authorization": f"Basic {right}"})).status == 200


def test_mjledger_without_a_token_refuses_an_open_host_without_a_password(tmp_path: Any) -> None:
    env = {"PATH": os.environ.get("PATH", ""), "HOME": str(tmp_path)}
    done = subprocess.run([sys.executable, "-m", "bot", "--host", "0.0.0.0"], env=env,
                          capture_output=True, text=True, timeout=60, cwd=tmp_path,
                          check=False)
    assert done.returncode == 2 and "WEB_PASSWORD" in done.stderr


def test_mjledger_without_a_token_says_so_and_serves_the_page(tmp_path: Any) -> None:
    import socket
    import time
    import urllib.request

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    env = {"PATH": os.environ.get("PATH", ""), "HOME": str(tmp_path),
           "PYTHONPATH": str(ROOT)}  # this checkout's bot, whatever the environment installed
    proc = subprocess.Popen([sys.executable, "-m", "bot", "--port", str(port)], env=env,
                            cwd=tmp_path, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                            text=True)
    try:
        line = proc.stdout.readline()  # type: ignore[union-attr]
        assert line.startswith("No TELEGRAM_BOT_TOKEN") and f"http://127.0.0.1:{port}/app/api/" in line
        for _ in range(100):
            try:
                with urllib.request.urlopen(f"http://127.0.0.1:{port}/app/api/state") as resp:
                    assert json.load(resp)["session"] is None
                break
            except OSError:
                time.sleep(0.1)
        else:
            raise AssertionError("the page never answered")
        assert (tmp_path / "mjledger.sqlite3").exists()
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/") as resp:  # the bare address
            assert resp.status == 200 and resp.url.endswith("/app/")
            assert "<title>Mahjong Ledger</title>" in resp.read().decode()
    finally:
        proc.terminate()
        proc.wait(timeout=30)


async def test_settle_and_the_payees_received(client: TestClient, store: Store) -> None:
    await start(client, stake="1")
    shown = await post(client, "preview", {"events": SELF_DRAW})
    await post(client, "confirm", {"events": SELF_DRAW, "mark": shown["mark"]})
    settle = await post(client, "settle", {})
    assert "Settling up" in settle["html"] and len(settle["transfers"]) == 3
    first = settle["transfers"][0]
    assert first["may_confirm"] and first["payee"] != first["payer"]
    after = await post(client, "received", {k: first[k] for k in ("payer", "payee", "cents")})
    assert len(after["transfers"]) == 2
    # the same transfer again: no longer open, nothing recorded twice
    again = await post(client, "received", {k: first[k] for k in ("payer", "payee", "cents")}, 409)
    assert "no longer open" in again["error"]
    await post(client, "received", {"payer": "x", "payee": 1, "cents": 5}, 422)
    await post(client, "received", {"payment": 999999}, 409)
    assert len((await post(client, "settle", {}))["transfers"]) == 2


async def test_the_page_and_its_files(client: TestClient) -> None:
    index = await client.get("/app/")
    html = await index.text()
    assert index.status == 200 and 'content="X-Telegram-Init-Data"' in html and "简体中文" in html
    assert "https://" not in html  # nothing from elsewhere: Telegram's script only inside Telegram
    for name, kind in (("app.js", "text/javascript"), ("app.css", "text/css")):
        resp = await client.get(f"/app/static/{name}")
        assert resp.status == 200 and resp.content_type == kind
    assert (await client.get("/app/static/../page.py")).status == 404
    assert (await client.get("/app/static/secret.txt")).status == 404
    face = await client.get("/app/faces/5p.svg")
    assert face.status == 200 and (await face.text()).startswith("<svg")
    assert (await client.get("/app/faces/8z.svg")).status == 404
    flower = await client.get("/app/faces/8f.svg")  # Hainan's 竹, drawn on the set's blank tile
    assert flower.status == 200 and "竹" in await flower.text()
    assert (await client.get("/app/faces/9f.svg")).status == 404
    assert (await client.get("/app", allow_redirects=False)).status == 302


async def test_the_bare_address_leads_to_the_page_which_names_its_icon(client: TestClient) -> None:
    """Someone who types the host and port alone is sent to the page; the page names its icon (a
    tile face), and a browser that asks for /favicon.ico anyway gets that face."""
    bare = await client.get("/", allow_redirects=False)
    assert bare.status == 302 and bare.headers["Location"] == "/app/"
    html = await (await client.get("/app/")).text()
    icon = re.search(r'<link rel="icon" href="([^"]+)" type="image/svg\+xml">', html)
    assert icon is not None, html
    face = await client.get("/app/" + icon.group(1))
    assert face.status == 200 and face.content_type == "image/svg+xml"
    favicon = await client.get("/favicon.ico")
    assert favicon.status == 200 and favicon.content_type == "image/svg+xml"
    assert await favicon.read() == await face.read()


async def test_the_form_is_the_wizards(client: TestClient, store: Store) -> None:
    await start(client, "cixi")
    form = await post(client, "form", {}, lang="zh-Hans")
    session = await store.running_session(LOCAL_CHAT_ID)
    ctx = await wizard_ctx(store, session, "zh-Hans")
    winner = spec_named(event_model(ctx.variant.events, "win"), "winners").model
    names = [f["name"] for f in form["winner"]]
    assert names == [s.name for s in fields_of(winner) if s.name != "seat"
                     and s.kind.value in ("bool", "choice", "int", "seat")]
    assert form["winner"][0]["label"] == label(ctx, names[0], "win")
    assert form["tiles"]["indicator"] and form["tiles"]["jokers"]["1m"] == ["2m"]  # 龙 follows
    assert [b["value"] for b in form["by"]] == ["self_draw", "discard", "robbed_kong"]


async def test_the_other_events_are_the_wizards(client: TestClient, store: Store) -> None:
    """Kongs, chickens, ready declarations … as the chat offers them, the wall's end with each
    seat's ready hand; the page's whole form is stored as the wizard stores it (defaults
    dropped)."""
    await start(client, "guiyang")
    form = await post(client, "form", {}, lang="zh-Hans")
    session = await store.running_session(LOCAL_CHAT_ID)
    ctx = await wizard_ctx(store, session, "zh-Hans")
    assert [x["type"] for x in form["extras"]] == extras(ctx)
    assert {x["type"] for x in form["extras"] if x["after_end"]} == set(extras(ctx)) & ctx.variant.after_end
    chickens = next(x for x in form["extras"] if x["type"] == "chickens")
    kinds = {f["name"]: f["kind"] for f in chickens["fields"]}
    assert kinds == {"flipped": "tile", "hero": "seat", "seats": "seat_map"}
    seats = next(f for f in chickens["fields"] if f["name"] == "seats")
    assert [f["name"] for f in seats["value"]["fields"]] == ["yaoji", "fanji", "yaoji_out", "quads"]
    assert seats["value"]["fields"][0]["label"] == label(ctx, "yaoji", "chickens")
    ready = form["exhausted"]["fields"][0]
    assert ready["name"] == "ready" and ready["value"]["optional"] and ready["value"]["fields"]
    whole = [{"type": "kong", "seat": 1, "kind": "concealed", "from": None, "robbed": False},
             {"type": "win", "by": "self_draw", "after_kong": True, "winners": [{"seat": 1}]}]
    shown = await post(client, "preview", {"events": whole})
    await post(client, "confirm", {"events": whole, "mark": shown["mark"]})
    hand = await store.last_hand(session.id)
    assert hand.record["events"][0] == {"type": "kong", "seat": 1, "kind": "concealed"}
    no_kind = [{"type": "kong", "seat": 1, "kind": None}, whole[1]]
    refused = await post(client, "preview", {"events": no_kind}, 422)
    en = await wizard_ctx(store, session, "en")
    assert refused["error"] == en.t("Choose “{field}” first.", field=label(en, "kind", "kong"))
    assert await store.standing_hands(session.id) == 1


async def test_a_refusal_has_a_code_and_the_pages_words(client: TestClient, store: Store) -> None:
    """The page's refusals name their kind, and say it without the chat's commands (no /new,
    /guest, /stake, /table): the page has buttons for those."""
    zh = translator("zh-Hans")
    none = await post(client, "preview", {"events": SELF_DRAW}, 409, lang="zh-Hans")
    assert none == {"error": zh("No session is running."), "code": "no_session"}
    names = await post(client, "session", {"variant": "guiyang", "names": ["A", "A", "B", "C"]}, 422)
    stake = await post(client, "session", {"variant": "guiyang", "names": NAMES, "stake": "x"}, 422)
    assert (names["code"], stake["code"]) == ("bad_names", "bad_stake")
    assert "64" in names["error"] and money(MAX_STAKE_CENTS) in stake["error"]
    await start(client)
    running = await post(client, "session", {"variant": "hainan", "names": NAMES}, 409)
    assert running["code"] == "already_running" and "already running" in running["error"]
    kong = await post(client, "preview", {"events": [{"type": "kong", "seat": 1}, *SELF_DRAW]}, 422)
    assert kong["code"] == "field_missing"
    moved = await post(client, "confirm", {"events": SELF_DRAW, "mark": "0:0:x"}, 409)
    assert moved["code"] == "table_moved" and "Payments" in moved["html"]
    for refusal in (none, names, stake, running, kong, moved):
        assert not re.search(r"/(new|guest|stake|table|end)\b", refusal["error"]), refusal
    assert await store.standing_hands((await store.running_session(LOCAL_CHAT_ID)).id) == 0
