"""The page's own words, marked for the catalogues like the chat's (bot/locale, a block of their
own in each .po file) and handed to the page in the language it asked for. The page looks a
word up by its English msgid; words the chat already has (Preview, Confirm, the hand's terms)
come from the chat's own functions. Also the table's refusals (bot/books/refusals.py) as the
page says them: no chat commands in them."""

from __future__ import annotations

import re

from db import StoreError

from ..books.refusals import (
    AlreadyRunning,
    BadName,
    BadNames,
    BadStake,
    FieldMissing,
    HandRefused,
    NoSession,
    NotAHand,
    NotSeated,
    NotWhole,
    PaymentConfirmed,
    PaymentNotOpen,
    PaymentWaits,
    Refusal,
    TableMoved,
    TilesRefused,
    UnknownVariant,
)
from ..chat.scope import refusal as store_refusal
from ..entry.ctx import Ctx
from ..entry.screens import heading, label
from ..view.i18n import N_, Translator, gettext, translator
from ..view.render import colon, money

PAGE_STRINGS = (
    N_("Mahjong Ledger"), N_("Standings"), N_("History"), N_("Book a hand"), N_("Settle"),
    N_("New session"), N_("Players, East to North"), N_("Stake per point (optional)"),
    N_("Start the session"), N_("End the session"), N_("End this session? Its hands stay in the books."),
    N_("No session is running."), N_("No hands yet."), N_("Winner"), N_("How it was won"),
    N_("From whom"), N_("By features"), N_("By tiles"), N_("Tiles: {count} of {want}"),
    N_("Concealed"), N_("Exposed kong"), N_("Winning tile"), N_("Turned tile"),
    N_("Tap a tile above to take it out."), N_("Best reading: {value}"),
    N_("Clear"), N_("Booked."), N_("Loading…"), N_("Language"), N_("Money"),
    N_("This table cannot be reached: {error}"), N_("Who pays whom"), N_("Everyone is square."),
    N_("Received"), N_("Another win in this hand"),
    N_("Won so far: {names}"), N_("Also in this hand"), N_("Remove"),
    N_("What the tiles cannot show"),
    N_("The payee taps Received when the money arrives."),
    N_("Pending: counts once the payee confirms"),
    N_("The season"),
    N_("Preview"), N_("Confirm"), N_("Back"), N_("Pung"), N_("Chow"), N_("Kong"), N_("Concealed kong"),
    N_("Start another table"), N_("Tables"),
    N_("Seating"), N_("Guest's name"), N_("Sit"),
    N_("Photo"), N_("Reading the photo…"), N_("Tap the winning tile above."),
    N_("Changes count from the next hand on; nothing booked changes. 🙋 sits you in an empty seat, "
       "🚪 gives a seat up, ⇅ swaps two seats."),
)


def page_strings(lang: str) -> dict[str, str]:
    """msgid → the words in `lang`, for the page."""
    out = {msgid: gettext(lang, msgid) for msgid in PAGE_STRINGS}
    out[":"] = colon(translator(lang))  # "：" in Chinese
    return out


# Refusals of what was sent (the API's 422); the others are about where the table stands (409).
INVALID = (UnknownVariant, BadName, BadStake, FieldMissing, HandRefused, TilesRefused, NotAHand,
           NotWhole)
# Each kind the page meets, in its words (the first that fits: a subclass before its base).
REFUSALS: tuple[tuple[type[Refusal], str], ...] = (
    (NoSession, N_("No session is running.")),
    (AlreadyRunning, N_("A session is already running here.")),
    (UnknownVariant, N_("Which mahjong do you play?")),
    (NotSeated, N_("Four players must be seated first.")),
    (BadNames, N_("Four different names are needed, each of at most {most} characters.")),
    (BadStake, N_("A stake is money per point, such as 0.5, at most {most}.")),
    (NotAHand, N_("That could not be saved; nothing was changed.")),
    (NotWhole, N_("Anything else to add? Else preview the hand.")),
    (TableMoved, N_("The table changed since this preview (a hand was added or undone, or a seat "
                    "changed hands). Check the new names and numbers and confirm again.")),
    (PaymentNotOpen, N_("This payment is no longer open.")),
    (PaymentWaits, N_("This payment already waits for the payee to confirm it.")),
    (PaymentConfirmed, N_("This payment is already confirmed.")),
)


def refusal_text(exc: Refusal | StoreError, t: Translator, ctx: Ctx | None = None) -> str:
    """A refusal in the reader's words (plain text); `ctx` names a hand's fields and seats."""
    if isinstance(exc, StoreError):
        return store_refusal(t, exc)
    if isinstance(exc, FieldMissing) and ctx is not None:  # named as the form names it
        return t("Choose “{field}” first.", field=label(ctx, exc.field, exc.event))
    if isinstance(exc, HandRefused) and ctx is not None:
        return ctx.why(exc.error)
    if isinstance(exc, NotWhole) and ctx is not None and ctx.variant.blood_battle:
        # a blood battle after a win: the hand goes on, as the chat's wizard says
        return t("The hand goes on: who won next? Or tap “{exhausted}” if the wall ran out.",
                 exhausted=heading(ctx, "exhausted"))
    if isinstance(exc, TilesRefused):
        return t(exc.msgid, **exc.params)
    for kind, msgid in REFUSALS:
        if isinstance(exc, kind):
            params = dict(vars(exc))
            if isinstance(exc, BadStake):
                params["most"] = money(exc.most)
            return t(msgid, **params)
    return t("That could not be saved; nothing was changed.")


def refusal_code(exc: Exception) -> str:
    """The refusal's kind as the API names it: TableMoved → table_moved."""
    return re.sub(r"(?<!^)(?=[A-Z])", "_", type(exc).__name__).lower()
