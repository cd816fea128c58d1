"""The page's own words, marked for the catalogues like the chat's (bot/locale, a block of their
own in each .po file) and handed to the page in the language it asked for. The page looks a
word up by its English msgid; words the chat already has (Preview, Confirm, the hand's terms)
come from the chat's own functions."""

from __future__ import annotations

from ..view.i18n import N_, gettext, translator
from ..view.render import colon

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
    N_("Preview"), N_("Confirm"), N_("Back"), N_("Pung"), N_("Chow"), N_("Kong"), N_("Concealed kong"),
)


def page_strings(lang: str) -> dict[str, str]:
    """msgid → the words in `lang`, for the page."""
    out = {msgid: gettext(lang, msgid) for msgid in PAGE_STRINGS}
    out[":"] = colon(translator(lang))  # "：" in Chinese
    return out
