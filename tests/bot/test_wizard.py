"""The hand wizard without Telegram: taps in, draft and record out."""

from __future__ import annotations

import contextlib
import copy
import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bot.forms import FormError
from bot.oneline import LineError, parse_hu
from bot.wizard import Ctx, new_draft, press, screen
from scoring import IncompleteHand, all_variants, get_variant, score

NAMES = ["Alice", "<b>&Bob", "Carol", "Dan"]


def make_ctx(variant: str = "luzhou", lang: str = "en", **base: object) -> Ctx:
    v = get_variant(variant)
    record = {"variant": variant, "rules": {}, "dealer": 0, "dealer_streak": 1, "round_wind": 0,
              **base}
    return Ctx(v, lang, list(NAMES), record)


def tap(draft: dict, ctx: Ctx, data: str) -> str | None:
    _, _, op, *rest = data.split(":")
    return press(draft, ctx, op, *rest[:2])


def buttons(draft: dict, ctx: Ctx) -> list[tuple[str, str]]:
    return [(b.text, b.data) for row in screen(draft, ctx, 1).rows for b in row]


def find(draft: dict, ctx: Ctx, text: str) -> str:
    for label, data in buttons(draft, ctx):
        if text in label:
            return data
    raise AssertionError(f"no button {text!r} in {buttons(draft, ctx)}")


def test_luzhou_example_1_by_taps_scores_like_the_rules_file() -> None:
    ctx, d = make_ctx(), new_draft()
    tap(d, ctx, find(d, ctx, "Self-draw"))
    tap(d, ctx, find(d, ctx, "Alice"))
    plus = [data for label, data in buttons(d, ctx) if label == "+"]
    tap(d, ctx, plus[0])  # one 闺
    tap(d, ctx, find(d, ctx, "Add"))
    tap(d, ctx, find(d, ctx, "Win on discard"))
    tap(d, ctx, find(d, ctx, "Bob"))
    tap(d, ctx, find(d, ctx, "Next"))  # several may win on one discard in Luzhou
    tap(d, ctx, find(d, ctx, "Carol"))  # the discarder
    tap(d, ctx, find(d, ctx, "plain"))  # cycle the form to 大对子
    tap(d, ctx, find(d, ctx, "Add"))
    tap(d, ctx, find(d, ctx, "Self-draw"))
    tap(d, ctx, find(d, ctx, "Dan"))
    tap(d, ctx, find(d, ctx, "pure suit"))
    tap(d, ctx, find(d, ctx, "Add"))
    tap(d, ctx, find(d, ctx, "Preview"))
    assert d["step"] == "preview"
    assert "Confirm" in " ".join(label for label, _ in buttons(d, ctx))
    assert tap(d, ctx, find(d, ctx, "Confirm")) == "confirm"
    out = score(ctx.record(d["events"])).to_dict()
    assert out["deltas"] == [15, 0, -20, 5]
    assert d["events"][1] == {"type": "win", "by": "discard", "from": 2,
                              "winners": [{"seat": 1, "form": "all_pungs"}]}


def test_invalid_event_is_refused_at_its_step_with_the_reason() -> None:
    ctx, d = make_ctx(), new_draft()
    tap(d, ctx, find(d, ctx, "Win on discard"))
    tap(d, ctx, find(d, ctx, "Bob"))
    tap(d, ctx, find(d, ctx, "Next"))
    tap(d, ctx, find(d, ctx, "Alice"))
    tap(d, ctx, find(d, ctx, "Add"))  # plain 平胡 off a discard: not a legal win
    assert d["step"] == "form" and d["events"] == []
    assert "one_ke_discard" in d["error"]
    assert "Not allowed" in screen(d, ctx, 1).text


def test_names_are_escaped_everywhere() -> None:
    ctx, d = make_ctx(), new_draft()
    tap(d, ctx, find(d, ctx, "Self-draw"))
    tap(d, ctx, find(d, ctx, "Bob"))
    tap(d, ctx, find(d, ctx, "Add"))
    text = screen(d, ctx, 1).text
    assert "&lt;b&gt;&amp;Bob" in text and "<b>&Bob" not in text


