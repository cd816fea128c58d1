"""Seats that change hands during a session, and the scorekeeper: /seat, /keeper and the seats
screen's buttons (offered on /table). A change takes effect from the next hand on and books
nothing: each hand keeps who sat where, and what a person won stays theirs."""

from __future__ import annotations

from telegram import Message, Update, User
from telegram.ext import CallbackQueryHandler, CommandHandler

from db import Person, Session, SessionView, StoreError
from scoring import get_variant

from ..books.refusals import BadName, NotAMember, SeatTakenBy, TwoSeats
from ..books.sessions import guest_name, leave, sit, sit_guest, swap
from ..chat.scope import (
    NOT_AT_TABLE,
    ChatScope,
    display_name,
    is_member,
    may_act,
    refusal,
    require_session,
    scope,
    stale_button,
    tapped_session,
)
from ..chat.table import left_lines, seat_names, session_totals, standing_hands, table_state
from ..entry.hu.words import LineError, parse_seat
from ..plumbing.callbacks import Act, Family, encode
from ..plumbing.limits import clip
from ..plumbing.messages import Button, Context, edit, reply, send, store_of
from ..view.i18n import N_, Translator
from ..view.render import and_list, esc, totals_block, unit, wind

SWAPS = ((0, 1), (1, 2), (2, 3), (0, 2), (1, 3), (3, 0))
FREE = ("-", "—", "–", "空", "empty", "none")
USAGE = N_("Usage: /seat SEAT NAME puts a guest (or an @member) in a seat from the next hand on; "
           "/seat SEAT SEAT swaps two seats (by wind or number); /seat SEAT - gives a seat up; "
           "/seat SEAT sits you there. SEAT is a wind (东 南 西 北 or E S W N), 0–3 or a seated "
           "player's name.")


# -- what the chat sees ----------------------------------------------------------------------------

async def keeper_names(context: Context, session: Session) -> list[str]:
    ids = [p for p in (session.started_by, *session.keepers) if p is not None]
    known: dict[int, str] = {}
    if isinstance(session, SessionView):  # the seated ones' names came with the session
        known = {p: n for p, n in zip(session.seats, session.names, strict=True)
                 if p is not None and n is not None}
    missing = [p for p in ids if p not in known]
    if missing:
        known |= {p: person.name for p, person in (await store_of(context).get_people(missing)).items()}
    return [known[p] for p in ids if p in known]


async def seats_screen(context: Context, sc: ChatScope, session: Session,
                       headline: str = "") -> tuple[str, list[list[Button]]]:
    """The seats, who sits where with their own totals, who played and left, who keeps score,
    and a button for each change. A session just changed is read again whole, in one read."""
    t, store = sc.t, store_of(context)
    if not isinstance(session, SessionView):
        session = (await store.chat_context(sc.chat_id)).session or session
    names = await seat_names(store, session)
    base = await table_state(store, session)
    u = unit(get_variant(session.variant), sc.lang)
    lines = [headline, ""] if headline else []
    lines.append("🪑 <b>" + esc(t("Seating")) + "</b> · " + esc(t("session {n}", n=session.number))
                 + " · " + esc(t("next: hand {n}", n=await standing_hands(store, session) + 1)))
    lines.append("")
    lines += totals_block(t, names, await session_totals(store, session), session.stake_cents,
                          base["dealer"], u)
    lines += await left_lines(store, session, t, sc.lang)
    keepers = await keeper_names(context, session)
    if keepers:
        lines += ["", esc(t("Keeping score: {names}", names=and_list(t, keepers)))]
    lines += ["", esc(t("Changes count from the next hand on; nothing booked changes. 🙋 sits you "
                        "in an empty seat, 🚪 gives a seat up, ⇅ swaps two seats."))]
    head = (session.id,)
    seat_buttons = []
    for s in range(4):
        if session.seats[s] is None:
            seat_buttons.append(Button(f"🙋 {wind(t, s)}", encode(Act.SIT, head, s)))
        else:
            seat_buttons.append(Button(f"🚪 {wind(t, s)} {clip(names[s] or '?', 16)}",
                                       encode(Act.GIVE_UP, head, s)))
    rows = [seat_buttons[:2], seat_buttons[2:]]
    swaps = [Button(f"⇅ {wind(t, a)}↔{wind(t, b)}", encode(Act.SWAP_SEATS, head, a, b))
             for a, b in SWAPS]
    rows += [swaps[:3], swaps[3:]]
    rows.append([Button("📝 " + t("I keep score"), encode(Act.KEEP, head))])
    return "\n".join(lines), rows


