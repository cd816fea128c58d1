"""`mjledger` / `python -m bot`: run the bot (polling by default, webhook with BOT_MODE); without
TELEGRAM_BOT_TOKEN, serve the web page alone (bot/web/local.py). `mjledger backup PATH` copies
the whole database while the bot runs, `mjledger restore BACKUP` puts a copy into an empty
database (db/backup.py; docs/backups.md)."""

from __future__ import annotations

import argparse
import logging
import sys

from .plumbing.config import ConfigError, LocalSettings, MissingToken, Settings


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="mjledger", description="Mahjong Ledger")
    parser.add_argument("--host", default="127.0.0.1",
                        help="without a token: the address the page listens on (default "
                             "127.0.0.1; any other needs WEB_PASSWORD)")
    parser.add_argument("--port", type=int, default=8080,
                        help="without a token: the page's port (default 8080)")
    _add_tools(parser)
    args = parser.parse_args(argv)
    if args.tool is not None:
        return _run_tool(args)
    logging.basicConfig(level=logging.INFO,
                        format="%(asctime)s %(levelname)s %(name)s: %(message)s")
    logging.getLogger("httpx").setLevel(logging.WARNING)
    import asyncio

    try:
        settings = Settings.from_env()
    except MissingToken:
        try:
            local = LocalSettings.from_env(args.host, args.port)
        except ConfigError as exc:
            print(exc, file=sys.stderr)
            return 2
        from .web.local import run_local  # imported late, as the bot's runner below

        host = f"[{local.host}]" if ":" in local.host else local.host
        where = "DATABASE_URL" if local.database_url else "SQLite: mjledger.sqlite3"
        page = f"http://{host}:{local.port}/app/"
        print(f"No TELEGRAM_BOT_TOKEN: serving the ledger's page alone at {page} (its API at "
              f"{page}api/; {where}).", flush=True)
        asyncio.run(run_local(local))
        return 0
    except ConfigError as exc:
        print(exc, file=sys.stderr)
        return 2

    from .runner import run_forever  # imported late: a missing token answers fast

    asyncio.run(run_forever(settings))
    return 0


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
