"""The hand wizard without Telegram: taps in, draft and record out."""

from __future__ import annotations

import contextlib
import copy
import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bot.entry import controls
from bot.entry.controls import FormError
from bot.entry.ctx import Ctx
from bot.entry.hu import parse_wins
from bot.entry.hu.words import LineError, parse_hu
from bot.entry.keyboard import KeyRefused, ReadRefused
from bot.entry.record import hand_state
from bot.entry.screens import label as field_label
from bot.entry.screens import value_label
from bot.entry.wizard import flow, reading
from bot.entry.wizard.flow import HandDraft, new_draft, screen
from bot.plumbing.callbacks import Act, Family, Tap, decode, encode
from scoring import IncompleteHand, all_variants, get_variant, score
from tests.styles import every_style

NAMES = ["Alice", "<b>&Bob", "Carol", "Dan"]


def make_ctx(variant: str = "luzhou", lang: str = "en", **base: object) -> Ctx:
    v = get_variant(variant)
    record = {"variant": variant, "rules": {}, "dealer": 0, "dealer_streak": 1, "round_wind": 0,
              **base}
    return Ctx(v, lang, list(NAMES), record)


def decoded(draft: HandDraft, data: str) -> Tap:
    """A button's data, or the tests' short form of it ("h:1:wz:0", "k:t:5m": the action's code
    and fields) written for the draft's entry and screen; FormError for data no button carries,
    as the handler refuses it (a forged or stale tap)."""
    tap = decode(data)
    if tap is None:  # the short form: its head written here
        family, _, rest = data.partition(":")
        if family == "h":
            rest = rest.partition(":")[2]  # "h:1:wz:0": the 1 stands for the screen shown
            head = encode(Act.NOOP, (draft.entry or 0, draft.rev)).removesuffix(":_")
        else:
            head = encode(Act.KEYS_BACK, (draft.entry or 0,)).removesuffix(":b")
        tap = decode(f"{head}:{rest}")
    if tap is None:
        raise FormError(data)
    return tap


def tap(draft: HandDraft, ctx: Ctx, data: str) -> str | None:
    t = decoded(draft, data)
    if t.act.family is Family.KEYS:  # the tile keyboard's keys (bot/entry/keyboard.py)
        try:
            reading.key_press(draft, ctx, t.act, str(t.get("tile") or ""))
        except (KeyRefused, ReadRefused) as exc:
            raise FormError(t.act.name) from exc  # refused: the draft is as it was
        return None
    return flow.press(draft, ctx, t)


def press(draft: HandDraft, ctx: Ctx, code: str, *fields: str) -> str | None:
    """A wizard button by its code and fields: press(d, ctx, "wz", "1")."""
    return flow.press(draft, ctx, decoded(draft, ":".join(["h", "1", code, *fields])))


def key_press(draft: HandDraft, ctx: Ctx, code: str, tile: str = "") -> None:
    """A key of the tile keyboard by its code: key_press(d, ctx, "t", "5m")."""
    t = decoded(draft, ":".join(["k", code, *([tile] if tile else [])]))
    reading.key_press(draft, ctx, t.act, tile)


def buttons(draft: HandDraft, ctx: Ctx) -> list[tuple[str, str]]:
    return [(b.text, b.data) for row in screen(draft, ctx).rows for b in row]


def find(draft: HandDraft, ctx: Ctx, text: str) -> str:
    for label, data in buttons(draft, ctx):
        if text in label:
            return data
    raise AssertionError(f"no button {text!r} in {buttons(draft, ctx)}")


def self_draw(d: HandDraft, ctx: Ctx, who: str) -> None:
    """The Self-draw button beside the winner's name."""
    tap(d, ctx, in_row(d, ctx, "", ctx.t("Self-draw"), has=who))


def off(d: HandDraft, ctx: Ctx, winner: str, discarder: str) -> None:
    """A win on `discarder`'s discard: the winner's name, then the discarder."""
    tap(d, ctx, find(d, ctx, winner))
    tap(d, ctx, find(d, ctx, f"← {discarder}"))


def test_luzhou_example_1_by_taps_scores_like_the_rules_file() -> None:
    ctx, d = make_ctx(), new_draft()
    self_draw(d, ctx, "Alice")
    plus = [data for label, data in buttons(d, ctx) if label == "+"]
    tap(d, ctx, plus[0])  # one 闺
    tap(d, ctx, find(d, ctx, "Add"))  # the blood battle goes on: no Confirm yet
    assert "who won next" in screen(d, ctx).text
    off(d, ctx, "Bob", "West")  # Carol discarded
    tap(d, ctx, find(d, ctx, "all pungs"))  # 大对子 in one tap
    tap(d, ctx, find(d, ctx, "Add"))
    self_draw(d, ctx, "Dan")
    tap(d, ctx, find(d, ctx, "pure suit"))
    assert "Payments" in screen(d, ctx).text  # the third win ends it: the form shows it
    assert tap(d, ctx, find(d, ctx, "Confirm")) == "confirm"
    out = score(ctx.record(d.events)).to_dict()
    assert out["deltas"] == [15, 0, -20, 5]
    assert d.events[1] == {"type": "win", "by": "discard", "from": 2,
                              "winners": [{"seat": 1, "form": "all_pungs"}]}


