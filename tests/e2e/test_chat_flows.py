"""The chat around the hands, end to end over HTTP: one-line entry, undo, who may press,
double taps, restarts, hostile names, flood limits and a group becoming a supergroup."""

from __future__ import annotations

import asyncio
from typing import Any

from bot.runner import serve
from db import Store
from tests.fake_telegram import FakeTelegram

from .conftest import settings_for
from .table import Table


async def test_one_line_entry_goes_to_the_same_preview(bot: object, table: Table,
                                                       store: Store) -> None:
    alice, bob, carol, dan = table.players
    await table.seat_everyone("luzhou")
    wiz = await table.say(carol, "/hu 2 zimo all_pungs pure")
    # one win of the blood battle is no whole hand: the wizard asks how it went on
    assert "who won next" in wiz.text and "✔ Confirm" not in wiz.button_labels, wiz.text
    await wall_out(table, carol, wiz)
    session = await store.running_session(table.chat_id)
    assert await store.totals(session.id) == (-40, -40, 120, -40)  # 清对 40, at the cap

    bad = await table.say(carol, "/hu 2 from 0")  # plain 平胡 off a discard
    # the rule by the name /rules gives it, not its key
    assert "Not allowed" in bad.text and "“Plain hand may win off a discard (1颗)”" in bad.text
    assert "one_ke_discard" not in bad.text
    typo = await table.say(carol, "/hu 7 zimo")
    assert "not a seat" in typo.text and not typo.buttons
    assert (await store.get_session(session.id)).hand_count == 1


async def wall_out(table: Table, user: dict, wiz: object) -> None:
    """End a Luzhou hand entered by /hu: the wall runs out, nobody still in is ready."""
    for label in ("Wall exhausted", "Confirm"):
        answer = await table.tap(user, wiz, label)
        assert not answer.get("show_alert"), answer
    assert "recorded" in table.message(wiz.message_id).text


async def test_undo_is_recorded_not_destructive(bot: object, table: Table, store: Store,
                                                tg: FakeTelegram) -> None:
    alice, bob, carol, dan = table.players
    await table.seat_everyone("luzhou")
    await wall_out(table, bob, await table.say(bob, "/hu 1 zimo pure"))
    await wall_out(table, alice, await table.say(alice, "/hu 0 zimo seven_pairs"))
    session = await store.running_session(table.chat_id)
    assert await store.totals(session.id) == (30 - 10, 30 - 10, -20, -20)

    refused = await table.say(bob, "/undo")  # Alice entered the last hand; Bob is no admin
    assert "Only whoever entered" in refused.text
    done = await table.say(alice, "/undo typo")
    assert "Hand 2 undone" in done.text
    assert await store.totals(session.id) == (-10, 30, -10, -10)
    history = await table.say(carol, "/history")
    assert "(undone: typo)" in history.text
    assert "<s>" in history.raw_text
    voided = await store.history(session.id, include_voided=True)
    assert [h.voided for h in sorted(voided, key=lambda h: h.seq)] == [False, True]

    tg.set_admins(table.chat_id, [dan])  # an admin may undo anyone's hand
    done = await table.say(dan, "/undo")
    assert "Hand 1 undone" in done.text
    history = await table.say(carol, "/history")
    assert "(undone)" in history.text and "undone: undo" not in history.text  # no raw reason
    standings = await table.say(carol, "/table")
    assert "0 hands" in standings.text  # the undone hands keep their numbers, not their count
    assert await store.totals(session.id) == (0, 0, 0, 0)
    nothing = await table.say(dan, "/undo")
    assert "no hand to undo" in nothing.text
    wiz = await table.say(carol, "/hu 2 zimo all_pungs")  # the next hand is hand 1 again
    assert "Hand 1" in wiz.text, wiz.text
    await wall_out(table, carol, wiz)
    assert "Hand 1 recorded" in table.message(wiz.message_id).text
    history = await table.say(carol, "/history")
    heads = [line for line in history.text.split("\n") if line.startswith("Hand")]
    assert heads == ["Hand 1", "Hand 2 (undone: typo)", "Hand 1 (undone)"], history.text


