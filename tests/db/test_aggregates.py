"""The running aggregates (/stats, Cixi levels, /chart) always equal what replaying the stored
hands gives: after recording, voiding any hand, and when migration 0004 builds them from hands
stored before it existed."""

from __future__ import annotations

import random
from collections import Counter
from typing import Any

from alembic import command

from db import Store
from db.store import alembic_config
from scoring import score
from scoring.stats import ScoredHand, player_stats

from .helpers import seated_session, stored_at_first_revision

LUZHOU = [  # (winner, by, from, features)
    (1, "self_draw", None, {"pure": True}), (2, "discard", 0, {"form": "all_pungs"}),
    (0, "self_draw", None, {}), (3, "discard", 1, {"pure": True, "form": "all_pungs"}),
]


def luzhou_hand(rng: random.Random) -> tuple[dict[str, Any], dict[str, Any]]:
    winner, by, frm, features = rng.choice(LUZHOU)
    event: dict[str, Any] = {"type": "win", "by": by, "winners": [{"seat": winner, **features}]}
    if frm is not None:
        event["from"] = frm
    # a whole hand: it goes on to an empty wall with the other three seats ready
    ready = {"type": "exhausted", "ready": {str(s): {} for s in range(4) if s != winner}}
    record = {"variant": "luzhou", "dealer": 0, "dealer_streak": 1, "round_wind": 0,
              "events": [event, ready]}
    return record, score(record).to_dict()


async def replayed(store: Store, chat_id: int) -> dict[tuple[int, str], tuple[Any, ...]]:
    """Statistics the slow way, from every stored hand."""
    hands = []
    for session in await store.chat_sessions(chat_id, include_settled=True):
        async for batch in store.iter_hands(session.id, include_voided=False):
            hands += [ScoredHand(h.record, h.outcome, session.seats) for h in batch]
    return {(pid, variant): (st.hands, st.wins, st.self_draws, st.dealt_in, st.points,
                             st.biggest_gain, dict(st.patterns))
            for pid, per in player_stats(hands).items() for variant, st in per.items()}


async def aggregated(store: Store, chat_id: int) -> dict[tuple[int, str], tuple[Any, ...]]:
    out: dict[tuple[int, str], list[Any]] = {}
    for r in await store.seat_stats(chat_id):
        row = out.setdefault((r.person_id, r.variant), [0, 0, 0, 0, 0, 0, Counter()])
        for i, v in enumerate((r.hands, r.wins, r.self_draws, r.dealt_in, r.points)):
            row[i] += v
        row[5] = max(row[5], r.biggest_gain)
        row[6].update(r.patterns)
    return {k: (*v[:6], {t: n for t, n in v[6].items() if n}) for k, v in out.items()}


async def test_stats_and_chart_follow_records_and_voids(store: Store) -> None:
    rng = random.Random(5)
    s = await seated_session(store, chat_id=-77)
    stored = []
    for i in range(40):
        record, outcome = luzhou_hand(rng)
        stored.append(await store.record_hand(s.id, record, outcome, entered_by=None,
                                              idempotency_key=f"a{i}"))
    for hand_id in {h.id for h in rng.sample(stored, 12)} | {stored[-1].id}:  # and the newest
        await store.void_hand(hand_id, by=None, reason="test")
    assert await aggregated(store, -77) == await replayed(store, -77)

    live = [h for h in await store.history(s.id, limit=100, include_voided=False)][::-1]
    running, expected = [0, 0, 0, 0], [(0, 0, 0, 0)]
    for h in live:
        running = [a + b for a, b in zip(running, h.deltas, strict=True)]
        expected.append(tuple(running))
    chart = await store.chart_series(s.id)
    assert chart.x == list(range(len(live) + 1)) and chart.totals == expected
    # downsampled: fewer points, the same end
    small = await store.chart_series(s.id, max_points=4)
    assert small.totals[-1] == expected[-1] and small.x[-1] == len(live) == chart.hands


