"""The backups as deployed: compose's `backup` service (deploy/compose.yaml wires it; the script it
runs, deploy/backup.sh, is run here as that service runs it, against the test PostgreSQL, with
a short interval) and the systemd timer's `mjledger backup` (deploy/mjledger-backup.service)."""

from __future__ import annotations

import asyncio
import configparser
import os
import re
import shlex
import signal
import time
from pathlib import Path
from typing import Any

import pytest
import yaml

from db.models import Base

from .conftest import ROOT, books, mjledger, run
from .test_drill import libpq_env, restore_env
from .test_refused import tables_in

SCRIPT = ROOT / "deploy" / "backup.sh"
DATED = re.compile(r"mjledger-\d{8}T\d{6}Z\.dump")


def test_compose_runs_the_backup_service_with_the_others() -> None:
    services = yaml.safe_load((ROOT / "deploy" / "compose.yaml").read_text())["services"]
    backup, db = services["backup"], services["db"]
    assert backup["image"] == db["image"]  # pg_dump of the server's own version
    assert backup["depends_on"]["db"]["condition"] == "service_healthy"
    assert backup["restart"] == "unless-stopped"
    env, server = backup["environment"], db["environment"]
    assert (env["PGHOST"], env["PGUSER"], env["PGDATABASE"], env["PGPASSWORD"]) == (
        "db", server["POSTGRES_USER"], server["POSTGRES_DB"], server["POSTGRES_PASSWORD"])
    assert "./backup.sh:/usr/local/bin/mjledger-backup:ro" in backup["volumes"]
    # restore accepts the schema revisions of the bot's own migrations
    assert "../db/migrations/versions:/migrations:ro" in backup["volumes"]
    assert (ROOT / "deploy" / "../db/migrations/versions").resolve().is_dir()
    assert backup["entrypoint"] == ["sh", "/usr/local/bin/mjledger-backup"]
    folders = [v.rsplit(":", 1)[0] for v in backup["volumes"] if v.endswith(":" + env["BACKUP_DIR"])]
    assert folders == ["${BACKUP_FOLDER:-./backups}"]  # a folder on the host: deploy/backups
    assert env["BACKUP_INTERVAL"] == "${BACKUP_INTERVAL:-86400}"
    assert env["BACKUP_KEEP"] == "${BACKUP_KEEP:-14}"
    assert backup["healthcheck"]["test"] == ["CMD", "sh", "/usr/local/bin/mjledger-backup", "check"]
    assert "deploy/backups/" in (ROOT / ".gitignore").read_text().splitlines()


async def start(env: dict[str, str]) -> asyncio.subprocess.Process:
    return await asyncio.create_subprocess_exec(
        "sh", str(SCRIPT), env={**os.environ, **env},
        stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE)


async def lines(stream: Any, wanted: str, n: int, timeout: float) -> list[str]:
    """Read the stream until `n` lines holding `wanted` came (all lines read)."""
    seen: list[str] = []
    deadline = time.monotonic() + timeout
    while sum(wanted in line for line in seen) < n:
        line = await asyncio.wait_for(stream.readline(), max(0.1, deadline - time.monotonic()))
        assert line, f"the script ended: {seen}"
        seen.append(line.decode())
    return seen


async def stop(proc: asyncio.subprocess.Process) -> None:
    proc.send_signal(signal.SIGTERM)
    await asyncio.wait_for(proc.wait(), 20)
    assert proc.returncode == 0


