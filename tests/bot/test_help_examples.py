"""/help's /hu examples (issue 37): drawn from the chat's style, in the chat's language, and each
one that style accepts. Every registered style is checked (the registry is iterated, the
made-up style of tests/made_up_style.py among them), each example read as /hu reads a line and
scored as the record it makes."""

from __future__ import annotations

from typing import Any

import pytest

from bot.app import help_text
from bot.entry.hu import parse_wins
from bot.entry.hu.examples import example_ctx, help_examples, help_lines
from bot.entry.hu.ready import read_ready
from bot.entry.hu.tiles import read_tiles
from bot.view.i18n import LANGS, translator
from scoring import IncompleteHand, score
from scoring.variant import Variant, all_variants


def lines_of(variant: Variant, lang: str) -> list[str]:
    ex = help_examples(variant, lang)
    return [x for x in (*ex.words, ex.count, ex.two, ex.battle, ex.tiles, ex.ready) if x]


def scored(variant: Variant, lang: str, line: str) -> dict[str, Any]:
    """The line read as /hu reads it, and its record scored (a blood battle's win may leave the
    hand going on: nothing else may be refused)."""
    ctx = example_ctx(variant, lang)
    assert line.startswith("/hu "), line
    events = parse_wins(variant, line.split()[1:])
    read_tiles(variant, ctx.base, events)
    read_ready(variant, ctx.base, events)
    record = ctx.record(events)
    try:
        score(record)
    except IncompleteHand:
        assert variant.blood_battle, (variant.name, line)
    return record


@pytest.mark.parametrize("lang", LANGS)
def test_every_example_help_shows_is_one_its_style_accepts(made_up_style: Variant,
                                                           lang: str) -> None:
    styles = all_variants()
    assert made_up_style.name in styles
    for variant in styles.values():
        lines = lines_of(variant, lang)
        assert len(lines) >= 2, (variant.name, lines)  # at least a line of words and one more
        shown = help_text(translator(lang), variant)
        for line in lines:
            assert line in shown, (variant.name, line)
            scored(variant, lang, line)


def test_examples_follow_the_style(made_up_style: Variant) -> None:
    """What the issue found refused is not shown where it is refused, and each style shows what
    it has: two winners where a discard may make two, win after win in a blood battle, a line
    of tiles where tiles are read, the turned tile where jokers follow one, 查叫 where it pays."""
    for variant in all_variants().values():
        ex = help_examples(variant, "en")
        assert "中中中" not in ex.tiles  # 123m456m789p11s 中中中: no honours in Luzhou, Guiyang
        assert not ex.two or variant.multi_winner, variant.name  # (Feibao: no discard wins)
        assert bool(ex.battle) == variant.blood_battle, variant.name
        assert bool(ex.tiles) == (variant.tiles is not None), variant.name
        assert bool(ex.ready) == bool(variant.ready_fields), variant.name
        text = "\n".join(help_lines(variant, translator("en")))
        assert ("翻=5m" in text) == bool(variant.tiles and variant.tiles.indicator), variant.name
    assert all(help_examples(all_variants()[v], "en").two for v in ("luzhou", "guiyang"))
    guiyang = help_examples(all_variants()["guiyang"], "en")
    assert not any("quads" in x for x in lines_of(all_variants()["guiyang"], "en")), guiyang


@pytest.mark.parametrize(("lang", "words"), [("zh-Hans", ("南", "自摸", "清一色")),
                                             ("zh-Hant", ("南", "自摸", "清一色")),
                                             ("en", ("S", "self-draw", "pure suit"))])
def test_the_examples_are_in_the_chats_language(lang: str, words: tuple[str, ...]) -> None:
    text = "\n".join(help_lines(all_variants()["luzhou"], translator(lang)))
    assert all(w in text for w in words), text
