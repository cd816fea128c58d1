"""The page's JSON API under /app/api/: the running session's standings and history, a new
session with four named players, a hand's preview, the tile analysis, Confirm, and settling up.

Every answer is built from what the chat uses: /table's and /history's lines
(bot/chat/table.py), the preview the wizard shows (bot/entry/preview.py) and /hu's tile reading,
and the table's use cases (bot/books: the same booking as the wizard's Confirm, at the table
mark the preview was computed on). A refusal is JSON {"error": its words in the reader's
language (bot/web/strings.py), "code": its kind}. Who asks, in which chat and whether they may
book comes from `Authorize`: the local mode lets the one user of 127.0.0.1 do everything;
Telegram's Mini App checks initData (bot/web/auth.py)."""

from __future__ import annotations

import asyncio
import base64
import json
import logging
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any

from aiohttp import web

from db import DatabaseBusy, DatabaseFault, Draft, Session, Store, StoreError
from scoring import ScoringError
from scoring.settlement import Transfer
from scoring.tiles import analyze
from scoring.variant import in_lang, listed

from ..books import sessions
from ..books.hands import Hand, book_hand, check_hand
from ..books.payments import confirm_received, mark_paid
from ..books.refusals import NotWhole, PaymentNotOpen, Refusal, SeatTakenBy, TableMoved, TwoSeats
from ..chat.scope import NOT_AT_TABLE
from ..chat.season import season, season_chart, season_lines
from ..chat.settle import people_of, settlement
from ..chat.table import (
    history_blocks,
    recorded_lines,
    seat_names,
    session_totals,
    table_lines,
    wizard_ctx,
)
from ..entry import preview as drawn
from ..entry.ctx import Ctx
from ..entry.hu.words import TILES
from ..entry.photo_tiles import photo_tiles
from ..entry.record import tiles_request
from ..photo.chat import MAX_BYTES as PHOTO_MAX_BYTES
from ..photo.chat import error_text
from ..photo.detect import (
    NO_TILES,
    NOT_AN_IMAGE,
    TOO_LARGE,
    TOO_SLOW,
    UNAVAILABLE,
    PhotoError,
    PhotoReading,
    read_tiles_async,
    tile_string,
)
from ..view.faults import fault_text
from ..view.i18n import LANGS, lang_from_code, translator
from ..view.render import colon, money, shown_name, unit, wind, with_unit
from ..view.tiles import tile_label
from .strings import INVALID, page_strings, refusal_code, refusal_text

log = logging.getLogger(__name__)
MAX_BODY = 64 * 1024  # a hand is a few hundred bytes
MAX_DEPTH = 16  # a hand's body nests 6 deep: events, a winner, its hand, a meld
MAX_INT = 2 ** 53 - 1  # what a browser's number holds exactly (ids, cents, seats are far below)
HISTORY = 20  # hands the page shows


@dataclass(frozen=True)
class Caller:
    """Who a request comes from: the chat whose books it reads, the person (None: the local
    user, no Telegram account), the language, and whether they may book hands / start a
    session (`local`: only the page without Telegram starts sessions and names players).
    `ask_admin` asks Telegram whether they are an admin of the chat, only where that matters
    (confirming someone else's payment)."""

    chat_id: int
    person_id: int | None
    lang: str
    may_book: bool
    local: bool = False
    ask_admin: Callable[[], Awaitable[bool]] | None = None

    async def admin(self) -> bool:
        """May act for anyone at this table: the local user, or an admin of the chat."""
        return self.local or (self.ask_admin is not None and await self.ask_admin())

    async def may_confirm(self, payee: int) -> bool:
        """The payee says the money came, or a chat admin does (as the chat's button allows)."""
        return self.person_id == payee or await self.admin()


class Refused(web.HTTPException):
    """An answer with a reason in the caller's words and its kind: {"error": text, "code":
    code}, as JSON."""

    def __init__(self, status: int, text: str, *, code: str, **extra: Any) -> None:
        self.status_code = status
        super().__init__(text=json.dumps({"error": text, "code": code, **extra},
                                         ensure_ascii=False),
                         content_type="application/json")