def test_invalid_event_is_refused_at_its_step_with_the_reason() -> None:
    ctx, d = make_ctx(), new_draft()
    off(d, ctx, "Bob", "East")
    tap(d, ctx, find(d, ctx, "Add"))  # plain 平胡 off a discard: not a legal win
    assert d.step == "form" and d.events == []
    assert "Plain hand may win off a discard" in d.error and "one_ke_discard" not in d.error
    assert "Not allowed" in screen(d, ctx).text


def test_names_are_escaped_everywhere() -> None:
    ctx, d = make_ctx(), new_draft()
    self_draw(d, ctx, "Bob")
    tap(d, ctx, find(d, ctx, "Add"))
    text = screen(d, ctx).text
    assert "&lt;b&gt;&amp;Bob" in text and "<b>&Bob" not in text
    off(d, ctx, "Alice", "West")
    assert "&lt;b&gt;&amp;Bob" in screen(d, ctx).text


def test_forged_buttons_change_nothing() -> None:
    ctx, d = make_ctx(), new_draft()
    before = copy.deepcopy(d)
    for data in ["h:1:zz", "h:1:e:99", "h:1:wh:x", "h:1:e:-1", "h:1:wz:7", "h:1:wh:-1"]:
        with pytest.raises(FormError):
            tap(d, ctx, data)
        d.error = None
        assert d == before
    tap(d, ctx, "h:1:wh:0")
    for data in ["h:1:hd:0", "h:1:hd:7", "h:1:ha:0", "h:1:hr:x", "h:1:hr:1"]:
        with pytest.raises(FormError):  # not off his own discard; no robbed kong to rob
            tap(d, ctx, data)
    tap(d, ctx, "h:1:hs")
    snapshot = copy.deepcopy(d)
    for data in ["h:1:t:99", "h:1:t:4.9.1", "h:1:i:4.0.2:x", "h:1:t:4.0.2", "h:1:o:4.0.1",
                 "h:1:c:1.2.3.4"]:
        with pytest.raises(FormError):
            tap(d, ctx, data)
        d.error = None
        assert d == snapshot


def test_a_hint_is_not_called_a_refusal() -> None:
    ctx, d = make_ctx(), new_draft()
    press(d, ctx, "p")  # a stale Preview button: nothing is entered
    assert d.error == "Nothing entered yet: add what happened first."
    self_draw(d, ctx, "Bob")
    tap(d, ctx, find(d, ctx, "Add"))
    press(d, ctx, "p")  # one win of the blood battle: the hand goes on
    text = screen(d, ctx).text
    assert "⚠️ The hand is not over yet" in text and "Not allowed" not in text


def test_cancel_and_back() -> None:
    ctx, d = make_ctx(), new_draft()
    tap(d, ctx, "h:1:wh:1")
    tap(d, ctx, "h:1:hd:2")
    assert d.step == "form"
    tap(d, ctx, "h:1:b")
    assert d.step == "how"
    tap(d, ctx, "h:1:b")
    assert d.step == "main" and d.pending is None
    assert tap(d, ctx, "h:1:q") == "cancel"


def test_exhausted_wall_ready_map_for_seats_still_in() -> None:
    ctx, d = make_ctx(), new_draft()
    tap(d, ctx, "h:1:wz:0")
    tap(d, ctx, "h:1:d")
    tap(d, ctx, "h:1:x")
    assert d.pending["ready"] == {"1": None, "2": None, "3": None}
    labels = [label for label, _ in buttons(d, ctx)]
    assert not any(label.startswith("East") for label in labels)
    tap(d, ctx, find(d, ctx, "South"))  # not ready → ready
    tap(d, ctx, find(d, ctx, "✎"))  # edit seat 1's ready hand
    tap(d, ctx, find(d, ctx, "all pungs"))  # → 大对子
    tap(d, ctx, find(d, ctx, "Done"))
    tap(d, ctx, find(d, ctx, "West"))
    assert tap(d, ctx, find(d, ctx, "Confirm")) == "confirm"  # the wall ran out: a whole hand
    assert d.events[-1] == {"type": "exhausted", "ready": {
        "1": {"form": "all_pungs"}, "2": {}, "3": None}}
    out = score(ctx.record(d.events)).to_dict()
    assert out["deltas"] == [6, 8, 0, -14]


