"""Singapore mahjong (issue 36) played through the chat end to end, over HTTP against the fake
Bot API, in English and in Chinese: the payment table in /rules; a kong's bite, an animal pair
bitten as the flowers and animals are shown during the hand, the win counting them; a self-drawn
limit hand typed as tiles and capped; the tai the players counted, off a discard under the
shooter rule and then under no shooter; refusals naming what is wrong in the chat's language;
a hand tile by tile with its cat on the keyboard, and a photo of a hand with the cat keyed in.
The style is one folder, scoring/variants/singapore/: nothing the chat runs names it."""

from __future__ import annotations

from typing import Any

from db import Store
from tests.fake_telegram import FakeTelegram

from .table import Table
from .test_table_words import players, seat
from .test_tile_keyboard import keys, keys_for, screen_with
from .test_variant_sessions import Entry, stored_hands


async def said(table: Table, user: dict[str, Any], line: str) -> Any:
    return await table.say(user, line)


async def confirm_line(table: Table, user: dict[str, Any], wiz: Any, label: str) -> None:
    answer = await table.tap(user, wiz, label)
    assert not answer.get("show_alert"), answer


async def test_a_singapore_evening_in_english(bot: object, tg: FakeTelegram, store: Store) -> None:
    table = Table(tg, tg.group("sg"), players(tg, "en"))
    alice, bob, carol, dan = table.players
    lobby = await seat(table, "singapore")
    assert "Singapore mahjong" in lobby.text and "tai cap: 5" in lobby.text, lobby.text
    rules = await table.say(alice, "/rules")
    # the payment table, as the Singapore bots show it: a share, the self-draw share, the shooter
    assert "tai  share  self-draw  shooter" in rules.text, rules.text
    assert "  1  $0.10      $0.20    $0.40" in rules.text and "$6.40" in rules.text

    # 1: Carol kongs Dan's discard (he pays for all, 30); Bob shows the cat, then the mouse:
    # the pair bites, 10 from each; Bob self-draws with a dragon pung: 1 + 2 animals = 3 tai,
    # the self-draw share of 3 tai, 80, from each.
    h = await Entry.open(table, carol)
    await h.tap("Kong")
    await h.under("Seat", "West")
    await h.tap("exposed kong")
    await h.under("From", "North")
    await h.tap("Add")
    await h.tap("Flowers and animals shown")
    await h.under("Seat", "South")
    await h.tap("cat", "Add")
    await h.tap("Flowers and animals shown")
    await h.under("Seat", "South")
    await h.tap("mouse", "Add")
    assert "3. Flowers and animals shown: South Bob mouse" in h.text, h.text
    await h.self_draw("South")
    await h.row("dragon pung", "+")
    assert "West Carol kong exposed kong 30 cents: West +30 · North −30" in h.text, h.text
    assert "South Bob animal pair mouse 10 cents: East −10 · South +30" in h.text, h.text
    assert "South Bob dragon pung animal×2 3 tai: East −80 · South +240" in h.text, h.text
    await h.confirm(1)

    # a cat shown by two seats: refused, naming the tile and who showed it
    h = await Entry.open(table, dan)
    await h.tap("Flowers and animals shown")
    await h.under("Seat", "West")
    await h.tap("cat", "Add")
    await h.tap("Flowers and animals shown")
    await h.under("Seat", "North")
    await h.tap("cat")
    answer = await table.tap(dan, h.mid, "Add")
    assert answer.get("show_alert") and "one 猫" in answer["text"], answer
    await table.tap(dan, h.mid, "Cancel")

    # 2 (Bob deals): Alice self-draws 大三元, typed as tiles: the limit, 5 tai at the cap:
    # the self-draw share of the cap, 320, from each
    wiz = await table.say(alice, "/hu E zimo [555z][666z][777z]123m11p+1p")
    assert "big three dragons" in wiz.text and "5 tai" in wiz.text, wiz.text
    assert "East +960" in wiz.text, wiz.text
    await confirm_line(table, alice, wiz, "Confirm")

    # refusals, each naming what is wrong
    line = await table.say(dan, "/hu N zimo 0 tai")
    assert "under this table's minimum of 1" in line.text, line.text
    line = await table.say(dan, "/hu N zimo 123m456p789s555z11p猫猫+1p")
    assert "only one of each animal" in line.text, line.text
    line = await table.say(dan, "/hu N zimo 55555m456p789s11p+1p")
    assert "5 of 5m" in line.text, line.text
    line = await table.say(dan, "/hu N zimo 123m456p789s555z11p9f+1p")
    assert "1f–8f" in line.text, line.text

    # 3 (Carol deals): the tai the players counted, off Carol's discard: she shot, 2 tai,
    # the self-draw share and two shares: 40 + 2 × 20 = 80
    wiz = await table.say(bob, "/hu S from W 2 tai")
    assert "South +80 · West −80" in wiz.text, wiz.text
    await confirm_line(table, bob, wiz, "Confirm")

    # the table turns to no shooter: the discarder pays the self-draw share, the others a share
    rules = await table.say(alice, "/rules")
    answer = await table.tap(alice, rules, "on a discard: the shooter pays for all 🔄")
    assert not answer.get("show_alert"), answer
    shown = table.message(rules.message_id)
    assert "discarder/others" in shown.text and "$0.40/$0.20" in shown.text, shown.text
    wiz = await table.say(dan, "/hu N from E 2 tai")
    assert "East −40 · South −20 · West −20 · North +80" in wiz.text, wiz.text
    await confirm_line(table, dan, wiz, "Confirm")

    # 5 (Dan deals): Dan self-draws tile by tile on the keyboard, the cat keyed beside the
    # flowers: a pung of 白 1 + the cat 1 = 2 tai, the self-draw share of 2 tai, 40, from each
    wiz = await table.say(dan, "/hand")
    await table.tap_in_row(dan, wiz, "North", "Self-draw")
    await table.tap(dan, wiz, "Enter tiles")
    labels = table.message(wiz.message_id).button_labels
    assert {"🐈Cat", "🐀Mouse", "🐓Rooster", "🐛Centipede"} <= set(labels), labels
    answers = await keys(table, dan, wiz.message_id, ["t:1a", *keys_for("123m 456p 789s 555z 11p"),
                                                      "d"])
    assert not any(a.get("text") for a in answers), answers
    await screen_with(table, wiz.message_id, "Correct the tiles")
    shown = table.message(wiz.message_id).text
    assert "dragon pung animal 2 tai" in shown and "North +120" in shown, shown
    await confirm_line(table, dan, wiz, "Confirm")

    hands = await stored_hands(table, store, [[-90, 270, -60, -120], [960, -320, -320, -320],
                                              [0, 80, -80, 0], [-40, -20, -20, 80],
                                              [-40, -40, -40, 120]])
    assert hands[4].record["events"][0]["winners"][0]["cat"] is True
    assert [e["type"] for e in hands[0].record["events"]] == ["kong", "bonus", "bonus", "win"]
    assert hands[1].record["events"][0]["winners"][0]["big_dragons"] is True
    assert hands[2].record["events"][0]["winners"] == [{"seat": 1, "tai": 2}]
    assert hands[3].record["rules"]["discard_pays"] == "no_shooter"


