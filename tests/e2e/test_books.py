"""Who may book what, all or nothing, and bad input — end to end over HTTP: outsiders and
careless members try to book money; the books stay as the players agreed."""

from __future__ import annotations

import json
from typing import Any

from db import Store
from tests.fake_telegram import FakeTelegram

from .table import TIMEOUT, Table

WIN = {"variant": "guiyang", "events": [{"type": "win", "by": "self_draw",
                                        "winners": [{"seat": 0}]}]}


def export(players: list[str], hands: int = 2) -> bytes:
    return json.dumps({"format": "mjledger-session/1", "variant": "guiyang", "players": players,
                       "stake_cents": 50, "hands": [{"seq": i + 1, "record": WIN}
                                                    for i in range(hands)]}).encode()


async def upload(tg: FakeTelegram, table: Table, user: dict[str, Any], data: bytes,
                 caption: str = "/import") -> str:
    """A file sent with a caption; returns the text of the bot's answer."""
    await tg.send_document(table.chat, user, data, "session.json", caption=caption)
    req = await tg.wait_for_request("sendMessage", TIMEOUT, where=table._mine)
    return table.message(req.result["message_id"]).text


async def nothing_then(tg: FakeTelegram, table: Table, user: dict[str, Any], inject: Any) -> None:
    """`inject` is ignored: the next command's answer is the only message sent meanwhile."""
    before = len([r for r in tg.requests_for("sendMessage") if table._mine(r)])
    await inject()
    marker = await table.say(user, "/table")
    after = [r for r in tg.requests_for("sendMessage") if table._mine(r)]
    assert len(after) == before + 1, [r.params.get("text") for r in after[before:]]
    assert marker.text


async def imported_sessions(store: Store, chat_id: int) -> list[Any]:
    return await store.chat_sessions(chat_id, include_settled=True)


# -- /import ---------------------------------------------------------------------------------


async def test_only_an_admin_imports_and_names_become_guests(bot: object, tg: FakeTelegram,
                                                             table: Table, store: Store) -> None:
    alice, bob, carol, dan = table.players
    await table.say(bob, "/help")  # Bob is known to the bot
    names = [p["first_name"] for p in table.players]  # the members' own names
    text = await upload(tg, table, bob, export(names))
    assert "Only a chat admin" in text
    assert await imported_sessions(store, table.chat_id) == []

    tg.set_admins(table.chat_id, [alice])
    text = await upload(tg, table, alice, export(names))
    assert "Imported 2 hands" in text and "guest" in text
    [session] = await imported_sessions(store, table.chat_id)
    people = [await store.get_person(pid) for pid in session.seats]
    assert all(p.is_guest for p in people)  # "Bob" in a file is not Bob's account

    text = await upload(tg, table, alice, export(names), caption="/import E=@alice S=@bob")
    assert "Imported 2 hands" in text
    newest = (await imported_sessions(store, table.chat_id))[0]
    seated = [await store.get_person(pid) for pid in newest.seats]
    assert [p.telegram_id for p in seated[:2]] == [alice["id"], bob["id"]]
    assert seated[2].is_guest and seated[3].is_guest


async def test_a_refused_import_names_the_problem_and_stores_nothing(
        bot: object, tg: FakeTelegram, table: Table, store: Store) -> None:
    alice = table.players[0]
    tg.set_admins(table.chat_id, [alice])
    cases = [
        (export(["Ann", "ANN", "Cy", "Di"]), "/import", "must differ"),
        (export(["Ann", "\u3164", "Cy", "Di"]), "/import", "cannot be blank"),
        (export(["Ann", "Bo", "Cy", "x" * 65]), "/import", "longer than 64"),
        (export(["Ann", "Bo", "Cy", "Di"], hands=2001), "/import", "at most 2000"),
        (export(["Ann", "Bo", "Cy", "Di"]), "/import E=@nobody", "@nobody is not a member"),
        (export(["Ann", "Bo", "Cy", "Di"]), "/import E=@alice S=@alice", "twice"),
        (export(["Ann", "Bo", "Cy", "Di"]), "/import " + "Q" * 5000, "is not SEAT=@username"),
    ]
    for data, caption, problem in cases:
        text = await upload(tg, table, alice, data, caption)
        assert text.startswith("⚠️ Cannot import") and problem in text, (problem, text[:300])
        assert len(text) < 1000
    assert await imported_sessions(store, table.chat_id) == []