async def _name_of(context: Context, person_id: int) -> str:
    return (await store_of(context).get_person(person_id)).name


async def _refused(context: Context, t: Translator, exc: Exception) -> str:
    """A seat refusal in the chat's words (plain text)."""
    if isinstance(exc, TwoSeats):
        return t("{name} already sits {seat}: one person, one seat. ⇅ swaps two seats; 🚪 frees "
                 "one first.", name=await _name_of(context, exc.person), seat=wind(t, exc.seat))
    if isinstance(exc, SeatTakenBy):
        return t("{seat} is {name}'s seat. Sit in an empty one, or ask someone at the table to "
                 "seat you (/seat).", name=await _name_of(context, exc.person),
                 seat=wind(t, exc.seat))
    if isinstance(exc, NotAMember):
        return t("{name} is no member of this chat that I know, so cannot keep score. Name a "
                 "member by @username, or answer one of their messages with /keeper.",
                 name=exc.name)
    if isinstance(exc, BadName):
        return t("Usage: /guest NAME (up to 64 characters)")
    if isinstance(exc, StoreError):
        return refusal(t, exc)
    raise exc


async def _open_entry_note(context: Context, sc: ChatScope, session: Session) -> str:
    """Said after a change while a hand is being entered: its preview follows the new seats."""
    if await store_of(context).drafts_for_session(session.id):
        return "\n" + sc.t("A hand is being entered: it shows the new seats, and its Confirm "
                           "asks again before anything is recorded.")
    return ""


# -- /seat ---------------------------------------------------------------------------------------

async def cmd_seat(update: Update, context: Context) -> None:
    sc = await scope(update, context)
    t = sc.t
    session = await require_session(update, context, sc)
    if session is None:
        return
    args = list(context.args or [])
    if not args:
        text, rows = await seats_screen(context, sc, session)
        await reply(update, context, text, rows)
        return
    names = await seat_names(store_of(context), session)
    try:
        seat = parse_seat(args[0], names)
    except LineError:
        await reply(update, context, esc(t(USAGE)))
        return
    user_id = update.effective_user.id  # type: ignore[union-attr]
    acting = await may_act(context, sc, session, user_id)
    try:
        if len(args) == 1:  # the sender sits there
            if sc.person_id is None:
                await reply(update, context, esc(t(USAGE)))
                return
            session, said = await _sit_self(context, sc, session, seat)
        elif args[1] in FREE and len(args) == 2:
            if not (acting or session.seats[seat] == sc.person_id):
                await reply(update, context, esc(t(NOT_AT_TABLE)))
                return
            session = await leave(store_of(context), session, seat)
            said = t("{seat} is free from the next hand on.", seat=wind(t, seat))
        else:
            if not acting:
                await reply(update, context, esc(t(NOT_AT_TABLE)))
                return
            session, said = await _seat_someone(context, sc, session, seat, args[1:])
    except (TwoSeats, SeatTakenBy, NotAMember, BadName, StoreError) as exc:
        await reply(update, context, esc(await _refused(context, t, exc)))
        return
    headline = esc(said + await _open_entry_note(context, sc, session))
    text, rows = await seats_screen(context, sc, session, headline)
    await reply(update, context, text, rows)


