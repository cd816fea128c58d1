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
from telegram import ChatMemberRestricted, Update
from telegram.constants import ChatMemberStatus, ParseMode
from telegram.error import BadRequest, Forbidden, NetworkError, RetryAfter, TelegramError
from telegram.ext import Application

from db import DatabaseUnavailable, Draft, Store
from db.config import fault

from .app import build_application
from .plumbing.config import Settings, check_webhook_secret
from .plumbing.polling import Poller
from .plumbing.ratelimit import retry_seconds
from .plumbing.updates import handle
from .view.i18n import translator
from .view.render import esc
from .web.api import Announce, Caller, add_routes
from .web.auth import MemberOf, Membership, Unanswered, telegram_authorize
from .web.guard import MINI_APP, protect, same_origin
from .web.page import add_page_routes

log = logging.getLogger(__name__)
SECRET_HEADER = "X-Telegram-Bot-Api-Secret-Token"
ALLOWED_UPDATES = ["message", "callback_query", "my_chat_member"]
# Telegram's most (default 40): a webhook is answered once its update was handled, and with
# the 30/s send cap a busy moment holds one a second or more, so 40 would cap the chats served
# at once at 40.
WEBHOOK_CONNECTIONS = 100
REACH_FIRST, REACH_MAX = 1.0, 30.0  # seconds between attempts to reach Telegram at start-up


def webhook_path(settings: Settings) -> str:
    path = urlsplit(settings.webhook_url or "").path
    return path if path and path != "/" else "/telegram"


def http_app(app: Application, settings: Settings, store: Store) -> web.Application:
    """The HTTP side: the webhook (webhook mode), /healthz (both modes: the database answers)
    and /livez (the process serves: what a proxy in front of several workers checks, so that
    while the database is down updates still reach a worker and are answered "not available")."""

    async def health(_: web.Request) -> web.Response:
        ok = await store.ping()
        return web.json_response({"ok": ok}, status=200 if ok else 503)

    async def live(_: web.Request) -> web.Response:
        return web.json_response({"ok": True})

    async def webhook(request: web.Request) -> web.Response:
        secret = check_webhook_secret(settings.webhook_secret)
        given = request.headers.get(SECRET_HEADER, "")
        if not hmac.compare_digest(given.encode(), secret.encode()):
            return web.json_response({"ok": False}, status=403)
        try:
            payload = json.loads(await request.read())
            if not looks_like_update(payload):
                raise ValueError("not an update")
            update = Update.de_json(payload, app.bot)
        except Exception:  # whatever the body is, it is not an update: the sender's fault
            log.warning("webhook: a request with the secret but no update in its body")
            return web.json_response({"ok": False, "description": "not an update"}, status=400)
        # Answered once the update was handled: if the process dies first, Telegram gets no
        # answer and delivers the update again. Handling is bounded (the store waits a few
        # seconds at most, then answers "busy"), well inside the time Telegram waits for a
        # webhook; an answer later than that only means a redelivery, which changes nothing
        # twice (see bot/plumbing/updates.py).
        try:
            await handle(app, update)
        except Exception:  # the handlers' errors went to the error handler already
            log.exception("webhook: update %s could not be handled", update.update_id)
        return web.json_response({"ok": True})

    web_app = web.Application(middlewares=[same_origin(settings.public_url)])
    protect(web_app, MINI_APP)
    web_app.router.add_get("/healthz", health)
    web_app.router.add_get("/livez", live)
    add_routes(web_app, store, telegram_authorize(store, settings.token, member_of(app)),
               announcer(app))
    add_page_routes(web_app)
    if settings.mode == "webhook":
        web_app.router.add_post(webhook_path(settings), webhook)
    return web_app


def member_of(app: Application) -> MemberOf:
    """(chat id, user id) → whether the user is still in that chat, and an admin there, asked
    of Telegram (getChatMember). A chat or user Telegram does not know there, or a chat the bot
    was removed from, is no membership; no answer at all is `Unanswered`."""

    async def check(chat_id: int, user_id: int) -> Membership:
        try:
            member = await app.bot.get_chat_member(chat_id, user_id)
        except (BadRequest, Forbidden):
            return Membership(member=False, admin=False)
        except TelegramError as exc:  # unreachable, or 429: a guess either way would be wrong
            raise Unanswered(str(exc)) from exc
        admin = member.status in (ChatMemberStatus.ADMINISTRATOR, ChatMemberStatus.OWNER)
        inside = admin or member.status == ChatMemberStatus.MEMBER or (
            isinstance(member, ChatMemberRestricted) and member.is_member)
        return Membership(member=inside, admin=admin)

    return check


def announcer(app: Application) -> Announce:
    """A hand booked from the page: the chat gets the wizard's confirmation message, and a
    wizard entry the booking closed says so, as a newer /hand's would."""

    async def announce(caller: Caller, lines: list[str], replaced: list[Draft]) -> None:
        t = translator(caller.lang)
        for old in replaced:
            if old.message_id > 0:
                with suppress(TelegramError):
                    await app.bot.edit_message_text(
                        esc(t("This entry was replaced by a newer one.")), chat_id=old.chat_id,
                        message_id=old.message_id)
        await app.bot.send_message(caller.chat_id, "\n".join(lines), parse_mode=ParseMode.HTML)

    return announce