async def test_an_import_for_another_bot_is_ignored(bot: object, tg: FakeTelegram, table: Table,
                                                    store: Store) -> None:
    alice = table.players[0]
    tg.set_admins(table.chat_id, [alice])

    async def other_bot() -> None:
        await tg.send_document(table.chat, alice, export(["Ann", "Bo", "Cy", "Di"]), "s.json",
                               caption="/import@otherbot")
        await tg.send_message(table.chat, alice, "/import@otherbot")
        await tg.send_message(table.chat, alice, "/new@otherbot guiyang")

    await nothing_then(tg, table, alice, other_bot)
    assert await imported_sessions(store, table.chat_id) == []


# -- /paid -----------------------------------------------------------------------------------


async def test_a_payment_counts_once_the_payee_confirms(bot: object, tg: FakeTelegram,
                                                        table: Table, store: Store) -> None:
    alice, bob, carol, dan = table.players
    await table.seat_everyone("guiyang")
    await table.say(alice, "/stake 1")
    await table.tap(bob, await table.say(bob, "/hu 1 zimo"), "Confirm")
    before = await store.money_balances(table.chat_id)

    noted = await table.say(alice, "/paid @bob 12.5")  # Alice says she paid Bob
    assert "counts once" in noted.text and "Pending" in noted.text
    assert await store.money_balances(table.chat_id) == before  # her word alone books nothing
    for not_bob in (alice, carol):
        answer = await table.tap(not_bob, noted, "received")
        assert answer.get("show_alert") and "Only the payee" in answer["text"]
    assert await store.money_balances(table.chat_id) == before
    answer = await table.tap(bob, noted, "received")
    assert not answer.get("show_alert")
    after = await store.money_balances(table.chat_id)
    session = await store.running_session(table.chat_id)
    a, b = session.seats[:2]
    assert (after[a], after[b]) == (before[a] + 1250, before[b] - 1250)
    assert "Pending" not in table.message(noted.message_id).text

    got = await table.say(bob, "/paid from @carol 3")  # the payee's word counts at once
    assert "Payment of 3.00 recorded" in got.text
    c = session.seats[2]
    assert (await store.money_balances(table.chat_id))[c] == after[c] + 300
    assert await store.pending_payments(table.chat_id) == []


# -- /lang -----------------------------------------------------------------------------------


async def test_only_seated_players_and_admins_change_the_language(
        bot: object, tg: FakeTelegram, table: Table, store: Store) -> None:
    alice = table.players[0]
    await table.seat_everyone("guiyang")
    eve = tg.user(666, "Eve", "eve")
    answer = await table.say(eve, "/lang")
    assert "Only seated players and chat admins" in answer.text
    menu = await table.say(alice, "/lang")
    answer = await table.tap(eve, menu, "简体中文")
    assert answer.get("show_alert")
    assert (await store.ensure_chat(table.chat_id)).language in (None, "en")
    tg.set_admins(table.chat_id, [eve])
    answer = await table.tap(eve, menu, "简体中文")
    assert not answer.get("show_alert")
    assert (await store.ensure_chat(table.chat_id)).language == "zh-Hans"


# -- the wizard ------------------------------------------------------------------------------


async def test_confirm_after_an_undo_shows_a_fresh_preview(bot: object, table: Table,
                                                           store: Store) -> None:
    alice, bob, carol, dan = table.players
    await table.seat_everyone("guiyang")
    await table.tap(bob, await table.say(bob, "/hu 1 zimo"), "Confirm")
    preview = await table.say(carol, "/hu 2 zimo")
    shown = preview.text
    await table.say(bob, "/undo")  # the hand the preview's totals were built on is gone
    answer = await table.tap(carol, preview, "Confirm")
    assert answer.get("show_alert") and "table changed" in answer["text"]
    fresh = table.message(preview.message_id)
    assert fresh.text != shown and "table changed" in fresh.text
    session = await store.running_session(table.chat_id)
    assert len(await store.history(session.id)) == 1  # nothing recorded on the old numbers
    answer = await table.tap(carol, preview, "Confirm")
    assert not answer.get("show_alert")
    hands = await store.history(session.id)
    assert [h.voided for h in hands] == [False, True]
    assert await store.totals(session.id) == tuple(hands[0].outcome["deltas"])


async def test_a_stale_screen_redraws_and_a_late_cancel_says_recorded(
        bot: object, tg: FakeTelegram, table: Table, store: Store) -> None:
    alice, bob = table.players[:2]
    await table.seat_everyone("guiyang")
    preview = await table.say(bob, "/hu 1 zimo")
    old_back = preview.callback_data("Back")
    cancel = preview.callback_data("Cancel")
    await table.tap(bob, preview, "Back")  # the draft moves on to a newer screen
    current = table.message(preview.message_id).text
    answer = await table.press(bob, preview.message_id, old_back)  # a press from the old screen
    assert answer.get("show_alert") and "here is the current one" in answer["text"]
    assert table.message(preview.message_id).text == current
    await table.tap(bob, preview, "Preview")
    answer = await table.tap(bob, preview, "Confirm")
    assert not answer.get("show_alert")
    answer = await table.press(alice, preview.message_id, cancel)  # Cancel, too late
    assert answer.get("show_alert") and "Hand 1 is already recorded" in answer["text"]
    session = await store.running_session(table.chat_id)
    assert len(await store.history(session.id)) == 1