def test_forged_buttons_change_nothing() -> None:
    ctx, d = make_ctx(), new_draft()
    before = copy.deepcopy(d)
    for data in ["h:1:zz", "h:1:e:99", "h:1:w:x", "h:1:e:-1"]:
        with pytest.raises(FormError):
            tap(d, ctx, data)
        d["error"] = None
        assert d == before
    tap(d, ctx, "h:1:w:s")
    for data in ["h:1:ws:7", "h:1:ws:a"]:
        with pytest.raises(FormError):
            tap(d, ctx, data)
    tap(d, ctx, "h:1:ws:0")
    snapshot = copy.deepcopy(d)
    for data in ["h:1:t:99", "h:1:t:4.9.1", "h:1:i:4.0.2:x", "h:1:t:4.0.2", "h:1:o:4.0.1",
                 "h:1:c:1.2.3.4"]:
        with pytest.raises(FormError):
            tap(d, ctx, data)
        d["error"] = None
        assert d == snapshot


def test_a_hint_is_not_called_a_refusal() -> None:
    ctx, d = make_ctx(), new_draft()
    press(d, ctx, "p")  # a stale Preview button: nothing is entered
    assert d["error"] == "Nothing entered yet: add what happened first."
    tap(d, ctx, find(d, ctx, "Win on discard"))
    tap(d, ctx, find(d, ctx, "Next"))  # nobody chosen yet
    text = screen(d, ctx, 1).text
    assert "⚠️ Choose who won." in text and "Not allowed" not in text


def test_cancel_and_back() -> None:
    ctx, d = make_ctx(), new_draft()
    tap(d, ctx, "h:1:w:d")
    tap(d, ctx, "h:1:ws:1")
    tap(d, ctx, "h:1:wn")
    assert d["step"] == "from"
    tap(d, ctx, "h:1:b")
    assert d["step"] == "winners"
    tap(d, ctx, "h:1:b")
    assert d["step"] == "main" and d["pending"] is None
    assert tap(d, ctx, "h:1:q") == "cancel"


def test_exhausted_wall_ready_map_for_seats_still_in() -> None:
    ctx, d = make_ctx(), new_draft()
    tap(d, ctx, "h:1:w:s")
    tap(d, ctx, "h:1:ws:0")
    tap(d, ctx, "h:1:d")
    tap(d, ctx, "h:1:x")
    assert d["pending"]["ready"] == {"1": None, "2": None, "3": None}
    labels = [label for label, _ in buttons(d, ctx)]
    assert not any(label.startswith("East") for label in labels)
    tap(d, ctx, find(d, ctx, "South"))  # not ready → ready
    tap(d, ctx, find(d, ctx, "✎"))  # edit seat 1's ready hand
    tap(d, ctx, find(d, ctx, "plain"))  # → 大对子
    tap(d, ctx, find(d, ctx, "Done"))
    tap(d, ctx, find(d, ctx, "West"))
    tap(d, ctx, find(d, ctx, "Add"))
    assert d["events"][-1] == {"type": "exhausted", "ready": {
        "1": {"form": "all_pungs"}, "2": {}, "3": None}}
    out = score(ctx.record(d["events"])).to_dict()
    assert out["deltas"] == [6, 8, 0, -14]


