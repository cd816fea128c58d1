"""What every handler needs: the store, the chat's language, who may press, the table state,
and sending/editing that survives Telegram's refusals (not modified, chat migrated)."""

from __future__ import annotations

import logging
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from telegram import CallbackQuery, Chat, InlineKeyboardButton, InlineKeyboardMarkup, Message, Update, User
from telegram.constants import ChatMemberStatus, ParseMode
from telegram.error import BadRequest, ChatMigrated
from telegram.ext import ContextTypes

from db import (
    AlreadyHandled,
    AlreadySeated,
    AlreadyVoided,
    Draft,
    NotFound,
    SeatTaken,
    SessionEnded,
    SessionLocked,
    SessionSettled,
    SessionView,
    Store,
    StoreError,
)
from scoring import get_variant
from scoring.settlement import parse_stake
from scoring.variant import Variant

from .i18n import N_, lang_from_code, translator
from .render import esc
from .wizard import Button, Ctx

log = logging.getLogger(__name__)
Context = ContextTypes.DEFAULT_TYPE
ALL_HANDS = 1_000_000  # "every hand" for store.history


def store_of(context: Context) -> Store:
    return context.application.bot_data["store"]


def display_name(user: User) -> str:
    return user.full_name or user.username or str(user.id)


@dataclass
class ChatScope:
    """The chat an update came from, its language and the person who sent it; with `loaded`,
    also the chat's running session (None: none runs) as read at the start of the update."""

    chat_id: int
    lang: str
    person_id: int | None
    is_private: bool
    session: SessionView | None = None
    loaded: bool = False
    # A button's update: its message, and the draft on it as read with the rest (None: none)
    message_id: int | None = None
    draft: Draft | None = None

    @property
    def t(self) -> Any:
        return translator(self.lang)


async def scope(update: Update, context: Context) -> ChatScope:
    chat: Chat = update.effective_chat  # type: ignore[assignment]
    user = update.effective_user
    store = store_of(context)
    lang = lang_from_code(user.language_code if user else None)
    query = update.callback_query
    message_id = query.message.message_id if query is not None and query.message else None
    # One read for the chat, the sender, the running session and a button's draft; writes
    # only what is new.
    if user is not None and not user.is_bot:
        found = await store.chat_context(chat.id, language=lang, telegram_id=user.id,
                                         name=display_name(user), username=user.username,
                                         language_code=user.language_code, message_id=message_id)
    else:
        found = await store.chat_context(chat.id, language=lang, message_id=message_id)
    language = found.chat.language if found.chat is not None else None
    _known_languages(context)[chat.id] = language or lang
    person_id = found.person.id if found.person is not None else None
    return ChatScope(chat.id, language or lang, person_id, chat.type == Chat.PRIVATE,
                     session=found.session, loaded=True, message_id=message_id, draft=found.draft)


async def running_session(context: Context, sc: ChatScope) -> Any | None:
    """The chat's running session: from the scope when it was read with it (no write since)."""
    if sc.loaded:
        return sc.session
    return await store_of(context).running_session(sc.chat_id)


_KNOWN_LANGUAGES_MAX = 50_000


def _known_languages(context: Context) -> dict[int, str]:
    """Each chat's language as last read from the database: what a reply uses when the
    database cannot be asked (insertion-ordered; the oldest are forgotten first)."""
    known: dict[int, str] = context.application.bot_data.setdefault("chat_languages", {})
    while len(known) > _KNOWN_LANGUAGES_MAX:
        del known[next(iter(known))]
    return known


def fallback_language(update: Update, context: Context) -> str:
    """The chat's language without asking the database: as last seen, else the sender's
    Telegram language."""
    chat, user = update.effective_chat, update.effective_user
    known = _known_languages(context).get(chat.id) if chat is not None else None
    return known or lang_from_code(user.language_code if user else None)


async def is_admin(context: Context, chat_id: int, user_id: int) -> bool:
    try:
        member = await context.bot.get_chat_member(chat_id, user_id)
    except BadRequest:
        return False
    return member.status in (ChatMemberStatus.ADMINISTRATOR, ChatMemberStatus.OWNER)


async def may_act(context: Context, sc: ChatScope, session: Any, user_id: int) -> bool:
    """Seated players and chat admins may press a session's buttons (private chat: its owner)."""
    if sc.is_private or (sc.person_id is not None and sc.person_id in session.seats):
        return True
    return await is_admin(context, sc.chat_id, user_id)


async def require_session(update: Update, context: Context, sc: ChatScope, *,
                          act: bool = False) -> Any | None:
    """The chat's running session; None after telling the chat why not (none is running, or,
    with `act`, the sender is neither seated nor an admin)."""
    session = await running_session(context, sc)
    if session is None:
        await reply(update, context, esc(sc.t("No session is running. Start one with /new.")))
        return None
    if act and not await may_act(context, sc, session, update.effective_user.id):  # type: ignore[union-attr]
        await reply(update, context, esc(sc.t("Only seated players and chat admins can do that.")))
        return None
    return session


async def last_session(store: Store, chat_id: int) -> Any | None:
    """The chat's running session, else its newest (what /export, /history and /settle
    session speak of)."""
    running = await store.running_session(chat_id)
    if running is not None:
        return running
    sessions = await store.chat_sessions(chat_id, include_settled=True)
    return sessions[0] if sessions else None


