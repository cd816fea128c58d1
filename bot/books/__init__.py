"""The table's use cases, one way for every front end: the chat's handlers (bot/commands) and
the page's API (bot/web) both call them. A session started, seated, its stake set, ended or
imported (`sessions`); a hand checked, booked at the table its preview showed, undone
(`hands`); a transfer marked paid, a payment confirmed (`payments`).

Each takes the store, the session or chat and plain inputs, and returns plain data (dataclasses)
or raises a refusal (`refusals`: a class per kind with the data to word it, no words of its own);
each front end words them, the chat in its messages, the page's API as JSON with a code. No
Telegram, no HTTP, no translations here."""
