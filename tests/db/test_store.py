"""Chats, people, sessions and seats, drafts, money and chat migration: round trips through
the store and the refusals it owes the bot."""

from __future__ import annotations

import asyncio
import dataclasses
from datetime import datetime

import pytest
from sqlalchemy import func, select

from db import (
    AlreadySeated,
    NotFound,
    SeatedElsewhere,
    SeatTaken,
    SessionAlreadyRunning,
    SessionEnded,
    SessionNotEnded,
    SessionNotReady,
    SessionSettled,
    StaleDraft,
    Store,
    StoreError,
)
from db import models as M

from .helpers import add_hand, outcome, record, seated_session

BIG = -1_001_234_567_890  # supergroup ids and user ids need 64 bits


# -- chats and people --------------------------------------------------------------------------

async def test_chat_is_created_once_with_its_language(store: Store) -> None:
    chat = await store.ensure_chat(BIG, language="zh-Hans")
    assert (chat.id, chat.language, chat.house_rules, chat.migrated_to) == (BIG, "zh-Hans", {}, None)
    assert (await store.ensure_chat(BIG, language="en")).language == "zh-Hans"  # unchanged
    assert (await store.set_chat_language(BIG, "en")).language == "en"
    assert (await store.ensure_chat(BIG)).language == "en"


async def test_house_rules_per_variant(store: Store) -> None:
    await store.set_house_rules(5, "luzhou", {"cap": 40})
    await store.set_house_rules(5, "cixi", {"level_points": 200})
    chat = await store.set_house_rules(5, "luzhou", {"cap": 80})
    assert chat.house_rules == {"luzhou": {"cap": 80}, "cixi": {"level_points": 200}}
    assert (await store.ensure_chat(5)).house_rules == chat.house_rules


async def test_users_are_upserted_by_telegram_id(store: Store) -> None:
    tg = 7_000_000_000_123  # beyond 32 bits
    first = await store.upsert_user(tg, "Ann", username="ann", language_code="en")
    assert (first.telegram_id, first.name, first.username, first.is_guest) == (tg, "Ann", "ann", False)
    renamed = await store.upsert_user(tg, "Ann Lee", username=None, language_code="zh-hans")
    assert renamed.id == first.id
    assert (renamed.name, renamed.username, renamed.language_code) == ("Ann Lee", None, "zh-hans")
    assert await store.get_person(first.id) == renamed


async def test_guests_are_unique_by_name_per_chat(store: Store) -> None:
    anna = await store.add_guest(1, "Anna")
    assert (anna.is_guest, anna.telegram_id, anna.name) == (True, None, "Anna")
    assert await store.add_guest(1, "  anna ") == anna  # case and spaces do not make a new guest
    assert (await store.add_guest(2, "Anna")).id != anna.id  # another chat, another guest
    with pytest.raises(StoreError):
        await store.add_guest(1, "   ")


async def test_concurrent_guests_of_one_name_are_one_person(store: Store, other_store: Store) -> None:
    await store.ensure_chat(1)
    people = await asyncio.gather(*(s.add_guest(1, "Bo") for s in [store, other_store] * 3))
    assert len({p.id for p in people}) == 1


async def test_unknown_ids_raise_not_found(store: Store) -> None:
    with pytest.raises(NotFound):
        await store.get_person(999)
    with pytest.raises(NotFound):
        await store.get_session(999)
    with pytest.raises(NotFound):
        await store.totals(999)


# -- sessions and seats ------------------------------------------------------------------------

