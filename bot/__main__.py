"""`mjledger` / `python -m bot`: run the bot (polling by default, webhook with BOT_MODE); without
TELEGRAM_BOT_TOKEN, serve the web page alone (bot/web/local.py). `mjledger backup PATH` copies
the whole database while the bot runs, `mjledger restore BACKUP` puts a copy into an empty
database (db/backup.py; docs/backups.md)."""

from __future__ import annotations

import argparse
import errno
import logging
import os
import sys
from pathlib import Path

from .plumbing.config import ConfigError, LocalSettings, MissingToken, Settings


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="mjledger", description="Mahjong Ledger")
    parser.add_argument("--host", default="127.0.0.1",
                        help="without a token: the address the page listens on (default "
                             "127.0.0.1; any other needs WEB_PASSWORD)")
    parser.add_argument("--port", type=int, default=8080,
                        help="without a token: the page's port (default 8080)")
    parser.add_argument("--verbose", "-v", action="store_true",
                        help="log migrations, Telegram's and every HTTP request too "
                             "(LOG_LEVEL=DEBUG|INFO|WARNING sets the level)")
    _add_tools(parser)
    args = parser.parse_args(argv)
    if args.tool is not None:
        return _run_tool(args)
    problem = _quiet_unless(args.verbose) or _bad_port(args.port) or _bad_database_url()
    if problem:
        print(f"mjledger: {problem}", file=sys.stderr)
        return 2
    import asyncio

    try:
        settings = Settings.from_env()
    except MissingToken:
        try:
            local = LocalSettings.from_env(args.host, args.port)
        except ConfigError as exc:
            print(exc, file=sys.stderr)
            return 2
        return asyncio.run(_serve_page(local))
    except ConfigError as exc:
        print(exc, file=sys.stderr)
        return 2

    from .runner import run_forever  # imported late: a missing token answers fast

    asyncio.run(run_forever(settings))
    return 0


# Loggers that say a line per migration step, per HTTP request or per poll: heard with
# --verbose or LOG_LEVEL only (their warnings and errors always).
_CHATTY = ("alembic", "aiohttp.access", "httpx", "telegram", "apscheduler")


def _quiet_unless(verbose: bool) -> str | None:
    """Logging: quiet by default (this program's own notices and everyone's warnings),
    everything at LOG_LEVEL or with --verbose. A problem with LOG_LEVEL, or None."""
    chosen = os.environ.get("LOG_LEVEL", "").strip().upper()
    if chosen and chosen not in ("DEBUG", "INFO", "WARNING", "ERROR", "CRITICAL"):
        return (f"LOG_LEVEL={chosen} is not a level: give DEBUG, INFO, WARNING or ERROR "
                "(or leave it unset)")
    logging.basicConfig(level=chosen or logging.INFO,
                        format="%(asctime)s %(levelname)s %(name)s: %(message)s")
    if not chosen and not verbose:
        for name in _CHATTY:
            logging.getLogger(name).setLevel(logging.WARNING)
    return None


def _bad_port(port: int) -> str | None:
    if 1 <= port <= 65535:
        return None
    return f"--port {port} is not a port: give a number from 1 to 65535 (the default is 8080)"


def _bad_database_url() -> str | None:
    """DATABASE_URL that names no database this program can use, in one line."""
    from db.config import async_url, database_url

    url = database_url()
    try:
        async_url(url)
    except Exception as exc:  # an unparsable URL, another kind of database
        why = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
        return (f"DATABASE_URL={_shown(url)} cannot be used ({why}): give "
                "sqlite:///path/to/mjledger.sqlite3 or postgresql://user:password@host/database")
    return None


def _shown(url: str) -> str:
    """A URL without its password."""
    from sqlalchemy.engine import make_url

    try:
        return make_url(url).render_as_string(hide_password=True)
    except Exception:
        return repr(url)


