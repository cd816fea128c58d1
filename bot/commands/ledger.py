"""When the game ends: /settle and /paid (money, fewest transfers), /stats, /chart, /export,
/import."""

from __future__ import annotations

import asyncio
import re

from telegram import InputFile, Message, Update
from telegram.constants import ParseMode
from telegram.ext import CallbackQueryHandler, CommandHandler, MessageHandler, filters

from db import Person, Session, Store, StoreError, without_bidi_controls
from scoring import get_variant
from scoring.settlement import Transfer, format_cents
from scoring.stats import PlayerStats, merge
from scoring.variant import in_lang

from ..books.payments import confirm_received, mark_paid, record_payment
from ..books.refusals import (
    AllSquare,
    AlreadyImported,
    PaymentConfirmed,
    PaymentNotOpen,
    PaymentWaits,
    StaleTransfer,
)
from ..books.sessions import import_session
from ..chat.scope import ChatScope, ask_table, is_admin, is_member, refusal, scope, stale_button
from ..chat.settle import people_of, settlement
from ..chat.table import last_session, seat_names
from ..entry.hu.words import parse_seat
from ..plumbing.callbacks import Act, Family, decode, encode
from ..plumbing.limits import MAX_IMPORT_BYTES, MAX_PAYMENT_CENTS, clip, parse_amount
from ..plumbing.messages import Button, Context, edit, reply, send, store_of
from ..view.export import ImportError_, parse_import, session_files
from ..view.i18n import N_
from ..view.render import (
    MINUS,
    colon,
    esc,
    hands_count,
    listing,
    name_html,
    plural,
    reason,
    shown_name,
    signed,
    term,
    unit,
    with_unit,
)

# a player's wins at /stats: "1 win in 2 hands", "3 wins in 4 hands"
WINS = (N_("{n} win in {hands} ({rate}%), self-drawn {sd}%, dealt in {di}"),
        N_("{n} wins in {hands} ({rate}%), self-drawn {sd}%, dealt in {di}"))

ALL_SQUARE = N_("Nobody here owes any money (everyone is square, or no stake is set), so no "
                "payment was recorded. /settle shows who owes whom.")

# -- whose money ---------------------------------------------------------------------------------

def _find(people: dict[int, Person], token: str) -> int | None:
    token = token.strip()
    if token.startswith("@"):
        wanted = token[1:].lower()
        hits = [p.id for p in people.values() if (p.username or "").lower() == wanted]
    else:
        hits = [p.id for p in people.values() if p.name.lower() == token.lower()]
    return hits[0] if len(hits) == 1 else None


async def _settle_view(context: Context, sc: ChatScope,
                       session_id: int | None) -> tuple[str, list[list[Button]]]:
    """/settle's text (bot/chat/settle.py) and its buttons: ✓ paid for each open transfer, ✅
    received for each payment waiting for its payee."""
    t = sc.t
    shown = await settlement(store_of(context), sc.chat_id, t, sc.lang, session_id,
                             [table.number for table in sc.tables])
    rows = [[Button(t("✓ {n} paid", n=i),
                    encode(Act.PAID, (), tr.payer, tr.payee, tr.cents, session_id))]
            for i, tr, waiting in shown.transfers if not waiting]
    for p in shown.pending:
        payee = shown_name(shown.people[p.to_person].name, 20)
        rows.append([Button(t("✅ {name} received {amount}", name=payee,
                              amount=format_cents(p.cents)),
                            encode(Act.RECEIVED, (), p.id, session_id))])
    return shown.text, rows


async def cmd_settle(update: Update, context: Context) -> None:
    sc = await scope(update, context)
    session_id = None
    if (context.args or [""])[0].lower() in ("session", "this"):
        if sc.unclear:  # this session: which table's?
            await ask_table(update, context, sc)
            return
        session = sc.session or await last_session(store_of(context), sc.chat_id)
        session_id = session.id if session else None
    text, rows = await _settle_view(context, sc, session_id)
    await reply(update, context, text, rows)


