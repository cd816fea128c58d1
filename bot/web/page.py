"""The page: index.html, app.js and app.css (bot/web/static, package data) at /app/, the tile
faces, and the hand's form as data — the fields, choices and labels the wizard builds from the
variant's models (bot/entry/controls.py, bot/entry/screens.py) and the tile keyboard's tiles
and jokers (bot/entry/keyboard.py), so the page keeps no list of its own.

The tile faces are the public-domain riichi-mahjong-tiles, in bot/web/static/faces, and the
eight flowers drawn on that set's blank tile (its README says where they come from and how they
were made)."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from aiohttp import web

from scoring import Variant

from ..chat.table import wizard_ctx
from ..entry import controls
from ..entry.controls import Kind
from ..entry.ctx import Ctx
from ..entry.keyboard import BONUS, KeySpec, jokers
from ..entry.record import extras, lacking
from ..entry.screens import BY_LABELS, COMMON_LABELS, heading, label, tile_label, value_label
from ..view.i18n import LANG_NAMES
from .api import STORE_KEY, caller_and_body, running
from .auth import HEADER

STATIC = Path(__file__).parent / "static"
PAGE_FILES = {"app.js": "text/javascript", "app.css": "text/css"}
FACE = re.compile(r"[1-9][mps]|[1-7]z|[1-8]f|[1-4]a")
SUITED = tuple(f"{n}{s}" for s in "mps" for n in range(1, 10))
HONOURS = tuple(f"{n}z" for n in range(1, 8))
# the page's fields: every kind but a list of winners (the page's own screen) and the unknown
PAGE_KINDS = (Kind.BOOL, Kind.CHOICE, Kind.INT, Kind.SEAT, Kind.SEATS, Kind.SEAT_MAP, Kind.TILE,
              Kind.OBJECT)
NO_STORE = {"Cache-Control": "no-cache"}
ICON = "7z.svg"  # 中, the page's icon (index.html names it too)


def _field(ctx: Ctx, spec: controls.Spec, event: str) -> dict[str, Any]:
    """One field as the page draws it: its kind, label, bounds and choices; a per-seat map says
    what one seat holds (`value`), a nested hand its own fields and the words that may stand
    for it (`words`: 花猫 in place of a ready hand)."""
    out: dict[str, Any] = {
        "name": spec.name, "kind": spec.kind.value, "label": label(ctx, spec.name, event),
        "default": spec.default, "optional": spec.optional, "lo": spec.lo, "hi": spec.hi,
        "win_by": list(spec.win_by)}
    if spec.kind is Kind.OBJECT:
        out["words"] = [{"value": c, "label": value_label(ctx, c, event)} for c in spec.choices]
    else:
        out["choices"] = [{"value": c, "label": value_label(ctx, c, event)} for c in spec.choices]
    if spec.kind is Kind.OBJECT and spec.model is not None:
        out["fields"] = _fields(ctx, spec.model, event)
    if spec.kind is Kind.SEAT_MAP and spec.value is not None:
        out["value"] = _field(ctx, spec.value, event)
    by_labels = {by: ctx.t(COMMON_LABELS[f"{spec.name}:{by}"]) for by in BY_LABELS
                 if f"{spec.name}:{by}" in COMMON_LABELS}
    if by_labels:  # 杠上花 on a self-draw, 杠上炮 on a discard
        out["label_by"] = by_labels
    return out


def _fields(ctx: Ctx, model: type[Any], event: str, skip: tuple[str, ...] = ()) -> list[dict[str, Any]]:
    return [_field(ctx, s, event) for s in controls.fields_of(model)
            if s.kind in PAGE_KINDS and s.name not in ("type", *skip)]


def _event_form(ctx: Ctx, type_name: str) -> dict[str, Any]:
    """An event other than the win: its title, its blank values and its fields."""
    model = controls.event_model(ctx.variant.events, type_name)
    return {"type": type_name, "title": heading(ctx, type_name),
            "after_end": type_name in ctx.variant.after_end,
            # the hand is whole with it (each seat's points: `Variant.ends_hand`)
            "ends_hand": type_name in ctx.variant.ends_hand,
            "blank": controls.blank(model),
            "fields": _fields(ctx, model, type_name, skip=tuple(lacking(ctx, type_name)))}


def hand_form(ctx: Ctx) -> dict[str, Any]:
    """The hand's form for the page: how it was won, the win's own flags, a winner's features,
    the other events the chat's wizard offers (kongs, chickens, 精 …; those that follow the
    hand's end marked), the wall's end with its ready hands, and the tile keyboard's tiles,
    labels and jokers, with the winner's features the tiles cannot show (天胡, 绝张 …), which
    the page offers beside them."""
    variant = ctx.variant
    win = controls.event_model(variant.events, "win")
    by = controls.spec_named(win, "by")
    winners = controls.spec_named(win, "winners").model
    assert winners is not None
    spec = KeySpec(variant.name, dict(ctx.base.get("rules") or {}))
    codes = [x for x in (*SUITED, *HONOURS, *BONUS) if spec.usable(x)]
    if spec.indicator:
        wild = {x: sorted(jokers(spec, x)) for x in (*SUITED, *HONOURS)}
    else:
        wild = {"": sorted(jokers(spec))}
    types = controls.event_types(variant.events)
    return {
        "variant": variant.name, "multi_winner": variant.multi_winner,
        # a blood battle: wins follow each other until three have won or the wall ends
        "blood_battle": variant.blood_battle,
        "exhausted": _event_form(ctx, "exhausted") if "exhausted" in types else None,
        "extras": [_event_form(ctx, name) for name in extras(ctx)],
        "by": [{"value": b, "label": ctx.t(BY_LABELS[b])} for b in by.choices if b in BY_LABELS],
        "event": _fields(ctx, win, "win", skip=("by", "from", *lacking(ctx, "win"))),
        "winner": _fields(ctx, winners, "win", skip=("seat",)),
        # its hands go by features alone where the style declares no tiles
        "by_tiles": variant.tiles is not None,
        "tiles": {"codes": codes, "labels": {x: tile_label(ctx, x) for x in codes},
                  "most": {x: spec.most(x) for x in codes}, "indicator": spec.indicator,
                  "jokers": wild,
                  # the winner's fields the tiles cannot show: offered beside them
                  "story": list(variant.story_fields()),
                  # the style's counter is not installed here: said as the picker opens
                  "cannot_count": _cannot_count(ctx, variant)},
        "words": {"not_ready": ctx.t("not ready"), "ready": ctx.t("ready")}}


def _cannot_count(ctx: Ctx, variant: Variant) -> str | None:
    missing = variant.cannot_count()
    return None if missing is None else ctx.t(missing.template, **missing.params)


async def form(request: web.Request) -> web.Response:
    caller, _ = await caller_and_body(request)
    session = await running(request, caller)
    ctx = await wizard_ctx(request.app[STORE_KEY], session, caller.lang)
    return web.json_response(hand_form(ctx))


async def index(_: web.Request) -> web.Response:
    options = "".join(f'<option value="{code}">{name}</option>' for code, name in LANG_NAMES.items())
    html = (STATIC / "index.html").read_text(encoding="utf-8").replace(
        "{{INIT_HEADER}}", HEADER).replace("{{LANGS}}", options)
    return web.Response(text=html, content_type="text/html", headers=NO_STORE)


async def static(request: web.Request) -> web.Response:
    name = request.match_info["name"]
    if name not in PAGE_FILES:
        raise web.HTTPNotFound()
    return web.Response(body=(STATIC / name).read_bytes(), content_type=PAGE_FILES[name],
                        headers=NO_STORE)


async def face(request: web.Request) -> web.Response:
    tile = request.match_info["tile"]
    if not FACE.fullmatch(tile):
        raise web.HTTPNotFound()
    return web.Response(body=(STATIC / "faces" / f"{tile}.svg").read_bytes(),
                        content_type="image/svg+xml",
                        headers={"Cache-Control": "public, max-age=86400"})


async def to_page(_: web.Request) -> web.Response:
    raise web.HTTPFound("/app/")


async def icon(_: web.Request) -> web.Response:
    """/favicon.ico, for a browser that asks before (or without) reading the page's own link."""
    return web.Response(body=(STATIC / "faces" / ICON).read_bytes(), content_type="image/svg+xml",
                        headers={"Cache-Control": "public, max-age=86400"})


def add_page_routes(app: web.Application) -> None:
    """/app/ and its files, beside the API that add_routes set up."""
    app.router.add_get("/app", to_page)
    app.router.add_get("/app/", index)
    app.router.add_get("/app/static/{name}", static)
    app.router.add_get("/app/faces/{tile}.svg", face)
    app.router.add_post("/app/api/form", form)
