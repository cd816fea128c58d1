"""Who is asking and where: the chat an update came from, its language, who may press a
session's buttons, the running session, and the store's refusals in the chat's words."""

from __future__ import annotations

from dataclasses import dataclass

from telegram import CallbackQuery, Chat, Update, User
from telegram.constants import ChatMemberStatus
from telegram.error import BadRequest

from db import (
    AlreadyHandled,
    AlreadySeated,
    AlreadyVoided,
    Draft,
    NotFound,
    SeatTaken,
    Session,
    SessionEnded,
    SessionLocked,
    SessionSettled,
    SessionView,
    StoreError,
)

from ..plumbing.messages import Context, reply, store_of
from ..view.i18n import N_, Translator, lang_from_code, translator
from ..view.render import esc


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
    def t(self) -> Translator:
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


async def running_session(context: Context, sc: ChatScope) -> Session | None:
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


async def may_act(context: Context, sc: ChatScope, session: Session, user_id: int) -> bool:
    """Seated players, the session's scorekeepers (whoever started it and whom the table
    named) and chat admins may press a session's buttons (private chat: its owner)."""
    if sc.is_private or (sc.person_id is not None and sc.person_id in session.seats):
        return True
    if session.keeps_score(sc.person_id):
        return True
    return await is_admin(context, sc.chat_id, user_id)


async def require_session(update: Update, context: Context, sc: ChatScope, *,
                          act: bool = False) -> Session | None:
    """The chat's running session; None after telling the chat why not (none is running, or,
    with `act`, the sender is neither seated nor an admin)."""
    session = await running_session(context, sc)
    if session is None:
        await reply(update, context, esc(sc.t("No session is running. Start one with /new.")))
        return None
    if act and not await may_act(context, sc, session, update.effective_user.id):  # type: ignore[union-attr]
        await reply(update, context, esc(sc.t(NOT_AT_TABLE)))
        return None
    return session


NOT_AT_TABLE = N_("Only seated players, the scorekeeper and chat admins can do that.")

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


def refusal(t: Translator, exc: StoreError) -> str:
    """A store refusal as a short sentence in the chat's language (plain text)."""
    for kind, msgid in _REFUSALS:
        if isinstance(exc, kind):
            return t(msgid)
    return t("That could not be saved; nothing was changed.")


STALE_BUTTON = N_("That button is no longer valid.")


async def stale_button(query: CallbackQuery, t: Translator) -> None:
    """Answer a tap on a button whose screen or offer is gone (the one reply for all of them)."""
    await query.answer(t(STALE_BUTTON), show_alert=True)
