"""One-line hand entry: `/hu 2 zimo all_pungs pure`, `/hu 2 from 0 seven_pairs`.

Grammar (documented in /help):
    /hu WINNER [FEATURE …] [+ WINNER [FEATURE …] …] [zimo | from SEAT | rob SEAT] [kong]
SEAT is 0–3, a wind letter (e s w n) or character (东南西北 / 東南西北). FEATURE is a winner
feature of the variant: a flag (`pure`), a value of a choice (`all_pungs`), or `name=value`
(`quads=2`, `jokers=1`). `kong` marks a win after a kong (杠上花 / 杠上炮).
"""

from __future__ import annotations

from typing import Any

from scoring.variant import Variant

from . import forms
from .forms import Kind

SEAT_WORDS = {"e": 0, "s": 1, "w": 2, "n": 3, "东": 0, "南": 1, "西": 2, "北": 3, "東": 0}
SELF_DRAW = {"zimo", "self", "tsumo", "自摸"}
KONG = {"kong", "gang", "杠", "槓"}


class LineError(ValueError):
    """What is wrong with the typed line, as an English msgid with format arguments."""

    def __init__(self, msgid: str, **kwargs: Any) -> None:
        super().__init__(msgid)
        self.msgid, self.kwargs = msgid, kwargs


def parse_seat(token: str) -> int:
    token = token.strip().lower()
    if token in ("0", "1", "2", "3"):
        return int(token)
    if token in SEAT_WORDS:
        return SEAT_WORDS[token]
    raise LineError("“{token}” is not a seat: use 0–3 or E S W N.", token=token)


def parse_hu(variant: Variant, tokens: list[str]) -> dict[str, Any]:
    """Tokens after /hu → one win event (JSON), or LineError."""
    if not tokens:
        raise LineError("Say who won, e.g. /hu 2 zimo all_pungs")
    by, frm, after_kong = "self_draw", None, False
    groups: list[list[str]] = [[]]
    it = iter(tokens)
    for raw in it:
        tok = raw.strip().lower()
        if not tok:
            continue
        if tok == "+":
            groups.append([])
        elif tok in SELF_DRAW:
            by = "self_draw"
        elif tok in ("from", "rob", "点炮", "抢杠"):
            by = "robbed_kong" if tok in ("rob", "抢杠") else "discard"
            try:
                frm = parse_seat(next(it))
            except StopIteration:
                raise LineError("“{word}” needs a seat after it.", word=raw) from None
        elif tok in KONG:
            after_kong = True
        else:
            groups[-1].append(raw)
    winners = [_winner(variant, g) for g in groups if g]
    if not winners:
        raise LineError("Say who won, e.g. /hu 2 zimo all_pungs")
    event: dict[str, Any] = {"type": "win", "by": by, "winners": winners}
    if frm is not None:
        event["from"] = frm
    if after_kong:
        event["after_kong"] = True
    return event


def _winner(variant: Variant, tokens: list[str]) -> dict[str, Any]:
    seat = parse_seat(tokens[0])
    winner: dict[str, Any] = {"seat": seat}
    specs = [s for s in forms.fields_of(variant.Winner) if s.name != "seat"]
    for raw in tokens[1:]:
        name, eq, value = raw.partition("=")
        name = name.strip().lower()
        if eq:
            spec = next((s for s in specs if s.name == name), None)
            if spec is None:
                raise LineError("Unknown feature “{name}”.", name=name)
            winner[name] = _value(spec, value.strip())
            continue
        flag = next((s for s in specs if s.name == name and s.kind is Kind.BOOL), None)
        if flag is not None:
            winner[name] = True
            continue
        choice = next((s for s in specs if s.kind is Kind.CHOICE and name in s.choices), None)
        if choice is not None:
            winner[choice.name] = name
            continue
        raise LineError("Unknown feature “{name}”.", name=name)
    return winner


def _value(spec: forms.Spec, text: str) -> Any:
    low = text.lower()
    if spec.kind is Kind.BOOL and low in ("1", "true", "yes", "0", "false", "no"):
        return low in ("1", "true", "yes")
    if spec.kind in (Kind.INT, Kind.SEAT) and low.lstrip("-").isdigit():
        return int(low) if spec.kind is Kind.INT else parse_seat(low)
    if spec.kind is Kind.SEAT:
        return parse_seat(low)
    if spec.kind is Kind.CHOICE:
        for choice in spec.choices:
            if str(choice).lower() == low:
                return choice
    raise LineError("“{value}” does not fit {name}.", value=text, name=spec.name)


def features_help(variant: Variant) -> list[str]:
    """The feature words a variant accepts, for /help."""
    words = []
    for spec in forms.fields_of(variant.Winner):
        if spec.name == "seat":
            continue
        if spec.kind is Kind.BOOL:
            words.append(spec.name)
        elif spec.kind is Kind.CHOICE:
            words.extend(str(c) for c in spec.choices if c != spec.default)
        else:
            words.append(f"{spec.name}=N")
    return words
