"""The python-telegram-bot Application: handlers, commands menu, store lifecycle."""

from __future__ import annotations

import asyncio
import gc
import logging
from typing import Any

from telegram import BotCommand, Update, User
from telegram.error import TelegramError
from telegram.ext import (
    Application,
    ApplicationBuilder,
    ApplicationHandlerStop,
    CallbackQueryHandler,
    CommandHandler,
    MessageHandler,
    TypeHandler,
    filters,
)
from telegram.request import HTTPXRequest

from db import AlreadyHandled, DatabaseBusy, DatabaseUnavailable, Store, StoreError
from db.config import disk_full, fault
from scoring import all_variants
from scoring.settlement import format_cents
from scoring.variant import Variant, in_lang, listed

from .chat.scope import (
    TABLE_COMMANDS,
    asked_command,
    fallback_language,
    refusal,
    running_session,
    scope,
    stale_button,
    table_line,
)
from .commands import greeting, hands, ledger, season, seats, sessions, standings
from .entry.hu.examples import help_lines
from .entry.hu.points import points_event
from .entry.hu.words import features_help
from .photo.detect import MAX_PIXELS
from .plumbing.callbacks import Family, decode
from .plumbing.config import Settings
from .plumbing.limits import MAX_IMPORT_HANDS, MAX_PAYMENT_CENTS, MAX_STAKE_CENTS, has_foreign_digits
from .plumbing.messages import Context, LedgerBot, QueryExpired, edit, reply, send, store_of
from .plumbing.ratelimit import ChatRateLimiter
from .plumbing.updates import PerChatProcessor
from .view.faults import BUSY, DISK_FULL, UNAVAILABLE
from .view.i18n import LANGS, N_, Translator, lang_from_code, translator
from .view.render import esc, is_zh, listing, styles_named

log = logging.getLogger(__name__)

COMMANDS = [
    ("new", N_("Start a session: /new {variants}")),
    ("hand", N_("Enter a hand with buttons")),
    ("hu", N_("Enter a win in one line (see /help)")),
    ("table", N_("Where we stand")),
    ("history", N_("Recent hands")),
    ("undo", N_("Undo the last hand")),
    ("guest", N_("Seat a player without Telegram: /guest NAME")),
    ("seat", N_("Change seats: take, swap, give up, a substitute")),
    ("keeper", N_("Name a scorekeeper: /keeper @name")),
    ("stake", N_("Money per point: /stake 0.5")),
    ("rules", N_("House rules")),
    ("lang", N_("Language of this chat")),
    ("end", N_("End the session")),
    ("settle", N_("Who pays whom, fewest transfers")),
    ("paid", N_("Record a payment: /paid @name 12.5")),
    ("stats", N_("Statistics per player")),
    ("chart", N_("Chart of the running totals")),
    ("season", N_("The group's season: everyone across all sessions")),
    ("export", N_("Export the session as CSV and JSON")),
    ("import", N_("Import an exported JSON file")),
    ("help", N_("How to use the bot")),
]
HELP = N_("""Mahjong Ledger keeps score at your table.

/new VARIANT — start a session ({variants}); tap Join to sit down.
/hand — enter a hand with buttons: the winner (Self-draw beside the name), features, Confirm.
/hu — a win in one line, in your own words (examples in {style}):
{hu}
  seats: E S W N, 0–3 or a player's name
/table — standings; /history — recent hands; /undo — void the last hand
/stake 0.5 — money per point; /rules — house rules; /lang — language; /end — close the session
/settle — who pays whom (fewest transfers); /paid @name 12.5 — record a payment
/stats [@name] — statistics; /chart — running totals; /export and /import — files""")
HELP_PHOTO = N_("A photo of the hand captioned /hu (or /hu answering it) opens the tile keyboard "
                "with the tiles read from it, to check before anything is scored; pictures of up "
                "to {megapixels} megapixels.")
HELP_POINTS = N_("Each seat's points ({points_styles}): /hu 张伟 +12 李四 -4 王芳 -8 Bob 0 — a seat "
                 "left out scored 0; they must add up to 0. Or a winner and an amount: "
                 "/hu 张伟 自摸 12.")
HELP_SEASON = N_("/season — the group's season: everyone across all sessions and tables, by "
                 "month, with a chart.")
HELP_TABLES = N_("Two tables in one group: /new while one runs offers another beside it. Your "
                 "commands go to the table you sit at; anyone else is asked which table. One "
                 "person sits at one table at a time; /settle covers every table.")
HELP_SEATS = N_("Seats change from the next hand on: /seat gives a seat to a substitute, swaps two "
                "seats or gives one up, and what each person won stays theirs. Whoever started the "
                "session keeps its score (enters hands for every seat, guests too); /keeper @name "
                "names another scorekeeper.")
