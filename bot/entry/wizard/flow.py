"""The hand-entry wizard: one message, edited in place, walking a JSON draft to a hand record.

Pure: `press` applies one button to the draft, `screen` draws the draft. The handlers load and
save drafts through the store, so a restart in the middle of a hand loses nothing.
Steps: main (who won, or what else happened) → how (self-drawn, whose discard, whose kong)
→ form (features, sub-forms, tile picker; once the hand is whole it shows the payments and
Confirm) → back to main for what else happened … → preview → confirm. A hand is confirmed
only when it is whole: scoring says it has ended (a blood battle after its third win or an
exhausted wall).
"""

from __future__ import annotations

from typing import Any

from scoring import IncompleteHand, ScoringError
from scoring.model import StrictModel
from scoring.variant import Variant

from ...plumbing.messages import Button
from ...view.i18n import N_
from ...view.render import colon, esc, seat_label, wind
from .. import controls, preview
from ..controls import FormError, Kind, Spec
from ..ctx import Ctx
from ..hu.words import TILES
from ..record import extras, hand_state, missing, prune, seats_won, skipped
from ..screens import (
    BY_LABELS,
    Screen,
    form_rows,
    heading,
    heading_row,
    is_tile,
    label,
    tile_label,
)
from . import reading, ready

TILE_SUITS = (("m", N_("Characters")), ("p", N_("Dots")), ("s", N_("Bamboo")))


def _ok(text: str, data: str) -> Button:
    return Button("✔ " + text, data, "success")


def _cancel(ctx: Ctx, cb: _Callbacks) -> Button:
    return Button("✖ " + ctx.t("Cancel"), cb("q"), "danger")


def new_draft(events: list[dict[str, Any]] | None = None, step: str = "main") -> dict[str, Any]:
    return {"step": step, "events": list(events or []), "pending": None, "path": [],
            "error": None}


def photo_draft(ctx: Any, events: list[dict[str, Any]], tiles: list[str],
                unsure: list[str] | None = None) -> dict[str, Any]:
    """The wizard's draft for a photo's tiles: with the win named by the caption's words (at
    most one), the keyboard opens at once with the tiles; else the wizard asks who won first."""
    draft = new_draft()
    draft["photo"] = list(tiles)
    draft["unsure"] = list(unsure or [])  # tiles the detector was not sure of
    if not events:
        return draft
    event = events[0]
    indicator = None
    winners, words = [], {}
    for w in event["winners"]:
        indicator = w.pop("_indicator", indicator)
        w.pop(TILES, None)
        extra = {k: v for k, v in w.items() if k != "seat"}
        if extra:
            words[str(w["seat"])] = extra
        winners.append({**controls.blank(ctx.variant.Winner, seat=w["seat"]), **extra})
    pending = controls.blank(controls.event_model(ctx.variant.events, "win"), winners=winners)
    pending.update({k: v for k, v in event.items() if k not in ("type", "winners")})
    draft.update(pending=pending, step="form", words=words)
    reading.open_photo(draft, ctx)
    if draft["step"] == "keys" and indicator is not None:
        draft["keys"]["state"]["indicator"] = indicator
    return draft


def _upgrade(draft: dict[str, Any]) -> None:
    """A draft saved by the earlier flow (winners, then from) picks up at "how"."""
    if draft["step"] in ("winners", "from"):
        draft["step"] = "how"


# -- models of the variant ----------------------------------------------------------------------

def _event_types(v: Variant) -> list[str]:
    return controls.event_types(v.events)


def _model(v: Variant, type_name: str) -> type[StrictModel]:
    return controls.event_model(v.events, type_name)


def _current(v: Variant, draft: dict[str, Any]) -> tuple[type[StrictModel], dict[str, Any], Spec | None]:
    """The model and JSON object the form shows now, following the sub-form path
    (["ready", "2"] is seat 2's entry of the ready map; ["flipped"] the tile picker)."""
    model = _model(v, draft["pending"]["type"])
    obj, path, i = draft["pending"], draft["path"], 0
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

