"""The ledger for a web page: the JSON API (api), Telegram's Mini App sign-in and the chat's
membership (auth), the API alone without Telegram (local), and what every request must pass
and every answer carries (guard)."""
