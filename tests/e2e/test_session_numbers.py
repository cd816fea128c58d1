"""Each chat counts its own sessions: a new group's first session is its session 1."""

from __future__ import annotations

from tests.fake_telegram import FakeTelegram

from .table import Table
from .test_books import export, upload


async def test_a_new_groups_first_session_is_number_one(bot: object, tg: FakeTelegram,
                                                       table: Table) -> None:
    alice, bob = table.players[:2]
    tg.set_admins(table.chat_id, [alice])
    for n in (1, 2):
        text = await upload(tg, table, alice, export(["Ann", "Bo", "Cy", "Di"]))
        assert f"as session {n}." in text, text
    lobby = await table.say(alice, "/new guiyang")
    assert "session 3" in lobby.text

    other = Table(tg, tg.group("Friday table"), table.players)
    lobby = await other.say(bob, "/new guiyang")
    assert "session 1" in lobby.text and "session 4" not in lobby.text
