"""Entering a free-form hand (docs/rules/free.md): the /hu line of seats and points, a winner's
amount alone, the wizard's signed counters (controls), their rows and summary, and the refusal
of points off zero in each language."""

from __future__ import annotations

from typing import Any

import pytest

from bot.entry import controls
from bot.entry.ctx import Ctx
from bot.entry.hu import parse_wins
from bot.entry.hu.points import is_points, points_event
from bot.entry.hu.words import LineError
from bot.entry.record import hand_state
from bot.entry.screens import form_rows, summarize_event
from bot.plumbing.callbacks import Act, decode
from scoring import ScoringError, get_variant

FREE = get_variant("free")
NAMES: list[str | None] = ["张伟", "李四", "王芳", "Bob"]


def ctx(lang: str = "en") -> Ctx:
    return Ctx(FREE, lang, list(NAMES), {"variant": "free", "rules": {}, "dealer": 0,
                                          "dealer_streak": 1, "round_wind": 0})


@pytest.mark.parametrize(("line", "points"), [
    ("张伟 +12 李四 -4 王芳 -8 Bob 0", {"0": 12, "1": -4, "2": -8}),
    ("东+12 南−4 西－8", {"0": 12, "1": -4, "2": -8}),  # glued, the minus sign, full width
    ("bob -3, 张伟 3", {"0": 3, "3": -3}),  # any order, a comma, a name in any case
    ("0 5 1 -5", {"0": 5, "1": -5}),  # seats by number, unsigned points
])
def test_a_line_of_seats_and_points(line: str, points: dict[str, int]) -> None:
    assert parse_wins(FREE, line.split(), NAMES) == [{"type": "points", "points": points}]


@pytest.mark.parametrize(("line", "event"), [
    ("张伟 自摸 12分", {"type": "win", "by": "self_draw", "winners": [{"seat": 0, "amount": 12}]}),
    ("东 自摸 12", {"type": "win", "by": "self_draw", "winners": [{"seat": 0, "amount": 12}]}),
    ("李四 点炮 王芳 8分 三家都付", {"type": "win", "by": "discard", "from": 2,
                             "winners": [{"seat": 1, "amount": 8, "all_pay": True}]}),
    ("W from N 7 points", {"type": "win", "by": "discard", "from": 3,
                           "winners": [{"seat": 2, "amount": 7}]}),
    ("流局", {"type": "exhausted"}),
])
def test_a_winner_and_an_amount_or_no_result(line: str, event: dict[str, Any]) -> None:
    assert parse_wins(FREE, line.split(), NAMES) == [event]


@pytest.mark.parametrize(("line", "msgid"), [
    ("张伟 +12 张伟 -12", "“{word}” is named twice: give each seat's points once."),
    ("张伟 +12 李四", "“{word}” needs its points after it, e.g. +12 or -4."),
    ("张伟 +12 Eve -12", "“{token}” is not a seat: use a wind (东 南 西 北 or E S W N), 0–3 or a "
                        "player's name."),
])
def test_a_line_that_does_not_fit_says_which_word(line: str, msgid: str) -> None:
    with pytest.raises(LineError) as exc:
        parse_wins(FREE, line.split(), NAMES)
    assert exc.value.msgid == msgid


def test_other_styles_read_no_points_line() -> None:
    luzhou = get_variant("luzhou")
    assert points_event(luzhou) is None and not is_points(luzhou, ["东", "+12", "南", "-12"])
    assert points_event(FREE) == ("points", "points")


@pytest.mark.parametrize(("lang", "text"), [
    ("en", "Not allowed: the points add up to +4, not 0: someone has 4 too many"),
    ("zh-Hans", "各家得分加起来是 +4，不是 0：有人多记了 4 分"),
    ("zh-Hant", "各家得分加起來是 +4，不是 0：有人多記了 4 分"),
])
def test_points_off_zero_are_refused_in_the_chats_language(lang: str, text: str) -> None:
    c = ctx(lang)
    ended, exc = hand_state(c, [{"type": "points", "points": {"0": 12, "1": -4, "2": -4}}])
    assert not ended and isinstance(exc, ScoringError)
    assert text in c.explain(exc)


def test_a_points_hand_is_whole_on_its_own() -> None:
    assert hand_state(ctx(), [{"type": "points", "points": {"0": 1, "1": -1}}]) == (True, None)


def test_the_signed_counter_steps_by_one_and_ten_either_way_and_drops_zero() -> None:
    model = controls.event_model(FREE.events, "points")
    spec = controls.spec_named(model, "points")
    assert controls.signed_map(spec)
    obj = controls.blank(model)
    ref = str(controls.fields_of(model).index(spec))
    for arg in ("1--", "1-", "2++", "2+", "2+"):
        controls.apply(model, obj, "k", ref, arg)
    assert obj["points"] == {"1": -11, "2": 12}
    for _ in range(12):
        controls.apply(model, obj, "k", ref, "2-")
    assert obj["points"] == {"1": -11}  # back at 0: the seat leaves the map
    for bad in ("4+", "1*", "1+++", "+"):
        with pytest.raises(controls.FormError):
            controls.apply(model, obj, "k", ref, bad)
    for _ in range(20_000):  # clamped at the model's bound
        controls.apply(model, obj, "k", ref, "1--")
    assert obj["points"] == {"1": -99_999}


def test_the_counters_rows_show_the_sum_and_each_seat_signed() -> None:
    c = ctx()
    model = controls.event_model(FREE.events, "points")
    obj = {"type": "points", "points": {"0": 12, "3": -4}}
    rows = form_rows(c, model, obj, lambda act, *a: f"{act.name}:{a}", skip={"type"})
    labels = [[b.text for b in row] for row in rows]
    assert labels[0] == ["— points per seat · Σ +8 —"]
    assert labels[1:3] == [["East 张伟: +12"], ["−10", "−1", "+1", "+10"]]
    assert labels[3] == ["South 李四: ±0"] and labels[7] == ["North Bob: −4"]
    assert len(labels) == 9
    assert summarize_event(c, obj) == "Points per seat: East +12; North −4"


def test_a_ten_step_fits_the_callback_data() -> None:
    from bot.plumbing.callbacks import encode

    data = encode(Act.MAP_COUNT, (2**62, 999_999_999), "99.99.99", "3++")
    assert len(data.encode()) <= 64 and decode(data) is not None


def test_a_win_is_entered_by_its_amount_with_no_tile_keyboard() -> None:
    from bot.entry.controls import FormError as Stale
    from bot.entry.wizard.flow import new_draft, press, screen

    c = ctx()
    draft = new_draft()
    draft.entry = 7

    def tap(text: str) -> None:
        button = next(b for row in screen(draft, c).rows for b in row if b.text == text)
        tapped = decode(button.data)
        assert tapped is not None
        press(draft, c, tapped)

    tap("Self-draw")  # beside East 张伟
    labels = [b.text for row in screen(draft, c).rows for b in row]
    assert not any("tiles" in label for label in labels), labels
    assert "points: 1" in labels and "+10" in labels
    forged = decode(screen(draft, c).rows[0][0].data)
    assert forged is not None
    with pytest.raises(Stale, match="takes no tiles"):
        press(draft, c, type(forged)(Act.ENTER_TILES, (draft.entry, draft.rev), (0,)))
    for _ in range(2):
        tap("+10")
    tap("✔ Confirm")
    assert draft.events == [{"type": "win", "by": "self_draw", "winners": [{"seat": 0, "amount": 21}]}]
