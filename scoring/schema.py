"""Typed, validated records in plain Python: the small part of pydantic's model API the hand
records use (`StrictModel`, `Field`, `model_validator`, `AfterValidator`, `BeforeValidator`,
`TypeAdapter`), implemented here so that `python -m scoring score` starts fast: importing
pydantic and building its models took about 70 ms, three times all the rest of a run (issue 15).
A validation library that reports errors only as English text (msgspec) would not do either:
a refused record names its field and explains itself in the chat's language, so each problem
is kept as a message template with its values.

Every model is strict, as the records need it: JSON-shaped input only (1 is not true, "1" is
not 1, 1.0 is not 1), no unknown fields, immutable instances. The first problem found is raised
as a `ValidationError` whose location is a path of field names, list indexes and map keys;
`scoring.validation` turns it into a `ScoringError`. Fields are checked in declaration order
(base classes first), unknown fields after them; model validators run once the fields are
valid, base classes' first. The bot builds its keyboard forms from `model_fields`.
"""

from __future__ import annotations

import types
from collections.abc import Callable
from typing import Annotated, Any, ClassVar, Literal, TypeVar, Union, get_args, get_origin, get_type_hints

__all__ = ["AfterValidator", "BeforeValidator", "Field", "FieldInfo", "Ge", "Le", "StrictModel",
           "TypeAdapter", "Undefined", "ValidationError", "model_validator"]


class _Undefined:
    def __repr__(self) -> str:
        return "Undefined"


Undefined: Any = _Undefined()  # a field without a default


class Ge:
    """`Annotated[int, Ge(1)]`: at least `ge`."""

    __slots__ = ("ge",)

    def __init__(self, ge: int) -> None:
        self.ge = ge


class Le:
    """`Annotated[int, Le(4)]`: at most `le`."""

    __slots__ = ("le",)

    def __init__(self, le: int) -> None:
        self.le = le


class MinLen:
    __slots__ = ("min_length",)

    def __init__(self, min_length: int) -> None:
        self.min_length = min_length


class MaxLen:
    __slots__ = ("max_length",)

    def __init__(self, max_length: int) -> None:
        self.max_length = max_length


class AfterValidator:
    """`Annotated[int, AfterValidator(f)]`: `f(value)` once the type is right; it returns the
    value or raises a `ScoringError` (`errors.invalid`)."""

    __slots__ = ("func",)

    def __init__(self, func: Callable[[Any], Any]) -> None:
        self.func = func


class BeforeValidator:
    """`Annotated[T, BeforeValidator(f)]`: `f(raw value)` before the type is checked."""

    __slots__ = ("func",)

    def __init__(self, func: Callable[[Any], Any]) -> None:
        self.func = func


class FieldInfo:
    """One field: its type, default and constraints. `metadata` holds the constraints
    (`Ge`, `Le`, `MinLen`) and validators; `json_schema_extra` free data for the bot's forms."""

    __slots__ = ("alias", "annotation", "default", "default_factory", "discriminator",
                 "json_schema_extra", "metadata")

    def __init__(self, default: Any = Undefined, *, default_factory: Callable[[], Any] | None = None,
                 alias: str | None = None, metadata: list[Any] | None = None,
                 discriminator: str | None = None,
                 json_schema_extra: dict[str, Any] | None = None) -> None:
        self.default = default
        self.default_factory = default_factory
        self.alias = alias
        self.metadata = metadata or []
        self.discriminator = discriminator
        self.json_schema_extra = json_schema_extra
        self.annotation: Any = None

    def is_required(self) -> bool:
        return self.default is Undefined and self.default_factory is None

    def copy(self) -> FieldInfo:
        new = FieldInfo(self.default, default_factory=self.default_factory, alias=self.alias,
                        metadata=list(self.metadata), discriminator=self.discriminator,
                        json_schema_extra=self.json_schema_extra)
        new.annotation = self.annotation
        return new


