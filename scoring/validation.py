"""Raw JSON → a validated `Hand`, with every problem reported as one `ScoringError`."""

from __future__ import annotations

from typing import Annotated, Any

from pydantic import AfterValidator, Field

from .errors import ScoringError, invalid, validated
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


def parse_record(data: Any) -> tuple[Variant, Hand]:
    if not isinstance(data, dict):
        raise ScoringError("record", "a hand record must be a JSON object")
    if "variant" not in data:
        raise ScoringError("variant", "is required")
    if not isinstance(data["variant"], str):
        raise ScoringError("variant", "must be a string (got {value})", value=repr(data["variant"]))
    variant = get_variant(data["variant"])
    env = validated(Envelope, data)
    rules = variant.read_rules(env.rules)
    return variant, build_hand(variant, rules, env.events, env.dealer, env.round_wind,
                               env.dealer_streak, env.balances)


def build_hand(variant: Variant, rules: Any, events: Any, dealer: int, round_wind: int,
               dealer_streak: int = 1, balances: Any = None) -> Hand:
    """A hand from its rules model (already read) and its events (checked here by the variant's
    own event models): the part of `parse_record` the tile analysis also uses, with rules it
    read once per table."""
    checked = variant.read_events(events)
    variant.check_options(checked, rules)
    start = tuple(balances) if balances is not None else variant.initial_balances(rules)
    return Hand(variant.name, rules, dealer, dealer_streak, round_wind,
                start, tuple(checked))  # type: ignore[arg-type]
