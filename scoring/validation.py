"""Raw JSON → a validated `Hand`, with every problem reported as one `ScoringError`."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Annotated, Any, NamedTuple

from .errors import ScoringError, invalid
from .model import Hand, Seat, StrictModel
from .schema import KEY, AfterValidator, Field, ValidationError
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


def _path(prefix: str, loc: Sequence[int | str]) -> str:
    """``events[0].winners[1].seat`` from a location; a map's key shows as ``ready['5']`` when
    the key itself is wrong, its value as ``ready.5``."""
    out = prefix
    for i, part in enumerate(loc):
        if isinstance(part, int):
            out += f"[{part}]"
        elif part == KEY:
            continue
        elif i + 1 < len(loc) and loc[i + 1] == KEY:
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


def _raise(exc: ValidationError, prefix: str, unknown: _Msg) -> None:
    """`exc` as a `ScoringError` at `prefix` + its location; `unknown` says what an unknown
    field is (a rule, a field)."""
    msg = unknown if exc.unknown else _Msg(exc.template, exc.params)
    raise ScoringError(_path(prefix, exc.loc), msg.template, **msg.params) from None


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
    return variant, build_hand(variant, rules, env.events, env.dealer, env.round_wind,
                               env.dealer_streak, env.balances)


def build_hand(variant: Variant, rules: Any, events: Any, dealer: int, round_wind: int,
               dealer_streak: int = 1, balances: Any = None) -> Hand:
    """A hand from its rules model (already read) and its events (checked here by the variant's
    own event models): the part of `parse_record` the tile analysis also uses, with rules it
    read once per table."""
    try:
        checked = variant.events_adapter().validate_python(events)
    except ValidationError as exc:
        _raise(exc, "events", _msg("unknown field"))
    start = tuple(balances) if balances is not None else variant.initial_balances(rules)
    return Hand(variant.name, rules, dealer, dealer_streak, round_wind,
                start, tuple(checked))  # type: ignore[arg-type]