async def _may_confirm(context: Context, sc: ChatScope, payee: int, user_id: int,
                       payer: int | None = None) -> bool:
    """Only the payee says money arrived; a chat admin may say it for them (a guest payee), and
    so may the scorekeeper of the chat's latest session when both are guests (no phone)."""
    if sc.person_id == payee or sc.is_private:
        return True
    if payer is not None and await _between_guests_kept_by_me(context, sc, payer, payee):
        return True
    return await is_admin(context, sc.chat_id, user_id)


async def _between_guests_kept_by_me(context: Context, sc: ChatScope, payer: int,
                                     payee: int) -> bool:
    store = store_of(context)
    people = await store.get_people((payer, payee))
    if not all(p in people and people[p].is_guest for p in (payer, payee)):
        return False
    session = await last_session(store, sc.chat_id)
    return session is not None and session.keeps_score(sc.person_id)


async def on_paid_button(update: Update, context: Context) -> None:
    """Act.PAID: that transfer was made. Tapped by the payee (or an admin) it counts at once;
    by the payer it waits for the payee's confirmation."""
    query = update.callback_query
    sc = await scope(update, context)
    t, store = sc.t, store_of(context)
    tap = decode(query.data)
    if tap is None:
        await stale_button(query, t)
        return
    payer, payee, cents, session_id = (tap.number("payer"), tap.number("payee"),
                                       tap.number("cents"), tap.get("session"))
    confirmed = await _may_confirm(context, sc, payee, query.from_user.id, payer)
    if sc.person_id != payer and not confirmed:
        await query.answer(t("Only the two people of a transfer, or a chat admin, can mark it "
                             "paid."), show_alert=True)
        return
    try:
        await mark_paid(store, sc.chat_id, Transfer(payer, payee, cents), session_id=session_id,
                        by=sc.person_id, confirmed=confirmed)
    except StaleTransfer:
        await stale_button(query, t)
        return
    except PaymentNotOpen:
        await query.answer(t("This payment is no longer open."), show_alert=True)
        return
    except PaymentWaits:
        await query.answer(t("This payment already waits for the payee to confirm it."),
                           show_alert=True)
        return
    except StoreError as exc:
        await query.answer(refusal(t, exc)[:190], show_alert=True)
        return
    text, rows = await _settle_view(context, sc, session_id)
    await edit(query, text, rows)
    await query.answer(t("Recorded.") if confirmed
                       else t("Recorded; it counts once the payee confirms it."))


async def on_received_button(update: Update, context: Context) -> None:
    """Act.RECEIVED: the payee (or an admin) confirms a pending payment."""
    query = update.callback_query
    sc = await scope(update, context)
    t, store = sc.t, store_of(context)
    tap = decode(query.data)
    if tap is None:
        await stale_button(query, t)
        return
    payment_id, session_id = tap.number("payment"), tap.get("session")
    try:
        payment = await store.get_payment(payment_id)
    except StoreError:
        payment = None
    if payment is None or payment.chat_id != sc.chat_id:
        await stale_button(query, t)
        return
    if not await _may_confirm(context, sc, payment.to_person, query.from_user.id,
                              payment.from_person):
        await query.answer(t("Only the payee, or a chat admin, can confirm a payment."),
                           show_alert=True)
        return
    try:
        await confirm_received(store, sc.chat_id, payment.id, sc.person_id)
    except PaymentConfirmed:
        await query.answer(t("This payment is already confirmed."), show_alert=True)
        return
    text, rows = await _settle_view(context, sc, session_id)
    await edit(query, text, rows)
    await query.answer(t("Confirmed."))


