"""Telegram's HTML parse mode, as the Bot API server applies it.

Follows tdlib's `parse_html` (tag set, attribute syntax, error wording with UTF-8 byte offsets),
with one deliberate strictness: tdlib keeps a stray `&` literally, but the Bot API documentation
requires every `&` outside an entity to be escaped, and a bot that leaves one bare would also leave
a bare `<` in the next name it prints. So a lone `&` is an error here.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

# Tags Telegram accepts (https://core.telegram.org/bots/api#html-style) and their entity types.
SIMPLE_TAGS = {
    "b": "bold", "strong": "bold",
    "i": "italic", "em": "italic",
    "u": "underline", "ins": "underline",
    "s": "strikethrough", "strike": "strikethrough", "del": "strikethrough",
    "tg-spoiler": "spoiler",
    "code": "code", "pre": "pre",
    "blockquote": "blockquote",
    "a": "text_link", "tg-emoji": "custom_emoji", "span": "spoiler", "tg-time": "date_time",
}
NAMED_ENTITIES = {"lt": "<", "gt": ">", "amp": "&", "quot": '"'}
_NUMERIC = re.compile(r"&#(?:([0-9]+)|[xX]([0-9a-fA-F]+));")
_NAMED = re.compile(r"&([a-zA-Z]+);")


class EntityParseError(ValueError):
    """The text is not valid Telegram HTML; str() is tdlib's message, without the
    "Bad Request: can't parse entities: " prefix."""


@dataclass
class _Open:
    tag: str
    byte_offset: int
    utf16_start: int
    attrs: dict[str, str] = field(default_factory=dict)


@dataclass
class ParsedText:
    text: str
    entities: list[dict[str, Any]]


def utf16_len(text: str) -> int:
    return len(text.encode("utf-16-le")) // 2


def _decode_entity(text: str, i: int) -> tuple[str, int] | None:
    """The character an entity at text[i] ('&') stands for and the index after it."""
    m = _NUMERIC.match(text, i)
    if m:
        code = int(m.group(1), 10) if m.group(1) else int(m.group(2), 16)
        if code == 0 or code >= 0x10FFFF or 0xD800 <= code <= 0xDFFF:
            return None
        return chr(code), m.end()
    m = _NAMED.match(text, i)
    if m and m.group(1) in NAMED_ENTITIES:
        return NAMED_ENTITIES[m.group(1)], m.end()
    return None


class _Scanner:
    def __init__(self, text: str) -> None:
        self.text = text
        self.n = len(text)
        # Byte offsets are what Telegram reports; precompute the prefix sums once.
        self._bytes = [0]
        for ch in text:
            self._bytes.append(self._bytes[-1] + len(ch.encode("utf-8")))

    def byte(self, i: int) -> int:
        return self._bytes[i]

    def at(self, i: int) -> str:
        return self.text[i] if i < self.n else ""


def parse_html(text: str) -> ParsedText:
    """Plain text and entities (UTF-16 offsets) of an HTML-formatted message; raises
    EntityParseError where Telegram answers "can't parse entities"."""
    s = _Scanner(text)
    out: list[str] = []
    utf16_pos = 0
    stack: list[_Open] = []
    entities: list[dict[str, Any]] = []
    i = 0
    while i < s.n:
        ch = text[i]
        if ch == "&":
            decoded = _decode_entity(text, i)
            if decoded is None:
                raise EntityParseError(
                    f'Unescaped "&" at byte offset {s.byte(i)}; a bare "&" must be written "&amp;"')
            out.append(decoded[0])
            utf16_pos += utf16_len(decoded[0])
            i = decoded[1]
            continue
        if ch != "<":
            out.append(ch)
            utf16_pos += utf16_len(ch)
            i += 1
            continue
        begin = i
        i += 1
        if s.at(i) == "/":
            i = _end_tag(s, i + 1, begin, stack, entities, utf16_pos)
        else:
            opened, i = _start_tag(s, i, begin, utf16_pos)
            stack.append(opened)
    if stack:
        raise EntityParseError(f'Can\'t find end tag corresponding to start tag "{stack[-1].tag}"')
    for entity in entities:
        entity.pop("_language", None)  # a language class outside <pre> is just code
    entities.sort(key=lambda e: (e["offset"], -e["length"]))
    return ParsedText("".join(out), entities)


def _start_tag(s: _Scanner, i: int, begin: int, utf16_pos: int) -> tuple[_Open, int]:
    start = i
    while i < s.n and not s.text[i].isspace() and s.text[i] != ">":
        i += 1
    if i >= s.n:
        raise EntityParseError(f"Unclosed start tag at byte offset {s.byte(begin)}")
    tag = s.text[start:i].lower()
    if tag not in SIMPLE_TAGS:
        raise EntityParseError(f'Unsupported start tag "{tag}" at byte offset {s.byte(begin)}')
    attrs: dict[str, str] = {}
    while s.at(i) != ">":
        while i < s.n and s.text[i].isspace():
            i += 1
        if s.at(i) == ">":
            break
        name_start = i
        while i < s.n and not s.text[i].isspace() and s.text[i] not in "=>":
            i += 1
        name = s.text[name_start:i].lower()
        if not name:
            raise EntityParseError(f'Empty attribute name in the tag "{tag}" at byte offset {s.byte(begin)}')
        while i < s.n and s.text[i].isspace():
            i += 1
        if s.at(i) != "=":
            if tag == "blockquote" and name == "expandable":  # a bare boolean attribute
                attrs[name] = ""
                continue
            raise EntityParseError(f'Expected equal sign in declaration of an attribute of the tag "{tag}" '
                                   f"at byte offset {s.byte(begin)}")
        i += 1
        while i < s.n and s.text[i].isspace():
            i += 1
        if i >= s.n:
            raise EntityParseError(f"Unclosed start tag at byte offset {s.byte(begin)}")
        value, i = _attr_value(s, i)
        if i >= s.n:
            raise EntityParseError(f"Unclosed start tag at byte offset {s.byte(begin)}")
        attrs[name] = value
    if tag == "span" and attrs.get("class") != "tg-spoiler":
        raise EntityParseError(f'Tag "span" must have class "tg-spoiler" at byte offset {s.byte(begin)}')
    if tag == "tg-time" and not attrs.get("unix", "").isdigit():
        raise EntityParseError(f'Tag "tg-time" must have attribute "unix" at byte offset {s.byte(begin)}')
    if tag == "tg-emoji" and not attrs.get("emoji-id"):
        raise EntityParseError(f'Tag "tg-emoji" must have attribute "emoji-id" '
                               f"at byte offset {s.byte(begin)}")
    return _Open(tag, s.byte(begin), utf16_pos, attrs), i + 1


def _attr_value(s: _Scanner, i: int) -> tuple[str, int]:
    quote = s.at(i)
    if quote not in ("'", '"'):
        # An unquoted HTML 4 name token.
        start = i
        while i < s.n and (s.text[i].isalnum() or s.text[i] in ".-"):
            i += 1
        if i < s.n and not s.text[i].isspace() and s.text[i] != ">":
            raise EntityParseError(f"Unexpected end of name token at byte offset {s.byte(start)}")
        return s.text[start:i].lower(), i
    i += 1
    chars: list[str] = []
    while i < s.n and s.text[i] != quote:
        decoded = _decode_entity(s.text, i) if s.text[i] == "&" else None
        if decoded:
            chars.append(decoded[0])
            i = decoded[1]
        else:
            chars.append(s.text[i])
            i += 1
    return "".join(chars), i + 1 if i < s.n else i


def _end_tag(s: _Scanner, i: int, begin: int, stack: list[_Open],
             entities: list[dict[str, Any]], utf16_pos: int) -> int:
    if not stack:
        raise EntityParseError(f"Unexpected end tag at byte offset {s.byte(begin)}")
    start = i
    while i < s.n and s.text[i] != ">":
        i += 1
    if i >= s.n:
        raise EntityParseError(f"Unclosed end tag at byte offset {s.byte(begin)}")
    name = s.text[start:i].strip().lower()
    top = stack.pop()
    if name and name != top.tag:
        raise EntityParseError(f'Unmatched end tag at byte offset {s.byte(begin)}, '
                               f'expected "</{top.tag}>", found "</{name}>"')
    _add_entity(top, utf16_pos, entities)
    return i + 1


def _add_entity(top: _Open, end: int, entities: list[dict[str, Any]]) -> None:
    length = end - top.utf16_start
    if length <= 0:
        return  # Telegram drops empty entities
    kind = SIMPLE_TAGS[top.tag]
    entity: dict[str, Any] = {"type": kind, "offset": top.utf16_start, "length": length}
    if top.tag == "a":
        entity["url"] = top.attrs.get("href", "")
    elif top.tag == "tg-emoji":
        entity["custom_emoji_id"] = top.attrs["emoji-id"]
    elif top.tag == "tg-time":
        entity["unix_time"] = int(top.attrs.get("unix", "0") or 0)
        if top.attrs.get("format"):
            entity["date_time_format"] = top.attrs["format"]
    elif top.tag == "blockquote" and "expandable" in top.attrs:
        entity["type"] = "expandable_blockquote"
    elif top.tag == "code" and top.attrs.get("class", "").startswith("language-"):
        # Remembered until the enclosing <pre> closes; see _merge_pre_language.
        entity["_language"] = top.attrs["class"][len("language-"):]
    entities.append(entity)
    if top.tag == "pre":
        _merge_pre_language(entity, entities)


def _merge_pre_language(pre: dict[str, Any], entities: list[dict[str, Any]]) -> None:
    """A `pre` that wraps exactly one `code class="language-…"` becomes `pre` with a language."""
    for inner in entities:
        if (inner is not pre and inner["type"] == "code" and "_language" in inner
                and inner["offset"] == pre["offset"] and inner["length"] == pre["length"]):
            pre["language"] = inner["_language"]
            entities.remove(inner)
            return

