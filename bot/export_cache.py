"""/export without re-reading the whole history: each session's export body (CSV rows, JSON hand
entries) is kept on disk, gzipped, and a later /export appends only the hands entered since.

A session's cache is three files in the export directory:
  session-<id>.csv.gz   CSV rows (no header), one gzip member per batch of hands appended
  session-<id>.json.gz  the JSON document's hand entries, likewise
  session-<id>.meta     what they hold: the last seq written, the CSV's running totals, the
                        count of live hands written, the byte lengths written, and
                        a key over everything else that goes into the rows (names, stake, rules)
Gzip members concatenate into one valid gzip stream, so a file to send is a fresh member with
the header, the stored body as it is, and a member with the tail: copying a few megabytes, not
reading and formatting every hand again. The cache is rebuilt from the database whenever it
cannot be trusted: missing or torn files, other names or stake, or a hand it already holds was
voided since (the store's live-hand count says so in one read)."""

from __future__ import annotations

import asyncio
import csv
import fcntl
import gzip
import hashlib
import io
import json
import os
import tempfile
from collections.abc import Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import IO, Any

from .plumbing.limits import MAX_IMPORT_BYTES
from .view.export import CSV_HEADER, FORMAT, CsvWriter, ExportedHand, hand_json, header_json

# Files up to this size unpacked go out plain; larger ones gzipped, as stored (unpacking and
# sending them plain would cost in proportion to the history). /import takes files this large.
PLAIN_LIMIT = MAX_IMPORT_BYTES

CACHE_VERSION = 1


def cache_root(export_dir: str | None, database_url: str) -> Path:
    """Where one database's session caches live: session ids repeat across databases."""
    root = Path(export_dir) if export_dir else Path(tempfile.gettempdir(), "mjledger-exports")
    return root / hashlib.sha256(database_url.encode()).hexdigest()[:16]


def store_cache_root(export_dir: str | None, store: Any) -> Path:
    """`cache_root` of the database `store` is on (its URL without the password)."""
    return cache_root(export_dir, store.engine.url.render_as_string(hide_password=True))


@dataclass
class Meta:
    key: str = ""
    last_seq: int = 0
    live_mark: int = 0  # the live (not voided) hands written: the store's count if none was voided since
    totals: list[int] = field(default_factory=lambda: [0, 0, 0, 0])
    hands: int = 0  # hand entries in the JSON body
    csv_bytes: int = 0  # compressed bytes of each body
    json_bytes: int = 0
    csv_raw: int = 0  # their uncompressed sizes
    json_raw: int = 0
    voided: list[int] = field(default_factory=list)  # seqs written as voided, ascending
    # the state before each append (these fields), so a hand voided after it was written
    # costs re-reading the hands from the append that wrote it, not the whole history
    marks: list[dict[str, Any]] = field(default_factory=list)
    version: int = CACHE_VERSION


MARKED = ("last_seq", "totals", "hands", "csv_bytes", "json_bytes", "csv_raw", "json_raw")
MAX_MARKS = 256


def content_key(started_at: str, variant: str, rules: dict[str, Any], stake_cents: int,
                players: Sequence[str]) -> str:
    """Everything besides the hands that goes into the stored rows or decides their form (and
    when the session started: a database made again reuses session ids)."""
    blob = json.dumps([CACHE_VERSION, FORMAT, started_at, variant, rules, stake_cents, list(players)],
                      sort_keys=True, ensure_ascii=False, default=str)
    return hashlib.sha256(blob.encode()).hexdigest()[:32]


def _member(data: bytes) -> bytes:
    # mtime 0: the same rows give the same bytes
    return gzip.compress(data, compresslevel=6, mtime=0)


