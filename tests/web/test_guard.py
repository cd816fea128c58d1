"""What the page's server refuses before a handler reads a request, and what every answer says
about itself (bot/web/guard.py, bot/web/local.py), against the real aiohttp app: a request
from another site (a form's text/plain body, a foreign Origin, Sec-Fetch-Site), a Host name the
page is not served at (DNS rebinding), password guessing, bodies of bad shapes, a body that
arrives in two pieces, and the headers."""

from __future__ import annotations

import asyncio
import base64
import json
import os
import subprocess
import sys
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest
from aiohttp.test_utils import TestClient, TestServer

from bot.plumbing.config import PASSWORD_MIN, ConfigError, LocalSettings
from bot.web.guard import Throttle, allowed_hosts
from bot.web.local import LOCAL_CHAT_ID, local_app
from db import Store

ROOT = Path(__file__).resolve().parents[2]
NAMES = ["Alice", "Bob", "Carol", "Dave"]
JSON = {"Content-Type": "application/json"}
PASSWORD = "correct horse battery"
SELF_DRAW = [{"type": "win", "by": "self_draw", "winners": [{"seat": 1}]}]


def basic(password: str) -> dict[str, str]:
    return {"Authorization": "Basic " + base64.b64encode(f"me:{password}".encode()).decode()}


async def start(client: TestClient, **headers: str) -> Any:
    return await client.post("/app/api/session", headers={**JSON, **headers},
                             data=json.dumps({"variant": "guiyang", "names": NAMES}))


# -- another site ---------------------------------------------------------------------------------

@pytest.mark.parametrize("content_type", ["text/plain", "application/x-www-form-urlencoded",
                                          "multipart/form-data; boundary=x", None])
async def test_only_json_bodies(client: TestClient, store: Store, content_type: str | None) -> None:
    """What an HTML form (or a fetch without a preflight) can send from any site: refused,
    nothing started."""
    headers = {"Content-Type": content_type} if content_type else {}
    body = json.dumps({"variant": "guiyang", "names": NAMES}).encode()
    resp = await client.post("/app/api/session", data=body, headers=headers,
                             skip_auto_headers=["Content-Type"])
    assert resp.status == 415, await resp.text()
    assert (await resp.json())["code"] == "not_json"
    assert await store.running_session(LOCAL_CHAT_ID) is None


@pytest.mark.parametrize("headers", [
    {"Origin": "http://evil.example"}, {"Origin": "null"},
    {"Origin": "http://127.0.0.1:1"},  # another port of this machine: another origin
    {"Sec-Fetch-Site": "cross-site"}, {"Sec-Fetch-Site": "same-site"}])
async def test_another_origin_is_refused(client: TestClient, store: Store,
                                         headers: dict[str, str]) -> None:
    resp = await start(client, **headers)
    assert resp.status == 403 and (await resp.json())["code"] == "cross_site"
    assert await store.running_session(LOCAL_CHAT_ID) is None


@pytest.mark.parametrize("headers", [{"Origin": "http://evil.example"}, {"Sec-Fetch-Site": "cross-site"}])
async def test_a_photo_from_another_site_is_refused(client: TestClient, headers: dict[str, str]) -> None:
    """The photo's body is a picture, not JSON, and still only the page's own origin may send it."""
    resp = await client.post("/app/api/photo", data=b"\xff\xd8\xff",
                             headers={"Content-Type": "image/jpeg", **headers})
    assert resp.status == 403 and (await resp.json())["code"] == "cross_site"


async def test_the_page_itself_is_answered(client: TestClient, store: Store) -> None:
    """The page's own requests: its origin, Sec-Fetch-Site same-origin, JSON; and a tool
    without Origin (curl) as before."""
    origin = str(client.make_url("")).rstrip("/")
    resp = await start(client, Origin=origin, **{"Sec-Fetch-Site": "same-origin"})
    assert resp.status == 200
    resp = await client.post("/app/api/state", headers={**JSON, "Content-Type":
                                                          "application/json; charset=utf-8"})
    assert resp.status == 200 and (await resp.json())["session"]["names"] == NAMES
    # a link from another site opens the page (a navigation, not the API)
    page = await client.get("/app/", headers={"Sec-Fetch-Site": "cross-site"})
    assert page.status == 200


