"""Backups that would lose or leak data (issue 37): a file that is not a backup is never
replaced, copies are private, a copy is never named without its checksum, work files of a
killed run are neither left behind nor restored, a copy whose migration fails is refused in
one line with the target left empty, and a copy changed in storage without its checksum is
refused because its books do not add up (every row read, every hand scored again)."""

from __future__ import annotations

import os
import shutil
import sqlite3
import stat
import subprocess
import sys
from contextlib import closing
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import text

from db.config import make_engine
from tests.databases import PG_URL

from .conftest import ROOT, books, mjledger, run
from .test_drill import restore_env
from .test_refused import refused, tables_in

SCRIPT = ROOT / "deploy" / "backup.sh"
KINDS = ["sqlite", "postgres"] if PG_URL else ["sqlite"]


def sqlite_file(url: str) -> Path:
    return Path(url.split("///", 1)[1])


def mounts() -> bool:
    """Whether this machine lets a test mount a small file system of its own (a mount
    namespace: root, or an unprivileged user namespace)."""
    if shutil.which("unshare") is None:
        return False
    flags = [] if os.geteuid() == 0 else ["-r"]
    done = subprocess.run(["unshare", *flags, "-m", "sh", "-c",
                           "mount -t tmpfs -o size=64k none /tmp"], capture_output=True)
    return done.returncode == 0


needs_mount = pytest.mark.skipif(not mounts(), reason="cannot mount a tmpfs in a mount namespace here")


def on_own_tmpfs(folder: Path, options: str, script: str) -> list[str]:
    """`script` (sh) in a mount namespace where `folder` is a fresh tmpfs mounted with
    `options`; the command line to run."""
    flags = [] if os.geteuid() == 0 else ["-r"]
    return ["unshare", *flags, "-m", "sh", "-c",
            f"mount -t tmpfs -o {options} none '{folder}' && {script}"]


async def test_backup_never_replaces_another_programs_database(new_database: Any, tmp_path: Path) -> None:
    source = await new_database("sqlite")
    await books(source)
    theirs = tmp_path / "theirs.sqlite3"
    with closing(sqlite3.connect(theirs)) as conn:
        conn.execute("CREATE TABLE invoices (id integer primary key, total integer)")
        conn.execute("INSERT INTO invoices VALUES (1, 4200)")
        conn.commit()
    before = theirs.read_bytes()
    refused(await mjledger("backup", str(theirs), "--database", source), "is not a backup")
    assert theirs.read_bytes() == before
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted(["theirs.sqlite3", "db1.sqlite3"])
    # a live ledger (its -wal beside it) is no backup either; an earlier copy is replaced
    live = sqlite_file(source)
    shutil.copyfile(live, tmp_path / "live.sqlite3")
    (tmp_path / "live.sqlite3-wal").write_bytes(b"")
    refused(await mjledger("backup", str(tmp_path / "live.sqlite3"), "--database", source),
            "is not a backup")
    copy = tmp_path / "copy.sqlite3"
    for _ in range(2):
        ran = await mjledger("backup", str(copy), "--database", source)
        assert ran.code == 0, ran


async def test_copies_are_readable_by_their_owner_only(new_database: Any, tmp_path: Path) -> None:
    source = await new_database("sqlite")
    await books(source)
    os.chmod(sqlite_file(source), 0o600)
    folder = tmp_path / "copies"
    folder.mkdir()
    old = os.umask(0o022)  # a usual umask: files readable by all unless made otherwise
    try:
        ran = await mjledger("backup", str(folder), "--database", source)
    finally:
        os.umask(old)
    assert ran.code == 0, ran
    made = sorted(folder.iterdir())
    assert len(made) == 2
    for path in made:
        assert stat.S_IMODE(path.stat().st_mode) == 0o600, (path, oct(path.stat().st_mode))


@needs_mount
async def test_backup_into_a_folder_it_cannot_write_names_the_folder(new_database: Any,
                                                                     tmp_path: Path) -> None:
    source = await new_database("sqlite")
    await books(source)
    folder = tmp_path / "readonly"
    folder.mkdir()
    command = on_own_tmpfs(folder, "ro,size=1m", f"exec '{sys.executable}' -m bot backup "
                           f"'{folder}' --database '{source}'")
    ran = await run(*command)
    refused(ran, "cannot write in the folder", str(folder), "Read-only file system")
    assert "cannot read" not in ran.err and sqlite_file(source).name not in ran.err, ran.err


