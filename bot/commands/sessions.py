"""Starting a session, seating players, stake, house rules, language, ending."""

from __future__ import annotations

from typing import Any

from telegram import Update
from telegram.ext import CallbackQueryHandler, CommandHandler

from db import SeatedElsewhere, Session, StoreError
from scoring import all_variants, get_variant
from scoring.variant import Variant, in_lang, listed, term_name

from ..books.refusals import AlreadyRunning, BadName, BadStake, SeatsTaken
from ..books.sessions import end_session, guest_name, seat_guest, set_stake, start_session
from ..chat.scope import (
    NOT_AT_TABLE,
    ChatScope,
    is_admin,
    may_act,
    refusal,
    require_session,
    running_session,
    scope,
    stale_button,
    table_line,
    tapped_session,
)
from ..chat.table import left_lines, seat_names
from ..entry import controls
from ..entry.controls import Kind
from ..plumbing.callbacks import Act, Family, decode, encode
from ..plumbing.limits import clip
from ..plumbing.messages import Button, Context, edit, reply, send, store_of
from ..view.i18n import LANG_NAMES, LANGS, N_, Translator
from ..view.render import (
    colon,
    esc,
    hands_count,
    money,
    name_html,
    rule_label,
    seat_label,
    totals_block,
    unit,
)

VALUE_LABELS = {True: N_("yes"), False: N_("no"), "full": N_("full"), "half": N_("half"),
                "linear": N_("linear"), "double": N_("double"), "off": N_("off"),
                "always": N_("always"), "win_only": N_("only when winning"),
                "winner": N_("winner"), "both": N_("both"),
                # cap_applies, flower_cat, follow_pay, kongs_on_exhausted
                "value": N_("the hand's value"),
                "payment": N_("each payment"),
                "not_ready": N_("pays like a seat not ready"),
                "cap": N_("pays the cap to every other seat"),
                "last": N_("the last round's amount"), "sum": N_("every round's amount"),
                "pay": N_("pay"), "void": N_("void")}
INT_PRESETS = {"cap": (0, 20, 40, 100), "level_points": (100, 200), "false_win_points": (12, 24, 48),
               "rob_multiplier": (1, 3, 6)}


# -- rules as a keyboard ------------------------------------------------------------------------

def rule_choices(spec: controls.Spec) -> list[Any]:
    if spec.kind is Kind.BOOL:
        return [False, True]
    if spec.kind is Kind.CHOICE:
        return list(spec.choices)
    base = int(spec.default or 0)
    presets = INT_PRESETS.get(spec.name, (0, 1, 2, 3, 5, 10, 20, 30))
    return sorted({base, *presets})


def next_rule_value(spec: controls.Spec, current: Any) -> Any:
    choices = rule_choices(spec)
    idx = choices.index(current) if current in choices else -1
    return choices[(idx + 1) % len(choices)]


def value_text(t: Translator, variant: Variant, value: Any) -> str:
    """A house rule's value as /rules shows it: a shared label, else the variant's own term
    for it, else as it is."""
    if isinstance(value, (bool, str)) and value in VALUE_LABELS:
        return t(VALUE_LABELS[value])
    if isinstance(value, str) and value in variant.terms:
        return term_name(variant.terms, value, t.lang)
    return str(value)


def rules_text(t: Translator, variant_name: str, rules: dict[str, Any]) -> list[str]:
    variant = get_variant(variant_name)
    full = variant.Rules.model_validate(rules).model_dump()
    out = []
    for spec in controls.fields_of(variant.Rules):
        value = full[spec.name]
        shown = value_text(t, variant, value)
        name = rule_label(t, variant, spec.name)
        changed = "" if value == spec.default else " ✎"
        out.append(f"{esc(name)}{colon(t)}<b>{esc(shown)}</b>{changed}")
    return out


