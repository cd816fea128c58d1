"""Entering hands: the /hand wizard (one message edited in place), /hu one-liners, /undo."""

from __future__ import annotations

import asyncio
from collections import OrderedDict
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager, suppress
from dataclasses import dataclass
from typing import Any

from telegram import Bot, CallbackQuery, Update
from telegram.constants import ChatAction
from telegram.error import BadRequest, TelegramError
from telegram.ext import CallbackQueryHandler, CommandHandler, MessageHandler, filters

from db import (
    Draft,
    DraftClosed,
    NotFound,
    Session,
    StaleDraft,
    Store,
    StoreError,
    crash_point,
    message_hand_key,
)
from db.store import session_mark
from scoring import ScoringError, get_variant
from scoring.variant import in_lang

from ..books.hands import book_entry, undo_last
from ..books.refusals import AlreadyBooked, HandRefused, NothingToUndo, NotSeated, NotYours, TableMoved
from ..books.sessions import seated
from ..chat.miniapp import mini_app_rows
from ..chat.scope import (
    NOT_AT_TABLE,
    ChatScope,
    is_admin,
    may_act,
    refusal,
    require_session,
    scope,
    stale_button,
)
from ..chat.table import hand_number, recorded_lines, seat_names, wizard_ctx
from ..entry.controls import FormError
from ..entry.ctx import Ctx
from ..entry.hu import parse_wins
from ..entry.hu.ready import read_ready, ready_note
from ..entry.hu.ready import refusal as tiles_refusal
from ..entry.hu.tiles import read_tiles
from ..entry.hu.words import TILES, LineError
from ..entry.keyboard import KeyRefused, ReadRefused, refusal_text
from ..entry.photo_tiles import photo_tiles
from ..entry.preview import reads_from
from ..entry.record import hand_state
from ..entry.wizard import reading
from ..entry.wizard.draft import HandDraft, Read, Step, new_draft
from ..entry.wizard.flow import Finish, photo_draft, press, screen
from ..photo import PhotoError
from ..photo.chat import error_text, picture_of, read_message_photo
from ..photo.detect import NO_TILES
from ..plumbing.callbacks import Act, Family, Tap, Value, decode
from ..plumbing.limits import clip
from ..plumbing.messages import Button, Context, edit, reply, send, shows, store_of
from ..plumbing.throttle import throttle_of
from ..view.render import esc, totals_block, unit


async def _running(update: Update, context: Context, sc: ChatScope) -> Session | None:
    """The running session, if four are seated and the sender may enter hands."""
    session = await require_session(update, context, sc, act=True)
    if session is None:
        return None
    try:
        seated(session)
    except NotSeated:
        await reply(update, context, esc(sc.t("Four players must be seated first (Join, or "
                                              "/guest NAME).")))
        return None
    return session


async def _open_wizard(update: Update, context: Context, sc: ChatScope, session: Session,
                       draft: HandDraft, note: str = "", ctx: Ctx | None = None,
                       extra_rows: list[list[Button]] | None = None) -> None:
    """Store the draft under its entry's number, then post its message (removed again if the
    draft cannot be attached to it); an older open entry of the session is closed in the same
    transaction. `ctx`, built by the caller from the same session, is reused (with the hand it
    already scored) when the session is a snapshot; else it is read again after the mark."""
    store = store_of(context)
    # the mark before the reads the preview is computed on (a snapshot: read with them)
    snapshot = session_mark(session)
    mark = snapshot or await store.table_mark(session.id)
    if ctx is None or snapshot is None:
        ctx = await wizard_ctx(store, session, sc.lang, several=sc.several)
    draft.rev, draft.table = 1, mark
    view = screen(draft, ctx)
    if note:
        view.text = note + "\n\n" + view.text
    view.rows = view.rows + (extra_rows or [])
    try:
        saved, replaced = await store.create_draft(sc.chat_id, session_id=session.id,
                                                   data=draft.dump(), placeholder=_placeholder(draft))
    except StoreError as exc:
        await reply(update, context, esc(refusal(sc.t, exc)))
        return
    crash_point("after_draft_saved")
    for old in replaced:
        if old.message_id > 0:  # a placeholder never got its message
            try:
                await context.bot.edit_message_text(
                    esc(sc.t("This entry was replaced by a newer one.")), chat_id=old.chat_id,
                    message_id=old.message_id)
            except Exception:
                pass
    try:
        message = await reply(update, context, view.text, view.rows)
    except Exception:
        with suppress(StoreError):
            await store.cancel_draft(saved)  # no message shows it: forget it
        raise
    await _attach(context, store, saved, message.chat_id, message.message_id)


