"""The tile keyboard's state machine (bot/entry/keyboard.py): taps, set keys, melds, backspace,
take-out, refusals that change nothing, the notation scoring reads, and the screen's limits."""

from __future__ import annotations

import copy
from typing import Any

import pytest

from bot.entry import keyboard
from bot.entry.keyboard import (
    KeyRefused,
    KeySpec,
    KeyState,
    Meld,
    count,
    keys_screen,
    new_state,
    notation,
    refusal_text,
)
from bot.entry.wizard.flow import HandDraft
from bot.plumbing.callbacks import Act, Family
from bot.view.i18n import translator
from scoring.tiles import analyze
from tests.styles import keyed_styles, tileset

from .test_wizard import key_press, press

GUIYANG = KeySpec("guiyang")
KEYS = {a.code: a for a in Act if a.family is Family.KEYS}


def press_key(state: KeyState, spec: KeySpec, code: str, tile: str = "") -> str | None:
    """A key by its code on the keys: `t` a tile, `2` pair, `d` done …"""
    return keyboard.press_key(state, spec, KEYS[code], tile)


def run(spec: KeySpec, presses: str, state: KeyState | None = None) -> KeyState:
    """Presses as a space-separated line: `5m` a tile, `2` pair, `3` pung, `c` chow, `s` same
    set, `x` backspace, `g` melds, `k` concealed kong, `r` take out, `i` turned tile, `d` done."""
    state = state if state is not None else new_state()
    for p in presses.split():
        if len(p) == 2:
            press_key(state, spec, "t", p)
        else:
            press_key(state, spec, p)
    return state


def test_a_tile_tapped_twice_counts_twice() -> None:
    s = run(GUIYANG, "1m 2m 3m 4m 5m 6m 7m 8m 9m 1s 1s 5s 5s 5s")
    assert notation(s, GUIYANG) == "123456789m1155s+5s"
    assert count(s) == 14
    assert press_key(s, GUIYANG, "d") == "done"
    assert analyze({"variant": "guiyang", "tiles": notation(s, GUIYANG)})["winner"]


def test_set_keys_enter_a_standard_hand_in_ten_keys_not_fourteen() -> None:
    presses = "1m c 4m c 7m c 1s 2 5s 3"
    s = run(GUIYANG, presses)
    assert notation(s, GUIYANG) == "123456789m1155s+5s"
    assert len(presses.split()) == 10 and count(s) == 14
    assert press_key(s, GUIYANG, "d") == "done"


@pytest.mark.parametrize(("presses", "tiles"), [
    ("5s 3", "55s+5s"),  # a pung: its tile wins
    ("1s 2", "1s+1s"),  # a pair: its tile wins
    ("4m c", "45m+6m"),  # a chow adds the next two: the last of them wins
    ("5m 6m 4m", "56m+4m"),  # to win on a chow's first tile, tap it last on its own
    ("1m c s", "11223m+3m"),  # the same set again (112233)
    ("1m c 2p", "123m+2p"),  # a tile after a set is the winning tile again
])
def test_the_last_tile_added_is_the_winning_tile(presses: str, tiles: str) -> None:
    assert notation(run(GUIYANG, presses), GUIYANG) == tiles


def test_backspace_takes_a_set_back_whole_and_the_tile_stays_for_another_set_key() -> None:
    s = run(GUIYANG, "1m c x")
    assert notation(s, GUIYANG) == "+1m"
    s = run(GUIYANG, "3", s)  # a pung of the 1m instead
    assert notation(s, GUIYANG) == "11m+1m"
    s = run(GUIYANG, "x x", s)
    assert notation(s, GUIYANG) == "" and s.log == []
    s = run(GUIYANG, "2p c s x", new_state())  # the repeat taken back: it may be tapped again
    assert notation(s, GUIYANG) == "23p+4p"
    s = run(GUIYANG, "s", s)
    assert notation(s, GUIYANG) == "22334p+4p"


def test_set_keys_in_meld_mode_build_exposed_sets() -> None:
    s = run(GUIYANG, "g 1m 3 5p c g 9s 2")
    assert notation(s, GUIYANG) == "9s[111m][567p]+9s"
    assert [m.open for m in s.melds] == [False, False]
    s = run(GUIYANG, "g 1m c s g")
    assert notation(s, GUIYANG) == "[123m][123m]"
    s = run(GUIYANG, "g 5p 3 5p")  # the fourth onto a pung from the Pung key: a kong
    assert s.melds == [Meld(tiles=["5p"] * 4, concealed=False, open=False)]


