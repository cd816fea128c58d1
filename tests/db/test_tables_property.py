"""Properties of a chat's tables (hypothesis): whatever tables run side by side and whatever
hands each books, every person's money is what they won or lost at the tables they sat at, at
each table's stake; the chat's balances sum to zero and /settle's transfers move exactly them;
one person is never seated at two running tables."""

from __future__ import annotations

import itertools
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from db import SeatedElsewhere, Store
from scoring.settlement import settle

from .helpers import outcome, record

_CHATS = itertools.count(-500_000, -1)  # a chat of its own for each example

deltas = st.lists(st.integers(-40, 40), min_size=3, max_size=3).map(lambda d: [*d, -sum(d)])
evenings = st.fixed_dictionaries({
    "tables": st.integers(1, 3),
    "stakes": st.lists(st.integers(0, 300), min_size=3, max_size=3),
    "hands": st.lists(st.tuples(st.integers(0, 2), deltas), max_size=8),
    "ended": st.lists(st.booleans(), min_size=3, max_size=3),
    "seat_again": st.tuples(st.integers(0, 11), st.integers(0, 2)),
})


@settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(evening=evenings)
async def test_money_per_person_over_the_chats_tables(store: Store, evening: dict[str, Any]) -> None:
    chat = next(_CHATS)
    people = [await store.add_guest(chat, f"p{i}") for i in range(4 * evening["tables"])]
    tables = []
    for n in range(evening["tables"]):
        table = await store.start_session(chat, "luzhou", {}, another=n > 0,
                                          stake_cents=evening["stakes"][n])
        for seat in range(4):
            table = await store.seat_player(table.id, seat, people[4 * n + seat].id)
        tables.append(table)

    # someone already seated, seated at another running table: refused, nothing changed
    who, at = evening["seat_again"]
    if who < 4 * len(tables) and at < len(tables) and who // 4 != at:
        sitting = tables[at].seats[0]
        before = await store.unseat(tables[at].id, 0)  # a free seat for them
        try:
            await store.seat_player(tables[at].id, 0, people[who].id)
        except SeatedElsewhere as refused:
            assert refused.number == tables[who // 4].number
        else:
            raise AssertionError("seated at two tables")
        assert await store.get_session(tables[at].id) == before
        assert sitting is not None
        await store.seat_player(tables[at].id, 0, sitting)

    owed: dict[int, int] = {}
    for i, (n, d) in enumerate(evening["hands"]):
        table = tables[n % len(tables)]
        await store.record_hand(table.id, record(), outcome(*d), entered_by=None,
                                idempotency_key=f"{chat}:{i}")
        for seat, points in enumerate(d):
            pid = table.seats[seat]
            assert pid is not None
            owed[pid] = owed.get(pid, 0) + points * table.stake_cents
    for table, ended in zip(tables, evening["ended"], strict=False):
        if ended:
            await store.end_session(table.id)

    balances = {pid: c for pid, c in (await store.money_balances(chat)).items() if c}
    assert balances == {pid: c for pid, c in owed.items() if c}
    assert sum(balances.values()) == 0
    left = dict(balances)
    for tr in settle(balances):
        left[tr.payer] += tr.cents
        left[tr.payee] -= tr.cents
    assert not any(left.values())
    assert [s.id for s in await store.running_sessions(chat)] == [
        t.id for t, ended in zip(tables, evening["ended"], strict=False) if not ended]
