"""Settings from the environment; nothing else in the bot reads os.environ."""

from __future__ import annotations

import ipaddress
import os
import re
from dataclasses import dataclass
from urllib.parse import urlsplit

DEFAULT_BASE_URL = "https://api.telegram.org/bot"
TOKEN_HELP = """\
Mahjong Ledger needs a Telegram bot token.

  1. In Telegram, open a chat with @BotFather and send /newbot; follow its questions.
  2. It answers with a token like 123456789:AAE…; set it and start again:

       export TELEGRAM_BOT_TOKEN='123456789:AAE…'
       .venv/bin/mjledger

Optional: DATABASE_URL (default: a SQLite file mjledger.sqlite3 here), TELEGRAM_BASE_URL
(a local Bot API server; TELEGRAM_BASE_FILE_URL where it serves files, if not at its
/file/bot), BOT_MODE=webhook with WEBHOOK_URL and WEBHOOK_SECRET (at least
16 characters).
"""


WEBHOOK_SECRET_MIN = 16
# Telegram's rule for the secret_token of setWebhook.
_SECRET_CHARS = re.compile(r"[A-Za-z0-9_-]{1,256}")
SECRET_HELP = f"""\
BOT_MODE=webhook needs WEBHOOK_SECRET: at least {WEBHOOK_SECRET_MIN} characters of A-Z, a-z, 0-9,
_ and -. Telegram sends it with every update, and the bot refuses requests without it, so
nobody else can post updates to the webhook. Make one with

    python -c "import secrets; print(secrets.token_urlsafe(32))"

and set it:  export WEBHOOK_SECRET='…'
"""


class ConfigError(Exception):
    pass


class MissingToken(ConfigError):
    """No TELEGRAM_BOT_TOKEN: `mjledger` serves the web page alone (bot/web/local.py)."""


# Off loopback the page's password stands between the network and the books: long enough
# that guessing, slowed down per client (bot/web/guard.py), gets nowhere.
PASSWORD_MIN = 12


@dataclass(frozen=True)
class LocalSettings:
    """The web page without Telegram: where it listens, its database, off loopback the
    password every request must give (WEB_PASSWORD, HTTP basic auth), and the names besides
    its address it answers to (WEB_HOSTS, comma-separated)."""

    host: str = "127.0.0.1"
    port: int = 8080
    database_url: str | None = None
    password: str | None = None
    hosts: tuple[str, ...] = ()

    @classmethod
    def from_env(cls, host: str, port: int, env: dict[str, str] | None = None) -> LocalSettings:
        env = dict(os.environ if env is None else env)
        password = env.get("WEB_PASSWORD") or None
        if not is_loopback(host) and not password:
            raise ConfigError(f"--host {host} is reachable from other machines: set WEB_PASSWORD "
                              "(the page then asks for it) or listen on 127.0.0.1")
        if not is_loopback(host) and password and len(password) < PASSWORD_MIN:
            raise ConfigError(f"--host {host} is reachable from other machines: WEB_PASSWORD must "
                              f"be at least {PASSWORD_MIN} characters (it has {len(password)})")
        hosts = tuple(n.strip() for n in env.get("WEB_HOSTS", "").split(",") if n.strip())
        return cls(host=host, port=port, database_url=env.get("DATABASE_URL") or None,
                   password=password, hosts=hosts)


def is_loopback(host: str) -> bool:
    """Only this machine can reach the address (localhost, 127.0.0.0/8, ::1)."""
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def check_webhook_secret(secret: str | None) -> str:
    """The webhook secret if it is usable, else ConfigError saying how to make one."""
    if not secret or len(secret) < WEBHOOK_SECRET_MIN or not _SECRET_CHARS.fullmatch(secret):
        raise ConfigError(SECRET_HELP)
    return secret


@dataclass(frozen=True)
class Settings:
    token: str
    base_url: str = DEFAULT_BASE_URL
    base_file_url: str | None = None
    database_url: str | None = None
    mode: str = "polling"  # polling | webhook
    webhook_url: str | None = None
    webhook_secret: str | None = None
    listen: str = "0.0.0.0"
    port: int | None = None  # the HTTP side (webhook, /healthz); webhook mode defaults to 8080
    # The Mini App (bot/web): the public HTTPS address the HTTP side is reached at, and the
    # app's short name as registered with @BotFather (/newapp); both: /table offers the page
    public_url: str | None = None
    mini_app: str | None = None

    @property
    def file_url(self) -> str:
        """Where the bot downloads files (PTB's base_file_url): base_file_url when given, else
        the file address of the server base_url names. A Bot API server, Telegram's or a local
        one, answers methods at <root>/bot<token>/ and serves files at <root>/file/bot<token>/:
        downloads must not go to api.telegram.org while the methods go elsewhere."""
        if self.base_file_url:
            return self.base_file_url
        if self.base_url.endswith("/bot"):
            return self.base_url.removesuffix("bot") + "file/bot"
        parts = urlsplit(self.base_url)
        return f"{parts.scheme}://{parts.netloc}/file/bot"

    @classmethod
    def from_env(cls, env: dict[str, str] | None = None) -> Settings:
        env = dict(os.environ if env is None else env)
        token = env.get("TELEGRAM_BOT_TOKEN", "").strip()
        if not token:
            raise MissingToken(TOKEN_HELP)
        mode = env.get("BOT_MODE", "polling").strip().lower()
        if mode not in ("polling", "webhook"):
            raise ConfigError(f"BOT_MODE must be 'polling' or 'webhook', not {mode!r}")
        if mode == "webhook" and not env.get("WEBHOOK_URL"):
            raise ConfigError("BOT_MODE=webhook needs WEBHOOK_URL (the public https address)")
        if mode == "webhook":
            check_webhook_secret(env.get("WEBHOOK_SECRET"))
        raw_port = env.get("PORT") or ("8080" if mode == "webhook" else "")
        try:
            port = int(raw_port) if raw_port else None
        except ValueError:
            raise ConfigError(f"PORT must be a number, not {raw_port!r}") from None
        return cls(
            token=token,
            base_url=env.get("TELEGRAM_BASE_URL") or DEFAULT_BASE_URL,
            base_file_url=env.get("TELEGRAM_BASE_FILE_URL") or None,
            database_url=env.get("DATABASE_URL") or None,
            mode=mode,
            webhook_url=env.get("WEBHOOK_URL") or None,
            webhook_secret=env.get("WEBHOOK_SECRET") or None,
            listen=env.get("LISTEN", "0.0.0.0"),
            port=port,
            public_url=(env.get("PUBLIC_URL") or "").rstrip("/") or None,
            mini_app=env.get("MINI_APP_NAME") or None,
        )
