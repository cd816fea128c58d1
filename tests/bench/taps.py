"""How many taps a hand takes after `/hand`: the real bot, driven over the fake Bot API like a
player at the table would, for a fixed list of typical hands of every variant.

    .venv/bin/python -m tests.bench.taps

prints taps per hand and the median. Every script must store exactly the hand it names (its
events are compared with the stored record), so a shorter script that records something else
fails instead of looking fast. `bench_taps.py` runs the same list as a test and holds the target:
an ordinary hand (one winner, one or two features) in at most 4 taps, a discard win one more.

Before the issue-12 flow (way of winning → winner → Next → discarder → cycling forms → Add →
Preview → Confirm) the same hands took a median of 7 taps (5 to 15); with the winner first,
Self-draw beside the name, the discarder in one tap, forms in one tap and Confirm on the form
of the event that ends the hand: a median of 4 (2 to 10).
"""

from __future__ import annotations

import asyncio
import statistics
import tempfile
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from bot.plumbing.config import Settings
from bot.runner import serve
from db import Store
from tests.e2e.table import Table
from tests.fake_telegram import FakeTelegram

Step = str | tuple[str, str] | tuple[str, str, int]  # a label, or (row anchor, label[, times])


@dataclass(frozen=True)
class Hand:
    variant: str
    name: str
    steps: Sequence[Step]
    events: list[dict[str, Any]]
    ordinary: bool = False  # one winner, one or two features: the 4-tap target (discard: 5)


def win(by: str, winners: list[dict[str, Any]], frm: int | None = None) -> dict[str, Any]:
    ev: dict[str, Any] = {"type": "win", "by": by}
    if frm is not None:
        ev["from"] = frm
    return {**ev, "winners": winners}


HANDS: list[Hand] = [
    Hand("guiyang", "self-draw, plain", [("Alice", "Self-draw"), "Confirm"],
         [win("self_draw", [{"seat": 0}])], ordinary=True),
    Hand("guiyang", "discard, all pungs", ["Carol", "← North", "all pungs", "Confirm"],
         [win("discard", [{"seat": 2, "form": "all_pungs"}], 3)], ordinary=True),
    Hand("guiyang", "self-draw + chickens (5p flipped, one 幺鸡)",
         [("Alice", "Self-draw"), "More", "Chickens", "Flipped tile", "5p",
          ("East Alice", "+1 bamboo"), "Confirm"],
         [win("self_draw", [{"seat": 0}]),
          {"type": "chickens", "flipped": "5p", "seats": {"0": {"yaoji": 1}}}]),
    Hand("cixi", "discard, one joker", ["Carol", "← East", ("joker", "+"), "Confirm"],
         [win("discard", [{"seat": 2, "jokers": 1}], 0)], ordinary=True),
    Hand("cixi", "self-draw, two jokers, all pungs",
         [("Dan", "Self-draw"), ("joker", "+", 2), "all pungs", "Confirm"],
         [win("self_draw", [{"seat": 3, "jokers": 2, "all_pungs": True}])]),
    Hand("feibao", "self-draw with jing", [("Bob", "Self-draw"), "with jing", "Confirm"],
         [win("self_draw", [{"seat": 1, "jing": True}])], ordinary=True),
    Hand("feibao", "self-draw, seven pairs", [("Carol", "Self-draw"), "seven pairs", "Confirm"],
         [win("self_draw", [{"seat": 2, "form": "seven_pairs"}])], ordinary=True),
    Hand("hainan", "self-draw, all pungs, pure suit",
         [("Bob", "Self-draw"), "all pungs", "pure suit", "Confirm"],
         [win("self_draw", [{"seat": 1, "all_pungs": True, "pure": True}])], ordinary=True),
    Hand("hainan", "discard, half flush", ["Carol", "← North", "half flush", "Confirm"],
         [win("discard", [{"seat": 2, "half_flush": True}], 3)], ordinary=True),
    Hand("luzhou", "three wins (blood battle)",
         [("Bob", "Self-draw"), "pure suit", "Add", "Carol", "← North", "all pungs", "Add",
          ("Alice", "Self-draw"), "Confirm"],
         [win("self_draw", [{"seat": 1, "pure": True}]),
          win("discard", [{"seat": 2, "form": "all_pungs"}], 3),
          win("self_draw", [{"seat": 0}])]),
    Hand("luzhou", "one win, then the wall runs out",
         [("Bob", "Self-draw"), "pure suit", "Add", "Wall exhausted", "Alice", "Dan",
          ("Dan", "✎"), "all pungs", "Done", "Confirm"],
         [win("self_draw", [{"seat": 1, "pure": True}]),
          {"type": "exhausted", "ready": {"0": {}, "2": None, "3": {"form": "all_pungs"}}}]),
]


async def _enter(table: Table, store: Store, hand: Hand, hand_no: int) -> int:
    """Tap `hand`'s script into a fresh /hand wizard; returns the taps it took."""
    user = table.players[0]
    msg = await table.say(user, "/hand")
    taps = 0
    for step in hand.steps:
        anchor, label, times = ((None, step, 1) if isinstance(step, str)
                                else (step[0], step[1], step[2] if len(step) > 2 else 1))
        for _ in range(times):
            if anchor is None:
                answer = await table.tap(user, msg, label)
            else:
                answer = await table.tap_in_row(user, msg, anchor, label)
            taps += 1
            screen = table.message(msg.message_id)
            assert not answer.get("show_alert"), (hand.name, label, answer, screen.text,
                                                  screen.button_labels)
    done = table.message(msg.message_id)
    assert f"Hand {hand_no} recorded" in done.text, (hand.name, done.text, done.button_labels)
    session = await store.running_session(table.chat_id)
    stored = max(await store.history(session.id, limit=50), key=lambda h: h.seq)
    assert stored.record["events"] == hand.events, (hand.name, stored.record["events"])
    return taps


async def measure(hands: Sequence[Hand] = HANDS) -> list[tuple[Hand, int]]:
    """Enter every hand through the real bot; (hand, taps) in order."""
    out: list[tuple[Hand, int]] = []
    with tempfile.TemporaryDirectory() as tmp:
        url = f"sqlite+aiosqlite:///{Path(tmp)}/taps.sqlite3"
        async with FakeTelegram() as tg:
            settings = Settings(token=tg.token, base_url=tg.base_url,  # type: ignore[call-arg]
                                base_file_url=tg.base_file_url, database_url=url)
            async with serve(settings, poll_timeout=1):
                store = await Store.open(url)
                try:
                    players = [tg.user(101 + i, n, n.lower())
                               for i, n in enumerate(("Alice", "Bob", "Carol", "Dan"))]
                    for variant in dict.fromkeys(h.variant for h in hands):
                        table = Table(tg, tg.group(f"{variant} night"), players)
                        await table.seat_everyone(variant)
                        mine = [h for h in hands if h.variant == variant]
                        for n, hand in enumerate(mine, 1):
                            out.append((hand, await _enter(table, store, hand, n)))
                finally:
                    await store.close()
            assert not tg.internal_errors, tg.internal_errors
    return out


def report(results: list[tuple[Hand, int]]) -> str:
    lines = [f"{'variant':8} {'taps':>4}  hand"]
    lines += [f"{h.variant:8} {n:>4}  {h.name}" for h, n in results]
    counts = [n for _, n in results]
    lines.append(f"median {statistics.median(counts)} taps after /hand "
                 f"(min {min(counts)}, max {max(counts)}, {len(counts)} hands)")
    return "\n".join(lines)


if __name__ == "__main__":
    print(report(asyncio.run(measure())))
