"""Hands: recorded exactly once, ledger entries summing to zero, totals kept by the aggregate
and reversed by voids, all or nothing per transaction — also with two stores racing."""

from __future__ import annotations

import asyncio
import random
from typing import Any

import pytest
from sqlalchemy import func, select

from db import AlreadyVoided, InvalidHand, NotFound, RecordedHand, SessionEnded, Store, StoreError
from db import models as M

from .helpers import add_hand, outcome, record, seated_session


async def ledger_check(store: Store, session_id: int) -> tuple[int, int, int, int]:
    """Verify the stored invariants by brute force and return the totals they imply."""
    async with store._sessions() as s:
        per_hand = (await s.execute(
            select(M.LedgerEntry.hand_id, func.count(), func.sum(M.LedgerEntry.points))
            .where(M.LedgerEntry.session_id == session_id).group_by(M.LedgerEntry.hand_id))).all()
        assert all(n == 4 and total == 0 for _, n, total in per_hand), per_hand
        hands = (await s.execute(select(M.Hand.seq).where(M.Hand.session_id == session_id)
                                 .order_by(M.Hand.seq))).scalars().all()
        assert list(hands) == list(range(1, len(hands) + 1))  # no gaps, no duplicates
        replay = [0, 0, 0, 0]
        for seat, points in (await s.execute(
                select(M.LedgerEntry.seat, M.LedgerEntry.points).join(M.Hand)
                .where(M.LedgerEntry.session_id == session_id, M.Hand.voided.is_(False)))).all():
            replay[seat] += points
    totals = await store.totals(session_id)
    assert list(totals) == replay, "the aggregate drifted from the ledger"
    return totals


async def count(store: Store, model: Any) -> int:
    async with store._sessions() as s:
        return int(await s.scalar(select(func.count()).select_from(model)) or 0)


async def test_record_round_trip(store: Store) -> None:
    s = await seated_session(store)
    rec, out = record(), outcome(-10, 5, 5, 0)
    rec["events"][0]["winners"][0]["pure"] = True
    hand = await store.record_hand(s.id, rec, out, entered_by=s.seats[1], idempotency_key="a")
    assert isinstance(hand, RecordedHand)
    assert (hand.session_id, hand.seq, hand.record, hand.outcome, hand.entered_by) == (
        s.id, 1, rec, out, s.seats[1])
    assert (hand.created, hand.voided, hand.void_reason, hand.voided_by) == (True, False, None, None)
    assert hand.created_at.tzinfo is not None and hand.deltas == (-10, 5, 5, 0)
    rec["events"].clear()  # the stored copy is not the caller's
    assert (await store.last_hand(s.id)) == hand
    assert (await store.get_session(s.id)).hand_count == 1
    assert await store.totals(s.id) == (-10, 5, 5, 0)


async def test_totals_accumulate_and_void_reverses(store: Store) -> None:
    s = await seated_session(store)
    deltas = [(-10, 5, 5, 0), (3, 3, 3, -9), (0, 0, -8, 8)]
    hands = [await add_hand(store, s.id, f"k{i}", *d)
             for i, d in enumerate(deltas)]
    assert await store.totals(s.id) == (-7, 8, 0, -1)
    voided = await store.void_hand(hands[1].id, by=s.seats[0], reason="wrong winner")
    assert (voided.voided, voided.void_reason, voided.voided_by) == (True, "wrong winner", s.seats[0])
    assert voided.voided_at is not None
    assert await store.totals(s.id) == (-10, 5, -3, 8)
    with pytest.raises(AlreadyVoided):
        await store.void_hand(hands[1].id, by=None, reason="again")
    assert await store.totals(s.id) == (-10, 5, -3, 8)
    assert await count(store, M.Hand) == 3  # a voided hand stays
    assert await count(store, M.HandVoid) == 1
    with pytest.raises(NotFound):
        await store.void_hand(9999, by=None, reason="x")
    await ledger_check(store, s.id)


