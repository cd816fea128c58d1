"""Session export and import formats: CSV (one row per hand and seat) and JSON hand records
that `python -m scoring score` and /import read back."""

from __future__ import annotations

import csv
import io
import json
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from scoring import ScoringError, get_variant, score

FORMAT = "mjledger-session/1"
WIND_NAMES = ("East", "South", "West", "North")
MAX_IMPORT_BYTES = 5_000_000


@dataclass(frozen=True)
class ExportedHand:
    seq: int
    record: dict[str, Any]
    outcome: dict[str, Any]
    voided: bool = False
    void_reason: str | None = None


@dataclass(frozen=True)
class ImportedSession:
    variant: str
    rules: dict[str, Any]
    stake_cents: int
    players: tuple[str, str, str, str]
    hands: tuple[ExportedHand, ...]


class ImportError_(ValueError):
    """What is wrong with an uploaded file: an English msgid with format arguments. A hand the
    rules refuse also carries scoring's error and the file's players, for the `{reason}`."""

    def __init__(self, msgid: str, *, scoring: ScoringError | None = None,
                 players: Sequence[str] = (), **kwargs: Any) -> None:
        self.msgid, self.kwargs, self.scoring, self.players = msgid, kwargs, scoring, players
        english = {**kwargs, "reason": str(scoring)} if scoring is not None else kwargs
        super().__init__(msgid.format(**english) if english else msgid)


def to_json(variant: str, rules: dict[str, Any], stake_cents: int, players: Sequence[str],
            hands: Sequence[ExportedHand]) -> dict[str, Any]:
    return {
        "format": FORMAT, "variant": variant, "rules": rules, "stake_cents": stake_cents,
        "players": list(players),
        "hands": [{"seq": h.seq, "voided": h.voided, "void_reason": h.void_reason,
                   "record": h.record} for h in hands],
    }


def to_csv(players: Sequence[str], hands: Sequence[ExportedHand], stake_cents: int) -> str:
    """One row per hand and seat; voided hands are listed and count nothing."""
    buffer = io.StringIO()
    writer = csv.writer(buffer)
    writer.writerow(["hand", "seat", "wind", "player", "points", "total_points", "money_cents",
                     "voided", "dealer"])
    totals = [0, 0, 0, 0]
    for hand in hands:
        for seat in range(4):
            points = 0 if hand.voided else hand.outcome["deltas"][seat]
            totals[seat] += points
            writer.writerow([hand.seq, seat, WIND_NAMES[seat], players[seat], points, totals[seat],
                             totals[seat] * stake_cents, int(hand.voided),
                             int(hand.record.get("dealer", 0) == seat)])
    return buffer.getvalue()


def parse_import(data: bytes) -> ImportedSession:
    """An exported JSON file back into a session; every hand is scored again, so a file that
    was edited into something the rules forbid is refused with the hand it fails at."""
    if len(data) > MAX_IMPORT_BYTES:
        raise ImportError_("the file is too large")
    try:
        doc = json.loads(data.decode("utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError):
        raise ImportError_("it is not a JSON file") from None
    if not isinstance(doc, dict) or doc.get("format") != FORMAT:
        raise ImportError_("it is not a Mahjong Ledger export (format {format} expected)",
                           format=FORMAT)
    try:
        get_variant(str(doc.get("variant")))
    except ScoringError:
        raise ImportError_("unknown variant {variant}", variant=repr(doc.get("variant"))) from None
    players = doc.get("players")
    if (not isinstance(players, list) or len(players) != 4
            or not all(isinstance(p, str) and p.strip() for p in players)):
        raise ImportError_("players: four names expected")
    stake = doc.get("stake_cents", 0)
    if not isinstance(stake, int) or isinstance(stake, bool) or stake < 0:
        raise ImportError_("stake_cents must be a whole number of cents")
    hands = []
    for i, item in enumerate(doc.get("hands") or []):
        if not isinstance(item, dict) or not isinstance(item.get("record"), dict):
            raise ImportError_("hand {n} has no record", n=i + 1)
        seq = item.get("seq", i + 1)
        if not isinstance(seq, int) or isinstance(seq, bool):
            raise ImportError_("hand {n}: seq must be a whole number", n=i + 1)
        record = item["record"]
        if record.get("variant") != doc.get("variant"):
            raise ImportError_("hand {n} is of another variant than the session", n=i + 1)
        try:
            outcome = score(record).to_dict()
        except ScoringError as exc:
            raise ImportError_("hand {n}: {reason}", n=i + 1, scoring=exc, players=players) from None
        hands.append(ExportedHand(seq, record, outcome, bool(item.get("voided")),
                                  item.get("void_reason")))
    rules = doc.get("rules") or {}
    if not isinstance(rules, dict):
        raise ImportError_("rules must be an object")
    try:  # the new session keeps every rule's value, like a session started in the chat
        rules = get_variant(str(doc.get("variant"))).resolved_rules(rules)
    except ScoringError as exc:
        raise ImportError_("the session's rules: {reason}", scoring=exc, players=players) from None
    return ImportedSession(str(doc.get("variant")), rules, stake,
                           (players[0], players[1], players[2], players[3]), tuple(hands))
