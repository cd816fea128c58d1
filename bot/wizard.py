"""The hand-entry wizard: one message, edited in place, walking a JSON draft to a hand record.

Pure: `press` applies one button to the draft, `screen` draws the draft. The handlers load and
save drafts through the store, so a restart in the middle of a hand loses nothing.
Steps: main (what happened so far) → winners → from → form (features, sub-forms, tile picker)
→ back to main … → preview (the scored outcome) → confirm.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from pydantic import BaseModel

from scoring import IncompleteHand, ScoringError, score
from scoring.variant import Variant

from . import forms
from .forms import FormError, Kind, Spec
from .i18n import N_, translator
from .render import (
    deltas_text,
    esc,
    money,
    outcome_lines,
    reason,
    seat_label,
    signed,
    term,
    wind,
)

WIN_BY = {"s": "self_draw", "d": "discard", "r": "robbed_kong"}
BY_LABELS = {"self_draw": N_("Self-draw"), "discard": N_("Win on discard"),
             "robbed_kong": N_("Robbed kong")}
TILE_SUITS = (("m", N_("Characters")), ("p", N_("Dots")), ("s", N_("Bamboo")))
# how a tile reads on a button: "5p" in English, "5筒" where the catalogue says so
TILE_NAMES = {"m": N_("{n}m"), "p": N_("{n}p"), "s": N_("{n}s")}
# Labels for fields and values the variants share; variant terms take precedence.
COMMON_LABELS = {
    "seat": N_("Seat"), "from": N_("From"), "kind": N_("Kind"), "robbed": N_("Robbed"),
    "after_kong": N_("After a kong"),
    "after_kong:self_draw": N_("Won on a kong replacement (杠上花)"),
    "after_kong:discard": N_("Discarder had just konged (杠上炮)"),
    "ready": N_("Ready"), "seats": N_("Seats"),
    "concealed": N_("Concealed kong"), "added": N_("Added kong"), "exposed": N_("Exposed kong"),
    "kong": N_("Kong"), "exhausted": N_("Wall exhausted"), "win": N_("Win"),
    "flipped": N_("Flipped tile"), "hero": N_("Hero chicken"), "count": N_("Count"),
    "ghosts": N_("Ghosts"), "rounds": N_("Rounds"), "jing": N_("Jing"),
    "standard": N_("Plain"), "form": N_("Form"),
    "dead_hand": N_("Dead hand (相公)"), "quads": N_("Quads"),
    "zheng": N_("正精 (main)"), "fu": N_("副精 (next)"),
    "fed": N_("Melds fed by (三凑承包)"),
}
# Fields the shared event models define (scoring.model): they keep their common labels even
# where a variant has an event-qualified term such as "robbed_kong" (a win, not a kong's flag).
SELF_NAMING = ("form", "kind")  # choices whose values name themselves: "all pungs", "added kong"
COMMON_FIELDS = frozenset({"type", "seat", "kind", "from", "robbed", "after_kong", "by", "winners",
                           "ready"})


@dataclass
class Button:
    text: str
    data: str


@dataclass
class Screen:
    text: str
    rows: list[list[Button]] = field(default_factory=list)


@dataclass
class Ctx:
    """What the wizard needs to know about the session and the chat."""

    variant: Variant
    lang: str
    names: list[str | None]
    base: dict[str, Any]  # the hand record without its events
    hand_no: int = 1
    totals: tuple[int, ...] = (0, 0, 0, 0)
    stake_cents: int = 0

    @property
    def t(self) -> Any:
        return translator(self.lang)

    def record(self, events: list[dict[str, Any]]) -> dict[str, Any]:
        return {**self.base, "events": events}

    def explain(self, exc: ScoringError) -> str:
        """Scoring's refusal in this chat's language, seats named by their players:
        "Not allowed: East Alice cannot win off its own tile"."""
        return self.t("Not allowed: {reason}", reason=reason(self.t, self.lang, exc, self.names))


def new_draft(events: list[dict[str, Any]] | None = None, step: str = "main") -> dict[str, Any]:
    return {"step": step, "events": list(events or []), "pending": None, "path": [],
            "error": None}


# -- models of the variant ----------------------------------------------------------------------

def _event_types(v: Variant) -> list[str]:
    return [forms.spec_named(ev, "type").choices[0] for ev in v.events]


def _model(v: Variant, type_name: str) -> type[BaseModel]:
    return forms.event_model(v.events, type_name)


def _won(events: list[dict[str, Any]]) -> set[int]:
    return {w["seat"] for e in events if e.get("type") == "win" for w in e.get("winners", [])}


def _current(v: Variant, draft: dict[str, Any]) -> tuple[type[BaseModel], dict[str, Any], Spec | None]:
    """The model and JSON object the form shows now, following the sub-form path
    (["ready", "2"] is seat 2's entry of the ready map; ["flipped"] the tile picker)."""
    model = _model(v, draft["pending"]["type"])
    obj, path, i = draft["pending"], draft["path"], 0
    while i < len(path):
        spec = forms.spec_named(model, path[i])
        if spec.kind is Kind.TILE:
            return model, obj, spec
        if spec.kind is Kind.SEAT_MAP and spec.model is not None:
            obj, i = obj[spec.name][path[i + 1]], i + 2
        elif spec.kind is Kind.OBJECT and spec.model is not None:
            obj, i = obj.setdefault(spec.name, forms.blank(spec.model)), i + 1
        else:
            raise FormError(path[i])
        model = spec.model
    return model, obj, None


# -- pressing a button ------------------------------------------------------------------------

def press(draft: dict[str, Any], ctx: Ctx, op: str, a: str = "", b: str = "") -> str | None:
    """Apply one button to the draft (in place). Returns "confirm" or "cancel" when the
    wizard is finished, else None. Raises FormError for a button that does not fit."""
    draft["error"] = None
    step = draft["step"]
    if op == "q":
        return "cancel"
    if step == "main":
        return _press_main(draft, ctx, op, a)
    if step == "winners":
        _press_winners(draft, ctx, op, a)
    elif step == "from":
        _press_from(draft, op, a)
    elif step in ("form", "tile"):
        _press_form(draft, ctx, op, a, b)
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
    if op == "w" and a in WIN_BY and WIN_BY[a] in _win_types(ctx):
        win = forms.blank(_model(v, "win"), by=WIN_BY[a], winners=[])
        draft.update(pending=win, step="winners", path=[])
    elif op == "x" and "exhausted" in _event_types(v):
        pending = forms.blank(_model(v, "exhausted"))
        if "ready" in pending:
            won = _won(events)
            pending["ready"] = {str(s): None for s in range(4) if s not in won}
        draft.update(pending=pending, step="form", path=[])
        _at_once(draft, ctx)
    elif op == "e":
        extras = _extras(v)
        if not a.isdigit() or int(a) >= len(extras):
            raise FormError(a)
        type_name = extras[int(a)]
        draft.update(pending=forms.blank(_model(v, type_name)), step="form", path=[])
        _at_once(draft, ctx)
    elif op == "u" and events:
        events.pop()
    elif op == "p":
        if not events:
            draft["error"] = ctx.t("Nothing entered yet: add what happened first.")
            return None
        try:
            score(ctx.record(events))
        except ScoringError as exc:
            draft["error"] = ctx.explain(exc)
            return None
        draft["step"] = "preview"
    else:
        raise FormError(op)
    return None


def _at_once(draft: dict[str, Any], ctx: Ctx) -> None:
    """An event with nothing to fill in (a wall run out, where nobody's hand is checked) is
    added as soon as it is tapped, not through an empty form."""
    model = _model(ctx.variant, draft["pending"]["type"])
    if any(spec.name != "type" for spec in forms.fields_of(model)):
        return
    _commit(draft, ctx)
    if draft["error"]:
        draft.update(pending=None, step="main", path=[])


def _press_winners(draft: dict[str, Any], ctx: Ctx, op: str, a: str) -> None:
    pending = draft["pending"]
    multi = ctx.variant.multi_winner and pending["by"] != "self_draw"
    if op == "ws":
        seat = forms._seat(a)
        seats = [w["seat"] for w in pending["winners"]]
        if seat in seats:
            pending["winners"] = [w for w in pending["winners"] if w["seat"] != seat]
        else:
            new = forms.blank(ctx.variant.Winner, seat=seat)
            pending["winners"] = [*pending["winners"], new] if multi else [new]
            pending["winners"].sort(key=lambda w: w["seat"])
        if not multi and pending["winners"]:
            _after_winners(draft)
    elif op == "wn":
        if not pending["winners"]:
            draft["error"] = ctx.t("Choose who won.")
            return
        _after_winners(draft)
    elif op == "b":
        draft.update(pending=None, step="main", path=[])
    else:
        raise FormError(op)


def _after_winners(draft: dict[str, Any]) -> None:
    pending = draft["pending"]
    winners = {w["seat"] for w in pending["winners"]}
    if pending["by"] == "self_draw":
        draft["step"] = "form"
        return
    if pending.get("from") in winners:
        pending["from"] = None
    robbed = [e["seat"] for e in draft["events"] if e.get("type") == "kong" and e.get("robbed")]
    if pending["by"] == "robbed_kong" and len(robbed) == 1 and robbed[0] not in winners:
        pending["from"] = robbed[0]  # the kong marked robbed says whose it was (Back changes it)
        draft["step"] = "form"
    else:
        draft["step"] = "from"


def _press_from(draft: dict[str, Any], op: str, a: str) -> None:
    pending = draft["pending"]
    if op == "wf":
        seat = forms._seat(a)
        if seat in {w["seat"] for w in pending["winners"]}:
            raise FormError(a)
        pending["from"] = seat
        draft["step"] = "form"
    elif op == "b":
        draft["step"] = "winners"
    else:
        raise FormError(op)


def _press_form(draft: dict[str, Any], ctx: Ctx, op: str, a: str, b: str) -> None:
    v = ctx.variant
    model, obj, tile = _current(v, draft)
    if draft["step"] == "tile" and tile is not None:
        if op == "v":
            if b != "-" and not _is_tile(b):
                raise FormError(b)
            obj[tile.name] = None if b == "-" else b
            draft["path"].pop()
            draft["step"] = "form"
        elif op == "b":
            draft["path"].pop()
            draft["step"] = "form"
        else:
            raise FormError(op)
        return
    if op in ("t", "c", "i", "s", "m", "k", "n"):
        forms.apply(model, obj, op, a, b)
        pending = draft["pending"]
        if not draft["path"] and "from" in _skipped(pending) and pending["type"] != "win":
            pending["from"] = None  # a kong that is no longer exposed has no discarder
    elif op == "o":
        if "." in a:  # sub-forms open from the top level of a form only
            raise FormError(a)
        spec, _ = forms.resolve(model, obj, a)
        if spec.kind is Kind.SEAT_MAP and spec.model is not None:
            entry = (obj.get(spec.name) or {}).get(str(forms._seat(b)))
            if entry is None:
                raise FormError(b)
            draft["path"] += [spec.name, str(int(b))]
        elif spec.kind is Kind.OBJECT:
            obj.setdefault(spec.name, forms.blank(spec.model))  # type: ignore[arg-type]
            draft["path"].append(spec.name)
        elif spec.kind is Kind.TILE:
            draft["path"].append(spec.name)
            draft["step"] = "tile"
        else:
            raise FormError(a)
    elif op == "d":
        if draft["path"]:
            _pop(draft)
            return
        _commit(draft, ctx)
    elif op == "b":
        if draft["path"]:
            _pop(draft)
        elif draft["pending"]["type"] == "win":
            draft["step"] = "winners" if draft["pending"]["by"] == "self_draw" else "from"
        else:
            draft.update(pending=None, step="main")
    else:
        raise FormError(op)


def _pop(draft: dict[str, Any]) -> None:
    path = draft["path"]
    if path and path[-1].isdigit():  # a map entry: [name, seat] leave together
        path.pop()
    if path:
        path.pop()


def _commit(draft: dict[str, Any], ctx: Ctx) -> None:
    pending = draft["pending"]
    event = prune(_model(ctx.variant, pending["type"]), pending)
    events = [*draft["events"], event]
    try:
        score(ctx.record(events))
    except IncompleteHand:
        pass  # more is to come: the preview insists on a finished hand
    except ScoringError as exc:
        draft["error"] = ctx.explain(exc)
        return
    draft.update(events=events, pending=None, step="main", path=[])


def prune(model: type[BaseModel], obj: dict[str, Any]) -> dict[str, Any]:
    """Drop fields left at their defaults, so stored records read like hand-written ones."""
    out: dict[str, Any] = {}
    for spec in forms.fields_of(model):
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


def _win_types(ctx: Ctx) -> tuple[str, ...]:
    v = ctx.variant
    return v.win_types(v.Rules.model_validate(ctx.base.get("rules") or {}))


def _extras(v: Variant) -> list[str]:
    return [name for name in _event_types(v) if name not in ("win", "exhausted")]


def _is_tile(text: str) -> bool:
    return len(text) == 2 and text[0] in "123456789" and text[1] in "mps"


# -- drawing the screen -----------------------------------------------------------------------

def label(ctx: Ctx, name: str, event: str | None = None) -> str:
    """A field's or value's name: the variant's term for it in this event type ("jing_kong"
    for the jing flag of a kong, "concealed_kong" for a kong's kind where "concealed" alone
    names a concealed hand), else the variant's term, a common label, or the name itself."""
    terms = ctx.variant.terms
    if event and name not in COMMON_FIELDS and f"{name}_{event}" in terms:
        return term(ctx.variant, f"{name}_{event}", ctx.lang)
    if name in terms:
        return term(ctx.variant, name, ctx.lang)
    if name in COMMON_LABELS:
        return ctx.t(COMMON_LABELS[name])
    return name.replace("_", " ")


def tile_label(ctx: Ctx, tile: str | None) -> str:
    if tile is None or not _is_tile(tile):
        return "—" if tile is None else tile
    return ctx.t(TILE_NAMES[tile[1]], n=tile[0])


def heading(ctx: Ctx, name: str) -> str:
    """An event's name as a button or title: "Kong", not the term's running-text "kong"."""
    text = label(ctx, name)
    return text[:1].upper() + text[1:]


def value_label(ctx: Ctx, value: Any, event: str | None = None) -> str:
    if isinstance(value, str):
        return label(ctx, value, event)
    if value is None:
        return "—"
    return str(value)


def _seat_button(ctx: Ctx, seat: int, *, mark: bool = False) -> str:
    text = seat_label(ctx.t, seat, ctx.names, html_out=False)
    return f"✅ {text}" if mark else text


def screen(draft: dict[str, Any], ctx: Ctx, version: int) -> Screen:
    step = draft["step"]
    cb = _Callbacks(version)
    if step == "main":
        s = _main_screen(draft, ctx, cb)
    elif step == "winners":
        s = _winners_screen(draft, ctx, cb)
    elif step == "from":
        s = _from_screen(draft, ctx, cb)
    elif step == "tile":
        s = _tile_screen(draft, ctx, cb)
    elif step == "preview":
        s = _preview_screen(draft, ctx, cb)
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
    t, base = ctx.t, ctx.base
    title = esc(term_title(ctx))
    dealer = seat_label(t, base.get("dealer", 0), ctx.names)
    lines = [f"<b>{title}</b> · " + esc(t("Hand {n}", n=ctx.hand_no)),
             esc(t("Dealer: ")) + dealer + (
                 esc(t(" (streak {n})", n=base.get("dealer_streak", 1)))
                 if base.get("dealer_streak", 1) > 1 else "") + (
                 " · " + esc(t("Round wind: {wind}", wind=wind(t, base["round_wind"])))
                 if base.get("round_wind") else "")]
    if draft["events"]:
        lines.append("")
        for i, ev in enumerate(draft["events"], 1):
            lines.append(f"{i}. {summarize_event(ctx, ev)}")
    return "\n".join(lines)


def term_title(ctx: Ctx) -> str:
    return ctx.variant.title[{"en": 0, "zh-Hans": 1, "zh-Hant": 2}.get(ctx.lang, 0)]


def _main_screen(draft: dict[str, Any], ctx: Ctx, cb: _Callbacks) -> Screen:
    t, v = ctx.t, ctx.variant
    text = _header(draft, ctx) + "\n\n" + esc(t("What happened?"))
    allowed = _win_types(ctx)
    rows = [[Button(t(BY_LABELS[by]), cb("w", key)) for key, by in WIN_BY.items() if by in allowed]]
    extra_row = []
    if "exhausted" in _event_types(v):
        extra_row.append(Button(heading(ctx, "exhausted"), cb("x")))
    for i, name in enumerate(_extras(v)):
        extra_row.append(Button(heading(ctx, name), cb("e", i)))
    for i in range(0, len(extra_row), 3):
        rows.append(extra_row[i:i + 3])
    last = []
    if draft["events"]:
        last.append(Button("↩ " + t("Remove last"), cb("u")))
        last.append(Button("▶ " + t("Preview"), cb("p")))
    last.append(Button("✖ " + t("Cancel"), cb("q")))
    rows.append(last)
    return Screen(text, rows)


def _winners_screen(draft: dict[str, Any], ctx: Ctx, cb: _Callbacks) -> Screen:
    t, pending = ctx.t, draft["pending"]
    multi = ctx.variant.multi_winner and pending["by"] != "self_draw"
    chosen = {w["seat"] for w in pending["winners"]}
    won = _won(draft["events"])
    prompt = t("Who won? (several may win on one discard)") if multi else t("Who won?")
    text = _header(draft, ctx) + "\n\n" + f"<b>{esc(t(BY_LABELS[pending['by']]))}</b> — " + esc(prompt)
    seats = [Button(_seat_button(ctx, s, mark=s in chosen), cb("ws", s))
             for s in range(4) if s not in won]
    rows = [seats[:2], seats[2:]] if len(seats) > 2 else [seats]
    nav = [Button("◀ " + t("Back"), cb("b"))]
    if multi:
        nav.append(Button("▶ " + t("Next"), cb("wn")))
    nav.append(Button("✖ " + t("Cancel"), cb("q")))
    return Screen(text, [r for r in rows if r] + [nav])


def _from_screen(draft: dict[str, Any], ctx: Ctx, cb: _Callbacks) -> Screen:
    t, pending = ctx.t, draft["pending"]
    winners = {w["seat"] for w in pending["winners"]}
    won = _won(draft["events"])
    ask = (t("Whose kong was robbed?") if pending["by"] == "robbed_kong"
           else t("Who discarded the winning tile?"))
    text = _header(draft, ctx) + "\n\n" + esc(ask)
    seats = [Button(_seat_button(ctx, s), cb("wf", s)) for s in range(4)
             if s not in winners and s not in won]
    nav = [Button("◀ " + t("Back"), cb("b")), Button("✖ " + t("Cancel"), cb("q"))]
    return Screen(text, [seats, nav])


def _tile_screen(draft: dict[str, Any], ctx: Ctx, cb: _Callbacks) -> Screen:
    t = ctx.t
    rows = []
    for suit, name in TILE_SUITS:  # two rows a suit, each tile named in full: "5p", not "5"
        tiles = [Button(tile_label(ctx, f"{r}{suit}"), cb("v", "", f"{r}{suit}"))
                 for r in range(1, 10)]
        rows += [[Button(t(name), cb("_")), *tiles[:4]], tiles[4:]]
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
    hint = esc(t("Tap to change; Done when it is right."))
    text = _header(draft, ctx) + "\n\n<b>" + esc(title) + "</b>\n" + hint
    skip = _skipped(pending) if not path else {"type"}
    # ready maps and lists are about the seats still in: those that won are left out
    hidden = _won(draft["events"]) if pending["type"] in ("exhausted", "ready") else set()
    rows = form_rows(ctx, model, obj, cb, skip=skip, hidden=hidden, by=pending.get("by"),
                     event=pending["type"])
    done = t("Done") if draft["path"] else t("Add")
    rows.append([Button("◀ " + t("Back"), cb("b")), Button("✔ " + done, cb("d")),
                 Button("✖ " + t("Cancel"), cb("q"))])
    return Screen(text, rows)


def _skipped(pending: dict[str, Any]) -> set[str]:
    """Fields of the event being entered that its form does not show: a win's `by` and `from`
    were chosen on the steps before; a kong's `from` (the discarder) only for an exposed kong."""
    skip = {"type", "by"}
    if pending["type"] == "win":
        skip.add("from")
        if pending["by"] == "robbed_kong":
            skip.add("after_kong")
    elif "kind" in pending and "from" in pending and pending["kind"] != "exposed":
        skip.add("from")
    return skip


def _win_title(ctx: Ctx, pending: dict[str, Any]) -> str:
    t = ctx.t
    who = ", ".join(seat_label(t, w["seat"], ctx.names, html_out=False) for w in pending["winners"])
    title = f"{t(BY_LABELS[pending['by']])}: {who}"
    if pending.get("from") is not None:
        title += " ← " + seat_label(t, pending["from"], ctx.names, html_out=False)
    return title


def form_rows(ctx: Ctx, model: type[BaseModel], obj: dict[str, Any], cb: _Callbacks,
              *, skip: set[str], prefix: str = "", hidden: set[int] | None = None,
              by: str | None = None, event: str | None = None,
              toggles: list[Button] | None = None) -> list[list[Button]]:
    """Keyboard rows for every field of `model` (nested winners inline). Seats in `hidden`
    are left out of seat pickers and per-seat maps unless already chosen: seats that won, in
    a ready map; the winner himself, in a winner's own fields (who fed him, who is liable).
    Given `toggles`, the toggles and choices go there for the caller to lay out."""
    t = ctx.t
    hidden = hidden or set()
    rows: list[list[Button]] = []
    own = toggles is None
    toggles = [] if toggles is None else toggles
    for idx, spec in enumerate(forms.fields_of(model)):
        if spec.name in skip or (spec.win_by and by is not None and by not in spec.win_by):
            continue
        ref = f"{prefix}{idx}"
        value = obj.get(spec.name)
        name = label(ctx, spec.name, event)
        if spec.name == "after_kong" and f"after_kong:{by}" in COMMON_LABELS:
            name = ctx.t(COMMON_LABELS[f"after_kong:{by}"])
        if spec.kind is Kind.BOOL:
            toggles.append(Button(("✅ " if value else "▫️ ") + name, cb("t", ref)))
            continue
        if spec.kind is Kind.CHOICE:
            shown = value_label(ctx, value, event)
            bare = spec.name in SELF_NAMING and value is not None  # "all pungs", not "Form: …"
            toggles.append(Button(f"{shown} 🔄" if bare else f"{name}: {shown} 🔄", cb("c", ref)))
            continue
        if spec.kind is Kind.INT:
            rows.append([Button("−", cb("i", ref, "-")),
                         Button(f"{name}: {value if value is not None else spec.lo}", cb("_")),
                         Button("+", cb("i", ref, "+"))])
        elif spec.kind is Kind.SEAT:
            rows.append([Button(name, cb("_"))])
            seat_row = [Button(("✅ " if value == s else "") + wind(t, s), cb("s", ref, s))
                        for s in range(4) if s not in hidden or value == s]
            if spec.optional:
                seat_row.append(Button(("✅ " if value is None else "") + "—", cb("s", ref, "-")))
            rows.append(seat_row)
        elif spec.kind is Kind.SEATS:
            rows.append([Button(name, cb("_"))])
            rows.append([Button(("✅ " if s in (value or []) else "▫️ ") + wind(t, s), cb("m", ref, s))
                         for s in range(4) if s not in hidden or s in (value or [])])
        elif spec.kind is Kind.SEAT_MAP:
            rows.append([Button(name, cb("_"))])
            rows.extend(_map_rows(ctx, spec, value or {}, ref, cb, hidden))
        elif spec.kind is Kind.TILE:
            rows.append([Button(f"{name}: {tile_label(ctx, value)} ✎", cb("o", ref))])
        elif spec.kind is Kind.OBJECT:
            rows.append([Button(f"{name} ✎", cb("o", ref))])
        elif spec.kind is Kind.ITEMS and spec.model is not None:
            for i, item in enumerate(value or []):
                if len(value) > 1 and "seat" in item:
                    rows.append([Button("— " + seat_label(t, item["seat"], ctx.names, html_out=False)
                                        + " —", cb("_"))])
                # one winner's toggles share rows with the win's own (杠上花)
                rows.extend(form_rows(ctx, spec.model, item, cb, skip={"seat"},
                                      prefix=f"{ref}.{i}.", hidden={item.get("seat")},
                                      by=by, event=event, toggles=toggles if len(value) == 1 else None))
    return _packed(toggles) + rows if own else rows


ROW_WIDTH = 30  # what fits across a phone, in Latin letters (a Chinese character counts 2)


def _width(text: str) -> int:
    """Rough display width: wide for CJK and the ✅/▫️ marks, nothing for a variation selector."""
    return sum(0 if ch == "\ufe0f" else 2 if ord(ch) >= 0x2E80 or ch in "✅▫" else 1
               for ch in text)


def _packed(buttons: list[Button]) -> list[list[Button]]:
    """Toggles two to a row, three when they are short (Chinese labels mostly are), a long
    one (杠上花 spelled out) alone."""
    rows: list[list[Button]] = []
    for b in buttons:
        last = rows[-1] if rows else None
        widths = [_width(x.text) for x in [*(last or []), b]]
        if last and ((len(last) == 1 and max(widths) <= ROW_WIDTH)
                     or (len(last) == 2 and sum(widths) <= ROW_WIDTH)):
            last.append(b)
        else:
            rows.append([b])
    return rows


def _map_rows(ctx: Ctx, spec: Spec, mapping: dict[str, Any], ref: str,
              cb: _Callbacks, hidden: set[int]) -> list[list[Button]]:
    t = ctx.t
    rows = []
    for s in range(4):
        if s in hidden and str(s) not in mapping:
            continue
        key, who = str(s), seat_label(t, s, ctx.names, html_out=False)
        if spec.value is not None and spec.value.kind is Kind.INT:
            rows.append([Button("−", cb("k", ref, f"{s}-")),
                         Button(f"{who}: {mapping.get(key, 0)}", cb("_")),
                         Button("+", cb("k", ref, f"{s}+"))])
            continue
        present = key in mapping
        entry = mapping.get(key)
        if not present:
            state = "▫️ " + t("not listed")
        elif entry is None:
            state = "✗ " + t("not ready") if spec.name == "ready" else "✗"
        elif not isinstance(entry, dict):  # a word in place of a hand (花猫)
            state = "✗ " + value_label(ctx, entry)
        else:
            summary = summarize(ctx, spec.model, entry) if spec.model else ""
            state = "✅ " + (summary or (t("ready") if spec.name == "ready" else "✓"))
        row = [Button(f"{who}: {state}", cb("n", ref, s))]
        if isinstance(entry, dict) and spec.model is not None and forms.fields_of(spec.model):
            row.append(Button("✎", cb("o", ref, s)))
        rows.append(row)
    return rows


def summarize(ctx: Ctx, model: type[BaseModel] | None, obj: dict[str, Any],
              event: str | None = None, sep: str = " ") -> str:
    """Plain text of an object's non-default fields: "清一色 大对子 闺×1" (an event's, with
    sep ", ": "Flipped tile 5p, East 1 bamboo×1; West flipped chicken×1")."""
    if model is None or not isinstance(obj, dict):
        return str(obj)
    t = ctx.t
    parts = []
    for spec in forms.fields_of(model):
        value = obj.get(spec.name, spec.default)
        if spec.name in ("type", "seat", "by", "winners") or value == spec.default:
            continue
        if value is None or (value in (False, 0, {}, []) and spec.kind is not Kind.SEAT):
            continue  # seat 0 is East, not nothing
        name = label(ctx, spec.name, event)
        if spec.kind is Kind.BOOL:
            parts.append(name)
        elif spec.kind is Kind.CHOICE:
            shown = value_label(ctx, value, event)
            parts.append(shown if spec.name in SELF_NAMING else f"{name} {shown}")
        elif spec.kind is Kind.INT:
            parts.append(f"{name}×{value}")
        elif spec.kind is Kind.SEAT:
            parts.append(("← " if spec.name == "from" else f"{name} ") + wind(t, value))
        elif spec.kind is Kind.SEATS:
            seats = ", ".join(wind(t, s) for s in value)
            parts.append(seats if spec.name == "seats" else f"{name} {seats}")
        elif spec.kind is Kind.SEAT_MAP:
            inner = "; ".join(
                f"{wind(t, int(k))} " + _entry_text(ctx, spec, v) for k, v in sorted(value.items()))
            parts.append(inner if spec.name in ("seats", "ready") else f"{name}: {inner}")
        elif spec.kind is Kind.TILE:
            parts.append(f"{name} {tile_label(ctx, value)}")
        elif spec.kind is Kind.OBJECT:
            parts.append(summarize(ctx, spec.model, value, event))
        else:
            parts.append(f"{name} {value}")
    out = ""
    for part in filter(None, parts):  # "exposed kong ← West": the discarder goes with its kong
        out += (" " if part.startswith("← ") else sep) + part if out else part
    return out


def _entry_text(ctx: Ctx, spec: Spec, entry: Any) -> str:
    """One seat's entry of a per-seat map, in a summary."""
    if spec.model is None:
        return str(entry)
    if entry is None:
        return ctx.t("not ready") if spec.name == "ready" else "✗"
    if not isinstance(entry, dict):
        return value_label(ctx, entry)
    return summarize(ctx, spec.model, entry) or (ctx.t("ready") if spec.name == "ready" else "✓")


def summarize_event(ctx: Ctx, ev: dict[str, Any]) -> str:
    """HTML: one line per entered event, naming its seat first ("Kong: South Bob concealed
    kong ← West")."""
    t = ctx.t
    if ev.get("type") == "win":
        winner_model = ctx.variant.Winner
        who = "; ".join(
            f"<b>{seat_label(t, w['seat'], ctx.names)}</b> {esc(summarize(ctx, winner_model, w))}".rstrip()
            for w in ev["winners"])
        text = f"{esc(t(BY_LABELS[ev['by']]))}: {who}"
        if ev.get("from") is not None:
            text += " ← " + seat_label(t, ev["from"], ctx.names)
        if ev.get("after_kong"):
            key = f"after_kong:{ev['by']}"
            text += " · " + esc(t(COMMON_LABELS[key]) if key in COMMON_LABELS
                                else label(ctx, "after_kong"))
        return text
    model = _model(ctx.variant, ev["type"])
    head = esc(heading(ctx, ev["type"]))
    who = (f"<b>{seat_label(t, ev['seat'], ctx.names)}</b>"
           if isinstance(ev.get("seat"), int) else "")
    rest = esc(summarize(ctx, model, ev, ev["type"], sep=", "))
    body = " ".join(p for p in (who, rest) if p)
    return f"{head}: {body}" if body else head


def _preview_screen(draft: dict[str, Any], ctx: Ctx, cb: _Callbacks) -> Screen:
    t = ctx.t
    outcome = score(ctx.record(draft["events"])).to_dict()
    body = [_header(draft, ctx), "", "<b>" + esc(t("Payments")) + "</b>"]
    body += outcome_lines(t, ctx.lang, ctx.variant, ctx.names, outcome)
    body += ["", "<b>" + esc(t("This hand")) + "</b>: " + esc(deltas_text(t, outcome["deltas"]) or "±0")]
    body += ["<b>" + esc(t("After it")) + "</b>"]
    for s in range(4):
        total = ctx.totals[s] + outcome["deltas"][s]
        cash = f" ({money(total * ctx.stake_cents)})" if ctx.stake_cents else ""
        body.append(f"{seat_label(t, s, ctx.names)}: {signed(total)}{cash}")
    if any(ctx.base.get("balances") or []):
        body.append(esc(t("Points held: ")) + " · ".join(
            f"{wind(t, s)} {b}" for s, b in enumerate(outcome["balances"])))
        if outcome["level_over"]:
            body.append("🏁 " + esc(t("This hand ends the level.")))
    body.append("")
    body.append(esc(t("Next dealer: ")) + seat_label(t, outcome["next_dealer"], ctx.names))
    rows = [[Button("◀ " + t("Back"), cb("b")), Button("✔ " + t("Confirm"), cb("ok")),
             Button("✖ " + t("Cancel"), cb("q"))]]
    return Screen("\n".join(body), rows)