def test_ready_map_offers_flower_cat_after_a_ready_hand() -> None:
    ctx, d = make_ctx(), new_draft()
    tap(d, ctx, "h:1:wz:0")
    tap(d, ctx, "h:1:d")
    tap(d, ctx, "h:1:x")
    tap(d, ctx, find(d, ctx, "South"))  # not ready → ready
    tap(d, ctx, find(d, ctx, "South"))  # ready → 花猫
    south = [label for label, _ in buttons(d, ctx) if label.startswith("South")]
    assert len(south) == 1 and south[0].endswith(": ✗ flower cat (three suits)"), south
    assert not any(label == "✎" for label, _ in buttons(d, ctx))  # a 花猫 has no hand to edit
    assert tap(d, ctx, find(d, ctx, "Confirm")) == "confirm"
    assert d.events[-1] == {"type": "exhausted", "ready": {"1": "flower_cat", "2": None,
                                                              "3": None}}
    assert score(ctx.record(d.events)).deltas == (6, -2, -2, -2)


def _win_form(variant: str, by: str, frm: str | None, lang: str = "en") -> list[str]:
    ctx, d = make_ctx(variant, lang), new_draft()
    if by == "r":  # a robbed-kong win follows the robbed kong (a whole hand has it)
        for data in ("h:1:e:0", f"h:1:s:1:{frm}", "h:1:c:2:1", "h:1:t:4", "h:1:d"):
            tap(d, ctx, data)
    if by == "s":
        tap(d, ctx, "h:1:wz:1")
    else:
        tap(d, ctx, "h:1:wh:1")
        tap(d, ctx, f"h:1:h{by}:{frm}")
    assert d.step == "form", d
    return [label for label, _ in buttons(d, ctx)]


def test_new_winner_fields_appear_for_their_kind_of_win_with_translated_labels() -> None:
    # Cixi: 飞马 is a self-draw; who broke down to a lone 龙 is asked on a discard only
    assert "▫️ flying horse" in _win_form("cixi", "s", None)
    assert "— broke down to a lone joker: who pays —" not in _win_form("cixi", "s", None)
    discard_form = _win_form("cixi", "d", "2")
    assert "▫️ flying horse" not in discard_form
    assert "— broke down to a lone joker: who pays —" in discard_form  # a heading row
    assert "— 飛馬放炮的一家 —" in _win_form("cixi", "d", "2", "zh-Hant")
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
        view = screen(d, ctx)
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
            d.error = None
            before.error = None
            assert d == before  # a refused button changes nothing
            continue
        if action == "cancel":
            break
        if action == "confirm":
            out = score(ctx.record(d.events)).to_dict()
            assert sum(out["deltas"]) == 0
            break
        if d.step == "main":  # every committed event list is valid, if maybe unfinished
            with contextlib.suppress(IncompleteHand):
                score(ctx.record(d.events))


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
    tap(d, ctx, "h:1:wz:0")
    for data in ["h:1:t:-1", "h:1:t:4.-1.1", "h:1:i:4.0.-7:+"]:
        with pytest.raises(FormError):
            tap(d, ctx, data)


# -- the other variants' controls ---------------------------------------------------------------

def in_row(draft: HandDraft, ctx: Ctx, anchor: str, text: str, *, below: bool = False,
           has: str = "") -> str:
    """The data of button `text` in the row of the button starting with `anchor` and holding
    `has` (or in the row under it)."""
    rows = screen(draft, ctx).rows
    at = [i for i, row in enumerate(rows)
          if any(b.text.startswith(anchor) and has in b.text for b in row)]
    at = at or [i for i, row in enumerate(rows) if any(b.text == f"— {anchor} —" for b in row)]
    assert len(at) == 1, (anchor, [[b.text for b in r] for r in rows])
    row = rows[at[0] + below]
    found = [b.data for b in row if b.text == text] or [b.data for b in row if text in b.text]
    assert len(found) == 1, (text, [b.text for b in row])
    return found[0]


def labels(draft: HandDraft, ctx: Ctx) -> list[str]:
    return [label for label, _ in buttons(draft, ctx)]


def test_event_buttons_read_as_headings() -> None:
    ctx, d = make_ctx("guiyang"), new_draft()
    assert {"Kong", "Chickens", "Following the dealer", "Dead hand (相公)"} <= set(labels(d, ctx))


@pytest.mark.parametrize("variant", [v for v in every_style() if "kong" in get_variant(v).event_types()])
def test_an_exposed_kong_asks_who_discarded_it(variant: str) -> None:
    ctx, d = make_ctx(variant), new_draft()
    tap(d, ctx, find(d, ctx, "Kong"))
    tap(d, ctx, in_row(d, ctx, "Seat", "North", below=True))
    tap(d, ctx, find(d, ctx, "concealed kong"))
    assert "From" not in labels(d, ctx)  # a concealed kong has no discarder
    tap(d, ctx, find(d, ctx, "exposed kong"))  # one tap, not a cycle through kinds
    assert "✅ exposed kong" in [label.lower() for label in labels(d, ctx)]
    tap(d, ctx, in_row(d, ctx, "From", "East", below=True))
    tap(d, ctx, find(d, ctx, "Add"))
    assert d.error is None and d.events == [
        {"type": "kong", "seat": 3, "kind": "exposed", "from": 0}]
    assert "Kong: <b>North Dan</b> exposed kong ← East" in screen(d, ctx).text


