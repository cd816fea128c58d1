"""A group's first evening as issue 37 found it, end to end over HTTP against the fake Bot API:
/help's /hu examples are the chat's style's own and each is taken by /hu; the English texts
(units, plurals, no "+0" gain, one wording for an exhausted wall); a stale button tapped just
after another player's tap moved the screen; /paid while everyone is square; a name that reads
as mathematics on /chart."""

from __future__ import annotations

import pytest

from bot.entry.hu.examples import help_examples
from scoring.variant import all_variants
from tests.fake_telegram import FakeTelegram

from .table import Table
from .test_table_words import players, seat


@pytest.mark.parametrize(("variant", "code", "lang"), [
    ("luzhou", "en", "en"), ("guiyang", "zh-hans", "zh-Hans"), ("mcr", "zh-tw", "zh-Hant"),
    ("cixi", "en", "en")])
async def test_each_example_help_shows_is_taken_by_hu(bot: object, tg: FakeTelegram,
                                                       variant: str, code: str,
                                                       lang: str) -> None:
    table = Table(tg, tg.group(f"help {variant}"), players(tg, code))
    alice = table.players[0]
    await seat(table, variant)
    shown = await table.say(alice, "/help")
    ex = help_examples(all_variants()[variant], lang)
    lines = [x for x in (*ex.words, ex.count, ex.two, ex.battle, ex.tiles, ex.ready) if x]
    assert len(lines) >= 2
    for line in lines:
        assert line in shown.text, (line, shown.text)
        answer = await table.say(alice, line)
        assert "⚠️" not in answer.text and answer.buttons, (line, answer.text)
