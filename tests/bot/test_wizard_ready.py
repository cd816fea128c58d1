"""查叫 by tiles in the wizard without Telegram (bot/entry/wizard/ready.py): the exhausted wall's form
offers a tiles button per seat still in; the keyboard's 13 tiles become that seat's ready entry
as scoring.tiles.ready_entry reads them."""

from __future__ import annotations

import pytest

from bot.entry.controls import FormError
from bot.entry.ctx import Ctx
from bot.entry.keyboard import KeyRefused
from bot.entry.wizard.flow import HandDraft, new_draft, screen
from scoring import score
from scoring.tiles import ready_entry

from .test_wizard import buttons, find, key_press, make_ctx, press, tap

PUNGS = "111m222m333p44p55p"


def enter(draft: HandDraft, ctx: Ctx, tiles: list[str]) -> None:
    for tile in tiles:
        key_press(draft, ctx, "t", tile)
    key_press(draft, ctx, "d")


def split(tiles: str) -> list[str]:
    out, digits = [], ""
    for c in tiles:
        if c.isdigit():
            digits += c
        else:
            out += [d + c for d in digits]
            digits = ""
    return out


def test_a_seats_tiles_fill_its_ready_entry_and_the_form_says_so() -> None:
    ctx, d = make_ctx("guiyang"), new_draft()
    press(d, ctx, "x")
    tap(d, ctx, find(d, ctx, "South's tiles"))
    assert d.step == "keys" and "Tiles of South" in screen(d, ctx).text
    enter(d, ctx, split(PUNGS))
    assert d.step == "form"
    assert d.pending["ready"]["1"] == ready_entry(
        {"variant": "guiyang", "tiles": PUNGS, "seat": 1})["ready"] == {"form": "all_pungs"}
    text = screen(d, ctx).text
    assert "South &lt;b&gt;&amp;Bob: ready, waiting on 3p 4p 5p 6p." in text, text
    assert tap(d, ctx, find(d, ctx, "Confirm")) == "confirm"
    out = score(ctx.record(d.events)).to_dict()
    assert out["deltas"] == [-5, 15, -5, -5]


def test_the_keyboard_opens_again_with_the_tiles_and_a_hand_tap_hides_the_reading() -> None:
    ctx, d = make_ctx("guiyang"), new_draft()
    press(d, ctx, "x")
    press(d, ctx, "rt", "2")
    enter(d, ctx, split(PUNGS))
    press(d, ctx, "rt", "2")  # to correct: the keyboard holds the 13 tiles of before
    assert len(d.keys.state.hand) == 13
    key_press(d, ctx, "b")
    tap(d, ctx, find(d, ctx, "West Carol"))  # a tap by hand: the entry is no longer the tiles'
    assert "West Carol: ready" not in screen(d, ctx).text


def test_declared_ready_survives_the_tiles() -> None:
    ctx, d = make_ctx("guiyang"), new_draft()
    press(d, ctx, "x")
    d.pending["ready"]["0"] = {"declared": True}  # 报听 tapped on East's form first
    press(d, ctx, "rt", "0")
    enter(d, ctx, split(PUNGS))
    assert d.pending["ready"]["0"] == {"form": "all_pungs", "declared": True}
    assert "15 ge from each seat that is not ready" in screen(d, ctx).text


def test_refusals_leave_the_keyboard_as_it_was() -> None:
    ctx, d = make_ctx("luzhou"), new_draft()
    press(d, ctx, "x")
    press(d, ctx, "rt", "3")
    for tile in split("123m456p789s"):
        key_press(d, ctx, "t", tile)
    with pytest.raises(KeyRefused):
        key_press(d, ctx, "d")  # 9 tiles: not a hand
    assert len(d.keys.state.hand) == 9 and d.step == "keys"
    for tile in split("1122m"):
        key_press(d, ctx, "t", tile)
    key_press(d, ctx, "d")  # three suits: 花猫
    assert d.pending["ready"]["3"] == "flower_cat"


def test_only_seats_still_in_and_only_where_the_wall_is_checked() -> None:
    ctx, d = make_ctx("luzhou"), new_draft()
    tap(d, ctx, "h:1:wz:0")
    tap(d, ctx, "h:1:d")
    press(d, ctx, "x")
    labels = [label for label, _ in buttons(d, ctx) if "tiles" in label]
    assert labels == ["🀄 South's tiles", "🀄 West's tiles", "🀄 North's tiles"]
    with pytest.raises(FormError):
        press(d, ctx, "rt", "0")  # East won: no ready entry
    ctx, d = make_ctx("hainan"), new_draft()
    press(d, ctx, "x")
    assert not any("tiles" in label for label, _ in buttons(d, ctx))
    with pytest.raises(FormError):
        press(d, ctx, "rt", "0")