def press(draft: dict[str, Any], ctx: Ctx, op: str, a: str = "", b: str = "") -> str | None:
    """Apply one button to the draft (in place). Returns "confirm" or "cancel" when the
    wizard is finished, else None. Raises FormError for a button that does not fit."""
    draft["error"] = None
    _upgrade(draft)
    step = draft["step"]
    if op == "q":
        return "cancel"
    if step == "main":
        return _press_main(draft, ctx, op, a)
    if step == "how":
        _press_how(draft, ctx, op, a)
        reading.open_photo(draft, ctx)  # a photo's tiles: straight to the keyboard
        reading.reread(draft, ctx)  # tiles read under another way of winning
    elif step in ("form", "tile"):
        return _press_form(draft, ctx, op, a, b)
    elif step == "preview":
        if op == "ok":
            return "confirm"
        if op != "b":
            raise FormError(op)
        draft["step"] = "main"
    else:
        raise FormError(step)
    return None


def _press_main(draft: dict[str, Any], ctx: Ctx, op: str, a: str) -> str | None:
    v, events = ctx.variant, draft["events"]
    if op in ("wh", "wz"):  # the winner; wz: self-drawn, straight to his features
        seat = controls._seat(a)
        if seat in seats_won(events) or not _may_win(ctx, events):
            raise FormError(a)
        win = controls.blank(_model(v, "win"), winners=[controls.blank(v.Winner, seat=seat)])
        draft.update(pending=win, step="how", path=[])
        if op == "wz":
            _press_how(draft, ctx, "hs", "")
            reading.open_photo(draft, ctx)
    elif op == "x" and "exhausted" in _event_types(v):
        pending = controls.blank(_model(v, "exhausted"))
        if "ready" in pending:
            won = seats_won(events)
            pending["ready"] = {str(s): None for s in range(4) if s not in won}
        draft.update(pending=pending, step="form", path=[])
        _at_once(draft, ctx)
    elif op == "e":
        offered = extras(ctx)
        if not a.isdigit() or int(a) >= len(offered):
            raise FormError(a)
        type_name = offered[int(a)]
        draft.update(pending=controls.blank(_model(v, type_name)), step="form", path=[])
        _at_once(draft, ctx)
    elif op == "u" and events:
        reading.forget(draft, events.pop())
    elif op == "p":
        if not events:
            draft["error"] = ctx.t("Nothing entered yet: add what happened first.")
            return None
        ended, exc = hand_state(ctx, events)
        if exc is not None:
            draft["error"] = ctx.explain(exc)
            return None
        if not ended:
            draft["error"] = ctx.t("The hand is not over yet: add who won next, or “{exhausted}”.",
                                   exhausted=heading(ctx, "exhausted"))
            return None
        draft["step"] = "preview"
    else:
        raise FormError(op)
    return None


def _at_once(draft: dict[str, Any], ctx: Ctx) -> None:
    """An event with nothing to fill in (a wall run out, where nobody's hand is checked) is
    added as soon as it is tapped, not through an empty form."""
    model = _model(ctx.variant, draft["pending"]["type"])
    if any(spec.name != "type" for spec in controls.fields_of(model)):
        return
    _commit(draft, ctx)
    if draft["error"]:
        draft.update(pending=None, step="main", path=[])
    elif hand_state(ctx, draft["events"])[0] and not _after_end_offered(ctx):
        draft["step"] = "preview"  # that ended the hand and nothing can follow: Confirm next


def _press_how(draft: dict[str, Any], ctx: Ctx, op: str, a: str) -> None:
    """How the chosen winner won: self-drawn (hs), off a seat's discard (hd) or kong (hr); on
    a discard others may win too (ha toggles one more winner)."""
    pending, events = draft["pending"], draft["events"]
    winners = [w["seat"] for w in pending["winners"]]
    if op == "b":
        reading.forget(draft, pending)  # with the kongs its tiles added
        draft.update(pending=None, step="main", path=[])
        return
    if op == "ha" and ctx.variant.multi_winner:
        seat = controls._seat(a)
        if seat in seats_won(events) or winners == [seat]:
            raise FormError(a)  # one winner stays: Back starts over
        if seat in winners:
            pending["winners"] = [w for w in pending["winners"] if w["seat"] != seat]
            reading.forget_seat(draft, seat)
        else:
            new = controls.blank(ctx.variant.Winner, seat=seat)
            pending["winners"] = sorted([*pending["winners"], new], key=lambda w: w["seat"])
        return
    if op == "hk" and _robbed_mode(ctx):
        pending["by"] = None if pending.get("by") == "robbed_kong" else "robbed_kong"
        return
    ways = _ways(ctx, draft)
    if op == "hs" and ("self_draw", None) in ways:
        pending.update({"by": "self_draw", "from": None})
    elif op in ("hd", "hr") and a.isdigit():
        by = "discard" if op == "hd" else "robbed_kong"
        if (by, int(a)) not in ways:
            raise FormError(a)
        pending.update({"by": by, "from": int(a)})
    else:
        raise FormError(op)
    if "after_kong" in pending and "after_kong" in skipped(pending, ctx, events):
        pending["after_kong"] = False
    draft["step"] = "form"