async def cmd_paid(update: Update, context: Context) -> None:
    """/paid @payee AMOUNT: I paid (pending until the payee confirms);
    /paid from @payer AMOUNT: I was paid (the payee's word: counts at once)."""
    sc = await scope(update, context)
    t, store = sc.t, store_of(context)
    args = list(context.args or [])
    received = len(args) == 3 and args[0].lower() in ("from", "收到", "收")
    if received:
        args = args[1:]
    usage = esc(t("Usage: /paid @name AMOUNT — you paid that person, e.g. /paid @bob 12.5; "
                  "/paid from @name AMOUNT — that person paid you."))
    people = await people_of(store_of(context), sc.chat_id)
    target = _find(people, args[0]) if len(args) == 2 else None
    if target is None or sc.person_id is None or target == sc.person_id:
        await reply(update, context, usage)
        return
    try:
        cents = parse_amount(args[1], MAX_PAYMENT_CENTS)
    except ValueError:
        await reply(update, context, esc(t("An amount is a plain number such as 12.5, above 0 and "
                                           "at most {max}.", max=format_cents(MAX_PAYMENT_CENTS))))
        return
    payer, payee = (target, sc.person_id) if received else (sc.person_id, target)
    amount, name = format_cents(cents), shown_name(people[target].name, None)
    try:
        booked = await record_payment(store, sc.chat_id, payer, payee, cents, by=sc.person_id,
                                      confirmed=received)
    except AllSquare:
        await reply(update, context, esc(t(ALL_SQUARE)))
        return
    if not booked:  # delivered again after a crash: say what
        head = (t("That was already done: payment of {amount} from {name} recorded.",
                  amount=amount, name=name) if received else
                t("That was already done: payment of {amount} to {name} noted; it counts once "
                  "{name} confirms it.", amount=amount, name=name))
    else:
        head = (t("Payment of {amount} recorded.", amount=amount) if received else
                t("Payment of {amount} to {name} noted; it counts once {name} confirms it.",
                  amount=amount, name=name))
    text, rows = await _settle_view(context, sc, None)
    await reply(update, context, "✅ " + esc(head) + "\n\n" + text, rows)


# -- statistics ----------------------------------------------------------------------------------

async def _player_stats(context: Context, chat_id: int) -> tuple[dict[int, dict[str, PlayerStats]], int]:
    """person → variant → stats, and the chat's number of live hands, from the running
    aggregates (a few rows per session, however many hands were played)."""
    stats: dict[int, dict[str, PlayerStats]] = {}
    hands = 0
    for row in await store_of(context).seat_stats(chat_id):
        stats.setdefault(row.person_id, {}).setdefault(row.variant, PlayerStats()).add(row)
        hands += row.hands if row.seat == 0 else 0
    return stats, hands


async def cmd_stats(update: Update, context: Context) -> None:
    sc = await scope(update, context)
    t = sc.t
    people = await people_of(store_of(context), sc.chat_id)
    stats, hand_count = await _player_stats(context, sc.chat_id)
    if not hand_count:
        await reply(update, context, esc(t("No hands yet. /hand enters one.")))
        return
    wanted = list(stats)
    if context.args:
        one = _find(people, context.args[0])
        if one is None or one not in stats:
            await reply(update, context, esc(t("I don't know “{name}” at this table.",
                                               name=clip(context.args[0]))))
            return
        wanted = [one]
    blocks = ["📊 <b>" + esc(t("Statistics")) + "</b> · " + esc(hands_count(t, hand_count))]
    for pid in sorted(wanted, key=lambda p: -merge(stats[p].values()).points):
        total = merge(stats[pid].values())
        # each variant counts in its own unit (颗, 个, 点, 分); a mix of them in plain points
        units = {unit(get_variant(v), sc.lang) for v in stats[pid]}
        u = units.pop() if len(units) == 1 else t("points")
        lines = [f"<b>{name_html(people[pid].name)}</b>{colon(t)}"
                 + esc(t("{points} in {hands} ({per} per hand)",
                         points=with_unit(t, signed(total.points), u),
                         hands=hands_count(t, total.hands),
                         per=with_unit(t, f"{total.points_per_hand:.1f}".replace("-", MINUS), u)))]
        for variant_name, st in sorted(stats[pid].items()):
            variant = get_variant(variant_name)
            title = in_lang(variant.title, sc.lang)
            patterns = listing(t).join(f"{term(variant, k, sc.lang)} ×{n}" for k, n in st.top_patterns())
            line = plural(t, st.wins, WINS, hands=hands_count(t, st.hands),
                          rate=round(100 * st.win_rate), sd=round(100 * st.self_draw_rate),
                          di=st.dealt_in)
            if st.biggest_gain > 0:  # no hand gained anything: nothing to call the biggest
                line += t(", biggest +{big}",
                          big=with_unit(t, str(st.biggest_gain), unit(variant, sc.lang)))
            lines.append("  " + esc(title) + colon(t) + esc(line))
            if patterns:
                lines.append("  " + esc(t("Most frequent: {patterns}", patterns=patterns)))
        blocks.append("\n".join(lines))
    text = "\n\n".join(blocks)
    await reply(update, context, text)  # a long one goes as several messages


