"""What the chat and the page say when the database could not do what was asked
(db.DatabaseFault: busy, down, full): one set of words for both."""

from __future__ import annotations

from db import DatabaseBusy
from db.config import disk_full

from .i18n import N_, Translator

BUSY = N_("The ledger is busy right now; please try again in a moment.")
UNAVAILABLE = N_("The ledger's database is not available right now; please try again later.")
DISK_FULL = N_("The server's disk is full, so nothing was saved; please tell whoever runs the bot.")


def fault_text(t: Translator, error: BaseException) -> str:
    """A database fault in words: a full disk, busy (locked or slow for too long), or not
    available (down, unreachable, read-only)."""
    if disk_full(error):
        return t(DISK_FULL)
    return t(BUSY if isinstance(error, DatabaseBusy) else UNAVAILABLE)
