"""Migrations from an empty database: the Alembic command line from the repository root, the
bot's own upgrade on start (from any working directory), and models matching migrations."""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest
from alembic import op
from alembic.autogenerate import compare_metadata
from alembic.migration import MigrationContext
from alembic.script import ScriptDirectory
from sqlalchemy import inspect, text

from db import SeatedElsewhere, Store
from db.config import DEFAULT_URL, async_url, database_url, make_engine
from db.models import Base
from db.store import alembic_config

from .helpers import stored_at_first_revision

ROOT = Path(__file__).resolve().parents[2]
TABLES = {"chats", "people", "sessions", "session_totals", "hands", "hand_voids", "ledger_entries",
          "stints", "stint_patterns", "payments", "drafts", "alembic_version", "seat_stats",
          "seat_patterns", "level_totals",
          "hand_buckets", "handled_updates"}
HEAD = ScriptDirectory.from_config(alembic_config()).get_current_head()


def alembic(url: str, *args: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "DATABASE_URL": url}
    return subprocess.run([sys.executable, "-m", "alembic", *args], cwd=ROOT, env=env,
                          capture_output=True, text=True, timeout=120)


async def tables_and_version(url: str) -> tuple[set[str], str | None]:
    engine = make_engine(url)
    try:
        async with engine.connect() as conn:
            tables = set(await conn.run_sync(lambda c: inspect(c).get_table_names()))
            version = None
            if "alembic_version" in tables:
                version = (await conn.execute(text("SELECT version_num FROM alembic_version"))).scalar()
            return tables, version
    finally:
        await engine.dispose()


async def test_alembic_upgrade_head_from_empty(db_url: str) -> None:
    assert await tables_and_version(db_url) == (set(), None)
    done = alembic(db_url, "upgrade", "head")
    assert done.returncode == 0, done.stderr
    assert await tables_and_version(db_url) == (TABLES, HEAD)
    again = alembic(db_url, "upgrade", "head")  # already at head: nothing to do
    assert again.returncode == 0, again.stderr


async def test_alembic_downgrade_to_empty_and_back(db_url: str) -> None:
    assert alembic(db_url, "upgrade", "head").returncode == 0
    down = alembic(db_url, "downgrade", "base")
    assert down.returncode == 0, down.stderr
    assert await tables_and_version(db_url) == ({"alembic_version"}, None)
    assert alembic(db_url, "upgrade", "head").returncode == 0
    assert (await tables_and_version(db_url))[1] == HEAD


async def test_models_match_migrations(db_url: str) -> None:
    store = await Store.open(db_url)
    try:
        async with store.engine.connect() as conn:
            diff = await conn.run_sync(lambda c: compare_metadata(
                MigrationContext.configure(c, opts={"compare_type": True}), Base.metadata))
    finally:
        await store.close()
    assert diff == [], "models and migrations differ: add a migration"


