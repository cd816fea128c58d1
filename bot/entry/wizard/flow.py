"""The hand-entry wizard: one message, edited in place, walking a draft (draft.py) to a hand record.

Pure: `press` applies one tap (a decoded button, bot/plumbing/callbacks.py) to the draft,
`screen` draws the draft. The handlers load and save drafts through the store, so a restart in
the middle of a hand loses nothing. Steps (draft.Step): main (who won, or what else happened) →
how (self-drawn, whose discard, whose kong) → form (features, sub-forms, tile picker; once the
hand is whole it shows the payments and Confirm) → back to main for what else happened … →
preview → confirm. A hand is confirmed only when it is whole: scoring says it has ended (a blood
battle after its third win or an exhausted wall). `STEPS` says which taps each step takes.
"""

from __future__ import annotations

from collections.abc import Callable
from enum import StrEnum
from typing import Any

from scoring import IncompleteHand, Outcome, ScoringError
from scoring.model import StrictModel
from scoring.variant import Variant

from ...plumbing.callbacks import Act, Buttons, Tap
from ...plumbing.messages import Button
from ...view.i18n import N_
from ...view.render import colon, esc, seat_label, wind
from .. import controls, preview
from ..controls import FormError, Kind, Spec
from ..ctx import Ctx
from ..hu.words import TILES, story_beside_tiles
from ..photo_tiles import photo_tiles
from ..record import extras, hand_state, missing, prune, seats_won, skipped
from ..screens import (
    BY_LABELS,
    Screen,
    form_rows,
    heading,
    heading_row,
    label,
    tile_label,
)
from . import reading, ready
from .draft import HandDraft, Step, new_draft

__all__ = ["Finish", "HandDraft", "Step", "new_draft", "photo_draft", "press", "screen"]

TILE_SUITS = (("m", N_("Characters")), ("p", N_("Dots")), ("s", N_("Bamboo")))


class Finish(StrEnum):
    """A tap that ends the wizard: the handler records the hand, or closes the entry."""

    CONFIRM = "confirm"
    CANCEL = "cancel"


def photo_draft(ctx: Ctx, events: list[dict[str, Any]], tiles: list[str],
                unsure: list[str] | None = None) -> HandDraft:
    """The wizard's draft for a photo's tiles: with the win named by the caption's words (at
    most one), the keyboard opens at once with the tiles; else the wizard asks who won first.
    The flowers read go in with them where the style plays flowers, else they are left out
    (bot/entry/photo_tiles.py)."""
    draft = new_draft()
    kept = photo_tiles(ctx.variant, list(tiles))
    draft.photo, draft.unsure = kept.tiles, list(unsure or [])  # unsure: the detector's doubts
    if not events:
        return draft
    event = events[0]
    indicator = None
    winners = []
    for w in event["winners"]:
        indicator = w.pop("_indicator", indicator)
        w.pop(TILES, None)
        if story_beside_tiles(ctx.variant, w):  # the photo's tiles: 海底捞月 is their flag
            event["after_kong"] = True
        extra = {k: v for k, v in w.items() if k != "seat"}
        if extra:
            draft.words[str(w["seat"])] = extra
        winners.append({**controls.blank(ctx.variant.Winner, seat=w["seat"]), **extra})
    pending = controls.blank(_model(ctx.variant, "win"), winners=winners)
    pending.update({k: v for k, v in event.items() if k not in ("type", "winners")})
    draft.pending, draft.step = pending, Step.FORM
    reading.open_photo(draft, ctx)
    if draft.keys is not None and indicator is not None:
        draft.keys.state.indicator = indicator
    return draft


# -- models of the variant ----------------------------------------------------------------------

def _event_types(v: Variant) -> list[str]:
    return controls.event_types(v.events)


def _model(v: Variant, type_name: str) -> type[StrictModel]:
    return controls.event_model(v.events, type_name)


def _pending(draft: HandDraft) -> dict[str, Any]:
    if draft.pending is None:
        raise FormError("nothing pending")
    return draft.pending


