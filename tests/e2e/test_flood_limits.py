"""Telegram's per-group flood limit, end to end over HTTP: a group that has sent its 20 messages a
minute gets 429 with retry_after, and only that group waits it out (bot/plumbing/ratelimit.py); another
chat's command is answered at once. PTB's AIORateLimiter paused every chat instead."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from tests.databases import BACKENDS, fresh_database
from tests.fake_telegram import FakeTelegram
from tests.fake_telegram.models import RecordedRequest

from .table import TIMEOUT, Table

PENALTY = 4  # seconds of retry_after for the flooded group


@pytest.fixture(params=BACKENDS)
async def db_url(request: pytest.FixtureRequest, tmp_path: Path) -> AsyncIterator[str]:
    """SQLite, and PostgreSQL too when TEST_DATABASE_URL is set."""
    async with fresh_database(request.param, tmp_path) as url:
        yield url


@pytest.mark.filterwarnings("ignore::telegram.warnings.PTBDeprecationWarning")  # retry_after's type
async def test_a_flooded_group_does_not_hold_up_another_chat(bot: object,
                                                            tg: FakeTelegram) -> None:
    alice, bob = tg.user(101, "Alice", "alice"), tg.user(102, "Bob", "bob")
    busy = Table(tg, tg.group("Busy table"), [alice])
    quiet = Table(tg, tg.group("Quiet table"), [bob])
    tg.limit_group_messages(per_minute=20, retry_after=PENALTY)

    replies = [await busy.say(alice, "/table") for _ in range(20)]  # the group's quota

    def to(chat: Table, ok: bool):
        return lambda r: r.params.get("chat_id") == chat.chat_id and r.ok == ok

    start = len(tg.requests)
    await tg.send_message(busy.chat, alice, "/table")  # the 21st: Telegram says wait PENALTY s
    refused = await tg.wait_for_request("sendMessage", TIMEOUT, where=to(busy, False), after=start)
    assert refused.status == 429 and refused.response["parameters"]["retry_after"] == PENALTY

    await tg.send_message(quiet.chat, bob, "/table")  # right after, in another chat
    answered = await tg.wait_for_request("sendMessage", TIMEOUT, where=to(quiet, True))
    delayed = await tg.wait_for_request("sendMessage", TIMEOUT + PENALTY, where=to(busy, True),
                                        after=start)

    # The quiet chat's answer went out before the busy group was even tried again…
    retried = _first(tg.requests[tg.requests.index(refused) + 1:], to(busy, True), to(busy, False))
    order = tg.requests.index(answered), tg.requests.index(retried)
    assert order[0] < order[1], _calls(tg, start)
    # …and the busy group's answer still arrived, once its penalty was over, without a new 429.
    assert retried is delayed
    assert delayed.at - refused.at >= PENALTY
    assert delayed.result["text"] == replies[-1].text
    assert [r.status for r in tg.requests if r.status != 200] == [429]


def _first(requests: list[RecordedRequest], *matches) -> RecordedRequest:
    return next(r for r in requests if r.method == "sendMessage" and any(m(r) for m in matches))


def _calls(tg: FakeTelegram, start: int) -> list[str]:
    return [f"{r.method} {r.params.get('chat_id')} {r.status}" for r in tg.requests[start:]
            if r.method != "getUpdates"]