def test_the_last_tile_tapped_is_the_winning_tile_and_backspace_takes_it_back() -> None:
    s = run(GUIYANG, "1m 2m 3m 9s x")
    assert notation(s, GUIYANG) == "12m+3m"
    s = run(GUIYANG, "x", s)
    assert notation(s, GUIYANG) == "1m+2m"


@pytest.mark.parametrize(("presses", "melds"), [
    ("g 5p 5p 5p g", "[555p]"),  # a pung closes with the meld mode
    ("g 3s 4s 2s", "[234s]"),  # a chow closes at its third tile
    ("g 5p 5p 5p 5p", "[5555p]"),  # four alike: an exposed kong
    ("g 5p 3 7s", "[555p]"),  # a different tile starts the next meld (7s, still open)
    ("k 9m", "[(9999m)]"),  # a concealed kong in one tap
])
def test_melds(presses: str, melds: str) -> None:
    s = run(GUIYANG, presses)
    assert notation(s, GUIYANG).startswith(melds), notation(s, GUIYANG)


def test_a_kong_counts_three_toward_the_hand() -> None:
    s = run(GUIYANG, "k 9m 1m c 4m c 1s 2 7p c")
    assert count(s) == 14 and len([x for m in s.melds for x in m.tiles]) == 4
    assert press_key(s, GUIYANG, "d") == "done"
    assert analyze({"variant": "guiyang", "tiles": notation(s, GUIYANG)})["winner"]


def test_backspace_reopens_a_meld_one_tile_at_a_time() -> None:
    s = run(GUIYANG, "g 2s 3s 4s x")
    assert s.melds == [Meld(tiles=["2s", "3s"], concealed=False, open=True)]
    assert s.mode == "meld"
    s = run(GUIYANG, "x x", s)
    assert s.melds == []


@pytest.mark.parametrize(("spec", "before", "tap", "msgid"), [
    (GUIYANG, "5m 3 5m", "5m", "There are only {n} of {tile}."),  # a fifth copy
    (GUIYANG, "g 5m 3 5m", "5m", "There are only {n} of {tile}."),  # four in a kong
    (GUIYANG, "", "1z", "That button is no longer valid."),  # no honours in Guiyang
    (KeySpec("luzhou", {"ghosts": 4}), "7z 3 7z", "7z", "There are only {n} of {tile}."),
    (KeySpec("hainan"), "2f", "2f", "There is only one of each flower."),
    (GUIYANG, "g 2s 3s", "9s", "{tile} does not fit the meld being entered."),
    (GUIYANG, "1m 2m 3m 4m 5m 6m 7m 8m 9m 1p 2p 3p 4p 5p", "6p",
     "The hand is full ({want} tiles): ⌫ takes one back."),
])
def test_refused_taps_change_nothing(spec: KeySpec, before: str, tap: str, msgid: str) -> None:
    s = run(spec, before) if before else new_state()
    kept = copy.deepcopy(s)
    with pytest.raises(KeyRefused) as info:
        press_key(s, spec, "t", tap)
    assert info.value.msgid == msgid
    assert s == kept


