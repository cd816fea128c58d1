"""Load benchmark: the real bot against a bare python-telegram-bot echo bot, same fake Bot API,
same run. Each bot runs in its own process (tests/bench/loadbot.py) so its CPU time is its own;
this process plays the fake Telegram server and the players.

    .venv/bin/python -m tests.bench.load [--db sqlite|postgres] [--chats 4] [--rounds 20]
                                         [--concurrent 50] [--think 2] [--mode polling|webhook]
                                         [--trace] [--json out.json]

Measured, one update at a time (the bot's CPU and SQL counters are read before and after each
update, once its statements have settled), the echo bot's rounds interleaved with the app's:
  hu       `/hu 1 zimo` (a Hainan session) — a one-line entry, answered with the preview
  confirm  the preview's Confirm tap — the hand is stored
  tap      wizard taps on a /hand entry (Self-draw, then Back)
  table    `/table`
and for the echo bot `message` (a text, answered with a message) and `tap` (a button, answered
with an edit and a callback answer). Then, with --concurrent N, N chats enter hands at once
(each chat in order, /hu then Confirm; a player sends the next update when the bot answered the
last) and the latency of every update is taken (p50/p90/p99, from injecting the update to the
bot's message in that chat or its answer to the button):
  no pauses  every chat sends its next update the moment the last is answered: N updates are
             always in flight (a stress test; no table plays like this)
  paced      (--think S) a player pauses about S seconds (0.5-1.5x) before each update
  waves      (--think S) every round, all N chats send /hu in the same instant, each player
             reads the preview for about S seconds and taps Confirm; the next round starts when
             every chat is done (and REFILL more: the hand being played, a second here, minutes
             at a real table): "N chats entering hands at once"
Each scenario also reports the cores busy in the bot, in this process (the fake Bot API server
and the players) and in the rest of the machine (the database server, other work), and the Bot
API calls per update.

Every update here is answered by one call naming its chat (the preview message, the edit on
Confirm) besides the callback answer, and the bot sends at most 30 such calls a second overall
(Telegram's limit; bot/plumbing/ratelimit.py). So N chats that keep an update in flight all
the time wait about N/30 s each whatever the bot does (50 chats: 1.67 s). And a wave of N > 30
/hu sent in one instant: the cap lets 30 answers go at once and one more every 1/30 s, so the
last comes (N-30)/30 s after the first (50 chats: 0.667 s). With two waves of 50 among 200
updates the p99 is the second slowest: at least the first answer's latency plus 0.667 s, about
0.7 s, whatever the bot does; the waves line shows each wave's first and last answer against
that bound. Under 30 chats a wave fits in the cap's burst. --no-rate-limit lifts
that cap in the bot (a benchmark switch, never in production) to show what the bot itself can do.
--mode webhook runs the app in webhook mode (the fake server POSTs each update to it, as
Telegram does: many at once, over at most setWebhook's max_connections connections kept open;
the echo bot still polls).
--trace prints, per scenario, where the updates' latency went (tests/bench/trace.py: delivery,
waiting for the chat's turn, handling, the rate limiter, the Bot API calls).
PostgreSQL uses TEST_DATABASE_URL (a fresh schema, dropped afterwards).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
import resource
import signal
import socket
import statistics
import sys
import tempfile
import time
from collections import defaultdict
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import aiohttp

from tests.databases import new_database
from tests.fake_telegram import FakeTelegram
from tests.fake_telegram.server import SECRET_HEADER

TIMEOUT = 60.0
REFILL = 1.0  # seconds for the bot's 30/s send cap (a burst of 30) to refill from empty


@dataclass
class Child:
    """A bot process and its counters."""

    proc: asyncio.subprocess.Process

    async def line(self) -> dict[str, Any]:
        """The bot's next JSON line (anything else it prints is passed over)."""
        assert self.proc.stdout is not None
        while True:
            line = await asyncio.wait_for(self.proc.stdout.readline(), TIMEOUT)
            if not line:
                return {}
            try:
                return json.loads(line)
            except ValueError:
                continue

    async def counters(self) -> dict[str, Any]:
        self.proc.send_signal(signal.SIGUSR1)
        return await self.line()

    async def settled(self, stable_for: float = 0.02) -> dict[str, Any]:
        """Counters once the bot has stopped issuing statements (trailing work of an update)."""
        last = await self.counters()
        while True:
            await asyncio.sleep(stable_for)
            now = await self.counters()
            if now["statements"] == last["statements"] and now["checkouts"] == last["checkouts"]:
                return now
            last = now

    async def stop(self) -> None:
        if self.proc.returncode is not None:
            return
        self.proc.send_signal(signal.SIGTERM)
        try:
            await asyncio.wait_for(self.proc.wait(), 15)
        except TimeoutError:
            self.proc.kill()
            await self.proc.wait()