class SessionCache:
    """One session's cached export body; use it from a worker thread (blocking file I/O),
    between `acquire()` and `release()` so two processes never append to one cache at once."""

    def __init__(self, root: Path, session_id: int, key: str, players: Sequence[str],
                 stake_cents: int) -> None:
        self.root, self.key = root, key
        self.players, self.stake_cents = list(players), stake_cents
        base = root / f"session-{session_id}"
        self.csv_path = base.with_suffix(".csv.gz")
        self.json_path = base.with_suffix(".json.gz")
        self.meta_path = base.with_suffix(".meta")
        self.lock_path = base.with_suffix(".lock")
        self.meta = Meta(key=key)

    def acquire(self) -> IO[str]:
        """Hold the cache alone (another process may export the same session)."""
        self.root.mkdir(parents=True, exist_ok=True)
        lock = self.lock_path.open("a")
        fcntl.flock(lock, fcntl.LOCK_EX)
        return lock

    @staticmethod
    def release(lock: IO[str]) -> None:
        fcntl.flock(lock, fcntl.LOCK_UN)
        lock.close()

    def stored(self) -> Meta | None:
        """The meta file's state when it is of this cache version and for the same names, stake
        and rules, else None (read without the lock: nothing is changed)."""
        try:
            meta = Meta(**json.loads(self.meta_path.read_text()))
        except (OSError, ValueError, TypeError):
            return None
        return meta if meta.version == CACHE_VERSION and meta.key == self.key else None

    def whole(self, meta: Meta) -> bool:
        """The body files hold at least what `meta` recorded (a torn write leaves less)."""
        return (self._size(self.csv_path) >= meta.csv_bytes
                and self._size(self.json_path) >= meta.json_bytes)

    def held(self) -> int:
        """The last seq the stored cache holds, 0 when it holds nothing usable."""
        meta = self.stored()
        return meta.last_seq if meta is not None else 0

    def load(self) -> Meta:
        """The stored state if it is whole and for the same names, stake and rules, else an
        empty cache (the files cut back to nothing)."""
        meta = self.stored()
        self.meta = meta if meta is not None and self.whole(meta) else Meta(key=self.key)
        # anything past the recorded lengths is an append that never finished
        for path, length in ((self.csv_path, self.meta.csv_bytes), (self.json_path, self.meta.json_bytes)):
            with path.open("ab") as f:
                f.truncate(length)
        return self.meta

    def reset(self) -> None:
        self.meta = Meta(key=self.key)
        for path in (self.csv_path, self.json_path):
            with path.open("ab") as f:
                f.truncate(0)

    @staticmethod
    def _size(path: Path) -> int:
        try:
            return path.stat().st_size
        except OSError:
            return -1

    def append(self, hands: Sequence[ExportedHand]) -> int:
        """Add hands (in seq order, after those held) to both bodies; returns how many of them
        are not voided."""
        rows = io.StringIO()
        writer = CsvWriter(rows, self.players, self.stake_cents, totals=self.meta.totals, header=False)
        writer.write(hands)
        entries = "".join(("" if self.meta.hands + i == 0 else ",\n")
                          + json.dumps(hand_json(h), ensure_ascii=False) for i, h in enumerate(hands))
        csv_raw, json_raw = rows.getvalue().encode(), entries.encode()
        csv_gz, json_gz = _member(csv_raw), _member(json_raw)
        with self.csv_path.open("ab") as f:
            f.write(csv_gz)
        with self.json_path.open("ab") as f:
            f.write(json_gz)
        m = self.meta
        if hands:
            m.marks.append({**{k: getattr(m, k) for k in MARKED}, "voided": len(m.voided)})
            if len(m.marks) > MAX_MARKS:  # thin out the older half
                half = len(m.marks) // 2
                m.marks = m.marks[:half:2] + m.marks[half:]
        m.voided += [h.seq for h in hands if h.voided]
        m.totals = writer.totals
        m.hands += len(hands)
        m.last_seq = hands[-1].seq if hands else m.last_seq
        m.csv_bytes += len(csv_gz)
        m.json_bytes += len(json_gz)
        m.csv_raw += len(csv_raw)
        m.json_raw += len(json_raw)
        return sum(1 for h in hands if not h.voided)

    def rewind(self, seq: int) -> None:
        """Back to the state before the append that wrote hand `seq` (to write it again)."""
        m = self.meta
        marks = [i for i, mark in enumerate(m.marks) if mark["last_seq"] < seq]
        if not marks:
            self.reset()
            return
        i = marks[-1]
        mark = m.marks[i]
        for k in MARKED:
            setattr(m, k, list(mark[k]) if k == "totals" else mark[k])
        m.voided, m.marks = m.voided[:mark["voided"]], m.marks[:i]
        for path, length in ((self.csv_path, m.csv_bytes), (self.json_path, m.json_bytes)):
            with path.open("ab") as f:
                f.truncate(length)

    def save(self, live_mark: int) -> None:
        self.meta.live_mark = live_mark
        tmp = self.meta_path.with_suffix(".meta.tmp")
        tmp.write_text(json.dumps(asdict(self.meta)))
        os.replace(tmp, self.meta_path)

    # -- the files to send ----------------------------------------------------------------------

    def csv_head(self) -> bytes:
        out = io.StringIO()
        csv.writer(out).writerow(CSV_HEADER)
        return "\ufeff".encode() + out.getvalue().encode()

    def json_head(self, variant: str, rules: dict[str, Any]) -> bytes:
        head = json.dumps(header_json(variant, rules, self.stake_cents, self.players), ensure_ascii=False)
        return (head[:-1] + ', "hands": [\n').encode()

    JSON_TAIL = b"\n]}\n"

    def write_files(self, out_dir: Path, base: str, variant: str, rules: dict[str, Any],
                    limit: int = PLAIN_LIMIT) -> tuple[Path, Path]:
        """The CSV and JSON files to send, in `out_dir`: plain while small (up to `limit` bytes
        unpacked, so unpacking costs at most that much), else gzipped (the body copied as it
        is, between a header member and a tail member)."""
        parts = ((self.csv_path, self.csv_head(), b"", self.meta.csv_raw, f"{base}.csv"),
                 (self.json_path, self.json_head(variant, rules), self.JSON_TAIL, self.meta.json_raw,
                  f"{base}.json"))
        paths = []
        for body, head, tail, raw, name in parts:
            if raw + len(head) + len(tail) <= limit:
                path = out_dir / name
                with path.open("wb") as dst:
                    dst.write(head)
                    dst.write(_gunzip(body))
                    dst.write(tail)
            else:
                path = out_dir / (name + ".gz")
                with path.open("wb") as dst, body.open("rb") as src:
                    dst.write(_member(head))
                    while chunk := src.read(1 << 20):
                        dst.write(chunk)
                    dst.write(_member(tail))
            paths.append(path)
        return paths[0], paths[1]