# -- bad input -------------------------------------------------------------------------------


async def test_bad_input_gets_a_short_answer_and_changes_nothing(
        bot: object, tg: FakeTelegram, table: Table, store: Store) -> None:
    alice, bob, carol, dan = table.players
    await table.seat_everyone("guiyang")
    session = await store.running_session(table.chat_id)
    for text in ("/stake １２", "/stake ²", "/paid @bob ²", "/hu ３ zimo"):
        answer = await table.say(alice, text)
        assert "digits 0–9" in answer.text, (text, answer.text)
    answer = await table.say(alice, "/stake 100000")
    assert "At most 10000.00 per point" in answer.text
    answer = await table.say(alice, "/paid @bob 99999999999")
    assert "at most 100000000.00" in answer.text
    assert (await store.running_session(table.chat_id)).stake_cents == session.stake_cents
    assert await store.pending_payments(table.chat_id) == []

    for text in ("/new " + "x" * 5000, "/hu 1 " + "y" * 5000, "/stats @" + "z" * 5000):
        answer = await table.say(alice, text)
        assert len(answer.text) < 600, (text[:10], len(answer.text))

    lobby = await table.say(alice, "/end")
    assert "Session over" in lobby.text
    await table.say(alice, "/new guiyang")
    answer = await table.say(alice, "/guest \u3164 \u200b")
    assert "Usage: /guest NAME" in answer.text
    assert (await store.running_session(table.chat_id)).seats == (None, None, None, None)


async def test_odd_updates_are_answered_or_ignored(bot: object, tg: FakeTelegram, table: Table,
                                                   store: Store) -> None:
    alice, bob = table.players[:2]
    await table.seat_everyone("guiyang")
    preview = await table.say(bob, "/hu 1 zimo")
    await table.tap(bob, preview, "Confirm")
    session = await store.running_session(table.chat_id)

    no_data = await tg.press_raw(alice, chat_id=table.chat_id, message_id=preview.message_id)
    assert (await table.answered(no_data)).get("show_alert")
    inline = await tg.press_raw(alice, inline_message_id="AAA", data="h:1:ok")
    assert (await table.answered(inline)).get("show_alert")
    forged = await tg.press_raw(alice, chat_id=table.chat_id, message_id=preview.message_id,
                                data="p:１:2:3")
    assert (await table.answered(forged)).get("show_alert")

    command = {"type": "bot_command", "offset": 0, "length": 5}
    await tg.inject({"message": {"message_id": 900, "date": 0, "chat": table.chat,
                                 "text": "/undo", "entities": [command]}})
    req = await tg.wait_for_request("sendMessage", TIMEOUT, where=table._mine)
    assert "who sent this" in req.params["text"]

    async def forwarded() -> None:
        await tg.inject({"message": {
            "message_id": 901, "date": 0, "chat": table.chat, "from": bob, "text": "/undo",
            "entities": [command], "forward_origin": {"type": "user", "date": 0,
                                                      "sender_user": bob}}})

    await nothing_then(tg, table, alice, forwarded)
    hands = await store.history(session.id)
    assert [h.voided for h in hands] == [False]  # neither /undo undid anything


async def test_import_parses_and_scores_off_the_event_loop(bot: object, tg: FakeTelegram,
                                                           table: Table,
                                                           monkeypatch: Any) -> None:
    import threading

    from bot.commands import ledger

    threads: list[int] = []
    real = ledger.parse_import

    def spy(data: bytes) -> Any:
        threads.append(threading.get_ident())
        return real(data)

    monkeypatch.setattr(ledger, "parse_import", spy)
    alice = table.players[0]
    tg.set_admins(table.chat_id, [alice])
    text = await upload(tg, table, alice, export(["Ann", "Bo", "Cy", "Di"]))
    assert "Imported 2 hands" in text
    assert threads and threads[0] != threading.get_ident()  # not the loop's thread


