"""/export benchmark: sessions of 2 000 and 10 000 hands, read from the database each time.

    .venv/bin/python -m tests.bench.bench_export [--db sqlite|postgres] [--sizes 2000,10000]
                                                 [--json out.json]

The sessions (a Luzhou and a Cixi chat per size, Cixi records the larger) are built as
tests/bench/scale.py builds them. Each size is then measured in a fresh process running the real
application over the fake Bot API:
- `ready`: the store read plus the CSV and JSON bytes ready to send (bot.view.export.session_files,
  what /export does before uploading), the median of three;
- `chat`: /export from the command to the JSON file received (uploads to the fake Bot API
  included), the median of three;
- `/table` in another chat, answered again and again while the Cixi session's /export runs
  (alone first, for the baseline);
- memory: the process's resident memory before the exports and its peak while they ran
  (sampled every 5 ms; the fake Bot API, which keeps every upload, runs in the same process),
  and the largest Python allocation peak of one export (tracemalloc, run apart).
Targets: `ready` under 0.5 s at 2 000 hands and under 2 s at 10 000, /table within 100 ms
during an export, peak memory under 150 MB.
"""

from __future__ import annotations

import asyncio
import statistics
import tempfile
import time
import tracemalloc
from pathlib import Path
from typing import Any

from tests.bench import scale
from tests.bench.scale import TIMEOUT, PeakRss, build, chat_id, finished
from tests.databases import new_database
from tests.fake_telegram import FakeTelegram

VARIANTS = ("luzhou", "cixi")
TARGET_S = {2_000: 0.5, 10_000: 2.0}
TABLE_TARGET_MS = 100.0
MEMORY_TARGET_MB = 150.0


async def answered_ms(tg: FakeTelegram, chat: dict[str, Any], user: dict[str, Any], cmd: str) -> float:
    start = len(tg.requests)
    began = time.perf_counter()
    await tg.send_message(chat, user, cmd)
    await tg.wait_for(finished(tg, int(chat["id"]), cmd, start), TIMEOUT)
    return 1000 * (time.perf_counter() - began)


async def measure_size(url: str, size: int) -> dict[str, Any]:
    from bot.chat.table import last_session, seat_names
    from bot.plumbing.config import Settings
    from bot.runner import serve
    from bot.view.export import session_files

    out: dict[str, Any] = {"size": size, "ready_s": {}, "chat_s": {}, "upload_mb": {}}
    async with FakeTelegram() as tg:
        settings = Settings(token=tg.token, base_url=tg.base_url, base_file_url=tg.base_file_url,
                            database_url=url)
        async with serve(settings, poll_timeout=1) as app:
            store = app.bot_data["store"]
            chats = {}
            for variant in VARIANTS:
                cid = chat_id(variant, size)
                chats[variant] = (tg.group(f"{variant} {size}", chat_id=cid),
                                  tg.user(abs(cid) * 10, f"Player 0 of {cid}", f"u{abs(cid) * 10}"))
            sessions = {}
            for variant in VARIANTS:
                session = await last_session(store, chat_id(variant, size))
                sessions[variant] = (session, [n or "?" for n in await seat_names(store, session)])
            out["rss_before_mb"] = PeakRss.now() / 2**20
            with PeakRss() as rss:
                for variant, (session, names) in sessions.items():
                    times = []
                    for _ in range(3):
                        began = time.perf_counter()
                        files = await session_files(store, session, names)
                        times.append(time.perf_counter() - began)
                    out["ready_s"][variant] = statistics.median(times)
                    out["upload_mb"][variant] = sum(len(data) for _, data in files) / 2**20
                    del files
                    chat, user = chats[variant]
                    out["chat_s"][variant] = statistics.median(
                        [await answered_ms(tg, chat, user, "/export") / 1000 for _ in range(3)])
                out["table"] = await table_during_export(tg, chats["cixi"])
            out["rss_peak_mb"] = rss.peak / 2**20
            peak = 0
            for session, names in sessions.values():
                tracemalloc.start()
                await session_files(store, session, names)
                peak = max(peak, tracemalloc.get_traced_memory()[1])
                tracemalloc.stop()
            out["tracemalloc_peak_mb"] = peak / 2**20
        assert not tg.internal_errors, tg.internal_errors
    return out


