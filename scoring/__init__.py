"""Pure mahjong scoring: hand records in, outcomes out (see docs/hand-format.md).

    >>> from scoring import score
    >>> score({"variant": "luzhou", "events": [...]}).to_dict()
"""

from __future__ import annotations

from typing import Any

from .errors import IncompleteHand, ScoringError
from .model import Hand
from .outcome import Line, Outcome
from .validation import parse_record
from .variant import Variant, all_variants, get_variant


def score(record: dict[str, Any]) -> Outcome:
    """Score one hand record; raises `ScoringError` for anything the rules do not allow."""
    variant, hand = parse_record(record)
    return variant.score(hand)


__all__ = ["Hand", "IncompleteHand", "Line", "Outcome", "ScoringError", "Variant", "all_variants",
           "get_variant", "score"]
