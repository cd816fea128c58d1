"""Limits the spec states only in prose, enforced by hand with Telegram's error wording."""

from __future__ import annotations

import re
from typing import Any

from .html_check import EntityParseError, parse_html, utf16_len
from .spec import bad_request

MAX_TEXT = 4096
MAX_CAPTION = 1024
MAX_CALLBACK_ANSWER = 200
MAX_CALLBACK_DATA = 64  # bytes, UTF-8
MAX_BUTTONS = 100
# Fields of an InlineKeyboardButton that do not choose what the button does.
NON_ACTION_FIELDS = {"text", "icon_custom_emoji_id", "style"}
_BUTTON_URL = re.compile(r"^(https?|tg)://\S+$", re.IGNORECASE)
_COMMAND = re.compile(r"^[a-z0-9_]{1,32}$")


def format_text(raw: str, parse_mode: str | None, entities: list[dict[str, Any]] | None,
                *, caption: bool = False) -> tuple[str, list[dict[str, Any]]]:
    """The text Telegram stores (entities parsed, surrounding whitespace trimmed) and its entities;
    raises ApiError for bad markup or a length out of range."""
    mode = (parse_mode or "").lower()
    if mode == "html":
        try:
            parsed = parse_html(raw)
        except EntityParseError as exc:
            raise bad_request(f"can't parse entities: {exc}") from None
        text, found = parsed.text, parsed.entities
    elif mode in ("", "markdown", "markdownv2"):
        # Markdown is not parsed by the fake (the bot speaks HTML); its length counts raw.
        text, found = raw, list(entities or [])
    else:
        raise bad_request("unsupported parse_mode")
    text, found = _trim(text, found)
    # Telegram counts characters (code points) after parsing.
    if caption:
        if len(text) > MAX_CAPTION:
            raise bad_request("message caption is too long")
    elif not text:
        raise bad_request("message text is empty")
    elif len(text) > MAX_TEXT:
        raise bad_request("message is too long")
    return text, found


def _trim(text: str, entities: list[dict[str, Any]]) -> tuple[str, list[dict[str, Any]]]:
    """Telegram strips leading and trailing whitespace and moves entities with the text."""
    stripped = text.strip()
    if stripped == text:
        return text, entities
    shift = utf16_len(text) - utf16_len(text.lstrip())
    size = utf16_len(stripped)
    kept = []
    for e in entities:
        start = max(e["offset"] - shift, 0)
        end = min(e["offset"] + e["length"] - shift, size)
        if end > start:
            kept.append({**e, "offset": start, "length": end - start})
    return stripped, kept


def check_reply_markup(markup: dict[str, Any] | None) -> dict[str, Any] | None:
    """Inline keyboards: every button has text and exactly one action, callback data 1-64 bytes.
    Returns the markup, or None for an inline keyboard without buttons (Telegram drops it)."""
    if markup is None or "inline_keyboard" not in markup:
        return markup
    rows = [row for row in markup["inline_keyboard"] if row]
    buttons = [button for row in rows for button in row]
    if len(buttons) > MAX_BUTTONS:
        raise bad_request("reply markup is too long")
    for button in buttons:
        check_button(button)
    return {**markup, "inline_keyboard": rows} if buttons else None


def check_button(button: dict[str, Any]) -> None:
    if not button["text"].strip():
        raise bad_request("BUTTON_TEXT_INVALID")
    actions = sorted(k for k in button if k not in NON_ACTION_FIELDS)
    if not actions:
        raise bad_request("can't parse inline keyboard button: "
                          "Text buttons are unallowed in the inline keyboard")
    if len(actions) > 1:
        raise bad_request("can't parse inline keyboard button: a button must have exactly one action, "
                          f"found {', '.join(actions)}")
    if "callback_data" in button:
        size = len(button["callback_data"].encode("utf-8"))
        if not 1 <= size <= MAX_CALLBACK_DATA:
            raise bad_request("BUTTON_DATA_INVALID")
    if "url" in button and not _BUTTON_URL.match(button["url"]):
        raise bad_request(f"inline keyboard button URL '{button['url']}' is invalid: Wrong HTTP URL")


def check_commands(commands: list[dict[str, Any]], language_code: str | None) -> None:
    if len(commands) > 100:
        raise bad_request("too many commands")
    for command in commands:
        if not _COMMAND.match(command["command"]):
            raise bad_request("BOT_COMMAND_INVALID")
        if not 1 <= len(command["description"].strip()) <= 256:
            raise bad_request("BOT_COMMAND_DESCRIPTION_INVALID")
    if language_code and not re.fullmatch(r"[a-z]{2}", language_code):
        raise bad_request("LANG_CODE_INVALID")


def check_callback_answer_text(text: str | None) -> None:
    if text is not None and len(text) > MAX_CALLBACK_ANSWER:
        raise bad_request("MESSAGE_TOO_LONG")


_SECRET = re.compile(r"^[A-Za-z0-9_-]{1,256}$")


def check_webhook(url: str, secret_token: str | None) -> None:
    if secret_token is not None and not _SECRET.match(secret_token):
        raise bad_request("secret token contains unallowed characters")
    if not url:
        return
    m = re.match(r"^https://[^/:]+(?::(\d+))?(/.*)?$", url)
    if not m:
        raise bad_request("bad webhook: An HTTPS URL must be provided for webhook")
    if m.group(1) and int(m.group(1)) not in (80, 88, 443, 8443):
        raise bad_request("bad webhook: Webhook can be set up only on ports 80, 88, 443 or 8443")