# -- chart, export, import -----------------------------------------------------------------------

async def cmd_chart(update: Update, context: Context) -> None:
    sc = await scope(update, context)
    t = sc.t
    if sc.unclear:
        await ask_table(update, context, sc)
        return
    session = sc.session or await last_session(store_of(context), sc.chat_id)
    if session is None:
        await reply(update, context, esc(t("No session yet. Start one with /new.")))
        return
    store = store_of(context)
    names = [n or "?" for n in await seat_names(store, session)]
    # Running totals from the aggregates: every hand, or a few thousand points of a long session.
    chart = await store.chart_series(session.id)
    series = {without_bidi_controls(names[s]): [totals[s] for totals in chart.totals] for s in range(4)}
    if chart.people is not None and await _seats_changed(store, session):
        # a line per person across the seats they held (seated ones first, in seat order)
        people = await store.get_people(chart.people)
        order = sorted(chart.people, key=lambda p: (session.seats.index(p) if p in session.seats
                                                    else 4))
        series = {without_bidi_controls(people[p].name if p in people else "?"): chart.people[p]
                  for p in order}
    title = in_lang(get_variant(session.variant).title, sc.lang)
    from ..view.charts import render_balance_chart  # matplotlib loads with the first chart, not at start

    png = await asyncio.to_thread(render_balance_chart, series, title=title, x_label=t("Hand"),
                                  y_label=unit(get_variant(session.variant), sc.lang),
                                  level_breaks=chart.level_breaks, x=chart.x)
    caption = esc(plural(t, chart.hands, (N_("Running totals over {n} hand"),
                                          N_("Running totals over {n} hands"))))
    await context.bot.send_photo(sc.chat_id, InputFile(png, filename="chart.png"), caption=caption,
                                 parse_mode=ParseMode.HTML)


async def _seats_changed(store: Store, session: Session) -> bool:
    """Whether anyone played in another seat than the one they hold now (or holds none)."""
    return any(r.person_id not in session.seats or r.seats != (session.seats.index(r.person_id),)
               for r in await store.person_results([session.id]))


# A session with more hands than this takes a second or more to export: /export says so first
# and sends the files from a task of their own, so the chat's next updates need not wait.
LONG_EXPORT = 2_000


async def cmd_export(update: Update, context: Context) -> None:
    sc = await scope(update, context)
    store = store_of(context)
    if sc.unclear:
        await ask_table(update, context, sc)
        return
    session = sc.session or await last_session(store, sc.chat_id)
    if session is None:
        await reply(update, context, esc(sc.t("No session yet. Start one with /new.")))
        return
    names = [n or "?" for n in await seat_names(store, session)]
    if session.hand_count <= LONG_EXPORT:
        await _send_export(context, sc, session, names)
        return
    await reply(update, context, "⏳ " + esc(sc.t(
        "Preparing the export of {n} hands; the files follow when they are ready.",
        n=session.hand_count)))
    context.application.create_task(_send_export(context, sc, session, names), update=update)


async def _send_export(context: Context, sc: ChatScope, session: Session, names: list[str]) -> None:
    (csv_name, csv_data), (json_name, json_data) = await session_files(
        store_of(context), session, names)
    await context.bot.send_document(sc.chat_id, InputFile(csv_data, filename=csv_name))
    await context.bot.send_document(sc.chat_id, InputFile(json_data, filename=json_name),
                                    caption=esc(sc.t("Send this file back with /import "
                                                     "to load the session again.")))


IMPORT_MAP = re.compile(r"([0-3ESWNesnw])=@(\w{1,64})", re.ASCII)