class TimedList(list):  # type: ignore[type-arg]
    """FakeTelegram.injected that also notes when each update was injected (--trace)."""

    def __init__(self, *args: Any) -> None:
        super().__init__(*args)
        self.at: dict[int, float] = {}

    def append(self, update: Any) -> None:
        self.at[update["update_id"]] = time.monotonic()
        super().append(update)


WEBHOOK_CONNECTIONS = 40  # Telegram's default max_connections, when setWebhook gives none


def deliver_as_telegram(tg: FakeTelegram) -> aiohttp.ClientSession:
    """Webhook deliveries as Telegram makes them: over at most the webhook's max_connections
    connections kept open (the fake server opens a new one per update, which costs this process, the
    players' and the Bot API's, more than the bot's side)."""
    connections = (tg.webhook or {}).get("max_connections", WEBHOOK_CONNECTIONS)
    http = aiohttp.ClientSession(connector=aiohttp.TCPConnector(limit=connections))

    async def deliver(url: str, secret_token: str | None, update: dict[str, Any]) -> tuple[int, str]:
        headers = {SECRET_HEADER: secret_token} if secret_token else {}
        async with http.post(url, json=update, headers=headers) as resp:
            return resp.status, await resp.text()

    tg.deliver_webhook = deliver  # type: ignore[method-assign]
    return http


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


async def start_child(tg: FakeTelegram, kind: str, db_url: str | None,
                      env: dict[str, str] | None = None) -> Child:
    args = [sys.executable, "-m", "tests.bench.loadbot", kind, tg.base_url, tg.base_file_url, tg.token]
    if db_url:
        args.append(db_url)
    proc = await asyncio.create_subprocess_exec(*args, stdout=asyncio.subprocess.PIPE,
                                                env={**os.environ, **(env or {})},
                                                cwd=os.path.dirname(os.path.dirname(os.path.dirname(
                                                    os.path.abspath(__file__)))))
    child = Child(proc)
    if not (await child.line()).get("ready"):
        raise RuntimeError(f"the {kind} bot did not start")
    return child


class Waiters:
    """The bot's answers the players wait for, found as each request is recorded: a chat's next
    sent message, a query's answer. (FakeTelegram.wait_for re-runs every waiter's predicate over
    the recorded requests on every request; with 50 chats waiting that cost the driver, which
    shares the machine with the bot, more CPU than the bot spent.)"""

    def __init__(self, tg: FakeTelegram) -> None:
        self.pending: dict[tuple[str, str], asyncio.Future[Any]] = {}
        tg.observers.append(self.seen)

    def expect(self, method: str, key: object) -> asyncio.Future[Any]:
        future = asyncio.get_running_loop().create_future()
        self.pending[(method, str(key))] = future
        return future

    def seen(self, r: Any) -> None:
        if not r.ok:
            return
        key = r.params.get("callback_query_id" if r.method == "answerCallbackQuery" else "chat_id")
        future = self.pending.pop((r.method, str(key)), None)
        if future is not None and not future.done():
            future.set_result(r)


def waiters(tg: FakeTelegram) -> Waiters:
    """One Waiters per fake server."""
    found = getattr(tg, "_load_waiters", None)
    if found is None:
        found = Waiters(tg)
        tg._load_waiters = found  # type: ignore[attr-defined]
    return found


