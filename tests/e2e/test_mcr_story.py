"""Chinese Official by tiles with the story the tiles cannot show (issue 37): 杠上开花, 妙手回春,
海底捞月, 和绝张 said beside the tiles count with them before the 8-point minimum, on a /hu line
and on the tile keyboard, and each hand is stored as `python -m scoring` scores it."""

from __future__ import annotations

from typing import Any

import pytest

from db import Store
from tests.fake_telegram import FakeTelegram

from .table import Table
from .test_mcr_session import confirmed, wins
from .test_table_words import players, seat
from .test_tile_keyboard import keys, keys_for, screen_with
from .test_typed_tiles import cli_score, stored

pytest.importorskip("MahjongGB", reason="counting from tiles needs PyMahjongGB (the mcr extra)")

KONG_HAND = "[2222m][567p][678s]34m11z+5m"  # 明杠 1 and nothing else: 1 point alone
CHICKEN = "[234m][567p][678s]34m11z+5m"  # no element at all alone (无番和 8 only with nothing)


@pytest.mark.parametrize(("line", "deltas", "event"), [
    # 杠上开花 8 + 明杠 1 = 9: each pays 8 + 9
    (f"/hu 东 自摸 杠上开花 {KONG_HAND}", [51, -17, -17, -17],
     {"type": "win", "by": "self_draw", "after_kong": True,
      "winners": [{"seat": 0, "tiles": KONG_HAND}]}),
    (f"/hu E zimo {KONG_HAND} Out with Replacement Tile", [51, -17, -17, -17],
     {"type": "win", "by": "self_draw", "after_kong": True,
      "winners": [{"seat": 0, "tiles": KONG_HAND}]}),
    # 妙手回春 8 + 明杠 1
    (f"/hu 东 自摸 {KONG_HAND} last_of_wall", [51, -17, -17, -17],
     {"type": "win", "by": "self_draw",
      "winners": [{"seat": 0, "tiles": KONG_HAND, "last_of_wall": True}]}),
    # 妙手回春 8, not 无番和 besides
    (f"/hu 东 自摸 {CHICKEN} 妙手回春", [48, -16, -16, -16],
     {"type": "win", "by": "self_draw",
      "winners": [{"seat": 0, "tiles": CHICKEN, "last_of_wall": True}]}),
    (f"/hu 东 自摸 {CHICKEN} last_of_wall", [48, -16, -16, -16],
     {"type": "win", "by": "self_draw",
      "winners": [{"seat": 0, "tiles": CHICKEN, "last_of_wall": True}]}),
    # 海底捞月 beside tiles is the flag, not an element besides them: South pays 8 + 8
    (f"/hu 东 点炮 南 {CHICKEN} 海底捞月", [32, -16, -8, -8],
     {"type": "win", "by": "discard", "from": 1,
      "winners": [{"seat": 0, "tiles": CHICKEN, "last_of_wall": True}]}),
])
async def test_a_line_of_tiles_counts_the_story_told_beside_them(
        bot: object, tg: FakeTelegram, store: Store, line: str, deltas: list[int],
        event: dict[str, Any]) -> None:
    table = Table(tg, tg.group("国标 story"), players(tg, "zh-hans"))
    alice = table.players[0]
    await seat(table, "mcr")
    wiz = await table.say(alice, line)
    assert "起和" not in wiz.text and "not both" not in wiz.text, wiz.text
    await confirmed(table, alice, wiz, "确认")
    hand = await stored(store, table)
    assert wins(hand) == [event]
    assert list(hand.outcome["deltas"]) == deltas
    assert hand.outcome == cli_score(hand.record)


async def test_alone_the_tiles_are_refused_under_the_minimum(
        bot: object, tg: FakeTelegram, store: Store) -> None:
    """The same tiles without their story: 1 point, refused saying so; nothing stored."""
    table = Table(tg, tg.group("国标 minimum"), players(tg, "en"))
    await seat(table, "mcr")
    line = await table.say(table.players[0], f"/hu E zimo {KONG_HAND}")
    assert "2 points without flowers" in line.text, line.text  # 明杠 1 + 自摸 1


async def test_on_the_keyboard_the_last_tile_of_the_wall_is_counted_with_the_tiles(
        bot: object, tg: FakeTelegram, store: Store) -> None:
    """妙手回春 ticked on the win's form, then the tiles on the keyboard: Done reads them with
    it (8 points, not a refusal under the minimum), and the hand pays 8 + 8 each."""
    table = Table(tg, tg.group("国标 keys story"), players(tg, "en"))
    alice = table.players[0]
    await seat(table, "mcr")
    wiz = await table.say(alice, "/hand")
    await table.tap_in_row(alice, wiz, "East Alice", "Self-draw")
    await table.tap(alice, wiz, "last tile of the wall")
    await table.tap(alice, wiz, "Enter tiles")
    answers = await keys(table, alice, wiz.message_id,
                         [*keys_for("[234m] [567p] [678s] 11z 34m"), "t:5m", "d"])
    assert not any(a.get("text") for a in answers), answers
    await screen_with(table, wiz.message_id, "Correct the tiles")
    shown = table.message(wiz.message_id).text
    assert "Last Tile Draw 8 = 8 points" in shown, shown
    await confirmed(table, alice, wiz)
    hand = await stored(store, table)
    assert wins(hand) == [{"type": "win", "by": "self_draw", "winners": [
        {"seat": 0, "tiles": "34m11z[234m][567p][678s]+5m", "last_of_wall": True}]}]
    assert list(hand.outcome["deltas"]) == [48, -16, -16, -16]
    assert hand.outcome == cli_score(hand.record)
