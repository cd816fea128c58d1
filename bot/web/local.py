"""`mjledger` without a Telegram token: the page's API, for one table, on this machine.

Its books are one chat's (LOCAL_CHAT_ID, an id Telegram never gives), whose players are
guests. It listens on 127.0.0.1 unless told otherwise; anywhere else every request must give
WEB_PASSWORD (HTTP basic auth, compared in constant time, wrong guesses slowed down per client).
Before the password, bot/web/guard.py refuses other Host names and other sites' requests."""

from __future__ import annotations

import base64
import binascii
import hmac
import logging
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager, suppress
from typing import Any

from aiohttp import web

from db import Store

from ..plumbing.config import LocalSettings
from .api import Caller, add_routes, request_lang
from .guard import LOCAL, Throttle, allowed_hosts, host_check, locked_out, protect, same_origin
from .page import add_page_routes, icon, to_page

log = logging.getLogger(__name__)
LOCAL_CHAT_ID = 0  # Telegram's chat ids are never 0
REALM = 'Basic realm="Mahjong Ledger", charset="UTF-8"'


def password_middleware(password: str, throttle: Throttle) -> Callable[..., Awaitable[web.StreamResponse]]:
    """Every request gives the password by HTTP basic auth (any user name). A client that
    guessed wrong too often waits (429, Retry-After) before any password of its is read; a
    request without one (the browser's first, before it asks) is no guess."""
    expected = password.encode()

    @web.middleware
    async def check(request: web.Request, handler: Any) -> web.StreamResponse:
        wait = throttle.wait(request.remote)
        if wait > 0:
            return locked_out(wait)
        given: bytes | None = None
        kind, _, value = request.headers.get("Authorization", "").partition(" ")
        if kind.lower() == "basic":
            given = b""
            with suppress(binascii.Error, ValueError):
                given = base64.b64decode(value, validate=True).partition(b":")[2]
        if given is None or not hmac.compare_digest(given, expected):
            if given is not None:
                throttle.failed(request.remote)
            return web.Response(status=401, text="password needed",
                                headers={"WWW-Authenticate": REALM})
        throttle.passed(request.remote)
        return await handler(request)

    return check


async def authorize_local(request: web.Request, _: dict[str, Any]) -> Caller:
    """The one user of the local page: books everything, starts sessions."""
    return Caller(LOCAL_CHAT_ID, None, request_lang(request), may_book=True, local=True)


def local_app(store: Store, password: str | None = None, *,
              hosts: frozenset[str] = frozenset({"localhost"}),
              throttle: Throttle | None = None) -> web.Application:
    """The page and its API; `hosts`: the names it answers to besides IP addresses
    (guard.allowed_hosts)."""
    middlewares = [host_check(hosts), same_origin()]
    if password:
        middlewares.append(password_middleware(password, throttle if throttle is not None else Throttle()))
    app = web.Application(middlewares=middlewares)
    protect(app, LOCAL)

    add_routes(app, store, authorize_local)
    add_page_routes(app)
    app.router.add_get("/", to_page)  # someone who typed the host and port alone
    app.router.add_get("/favicon.ico", icon)
    return app


@asynccontextmanager
async def serve_local(settings: LocalSettings, store: Store | None = None) -> AsyncIterator[str]:
    """Serve the page until the block ends; yields its address."""
    own = store is None
    if store is None:
        store = await Store.open(settings.database_url)
    hosts = allowed_hosts(settings.host, settings.hosts)
    runner = web.AppRunner(local_app(store, settings.password, hosts=hosts))
    try:
        await runner.setup()
        site = web.TCPSite(runner, settings.host, settings.port)
        await site.start()
        host = f"[{settings.host}]" if ":" in settings.host else settings.host
        yield f"http://{host}:{settings.port}/app/"
    finally:
        await runner.cleanup()
        if own:
            await store.close()

