"""A copy of the whole database taken while the bot runs, and its restore into an empty one.

SQLite: SQLite's online backup API reads the live file in one read transaction (a snapshot:
the bot's writes go on meanwhile), never a file copy, into a plain SQLite file. PostgreSQL:
`pg_dump --format=custom` (one snapshot) and `pg_restore` in one transaction. Beside each copy
its SHA-256 as `sha256sum` writes it (NAME.sha256): neither format checks all of itself (SQLite
not a row's bytes, pg_dump not its table definitions), so a copy damaged in storage is known by
its checksum. A restore reads the whole backup and checks it before it touches anything, goes
only into an empty database, and brings the schema up to the newest migration.
"""

from __future__ import annotations

import asyncio
import hashlib
import json
import os
import re
import shutil
import sqlite3
import struct
import time
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from sqlalchemy import text
from sqlalchemy.engine import URL

from .config import async_url, database_url, make_engine

SQLITE_MAGIC = b"SQLite format 3\x00"
PG_MAGIC = b"PGDMP"
DATED = re.compile(r"mjledger-\d{8}T\d{6}Z\.(sqlite3|dump)")
# The tables of the first schema revision: a database without them is not the ledger's, whatever
# its alembic_version says (another program's Alembic database can be at revision "0001" too).
OWN_TABLES = ("chats", "people", "sessions", "hands", "ledger_entries")
# Work files of a backup or a restore, hidden beside their target until they are whole.
UNFINISHED = re.compile(r"\..*\.(partial|restoring)(-\d+)?")
_CHUNK = 1 << 20


class BackupRefused(Exception):
    """Bad input: a damaged backup, a target that is not empty, a path that cannot be used.
    Nothing was changed."""


class BackupFailed(Exception):
    """The database or a tool failed (unreachable server, pg_dump missing or refusing)."""


@dataclass(frozen=True)
class Written:
    path: Path
    size: int
    seconds: float
    removed: tuple[Path, ...] = ()


@dataclass(frozen=True)
class Restored:
    target: str  # the database's URL, without its password
    revision: str  # the backup's schema revision
    head: str  # the schema revision after the restore
    chats: int
    sessions: int
    hands: int
    seconds: float


# -- backup --------------------------------------------------------------------------------------

async def backup(path: str | Path, url: str | None = None, *, keep: int | None = None) -> Written:
    """Copy the database of `url` (default $DATABASE_URL) to `path`: a file, or a folder that
    gets a dated copy (mjledger-<UTC time>.sqlite3 or .dump), keeping its newest `keep`."""
    began = time.monotonic()
    u = async_url(database_url(url))
    sqlite = u.get_backend_name() == "sqlite"
    target = Path(path)
    if target.is_dir():
        stamp = datetime.now(UTC).strftime("%Y%m%dT%H%M%SZ")
        target = target / f"mjledger-{stamp}.{'sqlite3' if sqlite else 'dump'}"
    elif keep is not None:
        raise BackupRefused(f"--keep needs a folder, and {path} is not one")
    if not target.parent.is_dir():
        raise BackupRefused(f"there is no folder {target.parent}")
    if target.exists() and not _replaceable(target):
        raise BackupRefused(f"{target} exists and is not a backup: give a new name or a folder")
    _remove_stale(target.parent, ".partial-")
    partial = target.with_name(f".{target.name}.partial-{os.getpid()}")
    _create_private(partial, target.parent)
    try:
        if sqlite:
            await asyncio.to_thread(_sqlite_backup, _sqlite_path(u), partial, target)
        else:
            await _pg_dump(u, partial)
        await asyncio.to_thread(_publish, partial, target)
    finally:
        partial.unlink(missing_ok=True)
        checksum_file(partial).unlink(missing_ok=True)
    removed = _prune(target.parent, keep, target.suffix) if keep is not None else ()
    return Written(target, target.stat().st_size, time.monotonic() - began, removed)


