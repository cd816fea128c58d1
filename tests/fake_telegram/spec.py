"""The Bot API 10.0 specification (machine-readable, in telegram-bot-api/ beside this file) and
request validation against it: unknown methods and parameters, missing required ones, wrong
types, and the shape of nested objects such as reply_markup. Also checks the fake's own
results, so a malformed answer is the fake's bug and never the bot's."""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Any

SPEC_FILE = Path(__file__).resolve().parent / "telegram-bot-api" / "bot-api-10.0.min.json"
SCALARS = {"Integer", "Float", "Boolean", "String", "True"}
_INT = re.compile(r"^[+-]?\d+$")
# How a subtype names itself: 'Scope type, must be chat', 'The member's status …, always “creator”'.
_DISCRIMINATOR = re.compile(r'(?:must be|always) [“"]?([a-z_]+)[”"]?')
# Telegram's words for a few parameters in "can't parse … JSON object" errors.
_OBJECT_WORDS = {"reply_markup": "reply keyboard markup", "reply_parameters": "reply parameters",
                 "link_preview_options": "link preview options"}


class ApiError(Exception):
    """A Bot API error answer: {"ok": false, "error_code", "description", "parameters"?}."""

    def __init__(self, code: int, description: str, parameters: dict[str, Any] | None = None) -> None:
        super().__init__(description)
        self.code = code
        self.description = description
        self.parameters = parameters

    def body(self) -> dict[str, Any]:
        body: dict[str, Any] = {"ok": False, "error_code": self.code, "description": self.description}
        if self.parameters:
            body["parameters"] = self.parameters
        return body


def bad_request(message: str) -> ApiError:
    return ApiError(400, f"Bad Request: {message}")


@dataclass(frozen=True)
class Field:
    name: str
    types: tuple[str, ...]
    required: bool
    description: str


@dataclass(frozen=True)
class UploadedFile:
    """A multipart file part: what sendPhoto/sendDocument uploaded."""
    filename: str | None
    content_type: str | None
    data: bytes


class Spec:
    def __init__(self, data: dict[str, Any]) -> None:
        self.version: str = data.get("version", "")
        self._methods: dict[str, tuple[str, dict[str, Field]]] = {}
        for name, method in data["methods"].items():
            # Telegram matches method names case-insensitively.
            self._methods[name.lower()] = (name, _fields(method))
        self.returns = {name: tuple(m.get("returns", ())) for name, m in data["methods"].items()}
        self.types: dict[str, dict[str, Field]] = {n: _fields(t) for n, t in data["types"].items()}
        self.subtypes: dict[str, list[str]] = {n: t["subtypes"] for n, t in data["types"].items()
                                               if t.get("subtypes")}
        self._discriminators: dict[str, tuple[str, str]] = {}
        for sub in {s for subs in self.subtypes.values() for s in subs}:
            for f in self.types.get(sub, {}).values():
                m = _DISCRIMINATOR.search(f.description)
                if f.required and f.types == ("String",) and m:
                    self._discriminators[sub] = (f.name, m.group(1))
                    break

    def method(self, name: str) -> tuple[str, dict[str, Field]]:
        try:
            return self._methods[name.lower()]
        except KeyError:
            raise ApiError(404, "Not Found: method not found") from None

    def decode_params(self, method: str, raw: Mapping[str, Any],
                      files: Mapping[str, UploadedFile]) -> tuple[str, dict[str, Any]]:
        """The canonical method name and its parameters with their types decoded; raises ApiError."""
        name, fields = self.method(method)
        for key in raw:
            if key not in fields:
                raise bad_request(f'unknown parameter "{key}" for method {name}')
        params: dict[str, Any] = {}
        for f in fields.values():
            value = raw.get(f.name)
            if "InputFile" in f.types:
                value = _file_value(f, value, files)
            if value is None:
                if f.required:
                    raise bad_request(_missing(f.name))
                continue
            params[f.name] = self.decode(f.types, value, f.name)
        return name, params

    def decode(self, types: tuple[str, ...], value: Any, path: str) -> Any:
        """`value` as one of `types`: form fields arrive as strings, objects JSON-encoded."""
        if isinstance(value, UploadedFile):
            return value
        if isinstance(value, str) and not SCALARS.intersection(types):
            try:
                value = json.loads(value)
            except ValueError:
                raise bad_request(f"can't parse {_words(path)} JSON object") from None
        if isinstance(value, list):
            candidates = [t for t in types if t.startswith("Array of ")]
        elif isinstance(value, dict):
            candidates = [t for t in types if t in self.types]
            # Report the error of the type the object looks like (all its required keys present).
            candidates.sort(key=lambda t: not self._looks_like(t, value))
        else:
            candidates = [t for t in types if t in SCALARS]
        if not candidates:
            raise bad_request(f'field "{path}" must be of type {" or ".join(types)}')
        first_error: ApiError | None = None
        for t in candidates:
            try:
                return self._decode_one(t, value, path)
            except ApiError as exc:
                first_error = first_error or exc
        assert first_error is not None
        raise first_error

    def _decode_one(self, t: str, value: Any, path: str) -> Any:
        if t.startswith("Array of "):
            inner = (t[len("Array of "):],)
            return [self.decode(inner, item, f"{path}[{i}]") for i, item in enumerate(value)]
        if t in SCALARS:
            return _scalar(t, value, path)
        return self.check_object(t, value, path)

    def _looks_like(self, t: str, value: dict[str, Any]) -> bool:
        fields = self.types.get(t, {})
        return all(f.name in value for f in fields.values() if f.required)

    def check_object(self, type_name: str, value: Any, path: str) -> dict[str, Any]:
        """Validate a JSON object against a spec type; unknown keys are errors."""
        if not isinstance(value, dict):
            raise bad_request(f'field "{path}" must be an object of type {type_name}')
        if type_name in self.subtypes:
            return self._check_abstract(type_name, value, path)
        fields = self.types[type_name]
        out: dict[str, Any] = {}
        for key, item in value.items():
            if key not in fields:
                raise bad_request(f'can\'t parse {_words(path)}: unknown field "{key}" in {type_name}')
            if item is not None:
                out[key] = self.decode(fields[key].types, item, f"{path}.{key}")
        for f in fields.values():
            if f.required and f.name not in out:
                raise bad_request(f'can\'t parse {_words(path)}: field "{f.name}" of {type_name} is required')
        return out

    def _check_abstract(self, type_name: str, value: dict[str, Any], path: str) -> dict[str, Any]:
        subs = self.subtypes[type_name]
        tagged = [s for s in subs if s in self._discriminators]
        if tagged:
            for sub in tagged:
                key, expected = self._discriminators[sub]
                if value.get(key) == expected:
                    return self.check_object(sub, value, path)
            raise bad_request(f"can't parse {_words(path)}: unsupported {type_name} {value!r}")
        first_error: ApiError | None = None
        for sub in subs:
            try:
                return self.check_object(sub, value, path)
            except ApiError as exc:
                first_error = first_error or exc
        assert first_error is not None
        raise first_error

    def check_result(self, method: str, result: Any) -> None:
        """Raise AssertionError when the fake's own answer does not match the method's return type."""
        returns = self.returns[method]
        try:
            if isinstance(result, bool) and "Boolean" in returns:
                return
            self.decode(tuple(t for t in returns if t != "Boolean"), result, "result")
        except ApiError as exc:
            raise AssertionError(f"fake server answered {method} with an invalid result: "
                                 f"{exc.description}") from None


