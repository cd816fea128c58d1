"""A session as the table sees it: its newest or running session, the seats' names, the next
hand's starting state, points and the number each hand goes by; and the wizard's Ctx from them."""

from __future__ import annotations

from collections.abc import Sequence
from fractions import Fraction
from typing import Any

from db import RecordedHand, Session, SessionView, Store
from scoring import Outcome, get_variant
from scoring.variant import Variant, in_lang

from ..entry.ctx import Ctx
from ..plumbing.callbacks import Act, encode
from ..plumbing.messages import Button
from ..view.i18n import Translator
from ..view.render import (
    colon,
    deltas_text,
    esc,
    hands_count,
    money,
    name_html,
    outcome_lines,
    seat_label,
    signed,
    totals_block,
    unit,
    wind,
    with_unit,
)


async def last_session(store: Store, chat_id: int) -> Session | None:
    """The chat's running session, else its newest (what /export, /history and /settle
    session speak of)."""
    running = await store.running_session(chat_id)
    if running is not None:
        return running
    sessions = await store.chat_sessions(chat_id, include_settled=True)
    return sessions[0] if sessions else None


async def seat_names(store: Store, session: Session) -> list[str | None]:
    if isinstance(session, SessionView):
        return list(session.names)
    people = await store.get_people(pid for pid in session.seats if pid is not None)
    return [people[pid].name if pid in people else None for pid in session.seats]


def has_bankroll(variant: Variant, rules: dict[str, Any]) -> bool:
    return any(variant.initial_balances(variant.Rules.model_validate(rules)))


async def table_state(store: Store, session: Session) -> dict[str, Any]:
    """The next hand's record without events: dealer, streak and round wind from the last
    hand's outcome, and (a bankroll variant) the points each seat holds."""
    variant = get_variant(session.variant)
    rules = variant.Rules.model_validate(session.rules)
    base: dict[str, Any] = {"variant": session.variant, "rules": dict(session.rules),
                            "dealer": 0, "dealer_streak": 1, "round_wind": 0}
    if isinstance(session, SessionView):
        stored = session.last_outcome
    else:
        last = await store.last_hand(session.id)
        stored = last.outcome if last is not None else None
    start = list(variant.initial_balances(rules))
    # a bankroll, or a game's running scores (`Variant.game_hands`), go from hand to hand
    # until the level or game ends
    carried = any(start) or variant.game_hands > 0
    if stored is not None:
        out = Outcome.from_dict(stored)
        base.update(dealer=out.next_dealer, dealer_streak=out.next_dealer_streak,
                    round_wind=out.next_round_wind)
        if carried and not out.level_over:
            start = list(out.balances)
    if any(start):
        base["balances"] = start
    return base


async def wizard_ctx(store: Store, session: Session, lang: str, *, several: bool = False) -> Ctx:
    """`several`: the chat runs more than one table, so the screens name this one."""
    return Ctx(
        variant=get_variant(session.variant), lang=lang, names=await seat_names(store, session),
        base=await table_state(store, session), hand_no=await standing_hands(store, session) + 1,
        totals=tuple(await session_totals(store, session)), stake_cents=session.stake_cents,
        table=session.number if several else None)


async def session_totals(store: Store, session: Session) -> tuple[int, int, int, int]:
    """Points per seat: from the snapshot when the session is one, else read."""
    if isinstance(session, SessionView):
        return session.totals
    return await store.totals(session.id)


async def standing_hands(store: Store, session: Session) -> int:
    """How many of the session's hands stand: from the snapshot when the session is one."""
    if isinstance(session, SessionView):
        return session.standing_hands
    return await store.standing_hands(session.id)


def hand_numbers(newest_first: Sequence[RecordedHand], standing: int) -> dict[int, int]:
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


async def hand_number(store: Store, hand: RecordedHand) -> int:
    """The number a stored hand goes by at the table now, as /history shows it (its stored
    sequence number differs once a hand before it was undone)."""
    latest = await store.history(hand.session_id, limit=1)
    if not latest:
        return hand.seq
    page = await store.history(hand.session_id, limit=max(1, latest[0].seq - hand.seq + 1))
    return hand_numbers(page, await store.standing_hands(hand.session_id)).get(hand.seq, hand.seq)


