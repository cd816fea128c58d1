"""The export keeper: one background task that keeps each session's export cache (see
export_cache.py) current as the table plays, so /export only copies files, and keeps the cache
directory within its size cap.

- Every update in a chat marks the chat (a dictionary write, nothing read). A few seconds after
  the chat's last update (DELAY; at most MAX_DELAY after the first one, for a chat that never
  pauses) the keeper reads whether the session /export would send there (the running one, else
  the newest) is still held whole by its cache: one short read and the cache's meta file. If not
  (a hand confirmed, undone or imported, other names or stake), it appends what is missing with
  the same code /export uses: a few hands (up to SPAWN_ABOVE) STEP at a time in a worker thread,
  each step saved and the cache's lock released between steps; many more (a cache lost, evicted
  or never written, other names or stake on a long session) in a process of its own, so that
  its work and its garbage collection never hold this process's event loop.
- At start-up (after START_DELAY, so the updates that queued up while the bot was down come
  first) it catches up every session whose cache is missing or stale, one at a time, running
  sessions first, then the most recently ended; marked chats go before it. It stops once the
  cache fills most of its cap.
- It removes the caches of sessions that no longer exist (at start-up and hourly) and, above the
  cap, the least recently used caches (last written by the keeper or /export). An evicted cache
  is rebuilt by the next /export of its session, which then reads every hand again (seconds at
  100 000 hands; the path /export always had).
- A failure (database down, disk full) is logged and the work is tried again RETRY seconds
  later; no chat hears of it, and /export does not depend on the keeper.
"""

from __future__ import annotations

import asyncio
import fcntl
import gc
import json
import logging
import re
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager, suppress
from pathlib import Path
from typing import Any

from db.config import fault

from .chat.table import last_session, seat_names
from .export_cache import bring_up_to_date, cache_for, is_current

log = logging.getLogger(__name__)

DELAY = 5.0  # seconds after a chat's last update before its session's cache is refreshed
MAX_DELAY = 60.0  # a chat busy without a pause is refreshed at least this often
RETRY = 60.0  # after a failure
START_DELAY = 5.0  # before the start-up catch-up
STEP = 5_000  # hands appended per step of a long refresh
SPAWN_ABOVE = 5_000  # more hands to write than this: in a process of its own
BATCH = 500  # hands read and held at a time in a step
SWITCH_INTERVAL = 0.001  # seconds; the GIL's switch interval while a step runs
GC_SPACING = 10  # the garbage collector's first threshold times this while a step runs
BETWEEN_STEPS = 0.02  # seconds the keeper rests between steps (the event loop's other work first)
SWEEP_EVERY = 3600.0  # seconds between removals of caches whose session is gone
CATCH_UP_SHARE = 0.9  # the catch-up stops once the cache fills this much of its cap

_FILE = re.compile(r"session-(\d+)\.(csv\.gz|json\.gz|meta|meta\.tmp|lock)")


@contextmanager
def _gentle() -> Iterator[None]:
    """While a step runs, its worker thread formats hands for seconds, holding the GIL and
    allocating: the event loop's thread gets the GIL back after at most SWITCH_INTERVAL each
    time it asks (instead of 5 ms), and the garbage collector runs GC_SPACING times less
    often (its full passes hold every thread: tens of ms each in a large process)."""
    switch, thresholds = sys.getswitchinterval(), gc.get_threshold()
    sys.setswitchinterval(min(switch, SWITCH_INTERVAL))
    gc.set_threshold(thresholds[0] * GC_SPACING, *thresholds[1:])
    try:
        yield
    finally:
        sys.setswitchinterval(switch)
        gc.set_threshold(*thresholds)