@pytest.mark.parametrize(("spec", "before", "op", "msgid"), [
    (GUIYANG, "", "2", "Tap a tile first: Pair, Pung and Chow finish a set from the tile just "
     "tapped."),
    (GUIYANG, "5m 3", "2", "Tap a tile first: Pair, Pung and Chow finish a set from the tile "
     "just tapped."),  # a set key acts once on the tile tapped
    (GUIYANG, "k 9m", "2", "Tap a tile first: Pair, Pung and Chow finish a set from the tile "
     "just tapped."),  # the kong's tile is not one tapped into the hand
    (GUIYANG, "5m 5m 5m", "3", "There are only {n} of {tile}."),  # 4-copies limit
    (GUIYANG, "3m 3m 3m 3m 1m", "c", "There are only {n} of {tile}."),  # a fifth 3m
    (GUIYANG, "8s", "c", "A chow runs up from {tile}: only 1–7 of a suit can start one."),
    (KeySpec("hainan"), "1z", "c", "A chow runs up from {tile}: only 1–7 of a suit can start "
     "one."),
    (KeySpec("luzhou"), "7z", "c", "A chow runs up from {tile}: only 1–7 of a suit can start "
     "one."),
    (GUIYANG, "g 5m", "2", "An exposed meld is three or four tiles; a pair goes in the hand "
     "(tap “Melds” to leave meld mode)."),
    (GUIYANG, "g 5m 6m", "c", "Tap a tile first: Pair, Pung and Chow finish a set from the tile "
     "just tapped."),  # 6m joined the 5m's meld: it starts none
    (GUIYANG, "1m", "s", "“Same set” repeats the set just entered: tap a tile and Pair, Pung "
     "or Chow first."),
    (GUIYANG, "5m 3 1p", "s", "“Same set” repeats the set just entered: tap a tile and Pair, "
     "Pung or Chow first."),  # only right after the set
    (GUIYANG, "5m 3", "s", "There are only {n} of {tile}."),
    (GUIYANG, "1m c 4m c 7m c 1s 2 6s 6s", "3", "The hand is full ({want} tiles): ⌫ takes one "
     "back."),
    (GUIYANG, "1m c 4m c 7m c 1s 2 5s 5s", "c", "The hand is full ({want} tiles): ⌫ takes one "
     "back."),
])
def test_refused_set_keys_change_nothing(spec: KeySpec, before: str, op: str, msgid: str) -> None:
    s = run(spec, before) if before else new_state()
    kept = copy.deepcopy(s)
    with pytest.raises(KeyRefused) as info:
        press_key(s, spec, op)
    assert info.value.msgid == msgid
    assert s == kept


def test_set_keys_wait_for_a_tap_after_a_photo() -> None:
    s = new_state(["1m", "5m", "5m", "9p"])  # read from a photo: no tile tapped yet
    with pytest.raises(KeyRefused):
        press_key(s, GUIYANG, "2")
    assert notation(run(GUIYANG, "9p 2", s), GUIYANG) == "155m99p+9p"


def test_luzhou_plays_eight_ghosts_when_the_table_does() -> None:
    spec = KeySpec("luzhou", {"ghosts": 8})
    s = run(spec, "7z 3 7z 2")
    assert s.hand.count("7z") == 5


def test_done_needs_the_right_count_and_the_turned_tile() -> None:
    s = run(GUIYANG, "1m 2m 3m")
    with pytest.raises(KeyRefused) as info:
        press_key(s, GUIYANG, "d")
    assert info.value.params == {"count": 3, "want": 14}
    cixi = KeySpec("cixi")
    s = run(cixi, "1m c 7p c 1s 2 5p 3 4m c")
    with pytest.raises(KeyRefused) as info:
        press_key(s, cixi, "d")
    assert "Turned" in info.value.msgid
    s = run(cixi, "i 5m", s)
    assert s.indicator == "5m" and press_key(s, cixi, "d") == "done"
    assert analyze({"variant": "cixi", "tiles": notation(s, cixi),
                    "indicator": s.indicator})["winner"]


def test_take_out_removes_one_copy_of_a_tile() -> None:
    s = new_state(["1m", "5m", "5m", "9p"])  # as read from a photo: no winning tile yet
    assert notation(s, GUIYANG) == "155m9p"
    run(GUIYANG, "r 5m 6m", s)
    assert notation(s, GUIYANG) == "15m9p+6m"
    with pytest.raises(KeyRefused) as info:
        run(GUIYANG, "r 2s", s)
    assert refusal_text(translator("zh-Hans"), info.value) == "手牌里没有 2条。"


def test_thirteen_tiles_for_a_ready_hand_have_no_winning_tile() -> None:
    spec = KeySpec("guiyang", want=13)
    s = run(spec, "1m c 4m c 7m c 1s 2 5s 2")
    assert notation(s, spec) == "123456789m11s55s".replace("11s55s", "1155s")
    assert press_key(s, spec, "d") == "done"


