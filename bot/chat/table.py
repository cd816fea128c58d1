"""A session as the table sees it: its newest or running session, the seats' names, the next
hand's starting state, points and the number each hand goes by; and the wizard's Ctx from them."""

from __future__ import annotations

from typing import Any

from db import SessionView, Store
from scoring import get_variant
from scoring.variant import Variant

from ..entry.ctx import Ctx


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


def hand_numbers(newest_first: list[Any], standing: int) -> dict[int, int]:
    """The number each hand goes by, from the newest hands of a session (a page that runs to the
    latest) and how many of all its hands stand: standing hands count 1, 2, 3 …; an undone hand
    keeps the number it had when it was undone (the hands before it that stood then), which the
    hand entered after it takes again."""
    numbers = {}
    for hand in newest_first:
        later = sum(1 for h in newest_first if h.seq >= hand.seq and not h.voided)
        before = standing - later  # standing now, before this hand
        if hand.voided:  # and those before it undone after it, which stood when it went
            before += sum(1 for h in newest_first if h.seq < hand.seq and h.voided
                          and (h.voided_at, h.seq) > (hand.voided_at, hand.seq))
        numbers[hand.seq] = before + 1
    return numbers


async def hand_number(store: Any, hand: Any) -> int:
    """The number a stored hand goes by at the table now, as /history shows it (its stored
    sequence number differs once a hand before it was undone)."""
    latest = await store.history(hand.session_id, limit=1)
    if not latest:
        return hand.seq
    page = await store.history(hand.session_id, limit=max(1, latest[0].seq - hand.seq + 1))
    return hand_numbers(page, await store.standing_hands(hand.session_id)).get(hand.seq, hand.seq)