async def test_history_pages_newest_first(store: Store) -> None:
    s = await seated_session(store)
    for i in range(7):
        await add_hand(store, s.id, f"k{i}", i, -i, 0, 0)
    last = await store.last_hand(s.id)
    assert last is not None
    await store.void_hand(last.id, by=None, reason="undo")
    page = await store.history(s.id, limit=3)
    assert [h.seq for h in page] == [7, 6, 5] and [h.voided for h in page] == [True, False, False]
    assert page[0].void_reason == "undo"
    assert [h.seq for h in await store.history(s.id, limit=3, before_seq=5)] == [4, 3, 2]
    assert [h.seq for h in await store.history(s.id, limit=10, before_seq=3)] == [2, 1]
    assert [h.seq for h in await store.history(s.id, limit=2, include_voided=False)] == [6, 5]
    assert (await store.last_hand(s.id)).seq == 6  # type: ignore[union-attr]
    assert (await store.last_hand(s.id, include_voided=True)).seq == 7  # type: ignore[union-attr]
    assert (await store.get_session(s.id)).hand_count == 7  # voided ones keep their number
    nxt = await add_hand(store, s.id, "n", 0, 0, 0, 0)
    assert nxt.seq == 8


@pytest.mark.parametrize("bad", [
    {"deltas": [1, 1, 1, 1]},
    {"deltas": [1, -1, 0]},
    {"deltas": [1.0, -1.0, 0, 0]},
    {"deltas": [True, -1, 0, 0]},
    {"deltas": "1,-1,0,0"},
    {},
])
async def test_deltas_must_be_four_ints_summing_to_zero(store: Store, bad: dict[str, Any]) -> None:
    s = await seated_session(store)
    with pytest.raises(InvalidHand):
        await store.record_hand(s.id, record(), bad, entered_by=None, idempotency_key="k")
    assert (await count(store, M.Hand), await count(store, M.LedgerEntry)) == (0, 0)
    assert await store.totals(s.id) == (0, 0, 0, 0)
    assert (await store.get_session(s.id)).hand_count == 0


async def test_record_must_match_the_session(store: Store) -> None:
    s = await seated_session(store, variant="luzhou")
    with pytest.raises(InvalidHand):
        await store.record_hand(s.id, record("cixi"), outcome(0, 0, 0, 0), entered_by=None,
                                idempotency_key="k")
    with pytest.raises(StoreError):
        await add_hand(store, s.id, "", 0, 0, 0, 0)
    with pytest.raises(NotFound):
        await store.record_hand(s.id, record(), outcome(0, 0, 0, 0), entered_by=424242, idempotency_key="k")
    await store.end_session(s.id)
    with pytest.raises(SessionEnded):
        await add_hand(store, s.id, "k", 0, 0, 0, 0)
    assert await count(store, M.Hand) == 0


