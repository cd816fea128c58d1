"""The wizard's races, repeated, with two bot workers on one database taking the two taps at the
same moment: double Confirm, Confirm against Cancel, Confirm against /undo. Each trial checks the
books (no hand lost, none counted twice, totals = the live hands) and that both got an answer
that tells the truth about what happened."""

from __future__ import annotations

import asyncio
from collections import Counter
from collections.abc import Awaitable
from functools import partial
from pathlib import Path
from typing import Any

import pytest

from bot.runner import serve
from db import Store
from tests.databases import BACKENDS, fresh_database
from tests.e2e.table import TIMEOUT, Table
from tests.e2e.test_webhook_and_workers import SECRET, free_port, webhook_settings
from tests.fake_telegram import FakeTelegram

TRIALS = 10
TALLY: Counter[str] = Counter()  # over the run: trials, hands lost, hands counted twice


class Workers:
    """Two webhook workers; `race` delivers two queued updates to them at the same moment."""

    def __init__(self, tg: FakeTelegram, a: str, b: str) -> None:
        self.tg, self.a, self.b = tg, a, b

    async def queued(self, act: Awaitable[Any]) -> dict[str, Any]:
        """Run `act` (a press or a message) with the update held back; returns the update."""
        hook, self.tg.webhook = self.tg.webhook, None
        try:
            await act
            return self.tg.injected[-1]
        finally:
            self.tg.webhook = hook

    async def race(self, first: dict[str, Any], second: dict[str, Any]) -> None:
        statuses = await asyncio.gather(self.tg.deliver_webhook(self.a, SECRET, first),
                                        self.tg.deliver_webhook(self.b, SECRET, second))
        assert [s for s, _ in statuses] == [200, 200]


async def trial_table(tg: FakeTelegram, n: int) -> Table:
    players = [tg.user(201 + i, name, name.lower()) for i, name in
               enumerate(("Alice", "Bob", "Carol", "Dan"))]
    table = Table(tg, tg.group(f"Race {n}"), players)
    await table.seat_everyone("guiyang")
    return table


async def check_books(store: Store, table: Table, preview_mid: int) -> list[Any]:
    """Totals = the live hands; at most one hand for the wizard message."""
    session = await store.running_session(table.chat_id)
    hands = await store.history(session.id, limit=1000)
    live = [h for h in hands if not h.voided]
    assert await store.totals(session.id) == tuple(sum(h.deltas[s] for h in live) for s in range(4))
    mine = [h for h in hands if h.idempotency_key == f"draft:{table.chat_id}:{preview_mid}"]
    TALLY["counted twice"] += max(0, len(mine) - 1)
    assert len(mine) <= 1
    return mine


@pytest.fixture(params=BACKENDS)
async def workers(request: pytest.FixtureRequest, tg: FakeTelegram,
                  tmp_path: Path) -> Any:
    async with fresh_database(request.param, tmp_path) as url:
        port_a, port_b = free_port(), free_port()
        async with serve(webhook_settings(tg, url, port_a)), \
                serve(webhook_settings(tg, url, port_b)):  # type: ignore[arg-type]
            a, b = f"http://127.0.0.1:{port_a}/telegram", f"http://127.0.0.1:{port_b}/telegram"
            tg.webhook_target = a
            store = await Store.open(url)
            try:
                yield Workers(tg, a, b), store
            finally:
                await store.close()
        tg.assert_callbacks_answered()


async def test_double_confirm(tg: FakeTelegram, workers: Any) -> None:
    race, store = workers
    tg = tg
    for n in range(TRIALS):
        table = await trial_table(tg, n)
        alice, bob = table.players[:2]
        preview = await table.say(bob, "/hu 1 zimo")
        data = preview.callback_data("Confirm")
        q1 = await race.queued(tg.press(table.chat_id, preview.message_id, alice, data))
        q2 = await race.queued(tg.press(table.chat_id, preview.message_id, bob, data))
        await race.race(q1, q2)
        answers = await asyncio.gather(*(table.answered(q["callback_query"]["id"])
                                         for q in (q1, q2)))
        texts = [a.get("text") or "" for a in answers]
        mine = await check_books(store, table, preview.message_id)
        TALLY["trials"] += 1
        if "Recorded." in texts and not mine:
            TALLY["lost"] += 1
        assert len(mine) == 1, texts
        assert sorted(texts) == ["Hand 1 is already recorded.", "Recorded."], texts


async def test_confirm_against_cancel(tg: FakeTelegram, workers: Any) -> None:
    race, store = workers
    tg = tg
    outcomes: Counter[str] = Counter()
    for n in range(TRIALS):
        table = await trial_table(tg, n)
        alice, bob = table.players[:2]
        preview = await table.say(bob, "/hu 1 zimo")
        ok, cancel = preview.callback_data("Confirm"), preview.callback_data("Cancel")
        q1 = await race.queued(tg.press(table.chat_id, preview.message_id, bob, ok))
        q2 = await race.queued(tg.press(table.chat_id, preview.message_id, alice, cancel))
        if n % 2:
            await race.race(q2, q1)  # the other worker takes the Confirm
        else:
            await race.race(q1, q2)
        confirm_answer, cancel_answer = await asyncio.gather(
            table.answered(q1["callback_query"]["id"]), table.answered(q2["callback_query"]["id"]))
        mine = await check_books(store, table, preview.message_id)
        TALLY["trials"] += 1
        said_recorded = confirm_answer.get("text") == "Recorded."
        if said_recorded and not mine:
            TALLY["lost"] += 1
        if mine:  # Confirm won: Cancel says the hand is recorded, never "cancelled"
            outcomes["recorded"] += 1
            assert said_recorded, confirm_answer
            assert "already recorded" in (cancel_answer.get("text") or ""), cancel_answer
            assert "Hand 1 recorded" in table.message(preview.message_id).text
        else:  # Cancel won: Confirm says nothing was recorded
            outcomes["cancelled"] += 1
            assert not said_recorded and cancel_answer.get("text") is None, (confirm_answer,
                                                                             cancel_answer)
            assert table.message(preview.message_id).text == "Hand entry cancelled."
    assert sum(outcomes.values()) == TRIALS


