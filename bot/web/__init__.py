"""The ledger as a web page: the JSON API (api), Telegram's Mini App sign-in (auth), the page
alone without Telegram (local), and the page's files (page/)."""
