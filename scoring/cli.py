"""`python -m scoring score [FILE]`: one hand record in, one JSON outcome out (exit 2 on error).

`python -m scoring analyze [FILE]` and `python -m scoring waits [FILE]` read tiles
(docs/tiles.md): one JSON object, or JSON Lines — one output line per input line, a bad
line answered by its own `{"error": …}`, exit 2 if any line failed. For a variant with 查叫,
`waits` also prints `ready_entry`: what the seat's entry in an `exhausted` event's ready map is
(查叫 by tiles: the wait 查叫 values highest, null when not ready, "flower_cat" for 花猫)."""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Callable
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
    for name, text in (("analyze", "the best reading of a winning hand's tiles"),
                       ("waits", "the tiles a 13-tile hand waits for")):
        tiles = sub.add_parser(name, help=f"{text} (JSON or JSON Lines) from FILE or stdin")
        tiles.add_argument("file", nargs="?", help="a JSON file; standard input when absent")
    try:
        args = parser.parse_args(argv)
    except SystemExit as exc:  # argparse already printed its usage message
        return 2 if exc.code else 0
    try:
        text = _read(args.file)
    except (OSError, UnicodeDecodeError) as exc:
        return _fail(f"cannot read {args.file}: {exc}")
    if args.command != "score":
        from .tiles import analyze, waits  # the tile engine loads only when asked for

        return _tiles(text, analyze if args.command == "analyze" else waits)
    try:
        record: Any = json.loads(text)
    except json.JSONDecodeError as exc:
        return _fail(f"invalid JSON: {exc.msg} at line {exc.lineno} column {exc.colno}")
    result = _answer(lambda: score(record).to_dict())
    print(json.dumps(result, ensure_ascii=False))
    return 2 if "error" in result else 0


def _answer(run: Callable[[], dict[str, Any]]) -> dict[str, Any]:
    """`run`'s result, or the contract's `{"error": …}` for anything it refuses."""
    try:
        return run()
    except ScoringError as exc:
        return {"error": str(exc)}
    except RecursionError:
        return {"error": "record: nested too deeply"}
    except Exception as exc:  # a bug must still answer in the contract's shape
        return {"error": f"internal error while scoring: {type(exc).__name__}: {exc}"}


def _tiles(text: str, command: Callable[[Any], dict[str, Any]]) -> int:
    """One JSON object, or JSON Lines: one answer line per input line."""
    try:
        lines = [json.loads(text)]
    except json.JSONDecodeError:
        lines = [line for line in text.splitlines() if line.strip()]
    failed = False
    for line in lines or [text]:
        if isinstance(line, str):
            try:
                line = json.loads(line)
            except json.JSONDecodeError as exc:
                print(json.dumps({"error": f"invalid JSON: {exc.msg} at column {exc.colno}"},
                                 ensure_ascii=False))
                failed = True
                continue
        result = _answer(lambda data=line: command(data))
        failed = failed or "error" in result
        print(json.dumps(result, ensure_ascii=False))
    return 2 if failed else 0
