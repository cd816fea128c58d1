"""Scale benchmark: every command at 100, 10 000 and 100 000 hands of history.

    .venv/bin/python -m tests.bench.scale [--db sqlite|postgres] [--sizes 100,10000,100000]
                                          [--json out.json]

One database per run holds, for each size, a Luzhou chat and a Cixi chat with one session of
that many hands (realistic scored records, Cixi in whole levels), bulk-inserted at the first
schema revision ("0001") and then brought to the newest one by the bot itself, so later
migrations run their backfill on the generated history (the time is reported as `open`).
Each size is then measured in a fresh process (the real application over the fake Bot API in
that process): every command's wall time and the process's peak resident memory while it ran
(sampled every 5 ms). The 100 000-hand process also times a /table in a small chat while a
100 000-hand /stats, then a 100 000-hand /export, runs in another chat. (/export at the sizes a
table plays, with its targets: tests/bench/bench_export.py.)
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Awaitable, Callable
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from alembic import command
from sqlalchemy import func, insert, select, text, update

from db import models as M
from db.config import make_engine
from db.store import alembic_config
from scoring import score
from tests.bench.bench_totals import bulk_insert
from tests.databases import new_database
from tests.fake_telegram import FakeTelegram

CHUNK = 5_000
TIMEOUT = 600.0
FIRST_REVISION = "0001"
COMMANDS = ["/table", "/history", "/stats", "/chart", "/export", "/hu 1 zimo", "/undo"]


def chat_id(variant: str, size: int) -> int:
    return -(size * 10 + (1 if variant == "luzhou" else 2))


# -- generated history --------------------------------------------------------------------------

def luzhou_pool() -> list[tuple[dict[str, Any], dict[str, Any]]]:
    """A few dozen scored Luzhou hands (records and outcomes) to draw from."""
    wins = [("self_draw", None, {}), ("self_draw", None, {"pure": True}),
            ("self_draw", None, {"form": "all_pungs"}), ("discard", 1, {"form": "all_pungs"}),
            ("discard", 2, {"pure": True}), ("discard", 3, {"form": "all_pungs", "pure": True})]
    pool = []
    for winner in range(4):
        for by, offset, features in wins:
            event: dict[str, Any] = {"type": "win", "by": by, "winners": [{"seat": winner, **features}]}
            if offset is not None:
                event["from"] = (winner + offset) % 4
            ready = {"type": "exhausted", "ready": {str(s): {} for s in range(4) if s != winner}}
            record = {"variant": "luzhou", "dealer": winner, "dealer_streak": 1, "round_wind": 0,
                      "events": [event, ready]}  # a whole hand: the wall runs out, all ready
            pool.append((record, score(record).to_dict()))
    return pool


def cixi_level(rng: random.Random) -> list[tuple[dict[str, Any], dict[str, Any]]]:
    """One whole Cixi level, scored hand after hand on the balances the one before left."""
    while True:
        hands: list[tuple[dict[str, Any], dict[str, Any]]] = []
        balances, dealer, streak = [100, 100, 100, 100], 0, 1
        for _ in range(60):
            winner = rng.randrange(4)
            win: dict[str, Any] = {"seat": winner, "jokers": rng.choice([0, 1, 1, 2])}
            event: dict[str, Any] = {"type": "win", "by": "self_draw", "winners": [win]}
            if rng.random() < 0.5:
                event.update(by="discard", **{"from": (winner + rng.randrange(1, 4)) % 4})
            record = {"variant": "cixi", "dealer": dealer, "dealer_streak": streak, "round_wind": 0,
                      "balances": balances, "events": [event]}
            outcome = score(record).to_dict()
            hands.append((record, outcome))
            if outcome["level_over"]:
                return hands
            balances, dealer, streak = outcome["balances"], outcome["next_dealer"], \
                outcome["next_dealer_streak"]


async def to_first_revision(engine: Any) -> None:
    """An empty database brought to the schema's first revision, as the oldest deployments had."""
    def upgrade(sync_conn: Any) -> None:
        cfg = alembic_config()
        cfg.attributes["connection"] = sync_conn
        command.upgrade(cfg, FIRST_REVISION)

    async with engine.begin() as conn:
        await conn.run_sync(upgrade)


