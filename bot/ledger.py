"""When the game ends: /settle and /paid (money, fewest transfers), /stats, /chart, /export,
/import."""

from __future__ import annotations

import asyncio
import tempfile
from pathlib import Path
from typing import Any

from telegram import InputFile, Update
from telegram.constants import ParseMode
from telegram.ext import CallbackQueryHandler, CommandHandler, MessageHandler, filters

from db import StoreError
from scoring import get_variant
from scoring.settlement import Transfer, format_cents, parse_stake, settle
from scoring.stats import PlayerStats, merge

from .common import ChatScope, Context, edit, is_admin, reply, scope, seat_names, send, store_of
from .export import CsvWriter, ExportedHand, ImportError_, JsonWriter, fit_for_upload, parse_import
from .render import esc, reason, term
from .wizard import Button

# -- whose money ---------------------------------------------------------------------------------

async def _people(context: Context, chat_id: int) -> dict[int, Any]:
    """Everyone who sat at this chat's tables, by person id."""
    store = store_of(context)
    people: dict[int, Any] = {}
    for session in await store.chat_sessions(chat_id, include_settled=True):
        for pid in session.seats:
            if pid is not None and pid not in people:
                people[pid] = await store.get_person(pid)
    return people


def _find(people: dict[int, Any], token: str) -> int | None:
    token = token.strip()
    if token.startswith("@"):
        wanted = token[1:].lower()
        hits = [p.id for p in people.values() if (p.username or "").lower() == wanted]
    else:
        hits = [p.id for p in people.values() if p.name.lower() == token.lower()]
    return hits[0] if len(hits) == 1 else None


async def _settle_view(context: Context, sc: ChatScope,
                       session_id: int | None) -> tuple[str, list[list[Button]]]:
    t, store = sc.t, store_of(context)
    ids = [session_id] if session_id is not None else None
    balances = await store.money_balances(sc.chat_id, session_ids=ids)
    people = await _people(context, sc.chat_id)
    name = {pid: esc(p.name) for pid, p in people.items()}
    scope_text = t("this session") if session_id is not None else t("all unsettled sessions")
    lines = ["💰 <b>" + esc(t("Settling up")) + "</b> · " + esc(scope_text), ""]
    owed = {pid: c for pid, c in balances.items() if c}
    if not owed:
        await _close_settled(context, sc, session_id)
        lines.append("🤝 " + esc(t("Everyone is square.")))
        return "\n".join(lines), []
    for pid, cents in sorted(owed.items(), key=lambda kv: -kv[1]):
        lines.append(f"{name.get(pid, pid)}: <b>{'+' if cents > 0 else ''}{format_cents(cents)}</b>")
    transfers = settle(owed)
    lines += ["", "<b>" + esc(t("Fewest transfers ({n})", n=len(transfers))) + "</b>"]
    rows = []
    suffix = f":{session_id}" if session_id is not None else ""
    for i, tr in enumerate(transfers, 1):
        lines.append(f"{i}. {name.get(tr.payer)} → {name.get(tr.payee)}: <b>{format_cents(tr.cents)}</b>")
        label = t("✓ {n} paid", n=i)
        rows.append([Button(label, f"p:{tr.payer}:{tr.payee}:{tr.cents}{suffix}")])
    lines += ["", esc(t("Tap when a transfer is made, or type /paid @name AMOUNT."))]
    return "\n".join(lines), rows


async def _close_settled(context: Context, sc: ChatScope, session_id: int | None) -> None:
    """Square balances close the ended sessions they cover. Not while a session runs: a payment
    made during it settles part of its balance and must keep counting until it ends."""
    store = store_of(context)
    if await store.running_session(sc.chat_id) is not None:
        return
    ended = [s.id for s in await store.chat_sessions(sc.chat_id)
             if s.ended_at is not None and (session_id is None or s.id == session_id)]
    if ended:
        await store.mark_settled(ended)