def Field(default: Any = Undefined, *, default_factory: Callable[[], Any] | None = None,
          alias: str | None = None, ge: int | None = None, le: int | None = None,
          min_length: int | None = None, max_length: int | None = None,
          discriminator: str | None = None,
          json_schema_extra: dict[str, Any] | None = None) -> Any:
    """A field's default and constraints, as pydantic spells them."""
    meta: list[Any] = []
    if ge is not None:
        meta.append(Ge(ge))
    if le is not None:
        meta.append(Le(le))
    if min_length is not None:
        meta.append(MinLen(min_length))
    if max_length is not None:
        meta.append(MaxLen(max_length))
    return FieldInfo(default, default_factory=default_factory, alias=alias, metadata=meta,
                     discriminator=discriminator, json_schema_extra=json_schema_extra)


def model_validator(*, mode: str = "after") -> Callable[[Callable[[Any], Any]], Any]:
    """Marks a method `check(self) -> self` run once all fields are valid."""
    if mode != "after":
        raise ValueError("only mode='after' model validators are supported")

    def mark(func: Callable[[Any], Any]) -> Any:
        func.__model_validator__ = True  # type: ignore[attr-defined]
        return func

    return mark


KEY = "[key]"  # in a location: the map key before it is what is wrong, not its value


class ValidationError(ValueError):
    """The first problem in the input: where (`loc`: field names, list indexes, map keys; a
    key itself when followed by `KEY`) and what (`template` and `params`, as `ScoringError`'s;
    `unknown` for a field the model does not have)."""

    def __init__(self, loc: tuple[int | str, ...], template: str, params: dict[str, object],
                 unknown: bool = False) -> None:
        self.loc = loc
        self.template = template
        self.params = params
        self.unknown = unknown
        super().__init__(template)

    def __str__(self) -> str:
        return f"{'.'.join(map(str, self.loc))}: {self.template} {self.params}"


Check = Callable[[Any], Any]  # a value → the valid value, or a `ValidationError`


def _msg(template: str, **params: object) -> tuple[str, dict[str, object]]:
    """A message: a literal English template (extracted for translation) and its values."""
    return template, params


def _fail(msg: tuple[str, dict[str, object]]) -> ValidationError:
    """A problem with the value being checked; each container it is in adds its place to `loc`
    on the way out (no location is built while all is well)."""
    return ValidationError((), *msg)


def _within(exc: ValidationError, *place: int | str) -> ValidationError:
    exc.loc = (*place, *exc.loc)
    return exc


def _refused(exc: Exception) -> ValidationError:
    """A validator's `invalid(...)` (`errors.Invalid`: a template without a place)."""
    template = getattr(exc, "template", None)
    if template is None:
        raise exc
    return ValidationError((), template, dict(exc.params))  # type: ignore[attr-defined]


def _words(values: tuple[Any, ...] | list[Any]) -> str:
    """'a', 'b' or 'c'."""
    shown = [repr(v) for v in values]
    return shown[0] if len(shown) == 1 else ", ".join(shown[:-1]) + " or " + shown[-1]


def _got(value: Any) -> str:
    return repr(value)


def _with_meta(check: Check, meta: list[Any]) -> Check:
    """`check` followed by the constraints and validators in `meta`, preceded by its before
    validators."""
    lo = next((m.ge for m in meta if isinstance(m, Ge)), None)
    hi = next((m.le for m in meta if isinstance(m, Le)), None)
    least = next((m.min_length for m in meta if isinstance(m, MinLen)), None)
    most = next((m.max_length for m in meta if isinstance(m, MaxLen)), None)
    after = [m.func for m in meta if isinstance(m, AfterValidator)]
    before = [m.func for m in meta if isinstance(m, BeforeValidator)]
    if lo is None and hi is None and least is None and most is None and not (after or before):
        return check
    inner = _accepts(check) if check is _SIMPLE.get(int) else None

    def run(value: Any) -> Any:
        for func in before:
            try:
                value = func(value)
            except ValueError as exc:
                raise _refused(exc) from None
        value = check(value)
        if lo is not None and value < lo:
            raise _fail(_msg("must be ≥ {min} (got {value})", min=lo, value=_got(value)))
        if hi is not None and value > hi:
            raise _fail(_msg("must be ≤ {max} (got {value})", max=hi, value=_got(value)))
        if (least is not None and len(value) < least) or (most is not None and len(value) > most):
            raise _fail(_length(len(value), least, most))
        return _validated(value, after)

    if inner is not None and least is None and most is None and not (after or before):
        # an integer between bounds
        return _accepting(run, lambda v, const: " and ".join(
            [f"({inner(v, const)})"] + ([f"{v} >= {const(lo)}"] if lo is not None else [])
            + ([f"{v} <= {const(hi)}"] if hi is not None else [])))
    if _accepts(check) is not None and after and not before and lo is None and hi is None \
            and least is None and most is None:
        run.then = (check, after)  # type: ignore[attr-defined] # a plain value, then validators
    return run


