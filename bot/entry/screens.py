"""The wizard's words and keyboards that every screen shares: the names of fields and values
(the variant's terms, or common labels), the form's rows of controls built from a model, and
one-line summaries of entered events. The flow and the screens are in `wizard`."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from scoring.model import StrictModel

from ..plumbing.callbacks import Act
from ..plumbing.messages import Button
from ..view import tiles
from ..view.i18n import N_
from ..view.render import (
    colon,
    comma,
    esc,
    listing,
    seat_label,
    semicolon,
    signed,
    term,
    wind,
    with_unit,
)
from . import controls
from .controls import Kind, Spec
from .ctx import Ctx

Callbacks = Callable[..., str]  # (an Act, its fields) → a button's callback data

BY_LABELS = {"self_draw": N_("Self-draw"), "discard": N_("Win on discard"),
             "robbed_kong": N_("Robbed kong")}
# how a tile reads on a button: "5p" in English, "5筒" where the catalogue says so
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
    "hoarded_winds_by": N_("关风向 paid by"),
}
# Fields the shared event models define (scoring.model): they keep their common labels even
# where a variant has an event-qualified term such as "robbed_kong" (a win, not a kong's flag).
SELF_NAMING = ("form", "kind")  # choices whose values name themselves: "all pungs", "added kong"
COMMON_FIELDS = frozenset({"type", "seat", "kind", "from", "robbed", "after_kong", "by", "winners",
                           "ready"})


def heading_row(text: str, cb: Callbacks) -> Button:
    """A row's heading, which does nothing when tapped: drawn as a divider, while the buttons
    that act are coloured."""
    return Button(f"— {text} —", cb(Act.NOOP))


@dataclass
class Screen:
    text: str
    rows: list[list[Button]] = field(default_factory=list)


def is_tile(text: str) -> bool:
    return len(text) == 2 and text[0] in "123456789" and text[1] in "mps"


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


def _label_for(ctx: Ctx, name: str, obj: dict[str, Any], event: str | None) -> str:
    """A field's label as this object reads: 无龙清一色 while the winner holds no 龙."""
    for (flag, count), other in ctx.variant.terms_without.items():
        if name == flag and count in obj and not obj.get(count) and other in ctx.variant.terms:
            return label(ctx, other, event)
    return label(ctx, name, event)


def tile_label(ctx: Ctx, tile: str | None) -> str:
    if tile is None or not is_tile(tile):
        return "—" if tile is None else tile
    return tiles.tile_label(ctx.t, tile)


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