async def test_an_upper_case_checksum_is_accepted(new_database: Any, tmp_path: Path) -> None:
    for backend in KINDS:
        source = await new_database(backend)
        await books(source)
        copy = tmp_path / f"{backend}.backup"
        assert (await mjledger("backup", str(copy), "--database", source)).code == 0
        side = Path(f"{copy}.sha256")
        digest, name = side.read_text().split()
        side.write_text(f"{digest.upper()}  {name}\n")
        assert (await run("sha256sum", "-c", side.name, cwd=tmp_path)).code == 0  # as the tool does
        ran = await mjledger("restore", str(copy), "--database", await new_database(backend))
        assert ran.code == 0 and "restored 2 chats" in ran.out, ran


@pytest.mark.parametrize(("what", "find", "at", "to", "words"), [
    # one bit of a first hand's winner's delta: 6 -> 2, no longer zero-sum
    ("a delta", b'{"deltas": [6', 12, None, ["hand 1 of session 1 in chat -100", "zero-sum"]),
    # a letter of a line's text in a stored outcome ("self-draw" -> "welf-draw"): still
    # zero-sum, and not what scoring its record gives
    ("a line's text", b"self-draw: ", 0, None, ["of session 1 in chat -100", "scoring its record again"]),
    # a player's name no longer UTF-8
    ("a name", b"Ann", 0, b"\xff", ["table people cannot be read"]),
])
async def test_a_copy_changed_without_its_checksum_is_refused_by_its_books(
        new_database: Any, tmp_path: Path, what: str, find: bytes, at: int, to: bytes | None,
        words: list[str]) -> None:
    source = await new_database("sqlite")
    await books(source)
    copy = tmp_path / "copy.sqlite3"
    assert (await mjledger("backup", str(copy), "--database", source)).code == 0
    Path(f"{copy}.sha256").unlink()  # moved without it
    data = copy.read_bytes()
    where = data.index(find) + at
    to = to if to is not None else bytes([data[where] ^ 0x04])
    copy.write_bytes(data[:where] + to + data[where + 1:])
    with closing(sqlite3.connect(copy)) as conn:  # SQLite itself sees nothing wrong
        assert conn.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
    target = await new_database("sqlite")
    ran = await mjledger("restore", str(copy), "--database", target)
    refused(ran, "is damaged", "nothing was restored", *words)
    assert not sqlite_file(target).exists()
    assert not [p for p in tmp_path.iterdir() if p.name.startswith(".")]


async def relabel(url: str, revision: str) -> None:
    engine = make_engine(url)
    try:
        async with engine.begin() as conn:
            await conn.execute(text("UPDATE alembic_version SET version_num = :r"), {"r": revision})
    finally:
        await engine.dispose()


async def test_a_copy_whose_migration_fails_is_refused_and_a_second_try_still_goes(
        new_database: Any, tmp_path: Path) -> None:
    for backend in KINDS:
        source = await new_database(backend)
        await books(source)
        good = tmp_path / f"good-{backend}.backup"
        assert (await mjledger("backup", str(good), "--database", source)).code == 0
        await relabel(source, "0002_rules_snapshot")  # the newest tables, labelled older
        bad = tmp_path / f"relabelled-{backend}.backup"
        assert (await mjledger("backup", str(bad), "--database", source)).code == 0
        target = await new_database(backend)
        ran = await mjledger("restore", str(bad), "--database", target)
        refused(ran, "does not hold the tables its schema revision 0002_rules_snapshot says",
                "nothing was restored")
        assert await tables_in(target) == []
        ran = await mjledger("restore", str(good), "--database", target)  # not "already holds"
        assert ran.code == 0 and "restored 2 chats" in ran.out, ran