def _current(v: Variant, draft: HandDraft) -> tuple[type[StrictModel], dict[str, Any], Spec | None]:
    """The model and JSON object the form shows now, following the sub-form path
    (["ready", "2"] is seat 2's entry of the ready map; ["flipped"] the tile picker)."""
    pending = _pending(draft)
    model, obj, path, i = _model(v, pending["type"]), pending, draft.path, 0
    while i < len(path):
        spec = controls.spec_named(model, path[i])
        if spec.kind is Kind.TILE:
            return model, obj, spec
        if spec.kind is Kind.SEAT_MAP and spec.model is not None:
            obj, i = obj[spec.name][path[i + 1]], i + 2
        elif spec.kind is Kind.OBJECT and spec.model is not None:
            obj, i = obj.setdefault(spec.name, controls.blank(spec.model)), i + 1
        else:
            raise FormError(path[i])
        model = spec.model
    return model, obj, None


# -- pressing a button ------------------------------------------------------------------------

Handler = Callable[[HandDraft, Ctx, Tap], "Finish | None"]


def press(draft: HandDraft, ctx: Ctx, tap: Tap) -> Finish | None:
    """Apply one tap to the draft (in place). Returns a Finish when the wizard is done, else
    None. Raises FormError for a tap that does not fit the step (stale or forged)."""
    draft.error = None
    if tap.act is Act.CANCEL:
        return Finish.CANCEL
    handler = STEPS.get(draft.step, {}).get(tap.act)
    if handler is None:
        raise FormError(tap.act.name)
    return handler(draft, ctx, tap)


def _won(draft: HandDraft, ctx: Ctx, tap: Tap) -> None:
    """The winner (main screen); self-drawn straight to his features."""
    v, events, seat = ctx.variant, draft.events, tap.number("seat")
    if seat in seats_won(events) or not _may_win(ctx, events):
        raise FormError(str(seat))
    win = controls.blank(_model(v, "win"), winners=[controls.blank(v.Winner, seat=seat)])
    draft.pending, draft.step, draft.path = win, Step.HOW, []
    if tap.act is Act.SELF_DRAWN:
        _won_by(draft, ctx, "self_draw", None)


def _exhausted(draft: HandDraft, ctx: Ctx, tap: Tap) -> None:
    if "exhausted" not in _event_types(ctx.variant):
        raise FormError(tap.act.name)
    pending = controls.blank(_model(ctx.variant, "exhausted"))
    if "ready" in pending:
        won = seats_won(draft.events)
        pending["ready"] = {str(s): None for s in range(4) if s not in won}
    _open_form(draft, ctx, pending)


def _extra(draft: HandDraft, ctx: Ctx, tap: Tap) -> None:
    offered = extras(ctx)
    i = tap.number("type")
    if i >= len(offered):
        raise FormError(str(i))
    _open_form(draft, ctx, controls.blank(_model(ctx.variant, offered[i])))


def _open_form(draft: HandDraft, ctx: Ctx, pending: dict[str, Any]) -> None:
    """An event's form; one with nothing to fill in (a wall run out, where nobody's hand is
    checked) is added as soon as it is tapped, not through an empty form."""
    draft.pending, draft.step, draft.path = pending, Step.FORM, []
    if any(spec.name != "type" for spec in controls.fields_of(_model(ctx.variant, pending["type"]))):
        return
    _commit(draft, ctx)
    if draft.error:
        draft.pending, draft.step, draft.path = None, Step.MAIN, []
    elif hand_state(ctx, draft.events)[0] and not _after_end_offered(ctx):
        draft.step = Step.PREVIEW  # that ended the hand and nothing can follow: Confirm next


def _remove_last(draft: HandDraft, ctx: Ctx, tap: Tap) -> None:
    if not draft.events:
        raise FormError(tap.act.name)
    reading.forget(draft, draft.events.pop())


def _preview(draft: HandDraft, ctx: Ctx, tap: Tap) -> None:
    """The preview, once the hand is whole; else what it still lacks."""
    if not draft.events:
        draft.error = ctx.t("Nothing entered yet: add what happened first.")
        return
    ended, exc = hand_state(ctx, draft.events)
    if exc is not None:
        draft.error = ctx.explain(exc)
    elif not ended:
        draft.error = ctx.t("The hand is not over yet: add who won next, or “{exhausted}”.",
                            exhausted=heading(ctx, "exhausted"))
    else:
        draft.step = Step.PREVIEW


# -- how the winner won ---

def _how_back(draft: HandDraft, ctx: Ctx, tap: Tap) -> None:
    reading.forget(draft, _pending(draft))  # with the kongs its tiles added
    draft.pending, draft.step, draft.path = None, Step.MAIN, []