async def seat_names(store: Store, session: Any) -> list[str | None]:
    if isinstance(session, SessionView):
        return list(session.names)
    people = await store.get_people(pid for pid in session.seats if pid is not None)
    return [people[pid].name if pid in people else None for pid in session.seats]


def has_bankroll(variant: Variant, rules: dict[str, Any]) -> bool:
    return any(variant.initial_balances(variant.Rules.model_validate(rules)))


async def table_state(store: Store, session: Any) -> dict[str, Any]:
    """The next hand's record without events: dealer, streak and round wind from the last
    hand's outcome, and (Cixi) the points each seat holds."""
    variant = get_variant(session.variant)
    rules = variant.Rules.model_validate(session.rules)
    base: dict[str, Any] = {"variant": session.variant, "rules": dict(session.rules),
                            "dealer": 0, "dealer_streak": 1, "round_wind": 0}
    if isinstance(session, SessionView):
        out = session.last_outcome
    else:
        last = await store.last_hand(session.id)
        out = last.outcome if last is not None else None
    start = list(variant.initial_balances(rules))
    if out is not None:
        base.update(dealer=out["next_dealer"], dealer_streak=out["next_dealer_streak"],
                    round_wind=out["next_round_wind"])
        if any(start) and not out.get("level_over"):
            start = list(out["balances"])
    if any(start):
        base["balances"] = start
    return base


async def wizard_ctx(store: Store, session: Any, lang: str) -> Ctx:
    return Ctx(
        variant=get_variant(session.variant), lang=lang, names=await seat_names(store, session),
        base=await table_state(store, session), hand_no=await standing_hands(store, session) + 1,
        totals=tuple(await session_totals(store, session)), stake_cents=session.stake_cents)


async def session_totals(store: Store, session: Any) -> tuple[int, int, int, int]:
    """Points per seat: from the snapshot when the session is one, else read."""
    if isinstance(session, SessionView):
        return session.totals
    return await store.totals(session.id)


async def standing_hands(store: Store, session: Any) -> int:
    """How many of the session's hands stand: from the snapshot when the session is one."""
    if isinstance(session, SessionView):
        return session.standing_hands
    return await store.standing_hands(session.id)


# What the store's refusals mean to a player; its own messages are English and name ids.
_REFUSALS: tuple[tuple[type[StoreError], str], ...] = (
    # Telegram delivered the update again after the bot was restarted; it was done the first time
    (AlreadyHandled, N_("That was already done; nothing was changed again.")),
    (SessionLocked, N_("Seats are fixed once the first hand is recorded.")),
    (SeatTaken, N_("That seat is taken.")),
    (AlreadySeated, N_("That player already has a seat.")),
    (AlreadyVoided, N_("That hand is already undone.")),
    (SessionSettled, N_("This session is already settled.")),
    (SessionEnded, N_("This session has ended.")),
    (NotFound, N_("That no longer exists.")),
)


def refusal(t: Any, exc: StoreError) -> str:
    """A store refusal as a short sentence in the chat's language (plain text)."""
    for kind, msgid in _REFUSALS:
        if isinstance(exc, kind):
            return t(msgid)
    return t("That could not be saved; nothing was changed.")


def parse_amount(text: str, max_cents: int) -> int:
    """A typed amount ("12.5") in cents: plain ASCII digits, above 0, at most `max_cents`
    (ValueError otherwise)."""
    cents = parse_stake(text)
    if cents > max_cents:
        raise ValueError(f"at most {max_cents} cents")
    return cents


STALE_BUTTON = N_("That button is no longer valid.")


async def stale_button(query: CallbackQuery, t: Any) -> None:
    """Answer a tap on a button whose screen or offer is gone (the one reply for all of them)."""
    await query.answer(t(STALE_BUTTON), show_alert=True)


def keyboard(rows: Sequence[Sequence[Button]]) -> InlineKeyboardMarkup | None:
    if not rows:
        return None
    return InlineKeyboardMarkup([[InlineKeyboardButton(b.text, callback_data=b.data, style=b.style)
                                  for b in row] for row in rows if row])


async def send(context: Context, chat_id: int, text: str,
               rows: Sequence[Sequence[Button]] = ()) -> Message:
    """Send HTML; when the group became a supergroup, move its data and send there."""
    try:
        return await context.bot.send_message(chat_id, text, parse_mode=ParseMode.HTML,
                                              reply_markup=keyboard(rows))
    except ChatMigrated as exc:
        await store_of(context).migrate_chat(chat_id, exc.new_chat_id)
        return await context.bot.send_message(exc.new_chat_id, text, parse_mode=ParseMode.HTML,
                                              reply_markup=keyboard(rows))


async def edit(query: CallbackQuery, text: str, rows: Sequence[Sequence[Button]] = ()) -> None:
    """Edit the message in place; an unchanged screen is not an error."""
    try:
        await query.edit_message_text(text, parse_mode=ParseMode.HTML, reply_markup=keyboard(rows))
    except BadRequest as exc:
        if "not modified" not in str(exc).lower():
            raise


async def reply(update: Update, context: Context, text: str,
                rows: Sequence[Sequence[Button]] = ()) -> Message:
    return await send(context, update.effective_chat.id, text, rows)  # type: ignore[union-attr]