def rules_screen(t: Translator, session: Session) -> str:
    """The /rules screen's text: its title, how to change a rule, and what the style shows
    under its rules (`Variant.rules_notes`: a payment table)."""
    text = "<b>" + esc(t("House rules")) + "</b>\n" + esc(t("Tap a rule to change it."))
    variant = get_variant(session.variant)
    notes = variant.rules_notes(variant.read_rules(session.rules), t.lang)
    return text + ("\n<pre>" + esc("\n".join(notes)) + "</pre>" if notes else "")


def rules_rows(t: Translator, session: Session) -> list[list[Button]]:
    variant = get_variant(session.variant)
    full = variant.Rules.model_validate(session.rules).model_dump()
    rows = []
    for i, spec in enumerate(controls.fields_of(variant.Rules)):
        value = full[spec.name]
        shown = value_text(t, variant, value)
        name = rule_label(t, variant, spec.name)
        rows.append([Button(f"{name}{colon(t)}{shown} 🔄", encode(Act.RULE, (session.id,), i))])
    rows.append([Button("◀ " + t("Back"), encode(Act.TO_LOBBY, (session.id,)))])
    return rows


# -- the lobby message ------------------------------------------------------------------------

def variant_title(name: str, lang: str) -> str:
    return in_lang(get_variant(name).title, lang)


async def lobby(context: Context, sc: ChatScope, session: Session) -> tuple[str, list[list[Button]]]:
    t, store = sc.t, store_of(context)
    names = await seat_names(store, session)
    several = len({table.id for table in sc.tables} | {session.id}) > 1  # tables: say which
    number = t("Table {n}", n=session.number) if several else t("session {n}", n=session.number)
    lines = [f"<b>{esc(variant_title(session.variant, sc.lang))}</b> · " + esc(number), ""]
    for s in range(4):
        mark = " 🀄" if s == 0 else ""
        who = name_html(names[s]) if names[s] else "—"
        lines.append(f"{seat_label(t, s, [None] * 4).split()[0]}{mark}{colon(t)}{who}")
    lines.append(esc(t("🀄 deals the next hand.")))
    lines.append("")
    stake = money(session.stake_cents) if session.stake_cents else t("none")
    lines.append(esc(t("Stake per point: {stake}", stake=stake)))
    lines.append("")
    lines += rules_text(t, session.variant, session.rules)
    lines.append("")
    if all(p is not None for p in session.seats):
        lines.append(esc(t("Everyone is seated. /hand enters a hand; /hu for one line.")))
    else:
        lines.append(esc(t("Tap Join to sit down; /guest NAME seats a player without Telegram.")))
    head = (session.id,)
    rows = [[Button("🙋 " + t("Join"), encode(Act.JOIN, head)),
             Button("🚪 " + t("Leave"), encode(Act.LEAVE, head))]]
    if session.hand_count == 0:
        rows.append([Button(f"⇅ {t(w1)}↔{t(w2)}", encode(Act.SWAP, head, a)) for a, (w1, w2) in
                     enumerate(((N_("East"), N_("South")), (N_("South"), N_("West")),
                                (N_("West"), N_("North"))))])
    rows.append([Button("⚙ " + t("House rules"), encode(Act.RULES, head))])
    return "\n".join(lines), rows


# -- commands --------------------------------------------------------------------------------

async def cmd_new(update: Update, context: Context) -> None:
    sc = await scope(update, context)
    t = sc.t
    name = (context.args or [""])[0].lower()
    if sc.tables:  # a table runs: another beside it, or was /table meant? Ask.
        await _offer_another(update, context, sc, name if name in all_variants() else None)
        return
    if name not in all_variants():
        await reply(update, context, esc(_pick_prompt(t, name)), _variant_rows(sc, after=None))
        return
    await _start(update, context, sc, name)


def _pick_prompt(t: Translator, name: str) -> str:
    prompt = t("Which mahjong do you play?")
    if name:
        prompt = t("Unknown variant “{name}”.", name=clip(name)) + " " + prompt
    return prompt