@web.middleware
async def database_faults(request: web.Request, handler: Any) -> web.StreamResponse:
    """An API request the database could not serve (busy, down, full) is answered in the
    caller's words, as the chat answers such an update, rather than as a bare server error."""
    try:
        return await handler(request)
    except DatabaseFault as exc:
        if not request.path.startswith("/app/api/"):
            raise
        code = "database_busy" if isinstance(exc, DatabaseBusy) else "database_unavailable"
        raise Refused(503, fault_text(translator(request_lang(request)), exc), code=code) from None


def refused(exc: Refusal | StoreError, caller: Caller, ctx: Ctx | None = None,
            **extra: Any) -> Refused:
    """A use case's refusal (or the store's) as the page's answer: 422 for what was sent, 409
    for where the table stands."""
    return Refused(422 if isinstance(exc, INVALID) else 409,
                   refusal_text(exc, translator(caller.lang), ctx), code=refusal_code(exc),
                   **extra)


def not_allowed(caller: Caller) -> Refused:
    return Refused(403, translator(caller.lang)(NOT_AT_TABLE), code="not_allowed")


Authorize = Callable[[web.Request, dict[str, Any]], Awaitable[Caller]]
# After a hand is booked from the page: (caller, the confirmation's HTML lines, drafts the
# booking closed) → tell the chat (Telegram mode); None in the local mode.
Announce = Callable[[Caller, list[str], list[Draft]], Awaitable[None]]

STORE_KEY = web.AppKey("store", Store)
AUTH_KEY: web.AppKey[Authorize] = web.AppKey("authorize")
ANNOUNCE_KEY: web.AppKey[Announce] = web.AppKey("announce")


def request_lang(request: web.Request, chat_language: str | None = None) -> str:
    """?lang= when it names one of the catalogues, else the chat's, else the browser's."""
    asked = request.query.get("lang", "")
    if asked in LANGS:
        return asked
    if chat_language:
        return chat_language
    first = request.headers.get("Accept-Language", "").split(",")[0].split(";")[0].strip()
    return lang_from_code(first or None)


async def _read(request: web.Request) -> bytes:
    """The whole body, however many pieces it arrives in (a slow phone's), at most MAX_BODY."""
    if (request.content_length or 0) > MAX_BODY:
        raise Refused(413, "too large", code="too_large")
    raw = bytearray()
    while chunk := await request.content.read(MAX_BODY + 1 - len(raw)):
        raw += chunk
        if len(raw) > MAX_BODY:
            raise Refused(413, "too large", code="too_large")
    return bytes(raw)


def _no_constant(name: str) -> None:
    raise ValueError(f"{name} is not a JSON number")


def _check_shape(data: Any) -> None:
    """No deeper than MAX_DEPTH, no integer beyond MAX_INT: what no page sends and what would
    fail far from here (Python's recursion, SQLite's 64-bit integers)."""
    level = [data]
    for _ in range(MAX_DEPTH):
        inner = []
        for item in level:
            if isinstance(item, dict):
                inner += item.values()
            elif isinstance(item, list):
                inner += item
            elif isinstance(item, int) and not -MAX_INT <= item <= MAX_INT:
                raise Refused(400, f"a number beyond ±{MAX_INT}", code="number_out_of_range")
        if not inner:
            return
        level = inner
    raise Refused(400, f"nested deeper than {MAX_DEPTH} levels", code="too_deep")


async def _body(request: web.Request) -> dict[str, Any]:
    if request.method != "POST":
        return {}
    raw = await _read(request)
    try:
        data = json.loads(raw or b"{}", parse_constant=_no_constant)
    except RecursionError:
        raise Refused(400, f"nested deeper than {MAX_DEPTH} levels", code="too_deep") from None
    except (ValueError, UnicodeDecodeError):
        raise Refused(400, "not JSON", code="not_json") from None
    _check_shape(data)
    if not isinstance(data, dict):
        raise Refused(400, "a JSON object is expected", code="not_an_object")
    return data


async def caller_and_body(request: web.Request) -> tuple[Caller, dict[str, Any]]:
    body = await _body(request)
    return await request.app[AUTH_KEY](request, body), body


def table_asked(request: web.Request) -> int | None:
    """The table (session id) the page shows, `?table=ID`; none: the caller's, else the first."""
    raw = request.query.get("table")
    if raw is None or raw == "":
        return None
    if not (raw.isascii() and raw.isdigit() and len(raw) <= 18):
        raise Refused(400, "table: a session id is expected", code="bad_table")
    return int(raw)