async def build(url: str, sizes: list[int]) -> None:
    """The database at the first revision, with a Luzhou and a Cixi chat per size."""
    engine = make_engine(url)
    try:
        await to_first_revision(engine)
        rng = random.Random(15)
        pool, level = luzhou_pool(), cixi_level(rng)
        for size in sizes:
            for variant in ("luzhou", "cixi"):
                async with engine.begin() as conn:
                    await add_session(conn, variant, size, pool, level)
        async with engine.begin() as conn:
            if conn.dialect.name == "postgresql":
                await conn.execute(text("ANALYZE"))
    finally:
        await engine.dispose()


async def add_session(conn: Any, variant: str, size: int, pool: list[Any], level: list[Any],
                      cid: int | None = None) -> None:
    """A chat (`cid`, by default one per variant and size) with one session of `size` hands."""
    cid, now = cid if cid is not None else chat_id(variant, size), datetime.now(UTC)
    await conn.execute(insert(M.Chat).values(id=cid, language="en", house_rules={}, created_at=now))
    people = []
    for seat in range(4):
        tid = abs(cid) * 10 + seat
        result = await conn.execute(insert(M.Person).values(
            telegram_id=tid, name=f"Player {seat} of {cid}", username=f"u{tid}", created_at=now,
            updated_at=now).returning(M.Person.id))
        people.append(result.scalar_one())
    sid = (await conn.execute(insert(M.Session).values(
        chat_id=cid, variant=variant, rules={}, stake_cents=50, started_at=now, hand_count=size,
        **{f"seat{s}": people[s] for s in range(4)}).returning(M.Session.id))).scalar_one()
    hand_t, entry_t = M.Hand.__table__, M.LedgerEntry.__table__
    next_id = int((await conn.execute(select(func.max(hand_t.c.id)))).scalar() or 0) + 1
    totals = [0, 0, 0, 0]
    for start in range(0, size, CHUNK):
        rows, entries = [], []
        for seq in range(start + 1, min(start + CHUNK, size) + 1):
            if variant == "luzhou":
                record, outcome, lvl = *pool[(seq * 7919) % len(pool)], None
            else:
                record, outcome = level[(seq - 1) % len(level)]
                lvl = (seq - 1) // len(level) + 1
            rows.append({"id": next_id, "session_id": sid, "seq": seq, "level": lvl, "record": record,
                         "outcome": outcome, "entered_by": people[seq % 4], "created_at": now,
                         "voided": False, "idempotency_key": f"gen:{sid}:{seq}"})
            for seat, points in enumerate(outcome["deltas"]):
                totals[seat] += points
                entries.append({"hand_id": next_id, "seat": seat, "session_id": sid,
                                "person_id": people[seat], "points": points})
            next_id += 1
        await bulk_insert(conn, hand_t, rows)
        await bulk_insert(conn, entry_t, entries)
    if conn.dialect.name == "postgresql":
        await conn.execute(text("SELECT setval(pg_get_serial_sequence('hands', 'id'), :n)"),
                           {"n": next_id - 1})
    await conn.execute(insert(M.SessionTotal), [{"session_id": sid, "seat": s, "points": totals[s]}
                                                for s in range(4)])
    await conn.execute(update(M.Session).where(M.Session.id == sid).values(hand_count=size))


# -- one size, in its own process ----------------------------------------------------------------

class PeakRss:
    """The process's resident memory, sampled in a thread while a command runs."""

    def __init__(self) -> None:
        self.peak, self._stop = 0, threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)

    @staticmethod
    def now() -> int:
        with open("/proc/self/statm") as f:
            return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")

    def _run(self) -> None:
        while not self._stop.is_set():
            self.peak = max(self.peak, self.now())
            time.sleep(0.005)

    def __enter__(self) -> PeakRss:
        self.peak = self.now()
        self._thread.start()
        return self

    def __exit__(self, *_: object) -> None:
        self._stop.set()
        self._thread.join()
        self.peak = max(self.peak, self.now())


