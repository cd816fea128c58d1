"""A photo's flowers in the chat (issue 38): where the style plays flowers (Chinese Official,
Hainan, Singapore) they open among the keyboard's flowers and count exactly as flowers tapped on
their keys; elsewhere they are left out, never hand tiles, and the photo's note says so. The
reading is stubbed: tiles as the reader names them (PhotoReading.names, flowers `1f`…`8f`)."""

from __future__ import annotations

import copy
from typing import Any

import pytest

from bot.entry.hu import parse_wins
from bot.entry.keyboard import KeyRefused, KeySpec, ReadRefused, keys_screen, new_state, notation
from bot.entry.photo_tiles import photo_tiles
from bot.entry.wizard import reading
from bot.entry.wizard.flow import HandDraft, photo_draft
from bot.photo.detect import UNCERTAIN, DetectedTile, PhotoReading
from bot.view.i18n import translator
from scoring import score
from scoring.variant import all_variants

from .test_wizard import key_press, make_ctx
from .test_wizard_tiles import run

HAND = ["1m", "2m", "3m", "4m", "5m", "6m", "7m", "8m", "9m", "1p", "2p", "3p", "5p", "5p"]
FLOWER_STYLES = ("mcr", "hainan", "singapore")
PLAIN_STYLES = ("guiyang", "luzhou", "cixi", "feibao")


def reading_of(names: list[str], unsure: tuple[str, ...] = ()) -> PhotoReading:
    """A stubbed photo's reading: the tiles in reading order, those in `unsure` read with little
    confidence, boxes side by side."""
    return PhotoReading(tuple(
        DetectedTile(x, UNCERTAIN / 2 if x in unsure else 0.97, (60 * i, 0, 60 * i + 50, 70))
        for i, x in enumerate(names)))


def opened(style: str, names: list[str], unsure: tuple[str, ...] = (),
           words: tuple[str, ...] = ("E", "self-draw")) -> tuple[Any, HandDraft]:
    """What hu_photo builds for a photo captioned `/hu E self-draw`: the draft, its keyboard open
    with the photo's tiles for East."""
    ctx = make_ctx(style)
    seen = reading_of(names, unsure)
    draft = photo_draft(ctx, parse_wins(ctx.variant, list(words)), seen.names,
                        [seen.names[i] for i in seen.uncertain])
    assert draft.keys is not None, draft
    return ctx, draft


def booked(ctx: Any, draft: HandDraft) -> dict[str, Any]:
    """The win event the draft's Confirm books: the features set, the seat."""
    pending = draft.pending or {}
    winners = [{k: v for k, v in w.items() if v not in (None, False, 0) or k == "seat"}
               for w in pending["winners"]]
    return {**{k: v for k, v in pending.items() if v is not None}, "winners": winners}


def done(ctx: Any, draft: HandDraft, presses: tuple[tuple[str, str], ...] = ()) -> dict[str, Any]:
    for code, tile in (*presses, ("d", "")):
        key_press(draft, ctx, code, tile)
    assert draft.keys is None, "Done did not read the tiles"
    return booked(ctx, draft)


def test_every_style_with_flowers_takes_them_and_the_others_leave_them_out() -> None:
    """The styles split by their TileSet: a new style with flowers takes them with no change here."""
    names = [*HAND[:7], "3f", *HAND[7:], "1f", "3f"]  # a flower read twice is one flower
    for name, v in all_variants().items():
        if v.tiles is None:  # a style entered by its features: hu_photo refuses the photo first
            continue
        kept = photo_tiles(v, names)
        assert kept.hand == HAND, name
        if v.tiles.flowers:
            assert (kept.flowers, kept.left_out) == (["3f", "1f"], []), name
        else:
            assert (kept.flowers, kept.left_out) == ([], ["3f", "1f"]), name
    assert {n for n, v in all_variants().items() if v.tiles and v.tiles.flowers} == set(FLOWER_STYLES)


@pytest.mark.parametrize("style", FLOWER_STYLES)
def test_the_photos_flowers_open_among_the_keyboards_flowers(style: str) -> None:
    ctx, draft = opened(style, ["5f", *HAND, "2f"])
    state = draft.keys.state
    assert state.hand == HAND and state.flowers == ["5f", "2f"]
    assert state.log == ["h"] * 14 + ["f", "f"]  # backspace takes the flowers first, one by one
    text = keys_screen(state, KeySpec(style), ctx.t, lambda act, *a: act.code).text
    assert "14 of 14 tiles" in text, text  # the flowers are no hand tiles
    assert notation(state, KeySpec(style)).endswith("p25f")  # the flowers after the hand
    labels = [b.text for row in keys_screen(state, KeySpec(style), ctx.t,
                                            lambda act, *a: act.code).rows for b in row]
    assert "✅Sum" in labels and "✅Plum" in labels and "Spr" in labels, labels  # ticked as tapped


