"""Session export and import formats: CSV (one row per hand and seat) and JSON hand records
that `python -m scoring score` and /import read back."""

from __future__ import annotations

import asyncio
import csv
import gzip
import io
import json
import time
import zlib
from collections.abc import Sequence
from contextlib import aclosing
from dataclasses import dataclass
from typing import IO, Any

from db import RecordedHand, Session, Store
from scoring import Outcome, ScoringError, get_variant, score

from ..plumbing.limits import (
    MAX_HAND_POINTS,
    MAX_IMPORT_BYTES,
    MAX_IMPORT_HANDS,
    MAX_NAME,
    MAX_RECORD_INT,
    MAX_STAKE_CENTS,
    clip,
    visible_name,
)

FORMAT = "mjledger-session/1"
WIND_NAMES = ("East", "South", "West", "North")
CSV_HEADER = ["hand", "seat", "wind", "player", "points", "total_points", "money_cents", "voided",
              "dealer"]


@dataclass(frozen=True)
class ExportedHand:
    seq: int
    record: dict[str, Any]
    outcome: Outcome
    voided: bool = False
    void_reason: str | None = None
    # who sat in each seat for this hand, where not the session's players (seats changed hands)
    players: tuple[str, str, str, str] | None = None


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


def exported_hand(hand: ExportedHand | RecordedHand, names: dict[int, str] | None = None,
                  players: Sequence[str] = ()) -> ExportedHand:
    """A stored hand as the export has it, its outcome read back from the stored JSON; with
    `names` (person id → name), who sat where for it when that is not `players`."""
    if isinstance(hand, ExportedHand):
        return hand
    sat = None
    if names is not None and hand.people is not None:
        who = tuple(names.get(p, "?") if p is not None else "?" for p in hand.people)
        sat = (who[0], who[1], who[2], who[3]) if list(who) != list(players) else None
    return ExportedHand(hand.seq, hand.record, Outcome.from_dict(hand.outcome), hand.voided,
                        hand.void_reason, sat)


def header_json(variant: str, rules: dict[str, Any], stake_cents: int,
            players: Sequence[str]) -> dict[str, Any]:
    return {"format": FORMAT, "variant": variant, "rules": rules, "stake_cents": stake_cents,
            "players": list(players)}


def hand_json(h: ExportedHand) -> dict[str, Any]:
    out = {"seq": h.seq, "voided": h.voided, "void_reason": h.void_reason, "record": h.record}
    if h.players is not None:
        out["players"] = list(h.players)
    return out


def to_json(variant: str, rules: dict[str, Any], stake_cents: int, players: Sequence[str],
            hands: Sequence[ExportedHand]) -> dict[str, Any]:
    return {**header_json(variant, rules, stake_cents, players), "hands": [hand_json(h) for h in hands]}


# a cell a spreadsheet would read as a formula (OWASP, "CSV Injection"): =, +, -, @, tab, CR
FORMULA_START = ("=", "+", "-", "@", "\t", "\r")


def csv_text(text: str) -> str:
    """A text cell of the CSV as a spreadsheet shows it, never runs it: one that starts like
    a formula gets a leading apostrophe (a guest named `=HYPERLINK(…)` stays a name). The JSON
    keeps names exactly, so /import reads them back as they were."""
    return "'" + text if text.startswith(FORMULA_START) else text


class CsvWriter:
    """One row per hand and seat, written a batch of hands at a time (running totals carried
    over); voided hands are listed and count nothing."""

    def __init__(self, out: IO[str], players: Sequence[str], stake_cents: int) -> None:
        self.players, self.stake_cents = list(players), stake_cents
        self.writer = csv.writer(out)
        self.totals = [0, 0, 0, 0]  # running totals, carried from one batch to the next
        self.writer.writerow(CSV_HEADER)

    def write(self, hands: Sequence[ExportedHand]) -> None:
        for hand in hands:
            for seat in range(4):
                points = 0 if hand.voided else hand.outcome.deltas[seat]
                self.totals[seat] += points
                player = (hand.players or self.players)[seat]
                self.writer.writerow([hand.seq, seat, WIND_NAMES[seat], csv_text(player), points,
                                      self.totals[seat], self.totals[seat] * self.stake_cents,
                                      int(hand.voided), int(hand.record.get("dealer", 0) == seat)])


def to_csv(players: Sequence[str], hands: Sequence[ExportedHand], stake_cents: int) -> str:
    """One row per hand and seat; voided hands are listed and count nothing."""
    buffer = io.StringIO()
    CsvWriter(buffer, players, stake_cents).write(hands)
    return buffer.getvalue()


# Files up to this size go out plain; larger ones gzipped (a long session's JSON would be more
# than /import takes anyway, and gzip makes it a tenth). /import reads either.
PLAIN_LIMIT = MAX_IMPORT_BYTES
JSON_TAIL = "\n]}\n"
YIELD_EVERY = 25  # hands formatted between two offers of the GIL (about 1 ms)
Files = tuple[tuple[str, bytes], tuple[str, bytes]]  # (name, contents) of the CSV and the JSON


