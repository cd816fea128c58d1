"""Webhook mode behind a proxy (secret token, /healthz) and several workers on one database."""

from __future__ import annotations

import asyncio
import socket
from pathlib import Path

import aiohttp
import pytest

from bot.runner import serve
from db import Store
from tests.databases import BACKENDS, fresh_database
from tests.fake_telegram import FakeTelegram

from .conftest import settings_for
from .table import Table

SECRET = "s3cret-Token_42-webhook"


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def webhook_settings(tg: FakeTelegram, db_url: str, port: int) -> object:
    return settings_for(tg, db_url, mode="webhook", webhook_url="https://bot.example.com/telegram",
                        webhook_secret=SECRET, listen="127.0.0.1", port=port)


async def test_webhook_mode_end_to_end(tg: FakeTelegram, db_url: str, table: Table) -> None:
    port = free_port()
    async with serve(webhook_settings(tg, db_url, port)):  # type: ignore[arg-type]
        assert tg.webhook is not None and tg.webhook["url"] == "https://bot.example.com/telegram"
        assert tg.webhook.get("secret_token") == SECRET
        assert tg.webhook.get("max_connections") == 100  # Telegram's most: see bot/runner.py
        tg.webhook_target = f"http://127.0.0.1:{port}/telegram"
        lobby = await table.seat_everyone("luzhou")
        assert "Alice" in lobby.text
        preview = await table.say(table.players[1], "/hu 1 zimo pure")
        await table.tap(table.players[1], preview, "Wall exhausted")  # a whole hand
        await table.tap(table.players[1], preview, "Confirm")
        assert "Hand 1 recorded" in table.message(preview.message_id).text

        update = {"update_id": 999, "message": {"message_id": 1, "date": 0,
                                                "chat": table.chat, "text": "/table"}}
        status, _ = await tg.deliver_webhook(tg.webhook_target, "wrong-secret", update)
        assert status == 403
        status, _ = await tg.deliver_webhook(tg.webhook_target, None, update)
        assert status == 403
        async with aiohttp.ClientSession() as http:
            async with http.get(f"http://127.0.0.1:{port}/healthz") as resp:
                assert resp.status == 200 and (await resp.json()) == {"ok": True}


@pytest.mark.parametrize("backend", BACKENDS)
async def test_two_workers_on_one_database_record_a_hand_once(tg: FakeTelegram, tmp_path: Path,
                                                              table: Table, backend: str) -> None:
    async with fresh_database(backend, tmp_path) as url:
        port_a, port_b = free_port(), free_port()
        async with serve(webhook_settings(tg, url, port_a)), \
                serve(webhook_settings(tg, url, port_b)):  # type: ignore[arg-type]
            a, b = f"http://127.0.0.1:{port_a}/telegram", f"http://127.0.0.1:{port_b}/telegram"
            tg.webhook_target = a
            await table.seat_everyone("luzhou")
            preview = await table.say(table.players[0], "/hu 0 zimo all_pungs")
            await table.tap(table.players[0], preview, "Wall exhausted")  # a whole hand
            data = table.message(preview.message_id).callback_data("Confirm")
            # two players tap Confirm at once and Telegram hands the taps to different workers
            # at the same moment: queue both taps, then deliver them concurrently
            hook, tg.webhook = tg.webhook, None
            first = await tg.press(table.chat_id, preview.message_id, table.players[0], data)
            tap_a = tg.injected[-1]
            second = await tg.press(table.chat_id, preview.message_id, table.players[1], data)
            tap_b = tg.injected[-1]
            tg.webhook = hook
            statuses = await asyncio.gather(tg.deliver_webhook(a, SECRET, tap_a),
                                            tg.deliver_webhook(b, SECRET, tap_b))
            assert [status for status, _ in statuses] == [200, 200]
            answers = await asyncio.gather(table.answered(first), table.answered(second))
            assert sorted(bool(x.get("show_alert")) for x in answers) == [False, True]
        store = await Store.open(url)
        try:
            session = await store.running_session(table.chat_id)
            assert (await store.get_session(session.id)).hand_count == 1
            assert await store.totals(session.id) == (30, -10, -10, -10)
        finally:
            await store.close()
