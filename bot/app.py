"""The python-telegram-bot Application: handlers, commands menu, store lifecycle."""

from __future__ import annotations

import gc
import logging

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
from scoring.variant import in_lang, listed

from .chat.scope import fallback_language, refusal, running_session, scope, stale_button
from .commands import greeting, hands, ledger, seats, sessions, standings
from .entry.hu.words import features_help
from .photo.detect import MAX_PIXELS
from .plumbing.config import Settings
from .plumbing.limits import MAX_IMPORT_HANDS, MAX_PAYMENT_CENTS, MAX_STAKE_CENTS, has_foreign_digits
from .plumbing.messages import Context, LedgerBot, QueryExpired, reply, send, store_of
from .plumbing.ratelimit import ChatRateLimiter
from .plumbing.updates import PerChatProcessor
from .view.i18n import LANGS, N_, Translator, lang_from_code, translator
from .view.render import comma, esc, is_zh, listing, styles_named

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
    ("export", N_("Export the session as CSV and JSON")),
    ("import", N_("Import an exported JSON file")),
    ("help", N_("How to use the bot")),
]
HELP = N_("""Mahjong Ledger keeps score at your table.

/new VARIANT — start a session ({variants}); tap Join to sit down.
/hand — enter a hand with buttons: the winner (Self-draw beside the name), features, Confirm.
/hu — a win in one line, in your own words:
  /hu West self-draw pure suit all pungs
  /hu Carol from North seven pairs
  /hu S quads=2 pure · two winners on one discard: /hu 1 all pungs + 3 pure from E
  win after win ({blood}): /hu S self-draw pure; W from N all pungs; E self-draw
  seats: E S W N, 0–3 or a player's name; counts as quads=2 or quads2
  or the tiles in place of feature words: /hu S self-draw 123m456m789p11s 中中中 (mps or 一万 二筒 …;
  melds as [555p], the winning tile as +7s; {turned} add the turned tile: turned=5m or 翻=5m,
  or name the joker itself: {joker_words})
/table — standings; /history — recent hands; /undo — void the last hand
/stake 0.5 — money per point; /rules — house rules; /lang — language; /end — close the session
/settle — who pays whom (fewest transfers); /paid @name 12.5 — record a payment
/stats [@name] — statistics; /chart — running totals; /export and /import — files""")
HELP_READY = N_("Wall ran out (查叫 in {games}): /hu 流局 E 111m222m333p44p55p S "
                "123m456m789p123p4p — each seat still in with its 13 tiles, its ready features or "
                "不听; a seat left out is not ready.")
HELP_PHOTO = N_("A photo of the hand captioned /hu (or /hu answering it) opens the tile keyboard "
                "with the tiles read from it, to check before anything is scored; pictures of up "
                "to {megapixels} megapixels.")
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


def help_params(t: Translator) -> dict[str, str]:
    """What /help says of the styles, from what each declares (`scoring.variant.listed`): their
    codes (with their names in Chinese), those of a blood battle, those whose jokers follow a
    turned tile and how a line names those jokers, those with 查叫."""
    styles = listed()
    lang = t.lang
    codes = [f"{v.name} {in_lang(v.short, lang)}" if is_zh(t) else v.name for v in styles]
    turned = [v for v in styles if v.tiles is not None and v.tiles.indicator]
    examples = [in_lang(v.tiles.jokers.example, lang) for v in turned
                if v.tiles is not None and v.tiles.jokers is not None and v.tiles.jokers.example]
    return {"variants": listing(t).join(codes),
            "blood": styles_named(t, [v for v in styles if v.blood_battle]),
            "turned": styles_named(t, turned), "joker_words": comma(t).join(examples),
            "games": styles_named(t, [v for v in styles if v.ready_fields])}


async def cmd_help(update: Update, context: Context) -> None:
    sc = await scope(update, context)
    t = sc.t
    params = help_params(t)
    text = esc(t(HELP, **params)) + "\n" + esc(t(HELP_READY, **params)) + "\n" + esc(t(
        HELP_PHOTO, megapixels=MAX_PIXELS // 1_000_000)) + "\n\n" + esc(t(
        HELP_BOOKS, size="1 MB", hands=f"{MAX_IMPORT_HANDS:,}",
        stake=format_cents(MAX_STAKE_CENTS), payment=format_cents(MAX_PAYMENT_CENTS)))
    session = await running_session(context, sc)
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


BUSY = N_("The ledger is busy right now; please try again in a moment.")
UNAVAILABLE = N_("The ledger's database is not available right now; please try again later.")
FAILED = N_("Something went wrong with that; please try again.")
DISK_FULL = N_("The server's disk is full, so nothing was saved; please tell whoever runs the bot.")
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
    for handler in (*sessions.HANDLERS, *seats.HANDLERS, *hands.HANDLERS, *standings.HANDLERS,
                    *ledger.HANDLERS, *greeting.HANDLERS):
        app.add_handler(handler)
    app.add_handler(CallbackQueryHandler(on_unknown_button))  # last: every query gets an answer
    app.add_handler(MessageHandler(filters.StatusUpdate.MIGRATE, on_migrate))
    app.add_error_handler(on_error)
    return app


__all__ = ["build_application", "reply"]
