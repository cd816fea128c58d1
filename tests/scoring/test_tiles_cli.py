"""`python -m scoring analyze` / `waits`, the notation and its errors."""

from __future__ import annotations

import json
import subprocess
import sys
from typing import Any

import pytest

from scoring import ScoringError, score
from scoring.tiles import analyze, parse_tiles
from scoring.tiles.notation import group_text


def run(command: str, text: str) -> tuple[int, list[dict[str, Any]], str]:
    proc = subprocess.run([sys.executable, "-m", "scoring", command], input=text,
                          capture_output=True, text=True, timeout=60, check=False)
    return proc.returncode, [json.loads(line) for line in proc.stdout.splitlines()], proc.stderr


LUZHOU = {"variant": "luzhou", "rules": {}, "tiles": "123m456m789m[555p]中+5m", "by": "self_draw",
          "seat": 1, "dealer": 0, "indicator": None, "round_wind": 0}


def test_analyze_prints_the_best_winner_and_every_reading() -> None:
    code, [out], err = run("analyze", json.dumps(LUZHOU, ensure_ascii=False))
    assert code == 0, err
    assert out["winner"] == {"seat": 1}
    assert out["value"] == 6  # 平胡 2 from each of three
    assert {r["value"] for r in out["readings"]} == {6}
    assert all(r["sets"] for r in out["readings"])


def test_the_best_winner_scored_in_a_record_pays_the_stated_value() -> None:
    out = analyze({**LUZHOU, "tiles": "111m222m33m5m中中中中中+5m", "rules": {"ghosts": 8}})
    record = {"variant": "luzhou", "rules": {"ghosts": 8},
              "events": [{"type": "win", "by": "self_draw", "winners": [out["winner"]]},
                         {"type": "exhausted", "ready": {"0": None, "2": None, "3": None}}]}
    assert score(record).deltas[1] == out["value"] == 120


def test_analyze_refuses_with_exit_2_and_a_json_error() -> None:
    code, [out], err = run("analyze", json.dumps({**LUZHOU, "tiles": "123m456p789s11m22m+2m"}))
    assert code == 2 and "Traceback" not in err
    assert set(out) == {"error"} and "缺一门" in out["error"]
    code, [out], _ = run("analyze", "{not json")
    assert code == 2 and out["error"].startswith("invalid JSON")
    code, [out], _ = run("analyze", json.dumps({**LUZHOU, "variant": "mars"}))
    assert code == 2 and out["error"].startswith("variant: unknown variant")
    code, [out], _ = run("analyze", json.dumps({**LUZHOU, "colour": "red"}))
    assert code == 2 and out["error"] == "colour: unknown field"


def test_json_lines_answer_line_by_line_and_fail_if_any_failed() -> None:
    lines = [LUZHOU, {**LUZHOU, "tiles": "123m"}, {**LUZHOU, "by": "discard", "tiles":
                                                   "111m222m333m44m5m中+5m"}]
    text = "\n".join(json.dumps(x, ensure_ascii=False) for x in lines) + "\nnot json\n"
    code, outs, _ = run("analyze", text)
    assert code == 2
    assert len(outs) == 4
    assert outs[0]["value"] == 6
    assert "error" in outs[1] and "14" in outs[1]["error"]
    assert outs[2]["winner"]["form"] == "all_pungs" and outs[2]["value"] == 20
    assert outs[3]["error"].startswith("invalid JSON")
    ok = "\n".join(json.dumps(x, ensure_ascii=False) for x in (lines[0], lines[2]))
    assert run("analyze", ok)[0] == 0


def test_waits_lists_completing_tiles_with_their_best_reading() -> None:
    req = {"variant": "guiyang", "tiles": "1112345678999m"}
    code, [out], err = run("waits", json.dumps(req))
    assert code == 0, err
    assert [w["tile"] for w in out["waits"]] == [f"{r}m" for r in range(1, 10)]  # 九莲宝灯
    assert out["ready"] and out["best"]["value"] == 3 * 10
    assert out["ready_entry"] == {"pure": True}
    code, [out], _ = run("waits", json.dumps({**req, "tiles": "1112345678999m+9m"}))
    assert code == 2 and "'+'" in out["error"]


def test_waits_with_a_ghost_lists_no_ghost_and_skips_tiles_held_four_times() -> None:
    out = json.loads(subprocess.run(
        [sys.executable, "-m", "scoring", "waits"], capture_output=True, text=True, check=True,
        input=json.dumps({"variant": "luzhou", "tiles": "1111m222m333p44p中"},
                         ensure_ascii=False)).stdout)
    tiles = {w["tile"] for w in out["waits"]}
    assert "1m" not in tiles  # four held: not listed, though a ghost would pair it
    assert tiles == {"2m", "3m", "3p", "4p"}
    assert "中" not in tiles and "7z" not in tiles
    assert out["flower_cat"] is False


@pytest.mark.parametrize(("text", "hand", "melds", "win", "flowers"), [
    ("123m 456p 东东东 中中", "123m456p11177z", [], None, 0),
    ("一万二萬三万 九筒 幺鸡 一條", "123m9p11s", [], None, 0),
    ("東南西北白發中", "1234567z", [], None, 0),
    ("123m456p77s[555p][(9999m)]+7s", "123m456p77s", ["555p", "9999m"], "7s", 0),
    ("12345678m99m春8f", "1234567899m", [], None, 2),
])
def test_notation(text: str, hand: str, melds: list[str], win: str | None, flowers: int) -> None:
    ts = parse_tiles(text)
    assert group_text(ts.hand) == hand
    assert [group_text(m.tiles) for m in ts.melds] == melds
    assert (group_text([ts.win]) if ts.win is not None else None) == win
    assert len(ts.flowers) == flowers


@pytest.mark.parametrize(("text", "words"), [
    ("123", "need a suit letter"),
    ("m", "no digits before it"),
    ("12m x", "unknown tile character"),
    ("8z", "honours are 1z–7z"),
    ("9f", "flowers are 1f–8f"),
    ("0m", "suited tiles are 1–9"),
    ("一x", "must be followed by 万, 筒 or 条"),
    ("[123m", "not closed"),
    ("[12m]", "three tiles"),
    ("[(555m)]", "four tiles"),
    ("1m+2m+3m", "only one winning tile"),
    ("1m+23m", "exactly one tile follows"),
    ("1m)", "unexpected"),
])
def test_notation_errors(text: str, words: str) -> None:
    with pytest.raises(ScoringError) as exc:
        parse_tiles(text)
    assert exc.value.field == "tiles" and words in str(exc.value)


def test_meld_errors() -> None:
    with pytest.raises(ScoringError, match="not a pung, kong or chow"):
        analyze({"variant": "hainan", "tiles": "123m456p789s11p[135s]"})
    out = analyze({"variant": "feibao", "tiles": "123m456p789s11p[东南北]", "indicator": "9s"})
    assert out["value"] == 3 * 2  # a chow of three different winds is a set in Feibao
