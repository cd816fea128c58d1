"""Migration 0009 (seats that change hands, scorekeepers) keeps every chat's books: a database
written by the code before it (tests/db/before_seats.py, run on that code; its files are in
tests/db/data/) is migrated, and /table, /history, /settle and /export say byte for byte what
they said before. Then the books go on: a seat changes hands and each person keeps their own."""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

from db import Store

from .before_seats import CHAT, luzhou_hand, render

DATA = Path(__file__).parent / "data"


def since(key: str, text: object) -> object:
    """What the code before said, with the one wording mended since that changes no meaning:
    English /settle in points spaces its unit ("+23 ke", was "+23</b>ke")."""
    if key.startswith("en /settle") and isinstance(text, str):
        return re.sub(r"</b>(ke|points)\b", r"</b> \1", text)
    return text


async def test_the_books_read_the_same_after_the_migration(tmp_path: Path) -> None:
    db = tmp_path / "before.sqlite3"
    shutil.copy(DATA / "before_seats.sqlite3", db)
    before = json.loads((DATA / "before_seats.json").read_text(encoding="utf-8"))
    store = await Store.open(f"sqlite:///{db}")  # migrates to the newest revision
    try:
        after = await render(store)
        assert after.keys() == before.keys()
        for key in before:
            assert after[key] == since(key, before[key]), key
        # and they go on: the running session's East seat changes hands
        running = await store.running_session(CHAT)
        assert running is not None
        old = await store.totals(running.id)
        guest = await store.add_guest(CHAT, "Sub")
        await store.replace_player(running.id, 0, guest.id)
        import random
        record, outcome = luzhou_hand(random.Random(1))
        await store.record_hand(running.id, record, outcome, entered_by=None,
                                idempotency_key="after:1")
        results = {r.person_id: r.points for r in await store.person_results([running.id])}
        assert results[running.seats[0]] == old[0]  # the one who left keeps theirs
        assert results[guest.id] == outcome["deltas"][0]
        assert sum(results.values()) == 0
    finally:
        await store.close()
