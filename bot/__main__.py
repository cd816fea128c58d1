"""`mjledger` / `python -m bot`: run the bot (polling by default, webhook with BOT_MODE)."""

from __future__ import annotations

import logging
import sys

from .plumbing.config import ConfigError, Settings


def main() -> int:
    try:
        settings = Settings.from_env()
    except ConfigError as exc:
        print(exc, file=sys.stderr)
        return 2
    logging.basicConfig(level=logging.INFO,
                        format="%(asctime)s %(levelname)s %(name)s: %(message)s")
    logging.getLogger("httpx").setLevel(logging.WARNING)
    import asyncio

    from .runner import run_forever  # imported late: a missing token answers fast

    asyncio.run(run_forever(settings))
    return 0


if __name__ == "__main__":
    sys.exit(main())