async def at_table(caller: Caller, session: Session) -> bool:
    """Books at this table: the local user, someone seated there, its scorekeepers, or an admin
    of the chat."""
    return (caller.local or caller.person_id in session.seats
            or session.keeps_score(caller.person_id) or await caller.admin())


async def running(request: web.Request, caller: Caller, *, book: bool = False) -> Session:
    """The chat's running session (of several tables, the one asked for, else the caller's);
    with `book`, one the caller may book hands in (seated there, or an admin)."""
    try:
        session = await sessions.running(request.app[STORE_KEY], caller.chat_id,
                                         table_asked(request), caller.person_id)
        if book and not caller.may_book:
            raise not_allowed(caller)
        if book and not await at_table(caller, session):  # seated at another table of the chat
            raise not_allowed(caller)
        if book:
            sessions.seated(session)
    except Refusal as exc:
        raise refused(exc, caller) from None
    return session


# -- reading ------------------------------------------------------------------------------------

async def state(request: web.Request, table: int | None = None) -> web.Response:
    """The variants to start with, and the running session: names, totals, money, /table's and
    /history's lines, and the table mark a preview is computed on."""
    caller, _ = await caller_and_body(request)
    store, t, lang = request.app[STORE_KEY], translator(caller.lang), caller.lang
    out: dict[str, Any] = {
        "lang": lang, "may_book": caller.may_book, "local": caller.local,
        "strings": page_strings(lang), "winds": [wind(t, seat) for seat in range(4)],
        "variants": [{"name": v.name, "title": in_lang(v.title, lang)} for v in listed()],
        "session": None, "tables": []}
    tables = await store.running_sessions(caller.chat_id)
    session = sessions.table_of(tables, table if table is not None else table_asked(request),
                                caller.person_id)
    if session is None and tables:  # the table asked for ended meanwhile: the caller's
        session = sessions.table_of(tables, None, caller.person_id)
    several = len(tables) > 1
    if several:  # a button each, to switch between them
        for table in tables:
            names = await seat_names(store, table)
            out["tables"].append({"id": table.id, "number": table.number,
                                  "label": t("Table {n}", n=table.number),
                                  "names": [n for n in names if n]})
    if session is not None:
        out["may_book"] = caller.may_book and await at_table(caller, session)
        ctx = await wizard_ctx(store, session, lang, several=several)
        out["session"] = {
            "id": session.id, "number": session.number, "variant": session.variant,
            "title": in_lang(ctx.variant.title, lang),
            "names": ctx.names, "seated": None not in session.seats,
            "totals": list(await session_totals(store, session)),
            "stake_cents": session.stake_cents, "hand_no": ctx.hand_no,
            "dealer": ctx.base["dealer"], "round_wind": ctx.base["round_wind"],
            "mark": await store.table_mark(session.id),
            "table_html": "\n".join(await table_lines(store, session, t, lang, several=several)),
            "history_html": await history_blocks(store, session, t, lang, HISTORY)}
    return web.json_response(out)


# -- a new session --------------------------------------------------------------------------------

async def start_session(request: web.Request) -> web.Response:
    """The page without Telegram: a session of `variant` with the four `names` seated East to
    North (as /new and four /guest NAME), its stake if given; `another`: true, a table beside
    those running (else refused while one runs)."""
    caller, body = await caller_and_body(request)
    if not caller.local:
        raise not_allowed(caller)
    try:
        new = await sessions.start_session(request.app[STORE_KEY], caller.chat_id,
                                           body.get("variant"), by=caller.person_id,
                                           names=body.get("names") or [], stake=body.get("stake"),
                                           another=body.get("another") is True)
    except (Refusal, StoreError) as exc:
        raise refused(exc, caller) from None
    return await state(request, new.id)  # the new table, beside any others


async def end_session(request: web.Request) -> web.Response:
    """End the running session, as /end does: the page without Telegram, or in the Mini App
    whoever may book its hands (seated players, the scorekeeper, chat admins)."""
    caller, _ = await caller_and_body(request)
    if not (caller.local or caller.may_book):
        raise not_allowed(caller)
    await sessions.end_session(request.app[STORE_KEY], await running(request, caller))
    return await state(request)


# -- seats that change hands ---------------------------------------------------------------------

SEAT_OPS = ("swap", "leave", "guest", "sit")