def test_a_kong_that_is_no_longer_exposed_forgets_its_discarder() -> None:
    ctx, d = make_ctx("guiyang"), new_draft()
    tap(d, ctx, find(d, ctx, "Kong"))
    tap(d, ctx, in_row(d, ctx, "Seat", "South", below=True))
    tap(d, ctx, find(d, ctx, "exposed kong"))
    tap(d, ctx, in_row(d, ctx, "From", "West", below=True))
    tap(d, ctx, find(d, ctx, "concealed kong"))  # → concealed after all
    assert d.pending["from"] is None
    tap(d, ctx, find(d, ctx, "Add"))
    assert d.events == [{"type": "kong", "seat": 1, "kind": "concealed"}]


def test_values_and_flags_take_the_terms_of_their_event() -> None:
    # Hainan's "concealed" is a concealed hand (门清); a kong's kind is a concealed kong (暗杠)
    ctx, d = make_ctx("hainan"), new_draft()
    tap(d, ctx, find(d, ctx, "Kong"))
    tap(d, ctx, find(d, ctx, "concealed kong"))
    assert "✅ concealed kong" in labels(d, ctx)
    zh = make_ctx("hainan", lang="zh-Hans")
    assert "✅ 暗杠" in labels(d, zh)
    # Feibao's kong flag "jing" is a kong of 精 (宝杠), not "with jing" (有宝) as on a winner
    ctx, d = make_ctx("feibao"), new_draft()
    tap(d, ctx, find(d, ctx, "Kong"))
    assert "▫️ jing kong" in labels(d, ctx)
    # a kong's own flags keep their common labels ("robbed_kong" is a kind of win)
    assert "▫️ Robbed" in labels(d, ctx)


def test_winners_hold_chickens_too_and_the_flipped_tile_is_picked_by_name() -> None:
    ctx, d = make_ctx("guiyang"), new_draft()
    self_draw(d, ctx, "Bob")
    tap(d, ctx, find(d, ctx, "More"))  # the win ends the hand; its accounting comes after
    tap(d, ctx, find(d, ctx, "Ready"))
    assert not any("South" in label for label in labels(d, ctx))  # Bob won: not "ready"
    tap(d, ctx, find(d, ctx, "West"))
    tap(d, ctx, find(d, ctx, "More"))
    tap(d, ctx, find(d, ctx, "Chickens"))
    tap(d, ctx, find(d, ctx, "Flipped tile"))
    tiles = [label for label in labels(d, ctx) if _is_tile(label)]
    assert len(tiles) == len(set(tiles)) == 27  # each tile once, named with its suit
    tap(d, ctx, find(d, ctx, "5p"))
    tap(d, ctx, find(d, ctx, "Bob"))  # the winner's own chickens
    tap(d, ctx, in_row(d, ctx, "South <b>&Bob", "✎"))
    tap(d, ctx, in_row(d, ctx, "1 bamboo", "+"))
    tap(d, ctx, find(d, ctx, "Done"))
    tap(d, ctx, in_row(d, ctx, "hero chicken", "East", below=True))  # seat 0 is somebody
    tap(d, ctx, find(d, ctx, "More"))
    assert d.error is None
    assert d.events[-1] == {"type": "chickens", "flipped": "5p", "hero": 0,
                               "seats": {"1": {"yaoji": 1}}}
    assert "Chickens: Flipped tile 5p, hero chicken East, South 1 bamboo×1" in screen(d, ctx).text


def _is_tile(text: str) -> bool:
    return len(text) == 2 and text[0] in "123456789" and text[1] in "mps"


def test_feibao_fed_counts_come_and_go_and_leave_out_the_winner() -> None:
    ctx, d = make_ctx("feibao"), new_draft()
    self_draw(d, ctx, "Dan")
    fed = labels(d, ctx)[labels(d, ctx).index("— Melds fed by (三凑承包) —") + 1:]
    assert not any("North" in label for label in fed)  # the winner does not feed himself
    tap(d, ctx, in_row(d, ctx, "South", "+"))
    assert d.pending["winners"][0]["fed"] == {"1": 1}  # listed at its smallest count, 1
    tap(d, ctx, in_row(d, ctx, "South", "−"))
    assert d.pending["winners"][0]["fed"] == {}  # and off the map again below it
    for _ in range(3):
        tap(d, ctx, in_row(d, ctx, "East", "+"))
    tap(d, ctx, find(d, ctx, "seven pairs"))
    tap(d, ctx, find(d, ctx, "all pungs"))  # one tap moves the tick
    assert tap(d, ctx, find(d, ctx, "Confirm")) == "confirm"
    assert d.error is None
    assert d.events == [{"type": "win", "by": "self_draw", "winners": [
        {"seat": 3, "form": "all_pungs", "fed": {"0": 3}}]}]
    assert score(ctx.record(d.events)).deltas == (-30, 0, 0, 30)  # 碰对 without 精: 3 × 10


