"""Tile analysis (shared/spec/tiles.md): read the tiles, find every reading under a variant's
rules, and return the winner features of the most valuable one; list a ready hand's waits.

    >>> from scoring.tiles import analyze
    >>> analyze({"variant": "luzhou", "tiles": "123m456m789m[555p]中+5m"})["winner"]
"""

from .analysis import analyze, waits
from .notation import parse_tiles
from .ready import has_ready_check, ready_entry, ready_value

__all__ = ["analyze", "has_ready_check", "parse_tiles", "ready_entry", "ready_value", "waits"]
