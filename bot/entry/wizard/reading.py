"""The /hand wizard's tiles: the tile keyboard (entry/keyboard.py) opened for a winner, its analysis
filling the winner's features, the other readings one tap away, and the reading named on every
later screen (preview included). Also the readings of tiles typed on a /hu line.

What it keeps in the draft (draft.py): `keys` while the keyboard is open for winner number `w`;
`held` = tiles left with Back (or kept from a win taken back); `reads` once tiles were read;
`auto_kongs` = how many concealed kong events a seat's tiles added (they go with the win);
`photo` (and `unsure`) = tiles a photo showed, waiting for the winner's keyboard to open with
them (its flowers among them where the style plays flowers: bot/entry/photo_tiles.py); `words` =
features a photo's caption named (杠上花 …), kept over any reading.
"""

from __future__ import annotations

from typing import Any

from scoring import ScoringError
from scoring.tiles import analyze

from ...plumbing.callbacks import Act
from ...plumbing.messages import Button
from ...view.i18n import N_, Translator
from ...view.render import seat_label
from .. import controls, preview
from ..ctx import Ctx
from ..hu.tiles import set_text
from ..keyboard import (
    Cb,
    KeyExit,
    KeyRefused,
    KeySpec,
    KeyState,
    ReadRefused,
    keys_screen,
    new_state,
    notation,
    press_key,
)
from ..photo_tiles import PhotoTiles
from ..preview import MAX_READINGS
from ..record import tiles_request
from ..screens import Callbacks, Screen
from . import ready
from .draft import HandDraft, OpenKeys, Read, Reading, Step


def spec_for(ctx: Ctx) -> KeySpec:
    rules = ctx.variant.Rules.model_validate(ctx.base.get("rules") or {}).model_dump()
    return KeySpec(variant=ctx.variant.name, rules=rules, want=14)  # rules with their defaults


# -- opening and leaving the keyboard -----------------------------------------------------------

def open_keys(draft: HandDraft, ctx: Ctx, index: int) -> None:
    """Open the keyboard for the pending win's winner number `index`: with the photo's tiles if a
    photo waits, else with what was entered for that seat before (to correct it), else empty."""
    winners = _winners(draft)
    if not 0 <= index < len(winners):
        raise controls.FormError(str(index))
    seat = str(winners[index]["seat"])
    photo, draft.photo = draft.photo, None
    read = draft.reads.get(seat)
    before = draft.held.get(seat) or (read.state if read else None)
    state = new_state(photo) if photo is not None else (
        before.model_copy(deep=True) if before else new_state())
    if photo is not None:  # the doubts about tiles (flowers too) that made it into the keyboard
        state.unsure = [x for x in draft.unsure if x in state.hand or x in state.flowers]
        draft.unsure = []
    draft.keys = OpenKeys(w=index, state=state)
    draft.step = Step.KEYS


PHOTO_READ = N_("{n} tiles read from the photo: check them, correct any the photo got wrong, "
                "then tap Done.")
PHOTO_READ_FLOWER = N_("{n} tiles and 1 flower read from the photo: check them, correct any the "
                       "photo got wrong, then tap Done.")
PHOTO_READ_FLOWERS = N_("{n} tiles and {f} flowers read from the photo: check them, correct any "
                        "the photo got wrong, then tap Done.")
FLOWER_LEFT_OUT = N_("1 flower left out: this style plays none.")
FLOWERS_LEFT_OUT = N_("{f} flowers left out: this style plays none.")


def photo_note(t: Translator, kept: PhotoTiles) -> str:
    """Plain text: what the photo gave the keyboard (the hand's tiles counted apart from the
    flowers), and the flowers it left out, if any."""
    n, f = len(kept.hand), len(kept.flowers)
    note = t(PHOTO_READ if not f else PHOTO_READ_FLOWER if f == 1 else PHOTO_READ_FLOWERS,
             n=n, f=f)
    out = len(kept.left_out)
    if out:
        note += "\n" + t(FLOWER_LEFT_OUT if out == 1 else FLOWERS_LEFT_OUT, f=out)
    return note


def open_photo(draft: HandDraft, ctx: Ctx) -> None:
    """A photo's tiles open in the keyboard as soon as the wizard reaches the form of a win
    with one winner (the winner and how he won known)."""
    pending = draft.pending
    if (draft.photo is not None and draft.step is Step.FORM and pending
            and pending.get("type") == "win" and len(pending["winners"]) == 1 and not draft.path):
        open_keys(draft, ctx, 0)


def _winners(draft: HandDraft) -> list[dict[str, Any]]:
    return (draft.pending or {}).get("winners") or []