async def test_a_failure_mid_transaction_leaves_nothing(store: Store,
                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    s = await seated_session(store)
    await add_hand(store, s.id, "ok", 2, -2, 0, 0)

    async def crash(*args: Any) -> None:  # after the hand (recording), its void (voiding)
        raise RuntimeError("power cut")

    monkeypatch.setattr("db.aggregates.add_hand", crash)
    with pytest.raises(RuntimeError):
        await add_hand(store, s.id, "x", 5, -5, 0, 0)
    hand = await store.last_hand(s.id)
    assert hand is not None
    monkeypatch.setattr("db.aggregates.add_to_totals", crash)
    with pytest.raises(RuntimeError):
        await store.void_hand(hand.id, by=None, reason="x")
    monkeypatch.undo()
    assert [await count(store, m) for m in (M.Hand, M.LedgerEntry, M.HandVoid)] == [1, 4, 0]
    assert (await store.get_session(s.id)).hand_count == 1
    assert not (await store.last_hand(s.id)).voided  # type: ignore[union-attr]
    assert await ledger_check(store, s.id) == (2, -2, 0, 0)
    # and the key of the failed attempt is still free
    assert (await add_hand(store, s.id, "x", 5, -5, 0, 0)).created


async def test_same_key_twice_is_one_hand(store: Store) -> None:
    s = await seated_session(store)
    first = await add_hand(store, s.id, "c", 4, -4, 0, 0)
    again = await add_hand(store, s.id, "c", 4, -4, 0, 0)
    assert first.created and not again.created
    assert (again.id, again.seq) == (first.id, first.seq)
    assert await store.totals(s.id) == (4, -4, 0, 0)
    await store.end_session(s.id)  # a late duplicate after the end still gets the answer
    late = await add_hand(store, s.id, "c", 4, -4, 0, 0)
    assert (late.id, late.created) == (first.id, False)


async def test_key_of_another_session_is_refused(store: Store) -> None:
    s1 = await seated_session(store, 1)
    s2 = await seated_session(store, 2)
    await add_hand(store, s1.id, "k", 0, 0, 0, 0)
    with pytest.raises(StoreError):
        await add_hand(store, s2.id, "k", 0, 0, 0, 0)


async def test_two_stores_confirming_the_same_draft_make_one_hand(store: Store, other_store: Store) -> None:
    s = await seated_session(store)
    for round_ in range(5):
        key = f"draft:{s.chat_id}:{round_}"
        results = await asyncio.gather(*(
            add_hand(st, s.id, key, 3, -1, -1, -1)
            for st in [store, other_store] * 2))
        assert len({h.id for h in results}) == 1
        assert sum(h.created for h in results) == 1
    assert await count(store, M.Hand) == 5
    assert await ledger_check(store, s.id) == (15, -5, -5, -5)  # counted once each


async def test_racing_different_hands_get_distinct_numbers(store: Store, other_store: Store) -> None:
    s = await seated_session(store)
    results = await asyncio.gather(*(
        add_hand(st, s.id, f"k{i}", i, -i, 0, 0)
        for i, st in enumerate([store, other_store] * 6)))
    assert sorted(h.seq for h in results) == list(range(1, 13))
    assert (await store.get_session(s.id)).hand_count == 12
    assert await ledger_check(store, s.id) == (66, -66, 0, 0)


async def test_racing_voids_reverse_once(store: Store, other_store: Store) -> None:
    s = await seated_session(store)
    hand = await add_hand(store, s.id, "v", 6, -6, 0, 0)
    results = await asyncio.gather(*(st.void_hand(hand.id, by=None, reason="r")
                                     for st in [store, other_store] * 2), return_exceptions=True)
    assert sum(not isinstance(r, BaseException) for r in results) == 1
    assert all(isinstance(r, AlreadyVoided) for r in results if isinstance(r, BaseException))
    assert await ledger_check(store, s.id) == (0, 0, 0, 0)


async def test_random_records_and_voids_keep_the_aggregate_exact(store: Store, other_store: Store) -> None:
    rng = random.Random(5)
    s = await seated_session(store)
    expected = [0, 0, 0, 0]
    live: list[tuple[int, list[int]]] = []
    for i in range(60):
        st = rng.choice([store, other_store])
        if live and rng.random() < 0.3:
            hand_id, deltas = live.pop(rng.randrange(len(live)))
            await st.void_hand(hand_id, by=None, reason="r")
            expected = [e - d for e, d in zip(expected, deltas, strict=True)]
        else:
            deltas = [rng.randint(-50, 50) for _ in range(3)]
            deltas.append(-sum(deltas))
            rng.shuffle(deltas)
            hand = await add_hand(st, s.id, f"r{i}", *deltas)
            live.append((hand.id, deltas))
            expected = [e + d for e, d in zip(expected, deltas, strict=True)]
    assert list(await ledger_check(store, s.id)) == expected


async def test_unique_key_is_the_last_line_of_defence(store: Store, monkeypatch: pytest.MonkeyPatch) -> None:
    # Should the check before writing ever miss a stored key (a race it cannot see), the unique
    # constraint refuses the second row and the store answers with the first hand.
    s = await seated_session(store)
    first = await add_hand(store, s.id, "u", 1, -1, 0, 0)
    real = store._hand_by_key
    misses = iter([True])

    async def blind_once(*args: Any) -> RecordedHand | None:
        return None if next(misses, False) else await real(*args)

    monkeypatch.setattr(store, "_hand_by_key", blind_once)
    again = await add_hand(store, s.id, "u", 1, -1, 0, 0)
    assert (again.id, again.created) == (first.id, False)
    assert await count(store, M.Hand) == 1
    assert await ledger_check(store, s.id) == (1, -1, 0, 0)