async def table_lines(store: Store, session: Session, t: Translator, lang: str, *,
                      several: bool = False) -> list[str]:
    """/table's HTML lines: the totals (money at the stake), dealer, round wind and, where the
    variant keeps a bankroll, the level's points and the levels won. `several`: the chat runs
    more than one table, so the title names this one."""
    names = await seat_names(store, session)
    base = await table_state(store, session)
    totals = await session_totals(store, session)
    variant = get_variant(session.variant)
    title = in_lang(variant.title, lang)
    at = esc(t("Table {n}", n=session.number)) + " · " if several else ""
    lines = [f"<b>{esc(title)}</b> · " + at
             + esc(hands_count(t, await standing_hands(store, session))), ""]
    lines += totals_block(t, names, totals, session.stake_cents, base["dealer"],
                          unit(variant, lang))
    lines += await left_lines(store, session, t, lang)
    lines.append("")
    streak = base["dealer_streak"]
    lines.append(esc(t("Dealer: ")) + seat_label(t, base["dealer"], names)
                 + (esc(t(" (streak {n})", n=streak)) if streak > 1 else ""))
    lines.append(esc(t("Round wind: {wind}", wind=wind(t, base["round_wind"]))))
    if variant.game_hands:
        lines += await game_lines(store, session, variant, t)
    elif has_bankroll(variant, session.rules):
        standing = await store.level_summary(session.id)  # running aggregates: no replay
        balances = standing.running_balances or variant.initial_balances(
            variant.Rules.model_validate(session.rules))
        lines.append("")
        lines.append(esc(t("Level {n}", n=standing.next_level)) + colon(t) + " · ".join(
            f"{wind(t, s)} {b}" for s, b in enumerate(balances)))
        if standing.finished:
            lines.append(esc(t("Levels won: ")) + " · ".join(
                f"{wind(t, s)} {n}" for s, n in enumerate(standing.levels_won)))
    return lines


def seats_rows(t: Translator, session: Session) -> list[list[Button]]:
    """/table's button to the seats screen (bot/commands/seats.py)."""
    return [[Button("🪑 " + t("Seating"), encode(Act.SEATS_SHOW, (session.id,)))]]


async def left_lines(store: Store, session: Session, t: Translator, lang: str) -> list[str]:
    """Under the seats' totals: whoever played hands of this session and sits no more (their
    seat changed hands), with what they won or lost, which stays theirs. None: no lines."""
    if isinstance(session, SessionView) and not session.someone_left:
        return []  # known from the update's first read: nothing more to read
    gone = [r for r in await store.person_results([session.id])
            if r.person_id not in session.seats and (r.points or r.hands)]
    if not gone:
        return []
    people = await store.get_people(r.person_id for r in gone)
    u = unit(get_variant(session.variant), lang)
    lines = [esc(t("Played earlier, now not seated:"))]
    for r in gone:
        name = people[r.person_id].name if r.person_id in people else "?"
        cash = f"  ({money(r.points * session.stake_cents)})" if session.stake_cents else ""
        lines.append(f"{name_html(name)}{colon(t)}<b>{esc(with_unit(t, signed(r.points), u))}</b>"
                     f"{cash}")
    return lines


def points_text(points: Fraction) -> str:
    """Table points as a league writes them: 4, 1.5, 2.33 (three tied for the first three)."""
    return str(points.numerator) if points.denominator == 1 else f"{float(points):.2f}".rstrip("0")


def seat_points(t: Translator, points: Sequence[Fraction]) -> str:
    return " · ".join(f"{wind(t, s)} {points_text(p)}" for s, p in enumerate(points))