async def test_session_round_trip(store: Store) -> None:
    ann = await store.upsert_user(1, "Ann")
    session = await store.start_session(BIG, "cixi", {"level_points": 100}, stake_cents=50,
                                        started_by=ann.id)
    assert (session.chat_id, session.variant, session.rules, session.stake_cents) == (
        BIG, "cixi", {"level_points": 100}, 50)
    assert session.seats == (None, None, None, None)
    assert session.hand_count == 0 and session.ended_at is None and session.running
    assert isinstance(session.started_at, datetime) and session.started_at.tzinfo is not None
    assert await store.running_session(BIG) == session == await store.get_session(session.id)
    assert await store.totals(session.id) == (0, 0, 0, 0)
    assert dataclasses.is_dataclass(session)
    with pytest.raises(dataclasses.FrozenInstanceError):
        session.stake_cents = 1  # type: ignore[misc]


async def test_one_running_session_per_chat(store: Store) -> None:
    first = await store.start_session(1, "luzhou", {})
    with pytest.raises(SessionAlreadyRunning):
        await store.start_session(1, "cixi", {})
    assert (await store.start_session(2, "cixi", {})).chat_id == 2  # other chats are free
    ended = await store.end_session(first.id)
    assert ended.ended_at is not None and not ended.running
    assert await store.end_session(first.id) == ended  # ending twice changes nothing
    assert await store.running_session(1) is None
    second = await store.start_session(1, "cixi", {})
    assert [s.id for s in await store.chat_sessions(1)] == [second.id, first.id]  # newest first


async def test_a_second_table_runs_only_when_asked_for(store: Store) -> None:
    first = await store.start_session(1, "luzhou", {})
    second = await store.start_session(1, "cixi", {}, another=True)
    assert (first.number, second.number) == (1, 2)
    assert await store.running_sessions(1) == [first, second]
    assert await store.running_session(1) == first  # of several, the first
    with pytest.raises(SessionAlreadyRunning):
        await store.start_session(1, "cixi", {})
    await store.end_session(first.id)
    assert await store.running_sessions(1) == [second]


async def test_session_numbers_are_unique_without_the_store(store: Store) -> None:
    # The database itself refuses two sessions of one number in a chat (two tables started at
    # once), whatever the code above it does.
    await store.start_session(1, "luzhou", {})
    with pytest.raises(Exception, match=r"(?i)unique|duplicate"):
        async with store._sessions() as s, s.begin():
            s.add(M.Session(chat_id=1, number=1, variant="x", rules={}, stake_cents=0, hand_count=0))


async def test_one_person_sits_at_one_table_of_a_chat(store: Store, other_store: Store) -> None:
    a, b = await store.upsert_user(1, "A"), await store.upsert_user(2, "B")
    one = await store.start_session(1, "luzhou", {})
    two = await store.start_session(1, "luzhou", {}, another=True)
    elsewhere = await store.start_session(2, "luzhou", {})
    # the same person seated at both tables at once: one seat is taken, the other refused
    results = await asyncio.gather(store.seat_player(one.id, 0, a.id),
                                   other_store.seat_player(two.id, 0, a.id), return_exceptions=True)
    refused = [r for r in results if isinstance(r, BaseException)]
    assert len(refused) == 1 and isinstance(refused[0], SeatedElsewhere), results
    at = one if not isinstance(results[0], BaseException) else two
    assert refused[0].number == at.number  # names the table they sit at
    assert (await store.seat_player(elsewhere.id, 0, a.id)).seats[0] == a.id  # another chat
    await store.seat_player(two.id if at is one else one.id, 1, b.id)  # someone else may
    await store.end_session(at.id)  # once that table ended, the other takes them
    other = two if at is one else one
    assert (await store.seat_player(other.id, 0, a.id)).seats[0] == a.id


async def test_concurrent_starts_give_one_session(store: Store, other_store: Store) -> None:
    await store.ensure_chat(1)
    results = await asyncio.gather(*(s.start_session(1, "luzhou", {}) for s in [store, other_store] * 2),
                                   return_exceptions=True)
    started = [r for r in results if not isinstance(r, BaseException)]
    assert len(started) == 1, results
    assert all(isinstance(r, SessionAlreadyRunning) for r in results if r not in started)


