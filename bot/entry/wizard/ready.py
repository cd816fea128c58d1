"""查叫 by tiles in the /hand wizard: on the exhausted wall's form each seat still in may enter
its 13 tiles on the tile keyboard (bot/entry/keyboard.py); `scoring.tiles.ready_entry` decides
ready or not and fills that seat's entry of the ready map with the wait 查叫 values highest.

What it keeps in the draft (draft.py): `keys` with `ready` = the seat while its keyboard is open
(step keys, as the winner's keyboard); `ready_reads` once a seat's tiles were read. A read is
shown only while the seat's entry is still what the tiles gave (a later tap by hand changes the
entry).
"""

from __future__ import annotations

from scoring import ScoringError
from scoring.tiles import has_ready_check, ready_entry, ready_value

from ...plumbing.callbacks import Act
from ...plumbing.messages import Button
from ...view.render import esc, seat_label, wind
from .. import controls
from ..ctx import Ctx
from ..hu.ready import seat_text
from ..keyboard import (
    Cb,
    KeyExit,
    KeySpec,
    KeyState,
    ReadRefused,
    keys_screen,
    new_state,
    notation,
    press_key,
)
from ..screens import Callbacks, Screen
from .draft import HandDraft, OpenKeys, ReadyRead, Step

KEEP = ("declared",)  # what the tiles cannot show: a tap on the seat's form keeps it


def spec_for(ctx: Ctx) -> KeySpec:
    rules = ctx.variant.Rules.model_validate(ctx.base.get("rules") or {}).model_dump()
    return KeySpec(variant=ctx.variant.name, rules=rules, want=13)  # a ready hand: 13 tiles


def offered(draft: HandDraft, ctx: Ctx) -> bool:
    """The exhausted wall's form, at its top level, in a variant with 查叫."""
    pending = draft.pending or {}
    return (pending.get("type") == "exhausted" and isinstance(pending.get("ready"), dict)
            and not draft.path and has_ready_check(ctx.variant.name))


def open_keys(draft: HandDraft, ctx: Ctx, seat: int) -> None:
    """Open the keyboard for a seat still in: with its tiles of before (to correct), else empty."""
    if not offered(draft, ctx) or str(seat) not in (draft.pending or {})["ready"]:
        raise controls.FormError(str(seat))
    before = draft.ready_reads.get(str(seat))
    state = before.state.model_copy(deep=True) if before else new_state()
    draft.keys = OpenKeys(ready=seat, state=state)
    draft.step = Step.KEYS


def key_press(draft: HandDraft, ctx: Ctx, keys: OpenKeys, act: Act, tile: str = "") -> None:
    """One key of a seat's keyboard: Done reads the tiles (ReadRefused for tiles scoring
    refuses: a count that is not 13, a tile the game does not use …), Back leaves them."""
    assert keys.ready is not None
    before = keys.state.model_copy(deep=True)
    out = press_key(keys.state, spec_for(ctx), act, tile)  # refused: the state is as it was
    if out is KeyExit.DONE:
        try:
            _read(draft, ctx, keys.ready, keys.state)
        except ReadRefused:
            keys.state = before
            raise
    if out is not None:
        draft.step, draft.keys = Step.FORM, None


def _read(draft: HandDraft, ctx: Ctx, seat: int, state: KeyState) -> None:
    tiles = notation(state, spec_for(ctx))
    try:
        result = ready_entry({"variant": ctx.variant.name, "rules": ctx.base.get("rules") or {},
                              "tiles": tiles, "seat": seat, "dealer": ctx.base.get("dealer", 0),
                              "round_wind": ctx.base.get("round_wind", 0)})
    except ScoringError as exc:
        raise ReadRefused(ctx.explain(exc)) from None
    ready = (draft.pending or {})["ready"]
    hand, value = result["ready"], result["value"]
    old = ready.get(str(seat))
    kept = {k: old[k] for k in KEEP if isinstance(old, dict) and old.get(k)}
    if isinstance(hand, dict) and kept:
        hand = {**hand, **kept}
        value = ready_value(ctx.variant.name, hand, seat, ctx.base.get("rules") or {},
                            ctx.base.get("dealer", 0), ctx.base.get("round_wind", 0))
    ready[str(seat)] = hand
    draft.ready_reads[str(seat)] = ReadyRead(tiles=tiles, state=state, ready=hand, value=value,
                                             tile=result["tile"], waits=result["waits"])


def keys_view(keys: OpenKeys, ctx: Ctx, cb: Cb) -> Screen:
    seat = keys.ready or 0
    title = ctx.t("Tiles of {seat}", seat=seat_label(ctx.t, seat, ctx.names, html_out=False))
    return keys_screen(keys.state, spec_for(ctx), ctx.t, cb, title)


def rows(draft: HandDraft, ctx: Ctx, cb: Callbacks) -> list[list[Button]]:
    """A "tiles" button per seat still in, two to a row."""
    if not offered(draft, ctx):
        return []
    buttons = [Button("🀄 " + ctx.t("{seat}'s tiles", seat=wind(ctx.t, int(s))),
                      cb(Act.READY_TILES, int(s)))
               for s in sorted((draft.pending or {})["ready"])]
    return [buttons[i:i + 2] for i in range(0, len(buttons), 2)]


def lines(draft: HandDraft, ctx: Ctx) -> list[str]:
    """HTML: what each seat's tiles were taken as, while its entry is still theirs."""
    if not offered(draft, ctx):
        return []
    ready = (draft.pending or {})["ready"]
    out = [esc(ctx.t("Tap 🀄 to enter a seat's 13 tiles: the bot finds whether it is ready "
                     "and its most valuable wait."))]
    for seat, read in sorted(draft.ready_reads.items()):
        if seat in ready and ready[seat] == read.ready:  # not changed by hand since
            out.append("🀄 " + esc(seat_text(ctx, int(seat), read.model_dump()))
                       + f" <code>{esc(read.tiles)}</code>")
    return out