async def _last_session(context: Context, chat_id: int) -> Any | None:
    store = store_of(context)
    running = await store.running_session(chat_id)
    if running is not None:
        return running
    sessions = await store.chat_sessions(chat_id, include_settled=True)
    return sessions[0] if sessions else None


async def cmd_settle(update: Update, context: Context) -> None:
    sc = await scope(update, context)
    session_id = None
    if (context.args or [""])[0].lower() in ("session", "this"):
        session = await _last_session(context, sc.chat_id)
        session_id = session.id if session else None
    text, rows = await _settle_view(context, sc, session_id)
    await reply(update, context, text, rows)


async def on_paid_button(update: Update, context: Context) -> None:
    """p:<payer>:<payee>:<cents>[:<session>] — that transfer was made."""
    query = update.callback_query
    sc = await scope(update, context)
    t, store = sc.t, store_of(context)
    parts = (query.data or "").split(":")
    if len(parts) not in (4, 5) or not all(p.isdigit() for p in parts[1:]):
        await query.answer(t("That button is no longer valid."), show_alert=True)
        return
    payer, payee, cents = int(parts[1]), int(parts[2]), int(parts[3])
    session_id = int(parts[4]) if len(parts) == 5 else None
    if sc.person_id not in (payer, payee) and not sc.is_private and \
            not await is_admin(context, sc.chat_id, query.from_user.id):
        await query.answer(t("Only the two people of a transfer, or a chat admin, can mark it "
                             "paid."), show_alert=True)
        return
    ids = [session_id] if session_id is not None else None
    try:
        balances = await store.money_balances(sc.chat_id, session_ids=ids)
    except StoreError:
        await query.answer(t("That button is no longer valid."), show_alert=True)
        return
    open_now = settle({k: v for k, v in balances.items() if v})
    if Transfer(payer, payee, cents) not in open_now:
        await query.answer(t("This payment is no longer open."), show_alert=True)
        return
    await store.record_payment(sc.chat_id, payer, payee, cents, session_id=session_id,
                               recorded_by=sc.person_id)
    text, rows = await _settle_view(context, sc, session_id)
    await edit(query, text, rows)
    await query.answer(t("Recorded."))


async def cmd_paid(update: Update, context: Context) -> None:
    sc = await scope(update, context)
    t, store = sc.t, store_of(context)
    args = context.args or []
    people = await _people(context, sc.chat_id)
    target = _find(people, args[0]) if len(args) == 2 else None
    try:
        cents = parse_stake(args[1]) if len(args) == 2 else None
    except ValueError:
        cents = None
    if target is None or cents is None or sc.person_id is None or target == sc.person_id:
        await reply(update, context, esc(t("Usage: /paid @name AMOUNT — you paid that person, "
                                           "e.g. /paid @bob 12.5")))
        return
    await store.record_payment(sc.chat_id, sc.person_id, target, cents, recorded_by=sc.person_id)
    text, rows = await _settle_view(context, sc, None)
    await reply(update, context, "✅ " + esc(t("Payment of {amount} recorded.",
                                              amount=format_cents(cents))) + "\n\n" + text, rows)


# -- statistics ----------------------------------------------------------------------------------

async def _player_stats(context: Context, chat_id: int) -> tuple[dict[int, dict[str, PlayerStats]], int]:
    """person → variant → stats, and the chat's number of live hands, from the running
    aggregates (a few rows per session, however many hands were played)."""
    stats: dict[int, dict[str, PlayerStats]] = {}
    hands = 0
    for row in await store_of(context).seat_stats(chat_id):
        st = stats.setdefault(row.person_id, {}).setdefault(row.variant, PlayerStats())
        st.hands += row.hands
        st.wins += row.wins
        st.self_draws += row.self_draws
        st.dealt_in += row.dealt_in
        st.points += row.points
        st.biggest_gain = max(st.biggest_gain, row.biggest_gain)
        st.patterns.update({term: n for term, n in row.patterns.items() if n > 0})
        hands += row.hands if row.seat == 0 else 0
    return stats, hands


