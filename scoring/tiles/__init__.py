"""Tile analysis (shared/spec/tiles.md): read the tiles, find every reading under a variant's
rules, and return the winner features of the most valuable one; list a ready hand's waits.

    >>> from scoring.tiles import analyze
    >>> analyze({"variant": "luzhou", "tiles": "123m456m789m[555p]中+5m"})["winner"]
"""

from .analysis import analyze
from .notation import parse_tiles
from .ready import has_ready_check, ready_entry, ready_value, waits

__all__ = ["analyze", "clear_caches", "has_ready_check", "parse_tiles", "ready_entry",
           "ready_value", "waits"]


def clear_caches() -> None:
    """Empty every table and memo the engine fills as it goes (benchmarks: the cold figures).
    The generated tables of complete parts (`tables.part_splits` and what derives from it) are
    static data, made once per process, and stay."""
    from . import analysis, engine, notation, plain, reading, ready, request, tables

    analysis._value.cache_clear()
    ready._ready_value.cache_clear()
    request._rules_json.cache_clear()
    analysis._rules_model.cache_clear()
    request._RULES.clear()
    for memo in (engine._SPLITS, engine._SUB, engine._SUB_WILD, plain._GROUPS, plain._PLUS,
                 engine._REL, engine._OPTIONS, tables._SUIT, tables._HON, tables._ADD,
                 engine._AT, engine._LOOKS):
        memo.clear()
    engine._room.cache_clear()
    engine._chow_moves.cache_clear()
    reading._group_dict.cache_clear()
    analysis._VALUED.clear()
    analysis._TEXTS.clear()
    notation._GROUP_TILES.clear()
    notation._MELDS.clear()
    ready._TEXTS.clear()
    ready._ENTRIES.clear()
    request._jokers.cache_clear()
    request._meld.cache_clear()
