"""The table in its own words, end to end over HTTP: /hu as the screens say it in zh-Hans,
zh-Hant and English, /help's examples in the chat's language, the greeting when the bot joins a
group, and a callback without data."""

from __future__ import annotations

from typing import Any

import pytest

from db import Store
from tests.fake_telegram import FakeTelegram

from .table import Table


def players(tg: FakeTelegram, code: str) -> list[dict[str, Any]]:
    return [tg.user(401 + i, name, name.lower(), language_code=code)
            for i, name in enumerate(("Alice", "Bob", "Carol", "Dan"))]


async def seat(table: Table, variant: str) -> Any:
    """/new and everyone taps Join, in whatever language the chat speaks."""
    lobby = await table.say(table.players[0], f"/new {variant}")
    for p in table.players:
        answer = await table.tap(p, lobby, "🙋")
        assert not answer.get("show_alert"), answer
    return table.message(lobby.message_id)


async def last_record(store: Store, table: Table) -> dict[str, Any]:
    session = await store.running_session(table.chat_id)
    hands = await store.history(session.id, limit=1)
    return hands[0].record


@pytest.mark.parametrize(("code", "line", "confirm", "winner"), [
    ("zh-hans", "/hu 西 点炮 北 清一色 碰碰胡", "确认",
     {"seat": 2, "pure": True, "all_pungs": True}),
    ("zh-tw", "/hu Carol 放炮 北 清一色 碰碰胡", "確認",
     {"seat": 2, "pure": True, "all_pungs": True}),
    ("en", "/hu W from N pure suit all pungs", "Confirm",
     {"seat": 2, "pure": True, "all_pungs": True}),
])
async def test_hu_in_the_words_the_screens_show(bot: object, tg: FakeTelegram, store: Store,
                                                code: str, line: str, confirm: str,
                                                winner: dict[str, Any]) -> None:
    table = Table(tg, tg.group(f"hainan {code}"), players(tg, code))
    await seat(table, "hainan")
    preview = await table.say(table.players[0], line)
    assert any(confirm in label for label in preview.button_labels), preview.text
    answer = await table.tap(table.players[0], preview, confirm)
    assert not answer.get("show_alert"), answer
    assert (await last_record(store, table))["events"] == [
        {"type": "win", "by": "discard", "from": 3, "winners": [winner]}]


async def test_a_luzhou_line_is_a_first_win_and_the_wizard_asks_how_the_hand_went_on(
        bot: object, tg: FakeTelegram, store: Store) -> None:
    table = Table(tg, tg.group("泸州"), players(tg, "zh-hans"))
    alice = table.players[0]
    await seat(table, "luzhou")
    wiz = await table.say(alice, "/hu 南 自摸 闺2 清一色")
    assert "这局还没完" in wiz.text and not any("确认" in b for b in wiz.button_labels), wiz.text
    await table.tap(alice, wiz, "西 Carol")  # Carol won next …
    await table.tap(alice, wiz, "← 北 Dan 点炮")  # … off Dan's discard
    await table.tap(alice, wiz, "七对")  # one tap, not a cycle
    await table.tap(alice, wiz, "添加")
    await table.tap(alice, wiz, "流局")  # then the wall ran out; nobody else was ready
    answer = await table.tap(alice, wiz, "确认")
    assert not answer.get("show_alert"), answer
    events = (await last_record(store, table))["events"]
    assert events[0] == {"type": "win", "by": "self_draw",
                         "winners": [{"seat": 1, "quads": 2, "pure": True}]}
    assert events[1] == {"type": "win", "by": "discard", "from": 3,
                         "winners": [{"seat": 2, "form": "seven_pairs"}]}
    assert events[2]["type"] == "exhausted"


@pytest.mark.parametrize(("code", "typo", "close"), [
    ("zh-hans", "/hu 西 自摸 清一涩", "清一色"),
    ("zh-tw", "/hu 西 自摸 清一涩", "清一色"),
    ("en", "/hu W zimo pure suet", "pure suit"),
])
async def test_an_unknown_word_gets_the_closest_known_words(bot: object, tg: FakeTelegram,
                                                            code: str, typo: str,
                                                            close: str) -> None:
    table = Table(tg, tg.group(f"typo {code}"), players(tg, code))
    await seat(table, "luzhou")
    answer = await table.say(table.players[0], typo)
    assert close in answer.text and not answer.buttons, answer.text