async def _import_mapping(context: Context, sc: ChatScope, tokens: list[str]) -> dict[int, int]:
    """SEAT=@username tokens (seat 0-3 or E S W N): which file players are members of this
    chat. Raises ImportError_ naming the token that does not work."""
    store = store_of(context)
    mapping: dict[int, int] = {}
    for token in tokens:
        m = IMPORT_MAP.fullmatch(token)
        if m is None:
            raise ImportError_("“{token}” is not SEAT=@username (e.g. E=@alice)", token=clip(token))
        seat = parse_seat(m.group(1))
        person = await store.person_by_username(m.group(2))
        if person is None or person.telegram_id is None or not await is_member(
                context, sc, person.telegram_id):
            raise ImportError_("@{name} is not a member of this chat that I know",
                               name=m.group(2))
        if seat in mapping or person.id in mapping.values():
            raise ImportError_("“{token}” maps a seat or a member twice", token=clip(token))
        mapping[seat] = person.id
    return mapping


def _import_args(message: Message, context: Context) -> list[str]:
    if context.args is not None:
        return list(context.args)
    return (message.caption or "").split()[1:]


async def cmd_import(update: Update, context: Context) -> None:
    """Only a chat admin (in a private chat, its owner) imports. The file is checked whole,
    then stored in one transaction; its names become guests unless mapped: /import E=@alice."""
    sc = await scope(update, context)
    t, store = sc.t, store_of(context)
    message = update.effective_message
    if not sc.is_private and not await is_admin(context, sc.chat_id, update.effective_user.id):
        await reply(update, context, esc(t("Only a chat admin can import a session.")))
        return
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
    try:
        if document.file_size and document.file_size > MAX_IMPORT_BYTES:
            raise ImportError_("the file is larger than {max} bytes", max=MAX_IMPORT_BYTES)
        mapping = await _import_mapping(context, sc, _import_args(message, context))
        data = bytes(await (await context.bot.get_file(document.file_id)).download_as_bytearray())
        imported = await asyncio.to_thread(parse_import, data)
    except ImportError_ as exc:
        kwargs = dict(exc.kwargs)
        if exc.scoring is not None:
            kwargs["reason"] = reason(t, sc.lang, exc.scoring, exc.players)
        await reply(update, context,
                    "⚠️ " + esc(t("Cannot import: {reason}", reason=t(exc.msgid, **kwargs))))
        return
    key = f"import:{sc.chat_id}:{update.update_id}"  # the same when Telegram delivers it again
    try:
        session = await import_session(store, sc.chat_id, imported, mapping, by=sc.person_id,
                                       key=key)
    except AlreadyImported as exc:  # delivered again after it was imported: say as what
        await reply(update, context, esc(
            t("That was already done: this file was imported as session {n}.", n=exc.number)
            if exc.number is not None else t("That was already done; nothing was changed again.")))
        return
    except StoreError as exc:
        await reply(update, context, "⚠️ " + esc(t("Cannot import: {reason}",
                                                  reason=refusal(t, exc))))
        return
    totals = await store.totals(session.id)
    names = await seat_names(store, session)
    lines = ["📥 " + esc(plural(t, len(imported.hands), (
        N_("Imported {n} hand as session {id}."), N_("Imported {n} hands as session {id}.")),
        id=session.number)), ""]
    for s in range(4):
        guest = "" if s in mapping else " · " + esc(t("guest"))
        lines.append(f"{name_html(names[s] or '?')}{guest}{colon(t)}{signed(totals[s])}")
    if len(mapping) < 4:
        lines += ["", esc(t("Names from the file are guests. To put a member in a seat, import "
                            "again with SEAT=@username, e.g. /import E=@alice."))]
    await send(context, sc.chat_id, "\n".join(lines))


HANDLERS = [
    CommandHandler("settle", cmd_settle),
    CommandHandler("paid", cmd_paid),
    CommandHandler("stats", cmd_stats),
    CommandHandler("chart", cmd_chart),
    CommandHandler("export", cmd_export),
    CommandHandler("import", cmd_import),
    # A file with the caption /import (CommandHandler reads text only); the guard in app.py
    # drops captions addressed to another bot.
    MessageHandler(filters.Document.ALL & filters.CaptionRegex(r"^/import(@\w+)?(\s|$)"), cmd_import),
    CallbackQueryHandler(on_paid_button, pattern=Family.PAID.pattern),
    CallbackQueryHandler(on_received_button, pattern=Family.RECEIVED.pattern),
]