HELP_BOOKS = N_(
    "Who may book what:\n"
    "/import — chat admins only (in a private chat, its owner): an exported .json file of at most "
    "{size} and {hands} hands, checked whole and stored whole or not at all. Its names become "
    "guests; to seat members instead, add SEAT=@username, e.g. /import E=@alice S=@bob "
    "(seats 0–3 or E S W N).\n"
    "/paid @name 12.5 — you paid that person: it counts once they tap “received” (or a chat "
    "admin does); until then it shows as pending and /settle leaves it out. "
    "/paid from @name 12.5 — that person paid you: it counts at once.\n"
    "Amounts in digits 0–9: a stake of at most {stake} per point, a payment of at most "
    "{payment}.\n"
    "/lang — seated players and chat admins only.")


def help_text(t: Translator, variant: Variant, hu: list[str] | None = None) -> str:
    """/help's first part: the commands, and /hu's examples drawn from `variant` (the chat's
    running style, else the first listed) in the chat's language, each one it accepts (`hu`:
    those lines, made already)."""
    codes = [f"{v.name} {in_lang(v.short, t.lang)}" if is_zh(t) else v.name for v in listed()]
    return t(HELP, variants=listing(t).join(codes), style=in_lang(variant.title, t.lang),
             hu="\n".join(help_lines(variant, t) if hu is None else hu))