def _variant_rows(sc: ChatScope, *, after: int | None) -> list[list[Button]]:
    return [[Button(variant_title(v.name, sc.lang), encode(Act.NEW_SESSION, (), v.name, after))]
            for v in listed()]  # in the registry's order, as /help lists them


def _newest(sc: ChatScope) -> int | None:
    """The number of the newest running table: what an offer of another table was made on."""
    return max((table.number for table in sc.tables), default=None)


def _another_text(sc: ChatScope) -> str:
    """What /new says while tables run: each of them, and what starting another means."""
    t = sc.t
    lines = [table_line(t, table) for table in sc.tables]
    lines += ["", esc(t("Start another table beside it? Each table keeps its own hands, and "
                        "/settle covers them all."))]
    mine = sc.seated_at()
    if mine is not None:
        lines.append(esc(t("You sit at table {n}: one person plays at one table at a time.",
                           n=mine.number)))
    return "\n".join(lines)


async def _offer_another(update: Update, context: Context, sc: ChatScope,
                         name: str | None) -> None:
    rows = [[Button("➕ " + sc.t("Start another table"),
                    encode(Act.ANOTHER_TABLE, (), _newest(sc) or 0, name))]]
    query = update.callback_query
    if query is not None:
        await edit(query, _another_text(sc), rows)
    else:
        await reply(update, context, _another_text(sc), rows)


async def _start(update: Update, context: Context, sc: ChatScope, name: str, *,
                 another: bool = False) -> None:
    try:
        session = await start_session(store_of(context), sc.chat_id, name, by=sc.person_id,
                                      another=another)
    except (AlreadyRunning, StoreError):
        # one started meanwhile (or this one was asked before another started): ask again
        await _offer_another(update, context, await scope(update, context), name)
        return
    text, rows = await lobby(context, sc, session)
    if update.callback_query is not None:
        await edit(update.callback_query, text, rows)
    else:
        await reply(update, context, text, rows)


async def on_new_button(update: Update, context: Context) -> None:
    query = update.callback_query
    sc = await scope(update, context)
    tap = decode(query.data)
    name = tap.text("variant") if tap is not None and tap.act is Act.NEW_SESSION else ""
    if name not in all_variants():
        await stale_button(query, sc.t)
        return
    after = tap.get("after") if tap is not None else None
    if not sc.tables:  # none runs (any more): the first table
        await _start(update, context, sc, name)
    elif after is None or after != _newest(sc):  # tables changed since this was asked (a
        await stale_button(query, sc.t)  # second tap): its message shows what came of it
        return
    else:
        await _start(update, context, sc, name, another=True)
    await query.answer()


async def on_another_button(update: Update, context: Context) -> None:
    """Act.ANOTHER_TABLE: a table beside those running; its style picked now unless named."""
    query = update.callback_query
    sc = await scope(update, context)
    tap = decode(query.data)
    if tap is None or tap.act is not Act.ANOTHER_TABLE:
        await stale_button(query, sc.t)
        return
    name = tap.get("variant")
    named = name if isinstance(name, str) and name in all_variants() else None
    if sc.tables and tap.get("after") != _newest(sc):  # tables changed since (a second tap):
        await stale_button(query, sc.t)  # its message shows what came of it
        return
    if named is not None:
        await _start(update, context, sc, named, another=bool(sc.tables))
    else:
        await edit(query, esc(_pick_prompt(sc.t, "")), _variant_rows(sc, after=_newest(sc)))
    await query.answer()