def test_the_jing_bonus_counts_the_winner_and_names_zheng_and_fu() -> None:
    ctx, d = make_ctx("feibao"), new_draft()
    self_draw(d, ctx, "Bob")
    tap(d, ctx, find(d, ctx, "More"))
    tap(d, ctx, find(d, ctx, "Jing bonus"))
    tap(d, ctx, find(d, ctx, "Bob"))
    tap(d, ctx, in_row(d, ctx, "South", "✎"))
    assert screen(d, ctx).text.count("Jing bonus · South &lt;b&gt;&amp;Bob") == 1
    tap(d, ctx, in_row(d, ctx, "正精", "+"))
    tap(d, ctx, in_row(d, ctx, "正精", "+"))
    tap(d, ctx, in_row(d, ctx, "副精", "+"))
    tap(d, ctx, find(d, ctx, "Done"))
    tap(d, ctx, find(d, ctx, "Confirm"))
    assert d.events[-1] == {"type": "jing_bonus", "seats": {"1": {"zheng": 2, "fu": 1}}}
    # 5 → 冲关 10; the only holder: 霸王 20 from each, on top of the plain self-draw's 2
    assert score(ctx.record(d.events)).deltas == (-22, 66, -22, -22)


def test_a_required_count_starts_at_the_value_it_shows() -> None:
    ctx, d = make_ctx("feibao"), new_draft()
    tap(d, ctx, find(d, ctx, "Jing thrown"))
    assert "Count: 1" in labels(d, ctx)
    tap(d, ctx, find(d, ctx, "North"))
    tap(d, ctx, find(d, ctx, "Add"))
    assert d.error is None and d.events == [{"type": "fei_bao", "seat": 3, "count": 1}]
    assert "Jing thrown: <b>North Dan</b> Count×1" in screen(d, ctx).text


def test_a_winners_own_seat_fields_leave_him_out() -> None:
    ctx, d = make_ctx("hainan"), new_draft()
    off(d, ctx, "Carol", "North")
    rows = [[b.text for b in row] for row in screen(d, ctx).rows]
    assert rows[rows.index(["— pays for all —"]) + 1] == ["East", "South", "North", "✅ —"]


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
    if by == "Self-draw":
        self_draw(d, ctx, "Carol")
    else:
        off(d, ctx, "Carol", "北")
    assert d.step == "form"
    labels = " ".join(label for label, _ in buttons(d, ctx))
    assert all(w in labels for w in shown) and not any(w in labels for w in not_shown), labels


def test_a_robbed_kong_win_knows_whose_kong_it_was() -> None:
    ctx, d = make_ctx("hainan"), new_draft()
    tap(d, ctx, find(d, ctx, "Kong"))
    tap(d, ctx, in_row(d, ctx, "Seat", "West", below=True))
    tap(d, ctx, find(d, ctx, "added kong"))
    tap(d, ctx, find(d, ctx, "Robbed"))
    tap(d, ctx, find(d, ctx, "Add"))
    tap(d, ctx, find(d, ctx, "Alice"))
    # the only robbed kong it can be is the one just entered, West's
    assert [label for label in labels(d, ctx) if "robbed kong" in label] == [
        "← West Carol (robbed kong)"]
    tap(d, ctx, find(d, ctx, "robbed kong"))
    assert d.step == "form" and d.pending["from"] == 2
    assert tap(d, ctx, find(d, ctx, "Confirm")) == "confirm"
    assert score(ctx.record(d.events)).deltas == (4, 0, -4, 0)


def test_a_robbed_kong_win_where_kongs_are_not_entered_is_a_switch() -> None:
    ctx, d = make_ctx("luzhou"), new_draft()
    tap(d, ctx, find(d, ctx, "Bob"))
    assert not any("robbed kong" in label for label in labels(d, ctx))
    tap(d, ctx, find(d, ctx, "Robbed kong"))
    assert "Self-draw" not in labels(d, ctx)
    tap(d, ctx, find(d, ctx, "← North Dan (robbed kong)"))
    assert d.pending["by"] == "robbed_kong" and d.pending["from"] == 3


