"""A seat's 13 tiles: its waits (`waits`), and its 查叫 at an exhausted wall → its entry in the
`exhausted` event's `ready` map (docs/hand-format.md): null when not ready, else the features of its
most valuable wait.

"Most valuable" is what the variant's own 查叫 makes a not-ready seat pay. Every reading of
every waiting tile is cut down to the ready map's fields (`Variant.ready_fields`) and scored as
an exhausted-wall record by the variant itself, so no value table is copied here. Variants whose
exhausted wall pays nothing for ready hands have no ready map: asking for one is an error.
"""

from __future__ import annotations

import json
from functools import lru_cache
from typing import Any

from ..errors import ScoringError
from ..variant import get_variant
from .analysis import Scored, score_record, scored_waits, three_suits
from .features import named
from .notation import tile_name
from .request import Table, own_engine, read_request, split_win


def has_ready_check(variant: str) -> bool:
    """The variant's exhausted event takes a `ready` map (查叫)."""
    return bool(get_variant(variant).ready_fields)


def ready_value(variant: str, entry: dict[str, Any], seat: int = 0,
                rules: dict[str, Any] | None = None, dealer: int = 0, round_wind: int = 0) -> int:
    """What each seat that is not ready pays `seat` at an exhausted wall for this ready entry
    (also one a player completed by hand, with 报听)."""
    return _turned_value(variant, json.dumps(rules or {}, sort_keys=True), seat, dealer,
                         round_wind, json.dumps(entry, sort_keys=True))


def _turned_value(variant: str, rules: str, seat: int, dealer: int, round_wind: int,
                  entry: str) -> int:
    """`_ready_value` memoised for the seat counted from the dealer in an east round: an
    exhausted wall pays the same wherever the table sits and whatever the round's wind (the
    wind only moves the deal; a property test checks both)."""
    try:
        return _ready_value(variant, rules, (seat - dealer) % 4, 0, 0, entry)
    except ScoringError:  # the refusal as the seats asked
        return _ready_value(variant, rules, seat, dealer, round_wind, entry)


@lru_cache(maxsize=4096)
def _ready_value(variant: str, rules: str, seat: int, dealer: int, round_wind: int,
                 entry: str) -> int:
    """What each not-ready seat pays `seat` for this ready entry at an exhausted wall: the
    variant scores a record where `seat` alone is ready."""
    ready: dict[str, Any] = {str(s): None for s in range(4)}
    ready[str(seat)] = json.loads(entry)
    outcome = score_record(variant, rules, dealer, round_wind,
                           [{"type": "exhausted", "ready": ready}])
    return -outcome.deltas[(seat + 1) % 4]


def best_ready(table: Table, per_wait: list[tuple[int, list[Scored]]],
               reading: bool = True) -> dict[str, Any] | None:
    """Among every reading of every waiting tile, the ready entry 查叫 values highest: its
    entry, value, tile and the reading it came from (left out when not `reading`: `waits`
    keeps only the entry); None when nothing completes the hand.
    Equal values: more named features first, then a fixed order."""
    req = table.req
    rules = table.rules_json
    best = None
    for tile, scored in per_wait:
        for s in scored:
            rank, entry, value = _entry(table.name, rules, req.seat, req.dealer, req.round_wind,
                                        s.key, s.winner)
            # the first of equals: tiles in order, each tile's readings best first
            if best is None or rank < best[0]:
                best = (rank, entry, value, tile, s)
    if best is None:
        return None
    _, entry, value, tile, s = best
    out = {"ready": dict(entry), "value": value, "tile": tile_name(tile)}
    if reading:
        out["reading"] = s.to_dict()
    return out


_ENTRIES: dict[tuple, tuple[tuple[int, int, str], dict[str, Any], int]] = {}


