"""The export cache: appending hands a few at a time gives the same files as writing them all at
once; torn appends, other names and the upload limit are handled."""

from __future__ import annotations

import gzip
import json
from pathlib import Path

import pytest

from bot.export_cache import SessionCache, content_key
from bot.view.export import ExportedHand, ImportError_, parse_import, to_csv, to_json
from scoring import score

PLAYERS = ["Alice", "<b>&Bob", "卡罗", "Dan"]
RULES: dict = {}


def many(n: int) -> list[ExportedHand]:
    out = []
    for i in range(n):
        winner = i % 4
        record = {"variant": "luzhou", "dealer": winner, "dealer_streak": 1, "round_wind": 0,
                  "events": [{"type": "win", "by": "self_draw", "winners": [{"seat": winner}]},
                             {"type": "exhausted", "ready": {str(s): {} for s in range(4) if s != winner}}]}
        voided = i % 7 == 3
        out.append(ExportedHand(i + 1, record, score(record).to_dict(), voided,
                                "typo" if voided else None))
    return out


def cache(tmp_path: Path, players: list[str] = PLAYERS, stake: int = 25) -> SessionCache:
    key = content_key("2026-01-01 00:00:00", "luzhou", RULES, stake, players)
    c = SessionCache(tmp_path / "cache", 7, key, players, stake)
    c.release(c.acquire())  # makes the directory
    c.load()
    return c


def expected(hands: list[ExportedHand], stake: int = 25) -> tuple[bytes, bytes]:
    csv_text = "\ufeff" + to_csv(PLAYERS, hands, stake)
    doc = to_json("luzhou", RULES, stake, PLAYERS, hands)
    return csv_text.encode(), json.dumps(doc, ensure_ascii=False).encode()


def files(c: SessionCache, out: Path, limit: int | None = None) -> tuple[bytes, bytes, list[str]]:
    out.mkdir(exist_ok=True)
    kwargs = {} if limit is None else {"limit": limit}
    paths = c.write_files(out, "x", "luzhou", RULES, **kwargs)
    data = [p.read_bytes() for p in paths]
    data = [gzip.decompress(d) if p.name.endswith(".gz") else d for p, d in zip(paths, data, strict=True)]
    return data[0], data[1], [p.name for p in paths]


@pytest.mark.parametrize("limit", [None, 10])
def test_appending_in_pieces_gives_the_whole_export(tmp_path: Path, limit: int | None) -> None:
    hands = many(40)
    c = cache(tmp_path)
    for start, end in [(0, 1), (1, 13), (13, 14), (14, 40)]:
        c.append(hands[start:end])
        c.save(0)
    csv_data, json_data, names = files(c, tmp_path / "out", limit)
    want_csv, want_json = expected(hands)
    assert csv_data == want_csv
    assert json.loads(json_data) == json.loads(want_json)
    assert names == (["x.csv", "x.json"] if limit is None else ["x.csv.gz", "x.json.gz"])
    back = parse_import(json_data)  # /import reads what /export writes
    assert [h.seq for h in back.hands] == list(range(1, 41))
    assert [h.voided for h in back.hands] == [h.voided for h in hands]


def test_a_cache_survives_a_new_process_and_drops_a_torn_append(tmp_path: Path) -> None:
    hands = many(10)
    c = cache(tmp_path)
    c.append(hands[:6])
    c.save(5)
    c.append(hands[6:])  # never saved: the process died here
    again = cache(tmp_path)
    assert again.meta.last_seq == 6 and again.meta.live_mark == 5 and again.meta.hands == 6
    again.append(hands[6:])
    again.save(0)
    _, json_data, _ = files(again, tmp_path / "out")
    assert [h["seq"] for h in json.loads(json_data)["hands"]] == list(range(1, 11))


def test_other_names_or_stake_start_the_cache_over(tmp_path: Path) -> None:
    c = cache(tmp_path)
    c.append(many(3))
    c.save(3)
    assert cache(tmp_path).meta.last_seq == 3
    assert cache(tmp_path, stake=50).meta.last_seq == 0
    assert cache(tmp_path, players=["A", "B", "C", "D"]).meta.hands == 0


def test_import_reads_a_gzipped_export_and_refuses_a_gzip_bomb(tmp_path: Path) -> None:
    c = cache(tmp_path)
    c.append(many(5))
    c.save(0)
    paths = c.write_files(tmp_path, "x", "luzhou", RULES, limit=10)
    assert len(parse_import(paths[1].read_bytes()).hands) == 5
    bomb = gzip.compress(b" " * 5_000_000)
    with pytest.raises(ImportError_, match="larger than"):
        parse_import(bomb)
    with pytest.raises(ImportError_, match="not a JSON file"):
        parse_import(b"\x1f\x8b not really gzip")


def test_a_hand_voided_after_it_was_written_is_written_again_from_its_batch(tmp_path: Path) -> None:
    hands = many(30)
    c = cache(tmp_path)
    for start, end in [(0, 10), (10, 20), (20, 30)]:
        c.append(hands[start:end])
    c.save(0)
    voided = [*hands[:14], ExportedHand(15, hands[14].record, hands[14].outcome, True, "late"),
              *hands[15:]]
    c = cache(tmp_path)
    c.rewind(15)
    assert c.meta.last_seq == 10  # hands 11-20 are written again, 1-10 kept
    c.append(voided[10:])
    c.save(0)
    csv_data, json_data, _ = files(c, tmp_path / "out")
    want_csv, want_json = expected(voided)
    assert csv_data == want_csv and json.loads(json_data) == json.loads(want_json)
    c.rewind(1)
    assert c.meta.hands == 0 and c.csv_path.stat().st_size == 0