def test_after_a_kong_only_with_the_kong_that_makes_it() -> None:
    ctx, d = make_ctx("hainan"), new_draft()
    self_draw(d, ctx, "Bob")
    assert not any("杠上花" in label for label in labels(d, ctx))  # Bob made no kong
    tap(d, ctx, find(d, ctx, "Back"))
    tap(d, ctx, find(d, ctx, "Back"))
    tap(d, ctx, find(d, ctx, "Kong"))
    tap(d, ctx, in_row(d, ctx, "Seat", "South", below=True))
    tap(d, ctx, find(d, ctx, "concealed kong"))
    tap(d, ctx, find(d, ctx, "Add"))
    self_draw(d, ctx, "Bob")
    tap(d, ctx, find(d, ctx, "杠上花"))
    assert d.pending["after_kong"] is True
    tap(d, ctx, find(d, ctx, "Back"))
    tap(d, ctx, find(d, ctx, "← North"))  # Dan made no kong: no 杠上炮 to tick, and none kept
    assert d.pending["after_kong"] is False
    assert not any("杠上炮" in label for label in labels(d, ctx))


def test_false_win_names_its_seat_and_the_round_wind_shows() -> None:
    ctx, d = make_ctx("cixi", balances=[100] * 4, round_wind=1), new_draft()
    tap(d, ctx, find(d, ctx, "False win"))
    tap(d, ctx, find(d, ctx, "East"))
    assert "Confirm" not in " ".join(labels(d, ctx))  # a false win alone is no hand
    tap(d, ctx, find(d, ctx, "Add"))
    text = screen(d, ctx).text
    assert "False win: <b>East Alice</b>" in text and "Round wind: South" in text


def test_short_toggles_share_rows_and_long_ones_stand_alone() -> None:
    for lang, most in (("zh-Hans", 3), ("en", 2)):
        ctx, d = make_ctx("hainan", lang=lang), new_draft()
        tap(d, ctx, "h:1:wz:1")
        toggles = [[b.text for b in row] for row in screen(d, ctx).rows
                   if all(decode(b.data).act in (Act.TOGGLE, Act.CHOOSE) for b in row)]
        assert max(len(row) for row in toggles) == most, toggles
        assert sum(len(row) for row in toggles) == 14  # the winner's 14 番 flags (no kong: no 杠上花)


def test_an_event_with_nothing_to_fill_in_is_added_at_once() -> None:
    ctx, d = make_ctx("hainan"), new_draft()
    tap(d, ctx, find(d, ctx, "Wall exhausted"))
    # that ended the hand and nothing can follow it in Hainan: straight to Confirm
    assert d.step == "preview" and d.events == [{"type": "exhausted"}]
    assert "✔ Confirm" in labels(d, ctx)
    tap(d, ctx, find(d, ctx, "Back"))
    assert "Wall exhausted" not in labels(d, ctx)  # the hand is over: nothing more to add
    tap(d, ctx, "h:1:x")  # a stale button: refused, nothing half-open
    assert d.step == "main" and d.pending is None and len(d.events) == 1
    assert "already ended" in d.error


def test_only_the_wins_the_rules_allow_are_offered() -> None:
    ctx, d = make_ctx("feibao"), new_draft()
    tap(d, ctx, "h:1:wh:1")
    plain = labels(d, ctx)
    assert "Self-draw" in plain and not any("(discard)" in label for label in plain)
    with pytest.raises(FormError):
        tap(d, ctx, "h:1:hd:0")
    house, d = make_ctx("feibao", rules={"discard_wins": True}), new_draft()
    tap(d, house, "h:1:wh:1")
    assert "← East Alice (discard)" in labels(d, house)


def test_options_the_house_rules_switch_off_are_not_offered() -> None:
    four = labels(new_draft(), make_ctx("luzhou"))  # 4 ghosts: no 喜钱
    assert "Ghost bonus" not in four
    eight = labels(new_draft(), make_ctx("luzhou", rules={"ghosts": 8}))
    assert "Ghost bonus" in eight
    off = labels(new_draft(), make_ctx("luzhou", rules={"ghosts": 8, "ghost_bonus": "off"}))
    assert "Ghost bonus" not in off
    with pytest.raises(FormError):
        tap(new_draft(), make_ctx("luzhou"), "h:1:e:0")


@pytest.mark.parametrize(("lang", "seat", "discarder"), [
    ("en", "Choose “Seat” first.", "Choose “From” first."),
    ("zh-Hans", "请先选“座位”。", "请先选“出牌者”。"),
])
def test_a_missing_field_is_named_in_words(lang: str, seat: str, discarder: str) -> None:
    ctx, d = make_ctx("guiyang", lang=lang), new_draft()
    tap(d, ctx, "h:1:e:0")  # a kong (豆 in Guiyang)
    tap(d, ctx, "h:1:d")
    assert d.error == seat and d.events == []
    tap(d, ctx, "h:1:s:1:2")
    tap(d, ctx, "h:1:c:2:2")  # exposed: whose discard?
    tap(d, ctx, "h:1:d")
    assert d.error == discarder and "None" not in screen(d, ctx).text