async def test_seating(store: Store) -> None:
    a, b, c = [await store.upsert_user(i, n) for i, n in [(1, "A"), (2, "B"), (3, "C")]]
    s = await store.start_session(1, "luzhou", {})
    s = await store.seat_player(s.id, 2, a.id)
    s = await store.seat_player(s.id, 0, b.id)
    assert s.seats == (b.id, None, a.id, None)
    assert (await store.seat_player(s.id, 2, a.id)).seats == s.seats  # same again: no-op
    with pytest.raises(SeatTaken):
        await store.seat_player(s.id, 2, c.id)
    with pytest.raises(AlreadySeated):
        await store.seat_player(s.id, 1, a.id)
    with pytest.raises(StoreError):
        await store.seat_player(s.id, 4, c.id)
    with pytest.raises(NotFound):
        await store.seat_player(s.id, 1, 12345)
    s = await store.swap_seats(s.id, 0, 2)
    assert s.seats == (a.id, None, b.id, None)
    s = await store.swap_seats(s.id, 2, 3)
    assert s.seats == (a.id, None, None, b.id)
    s = await store.unseat(s.id, 0)
    assert s.seats == (None, None, None, b.id)
    assert (await store.get_session(s.id)).seats == s.seats


async def test_seats_change_hands_after_a_hand_and_book_nothing(store: Store) -> None:
    s = await seated_session(store)
    await add_hand(store, s.id, "k", 3, -1, -1, -1)
    guest = await store.add_guest(s.chat_id, "Eve")
    ann = s.seats[0]
    s2 = await store.replace_player(s.id, 0, guest.id)  # Eve takes Ann's seat
    assert s2.seats == (guest.id, *s.seats[1:])
    assert await store.seat_totals(s.id) == (3, -1, -1, -1)  # nothing booked by the change
    assert await store.totals(s.id) == (0, -1, -1, -1)  # Eve has won nothing yet
    with pytest.raises(AlreadySeated):  # one person, two seats
        await store.replace_player(s.id, 1, guest.id)
    await add_hand(store, s.id, "k2", -3, 1, 1, 1)
    results = {r.person_id: r.points for r in await store.person_results([s.id])}
    assert results == {ann: 3, guest.id: -3, s.seats[1]: 0, s.seats[2]: 0, s.seats[3]: 0}
    await store.end_session(s.id)
    with pytest.raises(SessionEnded):
        await store.swap_seats(s.id, 0, 1)


async def test_no_hand_without_four_players(store: Store) -> None:
    s = await store.start_session(1, "luzhou", {})
    s = await store.seat_player(s.id, 0, (await store.add_guest(1, "A")).id)
    with pytest.raises(SessionNotReady):
        await add_hand(store, s.id, "k", 0, 0, 0, 0)


async def test_stake_and_rules(store: Store) -> None:
    s = await seated_session(store)
    assert (await store.set_stake(s.id, 125)).stake_cents == 125
    assert (await store.set_session_rules(s.id, {"cap": 20})).rules == {"cap": 20}
    for bad in (-1, 1.5):
        with pytest.raises(StoreError):
            await store.set_stake(s.id, bad)  # type: ignore[arg-type]
    await store.end_session(s.id)
    with pytest.raises(SessionEnded):
        await store.set_session_rules(s.id, {})
    with pytest.raises(SessionEnded):
        await store.seat_player(s.id, 0, s.seats[0])
    assert (await store.set_stake(s.id, 100)).stake_cents == 100  # until settled
    await store.mark_settled([s.id])
    with pytest.raises(SessionSettled):
        await store.set_stake(s.id, 50)


# -- drafts ------------------------------------------------------------------------------------

