"""Bounds on what people type or upload, stated in /help. They keep every sum far below the
64-bit columns' limit: 2,000 hands × 10⁹ points × 10⁶ cents per point < 9.2 × 10¹⁸."""

from __future__ import annotations

import unicodedata

from scoring.settlement import parse_stake

MAX_STAKE_CENTS = 1_000_000  # 10,000.00 per point
MAX_PAYMENT_CENTS = 10_000_000_000  # 100,000,000.00 in one payment
MAX_IMPORT_BYTES = 1_000_000
MAX_IMPORT_HANDS = 2_000
MAX_RECORD_INT = 1_000_000  # any whole number inside an imported hand record
MAX_HAND_POINTS = 1_000_000_000  # what one seat may win or lose in one hand
MAX_NAME = 64
ECHO = 40  # characters of a typed argument quoted back in a reply

# Invisible characters that are not whitespace to str.split(): a name of only these is empty.
_BLANKS = {"\u115f", "\u1160", "\u3164", "\uffa0", "\u2800"}


def clip(text: object, n: int = ECHO) -> str:
    """A typed argument as quoted back: at most `n` characters."""
    s = str(text)
    return s if len(s) <= n else s[: n - 1] + "…"


def visible_name(raw: str) -> str:
    """The name with runs of whitespace made one space; "" when nothing visible is left."""
    name = " ".join(raw.split())
    seen = [c for c in name if not (c in _BLANKS or unicodedata.category(c)[0] in "ZC")]
    return name if seen else ""


def has_foreign_digits(text: str) -> bool:
    """Digits other than 0-9 (², １２, ٣): refused in numbers rather than misread."""
    return any(c.isdigit() and not c.isascii() for c in text)


def parse_amount(text: str, max_cents: int) -> int:
    """A typed amount ("12.5") in cents: plain ASCII digits, above 0, at most `max_cents`
    (ValueError otherwise)."""
    cents = parse_stake(text)
    if cents > max_cents:
        raise ValueError(f"at most {max_cents} cents")
    return cents