def test_ready_map_offers_flower_cat_after_a_ready_hand() -> None:
    ctx, d = make_ctx(), new_draft()
    tap(d, ctx, "h:1:w:s")
    tap(d, ctx, "h:1:ws:0")
    tap(d, ctx, "h:1:d")
    tap(d, ctx, "h:1:x")
    tap(d, ctx, find(d, ctx, "South"))  # not ready → ready
    tap(d, ctx, find(d, ctx, "South"))  # ready → 花猫
    south = [label for label, _ in buttons(d, ctx) if label.startswith("South")]
    assert len(south) == 1 and south[0].endswith(": ✗ flower cat (three suits)"), south
    assert not any(label == "✎" for label, _ in buttons(d, ctx))  # a 花猫 has no hand to edit
    tap(d, ctx, find(d, ctx, "Add"))
    assert d["events"][-1] == {"type": "exhausted", "ready": {"1": "flower_cat", "2": None,
                                                              "3": None}}
    assert score(ctx.record(d["events"])).deltas == (6, -2, -2, -2)


def _win_form(variant: str, by: str, frm: str | None, lang: str = "en") -> list[str]:
    ctx, d = make_ctx(variant, lang), new_draft()
    tap(d, ctx, f"h:1:w:{by}")
    tap(d, ctx, "h:1:ws:1")
    if ctx.variant.multi_winner and by != "s":
        tap(d, ctx, "h:1:wn")
    if frm is not None:
        tap(d, ctx, f"h:1:wf:{frm}")
    return [label for label, _ in buttons(d, ctx)]


def test_new_winner_fields_appear_for_their_kind_of_win_with_translated_labels() -> None:
    # Cixi: 飞马 is a self-draw; who broke down to a lone 龙 is asked on a discard only
    assert "▫️ flying horse" in _win_form("cixi", "s", None)
    assert "broke down to a lone joker: who pays" not in _win_form("cixi", "s", None)
    discard_form = _win_form("cixi", "d", "2")
    assert "▫️ flying horse" not in discard_form
    assert "broke down to a lone joker: who pays" in discard_form
    assert "飛馬放炮的一家" in _win_form("cixi", "d", "2", "zh-Hant")
    # Feibao: robs_earlier_kongs belongs to a robbed-kong win
    robbing = "▫️ 前杠也可抢（杠分全无）"
    assert robbing in _win_form("feibao", "r", "3", "zh-Hans")
    assert robbing not in _win_form("feibao", "s", None, "zh-Hans")


# -- every variant: a random walk over the buttons on screen -----------------------------------

VISIBLE = re.compile(r"<[^>]+>")


@pytest.mark.parametrize("variant", sorted(all_variants()))
@settings(max_examples=40)
@given(data=st.data())
def test_random_taps_stay_within_telegram_limits(variant: str, data: st.DataObject) -> None:
    ctx, d = make_ctx(variant), new_draft()
    for _ in range(data.draw(st.integers(1, 25))):
        view = screen(d, ctx, 1)
        assert len(VISIBLE.sub("", view.text)) <= 4096
        flat = [b for row in view.rows for b in row]
        assert flat and len(flat) <= 100
        for b in flat:
            assert 1 <= len(b.data.encode()) <= 64, b.data
        choice = data.draw(st.sampled_from(flat))
        before = copy.deepcopy(d)
        try:
            action = tap(d, ctx, choice.data) if not choice.data.endswith(":_") else None
        except FormError:
            d["error"] = None
            before["error"] = None
            assert d == before  # a refused button changes nothing
            continue
        if action == "cancel":
            break
        if action == "confirm":
            out = score(ctx.record(d["events"])).to_dict()
            assert sum(out["deltas"]) == 0
            break
        if d["step"] == "main":  # every committed event list is valid, if maybe unfinished
            with contextlib.suppress(IncompleteHand):
                score(ctx.record(d["events"]))


# -- one-line entry ----------------------------------------------------------------------------

