"""Bad input to `mjledger backup` and `mjledger restore`: a damaged, truncated or foreign backup,
a target that is not empty, a path that cannot be used. Each is refused with exit status 2 and
one line saying what is wrong, and changes nothing: the target database is as it was (a new one
stays empty), no file is written or replaced."""

from __future__ import annotations

import json
import sqlite3
from contextlib import closing
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import inspect, text
from sqlalchemy.engine import make_url

from db.config import make_engine
from tests.databases import BACKENDS, PG_URL, fresh_database
from tests.faults.drive import db_snapshot

from .conftest import Ran, books, mjledger, run


async def tables_in(url: str) -> list[str]:
    """The target's tables ([] for a SQLite file that does not exist)."""
    if url.startswith("sqlite"):
        path = Path(url.split("///", 1)[1])
        if not path.exists():
            return []
    engine = make_engine(url)
    try:
        async with engine.connect() as conn:
            return list(await conn.run_sync(lambda c: inspect(c).get_table_names()))
    finally:
        await engine.dispose()


def refused(ran: Ran, *words: str) -> None:
    """Exit status 2, nothing on stdout, one line on stderr holding `words`."""
    assert ran.code == 2, ran
    assert ran.out == "" and ran.err.count("\n") == 1, ran
    assert ran.err.startswith("mjledger "), ran.err
    for word in words:
        assert word in ran.err, ran.err


@pytest.fixture(params=BACKENDS)
async def good_copy(request: pytest.FixtureRequest, new_database: Any, tmp_path: Path) -> tuple[str, Path]:
    """(backend, a backup of a small ledger)."""
    source = await new_database(request.param)
    await books(source)
    path = tmp_path / "good.backup"
    ran = await mjledger("backup", str(path), "--database", source)
    assert ran.code == 0, ran
    return request.param, path


