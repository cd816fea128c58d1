"""The ledger for a web page: the JSON API (api), Telegram's Mini App sign-in (auth), and the
API alone without Telegram (local)."""