async def _attach(context: Context, store: Store, saved: Draft, chat_id: int,
                  message_id: int) -> None:
    """Give the draft its message's id; a message whose draft cannot have it is deleted (a
    keyboard without its draft must not stay), unless a tap that came first (another worker)
    attached the entry itself and recorded its hand: that message says so."""
    try:
        await store.attach_draft(saved, chat_id, message_id)
    except Exception as exc:
        if isinstance(exc, NotFound) and await store.hand_by_key(
                saved.session_id, message_hand_key(chat_id, message_id)) is not None:
            return
        with suppress(Exception):
            await context.bot.delete_message(chat_id, message_id)
        raise


def _placeholder(draft: HandDraft) -> int | None:
    """The message id an entry is stored under until its message is posted: its number, which
    its buttons name, made negative (no real message id is)."""
    return -draft.entry if draft.entry else None


async def cmd_hand(update: Update, context: Context) -> None:
    sc = await scope(update, context)
    session = await _running(update, context, sc)
    if session is not None:
        # the same hand in the page, where the Mini App is set up (a link, not a wizard key)
        await _open_wizard(update, context, sc, session, new_draft(),
                           extra_rows=mini_app_rows(context, sc.chat_id, sc.t))


async def cmd_hu(update: Update, context: Context) -> None:
    message = update.effective_message
    if message is not None and message.reply_to_message is not None \
            and picture_of(message.reply_to_message) is not None:
        await hu_photo(update, context)  # /hu answering a photo of the hand
        return
    sc = await scope(update, context)
    session = await _running(update, context, sc)
    if session is None:
        return
    ctx = await wizard_ctx(store_of(context), session, sc.lang, several=sc.several)
    try:
        events = parse_wins(ctx.variant, context.args or [], ctx.names)
        typed = {w["seat"]: "".join(w[TILES]) for e in events for w in e.get("winners", [])
                 if w.get(TILES)}
        read = read_tiles(ctx.variant, ctx.base, events)
        ready = read_ready(ctx.variant, ctx.base, events)
    except ScoringError as exc:  # tiles that do not make a winning (or waiting) hand
        await reply(update, context, "⚠️ " + esc(tiles_refusal(ctx, exc)))
        return
    except LineError as exc:
        kwargs = {k: clip(v) if isinstance(v, str) else v for k, v in exc.kwargs.items()}
        await reply(update, context, "⚠️ " + esc(sc.t(exc.msgid, **kwargs)) + "\n"
                    + esc(sc.t("See /help for the one-line format.")))
        return
    ended, exc = hand_state(ctx, events)
    if exc is not None:
        await reply(update, context, "⚠️ " + esc(ctx.explain(exc)))
        return
    # a whole hand goes to the preview; a blood battle's first win to the wizard, which asks
    # how the hand went on. The reading taken stays in the draft: every screen names it.
    draft = new_draft(events, step=Step.PREVIEW if ended else Step.MAIN)
    if read:
        draft.reads = {seat: Read.model_validate(r) for seat, r in reads_from(read, typed).items()}
    await _open_wizard(update, context, sc, session, draft, ready_note(ctx, ready), ctx)


