"""The Telegram side of Mahjong Ledger: handlers, keyboards, rendering, translations."""