@pytest.mark.parametrize("host", ["evil.example", "evil.example:8080", "127.0.0.1.nip.io"])
async def test_a_foreign_host_name_is_refused(client: TestClient, store: Store, host: str) -> None:
    """DNS rebinding: a name that resolves to this machine is still not the page's name; the
    books are neither read nor changed through it."""
    await start(client)
    for method, path in (("GET", "/app/api/state"), ("POST", "/app/api/state"), ("GET", "/app/")):
        resp = await client.request(method, path, headers={**JSON, "Host": host})
        assert resp.status == 403, (method, path)
        assert "Alice" not in await resp.text()
    resp = await client.post("/app/api/end", headers={**JSON, "Host": host})
    assert resp.status == 403
    assert await store.running_session(LOCAL_CHAT_ID) is not None
    for host in ("localhost:8080", "127.0.0.1", "[::1]:8080", "LOCALHOST."):
        assert (await client.get("/app/api/state", headers={"Host": host})).status == 200, host


def test_allowed_hosts() -> None:
    assert allowed_hosts("127.0.0.1") == {"localhost"}
    assert allowed_hosts("mj.lan", ["Table.Example."]) >= {"localhost", "mj.lan", "table.example"}
    everywhere = allowed_hosts("0.0.0.0")
    assert "localhost" in everywhere and len(everywhere) > 1  # the machine's own names


@pytest.fixture
async def locked(store: Store) -> AsyncIterator[TestClient]:
    """The local page behind a password, off loopback (a name of its own)."""
    app = local_app(store, PASSWORD, hosts=allowed_hosts("mj.lan"))
    async with TestClient(TestServer(app)) as c:
        yield c


async def test_with_a_password_a_cross_site_form_still_fails(locked: TestClient, store: Store) -> None:
    """The browser replays basic auth's password with a cross-site form: the page's
    password is no defence there, the Origin and the body's type are."""
    auth = basic(PASSWORD)
    form = await locked.post("/app/api/session", headers={**auth, "Origin": "http://evil.example",
                                                          "Content-Type": "text/plain"},
                             data=json.dumps({"variant": "guiyang", "names": NAMES}))
    assert form.status in (403, 415)
    assert (await start(locked, **auth, Origin="http://evil.example")).status == 403
    assert (await start(locked, **auth, **{"Sec-Fetch-Site": "cross-site"})).status == 403
    resp = await locked.get("/app/api/state", headers={**auth, "Host": "evil.example"})
    assert resp.status == 403
    assert await store.running_session(LOCAL_CHAT_ID) is None
    assert (await start(locked, **auth, Host="mj.lan:8080", Origin="http://mj.lan:8080")).status == 200


# -- password guessing -----------------------------------------------------------------------------

async def test_wrong_passwords_lock_the_client_out(store: Store) -> None:
    """Five wrong guesses, then each further one doubles a wait during which even the right
    password is refused (429 with Retry-After): no answer says whether a guess was right.
    The right password after the wait lets the client in and forgets its failures."""
    now = [1000.0]
    throttle = Throttle(clock=lambda: now[0])
    async with TestClient(TestServer(local_app(store, PASSWORD, throttle=throttle))) as c:
        assert (await c.get("/app/api/state")).status == 401  # no password: the prompt
        for _ in range(Throttle.FREE):
            assert (await c.get("/app/api/state", headers=basic("guess"))).status == 401
        waits = []
        for _ in range(4):
            resp = await c.get("/app/api/state", headers=basic(PASSWORD))
            assert resp.status == 429 and "Retry-After" in resp.headers
            waits.append(int(resp.headers["Retry-After"]))
            now[0] += waits[-1]
            assert (await c.get("/app/api/state", headers=basic("guess"))).status == 401
        assert waits == [1, 2, 4, 8]
        resp = await c.get("/app/api/state", headers=basic("guess"))
        assert resp.status == 429 and int(resp.headers["Retry-After"]) == 16
        now[0] += 16
        assert (await c.get("/app/api/state", headers=basic(PASSWORD))).status == 200
        assert (await c.get("/app/api/state", headers=basic("guess"))).status == 401  # forgotten


