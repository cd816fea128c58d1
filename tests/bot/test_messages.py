"""Long answers: split_html cuts at line ends, never inside markup, each piece fits a message."""

from __future__ import annotations

import re

import pytest

from bot.plumbing.messages import MAX_TEXT, one_message, split_html
from tests.fake_telegram.html_check import parse_html


def shown(html: str) -> str:
    return parse_html(html).text


def utf16(text: str) -> int:
    return len(text.encode("utf-16-le")) // 2


def test_a_short_text_is_one_piece() -> None:
    assert split_html("<b>a</b>\nb") == ["<b>a</b>\nb"]


def test_lines_stay_whole_and_markup_balanced() -> None:
    lines = [f"<b>Player &lt;{i}&gt; 🀄</b>: +{i} in {i} hands" for i in range(600)]
    pieces = split_html("\n".join(lines))
    assert len(pieces) > 1
    for piece in pieces:
        assert utf16(shown(piece)) <= MAX_TEXT
        assert set(piece.split("\n")) <= set(lines)  # no line was cut
    assert "\n".join(pieces).split("\n") == lines  # nothing lost, in order


def test_a_tag_open_across_a_cut_is_closed_and_reopened() -> None:
    text = '<blockquote expandable>' + "\n".join(f"<i>line {i}</i>" for i in range(700)) + "</blockquote>"
    pieces = split_html(text)
    assert len(pieces) > 1
    for piece in pieces:
        parse_html(piece)  # the fake's (Telegram's) parser accepts every piece
        assert piece.startswith("<blockquote expandable>") and piece.endswith("</blockquote>")


@pytest.mark.parametrize("word", ["x", "&amp;", "<b>y</b>", "字"])
def test_a_line_longer_than_a_message_is_cut_outside_tags_and_entities(word: str) -> None:
    text = "head\n" + " ".join([word] * 3000) + "\ntail"
    pieces = split_html(text)
    assert len(pieces) > 1
    for piece in pieces:
        parse_html(piece)
        assert utf16(shown(piece)) <= MAX_TEXT
    assert re.sub(r"\s+", "", "".join(shown(p) for p in pieces)) == re.sub(r"\s+", "", shown(text))


def test_an_edit_is_cut_to_one_message() -> None:
    text = "\n".join(f"<b>line {i}</b>" for i in range(1000))
    cut = one_message(text)
    parse_html(cut)
    assert utf16(shown(cut)) <= MAX_TEXT and cut.endswith("…") and cut.startswith("<b>line 0</b>")
    assert one_message("short") == "short"