@pytest.mark.parametrize("variant", keyed_styles())
@pytest.mark.parametrize("lang", ["zh-Hans", "zh-Hant", "en"])
def test_the_screen_fits_a_phone(variant: str, lang: str) -> None:
    """At most 8 buttons a row (Telegram's limit), short labels, callback data ≤ 64 bytes."""
    spec = KeySpec(variant)
    s = run(spec, "1m 2m 2m")
    view = keys_screen(s, spec, translator(lang), lambda act, *a: ":".join(["k", act.code, *a]), "Tiles")
    assert all(len(row) <= 8 for row in view.rows)
    assert all(len(b.text) <= 12 for row in view.rows for b in row), [
        b.text for row in view.rows for b in row if len(b.text) > 12]
    assert all(len(b.data.encode()) <= 64 for row in view.rows for b in row)
    assert "🀇🀈 + 🀈" in view.text and "<code>12m+2m</code>" in view.text
    labels = [b.text for row in view.rows for b in row]
    assert ("Turned" in " ".join(labels) or "翻牌" in " ".join(labels)) == tileset(variant).indicator
    assert len([x for x in labels if x in ("Spr", "春")]) == tileset(variant).flowers


@pytest.mark.parametrize(("variant", "jokers"), [
    ("cixi", {"🃏龙 6万": "k:t:6m"}),  # Cixi's 龙 follows the turned tile
    ("feibao", {"🃏正精 北": "k:t:4z", "🃏副精 东": "k:t:1z"}),  # Feibao's 精: it and the next
])
def test_the_turned_tile_gives_its_joker_keys(variant: str, jokers: dict[str, str]) -> None:
    spec = KeySpec(variant)
    t = translator("zh-Hans")
    s = new_state()
    view = keys_screen(s, spec, t, lambda act, *a: ":".join(["k", act.code, *a]))
    assert not [b for row in view.rows for b in row if b.text.startswith("🃏")]
    run(spec, "i " + ("5m" if variant == "cixi" else "4z"), s)
    view = keys_screen(s, spec, t, lambda act, *a: ":".join(["k", act.code, *a]))
    keys = {b.text: b.data for row in view.rows for b in row if b.text.startswith("🃏")}
    assert keys == jokers
    # the screen names the jokers as the keys do, by the variant's own word (龙, 正精 / 副精)
    assert " · ".join(label.removeprefix("🃏") for label in jokers) in view.text


def _entered(variant: str, tiles: list[str], events: list[dict[str, Any]] | None = None
             ) -> tuple[Any, HandDraft]:
    """South's self-drawn win, its tiles (and keys) entered on the keyboard and Done."""
    from bot.entry.ctx import Ctx
    from bot.entry.wizard.flow import new_draft
    from scoring import get_variant

    ctx = Ctx(variant=get_variant(variant), lang="en", names=["A", "B", "C", "D"],
              base={"variant": variant, "rules": {}, "dealer": 0})
    draft = new_draft(events)
    press(draft, ctx, "wz", "1")
    press(draft, ctx, "kt", "0")
    for key in tiles:  # tiles, and set keys ("c") among them
        key_press(draft, ctx, "t", key) if len(key) == 2 else \
            key_press(draft, ctx, key)
    key_press(draft, ctx, "d")
    return ctx, draft


def test_tiles_are_read_again_when_the_way_of_winning_changes() -> None:
    """What a reading is worth depends on how the hand was won: changed on the "how" screen
    (Back, then a discard), the tiles are valued again."""

    tiles = "111m234m567m888m9m+9m"
    ctx, draft = _entered("hainan", ["1m", "1m", "1m", "2m", "3m", "4m", "5m", "6m", "7m", "8m",
                                     "8m", "8m", "9m", "9m"])
    value = {by: analyze({"variant": "hainan", "tiles": tiles, "seat": 1, "by": by})["value"]
             for by in ("self_draw", "discard")}
    assert value["self_draw"] != value["discard"]
    assert draft.reads["1"].readings[0].value == value["self_draw"]
    press(draft, ctx, "b")  # back to "how"
    press(draft, ctx, "hd", "3")  # off North's discard
    assert draft.step == "form"
    assert draft.reads["1"].readings[0].value == value["discard"]