async def on_session_button(update: Update, context: Context) -> None:
    """The lobby's buttons (Family.LOBBY): join, leave, swap seats, rules menu, back."""
    query = update.callback_query
    sc = await scope(update, context)
    t, store = sc.t, store_of(context)
    tapped = await tapped_session(context, sc, query)
    if tapped is None:
        return
    tap, session = tapped
    op = tap.act
    if op is not Act.JOIN and not await may_act(context, sc, session, query.from_user.id):
        await query.answer(t(NOT_AT_TABLE), show_alert=True)
        return
    try:
        if op is Act.JOIN:
            free = [s for s in range(4) if session.seats[s] is None]
            if sc.person_id in session.seats:
                await query.answer(t("You are already seated."))
                return
            elsewhere = sc.seated_at()
            if elsewhere is not None:
                await query.answer(_elsewhere(t, elsewhere.number), show_alert=True)
                return
            if not free:
                await query.answer(t("All four seats are taken."), show_alert=True)
                return
            session = await store.seat_player(session.id, free[0], sc.person_id)
        elif op is Act.LEAVE:
            if sc.person_id not in session.seats:
                await query.answer(t("You are not seated."))
                return
            session = await store.unseat(session.id, session.seats.index(sc.person_id))
        elif op is Act.SWAP and tap.number("seat") < 3:
            a = tap.number("seat")
            session = await store.swap_seats(session.id, a, a + 1)
        elif op is Act.RULES:
            await edit(query, rules_screen(t, session), rules_rows(t, session))
            await query.answer()
            return
        elif op is not Act.TO_LOBBY:
            await stale_button(query, t)
            return
    except SeatedElsewhere as exc:  # sat down at the other table meanwhile
        await query.answer(_elsewhere(t, exc.number), show_alert=True)
        return
    except StoreError as exc:
        await query.answer(refusal(t, exc)[:190], show_alert=True)
        return
    text, rows = await lobby(context, sc, session)
    await edit(query, text, rows)
    await query.answer()


def _elsewhere(t: Translator, number: int) -> str:
    return t("You already sit at table {n}; one person plays at one table at a time. Leave "
             "that seat (or /end that table) first.", n=number)


async def on_rule_button(update: Update, context: Context) -> None:
    """A house rule's button (Act.RULE): cycle it to its next value."""
    query = update.callback_query
    sc = await scope(update, context)
    t, store = sc.t, store_of(context)
    tap = decode(query.data)
    session = await running_session(context, sc)
    if session is None or tap is None or tap.get("session") != session.id:
        await query.answer(t("This session is over."), show_alert=True)
        return
    if not await may_act(context, sc, session, query.from_user.id):
        await query.answer(t(NOT_AT_TABLE), show_alert=True)
        return
    variant = get_variant(session.variant)
    specs = controls.fields_of(variant.Rules)
    idx = tap.number("rule")
    if idx >= len(specs):
        await stale_button(query, t)
        return
    spec = specs[idx]
    rules = variant.Rules.model_validate(session.rules).model_dump()
    rules[spec.name] = next_rule_value(spec, rules[spec.name])
    session = await store.set_session_rules(session.id, variant.resolved_rules(rules))
    # what new sessions start with: the chat's choices and this one, not the values an older
    # session keeps from before a change of defaults
    house = dict((await store.ensure_chat(sc.chat_id)).house_rules.get(session.variant, {}))
    house[spec.name] = rules[spec.name]
    if rules[spec.name] == spec.default:
        house.pop(spec.name)
    await store.set_house_rules(sc.chat_id, session.variant, house)
    await edit(query, rules_screen(t, session), rules_rows(t, session))
    await query.answer()


async def cmd_rules(update: Update, context: Context) -> None:
    sc = await scope(update, context)
    session = await require_session(update, context, sc)
    if session is None:
        return
    await reply(update, context, rules_screen(sc.t, session), rules_rows(sc.t, session))


async def cmd_guest(update: Update, context: Context) -> None:
    sc = await scope(update, context)
    t = sc.t
    name = " ".join(context.args or [])
    session = await require_session(update, context, sc)
    if session is None:
        return
    try:
        guest_name(name)
    except BadName:
        await reply(update, context, esc(t("Usage: /guest NAME (up to 64 characters)")))
        return
    if not await may_act(context, sc, session, update.effective_user.id) and \
            sc.person_id is not None and None not in session.seats:
        await reply(update, context, esc(t(NOT_AT_TABLE)))
        return
    try:
        session = await seat_guest(store_of(context), sc.chat_id, session, name)
    except SeatsTaken:
        await reply(update, context, esc(t("All four seats are taken.")))
        return
    except StoreError as exc:
        await reply(update, context, esc(refusal(t, exc)))
        return
    text, rows = await lobby(context, sc, session)
    await reply(update, context, text, rows)


