"""The export keeper (bot/export_keeper.py) against a real store, SQLite and PostgreSQL: after
a chat's bookings and the debounce, the session's cache holds exactly what an export from
scratch holds (hands, undos, stake); caches are evicted under the cap and removed when their
session is gone; start-up catches up stale caches, running sessions first; a failure changes
nothing and is tried again."""

from __future__ import annotations

import errno
import random
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest

from bot.chat.table import seat_names
from bot.export_cache import SessionCache, cache_for, export_files, is_current
from bot.export_keeper import ExportKeeper
from db import DatabaseUnavailable, HandToImport, Store
from tests.databases import BACKENDS, fresh_database
from tests.db.helpers import seated_session
from tests.db.test_aggregates import luzhou_hand


@pytest.fixture(params=BACKENDS)
async def store(request: pytest.FixtureRequest, tmp_path: Path) -> AsyncIterator[Store]:
    async with fresh_database(request.param, tmp_path) as url:
        s = await Store.open(url)
        try:
            yield s
        finally:
            await s.close()


async def run_until_idle(keeper: ExportKeeper, timeout: float = 60) -> None:
    """Start the keeper, let it finish what it found to do, stop it."""
    keeper.start()
    try:
        await keeper.wait_idle(timeout)
    finally:
        await keeper.stop()


@pytest.fixture
async def keeper(store: Store, tmp_path: Path) -> AsyncIterator[ExportKeeper]:
    k = ExportKeeper(store, tmp_path / "kept", 2**30, delay=0.05, max_delay=1.0, retry=0.1,
                     start_delay=0, step=3)  # steps of 3 hands: a refresh takes several
    k.start()
    await k.wait_idle(30)
    yield k
    await k.stop()


async def add_hands(store: Store, session_id: int, n: int, seed: int = 1) -> None:
    rng = random.Random(seed)
    for i in range(n):
        record, outcome = luzhou_hand(rng)
        await store.record_hand(session_id, record, outcome, entered_by=None,
                                idempotency_key=f"k:{session_id}:{seed}:{i}")


async def names_of(store: Store, session: Any) -> list[str]:
    return [n or "?" for n in await seat_names(store, session)]


async def kept_files(store: Store, session_id: int, root: Path, out: Path) -> list[bytes]:
    """The export files as the cache holds them, without bringing it up to date: it must be."""
    session = await store.get_session(session_id)
    cache = cache_for(root, session, await names_of(store, session))
    hand_count, live = await store.export_mark(session_id)
    assert is_current(cache, hand_count, live)
    cache.load()
    out.mkdir()
    return [p.read_bytes() for p in cache.write_files(out, "x", session.variant, session.rules)]


async def scratch_files(store: Store, session_id: int, tmp: Path) -> list[bytes]:
    """The export files written from nothing (a new cache directory: every hand read)."""
    session = await store.get_session(session_id)
    out = tmp / "scratch-out"
    out.mkdir(parents=True)
    paths = await export_files(store, session, await names_of(store, session), tmp / "scratch",
                               out, "x")
    return [p.read_bytes() for p in paths]


def cache_files(root: Path, session_id: int) -> list[str]:
    return sorted(p.name for p in root.glob(f"session-{session_id}.*") if not p.name.endswith(".lock"))


async def test_bookings_then_the_debounce_leave_the_cache_as_a_fresh_export(
        store: Store, keeper: ExportKeeper, tmp_path: Path) -> None:
    session = await seated_session(store, -1001, stake_cents=25)
    await add_hands(store, session.id, 10)
    await keeper.wait_idle(30)
    assert cache_files(keeper.root, session.id) == []  # nothing marked: nothing written
    keeper.mark_chat(-1001)
    await keeper.wait_idle(30)
    assert keeper.refreshed == 1
    assert await kept_files(store, session.id, keeper.root, tmp_path / "a") == \
        await scratch_files(store, session.id, tmp_path / "s1")

    # more hands, a hand undone that the cache holds, another stake: each is followed
    hand = (await store.history(session.id, limit=1, before_seq=4))[0]
    await store.void_hand(hand.id, by=None, reason="typo")
    await add_hands(store, session.id, 4, seed=2)
    keeper.mark_chat(-1001)
    await keeper.wait_idle(30)
    kept = await kept_files(store, session.id, keeper.root, tmp_path / "b")
    assert kept == await scratch_files(store, session.id, tmp_path / "s2")
    assert b'"seq": 3, "voided": true, "void_reason": "typo"' in kept[1]

    await store.set_stake(session.id, 50)
    keeper.mark_chat(-1001)
    await keeper.wait_idle(30)
    kept = await kept_files(store, session.id, keeper.root, tmp_path / "c")
    assert kept == await scratch_files(store, session.id, tmp_path / "s3")
    assert keeper.refreshed == 3 and keeper.failures == 0

    # the files an /export sends now come from the cache as it is: no hand is read
    reads: list[int] = []
    real = store.iter_hands

    def spy(*args: Any, **kwargs: Any) -> Any:
        reads.append(kwargs.get("after", 0))
        return real(*args, **kwargs)

    store.iter_hands = spy  # type: ignore[method-assign]
    out = tmp_path / "export"
    out.mkdir()
    fresh = await store.get_session(session.id)
    await export_files(store, fresh, await names_of(store, fresh), keeper.root, out, "x")
    assert reads == []


