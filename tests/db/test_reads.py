"""The reads every update starts with: one statement for the chat, the sender and the running
session (with names, totals, last outcome); writes only for what is new or changed."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from sqlalchemy import event

from db import SessionView, Store

from .helpers import outcome, record, seated_session


@contextmanager
def statements(store: Store) -> Iterator[list[str]]:
    seen: list[str] = []

    def count(_conn: Any, _cursor: Any, statement: str, *_: Any) -> None:
        seen.append(statement)

    event.listen(store.engine.sync_engine, "before_cursor_execute", count)
    try:
        yield seen
    finally:
        event.remove(store.engine.sync_engine, "before_cursor_execute", count)


async def test_chat_context_reads_once_and_writes_only_what_changed(store: Store) -> None:
    with statements(store) as first:
        ctx = await store.chat_context(-5, language="zh-Hans", telegram_id=55, name="  Mei  Li ",
                                       username="mei", language_code="zh")
    assert ctx.chat is not None and ctx.chat.language == "zh-Hans"
    assert ctx.person is not None and ctx.person.name == "Mei Li" and ctx.session is None
    assert len(first) > 1  # a new chat and a new person were written

    with statements(store) as again:
        same = await store.chat_context(-5, language="en", telegram_id=55, name="Mei Li",
                                        username="mei", language_code="zh")
    assert len(again) == 1 and same == ctx  # nothing new: one read, no write

    renamed = await store.chat_context(-5, telegram_id=55, name="Mei", username="mei",
                                       language_code="zh")
    assert renamed.person is not None and renamed.person.name == "Mei"
    assert renamed.person.id == ctx.person.id


async def test_the_running_session_comes_with_names_totals_and_last_outcome(store: Store) -> None:
    s = await seated_session(store, chat_id=-6)
    ctx = await store.chat_context(-6)
    assert isinstance(ctx.session, SessionView) and ctx.person is None
    assert ctx.session.names == ("Ann", "Bo", "Cy", "Di") and ctx.session.totals == (0, 0, 0, 0)
    assert ctx.session.last_outcome is None and ctx.session.seats == s.seats
    first = await store.record_hand(s.id, record(), outcome(3, -1, -1, -1), entered_by=None,
                                    idempotency_key="a")
    await store.record_hand(s.id, record(), outcome(-2, 2, 0, 0), entered_by=None,
                            idempotency_key="b")
    last = await store.history(s.id, limit=1)
    await store.void_hand(last[0].id, by=None, reason="x")
    ctx = await store.chat_context(-6)
    assert ctx.session is not None and ctx.session.totals == (3, -1, -1, -1)
    assert ctx.session.last_outcome == first.outcome  # the last live hand's
    assert ctx.session.hand_count == 2
    await store.end_session(s.id)
    assert (await store.chat_context(-6)).session is None


async def test_get_people_in_one_read(store: Store) -> None:
    s = await seated_session(store, chat_id=-7)
    with statements(store) as seen:
        people = await store.get_people([*s.seats, s.seats[0], 10**9])  # type: ignore[list-item]
    assert len(seen) == 1
    assert sorted(p.name for p in people.values()) == ["Ann", "Bo", "Cy", "Di"]
    assert await store.get_people([]) == {}


async def test_the_snapshot_gives_the_same_table_mark_as_the_store(store: Store) -> None:
    from db.store import session_mark

    s = await seated_session(store, chat_id=-8, stake_cents=50, rules={"cap": 20})
    assert session_mark((await store.chat_context(-8)).session) == await store.table_mark(s.id)
    hands = [await store.record_hand(s.id, record(), outcome(d, -d, 0, 0), entered_by=None,
                                     idempotency_key=f"m{d}") for d in (1, 2, 3)]
    await store.void_hand(hands[-1].id, by=None, reason="x")
    snap = (await store.chat_context(-8)).session
    assert snap is not None and snap.last_live_seq == 2
    assert session_mark(snap) == await store.table_mark(s.id)
    assert session_mark(await store.get_session(s.id)) is None  # a plain session: ask the store


async def test_standing_hands_from_the_aggregate_and_the_snapshot(store: Store) -> None:
    s = await seated_session(store, chat_id=-9)
    hands = [await store.record_hand(s.id, record(), outcome(d, -d, 0, 0), entered_by=None,
                                     idempotency_key=f"s{d}") for d in (1, 2, 3)]
    await store.void_hand(hands[1].id, by=None, reason="x")
    assert await store.standing_hands(s.id) == 2
    snap = (await store.chat_context(-9)).session
    assert snap is not None and snap.standing_hands == 2 and snap.hand_count == 3
