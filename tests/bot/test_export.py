"""Export → import round trip of the file formats (the chat commands are tested end to end)."""

from __future__ import annotations

import csv
import io
import json
import subprocess
import sys

import pytest

from bot.view.export import CsvWriter, ExportedHand, ImportError_, parse_import, to_csv, to_json
from scoring import get_variant, score

PLAYERS = ["Alice", "<b>&Bob", "卡罗", "Dan"]


def _whole(record: dict) -> dict:
    """The hand goes on to an empty wall with the three seats still in all ready."""
    won = {w["seat"] for e in record["events"] for w in e["winners"]}
    ready = {str(s): {} for s in range(4) if s not in won}
    return {**record, "events": [*record["events"], {"type": "exhausted", "ready": ready}]}


def hands() -> list[ExportedHand]:
    records = [_whole(r) for r in [
        {"variant": "luzhou", "rules": {}, "dealer": 0, "dealer_streak": 1, "round_wind": 0,
         "events": [{"type": "win", "by": "self_draw", "winners": [{"seat": 1, "pure": True}]}]},
        {"variant": "luzhou", "rules": {}, "dealer": 1, "dealer_streak": 1, "round_wind": 0,
         "events": [{"type": "win", "by": "discard", "from": 3,
                     "winners": [{"seat": 2, "form": "all_pungs"}]}]},
        {"variant": "luzhou", "rules": {}, "dealer": 2, "dealer_streak": 1, "round_wind": 0,
         "events": [{"type": "win", "by": "self_draw", "winners": [{"seat": 0, "quads": 2}]}]},
    ]]
    return [ExportedHand(i + 1, r, score(r).to_dict(), voided=(i == 2), void_reason="typo" if i == 2
                         else None) for i, r in enumerate(records)]


def test_json_round_trip_gives_identical_totals() -> None:
    original = hands()
    doc = to_json("luzhou", {"cap": 40}, 50, PLAYERS, original)
    back = parse_import(json.dumps(doc, ensure_ascii=False).encode())
    assert back.players == tuple(PLAYERS) and back.stake_cents == 50
    # the imported session keeps every rule's value, defaults filled in
    assert back.rules["cap"] == 40 and back.rules["cap_applies"] == "value"
    assert set(back.rules) == set(get_variant("luzhou").Rules.model_fields)

    def totals(hs: list[ExportedHand] | tuple[ExportedHand, ...]) -> list[int]:
        return [sum(h.outcome["deltas"][s] for h in hs if not h.voided) for s in range(4)]

    assert totals(back.hands) == totals(original) == [-10, 30, -5, -15]
    assert [h.voided for h in back.hands] == [False, False, True]


def test_each_exported_record_scores_through_the_command_line() -> None:
    doc = to_json("luzhou", {}, 0, PLAYERS, hands())
    for item in doc["hands"]:
        proc = subprocess.run([sys.executable, "-m", "scoring", "score"],
                              input=json.dumps(item["record"]), capture_output=True, text=True,
                              check=False)
        assert proc.returncode == 0
        assert json.loads(proc.stdout)["deltas"] == score(item["record"]).to_dict()["deltas"]


def test_csv_has_one_row_per_hand_and_seat_with_running_totals() -> None:
    rows = list(csv.DictReader(io.StringIO(to_csv(PLAYERS, hands(), 50))))
    assert len(rows) == 12
    last = {r["player"]: r for r in rows if r["hand"] == "3"}
    assert last["<b>&Bob"]["total_points"] == "30" and last["<b>&Bob"]["money_cents"] == "1500"
    assert last["Alice"]["points"] == "0" and last["Alice"]["voided"] == "1"


@pytest.mark.parametrize(("payload", "reason"), [
    (b"\xff", "not a JSON"),
    (b"[]", "not a Mahjong Ledger export"),
    (json.dumps({"format": "mjledger-session/1", "variant": "luzhou", "players": ["a"]}).encode(),
     "players"),
    (json.dumps({"format": "mjledger-session/1", "variant": "luzhou", "players": list("abcd"),
                 "hands": [{"record": {"variant": "luzhou", "events": [
                     {"type": "win", "by": "discard", "from": 1, "winners": [{"seat": 0}]}]}}]}
                ).encode(), "hand 1: events[0].winners[0]"),
    (json.dumps({"format": "mjledger-session/1", "variant": "mahjong", "players": list("abcd")}
                ).encode(), "unknown variant 'mahjong'"),
])
def test_bad_files_are_refused_with_the_reason(payload: bytes, reason: str) -> None:
    with pytest.raises(ImportError_, match=reason.replace("[", r"\[").replace("]", r"\]")):
        parse_import(payload)


def test_streamed_files_in_batches_match_the_whole_documents(tmp_path) -> None:
    """/export writes a batch of hands at a time: the same CSV rows (the JSON document built
    piece by piece is checked against to_json in test_export_cache)."""
    all_hands = hands()
    with (tmp_path / "x.csv").open("w", newline="") as c:
        as_csv = CsvWriter(c, PLAYERS, 50)
        for batch in (all_hands[:2], all_hands[2:]):
            as_csv.write(batch)
    assert (tmp_path / "x.csv").read_bytes().decode() == to_csv(PLAYERS, all_hands, 50)


def test_an_import_with_rules_scoring_refuses_says_which() -> None:
    doc = to_json("luzhou", {"cap_applies": "sometimes"}, 0, PLAYERS, [])
    with pytest.raises(ImportError_) as exc:
        parse_import(json.dumps(doc).encode())
    assert exc.value.msgid == "the session's rules: {reason}"
    assert exc.value.scoring is not None and exc.value.scoring.field == "rules.cap_applies"