async def test_confirmed_drafts_count_like_recorded_hands(store: Store) -> None:
    """Confirm's own path (the hand_effects triggers) against replaying the hands, mixed with
    recorded hands and voids; each confirmed draft is closed."""
    rng = random.Random(6)
    s = await seated_session(store, chat_id=-76)
    for i in range(24):
        record, outcome = luzhou_hand(rng)
        if i % 3 == 2:
            await store.record_hand(s.id, record, outcome, entered_by=None, idempotency_key=f"r{i}")
            continue
        draft, _ = await store.create_draft(-76, session_id=s.id, data={})
        draft = await store.attach_draft(draft, -76, 100 + i)
        hand = await store.confirm_hand(draft, record, outcome, entered_by=s.seats[i % 4],
                                        table_mark=await store.table_mark(s.id))
        assert hand.created and hand.entered_by == s.seats[i % 4]
        assert await store.get_draft(-76, 100 + i) is None
        if i % 5 == 4:
            await store.void_hand(hand.id, by=None, reason="test")
    assert await aggregated(store, -76) == await replayed(store, -76)
    live = await store.history(s.id, limit=100, include_voided=False)
    assert await store.totals(s.id) == tuple(sum(h.deltas[seat] for h in live) for seat in range(4))
    chart = await store.chart_series(s.id)
    assert chart.hands == len(live) and chart.totals[-1] == await store.totals(s.id)


async def test_confirmed_cixi_hands_follow_their_levels(store: Store) -> None:
    """The level a confirmed hand belongs to is worked out in its INSERT: the previous live
    hand's, one more after a hand that ended its level."""
    s = await seated_session(store, chat_id=-75, variant="cixi")
    rec = {"variant": "cixi", "dealer": 0, "dealer_streak": 1, "round_wind": 0, "events": []}
    plan = [((-20, 20, 0, 0), [80, 120, 100, 100], False),
            ((-80, 40, 20, 20), [0, 160, 120, 120], True),
            ((10, -10, 0, 0), [110, 90, 100, 100], False)]
    levels = []
    for i, (deltas, balances, over) in enumerate(plan):
        draft, _ = await store.create_draft(-75, session_id=s.id, data={})
        draft = await store.attach_draft(draft, -75, 10 + i)
        hand = await store.confirm_hand(
            draft, rec, {"deltas": list(deltas), "balances": balances, "level_over": over},
            entered_by=None, table_mark=await store.table_mark(s.id))
        levels.append(hand.level)
    assert levels == [1, 1, 2]
    assert [h.level for h in await store.history(s.id)] == [2, 1, 1]
    summary = await store.level_summary(s.id)
    assert (summary.next_level, summary.running_balances, summary.levels_won) == (
        2, (110, 90, 100, 100), (0, 1, 0, 0))
    assert [(lv.level, lv.deltas, lv.hand_count, lv.ended)
            for lv in await store.level_standings(s.id)] == [
        (1, (-100, 60, 20, 20), 2, True), (2, (10, -10, 0, 0), 1, False)]


async def test_voiding_the_biggest_gain_finds_the_next_biggest(store: Store) -> None:
    s = await seated_session(store, chat_id=-78)
    base = {"variant": "luzhou", "dealer": 0, "dealer_streak": 1, "round_wind": 0,
            "events": [{"type": "win", "by": "self_draw", "winners": [{"seat": 0}]}]}
    big = await store.record_hand(s.id, base, {"deltas": [30, -10, -10, -10]}, entered_by=None,
                                  idempotency_key="big")
    await store.record_hand(s.id, base, {"deltas": [12, -4, -4, -4]}, entered_by=None,
                            idempotency_key="small")
    assert {r.biggest_gain for r in await store.seat_stats(-78) if r.person_id == s.seats[0]} == {30}
    await store.void_hand(big.id, by=None, reason="typo")
    assert {r.biggest_gain for r in await store.seat_stats(-78) if r.person_id == s.seats[0]} == {12}


async def test_cixi_level_summary(store: Store) -> None:
    s = await seated_session(store, chat_id=-79, variant="cixi")
    rec = {"variant": "cixi", "dealer": 0, "dealer_streak": 1, "round_wind": 0, "events": []}
    plan = [((-20, 20, 0, 0), [80, 120, 100, 100], False),
            ((-80, 40, 20, 20), [0, 160, 120, 120], True),
            ((10, -10, 0, 0), [110, 90, 100, 100], False)]
    hands = []
    for i, (deltas, balances, over) in enumerate(plan):
        hands.append(await store.record_hand(
            s.id, rec, {"deltas": list(deltas), "balances": balances, "level_over": over},
            entered_by=None, idempotency_key=f"c{i}"))
    summary = await store.level_summary(s.id)
    assert (summary.next_level, summary.running_balances, summary.levels_won) == (
        2, (110, 90, 100, 100), (0, 1, 0, 0))
    await store.void_hand(hands[2].id, by=None, reason="x")
    summary = await store.level_summary(s.id)
    assert (summary.next_level, summary.running_balances, summary.levels_won) == (
        2, None, (0, 1, 0, 0))
    await store.void_hand(hands[1].id, by=None, reason="x")  # level 1 runs again
    summary = await store.level_summary(s.id)
    assert (summary.next_level, summary.running_balances, summary.levels_won) == (
        1, (80, 120, 100, 100), (0, 0, 0, 0))


