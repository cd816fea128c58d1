"""The hand record as typed data: common fields and the event types every variant shares.

Variants subclass `WinnerBase` for their winner features and list the event models they accept;
`scoring.validation` turns raw JSON into these models and `scoring.errors` their refusals into
`ScoringError`s.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Annotated, Any, Generic, Literal, TypeVar

from pydantic import (
    AfterValidator,
    BaseModel,
    ConfigDict,
    Field,
    ValidationError,
    ValidatorFunctionWrapHandler,
    WrapValidator,
    model_validator,
)
from pydantic_core import PydanticCustomError

from .errors import invalid

SEATS = (0, 1, 2, 3)


def check_seat(seat: int) -> int:
    if seat not in SEATS:
        raise invalid("{number} is not a seat (seats are 0–3)", number=seat)
    return seat


Seat = Annotated[int, AfterValidator(check_seat)]
SeatKey = Literal["0", "1", "2", "3"]
WinBy = Literal["self_draw", "discard", "robbed_kong"]


def only_by(*kinds: str) -> dict[str, Any]:
    """Metadata for a winner's field that exists only for wins by `kinds` (天胡 is a self-draw):
    `Field(default=False, json_schema_extra=only_by("self_draw"))`. Scoring still checks it;
    the bot's forms hide the field for other wins."""
    return {"win_by": list(kinds)}


def hand_tiles() -> dict[str, Any]:
    """Metadata for a winner's field holding the whole hand in the tile notation, where the
    style counts the hand from it (`Variant.reads_own_tiles`): `Field(default=None,
    json_schema_extra=hand_tiles())`. The tile keyboard, a typed line, a photo or the page fill
    it; the forms draw no control of their own for it."""
    return {"entry": "tiles"}


def term_list() -> dict[str, Any]:
    """Metadata for a winner's field listing the style's terms by key (``"key"``, or
    ``"key:n"`` for one counted n times): the elements a player counted. A typed line names
    each in any language; the forms, too small for a table of them, leave it to that line."""
    return {"entry": "terms"}


def _integers_only(value: Any, handler: ValidatorFunctionWrapHandler) -> Any:
    """A numeric choice takes integers only: pydantic's `Literal` finds a choice by equality,
    so True and 1.0 would pass for 1. Refused the way the choice itself refuses a value."""
    if type(value) in (bool, float):
        try:
            handler(None)  # not a choice: the choice's own refusal, with what it expects
        except ValidationError as exc:
            err = exc.errors(include_url=False)[0]
            raise PydanticCustomError(err["type"], err["msg"], err.get("ctx")) from None
    return handler(value)


INTEGERS_ONLY = WrapValidator(_integers_only)  # `Annotated[Literal[1, 2], INTEGERS_ONLY]`


class StrictModel(BaseModel):
    """JSON-shaped, immutable, no unknown fields, no type coercion (1 is not true, "1" not 1)."""

    model_config = ConfigDict(extra="forbid", strict=True, frozen=True, populate_by_name=False)


class RulesBase(StrictModel):
    """A variant's house rules: every field has a default; see `scoring.rules_menu`."""


class WinnerBase(StrictModel):
    seat: Seat


W = TypeVar("W", bound=WinnerBase)
R = TypeVar("R", bound=StrictModel)


class WinEvent(StrictModel, Generic[W]):
    type: Literal["win"]
    by: WinBy
    from_: Seat | None = Field(default=None, alias="from")
    after_kong: bool = False
    winners: list[W] = Field(min_length=1)

    @model_validator(mode="after")
    def _shape(self) -> WinEvent[W]:
        seats = [w.seat for w in self.winners]
        if len(set(seats)) != len(seats):
            raise invalid("a seat is listed twice in winners")
        if self.by == "self_draw":
            if self.from_ is not None:
                raise invalid("a self-drawn win has no 'from'")
            if len(seats) > 1:
                raise invalid("a self-drawn win has exactly one winner")
        else:
            if self.from_ is None:
                raise invalid("a {by} win needs 'from' (the seat that pays)", by=self.by)
            if self.from_ in seats:
                raise invalid("{seat} cannot win off its own tile", seat=self.from_)
            if self.by == "robbed_kong" and self.after_kong:
                raise invalid("after_kong does not go with robbed_kong")
        return self

    @property
    def seats(self) -> list[int]:
        return [w.seat for w in self.winners]


class KongEvent(StrictModel):
    type: Literal["kong"]
    seat: Seat
    kind: Literal["concealed", "added", "exposed"]
    from_: Seat | None = Field(default=None, alias="from")
    robbed: bool = False

    @model_validator(mode="after")
    def _shape(self) -> KongEvent:
        if self.kind == "exposed":
            if self.from_ is None:
                raise invalid("an exposed kong needs 'from' (the discarder)")
            if self.from_ == self.seat:
                raise invalid("a seat cannot kong its own discard")
        elif self.from_ is not None:
            raise invalid("only an exposed kong has 'from'")
        if self.robbed and self.kind != "added":
            raise invalid("only an added kong can be robbed")
        return self


class ExhaustedEvent(StrictModel):
    """The wall ran out, in variants that check nobody's hand."""

    type: Literal["exhausted"]


class ExhaustedReadyEvent(StrictModel, Generic[R]):
    """The wall ran out; `ready` maps seats to their best ready hand, or null."""

    type: Literal["exhausted"]
    ready: dict[SeatKey, R | None] = Field(default_factory=dict)

    def ready_seats(self) -> dict[int, R | None]:
        return {int(k): v for k, v in sorted(self.ready.items())}


@dataclass(frozen=True)
class Hand(Generic[R]):
    """A validated hand record: what a variant's `score` receives."""

    variant: str
    rules: Any
    dealer: int
    dealer_streak: int
    round_wind: int
    balances: tuple[int, int, int, int]
    events: tuple[Any, ...]

    def others(self, seat: int) -> list[int]:
        return [s for s in SEATS if s != seat]
