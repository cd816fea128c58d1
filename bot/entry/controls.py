"""Keyboard forms built from the variants' own record models (pydantic, `scoring.model`).

A variant declares its winner features and event types as models (scoring/variants/*). This
module reads those models once and turns each field into a kind of control (toggle, choice,
counter, seat picker, per-seat map, tile picker), so every variant gets keyboard entry without
a screen written for it. Values are kept as plain JSON in the draft; scoring validates them.
"""

from __future__ import annotations

import enum
import types
from dataclasses import dataclass, replace
from functools import cache
from typing import Annotated, Any, Literal, Union, get_args, get_origin

from annotated_types import Ge, Le
from pydantic import AfterValidator
from pydantic.fields import FieldInfo
from pydantic_core import PydanticUndefined

from scoring.model import StrictModel, check_seat

COUNTER_MAX = 8  # where a model gives no upper bound, the keyboard stops here
WIDE = 20  # a counter of more values than this also steps by ten (a hand's points: 0–999)


class Kind(enum.Enum):
    BOOL = "bool"
    CHOICE = "choice"  # a Literal: cycles through its values
    INT = "int"  # a counter with − / +
    SEAT = "seat"  # one seat (or none when optional)
    SEATS = "seats"  # a set of seats
    SEAT_MAP = "seat_map"  # seat → value (a counter or an object, maybe null)
    TILE = "tile"  # a tile name such as "5p", or none
    HAND = "hand"  # a whole hand in the tile notation: the tile keyboard's (scoring.model.hand_tiles)
    TERMS = "terms"  # the variant's term keys, "key" or "key:n": a /hu line's (model.term_list)
    OBJECT = "object"  # a nested model
    ITEMS = "items"  # a list of models (winners)
    OTHER = "other"


@dataclass(frozen=True)
class Spec:
    name: str  # the JSON name
    kind: Kind
    default: Any = None
    required: bool = False
    optional: bool = False  # None is a valid value
    choices: tuple[Any, ...] = ()
    lo: int = 0
    hi: int = COUNTER_MAX
    model: type[StrictModel] | None = None  # OBJECT / ITEMS / SEAT_MAP of objects
    value: Spec | None = None  # SEAT_MAP: what one seat holds
    win_by: tuple[str, ...] = ()  # a winner's field that exists only for these wins (only_by)


def _is_seat(meta: list[Any] | tuple[Any, ...]) -> bool:
    return any((isinstance(m, AfterValidator) and m.func is check_seat)
               or (isinstance(m, FieldInfo) and _is_seat(m.metadata)) for m in meta)


def _bounds(meta: list[Any] | tuple[Any, ...]) -> tuple[int, int]:
    lo, hi = 0, COUNTER_MAX
    for m in meta:
        if isinstance(m, FieldInfo):  # Annotated[int, Field(ge=…)] nested in a container type
            lo, hi = _bounds(m.metadata)
        elif isinstance(m, Ge):
            lo = int(m.ge)
        elif isinstance(m, Le):
            hi = int(m.le)
    return lo, max(hi, lo)


def _unwrap(tp: Any, meta: list[Any]) -> tuple[Any, list[Any], bool]:
    """Strip Optional and Annotated: (type, metadata, optional)."""
    optional = False
    if get_origin(tp) in (Union, types.UnionType):
        args = [a for a in get_args(tp) if a is not type(None)]
        optional = len(args) < len(get_args(tp))
        if len(args) == 1:
            tp = args[0]
    if get_origin(tp) is Annotated:
        base, *extra = get_args(tp)
        tp, meta = base, [*meta, *extra]
    return tp, meta, optional


def _model_or_words(tp: Any) -> tuple[type[StrictModel], tuple[Any, ...], bool] | None:
    """A union of one model and Literal words, maybe None: (the model, the words, optional)."""
    if get_origin(tp) not in (Union, types.UnionType):
        return None
    args = [a for a in get_args(tp) if a is not type(None)]
    models = [a for a in args if isinstance(a, type) and issubclass(a, StrictModel)]
    literals = [a for a in args if get_origin(a) is Literal]
    if len(models) != 1 or len(models) + len(literals) != len(args):
        return None
    words = tuple(w for a in literals for w in get_args(a))
    return models[0], words, len(args) < len(get_args(tp))