def _also_won(draft: HandDraft, ctx: Ctx, tap: Tap) -> None:
    """On a discard others may win too: one more winner, or one less."""
    pending, seat = _pending(draft), tap.number("seat")
    winners = [w["seat"] for w in pending["winners"]]
    if not ctx.variant.multi_winner or seat in seats_won(draft.events) or winners == [seat]:
        raise FormError(str(seat))  # one winner stays: Back starts over
    if seat in winners:
        pending["winners"] = [w for w in pending["winners"] if w["seat"] != seat]
        reading.forget_seat(draft, seat)
    else:
        new = controls.blank(ctx.variant.Winner, seat=seat)
        pending["winners"] = sorted([*pending["winners"], new], key=lambda w: w["seat"])


def _robbed_switch(draft: HandDraft, ctx: Ctx, tap: Tap) -> None:
    if not _robbed_mode(ctx):
        raise FormError(tap.act.name)
    pending = _pending(draft)
    pending["by"] = None if pending.get("by") == "robbed_kong" else "robbed_kong"


_HOW_BY = {Act.SELF_DRAW: "self_draw", Act.DISCARD: "discard", Act.ROBBED: "robbed_kong"}


def _how(draft: HandDraft, ctx: Ctx, tap: Tap) -> None:
    """Self-drawn, off a seat's discard, or off a seat's kong."""
    frm = tap.get("seat")
    assert frm is None or isinstance(frm, int)
    _won_by(draft, ctx, _HOW_BY[tap.act], frm)


def _won_by(draft: HandDraft, ctx: Ctx, by: str, frm: int | None) -> None:
    pending = _pending(draft)
    if (by, frm) not in _ways(ctx, draft):
        raise FormError(f"{by}:{frm}")
    pending.update({"by": by, "from": frm})
    if "after_kong" in pending and "after_kong" in skipped(pending, ctx, draft.events):
        pending["after_kong"] = False
    draft.step = Step.FORM
    reading.open_photo(draft, ctx)  # a photo's tiles: straight to the keyboard
    reading.reread(draft, ctx)  # tiles read under another way of winning


def _ways(ctx: Ctx, draft: HandDraft) -> list[tuple[str, int | None]]:
    """How the pending winners may have won: (by, from). A self-draw for one winner; a discard
    off any seat still in; a robbed kong off the seat whose kong, marked robbed, was the last
    thing that happened (where kongs are entered; elsewhere off any seat)."""
    events, pending = draft.events, _pending(draft)
    winners = {w["seat"] for w in pending["winners"]}
    others = [s for s in range(4) if s not in winners and s not in seats_won(events)]
    allowed = _win_types(ctx)
    if _robbed_mode(ctx) and pending.get("by") == "robbed_kong":
        return [("robbed_kong", s) for s in others]
    ways: list[tuple[str, int | None]] = []
    if "self_draw" in allowed and len(winners) == 1:
        ways.append(("self_draw", None))
    if "discard" in allowed:
        ways += [("discard", s) for s in others]
    if "robbed_kong" in allowed and not _robbed_mode(ctx):
        last = events[-1] if events else {}
        robbed = [last["seat"]] if last.get("type") == "kong" and last.get("robbed") else []
        ways += [("robbed_kong", s) for s in robbed if s in others]
    return ways


def _robbed_mode(ctx: Ctx) -> bool:
    """Where kongs are not entered, a robbed-kong win is a switch on the how screen (its seat
    buttons then name whose kong); elsewhere the robbed kong entered just before names it."""
    return "robbed_kong" in _win_types(ctx) and "kong" not in _event_types(ctx.variant)


# -- the form ---

# A form's controls (entry/controls.py `apply`, by its letters), and the field each acts on.
_CONTROLS = {Act.TOGGLE: "t", Act.CHOOSE: "c", Act.COUNT: "i", Act.SEAT_FIELD: "s",
             Act.SEATS_FIELD: "m", Act.MAP_COUNT: "k", Act.MAP_ENTRY: "n", Act.MAP_FIRST: "f"}


def _control(draft: HandDraft, ctx: Ctx, tap: Tap) -> None:
    model, obj, _ = _current(ctx.variant, draft)
    ref, *rest = tap.args
    arg = ("-" if rest[0] is None else str(rest[0])) if rest else ""  # as controls.apply reads it
    controls.apply(model, obj, _CONTROLS[tap.act], str(ref), arg)
    pending = _pending(draft)
    if not draft.path and "from" in skipped(pending) and pending["type"] != "win":
        pending["from"] = None  # a kong that is no longer exposed has no discarder