@dataclass
class Driver:
    """Players in one chat; every action waits for the bot's answer."""

    tg: FakeTelegram
    chat: dict[str, Any]
    players: list[dict[str, Any]]
    latencies: list[float] = field(default_factory=list)

    @property
    def chat_id(self) -> int:
        return int(self.chat["id"])

    async def say(self, user: dict[str, Any], words: str, method: str = "sendMessage") -> Any:
        """Write `words`; the latency runs until the bot's next `method` in this chat."""
        answered = waiters(self.tg).expect(method, self.chat_id)
        began = time.perf_counter()
        await self.tg.send_message(self.chat, user, words)
        req = await asyncio.wait_for(answered, TIMEOUT)
        self.latencies.append(time.perf_counter() - began)
        return self.tg.message(self.chat_id, req.result["message_id"])

    async def press(self, user: dict[str, Any], message_id: int, data: str) -> dict[str, Any]:
        """Press a button; the latency runs until the bot answers the query."""
        began = time.perf_counter()
        qid = await self.tg.press(self.chat_id, message_id, user, data)
        if qid not in self.tg.callback_answers:  # never answered before press() returned
            await asyncio.wait_for(waiters(self.tg).expect("answerCallbackQuery", qid), TIMEOUT)
        self.latencies.append(time.perf_counter() - began)
        return self.tg.callback_answers[qid]

    async def tap(self, user: dict[str, Any], message_id: int, label: str) -> dict[str, Any]:
        """Press the first button reading `label` (else containing it)."""
        buttons = [b for row in self.tg.message(self.chat_id, message_id).buttons for b in row]
        found = [b for b in buttons if b["text"] == label] or [b for b in buttons if label in b["text"]]
        if not found:
            raise LookupError(f"no button {label!r}: {[b['text'] for b in buttons]}")
        return await self.press(user, message_id, found[0]["callback_data"])

    async def seat_everyone(self) -> None:
        lobby = await self.say(self.players[0], "/new hainan")
        for p in self.players:
            answer = await self.tap(p, lobby.message_id, "Join")
            assert not answer.get("show_alert"), answer


class Meter:
    """CPU seconds, statements, transactions and checkouts per kind of update."""

    def __init__(self, child: Child) -> None:
        self.child = child
        self.totals: dict[str, dict[str, float]] = defaultdict(lambda: defaultdict(float))

    async def measure(self, kind: str, action: Any) -> Any:
        before = await self.child.settled()
        result = await action
        after = await self.child.settled()
        row = self.totals[kind]
        row["updates"] += 1
        for key in ("cpu", "statements", "turns", "transactions", "checkouts"):
            row[key] += after[key] - before[key]
        return result

    def per_update(self) -> dict[str, dict[str, float]]:
        return {kind: {k: v / row["updates"] for k, v in row.items() if k != "updates"}
                | {"updates": row["updates"]} for kind, row in self.totals.items()}


def make_chat(tg: FakeTelegram, n: int) -> Driver:
    players = [tg.user(10_000 + n * 10 + i, f"Player{n}-{i}", f"p{n}_{i}") for i in range(4)]
    return Driver(tg, tg.group(f"Table {n}"), players)