async def test_store_open_migrates_from_any_directory(db_url: str, tmp_path: Path) -> None:
    # The bot upgrades on start without alembic.ini in its working directory.
    code = ("import asyncio, sys\nfrom db import Store\n"
            "async def main():\n    s = await Store.open(sys.argv[1])\n    await s.close()\n"
            "asyncio.run(main())\n")
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    done = subprocess.run([sys.executable, "-c", code, db_url], cwd=tmp_path, env=env,
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert await tables_and_version(db_url) == (TABLES, HEAD)
    assert not (tmp_path / "mjledger.sqlite3").exists()


async def test_two_processes_starting_at_once_migrate_once(db_url: str) -> None:
    stores = await asyncio.gather(*(Store.open(db_url) for _ in range(3)))
    try:
        assert await tables_and_version(db_url) == (TABLES, HEAD)
        assert (await stores[0].ensure_chat(1)).id == 1
    finally:
        for store in stores:
            await store.close()


async def test_new_sqlite_files_opened_at_once_all_open(tmp_path: Path) -> None:
    # Switching a new file to WAL does not wait for other connections' locks; it used to
    # fail now and then with "database is locked" when workers started together.
    async def open_close(url: str) -> None:
        store = await Store.open(url)
        await store.close()

    for i in range(30):
        url = f"sqlite:///{tmp_path}/new{i}.sqlite3"
        await asyncio.gather(*(open_close(url) for _ in range(3)))
        assert await tables_and_version(url) == (TABLES, HEAD)


async def test_a_failed_migration_leaves_no_half_schema(db_url: str, monkeypatch: pytest.MonkeyPatch) -> None:
    real = op.create_table
    made: list[str] = []

    def create_then_fail(name: str, *args: Any, **kw: Any) -> Any:
        if made:  # the second table fails
            raise RuntimeError("disk full")
        made.append(name)
        return real(name, *args, **kw)

    monkeypatch.setattr(op, "create_table", create_then_fail)
    with pytest.raises(RuntimeError):
        await Store.open(db_url)
    monkeypatch.undo()
    assert made and (await tables_and_version(db_url))[0] == set()


async def test_open_twice_and_without_migrating(db_url: str) -> None:
    for _ in range(2):
        store = await Store.open(db_url)
        assert await store.ping()
        await store.close()
    store = await Store.open(db_url, migrate=False)
    try:
        assert (await store.ensure_chat(1)).id == 1
    finally:
        await store.close()


async def test_ping_is_false_when_the_database_is_unreachable() -> None:
    store = await Store.open("postgresql://nobody@127.0.0.1:1/none", migrate=False)  # closed port
    try:
        assert await store.ping() is False
    finally:
        await store.close()


def test_default_url_is_a_sqlite_file_in_the_working_directory(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("DATABASE_URL", raising=False)
    assert database_url() == DEFAULT_URL == "sqlite+aiosqlite:///mjledger.sqlite3"
    monkeypatch.setenv("DATABASE_URL", "postgresql://u@h/db")
    assert database_url() == "postgresql://u@h/db"
    assert database_url("sqlite:///x.db") == "sqlite:///x.db"


@pytest.mark.parametrize(("given", "expected"), [
    ("sqlite:///a.sqlite3", "sqlite+aiosqlite:///a.sqlite3"),
    ("sqlite+aiosqlite:///a.sqlite3", "sqlite+aiosqlite:///a.sqlite3"),
    ("postgresql://u:p@h:5432/db", "postgresql+asyncpg://u:p@h:5432/db"),
    ("postgres://u:p@h/db", "postgresql+asyncpg://u:p@h/db"),
    ("postgresql+psycopg2://u@h/db", "postgresql+asyncpg://u@h/db"),
    ("postgresql://u@h/db?sslmode=require", "postgresql+asyncpg://u@h/db?ssl=require"),
])
def test_plain_urls_get_async_drivers(given: str, expected: str) -> None:
    assert async_url(given).render_as_string(hide_password=False) == expected


def test_other_databases_are_refused() -> None:
    with pytest.raises(ValueError, match="mysql"):
        async_url("mysql://u@h/db")


async def test_default_store_is_a_file_in_the_working_directory(tmp_path: Path,
                                                                monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("DATABASE_URL", raising=False)
    monkeypatch.chdir(tmp_path)
    store = await Store.open()
    try:
        await store.ensure_chat(1)
    finally:
        await store.close()
    assert (tmp_path / "mjledger.sqlite3").exists()
    assert await tables_and_version(f"sqlite:///{tmp_path / 'mjledger.sqlite3'}") == (TABLES, HEAD)


# -- 0002: sessions keep the rules they were played with --------------------------------------

async def _store_at_0001(db_url: str) -> Store:
    done = alembic(db_url, "upgrade", "0001")
    assert done.returncode == 0, done.stderr
    return await Store.open(db_url, migrate=False)


async def test_0002_writes_revision_1_rules_into_stored_sessions_and_hands(db_url: str) -> None:
    from scoring import score

    store = await _store_at_0001(db_url)
    try:
        # a Luzhou hand as revision 1 scored it: 清闺对 (80) off a discard, each payment capped
        # after halving: 40 (revision 2's default caps the value first: 20)
        big = {"type": "win", "by": "discard", "from": 1,
               "winners": [{"seat": 0, "form": "all_pungs", "pure": True, "quads": 1}]}
        end = {"type": "exhausted", "ready": {"1": {}, "2": {}, "3": {}}}
        record = {"variant": "luzhou", "rules": {}, "dealer": 0, "dealer_streak": 1,
                  "round_wind": 0, "events": [big, end]}
        outcome = {**score(record).to_dict(), "deltas": [40, -40, 0, 0]}
        luzhou = SimpleNamespace(id=await stored_at_first_revision(store, 1, "luzhou", {},
                                                                   [(record, outcome)]))
        # a table's own choice stays: Hainan with discarder_extra 2; revision 1 voided kongs on
        # an exhausted wall
        kong_then_empty = {"variant": "hainan", "rules": {"discarder_extra": 2},
                           "events": [{"type": "kong", "seat": 1, "kind": "concealed"},
                                      {"type": "exhausted"}]}
        hainan = SimpleNamespace(id=await stored_at_first_revision(
            store, 2, "hainan", {"discarder_extra": 2},
            [(kong_then_empty, score({**kong_then_empty, "rules": {
                "discarder_extra": 2, "kongs_on_exhausted": "void"}}).to_dict())]))
    finally:
        await store.close()

    done = alembic(db_url, "upgrade", "head")
    assert done.returncode == 0, done.stderr
    store = await Store.open(db_url)
    try:
        lz = await store.get_session(luzhou.id)
        assert lz.rules["cap_applies"] == "payment" and lz.rules["cap"] == 40
        assert lz.rules["flower_cat"] == "not_ready" and lz.rules["kong_discard_steps"] == 2
        hn = await store.get_session(hainan.id)
        assert hn.rules == {"discarder_extra": 2, "dealer_extra": 0, "exposed_kong_discarder": 0,
                            "self_draw_needs_fan": True, "concealed_kong_keeps_menqing": True,
                            "kongs_on_exhausted": "void"}
        # every stored hand scores again to what was stored, under today's scoring
        for sid in (luzhou.id, hainan.id):
            hand = await store.last_hand(sid)
            assert hand is not None
            assert score(hand.record).to_dict()["deltas"] == hand.outcome["deltas"]
        stored = await store.last_hand(luzhou.id)
        assert stored is not None and stored.record["rules"]["cap_applies"] == "payment"
    finally:
        await store.close()

    # downgrading takes out what revision 1 did not know, keeping the rest
    done = alembic(db_url, "downgrade", "0001")
    assert done.returncode == 0, done.stderr
    store = await Store.open(db_url, migrate=False)
    try:
        async with store.engine.connect() as conn:  # today's Session model has later columns
            rules = (await conn.execute(text("SELECT rules FROM sessions WHERE id = :i"),
                                        {"i": luzhou.id})).scalar_one()
        assert "cap_applies" not in (json.loads(rules) if isinstance(rules, str) else rules)
        hand = await store.last_hand(hainan.id)
        assert hand is not None and "kongs_on_exhausted" not in hand.record["rules"]
        assert hand.record["rules"]["discarder_extra"] == 2
    finally:
        await store.close()


async def test_0007_numbers_each_chats_sessions_in_order(db_url: str) -> None:
    done = alembic(db_url, "upgrade", "0006_hand_effects")
    assert done.returncode == 0, done.stderr
    engine = make_engine(db_url)
    try:
        async with engine.begin() as conn:
            for chat in (-1, -2):
                await conn.execute(text("INSERT INTO chats (id, house_rules, created_at) "
                                        "VALUES (:c, '{}', CURRENT_TIMESTAMP)"), {"c": chat})
            for chat in (-1, -2, -1, -1, -2):  # ids 1-5, the chats taking turns
                await conn.execute(text(
                    "INSERT INTO sessions (chat_id, variant, rules, stake_cents, started_at, "
                    "ended_at, hand_count) VALUES (:c, 'guiyang', '{}', 0, CURRENT_TIMESTAMP, "
                    "CURRENT_TIMESTAMP, 0)"), {"c": chat})
            await conn.execute(text("INSERT INTO session_totals (session_id, seat, points) "
                                    "VALUES (1, 0, 0)"))  # a row that refers to a session
    finally:
        await engine.dispose()
    done = alembic(db_url, "upgrade", "head")
    assert done.returncode == 0, done.stderr
    store = await Store.open(db_url)
    try:
        numbered = {chat: [(s.id, s.number) for s in await store.chat_sessions(
            chat, include_settled=True)] for chat in (-1, -2)}
        assert sorted(numbered[-1]) == [(1, 1), (3, 2), (4, 3)]
        assert sorted(numbered[-2]) == [(2, 1), (5, 2)]
        new = await store.start_session(-2, "luzhou", {})  # the data keeps working
        assert new.number == 3
        assert (await store.start_session(-3, "luzhou", {})).number == 1  # a new chat's first
    finally:
        await store.close()
    done = alembic(db_url, "downgrade", "0006_hand_effects")
    assert done.returncode == 0, done.stderr
    assert "number" not in {c["name"] for c in await _columns(db_url, "sessions")}


async def _columns(db_url: str, table: str) -> list[dict[str, Any]]:
    engine = make_engine(db_url)
    try:
        async with engine.connect() as conn:
            return await conn.run_sync(lambda c: inspect(c).get_columns(table))
    finally:
        await engine.dispose()


async def _books(store: Store, chat_id: int) -> dict[str, Any]:
    """What /table, /history, /settle and /export show of the chat's sessions, as bytes."""
    from bot.chat.settle import settlement
    from bot.chat.table import history_blocks, seat_names, table_lines
    from bot.view.export import session_files
    from bot.view.i18n import translator

    shown: dict[str, Any] = {}
    for lang in ("en", "zh-Hans"):
        t = translator(lang)
        shown[f"settle {lang}"] = (await settlement(store, chat_id, t, lang, None)).text
        for session in await store.chat_sessions(chat_id, include_settled=True):
            key = f"{session.number} {lang}"
            shown[f"table {key}"] = await table_lines(store, session, t, lang)
            shown[f"history {key}"] = await history_blocks(store, session, t, lang, 20)
            names = [n or "?" for n in await seat_names(store, session)]
            shown[f"export {key}"] = await session_files(store, session, names)
    return shown


async def test_0008_keeps_every_chats_books_and_lets_a_chat_run_two_tables(db_url: str) -> None:
    """A chat with an ended and a running session: the chat can run a second table beside it,
    and going back down past 0008 is refused until only one runs, then keeps the books. (That
    books written before 0008 read the same after it, byte for byte, is
    tests/db/test_books_survive_0009.py: a database written by that code, migrated to the
    newest revision, as the store of today cannot write at 0007.)"""
    from scoring import score

    store = await Store.open(db_url)
    chat = -1008
    try:
        people = [await store.add_guest(chat, name) for name in ("Ann", "鲍勃", "Cy", "Di")]
        base = {"variant": "hainan", "rules": {}, "dealer": 0, "dealer_streak": 1, "round_wind": 0}
        for number, stake in ((1, 50), (2, 0)):
            session = await store.start_session(chat, "hainan", {}, stake_cents=stake)
            for seat, person in enumerate(people):
                await store.seat_player(session.id, seat, person.id)
            for i, seat in enumerate((0, 1, 2)):
                rec = {**base, "events": [{"type": "win", "by": "self_draw", "winners": [{"seat": seat}]}]}
                await store.record_hand(session.id, rec, score(rec).to_dict(), entered_by=None,
                                        idempotency_key=f"m{number}:{i}")
            last = await store.last_hand(session.id)
            assert last is not None
            await store.void_hand(last.id, by=None, reason="typo")
            if number == 1:
                await store.end_session(session.id)
        before = await _books(store, chat)
    finally:
        await store.close()
    store = await Store.open(db_url)
    try:
        assert await _books(store, chat) == before
        assert [s.number for s in await store.running_sessions(chat)] == [2]
        second = await store.start_session(chat, "hainan", {}, another=True)
        assert [s.number for s in await store.running_sessions(chat)] == [2, 3]
        with pytest.raises(SeatedElsewhere) as refused:  # Ann sits at table 2
            await store.seat_player(second.id, 0, people[0].id)
        assert refused.value.number == 2
    finally:
        await store.close()
    down = alembic(db_url, "downgrade", "0008_tables_in_one_chat")  # past the seats' 0009
    assert down.returncode == 0, down.stderr
    down = alembic(db_url, "downgrade", "0007_session_numbers")
    assert down.returncode != 0 and "several running tables" in down.stderr
    store = await Store.open(db_url)  # up again: the store of today reads the newest revision
    try:
        await store.end_session(second.id)
    finally:
        await store.close()
    down = alembic(db_url, "downgrade", "0007_session_numbers")
    assert down.returncode == 0, down.stderr
