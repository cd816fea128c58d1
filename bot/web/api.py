"""The page's JSON API under /app/api/: the running session's standings and history, a new
session with four named players, a hand's preview, the tile analysis, and Confirm.

Every answer is built from what the chat uses: /table's and /history's lines
(bot/chat/table.py), the wizard's preview screen and /hu's tile reading (bot/entry), and the
wizard's one Confirm transaction (`Store.confirm_hand`, at the table mark the preview was
computed on). Who asks, in which chat and whether they may book comes from `Authorize`: the
local mode lets the one user of 127.0.0.1 do everything; Telegram's Mini App checks initData
(bot/web/auth.py)."""

from __future__ import annotations

import json
import logging
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any

from aiohttp import web

from db import StoreError, TableChanged
from scoring import ScoringError, all_variants, get_variant, score
from scoring.settlement import Transfer
from scoring.tiles import analyze
from scoring.variant import in_lang

from ..chat.scope import refusal
from ..chat.settle import SettleRefused, StaleTransfer, confirm_received, mark_paid, settlement
from ..chat.table import history_blocks, recorded_lines, session_totals, table_lines, wizard_ctx
from ..entry import controls
from ..entry.ctx import Ctx
from ..entry.hu.tiles import read_tiles
from ..entry.hu.words import TILES, LineError
from ..entry.wizard import reading
from ..entry.wizard.flow import hand_state, missing, new_draft, prune, screen
from ..plumbing.limits import MAX_NAME, MAX_STAKE_CENTS, parse_amount, visible_name
from ..view.i18n import LANGS, lang_from_code, translator
from ..view.render import colon, money, shown_name, wind
from .strings import page_strings

log = logging.getLogger(__name__)
MAX_BODY = 64 * 1024  # a hand is a few hundred bytes
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
    """An answer with a reason in the caller's words: {"error": text}, as JSON."""

    def __init__(self, status: int, text: str, **extra: Any) -> None:
        self.status_code = status
        super().__init__(text=json.dumps({"error": text, **extra}, ensure_ascii=False),
                         content_type="application/json")


Authorize = Callable[[web.Request, dict[str, Any]], Awaitable[Caller]]
# After a hand is booked from the page: (caller, the confirmation's HTML lines, drafts the
# booking closed) → tell the chat (Telegram mode); None in the local mode.
Announce = Callable[[Caller, list[str], list[Any]], Awaitable[None]]

STORE_KEY = web.AppKey("store", Any)
AUTH_KEY = web.AppKey("authorize", Any)
ANNOUNCE_KEY = web.AppKey("announce", Any)


def request_lang(request: web.Request, chat_language: str | None = None) -> str:
    """?lang= when it names one of the catalogues, else the chat's, else the browser's."""
    asked = request.query.get("lang", "")
    if asked in LANGS:
        return asked
    if chat_language:
        return chat_language
    first = request.headers.get("Accept-Language", "").split(",")[0].split(";")[0].strip()
    return lang_from_code(first or None)


async def _body(request: web.Request) -> dict[str, Any]:
    if request.method != "POST":
        return {}
    if (request.content_length or 0) > MAX_BODY:
        raise Refused(413, "too large")
    raw = await request.content.read(MAX_BODY + 1)
    if len(raw) > MAX_BODY:
        raise Refused(413, "too large")
    try:
        data = json.loads(raw or b"{}")
    except (ValueError, UnicodeDecodeError):
        raise Refused(400, "not JSON") from None
    if not isinstance(data, dict):
        raise Refused(400, "a JSON object is expected")
    return data


async def caller_and_body(request: web.Request) -> tuple[Caller, dict[str, Any]]:
    body = await _body(request)
    return await request.app[AUTH_KEY](request, body), body


async def running(request: web.Request, caller: Caller, *, book: bool = False) -> Any:
    t = translator(caller.lang)
    session = await request.app[STORE_KEY].running_session(caller.chat_id)
    if session is None:
        raise Refused(409, t("No session is running. Start one with /new."))
    if book and not caller.may_book:
        raise Refused(403, t("Only seated players and chat admins can do that."))
    if book and None in session.seats:
        raise Refused(409, t("Four players must be seated first (Join, or /guest NAME)."))
    return session


# -- reading ------------------------------------------------------------------------------------

