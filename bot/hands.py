"""Entering hands: the /hand wizard (one message edited in place), /hu one-liners, /undo."""

from __future__ import annotations

from typing import Any

from telegram import Update
from telegram.ext import CallbackQueryHandler, CommandHandler

from db import StaleDraft, StoreError
from scoring import ScoringError, score

from .common import (
    ChatScope,
    Context,
    edit,
    is_admin,
    may_act,
    refusal,
    reply,
    require_session,
    scope,
    seat_names,
    send,
    store_of,
    wizard_ctx,
)
from .forms import FormError
from .oneline import LineError, parse_hu
from .render import esc, outcome_lines, totals_block
from .wizard import Ctx, new_draft, press, screen


async def _running(update: Update, context: Context, sc: ChatScope) -> Any | None:
    """The running session, if four are seated and the sender may enter hands."""
    session = await require_session(update, context, sc, act=True)
    if session is not None and None in session.seats:
        await reply(update, context, esc(sc.t("Four players must be seated first (Join, or "
                                              "/guest NAME).")))
        return None
    return session


async def _open_wizard(update: Update, context: Context, sc: ChatScope, session: Any,
                       draft: dict[str, Any]) -> None:
    """Post the wizard message and keep its draft; an older open entry is closed first."""
    store = store_of(context)
    for old in await store.drafts_for_session(session.id):
        await store.delete_draft(old.chat_id, old.message_id)
        try:
            await context.bot.edit_message_text(
                esc(sc.t("This entry was replaced by a newer one.")), chat_id=old.chat_id,
                message_id=old.message_id)
        except Exception:
            pass
    ctx = await wizard_ctx(store, session, sc.lang)
    draft["rev"] = 1
    view = screen(draft, ctx, draft["rev"])
    message = await reply(update, context, view.text, view.rows)
    await store.save_draft(message.chat_id, message.message_id, session_id=session.id,
                           data=draft, expected_version=None)


async def cmd_hand(update: Update, context: Context) -> None:
    sc = await scope(update, context)
    session = await _running(update, context, sc)
    if session is not None:
        await _open_wizard(update, context, sc, session, new_draft())


async def cmd_hu(update: Update, context: Context) -> None:
    sc = await scope(update, context)
    session = await _running(update, context, sc)
    if session is None:
        return
    ctx = await wizard_ctx(store_of(context), session, sc.lang)
    try:
        event = parse_hu(ctx.variant, context.args or [])
        score(ctx.record([event]))
    except LineError as exc:
        await reply(update, context, "⚠️ " + esc(sc.t(exc.msgid, **exc.kwargs)) + "\n"
                    + esc(sc.t("See /help for the one-line format.")))
        return
    except ScoringError as exc:
        await reply(update, context, "⚠️ " + esc(ctx.explain(exc)))
        return
    await _open_wizard(update, context, sc, session, new_draft([event], step="preview"))


async def on_wizard_button(update: Update, context: Context) -> None:
    """h:<rev>:<op>[:<a>[:<b>]] on a wizard message."""
    query = update.callback_query
    sc = await scope(update, context)
    t, store = sc.t, store_of(context)
    message = query.message
    saved = await store.get_draft(message.chat.id, message.message_id)
    if saved is None:
        await query.answer(t("This hand entry is closed."), show_alert=True)
        return
    session = sc.session if sc.session is not None and sc.session.id == saved.session_id \
        else await store.get_session(saved.session_id)
    if session.ended_at is not None:
        await store.delete_draft(saved.chat_id, saved.message_id)
        await query.answer(t("This session is over."), show_alert=True)
        return
    if not await may_act(context, sc, session, query.from_user.id):
        await query.answer(t("Only seated players and chat admins can do that."), show_alert=True)
        return
    parts = (query.data or "").split(":")
    draft = dict(saved.data)
    if len(parts) < 3 or parts[1] != str(draft.get("rev")):
        await query.answer(t("This screen is out of date; use the buttons of the latest one."),
                           show_alert=True)
        return
    op, a, b = parts[2], *[*parts[3:5], "", ""][:2]
    if op == "_":
        await query.answer()
        return
    ctx = await wizard_ctx(store, session, sc.lang)
    try:
        action = press(draft, ctx, op, a, b)
    except FormError:
        await query.answer(t("That button is no longer valid."), show_alert=True)
        return
    if action == "cancel":
        await store.delete_draft(saved.chat_id, saved.message_id)
        await edit(query, esc(t("Hand entry cancelled.")))
        await query.answer()
        return
    if action == "confirm":
        await _confirm(query, context, sc, session, ctx, draft, saved)
        return
    draft["rev"] = int(draft["rev"]) + 1
    try:
        await store.save_draft(saved.chat_id, saved.message_id, session_id=session.id, data=draft,
                               expected_version=saved.version)
    except StaleDraft:
        await query.answer(t("Someone changed this hand at the same moment; try again."),
                           show_alert=True)
        return
    view = screen(draft, ctx, draft["rev"])
    await edit(query, view.text, view.rows)
    await query.answer(("⚠️ " + draft["error"])[:190] if draft.get("error") else None,
                       show_alert=bool(draft.get("error")))


