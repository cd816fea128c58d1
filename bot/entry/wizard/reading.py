"""The /hand wizard's tiles: the tile keyboard (entry/keyboard.py) opened for a winner, its analysis
filling the winner's features, the other readings one tap away, and the reading named on every
later screen (preview included). Also the readings of tiles typed on a /hu line.

Draft keys (plain JSON): `keys` = {"use": "win", "w": winner index, "state": keyboard state}
while the keyboard is open (step "keys"; other uses: KeyUse, KEY_USES); `held` = {seat: keyboard
state} left with Back (or kept from a win taken back); `reads` = {seat: {"tiles", "readings":
[{"winner", "value", "sets"}], "chosen", "total", "state", "by"}} once tiles were read;
`auto_kongs` = {seat: how many concealed kong events the tiles added (they go with the win:
forget)}; `photo` (and `unsure`) = tiles a photo
showed, waiting for the winner's keyboard to open with them; `words` = {seat: features} a
photo's caption named (杠上花 …), kept over any reading.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from scoring import ScoringError
from scoring.tiles import analyze

from ...plumbing.messages import Button
from ...view.render import seat_label
from .. import controls, preview
from ..hu.tiles import set_text
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
from ..preview import MAX_READINGS
from ..screens import Screen
from . import ready


def spec_for(ctx: Any) -> KeySpec:
    rules = ctx.variant.Rules.model_validate(ctx.base.get("rules") or {}).model_dump()
    return KeySpec(variant=ctx.variant.name, rules=rules, want=14)  # rules with their defaults


# -- opening and leaving the keyboard -----------------------------------------------------------

def open_keys(draft: dict[str, Any], ctx: Any, index: int) -> None:
    """Open the keyboard for the pending win's winner number `index`: with the photo's tiles if a
    photo waits, else with what was entered for that seat before (to correct it), else empty."""
    winners = draft["pending"]["winners"]
    if not 0 <= index < len(winners):
        raise controls.FormError(str(index))
    seat = str(winners[index]["seat"])
    photo = draft.pop("photo", None)
    before = ((draft.get("held") or {}).get(seat)  # left with Back, not read yet
              or (draft.get("reads") or {}).get(seat, {}).get("state"))
    state = new_state(photo) if photo is not None else before or new_state()
    if photo is not None:
        state["unsure"] = [x for x in draft.pop("unsure", []) if x in state["hand"]]
    draft["keys"] = {"use": "win", "w": index, "state": state}
    draft["step"] = "keys"


def open_photo(draft: dict[str, Any], ctx: Any) -> None:
    """A photo's tiles open in the keyboard as soon as the wizard reaches the form of a win
    with one winner (the winner and how he won known)."""
    pending = draft.get("pending")
    if (draft.get("photo") is not None and draft["step"] == "form" and pending
            and pending.get("type") == "win" and len(pending["winners"]) == 1 and not draft["path"]):
        open_keys(draft, ctx, 0)


@dataclass(frozen=True)
class KeyUse:
    """What an open keyboard is for. The wizard's step "keys" shows `draft["keys"]` = {"use":
    name, "state": …, plus the use's own keys}; KEY_USES[name] says how many tiles, the title,
    and what Done (raise ReadRefused to stay on the keyboard) and Back do; both must leave the
    step "keys". The /hand wizard's winner is "win"; another screen (查叫 by tiles) registers
    its own, opens the keyboard by setting draft["keys"] and step "keys", and the existing
    handler (hands.on_key: k: callbacks, coalesced edits) does the rest."""

    spec: Callable[[dict[str, Any], Any], KeySpec]
    title: Callable[[dict[str, Any], Any], str]
    done: Callable[[dict[str, Any], Any, dict[str, Any]], None]
    back: Callable[[dict[str, Any], Any, dict[str, Any]], None]


def _win_seat(draft: dict[str, Any]) -> str:
    return str(draft["pending"]["winners"][draft["keys"]["w"]]["seat"])


def _win_title(draft: dict[str, Any], ctx: Any) -> str:
    seat = int(_win_seat(draft))
    return ctx.t("Tiles of {seat}", seat=seat_label(ctx.t, seat, ctx.names, html_out=False))


def _win_done(draft: dict[str, Any], ctx: Any, state: dict[str, Any]) -> None:
    _read(draft, ctx, draft["keys"]["w"], state)
    (draft.get("held") or {}).pop(_win_seat(draft), None)
    draft.update(step="form", keys=None)


def _win_back(draft: dict[str, Any], ctx: Any, state: dict[str, Any]) -> None:
    draft.setdefault("held", {})[_win_seat(draft)] = state  # kept for the next "Enter tiles"
    draft.update(step="form", keys=None)


KEY_USES: dict[str, KeyUse] = {
    "win": KeyUse(lambda draft, ctx: spec_for(ctx), _win_title, _win_done, _win_back)}


def key_press(draft: dict[str, Any], ctx: Any, op: str, arg: str = "") -> None:
    """One key of the open keyboard. For a winner, Done reads the tiles (ReadRefused if they do
    not win) and goes back to the win's form with the best reading; Back goes there unchanged.
    KeyRefused for a key that does not fit; FormError when no keyboard is open."""
    keys = draft.get("keys")
    if draft.get("step") != "keys" or not keys or keys.get("use", "win") not in KEY_USES:
        raise controls.FormError(op)
    if "ready" in keys:  # a seat's 13 tiles at an exhausted wall (查叫)
        ready.key_press(draft, ctx, op, arg)
        return
    use = KEY_USES[keys.get("use", "win")]
    state = keys["state"]
    before = _copy(state)
    try:
        action = press_key(state, use.spec(draft, ctx), op, arg)
        if action == "done":
            use.done(draft, ctx, state)
        elif action == "back":
            use.back(draft, ctx, state)
    except (KeyRefused, ReadRefused):
        keys["state"] = before  # as it was: the player corrects and taps Done again
        raise


def _copy(state: dict[str, Any]) -> dict[str, Any]:
    import copy
    return copy.deepcopy(state)


def _read(draft: dict[str, Any], ctx: Any, index: int, state: dict[str, Any]) -> None:
    pending = draft["pending"]
    winner = pending["winners"][index]
    seat = winner["seat"]
    spec = spec_for(ctx)
    try:
        result = analyze({"variant": ctx.variant.name, "rules": ctx.base.get("rules") or {},
                          "tiles": notation(state, spec), "by": pending.get("by") or "self_draw",
                          "seat": seat, "dealer": ctx.base.get("dealer", 0),
                          "round_wind": ctx.base.get("round_wind", 0),
                          "indicator": state.get("indicator")})
    except ScoringError as exc:
        raise ReadRefused(ctx.explain(exc)) from None
    _kongs(draft, ctx, seat, state)
    readings = [{"winner": r["winner"], "value": r["value"],
                 "sets": " ".join(set_text(g) for g in r["sets"])}
                for r in result["readings"][:MAX_READINGS]]
    draft.setdefault("reads", {})[str(seat)] = {
        "tiles": notation(state, spec), "readings": readings, "chosen": 0, "state": state,
        "total": len(result["readings"]), "by": pending.get("by")}
    _apply(draft, ctx, seat, 0)


def reread(draft: dict[str, Any], ctx: Any) -> None:
    """The way of winning changed (Back to "how", another choice): tiles read under the old one
    are read again, as features such as 自摸 or 门清 depend on it."""
    pending = draft.get("pending")
    if draft.get("step") != "form" or not pending or pending.get("type") != "win":
        return
    for i, w in enumerate(pending["winners"]):
        read = (draft.get("reads") or {}).get(str(w["seat"]))
        if read and read.get("state") and read.get("by") != pending.get("by"):
            try:
                _read(draft, ctx, i, read["state"])
            except ReadRefused as exc:  # not a win this way: the tiles wait to be corrected
                draft["reads"].pop(str(w["seat"]))
                _auto_kongs(draft, w["seat"], 0)
                draft.setdefault("held", {})[str(w["seat"])] = read["state"]
                pending["winners"][i] = controls.blank(ctx.variant.Winner, seat=w["seat"])
                draft["error"] = exc.text


def _kongs(draft: dict[str, Any], ctx: Any, seat: int, state: dict[str, Any]) -> None:
    """Where kongs are events, the concealed kongs among the tiles are entered before the win
    (as a typed line's are); an exposed one must have been entered already, with its discarder."""
    if "kong" not in ctx.variant.event_types():
        return
    events = draft["events"]
    held = [e for e in events if e.get("type") == "kong" and e.get("seat") == seat]
    concealed = sum(1 for m in state["melds"] if m["concealed"])
    exposed = sum(1 for m in state["melds"] if len(m["tiles"]) == 4 and not m["concealed"])
    have_c = sum(1 for e in held if e.get("kind") == "concealed")
    if exposed > len(held) - have_c:
        raise ReadRefused(ctx.t("An exposed kong pays whoever discarded it: add the kong "
                                "first (“{kong}” on the first screen), then the win.",
                                kong=ctx.t("Kong")))
    auto = (draft.get("auto_kongs") or {}).get(str(seat), 0)
    typed = max(have_c - auto, 0)  # entered by hand ("Kong" on the first screen): kept
    _auto_kongs(draft, seat, max(concealed - typed, 0))


def _auto_kongs(draft: dict[str, Any], seat: int, want: int) -> None:
    """Keep as many concealed kongs added from `seat`'s tiles as the tiles now hold: those the
    tiles no longer have (corrected, or no longer a win) go, from the last; the rest stay where
    they are."""
    events = draft["events"]
    autos = draft.setdefault("auto_kongs", {})
    kong = {"type": "kong", "seat": seat, "kind": "concealed"}
    have = min(autos.get(str(seat), 0), events.count(kong))  # less if undone by hand since
    for _ in range(want - have):
        events.append(dict(kong))
    for _ in range(have - want):
        at = next((i for i in range(len(events) - 1, -1, -1) if events[i] == kong), None)
        if at is None:  # taken back by hand ("Undo last") already
            break
        del events[at]
    autos[str(seat)] = want


def _apply(draft: dict[str, Any], ctx: Any, seat: int, i: int) -> None:
    read = draft["reads"][str(seat)]
    read["chosen"] = i
    features = read["readings"][i]["winner"]
    winners = draft["pending"]["winners"]
    at = next(k for k, w in enumerate(winners) if w["seat"] == seat)
    words = (draft.get("words") or {}).get(str(seat), {})  # 杠上花 … from a photo's caption
    winners[at] = {**controls.blank(ctx.variant.Winner, seat=seat), **features, **words}


def choose_reading(draft: dict[str, Any], ctx: Any, seat: str, i: str) -> None:
    """Another reading of a winner's tiles (the form's reading buttons)."""
    read = (draft.get("reads") or {}).get(seat)
    pending = draft.get("pending") or {}
    if (read is None or not i.isdigit() or int(i) >= len(read["readings"])
            or int(seat) not in [w["seat"] for w in pending.get("winners", [])]):
        raise controls.FormError(i)
    _apply(draft, ctx, int(seat), int(i))


def forget(draft: dict[str, Any], event: dict[str, Any]) -> None:
    """A win taken back (entered and removed, or still pending and left with Back): its tiles'
    readings and the concealed kongs they added go with it; kongs entered by hand stay. The
    tiles are kept for the next "Enter tiles" of that seat."""
    for w in event.get("winners", []):
        forget_seat(draft, w["seat"])


def forget_seat(draft: dict[str, Any], seat: int) -> None:
    """One winner's tiles no longer read (see forget)."""
    read = (draft.get("reads") or {}).pop(str(seat), None)
    if read and read.get("state"):
        draft.setdefault("held", {})[str(seat)] = read["state"]
    if (draft.get("auto_kongs") or {}).get(str(seat)):
        _auto_kongs(draft, seat, 0)


# -- drawing --------------------------------------------------------------------------------------

def keys_view(draft: dict[str, Any], ctx: Any) -> Screen:
    keys = draft["keys"]
    use = KEY_USES[keys.get("use", "win")]
    return keys_screen(keys["state"], use.spec(draft, ctx), ctx.t, key_cb, use.title(draft, ctx))


def reading_lines(draft: dict[str, Any], ctx: Any) -> list[str]:
    """HTML: the reading taken of each winner's tiles, entered or pending (preview.reading_lines);
    the win's form says how to take another."""
    reads = draft.get("reads") or {}
    if not reads:
        return []
    shown = [w for e in [*draft["events"], draft.get("pending") or {}] if e.get("type") == "win"
             for w in e.get("winners", [])]
    return preview.reading_lines(ctx, shown, reads, hint=draft.get("step") == "form")


def winner_rows(draft: dict[str, Any], ctx: Any, cb: Any) -> list[list[Button]]:
    """The win form's rows for tiles: "Enter tiles" per winner, and each read winner's readings
    (the chosen one ticked, each with its value)."""
    t, reads = ctx.t, draft.get("reads") or {}
    winners = draft["pending"]["winners"]
    rows: list[list[Button]] = []
    for i, w in enumerate(winners):
        who = "" if len(winners) == 1 else " " + seat_label(t, w["seat"], ctx.names, html_out=False)
        read = reads.get(str(w["seat"]))
        rows.append([Button("🀄 " + (t("Correct the tiles") if read else t("Enter tiles")) + who,
                            cb("kt", i))])
        if read and len(read["readings"]) > 1:  # three a row: "✅ 1 · 120" fits a phone so
            keys = [Button(("✅ " if j == read["chosen"] else "") + f"{j + 1} · {r['value']}",
                           cb("kr", w["seat"], j)) for j, r in enumerate(read["readings"])]
            rows += [keys[k:k + 3] for k in range(0, len(keys), 3)]
    return rows