async def seat(request: web.Request) -> web.Response:
    """A seat changes hands from the next hand on, as /seat does: {"op": "swap", "seat", "other"}
    (换位), {"op": "leave", "seat"}, {"op": "guest", "seat", "name"} (a substitute by name, or a
    late arrival in an empty seat), {"op": "sit", "seat"} (the Mini App's user sits there).
    Nothing booked changes; refused (409) with nothing changed for a person given two seats."""
    caller, body = await caller_and_body(request)
    store, t = request.app[STORE_KEY], translator(caller.lang)
    session = await running(request, caller)
    if not (caller.local or caller.may_book):
        raise not_allowed(caller)
    op, where, other = body.get("op"), body.get("seat"), body.get("other", 0)
    if op not in SEAT_OPS or not all(isinstance(n, int) and not isinstance(n, bool) and 0 <= n <= 3
                                     for n in (where, other)):
        raise Refused(422, t("That could not be saved; nothing was changed."), code="not_a_seat")
    try:
        if op == "swap":
            await sessions.swap(store, session, where, other)
        elif op == "leave":
            await sessions.leave(store, session, where)
        elif op == "guest":
            await sessions.sit_guest(store, caller.chat_id, session, where, str(body.get("name") or ""))
        elif caller.person_id is None:  # sit: the local user is nobody at the table
            raise Refused(422, t("That could not be saved; nothing was changed."), code="not_a_seat")
        else:
            await sessions.sit(store, session, where, caller.person_id)
    except (TwoSeats, SeatTakenBy) as exc:
        name = (await store.get_person(exc.person)).name
        msgid = ("{name} already sits {seat}: one person, one seat. ⇅ swaps two seats; 🚪 frees "
                 "one first." if isinstance(exc, TwoSeats) else
                 "{seat} is {name}'s seat. Sit in an empty one, or ask someone at the table to "
                 "seat you (/seat).")
        raise Refused(409, t(msgid, name=name, seat=wind(t, exc.seat)),
                      code=refusal_code(exc)) from None
    except (Refusal, StoreError) as exc:
        raise refused(exc, caller) from None
    return await state(request)


# -- a hand ---------------------------------------------------------------------------------------

def _events(body: dict[str, Any], caller: Caller) -> list[dict[str, Any]]:
    """The hand's events as the record has them (docs/hand-format.md); a winner may
    carry `tiles` (and the turned tile as `indicator`) in place of the features they show, read
    as /hu reads typed tiles, and beside them the features they cannot show (天胡, 绝张 …), kept
    over the reading as a /hu line's words are."""
    shapeless = Refused(422, translator(caller.lang)("That could not be saved; nothing was changed."),
                        code="not_a_hand")
    events = body.get("events")
    if not (isinstance(events, list) and 0 < len(events) <= 40
            and all(isinstance(e, dict) and isinstance(e.get("type", ""), str) for e in events)):
        raise shapeless
    out = []
    for event in events:
        event = dict(event)
        if "winners" in event:
            winners = event["winners"]
            if not (isinstance(winners, list) and all(isinstance(w, dict) for w in winners)):
                raise shapeless
            event["winners"] = [_winner(dict(w)) for w in winners]
        out.append(event)
    return out


def _winner(w: dict[str, Any]) -> dict[str, Any]:
    """A winner as /hu's tile reading takes a typed one: its tiles as the line's tile tokens,
    the turned tile apart, its other fields left as the words beside the tiles (the reading
    fills the winner, then they are laid over it: bot/entry/hu/tiles.py)."""
    tiles, indicator = w.pop("tiles", None), w.pop("indicator", None)
    if isinstance(tiles, str) and tiles:
        w[TILES] = [tiles]
    if isinstance(indicator, str) and indicator:
        w["_indicator"] = indicator
    return w


def _hand(ctx: Ctx, body: dict[str, Any], caller: Caller) -> Hand:
    """The hand sent, checked whole as the booking takes it (books.hands.check_hand); refused
    (422) when it is not whole or scoring refuses it."""
    try:
        return check_hand(ctx, _events(body, caller))
    except NotWhole as exc:
        raise refused(exc, caller, ctx, incomplete=True) from None
    except Refusal as exc:
        raise refused(exc, caller, ctx) from None


