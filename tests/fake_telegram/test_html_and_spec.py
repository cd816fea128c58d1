"""The pieces under the fake server: Telegram HTML parsing and spec-driven parameter decoding."""

from __future__ import annotations

import html

import pytest

from tests.fake_telegram import ApiError, EntityParseError, load_spec, parse_html
from tests.fake_telegram.rules import check_reply_markup, format_text


def test_plain_text_and_entities_with_utf16_offsets() -> None:
    parsed = parse_html("🀄 <b>Mahjong</b> &amp; <i>Sān</i> &#x1F004;&#39;")
    assert parsed.text == "🀄 Mahjong & Sān 🀄'"
    # The tile emoji is two UTF-16 units, so bold starts at 3.
    assert parsed.entities == [{"type": "bold", "offset": 3, "length": 7},
                               {"type": "italic", "offset": 13, "length": 3}]


def test_attributes_and_special_tags() -> None:
    parsed = parse_html('<a href="https://x.org/?a=1&amp;b=2">link</a> <span class="tg-spoiler">s</span> '
                        "<pre><code class='language-python'>x = 1</code></pre> "
                        "<blockquote expandable>q</blockquote> "
                        "<tg-emoji emoji-id=5368324170671202286>👍</tg-emoji>")
    kinds = {e["type"]: e for e in parsed.entities}
    assert kinds["text_link"]["url"] == "https://x.org/?a=1&b=2"
    assert kinds["pre"]["language"] == "python" and "code" not in kinds
    assert {"spoiler", "expandable_blockquote", "custom_emoji"} <= set(kinds)


@pytest.mark.parametrize(("source", "message"), [
    ("<b>&Bob", 'Unescaped "&" at byte offset 3'),
    ("<b>Bob", 'Can\'t find end tag corresponding to start tag "b"'),
    ("é < 5", 'Unsupported start tag "" at byte offset 3'),  # é is two bytes
    ("<br/>", 'Unsupported start tag "br/" at byte offset 0'),
    ("x</b>", "Unexpected end tag at byte offset 1"),
    ("<b><i>x</b></i>", 'Unmatched end tag at byte offset 7, expected "</i>", found "</b>"'),
    ("<b", "Unclosed start tag at byte offset 0"),
    ("<a href=x", "Unclosed start tag at byte offset 0"),
    ("<span class=x>s</span>", 'Tag "span" must have class "tg-spoiler"'),
    ("&nbsp;", 'Unescaped "&" at byte offset 0'),
    ("&lt", 'Unescaped "&" at byte offset 0'),
])
def test_malformed_html(source: str, message: str) -> None:
    with pytest.raises(EntityParseError) as info:
        parse_html(source)
    assert message in str(info.value)


@pytest.mark.parametrize("name", ["<b>&Bob", "Tom & Jerry", "a<b>c", "\"quoted\" 'single'", "1 > 0"])
def test_escaped_names_survive(name: str) -> None:
    assert parse_html(f"<b>{html.escape(name)}</b>").text == name


def test_format_text_trims_and_counts_after_parsing() -> None:
    text, entities = format_text("  <b>x</b>\n", "HTML", None)
    assert (text, entities) == ("x", [{"type": "bold", "offset": 0, "length": 1}])
    with pytest.raises(ApiError, match="unsupported parse_mode"):
        format_text("x", "Markup", None)


def test_spec_decodes_form_strings() -> None:
    spec = load_spec()
    name, params = spec.decode_params("SENDMESSAGE", {
        "chat_id": "-1001", "text": "x", "disable_notification": "true",
        "reply_parameters": '{"message_id": "5"}'}, {})
    assert name == "sendMessage"
    assert params == {"chat_id": -1001, "text": "x", "disable_notification": True,
                      "reply_parameters": {"message_id": 5}}
    assert spec.decode_params("sendMessage", {"chat_id": "@table", "text": "x"}, {})[1]["chat_id"] == "@table"
    assert spec.decode_params("getUpdates", {"allowed_updates": '["message"]'}, {})[1] == {
        "allowed_updates": ["message"]}


@pytest.mark.parametrize(("method", "raw", "words"), [
    ("sendMessage", {"chat_id": 1}, "message text is empty"),
    ("sendMessage", {"text": "x"}, "chat_id is empty"),
    ("sendMessage", {"chat_id": 1, "text": "x", "parse": "HTML"}, 'unknown parameter "parse"'),
    ("sendMessage", {"chat_id": 1.5, "text": "x"}, 'field "chat_id" must be of type'),
    ("sendMessage", {"chat_id": 1, "text": ["x"]}, 'field "text" must be of type String'),
    ("getUpdates", {"timeout": "soon"}, 'field "timeout" must be of type Integer'),
    ("setMyCommands", {"commands": [{"command": "start"}]}, '"description" of BotCommand is required'),
    ("setMyCommands", {"commands": [], "scope": {"type": "chat"}}, '"chat_id" of BotCommandScopeChat'),
    ("setMyCommands", {"commands": [], "scope": {"type": "everyone"}}, "unsupported BotCommandScope"),
])
def test_spec_rejects(method: str, raw: dict, words: str) -> None:
    with pytest.raises(ApiError) as info:
        load_spec().decode_params(method, raw, {})
    assert info.value.code == 400 and words in info.value.description


def test_other_keyboards_pass_and_empty_inline_keyboard_is_none() -> None:
    spec = load_spec()
    for markup in ({"keyboard": [[{"text": "East"}]], "resize_keyboard": True},
                   {"remove_keyboard": True}, {"force_reply": True}):
        decoded = spec.decode_params("sendMessage", {"chat_id": 1, "text": "x", "reply_markup": markup}, {})
        assert check_reply_markup(decoded[1]["reply_markup"]) == markup
    assert check_reply_markup({"inline_keyboard": [[]]}) is None


def test_unknown_method() -> None:
    with pytest.raises(ApiError) as info:
        load_spec().method("sendTelegram")
    assert info.value.body() == {"ok": False, "error_code": 404, "description": "Not Found: method not found"}