def finished(tg: FakeTelegram, cid: int, cmd: str, start: int) -> Callable[[], Any]:
    """When the bot has fully answered `cmd` in the chat."""
    def mine(r: Any) -> bool:
        return r.ok and str(r.params.get("chat_id")) == str(cid)

    def done() -> Any:
        reqs = [r for r in tg.requests[start:] if mine(r)]
        if cmd == "/chart":
            return any(r.method == "sendPhoto" for r in reqs)
        if cmd == "/export":  # the JSON file (whole or compressed) comes last
            return any(r.method == "sendDocument" and any(
                ".json" in (f.filename or "") for f in r.files.values()) for r in reqs)
        return any(r.method == "sendMessage" for r in reqs)

    return done


async def timed(tg: FakeTelegram, chat: dict[str, Any], user: dict[str, Any], cmd: str) -> dict[str, Any]:
    start = len(tg.requests)
    with PeakRss() as rss:
        began = time.perf_counter()
        await tg.send_message(chat, user, cmd)
        await tg.wait_for(finished(tg, int(chat["id"]), cmd, start), TIMEOUT)
        seconds = time.perf_counter() - began
    upload = sum(len(f.data) for r in tg.requests[start:] for f in r.files.values())
    return {"seconds": seconds, "peak_rss_mb": rss.peak / 2**20, "upload_mb": upload / 2**20}


async def measure_size(url: str, size: int) -> dict[str, Any]:
    from bot.plumbing.config import Settings
    from bot.runner import serve

    out: dict[str, Any] = {"size": size, "commands": {}}
    async with FakeTelegram() as tg:
        settings = Settings(token=tg.token, base_url=tg.base_url, base_file_url=tg.base_file_url,
                            database_url=url)
        began = time.perf_counter()
        async with serve(settings, poll_timeout=1):
            out["open_s"] = time.perf_counter() - began
            chats = {}
            for variant in ("luzhou", "cixi"):
                cid = chat_id(variant, size)
                chats[variant] = (tg.group(f"{variant} {size}", chat_id=cid),
                                  tg.user(abs(cid) * 10, f"Player 0 of {cid}", f"u{abs(cid) * 10}"))
            for variant, (chat, user) in chats.items():
                for cmd in COMMANDS:
                    out["commands"][f"{variant} {cmd}"] = await timed(tg, chat, user, cmd)
            if size >= 100_000:
                out["interference"] = await interference(tg, chats["luzhou"])
        assert not tg.internal_errors, tg.internal_errors
    return out


async def interference(tg: FakeTelegram, big: tuple[dict[str, Any], dict[str, Any]]) -> dict[str, Any]:
    """How much a /table in another chat waits while this chat's /stats or /export runs."""
    small = tg.group("small table", chat_id=-424242)
    user = tg.user(4242, "Solo", "solo")
    await tg.send_message(small, user, "/new cixi")  # an empty session: /table shows its seats
    await tg.wait_for(finished(tg, -424242, "/new", len(tg.requests) - 1), TIMEOUT)
    alone = [await timed(tg, small, user, "/table") for _ in range(3)]
    base = min(a["seconds"] for a in alone)
    out: dict[str, Any] = {"table_alone_ms": 1000 * base}
    for cmd in ("/stats", "/export"):
        start = len(tg.requests)
        await tg.send_message(big[0], big[1], cmd)
        await asyncio.sleep(0.05 if cmd == "/stats" else 0.5)
        during = await timed(tg, small, user, "/table")
        await tg.wait_for(finished(tg, int(big[0]["id"]), cmd, start), TIMEOUT)
        out[cmd] = {"table_during_ms": 1000 * during["seconds"],
                    "delay_ms": 1000 * (during["seconds"] - base)}
    return out


# -- the run -------------------------------------------------------------------------------------