async def test_a_singapore_evening_in_chinese(bot: object, tg: FakeTelegram,
                                              store: Store) -> None:
    table = Table(tg, tg.group("新加坡"), players(tg, "zh-hans"))
    alice, bob, carol, dan = table.players
    lobby = await seat(table, "singapore")
    assert "新加坡麻将" in lobby.text and "封顶台数：5" in lobby.text, lobby.text
    assert "放炮：放炮者包赔" in lobby.text, lobby.text
    rules = await table.say(alice, "/rules")
    assert "台   每份  自摸每家  放炮包赔\n 1  $0.10     $0.20     $0.40" in rules.text, rules.text

    # 1: Bob shows 猫 then 鼠 as he draws them (咬: 10 from each); Carol's concealed kong (20
    # from each); Bob self-draws with a dragon pung: 1 + 2 animals = 3 tai, 80 from each
    h = await Entry.open(table, carol)
    await h.tap("补花")
    await h.under("座位", "南")
    await h.tap("猫", "✔ 添加")
    await h.tap("补花")
    await h.under("座位", "南")
    await h.tap("鼠", "✔ 添加")
    await h.tap("杠")
    await h.under("座位", "西")
    await h.tap("暗杠", "✔ 添加")
    await h.row("南 Bob", "自摸")
    await h.row("箭刻", "+")
    assert "咬·一对动物 鼠 10分：东 −10 · 南 +30" in h.text, h.text
    assert "箭刻 动物×2 3台：东 −80 · 南 +240" in h.text, h.text
    await confirm_line(table, bob, h.mid, "✔ 确认")

    # 2 (Bob deals): Alice self-draws 大三元 typed as tiles: 满台, capped at 5, 320 from each
    wiz = await table.say(alice, "/hu 东 自摸 [555z][666z][777z]123m11p+1p")
    assert "大三元" in wiz.text and "满台" in wiz.text and "东 +960" in wiz.text, wiz.text
    await confirm_line(table, alice, wiz, "✔ 确认")

    # refusals in Chinese, each naming what is wrong
    line = await table.say(dan, "/hu 北 自摸 0台")
    assert "0 台不到本桌起胡的 1 台" in line.text, line.text
    line = await table.say(dan, "/hu 北 自摸 123m456p789s555z11p猫猫+1p")
    assert "每种动物牌只有一张" in line.text, line.text
    line = await table.say(dan, "/hu 北 自摸 123m456p789s555z11p9f+1p")
    assert "1f–8f" in line.text, line.text

    # 3 (Carol deals): the players counted 3 台, Bob off Carol's discard: she pays for all, 160
    wiz = await table.say(bob, "/hu 南 放炮 西 3台")
    assert "南 +160 · 西 −160" in wiz.text, wiz.text
    await confirm_line(table, bob, wiz, "✔ 确认")

    await stored_hands(table, store, [[-110, 250, -30, -110], [960, -320, -320, -320],
                                      [0, 160, -160, 0]])


