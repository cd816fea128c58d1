"""Tile analysis (docs/tiles.md): read the tiles, find every reading under a variant's
rules, and return the winner features of the most valuable one; list a ready hand's waits.

    >>> from scoring.tiles import analyze
    >>> analyze({"variant": "luzhou", "tiles": "123m456m789m[555p]中+5m"})["winner"]
"""

from . import analysis, engine, notation, plain, reading, ready, request, tables
from .analysis import analyze
from .notation import parse_tiles
from .ready import has_ready_check, ready_entry, ready_value, waits

__all__ = ["analyze", "clear_caches", "has_ready_check", "parse_tiles", "ready_entry",
           "ready_value", "waits"]


def clear_caches() -> None:
    """Empty every table and memo the engine fills as it goes (benchmarks: the cold figures).
    The generated tables of complete parts (`tables.part_splits` and what derives from it) are
    static data, made once per process, and stay."""
    for module in (analysis, ready, request, engine, plain, tables, reading, notation):
        module.clear_caches()