def _win_seat(draft: HandDraft, keys: OpenKeys) -> str:
    return str(_winners(draft)[keys.w or 0]["seat"])


def key_press(draft: HandDraft, ctx: Ctx, act: Act, tile: str = "") -> None:
    """One key of the open keyboard. For a winner, Done reads the tiles (ReadRefused if they do
    not win) and goes back to the win's form with the best reading; Back goes there unchanged,
    the tiles held for the next "Enter tiles". A seat's 13 tiles at an exhausted wall go to
    `ready`. KeyRefused for a key that does not fit; FormError when no keyboard is open."""
    keys = draft.keys
    if draft.step is not Step.KEYS or keys is None:
        raise controls.FormError(act.name)
    if keys.ready is not None:  # a seat's 13 tiles at an exhausted wall (查叫)
        ready.key_press(draft, ctx, keys, act, tile)
        return
    before = keys.state.model_copy(deep=True)
    try:
        out = press_key(keys.state, spec_for(ctx), act, tile)
        if out is KeyExit.DONE:
            _read(draft, ctx, keys.w or 0, keys.state)
            draft.held.pop(_win_seat(draft, keys), None)
        elif out is KeyExit.BACK:
            draft.held[_win_seat(draft, keys)] = keys.state  # kept for the next "Enter tiles"
    except (KeyRefused, ReadRefused):
        keys.state = before  # as it was: the player corrects and taps Done again
        raise
    if out is not None:
        draft.step, draft.keys = Step.FORM, None


def _read(draft: HandDraft, ctx: Ctx, index: int, state: KeyState) -> None:
    pending = draft.pending or {}
    seat = pending["winners"][index]["seat"]
    tiles = notation(state, spec_for(ctx))
    try:
        result = analyze(tiles_request(ctx.variant, ctx.base, tiles, by=pending.get("by"),
                                       seat=seat, indicator=state.indicator,
                                       winner={**pending["winners"][index],
                                               **draft.words.get(str(seat), {})},
                                       after_kong=bool(pending.get("after_kong"))))
    except ScoringError as exc:
        raise ReadRefused(ctx.explain(exc)) from None
    _kongs(draft, ctx, seat, state)
    readings = [Reading(winner=r["winner"], value=r["value"],
                        sets=" ".join(set_text(g) for g in r["sets"]))
                for r in result["readings"][:MAX_READINGS]]
    draft.reads[str(seat)] = Read(tiles=tiles, readings=readings, state=state,
                                  total=len(result["readings"]), by=pending.get("by"))
    _apply(draft, ctx, seat, 0)


def reread(draft: HandDraft, ctx: Ctx) -> None:
    """The way of winning changed (Back to "how", another choice): tiles read under the old one
    are read again, as features such as 自摸 or 门清 depend on it."""
    pending = draft.pending
    if draft.step is not Step.FORM or not pending or pending.get("type") != "win":
        return
    for i, w in enumerate(pending["winners"]):
        read = draft.reads.get(str(w["seat"]))
        if read and read.state and read.by != pending.get("by"):
            try:
                _read(draft, ctx, i, read.state)
            except ReadRefused as exc:  # not a win this way: the tiles wait to be corrected
                draft.reads.pop(str(w["seat"]))
                _auto_kongs(draft, w["seat"], 0)
                draft.held[str(w["seat"])] = read.state
                pending["winners"][i] = controls.blank(ctx.variant.Winner, seat=w["seat"])
                draft.error = exc.text


def _kongs(draft: HandDraft, ctx: Ctx, seat: int, state: KeyState) -> None:
    """Where kongs are events, the concealed kongs among the tiles are entered before the win
    (as a typed line's are); an exposed one must have been entered already, with its discarder."""
    if "kong" not in ctx.variant.event_types():
        return
    held = [e for e in draft.events if e.get("type") == "kong" and e.get("seat") == seat]
    concealed = sum(1 for m in state.melds if m.concealed)
    exposed = sum(1 for m in state.melds if len(m.tiles) == 4 and not m.concealed)
    have_c = sum(1 for e in held if e.get("kind") == "concealed")
    if exposed > len(held) - have_c:
        raise ReadRefused(ctx.t("An exposed kong pays whoever discarded it: add the kong "
                                "first (“{kong}” on the first screen), then the win.",
                                kong=ctx.t("Kong")))
    typed = max(have_c - draft.auto_kongs.get(str(seat), 0), 0)  # entered by hand: kept
    _auto_kongs(draft, seat, max(concealed - typed, 0))