def _top_of_win(draft: HandDraft) -> None:
    """Tiles are entered from the top of a win's form only."""
    if draft.path or _pending(draft)["type"] != "win":
        raise FormError("not the win's form")


def _enter_tiles(draft: HandDraft, ctx: Ctx, tap: Tap) -> None:
    _top_of_win(draft)
    if ctx.variant.tiles is None:
        raise FormError("this style takes no tiles")
    reading.open_keys(draft, ctx, tap.number("winner"))  # the tile keyboard (entry/keyboard.py)


def _reading(draft: HandDraft, ctx: Ctx, tap: Tap) -> None:
    if draft.path:
        raise FormError(tap.act.name)
    reading.choose_reading(draft, ctx, tap.number("seat"), tap.number("reading"))


def _ready_tiles(draft: HandDraft, ctx: Ctx, tap: Tap) -> None:
    ready.open_keys(draft, ctx, tap.number("seat"))  # a seat's tiles at the exhausted wall (查叫)


def _open(draft: HandDraft, ctx: Ctx, tap: Tap) -> None:
    """A field's sub-form (a nested object, a seat's entry of a map) or its tile picker; from
    the top level of a form only."""
    ref = tap.text("ref")
    if "." in ref:
        raise FormError(ref)
    model, obj, _ = _current(ctx.variant, draft)
    spec, _ = controls.resolve(model, obj, ref)
    if tap.act is Act.OPEN_ENTRY:
        seat = str(tap.number("seat"))
        if spec.kind is not Kind.SEAT_MAP or spec.model is None \
                or (obj.get(spec.name) or {}).get(seat) is None:
            raise FormError(seat)
        draft.path += [spec.name, seat]
    elif spec.kind is Kind.OBJECT and spec.model is not None:
        obj.setdefault(spec.name, controls.blank(spec.model))
        draft.path.append(spec.name)
    elif spec.kind is Kind.TILE:
        draft.path.append(spec.name)
        draft.step = Step.TILE
    else:
        raise FormError(ref)


def _done(draft: HandDraft, ctx: Ctx, tap: Tap) -> None:
    """Done on a sub-form closes it; Add on an event's form enters the event."""
    if draft.path:
        _pop(draft)
    else:
        _commit(draft, ctx)


def _confirm_form(draft: HandDraft, ctx: Ctx, tap: Tap) -> Finish | None:
    """Confirm straight from the form of the event that ends the hand."""
    if draft.path:
        raise FormError(tap.act.name)
    _commit(draft, ctx)
    if draft.error is None:
        ended, exc = hand_state(ctx, draft.events)
        if ended:
            return Finish.CONFIRM
        draft.error = ctx.explain(exc) if exc else None
    return None


def _form_back(draft: HandDraft, ctx: Ctx, tap: Tap) -> None:
    if draft.path:
        _pop(draft)
    elif _pending(draft)["type"] == "win":
        draft.step = Step.HOW
    else:
        draft.pending, draft.step = None, Step.MAIN


def _flipped(draft: HandDraft, ctx: Ctx, tap: Tap) -> None:
    """The tile picker's tile (or none: the wall was empty)."""
    _, obj, tile = _current(ctx.variant, draft)
    if tile is None:
        raise FormError(tap.act.name)
    obj[tile.name] = tap.get("tile")
    _close_picker(draft, ctx, tap)


def _close_picker(draft: HandDraft, ctx: Ctx, tap: Tap) -> None:
    draft.path.pop()
    draft.step = Step.FORM


def _confirm(draft: HandDraft, ctx: Ctx, tap: Tap) -> Finish:
    return Finish.CONFIRM


def _preview_back(draft: HandDraft, ctx: Ctx, tap: Tap) -> None:
    draft.step = Step.MAIN


def _pop(draft: HandDraft) -> None:
    path = draft.path
    if path and path[-1].isdigit():  # a map entry: [name, seat] leave together
        path.pop()
    if path:
        path.pop()