async def hu_photo(update: Update, context: Context) -> None:
    """/hu as a photo's caption, or answering a photo: the tiles seen open in the tile keyboard
    for correction before anything is scored; the winner and how he won come from the words
    after /hu, else the wizard asks for them first."""
    sc = await scope(update, context)
    session = await _running(update, context, sc)
    if session is None:
        return
    message = update.effective_message
    words = (message.caption or message.text or "").split()[1:]
    store = store_of(context)
    ctx = await wizard_ctx(store, session, sc.lang, several=sc.several)
    if ctx.variant.tiles is None:  # a style entered by its features alone: no photo to read
        no_tiles = ScoringError("variant", "{variant} reads no tiles: enter the winner's features",
                                variant=in_lang(ctx.variant.title, ctx.lang))
        await reply(update, context, "⚠️ " + esc(tiles_refusal(ctx, no_tiles)))
        return
    events: list[dict[str, Any]] = []
    try:
        if words:
            events = parse_wins(ctx.variant, words, ctx.names)
    except LineError as exc:
        kwargs = {k: clip(v) if isinstance(v, str) else v for k, v in exc.kwargs.items()}
        await reply(update, context, "⚠️ " + esc(sc.t(exc.msgid, **kwargs)) + "\n"
                    + esc(sc.t("See /help for the one-line format.")))
        return
    try:
        async with _typing(context.bot, message.chat_id):  # reading takes up to ~20 s
            seen = await read_message_photo(context.bot, message)
    except PhotoError as exc:
        await reply(update, context, "⚠️ " + esc(error_text(sc.t, exc)))
        return
    kept = photo_tiles(ctx.variant, seen.names)
    if not kept.tiles:  # flowers alone, in a style that plays none: nothing of a hand was seen
        await reply(update, context, "⚠️ " + esc(error_text(sc.t, PhotoError(NO_TILES))))
        return
    unsure = [seen.names[i] for i in seen.uncertain]
    wins = [e for e in events if e.get("type") == "win"]  # a photo shows a win, not 流局
    # its flowers go in with the tiles where the style plays flowers; elsewhere they are left out
    draft = photo_draft(ctx, wins[:1], seen.names, unsure)
    note = "📷 " + esc(reading.photo_note(sc.t, kept))
    if draft.step is Step.MAIN:
        note += "\n" + esc(sc.t("First tap who won; the tiles open next."))
    await _open_wizard(update, context, sc, session, draft, note)


TYPING_EVERY = 4.5  # Telegram shows a chat action for about 5 s


@asynccontextmanager
async def _typing(bot: Bot, chat_id: int) -> AsyncIterator[None]:
    """The chat shows "typing…" while the body runs (a photo being read), renewed before it
    fades; a failed chat action is only a missing hint, never the reply's end."""
    async def keep() -> None:
        while True:
            with suppress(TelegramError):
                await bot.send_chat_action(chat_id, ChatAction.TYPING)
            await asyncio.sleep(TYPING_EVERY)

    task = asyncio.create_task(keep())
    try:
        yield
    finally:
        task.cancel()
        with suppress(asyncio.CancelledError):
            await task


@dataclass
class _Entry:
    """A wizard entry a button was tapped on: its stored draft, its data to change, its
    session, the table mark and the wizard's context."""

    saved: Draft
    draft: HandDraft
    session: Session
    mark: str
    ctx: Ctx


async def _open_entry(query: CallbackQuery, context: Context, sc: ChatScope,
                      tap: Tap | None) -> _Entry | None:
    """The entry of the wizard message a button belongs to; None when the tap was answered
    already (the entry is closed, its session over, or the tapper may not)."""
    store = store_of(context)
    message = query.message
    entry = tap.values.get("entry") if tap is not None else None
    saved = await _stored(store, message.chat.id, message.message_id, sc, entry)
    if saved is None:
        await _closed(query, context, sc, message.chat.id, message.message_id)
        return None
    session = sc.session if sc.session is not None and sc.session.id == saved.session_id \
        else await store.get_session(saved.session_id)
    if session.ended_at is not None:
        await store.delete_draft(saved.chat_id, saved.message_id)
        await query.answer(sc.t("This session is over."), show_alert=True)
        return None
    if not await may_act(context, sc, session, query.from_user.id):
        await query.answer(sc.t(NOT_AT_TABLE),
                           show_alert=True)
        return None
    # the mark before the reads the preview is computed on (a snapshot: read with them)
    mark = session_mark(session) or await store.table_mark(session.id)
    draft = HandDraft.load(saved.data)
    return _Entry(saved, draft, session, mark, await wizard_ctx(store, session, sc.lang, several=sc.several))