def _entry(variant: str, rules: str, seat: int, dealer: int, round_wind: int, key: str,
           winner: dict[str, Any]) -> tuple[tuple[int, int, str], dict[str, Any], int]:
    """A winner object's ready entry, what 查叫 pays for it, and its rank among entries (higher
    value, then more named features, then the entry's text). Memoised on the winner's text:
    the same few recur in every hand."""
    ck = (variant, rules, seat, dealer, round_wind, key)
    got = _ENTRIES.get(ck)
    if got is None:
        fields = get_variant(variant).ready_fields
        entry = {k: v for k, v in winner.items() if k in fields}
        text = _entry_text(entry)
        value = _turned_value(variant, rules, seat, dealer, round_wind, text)
        got = ((-value, -named(entry), text), entry, value)
        if len(_ENTRIES) > 4096:
            _ENTRIES.clear()
        _ENTRIES[ck] = got
    return got


_TEXTS: dict[frozenset[tuple[str, object]], str] = {}


def _entry_text(entry: dict[str, object]) -> str:
    """A ready entry as sorted JSON (the value memo's key); the same few entries recur in
    every hand, so memoised."""
    ck = frozenset(entry.items())
    got = _TEXTS.get(ck)
    if got is None:
        if len(_TEXTS) > 4096:
            _TEXTS.clear()
        got = _TEXTS[ck] = json.dumps(entry, sort_keys=True)
    return got


def ready_entry(data: Any) -> dict[str, Any]:
    """A seat's 13 tiles (the `waits` request) → its 查叫 at an exhausted wall:
    `{"ready": entry | None | "flower_cat", "value": …, "tile": …, "waits": [...], "reading": …}`.

    `ready` is what the `exhausted` event's ready map takes for the seat; `value` what each
    seat that is not ready pays it (None when not ready); `tile` the wait that value comes from
    and `reading` its sets; `waits` every tile that completes the hand (jokers not listed)."""
    own = own_engine(data)
    if own is not None:
        raise ScoringError("variant", "{variant} pays nothing for ready hands at an exhausted "
                           "wall: its exhausted event has no ready map", variant=own.name)
    table = read_request(data)
    if not has_ready_check(table.name):
        raise ScoringError("variant", "{variant} pays nothing for ready hands at an exhausted "
                           "wall: its exhausted event has no ready map", variant=table.name)
    hand, _ = split_win(table, 13)
    if three_suits(table):
        return {"ready": table.tileset.missing_suit, "value": None, "tile": None, "waits": [],
                "reading": None}
    per_wait = scored_waits(table, hand)
    best = best_ready(table, per_wait)
    waits = [tile_name(tile) for tile, _ in per_wait]
    if best is None:
        return {"ready": None, "value": None, "tile": None, "waits": waits, "reading": None}
    return {**best, "waits": waits}


def waits(data: Any) -> dict[str, Any]:
    """Every tile that completes a 13-tile hand, with its best reading valued as a self-draw."""
    own = own_engine(data)
    if own is not None:
        return own.waits_tiles(data)
    table = read_request(data)
    hand, _ = split_win(table, 13)
    out: dict[str, Any] = {}
    word = table.tileset.missing_suit
    if word:  # 缺一门: a hand of three suits is the variant's word for it (花猪), with no waits
        out[word] = three_suits(table)
        if out[word]:
            return {"waits": [], "ready": False, "best": None, **out, "ready_entry": word}
    per_wait = scored_waits(table, hand)
    found = []
    best, most = None, (0, 0)
    for tile, scored in per_wait:
        first = scored[0]
        wait = {"tile": tile_name(tile), **first.to_dict()}
        found.append(wait)
        if best is None or (first.value, first.named) > most:  # the first of the best
            best, most = wait, (first.value, first.named)
    result: dict[str, Any] = {"waits": found, "ready": bool(found),
                              "best": ({"tile": best["tile"], "winner": best["winner"],
                                        "value": best["value"]} if best else None), **out}
    if has_ready_check(table.name):
        # 查叫's own value picks the entry: a self-draw's extras (手把一, the cap) may rank
        # the waits otherwise
        chosen = best_ready(table, per_wait, reading=False)
        result["ready_entry"] = chosen["ready"] if chosen else None
    return result


def clear_caches() -> None:
    """Empty this module's memos (`scoring.tiles.clear_caches`)."""
    _ready_value.cache_clear()
    _TEXTS.clear()
    _ENTRIES.clear()
