"""A chat's books as the code before seat changes (migration 0009) wrote them, and what /table,
/history, /settle and /export said of them then: tests/db/test_books_survive_0009.py migrates
the stored database and compares.

`python -m tests.db.before_seats DIR` writes DIR/before_seats.sqlite3 and DIR/before_seats.json
(run it from a checkout of the code before the change, e.g. `git archive 8a3ab50`; the files
in tests/db/data/ were made that way). Only what both versions have is used here."""

from __future__ import annotations

import asyncio
import json
import random
import sys
from pathlib import Path
from typing import Any

from bot.chat.settle import settlement
from bot.chat.table import history_blocks, seat_names, table_lines
from bot.view.export import session_files
from bot.view.i18n import translator
from db import Store
from scoring import score

CHAT = -100777
LANGS = ("en", "zh-Hans")
LUZHOU = [(1, "self_draw", None, {"pure": True}), (2, "discard", 3, {"form": "all_pungs"}),
          (0, "self_draw", None, {}), (3, "discard", 1, {"pure": True, "form": "all_pungs"}),
          (2, "self_draw", None, {"form": "all_pungs"}), (1, "discard", 0, {"pure": True})]


def luzhou_hand(rng: random.Random) -> tuple[dict[str, Any], dict[str, Any]]:
    winner, by, frm, features = rng.choice(LUZHOU)
    event: dict[str, Any] = {"type": "win", "by": by, "winners": [{"seat": winner, **features}]}
    if frm is not None:
        event["from"] = frm
    ready = {"type": "exhausted", "ready": {str(s): {} for s in range(4) if s != winner}}
    record = {"variant": "luzhou", "dealer": 0, "dealer_streak": 1, "round_wind": 0,
              "events": [event, ready]}
    return record, score(record).to_dict()


async def write_books(store: Store) -> None:
    """Three sessions of one chat: ended with a stake and a payment, ended without a stake, and
    one running (a hand undone in each)."""
    rng = random.Random(35)
    members = [await store.upsert_user(7700 + i, name, username=f"u{i}")
               for i, name in enumerate(("Ann", "<b>Bo", "Cy", "Di"))]
    guests = [await store.add_guest(CHAT, name) for name in ("王芳", "李四")]
    lineups = [[m.id for m in members], [members[0].id, guests[0].id, members[2].id, guests[1].id],
               [guests[1].id, members[1].id, guests[0].id, members[3].id]]
    for n, (seats, stake, count) in enumerate(zip(lineups, (50, 0, 20), (9, 5, 7), strict=True)):
        session = await store.start_session(CHAT, "luzhou", {}, stake_cents=stake,
                                            started_by=members[0].id)
        for seat, pid in enumerate(seats):
            session = await store.seat_player(session.id, seat, pid)
        for i in range(count):
            record, outcome = luzhou_hand(rng)
            hand = await store.record_hand(session.id, record, outcome, entered_by=seats[0],
                                           idempotency_key=f"before:{n}:{i}")
            if i == 3:
                await store.void_hand(hand.id, by=seats[0], reason="wrong winner")
        if n == 0:
            await store.record_payment(CHAT, members[3].id, members[1].id, 150,
                                       session_id=session.id, recorded_by=members[1].id,
                                       confirmed=True)
        if n < 2:
            await store.end_session(session.id)


async def render(store: Store) -> dict[str, Any]:
    """What the chat saw: per language /table of the running session, /history and /export
    of every session, /settle of the chat and of each session."""
    out: dict[str, Any] = {}
    sessions = await store.chat_sessions(CHAT, include_settled=True)
    for lang in LANGS:
        t = translator(lang)
        running = await store.running_session(CHAT)
        assert running is not None
        out[f"{lang} /table"] = "\n".join(await table_lines(store, running, t, lang))
        out[f"{lang} /settle"] = (await settlement(store, CHAT, t, lang, None)).text
        for s in sessions:
            out[f"{lang} /history {s.number}"] = "\n\n".join(
                await history_blocks(store, s, t, lang, 100))
            out[f"{lang} /settle {s.number}"] = (await settlement(store, CHAT, t, lang, s.id)).text
    for s in sessions:
        names = [n or "?" for n in await seat_names(store, s)]
        (_, csv_data), (_, json_data) = await session_files(store, s, names)
        out[f"/export {s.number} csv"] = csv_data.decode("utf-8")
        out[f"/export {s.number} json"] = json_data.decode("utf-8")
    return out


async def main(folder: Path) -> None:
    folder.mkdir(parents=True, exist_ok=True)
    db = folder / "before_seats.sqlite3"
    db.unlink(missing_ok=True)
    store = await Store.open(f"sqlite:///{db}")
    try:
        await write_books(store)
        seen = await render(store)
    finally:
        await store.close()
    (folder / "before_seats.json").write_text(json.dumps(seen, ensure_ascii=False, indent=1) + "\n",
                                              encoding="utf-8")


if __name__ == "__main__":
    asyncio.run(main(Path(sys.argv[1])))