async def test_migration_builds_the_aggregates_from_stored_hands(db_url: str) -> None:
    """Hands written at revision 0001 (no aggregates), then the upgrade: the same figures as
    recording them through the store."""
    store = await Store.open(db_url, migrate=False)
    try:
        async with store.engine.begin() as conn:
            def to_first(sync_conn: Any) -> None:
                cfg = alembic_config()
                cfg.attributes["connection"] = sync_conn
                command.upgrade(cfg, "0001")

            await conn.run_sync(to_first)
        rng = random.Random(9)
        hands = [luzhou_hand(rng) for _ in range(30)]
        voided = {7, 14, 21, 28}
        sid = await stored_at_first_revision(store, -80, "luzhou", {}, hands, voided=voided)
        totals = tuple(sum(out["deltas"][s] for seq, (_, out) in enumerate(hands, 1)
                           if seq not in voided) for s in range(4))
        await store.migrate()
        assert await aggregated(store, -80) == await replayed(store, -80)
        chart = await store.chart_series(sid)
        assert chart.hands == 30 - 4 and chart.totals[-1] == tuple(totals)
        # and it carries on from there
        record, outcome = luzhou_hand(rng)
        await store.record_hand(sid, record, outcome, entered_by=None, idempotency_key="after")
        assert await aggregated(store, -80) == await replayed(store, -80)
    finally:
        await store.close()


async def test_every_hand_streamed_in_order_a_batch_at_a_time(store: Store) -> None:
    """What /export reads: every hand in order (voided ones marked, with their reason), no
    batch larger than asked, and a session booked into meanwhile still read whole up to a
    point (each hand once, in order)."""
    rng = random.Random(3)
    s = await seated_session(store, chat_id=-81)
    ids = []
    for i in range(7):
        record, outcome = luzhou_hand(rng)
        ids.append((await store.record_hand(s.id, record, outcome, entered_by=None,
                                            idempotency_key=f"t{i}")).id)
    await store.void_hand(ids[5], by=None, reason="typo")
    batches = [b async for b in store.iter_hands(s.id, batch=3)]
    assert [len(b) for b in batches] == [3, 3, 1]
    hands = [h for b in batches for h in b]
    assert [(h.seq, h.voided, h.void_reason) for h in hands] == \
        [(i, i == 6, "typo" if i == 6 else None) for i in range(1, 8)]
    assert [h.id for h in hands] == ids
    assert [h.seq async for b in store.iter_hands(s.id, include_voided=False) for h in b] == \
        [1, 2, 3, 4, 5, 7]

    seen: list[int] = []  # a hand booked while the export reads: each hand once, in order
    async for batch in store.iter_hands(s.id, batch=2):
        seen += [h.seq for h in batch]
        if len(seen) == 2:
            record, outcome = luzhou_hand(rng)
            await store.record_hand(s.id, record, outcome, entered_by=None, idempotency_key="t8")
    assert seen in (list(range(1, 8)), list(range(1, 9)))


async def test_an_imported_session_has_its_aggregates(store: Store) -> None:
    from db import HandToImport

    rng = random.Random(11)
    hands = [HandToImport(*luzhou_hand(rng), voided=i == 2, void_reason="x" if i == 2 else None)
             for i in range(6)]
    s = await store.import_session(-82, "luzhou", {}, stake_cents=0, players=["A", "B", "C", "D"],
                                   hands=hands, imported_by=None, key_prefix="imp")
    assert await aggregated(store, -82) == await replayed(store, -82)
    chart = await store.chart_series(s.id)
    assert chart.hands == 5 and chart.totals[-1] == await store.totals(s.id)
