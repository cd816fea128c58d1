"""Webhook mode: no start without a real secret; a body that is not an update is the sender's
mistake (400), never the bot's (500)."""

from __future__ import annotations

import asyncio
import json
import sys
from pathlib import Path
from typing import Any

import aiohttp
import pytest
import yaml

from bot.runner import SECRET_HEADER
from tests.fake_telegram import FakeTelegram

from .conftest import Chat, people
from .process import ROOT, WEBHOOK_SECRET, WEBHOOK_URL


@pytest.mark.parametrize("secret", [None, "", "short-secret", "sixteen chars!!!", "x" * 15])
async def test_webhook_mode_does_not_start_without_a_good_secret(tmp_path: Path,
                                                                 secret: str | None) -> None:
    env = {"TELEGRAM_BOT_TOKEN": "1:x", "BOT_MODE": "webhook", "WEBHOOK_URL": WEBHOOK_URL,
           "DATABASE_URL": f"sqlite:///{tmp_path}/never.sqlite3", "PATH": "/usr/bin:/bin"}
    if secret is not None:
        env["WEBHOOK_SECRET"] = secret
    proc = await asyncio.create_subprocess_exec(sys.executable, "-m", "bot", cwd=ROOT, env=env,
                                                stdout=asyncio.subprocess.PIPE,
                                                stderr=asyncio.subprocess.PIPE)
    out, err = await asyncio.wait_for(proc.communicate(), 30)
    assert proc.returncode == 2, (out, err)
    message = err.decode()
    assert "WEBHOOK_SECRET" in message and "16" in message
    assert "secrets.token_urlsafe(32)" in message  # says how to make one
    assert not (tmp_path / "never.sqlite3").exists()  # refused before touching anything


def test_compose_requires_the_secret() -> None:
    compose = (ROOT / "deploy" / "compose.yaml").read_text()
    line = next(x for x in compose.splitlines() if x.strip().startswith("WEBHOOK_SECRET:"))
    assert "${WEBHOOK_SECRET:?" in line and "token_urlsafe" in line


BAD_BODIES: list[tuple[str, bytes]] = [
    ("not JSON", b"{this is not json"),
    ("not UTF-8", b"\xff\xfe{}"),
    ("empty", b""),
    ("a JSON list", b"[1, 2, 3]"),
    ("a JSON string", b'"update"'),
    ("a JSON number", b"42"),
    ("null", b"null"),
    ("no update_id", json.dumps({"message": {"message_id": 1}}).encode()),
    ("update_id a string", json.dumps({"update_id": "7"}).encode()),
    ("update_id true", json.dumps({"update_id": True}).encode()),
    ("update_id a float", json.dumps({"update_id": 1.5}).encode()),
    ("message a number", json.dumps({"update_id": 1, "message": 5}).encode()),
    ("message without date", json.dumps({"update_id": 1, "message": {"text": "hi"}}).encode()),
    ("chat id a string", json.dumps({"update_id": 1, "message": {
        "message_id": 1, "date": 0, "chat": {"id": "abc", "type": "group"}, "text": "/table"}}).encode()),
    ("text a number", json.dumps({"update_id": 1, "message": {
        "message_id": 1, "date": 0, "chat": {"id": -5, "type": "group"}, "text": 5}}).encode()),
    ("callback without chat_instance", json.dumps({"update_id": 1, "callback_query": {
        "id": "1", "from": {"id": 1, "is_bot": False, "first_name": "A"}}}).encode()),
]


async def test_a_body_that_is_not_an_update_gets_400(tg: FakeTelegram, bot_process: Any,
                                                     sqlite_url: str) -> None:
    bot = await bot_process(sqlite_url, mode="webhook")
    url = bot.hook_url
    async with aiohttp.ClientSession() as http:
        for name, body in BAD_BODIES:
            async with http.post(url, data=body, headers={SECRET_HEADER: WEBHOOK_SECRET,
                                                          "Content-Type": "application/json"}) as resp:
                assert resp.status == 400, (name, resp.status, await resp.text())
        async with http.post(url, data=b"[]", headers={SECRET_HEADER: "wrong"}) as resp:
            assert resp.status == 403
        async with http.get(url.replace("/telegram", "/livez")) as resp:  # what Caddy checks
            assert resp.status == 200 and (await resp.json()) == {"ok": True}
    assert "Traceback" not in bot.log()
    # and real updates still work, through the webhook
    chat = Chat(tg, tg.group("hooked"), people(tg, 700, "zh-Hans"))
    lobby = await chat.seat_everyone()
    assert "阿丽" in lobby.text
    assert all(status == 200 for _, status in tg.webhook_deliveries)


def test_compose_runs_two_webhook_workers_behind_caddy() -> None:
    """deploy/compose.yaml parses; two bot services of one image in webhook mode on the one
    PostgreSQL, both upstreams of Caddy, which checks the workers' /livez."""
    compose = yaml.safe_load((ROOT / "deploy" / "compose.yaml").read_text())
    services = compose["services"]
    bots = [name for name, s in services.items() if "Dockerfile" in str(s.get("build"))]
    assert sorted(bots) == ["bot1", "bot2"]
    for name in bots:
        bot = services[name]
        assert bot["environment"]["BOT_MODE"] == "webhook"
        assert "@db:5432/" in bot["environment"]["DATABASE_URL"]
        assert bot["depends_on"]["db"]["condition"] == "service_healthy"
    assert services["bot1"]["image"] == services["bot2"]["image"]
    caddy = services["caddy"]
    assert caddy["environment"]["BOT_UPSTREAMS"].split() == ["bot1:8080", "bot2:8080"]
    assert "./Caddyfile:/etc/caddy/Caddyfile:ro" in caddy["volumes"]
    caddyfile = (ROOT / "deploy" / "Caddyfile").read_text()
    assert "reverse_proxy /telegram {$BOT_UPSTREAMS" in caddyfile
    assert "health_uri /livez" in caddyfile