def _length(count: int, least: int | None, most: int | None) -> tuple[str, dict[str, object]]:
    if least is not None and least == most:
        return _msg("has {count} items, needs exactly {n}", count=count, n=least)
    if least is not None and count < least:
        return _msg("has {count} items, needs at least {n}", count=count, n=least)
    return _msg("has {count} items, allows at most {n}", count=count, n=most)


Accepts = Callable[[str, Callable[[Any], str]], str]


def _accepting(check: Check, accepts: Accepts) -> Check:
    """Mark `check` with the Python expression, true exactly when `check` returns a value as it
    is (`accepts(v, const)`: `v` names the value, `const(x)` names a constant), for a model's
    generated check to test in line; it calls `check` itself only when that is false."""
    check.accepts = accepts  # type: ignore[attr-defined]
    return check


def _accepts(check: Check) -> Accepts | None:
    return getattr(check, "accepts", None)


def _exact(kind: type, wrong: Callable[[str], tuple[str, dict[str, object]]]) -> Check:
    def check(value: Any) -> Any:
        if type(value) is not kind:
            raise _fail(wrong(_got(value)))
        return value

    return _accepting(check, lambda v, const: f"type({v}) is {const(kind)}")


_SIMPLE: dict[Any, Check] = {  # bool is not an int here, nor 1.0
    bool: _exact(bool, lambda got: _msg("must be true or false (got {value})", value=got)),
    int: _exact(int, lambda got: _msg("must be an integer (got {value})", value=got)),
    str: _exact(str, lambda got: _msg("must be a string (got {value})", value=got)),
}


def _literal(values: tuple[Any, ...]) -> Check:
    allowed = {(type(v), v) for v in values}
    expected = _words(values)

    def check(value: Any) -> Any:
        try:
            ok = (type(value), value) in allowed
        except TypeError:  # unhashable: a list or an object
            ok = False
        if not ok:
            raise _fail(_msg("must be one of {expected} (got {value})", expected=expected,
                        value=_got(value)))
        return value

    kinds = {type(v) for v in values}
    if len(kinds) == 1 and kinds <= {str, int}:  # choices of one type: a set of them
        kind, choices = kinds.pop(), frozenset(values)
        return _accepting(check, lambda v, const: f"type({v}) is {const(kind)} and "
                                                  f"{v} in {const(choices)}")
    return check


def _list(item: Check) -> Check:
    def check(value: Any) -> Any:
        if type(value) is not list:
            raise _fail(_msg("must be a list (got {value})", value=_got(value)))
        out = []
        for i, v in enumerate(value):
            try:
                out.append(item(v))
            except ValidationError as exc:
                raise _within(exc, i) from None
        return out

    return check


def _dict(key: Check, item: Check) -> Check:
    def check(value: Any) -> Any:
        if type(value) is not dict:
            raise _fail(_msg("must be an object (got {value})", value=_got(value)))
        out = {}
        for k, v in value.items():
            try:
                k = key(k)
            except ValidationError as exc:
                raise _within(exc, k, KEY) from None
            try:
                out[k] = item(v)
            except ValidationError as exc:
                raise _within(exc, k) from None
        return out

    return check


def _optional(inner: Check) -> Check:
    def check(value: Any) -> Any:
        return None if value is None else inner(value)

    accepts = _accepts(inner)
    if accepts is not None:
        return _accepting(check, lambda v, const: f"{v} is None or ({accepts(v, const)})")
    return check