class SessionExport:
    """A session's two export files, built in memory a batch of hands at a time (CPU work: call
    `write` and `files` from a worker thread). The CSV starts with a byte order mark (spreadsheet
    programs then read it as UTF-8); the JSON document has one hand per line."""

    def __init__(self, variant: str, rules: dict[str, Any], stake_cents: int,
                 players: Sequence[str]) -> None:
        # UTF-8 bytes as they are written: a str of Chinese names would hold 4 bytes a character
        self.csv = _utf8_buffer()
        self.csv.write("\ufeff")
        self.rows = CsvWriter(self.csv, players, stake_cents)
        head = json.dumps(header_json(variant, rules, stake_cents, players), ensure_ascii=False)
        self.json = _utf8_buffer()
        self.json.write(head[:-1] + ', "hands": [\n')
        self.hands = 0
        # person id → name, for hands read with who sat where (set when seats changed hands)
        self.names: dict[int, str] | None = None

    def write(self, hands: Sequence[ExportedHand | RecordedHand]) -> None:
        for start in range(0, len(hands), YIELD_EVERY):
            if start:
                # let the event loop's thread (and the driver's) take the GIL now, not after
                # the interpreter's switch interval: another chat's reply waits that long per step
                time.sleep(0)
            piece = [exported_hand(h, self.names, self.rows.players)
                     for h in hands[start:start + YIELD_EVERY]]
            self.rows.write(piece)
            for hand in piece:
                if self.hands:
                    self.json.write(",\n")
                self.json.write(json.dumps(hand_json(hand), ensure_ascii=False))
                self.hands += 1

    def files(self, base: str, limit: int = PLAIN_LIMIT) -> Files:
        """(file name, contents) of the CSV and the JSON file, once all hands are written:
        `base`.csv and `base`.json, each gzipped (and named .gz) when larger than `limit` bytes."""
        self.json.write(JSON_TAIL)
        out = []
        for name, text in ((f"{base}.csv", self.csv), (f"{base}.json", self.json)):
            text.flush()
            data = text.buffer.getvalue()  # type: ignore[attr-defined]
            text.close()  # the written copy goes before the compressed one is made
            if len(data) > limit:
                name, data = name + ".gz", gzip.compress(data, compresslevel=6, mtime=0)
            out.append((name, data))
        return out[0], out[1]


def _utf8_buffer() -> io.TextIOWrapper:
    """Text written straight into UTF-8 bytes in memory (no newline translation: the CSV's
    CRLF and the JSON's LF stay as written)."""
    return io.TextIOWrapper(io.BytesIO(), encoding="utf-8", newline="")


async def session_files(store: Store, session: Session, players: Sequence[str]) -> Files:
    """What /export sends: the session's hands streamed from the database a batch at a time,
    each batch formatted in a worker thread (the event loop, and every other chat, is held up
    only while a batch is read); nothing is written to disk."""
    export = SessionExport(session.variant, session.rules, session.stake_cents, players)
    # who played: the seats now, and anyone whose seat changed hands (a hand then names them)
    results = await store.person_results([session.id])
    played = {r.person_id for r in results}
    changed = any(r.person_id not in session.seats
                  or r.seats != (session.seats.index(r.person_id),) for r in results)
    export.names = ({pid: p.name for pid, p in (await store.get_people(
        played | {p for p in session.seats if p is not None})).items()} if changed else None)
    async with aclosing(store.iter_hands(session.id, people=changed)) as batches:
        async for batch in batches:
            await asyncio.to_thread(export.write, batch)
    return await asyncio.to_thread(export.files, f"mjledger-{session.variant}-{session.number}")


