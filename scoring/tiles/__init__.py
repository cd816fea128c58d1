"""Tile analysis (docs/tiles.md): read the tiles, find every reading under a variant's
rules, and return the winner features of the most valuable one; list a ready hand's waits.

    >>> from scoring.tiles import analyze
    >>> analyze({"variant": "luzhou", "tiles": "123m456m789m[555p]中+5m"})["winner"]

The analysis is loaded on first use: a style's module imports the shared feature questions
(`scoring.tiles.features`) without the search engine, so scoring a hand alone stays quick to
start.
"""

from __future__ import annotations

import importlib
from typing import Any

__all__ = ["analyze", "clear_caches", "has_ready_check", "parse_tiles", "ready_entry",
           "ready_value", "waits"]

_WHERE = {"analyze": "analysis", "parse_tiles": "notation", "has_ready_check": "ready",
          "ready_entry": "ready", "ready_value": "ready", "waits": "ready"}
_MODULES = ("analysis", "ready", "request", "engine", "plain", "tables", "reading", "notation")


def __getattr__(name: str) -> Any:
    if name in _WHERE:
        return getattr(importlib.import_module(f"{__name__}.{_WHERE[name]}"), name)
    if name in _MODULES or name == "features":
        return importlib.import_module(f"{__name__}.{name}")
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def clear_caches() -> None:
    """Empty every table and memo the engine fills as it goes (benchmarks: the cold figures).
    The generated tables of complete parts (`tables.part_splits` and what derives from it) are
    static data, made once per process, and stay."""
    for name in _MODULES:
        importlib.import_module(f"{__name__}.{name}").clear_caches()