async def game_lines(store: Store, session: Session, variant: Variant, t: Translator) -> list[str]:
    """/table's lines for a style played in games (`Variant.game_hands`): the game and hand
    the next hand is, the running game's scores, and the table points of the finished games
    where the rules give them (running aggregates: a row a game)."""
    games = await store.level_standings(session.id)
    finished = [g for g in games if g.ended]
    running = games[-1] if games and not games[-1].ended else None
    lines = ["", esc(t("Game {n}, hand {k} of {hands}", n=len(finished) + 1,
                       k=(running.hand_count if running else 0) + 1, hands=variant.game_hands))]
    if running is not None:
        lines.append(esc(t("This game: ")) + esc(deltas_text(t, running.final_balances) or "±0"))
    rules = variant.read_rules(session.rules)
    earned = [variant.game_points(g.final_balances, rules) for g in finished]
    if finished and all(e is not None for e in earned):
        total = [sum((e[s] for e in earned if e is not None), Fraction(0)) for s in range(4)]
        lines.append(esc(t("Table points so far: ")) + esc(seat_points(t, total)))
    return lines


async def history_blocks(store: Store, session: Session, t: Translator, lang: str, limit: int) -> list[str]:
    """/history's HTML, a block per hand, newest first: its number and payment lines (an
    undone hand struck through, with its reason)."""
    hands = await store.history(session.id, limit=limit, people=True)
    if not hands:
        return []
    names = await seat_names(store, session)
    # each hand names who sat where when it was played (seats change hands)
    people = await store.get_people({p for h in hands for p in (h.people or ()) if p is not None}
                                    - set(session.seats))
    variant = get_variant(session.variant)
    number = hand_numbers(hands, await store.standing_hands(session.id))
    blocks = []
    for hand in hands:
        head = "<b>" + esc(t("Hand {n}", n=number[hand.seq])) + "</b>"
        body = outcome_lines(t, lang, variant, hand_names(hand, session, names, people),
                             Outcome.from_dict(hand.outcome), hand.record["events"])
        if hand.voided:
            why = hand.void_reason if hand.void_reason not in ("", "undo") else None
            note = t("(undone: {reason})", reason=why) if why else t("(undone)")
            head = "<s>" + head + "</s>" + ("" if lang.startswith("zh") else " ") + esc(note)
            body = [f"<s>{line}</s>" for line in body]
        blocks.append("\n".join([head, *body]))
    return blocks


def hand_names(hand: RecordedHand, session: Session, names: Sequence[str | None],
               people: dict[int, Any]) -> list[str | None]:
    """Who sat in each seat for `hand`: the seat's name now where the same person sits, else
    the name of whoever played it (`people` by id)."""
    if hand.people is None:
        return list(names)
    out: list[str | None] = []
    for seat, pid in enumerate(hand.people):
        if pid == session.seats[seat]:
            out.append(names[seat])
        elif pid in session.seats:
            out.append(names[session.seats.index(pid)])
        else:
            out.append(people[pid].name if pid in people else names[seat])
    return out


def recorded_lines(ctx: Ctx, events: list[dict[str, Any]], outcome: Outcome, totals: Sequence[int],
                   stake_cents: int) -> list[str]:
    """The message of a hand just booked (the wizard's Confirm, the web page's): its payment
    lines, the totals after it and whether it ended the level."""
    t, lang = ctx.t, ctx.lang
    # numbered among the hands that stand, as the wizard's title said (an undone one left a gap)
    at = esc(t("Table {n}", n=ctx.table)) + " · " if ctx.table else ""  # one of several
    lines = ["✅ " + at + "<b>" + esc(t("Hand {n} recorded", n=ctx.hand_no)) + "</b>", ""]
    lines += outcome_lines(t, lang, ctx.variant, ctx.names, outcome, events)
    lines += ["", "<b>" + esc(t("Totals")) + "</b>"]
    lines += totals_block(t, ctx.names, totals, stake_cents, outcome.next_dealer,
                          unit(ctx.variant, lang))
    if outcome.level_over and ctx.variant.game_hands:
        lines += ["", "🏁 " + esc(t("That was the game's last hand; the next game starts from "
                                   "nothing. This game: {scores}",
                                   scores=deltas_text(t, outcome.balances) or "±0"))]
        earned = ctx.variant.game_points(tuple(outcome.balances),  # type: ignore[arg-type]
                                         ctx.variant.read_rules(ctx.base.get("rules") or {}))
        if earned is not None:
            lines.append(esc(t("Table points for this game: ")) + esc(seat_points(t, earned)))
    elif outcome.level_over:
        lines += ["", "🏁 " + esc(t("The level is over; everyone starts the next one afresh."))]
    return lines