def run(backend: str, sizes: list[int]) -> dict[str, Any]:
    results: dict[str, Any] = {"backend": backend, "sizes": {}}
    with tempfile.TemporaryDirectory() as workdir:
        url, drop = asyncio.run(new_database(backend, Path(workdir), "scale"))
        try:
            began = time.perf_counter()
            asyncio.run(build(url, sizes))
            results["build_s"] = time.perf_counter() - began
            results["sizes"].update(measure_each("tests.bench.scale", url, sizes))
        finally:
            if drop is not None:
                asyncio.run(drop())
    return results


def show(results: dict[str, Any]) -> str:
    sizes = list(results["sizes"])
    first, last = results["sizes"][sizes[0]], results["sizes"][sizes[-1]]
    lines = [f"== {results['backend']} (built in {results['build_s']:.0f} s); seconds, and peak RSS MB",
             f"{'command':22}" + "".join(f"{s + ' hands':>22}" for s in sizes) + f"{'ratio':>8}"]
    lines.append(f"{'(start, migrations)':22}" + "".join(
        f"{results['sizes'][s]['open_s']:>13.3f}{'':9}" for s in sizes))
    for name in first["commands"]:
        cells = []
        for s in sizes:
            c = results["sizes"][s]["commands"][name]
            extra = f" {c['upload_mb']:.1f}MB up" if c["upload_mb"] >= 0.05 else ""
            cells.append(f"{c['seconds']:>10.3f} {c['peak_rss_mb']:>5.0f}{extra:>6}")
        ratio = last["commands"][name]["seconds"] / first["commands"][name]["seconds"]
        lines.append(f"{name:22}" + "".join(f"{c:>22}" for c in cells) + f"{ratio:>7.1f}x")
    if "interference" in last:
        i = last["interference"]
        for cmd in ("/stats", "/export"):
            if cmd in i:
                lines.append(f"/table in another chat: alone {i['table_alone_ms']:.0f} ms, during a "
                             f"{sizes[-1]}-hand {cmd} {i[cmd]['table_during_ms']:.0f} ms "
                             f"(delay {i[cmd]['delay_ms']:.0f} ms)")
    return "\n".join(lines)


def measure_each(module: str, url: str, sizes: list[int]) -> dict[str, Any]:
    """`python -m module --one url size` for each size, each in a process of its own (its
    peak memory is its own): size → the figures of its last output line."""
    out = {}
    for size in sizes:
        proc = subprocess.run([sys.executable, "-m", module, "--one", url, str(size)],
                              capture_output=True, text=True, timeout=3600)
        if proc.returncode != 0:
            raise RuntimeError(f"size {size} failed:\n{proc.stderr[-3000:]}")
        out[str(size)] = json.loads(proc.stdout.strip().splitlines()[-1])
    return out


def cli(doc: str, sizes: str, run: Callable[[str, list[int]], dict[str, Any]],
        show: Callable[[dict[str, Any]], str],
        measure_size: Callable[[str, int], Awaitable[dict[str, Any]]]) -> None:
    """A session-size benchmark's command line: `--db`, `--sizes`, `--json`; `--one URL SIZE`
    is how `run` measures one size in a fresh process."""
    if len(sys.argv) == 4 and sys.argv[1] == "--one":
        print(json.dumps(asyncio.run(measure_size(sys.argv[2], int(sys.argv[3])))))
        return
    parser = argparse.ArgumentParser(description=doc.split("\n\n")[0])
    parser.add_argument("--db", choices=["sqlite", "postgres"], default="sqlite")
    parser.add_argument("--sizes", default=sizes)
    parser.add_argument("--json", help="also write the figures here")
    args = parser.parse_args()
    results = run(args.db, [int(s) for s in args.sizes.split(",")])
    print(show(results))
    if args.json:
        with open(args.json, "w") as f:
            json.dump(results, f, indent=1)


def main() -> None:
    cli(__doc__, "100,10000,100000", run, show, measure_size)


if __name__ == "__main__":
    main()