def _ways(ctx: Ctx, draft: dict[str, Any]) -> list[tuple[str, int | None]]:
    """How the pending winners may have won: (by, from). A self-draw for one winner; a discard
    off any seat still in; a robbed kong off the seat whose kong, marked robbed, was the last
    thing that happened (where kongs are entered; elsewhere off any seat)."""
    events, pending = draft["events"], draft["pending"]
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


def _press_form(draft: dict[str, Any], ctx: Ctx, op: str, a: str, b: str) -> str | None:
    v = ctx.variant
    model, obj, tile = _current(v, draft)
    if draft["step"] == "tile" and tile is not None:
        if op == "v":
            if b != "-" and not is_tile(b):
                raise FormError(b)
            obj[tile.name] = None if b == "-" else b
            draft["path"].pop()
            draft["step"] = "form"
        elif op == "b":
            draft["path"].pop()
            draft["step"] = "form"
        else:
            raise FormError(op)
        return None
    if op in ("t", "c", "i", "s", "m", "k", "n", "f"):
        controls.apply(model, obj, op, a, b)
        pending = draft["pending"]
        if not draft["path"] and "from" in skipped(pending) and pending["type"] != "win":
            pending["from"] = None  # a kong that is no longer exposed has no discarder
    elif op == "kt" and a.isdigit() and not draft["path"] and draft["pending"]["type"] == "win":
        reading.open_keys(draft, ctx, int(a))  # the tile keyboard (bot/entry/keyboard.py)
    elif op == "kr" and not draft["path"]:
        reading.choose_reading(draft, ctx, a, b)
    elif op == "rt":
        ready.open_keys(draft, ctx, a)  # a seat's tiles at the exhausted wall (查叫)
    elif op == "o":
        if "." in a:  # sub-forms open from the top level of a form only
            raise FormError(a)
        spec, _ = controls.resolve(model, obj, a)
        if spec.kind is Kind.SEAT_MAP and spec.model is not None:
            entry = (obj.get(spec.name) or {}).get(str(controls._seat(b)))
            if entry is None:
                raise FormError(b)
            draft["path"] += [spec.name, str(int(b))]
        elif spec.kind is Kind.OBJECT:
            obj.setdefault(spec.name, controls.blank(spec.model))  # type: ignore[arg-type]
            draft["path"].append(spec.name)
        elif spec.kind is Kind.TILE:
            draft["path"].append(spec.name)
            draft["step"] = "tile"
        else:
            raise FormError(a)
    elif op == "d":
        if draft["path"]:
            _pop(draft)
            return None
        _commit(draft, ctx)
    elif op == "ok" and not draft["path"]:
        # Confirm straight from the form of the event that ends the hand
        _commit(draft, ctx)
        if draft["error"] is None:
            ended, exc = hand_state(ctx, draft["events"])
            if ended:
                return "confirm"
            draft["error"] = ctx.explain(exc) if exc else None
    elif op == "b":
        if draft["path"]:
            _pop(draft)
        elif draft["pending"]["type"] == "win":
            draft["step"] = "how"
        else:
            draft.update(pending=None, step="main")
    else:
        raise FormError(op)
    return None


def _pop(draft: dict[str, Any]) -> None:
    path = draft["path"]
    if path and path[-1].isdigit():  # a map entry: [name, seat] leave together
        path.pop()
    if path:
        path.pop()


def _commit(draft: dict[str, Any], ctx: Ctx) -> None:
    pending = draft["pending"]
    field = missing(ctx, pending, draft["events"])
    if field is not None:  # named as on screen, so the refusal says what to tap
        draft["error"] = ctx.t("Choose “{field}” first.", field=label(ctx, field, pending["type"]))
        return
    event = prune(_model(ctx.variant, pending["type"]), pending)
    events = [*draft["events"], event]
    try:
        ctx.score(events)
    except IncompleteHand:
        pass  # more is to come: the preview insists on a finished hand
    except ScoringError as exc:
        draft["error"] = ctx.explain(exc)
        return
    draft.update(events=events, pending=None, step="main", path=[])


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


# -- drawing the screen -----------------------------------------------------------------------

