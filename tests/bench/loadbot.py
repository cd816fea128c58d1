"""The bot side of the load benchmark, run as its own process so its CPU time is its own.

    python -m tests.bench.loadbot app|echo BASE_URL BASE_FILE_URL TOKEN [DATABASE_URL]

`app` is the real application (`bot.runner.serve`, polling); `echo` a bare python-telegram-bot
Application that answers every message with a message carrying one button, and every button
with an edit of that message and a callback answer — the least any bot does per update.
On SIGUSR1 it writes one JSON line to stdout with its counters so far: CPU seconds, SQL
statements (cursor executions; the chat turn's lock statements apart, as `turns`), transactions
begun and connections checked out. SIGTERM stops it.
LOADBOT_NO_RATE_LIMIT=1 lifts the bot's 30 requests/s overall cap; LOADBOT_NO_GC_FREEZE=1 leaves
the start-up objects to the garbage collector (as before bot.app.freeze_startup_objects).
LOADBOT_WEBHOOK_PORT=PORT runs the app in webhook mode, its webhook on 127.0.0.1:PORT/telegram.
LOADBOT_TRACE=FILE records each update's timeline (tests/bench/trace.py) into FILE on stopping.
"""

from __future__ import annotations

import asyncio
import dataclasses
import json
import os
import resource
import signal
import sys
import time
from typing import Any

from sqlalchemy import event
from telegram import InlineKeyboardButton, InlineKeyboardMarkup, Update
from telegram.ext import Application, CallbackQueryHandler, ContextTypes, MessageHandler, filters

from bot.plumbing.config import Settings
from bot.runner import serve
from db import Store

COUNTERS = {"statements": 0, "turns": 0, "transactions": 0, "checkouts": 0}
# the chat's turn across processes (db/store/turns.py): two statements per update on
# PostgreSQL, counted apart from the update's own work
TURN_STATEMENT = "advisory"


def cpu_seconds() -> float:
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


def report() -> None:
    usage = resource.getrusage(resource.RUSAGE_SELF)
    print(json.dumps({"cpu": cpu_seconds(), "maxrss_kb": usage.ru_maxrss, "wall": time.monotonic(),
                      **COUNTERS}), flush=True)


def count_sql(store: Store) -> None:
    engine = store.engine.sync_engine

    def on_execute(_conn: Any, _cursor: Any, statement: str, *_: Any) -> None:
        COUNTERS["turns" if TURN_STATEMENT in statement else "statements"] += 1

    def on_begin(*_: Any) -> None:
        COUNTERS["transactions"] += 1

    def on_checkout(*_: Any) -> None:
        COUNTERS["checkouts"] += 1

    event.listen(engine, "before_cursor_execute", on_execute)
    event.listen(engine, "begin", on_begin)
    event.listen(engine.pool, "checkout", on_checkout)


KEYBOARD = InlineKeyboardMarkup([[InlineKeyboardButton("again", callback_data="e:1")]])


async def echo_message(update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
    message = update.effective_message
    assert message is not None
    await context.bot.send_message(message.chat_id, message.text or "?", reply_markup=KEYBOARD)


async def echo_button(update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
    query = update.callback_query
    assert query is not None
    await query.edit_message_text(f"pressed {query.data} {query.id}", reply_markup=KEYBOARD)
    await query.answer()


async def run_echo(settings: Settings, stop: asyncio.Event) -> None:
    app = (Application.builder().token(settings.token).base_url(settings.base_url)
           .base_file_url(settings.base_file_url or "").build())
    app.add_handler(MessageHandler(filters.ALL, echo_message))
    app.add_handler(CallbackQueryHandler(echo_button))
    async with app:
        await app.start()
        await app.updater.start_polling(poll_interval=0.0, timeout=1)  # type: ignore[union-attr]
        print(json.dumps({"ready": True}), flush=True)
        await stop.wait()
        await app.updater.stop()  # type: ignore[union-attr]
        await app.stop()


def lift_overall_limit() -> None:
    """LOADBOT_NO_RATE_LIMIT=1: no 30 requests/s overall cap (retry_after is still obeyed), to
    measure what the bot itself can do apart from Telegram's send limit."""
    import bot.app
    from bot.plumbing.ratelimit import ChatRateLimiter

    bot.app.rate_limiter = lambda: ChatRateLimiter(  # type: ignore[assignment]
        overall_max_rate=0, max_retries=5)


WEBHOOK_SECRET = "load-benchmark-webhook-secret"


async def run_app(settings: Settings, stop: asyncio.Event) -> None:
    trace_file = os.environ.get("LOADBOT_TRACE")
    if trace_file:
        from tests.bench import trace

        trace.install()
    if os.environ.get("LOADBOT_WEBHOOK_PORT"):
        settings = dataclasses.replace(
            settings, mode="webhook", webhook_url="https://bot.example.com/telegram",
            webhook_secret=WEBHOOK_SECRET, listen="127.0.0.1",
            port=int(os.environ["LOADBOT_WEBHOOK_PORT"]))
    if os.environ.get("LOADBOT_NO_RATE_LIMIT"):
        lift_overall_limit()
    if os.environ.get("LOADBOT_NO_GC_FREEZE"):  # the bot as it was before it froze its start-up
        import bot.app

        bot.app._frozen = True
    store = await Store.open(settings.database_url)
    count_sql(store)
    try:
        async with serve(settings, store, poll_timeout=1):
            print(json.dumps({"ready": True}), flush=True)
            await stop.wait()
    finally:
        await store.close()
        if trace_file:
            trace.dump(trace_file)


async def main(argv: list[str]) -> None:
    kind, base_url, file_url, token = argv[:4]
    db_url = argv[4] if len(argv) > 4 else None
    settings = Settings(token=token, base_url=base_url, base_file_url=file_url, database_url=db_url)
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    loop.add_signal_handler(signal.SIGUSR1, report)
    loop.add_signal_handler(signal.SIGTERM, stop.set)
    await (run_echo if kind == "echo" else run_app)(settings, stop)


if __name__ == "__main__":
    if os.environ.get("LOADBOT_PROFILE"):  # where to write a cProfile of the whole run
        import cProfile

        cProfile.run("asyncio.run(main(sys.argv[1:]))", os.environ["LOADBOT_PROFILE"])
    else:
        asyncio.run(main(sys.argv[1:]))