async def state(request: web.Request) -> web.Response:
    """The variants to start with, and the running session: names, totals, money, /table's and
    /history's lines, and the table mark a preview is computed on."""
    caller, _ = await caller_and_body(request)
    store, t, lang = request.app[STORE_KEY], translator(caller.lang), caller.lang
    out: dict[str, Any] = {
        "lang": lang, "may_book": caller.may_book, "local": caller.local,
        "strings": page_strings(lang), "winds": [wind(t, seat) for seat in range(4)],
        "variants": [{"name": v, "title": in_lang(get_variant(v).title, lang)} for v in all_variants()],
        "session": None}
    session = await store.running_session(caller.chat_id)
    if session is not None:
        ctx = await wizard_ctx(store, session, lang)
        out["session"] = {
            "id": session.id, "variant": session.variant, "title": in_lang(ctx.variant.title, lang),
            "names": ctx.names, "seated": None not in session.seats,
            "totals": list(await session_totals(store, session)),
            "stake_cents": session.stake_cents, "hand_no": ctx.hand_no,
            "dealer": ctx.base["dealer"], "round_wind": ctx.base["round_wind"],
            "mark": await store.table_mark(session.id),
            "table_html": "\n".join(await table_lines(store, session, t, lang)),
            "history_html": await history_blocks(store, session, t, lang, HISTORY)}
    return web.json_response(out)


# -- a new session --------------------------------------------------------------------------------

async def start_session(request: web.Request) -> web.Response:
    """The page without Telegram: a session of `variant` with the four `names` seated East to
    North (as /new and four /guest NAME), its stake if given."""
    caller, body = await caller_and_body(request)
    t, store = translator(caller.lang), request.app[STORE_KEY]
    if not caller.local:
        raise Refused(403, t("Only seated players and chat admins can do that."))
    variant = body.get("variant")
    names = body.get("names")
    if variant not in all_variants():
        raise Refused(422, t("Which mahjong do you play?"))
    if not (isinstance(names, list) and len(names) == 4 and all(isinstance(n, str) for n in names)):
        raise Refused(422, t("Usage: /guest NAME (up to 64 characters)"))
    clean = [visible_name(n) for n in names]
    if not all(0 < len(n) <= MAX_NAME for n in clean) or len(set(clean)) < 4:
        raise Refused(422, t("Usage: /guest NAME (up to 64 characters)"))
    stake = 0
    if body.get("stake") not in (None, "", "0"):
        try:
            stake = parse_amount(str(body["stake"]), MAX_STAKE_CENTS)
        except ValueError:
            raise Refused(422, t("Usage: /stake AMOUNT — money per point, e.g. /stake 0.5")) from None
    chat = await store.ensure_chat(caller.chat_id)
    # every rule's value kept with the session, as /new does (Variant.resolved_rules)
    rules = get_variant(variant).resolved_rules(dict(chat.house_rules.get(variant, {})))
    if await store.running_session(caller.chat_id) is not None:
        raise Refused(409, t("A session is already running here: /table shows it, /end closes it."))
    try:
        session = await store.start_session(caller.chat_id, variant, rules, stake_cents=stake)
        for seat, name in enumerate(clean):
            guest = await store.add_guest(caller.chat_id, name)
            session = await store.seat_player(session.id, seat, guest.id)
    except StoreError as exc:
        raise Refused(409, refusal(t, exc)) from None
    return await state(request)


async def end_session(request: web.Request) -> web.Response:
    """End the running session (the page without Telegram; /end in a chat)."""
    caller, _ = await caller_and_body(request)
    t, store = translator(caller.lang), request.app[STORE_KEY]
    if not caller.local:
        raise Refused(403, t("Only seated players and chat admins can do that."))
    session = await running(request, caller)
    for draft in await store.drafts_for_session(session.id):
        await store.delete_draft(draft.chat_id, draft.message_id)
    await store.end_session(session.id)
    return await state(request)


# -- a hand ---------------------------------------------------------------------------------------