def test_one_line_grammar() -> None:
    v = get_variant("luzhou")
    assert parse_hu(v, "2 zimo all_pungs pure".split()) == {
        "type": "win", "by": "self_draw", "winners": [{"seat": 2, "form": "all_pungs",
                                                        "pure": True}]}
    assert parse_hu(v, "2 from 0 seven_pairs".split()) == {
        "type": "win", "by": "discard", "from": 0, "winners": [{"seat": 2, "form": "seven_pairs"}]}
    assert parse_hu(v, "n quads=2 pure kong".split()) == {
        "type": "win", "by": "self_draw", "after_kong": True,
        "winners": [{"seat": 3, "quads": 2, "pure": True}]}
    assert parse_hu(v, "1 all_pungs + 3 pure rob 西".split()) == {
        "type": "win", "by": "robbed_kong", "from": 2,
        "winners": [{"seat": 1, "form": "all_pungs"}, {"seat": 3, "pure": True}]}


@pytest.mark.parametrize("line", ["", "5 pure", "2 sparkly", "2 from", "2 quads=lots",
                                  "2 form=triangle"])
def test_one_line_errors_name_the_problem(line: str) -> None:
    with pytest.raises(LineError):
        parse_hu(get_variant("luzhou"), line.split())


def test_negative_field_references_are_refused() -> None:
    ctx, d = make_ctx(), new_draft()
    tap(d, ctx, "h:1:w:s")
    tap(d, ctx, "h:1:ws:0")
    for data in ["h:1:t:-1", "h:1:t:4.-1.1", "h:1:i:4.0.-7:+"]:
        with pytest.raises(FormError):
            tap(d, ctx, data)


# -- the other variants' controls ---------------------------------------------------------------

def in_row(draft: dict, ctx: Ctx, anchor: str, text: str, *, below: bool = False) -> str:
    """The data of button `text` in the row of the button starting with `anchor` (or under it)."""
    rows = screen(draft, ctx, 1).rows
    at = [i for i, row in enumerate(rows) if any(b.text.startswith(anchor) for b in row)]
    assert len(at) == 1, (anchor, [[b.text for b in r] for r in rows])
    row = rows[at[0] + below]
    found = [b.data for b in row if b.text == text] or [b.data for b in row if text in b.text]
    assert len(found) == 1, (text, [b.text for b in row])
    return found[0]


def labels(draft: dict, ctx: Ctx) -> list[str]:
    return [label for label, _ in buttons(draft, ctx)]


def test_event_buttons_read_as_headings() -> None:
    ctx, d = make_ctx("guiyang"), new_draft()
    assert {"Kong", "Chickens", "Following the dealer", "Dead hand (相公)"} <= set(labels(d, ctx))


@pytest.mark.parametrize("variant", ["guiyang", "hainan", "feibao"])
def test_an_exposed_kong_asks_who_discarded_it(variant: str) -> None:
    ctx, d = make_ctx(variant), new_draft()
    tap(d, ctx, find(d, ctx, "Kong"))
    tap(d, ctx, in_row(d, ctx, "Seat", "North", below=True))
    tap(d, ctx, find(d, ctx, "Kind"))
    assert "From" not in labels(d, ctx)  # a concealed kong has no discarder
    tap(d, ctx, find(d, ctx, "🔄"))
    tap(d, ctx, find(d, ctx, "🔄"))
    assert "exposed kong 🔄" in [label.lower() for label in labels(d, ctx)]
    tap(d, ctx, in_row(d, ctx, "From", "East", below=True))
    tap(d, ctx, find(d, ctx, "Add"))
    assert d["error"] is None and d["events"] == [
        {"type": "kong", "seat": 3, "kind": "exposed", "from": 0}]
    assert "Kong: <b>North Dan</b> exposed kong ← East" in screen(d, ctx, 1).text


def test_a_kong_that_is_no_longer_exposed_forgets_its_discarder() -> None:
    ctx, d = make_ctx("guiyang"), new_draft()
    tap(d, ctx, find(d, ctx, "Kong"))
    tap(d, ctx, in_row(d, ctx, "Seat", "South", below=True))
    for _ in range(3):
        tap(d, ctx, find(d, ctx, "🔄"))  # → exposed
    tap(d, ctx, in_row(d, ctx, "From", "West", below=True))
    tap(d, ctx, find(d, ctx, "🔄"))  # → concealed again
    assert d["pending"]["from"] is None
    tap(d, ctx, find(d, ctx, "Add"))
    assert d["events"] == [{"type": "kong", "seat": 1, "kind": "concealed"}]