def test_the_throttle_is_per_client_and_bounded() -> None:
    now = [0.0]
    throttle = Throttle(clock=lambda: now[0])
    for _ in range(40):
        throttle.failed("198.51.100.7")
    assert 0 < throttle.wait("198.51.100.7") <= Throttle.LONGEST
    assert throttle.wait("198.51.100.8") == 0  # another client is not locked out
    # an IPv6 client is its /64: a new address in the same network is the same client
    for _ in range(Throttle.FREE + 1):
        throttle.failed("2001:db8:1:2::1")
    assert throttle.wait("2001:db8:1:2::ffff") > 0 and throttle.wait("2001:db8:1:3::1") == 0
    for n in range(3 * Throttle.KEPT):
        throttle.failed(f"10.{n // 65536 % 256}.{n // 256 % 256}.{n % 256}")
    assert len(throttle) <= Throttle.KEPT
    now[0] += 10 * Throttle.LONGEST
    assert throttle.wait("198.51.100.7") == 0


def test_off_loopback_the_password_must_be_long() -> None:
    short = "x" * (PASSWORD_MIN - 1)
    with pytest.raises(ConfigError) as refused:
        LocalSettings.from_env("0.0.0.0", 8080, {"WEB_PASSWORD": short})
    message = str(refused.value)
    assert "\n" not in message and str(PASSWORD_MIN) in message and short not in message
    assert LocalSettings.from_env("0.0.0.0", 8080, {"WEB_PASSWORD": "y" * PASSWORD_MIN}).password
    assert LocalSettings.from_env("127.0.0.1", 8080, {"WEB_PASSWORD": "pw"}).password == "pw"
    named = LocalSettings.from_env("127.0.0.1", 8080, {"WEB_HOSTS": "mj.lan, table.example"})
    assert named.hosts == ("mj.lan", "table.example")


def test_mjledger_refuses_a_short_password_in_one_line_before_serving(tmp_path: Any) -> None:
    env = {"PATH": os.environ.get("PATH", ""), "HOME": str(tmp_path), "PYTHONPATH": str(ROOT),
           "WEB_PASSWORD": "x"}
    done = subprocess.run([sys.executable, "-m", "bot", "--host", "0.0.0.0", "--port", "1"],
                          env=env, capture_output=True, text=True, timeout=60, cwd=tmp_path,
                          check=False)
    assert done.returncode == 2 and not done.stdout  # nothing claims to serve
    assert done.stderr.count("\n") == 1 and f"at least {PASSWORD_MIN} characters" in done.stderr
    assert not list(tmp_path.glob("*.sqlite3"))


# -- bodies of bad shapes ----------------------------------------------------------------------------

async def post_raw(client: TestClient, path: str, raw: bytes | str) -> tuple[int, dict[str, Any]]:
    resp = await client.post(f"/app/api/{path}", data=raw, headers=JSON)
    return resp.status, await resp.json()


async def test_deep_nesting_and_huge_numbers_are_refused(client: TestClient, store: Store) -> None:
    await start(client)
    status, body = await post_raw(client, "preview", '{"events": ' + "[" * 10_000 + "]" * 10_000 + "}")
    assert status == 400 and body["code"] == "too_deep"
    status, body = await post_raw(client, "preview", "[" * 200 + "]" * 200)
    assert status == 400 and body["code"] == "too_deep"
    status, body = await post_raw(client, "received", json.dumps({"payment": 2 ** 63}))
    assert status == 400 and body["code"] == "number_out_of_range"
    status, body = await post_raw(client, "received", '{"payment": NaN}')
    assert status == 400 and body["code"] == "not_json"
    for variant in ({}, [], {"name": "guiyang"}, ["guiyang"], 7, True):
        await client.post("/app/api/end", headers=JSON)
        status, body = await post_raw(client, "session", json.dumps({"variant": variant, "names": NAMES}))
        assert status == 422 and body["code"] == "unknown_variant" and body["error"], variant


ODD = [{}, [], {"a": [1]}, [[["x"]]], 2 ** 53, -(2 ** 53), 1e308, -0.5, "", "x" * 300, None, True]
KEYS = {"state": [], "session": ["variant", "names", "stake"], "preview": ["events"],
        "tiles": ["tiles", "by", "seat", "indicator"], "confirm": ["events", "mark"],
        "settle": [], "received": ["payment", "payer", "payee", "cents"], "form": [], "end": []}