def test_tiles_that_win_only_self_drawn_wait_to_be_corrected_after_a_discard() -> None:
    """Guiyang's 平胡 may not win off a plain discard: changed to one, the reading goes, the
    refusal is shown, and the tiles stay for the keyboard."""

    tiles = ["1m", "2m", "3m", "4m", "5m", "6m", "7m", "8m", "9m", "1s", "1s", "5s", "5s", "5s"]
    ctx, draft = _entered("guiyang", tiles)
    press(draft, ctx, "b")
    press(draft, ctx, "hd", "3")
    assert "1" not in draft.reads and draft.error and "平胡" in draft.error
    assert draft.pending["winners"][0] == {**draft.pending["winners"][0], "seat": 1}
    press(draft, ctx, "kt", "0")
    assert draft.keys.state.hand == tiles


def test_a_kong_added_from_the_tiles_goes_when_the_tiles_are_corrected_without_it() -> None:
    """A concealed kong among a winner's tiles is entered before the win; the tiles corrected
    (Correct the tiles) to hold none, it is taken out again; put back, it is entered once."""

    kong = {"type": "kong", "seat": 1, "kind": "concealed"}
    ctx, draft = _entered("guiyang", ["k", "8m", "2m", "c", "5m", "c", "9m", "2", "1m", "3"])
    assert draft.events == [kong]

    def correct(presses: list[str]) -> None:
        press(draft, ctx, "kt", "0")
        while draft.keys.state.log:
            key_press(draft, ctx, "x")
        for p in [*presses, "d"]:
            key_press(draft, ctx, "t", p) if len(p) == 2 else \
                key_press(draft, ctx, p)

    correct(["2m", "c", "5m", "c", "9m", "2", "8m", "3", "1m", "3"])
    assert draft.events == []
    assert draft.reads["1"].tiles == "1123456788899m+1m"  # no kong in them now
    correct(["k", "8m", "2m", "c", "5m", "c", "9m", "2", "1m", "3"])
    assert draft.events == [kong]


def test_a_chow_may_start_from_a_jokers_tile_standing_for_itself() -> None:
    cixi = KeySpec("cixi")
    s = run(cixi, "i 4m 5m c")  # 5m is Cixi's 龙 here; 567m as tiles
    assert notation(s, cixi) == "56m+7m"


def _two_kongs(hand_kong: bool) -> tuple[Any, HandDraft, list[dict[str, Any]]]:
    """South's tiles hold two concealed kongs; with `hand_kong` one was entered by hand first
    ("Kong" on the first screen), so the tiles add only the other."""
    kong = {"type": "kong", "seat": 1, "kind": "concealed"}
    typed = [dict(kong)] if hand_kong else []
    ctx, draft = _entered("guiyang", ["k", "8m", "2m", "c", "5m", "c", "9m", "2", "k", "1m"],
                          events=typed)
    assert draft.events == [*typed, *[kong] * (2 - len(typed))], draft.error
    return ctx, draft, typed


@pytest.mark.parametrize("hand_kong", [False, True])
def test_kongs_added_from_the_tiles_go_with_a_win_taken_back_with_back(hand_kong: bool) -> None:
    """Back from the win's form, then Back from "how": the win is not entered, and neither are
    the kongs its tiles added; one entered by hand stays. The tiles wait for the next try."""

    ctx, draft, typed = _two_kongs(hand_kong)
    tiles = draft.reads["1"].state.hand
    press(draft, ctx, "b")
    press(draft, ctx, "b")
    assert draft.step == "main" and draft.pending is None
    assert draft.events == typed
    assert "1" not in draft.reads
    press(draft, ctx, "wz", "1")  # the same win again: the kongs come back once
    press(draft, ctx, "kt", "0")
    assert draft.keys.state.hand == tiles
    key_press(draft, ctx, "d")
    kong = {"type": "kong", "seat": 1, "kind": "concealed"}
    assert draft.events == [*typed, *[kong] * (2 - len(typed))]


@pytest.mark.parametrize("hand_kong", [False, True])
def test_kongs_added_from_the_tiles_go_with_the_win_on_remove_last(hand_kong: bool) -> None:
    """"Remove last" on the entered win takes the kongs its tiles added too, not one entered
    by hand."""

    ctx, draft, typed = _two_kongs(hand_kong)
    press(draft, ctx, "d")  # the win entered
    assert draft.error is None and draft.events[-1]["type"] == "win"
    press(draft, ctx, "u")  # "Remove last"
    assert draft.events == typed
    assert "1" not in draft.reads