@pytest.mark.parametrize(("style", "presses"), [
    ("hainan", ()),
    ("singapore", ()),
    # the Chinese Official rules count the winning tile: a photo does not say which it is
    ("mcr", (("r", ""), ("t", "5p"), ("t", "5p"))),
])
def test_a_photos_flower_counts_as_one_tapped_on_its_key(style: str,
                                                         presses: tuple[tuple[str, str], ...]) -> None:
    """The same hand and flowers, the flowers once read from the photo and once tapped: the same
    tiles, the same reading, the same payments; and more than without them."""
    ctx, photo = opened(style, [*HAND, "1f", "5f"])
    from_photo = done(ctx, photo, presses)
    ctx, tapped = opened(style, HAND)
    from_keys = done(ctx, tapped, (("t", "1f"), ("t", "5f"), *presses))
    assert photo.reads["0"].tiles == tapped.reads["0"].tiles
    assert "15f" in photo.reads["0"].tiles
    assert from_photo == from_keys
    ctx, bare = opened(style, HAND)
    without = done(ctx, bare, presses)
    assert from_photo != without
    with_flowers = score(ctx.record([from_photo]))
    assert with_flowers.deltas == score(ctx.record([from_keys])).deltas
    assert with_flowers.to_dict() != score(ctx.record([without])).to_dict()


def test_hainan_counts_the_photos_own_seat_flowers_only() -> None:
    """East's own flowers are 春 (1f) and 梅 (5f); 夏 (2f) is South's: two own flowers, each a 番
    the win's lines name (Hainan's 番 open the gate; the payment is the hand's points)."""
    ctx, draft = opened("hainan", [*HAND, "1f", "2f", "5f"])
    winner = done(ctx, draft)["winners"][0]
    assert winner["seat_flower"] == 2, winner
    lines = [line.to_dict() for line in score(ctx.record([booked(ctx, draft)])).lines]
    assert any("seat_flower:2" in str(line) for line in lines), lines
    ctx, draft = opened("hainan", [*HAND, "2f", "6f"])
    assert "seat_flower" not in done(ctx, draft)["winners"][0]


def test_chinese_official_counts_a_point_a_flower_beside_the_minimum() -> None:
    """Each flower is a point the payers add; the minimum of 8 is reached without them."""
    pytest.importorskip("MahjongGB")
    retap = (("r", ""), ("t", "5p"), ("t", "5p"))
    ctx, draft = opened("mcr", [*HAND, "1f", "3f", "8f"])
    with_flowers = score(ctx.record([done(ctx, draft, retap)]))
    ctx, draft = opened("mcr", HAND)
    without = score(ctx.record([done(ctx, draft, retap)]))
    assert [d - w for d, w in zip(with_flowers.deltas, without.deltas, strict=True)] == \
        [9, -3, -3, -3]


def test_singapore_pays_for_the_photos_flowers() -> None:
    """111m 234m 555p 789s 99s is no Singapore win on its own (0 台, the table's minimum is 1);
    with East's own flowers 春 and 梅 from the photo it is, at 2 台."""
    hand = ["1m", "1m", "1m", "2m", "3m", "4m", "5p", "5p", "5p", "7s", "8s", "9s", "9s", "9s"]
    ctx, draft = opened("singapore", hand)
    with pytest.raises(ReadRefused):
        done(ctx, draft)
    ctx, draft = opened("singapore", [*hand, "1f", "5f"])
    win = done(ctx, draft)
    assert win["winners"][0]["spring"] and win["winners"][0]["plum"], win
    assert score(ctx.record([win])).deltas == (120, -40, -40, -40)


def test_singapore_names_the_flowers_and_an_animal_is_still_tapped() -> None:
    """Singapore: the photo's flowers are named features of the win, and an animal (the photo
    reads none) is tapped on its key beside them and counted too."""
    ctx, draft = opened("singapore", [*HAND, "1f", "5f"])
    key_press(draft, ctx, "t", "1a")  # the cat
    assert draft.keys.state.flowers == ["1f", "5f", "1a"]
    winner = done(ctx, draft)["winners"][0]
    assert winner["spring"] and winner["plum"] and winner["cat"], winner
    assert "summer" not in winner and "mouse" not in winner, winner


@pytest.mark.parametrize("style", PLAIN_STYLES)
def test_a_style_without_flowers_leaves_them_out_and_done_reads_the_hand(style: str) -> None:
    hand = ["1m", "2m", "3m", "4m", "5m", "6m", "7m", "8m", "9m", "1s", "1s", "5s", "5s", "5s"]
    # Cixi and Feibao need the turned tile; their keyboards open all the same
    ctx, draft = opened(style, ["1f", *hand, "6f"], unsure=("6f",))
    state = draft.keys.state
    assert state.hand == hand and state.flowers == [] and state.unsure == []
    assert state.log == ["h"] * 14
    assert "f" not in notation(state, KeySpec(style))
    text = keys_screen(state, KeySpec(style), ctx.t, lambda act, *a: act.code).text
    assert "unsure" not in text and "14 of 14 tiles" in text, text
    if style == "guiyang":
        assert done(ctx, draft)["winners"][0]["seat"] == 0