async def cmd_help(update: Update, context: Context) -> None:
    sc = await scope(update, context)
    t = sc.t
    session = await running_session(context, sc)
    variant = all_variants()[session.variant] if session is not None else listed()[0]
    # made once per style and language, checked by reading and scoring each line: the first
    # time it is CPU work (up to a few seconds), done beside the event loop
    hu = await asyncio.to_thread(help_lines, variant, t)
    text = esc(help_text(t, variant, hu)) + "\n"
    if points_event(variant) is not None:  # a style that books each seat's points: how to type them
        books_points = styles_named(t, [v for v in listed() if points_event(v) is not None])
        text += esc(t(HELP_POINTS, points_styles=books_points)) + "\n"
    text += "\n".join(esc(part) for part in (
        t(HELP_SEASON), t(HELP_PHOTO, megapixels=MAX_PIXELS // 1_000_000), t(HELP_TABLES),
        t(HELP_SEATS))) + "\n\n" + esc(t(
        HELP_BOOKS, size="1 MB", hands=f"{MAX_IMPORT_HANDS:,}",
        stake=format_cents(MAX_STAKE_CENTS), payment=format_cents(MAX_PAYMENT_CENTS)))
    if session is not None:
        words = features_help(all_variants()[session.variant], sc.lang)
        text += "\n\n" + esc(t("Features for this session: {words}",
                                 words=("、" if sc.lang.startswith("zh") else ", ").join(words)))
    await reply(update, context, text)


FREE_TEXT = {"guest", "undo"}  # a name, a reason: any characters; every other argument is a word


async def _chat_t(context: Context, chat_id: int, user: User | None) -> Translator:
    chat = await store_of(context).ensure_chat(chat_id)
    return translator(chat.language or lang_from_code(user.language_code if user else None))


async def guard(update: Update, context: Context) -> None:
    """Before every handler: ignore what must not act (edited or forwarded commands, commands
    for another bot, channel posts) and answer what is malformed, changing nothing."""
    if update.edited_message or update.edited_channel_post or update.channel_post:
        raise ApplicationHandlerStop
    query = update.callback_query
    if query is not None:
        if query.message is None:  # an inline message: no chat to keep books in
            t = translator(lang_from_code(query.from_user.language_code))
            await query.answer(t("This button only works in the chat of the bot's message."),
                               show_alert=True)
            raise ApplicationHandlerStop
        if not query.data or not query.data.isascii():  # the bot's buttons carry ASCII data
            t = await _chat_t(context, query.message.chat.id, query.from_user)
            await stale_button(query, t)
            raise ApplicationHandlerStop
        return
    message = update.message
    text = (message.text or message.caption or "") if message is not None else ""
    if message is None or not text.startswith("/"):
        return
    words = text.split()
    command, _, target = words[0][1:].partition("@")
    if target and target.lower() != (context.bot.username or "").lower():
        raise ApplicationHandlerStop  # /import@otherbot is not for us
    if message.forward_origin is not None or message.is_automatic_forward:
        raise ApplicationHandlerStop
    sender = message.from_user
    if sender is None or sender.is_bot:
        t = await _chat_t(context, message.chat.id, None)
        await send(context, message.chat.id, esc(t("I cannot tell who sent this, so I do not act "
                                                   "on it. Send commands from your own account.")))
        raise ApplicationHandlerStop
    if command.lower() not in FREE_TEXT and any(has_foreign_digits(w) for w in words[1:]):
        t = await _chat_t(context, message.chat.id, sender)
        await send(context, message.chat.id,
                   esc(t("Please write numbers with the digits 0–9.")))
        raise ApplicationHandlerStop


# The commands about one table that, where several run and the sender sits at none, ask which
# (bot/chat/scope.py ask_table) and run again for the table tapped.
TABLE_ASKED = ("table", "history", "undo", "end", "hand", "hu", "stake", "rules", "guest",
               "chart", "export", "settle")


async def on_table_pick(update: Update, context: Context) -> None:
    """Act.PICK_TABLE: the asker's answer to "which table?", once: the question shows the table
    taken (its buttons gone) and the command it names runs for that table."""
    query = update.callback_query
    sc = await scope(update, context)  # the table named by the button (scope reads it)
    t = sc.t
    tap = decode(query.data)
    asked = asked_command(getattr(query.message, "text", None))
    command = tap.get("command") if tap is not None else None
    handler = context.bot_data.get(TABLE_COMMANDS, {}).get(command)
    if tap is None or asked is None or handler is None or asked[0] != command:
        await stale_button(query, t)
        return
    if tap.get("asker") not in (0, sc.person_id):
        await query.answer(t("Only whoever asked can choose the table."), show_alert=True)
        return
    table = sc.session
    if table is None or table.id != tap.get("session"):
        await query.answer(t("This session is over."), show_alert=True)
        return
    # a second tap (a double tap, or one racing it on another worker) runs nothing again
    if not await store_of(context).answer_once(sc.chat_id, query.message.message_id):
        await stale_button(query, t)
        return
    await edit(query, table_line(t, table))
    context.args = asked[1]
    await handler(update, context)
    await query.answer()


def _table_commands(handlers: list[Any]) -> dict[str, Any]:
    """The handlers of TABLE_ASKED, by command word (what a table question runs again)."""
    found = {}
    for handler in handlers:
        if isinstance(handler, CommandHandler):
            for word in handler.commands:
                if word in TABLE_ASKED:
                    found[word] = handler.callback
    return found


async def on_unknown_button(update: Update, context: Context) -> None:
    """Data no handler claims (forged, or from an older version of the bot): answered, no change."""
    sc = await scope(update, context)
    await stale_button(update.callback_query, sc.t)


async def on_migrate(update: Update, context: Context) -> None:
    message = update.effective_message
    if message is None:
        return
    if message.migrate_to_chat_id:
        await store_of(context).migrate_chat(message.chat.id, message.migrate_to_chat_id)
    elif message.migrate_from_chat_id:
        await store_of(context).migrate_chat(message.migrate_from_chat_id, message.chat.id)


FAILED = N_("Something went wrong with that; please try again.")
FILE_ERROR = N_("The bot could not read or write one of its files; please tell whoever runs the "
                "bot.")


def failure_text(t: Translator, kind: type[Exception] | None, error: BaseException | None) -> str:
    """What a failure was, as the chat is told: a full disk (the database's or another's), a
    busy or unreachable database, a local file that could not be read or written (an OSError
    from outside the store: the store turns its own into faults), a refusal, or a failure."""
    if error is not None and disk_full(error):
        return t(DISK_FULL)
    if kind is DatabaseBusy:
        return t(BUSY)
    if isinstance(error, OSError):  # not the database's: a connection elsewhere, or a file
        return t(FAILED if isinstance(error, ConnectionError) else FILE_ERROR)
    if kind is not None:
        return t(UNAVAILABLE)
    if isinstance(error, StoreError):  # a refusal no handler explained
        return refusal(t, error)
    return t(FAILED)


async def on_error(update: object, context: Context) -> None:
    """Every failed update still gets an answer, in the chat's language: busy (the database
    was locked or slow for too long), unavailable (down, full, read-only) or a plain failure."""
    if isinstance(context.error, QueryExpired):  # all was done; only the answer came too late
        log.info("update %s: the tap's answer came too late for Telegram",
                 getattr(update, "update_id", "?"))
        chat = update.effective_chat if isinstance(update, Update) else None
        if context.error.show_alert and context.error.text and chat is not None:
            await send(context, chat.id, esc(context.error.text))  # what the alert would have said
        return
    kind = fault(context.error) if context.error is not None else None
    if isinstance(context.error, AlreadyHandled):  # a redelivery after a restart: no fault
        log.info("update %s was delivered again; it was handled before",
                 getattr(update, "update_id", "?"))
    elif kind is None:
        log.error("update %s failed", getattr(update, "update_id", "?"), exc_info=context.error)
    else:
        log.warning("update %s: %s: %s", getattr(update, "update_id", "?"), kind.__name__,
                    context.error)
    if isinstance(update, Update):
        await tell_failure(update, context, kind, context.error)


async def tell_failure(update: Update, context: Context, kind: type[Exception] | None,
                       error: BaseException | None = None) -> None:
    """Say why nothing happened: as the answer to a button, else as a message to the chat."""
    text = failure_text(translator(fallback_language(update, context)), kind, error)
    query = update.callback_query
    if query is not None:
        try:
            await query.answer(text, show_alert=True)
            return
        except TelegramError:  # answered already (the failure came later): say it in the chat
            pass
    if update.effective_chat is None:
        return
    try:
        await send(context, update.effective_chat.id, esc(text))
    except Exception:
        log.warning("could not tell chat %s about the failure", update.effective_chat.id,
                    exc_info=True)


async def until_database_ready(update: Update, context: Context) -> None:
    """Before the database could be migrated (it was down when the bot started), every update
    is answered "not available" and goes no further."""
    if context.bot_data.get("database_ready", True):
        return
    await tell_failure(update, context, DatabaseUnavailable)
    raise ApplicationHandlerStop


async def _post_init(app: Application) -> None:
    settings: Settings = app.bot_data["settings"]
    if "store" not in app.bot_data:
        app.bot_data["store"] = await Store.open(settings.database_url)
    for lang in LANGS:
        t = translator(lang)
        variants = "|".join(v.name for v in listed())
        commands = [BotCommand(name, t(desc, variants=variants)) for name, desc in COMMANDS]
        code = {"zh-Hans": "zh", "zh-Hant": None, "en": None}[lang]
        if lang == "en":
            await app.bot.set_my_commands(commands)
        elif code:
            await app.bot.set_my_commands(commands, language_code=code)
    freeze_startup_objects()


_frozen = False


def freeze_startup_objects() -> None:
    """Move everything alive once the bot has started (libraries, handlers, the store) out of
    the garbage collector's reach, once per process. Its full passes otherwise scan all of it:
    while a long /export decodes hands in its worker thread they come often and stall the event
    loop, and every chat with it, for 60-120 ms each (20 ms once frozen)."""
    global _frozen
    if not _frozen:
        _frozen = True
        gc.collect()
        gc.freeze()


async def _post_shutdown(app: Application) -> None:
    store = app.bot_data.pop("store", None)
    if store is not None and app.bot_data.get("owns_store", True):
        await store.close()


def rate_limiter() -> ChatRateLimiter:
    """Obey Telegram's 429 retry_after (up to 5 retries), pausing only the chat the 429 was for
    (bot/plumbing/ratelimit.py; PTB's AIORateLimiter pauses every chat), and 30 requests/s overall, but do
    not throttle each group to 20 a minute in advance: the wizard edits one message per tap, and
    a hand takes 10–20 taps; Telegram says itself when a chat is too busy."""
    return ChatRateLimiter(max_retries=5)


def build_application(settings: Settings, store: Store | None = None) -> Application:
    """The bot as one Application; pass `store` to share an open store (tests)."""
    bot = LedgerBot(settings.token, base_url=settings.base_url, base_file_url=settings.file_url,
                    rate_limiter=rate_limiter(),
                    request=HTTPXRequest(connection_pool_size=256),  # as ApplicationBuilder's
                    get_updates_request=HTTPXRequest(connection_pool_size=1))
    builder = (ApplicationBuilder().bot(bot)
               .concurrent_updates(PerChatProcessor())
               .post_init(_post_init).post_shutdown(_post_shutdown))
    app = builder.build()
    app.bot_data["settings"] = settings
    if store is not None:
        app.bot_data["store"] = store
        app.bot_data["owns_store"] = False
    app.add_handler(TypeHandler(Update, guard), group=-2)  # first: what to ignore
    app.add_handler(TypeHandler(Update, until_database_ready), group=-1)
    app.add_handler(CommandHandler(["start", "help"], cmd_help))
    handlers = [*sessions.HANDLERS, *seats.HANDLERS, *hands.HANDLERS, *standings.HANDLERS,
                *ledger.HANDLERS, *season.HANDLERS, *greeting.HANDLERS]
    for handler in handlers:
        app.add_handler(handler)
    app.bot_data[TABLE_COMMANDS] = _table_commands(handlers)
    app.add_handler(CallbackQueryHandler(on_table_pick, pattern=Family.TABLE.pattern))
    app.add_handler(CallbackQueryHandler(on_unknown_button))  # last: every query gets an answer
    app.add_handler(MessageHandler(filters.StatusUpdate.MIGRATE, on_migrate))
    app.add_error_handler(on_error)
    return app


__all__ = ["build_application", "reply"]
