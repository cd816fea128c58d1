"""Properties of seats that change hands (hypothesis): over any run of hands, substitutes,
swaps, seats given up and taken, and undos, every hand is zero-sum, each person's total is the
sum of what they won in the seats they held (replayed from the hands here), the seats' totals
are what was played in them whoever sat there, /stats counts each person's own hands, and
settling up moves exactly the balances."""

from __future__ import annotations

import asyncio
import random
import shutil
import tempfile
from pathlib import Path
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from db import Store
from scoring.settlement import settle

from .before_seats import luzhou_hand

CHAT = -4242
STAKE = 30
_TEMPLATE: list[Path] = []


def template() -> Path:
    """A migrated, empty SQLite file, made once: each example starts from a copy."""
    if not _TEMPLATE:
        path = Path(tempfile.mkdtemp()) / "template.sqlite3"

        async def make() -> None:
            store = await Store.open(f"sqlite:///{path}")
            await store.close()

        asyncio.run(make())
        _TEMPLATE.append(path)
    return _TEMPLATE[0]


SEAT = st.integers(0, 3)
GUEST = st.integers(0, 5)
OPS = st.lists(st.one_of(
    st.tuples(st.just("hand"), st.integers(0, 10_000)),
    st.tuples(st.just("sub"), SEAT, GUEST),
    st.tuples(st.just("swap"), SEAT, SEAT),
    st.tuples(st.just("leave"), SEAT, GUEST),
    st.tuples(st.just("undo")),
), min_size=1, max_size=30)


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(ops=OPS)
def test_random_seat_changes_keep_everyone_s_books(ops: list[tuple[Any, ...]]) -> None:
    folder = Path(tempfile.mkdtemp())
    try:
        shutil.copy(template(), folder / "db.sqlite3")
        asyncio.run(_play(f"sqlite:///{folder / 'db.sqlite3'}", ops))
    finally:
        shutil.rmtree(folder)


async def _play(url: str, ops: list[tuple[Any, ...]]) -> None:
    store = await Store.open(url, migrate=False)
    try:
        guests = [(await store.add_guest(CHAT, f"G{i}")).id for i in range(10)]
        session = await store.start_session(CHAT, "luzhou", {}, stake_cents=STAKE)
        for seat in range(4):
            session = await store.seat_player(session.id, seat, guests[6 + seat])
        played: list[tuple[int, tuple[int, ...], tuple[int, ...]]] = []  # (hand id, seats, deltas)
        for op in ops:
            seats = session.seats
            if op[0] == "hand":
                record, outcome = luzhou_hand(random.Random(op[1]))
                hand = await store.record_hand(session.id, record, outcome, entered_by=None,
                                               idempotency_key=f"h{len(played)}:{op[1]}:{id(op)}")
                played.append((hand.id, seats, tuple(outcome["deltas"])))  # type: ignore[arg-type]
            elif op[0] == "sub" and guests[op[2]] not in seats:
                session = await store.replace_player(session.id, op[1], guests[op[2]])
            elif op[0] == "swap":
                session = await store.swap_seats(session.id, op[1], op[2])
            elif op[0] == "leave" and guests[op[2]] not in seats:
                session = await store.unseat(session.id, op[1])
                assert None in session.seats
                session = await store.seat_player(session.id, op[1], guests[op[2]])
            elif op[0] == "undo" and played:
                last = played.pop()
                await store.void_hand(last[0], by=None, reason="undo")
            assert None not in session.seats
        # every stored hand is zero-sum, and its ledger names who sat where then
        stored = {h.id: h for h in await store.history(session.id, limit=1000, people=True)}
        for hand_id, seats, deltas in played:
            assert sum(deltas) == 0
            assert stored[hand_id].people == seats
        # each person's total: the sum of what they won in the seats they held (replayed)
        own: dict[int, int] = {}
        seat_points = [0, 0, 0, 0]
        hands_of: dict[int, int] = {}
        for _, seats, deltas in played:
            for seat, person in enumerate(seats):
                own[person] = own.get(person, 0) + deltas[seat]
                hands_of[person] = hands_of.get(person, 0) + 1
                seat_points[seat] += deltas[seat]
        results = await store.person_results([session.id])
        assert {r.person_id: r.points for r in results if r.hands} == own
        assert {r.person_id: r.hands for r in results if r.hands} == hands_of
        assert list(await store.seat_totals(session.id)) == seat_points
        now = await store.totals(session.id)
        assert list(now) == [own.get(p, 0) for p in session.seats]
        stats: dict[int, int] = {}
        for row in await store.seat_stats(CHAT):
            stats[row.person_id] = stats.get(row.person_id, 0) + row.hands
        assert stats == hands_of
        # settling up moves exactly the balances: after the transfers everyone is square
        await store.end_session(session.id)
        balances = {p: c for p, c in (await store.money_balances(CHAT)).items() if c}
        assert balances == {p: pts * STAKE for p, pts in own.items() if pts}
        left = dict(balances)
        for transfer in settle(balances):
            left[transfer.payer] += transfer.cents
            left[transfer.payee] -= transfer.cents
        assert not any(left.values())
    finally:
        await store.close()