def cut(data: bytes, how: str) -> bytes:
    if how == "truncated to half":
        return data[:len(data) // 2]
    if how == "without its last 100 bytes":
        return data[:-100]
    flipped = bytearray(data)
    at = len(data) * 3 // 4 if how == "a byte flipped" else len(data) // 2
    for i in range(at, at + (1 if how == "a byte flipped" else 64)):
        flipped[i] ^= 0x5A
    return bytes(flipped)


@pytest.mark.parametrize(("how", "checksum"), [
    ("truncated to half", True), ("without its last 100 bytes", True),
    ("64 bytes overwritten", True), ("a byte flipped", True),
    # a copy without its checksum (made otherwise, or moved without it): its format tells
    ("truncated to half", False), ("without its last 100 bytes", False)])
async def test_a_damaged_copy_is_refused_and_the_target_stays_empty(
        good_copy: tuple[str, Path], new_database: Any, tmp_path: Path, how: str,
        checksum: bool) -> None:
    backend, good = good_copy
    bad = tmp_path / "bad.backup"
    bad.write_bytes(cut(good.read_bytes(), how))
    if checksum:
        Path(f"{bad}.sha256").write_text(Path(f"{good}.sha256").read_text())
    target = await new_database(backend)
    ran = await mjledger("restore", str(bad), "--database", target)
    refused(ran, str(bad))
    assert "damaged" in ran.err or "truncated" in ran.err, ran.err
    assert await tables_in(target) == []
    assert not list(tmp_path.glob(".*"))  # no half-restored file left beside
    ran = await mjledger("restore", str(good), "--database", target)  # the good one still goes
    assert ran.code == 0 and "restored 2 chats, 2 sessions, 6 hands" in ran.out, ran


async def test_a_copy_goes_only_into_an_empty_database(good_copy: tuple[str, Path],
                                                      new_database: Any) -> None:
    backend, good = good_copy
    target = await new_database(backend)
    await books(target)
    before = await db_snapshot(target)
    refused(await mjledger("restore", str(good), "--database", target), "empty")
    assert await db_snapshot(target) == before


@pytest.mark.parametrize("what", ["a text file", "an /export file", "an empty file"])
async def test_a_file_that_is_no_backup_is_refused(tmp_path: Path, new_database: Any, what: str) -> None:
    path = tmp_path / "not.backup"
    path.write_bytes({"a text file": b"hello\n", "an empty file": b"",
                      "an /export file": json.dumps({"format": "mjledger-session/1"}).encode()}[what])
    for backend in BACKENDS:
        target = await new_database(backend)
        refused(await mjledger("restore", str(path), "--database", target), "is not a backup")
        assert await tables_in(target) == []
    refused(await mjledger("restore", str(tmp_path / "missing"), "--database", target), "no file")


async def test_a_database_of_something_else_is_refused(tmp_path: Path, new_database: Any) -> None:
    for backend in BACKENDS:
        other = await new_database(backend)
        engine = make_engine(other)
        try:
            async with engine.begin() as conn:
                await conn.execute(text("CREATE TABLE notes (id integer primary key, body text)"))
        finally:
            await engine.dispose()
        copy = tmp_path / f"other-{backend}.backup"
        assert (await mjledger("backup", str(copy), "--database", other)).code == 0
        target = await new_database(backend)
        refused(await mjledger("restore", str(copy), "--database", target),
                "not a Mahjong Ledger backup")
        assert await tables_in(target) == []


async def test_a_copy_from_a_newer_version_is_refused(new_database: Any, tmp_path: Path) -> None:
    for backend in BACKENDS:
        source = await new_database(backend)
        await books(source)
        engine = make_engine(source)
        try:
            async with engine.begin() as conn:
                await conn.execute(text("UPDATE alembic_version SET version_num = '0099_future'"))
        finally:
            await engine.dispose()
        copy = tmp_path / f"future-{backend}.backup"
        assert (await mjledger("backup", str(copy), "--database", source)).code == 0
        target = await new_database(backend)
        refused(await mjledger("restore", str(copy), "--database", target),
                "revision 0099_future", "does not know")
        assert await tables_in(target) == []


@pytest.mark.skipif(not PG_URL, reason="TEST_DATABASE_URL is not set")
async def test_a_copy_restores_only_into_its_own_kind_of_database(new_database: Any, tmp_path: Path) -> None:
    copies = {}
    for backend in ("sqlite", "postgres"):
        source = await new_database(backend)
        await books(source)
        copies[backend] = tmp_path / f"{backend}.backup"
        assert (await mjledger("backup", str(copies[backend]), "--database", source)).code == 0
    for made, into in (("sqlite", "postgres"), ("postgres", "sqlite")):
        target = await new_database(into)
        refused(await mjledger("restore", str(copies[made]), "--database", target), "restore it into")
        assert await tables_in(target) == []


@pytest.mark.skipif(not PG_URL, reason="TEST_DATABASE_URL is not set")
async def test_a_restore_that_fails_halfway_leaves_nothing(new_database: Any, tmp_path: Path) -> None:
    """PostgreSQL: the archive passed every check, and the server refuses one of its statements."""
    source = await new_database("postgres")
    await books(source)
    good = tmp_path / "good.dump"
    assert (await mjledger("backup", str(good), "--database", source)).code == 0
    target = await new_database("postgres")
    engine = make_engine(target)
    try:  # no table, so the target counts as empty; the archive's sequence of that name clashes
        async with engine.begin() as conn:
            await conn.execute(text("CREATE SEQUENCE payments_id_seq"))
    finally:
        await engine.dispose()
    ran = await mjledger("restore", str(good), "--database", target)
    assert ran.code == 1 and "nothing was restored" in ran.err and ran.err.count("\n") == 1, ran
    assert await tables_in(target) == []  # the tables made before the clash were rolled back


async def test_a_plain_sqlite_file_of_a_stopped_bot_restores(new_database: Any, tmp_path: Path) -> None:
    source = await new_database("sqlite")
    await books(source)
    target = await new_database("sqlite")
    ran = await mjledger("restore", source.split("///", 1)[1], "--database", target)
    assert ran.code == 0 and "restored 2 chats, 2 sessions, 6 hands" in ran.out, ran
    assert await db_snapshot(target) == await db_snapshot(source)


async def test_backup_refuses_paths_it_cannot_use(new_database: Any, tmp_path: Path) -> None:
    source = await new_database("sqlite")
    await books(source)
    live = source.split("///", 1)[1]
    notes = tmp_path / "notes.txt"
    notes.write_text("my notes\n")
    cases = [
        ([str(notes)], "is not a backup"),
        ([str(tmp_path / "nowhere" / "copy.sqlite3")], "no folder"),
        ([str(tmp_path / "copy.sqlite3"), "--keep", "3"], "--keep needs a folder"),
        ([live], "is the database itself"),
    ]
    for args, words in cases:
        refused(await mjledger("backup", *args, "--database", source), words)
    assert notes.read_text() == "my notes\n"
    assert not (tmp_path / "copy.sqlite3").exists()
    missing = tmp_path / "missing.sqlite3"
    refused(await mjledger("backup", str(tmp_path / "x.sqlite3"), "--database", f"sqlite:///{missing}"),
            "no SQLite database")
    assert not missing.exists() and not (tmp_path / "x.sqlite3").exists()
    ran = await mjledger("backup", str(tmp_path), "--keep", "0", "--database", source)
    assert ran.code == 2 and "at least 1" in ran.err  # argparse's usage line, then why


async def test_a_folder_keeps_its_newest_dated_copies(new_database: Any, tmp_path: Path) -> None:
    source = await new_database("sqlite")
    await books(source)
    folder = tmp_path / "copies"
    folder.mkdir()
    older = ["mjledger-20240101T000000Z.sqlite3", "mjledger-20240102T000000Z.sqlite3",
             "mjledger-20240103T000000Z.sqlite3"]
    others = ["mjledger-20240101T000000Z.dump", "notes.txt"]  # another kind, not a copy: kept
    for name in older + others:
        (folder / name).write_bytes(b"")
        (folder / f"{name}.sha256").write_text(f"{'0' * 64}  {name}\n")
    ran = await mjledger("backup", str(folder), "--keep", "2", "--database", source)
    assert ran.code == 0, ran
    assert "removed 2 older: mjledger-20240101T000000Z.sqlite3, mjledger-20240102T000000Z.sqlite3" \
        in ran.out
    names = sorted(p.name for p in folder.iterdir() if p.suffix != ".sha256")
    new = [n for n in names if n not in older + others]
    assert len(new) == 1 and new[0].startswith("mjledger-2") and new[0].endswith("Z.sqlite3")
    assert names == sorted([older[2], *new, *others])
    assert sorted(p.name for p in folder.glob("*.sha256")) == sorted(f"{n}.sha256" for n in names)
    check = await run("sha256sum", "--check", f"{new[0]}.sha256", cwd=folder)  # as an operator would
    assert check.code == 0 and check.out == f"{new[0]}: OK\n", check
    with closing(sqlite3.connect(folder / new[0])) as conn:  # a whole database, no -wal beside it
        assert conn.execute("PRAGMA journal_mode").fetchone()[0] == "delete"
        assert conn.execute("SELECT count(*) FROM hands").fetchone()[0] == 6


@pytest.mark.skipif(not PG_URL, reason="TEST_DATABASE_URL is not set")
async def test_a_copy_of_one_schema_restores_into_that_schema(new_database: Any, tmp_path: Path) -> None:
    """A bot whose URL names a schema (?search_path=): its copy holds that schema alone, and
    goes back into the same schema of an empty database."""
    async with fresh_database("postgres", tmp_path) as source:  # a schema of the shared database
        await books(source)
        copy = tmp_path / "schema.dump"
        assert (await mjledger("backup", str(copy), "--database", source)).code == 0
        schema = make_url(source).query["search_path"]
        before = await db_snapshot(source)
    target = await new_database("postgres")
    refused(await mjledger("restore", str(copy), "--database", target),
            f"holds schema '{schema}'", f"?search_path={schema}")
    assert await tables_in(target) == []
    into = make_url(target).update_query_dict({"search_path": schema}).render_as_string(
        hide_password=False)
    ran = await mjledger("restore", str(copy), "--database", into)
    assert ran.code == 0 and "restored 2 chats" in ran.out, ran
    assert await db_snapshot(into) == before
    assert await tables_in(target) == []  # nothing in public
