"""The restore drill. Books are written through the bot as players write them (hands, an undo,
a stake, an end, a payment waiting for its payee and one counted, an import), in three chats
taking turns, while `mjledger backup` (and on PostgreSQL compose's backup service, the script
deploy/backup.sh) copies the database again and again. A copy is restored into an empty
database and migrated to the newest schema; the bot started on it answers /table, /history,
/settle and /export (the files byte for byte) in every chat exactly as the original answered at
one moment of the writing: the copy is one consistent state, never half of an update. A copy
taken after the writing answers as the original's final books; so does a copy of a database
at the schema before the newest migration, restored and upgraded."""

from __future__ import annotations

import asyncio
import os
import signal
import time
from collections.abc import AsyncIterator
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy.engine import make_url

from bot.runner import serve
from db.backup import revisions
from tests.databases import BACKENDS
from tests.db.test_migrations import alembic
from tests.e2e.conftest import settings_for
from tests.e2e.table import TIMEOUT, Table
from tests.e2e.test_books import upload
from tests.fake_telegram import FakeTelegram
from tests.faults.test_books_kills import import_file

from .conftest import ROOT, mjledger, run

COMMANDS = ("/table", "/history", "/settle", "/export")
Answers = dict[int, list[list[tuple[Any, ...]]]]  # chat id → what each command got back


def three_chats(tg: FakeTelegram) -> list[Table]:
    friends = [tg.user(201, "Alice", "alice"), tg.user(202, "Bob", "bob"),
               tg.user(203, "Carol", "carol"), tg.user(204, "Dan", "dan")]
    return [Table(tg, tg.group(day), friends) for day in ("Monday", "Tuesday", "Wednesday")]


async def play(tg: FakeTelegram, monday: Table, tuesday: Table, wednesday: Table
               ) -> AsyncIterator[Table]:
    """The books, one update at a time: yields the chat of each update once it was answered."""
    alice, bob, carol, dan = monday.players
    for table in (monday, wednesday):
        lobby = await table.say(alice, "/new guiyang")
        yield table
        for player in table.players:
            assert not (await table.tap(player, lobby, "Join")).get("show_alert")
            yield table
    assert "0.50" in (await monday.say(alice, "/stake 0.5")).text
    yield monday

    async def hand(table: Table, user: dict[str, Any], seat: int) -> AsyncIterator[Table]:
        preview = await table.say(user, f"/hu {seat} zimo")  # a draft, waiting for Confirm
        yield table
        assert not (await table.tap(user, preview, "Confirm")).get("show_alert")
        yield table

    for table, user, seat in ((monday, bob, 1), (wednesday, carol, 2), (monday, alice, 0)):
        async for touched in hand(table, user, seat):
            yield touched
    tg.set_admins(tuesday.chat_id, [alice])
    assert "Imported 3 hands" in await upload(tg, tuesday, alice, import_file())
    yield tuesday
    assert "Hand 2 undone" in (await monday.say(alice, "/undo typo")).text
    yield monday
    async for touched in hand(monday, carol, 2):
        yield touched
    assert "Session over" in (await monday.say(alice, "/end")).text
    yield monday
    assert "Pending" in (await monday.say(alice, "/paid @bob 12.5")).text  # waits for Bob
    yield monday
    assert "Payment of 3.00 recorded" in (await monday.say(bob, "/paid from @carol 3")).text
    yield monday


async def answers(tg: FakeTelegram, table: Table) -> list[list[tuple[Any, ...]]]:
    """What the bot sends the chat for each of COMMANDS: every message's text, buttons and
    files (names and bytes)."""
    out = []
    for command in COMMANDS:
        mark = len(tg.requests)
        await tg.send_message(table.chat, table.players[3], command)

        def sent(command: str = command, mark: int = mark) -> list[Any] | None:
            mine = [r for r in tg.requests[mark:] if r.ok and r.method in ("sendMessage", "sendDocument")
                    and str(r.params.get("chat_id")) == str(table.chat_id)]
            files = [r for r in mine if r.method == "sendDocument"]
            if command == "/export" and files:  # the CSV, then the JSON
                return mine if len(files) == 2 else None
            return mine or None

        out.append([(r.method, r.params.get("text") or r.params.get("caption"),
                     r.params.get("reply_markup"), sorted((f.filename, f.data) for f in r.files.values()))
                    for r in await tg.wait_for(sent, TIMEOUT)])
    return out


async def answers_on(tg: FakeTelegram, url: str, chats: list[Table]) -> Answers:
    """The bot started on `url` (migrating it, as it does), asked about every chat."""
    async with serve(settings_for(tg, url), poll_timeout=1):
        return {table.chat_id: await answers(tg, table) for table in chats}


@dataclass(frozen=True)
class Copy:
    path: Path
    began: int  # updates answered when the backup started
    ended: int  # … and when it had finished


async def backups_meanwhile(url: str, folder: Path, done: list[int], stop: asyncio.Event) -> list[Copy]:
    """`mjledger backup` again and again until `stop`, then once more (the final books)."""
    folder.mkdir()
    copies: list[Copy] = []
    while True:
        last = stop.is_set()
        began, path = done[0], folder / f"copy{len(copies)}.backup"
        ran = await mjledger("backup", str(path), "--database", url)
        assert ran.code == 0 and ran.err == "", ran
        assert ran.out.startswith(f"mjledger backup: wrote {path}"), ran.out
        copies.append(Copy(path, began, done[0]))
        if last:
            return copies


