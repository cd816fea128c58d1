"""A hand as each seat's points on a /hu line: `/hu 张伟 +12 李四 -4 王芳 -8 Bob 0`.

For a style that books a hand as the points each seat won or lost (an event with a per-seat
map of signed amounts, `controls.signed_map`): seats (a name, a wind, 0–3) each followed by
its points, signed or not, with or without a space between (`东+12`). A seat not named scored
0. Whether they add up to zero is scoring's to say.
"""

from __future__ import annotations

import re
from typing import Any

from scoring.variant import Variant

from .. import controls
from .words import LineError, norm, parse_seat, split_tokens

# a signed amount: ASCII or full-width signs, the minus sign (−) and the dash people type
NUMBER = re.compile(r"^([+\-＋－−–]?)\s*(\d+)$")
GLUED = re.compile(r"^(.*?\D)([+\-＋－−–]\d+)$")  # 东+12, Bob-4: a seat and its points as one word


def points_event(variant: Variant) -> tuple[str, str] | None:
    """(event type, field) of the variant's points-per-seat event, or None where it has none."""
    for model in variant.events:
        for spec in controls.fields_of(model):
            if controls.signed_map(spec):
                return controls.spec_named(model, "type").choices[0], spec.name
    return None


def _amount(token: str) -> int | None:
    m = NUMBER.match(token.strip())
    if m is None:
        return None
    return -int(m.group(2)) if m.group(1) and m.group(1) not in "+＋" else int(m.group(2))


def _split(tokens: list[str]) -> list[str]:
    out: list[str] = []
    for tok in split_tokens(tokens):
        m = GLUED.match(tok)
        out += [m.group(1), m.group(2)] if m and _amount(m.group(2)) is not None else [tok]
    return out


def is_points(variant: Variant, tokens: list[str]) -> bool:
    """The part of a /hu line gives each seat's points: the variant books hands so, and a
    signed number follows a seat (a win's amounts are unsigned: `/hu 东 自摸 12分`)."""
    if points_event(variant) is None:
        return False
    words = _split(tokens)
    return any(_amount(w) is not None and w.strip()[:1] in "+-＋－−–" and i > 0
               for i, w in enumerate(words)) or (
        len(words) >= 2 and len(words) % 2 == 0
        and all(_amount(w) is not None for w in words[1::2]))


def parse_points(variant: Variant, tokens: list[str],
                 names: list[str | None] | None = None) -> dict[str, Any]:
    """Tokens → the points event (JSON), or LineError naming the word that does not fit."""
    found = points_event(variant)
    assert found is not None
    kind, field = found
    words = _split(tokens)
    points: dict[str, int] = {}
    i = 0
    while i < len(words):
        seat = parse_seat(words[i], names)
        if i + 1 >= len(words) or _amount(words[i + 1]) is None:
            raise LineError("“{word}” needs its points after it, e.g. +12 or -4.", word=words[i])
        if str(seat) in points:
            raise LineError("“{word}” is named twice: give each seat's points once.",
                            word=words[i])
        amount = _amount(words[i + 1])
        assert amount is not None
        if amount:
            points[str(seat)] = amount
        i += 2
    return {"type": kind, field: dict(sorted(points.items()))}


__all__ = ["is_points", "norm", "parse_points", "points_event"]