def _union(members: list[tuple[Any, Check]]) -> Check:
    """The first member that accepts the value; when none does, the complaint of the member an
    object was meant for (a model), else of the first member."""
    def check(value: Any) -> Any:
        first: ValidationError | None = None
        for tp, member in members:
            try:
                return member(value)
            except ValidationError as exc:
                if first is None or (isinstance(value, dict) and _is_model(tp)):
                    first = exc
        assert first is not None
        raise first

    return check


def _tagged(members: list[Any], tag: str) -> Check:
    """A union of models told apart by the field `tag` (an event's "type")."""
    by_tag: dict[Any, Check] = {}
    for m in members:
        for value in get_args(m.model_fields[tag].annotation):
            by_tag[value] = m.__check__
    expected = ", ".join(repr(t) for t in by_tag)

    def check(value: Any) -> Any:
        if isinstance(value, tuple(members)):
            return value
        if type(value) is not dict:
            raise _fail(_msg("must be an object (got {value})", value=_got(value)))
        if tag not in value:
            raise _fail(_msg("needs a 'type'"))
        found = value[tag]
        model = by_tag.get(found) if isinstance(found, str) else None
        if model is None:
            raise _fail(_msg("unknown event type {tag} (expected {expected})",
                        tag=repr(str(found)), expected=expected))
        return model(value)

    return check


def _is_model(tp: Any) -> bool:
    return isinstance(tp, type) and issubclass(tp, StrictModel)


def _any(value: Any) -> Any:
    return value


_accepting(_any, lambda v, const: "True")


def compile_type(tp: Any, meta: list[Any] | None = None) -> Check:
    """A check for values of type `tp` (with constraints `meta`)."""
    meta = list(meta or [])
    origin = get_origin(tp)
    if origin is Annotated:
        base, *extra = get_args(tp)
        return compile_type(base, [*extra, *meta])
    tagged = next((m.discriminator for m in meta if isinstance(m, FieldInfo) and m.discriminator),
                  None)
    meta = [x for m in meta for x in (m.metadata if isinstance(m, FieldInfo) else [m])]
    if tagged is not None:
        return _with_meta(_tagged([a for a in get_args(tp)], tagged), meta)
    if tp is Any or tp is object:
        check: Check = _any
    elif tp in _SIMPLE:
        check = _SIMPLE[tp]
    elif _is_model(tp):
        check = tp.__check__
    elif origin is Literal:
        check = _literal(get_args(tp))
    elif origin in (Union, types.UnionType):
        args = [a for a in get_args(tp) if a is not type(None)]
        if len(args) == 1:
            check = compile_type(args[0])
        else:
            check = _union([(a, compile_type(a)) for a in args])
        if len(args) < len(get_args(tp)):
            check = _optional(check)
    elif origin is list:
        (item,) = get_args(tp)
        check = _list(compile_type(item))
    elif origin is dict:
        key, item = get_args(tp)
        check = _dict(compile_type(key), compile_type(item))
    else:
        raise TypeError(f"scoring.schema cannot check {tp!r}")
    return _with_meta(check, meta)


def _substitute(tp: Any, typevars: dict[Any, Any]) -> Any:
    if isinstance(tp, TypeVar):
        return typevars.get(tp, tp)
    params = getattr(tp, "__parameters__", ())
    if params and typevars and not isinstance(tp, type):
        return tp[tuple(typevars.get(p, p) for p in params)]
    return tp