def libpq_env(url: str) -> dict[str, str]:
    """The PG* variables compose gives the backup service, for the database of `url`."""
    u = make_url(url)
    env = {"PGHOST": u.host or "127.0.0.1", "PGPORT": str(u.port or 5432),
           "PGUSER": u.username or "postgres", "PGDATABASE": u.database or ""}
    return env | ({"PGPASSWORD": str(u.password)} if u.password else {})


def restore_env(url: str) -> dict[str, str]:
    """libpq_env, and the bot's migrations where compose mounts them for `backup.sh restore`."""
    return libpq_env(url) | {"BACKUP_MIGRATIONS": str(ROOT / "db" / "migrations" / "versions")}


async def start_script(url: str, folder: Path) -> asyncio.subprocess.Process:
    """compose's backup service (deploy/backup.sh, its loop) on the database of `url`: a copy
    every second."""
    env = {**os.environ, **libpq_env(url), "BACKUP_DIR": str(folder), "BACKUP_INTERVAL": "1",
           "BACKUP_KEEP": "1000"}
    return await asyncio.create_subprocess_exec(
        "sh", str(ROOT / "deploy" / "backup.sh"), env=env,
        stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE)


def stamp(when: float) -> str:
    return datetime.fromtimestamp(when, UTC).strftime("%Y%m%dT%H%M%SZ")


async def script_copy_after(folder: Path, when: float) -> Path:
    """The first copy the script started in a later second than `when`."""
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        later = sorted(p for p in folder.glob("mjledger-*.dump") if p.name[9:25] > stamp(when))
        if later:
            return later[0]
        await asyncio.sleep(0.2)
    raise AssertionError(f"no copy after {stamp(when)}: {sorted(folder.iterdir())}")


@pytest.mark.parametrize("backend", BACKENDS)
async def test_a_copy_taken_while_the_books_are_written_restores_to_the_same_answers(
        tg: FakeTelegram, new_database: Any, tmp_path: Path, backend: str) -> None:
    source = await new_database(backend)
    chats = three_chats(tg)
    done, stop = [0], asyncio.Event()
    script_dir = tmp_path / "script"
    async with serve(settings_for(tg, source), poll_timeout=1):
        states = [{table.chat_id: await answers(tg, table) for table in chats}]
        copying = asyncio.create_task(backups_meanwhile(source, tmp_path / "cli", done, stop))
        script = await start_script(source, script_dir) if backend == "postgres" else None
        began = time.time()
        async for table in play(tg, *chats):
            done[0] += 1
            states.append({**states[-1], table.chat_id: await answers(tg, table)})
        ended = time.time()
        stop.set()
        copies = await copying
        if script is not None:
            final_dump = await script_copy_after(script_dir, ended)
            script.send_signal(signal.SIGTERM)
            out, err = await asyncio.wait_for(script.communicate(), 30)
            assert script.returncode == 0 and b"FAILED" not in err, (out, err)
    updates = len(states) - 1
    assert updates == done[0] == 24

    # a copy taken in the middle of the writing: the books as they stood at one moment of it
    during = [c for c in copies if 0 < c.began and c.ended < updates]
    assert during, [(c.began, c.ended) for c in copies]
    middle = during[len(during) // 2]
    target = await new_database(backend)
    ran = await mjledger("restore", str(middle.path), "--database", target)
    assert ran.code == 0 and "migrated" not in ran.out, ran
    got = await answers_on(tg, target, chats)
    moments = [g for g, state in enumerate(states) if state == got]
    # the answer a chat saw can precede its update's commit by a moment
    assert any(middle.began - 1 <= g <= middle.ended for g in moments), (middle, moments)

    # a copy taken after the writing: the final books, in every chat
    final = copies[-1]
    assert final.began == updates
    target = await new_database(backend)
    ran = await mjledger("restore", str(final.path), "--database", target)
    assert ran.code == 0 and ran.out.startswith("mjledger restore: restored 3 chats, 3 sessions, "
                                                "7 hands"), ran
    assert await answers_on(tg, target, chats) == states[-1]

    if script is not None:  # compose's copies, restored the way deploy/README.md says
        written = sorted(script_dir.glob("mjledger-*.dump"))
        in_between = [p for p in written if stamp(began) < p.name[9:25] < stamp(ended)]
        assert in_between, (stamp(began), stamp(ended), written)
        for dump, expected in ((in_between[len(in_between) // 2], None), (final_dump, states[-1])):
            target = await new_database(backend)
            ran = await run("sh", "deploy/backup.sh", "restore", str(dump), env=restore_env(target))
            assert ran.code == 0 and "restored" in ran.out, ran
            got = await answers_on(tg, target, chats)
            assert got == expected if expected is not None else got in states


@pytest.mark.parametrize("backend", BACKENDS)
async def test_a_copy_from_before_the_newest_migration_restores_and_upgrades(
        tg: FakeTelegram, new_database: Any, tmp_path: Path, backend: str) -> None:
    source = await new_database(backend)
    chats = three_chats(tg)
    async with serve(settings_for(tg, source), poll_timeout=1):
        async for _ in play(tg, *chats):
            pass
        books = {table.chat_id: await answers(tg, table) for table in chats}
    older, newest = revisions()[-2:]
    down = alembic(source, "downgrade", older)
    assert down.returncode == 0, down.stderr

    copy = tmp_path / "older.backup"
    ran = await mjledger("backup", str(copy), "--database", source)
    assert ran.code == 0, ran
    target = await new_database(backend)
    ran = await mjledger("restore", str(copy), "--database", target)
    assert ran.code == 0, ran
    assert f"(schema {older}, migrated to {newest})" in ran.out, ran.out
    assert await answers_on(tg, target, chats) == books
