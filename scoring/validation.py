"""Raw JSON → a validated `Hand`, with every problem reported as one `ScoringError`."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Annotated, Any, NamedTuple

from pydantic import AfterValidator, Field, ValidationError

from .errors import ScoringError, invalid
from .model import Hand, Seat, StrictModel
from .variant import Variant, get_variant


def _four(values: list[int]) -> list[int]:
    if len(values) != 4:
        raise invalid("needs exactly 4 numbers, one per seat (got {n})", n=len(values))
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
        elif part == "[key]" or "[" in part:
            continue  # a map key's marker, or the union member pydantic tried ("literal[…]")
        elif i + 1 < len(loc) and loc[i + 1] == "[key]":
            out += f"[{part!r}]"
        else:
            out += f".{part}" if out else part
    return out


class _Msg(NamedTuple):
    """A message for `ScoringError`: a literal English template and the values that fill it."""
    template: str
    params: dict[str, object]


def _msg(template: str, **params: object) -> _Msg:
    """Mark `template` as a message (extracted like `ScoringError`'s template)."""
    return _Msg(template, params)


def _message(err: Any, unknown: _Msg) -> _Msg:
    kind, ctx = err["type"], err.get("ctx") or {}
    if kind == "extra_forbidden":
        return unknown
    if kind == "missing":
        return _msg("is required")
    if kind == "literal_error":
        return _msg("must be one of {expected} (got {value})", expected=ctx.get("expected"),
                    value=repr(err["input"]))
    if kind in ("int_type", "int_from_float"):
        return _msg("must be an integer (got {value})", value=repr(err["input"]))
    if kind == "bool_type":
        return _msg("must be true or false (got {value})", value=repr(err["input"]))
    if kind == "string_type":
        return _msg("must be a string (got {value})", value=repr(err["input"]))
    if kind in ("dict_type", "model_type", "model_attributes_type"):
        return _msg("must be an object (got {value})", value=repr(err["input"]))
    if kind == "list_type":
        return _msg("must be a list (got {value})", value=repr(err["input"]))
    if kind == "union_tag_invalid":
        return _msg("unknown event type {tag} (expected {expected})", tag=repr(ctx.get("tag")),
                    expected=ctx.get("expected_tags"))
    if kind == "union_tag_not_found":
        return _msg("needs a 'type'")
    if kind == "greater_than_equal":
        return _msg("must be ≥ {min} (got {value})", min=ctx.get("ge"), value=repr(err["input"]))
    if kind == "less_than_equal":
        return _msg("must be ≤ {max} (got {value})", max=ctx.get("le"), value=repr(err["input"]))
    if kind in ("too_short", "too_long"):
        return _length(ctx)
    if kind == "scoring":  # raised by a validator with `invalid`
        return _Msg(ctx["template"], {k: v for k, v in ctx.items() if k != "template"})
    # any other kind: pydantic's English as is (a last resort, not expected)
    return _Msg(str(err["msg"]), {})


def _length(ctx: dict[str, Any]) -> _Msg:
    n, lo, hi = ctx.get("actual_length"), ctx.get("min_length"), ctx.get("max_length")
    if lo is not None and hi is not None and lo == hi:
        return _msg("has {count} items, needs exactly {n}", count=n, n=lo)
    if lo is not None:
        return _msg("has {count} items, needs at least {n}", count=n, n=lo)
    return _msg("has {count} items, allows at most {n}", count=n, n=hi)


def _raise(exc: ValidationError, prefix: str, unknown: _Msg, skip: set[str] | None = None) -> None:
    err = exc.errors(include_url=False)[0]
    msg = _message(err, unknown)
    raise ScoringError(_path(prefix, err["loc"], skip or set()), msg.template,
                       **msg.params) from None


def parse_rules(variant: Variant, rules: Any) -> Any:
    """A variant's house rules from JSON, errors as `ScoringError` at ``rules.<name>``."""
    try:
        return variant.Rules.model_validate(rules)
    except ValidationError as exc:
        _raise(exc, "rules", _msg("unknown rule for {variant}", variant=variant.name))


def parse_record(data: Any) -> tuple[Variant, Hand]:
    if not isinstance(data, dict):
        raise ScoringError("record", "a hand record must be a JSON object")
    if "variant" not in data:
        raise ScoringError("variant", "is required")
    if not isinstance(data["variant"], str):
        raise ScoringError("variant", "must be a string (got {value})", value=repr(data["variant"]))
    variant = get_variant(data["variant"])
    try:
        env = Envelope.model_validate(data)
    except ValidationError as exc:
        _raise(exc, "", _msg("unknown field"))
    rules = parse_rules(variant, env.rules)
    try:
        events = variant.events_adapter().validate_python(env.events)
    except ValidationError as exc:
        _raise(exc, "events", _msg("unknown field"), set(variant.event_types()))
    balances = tuple(env.balances) if env.balances is not None else variant.initial_balances(rules)
    hand = Hand(variant.name, rules, env.dealer, env.dealer_streak, env.round_wind,
                balances, tuple(events))  # type: ignore[arg-type]
    return variant, hand