def _commit(draft: HandDraft, ctx: Ctx) -> None:
    pending = _pending(draft)
    field = missing(ctx, pending, draft.events)
    if field is not None:  # named as on screen, so the refusal says what to tap
        draft.error = ctx.t("Choose “{field}” first.", field=label(ctx, field, pending["type"]))
        return
    events = [*draft.events, prune(_model(ctx.variant, pending["type"]), pending)]
    try:
        ctx.score(events)
    except IncompleteHand:
        pass  # more is to come: the preview insists on a finished hand
    except ScoringError as exc:
        draft.error = ctx.explain(exc)
        return
    draft.events, draft.pending, draft.step, draft.path = events, None, Step.MAIN, []


def _may_win(ctx: Ctx, events: list[dict[str, Any]]) -> bool:
    """Someone can still win: the hand has not ended (nor been refused)."""
    if not events:
        return True
    ended, exc = hand_state(ctx, events)
    return not ended and exc is None and not any(e.get("type") == "exhausted" for e in events)


def _win_types(ctx: Ctx) -> tuple[str, ...]:
    v = ctx.variant
    return v.win_types(v.Rules.model_validate(ctx.base.get("rules") or {}))


def _after_end_offered(ctx: Ctx) -> bool:
    """Accounting that may follow the hand's end is on offer here (ready, chickens, 精 …)."""
    return any(name in ctx.variant.after_end for name in extras(ctx))


# Which taps each step takes, and what they do (Cancel: every step). The tile keyboard's keys
# (step keys) are handled by reading.key_press.
STEPS: dict[Step, dict[Act, Handler]] = {
    Step.MAIN: {Act.WINNER: _won, Act.SELF_DRAWN: _won, Act.EXHAUSTED: _exhausted,
                Act.EXTRA: _extra, Act.REMOVE_LAST: _remove_last, Act.PREVIEW: _preview},
    Step.HOW: {Act.SELF_DRAW: _how, Act.DISCARD: _how, Act.ROBBED: _how,
               Act.ALSO_WON: _also_won, Act.ROBBED_SWITCH: _robbed_switch, Act.BACK: _how_back},
    Step.FORM: {**dict.fromkeys(_CONTROLS, _control), Act.OPEN: _open, Act.OPEN_ENTRY: _open,
                Act.ENTER_TILES: _enter_tiles, Act.READING: _reading,
                Act.READY_TILES: _ready_tiles, Act.DONE: _done, Act.CONFIRM: _confirm_form,
                Act.BACK: _form_back},
    Step.TILE: {Act.FLIPPED: _flipped, Act.BACK: _close_picker},
    Step.PREVIEW: {Act.CONFIRM: _confirm, Act.BACK: _preview_back},
}


# -- drawing the screen -----------------------------------------------------------------------

def buttons(draft: HandDraft) -> Buttons:
    """The data of the entry's buttons: under its number and screen version."""
    return Buttons((draft.entry or 0, draft.rev))


def keys(draft: HandDraft) -> Buttons:
    """The data of its tile keyboard's keys: under its number (a key is the tile meant on any
    screen of the keyboard)."""
    return Buttons((draft.entry or 0,))


def _seat_button(ctx: Ctx, seat: int) -> str:
    return seat_label(ctx.t, seat, ctx.names, html_out=False)


def _ok(text: str, data: str) -> Button:
    return Button("✔ " + text, data, "success")


def _cancel(ctx: Ctx, cb: Buttons) -> Button:
    return Button("✖ " + ctx.t("Cancel"), cb(Act.CANCEL), "danger")


def screen(draft: HandDraft, ctx: Ctx) -> Screen:
    """The draft's screen, its buttons numbered with its entry and `draft.rev`."""
    cb = buttons(draft)
    if draft.step is Step.KEYS:
        s = reading.keys_view(draft, ctx, keys(draft))
    else:
        s = _DRAWN[draft.step](draft, ctx, cb)
    if draft.error:
        s.text += "\n\n⚠️ " + esc(draft.error)
    return s


def _header(draft: HandDraft, ctx: Ctx) -> str:
    # with the reading of the tiles taken
    return preview.header(ctx, draft.events, reading.reading_lines(draft, ctx))


def _seat_rows(buttons: list[Button]) -> list[list[Button]]:
    return [buttons[i:i + 2] for i in range(0, len(buttons), 2)]