async def _stored(store: Store, chat_id: int, message_id: int, sc: ChatScope,
                  entry: Value) -> Draft | None:
    """The draft on this message (as read with the update's scope). A tap can beat the
    opener's attach_draft (the message is posted first, then given its draft; another worker
    may take the tap): its button names the entry, found under its placeholder and attached
    here, as the tap shows which message shows it."""
    if sc.message_id == message_id and sc.chat_id == chat_id:
        saved = sc.draft
    else:
        saved = await store.get_draft(chat_id, message_id)
    if saved is not None or not isinstance(entry, int) or entry <= 0:
        return saved
    waiting = await store.get_draft(chat_id, -entry)
    if waiting is None:
        return None
    with suppress(NotFound):  # closed meanwhile
        return await store.attach_draft(waiting, chat_id, message_id)
    return None


def _current(tap: Tap | None, family: Family, opened: _Entry) -> bool:
    """The tap is of the screen shown: its kind of button, its entry (where the draft knows it)
    and, for the wizard's, its version."""
    if tap is None or tap.act.family is not family:
        return False
    if opened.draft.entry is not None and tap.values["entry"] != opened.draft.entry:
        return False
    return family is not Family.WIZARD or tap.values["rev"] == opened.draft.rev


async def on_wizard_button(update: Update, context: Context) -> None:
    """A button of the wizard's message (bot/plumbing/callbacks.py, family WIZARD)."""
    query = update.callback_query
    sc = await scope(update, context)
    tap = decode(query.data)
    opened = await _open_entry(query, context, sc, tap)
    if opened is None:
        return
    if tap is None or not _current(tap, Family.WIZARD, opened):
        await _out_of_date(query, context, sc, opened)
        return
    if tap.act is Act.NOOP:  # a row's heading
        await query.answer()
        return
    try:
        finish = press(opened.draft, opened.ctx, tap)
    except FormError:
        await stale_button(query, sc.t)
        return
    if finish is Finish.CANCEL:
        await _cancel(query, context, sc, opened.saved)
    elif finish is Finish.CONFIRM:
        await _confirm(query, context, sc, opened)
    else:
        await _save_and_show(query, context, sc, opened, opened.mark)


async def _out_of_date(query: CallbackQuery, context: Context, sc: ChatScope,
                       opened: _Entry) -> None:
    """A screen older than the draft: show the current one instead of refusing forever."""
    view = screen(opened.draft, opened.ctx)  # not sent again if on screen already
    await _edit(query, context, view.text, view.rows)
    await query.answer(sc.t("That screen was out of date; here is the current one."),
                       show_alert=True)


async def _save(query: CallbackQuery, sc: ChatScope, store: Store, opened: _Entry,
                mark: str) -> bool:
    """Store the draft's next screen (it remembers the table it was computed on: a preview,
    and the form of the event that ends the hand, show payments and Confirm). False, the tap
    answered, when someone else's tap was stored first."""
    draft, saved = opened.draft, opened.saved
    draft.rev, draft.table = draft.rev + 1, mark
    try:
        await store.save_draft(saved.chat_id, saved.message_id, session_id=saved.session_id,
                               data=draft.dump(), expected_version=saved.version)
    except StaleDraft:  # a tap of someone else came first: the screen shows theirs
        await query.answer(sc.t("Someone changed this hand at the same moment; try again."),
                           show_alert=True)
        return False
    return True


async def _save_and_show(query: CallbackQuery, context: Context, sc: ChatScope, opened: _Entry,
                         mark: str, note: str | None = None) -> None:
    """Store the draft's next screen, then show it."""
    if not await _save(query, sc, store_of(context), opened, mark):
        return
    draft = opened.draft
    view = screen(draft, opened.ctx)
    if note:
        view.text += "\n\n⚠️ " + esc(note)
    await _edit(query, context, view.text, view.rows, spaced=draft.step is Step.KEYS)
    alert = note or (("⚠️ " + draft.error) if draft.error else None)
    await query.answer(alert[:190] if alert else None, show_alert=bool(alert))


async def _edit(query: CallbackQuery, context: Context, text: str,
                rows: list[list[Button]] | tuple[()] = (), *, spaced: bool = False) -> None:
    """Edit the wizard's message: at once, unless the tile keyboard edited it within the last
    second (or `spaced`: the keyboard opens), then in turn through the throttle."""
    throttle = throttle_of(context)
    message = query.message
    if shows(message, text, rows) and not throttle.busy(message.chat.id, message.message_id):
        # on screen already, nothing on its way to replace it (a stale or forged tap, one just
        # after another player's tap moved the screen): Telegram would refuse the edit
        return
    if spaced or throttle.recent(message.chat.id, message.message_id):
        await throttle.show_now(context.bot, message.chat.id, message.message_id, text, rows)
    else:
        await edit(query, text, rows)


