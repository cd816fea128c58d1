"""Any style's results (`free`, docs/rules/free.md) through the chat, end to end over the fake
Bot API: an evening of hands typed as each seat's points, by the wizard's counters, as a winner
and an amount; a hand whose points do not add up to zero refused (in English and in Chinese)
with nothing booked; then /table, /settle, /stats, /chart, /export and /import as for every
style."""

from __future__ import annotations

from typing import Any

from db import Store
from tests.fake_telegram import FakeTelegram

from .table import Table
from .test_export import export, import_again


async def booked(store: Store, table: Table) -> list[Any]:
    session = await store.running_session(table.chat_id)
    return sorted(await store.history(session.id, limit=50), key=lambda h: h.seq)


async def confirm(table: Table, user: dict[str, Any], wiz: Any) -> None:
    answer = await table.tap(user, wiz, "Confirm")
    assert not answer.get("show_alert"), answer
    assert "recorded" in table.message(wiz.message_id).text


async def test_a_free_form_evening(bot: object, table: Table, store: Store,
                                   tg: FakeTelegram) -> None:
    alice, bob, carol, dan = table.players
    lobby = await table.seat_everyone("free")
    assert "Any style (free scoring)" in lobby.text
    shown = await table.say(alice, "/help")  # how a line gives each seat's points, and /season
    assert "Each seat's points (Free scoring): /hu 张伟 +12 李四 -4" in shown.text, shown.text
    assert "/season — the group's season" in shown.text

    # 1. each seat's points in one line, a seat left out scoring 0: Alice +12, Carol −4, Dan −8
    wiz = await table.say(alice, "/hu Alice +12 Carol -4 Dan-8")
    assert "Points per seat" in wiz.text, wiz.text
    assert "Points per seat: East +12; West −4; North −8" in wiz.text, wiz.text
    await confirm(table, alice, wiz)

    # 2. refused: the points add up to +4; the reply names the difference and nothing is booked
    answer = await table.say(carol, "/hu Alice +12 Carol -4 Dan -4")
    assert "the points add up to +4, not 0: someone has 4 too many" in answer.text, answer.text
    answer = await table.say(carol, "/hu Alice +12 Alice -12")
    assert "“Alice” is named twice" in answer.text, answer.text
    assert len(await booked(store, table)) == 1

    # 3. the wizard's counters: South +15 (+10, +1 ×5), North −15. At Σ +15 the form offers Add
    # rather than Confirm, and Add refuses
    wiz = await table.say(bob, "/hand")
    await table.tap(bob, wiz, "Points per seat")
    await table.tap_in_row(bob, wiz, "South", "+10", below=True)
    for _ in range(5):
        await table.tap_in_row(bob, wiz, "South", "+1", below=True)
    screen = table.message(wiz.message_id)
    assert any("Σ +15" in b for b in screen.button_labels), screen.button_labels
    assert "South <b>&Bob: +15" in screen.button_labels, screen.button_labels
    assert "Confirm" not in " ".join(screen.button_labels)
    await table.tap(bob, wiz, "Add")
    assert "the points add up to +15, not 0" in table.message(wiz.message_id).text
    assert len(await booked(store, table)) == 1
    await table.tap_in_row(bob, wiz, "North", "−10", below=True)
    for _ in range(5):
        await table.tap_in_row(bob, wiz, "North", "−1", below=True)
    assert any("Σ ±0" in b for b in table.message(wiz.message_id).button_labels)
    await confirm(table, bob, wiz)

    # 4. a winner and an amount: Carol self-draws for 5, each of the others pays 5
    wiz = await table.say(carol, "/hu Carol self-draw 5 points")
    await confirm(table, carol, wiz)
    # 5. a discard where everyone pays: Dan wins 3 off Alice, each of the three pays 3
    wiz = await table.say(dan, "/hu Dan from Alice 3 points everyone pays")
    await confirm(table, dan, wiz)

    hands = await booked(store, table)
    assert [h.record["events"] for h in hands] == [
        [{"type": "points", "points": {"0": 12, "2": -4, "3": -8}}],
        [{"type": "points", "points": {"1": 15, "3": -15}}],
        [{"type": "win", "by": "self_draw", "winners": [{"seat": 2, "amount": 5}]}],
        [{"type": "win", "by": "discard", "from": 0, "winners": [{"seat": 3, "amount": 3,
                                                                   "all_pay": True}]}]]
    session = await store.running_session(table.chat_id)
    # by hand: Alice 12 − 5 − 3 = 4; Bob 15 − 5 − 3 = 7; Carol −4 + 15 − 3 = 8;
    # Dan −8 − 15 − 5 + 9 = −19
    assert list(await store.totals(session.id)) == [4, 7, 8, -19]
    shown = (await table.say(alice, "/table")).text
    assert "+4" in shown and "−19" in shown, shown

    await table.say(alice, "/stake 1")
    settle = await table.say(alice, "/settle")
    assert "Dan" in settle.text and "19.00" in settle.text, settle.text
    stats = await table.say(dan, "/stats")
    assert "Dan: −19 points in 4 hands" in stats.text, stats.text
    assert "1 win in 4 hands (25%), self-drawn 0%" in stats.text, stats.text  # Dan's, off a discard

    chart = await table.say(alice, "/chart", method="sendPhoto")
    assert chart.caption and "4 hands" in chart.caption
    assert chart.file is not None and chart.file.upload.data.startswith(b"\x89PNG")

    # the refusal in the chat's language
    menu = await table.say(alice, "/lang")
    await table.tap(alice, menu, "简体中文")
    answer = await table.say(carol, "/hu Alice +3 Carol -4")
    assert "各家得分加起来是 −1，不是 0：有人少记了 1 分" in answer.text, answer.text
    assert len(await booked(store, table)) == 4
    menu = await table.say(alice, "/lang")
    await table.tap(alice, menu, "English")

    # exported and imported again, the same books
    rows, doc = await export(table, tg, dan)
    assert doc["variant"] == "free" and [h["seq"] for h in doc["hands"]] == [1, 2, 3, 4]
    assert [int(r[5]) for r in rows[-4:]] == [4, 7, 8, -19]
    imported = await import_again(table, tg, store, alice, doc)
    assert imported.id != session.id and imported.variant == "free"
    assert list(await store.totals(imported.id)) == [4, 7, 8, -19]


async def test_a_photo_of_a_free_form_hand_is_not_read(bot: object, table: Table,
                                                      tg: FakeTelegram) -> None:
    """The style has no tiles: a photo captioned /hu says to enter the hand by its points or
    amount, without fetching the picture."""
    from tests.photo.render import Scene, render

    from .test_tile_keyboard import GUIYANG_HAND

    await table.seat_everyone("free")
    await tg.send_photo(table.chat, table.players[1], render(Scene(GUIYANG_HAND)),
                        caption="/hu S self-draw")
    req = await tg.wait_for_request("sendMessage", 15, where=lambda r: r.ok and "⚠️" in
                                    r.params.get("text", ""))
    assert "Any style (free scoring) reads no tiles" in req.params["text"], req.params["text"]
    assert not tg.downloads
