"""Settling up, shared by the chat (/settle, /paid and their buttons, bot/commands/ledger.py) and
the page (bot/web/api.py): who pays whom in money (fewest transfers) and the payments that wait
for their payee. Marking a transfer paid or a payment received: bot/books/payments.py."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from db import Payment, Person, Store
from scoring import get_variant
from scoring.settlement import Transfer, settle

from ..view.i18n import Translator
from ..view.render import colon, esc, listing, money, name_html, signed, unit, with_unit


@dataclass
class Settlement:
    """The settling-up screen: its HTML lines, the open transfers (numbered from 1, with
    whether a payment of exactly that already waits for its payee), the waiting payments, and
    everyone's name."""

    lines: list[str]
    transfers: list[tuple[int, Transfer, bool]] = field(default_factory=list)
    pending: list[Payment] = field(default_factory=list)
    people: dict[int, Person] = field(default_factory=dict)

    @property
    def text(self) -> str:
        return "\n".join(self.lines)


async def people_of(store: Store, chat_id: int) -> dict[int, Person]:
    """Everyone who sat at this chat's tables, by person id: in a seat now, or for a hand
    before their seat changed hands."""
    sessions = await store.chat_sessions(chat_id, include_settled=True)
    ids = {pid for session in sessions for pid in session.seats if pid is not None}
    ids |= {r.person_id for r in await store.person_results([s.id for s in sessions])}
    return await store.get_people(ids) if ids else {}


async def settlement(store: Store, chat_id: int, t: Translator, lang: str,
                     session_id: int | None, tables: Sequence[int] = (), *,
                     page: bool = False) -> Settlement:
    """What /settle shows for the chat (one session, or all unsettled ones); square balances
    close the ended sessions they cover. `tables`: the numbers of the chat's running tables,
    named when there are several (all of them count, as they stand). `page`: the page's text,
    which lists the transfers and waiting payments as rows with their buttons, so its lines
    name neither, nor /paid."""
    ids = [session_id] if session_id is not None else None
    balances = await store.money_balances(chat_id, session_ids=ids)
    pending = await store.pending_payments(chat_id)
    people = await people_of(store, chat_id)
    for p in pending:  # a payee who never sat here (typed by name in an older chat)
        for pid in (p.from_person, p.to_person):
            if pid not in people:
                people[pid] = await store.get_person(pid)
    name = {pid: name_html(p.name) for pid, p in people.items()}
    scope_text = t("this session") if session_id is not None else t("all unsettled sessions")
    lines = ["💰 <b>" + esc(t("Settling up")) + "</b> · " + esc(scope_text), ""]
    if session_id is None and len(tables) > 1:
        lines[-1:] = [esc(t("Tables {numbers} are still running; each counts as it stands now.",
                            numbers=listing(t).join(str(n) for n in tables))), ""]
    out = Settlement(lines, pending=list(pending), people=people)
    owed = {pid: c for pid, c in balances.items() if c}
    if not owed:
        in_points = await _points_lines(store, chat_id, t, lang, session_id, name, page)
        if in_points:  # no stake yet: points still stand, nothing is settled
            lines += in_points
        else:
            await close_settled(store, chat_id, session_id)
            lines.append("🤝 " + esc(t("Everyone is square.")))
    else:
        for pid, cents in sorted(owed.items(), key=lambda kv: -kv[1]):
            lines.append(f"{name.get(pid, pid)}{colon(t)}<b>{'+' if cents > 0 else ''}"
                         f"{money(cents)}</b>")
        transfers = settle(owed)
        lines += ["", "<b>" + esc(t("Fewest transfers ({n})", n=len(transfers))) + "</b>"]
        if page:
            del lines[-2:]
        for i, tr in enumerate(transfers, 1):
            if not page:
                lines.append(f"{i}. {name.get(tr.payer)} → {name.get(tr.payee)}{colon(t)}"
                             f"<b>{money(tr.cents)}</b>")
            waiting = any((p.from_person, p.to_person, p.cents) == (tr.payer, tr.payee, tr.cents)
                          for p in pending)
            out.transfers.append((i, tr, waiting))
    if pending and not page:
        lines += ["", "⏳ <b>" + esc(t("Pending: counts once the payee confirms")) + "</b>"]
        for p in pending:
            lines.append(f"{name.get(p.from_person)} → {name.get(p.to_person)}{colon(t)}"
                         f"{money(p.cents)}")
    if owed or (page and pending):
        lines += ["", esc(t("The payee taps Received when the money arrives.") if page
                          else t("Tap when a transfer is made, or type /paid @name AMOUNT."))]
    return out


async def _points_lines(store: Store, chat_id: int, t: Translator, lang: str, session_id: int | None,
                        name: dict[int, str], page: bool = False) -> list[str]:
    """Sessions played without a stake still owe points: who pays whom in points, and how to
    set a stake (nothing is marked settled: no money has changed hands). The page names no
    command."""
    points: dict[int, int] = {}
    units = set()
    unstaked = {s.id: s for s in await store.chat_sessions(chat_id)
                if not s.stake_cents and (session_id is None or s.id == session_id)}
    for result in await store.person_results(list(unstaked)):  # each person over their seats
        if result.points:
            points[result.person_id] = points.get(result.person_id, 0) + result.points
            units.add(unit(get_variant(unstaked[result.session_id].variant), lang))
    owed = {pid: n for pid, n in points.items() if n}
    if not owed:
        return []
    u = units.pop() if len(units) == 1 else ""
    lines = [esc(t("No stake is set, so this settles in points.") if page else
                 t("No stake is set, so this settles in points. For money, set one first, e.g. "
                   "/stake 0.5 (money per point).")), ""]
    lines += [f"{name.get(pid, pid)}{colon(t)}{_in_unit(t, signed(n), u)}"
              for pid, n in sorted(owed.items(), key=lambda kv: -kv[1])]
    transfers = settle(owed)
    lines += ["", "<b>" + esc(t("Fewest transfers ({n})", n=len(transfers))) + "</b>"]
    lines += [f"{i}. {name.get(tr.payer)} → {name.get(tr.payee)}{colon(t)}"
              f"{_in_unit(t, str(tr.cents), u)}" for i, tr in enumerate(transfers, 1)]
    return lines


def _in_unit(t: Translator, number: str, u: str) -> str:
    """HTML: the number in bold and its unit as `with_unit` spaces it: "<b>+30</b> ke",
    "<b>+30</b>颗"."""
    return with_unit(t, f"<b>{esc(number)}</b>", esc(u))


async def close_settled(store: Store, chat_id: int, session_id: int | None) -> None:
    """Square balances close the ended sessions they cover. Not while a session runs: a payment
    made during it settles part of its balance and must keep counting until it ends."""
    if await store.running_session(chat_id) is not None:
        return
    ended = [s.id for s in await store.chat_sessions(chat_id)
             if s.ended_at is not None and (session_id is None or s.id == session_id)]
    if ended:
        await store.mark_settled(ended)