def test_values_and_flags_take_the_terms_of_their_event() -> None:
    # Hainan's "concealed" is a concealed hand (门清); a kong's kind is a concealed kong (暗杠)
    ctx, d = make_ctx("hainan"), new_draft()
    tap(d, ctx, find(d, ctx, "Kong"))
    tap(d, ctx, find(d, ctx, "Kind"))
    assert "concealed kong 🔄" in labels(d, ctx)
    zh = make_ctx("hainan", lang="zh-Hans")
    assert "暗杠 🔄" in labels(d, zh)
    # Feibao's kong flag "jing" is a kong of 精 (宝杠), not "with jing" (有宝) as on a winner
    ctx, d = make_ctx("feibao"), new_draft()
    tap(d, ctx, find(d, ctx, "Kong"))
    assert "▫️ jing kong" in labels(d, ctx)
    # a kong's own flags keep their common labels ("robbed_kong" is a kind of win)
    assert "▫️ Robbed" in labels(d, ctx)


def test_winners_hold_chickens_too_and_the_flipped_tile_is_picked_by_name() -> None:
    ctx, d = make_ctx("guiyang"), new_draft()
    tap(d, ctx, find(d, ctx, "Self-draw"))
    tap(d, ctx, find(d, ctx, "Bob"))
    tap(d, ctx, find(d, ctx, "Add"))
    tap(d, ctx, find(d, ctx, "Ready"))
    assert not any("South" in label for label in labels(d, ctx))  # Bob won: not "ready"
    tap(d, ctx, find(d, ctx, "West"))
    tap(d, ctx, find(d, ctx, "Add"))
    tap(d, ctx, find(d, ctx, "Chickens"))
    tap(d, ctx, find(d, ctx, "Flipped tile"))
    tiles = [label for label in labels(d, ctx) if _is_tile(label)]
    assert len(tiles) == len(set(tiles)) == 27  # each tile once, named with its suit
    tap(d, ctx, find(d, ctx, "5p"))
    tap(d, ctx, find(d, ctx, "Bob"))  # the winner's own chickens
    tap(d, ctx, in_row(d, ctx, "South <b>&Bob", "✎"))
    tap(d, ctx, in_row(d, ctx, "1 bamboo", "+"))
    tap(d, ctx, find(d, ctx, "Done"))
    tap(d, ctx, in_row(d, ctx, "hero", "East", below=True))  # seat 0 is somebody
    tap(d, ctx, find(d, ctx, "Add"))
    assert d["error"] is None
    assert d["events"][-1] == {"type": "chickens", "flipped": "5p", "hero": 0,
                               "seats": {"1": {"yaoji": 1}}}
    assert "Chickens: Flipped tile 5p, hero chicken East, South 1 bamboo×1" in screen(d, ctx, 1).text


def _is_tile(text: str) -> bool:
    return len(text) == 2 and text[0] in "123456789" and text[1] in "mps"


def test_feibao_fed_counts_come_and_go_and_leave_out_the_winner() -> None:
    ctx, d = make_ctx("feibao"), new_draft()
    tap(d, ctx, find(d, ctx, "Self-draw"))
    tap(d, ctx, find(d, ctx, "Dan"))
    fed = labels(d, ctx)[labels(d, ctx).index("Melds fed by (三凑承包)") + 1:]
    assert not any("North" in label for label in fed)  # the winner does not feed himself
    tap(d, ctx, in_row(d, ctx, "South", "+"))
    assert d["pending"]["winners"][0]["fed"] == {"1": 1}  # listed at its smallest count, 1
    tap(d, ctx, in_row(d, ctx, "South", "−"))
    assert d["pending"]["winners"][0]["fed"] == {}  # and off the map again below it
    for _ in range(3):
        tap(d, ctx, in_row(d, ctx, "East", "+"))
    tap(d, ctx, find(d, ctx, "plain"))
    tap(d, ctx, find(d, ctx, "seven pairs"))  # plain → seven pairs → all pungs
    tap(d, ctx, find(d, ctx, "Add"))
    assert d["error"] is None
    assert d["events"] == [{"type": "win", "by": "self_draw", "winners": [
        {"seat": 3, "form": "all_pungs", "fed": {"0": 3}}]}]
    assert score(ctx.record(d["events"])).deltas == (-30, 0, 0, 30)  # 碰对 without 精: 3 × 10


