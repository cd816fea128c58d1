"""The Telegram side of Mahjong Ledger: handlers, keyboards, rendering, translations.

Rooms, lowest first; a module imports only from its own room or the rooms below it:
`plumbing` (Telegram I/O, settings, rate limits, input bounds) < `view` (translations,
rendering, charts, export formats) < `entry` (hand entry: the wizard, the tile keyboard, the /hu
parsers) and `photo` (reading a hand from a photo) < `chat` (what a handler reads about its
chat and session) < `books` (the table's use cases: start a session, seat, book a hand, undo
it, mark a payment, import; typed results and refusals, no Telegram, no HTTP, no words) <
`commands` (the handlers) and `web` (the same books as a web page), which both change the books
only through `books`. No command module imports another; only the composition root at the top
(app, runner, __main__) wires them. tests/test_layout.py checks it.
"""
