"""Backups and restores: the `mjledger backup` / `mjledger restore` commands run as an operator
runs them (a process of their own), on SQLite files and on whole PostgreSQL databases (made on
the server of TEST_DATABASE_URL, dropped afterwards)."""

from __future__ import annotations

import asyncio
import os
import sys
from collections.abc import AsyncIterator, Awaitable, Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from db import Store
from scoring import score
from tests.databases import PG_URL, Drop, new_pg_database
from tests.db.helpers import seated_session

ROOT = Path(__file__).resolve().parents[2]


@dataclass(frozen=True)
class Ran:
    code: int
    out: str
    err: str


async def run(*argv: str, env: dict[str, str] | None = None, cwd: Path = ROOT,
              timeout: float = 180) -> Ran:
    """A command in its own process (from the repository root), without blocking the event
    loop (the bot may be serving in this one)."""
    proc = await asyncio.create_subprocess_exec(
        *argv, cwd=cwd, env={**os.environ, **(env or {})},
        stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE)
    try:
        out, err = await asyncio.wait_for(proc.communicate(), timeout)
    except TimeoutError:
        proc.kill()  # never left running behind a failed test
        await proc.wait()
        raise
    assert proc.returncode is not None
    return Ran(proc.returncode, out.decode(), err.decode())


async def mjledger(*args: str) -> Ran:
    """`mjledger ARGS` as installed (python -m bot)."""
    return await run(sys.executable, "-m", "bot", *args)


@pytest.fixture
async def new_database(tmp_path: Path) -> AsyncIterator[Callable[[str], Awaitable[str]]]:
    """`await new_database(backend)`: the URL of a new, empty database: a SQLite file that does
    not exist yet, or a whole PostgreSQL database (skipped without TEST_DATABASE_URL)."""
    drops: list[Drop] = []
    made = 0

    async def make(backend: str) -> str:
        nonlocal made
        made += 1
        if backend == "sqlite":
            return f"sqlite:///{tmp_path / f'db{made}.sqlite3'}"
        if not PG_URL:
            pytest.skip("TEST_DATABASE_URL is not set")
        url, drop = await new_pg_database("backup")
        drops.append(drop)
        return url

    yield make
    for drop in drops:
        await drop()


def luzhou_hand(winner: int = 0) -> tuple[dict[str, Any], dict[str, Any]]:
    """A whole Luzhou hand (a self-drawn win, then the wall runs out) and its outcome as
    scored: a restore scores every stored hand again."""
    record = {"variant": "luzhou", "dealer": 0, "dealer_streak": 1, "round_wind": 0,
              "events": [{"type": "win", "by": "self_draw", "winners": [{"seat": winner}]},
                         {"type": "exhausted",
                          "ready": {str(s): {} for s in range(4) if s != winner}}]}
    return record, score(record).to_dict()


async def books(url: str) -> None:
    """A small ledger: two chats, a few hands, one undone."""
    store = await Store.open(url)
    try:
        for chat in (-1001, -1002):
            session = await seated_session(store, chat, stake_cents=50)
            for n in range(3):
                record, outcome = luzhou_hand(n)
                await store.record_hand(session.id, record, outcome, entered_by=None,
                                        idempotency_key=f"{chat}:{n}")
        last = await store.last_hand(session.id)
        assert last is not None
        await store.void_hand(last.id, by=None, reason="typo")
    finally:
        await store.close()