async def test_the_first_copy_comes_at_once_and_the_newest_are_kept(new_database: Any,
                                                                    tmp_path: Path) -> None:
    source = await new_database("postgres")
    await books(source)
    folder = tmp_path / "backups"
    env = {**libpq_env(source), "BACKUP_DIR": str(folder), "BACKUP_INTERVAL": "1",
           "BACKUP_KEEP": "2"}
    assert (await run("sh", str(SCRIPT), "check", env=env)).code != 0  # no copy yet: unhealthy
    began = time.monotonic()
    proc = await start(env)
    try:
        log = await lines(proc.stdout, "wrote mjledger-", 1, 60)
        first = time.monotonic() - began
        assert first < 60, first  # compose's promise: the first copy within a minute of start
        log += await lines(proc.stdout, "removed mjledger-", 2, 60)
    finally:
        await stop(proc)
    assert proc.stdout is not None
    log += (await proc.stdout.read()).decode().splitlines()  # what came before the stop
    written = [m.group(0) for line in log if "wrote" in line and (m := DATED.search(line))]
    removed = [m.group(0) for line in log if "removed" in line and (m := DATED.search(line))]
    assert len(written) >= 4 and removed == written[:-2], log
    kept = sorted(p.name for p in folder.iterdir())
    newest = sorted(written)[-2:]
    assert kept == sorted([*newest, *(f"{n}.sha256" for n in newest)]), kept  # nothing half-written
    check = await run("sha256sum", "--check", *(f"{n}.sha256" for n in newest), cwd=folder)
    assert check.code == 0, check
    assert (await run("sh", str(SCRIPT), "check", env=env)).code == 0  # healthy

    # restore (compose: `docker compose run --rm backup restore FILE`) goes only into an
    # empty database, and never from a damaged copy
    copy = folder / newest[-1]
    full = await new_database("postgres")
    await books(full)
    ran = await run("sh", str(SCRIPT), "restore", str(copy), env=restore_env(full))
    tables = len(Base.metadata.tables) + 1  # and alembic_version
    assert ran.code == 2 and f"already holds {tables} tables" in ran.err, ran
    damaged = tmp_path / "damaged.dump"
    data = bytearray(copy.read_bytes())
    data[len(data) * 3 // 4] ^= 0x5A
    damaged.write_bytes(data)
    Path(f"{damaged}.sha256").write_text(Path(f"{copy}.sha256").read_text())
    empty = await new_database("postgres")
    ran = await run("sh", str(SCRIPT), "restore", str(damaged), env=restore_env(empty))
    assert ran.code == 2 and "does not match its checksum" in ran.err, ran
    damaged.write_bytes(copy.read_bytes()[:-100])
    Path(f"{damaged}.sha256").unlink()
    ran = await run("sh", str(SCRIPT), "restore", str(damaged), env=restore_env(empty))
    assert ran.code == 2 and "is damaged, nothing was restored" in ran.err, ran
    assert await tables_in(empty) == []
    ran = await run("sh", str(SCRIPT), "restore", str(copy), env=restore_env(empty))
    assert ran.code == 0, ran
    ran = await mjledger("restore", str(copy), "--database", empty)  # now it holds the books
    assert ran.code == 2 and "restore only into an empty database" in ran.err, ran


async def test_a_failed_copy_is_logged_and_tried_again(tmp_path: Path) -> None:
    folder = tmp_path / "backups"
    env = {"PGHOST": "127.0.0.1", "PGPORT": "1", "PGUSER": "mjledger", "PGDATABASE": "mjledger",
           "BACKUP_DIR": str(folder), "BACKUP_INTERVAL": "1", "BACKUP_KEEP": "2"}  # nobody there
    proc = await start(env)
    try:
        log = await lines(proc.stderr, "FAILED", 2, 30)
    finally:
        await stop(proc)
    failed = [line for line in log if "FAILED" in line]
    assert all("mjledger-backup: FAILED: no copy at" in line and "pg_dump" in line
               for line in failed), failed
    assert list(folder.iterdir()) == []  # no copy, no part of one


@pytest.mark.parametrize(("setting", "value"), [("BACKUP_KEEP", "0"), ("BACKUP_INTERVAL", "1h"),
                                                ("BACKUP_INTERVAL", "-5")])
async def test_a_bad_setting_stops_the_service_saying_which(tmp_path: Path, setting: str,
                                                            value: str) -> None:
    ran = await run("sh", str(SCRIPT), env={"BACKUP_DIR": str(tmp_path), setting: value}, timeout=30)
    assert ran.code == 2 and setting in ran.err and ran.err.count("\n") == 1, ran
    assert list(tmp_path.iterdir()) == []


async def test_the_timer_runs_mjledger_backup_into_a_folder_it_may_write(new_database: Any,
                                                                        tmp_path: Path) -> None:
    unit = configparser.ConfigParser(strict=False, interpolation=None)
    unit.read_string((ROOT / "deploy" / "mjledger-backup.service").read_text())
    bot = configparser.ConfigParser(strict=False, interpolation=None)
    bot.read_string((ROOT / "deploy" / "mjledger.service").read_text())
    service = unit["Service"]
    for same in ("User", "WorkingDirectory", "EnvironmentFile", "ReadWritePaths"):
        assert service[same] == bot["Service"][same], same  # the bot's database, as the bot sees it
    program, tool, folder, *rest = shlex.split(service["ExecStart"])
    assert program == bot["Service"]["ExecStart"] and tool == "backup"
    assert folder.startswith(service["ReadWritePaths"] + "/")
    timer = configparser.ConfigParser(strict=False, interpolation=None)
    timer.read_string((ROOT / "deploy" / "mjledger-backup.timer").read_text())
    assert timer["Timer"]["OnCalendar"] and timer["Install"]["WantedBy"] == "timers.target"

    source = await new_database("sqlite")  # the same arguments, on a folder of the test's
    await books(source)
    (tmp_path / "copies").mkdir()
    ran = await mjledger("backup", str(tmp_path / "copies"), *rest, "--database", source)
    assert ran.code == 0, ran
    assert len(list((tmp_path / "copies").glob("mjledger-*Z.sqlite3"))) == 1