async def _closed(query: CallbackQuery, context: Context, sc: ChatScope, chat_id: int,
                  message_id: int) -> None:
    """A button of an entry that is gone: say whether its hand was recorded."""
    t, store = sc.t, store_of(context)
    hand = None
    for table in sc.tables:  # the entry was at one of the running tables, if at any
        hand = await store.hand_by_key(table.id, message_hand_key(chat_id, message_id))
        if hand is not None:
            break
    if hand is not None:
        # the bot died before redrawing it (not a second tap on a message this process redrew)
        if getattr(query.message, "reply_markup", None) and \
                (chat_id, message_id) not in _finished(context):
            with suppress(BadRequest):
                await query.edit_message_reply_markup(None)
        await query.answer(t("Hand {n} is already recorded.", n=await hand_number(store, hand)),
                           show_alert=True)
    else:
        await query.answer(t("This hand entry is closed."), show_alert=True)


async def _cancel(query: CallbackQuery, context: Context, sc: ChatScope, saved: Draft) -> None:
    t, store = sc.t, store_of(context)
    try:
        await store.cancel_draft(saved)
    except DraftClosed as exc:
        if exc.hand is not None:  # Confirm was quicker: say so, do not pretend it was cancelled
            await query.answer(t("Too late to cancel: hand {n} is already recorded.",
                                 n=await hand_number(store, exc.hand)), show_alert=True)
        else:
            await query.answer(t("This hand entry is closed."), show_alert=True)
        return
    except StaleDraft:
        await query.answer(t("Someone changed this hand at the same moment; try again."),
                           show_alert=True)
        return
    await _edit(query, context, esc(t("Hand entry cancelled.")))
    await query.answer()


async def _confirm(query: CallbackQuery, context: Context, sc: ChatScope, opened: _Entry) -> None:
    """Record exactly what the preview showed (books.hands.book_entry): if the table changed
    since it was computed, show a fresh preview instead."""
    t, store, draft = sc.t, store_of(context), opened.draft
    try:
        booked = await book_entry(store, opened.session, opened.ctx, opened.saved, draft.events,
                                  shown_at=draft.table, mark=opened.mark, by=sc.person_id)
    except TableMoved as moved:
        if moved.late:  # the store saw it: the table as it is now
            opened.ctx = await wizard_ctx(store, moved.session, sc.lang, several=sc.several)
        else:
            draft.step = Step.PREVIEW
        await _save_and_show(query, context, sc, opened, moved.mark, t(
            "The table changed since this preview (a hand was added or undone, or a seat "
            "changed hands). Check the new names and numbers and confirm again."))
        return
    except (HandRefused, DraftClosed, StaleDraft, NotFound, AlreadyBooked) as exc:
        await _not_booked(query, context, sc, opened.ctx, exc)
        return
    await _edit(query, context, "\n".join(recorded_lines(
        opened.ctx, booked.record["events"], booked.outcome, booked.totals, booked.stake_cents)))
    finished = _finished(context)
    finished[(query.message.chat.id, query.message.message_id)] = None
    while len(finished) > FINISHED_KEEP:
        finished.popitem(last=False)
    await query.answer(t("Recorded."))


async def _not_booked(query: CallbackQuery, context: Context, sc: ChatScope, ctx: Ctx,
                      exc: Exception) -> None:
    """Why Confirm recorded nothing: the hand refused, the entry cancelled, changed or closed
    meanwhile, or its hand recorded already (a second tap)."""
    t = sc.t
    if isinstance(exc, HandRefused):
        await query.answer(("⚠️ " + ctx.explain(exc.error))[:190], show_alert=True)
    elif isinstance(exc, DraftClosed):
        await _edit(query, context, esc(t("Hand entry cancelled.")))
        await query.answer(t("This entry was cancelled; nothing was recorded."), show_alert=True)
    elif isinstance(exc, StaleDraft):
        await query.answer(t("Someone changed this hand at the same moment; try again."),
                           show_alert=True)
    elif isinstance(exc, AlreadyBooked):
        await query.answer(t("Hand {n} is already recorded.", n=exc.number), show_alert=True)
    else:
        await query.answer(t("This hand entry is closed."), show_alert=True)