def test_a_winner_taken_off_a_shared_discard_takes_his_tiles_kongs_along() -> None:
    """Guiyang: South's tiles (a concealed kong among them) off North's discard; back on "how",
    West is added and South taken off: South's kong goes, the win stays pending for West."""
    from bot.entry.ctx import Ctx
    from bot.entry.wizard.flow import new_draft
    from scoring import get_variant

    ctx = Ctx(variant=get_variant("guiyang"), lang="en", names=["A", "B", "C", "D"],
              base={"variant": "guiyang", "rules": {}, "dealer": 0})
    draft = new_draft()
    press(draft, ctx, "wh", "1")
    press(draft, ctx, "hd", "3")
    press(draft, ctx, "kt", "0")
    for key in ["k", "8m", "2m", "c", "5m", "c", "9m", "2", "1m", "3"]:
        key_press(draft, ctx, "t", key) if len(key) == 2 else \
            key_press(draft, ctx, key)
    key_press(draft, ctx, "d")
    assert draft.events == [{"type": "kong", "seat": 1, "kind": "concealed"}], draft.error
    press(draft, ctx, "b")  # to "how"
    press(draft, ctx, "ha", "2")  # West won off the same discard
    press(draft, ctx, "ha", "1")  # and South did not after all
    assert [w["seat"] for w in draft.pending["winners"]] == [2]
    assert draft.events == [] and "1" not in draft.reads


def test_the_photos_doubts_are_dropped_once_its_hand_is_corrected() -> None:
    """A photo read 5m for the 6m and was unsure of the 2m and a 1s: taking the 5m out keeps
    the hint (the hand is not whole yet), tapping the 6m in completes the corrected hand and the
    hint goes; a hand not changed keeps it."""
    photo = ["1m", "2m", "3m", "4m", "5m", "5m", "7m", "8m", "9m", "1s", "1s", "5s", "5s", "5s"]
    t = translator("en")
    untouched = new_state(photo)
    untouched.unsure = ["2m", "1s"]
    press_key(untouched, GUIYANG, "g")
    press_key(untouched, GUIYANG, "g")  # melds on and off: no tile changed
    assert untouched.unsure == ["2m", "1s"]
    s = copy.deepcopy(untouched)
    run(GUIYANG, "r 5m", s)
    assert s.unsure == ["2m", "1s"] and count(s) == 13
    assert "The photo was unsure of" in keys_screen(s, GUIYANG, t, lambda act, *arg: act.code).text
    run(GUIYANG, "6m", s)
    assert count(s) == 14 and not s.unsure
    assert "unsure" not in keys_screen(s, GUIYANG, t, lambda act, *arg: act.code).text


def test_a_photos_caption_tells_the_story_its_tiles_are_counted_with() -> None:
    """A photo captioned `/hu 东 自摸 妙手回春`: 妙手回春 beside the photo's tiles is the flag they
    are counted with (not an element besides them), so Done reads the 5-point tiles as 13
    points, over the minimum, and the win pays 8 + 13 each."""
    pytest.importorskip("MahjongGB")
    from bot.entry.hu import parse_wins
    from bot.entry.wizard.flow import photo_draft
    from scoring import score

    from .test_wizard import make_ctx

    ctx = make_ctx("mcr")
    tiles = ["1m", "2m", "3m", "4p", "5p", "6p", "6s", "7s", "8s", "2s", "3s", "4s", "5z", "5z"]
    draft = photo_draft(ctx, parse_wins(ctx.variant, ["东", "自摸", "妙手回春"]), tiles)
    assert draft.keys is not None  # the keyboard opened with the photo's tiles
    for code, tile in (("r", ""), ("t", "5z"), ("t", "5z"), ("d", "")):  # 5z, the winning tile
        key_press(draft, ctx, code, tile)
    winner = draft.pending["winners"][0]
    assert winner["last_of_wall"] is True and winner.get("elements") is None, winner
    assert winner["tiles"] == "123m456p234678s5z+5z"
    out = score(ctx.record([{**draft.pending, "winners": [
        {k: v for k, v in winner.items() if v not in (None, False, 0) or k == "seat"}]}]))
    assert out.deltas == (63, -21, -21, -21)