def test_flowers_left_out_before_the_winner_is_known() -> None:
    """/hu answering the photo, no words: the tiles wait in the draft for the winner's keyboard,
    already without the flowers a style without them does not play."""
    ctx = make_ctx("guiyang")
    draft = photo_draft(ctx, [], [*HAND, "3f"])
    assert draft.keys is None and draft.photo == HAND
    ctx = make_ctx("hainan")
    draft = photo_draft(ctx, [], [*HAND, "3f", "3f"])
    assert draft.photo == [*HAND, "3f"]


@pytest.mark.parametrize(("lang", "taken", "left_out"), [
    ("en", ["14 tiles and 2 flowers read from the photo: check them, correct any the photo got "
            "wrong, then tap Done.", "13 tiles and 1 flower read from the photo",
            "14 tiles read from the photo: check them"],
     ["14 tiles read from the photo: check them, correct any the photo got wrong, then tap "
      "Done.\n2 flowers left out: this style plays none.", "1 flower left out: this style plays none."]),
    ("zh-Hans", ["从照片里认出 14 张牌和 2 张花牌：请核对", "从照片里认出 13 张牌和 1 张花牌",
                 "从照片里认出 14 张牌：请核对"],
     ["从照片里认出 14 张牌：请核对，认错的改过来，然后点「完成」。\n"
      "照片里的 2 张花牌没有算进去：这种玩法不用花牌。",
      "照片里的 1 张花牌没有算进去"]),
    ("zh-Hant", ["從照片裡認出 14 張牌和 2 張花牌：請核對", "從照片裡認出 13 張牌和 1 張花牌",
                 "從照片裡認出 14 張牌：請核對"],
     ["從照片裡認出 14 張牌：請核對，認錯的改過來，然後點「完成」。\n"
      "照片裡的 2 張花牌沒有算進去：這種玩法不用花牌。",
      "照片裡的 1 張花牌沒有算進去"]),
])
def test_the_photos_note_counts_the_tiles_and_the_flowers_apart(lang: str, taken: list[str],
                                                                left_out: list[str]) -> None:
    t = translator(lang)
    hainan, guiyang = all_variants()["hainan"], all_variants()["guiyang"]

    def note(v: Any, names: list[str]) -> str:
        return reading.photo_note(t, photo_tiles(v, names))

    assert taken[0] in note(hainan, [*HAND, "1f", "7f"])
    assert taken[1] in note(hainan, [*HAND[:13], "7f"])
    plain = note(hainan, HAND)
    assert taken[2] in plain and "\n" not in plain and "花" not in plain and "flower" not in plain
    assert note(guiyang, [*HAND, "1f", "7f"]) == left_out[0]
    assert left_out[1] in note(guiyang, [*HAND, "7f"])


def test_an_unsure_flower_is_named_like_an_unsure_tile_until_checked() -> None:
    ctx, draft = opened("hainan", [*HAND, "1f", "7f"], unsure=("2m", "7f"))
    state = draft.keys.state
    assert state.unsure == ["2m", "7f"]
    text = keys_screen(state, KeySpec("hainan"), ctx.t, lambda act, *a: act.code).text
    assert "The photo was unsure of: 2m Chrys" in text, text
    # correcting the hand (the 2m) checks the hand's tiles, not the flower
    key_press(draft, ctx, "r")
    key_press(draft, ctx, "t", "2m")
    key_press(draft, ctx, "t", "2m")
    assert draft.keys.state.unsure == ["7f"]
    # the flower taken out: nothing left to doubt
    key_press(draft, ctx, "r")
    key_press(draft, ctx, "t", "7f")
    assert draft.keys.state.unsure == [] and draft.keys.state.flowers == ["1f"]


def test_backspace_and_take_out_handle_the_photos_flowers() -> None:
    spec = KeySpec("hainan")
    ctx, draft = opened("hainan", [*HAND, "1f", "3f", "5f"], unsure=("3f",))
    state = copy.deepcopy(draft.keys.state)
    # backspace: the flowers first, the last read first; the hand's tiles after them
    run(spec, "x", state)
    assert state.flowers == ["1f", "3f"] and state.hand == HAND
    run(spec, "x", state)
    assert state.flowers == ["1f"] and state.unsure == []  # the doubted flower went
    run(spec, "x x", state)
    assert state.flowers == [] and state.hand == HAND[:-1]
    # take out: one flower from the middle; backspace then takes the last flower left
    state = copy.deepcopy(draft.keys.state)
    run(spec, "r 3f", state)
    assert state.flowers == ["1f", "5f"] and state.log == ["h"] * 14 + ["f", "f"]
    assert state.unsure == []
    with pytest.raises(KeyRefused) as refused:  # a flower not held: refused, nothing changes
        run(spec, "r 2f", state)
    assert refused.value.msgid == "{tile} is not in the hand."
    assert state.flowers == ["1f", "5f"]
    run(spec, "x", state)  # the take-out mode called off
    run(spec, "x", state)
    assert state.flowers == ["1f"]
    # a flower the photo read, tapped again: there is one of each
    with pytest.raises(KeyRefused):
        run(spec, "1f", state)
    # tapped back in after a take-out, it counts as read
    run(spec, "5f", state)
    assert sorted(state.flowers) == ["1f", "5f"]
    assert notation(state, spec) == notation(new_state([*HAND, "1f", "5f"]), spec)