@pytest.mark.parametrize("path", list(KEYS))
async def test_no_shape_is_answered_with_500(client: TestClient, store: Store, path: str) -> None:
    """Every key the API reads, given every odd JSON value, alone and inside a hand that is
    otherwise whole: a 4xx naming the problem, or a plain answer; never a server error."""
    await start(client)
    await client.post("/app/api/preview", headers=JSON, data=json.dumps({"events": SELF_DRAW}))
    for key in KEYS[path] or [""]:
        for value in ODD if key else [None]:
            for base in ({}, {"events": SELF_DRAW, "variant": "guiyang", "names": NAMES,
                              "tiles": "123m456m789p11s", "payer": 1, "payee": 2, "cents": 5}):
                body = {**base, key: value} if key else base
                resp = await client.post(f"/app/api/{path}", headers=JSON, data=json.dumps(body))
                assert resp.status < 500, (path, body, await resp.text())
                if resp.status >= 400:
                    assert (await resp.json())["error"], (path, body)
        if path == "session":
            await client.post("/app/api/end", headers=JSON)
            await start(client)
    for value in ODD:
        for event in ({"type": "win", "by": "self_draw", "winners": value},
                      {"type": "win", "by": value, "winners": [{"seat": 1, "tiles": value}]},
                      {"type": value}):
            resp = await client.post("/app/api/preview", headers=JSON,
                                     data=json.dumps({"events": [event]}))
            assert resp.status < 500, (event, await resp.text())


async def test_a_body_in_two_pieces_is_read_whole(client: TestClient, store: Store) -> None:
    """A slow phone connection: the headers and half the body, a pause, then the rest."""
    body = json.dumps({"variant": "guiyang", "names": NAMES}).encode()
    url = client.make_url("/app/api/session")
    reader, writer = await asyncio.open_connection(url.host, url.port)
    head = (f"POST /app/api/session HTTP/1.1\r\nHost: {url.host}:{url.port}\r\n"
            f"Content-Type: application/json\r\nContent-Length: {len(body)}\r\n"
            "Connection: close\r\n\r\n").encode()
    writer.write(head + body[:10])
    await writer.drain()
    await asyncio.sleep(0.3)
    writer.write(body[10:])
    await writer.drain()
    answer = await reader.read()
    writer.close()
    assert answer.startswith(b"HTTP/1.1 200"), answer[:300]
    running = await store.running_session(LOCAL_CHAT_ID)
    assert running is not None and running.variant == "guiyang"


# -- headers -----------------------------------------------------------------------------------------

async def test_every_answer_carries_the_headers(client: TestClient, store: Store) -> None:
    answers = [await client.get("/app/"), await client.get("/app/static/app.js"),
               await client.get("/app/faces/1m.svg"), await client.get("/app/nothing-here"),
               await client.post("/app/api/state", headers=JSON),
               await client.post("/app/api/preview", headers=JSON, data=b"{")]
    for resp in answers:
        h = resp.headers
        assert h["X-Content-Type-Options"] == "nosniff", resp.url
        assert h["Referrer-Policy"] == "no-referrer"
        assert "frame-ancestors 'none'" in h["Content-Security-Policy"]
        assert h["X-Frame-Options"] == "DENY"
        assert "python" not in h.get("Server", "").lower()
        assert "aiohttp" not in h.get("Server", "").lower()
    policy = answers[0].headers["Content-Security-Policy"]
    csp = dict(part.strip().split(" ", 1) for part in policy.split(";"))
    assert csp["default-src"] == "'none'" and csp["script-src"] == "'self'"
    assert csp["connect-src"] == "'self'" and "'unsafe-inline'" not in csp["script-src"]


async def test_a_malformed_request_names_no_versions(client: TestClient) -> None:
    """An answer aiohttp writes before any handler (a request it cannot parse)."""
    url = client.make_url("/")
    reader, writer = await asyncio.open_connection(url.host, url.port)
    writer.write(b"GARBAGE / HTTP/1.1\r\nHost: x\r\nContent-Length: zz\r\n\r\n")
    await writer.drain()
    answer = (await reader.read()).decode("latin-1").lower()
    writer.close()
    assert answer.startswith("http/1.") and " 400 " in answer.splitlines()[0]
    assert "aiohttp" not in answer and "python/" not in answer
