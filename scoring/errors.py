"""The one exception scoring raises for a record it cannot score, and how a record's refusal
(pydantic's structured error: its type, location and context) becomes one."""

from __future__ import annotations

import types
from collections.abc import Callable, Sequence
from typing import Annotated, Any, NamedTuple, TypeVar, Union, get_args, get_origin

from pydantic import BaseModel, ValidationError
from pydantic.fields import FieldInfo
from pydantic_core import ErrorDetails, PydanticCustomError

INVALID = "scoring"  # the error type of a record's own refusal (`invalid`)
_TEMPLATE = "template"  # where its template rides in the error's context


class ScoringError(ValueError):
    """An invalid hand record. `field` is a path like ``events[1].winners[0].seat``.

    `template` is an English message with ``{name}`` placeholders filled from `params`; it is
    also the message key the bot translates (extracted with `-k ScoringError:2`), so raise with
    a literal template and the changing parts as keyword arguments. A parameter whose name
    starts with `seat` holds a seat number or a list of them and stands for the whole noun
    ("{seat} has already won" reads "seat 2 has already won"), so the bot can put players'
    names there instead."""

    def __init__(self, field: str, template: str, **params: object) -> None:
        self.field = field
        self.template = template
        self.params = params
        self.message = format_message(template, params)
        super().__init__(f"{field}: {self.message}" if field else self.message)


class IncompleteHand(ScoringError):
    """The events so far are fine but the hand has not ended yet (no win or exhausted wall).

    Scoring a finished record treats it like any error; the bot's wizard, which validates a
    hand while it is being entered, lets it pass until the preview."""


def invalid(template: str, **params: object) -> PydanticCustomError:
    """`raise invalid(...)` in a record's own check (a model or field validator): pydantic
    reports it at the path of what the check read, and `refusal` raises it as a `ScoringError`
    with this template and these values (extracted for translation like `ScoringError`'s)."""
    return PydanticCustomError(INVALID, template, {_TEMPLATE: template, **params})


def format_message(template: str, params: dict[str, object]) -> str:
    """The English text: seat parameters read "seat 2" or "seats 1, 3"."""
    if not params:
        return template
    return template.format(**seat_params(params, _seat_words))


def seat_params(params: dict[str, object], show: Callable[[list[int]], str]) -> dict[str, object]:
    """`params` with each seat parameter (a name starting with `seat`: one seat or several)
    replaced by `show` of its seats, sorted; the one place that convention is read."""
    return {k: show(sorted(v) if isinstance(v, (list, tuple, set, frozenset)) else [v])  # type: ignore[arg-type]
            if k.startswith("seat") else v for k, v in params.items()}


def _seat_words(seats: list[int]) -> str:
    if len(seats) == 1:
        return f"seat {seats[0]}"
    return "seats " + ", ".join(map(str, seats))


# -- pydantic's refusals as `ScoringError`s ------------------------------------------------------

class Message(NamedTuple):
    """A refusal's text: a literal English template and the values that fill it."""

    template: str
    params: dict[str, object]


def _msg(template: str, **params: object) -> Message:
    """Mark `template` as a message (extracted for translation like `ScoringError`'s)."""
    return Message(template, params)


UNKNOWN_FIELD = _msg("unknown field")


def unknown_rule(variant: str) -> Message:
    """What an unknown field of a variant's house rules is called."""
    return _msg("unknown rule for {variant}", variant=variant)


M = TypeVar("M", bound=BaseModel)


def validated(model: type[M], data: Any, at: str = "", unknown: Message = UNKNOWN_FIELD) -> M:
    """`model` read from JSON-shaped `data`; a refusal is the `ScoringError` at `at` followed by
    the path in `data`, an unknown field called `unknown`."""
    try:
        return model.model_validate(data)
    except ValidationError as exc:
        raise refusal(exc, model, at, unknown) from None


def refusal(exc: ValidationError, tp: Any, at: str = "",
            unknown: Message = UNKNOWN_FIELD) -> ScoringError:
    """The first problem pydantic found reading a value of type `tp`, as a `ScoringError` at
    `at` + the path of the field it names; `unknown` says what an unknown field is."""
    err = exc.errors(include_url=False)[0]
    msg = _message(err, unknown)
    return ScoringError(_path(at, _places(tp, err["loc"])), msg.template, **msg.params)