def test_the_jing_bonus_counts_the_winner_and_names_zheng_and_fu() -> None:
    ctx, d = make_ctx("feibao"), new_draft()
    tap(d, ctx, find(d, ctx, "Self-draw"))
    tap(d, ctx, find(d, ctx, "Bob"))
    tap(d, ctx, find(d, ctx, "Add"))
    tap(d, ctx, find(d, ctx, "Jing bonus"))
    tap(d, ctx, find(d, ctx, "Bob"))
    tap(d, ctx, in_row(d, ctx, "South", "✎"))
    assert screen(d, ctx, 1).text.count("Jing bonus · South &lt;b&gt;&amp;Bob") == 1
    tap(d, ctx, in_row(d, ctx, "正精", "+"))
    tap(d, ctx, in_row(d, ctx, "正精", "+"))
    tap(d, ctx, in_row(d, ctx, "副精", "+"))
    tap(d, ctx, find(d, ctx, "Done"))
    tap(d, ctx, find(d, ctx, "Add"))
    assert d["events"][-1] == {"type": "jing_bonus", "seats": {"1": {"zheng": 2, "fu": 1}}}
    # 5 → 冲关 10; the only holder: 霸王 20 from each, on top of the plain self-draw's 2
    assert score(ctx.record(d["events"])).deltas == (-22, 66, -22, -22)


def test_a_required_count_starts_at_the_value_it_shows() -> None:
    ctx, d = make_ctx("feibao"), new_draft()
    tap(d, ctx, find(d, ctx, "Jing thrown"))
    assert "Count: 1" in labels(d, ctx)
    tap(d, ctx, find(d, ctx, "North"))
    tap(d, ctx, find(d, ctx, "Add"))
    assert d["error"] is None and d["events"] == [{"type": "fei_bao", "seat": 3, "count": 1}]
    assert "Jing thrown: <b>North Dan</b> Count×1" in screen(d, ctx, 1).text


def test_a_winners_own_seat_fields_leave_him_out() -> None:
    ctx, d = make_ctx("hainan"), new_draft()
    tap(d, ctx, find(d, ctx, "Win on discard"))
    tap(d, ctx, find(d, ctx, "Carol"))
    tap(d, ctx, find(d, ctx, "Dan"))
    rows = [[b.text for b in row] for row in screen(d, ctx, 1).rows]
    assert rows[rows.index(["pays for all"]) + 1] == ["East", "South", "North", "✅ —"]


@pytest.mark.parametrize(("variant", "by", "shown", "not_shown"), [
    ("hainan", "Self-draw", ["天胡", "花上开花", "地胡"], ["包牌"]),
    ("hainan", "Win on discard", ["包牌", "地胡"], ["天胡", "花上开花"]),
    ("cixi", "Self-draw", ["天胡", "抛花"], ["地胡"]),
    ("cixi", "Win on discard", ["地胡"], ["天胡", "抛花"]),
    ("luzhou", "Win on discard", ["地胡"], ["天胡"]),
])
def test_a_winner_is_offered_only_what_his_kind_of_win_can_have(
        variant: str, by: str, shown: list[str], not_shown: list[str]) -> None:
    ctx, d = make_ctx(variant, lang="zh-Hans"), new_draft()
    zh = {"Self-draw": "自摸", "Win on discard": "点炮"}[by]
    tap(d, ctx, find(d, ctx, zh))
    tap(d, ctx, find(d, ctx, "Carol"))
    if by != "Self-draw":
        if ctx.variant.multi_winner:
            tap(d, ctx, find(d, ctx, "下一步"))
        tap(d, ctx, find(d, ctx, "Dan"))
    assert d["step"] == "form"
    labels = " ".join(label for label, _ in buttons(d, ctx))
    assert all(w in labels for w in shown) and not any(w in labels for w in not_shown), labels


