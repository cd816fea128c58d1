"""Where do we stand: /table and /history."""

from __future__ import annotations

from telegram import Update
from telegram.ext import CommandHandler

from scoring import get_variant

from ..chat.scope import require_session, scope
from ..chat.table import hand_numbers, has_bankroll, seat_names, session_totals, standing_hands, table_state
from ..plumbing.messages import Context, reply, store_of
from ..view.render import colon, esc, hands_count, outcome_lines, seat_label, totals_block, unit, wind

HISTORY_PAGE = 5


async def cmd_table(update: Update, context: Context) -> None:
    sc = await scope(update, context)
    t, store = sc.t, store_of(context)
    session = await require_session(update, context, sc)
    if session is None:
        return
    names = await seat_names(store, session)
    base = await table_state(store, session)
    totals = await session_totals(store, session)
    variant = get_variant(session.variant)
    title = variant.title[{"en": 0, "zh-Hans": 1, "zh-Hant": 2}.get(sc.lang, 0)]
    lines = [f"<b>{esc(title)}</b> · " + esc(hands_count(t, await standing_hands(store, session))), ""]
    lines += totals_block(t, names, totals, session.stake_cents, base["dealer"],
                          unit(variant, sc.lang))
    lines.append("")
    streak = base["dealer_streak"]
    lines.append(esc(t("Dealer: ")) + seat_label(t, base["dealer"], names)
                 + (esc(t(" (streak {n})", n=streak)) if streak > 1 else ""))
    lines.append(esc(t("Round wind: {wind}", wind=wind(t, base["round_wind"]))))
    if has_bankroll(variant, session.rules):
        standing = await store.level_summary(session.id)  # running aggregates: no replay
        balances = standing.running_balances or variant.initial_balances(
            variant.Rules.model_validate(session.rules))
        lines.append("")
        lines.append(esc(t("Level {n}", n=standing.next_level)) + colon(t) + " · ".join(
            f"{wind(t, s)} {b}" for s, b in enumerate(balances)))
        if standing.finished:
            lines.append(esc(t("Levels won: ")) + " · ".join(
                f"{wind(t, s)} {n}" for s, n in enumerate(standing.levels_won)))
    await reply(update, context, "\n".join(lines))


async def cmd_history(update: Update, context: Context) -> None:
    sc = await scope(update, context)
    t, store = sc.t, store_of(context)
    session = await require_session(update, context, sc)
    if session is None:
        return
    hands = await store.history(session.id, limit=HISTORY_PAGE)
    if not hands:
        await reply(update, context, esc(t("No hands yet. /hand enters one.")))
        return
    names = await seat_names(store, session)
    variant = get_variant(session.variant)
    number = hand_numbers(hands, await store.standing_hands(session.id))
    blocks = []
    for hand in hands:
        head = "<b>" + esc(t("Hand {n}", n=number[hand.seq])) + "</b>"
        body = outcome_lines(t, sc.lang, variant, names, hand.outcome, hand.record["events"])
        if hand.voided:
            why = hand.void_reason if hand.void_reason not in ("", "undo") else None
            note = t("(undone: {reason})", reason=why) if why else t("(undone)")
            head = "<s>" + head + "</s>" + ("" if sc.lang.startswith("zh") else " ") + esc(note)
            body = [f"<s>{line}</s>" for line in body]
        blocks.append("\n".join([head, *body]))
    await reply(update, context, "\n\n".join(blocks))  # a long page goes as several messages


HANDLERS = [CommandHandler("table", cmd_table), CommandHandler("history", cmd_history)]