def _main_screen(draft: HandDraft, ctx: Ctx, cb: Buttons) -> Screen:
    t, v, events = ctx.t, ctx.variant, draft.events
    ended, _ = hand_state(ctx, events) if events else (False, None)
    may_win = _may_win(ctx, events)
    if not events:
        ask = t("Who won? Tap the winner's name, or Self-draw beside it. Anything before the "
                "win (a kong) first.")
    elif may_win and v.blood_battle:
        ask = t("The hand goes on: who won next? Or tap “{exhausted}” if the wall ran out.",
                exhausted=heading(ctx, "exhausted"))
    elif ended:
        ask = t("Anything else to add? Else preview the hand.")
    else:
        ask = t("What happened next?")
    text = _header(draft, ctx) + "\n\n" + esc(ask)
    rows: list[list[Button]] = []
    if may_win and "win" in _event_types(v):
        won = seats_won(events)
        self_draw = "self_draw" in _win_types(ctx)
        for s in range(4):
            if s in won:
                continue
            row = [Button(_seat_button(ctx, s), cb(Act.WINNER, s))]
            if self_draw:  # a self-drawn win in one tap
                row.append(Button(t("Self-draw"), cb(Act.SELF_DRAWN, s)))
            rows.append(row)
    extra_row = []
    if "exhausted" in _event_types(v) and not ended and not any(
            e.get("type") == "exhausted" for e in events):
        extra_row.append(Button(heading(ctx, "exhausted"), cb(Act.EXHAUSTED)))
    for i, name in enumerate(extras(ctx)):
        if not ended or name in ctx.variant.after_end:
            extra_row.append(Button(heading(ctx, name), cb(Act.EXTRA, i)))
    for i in range(0, len(extra_row), 3):
        rows.append(extra_row[i:i + 3])
    last = []
    if events:
        last.append(Button("↩ " + t("Remove last"), cb(Act.REMOVE_LAST)))
    if ended:
        last.append(Button("▶ " + t("Preview"), cb(Act.PREVIEW), "primary"))
    last.append(_cancel(ctx, cb))
    rows.append(last)
    return Screen(text, rows)


def _how_screen(draft: HandDraft, ctx: Ctx, cb: Buttons) -> Screen:
    t, pending, events = ctx.t, _pending(draft), draft.events
    winners = [w["seat"] for w in pending["winners"]]
    who = "、".join if ctx.lang.startswith("zh") else ", ".join
    names = who(seat_label(t, s, ctx.names) for s in winners)
    text = (_header(draft, ctx) + "\n\n" + f"<b>{names}</b> " + esc(t("won — how?")))
    rows: list[list[Button]] = []
    ways = _ways(ctx, draft)
    if ("self_draw", None) in ways:
        rows.append([Button(t("Self-draw"), cb(Act.SELF_DRAW))])
    discards = [Button(t("← {seat} (discard)", seat=_seat_button(ctx, s)), cb(Act.DISCARD, s))
                for by, s in ways if by == "discard" and s is not None]
    robbed = [Button(t("← {seat} (robbed kong)", seat=_seat_button(ctx, s)), cb(Act.ROBBED, s))
              for by, s in ways if by == "robbed_kong" and s is not None]
    rows += _seat_rows(discards) + _seat_rows(robbed)
    if _robbed_mode(ctx):
        on = pending.get("by") == "robbed_kong"
        rows.append([Button(("✅ " if on else "▫️ ") + t("Robbed kong"), cb(Act.ROBBED_SWITCH))])
    if ctx.variant.multi_winner and (discards or robbed):
        more = [s for s in range(4) if s not in seats_won(events)]
        if len(more) > 2:  # someone must be left to have discarded
            text += "\n" + esc(t("Several won on one discard? Tick the others too, then tap "
                                  "the discarder."))
            rows.append([Button(("✅ " if s in winners else "▫️ ") + "＋" + wind(t, s),
                                cb(Act.ALSO_WON, s)) for s in more])
    rows.append([Button("◀ " + t("Back"), cb(Act.BACK)), _cancel(ctx, cb)])
    return Screen(text, rows)


def _tile_screen(draft: HandDraft, ctx: Ctx, cb: Buttons) -> Screen:
    t = ctx.t
    rows = []
    for suit, name in TILE_SUITS:  # two rows a suit, each tile named in full: "5p", not "5"
        tiles = [Button(tile_label(ctx, f"{r}{suit}"), cb(Act.FLIPPED, f"{r}{suit}"))
                 for r in range(1, 10)]
        rows += [[heading_row(t(name), cb), *tiles[:4]], tiles[4:]]
    rows.append([Button("— " + t("None (wall empty)"), cb(Act.FLIPPED, None)),
                 Button("◀ " + t("Back"), cb(Act.BACK))])
    text = _header(draft, ctx) + "\n\n" + esc(t("Which tile was flipped?"))
    return Screen(text, rows)