def form_rows(ctx: Ctx, model: type[StrictModel], obj: dict[str, Any], cb: Callbacks,
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
    for idx, spec in enumerate(controls.fields_of(model)):
        if spec.name in skip or (spec.win_by and by is not None and by not in spec.win_by):
            continue
        ref = f"{prefix}{idx}"
        value = obj.get(spec.name)
        name = _label_for(ctx, spec.name, obj, event)
        if spec.name == "after_kong" and f"after_kong:{by}" in COMMON_LABELS:
            name = ctx.t(COMMON_LABELS[f"after_kong:{by}"])
        if spec.kind is Kind.BOOL:
            toggles.append(Button(("✅ " if value else "▫️ ") + name, cb(Act.TOGGLE, ref)))
            continue
        if spec.kind is Kind.CHOICE:
            # one button a value, one tap each (七对 directly, not a cycle through forms); the
            # default (plain) is what no tick means
            for i, choice in enumerate(spec.choices):
                if choice == spec.default and choice is not None:
                    continue
                shown = value_label(ctx, choice, event)
                text = shown if spec.name in SELF_NAMING else f"{name}{colon(t)}{shown}"
                toggles.append(Button(("✅ " if value == choice else "▫️ ") + text,
                                      cb(Act.CHOOSE, ref, i)))
            continue
        if spec.kind is Kind.INT:
            row = [Button("−", cb(Act.COUNT, ref, "-")),
                   Button(f"{name}{colon(t)}{value if value is not None else spec.lo}", cb(Act.NOOP)),
                   Button("+", cb(Act.COUNT, ref, "+"))]
            if controls.wide(spec):  # a hand's points: ten at a time too
                row = [Button("−10", cb(Act.COUNT, ref, "--")), *row,
                       Button("+10", cb(Act.COUNT, ref, "++"))]
            rows.append(row)
        elif spec.kind is Kind.SEAT:
            rows.append([heading_row(name, cb)])
            seat_row = [Button(("✅ " if value == s else "") + wind(t, s), cb(Act.SEAT_FIELD, ref, s))
                        for s in range(4) if s not in hidden or value == s]
            if spec.optional:
                seat_row.append(Button(("✅ " if value is None else "") + "—", cb(Act.SEAT_FIELD, ref, None)))
            rows.append(seat_row)
        elif spec.kind is Kind.SEATS:
            rows.append([heading_row(name, cb)])
            rows.append([Button(("✅ " if s in (value or []) else "▫️ ") + wind(t, s),
                                cb(Act.SEATS_FIELD, ref, s))
                         for s in range(4) if s not in hidden or s in (value or [])])
        elif controls.signed_map(spec):  # each seat's points: their sum shown, as it must be 0
            total = sum(int(v) for v in (value or {}).values())
            rows.append([heading_row(f"{name} · Σ {signed(total)}", cb)])
            rows.extend(_map_rows(ctx, spec, value or {}, ref, cb, hidden, event))
        elif spec.kind is Kind.SEAT_MAP:
            rows.append([heading_row(name, cb)])
            rows.extend(_map_rows(ctx, spec, value or {}, ref, cb, hidden, event))
        elif spec.kind is Kind.TILE:
            rows.append([Button(f"{name}{colon(t)}{tile_label(ctx, value)} ✎", cb(Act.OPEN, ref))])
        elif spec.kind is Kind.OBJECT:
            rows.append([Button(f"{name} ✎", cb(Act.OPEN, ref))])
        elif spec.kind is Kind.ITEMS and spec.model is not None:
            for i, item in enumerate(value or []):
                if len(value) > 1 and "seat" in item:
                    rows.append([Button("— " + seat_label(t, item["seat"], ctx.names, html_out=False)
                                        + " —", cb(Act.NOOP))])
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
              cb: Callbacks, hidden: set[int], event: str | None = None) -> list[list[Button]]:
    t = ctx.t
    rows = []
    for s in range(4):
        if s in hidden and str(s) not in mapping:
            continue
        key, who = str(s), seat_label(t, s, ctx.names, html_out=False)
        if controls.signed_map(spec):  # the seat and its points, its steps on the row below
            rows.append([Button(f"{who}{colon(t)}{signed(int(mapping.get(key, 0)))}", cb(Act.NOOP))])
            rows.append([Button(text, cb(Act.MAP_COUNT, ref, f"{s}{step}")) for text, step in
                         (("−10", "--"), ("−1", "-"), ("+1", "+"), ("+10", "++"))])
            continue
        if spec.value is not None and spec.value.kind is Kind.INT:
            rows.append([Button("−", cb(Act.MAP_COUNT, ref, f"{s}-")),
                         Button(f"{who}{colon(t)}{mapping.get(key, 0)}", cb(Act.NOOP)),
                         Button("+", cb(Act.MAP_COUNT, ref, f"{s}+"))])
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
            summary = summarize(ctx, spec.model, entry, named=ready_names(spec)) if spec.model else ""
            state = "✅ " + (summary or (t("ready") if spec.name == "ready" else "✓"))
        row = [Button(f"{who}{colon(t)}{state}", cb(Act.MAP_ENTRY, ref, s))]
        counter = controls.first_counter(spec.model)
        if counter is not None and (entry is None or isinstance(entry, dict)):
            count = (entry or {}).get(counter.name) or 0
            name = label(ctx, counter.name, event)
            row = ([Button("−", cb(Act.MAP_FIRST, ref, f"{s}-"))] if count else []) + row
            row.append(Button("+" + name, cb(Act.MAP_FIRST, ref, f"{s}+")))
        if isinstance(entry, dict) and spec.model is not None and controls.fields_of(spec.model):
            row.append(Button("✎", cb(Act.OPEN_ENTRY, ref, s)))
        rows.append(row)
    return rows