class ExportKeeper:
    """Keeps the export caches under `root` current for `store`'s sessions; start() it once
    the event loop runs, stop() it before the store closes."""

    def __init__(self, store: Any, root: Path, cap_bytes: int, *, delay: float = DELAY,
                 max_delay: float = MAX_DELAY, retry: float = RETRY,
                 start_delay: float = START_DELAY, step: int = STEP, batch: int = BATCH,
                 spawn_above: int = SPAWN_ABOVE) -> None:
        self.store, self.root, self.cap = store, root, cap_bytes
        self.delay, self.max_delay, self.retry = delay, max_delay, retry
        self.start_delay, self.step, self.batch = start_delay, step, batch
        self.spawn_above = spawn_above
        self._due: dict[int, float] = {}  # chat id → when to refresh its session's cache
        self._first: dict[int, float] = {}  # chat id → its first mark since it was refreshed
        self._backlog: list[Any] = []  # sessions the catch-up has still to look at
        self._catch_up_at: float | None = None  # when to (re)list the sessions to catch up
        self._sweep_at = 0.0
        self._grew = True  # the last catch-up step wrote a cache (look at the cap again)
        self._paused = False
        self._busy = False
        self._wake = asyncio.Event()
        self._task: asyncio.Task[None] | None = None
        self.refreshed = 0  # caches written (a count for tests and benchmarks)
        self.failures = 0

    # -- control ---------------------------------------------------------------------------------

    def start(self) -> None:
        if self._task is None:
            self._catch_up_at = time.monotonic() + self.start_delay
            self._task = asyncio.get_running_loop().create_task(self._run(), name="export-keeper")

    async def stop(self) -> None:
        task, self._task = self._task, None
        if task is not None:
            task.cancel()
            with suppress(asyncio.CancelledError):
                await task

    def pause(self) -> None:
        """Start no new work (a step under way finishes); marks still gather."""
        self._paused = True

    def resume(self) -> None:
        self._paused = False
        self._wake.set()

    def mark_chat(self, chat_id: int) -> None:
        """Something may have changed what this chat's /export holds: look a little later."""
        now = time.monotonic()
        first = self._first.setdefault(chat_id, now)
        self._due[chat_id] = min(now + self.delay, first + self.max_delay)
        self._wake.set()

    def catch_up_now(self) -> None:
        """List the sessions whose cache is missing or stale again and catch them up."""
        self._catch_up_at = time.monotonic()
        self._wake.set()

    @property
    def catching_up(self) -> bool:
        """The catch-up has sessions left or is under way (marked chats aside)."""
        return bool(self._backlog) or self._catch_up_at is not None or self._busy

    @property
    def idle(self) -> bool:
        """Nothing marked, nothing to catch up, nothing under way."""
        return not (self._due or self._backlog or self._busy or self._catch_up_at is not None)

    async def wait_idle(self, timeout: float = 600.0) -> None:
        """Until the keeper has nothing left to do (tests, benchmarks)."""
        async with asyncio.timeout(timeout):
            while not self.idle:
                await asyncio.sleep(0.02)

    # -- the task --------------------------------------------------------------------------------

    async def _run(self) -> None:
        while True:
            job = await self._next_job()
            self._busy = True
            try:
                await job()
            except asyncio.CancelledError:
                raise
            except Exception as exc:  # logged, retried by the job's own rule; never a chat's concern
                self.failures += 1
                # the database down or full: one line; anything else with its traceback
                log.warning("export keeper: %s failed (%s: %s); trying again in %.0f s",
                            getattr(job, "what", "a job"), type(exc).__name__, exc, self.retry,
                            exc_info=fault(exc) is None)
            finally:
                self._busy = False

    async def _next_job(self) -> Any:
        """The next thing to do, once it is due: a marked chat, then a sweep, then the catch-up
        (listing the sessions, then one session at a time)."""
        while True:
            now = time.monotonic()
            timeout: float | None = None
            if not self._paused:
                if self._due:
                    chat_id = min(self._due, key=self._due.__getitem__)
                    if self._due[chat_id] <= now:
                        del self._due[chat_id]
                        self._first.pop(chat_id, None)
                        return self._job(f"chat {chat_id}", self._refresh_chat(chat_id),
                                         on_failure=lambda exc, c=chat_id: self._retry_chat(c))
                    timeout = self._due[chat_id] - now
                if self._sweep_at and self._sweep_at <= now:
                    self._sweep_at = 0.0
                    return self._job("removing caches of sessions that are gone", self.sweep(),
                                     on_failure=self._retry_sweep)
                if self._backlog:
                    session = self._backlog.pop(0)
                    return self._job(f"catching up session {session.id}", self._catch_up_one(session),
                                     on_failure=self._retry_session)
                if self._catch_up_at is not None:
                    if self._catch_up_at <= now:
                        self._catch_up_at = None
                        return self._job("listing sessions to catch up", self._list_catch_up(),
                                         on_failure=self._retry_catch_up)
                    wait = self._catch_up_at - now
                    timeout = wait if timeout is None else min(timeout, wait)
            self._wake.clear()
            with suppress(TimeoutError):
                await asyncio.wait_for(self._wake.wait(), timeout)

    @staticmethod
    def _job(what: str, work: Any, *, on_failure: Any) -> Any:
        async def job() -> None:
            try:
                await work
            except Exception as exc:
                on_failure(exc)
                raise

        job.what = what  # type: ignore[attr-defined]
        return job

    def _retry_chat(self, chat_id: int, _: BaseException | None = None) -> None:
        self._due[chat_id] = time.monotonic() + self.retry

    def _retry_catch_up(self, _: BaseException | None = None) -> None:
        self._backlog.clear()  # listed again then: only what is still stale
        self._catch_up_at = time.monotonic() + self.retry

    def _retry_session(self, exc: BaseException) -> None:
        """The database failing fails every session alike: the catch-up waits. Anything else
        is this session's: the others go on, and it is tried again when they are done."""
        if fault(exc) is not None:
            self._retry_catch_up()
        else:
            self._catch_up_at = time.monotonic() + self.retry

    def _retry_sweep(self, _: BaseException | None = None) -> None:
        self._sweep_at = time.monotonic() + self.retry

    # -- the work --------------------------------------------------------------------------------

    async def _refresh_chat(self, chat_id: int) -> None:
        """The session /export would send in this chat: the running one, else the newest."""
        session = await last_session(self.store, chat_id)
        if session is not None and await self.refresh(session):
            await asyncio.to_thread(self._evict, session.id)

    async def _list_catch_up(self) -> None:
        await self.sweep()
        self._backlog = await self.store.sessions_by_recency()
        self._grew = True

    async def _catch_up_one(self, session: Any) -> None:
        # the directory is listed again only after a cache was written (sessions are many)
        if self._grew and await asyncio.to_thread(self._total) >= CATCH_UP_SHARE * self.cap:
            log.info("export keeper: the cache is near its cap; %d sessions left to their "
                     "next /export", len(self._backlog) + 1)
            self._backlog.clear()
            return
        self._grew = await self.refresh(session)

    async def refresh(self, session: Any) -> bool:
        """Bring the session's cache up to date unless it is; True when it wrote."""
        names = [n or "?" for n in await seat_names(self.store, session)]
        cache = cache_for(self.root, session, names)
        hand_count, live = await self.store.export_mark(session.id)
        if hand_count == 0 or await asyncio.to_thread(is_current, cache, hand_count, live):
            return False
        held = await asyncio.to_thread(cache.held)
        url = await self.store.standalone_url() if hand_count - held > self.spawn_above else None
        if url is not None:
            await self._build_in_child(url, session, names)
            self.refreshed += 1
            return True
        while True:
            while self._paused:
                await asyncio.sleep(0.05)
            lock = await asyncio.to_thread(cache.acquire)
            try:
                with _gentle():
                    done = await bring_up_to_date(self.store, cache, session.id, step=self.step,
                                                  batch=self.batch)
            finally:
                await asyncio.to_thread(cache.release, lock)
            if done:
                break
            await asyncio.sleep(BETWEEN_STEPS)  # the lock is free: an /export may go first
        self.refreshed += 1
        return True

    async def _build_in_child(self, url: Any, session: Any, names: list[str]) -> None:
        """Many hands to write: in a process of its own (`python -m bot.export_keeper`), so
        neither its work nor its garbage collection holds this process's event loop. The job,
        the database's password included, goes through its stdin (not its command line)."""
        job = json.dumps({"url": url.render_as_string(hide_password=False), "root": str(self.root),
                          "session": session.id, "started_at": str(session.started_at),
                          "variant": session.variant, "rules": session.rules,
                          "stake_cents": session.stake_cents, "players": names})
        proc = await asyncio.create_subprocess_exec(
            sys.executable, "-m", "bot.export_keeper", stdin=asyncio.subprocess.PIPE,
            stdout=asyncio.subprocess.DEVNULL, stderr=asyncio.subprocess.PIPE)
        try:
            _, err = await proc.communicate(job.encode())
        finally:
            if proc.returncode is None:  # the keeper stopped: so does its child
                proc.kill()
                await proc.wait()
        if proc.returncode != 0:
            tail = err.decode(errors="replace").strip().splitlines()[-1:] or ["(nothing)"]
            raise RuntimeError(f"the export build of session {session.id} exited with "
                               f"{proc.returncode}: {tail[0]}")

    async def sweep(self) -> None:
        """Remove the caches of sessions that no longer exist, then keep to the cap."""
        existing = await self.store.session_ids()
        await asyncio.to_thread(self._sweep_files, existing)
        self._sweep_at = time.monotonic() + SWEEP_EVERY

    # -- files (worker threads) ------------------------------------------------------------------

    def _caches(self) -> dict[int, tuple[int, float]]:
        """session id → (bytes, when last written) of every cache under the root."""
        found: dict[int, list[float]] = {}
        try:
            entries = list(self.root.iterdir())
        except FileNotFoundError:
            return {}
        for path in entries:
            m = _FILE.fullmatch(path.name)
            if m is None:
                continue
            try:
                st = path.stat()
            except FileNotFoundError:
                continue
            size_used = found.setdefault(int(m.group(1)), [0, 0.0])
            size_used[0] += st.st_size
            if m.group(2) == "meta":
                size_used[1] = st.st_mtime
        return {sid: (int(v[0]), v[1]) for sid, v in found.items()}

    def _total(self) -> int:
        return sum(size for size, _ in self._caches().values())

    def _sweep_files(self, existing: set[int]) -> None:
        for sid in self._caches():
            if sid not in existing:
                self._remove(sid, gone=True)
        self._evict(None)

    def _evict(self, keep: int | None) -> None:
        """Above the cap: the least recently written caches go, never `keep`'s (just written)."""
        caches = self._caches()
        total = sum(size for size, _ in caches.values())
        for sid, (size, _) in sorted(caches.items(), key=lambda kv: kv[1][1]):
            if total <= self.cap:
                break
            if sid != keep and self._remove(sid):
                log.info("export keeper: removed session %d's export cache (%d bytes; cap %d)",
                         sid, size, self.cap)
                total -= size

    def _remove(self, session_id: int, *, gone: bool = False) -> bool:
        """Remove a cache no /export is using (its lock is free); False when one is."""
        base = self.root / f"session-{session_id}"
        lock_path = base.with_suffix(".lock")
        with lock_path.open("a") as lock:
            try:
                fcntl.flock(lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:
                return False
            for suffix in (".csv.gz", ".json.gz", ".meta", ".meta.tmp"):
                base.with_suffix(suffix).unlink(missing_ok=True)
            if gone:  # nobody will export it again
                lock_path.unlink(missing_ok=True)
            fcntl.flock(lock, fcntl.LOCK_UN)
        return True


async def _build(job: dict[str, Any]) -> None:
    """The child's work: one session's cache brought up to date, under its lock."""
    from sqlalchemy.pool import NullPool

    from db import Store
    from db.config import make_engine

    from .export_cache import SessionCache, content_key

    store = Store(make_engine(job["url"], poolclass=NullPool))
    key = content_key(job["started_at"], job["variant"], job["rules"], job["stake_cents"],
                      job["players"])
    cache = SessionCache(Path(job["root"]), job["session"], key, job["players"], job["stake_cents"])
    try:
        lock = cache.acquire()
        try:
            await bring_up_to_date(store, cache, job["session"])
        finally:
            cache.release(lock)
    finally:
        await store.close()


if __name__ == "__main__":
    asyncio.run(_build(json.loads(sys.stdin.read())))