@pytest.mark.parametrize(("variant", "line", "event"), [
    ("luzhou", "西 自摸 清一色 大对子", {"type": "win", "by": "self_draw", "winners": [
        {"seat": 2, "pure": True, "form": "all_pungs"}]}),
    ("luzhou", "Carol 点炮 北 七对", {"type": "win", "by": "discard", "from": 3, "winners": [
        {"seat": 2, "form": "seven_pairs"}]}),
    ("luzhou", "西 點炮 東 七對 無鬼", {"type": "win", "by": "discard", "from": 0, "winners": [
        {"seat": 2, "form": "seven_pairs", "no_ghost": True}]}),
    ("luzhou", "w 放炮 e quads=2", {"type": "win", "by": "discard", "from": 0, "winners": [
        {"seat": 2, "quads": 2}]}),
    ("luzhou", "南 闺2 清一色", {"type": "win", "by": "self_draw", "winners": [
        {"seat": 1, "quads": 2, "pure": True}]}),
    ("luzhou", "West self-draw pure suit all pungs", {"type": "win", "by": "self_draw",
                                                      "winners": [{"seat": 2, "pure": True,
                                                                   "form": "all_pungs"}]}),
    ("guiyang", "西 點炮 北 碰碰胡", {"type": "win", "by": "discard", "from": 3, "winners": [
        {"seat": 2, "form": "all_pungs"}]}),  # Hainan's name for Guiyang's 大对子
    ("cixi", "北 自摸 龙×2 对对胡", {"type": "win", "by": "self_draw", "winners": [
        {"seat": 3, "jokers": 2, "all_pungs": True}]}),
])
def test_one_line_in_the_players_words(variant: str, line: str, event: dict) -> None:
    assert parse_hu(get_variant(variant), line.split(), list(NAMES)) == event


@pytest.mark.parametrize(("variant", "line", "close"), [
    ("luzhou", "西 清一涩", "清一色"), ("luzhou", "w purr", "pure suit"),
    ("guiyang", "西 點炮 北 碰碰湖", "碰碰胡"), ("guiyang", "W from N al pungs", "all pungs"),
])
def test_an_unknown_word_is_answered_with_the_closest(variant: str, line: str,
                                                      close: str) -> None:
    with pytest.raises(LineError) as info:
        parse_hu(get_variant(variant), line.split(), list(NAMES))
    assert info.value.msgid.startswith("Unknown word") and close in info.value.kwargs["close"]


def test_a_kong_win_in_one_line_needs_the_kong_where_kongs_are_entered() -> None:
    with pytest.raises(LineError) as info:
        parse_hu(get_variant("hainan"), "2 zimo kong pure".split())
    assert "/hand" in info.value.msgid


def test_cixi_pure_reads_with_or_without_dragons() -> None:
    ctx, d = make_ctx("cixi", lang="zh-Hans", balances=[100] * 4), new_draft()
    self_draw(d, ctx, "Carol")
    assert "▫️ 无龙清一色" in labels(d, ctx) and "▫️ 有龙清一色" not in labels(d, ctx)
    tap(d, ctx, in_row(d, ctx, "龙", "+"))  # one 龙
    assert "▫️ 有龙清一色" in labels(d, ctx) and "▫️ 无龙清一色" not in labels(d, ctx)


def _specs(model: type, seen: set) -> list:
    out = []
    for spec in controls.fields_of(model):
        out.append(spec)
        if spec.model is not None and spec.model not in seen:
            seen.add(spec.model)
            out += _specs(spec.model, seen)
    return out


@pytest.mark.parametrize("variant", sorted(all_variants()))
@pytest.mark.parametrize("lang", ["zh-Hans", "zh-Hant", "en"])
def test_no_field_or_value_reaches_a_screen_by_its_key(variant: str, lang: str) -> None:
    """Every field and value a form can show has a name in the chat's language: Chinese in
    Chinese chats, and never a key with underscores."""
    v = get_variant(variant)
    ctx = make_ctx(variant, lang=lang)
    for ev in v.events:
        event = controls.spec_named(ev, "type").choices[0]
        shown = [field_label(ctx, event)]
        for spec in _specs(ev, set()):
            if spec.name in ("type", "by", "winners"):
                continue
            shown.append(field_label(ctx, spec.name, event))
            shown += [value_label(ctx, c, event) for c in spec.choices if isinstance(c, str)]
        for text in shown:
            assert "_" not in text, (event, text)
            if lang != "en":
                assert not text.replace(" ", "").isascii(), (event, text)


