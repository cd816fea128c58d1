"""Starting `mjledger` (issue 37): a database it cannot use, a folder it cannot write, a port
taken or out of range each end the start with one line saying what is wrong and what to do,
before anything claims to serve, and a non-zero exit; a good start says one line and stays
quiet (--verbose or LOG_LEVEL for more)."""

from __future__ import annotations

import os
import shutil
import signal
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


def mjledger(*args: str, env: dict[str, str] | None = None, cwd: Path,
             timeout: float = 90) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "bot", *args], cwd=cwd, capture_output=True,
                          text=True, timeout=timeout, env=clean_env(env))


def clean_env(extra: dict[str, str] | None = None) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items()
           if k not in ("TELEGRAM_BOT_TOKEN", "DATABASE_URL", "LOG_LEVEL", "WEB_PASSWORD")}
    return {**env, "PYTHONPATH": str(ROOT), **(extra or {})}


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def one_line_before_serving(done: subprocess.CompletedProcess[str], code: int, *words: str) -> None:
    assert done.returncode == code, done
    assert "serving" not in done.stdout and done.stdout == "", done
    assert done.stderr.count("\n") == 1 and done.stderr.startswith("mjledger: "), done.stderr
    assert "Traceback" not in done.stderr
    for word in words:
        assert word in done.stderr, done.stderr


@pytest.mark.parametrize(("url", "code", "words"), [
    ("bogus", 2, ["DATABASE_URL='bogus' cannot be used", "give sqlite:///"]),
    ("mysql://me:secret@db.example/ledger", 2, ["unsupported database 'mysql'", "postgresql://"]),
    ("postgresql://me:secret@127.0.0.1:1/ledger", 1, ["cannot use the database", "127.0.0.1:1",
                                                       "check that it is running"]),
])
def test_a_database_it_cannot_use_is_one_line(tmp_path: Path, url: str, code: int,
                                              words: list[str]) -> None:
    done = mjledger("--port", str(free_port()), env={"DATABASE_URL": url}, cwd=tmp_path)
    one_line_before_serving(done, code, *words)
    assert "secret" not in done.stderr  # the password is not printed


def test_a_port_out_of_range_is_one_line(tmp_path: Path) -> None:
    done = mjledger("--port", "99999", cwd=tmp_path)
    one_line_before_serving(done, 2, "--port 99999 is not a port", "1 to 65535")
    assert not (tmp_path / "mjledger.sqlite3").exists()


def test_a_port_in_use_is_one_line(tmp_path: Path) -> None:
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        done = mjledger("--port", str(port), cwd=tmp_path)
    one_line_before_serving(done, 1, f"port {port} on 127.0.0.1 is already in use",
                            f"--port {port + 1}")


@pytest.mark.skipif(shutil.which("unshare") is None, reason="no unshare here")
def test_a_folder_it_cannot_write_is_one_line(tmp_path: Path) -> None:
    """The working directory is read-only (mounted so: even root cannot write it)."""
    folder = tmp_path / "ro"
    folder.mkdir()
    flags = [] if os.geteuid() == 0 else ["-r"]
    probe = subprocess.run(["unshare", *flags, "-m", "true"], capture_output=True)
    if probe.returncode != 0:
        pytest.skip("cannot make a mount namespace here")
    script = (f"mount -t tmpfs -o ro,size=1m none '{folder}' && cd '{folder}' && "
              f"exec '{sys.executable}' -m bot --port {free_port()}")
    done = subprocess.run(["unshare", *flags, "-m", "sh", "-c", script], capture_output=True,
                          text=True, timeout=90, env=clean_env())
    one_line_before_serving(done, 1, f"SQLite database {folder}/mjledger.sqlite3",
                            "a folder you may write", "DATABASE_URL=sqlite:///")


def serve_and_stop(tmp_path: Path, *args: str, env: dict[str, str] | None = None) -> tuple[str, str]:
    """Start the page, fetch it once, stop it: (stdout, stderr)."""
    port = free_port()
    proc = subprocess.Popen([sys.executable, "-m", "bot", "--port", str(port), *args], cwd=tmp_path,
                            env=clean_env(env), stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            text=True)
    try:
        assert proc.stdout is not None
        first = proc.stdout.readline()
        assert f"http://127.0.0.1:{port}/app/" in first, first
        deadline = time.monotonic() + 30
        while True:
            try:
                with urllib.request.urlopen(f"http://127.0.0.1:{port}/app/", timeout=10) as r:
                    assert r.status == 200
                break
            except OSError:
                assert time.monotonic() < deadline
                time.sleep(0.2)
    finally:
        proc.send_signal(signal.SIGTERM)
        out, err = proc.communicate(timeout=30)
    assert proc.returncode == 0, (proc.returncode, err)
    return first + out, err


def test_a_start_is_one_line_and_quiet(tmp_path: Path) -> None:
    out, err = serve_and_stop(tmp_path)
    assert out.count("\n") == 1 and out.startswith("No TELEGRAM_BOT_TOKEN: serving"), out
    assert err == "", err  # no migration steps, no line per request


@pytest.mark.parametrize("how", ["--verbose", "LOG_LEVEL=INFO"])
def test_verbose_or_log_level_tells_more(tmp_path: Path, how: str) -> None:
    args, env = ([how], None) if how.startswith("--") else ([], dict([how.split("=")]))
    out, err = serve_and_stop(tmp_path, *args, env=env)
    assert "alembic.runtime.migration" in err and "Running upgrade" in err, err
    assert "GET /app/" in err, err


def test_a_bad_log_level_is_one_line(tmp_path: Path) -> None:
    done = mjledger("--port", str(free_port()), env={"LOG_LEVEL": "LOUD"}, cwd=tmp_path)
    one_line_before_serving(done, 2, "LOG_LEVEL=LOUD is not a level")