# Wizard messages this process redrew as "recorded" (the latest ones): a second tap of their
# Confirm carries the keyboard as it was when tapped, gone since.
FINISHED_KEEP = 1024


def _finished(context: Context) -> OrderedDict[tuple[int, int], None]:
    return context.application.bot_data.setdefault("finished_wizards", OrderedDict())


async def cmd_undo(update: Update, context: Context) -> None:
    sc = await scope(update, context)
    t, store = sc.t, store_of(context)
    session = await require_session(update, context, sc)
    if session is None:
        return

    async def anyone() -> bool:  # the scorekeeper, a chat admin (a private chat: its owner)
        return (sc.is_private or session.keeps_score(sc.person_id)
                or await is_admin(context, sc.chat_id, update.effective_user.id))

    try:
        undone = await undo_last(store, session, by=sc.person_id, anyone=anyone,
                                 reason=" ".join(context.args or []))
    except NothingToUndo:
        await reply(update, context, esc(t("There is no hand to undo.")))
        return
    except NotYours:
        await reply(update, context, esc(t("Only whoever entered the hand, the scorekeeper or a "
                                           "chat admin can undo it.")))
        return
    except StoreError as exc:
        await reply(update, context, esc(refusal(t, exc)))
        return
    session = undone.session
    names = await seat_names(store, session)
    at = esc(t("Table {n}", n=session.number)) + " · " if sc.several else ""
    lines = ["↩ " + at + esc(t("Hand {n} undone; it stays in /history, struck through.",
                               n=undone.number)), ""]
    lines += totals_block(t, names, undone.totals, session.stake_cents,
                          u=unit(get_variant(session.variant), sc.lang))
    await send(context, sc.chat_id, "\n".join(lines))


async def on_key(update: Update, context: Context) -> None:
    """A key of the tile keyboard (bot/plumbing/callbacks.py, family KEYS). The tap is answered
    once stored; the message is edited through the throttle (at most once a second, the last
    state wins), so a quick run of taps neither waits on Telegram nor runs into its limits. The
    keys carry no screen version: a tap on a keyboard not yet redrawn is still the tile meant."""
    query = update.callback_query
    sc = await scope(update, context)
    t, store = sc.t, store_of(context)
    tap = decode(query.data)
    opened = await _open_entry(query, context, sc, tap)
    if opened is None:
        return
    draft, ctx = opened.draft, opened.ctx
    draft.error = None
    try:
        if tap is None or not _current(tap, Family.KEYS, opened):
            raise FormError(query.data or "")
        reading.key_press(draft, ctx, tap.act, str(tap.values.get("tile") or ""))
    except FormError:
        await _out_of_date(query, context, sc, opened)
        return
    except KeyRefused as exc:
        await query.answer(refusal_text(t, exc)[:190])
        return
    except ReadRefused as exc:
        draft.error = exc.text  # shown under the keyboard until the next tap
    if not await _save(query, sc, store, opened, opened.mark):
        return
    # answered once the tap is stored: a tap the database refused is told so, not taken silently
    alert = ("⚠️ " + draft.error)[:190] if draft.error else None
    await query.answer(alert, show_alert=bool(alert))
    view = screen(draft, ctx)
    saved = opened.saved
    throttle_of(context).show(context.bot, saved.chat_id, saved.message_id, view.text, view.rows)


HANDLERS = [
    CommandHandler("hand", cmd_hand),
    CommandHandler("hu", cmd_hu),
    # any file: one that is no picture is told so (read_message_photo), not left unanswered
    MessageHandler((filters.PHOTO | filters.Document.ALL)
                   & filters.CaptionRegex(r"^/hu(@\w+)?(\s|$)"), hu_photo),
    CallbackQueryHandler(on_key, pattern=Family.KEYS.pattern),
    CommandHandler("undo", cmd_undo),
    CallbackQueryHandler(on_wizard_button, pattern=Family.WIZARD.pattern),
]
