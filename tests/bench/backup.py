"""Backup benchmark: `mjledger backup` and `mjledger restore` of a database of many chats.

    .venv/bin/python -m tests.bench.backup [--db sqlite|postgres] [--chats 100] [--hands 1000]
                                           [--runs 3] [--json out.json]

The database holds `--chats` chats, each with one session of `--hands` realistic scored hands
(Luzhou and Cixi chats taking turns; tests/bench/scale.py's generator), bulk-inserted at the
first schema revision and brought to the newest by the bot's own migrations, so every table
(aggregates included) is as the bot keeps it. Then, as an operator runs them, each a process of
its own: `mjledger backup FILE` (`--runs` times: the fastest and the slowest are reported) and
`mjledger restore FILE` into an empty database. Reported: seconds, and the sizes of the live
database and of the copy. PostgreSQL (TEST_DATABASE_URL's server) uses whole databases of its own,
dropped afterwards.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
import re
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from sqlalchemy import text

from db import Store
from db.config import make_engine
from tests.bench.scale import add_session, cixi_level, luzhou_pool, to_first_revision
from tests.databases import new_pg_database

ROOT = Path(__file__).resolve().parents[2]


async def build(url: str, chats: int, hands: int) -> float:
    """The database of `chats` × `hands`, migrated by the bot; the seconds its migration took."""
    engine = make_engine(url)
    try:
        await to_first_revision(engine)
        pool, level = luzhou_pool(), cixi_level(random.Random(15))
        for n in range(chats):
            async with engine.begin() as conn:
                await add_session(conn, ("luzhou", "cixi")[n % 2], hands, pool, level, cid=-(1000 + n))
    finally:
        await engine.dispose()
    began = time.perf_counter()
    store = await Store.open(url)  # the migrations since the first revision, on every hand
    await store.close()
    return time.perf_counter() - began


async def database_bytes(url: str) -> int:
    if url.startswith("sqlite"):
        path = Path(url.split("///", 1)[1])
        return sum(p.stat().st_size for p in path.parent.glob(path.name + "*"))
    engine = make_engine(url)
    try:
        async with engine.connect() as conn:
            return int((await conn.execute(text("SELECT pg_database_size(current_database())"))).scalar_one())
    finally:
        await engine.dispose()


def mjledger(*args: str) -> tuple[float, float]:
    """Seconds `mjledger ARGS` took as a whole (start-up included, as an operator or a timer
    sees it), and the seconds of the work itself it reports."""
    began = time.perf_counter()
    done = subprocess.run([sys.executable, "-m", "bot", *args], cwd=ROOT, capture_output=True,
                          text=True, timeout=3600)
    seconds = time.perf_counter() - began
    if done.returncode != 0:
        raise RuntimeError(f"mjledger {args[0]} failed: {done.stderr}")
    print(done.stdout.strip(), file=sys.stderr)
    reported = re.search(r" in ([0-9.]+) s$", done.stdout.strip())
    assert reported is not None, done.stdout
    return seconds, float(reported.group(1))


def run(backend: str, chats: int, hands: int, runs: int) -> dict[str, Any]:
    out: dict[str, Any] = {"backend": backend, "chats": chats, "hands_per_chat": hands}
    with tempfile.TemporaryDirectory() as workdir:
        folder = Path(workdir)
        drops = []
        try:
            if backend == "sqlite":
                source, target = (f"sqlite:///{folder / name}" for name in ("live.sqlite3", "new.sqlite3"))
            else:
                (source, drop), (target, drop2) = (asyncio.run(new_pg_database("bench")) for _ in range(2))
                drops += [drop, drop2]
            began = time.perf_counter()
            out["migrate_s"] = asyncio.run(build(source, chats, hands))
            out["build_s"] = time.perf_counter() - began
            out["database_mb"] = asyncio.run(database_bytes(source)) / 1e6
            copy = folder / "copy.backup"
            times = [mjledger("backup", str(copy), "--database", source) for _ in range(runs)]
            out["backup_s"] = {"fastest": min(t[0] for t in times), "slowest": max(t[0] for t in times),
                               "copy_fastest": min(t[1] for t in times)}
            out["backup_mb"] = copy.stat().st_size / 1e6
            out["restore_s"], out["restore_work_s"] = mjledger("restore", str(copy), "--database", target)
        finally:
            for drop in drops:
                asyncio.run(drop())
    return out


def show(r: dict[str, Any]) -> str:
    return (f"{r['backend']}: {r['chats']} chats × {r['hands_per_chat']} hands "
            f"(built in {r['build_s']:.0f} s, of which migrating {r['migrate_s']:.0f} s); "
            f"database {r['database_mb']:.1f} MB\n"
            f"  mjledger backup:  {r['backup_s']['fastest']:.2f}–{r['backup_s']['slowest']:.2f} s "
            f"(the copy and its checksum: {r['backup_s']['copy_fastest']:.2f} s), "
            f"copy {r['backup_mb']:.1f} MB\n"
            f"  mjledger restore: {r['restore_s']:.2f} s (the checks, the restore and migrating: "
            f"{r['restore_work_s']:.2f} s)")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--db", choices=["sqlite", "postgres"], default="sqlite")
    parser.add_argument("--chats", type=int, default=100)
    parser.add_argument("--hands", type=int, default=1000)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--json", help="also write the figures here")
    args = parser.parse_args()
    if args.db == "postgres" and not os.environ.get("TEST_DATABASE_URL"):
        parser.error("--db postgres needs TEST_DATABASE_URL")
    result = run(args.db, args.chats, args.hands, args.runs)
    print(show(result))
    if args.json:
        Path(args.json).write_text(json.dumps(result, indent=1))


if __name__ == "__main__":
    main()