async def test_a_long_build_runs_in_a_process_of_its_own_with_the_same_bytes(
        store: Store, keeper: ExportKeeper, tmp_path: Path) -> None:
    session = await seated_session(store, -1001, stake_cents=5, names=("Ann", "卡罗", "<b>&", "Di"))
    await add_hands(store, session.id, 12)
    keeper.spawn_above = 5  # more than 5 hands to write: the child process writes them
    children: list[int] = []
    build = keeper._build_in_child

    async def spy(url: Any, session: Any, names: list[str]) -> None:
        children.append(session.id)
        await build(url, session, names)

    keeper._build_in_child = spy  # type: ignore[method-assign]
    keeper.mark_chat(-1001)
    await keeper.wait_idle(60)
    assert keeper.refreshed == 1 and keeper.failures == 0 and children == [session.id]
    assert await kept_files(store, session.id, keeper.root, tmp_path / "a") == \
        await scratch_files(store, session.id, tmp_path / "s1")
    hand = (await store.history(session.id, limit=1, before_seq=3))[0]
    await store.void_hand(hand.id, by=None, reason="typo")  # then a few more: in this process
    await add_hands(store, session.id, 2, seed=4)
    keeper.mark_chat(-1001)
    await keeper.wait_idle(60)
    assert children == [session.id]  # 2 hands and a void: written here
    assert await kept_files(store, session.id, keeper.root, tmp_path / "b") == \
        await scratch_files(store, session.id, tmp_path / "s2")


async def test_an_imported_session_is_kept_too(store: Store, keeper: ExportKeeper,
                                               tmp_path: Path) -> None:
    rng = random.Random(5)
    hands = [HandToImport(*luzhou_hand(rng)) for _ in range(7)]
    hands[2] = HandToImport(hands[2].record, hands[2].outcome, True, "wrong seat")
    session = await store.import_session(-1002, "luzhou", {}, stake_cents=10,
                                         players=["A", "B", "C", "D"], hands=hands,
                                         imported_by=None, key_prefix="imp")
    keeper.mark_chat(-1002)
    await keeper.wait_idle(30)
    assert await kept_files(store, session.id, keeper.root, tmp_path / "a") == \
        await scratch_files(store, session.id, tmp_path)


async def test_least_recently_written_caches_go_over_the_cap_and_come_back_on_export(
        store: Store, keeper: ExportKeeper, tmp_path: Path) -> None:
    first = await seated_session(store, -1001)
    second = await seated_session(store, -1002)
    await add_hands(store, first.id, 6)
    await add_hands(store, second.id, 6, seed=3)
    keeper.mark_chat(-1001)
    await keeper.wait_idle(30)
    assert cache_files(keeper.root, first.id) != []
    keeper.cap = 1  # smaller than any cache: all but the one just written go
    keeper.mark_chat(-1002)
    await keeper.wait_idle(30)
    assert cache_files(keeper.root, first.id) == []
    assert cache_files(keeper.root, second.id) != []
    # the evicted session's next /export rebuilds its cache from every hand
    out = tmp_path / "again"
    out.mkdir()
    session = await store.get_session(first.id)
    paths = await export_files(store, session, await names_of(store, session), keeper.root, out, "x")
    assert [p.read_bytes() for p in paths] == await scratch_files(store, first.id, tmp_path)


async def test_caches_of_sessions_that_are_gone_are_removed(
        store: Store, keeper: ExportKeeper) -> None:
    session = await seated_session(store, -1001)
    await add_hands(store, session.id, 3)
    keeper.mark_chat(-1001)
    await keeper.wait_idle(30)
    gone = 10_000 + session.id  # a session this database never had (another database's, lost)
    for suffix in (".csv.gz", ".json.gz", ".meta", ".lock"):
        (keeper.root / f"session-{gone}{suffix}").write_bytes(b"old")
    (keeper.root / "notes.txt").write_text("not a cache")
    await keeper.sweep()
    assert list(keeper.root.glob(f"session-{gone}.*")) == []
    assert cache_files(keeper.root, session.id) != []
    assert (keeper.root / "notes.txt").exists()