async def test_draft_versions(store: Store) -> None:
    s = await seated_session(store)
    d1 = await store.save_draft(s.chat_id, 42, session_id=s.id, data={"step": "who"}, expected_version=None)
    assert (d1.version, d1.data) == (1, {"step": "who"})
    with pytest.raises(StaleDraft):  # creating it again
        await store.save_draft(s.chat_id, 42, session_id=s.id, data={}, expected_version=None)
    d2 = await store.save_draft(s.chat_id, 42, session_id=s.id, data={"step": "how"}, expected_version=1)
    assert d2.version == 2
    with pytest.raises(StaleDraft):  # someone else saved version 2 meanwhile
        await store.save_draft(s.chat_id, 42, session_id=s.id, data={"step": "x"}, expected_version=1)
    assert await store.get_draft(s.chat_id, 42) == d2
    await store.save_draft(s.chat_id, 43, session_id=s.id, data={}, expected_version=None)
    assert [d.message_id for d in await store.drafts_for_session(s.id)] == [42, 43]
    assert await store.delete_draft(s.chat_id, 42) is True
    assert await store.delete_draft(s.chat_id, 42) is False
    assert await store.get_draft(s.chat_id, 42) is None
    with pytest.raises(StaleDraft):  # deleted meanwhile
        await store.save_draft(s.chat_id, 42, session_id=s.id, data={}, expected_version=2)


async def test_drafts_survive_a_restart(db_url: str) -> None:
    first = await Store.open(db_url)
    s = await seated_session(first)
    await first.save_draft(s.chat_id, 9, session_id=s.id, data={"events": [{"type": "win"}]},
                           expected_version=None)
    await first.close()
    second = await Store.open(db_url)
    try:
        draft = await second.get_draft(s.chat_id, 9)
        assert draft is not None and draft.data == {"events": [{"type": "win"}]}
    finally:
        await second.close()


async def test_concurrent_saves_of_one_version_one_wins(store: Store, other_store: Store) -> None:
    s = await seated_session(store)
    await store.save_draft(s.chat_id, 1, session_id=s.id, data={}, expected_version=None)
    results = await asyncio.gather(
        *(st.save_draft(s.chat_id, 1, session_id=s.id, data={"by": i}, expected_version=1)
          for i, st in enumerate([store, other_store] * 2)), return_exceptions=True)
    saved = [r for r in results if not isinstance(r, BaseException)]
    assert len(saved) == 1 and all(isinstance(r, StaleDraft) for r in results if r not in saved)
    assert await store.get_draft(s.chat_id, 1) == saved[0]


# -- money -------------------------------------------------------------------------------------

async def test_money_balances_payments_and_settling(store: Store) -> None:
    s1 = await seated_session(store, 1, stake_cents=50)
    a, b, c, d = s1.seats
    await store.record_hand(s1.id, record(), outcome(30, -10, -10, -10), entered_by=a, idempotency_key="1")
    await store.end_session(s1.id)
    s2 = await store.start_session(1, "luzhou", {}, stake_cents=100)
    for seat, pid in enumerate((d, c, b, a)):  # other seats this time
        s2 = await store.seat_player(s2.id, seat, pid)
    await store.record_hand(s2.id, record(), outcome(4, 0, 0, -4), entered_by=a, idempotency_key="2")
    assert await store.money_balances(1) == {a: 1500 - 400, b: -500, c: -500, d: -500 + 400}
    assert await store.money_balances(1, session_ids=[s1.id]) == {a: 1500, b: -500, c: -500, d: -500}

    pay = await store.record_payment(1, b, a, 500, session_id=s1.id, recorded_by=a, confirmed=True)
    assert (pay.from_person, pay.to_person, pay.cents) == (b, a, 500)
    assert (pay.session_id, pay.settled) == (s1.id, False)
    await store.record_payment(1, c, a, 200, confirmed=True)  # for no particular session
    assert await store.money_balances(1) == {a: 1100 - 700, b: 0, c: -300, d: -100}
    assert await store.money_balances(1, session_ids=[s1.id]) == {a: 1000, b: 0, c: -500, d: -500}
    assert sum((await store.money_balances(1)).values()) == 0

    with pytest.raises(SessionNotEnded):
        await store.mark_settled([s1.id, s2.id])
    settled = await store.mark_settled([s1.id])
    assert settled[0].settled_at is not None
    assert await store.mark_settled([s1.id]) == settled  # twice: no change
    assert await store.money_balances(1) == {a: -400, b: 0, c: 0, d: 400}  # s2 only; payments settled
    assert [s.id for s in await store.chat_sessions(1)] == [s2.id]
    assert [s.id for s in await store.chat_sessions(1, include_settled=True)] == [s2.id, s1.id]