def test_a_robbed_kong_win_knows_whose_kong_it_was() -> None:
    ctx, d = make_ctx("hainan"), new_draft()
    tap(d, ctx, find(d, ctx, "Kong"))
    tap(d, ctx, in_row(d, ctx, "Seat", "West", below=True))
    tap(d, ctx, find(d, ctx, "Kind"))
    tap(d, ctx, find(d, ctx, "concealed kong"))  # → added
    tap(d, ctx, find(d, ctx, "Robbed"))
    tap(d, ctx, find(d, ctx, "Add"))
    tap(d, ctx, find(d, ctx, "Robbed kong"))
    tap(d, ctx, find(d, ctx, "Alice"))
    assert d["step"] == "form" and d["pending"]["from"] == 2
    tap(d, ctx, find(d, ctx, "Back"))
    assert d["step"] == "from"  # still the player's to change
    tap(d, ctx, find(d, ctx, "Carol"))
    tap(d, ctx, find(d, ctx, "Add"))
    assert score(ctx.record(d["events"])).deltas == (4, 0, -4, 0)


def test_false_win_names_its_seat_and_the_round_wind_shows() -> None:
    ctx, d = make_ctx("cixi", balances=[100] * 4, round_wind=1), new_draft()
    tap(d, ctx, find(d, ctx, "False win"))
    tap(d, ctx, find(d, ctx, "East"))
    tap(d, ctx, find(d, ctx, "Add"))
    text = screen(d, ctx, 1).text
    assert "False win: <b>East Alice</b>" in text and "Round wind: South" in text


def test_short_toggles_share_rows_and_long_ones_stand_alone() -> None:
    for lang, most in (("zh-Hans", 3), ("en", 2)):
        ctx, d = make_ctx("hainan", lang=lang), new_draft()
        tap(d, ctx, "h:1:w:s")
        tap(d, ctx, "h:1:ws:1")
        toggles = [[b.text for b in row] for row in screen(d, ctx, 1).rows
                   if all(b.data.split(":")[2] in ("t", "c") for b in row)]
        assert max(len(row) for row in toggles) == most, toggles
        assert sum(len(row) for row in toggles) == 15  # 杠上花 and the winner's 14 番 flags
    assert ["▫️ Won on a kong replacement (杠上花)"] in toggles  # too long to share a row


def test_an_event_with_nothing_to_fill_in_is_added_at_once() -> None:
    ctx, d = make_ctx("hainan"), new_draft()
    tap(d, ctx, find(d, ctx, "Exhausted wall"))
    assert d["step"] == "main" and d["events"] == [{"type": "exhausted"}]
    tap(d, ctx, find(d, ctx, "Exhausted wall"))  # refused: the hand is over; nothing half-open
    assert d["step"] == "main" and d["pending"] is None and len(d["events"]) == 1
    assert "already ended" in d["error"]


def test_only_the_wins_the_rules_allow_are_offered() -> None:
    plain = [label for label, _ in buttons(new_draft(), make_ctx("feibao"))]
    assert "Self-draw" in plain and "Robbed kong" in plain and "Win on discard" not in plain
    with pytest.raises(FormError):
        tap(new_draft(), make_ctx("feibao"), "h:1:w:d")
    house = make_ctx("feibao", rules={"discard_wins": True})
    assert "Win on discard" in [label for label, _ in buttons(new_draft(), house)]
