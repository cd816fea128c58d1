"""A fixed corpus of tile requests and their answers, to show a change to the tile engine leaves
every output byte-identical (issue 13's speed work): 3,000 hands of all five variants (0–8
jokers, melds, Hainan flowers, every seat, dealer and round wind), each as `analyze` (any `by`),
as `waits` and, for Luzhou and Guiyang, as 查叫 (`ready_entry`); errors count as answers.

    git stash / checkout the code to compare against, then
    .venv/bin/python -m tests.bench.tiles_corpus make  [FILE]   # answers of that code
    .venv/bin/python -m tests.bench.tiles_corpus check [FILE]   # the code now: differences

FILE defaults to /tmp/tiles_corpus.jsonl (about 15 MB, so it is not kept in the repository).
"""

from __future__ import annotations

import json
import random
import sys
import time
from typing import Any

from scoring import ScoringError
from scoring.tiles import analyze, ready_entry, waits
from tests.scoring.test_tiles_properties import VARIANTS, random_hand

MOST_JOKERS = {"luzhou": 8, "feibao": 8, "cixi": 4}
COMMANDS = {"analyze": analyze, "waits": waits, "ready": ready_entry}


def cases(n: int = 3000, seed: int = 4242) -> list[tuple[str, dict[str, Any]]]:
    rng = random.Random(seed)
    out: list[tuple[str, dict[str, Any]]] = []
    for i in range(n):
        variant = VARIANTS[i % len(VARIANTS)]
        data = random_hand(rng, variant, jokers=rng.randint(0, MOST_JOKERS.get(variant, 0)))
        if variant == "luzhou":
            data["rules"] = {"ghosts": 8 if rng.random() < 0.7 else 4}
        data["seat"], data["dealer"] = rng.randrange(4), rng.randrange(4)
        data["round_wind"] = rng.randrange(4)
        if variant == "hainan" and rng.random() < 0.5:
            data["tiles"] += "".join(f"{f + 1}f" for f in rng.sample(range(8), rng.randint(1, 3)))
        out.append(("analyze", {**data, "by": rng.choice(["self_draw", "discard",
                                                          "robbed_kong"])}))
        text = data["tiles"]
        waiting = {**data, "tiles": text.split("+")[0] if "+" in text else text[:-2]}
        out.append(("waits", waiting))
        if variant in ("luzhou", "guiyang"):
            out.append(("ready", waiting))
    return out


def answer(command: str, data: dict[str, Any]) -> str:
    try:
        return json.dumps(COMMANDS[command](data), sort_keys=True, ensure_ascii=False)
    except ScoringError as exc:
        return "error: " + str(exc)


def main(what: str, path: str) -> int:
    if what == "make":
        with open(path, "w", encoding="utf-8") as f:
            for command, data in cases():
                f.write(json.dumps({"command": command, "request": data,
                                    "answer": answer(command, data)}, ensure_ascii=False) + "\n")
        return 0
    differ = total = 0
    start = time.process_time()
    with open(path, encoding="utf-8") as f:
        for line in f:
            case = json.loads(line)
            total += 1
            got = answer(case["command"], case["request"])
            if got != case["answer"]:
                differ += 1
                if differ <= 3:
                    print(f"{case['command']} {json.dumps(case['request'], ensure_ascii=False)}"
                          f"\n  was: {case['answer'][:500]}\n  now: {got[:500]}")
    print(f"{differ} of {total} answers differ ({time.process_time() - start:.1f} s CPU)")
    return 1 if differ else 0


if __name__ == "__main__":
    args = sys.argv[1:]
    if not args or args[0] not in ("make", "check"):
        sys.exit(__doc__)
    sys.exit(main(args[0], args[1] if len(args) > 1 else "/tmp/tiles_corpus.jsonl"))