def _auto_kongs(draft: HandDraft, seat: int, want: int) -> None:
    """Keep as many concealed kongs added from `seat`'s tiles as the tiles now hold: those the
    tiles no longer have (corrected, or no longer a win) go, from the last; the rest stay where
    they are."""
    events = draft.events
    kong = {"type": "kong", "seat": seat, "kind": "concealed"}
    have = min(draft.auto_kongs.get(str(seat), 0), events.count(kong))  # less if undone by hand
    for _ in range(want - have):
        events.append(dict(kong))
    for _ in range(have - want):
        at = next((i for i in range(len(events) - 1, -1, -1) if events[i] == kong), None)
        if at is None:  # taken back by hand ("Undo last") already
            break
        del events[at]
    draft.auto_kongs[str(seat)] = want


def _apply(draft: HandDraft, ctx: Ctx, seat: int, i: int) -> None:
    read = draft.reads[str(seat)]
    read.chosen = i
    winners = (draft.pending or {})["winners"]
    at = next(k for k, w in enumerate(winners) if w["seat"] == seat)
    words = draft.words.get(str(seat), {})  # 杠上花 … from a photo's caption
    # what the form said of the story (绝张, 妙手回春 …) stays: the tiles do not show it
    told = {k: winners[at][k] for k in ctx.variant.story_fields() if k in winners[at]}
    winners[at] = {**controls.blank(ctx.variant.Winner, seat=seat), **read.readings[i].winner,
                   **told, **words}


def choose_reading(draft: HandDraft, ctx: Ctx, seat: int, i: int) -> None:
    """Another reading of a winner's tiles (the form's reading buttons)."""
    read = draft.reads.get(str(seat))
    if read is None or i >= len(read.readings) or seat not in [w["seat"] for w in _winners(draft)]:
        raise controls.FormError(str(i))
    _apply(draft, ctx, seat, i)


def forget(draft: HandDraft, event: dict[str, Any]) -> None:
    """A win taken back (entered and removed, or still pending and left with Back): its tiles'
    readings and the concealed kongs they added go with it; kongs entered by hand stay. The
    tiles are kept for the next "Enter tiles" of that seat."""
    for w in event.get("winners") or []:
        forget_seat(draft, w["seat"])


def forget_seat(draft: HandDraft, seat: int) -> None:
    """One winner's tiles no longer read (see forget)."""
    read = draft.reads.pop(str(seat), None)
    if read and read.state:
        draft.held[str(seat)] = read.state
    if draft.auto_kongs.get(str(seat)):
        _auto_kongs(draft, seat, 0)


# -- drawing --------------------------------------------------------------------------------------

def keys_view(draft: HandDraft, ctx: Ctx, cb: Cb) -> Screen:
    keys = draft.keys
    assert keys is not None
    if keys.ready is not None:
        return ready.keys_view(keys, ctx, cb)
    seat = int(_win_seat(draft, keys))
    title = ctx.t("Tiles of {seat}", seat=seat_label(ctx.t, seat, ctx.names, html_out=False))
    return keys_screen(keys.state, spec_for(ctx), ctx.t, cb, title)


def reading_lines(draft: HandDraft, ctx: Ctx) -> list[str]:
    """HTML: the reading taken of each winner's tiles, entered or pending (preview.reading_lines);
    the win's form says how to take another."""
    if not draft.reads:
        return []
    shown = [w for e in [*draft.events, draft.pending or {}] if e.get("type") == "win"
             for w in e.get("winners", [])]
    reads = {seat: read.model_dump() for seat, read in draft.reads.items()}
    return preview.reading_lines(ctx, shown, reads, hint=draft.step is Step.FORM)


def winner_rows(draft: HandDraft, ctx: Ctx, cb: Callbacks) -> list[list[Button]]:
    """The win form's rows for tiles: "Enter tiles" per winner, and each read winner's readings
    (the chosen one ticked, each with its value)."""
    t = ctx.t
    if ctx.variant.tiles is None:  # a style whose hands are entered by their features alone
        return []
    winners = _winners(draft)
    rows: list[list[Button]] = []
    for i, w in enumerate(winners):
        seat = w["seat"]
        who = "" if len(winners) == 1 else " " + seat_label(t, seat, ctx.names, html_out=False)
        read = draft.reads.get(str(seat))
        rows.append([Button("🀄 " + (t("Correct the tiles") if read else t("Enter tiles")) + who,
                            cb(Act.ENTER_TILES, i))])
        if read and len(read.readings) > 1:  # three a row: "✅ 1 · 120" fits a phone so
            keys = [Button(("✅ " if j == read.chosen else "") + f"{j + 1} · {r.value}",
                           cb(Act.READING, seat, j)) for j, r in enumerate(read.readings)]
            rows += [keys[k:k + 3] for k in range(0, len(keys), 3)]
    return rows