async def table_during_export(tg: FakeTelegram, big: tuple[dict[str, Any], dict[str, Any]]) -> dict[str, Any]:
    """/table in a small chat, alone (the baseline) and then over and over while the big chat's
    /export runs, until its JSON file is sent."""
    small = tg.group("small table", chat_id=-424242)
    user = tg.user(4242, "Solo", "solo")
    await tg.send_message(small, user, "/new cixi")  # an empty session: /table shows its seats
    await tg.wait_for(finished(tg, -424242, "/new", len(tg.requests) - 1), TIMEOUT)
    alone = [await answered_ms(tg, small, user, "/table") for _ in range(5)]
    start = len(tg.requests)
    exported = finished(tg, int(big[0]["id"]), "/export", start)
    await tg.send_message(big[0], big[1], "/export")
    during = []
    while not exported():
        during.append(await answered_ms(tg, small, user, "/table"))
    during.sort()
    return {"alone_ms": statistics.median(alone), "samples": len(during),
            "median_ms": statistics.median(during) if during else 0.0,
            "max_ms": during[-1] if during else 0.0}


async def migrate(url: str) -> None:
    from db import Store

    store = await Store.open(url)
    await store.close()


def run(backend: str, sizes: list[int]) -> dict[str, Any]:
    results: dict[str, Any] = {"backend": backend, "sizes": {}}
    with tempfile.TemporaryDirectory() as workdir:
        url, drop = asyncio.run(new_database(backend, Path(workdir), "export"))
        try:
            asyncio.run(build(url, sizes))
            asyncio.run(migrate(url))  # here: the measured processes only open the database
            results["sizes"].update(scale.measure_each("tests.bench.bench_export", url, sizes))
        finally:
            if drop is not None:
                asyncio.run(drop())
    return results


def show(results: dict[str, Any]) -> str:
    lines = [f"== /export on {results['backend']}"]
    for size, r in results["sizes"].items():
        target = TARGET_S.get(int(size))
        ready = max(r["ready_s"].values())
        verdict = "" if target is None else f" (target {target} s: {'met' if ready < target else 'MISSED'})"
        lines.append(f"{size} hands: bytes ready " + ", ".join(
            f"{v} {s:.3f} s ({r['upload_mb'][v]:.1f} MB)" for v, s in r["ready_s"].items()) + verdict)
        lines.append("  /export in the chat (files received): " + ", ".join(
            f"{v} {s:.3f} s" for v, s in r["chat_s"].items()))
        t = r["table"]
        lines.append(f"  /table in another chat: alone {t['alone_ms']:.0f} ms; during the cixi export "
                     f"{t['samples']} samples, median {t['median_ms']:.0f} ms, max {t['max_ms']:.0f} ms "
                     f"(target {TABLE_TARGET_MS:.0f} ms: "
                     f"{'met' if t['max_ms'] < TABLE_TARGET_MS else 'MISSED'})")
        lines.append(f"  memory: process RSS {r['rss_before_mb']:.0f} MB before, "
                     f"peak {r['rss_peak_mb']:.0f} MB during the exports (target {MEMORY_TARGET_MB:.0f} MB: "
                     f"{'met' if r['rss_peak_mb'] < MEMORY_TARGET_MB else 'MISSED'}); one export's "
                     f"Python peak {r['tracemalloc_peak_mb']:.1f} MB (tracemalloc)")
    return "\n".join(lines)


def main() -> None:
    scale.cli(__doc__, "2000,10000", run, show, measure_size)


if __name__ == "__main__":
    main()
