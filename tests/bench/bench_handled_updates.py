"""What recognising redelivered updates costs a booking: the first change to the books of an
update also inserts its (update_id, chat) row into handled_updates, in the same transaction.
Compare recording a hand without and with that row (`plain` and `delivered`), on each database:

    .venv/bin/pytest tests/bench/bench_handled_updates.py --benchmark-enable

In a normal run (--benchmark-disable) each case runs once, as a plain test; with
TEST_DATABASE_URL the cases also run on PostgreSQL.
"""

from __future__ import annotations

import asyncio
import itertools
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from db import Store, delivering
from tests.databases import BACKENDS, fresh_database
from tests.db.helpers import add_hand, seated_session

CHAT = -1001


@pytest.fixture(params=BACKENDS)
def booked(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[tuple[Any, Store, int]]:
    """An event loop, a store on a fresh database, and a running session on it."""
    loop = asyncio.new_event_loop()
    database = fresh_database(request.param, tmp_path)
    url = loop.run_until_complete(database.__aenter__())
    store = loop.run_until_complete(Store.open(url))
    session = loop.run_until_complete(seated_session(store, CHAT))
    try:
        yield loop, store, session.id
    finally:
        loop.run_until_complete(store.close())
        loop.run_until_complete(database.__aexit__(None, None, None))
        loop.close()


@pytest.mark.parametrize("kind", ["plain", "delivered"])
def test_record_a_hand(benchmark: Any, booked: tuple[Any, Store, int], kind: str) -> None:
    loop, store, session_id = booked
    ids = itertools.count(1)

    async def record() -> None:
        n = next(ids)
        if kind == "plain":
            await add_hand(store, session_id, f"k{n}", 3, -1, -1, -1)
        else:
            with delivering(n, CHAT):
                await add_hand(store, session_id, f"k{n}", 3, -1, -1, -1)

    benchmark(lambda: loop.run_until_complete(record()))
    assert loop.run_until_complete(store.standing_hands(session_id)) == next(ids) - 1