async def test_outsiders_and_forged_buttons_change_nothing(bot: object, table: Table,
                                                           tg: FakeTelegram) -> None:
    alice, bob, carol, dan = table.players
    lobby = await table.seat_everyone("luzhou")
    eve = tg.user(666, "Eve", "eve")
    wiz = await table.say(alice, "/hand")
    await table.tap(alice, wiz, "Alice")
    before = table.message(wiz.message_id)
    answer = await table.tap(eve, wiz, "Self-draw")
    assert answer.get("show_alert") and "Only seated players" in answer["text"]
    answer = await table.tap(eve, lobby, "House rules")
    assert answer.get("show_alert")
    for data in ["h:999:wh:1", "h:2:zz", "h:2:hd:9", "h:2:hd:0", "x" * 64, "h:2:t:-1", "p:1:2:3", "s:999:j",
                 "r:1:99", "n:tokyo", "l:xx"]:
        answer = await table.press(alice, wiz.message_id, data)
        assert answer.get("show_alert"), (data, answer)
    after = table.message(wiz.message_id)
    assert (after.text, after.reply_markup) == (before.text, before.reply_markup)
    # and the real buttons still work
    assert not (await table.tap(alice, wiz, "Self-draw")).get("show_alert")


async def test_double_tapped_confirm_records_one_hand(bot: object, table: Table, store: Store,
                                                      tg: FakeTelegram) -> None:
    alice, bob, carol, dan = table.players
    await table.seat_everyone("luzhou")
    preview = await table.say(dan, "/hu 3 zimo pure")
    await table.tap(dan, preview, "Wall exhausted")
    data = preview.callback_data("Confirm")
    first = await tg.press(table.chat_id, preview.message_id, dan, data)
    second = await tg.press(table.chat_id, preview.message_id, dan, data)
    a1, a2 = await table.answered(first), await table.answered(second)
    session = await store.running_session(table.chat_id)
    assert (await store.get_session(session.id)).hand_count == 1
    assert await store.totals(session.id) == (-10, -10, -10, 30)
    assert not a1.get("show_alert") and a2.get("show_alert")


async def test_restart_in_the_middle_of_a_wizard_keeps_the_draft(tg: FakeTelegram, db_url: str,
                                                                 table: Table) -> None:
    alice, bob, carol, dan = table.players
    settings = settings_for(tg, db_url)
    async with serve(settings, poll_timeout=1):
        await table.seat_everyone("luzhou")
        wiz = await table.say(bob, "/hand")
        await table.tap_in_row(bob, wiz, "North Dan", "Self-draw")
        await table.tap(bob, wiz, "pure suit")
    # the bot is down; the message with its buttons is still in the chat
    async with serve(settings, poll_timeout=1):
        await table.tap(bob, wiz, "Add")
        await table.tap(bob, wiz, "Wall exhausted")
        await table.tap(bob, wiz, "Confirm")
        assert "Hand 1 recorded" in table.message(wiz.message_id).text
    store = await Store.open(db_url)
    try:
        session = await store.running_session(table.chat_id)
        assert await store.totals(session.id) == (-10, -10, -10, 30)
    finally:
        await store.close()


async def test_hostile_names_are_escaped(bot: object, tg: FakeTelegram) -> None:
    mallory = tg.user(201, "<b>&Bob", "mallory")
    table = Table(tg, tg.group("<i>names</i>"), [mallory])
    lobby = await table.say(mallory, "/new luzhou")
    await table.tap(mallory, lobby, "Join")
    await table.say(mallory, "/guest <a href='x'>&amp;</a>")
    shown = table.tg.last_message(table.chat_id)
    assert "<b>&Bob" in shown.text and "<a href='x'>&amp;</a>" in shown.text
    assert "&lt;b&gt;&amp;Bob" in shown.raw_text


async def test_a_429_storm_is_ridden_out(bot: object, table: Table, tg: FakeTelegram,
                                         store: Store) -> None:
    alice, bob, carol, dan = table.players
    await table.seat_everyone("hainan")
    tg.fail_next("sendMessage", times=2, retry_after=1)
    preview = await table.say(alice, "/hu 0 zimo all_pungs")
    assert "Payments" in preview.text
    tg.fail_next("editMessageText", times=3, retry_after=1)
    tg.fail_next("answerCallbackQuery", times=1, retry_after=1)
    answer = await table.tap(alice, preview, "Confirm")
    assert not answer.get("show_alert")
    assert "Hand 1 recorded" in table.message(preview.message_id).text
    throttled = [r for r in tg.requests if r.status == 429]
    assert len(throttled) == 6
    session = await store.running_session(table.chat_id)
    assert (await store.get_session(session.id)).hand_count == 1


