"""`python -m scoring score [FILE]`: one hand record in, one JSON outcome out (exit 2 on error)."""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any

from . import ScoringError, score


def _fail(message: str) -> int:
    print(json.dumps({"error": message}, ensure_ascii=False))
    return 2


def _read(path: str | None) -> str:
    if path is None or path == "-":
        return sys.stdin.read()
    with open(path, encoding="utf-8") as fh:
        return fh.read()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m scoring",
                                     description="Score mahjong hand records.")
    sub = parser.add_subparsers(dest="command", required=True)
    cmd = sub.add_parser("score", help="score one hand record (JSON) from FILE or stdin")
    cmd.add_argument("file", nargs="?", help="a JSON file; standard input when absent")
    try:
        args = parser.parse_args(argv)
    except SystemExit as exc:  # argparse already printed its usage message
        return 2 if exc.code else 0
    try:
        text = _read(args.file)
    except (OSError, UnicodeDecodeError) as exc:
        return _fail(f"cannot read {args.file}: {exc}")
    try:
        record: Any = json.loads(text)
    except json.JSONDecodeError as exc:
        return _fail(f"invalid JSON: {exc.msg} at line {exc.lineno} column {exc.colno}")
    try:
        outcome = score(record)
    except ScoringError as exc:
        return _fail(str(exc))
    except RecursionError:
        return _fail("record: nested too deeply")
    except Exception as exc:  # a bug must still answer in the contract's shape
        return _fail(f"internal error while scoring: {type(exc).__name__}: {exc}")
    print(json.dumps(outcome.to_dict(), ensure_ascii=False))
    return 0
