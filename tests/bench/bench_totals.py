"""Session totals stay fast however long the history: totals() reads the running aggregate
(four rows by primary key), never the hands. Compare totals at 100 and 100 000 hands:

    .venv/bin/pytest tests/bench/bench_totals.py --benchmark-enable

(`replay` is the same figure computed the slow way, summing the ledger, for contrast.) In a
normal run (--benchmark-disable) each case runs once, as a plain test; with TEST_DATABASE_URL
the cases also run on PostgreSQL.
"""

from __future__ import annotations

import asyncio
import json
import random
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

import pytest
from sqlalchemy import func, insert, select, text, update
from sqlalchemy.ext.asyncio import AsyncConnection

from db import Store
from db import models as M
from tests.databases import BACKENDS, new_database

pytestmark = pytest.mark.slow  # builds a 100 000-hand history per database

SIZES = [100, 100_000]
CHUNK = 5_000


@dataclass
class History:
    runner: asyncio.Runner  # the store's connections belong to this loop
    store: Store
    backend: str
    sessions: dict[int, tuple[int, tuple[int, ...]]]  # hands -> (session id, expected totals)


@pytest.fixture(scope="module", params=BACKENDS)
def history(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> Iterator[History]:
    """One database per backend holding a session of each size, built once for the module."""
    with asyncio.Runner() as runner:
        url, drop = runner.run(new_database(request.param, tmp_path_factory.mktemp("bench"), "bench"))
        store = runner.run(Store.open(url))
        try:
            sessions = {n: runner.run(build_history(store, n)) for n in SIZES}
            yield History(runner, store, request.param, sessions)
        finally:
            runner.run(store.close())
            if drop is not None:
                runner.run(drop())


async def build_history(store: Store, hands: int, seed: int = 1) -> tuple[int, tuple[int, ...]]:
    """A seated session with `hands` hands, bulk-inserted as record_hand would store them
    (hand rows, four ledger entries each, the running totals and hand count); returns the
    session id and the expected totals."""
    people = [await store.upsert_user(900 + i, f"P{i}") for i in range(4)]
    session = await store.start_session(-hands, "luzhou", {})  # a chat per session
    for seat, person in enumerate(people):
        session = await store.seat_player(session.id, seat, person.id)
    rng = random.Random(seed)
    totals = [0, 0, 0, 0]
    now = datetime.now(UTC)
    record = {"variant": "luzhou", "dealer": 0, "events": [{"type": "win", "by": "self_draw",
                                                            "winners": [{"seat": 0}]}]}
    hand_t, entry_t = M.Hand.__table__, M.LedgerEntry.__table__
    async with store.engine.begin() as conn:
        # Ids chosen here: executemany without RETURNING is the fast path on both databases.
        next_id = int((await conn.execute(select(func.max(hand_t.c.id)))).scalar() or 0) + 1
        for start in range(0, hands, CHUNK):
            rows, entries = [], []
            for seq in range(start + 1, min(start + CHUNK, hands) + 1):
                deltas = [rng.randint(-40, 40) for _ in range(3)]
                deltas.append(-sum(deltas))
                rows.append({"id": next_id, "session_id": session.id, "seq": seq, "level": 1,
                             "record": record, "outcome": {"deltas": deltas, "level_over": False},
                             "entered_by": None, "created_at": now, "voided": False,
                             "idempotency_key": f"bench:{session.id}:{seq}"})
                for seat, points in enumerate(deltas):
                    totals[seat] += points
                    entries.append({"hand_id": next_id, "seat": seat, "session_id": session.id,
                                    "person_id": people[seat].id, "points": points})
                next_id += 1
            await bulk_insert(conn, hand_t, rows)
            await bulk_insert(conn, entry_t, entries)
        if conn.dialect.name == "postgresql":  # the id sequence did not see those ids
            await conn.execute(text("SELECT setval(pg_get_serial_sequence('hands', 'id'), :n)"),
                               {"n": next_id - 1})
        for seat, points in enumerate(totals):
            await conn.execute(update(M.SessionTotal).where(M.SessionTotal.session_id == session.id,
                                                            M.SessionTotal.seat == seat)
                               .values(points=points))
        # each person's stint in their seat (migration 0009), as the store keeps it
        await conn.execute(insert(M.Stint), [
            {"session_id": session.id, "seat": seat, "person_id": people[seat].id, "first_seq": 1,
             "points": points, "hands": hands, "wins": 0, "self_draws": 0, "dealt_in": 0,
             "biggest_gain": 0, "levels_won": 0} for seat, points in enumerate(totals)])
        await conn.execute(update(M.Session).where(M.Session.id == session.id).values(hand_count=hands))
        await conn.execute(text("ANALYZE"))  # fresh planner statistics, as autovacuum would give
    # One more through the store itself: it carries on from the bulk history.
    hand = await store.record_hand(session.id, record, {"deltas": [1, -1, 0, 0]}, entered_by=None,
                                   idempotency_key=f"bench:{session.id}:last")
    assert hand.seq == hands + 1
    totals[0] += 1
    totals[1] -= 1
    return session.id, tuple(totals)


async def bulk_insert(conn: AsyncConnection, table: Any, rows: list[dict[str, Any]]) -> None:
    """executemany; on PostgreSQL a COPY (asyncpg's executemany is slow for 500 000 rows)."""
    if conn.dialect.name != "postgresql":
        await conn.execute(insert(table), rows)
        return
    columns = list(rows[0])
    records = [tuple(json.dumps(r[c]) if isinstance(r[c], dict) else r[c] for c in columns)
               for r in rows]
    raw = (await conn.get_raw_connection()).driver_connection
    assert raw is not None
    await raw.copy_records_to_table(table.name, records=records, columns=columns)


async def replay(store: Store, session_id: int) -> tuple[int, ...]:
    """Totals the slow way: sum every non-voided ledger entry of the session."""
    stmt = (select(M.LedgerEntry.seat, func.sum(M.LedgerEntry.points))
            .join(M.Hand, M.Hand.id == M.LedgerEntry.hand_id)
            .where(M.LedgerEntry.session_id == session_id, M.Hand.voided.is_(False))
            .group_by(M.LedgerEntry.seat).order_by(M.LedgerEntry.seat))
    async with store.engine.connect() as conn:
        return tuple(int(points) for _, points in (await conn.execute(stmt)).all())


@pytest.mark.parametrize("how", ["totals", "replay"])
@pytest.mark.parametrize("hands", SIZES)
def test_totals_latency(benchmark: Any, history: History, hands: int, how: str) -> None:
    session_id, expected = history.sessions[hands]
    store, run = history.store, history.runner.run
    read = store.totals if how == "totals" else lambda sid: replay(store, sid)
    benchmark.group = f"{history.backend}: {how}"
    benchmark.extra_info["hands"] = hands
    assert benchmark(lambda: run(read(session_id))) == expected
