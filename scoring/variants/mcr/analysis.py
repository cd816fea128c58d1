"""`python -m scoring analyze` and `waits` for Chinese Official (docs/tiles.md's contract).

A hand is counted whole (`counting`), so there is one reading: the winner object carries the
tiles themselves (and the flags asked for), and its value is what the winner collects, scored as
a one-win record. Beside the contract's fields each reading lists its `points` and `elements`
(key, times counted, points), and its `sets`: how the tiles split into sets, as the shared
engine reads them (the counting looks at every split; this one is for the eye), or the
concealed tiles as one loose group where the hand is no four-sets-and-a-pair, seven pairs or
thirteen orphans (the knitted hands).
"""

from __future__ import annotations

from typing import Any

from pydantic import Field

from ...errors import ScoringError, validated
from ...tiles.engine import readings
from ...tiles.notation import group_text, read_tiles, tile_name
from ...tiles.reading import Group, Holding, groups_out
from ...tiles.request import Request
from ...validation import build_hand
from ...variant import Shapes, Variant
from . import counting, elements

SEVEN_PAIRS = ("seven_pairs", "seven_shifted_pairs")  # elements of a hand of seven pairs


class TilesRequest(Request):
    """An `analyze` / `waits` request for this style: the shared request, with the ways of
    winning the elements need (`after_kong`, `fourth_tile`, `last_of_wall`, `flowers`)."""

    after_kong: bool = False
    fourth_tile: bool = False
    last_of_wall: bool = False
    flowers: int = Field(default=0, ge=0, le=8)


def analyze(variant: Variant, data: Any) -> dict[str, Any]:
    req, rules = _request(variant, data)
    winner = {"seat": req.seat, "tiles": req.tiles,
              **{k: v for k, v in (("flowers", req.flowers), ("fourth_tile", req.fourth_tile),
                                   ("last_of_wall", req.last_of_wall)) if v}}
    return _valued(variant, req, rules, winner, req.by, req.after_kong)


def waits(variant: Variant, data: Any) -> dict[str, Any]:
    """Every tile that completes the 13 tiles into a hand that may win, valued self-drawn."""
    req, rules = _request(variant, data)
    try:
        hand, melds, win, _ = read_tiles(req.tiles)
    except ScoringError as exc:
        raise ScoringError("tiles", exc.template, **exc.params) from None
    if win is not None:
        raise ScoringError("tiles", "a hand waiting for its tile has no winning tile: drop "
                           "the '+'")
    if len(hand) + 3 * len(melds) != 13:
        raise ScoringError("tiles", "{count} tiles (a kong counts as three) but a waiting hand "
                           "has 13", count=len(hand) + 3 * len(melds))
    found: list[dict[str, Any]] = []
    best: dict[str, Any] | None = None
    for x in range(34):
        winner = {"seat": req.seat, "tiles": f"{req.tiles}+{tile_name(x)}",
                  **({"flowers": req.flowers} if req.flowers else {})}
        try:
            got = _valued(variant, req, rules, winner, "self_draw", False)
        except ScoringError:
            continue  # no win on this tile: no shape, a fifth tile, under the minimum
        wait = {"tile": tile_name(x), **got}
        found.append(wait)
        if best is None or wait["value"] > best["value"]:
            best = wait
    return {"waits": found, "ready": bool(found),
            "best": {k: best[k] for k in ("tile", "winner", "value")} if best else None}


def _request(variant: Variant, data: Any) -> tuple[TilesRequest, Any]:
    """The request and its rules, read (refusals name ``rules.<name>``)."""
    req = validated(TilesRequest, data)
    variant.check_indicator(req.indicator)
    return req, variant.read_rules(req.rules)


def _valued(variant: Variant, req: TilesRequest, rules: Any, winner: dict[str, Any], by: str,
            after_kong: bool) -> dict[str, Any]:
    """The winner object's elements and what it collects, scored as a one-win record with the
    tile as it came (from the seat before it, when claimed)."""
    win: dict[str, Any] = {"type": "win", "by": by, "winners": [winner]}
    if after_kong:
        win["after_kong"] = True
    if by != "self_draw":
        win["from"] = (req.seat + 3) % 4
    try:
        out = variant.score(build_hand(variant, rules, [win], req.dealer, req.round_wind))
    except ScoringError as exc:  # the record's field, as the request names it
        raise ScoringError(_request_field(exc.field), exc.template, **exc.params) from None
    line = next(x for x in out.lines if x.what == "win")
    assert variant.tiles is not None
    listed = _elements(line.terms)
    pairs = any(e["key"] in SEVEN_PAIRS for e in listed)
    shape, sets, at = _sets(counting.read(winner["tiles"], ""), variant.tiles.shapes, pairs)
    reading = {"winner": winner, "value": line.deltas[req.seat], "shape": shape, "sets": sets,
               "points": line.value, "elements": listed}
    if at >= 0:
        reading["winning_group"] = at
    return {"winner": winner, "value": reading["value"], "points": line.value,
            "elements": reading["elements"], "readings": [reading]}


def _sets(tiles: counting.Tiles, shapes: Shapes, pairs: bool
          ) -> tuple[str, list[dict[str, object]], int]:
    """How the tiles read as sets, for the eye: the shared engine's first reading where it has
    one (four sets and a pair, seven pairs, thirteen orphans; seven pairs first where the
    count is of seven pairs, `pairs`), else the concealed tiles as one loose group beside the
    melds; and the group the winning tile completed (-1 unknown)."""
    melds = tuple(Group("kong" if len(m) == 4 else "chow" if len(set(m)) == 3 else "pung",
                        tuple(sorted(m)), (False,) * len(m), "concealed_kong" if hidden else "exposed")
                  for m, hidden in tiles.melds)
    counts = [0] * 34
    for x in (*tiles.hand, tiles.win):
        counts[x] += 1
    found = readings(Holding(tuple(counts), 0, melds, tiles.win, False), shapes)
    if found:
        first = min(found, key=lambda r: ((r.shape == "seven_pairs") != pairs, r.groups, r.win))
        return first.shape, groups_out(first.groups), first.win
    loose = {"kind": "loose", "tiles": group_text(tuple(sorted((*tiles.hand, tiles.win))))}
    return "knitted", [loose, *groups_out(melds)], -1


def _elements(terms: tuple[str, ...]) -> list[dict[str, Any]]:
    """A win line's terms as the elements `analyze` lists: key, times counted, points."""
    out = []
    for term in terms:
        key, _, times = term.partition(":")
        n = int(times or 1)
        out.append({"key": key, "count": n, "points": elements.POINTS[key] * n})
    return out


def _request_field(field: str) -> str:
    """A one-win record's field as the tiles request names it: ``events[0].winners[0].tiles``
    → ``tiles``, ``events[0].after_kong`` → ``after_kong``; the winner itself (a refusal of
    the whole hand) → ``tiles``."""
    if field == "events[0].winners[0]":
        return "tiles"
    for prefix in ("events[0].winners[0].", "events[0]."):
        if field.startswith(prefix):
            return field[len(prefix):]
    return "tiles"
