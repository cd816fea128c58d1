"""The player's corrections turn what the detector read into the hand on the table."""

from __future__ import annotations

from collections import Counter

import pytest
from hypothesis import given
from hypothesis import strategies as st

from bot.photo import (
    TILE_KINDS,
    Add,
    Remove,
    Replace,
    apply_corrections,
    corrected_string,
    corrections_between,
    read_tiles,
    tile_string,
)
from tests.photo.render import render, scene_for


def test_each_kind_of_correction() -> None:
    detected = ["1m", "2m", "7p", "9s", "1z", "1z"]
    fixes = [Replace(2, "8s"), Remove(4), Add("7z"), Add("7z")]
    assert apply_corrections(detected, fixes) == ["1m", "2m", "8s", "9s", "1z", "7z", "7z"]
    assert corrected_string(detected, fixes) == "12m89s177z"
    assert corrected_string(detected, []) == "12m7p9s11z"
    # Positions name the detected tiles, so the order of the corrections does not matter.
    assert corrected_string(detected, reversed(fixes)) == corrected_string(detected, fixes)


@pytest.mark.parametrize("fixes, problem", [
    ([Replace(6, "1m")], "no detected tile at position 6"),
    ([Remove(-1)], "no detected tile at position -1"),
    ([Replace(1, "3m"), Remove(1)], "corrected twice"),
    ([Replace(0, "8z")], "unknown tile '8z'"),
    ([Add("9f")], "unknown tile '9f'"),  # 1f…8f are the flowers a photo may read
])
def test_impossible_corrections_are_refused(fixes: list, problem: str) -> None:
    with pytest.raises(ValueError, match=problem):
        apply_corrections(["1m", "2m", "7p", "9s", "1z", "1z"], fixes)


def test_the_fewest_corrections_keep_what_was_read_right() -> None:
    detected = ["1m", "2m", "7p", "9s", "1z", "1z"]
    intended = ["1m", "2m", "8s", "9s", "1z", "7z", "7z"]
    assert corrections_between(detected, intended) == [Replace(2, "8s"), Replace(5, "7z"), Add("7z")]
    assert corrections_between(intended, intended) == []
    assert corrections_between(["5p", "5p"], []) == [Remove(0), Remove(1)]


hands = st.lists(st.sampled_from(TILE_KINDS), max_size=18).filter(
    lambda tiles: max(Counter(tiles).values(), default=0) <= 4)


@given(detected=st.lists(st.sampled_from(TILE_KINDS), max_size=20), intended=hands)
def test_corrections_always_reach_the_hand_in_the_fewest_steps(detected: list[str],
                                                               intended: list[str]) -> None:
    fixes = corrections_between(detected, intended)
    assert corrected_string(detected, fixes) == tile_string(intended)
    common = sum((Counter(detected) & Counter(intended)).values())
    # Each correction fixes at most one tile, so no shorter list exists.
    assert len(fixes) == max(len(detected), len(intended)) - common
    kept = set(range(len(detected))) - {f.index for f in fixes if not isinstance(f, Add)}
    assert Counter(detected[i] for i in kept) <= Counter(intended)


def test_misread_photos_are_put_right_by_their_corrections() -> None:
    """Real detections of generated photos, misreads included: the corrections a player makes
    (replace what is wrong, remove what is not there, add what was missed) give the hand."""
    misread = 0
    for condition, seed in [("rotated", 1), ("rotated", 2), ("noisy", 3), ("two rows", 4), ("clean", 2)]:
        scene = scene_for(condition, seed)
        reading = read_tiles(render(scene))
        fixes = corrections_between(reading.names, scene.all_tiles)
        misread += bool(fixes)
        assert corrected_string(reading.names, fixes) == tile_string(scene.all_tiles)
        assert len(fixes) < len(scene.all_tiles) / 2  # the photo still saved most of the typing
    assert misread >= 3  # the point: these photos were not read perfectly
