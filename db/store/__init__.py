"""The store: everything the bot remembers, in domain terms, one file per concern:
`core` (engine, reads, writes, retries), `chats`, `sessions`, `hands`, `money`, `drafts`,
and `rows` (rows to domain objects)."""

from __future__ import annotations

from .chats import ChatsMixin
from .core import RETRY_WINDOW, Delivery, StoreCore, alembic_config, delivering
from .drafts import DraftsMixin
from .hands import HandsMixin
from .money import MoneyMixin
from .rows import MAX_CENTS, draft_hand_key, message_hand_key, session_mark, table_mark_of
from .sessions import SessionsMixin


class Store(ChatsMixin, SessionsMixin, HandsMixin, MoneyMixin, DraftsMixin, StoreCore):
    """The bot's memory. Open with `await Store.open(url)`; every method is a coroutine and
    returns frozen dataclasses from `db.domain`; refusals raise `StoreError` subclasses."""


__all__ = ["MAX_CENTS", "RETRY_WINDOW", "Delivery", "Store", "StoreCore", "alembic_config", "delivering",
           "draft_hand_key", "message_hand_key", "session_mark", "table_mark_of"]
