"""The /hu line, typed in the players' own words: its parts between semicolons, each a win
(`words`: seats, ways of winning, feature words; `tiles`: tiles in place of feature words) or an
exhausted wall with its 查叫 by tiles (`ready`), or, where a style books a hand so, each
seat's points (`points`)."""

from __future__ import annotations

import re
from typing import Any

from scoring.variant import Variant

from .points import is_points, parse_points
from .ready import is_exhausted, parse_exhausted
from .words import parse_hu

THEN = re.compile(r"[;；]")  # wins one after another in a blood battle: "南 自摸; 西 点炮 北"


def parse_wins(variant: Variant, tokens: list[str],
               names: list[str | None] | None = None) -> list[dict[str, Any]]:
    """Tokens after /hu → the win events they name, one per part between semicolons (a
    blood battle goes on after a win: `/hu 南 自摸 清一色; 西 点炮 北 大对子; 东 自摸`)."""
    parts: list[list[str]] = [[]]
    for raw in tokens:
        pieces = THEN.split(raw)
        for i, piece in enumerate(pieces):
            if i:
                parts.append([])
            if piece.strip():
                parts[-1].append(piece)
    return [parse_exhausted(variant, part, names) if is_exhausted(part)
            else parse_points(variant, part, names) if is_points(variant, part)
            else parse_hu(variant, part, names) for part in parts if part] or [
        parse_hu(variant, [], names)]