async def cmd_stake(update: Update, context: Context) -> None:
    sc = await scope(update, context)
    t = sc.t
    session = await require_session(update, context, sc, act=True)
    if session is None:
        return
    try:
        session = await set_stake(store_of(context), session, (context.args or [""])[0])
    except BadStake as exc:
        await reply(update, context, esc(t("Usage: /stake AMOUNT — money per point, e.g. /stake 0.5")
                                         + "\n" + t("At most {max} per point.",
                                                     max=money(exc.most))))
        return
    await reply(update, context, esc(t("Stake per point: {stake}", stake=money(session.stake_cents))))


async def _may_set_language(context: Context, sc: ChatScope, user_id: int) -> bool:
    """Seated players of the running session and chat admins (a private chat: its owner)."""
    if sc.is_private or sc.seated_at() is not None:
        return True
    return await is_admin(context, sc.chat_id, user_id)


async def cmd_lang(update: Update, context: Context) -> None:
    sc = await scope(update, context)
    if not await _may_set_language(context, sc, update.effective_user.id):  # type: ignore[union-attr]
        await reply(update, context, esc(sc.t("Only seated players and chat admins can do that.")))
        return
    rows = [[Button(LANG_NAMES[lang], encode(Act.LANGUAGE, (), lang)) for lang in LANGS]]
    await reply(update, context, esc(sc.t("Choose the language of this chat.")), rows)


async def on_lang_button(update: Update, context: Context) -> None:
    query = update.callback_query
    tap = decode(query.data)
    lang = tap.text("lang") if tap is not None and tap.act is Act.LANGUAGE else ""
    sc = await scope(update, context)
    if lang not in LANGS:
        await stale_button(query, sc.t)
        return
    if not await _may_set_language(context, sc, query.from_user.id):
        await query.answer(sc.t("Only seated players and chat admins can do that."),
                           show_alert=True)
        return
    await store_of(context).set_chat_language(sc.chat_id, lang)
    sc.lang = lang
    await edit(query, esc(sc.t("Language: {name}", name=LANG_NAMES[lang])))
    await query.answer()


async def cmd_end(update: Update, context: Context) -> None:
    sc = await scope(update, context)
    t, store = sc.t, store_of(context)
    session = await require_session(update, context, sc, act=True)
    if session is None:
        return
    names = await seat_names(store, session)
    ended = await end_session(store, session)
    at = esc(t("Table {n}", n=session.number)) + " · " if sc.several else ""
    lines = ["🏁 " + at + "<b>" + esc(t("Session over")) + "</b> · "
             + esc(hands_count(t, ended.hands)), ""]
    lines += totals_block(t, names, ended.totals, ended.session.stake_cents,
                          u=unit(get_variant(ended.session.variant), sc.lang))
    lines += await left_lines(store, ended.session, t, sc.lang)
    lines += ["", esc(t("/settle says who pays whom."))]
    await send(context, sc.chat_id, "\n".join(lines))


HANDLERS = [
    CommandHandler("new", cmd_new),
    CommandHandler("guest", cmd_guest),
    CommandHandler("stake", cmd_stake),
    CommandHandler("rules", cmd_rules),
    CommandHandler("lang", cmd_lang),
    CommandHandler("end", cmd_end),
    CallbackQueryHandler(on_new_button, pattern=Family.NEW.pattern),
    CallbackQueryHandler(on_another_button, pattern=Family.ANOTHER.pattern),
    CallbackQueryHandler(on_session_button, pattern=Family.LOBBY.pattern),
    CallbackQueryHandler(on_rule_button, pattern=Family.RULE.pattern),
    CallbackQueryHandler(on_lang_button, pattern=Family.LANGUAGE.pattern),
]
