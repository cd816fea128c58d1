"""A hand drawn whole, as the wizard's preview and the page's show it (HTML in the chat's words):
its header (the variant, the hand's number, dealer and round wind, the events so far, the reading
of a winner's tiles taken), then the payments, this hand, the totals after it and the next
dealer. The wizard's screens draw their header with it too.

`reads` (plain JSON, kept in a wizard draft) = {seat: {"tiles", "readings": [{"winner",
"value", "sets"}], "chosen", "total", …}}: a winner's tiles read, which reading was taken and
of how many."""

from __future__ import annotations

from typing import Any

from scoring import Outcome
from scoring.variant import in_lang

from ..view.render import (
    colon,
    deltas_text,
    esc,
    money,
    outcome_lines,
    seat_label,
    signed,
    unit,
    wind,
    with_unit,
)
from ..view.tiles import notation_text
from .ctx import Ctx
from .hu.tiles import set_text
from .screens import summarize_event

MAX_READINGS = 6  # the best few: more would not fit a row, and are worth less anyway


def text(ctx: Ctx, events: list[dict[str, Any]], reads: dict[str, Any] | None = None) -> str:
    """The preview of a whole hand: its header, then what it pays (scored at ctx's table)."""
    winners = [w for e in events if e.get("type") == "win" for w in e.get("winners", [])]
    outcome = ctx.score(events)
    return "\n".join([header(ctx, events, reading_lines(ctx, winners, reads or {})), "",
                      *outcome_block(ctx, outcome, events)])


def header(ctx: Ctx, events: list[dict[str, Any]], reading: list[str]) -> str:
    """The variant and the hand's number, dealer and round wind, the events so far, and the
    `reading` lines (reading_lines)."""
    t, base = ctx.t, ctx.base
    title = esc(in_lang(ctx.variant.title, ctx.lang))
    dealer = seat_label(t, base.get("dealer", 0), ctx.names)
    at = esc(t("Table {n}", n=ctx.table)) + " · " if ctx.table else ""  # one of several
    lines = [f"<b>{title}</b> · " + at + esc(t("Hand {n}", n=ctx.hand_no)),
             esc(t("Dealer: ")) + dealer + (
                 esc(t(" (streak {n})", n=base.get("dealer_streak", 1)))
                 if base.get("dealer_streak", 1) > 1 else "") + (
                 " · " + esc(t("Round wind: {wind}", wind=wind(t, base["round_wind"])))
                 if base.get("round_wind") else "")]
    if events:
        lines.append("")
        for i, ev in enumerate(events, 1):
            lines.append(f"{i}. {summarize_event(ctx, ev)}")
    return "\n".join([*lines, *(["", *reading] if reading else [])])


def outcome_block(ctx: Ctx, outcome: Outcome,
                  events: list[dict[str, Any]]) -> list[str]:
    """The scored hand (of `events`): payments, this hand, the totals after it, the next
    dealer."""
    t, u = ctx.t, unit(ctx.variant, ctx.lang)
    body = ["<b>" + esc(t("Payments")) + "</b>"]
    body += outcome_lines(t, ctx.lang, ctx.variant, ctx.names, outcome, events)
    body += ["", "<b>" + esc(t("This hand")) + "</b>" + colon(t)
             + esc(deltas_text(t, outcome.deltas) or "±0")]
    body += ["<b>" + esc(t("After it")) + "</b>"]
    for s in range(4):
        total = ctx.totals[s] + outcome.deltas[s]
        cash = f" ({money(total * ctx.stake_cents)})" if ctx.stake_cents else ""
        body.append(f"{seat_label(t, s, ctx.names)}{colon(t)}{esc(with_unit(t, signed(total), u))}{cash}")
    if ctx.variant.game_hands:  # a game's running scores (`Variant.game_hands`)
        if any(ctx.base.get("balances") or []):  # (its first hand: "This hand" says it)
            body.append(esc(t("This game: ")) + esc(deltas_text(t, outcome.balances) or "±0"))
        if outcome.level_over:
            body.append("🏁 " + esc(t("This hand ends the game.")))
    elif any(ctx.base.get("balances") or []):
        body.append(esc(t("Points held: ")) + " · ".join(
            f"{wind(t, s)} {b}" for s, b in enumerate(outcome.balances)))
        if outcome.level_over:
            body.append("🏁 " + esc(t("This hand ends the level.")))
    body.append("")
    body.append(esc(t("Next dealer: ")) + seat_label(t, outcome.next_dealer, ctx.names))
    return body


def reading_lines(ctx: Ctx, winners: list[dict[str, Any]], reads: dict[str, Any], *,
                  hint: bool = False) -> list[str]:
    """HTML: for each of the `winners` whose tiles were read, the sets of the reading taken
    and which of how many it is; "changed by hand" once the features were changed after.
    `hint`: say how to take another reading (the win's form shows them)."""
    t = ctx.t
    lines = []
    for w in winners:
        read = reads.get(str(w["seat"]))
        if read is None:
            continue
        i = read["chosen"]
        reading = read["readings"][i]
        n = read.get("total", len(read["readings"]))
        which = (t("the only reading") if n == 1 else
                 t("the most valuable of {n} readings", n=n) if i == 0 else
                 t("reading {i} of {n}", i=i + 1, n=n))
        sets = notation_text(t, reading["sets"])
        line = ("🀄 " + esc(t("Read from the tiles of {seat}:", seat=seat_label(
            t, w["seat"], ctx.names, html_out=False))) + f" <code>{esc(sets)}</code>\n"
            + esc(which))
        if any(w.get(k) != v for k, v in reading["winner"].items()):
            line += esc(t(", then changed by hand"))
        if hint and len(read["readings"]) > 1:
            line += "\n" + esc(t("Another reading: tap its number below (beside it, what the "
                                  "win collects)."))
        lines.append(line)
    return lines


def reads_from(read: list[tuple[int, dict[str, Any]]], tiles: dict[int, str] | None = None
               ) -> dict[str, Any]:
    """`reads` for tiles typed on a /hu line or sent by the page (hu.tiles.read_tiles' result)."""
    out = {}
    for seat, result in read:
        out[str(seat)] = {"tiles": (tiles or {}).get(seat, ""), "chosen": 0,
                          "total": len(result["readings"]),
                          "readings": [{"winner": r["winner"], "value": r["value"],
                                        "sets": " ".join(set_text(g) for g in r["sets"])}
                                       for r in result["readings"][:MAX_READINGS]]}
    return out