SG_HAND = ("1m", "2m", "3m", "4p", "5p", "6p", "7s", "8s", "9s", "5z", "5z", "5z", "1p", "1p")


async def test_a_photo_of_the_hand_its_animal_keyed_beside_it(bot: object, tg: FakeTelegram,
                                                              store: Store) -> None:
    """The photo reader reads the 136 tiles and leaves the bonus tiles to the keys: the photo's
    tiles open the keyboard, the misread put right, the cat keyed beside them, the winning tile
    tapped last; the hand's tai counted from the tiles with its cat."""
    from collections import Counter

    from bot.photo import read_tiles, tile_string
    from scoring import score
    from scoring.tiles import analyze
    from tests.photo.render import Scene, render

    from .test_tile_keyboard import correction_keys

    table = Table(tg, tg.group("sg photo"), players(tg, "en"))
    bob = table.players[1]
    await seat(table, "singapore")
    data = render(Scene(SG_HAND))
    detected = read_tiles(data).names
    await tg.send_photo(table.chat, bob, data, caption="/hu S self-draw")
    req = await tg.wait_for_request("sendMessage", 30, where=table._mine)
    wiz = table.message(req.result["message_id"])
    assert "Tiles of South Bob" in wiz.text, wiz.text
    presses = [*correction_keys(detected, SG_HAND), "t:1a", "r", "t:1p", "t:1p"]
    answers = await keys(table, bob, wiz.message_id, [*presses, "d"])
    assert not any(a.get("text") for a in answers), answers
    await screen_with(table, wiz.message_id, "Confirm")
    await confirm_line(table, bob, wiz, "Confirm")
    rest = Counter(SG_HAND) - Counter(["1p"])
    expected = analyze({"variant": "singapore", "seat": 1, "dealer": 0, "by": "self_draw",
                        "tiles": tile_string(rest.elements()) + "1a+1p"})
    assert expected["winner"] == {"seat": 1, "dragon_pungs": 1, "cat": True}
    session = await store.running_session(table.chat_id)
    hand = (await store.history(session.id, limit=1))[0]
    assert hand.record["events"][0]["winners"] == [expected["winner"]]
    assert hand.outcome == score(hand.record).to_dict()
    assert hand.outcome["deltas"] == [-40, 120, -40, -40]