@pytest.mark.parametrize(("code", "example", "feature"), [
    ("zh-hans", "/hu 南 自摸 大对子 清一色", "闺×N"),
    ("zh-tw", "/hu 南 自摸 大對子 清一色", "閨×N"),
    ("en", "/hu S self-draw all pungs pure suit", "quad×N"),
])
async def test_help_shows_examples_in_the_chat_language(bot: object, tg: FakeTelegram,
                                                        code: str, example: str,
                                                        feature: str) -> None:
    table = Table(tg, tg.group(f"help {code}"), players(tg, code))
    await seat(table, "luzhou")
    shown = await table.say(table.players[0], "/help")
    assert example in shown.text and feature in shown.text, shown.text


@pytest.mark.parametrize(("code", "join"), [("zh-hans", "入座"), ("zh-tw", "入座"), ("en", "Join")])
async def test_the_bot_greets_a_group_once_with_the_three_steps(bot: object, tg: FakeTelegram,
                                                                code: str, join: str) -> None:
    group = tg.group(f"new table {code}")
    adder = players(tg, code)[0]
    await tg.add_bot(group, adder)
    hello = await tg.wait_for_request("sendMessage", 15,
                                      where=lambda r: str(r.params.get("chat_id")) == str(group["id"]))
    text = hello.params["text"]
    assert "/new" in text and join in text and "/hand" in text, text
    # promoted to admin afterwards: no second greeting
    bot_user = {k: tg.bot_user[k] for k in ("id", "is_bot", "first_name", "username")}
    await tg.inject({"my_chat_member": {
        "chat": group, "from": adder, "date": 0,
        "old_chat_member": {"status": "member", "user": bot_user},
        "new_chat_member": {"status": "administrator", "user": bot_user, "can_be_edited": False,
                            "is_anonymous": False, "can_manage_chat": True,
                            "can_delete_messages": True, "can_manage_video_chats": True,
                            "can_restrict_members": True, "can_promote_members": False,
                            "can_change_info": True, "can_invite_users": True,
                            "can_post_stories": False, "can_edit_stories": False,
                            "can_delete_stories": False}}})
    table = Table(tg, group, [adder])
    await table.say(adder, "/help")  # the bot has handled the promotion by now
    greetings = [r for r in tg.requests if r.method == "sendMessage"
                 and str(r.params.get("chat_id")) == str(group["id"]) and "/hand" in r.params["text"]
                 and "1." in r.params["text"]]
    assert len(greetings) == 1


async def test_a_callback_without_data_is_answered(bot: object, tg: FakeTelegram,
                                                   table: Table) -> None:
    alice = table.players[0]
    lobby = await table.seat_everyone("luzhou")
    for query_id, extra in (("5000000001", {"message": lobby.to_api()}),
                            ("5000000002", {"inline_message_id": "AAAA"})):
        tg._open_callbacks.append(query_id)
        await tg.inject({"callback_query": {"id": query_id, "from": alice,
                                            "chat_instance": str(table.chat_id), **extra}})
        answer = await table.answered(query_id)
        assert answer.get("text") != "Something went wrong.", answer  # answered, not crashed


async def test_points_stand_in_the_variants_unit_and_settle_before_a_stake(
        bot: object, tg: FakeTelegram) -> None:
    table = Table(tg, tg.group("海南"), players(tg, "zh-hans"))
    alice, bob, carol, dan = table.players
    await seat(table, "hainan")
    preview = await table.say(alice, "/hu 西 点炮 北 清一色")
    await table.tap(alice, preview, "确认")
    standing = await table.say(bob, "/table")
    assert "1 局" in standing.text and "🀄 是下一局的庄家。" in standing.text, standing.text
    assert "西 Carol：+" in standing.text and "分" in standing.text and "-" not in standing.text
    settle = await table.say(dan, "/settle")  # no /stake yet: in points, and how to set one
    assert "按分数结算" in settle.text and "/stake" in settle.text, settle.text
    assert "Carol：+" in settle.text and "Dan → Carol" in settle.text, settle.text
    stats = await table.say(carol, "/stats")
    assert "分" in stats.text and "points" not in stats.text, stats.text


async def test_a_whole_blood_battle_in_one_line(bot: object, tg: FakeTelegram,
                                                store: Store) -> None:
    table = Table(tg, tg.group("血战"), players(tg, "zh-hans"))
    alice = table.players[0]
    await seat(table, "luzhou")
    preview = await table.say(alice, "/hu 南 自摸 清一色；西 点炮 北 大对子；东 自摸")
    assert "收付明细" in preview.text, preview.text
    answer = await table.tap(alice, preview, "确认")
    assert not answer.get("show_alert"), answer
    events = (await last_record(store, table))["events"]
    assert [e["winners"][0]["seat"] for e in events] == [1, 2, 0]
