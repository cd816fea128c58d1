"""查叫 by tiles in the /hand wizard: on the exhausted wall's form each seat still in may enter
its 13 tiles on the tile keyboard (bot/entry/keyboard.py); `scoring.tiles.ready_entry` decides
ready or not and fills that seat's entry of the ready map with the wait 查叫 values highest.

Draft keys (plain JSON): `keys` = {"ready": seat, "state": keyboard state} while a seat's
keyboard is open (step "keys", as the winner's keyboard); `ready_reads` = {seat: {"tiles",
"state", "ready", "value", "tile", "waits"}} once a seat's tiles were read. A read is shown only
while the seat's entry is still what the tiles gave (a later tap by hand changes the entry).
"""

from __future__ import annotations

from typing import Any

from scoring import ScoringError
from scoring.tiles import has_ready_check, ready_entry, ready_value

from ...plumbing.messages import Button
from ...view.render import esc, seat_label, wind
from .. import controls
from ..hu.ready import seat_text
from ..keyboard import (
    KeyRefused,
    KeySpec,
    ReadRefused,
    key_cb,
    keys_screen,
    new_state,
    notation,
    press_key,
)

KEEP = ("declared",)  # what the tiles cannot show: a tap on the seat's form keeps it


def spec_for(ctx: Any) -> KeySpec:
    rules = ctx.variant.Rules.model_validate(ctx.base.get("rules") or {}).model_dump()
    return KeySpec(variant=ctx.variant.name, rules=rules, want=13)  # a ready hand: 13 tiles


def offered(draft: dict[str, Any], ctx: Any) -> bool:
    """The exhausted wall's form, at its top level, in a variant with 查叫."""
    pending = draft.get("pending") or {}
    return (pending.get("type") == "exhausted" and isinstance(pending.get("ready"), dict)
            and not draft.get("path") and has_ready_check(ctx.variant.name))


def open_keys(draft: dict[str, Any], ctx: Any, seat: str) -> None:
    """Open the keyboard for a seat still in: with its tiles of before (to correct), else empty."""
    if not offered(draft, ctx) or seat not in draft["pending"]["ready"]:
        raise controls.FormError(seat)
    before = (draft.get("ready_reads") or {}).get(seat, {}).get("state")
    draft["keys"] = {"ready": int(seat), "state": before or new_state()}
    draft["step"] = "keys"


def is_ready_keys(draft: dict[str, Any]) -> bool:
    return isinstance(draft.get("keys"), dict) and "ready" in draft["keys"]


def key_press(draft: dict[str, Any], ctx: Any, op: str, arg: str = "") -> None:
    """One key of a seat's keyboard: Done reads the tiles (ReadRefused for tiles scoring
    refuses: a count that is not 13, a tile the game does not use …), Back leaves them."""
    import copy

    if draft.get("step") != "keys" or not is_ready_keys(draft):
        raise controls.FormError(op)
    keys = draft["keys"]
    state = keys["state"]
    before = copy.deepcopy(state)
    try:
        action = press_key(state, spec_for(ctx), op, arg)
    except KeyRefused:
        keys["state"] = before
        raise
    if action == "back":
        draft.update(step="form", keys=None)
    elif action == "done":
        try:
            _read(draft, ctx, keys["ready"], state)
        except ReadRefused:
            keys["state"] = before
            raise
        draft.update(step="form", keys=None)


def _read(draft: dict[str, Any], ctx: Any, seat: int, state: dict[str, Any]) -> None:
    tiles = notation(state, spec_for(ctx))
    try:
        result = ready_entry({"variant": ctx.variant.name, "rules": ctx.base.get("rules") or {},
                              "tiles": tiles, "seat": seat, "dealer": ctx.base.get("dealer", 0),
                              "round_wind": ctx.base.get("round_wind", 0)})
    except ScoringError as exc:
        raise ReadRefused(ctx.explain(exc)) from None
    ready = draft["pending"]["ready"]
    hand = result["ready"]
    old = ready.get(str(seat))
    value = result["value"]
    kept = {k: old[k] for k in KEEP if isinstance(old, dict) and old.get(k)}
    if isinstance(hand, dict) and kept:
        hand = {**hand, **kept}
        value = ready_value(ctx.variant.name, hand, seat, ctx.base.get("rules") or {},
                            ctx.base.get("dealer", 0), ctx.base.get("round_wind", 0))
    ready[str(seat)] = hand
    draft.setdefault("ready_reads", {})[str(seat)] = {
        "tiles": tiles, "state": state, "ready": hand, "value": value,
        "tile": result["tile"], "waits": result["waits"]}


def keys_view(draft: dict[str, Any], ctx: Any) -> Any:
    seat = draft["keys"]["ready"]
    title = ctx.t("Tiles of {seat}", seat=seat_label(ctx.t, seat, ctx.names, html_out=False))
    return keys_screen(draft["keys"]["state"], spec_for(ctx), ctx.t, key_cb, title)


def rows(draft: dict[str, Any], ctx: Any, cb: Any) -> list[list[Any]]:
    """A "tiles" button per seat still in, two to a row."""
    if not offered(draft, ctx):
        return []
    buttons = [Button("🀄 " + ctx.t("{seat}'s tiles", seat=wind(ctx.t, int(s))), cb("rt", s))
               for s in sorted(draft["pending"]["ready"])]
    return [buttons[i:i + 2] for i in range(0, len(buttons), 2)]


def lines(draft: dict[str, Any], ctx: Any) -> list[str]:
    """HTML: what each seat's tiles were taken as, while its entry is still theirs."""
    if not offered(draft, ctx):
        return []
    ready = draft["pending"]["ready"]
    out = [esc(ctx.t("Tap 🀄 to enter a seat's 13 tiles: the bot finds whether it is ready "
                     "and its most valuable wait."))]
    for seat, read in sorted((draft.get("ready_reads") or {}).items()):
        if seat in ready and ready[seat] == read["ready"]:  # not changed by hand since
            out.append("🀄 " + esc(seat_text(ctx, int(seat), read))
                       + f" <code>{esc(read['tiles'])}</code>")
    return out
