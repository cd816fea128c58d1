"""Drafts stored by the wizard before its draft was typed (tests/bot/wizard_drafts.json: a hand
half-entered at several steps, as that version stored it, with the screen it showed) load, show
the same screen, and finish: a restart onto this version in the middle of a hand loses nothing."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from bot.entry.ctx import Ctx
from bot.entry.wizard.draft import HandDraft, Step
from bot.entry.wizard.flow import screen
from scoring import get_variant, score

from .test_wizard import buttons, find, key_press, tap

STORED = json.loads((Path(__file__).parent / "wizard_drafts.json").read_text(encoding="utf-8"))
VARIANTS = {"keys_open": "guiyang", "read": "guiyang", "ready_read": "guiyang",
            "photo_waiting": "luzhou", "how_two_winners": "luzhou", "held": "guiyang",
            "photo_keys": "guiyang"}


def ctx_for(variant: str) -> Ctx:
    return Ctx(get_variant(variant), "en", ["Alice", "Bob", "Carol", "Dan"],
               {"variant": variant, "rules": {}, "dealer": 0, "dealer_streak": 1,
                "round_wind": 0})


def loaded(name: str) -> tuple[HandDraft, Ctx, dict[str, Any]]:
    stored = STORED[name]
    return HandDraft.load(stored["draft"]), ctx_for(VARIANTS[name]), stored


@pytest.mark.parametrize("name", sorted(STORED))
def test_a_stored_draft_shows_the_screen_it_showed(name: str) -> None:
    draft, ctx, stored = loaded(name)
    view = screen(draft, ctx)
    assert view.text == stored["text"]
    assert [[b.text for b in row] for row in view.rows] == stored["labels"]
    assert HandDraft.load(draft.dump()) == draft  # and is stored again as it reads


def confirmed(draft: HandDraft, ctx: Ctx) -> list[int]:
    assert tap(draft, ctx, find(draft, ctx, "Confirm")) == "confirm", draft.error
    return list(score(ctx.record(draft.events)).deltas)


def test_the_keyboard_half_entered_goes_on_where_it_was() -> None:
    draft, ctx, _ = loaded("keys_open")
    assert draft.step is Step.KEYS and draft.keys is not None and draft.keys.w == 0
    for key in ["9m", "2", "1m", "3"]:
        key_press(draft, ctx, "t", key) if len(key) == 2 else key_press(draft, ctx, key)
    key_press(draft, ctx, "d")
    assert draft.events == [{"type": "kong", "seat": 1, "kind": "concealed"}], draft.error
    assert draft.reads["1"].tiles == "1123456799m[(8888m)]+1m"
    assert confirmed(draft, ctx)[1] > 0


def test_tiles_read_and_a_kong_they_added_stay_with_the_win() -> None:
    draft, ctx, _ = loaded("read")
    assert draft.auto_kongs == {"1": 1} and draft.reads["1"].state is not None
    tap(draft, ctx, find(draft, ctx, "Back"))  # back to "how": the tiles stay read
    tap(draft, ctx, find(draft, ctx, "Back"))  # the win taken back: its kong goes too
    assert draft.events == [] and "1" not in draft.reads and "1" in draft.held


def test_a_seats_ready_tiles_and_a_held_keyboard_open_again() -> None:
    draft, ctx, _ = loaded("ready_read")
    tap(draft, ctx, find(draft, ctx, "West's tiles"))
    assert draft.keys is not None and len(draft.keys.state.hand) == 13
    key_press(draft, ctx, "b")
    assert confirmed(draft, ctx) == [-5, -5, 15, -5]
    draft, ctx, _ = loaded("held")
    tap(draft, ctx, find(draft, ctx, "Enter tiles"))
    assert draft.keys is not None and draft.keys.state.hand == ["1m", "2m", "3m"]


def test_a_photos_tiles_wait_for_their_winner_then_open() -> None:
    draft, ctx, _ = loaded("photo_waiting")
    tap(draft, ctx, "h:1:wz:1")
    assert draft.step is Step.KEYS and draft.keys is not None
    assert draft.keys.state.unsure == ["2m"] and len(draft.keys.state.hand) == 14
    draft, ctx, _ = loaded("photo_keys")
    key_press(draft, ctx, "d")
    assert draft.pending is not None and draft.pending["winners"][0]["pure"] is True  # its words
    assert confirmed(draft, ctx)[1] > 0


def test_two_winners_on_how_go_on_to_the_discarder() -> None:
    draft, ctx, _ = loaded("how_two_winners")
    tap(draft, ctx, find(draft, ctx, "← North Dan (discard)"))
    for data in [data for label, data in buttons(draft, ctx) if label == "▫️ all pungs"]:
        tap(draft, ctx, data)  # plain 平胡 may not win off a discard in Luzhou
    assert sum(confirmed(draft, ctx)) == 0  # the third winner ends the blood battle
    assert draft.events[-1] == {
        "type": "win", "by": "discard", "from": 3,
        "winners": [{"seat": 1, "form": "all_pungs"}, {"seat": 2, "form": "all_pungs"}]}