async def test_group_upgraded_to_supergroup_keeps_its_session(bot: object, table: Table,
                                                              tg: FakeTelegram,
                                                              store: Store) -> None:
    alice, bob, carol, dan = table.players
    await table.seat_everyone("luzhou")
    await wall_out(table, alice, await table.say(alice, "/hu 0 zimo pure"))
    old_id = table.chat_id
    new_id = await tg.migrate_chat(old_id, by=alice)
    for _ in range(300):  # the bot handles the service messages in the background (≤ 15 s)
        moved = await store.running_session(new_id)
        if moved is not None:
            break
        await asyncio.sleep(0.05)
    assert moved is not None and await store.running_session(old_id) is None
    table.chat = {"id": new_id, "type": "supergroup", "title": table.chat["title"]}
    standings = await table.say(bob, "/table")
    assert "East Alice" in standings.text and "+30" in standings.text


async def test_sending_to_a_migrated_group_follows_it(bot: object, table: Table,
                                                      tg: FakeTelegram, store: Store) -> None:
    """Telegram refuses the old id with migrate_to_chat_id before the service message arrives."""
    alice = table.players[0]
    await table.seat_everyone("luzhou")
    old_id = table.chat_id
    new_id = tg.group(table.chat["title"], chat_id=-1001999000111, supergroup=True)["id"]
    tg.reject_next("sendMessage", 400, "Bad Request: group chat was upgraded to a supergroup chat",
                   parameters={"migrate_to_chat_id": new_id})
    await tg.send_message(table.chat, alice, "/table")
    sent = await tg.wait_for_request("sendMessage", 10,
                                     where=lambda r: r.ok and str(r.params.get("chat_id")) == str(new_id))
    assert "East Alice" in sent.params["text"]
    assert (await store.running_session(new_id)) is not None
    assert (await store.running_session(old_id)) is None


async def test_private_chat_one_person_keeps_the_book(bot: object, tg: FakeTelegram,
                                                      store: Store) -> None:
    keeper = tg.user(301, "Keeper", "keeper", language_code="zh-hans")
    book = Table(tg, tg.private_chat(keeper), [keeper])
    lobby = await book.say(keeper, "/new guiyang")
    assert "贵阳" in lobby.text  # the chat took the keeper's language
    for name in ("阿明", "小红", "老王", "<Zhang>"):
        await book.say(keeper, f"/guest {name}")
    seated = tg.last_message(book.chat_id)
    assert "<Zhang>" in seated.text and "/hand" in seated.text
    refused = await book.say(keeper, "/hu 1 from 1 all_pungs")
    assert "不允许" in refused.text and "南 小红 不能胡自己打出的牌" in refused.text
    preview = await book.say(keeper, "/hu 1 from 3 all_pungs")
    assert "确认" in " ".join(preview.button_labels)
    await book.tap(keeper, preview, "确认")
    session = await store.running_session(book.chat_id)
    assert await store.totals(session.id) == (0, 5, 0, -5)


async def test_hu_scores_the_hand_once_for_its_check_and_its_preview(
        bot: object, table: Table, monkeypatch: object) -> None:
    """/hu checks the hand, then shows its preview: one scoring serves both (and the blood
    battle's first screen, which asks whether the hand goes on)."""
    import bot.entry.ctx as scoring_of_ctx  # Ctx.score scores the wizard's hands

    calls: list[str] = []
    real = scoring_of_ctx.score

    def counted(record: dict) -> object:
        calls.append(record["variant"])
        return real(record)

    monkeypatch.setattr(scoring_of_ctx, "score", counted)  # type: ignore[attr-defined]
    alice, bob, carol, dan = table.players
    await table.seat_everyone("guiyang")
    preview = await table.say(bob, "/hu 1 zimo")
    assert "Payments" in preview.text and "✔ Confirm" in preview.button_labels, preview.text
    assert calls == ["guiyang"]


async def test_each_fault_is_told_as_what_it_is(bot: Any, tg: FakeTelegram, table: Table,
                                                 monkeypatch: Any) -> None:
    """A full disk, a file the bot cannot write and a database it cannot reach are three
    different answers (not all "the database is not available")."""
    import errno

    from bot.view import charts
    from db import DatabaseUnavailable

    alice = table.players[0]
    await table.seat_everyone("guiyang")
    for error, said in [
            (OSError(errno.ENOSPC, "No space left on device"), "disk is full"),
            (PermissionError(errno.EACCES, "Permission denied", "/var/cache/fonts"),
             "could not read or write one of its files"),
            (DatabaseUnavailable("connection refused"), "database is not available")]:
        def fail(*args: Any, _error: BaseException = error, **kw: Any) -> Any:
            raise _error
        monkeypatch.setattr(charts, "render_balance_chart", fail)
        answer = await table.say(alice, "/chart")
        assert said in answer.text, (error, answer.text)
