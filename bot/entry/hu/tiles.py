"""Tiles typed on a /hu line (`/hu 南 自摸 123m456m789p11s 中中中`): each winner's tiles are read
by `scoring.tiles.analyze` and the best reading's features fill the winner; words on the same
line add what tiles cannot show (杠上花, 天胡 …). bot/entry/hu/words.py collects the tile words."""

from __future__ import annotations

from typing import Any

from scoring.tiles import analyze
from scoring.variant import Variant

from ..record import tiles_request
from .words import TILES, LineError

TURNED_EXAMPLE = "翻=5m"  # how a line names the turned tile that the jokers follow


def read_tiles(v: Variant, base: dict[str, Any], events: list[dict[str, Any]]
               ) -> list[tuple[int, dict[str, Any]]]:
    """Fill every winner who showed tiles with the best reading's features, in place, and put
    their concealed kongs before their win where kongs score; return (seat, analysis) per such
    winner. Raises scoring's ScoringError for tiles that do not win, LineError for a joker
    indicator that is missing or an exposed kong (who discarded it the tiles cannot say)."""
    given = [w.pop("_indicator") for e in events for w in e.get("winners", [])
             if "_indicator" in w]
    indicator = given[0] if given else None
    read: list[tuple[int, dict[str, Any]]] = []
    for event in list(events):
        for i, winner in enumerate(event.get("winners", [])):
            tiles = winner.pop(TILES, None)
            if not tiles:
                continue
            if v.tiles is not None and v.tiles.indicator and indicator is None:
                raise LineError("Which tile was turned? This game's jokers follow it: add it "
                                "to the line, e.g. {example} (or indicator=5m).",
                                example=TURNED_EXAMPLE)
            # the words on the line go with the tiles where the style counts them together
            result = analyze(tiles_request(v, base, "".join(tiles), by=event.get("by"),
                                           seat=winner["seat"], indicator=indicator,
                                           winner=winner,
                                           after_kong=bool(event.get("after_kong"))))
            # the words on the line add to what the tiles show (杠上花 …)
            event["winners"][i] = {**result["winner"], **winner}
            read.append((winner["seat"], result))
            if "kong" in v.event_types():
                kongs = _kongs(winner["seat"], result["readings"][0]["sets"])
                at = next(k for k, e in enumerate(events) if e is event)
                events[at:at] = kongs
    return read


def _kongs(seat: int, sets: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The kong events a winner's melds stand for: a concealed kong is one; an exposed one
    pays whoever discarded it, which the tiles do not show."""
    kongs = [g for g in sets if g["kind"] == "kong"]
    if any(g.get("meld") != "concealed_kong" for g in kongs):
        raise LineError("An exposed kong pays whoever discarded it, which the tiles do not "
                        "show: enter this hand with /hand, the kong first.")
    return [{"type": "kong", "seat": seat, "kind": "concealed"} for _ in kongs]


def set_text(g: dict[str, Any]) -> str:
    """A set as typed: `[555p]` exposed, `[(5555p)]` concealed kong, 🃏 per joker standing in."""
    text = g["tiles"]
    if g.get("meld") == "concealed_kong":
        text = f"[({text})]"
    elif g.get("meld"):
        text = f"[{text}]"
    return text + "🃏" * g.get("jokers", 0)