def _seat_button(ctx: Ctx, seat: int) -> str:
    return seat_label(ctx.t, seat, ctx.names, html_out=False)


def screen(draft: dict[str, Any], ctx: Ctx, version: int) -> Screen:
    _upgrade(draft)
    step = draft["step"]
    cb = _Callbacks(version)
    if step == "main":
        s = _main_screen(draft, ctx, cb)
    elif step == "how":
        s = _how_screen(draft, ctx, cb)
    elif step == "tile":
        s = _tile_screen(draft, ctx, cb)
    elif step == "preview":
        s = _preview_screen(draft, ctx, cb)
    elif step == "keys":
        s = (ready.keys_view if ready.is_ready_keys(draft)
             else reading.keys_view)(draft, ctx)
    else:
        s = _form_screen(draft, ctx, cb)
    if draft.get("error"):
        s.text += "\n\n⚠️ " + esc(draft["error"])
    return s


class _Callbacks:
    def __init__(self, version: int) -> None:
        self.version = version

    def __call__(self, op: str, a: object = "", b: object = "") -> str:
        data = f"h:{self.version}:{op}"
        if a != "" or b != "":
            data += f":{a}"
        if b != "":
            data += f":{b}"
        return data


def _header(draft: dict[str, Any], ctx: Ctx) -> str:
    # with the reading of the tiles taken
    return preview.header(ctx, draft["events"], reading.reading_lines(draft, ctx))


def _seat_rows(buttons: list[Button]) -> list[list[Button]]:
    return [buttons[i:i + 2] for i in range(0, len(buttons), 2)]


def _main_screen(draft: dict[str, Any], ctx: Ctx, cb: _Callbacks) -> Screen:
    t, v, events = ctx.t, ctx.variant, draft["events"]
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
            row = [Button(_seat_button(ctx, s), cb("wh", s))]
            if self_draw:  # a self-drawn win in one tap
                row.append(Button(t("Self-draw"), cb("wz", s)))
            rows.append(row)
    extra_row = []
    if "exhausted" in _event_types(v) and not ended and not any(
            e.get("type") == "exhausted" for e in events):
        extra_row.append(Button(heading(ctx, "exhausted"), cb("x")))
    for i, name in enumerate(extras(ctx)):
        if not ended or name in ctx.variant.after_end:
            extra_row.append(Button(heading(ctx, name), cb("e", i)))
    for i in range(0, len(extra_row), 3):
        rows.append(extra_row[i:i + 3])
    last = []
    if events:
        last.append(Button("↩ " + t("Remove last"), cb("u")))
    if ended:
        last.append(Button("▶ " + t("Preview"), cb("p"), "primary"))
    last.append(_cancel(ctx, cb))
    rows.append(last)
    return Screen(text, rows)


def _how_screen(draft: dict[str, Any], ctx: Ctx, cb: _Callbacks) -> Screen:
    t, pending, events = ctx.t, draft["pending"], draft["events"]
    winners = [w["seat"] for w in pending["winners"]]
    who = "、".join if ctx.lang.startswith("zh") else ", ".join
    names = who(seat_label(t, s, ctx.names) for s in winners)
    text = (_header(draft, ctx) + "\n\n" + f"<b>{names}</b> " + esc(t("won — how?")))
    rows: list[list[Button]] = []
    ways = _ways(ctx, draft)
    if ("self_draw", None) in ways:
        rows.append([Button(t("Self-draw"), cb("hs"))])
    discards = [Button(t("← {seat} (discard)", seat=seat_label(t, s, ctx.names, html_out=False)),
                       cb("hd", s)) for by, s in ways if by == "discard"]
    robbed = [Button(t("← {seat} (robbed kong)", seat=seat_label(t, s, ctx.names, html_out=False)),
                     cb("hr", s)) for by, s in ways if by == "robbed_kong"]
    rows += _seat_rows(discards) + _seat_rows(robbed)
    if _robbed_mode(ctx):
        on = pending.get("by") == "robbed_kong"
        rows.append([Button(("✅ " if on else "▫️ ") + t("Robbed kong"), cb("hk"))])
    if ctx.variant.multi_winner and (discards or robbed):
        more = [s for s in range(4) if s not in seats_won(events)]
        if len(more) > 2:  # someone must be left to have discarded
            text += "\n" + esc(t("Several won on one discard? Tick the others too, then tap "
                                  "the discarder."))
            rows.append([Button(("✅ " if s in winners else "▫️ ") + "＋" + wind(t, s), cb("ha", s))
                         for s in more])
    rows.append([Button("◀ " + t("Back"), cb("b")), _cancel(ctx, cb)])
    return Screen(text, rows)