async def preview(request: web.Request) -> web.Response:
    """The wizard's preview of the hand: every payment line, this hand, the totals after it,
    the next dealer, in the chat's words (HTML as the chat shows it), and the table mark it was
    computed on, which Confirm must give back."""
    caller, body = await caller_and_body(request)
    store = request.app[STORE_KEY]
    session = await running(request, caller)
    mark = await store.table_mark(session.id)  # before the reads the preview is computed on
    ctx = await wizard_ctx(store, session, caller.lang)
    hand = _hand(ctx, body, caller)
    outcome = ctx.score(hand.events)
    return web.json_response({"html": drawn.text(ctx, hand.events, hand.reads), "mark": mark,
                              "deltas": list(outcome.deltas), "events": hand.events})


async def tiles(request: web.Request) -> web.Response:
    """scoring.tiles.analyze on the tiles picked so far, for the running session's variant,
    rules and table (the readings as the page fills the hand), counted with what the page says
    beside them (`story`: 绝张, 妙手回春, flowers …; `after_kong`) as /hu counts its words."""
    caller, body = await caller_and_body(request)
    store = request.app[STORE_KEY]
    session = await running(request, caller)
    ctx = await wizard_ctx(store, session, caller.lang)
    story = body.get("story")
    if not isinstance(story, dict) and story is not None:
        raise Refused(422, translator(caller.lang)("That could not be saved; nothing was "
                                                   "changed."), code="not_a_hand")
    request_data = tiles_request(ctx.variant, ctx.base, body.get("tiles"), by=body.get("by"),
                                 seat=body.get("seat", 0), indicator=body.get("indicator"),
                                 winner=story, after_kong=body.get("after_kong") is True)
    try:
        found = analyze(request_data)
    except ScoringError as exc:
        raise Refused(422, ctx.why(exc), code="hand_refused") from None
    return web.json_response({**found, "label": reading_label(ctx, found)})


def reading_label(ctx: Ctx, found: dict[str, Any]) -> str:
    """The best reading in words: what the winner collects, and where the style counts a hand's
    points apart from its score (国标's 番) those first: "25 fan, collects 99"."""
    t, lang, variant = ctx.t, ctx.lang, ctx.variant
    collects = with_unit(t, str(found["value"]), unit(variant, lang))
    if found.get("points") is None:
        return t("Best reading: {value}", value=collects)
    worth = in_lang(variant.value_unit, lang) if variant.value_unit else unit(variant, lang)
    return t("Best reading: {points}, the winner collects {value}",
             points=with_unit(t, str(found["points"]), worth), value=collects)


async def confirm(request: web.Request) -> web.Response:
    """Book the hand as the wizard's Confirm does (books.hands), only at the table mark its
    preview was computed on: a hand added or undone since is 409 with the fresh preview,
    nothing booked. The same Confirm sent twice books once (the mark moved with the first)."""
    caller, body = await caller_and_body(request)
    store = request.app[STORE_KEY]
    session = await running(request, caller, book=True)
    mark = await store.table_mark(session.id)
    # where the chat runs several tables, the chat is told which one this hand was at
    several = len(await store.running_sessions(caller.chat_id)) > 1
    ctx = await wizard_ctx(store, session, caller.lang, several=several)
    hand = _hand(ctx, body, caller)
    try:
        booked = await book_hand(store, caller.chat_id, session, ctx, hand,
                                 shown_at=body.get("mark"), mark=mark, by=caller.person_id)
    except TableMoved as exc:  # the fresh preview, to confirm again (the store refused: the mark)
        fresh = {} if exc.late else {"html": drawn.text(ctx, hand.events, hand.reads)}
        raise refused(exc, caller, ctx, **fresh, mark=exc.mark) from None
    except (Refusal, StoreError) as exc:
        raise refused(exc, caller, ctx) from None
    lines = recorded_lines(ctx, booked.record["events"], booked.outcome, booked.totals,
                           booked.stake_cents)
    announce = request.app.get(ANNOUNCE_KEY)
    if announce is not None:
        try:
            await announce(caller, lines, booked.replaced)
        except Exception:  # booked: a message that could not be sent is only a missing echo
            log.warning("could not tell chat %s about hand %s", caller.chat_id, booked.hand.id,
                        exc_info=True)
    return web.json_response({"html": "\n".join(lines), "hand_id": booked.hand.id})


# -- a photo of the hand ------------------------------------------------------------------------

