"""The load, scale and export benchmarks (scripts: `python -m tests.bench.load`, `... .scale`,
`... .bench_export`, `... .startup`) run here once at toy size, so they keep working; the
statement counts they report are exact, so the per-update budget is checked too (timings are
not: see the scripts)."""

from __future__ import annotations

import asyncio

import pytest

from tests.bench import bench_export, load, scale
from tests.databases import BACKENDS

STATEMENT_BUDGET = 5  # SQL statements per update on the common paths


@pytest.mark.parametrize("backend", BACKENDS)
def test_load_benchmark_and_the_statement_budget(backend: str) -> None:
    result = asyncio.run(load.run(backend, chats=1, rounds=1, concurrent=2))
    per = result["app"]["per_update"]
    assert set(per) == {"hu", "confirm", "tap", "table"}
    for kind in ("hu", "tap", "table"):
        assert per[kind]["statements"] <= STATEMENT_BUDGET, (kind, per[kind])
        # the chat's turn (PostgreSQL): its lock taken and given back, apart from the budget
        assert per[kind]["turns"] == (2 if backend == "postgres" else 0), (kind, per[kind])
    assert result["echo"]["per_update"]["tap"]["statements"] == 0
    assert result["app"]["concurrent"]["updates"] == 2 * 2 * 2  # /hu and Confirm, twice, two chats
    assert "cpu ratio vs echo" in load.show(result)


def test_scale_benchmark_at_toy_size() -> None:
    results = scale.run("sqlite", [30])
    for size in ("30",):
        commands = results["sizes"][size]["commands"]
        assert set(commands) == {f"{v} {c}" for v in ("luzhou", "cixi")
                                 for c in scale.COMMANDS}
        assert commands["luzhou /export"]["upload_mb"] > 0
    assert "ratio" in scale.show(results)


def test_export_benchmark_at_toy_size() -> None:
    results = bench_export.run("sqlite", [30])
    r = results["sizes"]["30"]
    assert set(r["ready_s"]) == set(bench_export.VARIANTS) and r["upload_mb"]["cixi"] > 0
    assert r["table"]["alone_ms"] > 0 and r["rss_peak_mb"] >= r["rss_before_mb"] > 0
    assert "/table in another chat" in bench_export.show(results)


def test_importing_the_bot_loads_neither_matplotlib_nor_alembic() -> None:
    from tests.bench import startup

    assert startup.loaded_by("bot.app") == [] and startup.loaded_by("db") == []