async def test_start_up_catches_up_missing_and_stale_caches_running_sessions_first(
        store: Store, tmp_path: Path) -> None:
    older = await seated_session(store, -1001)
    await add_hands(store, older.id, 4)
    await store.end_session(older.id)
    newer = await seated_session(store, -1002)
    await add_hands(store, newer.id, 5, seed=2)
    await store.end_session(newer.id)
    running = await seated_session(store, -1003)
    await add_hands(store, running.id, 3, seed=3)
    empty = await seated_session(store, -1004)  # no hands: nothing to keep
    root = tmp_path / "kept"
    # the newer session's cache is stale: written before its last two hands were voided
    session = await store.get_session(newer.id)
    (tmp_path / "o").mkdir()
    await export_files(store, session, await names_of(store, session), root, tmp_path / "o", "x")
    for hand in (await store.history(newer.id, limit=2)):
        await store.void_hand(hand.id, by=None, reason="typo")

    keeper = ExportKeeper(store, root, 2**30, start_delay=0, step=2)
    order: list[int] = []
    refresh = keeper.refresh

    async def spy(session: Any) -> bool:
        wrote = await refresh(session)
        if wrote:
            order.append(session.id)
        return wrote

    keeper.refresh = spy  # type: ignore[method-assign]
    await run_until_idle(keeper)
    assert order == [running.id, newer.id, older.id]
    for i, sid in enumerate((older.id, newer.id, running.id)):
        assert await kept_files(store, sid, root, tmp_path / f"k{i}") == \
            await scratch_files(store, sid, tmp_path / f"s{i}")
    assert cache_files(root, empty.id) == []


@pytest.mark.parametrize("fault", ["disk full", "database down"])
async def test_a_failure_changes_nothing_and_is_tried_again(
        store: Store, keeper: ExportKeeper, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        fault: str) -> None:
    session = await seated_session(store, -1001)
    await add_hands(store, session.id, 5)
    keeper.mark_chat(-1001)
    await keeper.wait_idle(30)

    def files() -> list[tuple[str, bytes]]:
        return sorted((p.name, p.read_bytes()) for p in keeper.root.iterdir())

    before = files()
    await add_hands(store, session.id, 5, seed=9)
    calls = 0
    at_retry: list[tuple[str, bytes]] = []

    def fail_first() -> None:
        nonlocal calls, at_retry
        calls += 1
        if calls == 1:
            if fault == "disk full":
                raise OSError(errno.ENOSPC, "No space left on device")
            raise DatabaseUnavailable("the database is down")
        if calls == 2:  # the keeper tries again by itself: what did the failure leave?
            at_retry = files()

    if fault == "disk full":
        real_append = SessionCache.append

        def append(self: SessionCache, hands: Any) -> int:
            fail_first()
            return real_append(self, hands)

        monkeypatch.setattr(SessionCache, "append", append)
    else:
        real_mark = store.export_mark

        async def export_mark(session_id: int) -> tuple[int, int]:
            fail_first()
            return await real_mark(session_id)

        monkeypatch.setattr(store, "export_mark", export_mark)
    keeper.mark_chat(-1001)
    await keeper.wait_idle(30)
    assert keeper.failures == 1 and calls >= 2
    assert at_retry == before  # the failure changed nothing
    assert await kept_files(store, session.id, keeper.root, tmp_path / "a") == \
        await scratch_files(store, session.id, tmp_path)


def test_the_cap_setting() -> None:
    from bot.plumbing.config import ConfigError, Settings

    assert Settings.from_env({"TELEGRAM_BOT_TOKEN": "1:x"}).export_cache_mb == 256
    assert Settings.from_env({"TELEGRAM_BOT_TOKEN": "1:x", "EXPORT_CACHE_MB": "64"}).export_cache_mb == 64
    for bad in ("0", "-5", "1.5", "lots", "１２"):
        with pytest.raises(ConfigError, match="EXPORT_CACHE_MB"):
            Settings.from_env({"TELEGRAM_BOT_TOKEN": "1:x", "EXPORT_CACHE_MB": bad})


async def test_a_session_failing_in_the_catch_up_holds_up_no_other(
        store: Store, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    sessions = []
    for chat in (-1001, -1002, -1003):
        session = await seated_session(store, chat)
        await add_hands(store, session.id, 3, seed=-chat)
        await store.end_session(session.id)
        sessions.append(session.id)
    written: list[int] = []
    real_append = SessionCache.append

    def append(self: SessionCache, hands: Any) -> int:
        if not written and hands[0].seq == 1 and f"session-{sessions[2]}." in str(self.csv_path):
            written.append(0)  # the first session it takes (the last ended) fails, once
            raise ValueError("a hand it cannot write")
        return real_append(self, hands)

    monkeypatch.setattr(SessionCache, "append", append)
    keeper = ExportKeeper(store, tmp_path / "kept", 2**30, start_delay=0, retry=0.2)
    order: list[int] = []
    refresh = keeper.refresh

    async def spy(session: Any) -> bool:
        order.append(session.id)
        return await refresh(session)

    keeper.refresh = spy  # type: ignore[method-assign]
    await run_until_idle(keeper)
    assert keeper.failures == 1
    # the failing one first, the others after it, then it again
    assert order[:3] == [sessions[2], sessions[1], sessions[0]] and order[3] == sessions[2]
    for i, sid in enumerate(sessions):
        assert await kept_files(store, sid, keeper.root, tmp_path / f"k{i}") == \
            await scratch_files(store, sid, tmp_path / f"s{i}")
