"""The bot's memory and another chat's /table while pictures are read: the bot runs as a process
(`python -m bot`, as deployed) against the fake Bot API; four seated tables each send a picture
captioned /hu at once, as files (a PNG sent as a file is not recompressed by Telegram), while a
fifth table asks /table every 50 ms. Reported per scenario: the bot process's peak resident
memory (its ru_maxrss, read once it has exited) and the /table answer times meanwhile.

    .venv/bin/python -m tests.bench.photo_memory            # every scenario, one bot each

Scenarios: `idle` (no picture: the bot's own footprint), `40mp` (four 8000×5000 PNGs of ~120 kB,
over the limit), `limit` (four 5000×5000 PNGs, just at bot.photo.detect.MAX_PIXELS).
"""

from __future__ import annotations

import asyncio
import io
import json
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from PIL import Image

from tests.e2e.table import Table
from tests.e2e.test_table_words import seat
from tests.fake_telegram import FakeTelegram
from tests.faults.process import BotProcess

SCENARIOS = {"idle": None, "40mp": (8000, 5000), "limit": (5000, 5000)}
CHATS = 4
TABLE_EVERY = 0.05  # seconds between /table requests


def picture(size: tuple[int, int]) -> bytes:
    out = io.BytesIO()
    Image.new("RGB", size, (28, 104, 62)).save(out, "PNG")
    return out.getvalue()


async def one(name: str) -> dict[str, object]:
    """One scenario with a bot process of its own (the only child of this process)."""
    size = SCENARIOS[name]
    data = picture(size) if size else b""
    with tempfile.TemporaryDirectory() as tmp:
        async with FakeTelegram() as tg:
            bot = BotProcess(tg, f"sqlite+aiosqlite:///{tmp}/bench.sqlite3", Path(tmp) / "bot.log")
            await bot.start()
            tables = []
            for i in range(CHATS + 1):
                table = Table(tg, tg.group(f"table {i}"),
                              [tg.user(1000 + 10 * i + k, f"P{i}{k}") for k in range(4)])
                await seat(table, "guiyang")
                tables.append(table)
            watched, senders = tables[0], tables[1:]
            latencies: list[float] = []
            mark = len(tg.requests)
            start = time.perf_counter()
            for table in senders if size else ():
                await tg.send_document(table.chat, table.players[0], data, "hand.png",
                                       caption="/hu S self-draw", mime_type="image/png")

            def answered() -> int:
                return sum(1 for r in tg.requests[mark:] if r.method == "sendMessage" and r.ok
                           and any(str(r.params.get("chat_id")) == str(t.chat_id) for t in senders))

            while (answered() < CHATS if size else len(latencies) < 40):
                sent = time.perf_counter()
                before = len(tg.requests)
                await tg.send_message(watched.chat, watched.players[0], "/table")
                await tg.wait_for_request("sendMessage", 30, where=watched._mine, after=before)
                latencies.append(time.perf_counter() - sent)
                await asyncio.sleep(TABLE_EVERY)
            seconds = time.perf_counter() - start
            answers = [r.result["text"][:40] for r in tg.requests[mark:]
                       if r.method == "sendMessage" and r.ok and str(r.params.get("chat_id"))
                       in {str(t.chat_id) for t in senders}]
            await bot.stop()
    peak = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024  # kB on Linux
    latencies.sort()
    return {"scenario": name, "peak_mb": round(peak), "seconds": round(seconds, 2),
            "table_n": len(latencies), "table_median_ms": round(statistics.median(latencies) * 1000),
            "table_p95_ms": round(latencies[int(len(latencies) * 0.95) - 1] * 1000),
            "table_max_ms": round(latencies[-1] * 1000), "answers": sorted(set(answers))}


def main() -> None:
    if len(sys.argv) > 2 and sys.argv[1] == "--one":
        print(json.dumps(asyncio.run(one(sys.argv[2]))))
        return
    for name in SCENARIOS:  # each in a process of its own: ru_maxrss of its one child
        out = subprocess.run([sys.executable, "-m", "tests.bench.photo_memory", "--one", name],
                             capture_output=True, text=True, check=True).stdout
        r = json.loads(out.strip().splitlines()[-1])
        print(f"{r['scenario']:<6} peak {r['peak_mb']:>5} MB  /table ×{r['table_n']:<3} median "
              f"{r['table_median_ms']:>4} ms  p95 {r['table_p95_ms']:>4} ms  max "
              f"{r['table_max_ms']:>4} ms  ({r['seconds']} s)  {r['answers']}")


if __name__ == "__main__":
    main()
