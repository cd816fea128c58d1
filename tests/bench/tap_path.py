"""The path of one tap through the code: which of the project's files (bot/, db/, scoring/) it
passes through, in order, from the handler's start to its end. A tool, not a test:

    .venv/bin/python -m tests.bench.tap_path

drives the real bot against the fake Bot API (a Hainan table: /hand, East self-drawn, then a
feature toggled and Confirm) and prints, for each of the two taps, its stops (stays in one file),
the files, and the returns (stops in a file it had left before): a measure of how far a reader
has to follow one tap. Only genuine calls count: a coroutine resumed after an await is not a
stop of its own.
"""

from __future__ import annotations

import asyncio
import dis
import os
import sys
import tempfile
from functools import cache
from pathlib import Path
from types import CodeType, FrameType
from typing import Any

ROOT = str(Path(__file__).resolve().parents[2])
PROJECT = tuple(os.path.join(ROOT, p, "") for p in ("bot", "db", "scoring"))
SUSPENDABLE = 0x20 | 0x80 | 0x100 | 0x200  # generator, coroutine, iterable coroutine, async gen


@cache
def _first_resume(code: CodeType) -> int:
    return next((i.offset for i in dis.get_instructions(code) if i.opname == "RESUME"), 0)


def _genuine(frame: FrameType) -> bool:
    """A call, not a coroutine or generator resumed where it waited."""
    code = frame.f_code
    return not code.co_flags & SUSPENDABLE or frame.f_lasti <= _first_resume(code)


def _file(frame: FrameType | None) -> str | None:
    while frame is not None:
        name = frame.f_code.co_filename
        if name.startswith(PROJECT):
            return os.path.relpath(name, ROOT).removesuffix(".py")
        frame = frame.f_back
    return None


class CallPath:
    """The stops of the calls made under one of `roots` (handler functions)."""

    def __init__(self, roots: set[CodeType]) -> None:
        self.roots = roots
        self.stops: list[str] = []

    def _under_root(self, frame: FrameType | None) -> bool:
        while frame is not None:
            if frame.f_code in self.roots:
                return True
            frame = frame.f_back
        return False

    def profile(self, frame: FrameType, event: str, arg: Any) -> None:
        if event != "call" or not _genuine(frame) or not self._under_root(frame):
            return
        for f in (_file(frame.f_back), _file(frame)):
            if f is not None and (not self.stops or self.stops[-1] != f):
                self.stops.append(f)

    def report(self, name: str) -> str:
        files = list(dict.fromkeys(self.stops))
        return (f"{name}: {len(self.stops)} stops in {len(files)} files, "
                f"{len(self.stops) - len(files)} returns\n  " + " > ".join(self.stops))


async def _traced(paths: list[CallPath], act: Any) -> Any:
    for path in paths:
        path.stops = []

    def profile(frame: FrameType, event: str, arg: Any) -> None:
        for path in paths:
            path.profile(frame, event, arg)

    sys.setprofile(profile)
    try:
        return await act
    finally:
        sys.setprofile(None)


async def main() -> None:
    from bot.commands import hands
    from bot.entry.wizard import flow
    from bot.runner import serve
    from tests.e2e.conftest import settings_for
    from tests.e2e.table import Table
    from tests.fake_telegram import FakeTelegram

    paths = [CallPath({hands.on_wizard_button.__code__}), CallPath({flow.press.__code__})]
    with tempfile.TemporaryDirectory() as tmp:
        async with FakeTelegram() as tg, serve(settings_for(
                tg, f"sqlite+aiosqlite:///{tmp}/bot.sqlite3"), poll_timeout=1):
            players = [tg.user(101 + i, name, name.lower())
                       for i, name in enumerate(("Alice", "Bob", "Carol", "Dan"))]
            table = Table(tg, tg.group("Path"), players)
            await table.seat_everyone("hainan")
            alice = players[0]
            wiz = await table.say(alice, "/hand")
            await table.tap_in_row(alice, wiz, "East", "Self-draw")
            await table.tap(alice, wiz, "all chows")  # once first: every later call is warm
            for label, name in (("all chows", "a feature toggled"), ("Confirm", "Confirm")):
                await _traced(paths, table.tap(alice, wiz, label))
                print(paths[0].report(f"{name}, the handler (on_wizard_button)"))
                print(paths[1].report(f"{name}, press alone"))


if __name__ == "__main__":
    asyncio.run(main())