def summarize(ctx: Ctx, model: type[StrictModel] | None, obj: dict[str, Any],
              event: str | None = None, sep: str = " ", named: tuple[str, ...] = ()) -> str:
    """Plain text of an object's non-default fields, and of the `named` ones even at their
    default: "清一色 大对子 闺×1" (an event's, with sep ", ": "Flipped tile 5p, East 1
    bamboo×1; West flipped chicken×1")."""
    if model is None or not isinstance(obj, dict):
        return str(obj)
    t = ctx.t
    parts = []
    for spec in controls.fields_of(model):
        value = obj.get(spec.name, spec.default)
        if spec.name in ("type", "seat", "by", "winners") or (
                value == spec.default and spec.name not in named):
            continue
        if value is None or (value in (False, 0, {}, []) and spec.kind is not Kind.SEAT):
            continue  # seat 0 is East, not nothing
        name = _label_for(ctx, spec.name, obj, event)
        if spec.kind is Kind.BOOL:
            parts.append(name)
        elif spec.kind is Kind.CHOICE:
            shown = value_label(ctx, value, event)
            parts.append(shown if spec.name in SELF_NAMING else f"{name} {shown}")
        elif spec.kind is Kind.INT:  # a count of a feature (闺×2), or an amount (24番)
            parts.append(with_unit(t, str(value), name) if controls.wide(spec) else f"{name}×{value}")
        elif spec.kind is Kind.SEAT:
            parts.append(("← " if spec.name == "from" else f"{name} ") + wind(t, value))
        elif spec.kind is Kind.SEATS:
            seats = listing(t).join(wind(t, s) for s in value)
            parts.append(seats if spec.name == "seats" else f"{name} {seats}")
        elif spec.kind is Kind.SEAT_MAP:
            inner = semicolon(t).join(
                f"{wind(t, int(k))} " + _entry_text(ctx, spec, v) for k, v in sorted(value.items()))
            # a map that is the whole event (each seat's points) goes without its name again
            parts.append(inner if spec.name in ("seats", "ready", event)
                         else f"{name}{colon(t)}{inner}")
        elif spec.kind is Kind.TILE:
            parts.append(f"{name} {tile_label(ctx, value)}")
        elif spec.kind is Kind.HAND:
            continue  # the reading of the tiles is shown beside the events
        elif spec.kind is Kind.TERMS:
            parts.append(listing(t).join(term(ctx.variant, str(k), ctx.lang) for k in value))
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
    if controls.signed_map(spec):
        return signed(int(entry))
    if spec.model is None:
        return str(entry)
    if entry is None:
        return ctx.t("not ready") if spec.name == "ready" else "✗"
    if not isinstance(entry, dict):
        return value_label(ctx, entry)
    return summarize(ctx, spec.model, entry, named=ready_names(spec)) or (
        ctx.t("ready") if spec.name == "ready" else "✓")


def ready_names(spec: Spec) -> tuple[str, ...]:
    """A ready hand names its form also when plain (南 平胡 无鬼, not 南 无鬼): "无鬼" alone
    does not say what the seat was ready for."""
    return SELF_NAMING if spec.name == "ready" else ()


def summarize_event(ctx: Ctx, ev: dict[str, Any]) -> str:
    """HTML: one line per entered event, naming its seat first ("Kong: South Bob concealed
    kong ← West")."""
    t = ctx.t
    if ev.get("type") == "win":
        winner_model = ctx.variant.Winner
        who = semicolon(t).join(
            f"<b>{seat_label(t, w['seat'], ctx.names)}</b> {esc(summarize(ctx, winner_model, w))}".rstrip()
            for w in ev["winners"])
        text = f"{esc(t(BY_LABELS[ev['by']]))}{colon(t)}{who}"
        if ev.get("from") is not None:
            text += " ← " + seat_label(t, ev["from"], ctx.names)
        if ev.get("after_kong"):
            key = f"after_kong:{ev['by']}"
            text += " · " + esc(t(COMMON_LABELS[key]) if key in COMMON_LABELS
                                else label(ctx, "after_kong"))
        return text
    model = controls.event_model(ctx.variant.events, ev["type"])
    head = esc(heading(ctx, ev["type"]))
    who = (f"<b>{seat_label(t, ev['seat'], ctx.names)}</b>"
           if isinstance(ev.get("seat"), int) else "")
    rest = esc(summarize(ctx, model, ev, ev["type"], sep=comma(t)))
    body = " ".join(p for p in (who, rest) if p)
    return f"{head}{colon(ctx.t)}{body}" if body else head