async def test_another_programs_alembic_database_is_refused(new_database: Any, tmp_path: Path) -> None:
    for backend in KINDS:
        other = await new_database(backend)
        engine = make_engine(other)
        try:
            async with engine.begin() as conn:
                await conn.execute(text("CREATE TABLE alembic_version (version_num varchar(32) primary key)"))
                await conn.execute(text("INSERT INTO alembic_version VALUES ('0001')"))
                await conn.execute(text("CREATE TABLE orders (id integer primary key)"))
        finally:
            await engine.dispose()
        copy = tmp_path / f"other-{backend}.backup"
        assert (await mjledger("backup", str(copy), "--database", other)).code == 0
        target = await new_database(backend)
        refused(await mjledger("restore", str(copy), "--database", target),
                "not a Mahjong Ledger backup", "no table chats")
        assert await tables_in(target) == []


async def test_work_files_of_a_killed_run_are_removed_and_never_restored(
        new_database: Any, tmp_path: Path) -> None:
    source = await new_database("sqlite")
    await books(source)
    folder = tmp_path / "copies"
    folder.mkdir()
    dead = 2**22 + 12345  # above Linux's pid_max default: no such process
    partial = folder / f".mjledger-20250101T000000Z.sqlite3.partial-{dead}"
    shutil.copyfile(sqlite_file(source), partial)  # a whole, valid database, cut off from its name
    kept = folder / ".notes.partial-x"  # not ours: no pid
    kept.write_text("mine")
    target = await new_database("sqlite")
    refused(await mjledger("restore", str(partial), "--database", target), "unfinished")
    assert not sqlite_file(target).exists()
    restoring = sqlite_file(target).with_name(f".{sqlite_file(target).name}.restoring-{dead}")
    shutil.copyfile(sqlite_file(source), restoring)
    ran = await mjledger("backup", str(folder), "--database", source)
    assert ran.code == 0, ran
    assert not partial.exists() and kept.exists()
    ran = await mjledger("restore", str(next(folder.glob("mjledger-*Z.sqlite3"))), "--database", target)
    assert ran.code == 0, ran
    assert not restoring.exists()


async def test_backup_sh_refuses_a_newer_schema_and_work_files(new_database: Any, tmp_path: Path) -> None:
    source = await new_database("postgres")
    await books(source)
    await relabel(source, "0099_future")
    copy = tmp_path / "future.dump"
    assert (await mjledger("backup", str(copy), "--database", source)).code == 0
    target = await new_database("postgres")
    ran = await run("sh", str(SCRIPT), "restore", str(copy), env=restore_env(target))
    assert ran.code == 2 and "0099_future" in ran.err and "does not know" in ran.err, ran
    assert ran.err.count("\n") == 1, ran
    partial = tmp_path / ".mjledger-20250101T000000Z.dump.partial"
    shutil.copyfile(copy, partial)
    ran = await run("sh", str(SCRIPT), "restore", str(partial), env=restore_env(target))
    assert ran.code == 2 and "unfinished" in ran.err, ran
    assert await tables_in(target) == []


@needs_mount
async def test_backup_sh_never_names_a_copy_whose_checksum_was_not_written(
        new_database: Any, tmp_path: Path) -> None:
    """A disk that has room for the copy and not for its checksum: FAILED, no copy, unhealthy."""
    source = await new_database("postgres")
    await books(source)
    probe = tmp_path / "probe.dump"
    env = restore_env(source)
    assert (await run("pg_dump", "--format=custom", f"--file={probe}", env=env)).code == 0
    pages = -(-probe.stat().st_size // 4096)  # tmpfs gives whole pages: exactly the copy's
    folder = tmp_path / "backups"
    folder.mkdir()
    script = (f"(BACKUP_DIR='{folder}' BACKUP_INTERVAL=3600 sh '{SCRIPT}' & echo $! > '{tmp_path}/pid'; "
              f"wait) & sleep 8; kill $(cat '{tmp_path}/pid'); wait; ls -A '{folder}'; "
              f"BACKUP_DIR='{folder}' sh '{SCRIPT}' check; echo check=$?")
    ran = await run(*on_own_tmpfs(folder, f"size={pages * 4096}", script), env=env, timeout=60)
    assert "FAILED: no copy at" in ran.err and "cannot write its checksum" in ran.err, ran
    assert "wrote mjledger-" not in ran.out, ran
    listing = ran.out.splitlines()
    assert listing[-1] == "check=1", ran  # unhealthy
    assert not [n for n in listing[:-1] if n.startswith("mjledger-") or "partial" in n], ran
