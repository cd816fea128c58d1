"""Run the real `python -m scoring score` command line from tests."""

from __future__ import annotations

import json
import subprocess
import sys
from typing import Any


def run_cli(record: Any, *args: str) -> tuple[int, dict[str, Any], str]:
    """Score `record` (a dict, or raw text) through the CLI: (exit code, parsed stdout, stderr)."""
    text = record if isinstance(record, str) else json.dumps(record, ensure_ascii=False)
    proc = subprocess.run([sys.executable, "-m", "scoring", "score", *args], input=text,
                          capture_output=True, text=True, timeout=60, check=False)
    return proc.returncode, json.loads(proc.stdout) if proc.stdout.strip() else {}, proc.stderr


def assert_invariants(out: dict[str, Any], start: list[int] | None = None) -> None:
    """What every outcome keeps: zero sums, lines adding up, balances = start + deltas."""
    assert sum(out["deltas"]) == 0
    for line in out["lines"]:
        assert sum(line["deltas"]) == 0, line
    summed = [sum(line["deltas"][s] for line in out["lines"]) for s in range(4)]
    assert summed == out["deltas"]
    base = start if start is not None else [0, 0, 0, 0]
    assert out["balances"] == [b + d for b, d in zip(base, out["deltas"], strict=True)]


def assert_cli_error(record: Any, field: str | None = None) -> str:
    """The CLI refuses `record`: exit 2, one JSON error (naming `field` first), no traceback."""
    code, out, err = run_cli(record)
    assert code == 2, out
    assert set(out) == {"error"} and out["error"], out
    assert "Traceback" not in err
    if field is not None:
        assert out["error"].startswith(field + ":"), out["error"]
    return out["error"]


def self_draw(seat: int, after_kong: bool = False, **features: object) -> dict[str, Any]:
    return {"type": "win", "by": "self_draw", "after_kong": after_kong,
            "winners": [{"seat": seat, **features}]}


def discard(frm: int, seat: int, after_kong: bool = False, **features: object) -> dict[str, Any]:
    """One winner off a discard (variants with one winner per discard)."""
    return {"type": "win", "by": "discard", "from": frm, "after_kong": after_kong,
            "winners": [{"seat": seat, **features}]}


def robbed(frm: int, seat: int, **features: object) -> dict[str, Any]:
    return {"type": "win", "by": "robbed_kong", "from": frm, "winners": [{"seat": seat, **features}]}
