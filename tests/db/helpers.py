"""Small builders shared by the database tests."""

from __future__ import annotations

from typing import Any

from db import RecordedHand, Session, Store


async def seated_session(store: Store, chat_id: int = -1001, variant: str = "luzhou", *,
                         stake_cents: int = 0, names: tuple[str, ...] = ("Ann", "Bo", "Cy", "Di"),
                         rules: dict[str, Any] | None = None) -> Session:
    """A running session with four Telegram users seated (ids derived from the chat)."""
    people = [await store.upsert_user(abs(chat_id) * 10 + i, name) for i, name in enumerate(names)]
    session = await store.start_session(chat_id, variant, rules or {}, stake_cents=stake_cents,
                                        started_by=people[0].id)
    for seat, person in enumerate(people):
        session = await store.seat_player(session.id, seat, person.id)
    return session


def outcome(*deltas: int, level_over: bool = False, balances: list[int] | None = None) -> dict[str, Any]:
    """A minimal outcome as scoring.Outcome.to_dict() gives it."""
    return {"deltas": list(deltas), "next_dealer": 0, "next_dealer_streak": 1, "next_round_wind": 0,
            "balances": balances if balances is not None else list(deltas), "level_over": level_over,
            "lines": [{"what": "win", "seat": 0, "text": "", "deltas": list(deltas)}]}


def record(variant: str = "luzhou") -> dict[str, Any]:
    return {"variant": variant, "dealer": 0, "dealer_streak": 1, "round_wind": 0,
            "events": [{"type": "win", "by": "self_draw", "winners": [{"seat": 0}]}]}


async def add_hand(store: Store, session_id: int, key: str, *deltas: int, **kw: Any) -> RecordedHand:
    """Record a Luzhou hand with these deltas, entered by nobody in particular."""
    return await store.record_hand(session_id, record(), outcome(*deltas), entered_by=None,
                                   idempotency_key=key, **kw)