def classify(name: str, tp: Any, meta: list[Any], default: Any = None,
             required: bool = False) -> Spec:
    tp, meta, optional = _unwrap(tp, list(meta))
    alt = _model_or_words(tp)
    if alt is not None:  # a hand, or a word instead of one (花猫 "flower_cat")
        return Spec(kind=Kind.OBJECT, name=name, default=default, required=required,
                    optional=optional or alt[2], model=alt[0], choices=alt[1])
    common = {"name": name, "default": default, "required": required, "optional": optional}
    if tp is bool:
        return Spec(kind=Kind.BOOL, **common)
    if tp is int:
        if _is_seat(meta):
            return Spec(kind=Kind.SEAT, **common)
        lo, hi = _bounds(meta)
        return Spec(kind=Kind.INT, lo=lo, hi=hi, **common)
    if get_origin(tp) is Literal:
        return Spec(kind=Kind.CHOICE, choices=get_args(tp), **common)
    if tp is str:
        return Spec(kind=Kind.TILE, **common)
    if isinstance(tp, type) and issubclass(tp, StrictModel):
        return Spec(kind=Kind.OBJECT, model=tp, **common)
    origin, args = get_origin(tp), get_args(tp)
    if origin is list and args:
        item, item_meta, _ = _unwrap(args[0], [])
        if item is int and _is_seat(item_meta):
            return Spec(kind=Kind.SEATS, **common)
        if isinstance(item, type) and issubclass(item, StrictModel):
            return Spec(kind=Kind.ITEMS, model=item, **common)
    if origin is dict and len(args) == 2:
        value = classify(name, args[1], [])
        return Spec(kind=Kind.SEAT_MAP, value=value, model=value.model, **common)
    return Spec(kind=Kind.OTHER, **common)


def _default(info: FieldInfo) -> Any:
    if info.default_factory is not None:
        return info.default_factory()  # type: ignore[call-arg]
    return None if info.default is PydanticUndefined else info.default


@cache
def fields_of(model: type[StrictModel]) -> tuple[Spec, ...]:
    out = []
    for name, info in model.model_fields.items():
        key = info.alias or name
        spec = classify(key, info.annotation, list(info.metadata), _default(info),
                        info.is_required())
        extra = info.json_schema_extra if isinstance(info.json_schema_extra, dict) else {}
        entry = {"tiles": Kind.HAND, "terms": Kind.TERMS}.get(str(extra.get("entry")))
        if entry is not None:
            spec = replace(spec, kind=entry)
        win_by = extra.get("win_by")
        out.append(replace(spec, win_by=tuple(win_by)) if isinstance(win_by, list) else spec)
    return tuple(out)


def wide(spec: Spec) -> bool:
    """A counter of many values, which also steps by ten ("++" / "--")."""
    return spec.kind is Kind.INT and spec.hi - spec.lo > WIDE


def first_counter(model: type[StrictModel] | None) -> Spec | None:
    """A model whose first field is a counter (a seat's chickens: 幺鸡 first) has it on the
    row of its seat in a per-seat map."""
    specs = fields_of(model) if model is not None else ()
    return specs[0] if specs and specs[0].kind is Kind.INT else None


def signed_map(spec: Spec) -> bool:
    """A per-seat map of amounts that may be below zero: each seat's points won or lost in a
    hand. A seat not listed holds 0; its counter steps by one or ten either way."""
    return (spec.kind is Kind.SEAT_MAP and spec.value is not None
            and spec.value.kind is Kind.INT and spec.value.lo < 0)


def spec_named(model: type[StrictModel], name: str) -> Spec:
    for spec in fields_of(model):
        if spec.name == name:
            return spec
    raise KeyError(name)


def blank(model: type[StrictModel], **given: Any) -> dict[str, Any]:
    """A new JSON object for `model`: defaults, None for what must still be chosen."""
    obj: dict[str, Any] = {}
    for spec in fields_of(model):
        if spec.name == "type":
            obj["type"] = spec.choices[0] if spec.choices else spec.default
        elif spec.kind is Kind.INT and spec.default is None and not spec.optional:
            obj[spec.name] = spec.lo  # a required count starts where its counter shows it
        else:
            obj[spec.name] = spec.default
    obj.update(given)
    return obj


def event_types(variant_events: tuple[type, ...]) -> list[str]:
    """The names of a variant's event types, in the order it declares them."""
    return [spec_named(ev, "type").choices[0] for ev in variant_events]


def event_model(variant_events: tuple[type, ...], type_name: str) -> type[StrictModel]:
    for ev in variant_events:
        if spec_named(ev, "type").choices == (type_name,):
            return ev
    raise KeyError(type_name)


# -- applying one keyboard operation to a JSON object ------------------------------------------

class FormError(ValueError):
    """A button that does not fit the form it claims to belong to (stale or forged)."""


def resolve(model: type[StrictModel], obj: dict[str, Any], ref: str) -> tuple[Spec, dict[str, Any]]:
    """Follow a field reference like "3" or "4.1.2" (field 4 → item 1 → field 2)."""
    parts = ref.split(".")
    if not all(p.isdigit() for p in parts):  # no negative or odd indexes from forged data
        raise FormError(ref)
    try:
        while True:
            specs = fields_of(model)
            spec = specs[int(parts[0])]
            if len(parts) == 1:
                return spec, obj
            if spec.kind is not Kind.ITEMS or spec.model is None:
                raise FormError(ref)
            obj = obj[spec.name][int(parts[1])]
            model, parts = spec.model, parts[2:]
            if not parts:
                raise FormError(ref)
    except (IndexError, ValueError, KeyError, TypeError):
        raise FormError(ref) from None