# A PhotoError's answer: its status and code (its words: the chat's, error_text)
PHOTO_REFUSALS: dict[str, tuple[int, str]] = {
    NOT_AN_IMAGE: (422, "not_an_image"), TOO_LARGE: (413, "too_large"),
    NO_TILES: (422, "no_tiles"), TOO_SLOW: (503, "too_slow"), UNAVAILABLE: (501, "no_photo_reader")}


async def _picture(request: web.Request) -> bytes:
    """The body, at most PHOTO_MAX_BYTES (the chat's limit), however many pieces it comes in;
    aiohttp's client_max_size (1 MiB) bounds only request.read(), which this does not use."""
    if (request.content_length or 0) > PHOTO_MAX_BYTES:
        raise PhotoError(TOO_LARGE)
    raw = bytearray()
    while chunk := await request.content.read(min(1 << 20, PHOTO_MAX_BYTES + 1 - len(raw))):
        raw += chunk
        if len(raw) > PHOTO_MAX_BYTES:
            raise PhotoError(TOO_LARGE)
    if not raw:
        raise PhotoError(NOT_AN_IMAGE)
    return bytes(raw)


def photo_answer(ctx: Ctx, seen: PhotoReading) -> dict[str, Any]:
    """What the page fills the winner's tiles with: the hand's tiles and, where the style counts
    flowers, the flowers (else left out, and said so), in the page's notation, with a note in the
    reader's words naming the tiles the photo was unsure of."""
    t = ctx.t
    split = photo_tiles(ctx.variant, seen.names)  # the chat's rule: flowers only where played
    hand, flowers, left_out = split.hand, split.flowers, split.left_out
    kept = [d for d in seen.tiles if d.tile not in left_out]
    unsure = [d.tile for d in kept if d.uncertain]
    lines = [t("Tiles read from the photo: {tiles}; flowers: {flowers}. Check them, and correct "
               "any the photo got wrong, before you book.", tiles=len(hand), flowers=len(flowers))
             if flowers else
             t("Tiles read from the photo: {tiles}. Check them, and correct any the photo got "
               "wrong, before you book.", tiles=len(hand))]
    if left_out:
        lines.append(t("Flowers left out: {flowers} ({style} does not count flowers).",
                       flowers=" ".join(tile_label(t, x) for x in left_out),
                       style=in_lang(ctx.variant.title, ctx.lang)))
    if unsure:
        lines.append(t("The photo was unsure of: {tiles}",
                       tiles=" ".join(tile_label(t, x) for x in unsure)))
    return {"tiles": tile_string([*hand, *flowers]), "hand": hand, "flowers": flowers,
            "left_out": left_out, "unsure": unsure, "note": "\n".join(lines)}


async def photo(request: web.Request) -> web.Response:
    """The tiles in a photo of the winner's hand (the image as the body), read as /hu reads a
    photo, for the page to fill the tiles with: its answer is photo_answer's. Books nothing,
    changes nothing. Refused: a style entered by its features alone (422 no_tiles_style), and a
    photo that cannot be read (PHOTO_REFUSALS, in the chat's words for it)."""
    caller = await request.app[AUTH_KEY](request, {})  # the body is the picture: no JSON to give
    store = request.app[STORE_KEY]
    session = await running(request, caller, book=True)  # reading costs: only those who book
    ctx = await wizard_ctx(store, session, caller.lang)
    if ctx.variant.tiles is None:  # as /hu refuses a photo in such a style
        no_tiles = ScoringError("variant", "{variant} reads no tiles: enter the winner's features",
                                variant=in_lang(ctx.variant.title, ctx.lang))
        raise Refused(422, ctx.why(no_tiles), code="no_tiles_style")
    try:
        seen = await read_tiles_async(await _picture(request))
        if not photo_tiles(ctx.variant, seen.names).tiles:  # none, or flowers the style plays none of
            raise PhotoError(NO_TILES)
    except PhotoError as exc:
        status, code = PHOTO_REFUSALS.get(exc.msgid, (422, "photo_refused"))
        raise Refused(status, error_text(translator(caller.lang), exc), code=code) from None
    return web.json_response(photo_answer(ctx, seen))


# -- settling up ----------------------------------------------------------------------------------

