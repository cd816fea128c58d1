"""Raw JSON → a validated `Hand`, with every problem reported as one `ScoringError`."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Annotated, Any

from pydantic import AfterValidator, Field, ValidationError
from pydantic_core import PydanticCustomError

from .errors import ScoringError
from .model import Hand, Seat, StrictModel
from .variant import Variant, get_variant


def _four(values: list[int]) -> list[int]:
    if len(values) != 4:
        raise PydanticCustomError("four_seats", "needs exactly 4 numbers, one per seat (got {n})",
                                  {"n": len(values)})
    return values


class Envelope(StrictModel):
    variant: str
    rules: dict[str, Any] = Field(default_factory=dict)
    dealer: Seat = 0
    dealer_streak: int = Field(default=1, ge=1)
    round_wind: int = Field(default=0, ge=0, le=3)
    balances: Annotated[list[int], AfterValidator(_four)] | None = None
    events: list[Any] = Field(default_factory=list)


def _path(prefix: str, loc: Sequence[int | str], skip: set[str]) -> str:
    out = prefix
    for i, part in enumerate(loc):
        if isinstance(part, int):
            out += f"[{part}]"
        elif part in skip and i > 0 and isinstance(loc[i - 1], int):
            continue  # the discriminator tag pydantic puts into the location
        elif part == "[key]":
            continue
        elif i + 1 < len(loc) and loc[i + 1] == "[key]":
            out += f"[{part!r}]"
        else:
            out += f".{part}" if out else part
    return out


def _message(err: Any, unknown: str) -> str:
    kind, ctx = err["type"], err.get("ctx") or {}
    if kind == "extra_forbidden":
        return unknown
    if kind == "missing":
        return "is required"
    if kind == "literal_error":
        return f"must be one of {ctx.get('expected')} (got {err['input']!r})"
    if kind in ("int_type", "int_from_float"):
        return f"must be an integer (got {err['input']!r})"
    if kind == "bool_type":
        return f"must be true or false (got {err['input']!r})"
    if kind == "string_type":
        return f"must be a string (got {err['input']!r})"
    if kind in ("dict_type", "model_type", "model_attributes_type"):
        return f"must be an object (got {err['input']!r})"
    if kind == "list_type":
        return f"must be a list (got {err['input']!r})"
    if kind == "union_tag_invalid":
        return f"unknown event type {ctx.get('tag')!r} (expected {ctx.get('expected_tags')})"
    if kind == "union_tag_not_found":
        return "needs a 'type'"
    if kind == "greater_than_equal":
        return f"must be ≥ {ctx.get('ge')} (got {err['input']!r})"
    if kind == "less_than_equal":
        return f"must be ≤ {ctx.get('le')} (got {err['input']!r})"
    if kind in ("too_short", "too_long"):
        return f"has {ctx.get('actual_length')} items, {_length(ctx)}"
    return str(err["msg"])


def _length(ctx: dict[str, Any]) -> str:
    lo, hi = ctx.get("min_length"), ctx.get("max_length")
    if lo is not None and hi is not None and lo == hi:
        return f"needs exactly {lo}"
    return f"needs at least {lo}" if lo is not None else f"allows at most {hi}"


def _raise(exc: ValidationError, prefix: str, unknown: str, skip: set[str] | None = None) -> None:
    err = exc.errors(include_url=False)[0]
    raise ScoringError(_path(prefix, err["loc"], skip or set()), _message(err, unknown)) from None


def parse_record(data: Any) -> tuple[Variant, Hand]:
    if not isinstance(data, dict):
        raise ScoringError("record", "a hand record must be a JSON object")
    if "variant" not in data:
        raise ScoringError("variant", "is required")
    if not isinstance(data["variant"], str):
        raise ScoringError("variant", f"must be a string (got {data['variant']!r})")
    variant = get_variant(data["variant"])
    try:
        env = Envelope.model_validate(data)
    except ValidationError as exc:
        _raise(exc, "", "unknown field")
    try:
        rules = variant.Rules.model_validate(env.rules)
    except ValidationError as exc:
        _raise(exc, "rules", f"unknown rule for {variant.name}")
    try:
        events = variant.events_adapter().validate_python(env.events)
    except ValidationError as exc:
        _raise(exc, "events", "unknown field", set(variant.event_types()))
    balances = tuple(env.balances) if env.balances is not None else variant.initial_balances(rules)
    hand = Hand(variant.name, rules, env.dealer, env.dealer_streak, env.round_wind,
                balances, tuple(events))  # type: ignore[arg-type]
    return variant, hand
