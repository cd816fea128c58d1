"""The worked examples in docs/, read as the tests check them.

A worked example is a ```json block holding a hand record (an object with "variant") followed by
a ```json block holding the outcome it must give — only the fields that block names; `lines`, when
given, lists every line in order, each by the fields it names (a line's `text` is for reading
and is not compared). In docs/rules/<variant>.md the examples stand under the numbered items of
the "Worked examples" section, and every item has at least one; elsewhere (docs/hand-format.md)
they are numbered 0."""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from tests.styles import every_style

DOCS = Path(__file__).resolve().parents[1] / "docs"
# every registered style has its rules page with worked examples: a new style is read with no
# edit here
VARIANTS = every_style()
_ITEM = re.compile(r"^(\d+)\. ")


@dataclass(frozen=True)
class Example:
    page: str  # relative to docs/, e.g. "rules/luzhou.md"
    number: int  # the worked example's number on its page (0: not in a numbered list)
    line: int  # where its record starts on the page
    record: dict[str, Any]
    outcome: dict[str, Any]

    @property
    def name(self) -> str:
        return f"{self.page}:{self.line} (example {self.number})"


@dataclass(frozen=True)
class Page:
    examples: tuple[Example, ...]
    items: tuple[int, ...]  # the numbers of the "Worked examples" section's items, in order


def read_page(page: str) -> Page:
    """Every worked example on a page of docs/; a record block with no outcome after it, or a
    block that is not JSON, is an error."""
    lines = (DOCS / page).read_text(encoding="utf-8").splitlines()
    examples: list[Example] = []
    items: list[int] = []
    in_section, number = False, 0
    pending: tuple[int, dict[str, Any]] | None = None
    i = 0
    while i < len(lines):
        text = lines[i]
        if text.startswith("## "):
            in_section = text[3:].strip().lower().startswith("worked examples")
            number = 0
        elif in_section and (m := _ITEM.match(text)):
            if pending is not None:
                raise ValueError(f"{page}:{pending[0]}: a record with no outcome after it")
            number = int(m.group(1))
            items.append(number)
        elif text.lstrip().startswith("```json"):  # indented under a list item, or not
            start = i + 1
            i += 1
            while lines[i].strip() != "```":
                i += 1
            try:
                data = json.loads("\n".join(lines[start:i]))
            except json.JSONDecodeError as exc:
                raise ValueError(f"{page}:{start}: not JSON: {exc}") from None
            if isinstance(data, dict) and "variant" in data:
                if pending is not None:
                    raise ValueError(f"{page}:{pending[0]}: a record with no outcome after it")
                pending = (start, data)
            elif pending is not None:
                examples.append(Example(page, number, pending[0], pending[1], data))
                pending = None
        i += 1
    if pending is not None:
        raise ValueError(f"{page}:{pending[0]}: a record with no outcome after it")
    return Page(tuple(examples), tuple(items))


def rules_examples(variant: str) -> list[Example]:
    return list(read_page(f"rules/{variant}.md").examples)


def rules_example(variant: str, number: int) -> Example:
    """The one record of worked example `number` of docs/rules/<variant>.md."""
    found = [e for e in rules_examples(variant) if e.number == number]
    assert len(found) == 1, f"docs/rules/{variant}.md: example {number} has {len(found)} records"
    return found[0]


def differences(got: dict[str, Any], want: dict[str, Any]) -> list[str]:
    """Where the outcome `got` differs from the fields `want` names (empty: none)."""
    out = []
    for key, value in want.items():
        if key != "lines":
            if got.get(key) != value:
                out.append(f"{key}: {got.get(key)!r}, the page says {value!r}")
            continue
        lines = got.get("lines", [])
        if len(lines) != len(value):
            out.append(f"lines: {len(lines)}, the page lists {len(value)}: "
                       f"{[(line['what'], line['seat']) for line in lines]}")
            continue
        for n, (line, wanted) in enumerate(zip(lines, value, strict=True)):
            for field, v in wanted.items():
                if field != "text" and line.get(field) != v:
                    out.append(f"lines[{n}].{field}: {line.get(field)!r}, the page says {v!r}")
    return out