def looks_like_update(payload: object) -> bool:
    """The shape of a Telegram Update: an object with an integer update_id whose other fields
    are objects, with the ids and texts the bot reads of the right types. (PTB's de_json takes
    almost anything, and a wrong type would only fail later, in a handler.)"""
    if not isinstance(payload, dict) or not _is_int(payload.get("update_id")):
        return False
    return all(isinstance(v, dict) and _fields_ok(v) for k, v in payload.items() if k != "update_id")


def _is_int(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _fields_ok(obj: dict[str, object], *, int_id: bool = False) -> bool:
    """Nested objects are objects; chats and users have integer ids (a callback query's id is
    a string); dates, message ids and texts have their types."""
    for key in ("chat", "from", "message", "reply_to_message", "document", "sender_chat"):
        if key in obj:
            inner = obj[key]
            if not (isinstance(inner, dict) and _fields_ok(inner, int_id=key in ("chat", "from"))):
                return False
    if "id" in obj and not (_is_int(obj["id"]) if int_id else isinstance(obj["id"], int | str)):
        return False
    if any(key in obj and not _is_int(obj[key]) for key in ("message_id", "date")):
        return False
    return all(isinstance(obj[key], str) for key in ("text", "data", "caption") if key in obj)


@asynccontextmanager
async def serve(settings: Settings, store: Store | None = None,
                *, poll_timeout: int = 10) -> AsyncIterator[Application]:
    """Start the bot (and its HTTP side when it has a port) and stop it on leaving."""
    if settings.mode == "webhook":
        check_webhook_secret(settings.webhook_secret)  # never a webhook anyone can post to
    own_store = store is None
    ready = True
    if store is None:
        store = await Store.open(settings.database_url, migrate=False)
        ready = await _migrate(store)
    app = build_application(settings, store)
    app.bot_data["database_ready"] = ready
    runner: web.AppRunner | None = None
    poller: Poller | None = None
    migrating: asyncio.Task | None = None
    try:
        if not ready:
            migrating = asyncio.create_task(_migrate_when_back(app, store))
        await _reach_telegram(app)
        await app.initialize()
        if app.post_init:
            await app.post_init(app)
        await app.start()
        if settings.mode == "webhook":
            await app.bot.set_webhook(settings.webhook_url or "", secret_token=settings.webhook_secret,
                                      allowed_updates=ALLOWED_UPDATES,
                                      max_connections=WEBHOOK_CONNECTIONS)
        else:
            await app.bot.delete_webhook()
            poller = Poller(app, timeout=poll_timeout, allowed_updates=ALLOWED_UPDATES)
            poller.start()
        if settings.mode == "webhook" or settings.port:
            runner = web.AppRunner(http_app(app, settings, store))
            await runner.setup()
            await web.TCPSite(runner, settings.listen, settings.port).start()
        yield app
    finally:
        if migrating is not None:
            migrating.cancel()
            with suppress(asyncio.CancelledError):
                await migrating
        if runner is not None:
            await runner.cleanup()
        if poller is not None:
            await poller.stop()
        if app.running:
            await app.stop()
        await app.shutdown()
        if own_store:
            await store.close()


async def _reach_telegram(app: Application) -> None:
    """Ask Telegram who the bot is (getMe) until it answers: a network down or Telegram away at
    start-up is waited out with backoff, one log line per failed attempt. A refused token (or
    any other refusal) ends the start as before."""
    delay, attempt = REACH_FIRST, 1
    while True:
        try:
            await app.bot.initialize()
            return
        except RetryAfter as exc:
            wait = retry_seconds(exc)
            reason = f"asked to wait {wait:.0f} s"
        except BadRequest:  # a NetworkError in PTB, but an answer: trying again changes nothing
            raise
        except NetworkError as exc:  # unreachable, timed out, or a 5xx from Telegram's side
            wait, delay = delay, min(REACH_MAX, delay * 2)
            reason = str(exc) or type(exc).__name__
        log.warning("Telegram cannot be reached (attempt %d: %s); trying again in %.0f s",
                    attempt, reason, wait)
        attempt += 1
        await asyncio.sleep(wait)


RETRY_MIGRATION = 2.0  # seconds between attempts while the database is down at start


async def _migrate(store: Store, *, quiet: bool = False) -> bool:
    """Bring the schema up to date: True when done, False when the database cannot be reached
    (the bot then starts anyway and answers every update "not available" until it can)."""
    try:
        await store.migrate()
        return True
    except Exception as exc:
        if fault(exc) is not DatabaseUnavailable:
            raise
        if not quiet:
            log.warning("the database is not available (%s); every update is answered 'not "
                        "available' until it is", str(exc).strip().splitlines()[0] if str(exc)
                        else type(exc).__name__)
        return False


async def _migrate_when_back(app: Application, store: Store) -> None:
    while not await _migrate(store, quiet=True):
        await asyncio.sleep(RETRY_MIGRATION)
    app.bot_data["database_ready"] = True
    log.info("the database answers again; migrated")


async def run_forever(settings: Settings) -> None:
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGINT, signal.SIGTERM):
        with suppress(NotImplementedError):
            loop.add_signal_handler(sig, stop.set)
    started = asyncio.Event()

    async def run() -> None:
        async with serve(settings):
            started.set()
            log.info("Mahjong Ledger is running (%s)", settings.mode)
            await stop.wait()

    # A stop while the start still waits for Telegram ends the start.
    running, stopping = asyncio.create_task(run()), asyncio.create_task(stop.wait())
    await asyncio.wait({running, stopping}, return_when=asyncio.FIRST_COMPLETED)
    stopping.cancel()
    if not started.is_set():
        running.cancel()
    with suppress(asyncio.CancelledError):
        await running