def _form_screen(draft: HandDraft, ctx: Ctx, cb: Buttons) -> Screen:
    t, v = ctx.t, ctx.variant
    model, obj, _ = _current(v, draft)
    pending, path = _pending(draft), draft.path
    whole = None if path else _whole_with(ctx, draft)
    hint = esc(t("Tap what applies; the payments below follow.") if whole
               else t("Tap to change; Done when it is right."))
    text = _header(draft, ctx) + "\n\n<b>" + esc(_form_title(ctx, draft)) + "</b>\n" + hint
    text += "".join("\n" + line for line in ready.lines(draft, ctx))  # 查叫 by tiles
    if whole is not None:
        text += "\n\n" + "\n".join(preview.outcome_block(ctx, whole, [*draft.events, pending]))
    skip = skipped(pending, ctx, draft.events) if not path else {"type"}
    # ready maps and lists are about the seats still in: those that won are left out
    hidden = seats_won(draft.events) if pending["type"] in ("exhausted", "ready") else set()
    rows = form_rows(ctx, model, obj, cb, skip=skip, hidden=hidden, by=pending.get("by"),
                     event=pending["type"])
    if pending["type"] == "win" and not path:
        rows = reading.winner_rows(draft, ctx, cb) + rows
    rows += ready.rows(draft, ctx, cb)  # 查叫 by tiles: a seat's 13 tiles
    nav = [Button("◀ " + t("Back"), cb(Act.BACK))]
    if whole is not None:
        nav.append(_ok(t("Confirm"), cb(Act.CONFIRM)))
        if _after_end_offered(ctx):
            nav.append(Button("＋ " + t("More"), cb(Act.DONE)))
    else:
        nav.append(Button("✔ " + (t("Done") if path else t("Add")), cb(Act.DONE), "primary"))
    nav.append(_cancel(ctx, cb))
    rows.append(nav)
    return Screen(text, rows)


def _form_title(ctx: Ctx, draft: HandDraft) -> str:
    """The win's title (how, who), or the event's heading and the sub-form open: a map entry
    is named by its seat alone ("Chickens · East Alice")."""
    pending, path, t = _pending(draft), draft.path, ctx.t
    if pending["type"] == "win" and not path:
        return _win_title(ctx, pending)
    parts = [seat_label(t, int(p), ctx.names, html_out=False) if p.isdigit()
             else label(ctx, p, pending["type"])
             for i, p in enumerate(path) if not (i + 1 < len(path) and path[i + 1].isdigit())]
    return " · ".join([heading(ctx, pending["type"]), *parts])


def _whole_with(ctx: Ctx, draft: HandDraft) -> Outcome | None:
    """The outcome of the hand with the pending event added, if that makes it whole."""
    pending = _pending(draft)
    events = [*draft.events, prune(_model(ctx.variant, pending["type"]), pending)]
    ended, _ = hand_state(ctx, events)
    return ctx.score(events) if ended else None


def _win_title(ctx: Ctx, pending: dict[str, Any]) -> str:
    t = ctx.t
    who = ", ".join(_seat_button(ctx, w["seat"]) for w in pending["winners"])
    title = f"{t(BY_LABELS[pending['by']])}{colon(t)}{who}"
    if pending.get("from") is not None:
        title += " ← " + _seat_button(ctx, pending["from"])
    return title


def _preview_screen(draft: HandDraft, ctx: Ctx, cb: Buttons) -> Screen:
    t = ctx.t
    rows = [[Button("◀ " + t("Back"), cb(Act.BACK)), _ok(t("Confirm"), cb(Act.CONFIRM)),
             _cancel(ctx, cb)]]
    reads = {seat: read.model_dump() for seat, read in draft.reads.items()}
    return Screen(preview.text(ctx, draft.events, reads), rows)


_DRAWN: dict[Step, Callable[[HandDraft, Ctx, Buttons], Screen]] = {
    Step.MAIN: _main_screen, Step.HOW: _how_screen, Step.FORM: _form_screen,
    Step.TILE: _tile_screen, Step.PREVIEW: _preview_screen}