async def cmd_stats(update: Update, context: Context) -> None:
    sc = await scope(update, context)
    t = sc.t
    people = await _people(context, sc.chat_id)
    stats, hand_count = await _player_stats(context, sc.chat_id)
    if not hand_count:
        await reply(update, context, esc(t("No hands yet. /hand enters one.")))
        return
    wanted = list(stats)
    if context.args:
        one = _find(people, context.args[0])
        if one is None or one not in stats:
            await reply(update, context, esc(t("I don't know “{name}” at this table.",
                                               name=context.args[0])))
            return
        wanted = [one]
    blocks = ["📊 <b>" + esc(t("Statistics")) + "</b> · " + esc(t("{n} hands", n=hand_count))]
    for pid in sorted(wanted, key=lambda p: -merge(stats[p].values()).points):
        total = merge(stats[pid].values())
        lines = [f"<b>{esc(people[pid].name)}</b>: "
                 + esc(t("{points} points in {hands} hands ({per} per hand)",
                         points=total.points, hands=total.hands,
                         per=f"{total.points_per_hand:.1f}"))]
        for variant_name, st in sorted(stats[pid].items()):
            variant = get_variant(variant_name)
            title = variant.title[{"en": 0, "zh-Hans": 1, "zh-Hant": 2}.get(sc.lang, 0)]
            patterns = ", ".join(f"{term(variant, k, sc.lang)} ×{n}" for k, n in st.top_patterns())
            lines.append("  " + esc(title) + ": " + esc(t(
                "{wins} wins of {hands} ({rate}%), self-drawn {sd}%, dealt in {di}, biggest +{big}",
                wins=st.wins, hands=st.hands, rate=round(100 * st.win_rate),
                sd=round(100 * st.self_draw_rate), di=st.dealt_in, big=st.biggest_gain)))
            if patterns:
                lines.append("  " + esc(t("Most frequent: {patterns}", patterns=patterns)))
        blocks.append("\n".join(lines))
    text = "\n\n".join(blocks)
    await reply(update, context, text[:4000])


# -- chart, export, import -----------------------------------------------------------------------

async def cmd_chart(update: Update, context: Context) -> None:
    sc = await scope(update, context)
    t = sc.t
    session = await _last_session(context, sc.chat_id)
    if session is None:
        await reply(update, context, esc(t("No session yet. Start one with /new.")))
        return
    names = [n or "?" for n in await seat_names(store_of(context), session)]
    # Running totals from the aggregates: every hand, or a few thousand points of a long session.
    chart = await store_of(context).chart_series(session.id)
    series = {f"{names[s]}": [totals[s] for totals in chart.totals] for s in range(4)}
    title = get_variant(session.variant).title[{"en": 0, "zh-Hans": 1, "zh-Hant": 2}.get(sc.lang, 0)]
    from .charts import render_balance_chart  # matplotlib loads with the first chart, not at start

    png = await asyncio.to_thread(render_balance_chart, series, title=title, x_label=t("Hand"),
                                  y_label=t("Points"), level_breaks=chart.level_breaks, x=chart.x)
    caption = esc(t("Running totals over {n} hands", n=chart.hands))
    await context.bot.send_photo(sc.chat_id, InputFile(png, filename="chart.png"), caption=caption,
                                 parse_mode=ParseMode.HTML)