def _message(err: ErrorDetails, unknown: Message) -> Message:
    kind, ctx, got = err["type"], err.get("ctx") or {}, repr(err["input"])
    if kind == INVALID:
        return Message(ctx[_TEMPLATE], {k: v for k, v in ctx.items() if k != _TEMPLATE})
    if kind == "extra_forbidden":
        return unknown
    if kind == "missing":
        return _msg("is required")
    if kind == "literal_error":
        return _msg("must be one of {expected} (got {value})", expected=ctx["expected"], value=got)
    if kind == "int_type":
        return _msg("must be an integer (got {value})", value=got)
    if kind == "bool_type":
        return _msg("must be true or false (got {value})", value=got)
    if kind == "string_type":
        return _msg("must be a string (got {value})", value=got)
    if kind in ("dict_type", "model_type", "model_attributes_type"):
        return _msg("must be an object (got {value})", value=got)
    if kind == "list_type":
        return _msg("must be a list (got {value})", value=got)
    if kind == "union_tag_invalid":
        return _msg("unknown event type {tag} (expected {expected})", tag=repr(ctx["tag"]),
                    expected=ctx["expected_tags"])
    if kind == "union_tag_not_found":
        return _msg("needs a 'type'")
    if kind == "greater_than_equal":
        return _msg("must be ≥ {min} (got {value})", min=ctx["ge"], value=got)
    if kind == "less_than_equal":
        return _msg("must be ≤ {max} (got {value})", max=ctx["le"], value=got)
    if kind == "too_short":
        return _msg("has {count} items, needs at least {n}", count=ctx["actual_length"],
                    n=ctx["min_length"])
    if kind == "too_long":
        return _msg("has {count} items, allows at most {n}", count=ctx["actual_length"],
                    n=ctx["max_length"])
    # a kind the records' types cannot produce: pydantic's English, as it is
    return Message(err["msg"], {})


KEY = "[key]"  # in a location: the map key before it is what is wrong, not its value


def _path(at: str, places: Sequence[int | str]) -> str:
    """``events[0].winners[1].seat`` from a location's places; a map's key shows as
    ``ready['5']`` when the key itself is wrong, its value as ``ready.5``."""
    out = at
    for i, part in enumerate(places):
        if isinstance(part, int):
            out += f"[{part}]"
        elif part == KEY:
            continue
        elif i + 1 < len(places) and places[i + 1] == KEY:
            out += f"[{part!r}]"
        else:
            out += f".{part}" if out else part
    return out


def _places(tp: Any, loc: Sequence[int | str]) -> list[int | str]:
    """The parts of pydantic's location `loc` in a value of type `tp` that are places (fields,
    indexes, keys): after a union pydantic adds the member it tried (its tag, or a model's
    name), which is not one."""
    places: list[int | str] = []
    for part in loc:
        tp, tag = _bare(tp)
        members = [a for a in get_args(tp) if a is not type(None)]
        if part != KEY and get_origin(tp) in (Union, types.UnionType) and len(members) > 1:
            tp = next((m for m in members if _labelled(m, part, tag)), Any)
            continue
        places.append(part)
        if part == KEY:
            tp = Any
        elif isinstance(tp, type) and issubclass(tp, BaseModel):
            info = next((f for name, f in tp.model_fields.items() if (f.alias or name) == part),
                        None)
            tp = Annotated[info.annotation, info] if info is not None else Any
        elif get_origin(tp) in (list, dict):
            tp = get_args(tp)[-1]
        else:
            tp = Any
    return places


def _bare(tp: Any) -> tuple[Any, str | None]:
    """`tp` without `Annotated` (and the union's discriminator it gave) and without `None`."""
    tag = None
    while get_origin(tp) is Annotated:
        tp, *meta = get_args(tp)
        tag = next((m.discriminator for m in meta if isinstance(m, FieldInfo)
                    and isinstance(m.discriminator, str)), tag)
    if get_origin(tp) in (Union, types.UnionType):
        members = [a for a in get_args(tp) if a is not type(None)]
        if len(members) == 1:
            return _bare(members[0])
    return tp, tag


def _labelled(member: Any, label: int | str, tag: str | None) -> bool:
    """Whether pydantic names a union's `member` `label`: by its tag in a tagged union, else
    by its name (a model's)."""
    if not (isinstance(member, type) and issubclass(member, BaseModel)):
        return False
    if tag is not None:
        return label in get_args(member.model_fields[tag].annotation)
    return member.__name__ == label
