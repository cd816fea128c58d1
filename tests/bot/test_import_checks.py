"""/import checks the whole file before anything is stored; typed numbers and names are checked
before they are used."""

from __future__ import annotations

import json
from typing import Any

import pytest

from bot.plumbing.limits import (
    MAX_IMPORT_BYTES,
    MAX_IMPORT_HANDS,
    MAX_PAYMENT_CENTS,
    clip,
    has_foreign_digits,
    parse_amount,
    visible_name,
)
from bot.view.export import ImportError_, parse_import

WIN = {"variant": "guiyang", "events": [{"type": "win", "by": "self_draw",
                                        "winners": [{"seat": 0}]}]}


def doc(**over: Any) -> bytes:
    base: dict[str, Any] = {"format": "mjledger-session/1", "variant": "guiyang",
                            "players": ["Ann", "Bo", "Cy", "Di"], "stake_cents": 50,
                            "hands": [{"seq": 1, "record": WIN}, {"seq": 2, "record": WIN}]}
    base.update(over)
    return json.dumps(base).encode()


def refused(data: bytes) -> str:
    with pytest.raises(ImportError_) as exc:
        parse_import(data)
    return exc.value.msgid


def test_a_good_file_parses() -> None:
    imported = parse_import(doc())
    assert imported.players == ("Ann", "Bo", "Cy", "Di") and len(imported.hands) == 2


@pytest.mark.parametrize(("players", "msgid"), [
    (["Ann", "ann", "Cy", "Di"], "players: the four names must differ (ignoring case)"),
    (["Ann", " \u3000 ", "Cy", "Di"], "players: a name cannot be blank"),
    (["Ann", "\u3164", "Cy", "Di"], "players: a name cannot be blank"),
    (["Ann", "x" * 65, "Cy", "Di"], "players: the name “{name}” is longer than {max} characters"),
    (["Ann", "Bo", "Cy"], "players: four names expected"),
])
def test_names_are_checked(players: list[str], msgid: str) -> None:
    assert refused(doc(players=players)) == msgid


def test_sequence_numbers_are_unique() -> None:
    assert refused(doc(hands=[{"seq": 1, "record": WIN}, {"seq": 1, "record": WIN}])) == \
        "hand {n}: seq {seq} appears twice"


def test_numbers_are_in_range() -> None:
    big = json.loads(json.dumps(WIN))
    big["events"][0]["winners"][0]["seat"] = 10**30
    assert refused(doc(hands=[{"record": big}])) == "hand {n}: the number {value} is out of range"
    assert refused(doc(stake_cents=10**20)) == \
        "stake_cents must be a whole number of cents from 0 to {max}"


def test_size_and_hand_count_are_limited() -> None:
    assert refused(b" " * (MAX_IMPORT_BYTES + 1)) == "the file is larger than {max} bytes"
    many = [{"seq": i + 1, "record": WIN} for i in range(MAX_IMPORT_HANDS + 1)]
    assert refused(doc(hands=many)) == "the file has {n} hands; at most {max} can be imported"


def test_every_hand_must_score() -> None:
    bad = {"variant": "guiyang", "events": [{"type": "win", "by": "discard", "from": 3,
                                            "winners": [{"seat": 3}]}]}
    assert refused(doc(hands=[{"record": WIN}, {"record": bad}])) == "hand {n}: {reason}"


@pytest.mark.parametrize("text", ["１２", "²", "1²", "٣", "12.5.1", "-3", "0", "1e3", ""])
def test_amounts_are_plain_ascii_numbers(text: str) -> None:
    with pytest.raises(ValueError):
        parse_amount(text, MAX_PAYMENT_CENTS)


def test_amounts_have_a_bound() -> None:
    assert parse_amount("12.5", MAX_PAYMENT_CENTS) == 1250
    assert parse_amount(str(MAX_PAYMENT_CENTS // 100), MAX_PAYMENT_CENTS) == MAX_PAYMENT_CENTS
    with pytest.raises(ValueError):
        parse_amount(str(MAX_PAYMENT_CENTS // 100 + 1), MAX_PAYMENT_CENTS)
    with pytest.raises(ValueError):
        parse_amount("9" * 40, MAX_PAYMENT_CENTS)


def test_helpers() -> None:
    assert has_foreign_digits("１２") and has_foreign_digits("x²") and not has_foreign_digits("12 小二")
    assert visible_name("  a \n b ") == "a b" and visible_name("\u200b\u3164 \u2800") == ""
    assert len(clip("x" * 5000)) == 40 and clip("short") == "short"