def _replaceable(target: Path) -> bool:
    """An existing file that a new copy may replace: a Mahjong Ledger backup, never a live
    database (another program's, or one with its -wal or -journal beside it)."""
    if not target.is_file():
        return False
    kind = _kind(target)
    if kind == "postgresql":
        return True
    if kind != "sqlite":
        return False
    if any(target.with_name(target.name + extra).exists() for extra in ("-wal", "-journal")):
        return False
    try:
        conn = sqlite3.connect(f"{target.resolve().as_uri()}?mode=ro&immutable=1", uri=True)
    except sqlite3.Error:
        return False
    try:
        names = {r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type='table'")}
    except sqlite3.Error:
        return False
    finally:
        conn.close()
    return {"alembic_version", *OWN_TABLES} <= names


def _create_private(path: Path, folder: Path) -> None:
    """The copy's file, readable by its owner only (the copy holds every chat's books)."""
    try:
        os.close(os.open(path, os.O_CREAT | os.O_EXCL | os.O_WRONLY, 0o600))
    except OSError as e:
        raise BackupRefused(f"cannot write in the folder {folder}: {e.strerror or e}") from None


def _remove_stale(folder: Path, marker: str) -> None:
    """Hidden work files a killed backup or restore left (`.NAME<marker>PID`, PID gone)."""
    for p in folder.glob(f".*{marker}*"):
        pid = re.match(r"\d+", p.name.rsplit(marker, 1)[1])  # also its .sha256, -wal, -shm
        if pid is not None and not _alive(int(pid.group(0))):
            p.unlink(missing_ok=True)


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def _sqlite_path(u: URL) -> Path:
    if u.database in (None, "", ":memory:"):
        raise BackupRefused("an in-memory database has nothing to back up")
    return Path(u.database)


def _sqlite_backup(source: Path, partial: Path, target: Path) -> None:
    if not source.is_file():
        raise BackupRefused(f"there is no SQLite database at {source}")
    if target.exists() and target.resolve() == source.resolve():
        raise BackupRefused(f"{target} is the database itself: write the backup elsewhere")
    if _kind(source) != "sqlite":
        raise BackupRefused(f"{source} is not a SQLite database")
    try:
        src = sqlite3.connect(f"{source.resolve().as_uri()}?mode=ro", uri=True, timeout=30)
        src.execute("SELECT count(*) FROM sqlite_master").fetchone()
    except sqlite3.DatabaseError as e:
        raise BackupFailed(f"cannot read {source}: {e}") from None
    try:
        dst = sqlite3.connect(partial)
        try:
            # pages=-1: every page in one step, within one read transaction of the source: a
            # snapshot, while the bot keeps writing (WAL). A copy in steps would start again
            # whenever the bot wrote between them.
            src.backup(dst, pages=-1)
            dst.execute("PRAGMA journal_mode=DELETE")  # one self-contained file, no -wal
            problems = [r[0] for r in dst.execute("PRAGMA quick_check")]
            if problems != ["ok"]:
                raise BackupFailed(f"the copy of {source} fails SQLite's check: {problems[0]}")
        finally:
            dst.close()
    except sqlite3.DatabaseError as e:  # the source was readable: writing the copy failed
        raise BackupFailed(f"cannot write the copy in {target.parent}: {e}") from None
    finally:
        src.close()


def _sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with open(path, "rb") as f:
        while block := f.read(_CHUNK):
            digest.update(block)
    return digest.hexdigest()


def checksum_file(path: Path) -> Path:
    """Where the copy's checksum is kept: beside it, as `sha256sum` names it."""
    return path.with_name(path.name + ".sha256")


async def _pg_dump(u: URL, partial: Path) -> None:
    conninfo, env = _libpq(u)
    args = ["--format=custom", f"--file={partial}", f"--dbname={conninfo}"]
    if schema := _search_path(u):  # the bot's tables live in a schema of their own
        args.append('--schema="{}"'.format(schema.replace('"', '""')))
    await _tool("pg_dump", args, env, BackupFailed, f"pg_dump of {_shown(u)} failed")
    await _tool("pg_restore", ["--list", str(partial)], {}, BackupFailed,
                "pg_dump wrote an archive pg_restore cannot read")


def _publish(partial: Path, target: Path, *, checksum: bool = True) -> None:
    """Make the finished copy durable, give it its name in one step, then its checksum (a
    copy cut off from its checksum by a crash is still restored, checked by its format only;
    never one with another copy's checksum)."""
    digest = _sha256(partial) if checksum else ""
    with open(partial, "rb") as f:
        os.fsync(f.fileno())
    if checksum:
        checksum_file(target).unlink(missing_ok=True)
    os.replace(partial, target)
    if checksum:
        side = checksum_file(partial)
        try:
            side.unlink(missing_ok=True)
            fd = os.open(side, os.O_CREAT | os.O_EXCL | os.O_WRONLY, 0o600)
            with open(fd, "w") as f:
                f.write(f"{digest}  {target.name}\n")
        except OSError as e:  # a copy is never left without its checksum
            target.unlink(missing_ok=True)
            side.unlink(missing_ok=True)
            raise BackupFailed(f"cannot write the checksum of {target.name}, so the copy was "
                               f"removed: {e.strerror or e}") from None
        os.replace(side, checksum_file(target))
    folder = os.open(target.parent, os.O_RDONLY)
    try:
        os.fsync(folder)
    finally:
        os.close(folder)


def _prune(folder: Path, keep: int, suffix: str) -> tuple[Path, ...]:
    """Remove the dated copies of this kind beyond the newest `keep` (names sort by time)."""
    dated = sorted(p for p in folder.iterdir() if DATED.fullmatch(p.name) and p.suffix == suffix)
    old = dated[:-keep] if keep > 0 else dated
    for p in old:
        p.unlink(missing_ok=True)
        checksum_file(p).unlink(missing_ok=True)
    return tuple(old)


# -- restore -------------------------------------------------------------------------------------

async def restore(source: str | Path, url: str | None = None) -> Restored:
    """Restore the backup at `source` into the empty database of `url` (default
    $DATABASE_URL) and migrate it to the newest schema. The backup is read whole and checked
    first, and the books restored are checked before they count (every row readable, every
    hand scored again as stored and zero-sum); a refusal leaves the target as it was."""
    began = time.monotonic()
    path = Path(source)
    if not path.is_file():
        raise BackupRefused(f"there is no file {source}")
    if UNFINISHED.fullmatch(path.name):
        raise BackupRefused(f"{path} is the unfinished work file of a backup or a restore that was "
                            "cut short, not a backup: remove it and restore a copy with its own name")
    u = async_url(database_url(url))
    kind = _kind(path)
    if kind is None:
        raise BackupRefused(f"{path} is not a backup: neither a SQLite database nor a pg_dump "
                            "custom-format archive")
    await asyncio.to_thread(_check_sum, path)
    backend = u.get_backend_name()
    if (kind == "sqlite") != (backend == "sqlite"):
        made = "SQLite" if kind == "sqlite" else "PostgreSQL"
        raise BackupRefused(f"{path} is a {made} backup and the target is {_shown(u)}: "
                            f"restore it into {made}")
    if kind == "sqlite":
        revision = await asyncio.to_thread(_check_sqlite_backup, path)
        await _restore_sqlite(path, u, revision)
    else:
        schema = await _check_pg_backup(path)
        revision = await _pg_revision(path, schema)
        _check_known(path, revision)
        existed = await _restore_pg(path, u, schema)
        try:
            await _upgrade(path, u.render_as_string(hide_password=False), revision)
            await _check_books(path, u)
        except BaseException:
            await _empty_pg(u, schema, existed)  # as empty as it was: a second try may go
            raise
    return await _counted(u, revision, began)


async def _upgrade(path: Path, url: str, revision: str) -> None:
    """Migrate the restored copy; a copy whose tables are not what its revision says (another
    program's Alembic database, a relabelled copy) is refused."""
    try:
        await _migrate(url)
    except Exception as e:
        cause = getattr(e, "orig", None) or e
        raise BackupRefused(f"{path} does not hold the tables its schema revision {revision} "
                            f"says, nothing was restored: migrating it failed: "
                            f"{_first_line(str(cause))}") from None


async def _check_books(path: Path, u: URL) -> None:
    """Every row of the restored copy reads back, and every hand's stored outcome is what
    scoring its record again gives, zero-sum, as its ledger entries: a copy changed in storage
    without its checksum beside it is refused, naming the first bad hand."""
    from sqlalchemy import select

    from .models import Base, Hand, LedgerEntry, Session

    engine = make_engine(u)
    try:
        async with engine.connect() as conn:
            for table in Base.metadata.sorted_tables:
                try:  # read in parts: a big database is never held in memory whole
                    rows = await conn.stream(select(table))
                    async for _ in rows.partitions(2000):
                        pass
                except Exception as e:
                    cause = getattr(e, "orig", None) or e
                    raise BackupRefused(f"{path} is damaged, nothing was restored: a row of table "
                                        f"{table.name} cannot be read: {_first_line(str(cause))}"
                                        ) from None
            entries: dict[int, list[int]] = {}
            for hand_id, seat, points in await conn.execute(
                    select(LedgerEntry.hand_id, LedgerEntry.seat, LedgerEntry.points)):
                entries.setdefault(hand_id, [0, 0, 0, 0])[seat] = points
            hands = await conn.stream(
                select(Hand.id, Hand.seq, Hand.record, Hand.outcome, Hand.voided, Session.number,
                       Session.chat_id).join(Session, Session.id == Hand.session_id)
                .order_by(Session.chat_id, Session.number, Hand.seq))
            rescored: dict[str, Any] = {}
            async for hand_id, seq, record, outcome, voided, number, chat in hands:
                why = _bad_hand(record, outcome, entries.get(hand_id), voided, rescored)
                if why is not None:
                    raise BackupRefused(f"{path} is damaged, nothing was restored: hand {seq} of "
                                        f"session {number} in chat {chat} {why}")
    finally:
        await engine.dispose()


def _bad_hand(record: Any, outcome: Any, entries: list[int] | None, voided: bool,
              rescored: dict[str, Any]) -> str | None:
    """Why a stored hand is not sound, or None."""
    from scoring import ScoringError, score
    from scoring.outcome import Outcome

    try:
        stored = Outcome.from_dict(outcome)
    except (KeyError, TypeError, ValueError, IndexError):
        return "has a stored outcome that cannot be read"
    if sum(stored.deltas) != 0:
        return f"is not zero-sum: {list(stored.deltas)}"
    if not voided and entries is not None and entries != list(stored.deltas):
        return f"has ledger entries {entries} beside its outcome {list(stored.deltas)}"
    key = json.dumps(record, sort_keys=True, ensure_ascii=False)
    if key not in rescored:  # many hands repeat a record: scored once
        try:
            rescored[key] = score(record).to_dict()
        except ScoringError as e:
            rescored[key] = None if "PyMahjongGB" in str(e) else f"has a record that does not score: {e}"
        except (KeyError, TypeError, ValueError, AttributeError, IndexError, RecursionError):
            rescored[key] = "has a record that cannot be read"
    again = rescored[key]
    if again is None:  # counted by a library not installed here: the sums above still held
        return None
    if isinstance(again, str):
        return again
    if again != stored.to_dict():
        return "has a stored outcome that differs from scoring its record again"
    return None


async def _empty_pg(u: URL, schema: str, existed: bool) -> None:
    """Take out what a restore put into the target (a schema it made, else every table, view,
    sequence and function in the one that was there and empty)."""
    quoted = '"{}"'.format(schema.replace('"', '""'))
    engine = make_engine(u)
    try:
        async with engine.begin() as conn:
            if not existed:
                await conn.execute(text(f"DROP SCHEMA IF EXISTS {quoted} CASCADE"))
                return
            found = await conn.execute(text(
                "SELECT CASE c.relkind WHEN 'v' THEN 'VIEW' WHEN 'm' THEN 'MATERIALIZED VIEW' "
                "WHEN 'S' THEN 'SEQUENCE' ELSE 'TABLE' END, c.relname FROM pg_class c "
                "JOIN pg_namespace n ON n.oid = c.relnamespace WHERE n.nspname = :s "
                "AND c.relkind IN ('r', 'p', 'v', 'm', 'S') ORDER BY c.relkind = 'S'"), {"s": schema})
            for kind, name in found.all():
                name = '"{}"'.format(name.replace('"', '""'))
                await conn.execute(text(f"DROP {kind} IF EXISTS {quoted}.{name} CASCADE"))
            procs = await conn.execute(text(
                "SELECT p.oid::regprocedure::text FROM pg_proc p JOIN pg_namespace n "
                "ON n.oid = p.pronamespace WHERE n.nspname = :s"), {"s": schema})
            for (proc,) in procs.all():
                await conn.execute(text(f"DROP FUNCTION IF EXISTS {proc} CASCADE"))
    finally:
        await engine.dispose()


def _kind(path: Path) -> str | None:
    with open(path, "rb") as f:
        head = f.read(len(SQLITE_MAGIC))
    if head == SQLITE_MAGIC:
        return "sqlite"
    return "postgresql" if head.startswith(PG_MAGIC) else None


def _check_sum(path: Path) -> None:
    side = checksum_file(path)
    if not side.exists():
        return  # a copy made otherwise (pg_dump by hand, a stopped bot's file): its format's checks
    expected = side.read_text(errors="replace").split(maxsplit=1)[:1]
    if [e.lower() for e in expected] != [_sha256(path)]:  # sha256sum -c takes either case
        raise BackupRefused(f"{path} is damaged: it does not match its checksum in {side.name}")


def _check_sqlite_backup(path: Path) -> str:
    """The backup's schema revision, once the file proved whole and sound."""
    with open(path, "rb") as f:
        header = f.read(100)
    if len(header) < 100:
        raise BackupRefused(f"{path} is damaged: it ends inside SQLite's header")
    page_size = struct.unpack(">H", header[16:18])[0]
    page_size = 65536 if page_size == 1 else page_size
    pages, changes, valid_for = (struct.unpack(">I", header[i:i + 4])[0] for i in (28, 24, 92))
    size = path.stat().st_size
    if changes == valid_for and pages and size < pages * page_size:
        raise BackupRefused(f"{path} is truncated: {size} of its {pages * page_size} bytes")
    conn = sqlite3.connect(f"{path.resolve().as_uri()}?mode=ro&immutable=1", uri=True)
    try:
        problems = [r[0] for r in conn.execute("PRAGMA integrity_check(1)")]
        if problems != ["ok"]:
            raise BackupRefused(f"{path} is damaged: {problems[0]}")
        tables = {r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type='table'")}
        try:
            revision = conn.execute("SELECT version_num FROM alembic_version").fetchone()
        except sqlite3.OperationalError:
            revision = None
    except sqlite3.DatabaseError as e:
        raise BackupRefused(f"{path} is damaged: {e}") from None
    finally:
        conn.close()
    if revision is None:
        raise BackupRefused(f"{path} is not a Mahjong Ledger backup: it has no schema revision")
    _check_own_tables(path, tables)
    _check_known(path, revision[0])
    return str(revision[0])


def _check_own_tables(path: Path, tables: set[str]) -> None:
    missing = [t for t in OWN_TABLES if t not in tables]
    if missing:
        raise BackupRefused(f"{path} is not a Mahjong Ledger backup: it has no table {missing[0]}")


def _check_known(path: Path, revision: str) -> None:
    if revision not in revisions():
        raise BackupRefused(f"{path} holds schema revision {revision}, which this version of "
                            "Mahjong Ledger does not know: restore it with the version that wrote it")


def revisions() -> list[str]:
    """Every schema revision, oldest first."""
    from alembic.script import ScriptDirectory

    from .store import alembic_config

    script = ScriptDirectory.from_config(alembic_config())
    return [r.revision for r in reversed(list(script.walk_revisions()))]


async def _restore_sqlite(path: Path, u: URL, revision: str) -> None:
    target = _sqlite_path(u)
    for extra in (target.with_name(target.name + "-wal"), target.with_name(target.name + "-journal")):
        if extra.exists() and extra.stat().st_size:
            raise BackupRefused(f"{extra} is left over from another database: move it away first")
    if target.exists() and _sqlite_tables(target):
        raise BackupRefused(f"{target} is not empty: restore only into a new file (move the "
                            "old one away first)")
    if not target.parent.is_dir():
        raise BackupRefused(f"there is no folder {target.parent}")
    _remove_stale(target.parent, ".restoring-")
    work = target.with_name(f".{target.name}.restoring-{os.getpid()}")
    try:
        _create_private(work, target.parent)
        await asyncio.to_thread(shutil.copyfile, path, work)
        at = u.set(database=str(work))
        await _upgrade(path, at.render_as_string(hide_password=False), revision)  # before its name
        await _check_books(path, at)
        await asyncio.to_thread(_fold_wal, work)
        await asyncio.to_thread(_publish, work, target, checksum=False)
    finally:
        for leftover in (work, work.with_name(work.name + "-wal"), work.with_name(work.name + "-shm")):
            leftover.unlink(missing_ok=True)


def _fold_wal(path: Path) -> None:
    """Everything in the main file before it is renamed (its -wal would not follow it); the bot
    switches it back to WAL when it opens it."""
    conn = sqlite3.connect(path)
    try:
        conn.execute("PRAGMA journal_mode=DELETE")
    finally:
        conn.close()


def _sqlite_tables(path: Path) -> list[str]:
    conn = sqlite3.connect(f"{path.resolve().as_uri()}?mode=ro", uri=True)
    try:
        return [r[0] for r in conn.execute(
            "SELECT name FROM sqlite_master WHERE type='table' AND name NOT LIKE 'sqlite_%'")]
    except sqlite3.DatabaseError:
        return ["(a file that is not a database)"]
    finally:
        conn.close()


async def _check_pg_backup(path: Path) -> str:
    """The schema the archive's tables are in, once every block of it read back whole."""
    listing = await _tool("pg_restore", ["--list", str(path)], {}, BackupRefused,
                          f"{path} is damaged")
    await _tool("pg_restore", [f"--file={os.devnull}", str(path)], {}, BackupRefused,
                f"{path} is damaged")
    found = re.search(r"^\d+; \d+ \d+ TABLE (\S+) alembic_version(?: |$)", listing, re.MULTILINE)
    if found is None:
        raise BackupRefused(f"{path} is not a Mahjong Ledger backup: it has no alembic_version table")
    schema = found.group(1)
    _check_own_tables(path, set(re.findall(
        rf"^\d+; \d+ \d+ TABLE {re.escape(schema)} (\S+)(?: |$)", listing, re.MULTILINE)))
    return schema


async def _pg_revision(path: Path, schema: str) -> str:
    script = await _tool("pg_restore", ["--data-only", f"--schema={schema}",
                                        "--table=alembic_version", "--file=-", str(path)],
                         {}, BackupRefused, f"{path} is damaged")
    found = re.search(r"^COPY \S+ \(version_num\) FROM stdin;\n([^\n\\]+)\n", script, re.MULTILINE)
    if found is None:
        raise BackupRefused(f"{path} is not a Mahjong Ledger backup: it has no schema revision")
    return found.group(1)


async def _restore_pg(path: Path, u: URL, schema: str) -> bool:
    """pg_restore in one transaction; whether the schema was there before."""
    target_schema = _search_path(u) or "public"
    if schema != target_schema:
        fix = "without search_path" if schema == "public" else f"with ?search_path={schema}"
        raise BackupRefused(f"{path} holds schema {schema!r}, the target's is {target_schema!r}: "
                            f"restore it into a URL {fix}")
    engine = make_engine(u)
    try:
        async with engine.connect() as conn:
            exists = (await conn.execute(text("SELECT count(*) FROM pg_namespace WHERE nspname = :s"),
                                         {"s": schema})).scalar_one()
            tables = (await conn.execute(text("SELECT count(*) FROM pg_tables WHERE schemaname = :s"),
                                         {"s": schema})).scalar_one()
    except OSError as e:
        raise BackupFailed(f"cannot reach {_shown(u)}: {e}") from None
    except Exception as e:
        raise BackupFailed(f"cannot reach {_shown(u)}: {_first_line(str(e))}") from None
    finally:
        await engine.dispose()
    if tables:
        raise BackupRefused(f"{_shown(u)} already holds {tables} tables in schema {schema}: restore "
                            "only into an empty database")
    conninfo, env = _libpq(u)
    args = ["--single-transaction", "--exit-on-error", "--no-owner", "--no-privileges",
            f"--dbname={conninfo}", str(path)]
    if exists:  # the archive's CREATE SCHEMA would fail on the schema that is there
        args.insert(0, f"--schema={schema}")
    await _tool("pg_restore", args, env, BackupFailed,
                f"pg_restore into {_shown(u)} failed, nothing was restored")
    return bool(exists)


async def _migrate(url: str) -> None:
    from .store import Store

    store = await Store.open(url)
    await store.close()


async def _counted(u: URL, revision: str, began: float) -> Restored:
    engine = make_engine(u)
    try:
        async with engine.connect() as conn:
            async def count(table: str) -> int:
                return int((await conn.execute(text(f"SELECT count(*) FROM {table}"))).scalar_one())

            head = (await conn.execute(text("SELECT version_num FROM alembic_version"))).scalar_one()
            chats, sessions, hands = [await count(t) for t in ("chats", "sessions", "hands")]
    finally:
        await engine.dispose()
    return Restored(_shown(u), revision, head, chats, sessions, hands, time.monotonic() - began)


# -- PostgreSQL's tools ----------------------------------------------------------------------------

def _search_path(u: URL) -> str | None:
    value = u.query.get("search_path") or ""
    first = (value[0] if isinstance(value, tuple) else value).split(",")[0].strip()
    return first or None


def _libpq(u: URL) -> tuple[str, dict[str, str]]:
    """The URL as libpq takes it (plain scheme, sslmode, no search_path), and its password
    apart, for PGPASSWORD: never on a command line others can read."""
    query = {k: v for k, v in u.query.items() if k != "search_path"}
    if "ssl" in query:
        query["sslmode"] = query.pop("ssl")
    plain = u.set(drivername="postgresql", password=None, query=query)
    return plain.render_as_string(hide_password=False), (
        {"PGPASSWORD": str(u.password)} if u.password else {})


def _shown(u: URL) -> str:
    return u.set(drivername=u.get_backend_name()).render_as_string(hide_password=True)


def _first_line(message: str) -> str:
    lines = [line.strip() for line in message.strip().splitlines() if line.strip()]
    return lines[0] if lines else "no message"


async def _tool(name: str, args: Sequence[str], env: dict[str, str],
                error: type[Exception], what: str) -> str:
    """Run pg_dump or pg_restore; its output. Fails as `error` with the tool's first error line."""
    program = shutil.which(name)
    if program is None:
        raise BackupFailed(f"{name} is not installed (Debian/Ubuntu: apt-get install "
                           "postgresql-client, the server's major version or newer)")
    proc = await asyncio.create_subprocess_exec(
        program, *args, stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE,
        env={**os.environ, **env})
    out, err = await proc.communicate()
    if proc.returncode != 0:
        errors = [line for line in err.decode(errors="replace").splitlines() if "error" in line]
        raise error(f"{what}: {_first_line(errors[0] if errors else err.decode(errors='replace'))}")
    return out.decode(errors="replace")


def _many(n: int, noun: str) -> str:
    """"1 chat", "3 chats"."""
    return f"{n} {noun}" if n == 1 else f"{n} {noun}s"


def describe(value: Written | Restored) -> str:
    """A one-line account of a backup written or restored, for the command line."""
    if isinstance(value, Written):
        line = (f"wrote {value.path} ({value.size / 1e6:.1f} MB; its SHA-256 beside it in "
                f"{checksum_file(value.path).name}) in {value.seconds:.2f} s")
        if value.removed:
            line += f"; removed {len(value.removed)} older: " + ", ".join(p.name for p in value.removed)
        return line
    migrated = f", migrated to {value.head}" if value.head != value.revision else ""
    return (f"restored {_many(value.chats, 'chat')}, {_many(value.sessions, 'session')}, "
            f"{_many(value.hands, 'hand')} into "
            f"{value.target} (schema {value.revision}{migrated}) in {value.seconds:.2f} s")