async def test_the_wizard_message_exists_only_with_its_draft(bot: Any, tg: FakeTelegram,
                                                             table: Table, monkeypatch: Any) -> None:
    from db import StoreError

    alice, bob = table.players[:2]
    await table.seat_everyone("guiyang")
    store = bot.bot_data["store"]

    async def disk_full(*args: Any, **kw: Any) -> Any:
        raise StoreError("disk full")

    monkeypatch.setattr(store, "create_draft", disk_full)
    answer = await table.say(bob, "/hu 1 zimo")
    assert answer.buttons == [] and "could not be saved" in answer.text  # no orphan keyboard
    monkeypatch.undo()

    monkeypatch.setattr(store, "attach_draft", disk_full)
    await tg.send_message(table.chat, bob, "/hu 1 zimo")
    deleted = await tg.wait_for_request("deleteMessage", TIMEOUT)
    posted = tg.requests_for("sendMessage")[-1]
    assert deleted.params["message_id"] == posted.result["message_id"]
    told = await tg.wait_for_request("sendMessage", TIMEOUT, after=tg.requests.index(deleted))
    assert "could not be saved" in told.params["text"]  # and the chat hears why
    monkeypatch.undo()
    preview = await table.say(bob, "/hu 1 zimo")
    await table.tap(bob, preview, "Confirm")
    assert "Hand 1 recorded" in table.message(preview.message_id).text


async def test_already_recorded_names_the_hand_by_its_number_at_the_table(
        bot: object, tg: FakeTelegram, table: Table, store: Store) -> None:
    """After an undo the next hand is stored as the session's second but goes by number 1
    (the wizard's title, /history); "already recorded" calls it the same."""
    bob = table.players[1]
    await table.seat_everyone("guiyang")
    first = await table.say(bob, "/hu 1 zimo")
    assert not (await table.tap(bob, first, "Confirm")).get("show_alert")
    assert "Hand 1 undone" in (await table.say(bob, "/undo")).text
    second = await table.say(bob, "/hu 2 zimo")
    confirm = second.callback_data("Confirm")
    assert not (await table.tap(bob, second, "Confirm")).get("show_alert")
    assert "Hand 1 recorded" in table.message(second.message_id).text
    answer = await table.press(bob, second.message_id, confirm)  # a second tap of Confirm
    assert answer.get("show_alert") and "Hand 1 is already recorded" in answer["text"], answer
    session = await store.running_session(table.chat_id)
    assert [h.seq for h in await store.history(session.id, include_voided=False)] == [2]


async def test_taps_that_change_nothing_send_no_edit(bot: object, tg: FakeTelegram, table: Table,
                                                     store: Store) -> None:
    """A stale or forged tap on the screen shown, and a second tap of Confirm, answer the tap
    and send no edit Telegram would refuse as "message is not modified"."""
    bob = table.players[1]
    await table.seat_everyone("guiyang")
    preview = await table.say(bob, "/hu 1 zimo")
    old_back = preview.callback_data("Back")
    await table.tap(bob, preview, "Back")
    start = len(tg.requests)
    answer = await table.press(bob, preview.message_id, old_back)  # the screen shown is current
    assert answer.get("show_alert") and "here is the current one" in answer["text"]
    answer = await table.press(bob, preview.message_id, "h:999:zz")  # forged
    assert answer.get("show_alert")
    await table.tap(bob, preview, "Preview")
    confirm = table.message(preview.message_id).callback_data("Confirm")
    first = await tg.press(table.chat_id, preview.message_id, bob, confirm)
    second = await tg.press(table.chat_id, preview.message_id, bob, confirm)  # a double tap
    assert not (await table.answered(first)).get("show_alert")
    assert "Hand 1 is already recorded" in (await table.answered(second))["text"]
    assert "Hand 1 recorded" in table.message(preview.message_id).text
    refused = [(r.method, r.response) for r in tg.requests[start:] if not r.ok]
    assert refused == []
    edits = [r for r in tg.requests[start:] if r.method.startswith("editMessage")]
    assert len(edits) == 2  # the preview, the recorded hand


async def test_a_tap_answered_too_late_still_says_what_is_true(bot: object, tg: FakeTelegram,
                                                               table: Table) -> None:
    """Telegram expired the tap before the bot answered it (a slow update, a restart): the
    answer goes to the chat instead of "something went wrong"."""
    bob = table.players[1]
    await table.seat_everyone("guiyang")
    preview = await table.say(bob, "/hu 1 zimo")
    confirm = preview.callback_data("Confirm")
    await table.tap(bob, preview, "Confirm")
    shown = table.message(preview.message_id)
    start = len(tg.requests)
    await tg.inject({"callback_query": {  # a tap Telegram no longer takes an answer for
        "id": "77", "from": bob, "message": shown.to_api(), "chat_instance": "1", "data": confirm}})
    told = await tg.wait_for_request("sendMessage", TIMEOUT, where=table._mine)
    assert told.params["text"] == "Hand 1 is already recorded.", told.params
    expired = [r for r in tg.requests[start:] if r.method == "answerCallbackQuery"]
    assert [r.response.get("description") for r in expired] == [
        "Bad Request: query is too old and response timeout expired or query ID is invalid"]
