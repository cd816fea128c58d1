"""Start-up cost: `python -m scoring score` against `python -c pass`, and what importing the bot
pulls in (matplotlib and Alembic should load only when a chart is drawn or a migration runs).

    .venv/bin/python -m tests.bench.startup [--runs 15]

Each command runs `--runs` times; the best wall time counts (the machine is shared).
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import time

RECORD = {"variant": "hainan", "dealer": 0, "events": [  # one self-draw: a whole Hainan hand
    {"type": "win", "by": "self_draw", "winners": [{"seat": 1}]}]}
HEAVY = ("matplotlib", "alembic")


def best(args: list[str], runs: int, stdin: str = "") -> float:
    times = []
    for _ in range(runs):
        began = time.perf_counter()
        subprocess.run(args, input=stdin, capture_output=True, text=True, check=True)
        times.append(time.perf_counter() - began)
    return min(times)


def loaded_by(module: str) -> list[str]:
    """Which of the heavy packages importing `module` loads."""
    code = (f"import sys, json, {module}; "
            f"print(json.dumps([m for m in {HEAVY!r} if m in sys.modules]))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    return json.loads(out.stdout)


def measure(runs: int) -> dict[str, object]:
    record = json.dumps(RECORD)
    bare = best([sys.executable, "-c", "pass"], runs)
    cli = best([sys.executable, "-m", "scoring", "score"], runs, record)
    bot = best([sys.executable, "-c", "import bot.app"], max(3, runs // 3))
    return {"python_c_pass_s": bare, "scoring_score_s": cli, "ratio": cli / bare,
            "import_bot_app_s": bot, "bot_app_loads": loaded_by("bot.app"),
            "db_loads": loaded_by("db")}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=15)
    r = measure(parser.parse_args().runs)
    print(f"python -c pass {1000 * r['python_c_pass_s']:.0f} ms; python -m scoring score "
          f"{1000 * r['scoring_score_s']:.0f} ms ({r['ratio']:.1f}x); import bot.app "
          f"{1000 * r['import_bot_app_s']:.0f} ms, loads {r['bot_app_loads'] or 'neither'} of "
          f"{', '.join(HEAVY)}; import db loads {r['db_loads'] or 'neither'}")


if __name__ == "__main__":
    main()