def _events(body: dict[str, Any], t: Any) -> list[dict[str, Any]]:
    """The hand's events as the record has them (docs/hand-format.md); a winner may
    carry `tiles` (and the turned tile as `indicator`) in place of features, read as /hu reads
    typed tiles."""
    events = body.get("events")
    if not (isinstance(events, list) and 0 < len(events) <= 40
            and all(isinstance(e, dict) for e in events)):
        raise Refused(422, t("That could not be saved; nothing was changed."))
    out = []
    for event in events:
        event = dict(event)
        winners = event.get("winners")
        if winners is not None:
            if not (isinstance(winners, list) and all(isinstance(w, dict) for w in winners)):
                raise Refused(422, t("That could not be saved; nothing was changed."))
            event["winners"] = [_winner(dict(w)) for w in winners]
        out.append(event)
    return out


def _winner(w: dict[str, Any]) -> dict[str, Any]:
    tiles, indicator = w.pop("tiles", None), w.pop("indicator", None)
    if isinstance(tiles, str) and tiles:
        w[TILES] = [tiles]
    if isinstance(indicator, str) and indicator:
        w["_indicator"] = indicator
    return w


def _read(ctx: Ctx, body: dict[str, Any]) -> tuple[list[dict[str, Any]], dict[str, Any]]:
    """The hand's events with every winner's tiles read, and the draft the wizard's preview
    screen draws (its reading named, as /hu's preview names it). Refused (422) with the chat's
    words when the hand is not whole or scoring refuses it."""
    t = ctx.t
    events = _events(body, t)
    known = set(controls.event_types(ctx.variant.events)) - {"win"}
    for i, event in enumerate(events):
        if event.get("type") not in known:  # a win, or a type scoring will refuse
            continue
        # as the wizard stores it: the page sends its whole form, defaults dropped; a field left
        # empty named in the wizard's words
        events[i] = prune(controls.event_model(ctx.variant.events, event["type"]), event)
        name = missing(ctx, events[i], events[:i])
        if name is not None:
            raise Refused(422, t("Choose “{field}” first.", field=name))
    typed = {w["seat"]: "".join(w[TILES]) for e in events for w in e.get("winners", [])
             if isinstance(w.get(TILES), list) and isinstance(w.get("seat"), int)}
    try:
        read = read_tiles(ctx.variant, ctx.base, events)
    except ScoringError as exc:
        raise Refused(422, ctx.explain(exc)) from None
    except LineError as exc:
        raise Refused(422, t(exc.msgid, **exc.kwargs)) from None
    except (KeyError, TypeError, ValueError):  # a winner without a seat, and the like
        raise Refused(422, t("That could not be saved; nothing was changed.")) from None
    ended, exc = hand_state(ctx, events)
    if exc is not None:
        raise Refused(422, ctx.explain(exc))
    if not ended:
        raise Refused(422, t("Anything else to add? Else preview the hand."), incomplete=True)
    draft = new_draft(events, step="preview")
    if read:
        draft["reads"] = reading.reads_from(read, typed)
    return events, draft


async def preview(request: web.Request) -> web.Response:
    """The wizard's preview of the hand: every payment line, this hand, the totals after it,
    the next dealer, in the chat's words (HTML as the chat shows it), and the table mark it was
    computed on, which Confirm must give back."""
    caller, body = await caller_and_body(request)
    store = request.app[STORE_KEY]
    session = await running(request, caller)
    mark = await store.table_mark(session.id)  # before the reads the preview is computed on
    ctx = await wizard_ctx(store, session, caller.lang)
    events, draft = _read(ctx, body)
    outcome = ctx.score(events).to_dict()
    return web.json_response({"html": screen(draft, ctx, 1).text, "mark": mark,
                              "deltas": outcome["deltas"], "events": events})


async def tiles(request: web.Request) -> web.Response:
    """scoring.tiles.analyze on the tiles picked so far, for the running session's variant,
    rules and table (the readings as the page fills the hand)."""
    caller, body = await caller_and_body(request)
    store = request.app[STORE_KEY]
    session = await running(request, caller)
    ctx = await wizard_ctx(store, session, caller.lang)
    request_data = {"variant": session.variant, "rules": ctx.base.get("rules") or {},
                    "dealer": ctx.base["dealer"], "round_wind": ctx.base["round_wind"]}
    for key in ("tiles", "by", "seat", "indicator"):
        if key in body:
            request_data[key] = body[key]
    try:
        return web.json_response(analyze(request_data))
    except ScoringError as exc:
        raise Refused(422, ctx.explain(exc)) from None