class StrictModel:
    """A record type: declare fields as annotated class attributes (defaults, `Field(...)`),
    checks as `@model_validator(mode="after")` methods; read with `model_validate`."""

    model_fields: ClassVar[dict[str, FieldInfo]] = {}
    __typevars__: ClassVar[dict[Any, Any]] = {}
    __checker: ClassVar[Check | None] = None

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        own: dict[str, FieldInfo] = {}
        for name in cls.__dict__.get("__annotations__", {}):  # noqa: RUF063 - own ones only
            value = cls.__dict__.get(name, Undefined)
            own[name] = value if isinstance(value, FieldInfo) else FieldInfo(value)
            if name in cls.__dict__:
                delattr(cls, name)  # the default lives in the field, not on the class
        cls.__own_fields__ = own
        cls.__checker = None
        hints = get_type_hints(cls, include_extras=True)
        fields: dict[str, FieldInfo] = {}
        for base in reversed(cls.__mro__):
            for name, info in base.__dict__.get("__own_fields__", {}).items():
                field = info.copy()
                field.annotation = _substitute(hints[name], cls.__typevars__)
                fields[name] = field
        cls.model_fields = fields
        cls.__validators__ = [f for base in reversed(cls.__mro__) for f in base.__dict__.values()
                              if getattr(f, "__model_validator__", False)]

    def __class_getitem__(cls, params: Any) -> Any:
        """`WinEvent[Winner]`: a subclass whose type variables are these types."""
        if not isinstance(params, tuple):
            params = (params,)
        cache = cls.__dict__.get("__generic_cache__")
        if cache is None:
            cache = {}
            type.__setattr__(cls, "__generic_cache__", cache)
        if params not in cache:
            names = ", ".join(getattr(p, "__name__", repr(p)) for p in params)
            typevars = {**cls.__typevars__, **dict(zip(cls.__parameters__, params, strict=True))}
            cache[params] = types.new_class(f"{cls.__name__}[{names}]", (cls,), {},
                                            lambda ns: ns.update(__module__=cls.__module__,
                                                                 __typevars__=typevars))
        return cache[params]

    @classmethod
    def __check__(cls, value: Any) -> Any:
        if cls.__checker is None:
            cls.__checker = cls._compile()
        return cls.__checker(value)

    @classmethod
    def _compile(cls) -> Check:
        return _model_check(cls)

    def __init__(self, **data: Any) -> None:
        """`ChickenHand(yaoji=1)`: checked like `model_validate` of the same object."""
        object.__setattr__(self, "__dict__", type(self).__check__(data).__dict__)

    @classmethod
    def model_validate(cls, data: Any) -> Any:
        if cls.__checker is None:
            cls.__checker = cls._compile()
        return cls.__checker(data)

    def model_dump(self, mode: str = "python") -> dict[str, Any]:
        """The fields as plain data (nested models too), by field name."""
        return {name: _dump(value) for name, value in self.__dict__.items()}

    def __setattr__(self, name: str, value: Any) -> None:
        raise AttributeError(f"{type(self).__name__} is immutable")

    def __delattr__(self, name: str) -> None:
        raise AttributeError(f"{type(self).__name__} is immutable")

    def __eq__(self, other: object) -> bool:
        if type(other) is not type(self):
            return NotImplemented
        return self.__dict__ == other.__dict__

    def __hash__(self) -> int:
        return hash((type(self), tuple(_frozen(v) for v in self.__dict__.values())))

    def __repr__(self) -> str:
        inner = ", ".join(f"{k}={v!r}" for k, v in self.__dict__.items())
        return f"{type(self).__name__}({inner})"