async def _sit_self(context: Context, sc: ChatScope, session: Session, seat: int
                    ) -> tuple[Session, str]:
    """The sender sits in `seat`: an empty one (moving from theirs, if seated)."""
    t, store = sc.t, store_of(context)
    assert sc.person_id is not None
    name = (session.names[session.seats.index(sc.person_id)]
            if isinstance(session, SessionView) and sc.person_id in session.seats else None)
    name = name or await _name_of(context, sc.person_id)
    if session.seats[seat] is None and sc.person_id in session.seats:
        session = await swap(store, session, session.seats.index(sc.person_id), seat)
    else:
        session = await sit(store, session, seat, sc.person_id)
    return session, t("{name} sits {seat} from the next hand on.", name=name, seat=wind(t, seat))


async def _seat_someone(context: Context, sc: ChatScope, session: Session, seat: int,
                        words: list[str]) -> tuple[Session, str]:
    """`/seat SEAT …`: another seat by its wind or number (a swap), else an @member or a
    guest's name (a substitute; someone seated elsewhere is refused, not moved)."""
    t, store = sc.t, store_of(context)
    if len(words) == 1:
        try:
            other = parse_seat(words[0])
        except LineError:
            other = None
        if other is not None:
            session = await swap(store, session, seat, other)
            return session, t("{a} and {b} swap seats from the next hand on.",
                              a=wind(t, seat), b=wind(t, other))
    if len(words) == 1 and words[0].startswith("@"):
        person = await _member(context, sc, words[0])
        session = await sit(store, session, seat, person.id, replace=True)
        name = person.name
    else:
        name = guest_name(" ".join(words))
        session = await sit_guest(store, sc.chat_id, session, seat, name)
    return session, t("{name} sits {seat} from the next hand on.", name=name, seat=wind(t, seat))


async def _member(context: Context, sc: ChatScope, word: str) -> Person:
    """The chat member @word, as far as the bot knows them: `NotAMember`."""
    store = store_of(context)
    person = await store.person_by_username(word.lstrip("@"))
    if person is None or person.telegram_id is None or not await is_member(
            context, sc, person.telegram_id):
        raise NotAMember(clip(word))
    return person


# -- /keeper -------------------------------------------------------------------------------------

async def cmd_keeper(update: Update, context: Context) -> None:
    sc = await scope(update, context)
    t, store = sc.t, store_of(context)
    session = await require_session(update, context, sc)
    if session is None:
        return
    message: Message = update.effective_message  # type: ignore[assignment]
    target: User | None = message.reply_to_message.from_user if message.reply_to_message else None
    args = list(context.args or [])
    if not args and (target is None or target.is_bot):
        keepers = await keeper_names(context, session)
        lines = [esc(t("Keeping score: {names}", names=and_list(t, keepers))) if keepers
                 else esc(t("Nobody is named to keep score yet.")),
                 esc(t("A scorekeeper enters, confirms and undoes hands and ends the session for "
                       "every seat. /keeper @name names one; so does answering their message "
                       "with /keeper."))]
        await reply(update, context, "\n".join(lines),
                    [[Button("📝 " + t("I keep score"), encode(Act.KEEP, (session.id,)))]])
        return
    if not await may_act(context, sc, session, update.effective_user.id):  # type: ignore[union-attr]
        await reply(update, context, esc(t(NOT_AT_TABLE)))
        return
    try:
        if args:
            if not args[0].startswith("@") or len(args) > 1:
                raise NotAMember(clip(" ".join(args)))
            person = await _member(context, sc, args[0])
        else:
            assert target is not None
            person = await store.upsert_user(target.id, display_name(target),
                                             username=target.username,
                                             language_code=target.language_code)
        session = await store.name_keeper(session.id, person.id)
    except (NotAMember, StoreError) as exc:
        await reply(update, context, esc(await _refused(context, t, exc)))
        return
    await reply(update, context, esc(_named(t, person.name, session)))


