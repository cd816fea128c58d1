"""Session export and import formats: CSV (one row per hand and seat) and JSON hand records
that `python -m scoring score` and /import read back."""

from __future__ import annotations

import csv
import gzip
import io
import json
import shutil
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any

from scoring import ScoringError, get_variant, score

FORMAT = "mjledger-session/1"
WIND_NAMES = ("East", "South", "West", "North")
MAX_IMPORT_BYTES = 5_000_000
# Telegram takes documents up to 50 MB; an export larger than this is gzipped (smaller, and
# lighter on memory while it is sent; /import takes files of up to MAX_IMPORT_BYTES anyway).
MAX_UPLOAD_BYTES = 16 * 2**20
CSV_HEADER = ["hand", "seat", "wind", "player", "points", "total_points", "money_cents", "voided",
              "dealer"]


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


def _header(variant: str, rules: dict[str, Any], stake_cents: int,
            players: Sequence[str]) -> dict[str, Any]:
    return {"format": FORMAT, "variant": variant, "rules": rules, "stake_cents": stake_cents,
            "players": list(players)}


def _hand_json(h: ExportedHand) -> dict[str, Any]:
    return {"seq": h.seq, "voided": h.voided, "void_reason": h.void_reason, "record": h.record}


def to_json(variant: str, rules: dict[str, Any], stake_cents: int, players: Sequence[str],
            hands: Sequence[ExportedHand]) -> dict[str, Any]:
    return {**_header(variant, rules, stake_cents, players), "hands": [_hand_json(h) for h in hands]}


class CsvWriter:
    """One row per hand and seat, written a batch of hands at a time (running totals carried
    over); voided hands are listed and count nothing."""

    def __init__(self, out: IO[str], players: Sequence[str], stake_cents: int) -> None:
        self.players, self.stake_cents = list(players), stake_cents
        self.writer = csv.writer(out)
        self.totals = [0, 0, 0, 0]
        self.writer.writerow(CSV_HEADER)

    def write(self, hands: Sequence[ExportedHand]) -> None:
        for hand in hands:
            for seat in range(4):
                points = 0 if hand.voided else hand.outcome["deltas"][seat]
                self.totals[seat] += points
                self.writer.writerow([hand.seq, seat, WIND_NAMES[seat], self.players[seat], points,
                                      self.totals[seat], self.totals[seat] * self.stake_cents,
                                      int(hand.voided), int(hand.record.get("dealer", 0) == seat)])


class JsonWriter:
    """The same document as `to_json`, written a batch of hands at a time."""

    def __init__(self, out: IO[str], variant: str, rules: dict[str, Any], stake_cents: int,
                 players: Sequence[str]) -> None:
        self.out, self.first = out, True
        head = json.dumps(_header(variant, rules, stake_cents, players), ensure_ascii=False)
        out.write(head[:-1] + ', "hands": [\n')

    def write(self, hands: Sequence[ExportedHand]) -> None:
        for hand in hands:
            self.out.write(("" if self.first else ",\n")
                           + json.dumps(_hand_json(hand), ensure_ascii=False))
            self.first = False

    def close(self) -> None:
        self.out.write("\n]}\n")


def to_csv(players: Sequence[str], hands: Sequence[ExportedHand], stake_cents: int) -> str:
    """One row per hand and seat; voided hands are listed and count nothing."""
    buffer = io.StringIO()
    CsvWriter(buffer, players, stake_cents).write(hands)
    return buffer.getvalue()


def fit_for_upload(path: Path, limit: int = MAX_UPLOAD_BYTES) -> Path:
    """The file as it is, or gzipped (`name.gz`) when it is too large to send (blocking I/O:
    call it from a worker thread)."""
    if path.stat().st_size <= limit:
        return path
    packed = path.with_name(path.name + ".gz")
    with path.open("rb") as src, gzip.open(packed, "wb", compresslevel=6) as dst:
        shutil.copyfileobj(src, dst, 1 << 20)
    path.unlink()
    return packed


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