def _model_check(cls: type[StrictModel]) -> Check:
    """The check of a model's objects, as Python source made for its fields (compiled once, on
    the model's first use), so that reading one costs about what a hand-written check would.

    Field by field, in order: a value an `accepts` expression takes is kept as it is; any other
    goes through the field's check, which returns its value or raises — the same checks and
    complaints as calling each field's check in turn, with no loop and no call for the usual
    plain values. Then unknown fields, then the model validators. When every field is given
    under its own name (no alias), the object's fields start as the value itself laid over a
    mark for each field (given or not), in the fields' order; else they are copied one by
    one."""
    names: dict[int, str] = {}
    space: dict[str, Any] = {"cls": cls, "ValidationError": ValidationError, "_within": _within,
                             "_refused": _refused, "_not_object": _not_object,
                             "_required": _required, "_unknown": _unknown,
                             "_set": object.__setattr__, "_validated": _validated,
                             "validators": cls.__validators__, "_absent": _ABSENT}

    def const(value: Any) -> str:
        """A name for `value` in the generated code."""
        if id(value) not in names:
            names[id(value)] = name = f"_k{len(names)}"
            space[name] = value
        return names[id(value)]

    fields = cls.model_fields
    laid = all(info.alias is None or info.alias == name for name, info in fields.items())
    keys = [info.alias or name for name, info in fields.items()]
    space["known"] = frozenset(keys)
    space["marks"] = dict.fromkeys(fields, _ABSENT)
    lines = ["def check(value):",
             "    if type(value) is not dict:",  # (a model is not a dict)
             "        if isinstance(value, cls):",
             "            return value",
             "        raise _not_object(value)",
             "    data = {**marks, **value}" if laid else "    data = {}"]
    for (name, info), key in zip(fields.items(), keys, strict=True):
        k, n = repr(key), repr(name)  # (names are str: repr is their literal)
        if info.default_factory in (dict, list):
            absent = f"data[{n}] = {info.default_factory()!r}"  # a new {} or []
        elif info.default_factory is not None:
            absent = f"data[{n}] = {const(info.default_factory)}()"
        elif info.default is not Undefined:
            absent = f"data[{n}] = {const(info.default)}"
        else:
            absent = f"raise _required({k})"
        lines += [f"    v = data[{n}]" if laid else f"    v = data[{n}] = value.get({k}, _absent)",
                  "    if v is _absent:",
                  f"        {absent}"]
        check = compile_type(info.annotation, info.metadata)
        accepts, then = _accepts(check), getattr(check, "then", None)
        if then is not None:  # as `_with_meta`'s `run`: the plain check, then the validators
            plain, after = then
            lines += [f"    elif {_accepts(plain)('v', const)}:",  # type: ignore[misc]
                      "        try:",
                      *[f"            v = {const(func)}(v)" for func in after],
                      "        except ValueError as exc:",
                      f"            raise _within(_refused(exc), {k}) from None",
                      f"        data[{n}] = v",
                      "    else:"]
        elif accepts is not None:
            lines.append(f"    elif not ({accepts('v', const)}):")
        else:
            lines.append("    else:")
        lines += ["        try:",
                  f"            data[{n}] = {const(check)}(v)",
                  "        except ValidationError as exc:",
                  f"            raise _within(exc, {k}) from None"]
    lines += [f"    if len(data) > {len(fields)}:" if laid else
              "    if not value.keys() <= known:",
              "        raise _unknown(value, known)",
              f"    obj = {const(cls.__new__)}(cls)",
              "    _set(obj, '__dict__', data)",
              "    return _validated(obj, validators)" if cls.__validators__ else "    return obj"]
    exec(compile("\n".join(lines), f"<check of {cls.__qualname__}>", "exec"), space)
    return space["check"]  # type: ignore[no-any-return]


class _Absent:
    def __repr__(self) -> str:
        return "<absent>"


_ABSENT: Any = _Absent()  # a field not given, in a model's generated check


def _not_object(value: Any) -> ValidationError:
    return _fail(_msg("must be an object (got {value})", value=_got(value)))


def _required(key: str) -> ValidationError:
    return _within(_fail(_msg("is required")), key)


def _unknown(value: dict[str, Any], known: frozenset[str]) -> ValidationError:
    unknown = next(key for key in value if key not in known)
    return ValidationError((unknown,), "unknown field", {}, unknown=True)


def _validated(obj: Any, validators: list[Callable[[Any], Any]]) -> Any:
    """`obj` after its validators in turn (a model's: base classes' first), a `ValueError`
    refusing it."""
    for func in validators:
        try:
            obj = func(obj)
        except ValueError as exc:
            raise _refused(exc) from None
    return obj


def _dump(value: Any) -> Any:
    if isinstance(value, StrictModel):
        return value.model_dump()
    if isinstance(value, list):
        return [_dump(v) for v in value]
    if isinstance(value, dict):
        return {k: _dump(v) for k, v in value.items()}
    return value


def _frozen(value: Any) -> Any:
    if isinstance(value, list):
        return tuple(_frozen(v) for v in value)
    if isinstance(value, dict):
        return tuple((k, _frozen(v)) for k, v in value.items())
    return value


class TypeAdapter:
    """Checks values of any type the models use: `TypeAdapter(list[Event]).validate_python(x)`."""

    def __init__(self, tp: Any) -> None:
        self._check = compile_type(tp)

    def validate_python(self, value: Any) -> Any:
        return self._check(value)
