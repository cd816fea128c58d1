"""Who is asking and where: the chat an update came from, its language, who may press a
session's buttons, the running session (of several tables, the one the update is about, or a
question with a button for each), and the store's refusals in the chat's words."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from telegram import CallbackQuery, Chat, Message, Update, User
from telegram.constants import ChatMemberStatus
from telegram.error import BadRequest

from db import (
    AlreadyHandled,
    AlreadySeated,
    AlreadyVoided,
    Draft,
    NotFound,
    SeatedElsewhere,
    SeatTaken,
    Session,
    SessionEnded,
    SessionLocked,
    SessionSettled,
    SessionView,
    StoreError,
)

from ..plumbing.callbacks import Act, Tap, decode, encode
from ..plumbing.messages import Button, Context, reply, store_of
from ..view.i18n import N_, Translator, lang_from_code, translator
from ..view.render import colon, comma, esc, hands_count, name_html, shown_name


def display_name(user: User) -> str:
    return user.full_name or user.username or str(user.id)


@dataclass
class ChatScope:
    """The chat an update came from, its language and the person who sent it; with `loaded`,
    also the chat's running sessions (`tables`) as read at the start of the update and the one
    the update is about (`session`; None: none runs, or several do and it is unclear which:
    `unclear`)."""

    chat_id: int
    lang: str
    person_id: int | None
    is_private: bool
    session: SessionView | None = None
    loaded: bool = False
    # A button's update: its message, and the draft on it as read with the rest (None: none)
    message_id: int | None = None
    draft: Draft | None = None
    tables: tuple[SessionView, ...] = ()

    @property
    def t(self) -> Translator:
        return translator(self.lang)

    @property
    def several(self) -> bool:
        """More than one table runs in the chat (the screens then name theirs)."""
        return len(self.tables) > 1

    @property
    def unclear(self) -> bool:
        """Several tables run and nothing says which one this update is about."""
        return self.session is None and len(self.tables) > 1

    def seated_at(self) -> SessionView | None:
        """The running table the sender sits at, if any."""
        return next((t for t in self.tables if self.person_id is not None
                     and self.person_id in t.seats), None)


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
    session = found.session
    # a button that names its table (a lobby's, a table question's) is about that table
    tap = decode(query.data) if query is not None and query.data else None
    named = tap.get("session") if tap is not None else None
    if named is not None:
        session = next((t for t in found.tables if t.id == named), session)
    return ChatScope(chat.id, language or lang, person_id, chat.type == Chat.PRIVATE,
                     session=session, loaded=True, message_id=message_id, draft=found.draft,
                     tables=found.tables)


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


async def is_member(context: Context, sc: ChatScope, telegram_id: int) -> bool:
    """Whether this Telegram user is in the chat now (the private chat: its user alone)."""
    if sc.is_private:
        return telegram_id == sc.chat_id
    try:
        member = await context.bot.get_chat_member(sc.chat_id, telegram_id)
    except BadRequest:
        return False
    return member.status not in (ChatMemberStatus.LEFT, ChatMemberStatus.BANNED)


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
    """The chat's running session (of several, the sender's table); None after telling the
    chat why not (none is running; several are and the sender sits at none: a question with
    a button per table; with `act`, the sender is neither seated nor an admin)."""
    if sc.unclear:
        await ask_table(update, context, sc)
        return None
    session = await running_session(context, sc)
    if session is None:
        await reply(update, context, esc(sc.t("No session is running. Start one with /new.")))
        return None
    if act and not await may_act(context, sc, session, update.effective_user.id):  # type: ignore[union-attr]
        await reply(update, context, esc(sc.t(NOT_AT_TABLE)))
        return None
    return session


# -- which table: a question with a button for each ------------------------------------------

TABLE_COMMANDS = "table_commands"  # bot_data: command word -> its handler (bot/app.py fills it)


def table_button_label(t: Translator, table: SessionView) -> str:
    names = [shown_name(n, 12) for n in table.names if n]
    return t("Table {n}", n=table.number) + (": " + ", ".join(names) if names else "")


def table_line(t: Translator, table: SessionView) -> str:
    """A running table in one line of HTML: its number, who sits there, its hands."""
    names = comma(t).join(name_html(n) for n in table.names if n) or "—"
    return ("<b>" + esc(t("Table {n}", n=table.number)) + "</b>" + colon(t) + names + " · "
            + esc(hands_count(t, table.standing_hands)))


async def ask_table(update: Update, context: Context, sc: ChatScope,
                    extra: Sequence[Sequence[Button]] = (), note: str = "") -> None:
    """Several tables run and the command does not say which: ask, a button for each table,
    which runs the command (with the words typed after it) for that table when its asker taps
    it. The question's first line is the command as typed: what the tap runs (read back from
    the message, so any worker, after a restart too, answers it). A command that cannot be
    asked again (none is registered, or it came with a file) is told to sit down first."""
    t = sc.t
    message = update.effective_message
    words = (message.text or message.caption or "").split() if message is not None else []
    command = words[0][1:].partition("@")[0].lower() if words and words[0].startswith("/") else ""
    known = context.application.bot_data.get(TABLE_COMMANDS, {})
    if message is not None and _carries_a_file(message):  # a photo cannot ride on a button
        known = {}
    line = " ".join(["/" + command, *(context.args or ())])
    asks = command in known and len(line) <= MAX_QUESTION_LINE
    lines = ["<code>" + esc(line) + "</code>"] if asks else []
    lines += [note] if note else []
    lines.append(esc(t("{n} tables are running here; which one do you mean?", n=len(sc.tables))))
    lines += [table_line(t, table) for table in sc.tables]
    rows = [list(row) for row in extra]
    if asks:
        rows = [[Button(table_button_label(t, table),
                        encode(Act.PICK_TABLE, (table.id,), command, sc.person_id or 0))]
                for table in sc.tables] + rows
    else:
        lines.append(esc(t("Sit down at one of them (Join) to use this command there.")))
    await reply(update, context, "\n".join(lines), rows)


MAX_QUESTION_LINE = 1000  # a command line longer than this is not asked about (one message)


def asked_command(text: str | None) -> tuple[str, list[str]] | None:
    """The command and its words a table question asks about, from its text as Telegram
    shows it (its first line, written by `ask_table`); None when it carries none."""
    first = (text or "").split("\n", 1)[0].split()
    if not first or not first[0].startswith("/"):
        return None
    return first[0][1:], first[1:]


def _carries_a_file(message: Message) -> bool:
    """The command came with a photo or file (its caption), or answers one (/hu on a photo)."""
    answered = message.reply_to_message
    return bool(message.photo or message.document
                or (answered is not None and (answered.photo or answered.document)))

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
    if isinstance(exc, SeatedElsewhere):  # names the other table
        return t("That player already sits at table {n} in this chat; one person plays at one "
                 "table at a time. Leave that seat (or /end that table) first.", n=exc.number)
    for kind, msgid in _REFUSALS:
        if isinstance(exc, kind):
            return t(msgid)
    return t("That could not be saved; nothing was changed.")


STALE_BUTTON = N_("That button is no longer valid.")


async def stale_button(query: CallbackQuery, t: Translator) -> None:
    """Answer a tap on a button whose screen or offer is gone (the one reply for all of them)."""
    await query.answer(t(STALE_BUTTON), show_alert=True)


async def tapped_session(context: Context, sc: ChatScope,
                         query: CallbackQuery) -> tuple[Tap, Session] | None:
    """A session's button (its data names the session): the tap and the running session it
    names, or None when the button is stale or that session is over (the tap answered)."""
    tap = decode(query.data)
    if tap is None:
        await stale_button(query, sc.t)
        return None
    session = await running_session(context, sc)
    if session is None or tap.get("session") != session.id:
        await query.answer(sc.t("This session is over."), show_alert=True)
        return None
    return tap, session