async def _settlement(store: Store, caller: Caller) -> dict[str, Any]:
    """/settle's screen for the chat (all its unsettled sessions), and its transfers and waiting
    payments as data, each with whether this caller is its payee (who says "received")."""
    t = translator(caller.lang)
    shown = await settlement(store, caller.chat_id, t, caller.lang, None, page=True)
    name = {pid: shown_name(p.name, None) for pid, p in shown.people.items()}
    payees = {tr.payee for _, tr, _ in shown.transfers} | {p.to_person for p in shown.pending}
    admin = any(p != caller.person_id for p in payees) and await caller.admin()

    def row(payer: int, payee: int, cents: int) -> dict[str, Any]:
        return {"payer": payer, "payee": payee, "cents": cents,
                "text": f"{name.get(payer, payer)} → {name.get(payee, payee)}{colon(t)}{money(cents)}",
                "may_confirm": admin or caller.person_id == payee}

    return {"html": shown.text,
            "transfers": [{**row(tr.payer, tr.payee, tr.cents), "n": i}
                          for i, tr, waiting in shown.transfers if not waiting],
            "pending": [{**row(p.from_person, p.to_person, p.cents), "payment": p.id}
                        for p in shown.pending]}


async def settle_up(request: web.Request) -> web.Response:
    """Who pays whom in money, as /settle shows it."""
    caller, _ = await caller_and_body(request)
    return web.json_response(await _settlement(request.app[STORE_KEY], caller))


async def received(request: web.Request) -> web.Response:
    """The payee says the money arrived: an open transfer ({payer, payee, cents}) counts at
    once, or a payment waiting for them ({payment}) is confirmed, as the chat's buttons do."""
    caller, body = await caller_and_body(request)
    store, t = request.app[STORE_KEY], translator(caller.lang)
    only_payee = Refused(403, t("Only the payee, or a chat admin, can confirm a payment."),
                         code="not_payee")
    try:
        if "payment" in body:
            if not (isinstance(body["payment"], int) and not isinstance(body["payment"], bool)):
                raise PaymentNotOpen()
            payment = await store.get_payment(body["payment"])
            if payment is None or payment.chat_id != caller.chat_id:
                raise PaymentNotOpen()
            if not await caller.may_confirm(payment.to_person):
                raise only_payee
            await confirm_received(store, caller.chat_id, payment.id, caller.person_id)
        else:
            payer, payee, cents = (body.get(k) for k in ("payer", "payee", "cents"))
            if not all(isinstance(n, int) and not isinstance(n, bool) and n > 0
                       for n in (payer, payee, cents)):
                raise Refused(422, t("This payment is no longer open."), code="not_a_transfer")
            if not await caller.may_confirm(payee):
                raise only_payee
            await mark_paid(store, caller.chat_id, Transfer(payer, payee, cents), session_id=None,
                            by=caller.person_id, confirmed=True)
    except (Refusal, StoreError) as exc:
        raise refused(exc, caller) from None
    return web.json_response(await _settlement(store, caller))


# -- the season ----------------------------------------------------------------------------------

async def season_view(request: web.Request) -> web.Response:
    """/season's lines for the chat, and its chart (a PNG as a data: address, or null)."""
    caller, _ = await caller_and_body(request)
    store, t = request.app[STORE_KEY], translator(caller.lang)
    found = await season(store, caller.chat_id)
    names = {pid: p.name for pid, p in (await people_of(store, caller.chat_id)).items()}
    png = await asyncio.to_thread(season_chart, t, found, names)
    chart = "data:image/png;base64," + base64.b64encode(png).decode() if png else None
    return web.json_response({"html": "\n".join(season_lines(t, found, names)), "chart": chart})


def add_routes(app: web.Application, store: Store, authorize: Authorize,
               announce: Announce | None = None) -> None:
    """The API under /app/api/ (the page itself: bot/web/page.py)."""
    app[STORE_KEY] = store
    app[AUTH_KEY] = authorize
    app.middlewares.append(database_faults)
    if announce is not None:
        app[ANNOUNCE_KEY] = announce
    app.router.add_get("/app/api/state", state)
    for path, handler in (("state", state), ("session", start_session), ("end", end_session),
                          ("seat", seat), ("preview", preview), ("tiles", tiles),
                          ("confirm", confirm), ("photo", photo),
                          ("settle", settle_up), ("received", received),
                          ("season", season_view)):
        app.router.add_post(f"/app/api/{path}", handler)
