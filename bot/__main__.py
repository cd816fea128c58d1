"""`mjledger` / `python -m bot`: run the bot (polling by default, webhook with BOT_MODE); without
TELEGRAM_BOT_TOKEN, serve the web page alone (bot/web/local.py)."""

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
    args = parser.parse_args(argv)
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


if __name__ == "__main__":
    sys.exit(main())