def parse_import(data: bytes) -> ImportedSession:
    """An exported JSON file back into a session, checked whole before anything is stored:
    size and hand count within the limits, four distinct names (ignoring case) of at most 64
    characters, distinct sequence numbers, every number in range, and every hand scored again,
    so a file edited into something the rules forbid is refused with the hand it fails at.
    CPU-bound: call it off the event loop."""
    if len(data) > MAX_IMPORT_BYTES:
        raise ImportError_("the file is larger than {max} bytes", max=MAX_IMPORT_BYTES)
    if data[:2] == GZIP_MAGIC:  # a long session's export comes gzipped
        data = _gunzip_bounded(data, MAX_IMPORT_BYTES)
    try:
        doc = json.loads(data.decode("utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError, RecursionError):
        raise ImportError_("it is not a JSON file") from None
    if not isinstance(doc, dict) or doc.get("format") != FORMAT:
        raise ImportError_("it is not a Mahjong Ledger export (format {format} expected)",
                           format=FORMAT)
    try:
        variant = get_variant(str(doc.get("variant")))
    except ScoringError:
        raise ImportError_("unknown variant {variant}",
                           variant=clip(repr(doc.get("variant")))) from None
    players = _players(doc.get("players"))
    stake = doc.get("stake_cents", 0)
    if not isinstance(stake, int) or isinstance(stake, bool) or not 0 <= stake <= MAX_STAKE_CENTS:
        raise ImportError_("stake_cents must be a whole number of cents from 0 to {max}",
                           max=MAX_STAKE_CENTS)
    rules = doc.get("rules") or {}
    if not isinstance(rules, dict):
        raise ImportError_("rules must be an object")
    try:  # the new session keeps every rule's value, like a session started in the chat
        rules = variant.resolved_rules(rules)
    except ScoringError as exc:
        raise ImportError_("the session's rules: {reason}", scoring=exc, players=players) from None
    items = doc.get("hands") or []
    if not isinstance(items, list):
        raise ImportError_("hand {n} has no record", n=1)
    if len(items) > MAX_IMPORT_HANDS:
        raise ImportError_("the file has {n} hands; at most {max} can be imported",
                           n=len(items), max=MAX_IMPORT_HANDS)
    hands, seen = [], set()
    for i, item in enumerate(items):
        hands.append(_hand(i + 1, item, doc.get("variant"), players, seen))
    return ImportedSession(variant.name, rules, stake,
                           (players[0], players[1], players[2], players[3]), tuple(hands))


GZIP_MAGIC = b"\x1f\x8b"


def _gunzip_bounded(data: bytes, limit: int) -> bytes:
    """Every member of a gzip stream, refused once it unpacks to more than `limit` bytes."""
    out, rest = bytearray(), data
    try:
        while rest:
            unpack = zlib.decompressobj(16 + zlib.MAX_WBITS)
            out += unpack.decompress(rest, limit + 1 - len(out))
            if len(out) > limit or unpack.unconsumed_tail:
                raise ImportError_("the file is larger than {max} bytes", max=limit)
            if not unpack.eof:
                raise ImportError_("it is not a JSON file")
            rest = unpack.unused_data
    except zlib.error:
        raise ImportError_("it is not a JSON file") from None
    return bytes(out)


def _players(value: Any) -> list[str]:
    if not isinstance(value, list) or len(value) != 4 or not all(isinstance(p, str) for p in value):
        raise ImportError_("players: four names expected")
    names = [visible_name(p) for p in value]
    for name in names:
        if not name:
            raise ImportError_("players: a name cannot be blank")
        if len(name) > MAX_NAME:
            raise ImportError_("players: the name “{name}” is longer than {max} characters",
                               name=clip(name), max=MAX_NAME)
    if len({n.casefold() for n in names}) != 4:
        raise ImportError_("players: the four names must differ (ignoring case)")
    return names


def _hand(n: int, item: Any, variant: Any, players: Sequence[str], seen: set[int]) -> ExportedHand:
    if not isinstance(item, dict) or not isinstance(item.get("record"), dict):
        raise ImportError_("hand {n} has no record", n=n)
    seq = item.get("seq", n)
    if not isinstance(seq, int) or isinstance(seq, bool) or not 1 <= seq <= MAX_IMPORT_HANDS * 10:
        raise ImportError_("hand {n}: seq must be a whole number", n=n)
    if seq in seen:
        raise ImportError_("hand {n}: seq {seq} appears twice", n=n, seq=seq)
    seen.add(seq)
    record = item["record"]
    if record.get("variant") != variant:
        raise ImportError_("hand {n} is of another variant than the session", n=n)
    bad = _out_of_range(record)
    if bad is not None:
        raise ImportError_("hand {n}: the number {value} is out of range", n=n, value=clip(bad))
    try:
        outcome = score(record)
    except ScoringError as exc:
        raise ImportError_("hand {n}: {reason}", n=n, scoring=exc, players=players) from None
    except (ValueError, TypeError, KeyError, OverflowError, RecursionError):
        raise ImportError_("hand {n} cannot be scored", n=n) from None
    if any(abs(d) > MAX_HAND_POINTS for d in outcome.deltas):
        raise ImportError_("hand {n}: the number {value} is out of range", n=n,
                           value=max(outcome.deltas, key=abs))
    reason = item.get("void_reason")
    reason = str(reason)[:200] if reason is not None else None
    sat = None
    if item.get("players") is not None:  # seats changed hands: who sat where for this hand
        try:
            names = _players(item["players"])
        except ImportError_:
            raise ImportError_("hand {n}: its players must be four different names", n=n) from None
        sat = (names[0], names[1], names[2], names[3])
    return ExportedHand(seq, record, outcome, bool(item.get("voided")), reason, sat)


def _out_of_range(value: Any) -> Any:
    """The first number in a record that is not a whole number within ±MAX_RECORD_INT."""
    stack = [value]
    while stack:
        v = stack.pop()
        if isinstance(v, bool) or v is None or isinstance(v, str):
            continue
        if isinstance(v, int):
            if abs(v) > MAX_RECORD_INT:
                return v
        elif isinstance(v, float):
            return v
        elif isinstance(v, dict):
            stack.extend(v.values())
        elif isinstance(v, list):
            stack.extend(v)
    return None
