"""Running the bot: polling or webhook, plus a health endpoint. `main()` and the end-to-end
tests both go through `serve`, so the tests drive exactly what production runs."""

from __future__ import annotations

import asyncio
import hmac
import json
import logging
import signal
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager, suppress
from urllib.parse import urlsplit

from aiohttp import web
from telegram import Update
from telegram.ext import Application

from db import Store

from .app import build_application
from .config import Settings

log = logging.getLogger(__name__)
SECRET_HEADER = "X-Telegram-Bot-Api-Secret-Token"
ALLOWED_UPDATES = ["message", "callback_query", "my_chat_member"]


def webhook_path(settings: Settings) -> str:
    path = urlsplit(settings.webhook_url or "").path
    return path if path and path != "/" else "/telegram"


def http_app(app: Application, settings: Settings, store: Store) -> web.Application:
    """The HTTP side: the webhook (webhook mode) and /healthz (both modes)."""

    async def health(_: web.Request) -> web.Response:
        ok = await store.ping()
        return web.json_response({"ok": ok}, status=200 if ok else 503)

    async def webhook(request: web.Request) -> web.Response:
        secret = settings.webhook_secret or ""
        given = request.headers.get(SECRET_HEADER, "")
        if secret and not hmac.compare_digest(given.encode(), secret.encode()):
            return web.json_response({"ok": False}, status=403)
        try:
            payload = await request.json()
            update = Update.de_json(payload, app.bot)
        except (json.JSONDecodeError, ValueError, TypeError, KeyError):
            return web.json_response({"ok": False}, status=400)
        await app.update_queue.put(update)
        return web.json_response({"ok": True})

    web_app = web.Application()
    web_app.router.add_get("/healthz", health)
    if settings.mode == "webhook":
        web_app.router.add_post(webhook_path(settings), webhook)
    return web_app


@asynccontextmanager
async def serve(settings: Settings, store: Store | None = None,
                *, poll_timeout: int = 10) -> AsyncIterator[Application]:
    """Start the bot (and its HTTP side when it has a port) and stop it on leaving."""
    own_store = store is None
    store = store or await Store.open(settings.database_url)
    app = build_application(settings, store)
    runner: web.AppRunner | None = None
    try:
        await app.initialize()
        if app.post_init:
            await app.post_init(app)
        await app.start()
        if settings.mode == "webhook":
            await app.bot.set_webhook(settings.webhook_url or "", secret_token=settings.webhook_secret,
                                      allowed_updates=ALLOWED_UPDATES)
        else:
            await app.bot.delete_webhook()
            await app.updater.start_polling(poll_interval=0.0, timeout=poll_timeout,  # type: ignore[union-attr]
                                            allowed_updates=ALLOWED_UPDATES)
        if settings.mode == "webhook" or settings.port:
            runner = web.AppRunner(http_app(app, settings, store))
            await runner.setup()
            await web.TCPSite(runner, settings.listen, settings.port).start()
        yield app
    finally:
        if runner is not None:
            await runner.cleanup()
        if app.updater is not None and app.updater.running:
            await app.updater.stop()
        if app.running:
            await app.stop()
        await app.shutdown()
        if own_store:
            await store.close()


async def run_forever(settings: Settings) -> None:
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGINT, signal.SIGTERM):
        with suppress(NotImplementedError):
            loop.add_signal_handler(sig, stop.set)
    async with serve(settings):
        log.info("Mahjong Ledger is running (%s)", settings.mode)
        await stop.wait()