async def confirm(request: web.Request) -> web.Response:
    """Book the hand with the wizard's Confirm transaction, only at the table mark its preview
    was computed on: a hand added or undone since is 409 with the fresh preview, nothing
    booked. The same Confirm sent twice books once (the mark moved with the first)."""
    caller, body = await caller_and_body(request)
    store, t = request.app[STORE_KEY], translator(caller.lang)
    session = await running(request, caller, book=True)
    mark = await store.table_mark(session.id)
    ctx = await wizard_ctx(store, session, caller.lang)
    events, draft = _read(ctx, body)
    changed = t("The table changed since this preview (a hand was added or undone). "
                "Check the new numbers and confirm again.")
    if body.get("mark") != mark:
        raise Refused(409, changed, html=screen(draft, ctx, 1).text, mark=mark)
    record = ctx.record(events)
    outcome = score(record).to_dict()
    draft.update(rev=1, table=mark, web=True)
    try:
        # an entry of the page's own, with no message: the wizard's open entry in the chat is
        # closed by it, as a newer /hand closes an older one
        saved, replaced = await store.create_draft(caller.chat_id, session_id=session.id, data=draft)
        try:
            hand = await store.confirm_hand(saved, record, outcome, entered_by=caller.person_id,
                                            table_mark=mark)
        except TableChanged:
            await store.cancel_draft(saved)
            raise Refused(409, changed, mark=await store.table_mark(session.id)) from None
    except StoreError as exc:
        raise Refused(409, refusal(t, exc)) from None
    totals = await store.totals(session.id)
    lines = recorded_lines(ctx, events, outcome, totals, session.stake_cents)
    announce = request.app.get(ANNOUNCE_KEY)
    if announce is not None:
        try:
            await announce(caller, lines, replaced)
        except Exception:  # booked: a message that could not be sent is only a missing echo
            log.warning("could not tell chat %s about hand %s", caller.chat_id, hand.id,
                        exc_info=True)
    return web.json_response({"html": "\n".join(lines), "hand_id": hand.id})


# -- settling up ----------------------------------------------------------------------------------

async def _settlement(store: Any, caller: Caller) -> dict[str, Any]:
    """/settle's screen for the chat (all its unsettled sessions), and its transfers and waiting
    payments as data, each with whether this caller is its payee (who says "received")."""
    t = translator(caller.lang)
    shown = await settlement(store, caller.chat_id, t, caller.lang, None)
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
    only_payee = t("Only the payee, or a chat admin, can confirm a payment.")
    try:
        if isinstance(body.get("payment"), int):
            payment = await store.get_payment(body["payment"])
            if payment is None or payment.chat_id != caller.chat_id:
                raise Refused(409, t("This payment is no longer open."))
            if not await caller.may_confirm(payment.to_person):
                raise Refused(403, only_payee)
            await confirm_received(store, caller.chat_id, payment.id, caller.person_id)
        else:
            payer, payee, cents = (body.get(k) for k in ("payer", "payee", "cents"))
            if not all(isinstance(n, int) and not isinstance(n, bool) and n > 0
                       for n in (payer, payee, cents)):
                raise Refused(422, t("This payment is no longer open."))
            if not await caller.may_confirm(payee):
                raise Refused(403, only_payee)
            await mark_paid(store, caller.chat_id, Transfer(payer, payee, cents), session_id=None,
                            by=caller.person_id, confirmed=True)
    except SettleRefused as exc:
        raise Refused(409, t(exc.msgid)) from None
    except (StaleTransfer, StoreError) as exc:
        raise Refused(409, refusal(t, exc) if isinstance(exc, StoreError)
                      else t("This payment is no longer open.")) from None
    return web.json_response(await _settlement(store, caller))


def add_routes(app: web.Application, store: Any, authorize: Authorize,
               announce: Announce | None = None) -> None:
    """The API under /app/api/ (the page itself: bot/web/page.py)."""
    app[STORE_KEY] = store
    app[AUTH_KEY] = authorize
    if announce is not None:
        app[ANNOUNCE_KEY] = announce
    app.router.add_get("/app/api/state", state)
    for path, handler in (("state", state), ("session", start_session), ("end", end_session),
                          ("preview", preview), ("tiles", tiles), ("confirm", confirm),
                          ("settle", settle_up), ("received", received)):
        app.router.add_post(f"/app/api/{path}", handler)