async def cmd_export(update: Update, context: Context) -> None:
    sc = await scope(update, context)
    store = store_of(context)
    session = await _last_session(context, sc.chat_id)
    if session is None:
        await reply(update, context, esc(sc.t("No session yet. Start one with /new.")))
        return
    names = [n or "?" for n in await seat_names(store, session)]
    base = f"mjledger-{session.variant}-{session.id}"
    with tempfile.TemporaryDirectory(prefix="mjledger-export-") as tmp:
        csv_path, json_path = Path(tmp, f"{base}.csv"), Path(tmp, f"{base}.json")
        # Streamed, in a worker thread with its own connection: a batch of hands at a time
        # from the database to the files, so a long session neither fills memory nor holds up
        # the other chats.
        with csv_path.open("w", encoding="utf-8-sig", newline="") as csv_file, \
                json_path.open("w", encoding="utf-8") as json_file:
            as_csv = CsvWriter(csv_file, names, session.stake_cents)
            as_json = JsonWriter(json_file, session.variant, session.rules, session.stake_cents, names)

            def write(batch: list[Any]) -> None:
                hands = [ExportedHand(h.seq, h.record, h.outcome, h.voided, h.void_reason)
                         for h in batch]
                as_csv.write(hands)
                as_json.write(hands)

            await store.consume_hands_off_loop(session.id, write)
            as_json.close()
        csv_path = await asyncio.to_thread(fit_for_upload, csv_path)
        json_path = await asyncio.to_thread(fit_for_upload, json_path)
        with csv_path.open("rb") as f:
            await context.bot.send_document(sc.chat_id, InputFile(f, filename=csv_path.name))
        with json_path.open("rb") as f:
            await context.bot.send_document(sc.chat_id, InputFile(f, filename=json_path.name),
                                            caption=esc(sc.t("Send this file back with /import "
                                                             "to load the session again.")))


async def cmd_import(update: Update, context: Context) -> None:
    sc = await scope(update, context)
    t, store = sc.t, store_of(context)
    message = update.effective_message
    document = message.document or (message.reply_to_message.document
                                    if message.reply_to_message else None)
    if document is None:
        await reply(update, context, esc(t("Send an exported .json file with the caption /import, "
                                           "or answer such a file with /import.")))
        return
    if await store.running_session(sc.chat_id) is not None:
        await reply(update, context, esc(t("A session is already running here: /table shows it, "
                                           "/end closes it.")))
        return
    data = bytes(await (await context.bot.get_file(document.file_id)).download_as_bytearray())
    try:
        imported = parse_import(data)
    except ImportError_ as exc:
        kwargs = dict(exc.kwargs)
        if exc.scoring is not None:
            kwargs["reason"] = reason(t, sc.lang, exc.scoring, exc.players)
        await reply(update, context,
                    "⚠️ " + esc(t("Cannot import: {reason}", reason=t(exc.msgid, **kwargs))))
        return
    session = await store.start_session(sc.chat_id, imported.variant, imported.rules,
                                        stake_cents=imported.stake_cents, started_by=sc.person_id)
    people = await _people(context, sc.chat_id)
    for seat, player in enumerate(imported.players):
        pid = _find(people, player)
        if pid is None or pid in session.seats:
            pid = (await store.add_guest(sc.chat_id, player)).id
        session = await store.seat_player(session.id, seat, pid)
    for hand in imported.hands:
        key = f"import:{document.file_unique_id}:{session.id}:{hand.seq}"
        stored = await store.record_hand(session.id, hand.record, hand.outcome,
                                         entered_by=sc.person_id, idempotency_key=key)
        if hand.voided:
            await store.void_hand(stored.id, by=sc.person_id, reason=hand.void_reason or "import")
    session = await store.end_session(session.id)
    totals = await store.totals(session.id)
    names = await seat_names(store, session)
    lines = ["📥 " + esc(t("Imported {n} hands as session {id}.", n=len(imported.hands),
                          id=session.id)), ""]
    lines += [f"{esc(names[s] or '?')}: {totals[s]:+d}" for s in range(4)]
    await send(context, sc.chat_id, "\n".join(lines))


HANDLERS = [
    CommandHandler("settle", cmd_settle),
    CommandHandler("paid", cmd_paid),
    CommandHandler("stats", cmd_stats),
    CommandHandler("chart", cmd_chart),
    CommandHandler("export", cmd_export),
    CommandHandler("import", cmd_import),
    MessageHandler(filters.Document.ALL & filters.CaptionRegex(r"^/import(@\w+)?\b"), cmd_import),
    CallbackQueryHandler(on_paid_button, pattern=r"^p:"),
]