def test_several_win_on_one_discard_without_a_next_button() -> None:
    ctx, d = make_ctx("luzhou"), new_draft()
    tap(d, ctx, find(d, ctx, "Bob"))
    tap(d, ctx, find(d, ctx, "▫️ ＋West"))  # Carol won on the same tile
    assert "Self-draw" not in labels(d, ctx)  # two winners: a discard or a robbed kong
    assert not any("West Carol (discard)" in label for label in labels(d, ctx))
    tap(d, ctx, find(d, ctx, "← North Dan (discard)"))
    bob, carol = [data for label, data in buttons(d, ctx) if label == "▫️ all pungs"]
    tap(d, ctx, bob)  # each winner has his own features, under his name
    tap(d, ctx, [data for label, data in buttons(d, ctx) if label == "▫️ pure suit"][1])
    tap(d, ctx, find(d, ctx, "Add"))
    assert d.error is None, d.error
    assert d.events == [{"type": "win", "by": "discard", "from": 3, "winners": [
        {"seat": 1, "form": "all_pungs"}, {"seat": 2, "pure": True}]}]


def test_a_seats_first_count_is_on_its_row() -> None:
    ctx, d = make_ctx("guiyang"), new_draft()
    self_draw(d, ctx, "Bob")
    tap(d, ctx, find(d, ctx, "More"))
    tap(d, ctx, find(d, ctx, "Chickens"))
    tap(d, ctx, in_row(d, ctx, "West Carol", "+1 bamboo"))  # one tap: Carol holds a 幺鸡
    tap(d, ctx, in_row(d, ctx, "West Carol", "+1 bamboo"))
    assert d.pending["seats"]["2"]["yaoji"] == 2
    assert "West Carol: ✅ 1 bamboo×2" in labels(d, ctx)
    for _ in range(2):
        tap(d, ctx, in_row(d, ctx, "West Carol", "−"))
    assert d.pending["seats"] == {}  # back to nothing: off the map
    assert not any(label == "−" for label in labels(d, ctx))


def test_win_after_win_in_one_line_makes_a_whole_blood_battle() -> None:
    ctx = make_ctx()
    events = parse_wins(ctx.variant, "南 自摸 清一色； 西 点炮 北 大对子;东 自摸".split(), list(NAMES))
    assert events == [
        {"type": "win", "by": "self_draw", "winners": [{"seat": 1, "pure": True}]},
        {"type": "win", "by": "discard", "from": 3, "winners": [{"seat": 2, "form": "all_pungs"}]},
        {"type": "win", "by": "self_draw", "winners": [{"seat": 0}]}]
    assert sum(score(ctx.record(events)).deltas) == 0  # a whole hand: three have won
    with pytest.raises(LineError):
        parse_wins(ctx.variant, [";"])


def test_a_draft_saved_by_the_earlier_flow_picks_up_at_how() -> None:
    """A hand half-entered before this version (winners, then from) still opens and finishes."""
    ctx = make_ctx("hainan")
    d = new_draft(step="from")
    d.pending = {"type": "win", "by": "discard", "from": None, "after_kong": False,
                    "winners": [{"seat": 2}]}
    assert "← North Dan (discard)" in labels(d, ctx)
    tap(d, ctx, find(d, ctx, "← North Dan (discard)"))
    tap(d, ctx, find(d, ctx, "half flush"))
    assert tap(d, ctx, find(d, ctx, "Confirm")) == "confirm"
    assert d.events == [{"type": "win", "by": "discard", "from": 3,
                            "winners": [{"seat": 2, "half_flush": True}]}]


def test_a_ctx_scores_each_record_once_refusals_included(monkeypatch: pytest.MonkeyPatch) -> None:
    """Checking a hand and drawing it share one scoring per Ctx (one update); a refusal is
    given again unchanged, and another record (or table) is scored on its own."""
    import bot.entry.ctx as scoring_of_ctx  # Ctx.score scores the wizard's hands

    calls: list[list[dict]] = []
    real = scoring_of_ctx.score
    monkeypatch.setattr(scoring_of_ctx, "score", lambda r: calls.append(r["events"]) or real(r))
    ctx = make_ctx("guiyang")
    plain_off = [{"type": "win", "by": "discard", "from": 0, "winners": [{"seat": 2}]}]
    first, second = hand_state(ctx, plain_off)[1], hand_state(ctx, plain_off)[1]
    assert first is not None and ctx.explain(first) == ctx.explain(second)
    zimo = [{"type": "win", "by": "self_draw", "winners": [{"seat": 1}]}]
    assert hand_state(ctx, zimo) == (True, None)
    view = screen(new_draft(zimo, step="preview"), ctx)
    assert "Payments" in view.text
    assert calls == [plain_off, zimo]
    other = make_ctx("guiyang", dealer=1)  # another table state: scored again
    assert screen(new_draft(zimo, step="preview"), other).text != view.text
    assert calls == [plain_off, zimo, zimo]