async def test_confirm_against_undo(tg: FakeTelegram, workers: Any) -> None:
    race, store = workers
    tg = tg
    for n in range(TRIALS):
        table = await trial_table(tg, n)
        alice, bob, carol = table.players[:3]
        # An admin's /undo undoes the last hand whoever entered it: whichever update wins,
        # it undoes one (Bob's own hand, or Carol's if her Confirm came first).
        tg.set_admins(table.chat_id, [bob])
        await table.tap(bob, await table.say(bob, "/hu 1 zimo"), "Confirm")
        session = await store.running_session(table.chat_id)
        [first] = await store.history(session.id)
        preview = await table.say(carol, "/hu 2 zimo")
        ok = preview.callback_data("Confirm")
        q1 = await race.queued(tg.press(table.chat_id, preview.message_id, carol, ok))
        u = await race.queued(tg.send_message(table.chat, bob, "/undo"))
        await (race.race(q1, u) if n % 2 == 0 else race.race(u, q1))
        answer = await table.answered(q1["callback_query"]["id"])
        await tg.wait_for(partial(undo_answered, tg, table), TIMEOUT)
        mine = await check_books(store, table, preview.message_id)
        TALLY["trials"] += 1
        if answer.get("text") == "Recorded." and not mine:
            TALLY["lost"] += 1
        hands = await store.history(session.id)
        assert sum(h.voided for h in hands) == 1  # the /undo undid exactly one hand
        if mine:  # recorded on the table its preview showed: hand 1 still live at that time
            assert answer.get("text") == "Recorded."
            assert mine[0].record["dealer"] == first.outcome["next_dealer"]
        else:  # /undo came first: a fresh preview instead of stale numbers
            assert "table changed" in (answer.get("text") or ""), answer
            assert "table changed" in table.message(preview.message_id).text


async def test_a_tap_before_its_message_is_attached(tg: FakeTelegram, tmp_path: Path,
                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    """Confirm reaches the other worker before the one that posted the wizard has stored the
    message's id with its draft: the button names its entry, which that worker finds under its
    placeholder and attaches, with no wait; the hand is recorded under the message, and the
    poster's attach, coming after it, leaves the message as it is."""
    url = f"sqlite+aiosqlite:///{tmp_path}/bot.sqlite3"
    port_a, port_b = free_port(), free_port()
    async with serve(webhook_settings(tg, url, port_a)) as poster, \
            serve(webhook_settings(tg, url, port_b)):  # type: ignore[arg-type]
        tg.webhook_target = f"http://127.0.0.1:{port_a}/telegram"
        table = await trial_table(tg, 0)
        bob = table.players[1]
        store = poster.bot_data["store"]
        attach, tapped = store.attach_draft, asyncio.Event()

        async def after_the_tap(*args: Any) -> Any:
            await tapped.wait()
            return await attach(*args)

        monkeypatch.setattr(store, "attach_draft", after_the_tap)
        start = len(tg.requests)
        opening = asyncio.create_task(tg.send_message(table.chat, bob, "/hu 1 zimo"))
        posted = await tg.wait_for_request("sendMessage", TIMEOUT, where=table._mine, after=start)
        mid = posted.result["message_id"]
        assert await store.get_draft(table.chat_id, mid) is None  # not attached yet
        race = Workers(tg, "", f"http://127.0.0.1:{port_b}/telegram")
        tap = await race.queued(tg.press(table.chat_id, mid, bob,
                                         table.message(mid).callback_data("Confirm")))
        status, _ = await tg.deliver_webhook(race.b, SECRET, tap)
        answer = await table.answered(tap["callback_query"]["id"])
        tapped.set()
        await opening
        assert status == 200 and answer.get("text") == "Recorded.", answer
        session = await store.running_session(table.chat_id)
        [hand] = await store.history(session.id)
        assert hand.idempotency_key == f"draft:{table.chat_id}:{mid}"
        assert "Hand 1 recorded" in table.message(mid).text
        assert not [r for r in tg.requests_for("deleteMessage") if r.params["message_id"] == mid]


def undo_answered(tg: FakeTelegram, table: Table) -> bool:
    return any("undone" in (r.params.get("text") or "")
               for r in tg.requests_for("sendMessage") if table._mine(r))


def test_race_tally() -> None:
    """Printed for the report; runs last in this module."""
    print(f"\nrace trials: {TALLY['trials']}, hands lost: {TALLY['lost']}, "
          f"counted twice: {TALLY['counted twice']}")
    assert TALLY["lost"] == 0 and TALLY["counted twice"] == 0
