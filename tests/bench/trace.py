"""Where an update's latency goes in the load benchmark: a timeline per update.

The bot process (tests/bench/loadbot.py with LOADBOT_TRACE=FILE) records, on the system-wide
monotonic clock, when each update was fetched by getUpdates (or reached the webhook), when its
handlers began and ended, and for each Bot API call it made: when it was queued at the rate
limiter, sent (past the limiter) and answered. The driver (tests/bench/load.py --trace FILE)
adds when it injected each update. `phases` folds both into per-update phases:

  delivery   injected -> fetched (getUpdates' latency, or the webhook POST reaching the bot)
  waiting    fetched -> handler start (its chat's turn, the processor's semaphore)
  handling   handler start -> first Bot API call queued (database work and the bot's CPU)
  limiter    queued -> sent, summed over the update's calls (the 30/s cap, 429 pauses)
  api        sent -> answered, summed (the fake server's time, the HTTP round trip)
"""

from __future__ import annotations

import contextvars
import json
import time
from collections import defaultdict
from typing import Any

EVENTS: list[tuple[float, str, int, str]] = []  # (monotonic, event, update_id, detail)
CURRENT: contextvars.ContextVar[int] = contextvars.ContextVar("traced_update", default=-1)


def note(event: str, update_id: int | None = None, detail: str = "") -> None:
    EVENTS.append((time.monotonic(), event, CURRENT.get() if update_id is None else update_id,
                   detail))


def install() -> None:
    """Patch the bot's poller, webhook, processor and rate limiter to record events."""
    import bot.plumbing.polling
    import bot.plumbing.ratelimit
    import bot.plumbing.updates

    begin = bot.plumbing.polling.Poller._begin

    def traced_begin(self: Any, raw: Any) -> None:  # the update as JSON (or as an Update)
        note("fetched", raw["update_id"] if isinstance(raw, dict) else raw.update_id)
        begin(self, raw)

    bot.plumbing.polling.Poller._begin = traced_begin  # type: ignore[method-assign]

    delivered = bot.plumbing.updates._delivered

    async def traced_delivered(update: Any, key: Any, coroutine: Any) -> None:
        uid = getattr(update, "update_id", -1)
        token = CURRENT.set(uid)
        note("start")
        try:
            await delivered(update, key, coroutine)
        finally:
            note("end")
            CURRENT.reset(token)

    bot.plumbing.updates._delivered = traced_delivered  # type: ignore[assignment]

    import bot.runner

    handle = bot.runner.handle

    async def webhook_handle(app: Any, update: Any) -> None:  # webhook mode: the POST arrived
        note("fetched", update.update_id)
        await handle(app, update)

    bot.runner.handle = webhook_handle  # type: ignore[assignment]

    process = bot.plumbing.ratelimit.ChatRateLimiter.process_request

    async def traced_process(self: Any, callback: Any, args: Any, kwargs: Any, endpoint: str,
                             data: dict[str, Any], rate_limit_args: Any) -> Any:
        if endpoint == "getUpdates":
            return await process(self, callback, args, kwargs, endpoint, data, rate_limit_args)
        note("queued", detail=endpoint)

        async def traced_callback(*a: Any, **k: Any) -> Any:
            note("sent", detail=endpoint)
            try:
                return await callback(*a, **k)
            finally:
                note("answered", detail=endpoint)

        return await process(self, traced_callback, args, kwargs, endpoint, data, rate_limit_args)

    bot.plumbing.ratelimit.ChatRateLimiter.process_request = traced_process  # type: ignore[method-assign]


def dump(path: str) -> None:
    with open(path, "w") as f:
        json.dump(EVENTS, f)


def phases(bot_events: list[list[Any]], injected: dict[int, float]) -> dict[int, dict[str, float]]:
    """Per update (ms): delivery, waiting, handling, limiter, api, total (injected -> last call
    answered)."""
    by_update: dict[int, list[list[Any]]] = defaultdict(list)
    for e in bot_events:
        by_update[int(e[2])].append(e)
    out: dict[int, dict[str, float]] = {}
    for uid, events in by_update.items():
        if uid not in injected:
            continue
        first = {}
        for at, name, _, _ in events:
            first.setdefault(name, at)
        if not {"fetched", "start", "queued"} <= first.keys():
            continue
        limiter = api = 0.0
        queued: list[float] = []
        sent: list[float] = []
        for at, name, _, _ in events:
            if name == "queued":
                queued.append(at)
            elif name == "sent":
                limiter += at - queued.pop(0) if queued else 0.0
                sent.append(at)
            elif name == "answered" and sent:
                api += at - sent.pop(0)
        last = max(at for at, name, _, _ in events if name == "answered")
        t0 = injected[uid]
        out[uid] = {"delivery": first["fetched"] - t0, "waiting": first["start"] - first["fetched"],
                    "handling": first["queued"] - first["start"], "limiter": limiter, "api": api,
                    "total": last - t0}
        out[uid] = {k: 1000 * v for k, v in out[uid].items()}
    return out


def summary(rows: dict[int, dict[str, float]]) -> str:
    """The phases' mean and p99, and the slowest 1% of updates (by total) phase by phase."""
    if not rows:
        return "trace: no updates"
    totals = sorted(rows.values(), key=lambda r: r["total"])
    slow = totals[int(len(totals) * 0.99) - 1:] or totals[-1:]
    lines = [f"trace: {len(rows)} updates (ms)"]
    for key in ("delivery", "waiting", "handling", "limiter", "api", "total"):
        vals = sorted(r[key] for r in rows.values())
        lines.append(f"  {key:9} mean {sum(vals) / len(vals):7.1f}  p50 {vals[len(vals) // 2]:7.1f}"
                     f"  p99 {vals[int(len(vals) * 0.99)]:7.1f}  "
                     f"slowest 1%: {sum(r[key] for r in slow) / len(slow):7.1f}")
    return "\n".join(lines)