def _gunzip(path: Path) -> bytes:
    """Every member of a stored body (gzip.decompress reads concatenated members)."""
    data = path.read_bytes()
    return gzip.decompress(data) if data else b""


# -- bringing a cache up to date ------------------------------------------------------------------

# Up to this many new hands are read on the event loop (a short read: decoding them holds the
# loop a few milliseconds); more, in a worker thread with its own connection.
ON_LOOP = 200
# Hands read (and held) at a time by a long append, in its worker thread.
READ_BATCH = 2_000
# An export that must read more hands than this takes seconds: /export says so first and sends
# the files from a background task.
LONG_EXPORT = 2_000


def cache_for(root: Path, session: Any, players: Sequence[str]) -> SessionCache:
    key = content_key(str(session.started_at), session.variant, session.rules, session.stake_cents,
                      players)
    return SessionCache(root, session.id, key, players, session.stake_cents)


async def hands_to_write(store: Any, session: Any, players: Sequence[str], root: Path) -> int:
    """About how many hands the next export must read (those its cache does not hold yet):
    a long wait ahead when it is many."""
    cache = cache_for(root, session, players)
    hand_count, _ = await store.export_mark(session.id)
    return max(0, hand_count - await asyncio.to_thread(cache.held))


async def export_files(store: Any, session: Any, players: Sequence[str], root: Path, out_dir: Path,
                       base: str) -> tuple[Path, Path]:
    """The session's CSV and JSON export files in `out_dir`, from its cache brought up to date:
    only hands entered since the cache was last written are read, unless it must be rebuilt
    (it was evicted or lost: every hand is read again)."""
    cache = cache_for(root, session, players)
    lock = await asyncio.to_thread(cache.acquire)
    try:
        await bring_up_to_date(store, cache, session.id)
        return await asyncio.to_thread(cache.write_files, out_dir, base, session.variant, session.rules)
    finally:
        await asyncio.to_thread(cache.release, lock)


async def bring_up_to_date(store: Any, cache: SessionCache, session_id: int, *,
                           step: int | None = None, batch: int = READ_BATCH) -> bool:
    """Load the cache (held: between acquire and release) and append the hands it lacks, at
    most `step` of them when given, read `batch` at a time; saved either way. True when it
    then holds every hand."""
    meta = await asyncio.to_thread(cache.load)
    hand_count, live = await store.export_mark(session_id)
    had = meta.hands
    if meta.last_seq > hand_count:  # not this session's history
        await asyncio.to_thread(cache.reset)
        had = 0
    upto = hand_count if step is None else min(hand_count, cache.meta.last_seq + step)
    live_new = await _append(store, cache, session_id, upto, batch)
    if upto == hand_count and had and live - cache.meta.live_mark != live_new:
        # a hand already written was voided since: write again from the append that wrote
        # the first such hand (the whole history when that cannot be told)
        voided = await store.voided_seqs(session_id)
        stale = sorted(set(voided) - set(cache.meta.voided))
        await asyncio.to_thread(cache.rewind, stale[0] if stale else 1)
        await _append(store, cache, session_id, hand_count, batch)
    # the live hands the cache holds: what the store's live count is compared with next time
    # (a cache filled part of the way holds fewer than the store counts)
    await asyncio.to_thread(cache.save, cache.meta.hands - len(cache.meta.voided))
    return upto == hand_count


def is_current(cache: SessionCache, hand_count: int, live: int) -> bool:
    """Whether the stored cache holds exactly the session's hands as they are (from its meta
    file alone: no lock, no hands read)."""
    meta = cache.stored()
    return (meta is not None and meta.last_seq == hand_count and meta.live_mark == live
            and cache.whole(meta))


async def _append(store: Any, cache: SessionCache, session_id: int, upto: int,
                  batch: int = READ_BATCH) -> int:
    """Append the hands after the cache's last seq up to `upto`; returns how many are live."""
    live = 0

    def consume(batch: list[Any]) -> None:
        nonlocal live
        live += cache.append([ExportedHand(h.seq, h.record, h.outcome, h.voided, h.void_reason)
                              for h in batch])

    after = cache.meta.last_seq
    if upto <= after:  # nothing new: no read at all
        return 0
    if upto - after <= ON_LOOP:
        async for batch in store.iter_hands(session_id, after=after, upto=upto):
            await asyncio.to_thread(consume, batch)
    else:
        await store.consume_hands_off_loop(session_id, consume, after=after, upto=upto, batch=batch)
    return live
