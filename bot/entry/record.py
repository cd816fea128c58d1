"""A hand record as entry checks it, whichever way it came in (the /hand wizard, the page): whether
its events make a whole hand, the field an event still lacks, the fields a form does not ask
for, the other events a table can have, and an event stored without its defaults. Each rule is
stated here once; the wizard (entry/wizard/flow.py) and the booking (bot/books/hands.py) use it."""

from __future__ import annotations

from typing import Any

from scoring import IncompleteHand, ScoringError
from scoring.model import StrictModel
from scoring.variant import Variant

from . import controls
from .controls import Kind
from .ctx import Ctx


def seats_won(events: list[dict[str, Any]]) -> set[int]:
    """The seats that have won in these events."""
    return {w["seat"] for e in events if e.get("type") == "win" for w in e.get("winners", [])}


def hand_state(ctx: Ctx, events: list[dict[str, Any]]) -> tuple[bool, ScoringError | None]:
    """(the events make a whole hand, scoring's refusal if any). A whole hand has the event
    that ends it: scoring says so by not raising IncompleteHand, and a blood battle goes on
    until three seats have won or the wall runs out (docs/hand-format.md)."""
    try:
        ctx.score(events)
    except IncompleteHand:
        return False, None
    except ScoringError as exc:
        return False, exc
    return not _goes_on(ctx.variant, events), None


def _goes_on(v: Variant, events: list[dict[str, Any]]) -> bool:
    """No win and no exhausted wall yet (a false win or a kong alone is no hand), or a blood
    battle with fewer than three winners and wall left."""
    exhausted = any(e.get("type") == "exhausted" for e in events)
    if not exhausted and not seats_won(events):
        return True
    return v.blood_battle and len(seats_won(events)) < 3 and not exhausted


def tiles_request(variant: Variant, base: dict[str, Any], tiles: str, *, by: str | None,
                  seat: int, indicator: str | None = None, winner: dict[str, Any] | None = None,
                  after_kong: bool = False) -> dict[str, Any]:
    """The `analyze` request for a winner's tiles at a table (`base`: the record without its
    events: rules, dealer, prevailing wind), with the story the player told beside them
    (杠上开花, 绝张, 妙手回春, flowers: `Variant.story_for_tiles`), so that a style counting the
    hand whole counts it with them before its minimum. Every way tiles come in (a /hu line,
    the keyboard, the page) reads them so."""
    return {"variant": variant.name, "rules": base.get("rules") or {}, "tiles": tiles,
            "by": by or "self_draw", "seat": seat, "dealer": base.get("dealer", 0),
            "round_wind": base.get("round_wind", 0), "indicator": indicator,
            **variant.story_for_tiles(winner or {}, after_kong)}


def extras(ctx: Ctx) -> list[str]:
    """The other events this table can have (kongs, chickens, 精 …; not a win nor the wall's
    end): not one its house rules switch off (`Variant.offers`). The wizard and the page offer
    these; those of a hand-ending win's accounting are its `Variant.after_end`."""
    rules = ctx.variant.Rules.model_validate(ctx.base.get("rules") or {})
    return [name for name in controls.event_types(ctx.variant.events)
            if name not in ("win", "exhausted") and ctx.variant.offers(name, rules)]


def lacking(ctx: Ctx, event_type: str) -> frozenset[str]:
    """The options of an event this table's style does not have (`Variant.lacks`): no form
    shows them."""
    return ctx.variant.lacks(event_type, ctx.variant.Rules.model_validate(ctx.base.get("rules") or {}))


def skipped(pending: dict[str, Any], ctx: Ctx | None = None,
            events: list[dict[str, Any]] | None = None) -> set[str]:
    """Fields of the event being entered that its form does not show: a win's `by` and `from`
    were chosen on the steps before; a kong's `from` (the discarder) only for an exposed kong.
    Where kongs are entered, 杠上花 only after the winner's kong and 杠上炮 after the
    discarder's (a whole hand has that kong). Nor an option the style lacks (`lacking`)."""
    skip = {"type", "by"}
    if ctx is not None:
        skip |= lacking(ctx, pending["type"])
    if pending["type"] == "win":
        skip.add("from")
        if pending["by"] == "robbed_kong":
            skip.add("after_kong")
        elif ctx is not None and "kong" in controls.event_types(ctx.variant.events):
            kongs = {e.get("seat") for e in events or [] if e.get("type") == "kong"}
            who = (pending["winners"][0]["seat"] if pending["by"] == "self_draw"
                   and len(pending["winners"]) == 1 else pending.get("from"))
            if who not in kongs:
                skip.add("after_kong")
    elif "kind" in pending and "from" in pending and pending["kind"] != "exposed":
        skip.add("from")
    return skip


def missing(ctx: Ctx, pending: dict[str, Any], events: list[dict[str, Any]]) -> str | None:
    """The name of the first field of an event still to be chosen (a kong's seat, an exposed
    kong's discarder), so a refusal can say what to choose rather than "got None"; `events`
    are those entered before it."""
    skip = skipped(pending, ctx, events)
    for spec in controls.fields_of(controls.event_model(ctx.variant.events, pending["type"])):
        if spec.name in skip or pending.get(spec.name) is not None:
            continue
        needed = spec.required and not spec.optional
        if needed or (spec.name == "from" and pending.get("kind") == "exposed"):
            return spec.name
    return None


def prune(model: type[StrictModel], obj: dict[str, Any]) -> dict[str, Any]:
    """Drop fields left at their defaults, so stored records read like hand-written ones."""
    out: dict[str, Any] = {}
    for spec in controls.fields_of(model):
        if spec.name not in obj:
            continue
        value = obj[spec.name]
        if spec.kind is Kind.ITEMS and spec.model is not None:
            value = [prune(spec.model, item) for item in value]
        elif spec.kind is Kind.SEAT_MAP and spec.model is not None:
            value = {k: prune(spec.model, item) if isinstance(item, dict) else item
                     for k, item in sorted(value.items())}  # None, or a word such as 花猫
        elif spec.kind is Kind.OBJECT and spec.model is not None and isinstance(value, dict):
            value = prune(spec.model, value)
        if spec.name == "type" or spec.required or value != spec.default:
            out[spec.name] = value
    return out
