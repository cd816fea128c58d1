"""Why a hand or a tap was refused, told in the chat's language with players' names."""

from __future__ import annotations

import json

import pytest

from bot.chat.scope import refusal
from bot.view.export import ImportError_, parse_import
from bot.view.i18n import translator
from bot.view.render import reason
from db import AlreadyVoided, SeatTaken, StoreError
from scoring import ScoringError, score

NAMES = ["阿明", "小红", "老王", "<Zhang>"]


def refused(record: dict) -> ScoringError:
    with pytest.raises(ScoringError) as exc:
        score(record)
    return exc.value


def test_a_seat_in_the_reason_is_the_player() -> None:
    exc = refused({"variant": "luzhou", "events": [
        {"type": "win", "by": "discard", "from": 1, "winners": [{"seat": 1}]}]})
    assert str(exc) == "events[0]: seat 1 cannot win off its own tile"  # the CLI's English
    assert reason(translator("zh-Hans"), "zh-Hans", exc, NAMES) == "南 小红 不能胡自己打出的牌"
    assert reason(translator("en"), "en", exc, NAMES) == "South 小红 cannot win off its own tile"


def test_several_seats_are_listed_in_the_chat_language() -> None:
    exc = refused({"variant": "luzhou", "events": [
        {"type": "win", "by": "self_draw", "winners": [{"seat": 0}]},
        {"type": "exhausted", "ready": {"1": None}}]})
    assert exc.params == {"seats_missing": [2, 3]}
    text = reason(translator("zh-Hant"), "zh-Hant", exc, NAMES)
    assert "西 老王、北 <Zhang>" in text and "seat" not in text
    assert "West 老王, North <Zhang>" in reason(translator("en"), "en", exc, NAMES)


@pytest.mark.parametrize("record", [
    {"variant": "guiyang", "events": [{"type": "win", "by": "discard", "from": 0,
                                       "winners": [{"seat": 1}]}]},  # plain 平胡 off a discard
    {"variant": "hainan", "events": [{"type": "win", "by": "discard", "from": 0,
                                      "winners": [{"seat": 1}]}]},  # no 番
    {"variant": "cixi", "events": [{"type": "false_win", "seat": 1}]},  # the hand has no end
    {"variant": "luzhou", "events": [{"type": "exhausted", "ready": {
        "0": "flower_dog", "1": None, "2": None, "3": None}}]},  # a ready entry of another kind
    {"variant": "luzhou", "dealer": 9},
    {"variant": "cixi", "rules": {"level_points": "many"}},
])
def test_refusals_read_in_chinese(record: dict) -> None:
    exc = refused(record)
    for lang in ("zh-Hans", "zh-Hant"):
        text = reason(translator(lang), lang, exc, NAMES)
        assert text != exc.message and not any(w in text for w in ("seat", "must", "cannot")), text


def test_store_refusals_are_translated() -> None:
    assert refusal(translator("zh-Hant"), SeatTaken("seat 2 is taken")) == "這個座位已經有人了。"
    assert refusal(translator("zh-Hans"), AlreadyVoided("hand 3 is already voided")) == "这局已经撤销过了。"
    assert refusal(translator("en"), StoreError("disk full")) == ("That could not be saved; "
                                                                  "nothing was changed.")


def test_an_imported_hand_the_rules_refuse_carries_the_reason_and_the_players() -> None:
    doc = {"format": "mjledger-session/1", "variant": "luzhou", "players": NAMES, "hands": [
        {"record": {"variant": "luzhou", "events": [
            {"type": "win", "by": "discard", "from": 2, "winners": [{"seat": 2}]}]}}]}
    with pytest.raises(ImportError_) as exc:
        parse_import(json.dumps(doc).encode())
    err = exc.value
    assert err.msgid == "hand {n}: {reason}" and err.kwargs == {"n": 1}
    assert err.scoring is not None and list(err.players) == NAMES
    t = translator("zh-Hans")
    assert t(err.msgid, n=1, reason=reason(t, "zh-Hans", err.scoring, err.players)) == (
        "第 1 局：西 老王 不能胡自己打出的牌")