async def test_payments_are_checked(store: Store) -> None:
    s = await seated_session(store, 1)
    a, b = s.seats[:2]
    assert a is not None and b is not None
    for cents in (0, -5, 1.5):
        with pytest.raises(StoreError):
            await store.record_payment(1, a, b, cents)  # type: ignore[arg-type]
    with pytest.raises(StoreError):
        await store.record_payment(1, a, a, 100)
    with pytest.raises(NotFound):
        await store.record_payment(1, a, 999, 100)
    other = await store.start_session(2, "luzhou", {})
    with pytest.raises(NotFound):
        await store.record_payment(1, a, b, 100, session_id=other.id)
    with pytest.raises(NotFound):
        await store.money_balances(1, session_ids=[other.id])


# -- Cixi levels -------------------------------------------------------------------------------

async def test_level_standings(store: Store) -> None:
    s = await seated_session(store, variant="cixi")
    hands = [  # (deltas, balances after, level over)
        ((-20, 20, 0, 0), [80, 120, 100, 100], False),
        ((-80, 40, 20, 20), [0, 160, 120, 120], True),
        ((10, -10, 0, 0), [110, 90, 100, 100], False),
        ((5, -5, 0, 0), [115, 85, 100, 100], False),
    ]
    recorded = []
    for i, (deltas, balances, over) in enumerate(hands):
        recorded.append(await store.record_hand(
            s.id, record("cixi"), outcome(*deltas, level_over=over, balances=balances),
            entered_by=None, idempotency_key=f"h{i}"))
    assert [h.level for h in recorded] == [1, 1, 2, 2]  # derived: a new level after level_over
    await store.void_hand(recorded[3].id, by=None, reason="typo")
    one, two = await store.level_standings(s.id)
    assert (one.level, one.deltas, one.hand_count, one.ended, one.final_balances) == (
        1, (-100, 60, 20, 20), 2, True, (0, 160, 120, 120))
    assert (two.level, two.deltas, two.hand_count, two.ended, two.final_balances) == (
        2, (10, -10, 0, 0), 1, False, (110, 90, 100, 100))
    explicit = await store.record_hand(s.id, record("cixi"), outcome(0, 0, 0, 0), entered_by=None,
                                       idempotency_key="x", level=7)
    assert explicit.level == 7
    assert [lv.level for lv in await store.level_standings(s.id)] == [1, 2, 7]


# -- chat migration ----------------------------------------------------------------------------