def _fields(obj: dict[str, Any]) -> dict[str, Field]:
    return {f["name"]: Field(f["name"], tuple(f["types"]), bool(f.get("required")), f.get("description", ""))
            for f in obj.get("fields", [])}


def _words(path: str) -> str:
    return _OBJECT_WORDS.get(path.split(".")[0].split("[")[0], path.split(".")[0])


def _missing(name: str) -> str:
    # Telegram's wording for the common ones; a plain statement for the rest.
    return {"text": "message text is empty", "chat_id": "chat_id is empty",
            "callback_query_id": "query_id is empty"}.get(name, f'parameter "{name}" is required')


def _file_value(f: Field, value: Any, files: Mapping[str, UploadedFile]) -> Any:
    if value is None and f.name in files:
        return files[f.name]
    if isinstance(value, str) and value.startswith("attach://"):
        attached = files.get(value[len("attach://"):])
        if attached is None:
            raise bad_request(f"can't find attached file {value[len('attach://'):]}")
        return attached
    if value is not None and "String" not in f.types:
        raise bad_request(f"there is no {f.name} in the request")
    return value


def _scalar(t: str, value: Any, path: str) -> Any:
    wrong = bad_request(f'field "{path}" must be of type {t}')
    if t == "Integer":
        if isinstance(value, int) and not isinstance(value, bool):
            return value
        if isinstance(value, str) and _INT.match(value.strip()):
            return int(value)
        raise wrong
    if t == "Float":
        if isinstance(value, (int, float)) and not isinstance(value, bool):
            return float(value)
        if isinstance(value, str):
            try:
                return float(value)
            except ValueError:
                raise wrong from None
        raise wrong
    if t in ("Boolean", "True"):
        if isinstance(value, str) and value.lower() in ("true", "false", "1", "0"):
            value = value.lower() in ("true", "1")
        elif isinstance(value, int) and not isinstance(value, bool) and value in (0, 1):
            value = bool(value)
        if not isinstance(value, bool) or (t == "True" and not value):
            raise wrong
        return value
    # String: Telegram takes a JSON integer where a string is expected (e.g. ids as text).
    if isinstance(value, str):
        return value
    if isinstance(value, int) and not isinstance(value, bool):
        return str(value)
    raise wrong


@lru_cache(maxsize=1)
def load_spec(path: str | None = None) -> Spec:
    """The parsed spec; cached because every fake server instance shares it."""
    file = Path(path) if path else SPEC_FILE
    with open(file, encoding="utf-8") as fh:
        return Spec(json.load(fh))