async def measure_app(tg: FakeTelegram, db_url: str, chats: int, rounds: int,
                      concurrent: int, think: float = 0.0, echo: Echo | None = None) -> dict[str, Any]:
    """The app's updates; with `echo`, a round of the echo bot's after each round of the
    app's (the two baselines drift apart less on a shared machine than one after the other)."""
    env: dict[str, str] = {}
    trace_file = os.environ.get("LOAD_TRACE")  # set by --trace
    if trace_file:
        env["LOADBOT_TRACE"] = trace_file
        tg.injected = TimedList(tg.injected)
    http: aiohttp.ClientSession | None = None
    if os.environ.get("LOAD_MODE") == "webhook":
        port = free_port()
        env["LOADBOT_WEBHOOK_PORT"] = str(port)
        tg.webhook_target = f"http://127.0.0.1:{port}/telegram"
    child = await start_child(tg, "app", db_url, env)
    if tg.webhook_target:
        http = deliver_as_telegram(tg)  # the webhook is set now: its max_connections known
    result: dict[str, Any] = {}
    try:
        meter = Meter(child)
        drivers = [make_chat(tg, n) for n in range(chats)]
        for d in drivers:
            await d.seat_everyone()
        for r in range(rounds):
            for d in drivers:
                who = d.players[r % 4]
                preview = await meter.measure("hu", d.say(who, "/hu 1 zimo"))
                answer = await meter.measure("confirm", d.tap(who, preview.message_id, "Confirm"))
                assert not answer.get("show_alert"), answer
            if echo is not None:
                await echo.round(r)
        for d in drivers:
            wizard = await d.say(d.players[0], "/hand")
            for r in range(rounds):
                await meter.measure("tap", d.tap(d.players[0], wizard.message_id, "Self-draw"))
                await meter.measure("tap", d.tap(d.players[0], wizard.message_id, "Back"))
                if echo is not None and r % chats == 0:
                    await echo.round(r)
            await d.tap(d.players[0], wizard.message_id, "Cancel")
            for _ in range(max(1, rounds // 4)):
                await meter.measure("table", d.say(d.players[1], "/table"))
        result["per_update"] = meter.per_update()
        if echo is not None:
            result["echo"] = {"per_update": echo.meter.per_update()}
            await echo.child.stop()  # idle before the timed bursts
        if concurrent:
            result["concurrent"] = await concurrent_entry(tg, child, concurrent, max(2, rounds // 4))
            if think:
                result["paced"] = await concurrent_entry(tg, child, concurrent, max(2, rounds // 4),
                                                         think)
                result["waves"] = await concurrent_entry(tg, child, concurrent, max(2, rounds // 4),
                                                         think, wave=True)
        return result
    finally:
        await child.stop()
        if http is not None:
            await http.close()
        if trace_file:
            traced(result, trace_file, tg.injected.at)  # type: ignore[attr-defined]


def traced(result: dict[str, Any], trace_file: str, injected: dict[int, float]) -> None:
    """Each scenario's timeline summary (--trace), from the bot's events and the injections."""
    from tests.bench import trace

    with open(trace_file) as f:
        events = json.load(f)
    for key in ("concurrent", "paced", "waves"):
        if key in result:
            first, last = result[key]["update_ids"]
            rows = trace.phases(events, {u: t for u, t in injected.items() if first <= u < last})
            result[key]["trace"] = trace.summary(rows)


def machine_busy() -> tuple[float, float]:
    """(busy, total) CPU seconds of the whole machine so far, all cores (Linux /proc/stat)."""
    try:
        with open("/proc/stat") as f:
            fields = [float(x) for x in f.readline().split()[1:]]
    except OSError:
        return 0.0, 0.0
    tick = os.sysconf("SC_CLK_TCK")
    idle = fields[3] + fields[4]  # idle + iowait
    return (sum(fields) - idle) / tick, sum(fields) / tick


def own_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


async def concurrent_entry(tg: FakeTelegram, child: Child, chats: int, rounds: int,
                           think: float = 0.0, wave: bool = False) -> dict[str, Any]:
    """`chats` chats enter hands at once, each in order; with `think`, a player pauses about
    that long (0.5-1.5x, at random) before each update, as people at a table do. With `wave`,
    every round all chats send their /hu in the same instant, the player pauses (`think`)
    reading the preview, taps Confirm, and the next round starts when every chat is done."""
    rng = random.Random(50)
    drivers = [make_chat(tg, 1000 + n) for n in range(chats)]
    await asyncio.gather(*(d.seat_everyone() for d in drivers))
    for d in drivers:
        d.latencies.clear()
    # Seating N chats just sent 5N messages through the bot's 30/s cap: let its allowance refill
    # before the timed part (else a wave starts with none and waits N/30 s, not (N-30)/30 s).
    await asyncio.sleep(REFILL)

    async def pause() -> None:
        if think:
            await asyncio.sleep(think * rng.uniform(0.5, 1.5))

    async def play(d: Driver) -> None:
        for r in range(rounds):
            who = d.players[r % 4]
            await pause()
            preview = await d.say(who, "/hu 1 zimo")
            await pause()
            await d.tap(who, preview.message_id, "Confirm")

    async def hand(d: Driver, r: int) -> None:
        who = d.players[r % 4]
        preview = await d.say(who, "/hu 1 zimo")
        await pause()  # reading the preview
        await d.tap(who, preview.message_id, "Confirm")

    wave_starts: list[float] = []

    async def waves() -> None:
        for r in range(rounds):  # every chat starts its hand in the same instant
            if r:
                await asyncio.sleep(REFILL)  # the hand being played (minutes, at a real table)
            wave_starts.append(time.monotonic())
            await asyncio.gather(*(hand(d, r) for d in drivers))

    bot_before, driver_before, machine_before = await child.counters(), own_cpu(), machine_busy()
    first_request, first_update = len(tg.requests), len(tg.injected)
    began = time.perf_counter()
    if wave:
        await waves()
    else:
        await asyncio.gather(*(play(d) for d in drivers))
    wall = time.perf_counter() - began
    bot_after, driver_after, machine_after = await child.counters(), own_cpu(), machine_busy()
    lat = sorted(x for d in drivers for x in d.latencies)
    calls: dict[str, int] = defaultdict(int)
    for r in tg.requests[first_request:]:
        if r.method != "getUpdates":
            calls[r.method] += 1
    bot_cpu, driver_cpu = bot_after["cpu"] - bot_before["cpu"], driver_after - driver_before
    machine_cpu = machine_after[0] - machine_before[0]
    ids = [u["update_id"] for u in tg.injected[first_update:]]
    # Each wave's /hu answers as the fake server answered them: the 30/s cap lets the first 30
    # go at once and one more every 1/30 s, so the last of N comes (N-30)/30 s after the first
    # at the least (the cap's own bound), whatever the bot does.
    spans = []
    chat_ids = {d.chat_id for d in drivers}
    for start, end in zip(wave_starts, [*wave_starts[1:], float("inf")][:len(wave_starts)], strict=True):
        sent = sorted(r.at for r in tg.requests[first_request:] if r.method == "sendMessage"
                      and r.params.get("chat_id") in chat_ids and start <= r.at < end)
        if sent:
            spans.append({"first_ms": 1000 * (sent[0] - start), "last_ms": 1000 * (sent[-1] - start),
                          "span_ms": 1000 * (sent[-1] - sent[0]),
                          "bound_ms": 1000 * max(0, len(sent) - 30) / 30})
    return {"chats": chats, "think_s": think, "wave": wave, "updates": len(lat), "wall_s": wall,
            "update_ids": (min(ids), max(ids) + 1), "wave_sends": spans,
            "updates_per_s": len(lat) / wall,
            "p50_ms": 1000 * lat[len(lat) // 2], "p90_ms": 1000 * lat[int(len(lat) * 0.9)],
            "p99_ms": 1000 * lat[int(len(lat) * 0.99)], "max_ms": 1000 * lat[-1],
            # cores busy on average during the run: the bot process, this process (the fake
            # Bot API server and the players), and the rest of the machine (the database
            # server, anything else running)
            "cores_bot": bot_cpu / wall, "cores_driver": driver_cpu / wall,
            "cores_rest": max(0.0, machine_cpu - bot_cpu - driver_cpu) / wall,
            "bot_cpu_ms_per_update": 1000 * bot_cpu / len(lat),
            # Bot API calls per update; those naming a chat share Telegram's ~30/s overall
            # limit, which the bot's rate limiter keeps (bot/app.py rate_limiter)
            "calls_per_update": {m: n / len(lat) for m, n in sorted(calls.items())}}


@dataclass
class Echo:
    """The echo bot and its players, measured a round at a time."""

    child: Child
    meter: Meter
    drivers: list[Driver]

    @classmethod
    async def start(cls, tg: FakeTelegram, chats: int) -> Echo:
        child = await start_child(tg, "echo", None)
        return cls(child, Meter(child), [make_chat(tg, 500 + n) for n in range(chats)])

    async def round(self, r: int) -> None:
        for d in self.drivers:
            who = d.players[r % 4]
            sent = await self.meter.measure("message", d.say(who, "/hu 1 zimo"))
            await self.meter.measure("tap", d.press(who, sent.message_id, "e:1"))


async def run(backend: str, chats: int, rounds: int, concurrent: int,
              think: float = 0.0) -> dict[str, Any]:
    with tempfile.TemporaryDirectory() as workdir:
        url, drop = await new_database(backend, Path(workdir), "load")
        try:
            async with FakeTelegram() as echo_tg, FakeTelegram() as tg:
                echo_bot = await Echo.start(echo_tg, chats)
                try:
                    app = await measure_app(tg, url, chats, rounds, concurrent, think, echo_bot)
                finally:
                    await echo_bot.child.stop()
                assert not tg.internal_errors, tg.internal_errors
            echo = app.pop("echo")
        finally:
            if drop is not None:
                await drop()
    echo_cpu = statistics.mean(v["cpu"] for v in echo["per_update"].values())
    echo_tap = echo["per_update"]["tap"]["cpu"]
    echo_msg = echo["per_update"]["message"]["cpu"]
    ratios = {kind: v["cpu"] / (echo_tap if kind in ("confirm", "tap") else echo_msg)
              for kind, v in app["per_update"].items()}
    return {"backend": backend, "chats": chats, "rounds": rounds, "echo": echo, "app": app,
            "echo_cpu_ms": 1000 * echo_cpu, "cpu_ratio_vs_echo": ratios}


def show(result: dict[str, Any]) -> str:
    limit = ("without the 30/s overall send cap" if os.environ.get("LOADBOT_NO_RATE_LIMIT")
             else "with the 30/s overall send cap")
    mode = os.environ.get("LOAD_MODE", "polling")
    lines = [f"== {result['backend']}: {result['chats']} chats x {result['rounds']} rounds, bot "
             f"{limit}, {mode}"]
    for who in ("echo", "app"):
        for kind, v in result[who]["per_update"].items():
            lines.append(f"{who:5} {kind:8} cpu {1000 * v['cpu']:6.2f} ms/update  statements "
                         f"{v['statements']:5.1f}  turn {v['turns']:3.1f}  "
                         f"transactions {v['transactions']:4.1f}  "
                         f"checkouts {v['checkouts']:4.1f}  (n={int(v['updates'])})")
    lines.append("cpu ratio vs echo: " + ", ".join(f"{k} {v:.1f}x"
                                                 for k, v in result["cpu_ratio_vs_echo"].items()))
    for key in ("concurrent", "paced", "waves"):
        if key in result["app"]:
            c = result["app"][key]
            how = f", a pause of ~{c['think_s']:g} s before each" if c["think_s"] else ", no pauses"
            if c.get("wave"):
                how = (f", in waves: every chat's /hu in the same instant, Confirm after reading "
                       f"~{c['think_s']:g} s")
            lines.append(f"{c['chats']} chats at once{how}: {c['updates']} updates in "
                         f"{c['wall_s']:.1f} s ({c['updates_per_s']:.1f}/s), p50 {c['p50_ms']:.0f} ms, "
                         f"p90 {c['p90_ms']:.0f} ms, p99 {c['p99_ms']:.0f} ms, max {c['max_ms']:.0f} ms"
                         f"; cores busy: bot {c['cores_bot']:.2f}, fake server + players "
                         f"{c['cores_driver']:.2f}, rest (database, others) {c['cores_rest']:.2f}; "
                         f"bot {c['bot_cpu_ms_per_update']:.1f} ms CPU/update; Bot API calls/update: "
                         + ", ".join(f"{m} {n:.2f}" for m, n in c["calls_per_update"].items()))
            for n, w in enumerate(c.get("wave_sends", [])):
                lines.append(f"  wave {n + 1}: its /hu answers sent {w['first_ms']:.0f} to "
                             f"{w['last_ms']:.0f} ms after it began: over {w['span_ms']:.0f} ms "
                             f"(the 30/s cap's least: {w['bound_ms']:.0f} ms)")
            if "trace" in c:
                lines.append(c["trace"])
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--db", choices=["sqlite", "postgres"], default="sqlite")
    parser.add_argument("--chats", type=int, default=4)
    parser.add_argument("--rounds", type=int, default=20)
    parser.add_argument("--concurrent", type=int, default=0)
    parser.add_argument("--think", type=float, default=0.0,
                        help="also run the chats at once with pauses of about this many seconds")
    parser.add_argument("--no-rate-limit", action="store_true",
                        help="the bot without its 30 requests/s overall cap (Telegram's own send "
                             "limit), to see what the bot itself can do")
    parser.add_argument("--mode", choices=["polling", "webhook"], default="polling",
                        help="how the app gets its updates (the echo bot always polls)")
    parser.add_argument("--trace", action="store_true",
                        help="print where each scenario's latency went (tests/bench/trace.py)")
    parser.add_argument("--json", help="also write the figures here")
    args = parser.parse_args()
    os.environ["LOAD_MODE"] = args.mode
    if args.trace:
        os.environ["LOAD_TRACE"] = os.path.join(tempfile.mkdtemp(), "trace.json")
    if args.no_rate_limit:
        os.environ["LOADBOT_NO_RATE_LIMIT"] = "1"  # read by tests/bench/loadbot.py
    result = asyncio.run(run(args.db, args.chats, args.rounds, args.concurrent, args.think))
    print(show(result))
    if args.json:
        with open(args.json, "w") as f:
            json.dump(result, f, indent=1)


if __name__ == "__main__":
    main()