async def _serve_page(local: LocalSettings) -> int:
    """The page alone: the database opened and the port taken before it says it serves; either
    failing is one line on stderr and exit status 1."""
    import asyncio
    import signal
    from contextlib import AsyncExitStack, suppress

    from db import Store
    from db.config import database_url

    from .web.local import serve_local  # imported late, as the bot's runner

    url = database_url(local.database_url)
    try:
        store = await Store.open(url)
    except Exception as exc:
        print(f"mjledger: {_database_problem(url, exc)}", file=sys.stderr)
        return 1
    async with AsyncExitStack() as stack:
        stack.push_async_callback(store.close)
        try:
            page = await stack.enter_async_context(serve_local(local, store))
        except OSError as exc:
            print(f"mjledger: {_port_problem(local, exc)}", file=sys.stderr)
            return 1
        where = "DATABASE_URL" if local.database_url else "SQLite: mjledger.sqlite3"
        print(f"No TELEGRAM_BOT_TOKEN: serving the ledger's page alone at {page} (its API at "
              f"{page}api/; {where}).", flush=True)
        stop = asyncio.Event()
        loop = asyncio.get_running_loop()
        for sig in (signal.SIGINT, signal.SIGTERM):
            with suppress(NotImplementedError):
                loop.add_signal_handler(sig, stop.set)
        await stop.wait()
    return 0


def _database_problem(url: str, exc: BaseException) -> str:
    """What is wrong with the database at start, and what to do, in one line."""
    from sqlalchemy.engine import make_url

    cause = getattr(exc, "orig", None) or exc
    why = (str(cause).strip().splitlines() or [type(cause).__name__])[0][:200]
    u = make_url(url)
    if u.get_backend_name() == "sqlite":
        file = Path(u.database or "mjledger.sqlite3").resolve()
        return (f"cannot open or write the SQLite database {file} ({why}): run from a folder "
                "you may write, or set DATABASE_URL=sqlite:///a/path/you/may/write.sqlite3")
    return (f"cannot use the database {_shown(url)} ({why}): check that it is running and "
            "reachable and that DATABASE_URL's user, password and database name are right")


def _port_problem(local: LocalSettings, exc: OSError) -> str:
    if exc.errno == errno.EADDRINUSE:
        return (f"port {local.port} on {local.host} is already in use (another mjledger?): "
                f"stop that program, or start with --port {local.port + 1}")
    if exc.errno == errno.EACCES:
        return (f"may not listen on port {local.port} (ports below 1024 need root): "
                "give --port 8080 or another above 1023")
    return (f"cannot listen on {local.host} port {local.port} ({exc.strerror or exc}): "
            "give another --host or --port")


def _add_tools(parser: argparse.ArgumentParser) -> None:
    tools = parser.add_subparsers(dest="tool", title="tools (without one: run the bot)",
                                  metavar="{backup,restore}")
    database = {"metavar": "URL", "help": "the database (default: $DATABASE_URL, else "
                                          "mjledger.sqlite3 in the working directory)"}
    backup = tools.add_parser(
        "backup", help="copy the whole database, while the bot runs",
        description="Copy the whole database while the bot runs: SQLite through its online "
                    "backup API, PostgreSQL with pg_dump --format=custom.")
    backup.add_argument("path", metavar="PATH", help="a file, or a folder that gets a dated copy "
                        "(mjledger-<UTC time>.sqlite3 or .dump)")
    backup.add_argument("--keep", type=_at_least_one, metavar="N",
                        help="PATH a folder: keep its newest N dated copies, remove the older")
    backup.add_argument("--database", **database)
    restore = tools.add_parser(
        "restore", help="restore a backup into an empty database",
        description="Restore a backup into an empty database (a new SQLite file, or a PostgreSQL "
                    "database without tables) and bring it to the newest schema. The backup is "
                    "read whole and checked first: a damaged one is refused, changing nothing.")
    restore.add_argument("backup", metavar="BACKUP", help="a file `mjledger backup` wrote")
    restore.add_argument("--database", **database)


def _at_least_one(value: str) -> int:
    if not value.isdigit() or int(value) < 1:
        raise argparse.ArgumentTypeError(f"{value!r} is not a whole number of at least 1")
    return int(value)


def _run_tool(args: argparse.Namespace) -> int:
    """`backup` or `restore`: one line on stdout when done; on failure one line on stderr and
    exit status 2 (bad input, nothing changed) or 1 (the database or a tool failed)."""
    import asyncio

    from db.backup import BackupFailed, BackupRefused, backup, describe, restore

    try:
        if args.tool == "backup":
            done = asyncio.run(backup(args.path, args.database, keep=args.keep))
        else:
            done = asyncio.run(restore(args.backup, args.database))
    except (BackupRefused, ValueError) as exc:  # ValueError: a URL of another database
        print(f"mjledger {args.tool}: {exc}", file=sys.stderr)
        return 2
    except (BackupFailed, OSError) as exc:
        print(f"mjledger {args.tool}: {exc}", file=sys.stderr)
        return 1
    print(f"mjledger {args.tool}: {describe(done)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