def _tile_screen(draft: dict[str, Any], ctx: Ctx, cb: _Callbacks) -> Screen:
    t = ctx.t
    rows = []
    for suit, name in TILE_SUITS:  # two rows a suit, each tile named in full: "5p", not "5"
        tiles = [Button(tile_label(ctx, f"{r}{suit}"), cb("v", "", f"{r}{suit}"))
                 for r in range(1, 10)]
        rows += [[heading_row(t(name), cb), *tiles[:4]], tiles[4:]]
    rows.append([Button("— " + t("None (wall empty)"), cb("v", "", "-")),
                 Button("◀ " + t("Back"), cb("b"))])
    text = _header(draft, ctx) + "\n\n" + esc(t("Which tile was flipped?"))
    return Screen(text, rows)


def _form_screen(draft: dict[str, Any], ctx: Ctx, cb: _Callbacks) -> Screen:
    t, v = ctx.t, ctx.variant
    model, obj, _ = _current(v, draft)
    pending = draft["pending"]
    path = draft["path"]
    if pending["type"] == "win" and not path:
        title = _win_title(ctx, pending)
    else:
        title = heading(ctx, pending["type"])
        # a map entry is named by its seat alone: "Chickens · East Alice"
        parts = [seat_label(t, int(p), ctx.names, html_out=False) if p.isdigit()
                 else label(ctx, p, pending["type"])
                 for i, p in enumerate(path) if not (i + 1 < len(path) and path[i + 1].isdigit())]
        title = " · ".join([title, *parts])
    whole = None if path else _whole_with(ctx, draft)
    hint = esc(t("Tap what applies; the payments below follow.") if whole
               else t("Tap to change; Done when it is right."))
    text = _header(draft, ctx) + "\n\n<b>" + esc(title) + "</b>\n" + hint
    text += "".join("\n" + line for line in ready.lines(draft, ctx))  # 查叫 by tiles
    if whole is not None:
        text += "\n\n" + "\n".join(preview.outcome_block(ctx, whole, [*draft["events"], pending]))
    skip = skipped(pending, ctx, draft["events"]) if not path else {"type"}
    # ready maps and lists are about the seats still in: those that won are left out
    hidden = seats_won(draft["events"]) if pending["type"] in ("exhausted", "ready") else set()
    rows = form_rows(ctx, model, obj, cb, skip=skip, hidden=hidden, by=pending.get("by"),
                     event=pending["type"])
    if pending["type"] == "win" and not path:
        rows = reading.winner_rows(draft, ctx, cb) + rows
    rows += ready.rows(draft, ctx, cb)  # 查叫 by tiles: a seat's 13 tiles
    nav = [Button("◀ " + t("Back"), cb("b"))]
    if whole is not None:
        nav.append(_ok(t("Confirm"), cb("ok")))
        if _after_end_offered(ctx):
            nav.append(Button("＋ " + t("More"), cb("d")))
    else:
        nav.append(Button("✔ " + (t("Done") if path else t("Add")), cb("d"), "primary"))
    nav.append(_cancel(ctx, cb))
    rows.append(nav)
    return Screen(text, rows)


def _whole_with(ctx: Ctx, draft: dict[str, Any]) -> dict[str, Any] | None:
    """The outcome of the hand with the pending event added, if that makes it whole."""
    pending = draft["pending"]
    events = [*draft["events"], prune(_model(ctx.variant, pending["type"]), pending)]
    ended, _ = hand_state(ctx, events)
    return ctx.score(events).to_dict() if ended else None


def _win_title(ctx: Ctx, pending: dict[str, Any]) -> str:
    t = ctx.t
    who = ", ".join(seat_label(t, w["seat"], ctx.names, html_out=False) for w in pending["winners"])
    title = f"{t(BY_LABELS[pending['by']])}{colon(t)}{who}"
    if pending.get("from") is not None:
        title += " ← " + seat_label(t, pending["from"], ctx.names, html_out=False)
    return title


def _preview_screen(draft: dict[str, Any], ctx: Ctx, cb: _Callbacks) -> Screen:
    t = ctx.t
    rows = [[Button("◀ " + t("Back"), cb("b")), _ok(t("Confirm"), cb("ok")),
             _cancel(ctx, cb)]]
    return Screen(preview.text(ctx, draft["events"], draft.get("reads")), rows)