def apply(model: type[StrictModel], obj: dict[str, Any], op: str, ref: str, arg: str) -> None:
    """Change `obj` in place: t toggle, c set a choice (or cycle, without one), i +/−,
    s set seat, m toggle seat in a set, k +/− a seat's counter in a map, n toggle a seat's
    entry in a map."""
    spec, target = resolve(model, obj, ref)
    name, value = spec.name, target.get(spec.name)
    if op == "t" and spec.kind is Kind.BOOL:
        target[name] = not bool(value)
    elif op == "c" and spec.kind is Kind.CHOICE and arg:
        # set one value (tapping the one set goes back to the default, where there is one)
        if not arg.isdigit() or int(arg) >= len(spec.choices):
            raise FormError(arg)
        choice = spec.choices[int(arg)]
        target[name] = spec.default if value == choice and spec.default is not None else choice
    elif op == "c" and spec.kind is Kind.CHOICE:
        options = list(spec.choices) + ([None] if spec.optional else [])
        idx = options.index(value) if value in options else -1
        target[name] = options[(idx + 1) % len(options)]
    elif op == "i" and spec.kind is Kind.INT and (arg in ("+", "-") or (
            arg in ("++", "--") and wide(spec))):
        current = spec.lo if value is None else int(value)
        step = (1 if arg[0] == "+" else -1) * (10 if len(arg) == 2 else 1)
        target[name] = min(spec.hi, max(spec.lo, current + step))
    elif op == "s" and spec.kind is Kind.SEAT:
        seat = _seat(arg, allow_none=spec.optional)
        target[name] = None if seat is None or (value == seat and spec.optional) else seat
    elif op == "m" and spec.kind is Kind.SEATS:
        seat = _seat(arg)
        seats = list(value or [])
        target[name] = sorted(set(seats) ^ {seat})
    elif op == "k" and signed_map(spec) and spec.value is not None:
        seat, step = _seat(arg[:1]), arg[1:]
        if step not in ("+", "-", "++", "--"):
            raise FormError(arg)
        mapping, key = dict(value or {}), str(seat)
        moved = int(mapping.get(key, 0)) + (1 if step[0] == "+" else -1) * 10 ** (len(step) - 1)
        mapping[key] = min(spec.value.hi, max(spec.value.lo, moved))
        if not mapping[key]:
            mapping.pop(key)  # 0 is what a seat not listed holds
        target[name] = dict(sorted(mapping.items()))
    elif op == "k" and spec.kind is Kind.SEAT_MAP and spec.value and spec.value.kind is Kind.INT:
        seat, sign = _seat(arg[:-1]), arg[-1:]
        if sign not in ("+", "-"):
            raise FormError(arg)
        mapping, key, least = dict(value or {}), str(seat), max(spec.value.lo, 1)
        if key not in mapping:  # a seat not listed counts 0; + lists it at the smallest count
            if sign == "+":
                mapping[key] = least
        elif int(mapping[key]) + (1 if sign == "+" else -1) < least:
            mapping.pop(key)  # − below the smallest count takes the seat off the map
        else:
            mapping[key] = min(spec.value.hi, int(mapping[key]) + (1 if sign == "+" else -1))
        target[name] = mapping
    elif op == "f" and spec.kind is Kind.SEAT_MAP and first_counter(spec.model) is not None:
        # the first counter of a seat's entry, from the map's own row (幺鸡 +1 in one tap)
        counter = first_counter(spec.model)
        assert counter is not None and spec.model is not None
        seat, sign = _seat(arg[:-1]), arg[-1:]
        if sign not in ("+", "-"):
            raise FormError(arg)
        mapping, key = dict(value or {}), str(seat)
        entry = dict(mapping[key]) if isinstance(mapping.get(key), dict) else blank(spec.model)
        count = int(entry.get(counter.name) or counter.lo) + (1 if sign == "+" else -1)
        entry[counter.name] = min(counter.hi, max(counter.lo, count))
        if entry == blank(spec.model) and not (spec.value and spec.value.optional):
            mapping.pop(key, None)  # back to nothing: the seat leaves the map
        else:
            mapping[key] = entry
        target[name] = mapping
    elif op == "n" and spec.kind is Kind.SEAT_MAP:
        # optional entries (ready hands) toggle between null and a hand (then through the words
        # that may stand instead of one, as 花猫); others come and go
        key = str(_seat(arg))
        mapping = dict(value or {})
        words = list(spec.value.choices) if spec.value is not None and spec.model else []
        entry = mapping.get(key)
        if entry is None:
            mapping[key] = blank(spec.model) if spec.model else 0
        elif words and (isinstance(entry, dict) or entry in words[:-1]):
            mapping[key] = words[0] if isinstance(entry, dict) else words[words.index(entry) + 1]
        elif spec.value is not None and spec.value.optional:
            mapping[key] = None
        else:
            mapping.pop(key)
        target[name] = mapping
    else:
        raise FormError(f"{op}:{ref}")


def _seat(arg: str, allow_none: bool = False) -> int | None:
    if arg == "-" and allow_none:
        return None
    if arg not in ("0", "1", "2", "3"):
        raise FormError(arg)
    return int(arg)