async def _confirm(query: Any, context: Context, sc: ChatScope, session: Any, ctx: Ctx,
                   draft: dict[str, Any], saved: Any) -> None:
    t, store = sc.t, store_of(context)
    record = ctx.record(draft["events"])
    try:
        outcome = score(record).to_dict()
    except ScoringError as exc:
        await query.answer(("⚠️ " + ctx.explain(exc))[:190], show_alert=True)
        return
    key = f"draft:{saved.chat_id}:{saved.message_id}"
    hand = await store.record_hand(session.id, record, outcome, entered_by=sc.person_id,
                                   idempotency_key=key)
    await store.delete_draft(saved.chat_id, saved.message_id)
    if not hand.created:
        await query.answer(t("This hand is already recorded."), show_alert=True)
        return
    session = await store.get_session(session.id)
    totals = await store.totals(session.id)
    lines = ["✅ <b>" + esc(t("Hand {n} recorded", n=hand.seq)) + "</b>", ""]
    lines += outcome_lines(t, sc.lang, ctx.variant, ctx.names, outcome)
    lines += ["", "<b>" + esc(t("Totals")) + "</b>"]
    lines += totals_block(t, ctx.names, totals, session.stake_cents, outcome["next_dealer"])
    if outcome.get("level_over"):
        lines += ["", "🏁 " + esc(t("The level is over; everyone starts the next one afresh."))]
    await edit(query, "\n".join(lines))
    await query.answer(t("Recorded."))


async def cmd_undo(update: Update, context: Context) -> None:
    sc = await scope(update, context)
    t, store = sc.t, store_of(context)
    session = await require_session(update, context, sc)
    if session is None:
        return
    last = await store.last_hand(session.id)
    if last is None:
        await reply(update, context, esc(t("There is no hand to undo.")))
        return
    own = sc.person_id is not None and last.entered_by == sc.person_id
    if not (own or sc.is_private or await is_admin(context, sc.chat_id, update.effective_user.id)):
        await reply(update, context, esc(t("Only whoever entered the hand, or a chat admin, can "
                                           "undo it.")))
        return
    reason = " ".join(context.args or []).strip() or "undo"
    try:
        hand = await store.void_hand(last.id, by=sc.person_id, reason=reason[:200])
    except StoreError as exc:
        await reply(update, context, esc(refusal(t, exc)))
        return
    session = await store.get_session(session.id)
    names = await seat_names(store, session)
    lines = ["↩ " + esc(t("Hand {n} undone; it stays in /history, struck through.", n=hand.seq)),
             ""]
    lines += totals_block(t, names, await store.totals(session.id), session.stake_cents)
    await send(context, sc.chat_id, "\n".join(lines))


HANDLERS = [
    CommandHandler("hand", cmd_hand),
    CommandHandler("hu", cmd_hu),
    CommandHandler("undo", cmd_undo),
    CallbackQueryHandler(on_wizard_button, pattern=r"^h:"),
]