def _named(t: Translator, name: str, session: Session) -> str:
    return t("{name} keeps score for session {n}: enters, confirms and undoes hands and ends the "
             "session for every seat.", name=name, n=session.number)


# -- the seats screen's buttons --------------------------------------------------------------------

async def on_seats_button(update: Update, context: Context) -> None:
    query = update.callback_query
    sc = await scope(update, context)
    t, store = sc.t, store_of(context)
    tapped = await tapped_session(context, sc, query)
    if tapped is None:
        return
    tap, session = tapped
    op = tap.act
    acting = await may_act(context, sc, session, query.from_user.id)
    try:
        if op is Act.SEATS_SHOW:
            said = ""
        elif op is Act.SIT:
            seat = tap.number("seat")
            if sc.person_id is None:
                await stale_button(query, t)
                return
            if session.seats[seat] == sc.person_id:
                await query.answer(t("You already sit there."))
                return
            session, said = await _sit_self(context, sc, session, seat)
        elif op is Act.GIVE_UP:
            seat = tap.number("seat")
            if session.seats[seat] is None:
                await query.answer(t("That seat is free already."))
                return
            if not (acting or session.seats[seat] == sc.person_id):
                await query.answer(t(NOT_AT_TABLE), show_alert=True)
                return
            session = await leave(store, session, seat)
            said = t("{seat} is free from the next hand on.", seat=wind(t, seat))
        elif op is Act.SWAP_SEATS:
            if not acting:
                await query.answer(t(NOT_AT_TABLE), show_alert=True)
                return
            a, b = tap.number("seat"), tap.number("other")
            session = await swap(store, session, a, b)
            said = t("{a} and {b} swap seats from the next hand on.", a=wind(t, a), b=wind(t, b))
        elif op is Act.KEEP:
            await _offer_to_keep(update, context, sc, session, acting)
            return
        elif op is Act.KEEPER_OK:
            await _accept_keeper(update, context, sc, session, tap.number("person"), acting)
            return
        else:
            await stale_button(query, t)
            return
    except (TwoSeats, SeatTakenBy, StoreError) as exc:
        await query.answer((await _refused(context, t, exc))[:190], show_alert=True)
        return
    text, rows = await seats_screen(context, sc, session)
    await edit(query, text, rows)
    await query.answer(said[:190] if said else None)


async def _offer_to_keep(update: Update, context: Context, sc: ChatScope, session: Session,
                         acting: bool) -> None:
    """📝: someone at the table is named at once; anyone else's offer waits for the table."""
    query = update.callback_query
    t = sc.t
    if sc.person_id is None:
        await stale_button(query, t)
        return
    name = await _name_of(context, sc.person_id)
    if acting:
        session = await store_of(context).name_keeper(session.id, sc.person_id)
        await send(context, sc.chat_id, esc(_named(t, name, session)))
        await query.answer()
        return
    await send(context, sc.chat_id, esc(t("{name} offers to keep score. Someone at the table "
                                          "taps to agree.", name=name)),
               [[Button("✅ " + t("{name} keeps score", name=clip(name, 24)),
                        encode(Act.KEEPER_OK, (session.id,), sc.person_id))]])
    await query.answer(t("Asked the table."))


async def _accept_keeper(update: Update, context: Context, sc: ChatScope, session: Session,
                         person_id: int, acting: bool) -> None:
    query = update.callback_query
    t = sc.t
    if not acting:
        await query.answer(t(NOT_AT_TABLE), show_alert=True)
        return
    session = await store_of(context).name_keeper(session.id, person_id)
    await edit(query, esc(_named(t, await _name_of(context, person_id), session)))
    await query.answer()


HANDLERS = [
    CommandHandler("seat", cmd_seat),
    CommandHandler("keeper", cmd_keeper),
    CallbackQueryHandler(on_seats_button, pattern=Family.SEATS.pattern),
]