async def test_migrate_chat_moves_everything(store: Store) -> None:
    old, new = -4_000_000_001, -1_009_999_999_999
    await store.ensure_chat(old, language="zh-Hant")
    await store.set_house_rules(old, "luzhou", {"cap": 40})
    ended = await seated_session(store, old)
    await add_hand(store, ended.id, "o1", 3, -1, -1, -1)
    await store.end_session(ended.id)
    guest = await store.add_guest(old, "Guest")
    running = await store.start_session(old, "luzhou", {}, stake_cents=10)
    for seat, pid in enumerate([*ended.seats[:3], guest.id]):
        running = await store.seat_player(running.id, seat, pid)
    await add_hand(store, running.id, "o2", -2, 0, 0, 2)
    await store.save_draft(old, 77, session_id=running.id, data={"n": 1}, expected_version=None)
    a, b = ended.seats[:2]
    assert a is not None and b is not None
    await store.record_payment(old, b, a, 5, confirmed=True)
    await store.ensure_chat(new, language="en")  # the new id may have been seen first
    before = await store.money_balances(old)

    chat = await store.migrate_chat(old, new)
    assert (chat.id, chat.language, chat.house_rules) == (new, "zh-Hant", {"luzhou": {"cap": 40}})
    assert (await store.running_session(new)).id == running.id  # type: ignore[union-attr]
    assert await store.running_session(old) is None
    assert {s.id for s in await store.chat_sessions(new)} == {ended.id, running.id}
    assert await store.chat_sessions(old, include_settled=True) == []
    assert await store.totals(running.id) == (-2, 0, 0, 2)
    assert (await store.get_draft(new, 77)).data == {"n": 1}  # type: ignore[union-attr]
    assert await store.get_draft(old, 77) is None
    assert await store.money_balances(new) == before
    assert await store.add_guest(new, "guest") == dataclasses.replace(guest, guest_chat_id=new)
    assert (await store.ensure_chat(old)).migrated_to == new

    assert await store.migrate_chat(old, new) == chat  # idempotent
    assert await store.money_balances(new) == before


async def test_migrate_chat_merges_guests_and_running_sessions(store: Store) -> None:
    old, new = 10, 20
    old_guest = await store.add_guest(old, "Zed")
    s_old = await store.start_session(old, "luzhou", {})
    s_old = await store.seat_player(s_old.id, 0, old_guest.id)
    for seat, name in enumerate(("Ann", "Bo", "Cy"), 1):
        await store.seat_player(s_old.id, seat, (await store.add_guest(old, name)).id)
    await add_hand(store, s_old.id, "zed-1", 3, -1, -1, -1)
    new_guest = await store.add_guest(new, "zed")
    s_new = await store.start_session(new, "cixi", {})  # started in the supergroup already
    await store.seat_player(s_new.id, 2, new_guest.id)  # Zed again: one person, one table
    other = await store.start_session(new, "cixi", {}, another=True)  # no one in common
    await store.migrate_chat(old, new)
    assert (await store.get_session(s_old.id)).seats[0] == new_guest.id  # one Zed now
    with pytest.raises(NotFound):
        await store.get_person(old_guest.id)
    # Zed's two tables: the one with fewer hands ended, not lost; the other table runs on
    assert (await store.get_session(s_new.id)).ended_at is not None
    assert [s.id for s in await store.running_sessions(new)] == [s_old.id, other.id]
    assert len(await store.chat_sessions(new)) == 3


async def test_migrate_chat_keeps_session_numbers_one_per_session(store: Store) -> None:
    old, new = 10, 20
    for variant in ("luzhou", "cixi"):
        await store.end_session((await store.start_session(old, variant, {})).id)
    s_new = await store.start_session(new, "guiyang", {})  # the supergroup's own "session 1"
    await store.migrate_chat(old, new)
    numbered = {s.variant: s.number for s in await store.chat_sessions(new, include_settled=True)}
    assert numbered == {"luzhou": 1, "cixi": 2, "guiyang": 3}
    assert (await store.get_session(s_new.id)).number == 3
    assert (await store.start_session(old, "luzhou", {})).number == 1  # the old id: none left


async def test_migrate_unknown_chat_is_harmless(store: Store) -> None:
    chat = await store.migrate_chat(111, 222)
    assert chat.id == 222
    async with store._sessions() as s:
        assert await s.scalar(select(func.count()).select_from(M.Chat)) == 1


async def test_a_question_is_answered_once_by_any_store(store: Store, other_store: Store) -> None:
    await store.ensure_chat(1)
    assert await store.answer_once(1, 77) is True
    assert await other_store.answer_once(1, 77) is False  # another worker: already answered
    assert await store.answer_once(1, 78) is True and await store.answer_once(2, 77) is True
