"""Reading a tile request (scoring/tiles/request.py) and its quick paths: the tile string read
from its bytes and the memo, the tile check against the step-by-step reference, the request's
fields by the model's generated check — each refusal the same field, template and values as
the step-by-step reading gives."""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from pydantic import Field, model_validator

from scoring import ScoringError, get_variant
from scoring.errors import validated
from scoring.model import StrictModel
from scoring.tiles import clear_caches
from scoring.tiles.notation import RawMeld, TileString, _read, parse_tiles, read_tiles, tile_name
from scoring.tiles.request import Request, Table, _check_tiles, read_request, split_win
from tests.styles import tile_styles, tileset

from .tiles_reference import refuse_tiles

TILE_IDS = {tile_name(x): x for x in range(34)}

TEXTS = [
    "", "7z6p5p6p8p6p7p6p7p5p4p8p9p", "123m456p789s11z", "19m19p19s1234567z+5z",
    "7z6p5p6p8p6p7p[6s6s6s]+5p", "5m4m4s6m6m[7m7m7m][(9m9m9m9m)]+8m", "11m[555p]22m[(9999s)]33m",
    "1m[555p]", "[555p]1m2m+3m", "12f345m", "1 2 3m", "123m 东东东 中中", "一万二萬三万 九筒 幺鸡",
    # wrong, each refused as the reader refuses it
    "1[555p]m", "8[(5m5m5m5m)]8m", "1z2m6z5p6z6z2m7p1z1[3m3m3m]m", "8z", "9z1m", "0m", "1m0p",
    "1m+55m", "1m+2m+3m", "1m+", "+", "[123m", "[12m]", "[(555m)]", "[(5555m]", "[5555m)]",
    "[555p]]", "[[555p]", "[5f5f5f]", "1m)", "m", "123", "1m2", "5p]", "1m+5m[555p]", "1m+ 5m",
    "7z[555p]5p]", "[555p]55p][123m]", "[(5555p)]5p]5p][555p]", "[555p][", "1m[5p", "[555p]]",
]


def outcome(read: Any, text: Any) -> Any:
    try:
        hand, melds, win, flowers = read(text)
    except ScoringError as exc:
        return exc.field, exc.template, exc.params
    return hand, melds, win, flowers


@pytest.mark.parametrize("text", TEXTS)
def test_the_quick_reading_of_tiles_is_the_readers(text: str) -> None:
    clear_caches()  # nothing in the memo: the reader reads it
    first = outcome(read_tiles, text)
    assert first == outcome(_read, text)
    for other in TEXTS:  # the memo filled with every group and meld
        outcome(read_tiles, other)
    assert outcome(read_tiles, text) == first
    if len(first) == 4:
        assert parse_tiles(text) == TileString(*first)


@pytest.mark.parametrize(("text", "template", "params"), [
    ("1[555p]m", "the digits {digits} at the end need a suit letter (m, p, s, z or f)",
     {"digits": "1"}),
    ("7z6p8z", "honours are 1z–7z (got {tile})", {"tile": "8z"}),
    ("1m0p", "suited tiles are 1–9 (got {tile})", {"tile": "0p"}),
    ("1m+55m", "exactly one tile follows '+' (the winning tile)", {}),
    ("1m+2m+3m", "only one winning tile may follow '+'", {}),
    ("[(5555m]", "a concealed kong is written [(5555p)]: ')' missing", {}),
])
def test_a_malformed_string_is_refused_as_before(text: str, template: str,
                                                  params: dict[str, Any]) -> None:
    for _ in range(2):  # memo empty, then filled
        with pytest.raises(ScoringError) as err:
            parse_tiles(text)
        assert (err.value.field, err.value.template, err.value.params) == ("tiles", template,
                                                                          params)


LUZHOU = {"variant": "luzhou", "rules": {"ghosts": 8}}


@pytest.mark.parametrize(("data", "field", "template", "params"), [
    ({"variant": "guiyang", "tiles": "123m456m789m11s22s2z"}, "tiles",
     "{variant} does not use {tile}: it plays the three suits only",
     {"variant": "guiyang", "tile": "2z"}),
    ({**LUZHOU, "tiles": "123m456m789m11s7z3z1z"}, "tiles",
     "luzhou does not use {tile}: it plays the three suits and 红中 (7z) only", {"tile": "3z"}),
    ({"variant": "luzhou", "rules": {"ghosts": 4}, "tiles": "123m456m789m7z7z7z7z7z"}, "tiles",
     "{count} 红中 but this table plays with {ghosts} (rule ghosts)", {"count": 5, "ghosts": 4}),
    ({"variant": "hainan", "tiles": "11111m456m789m11s"}, "tiles",
     "{count} of {tile}: there are only four of each tile", {"count": 5, "tile": "1m"}),
    ({"variant": "hainan", "tiles": "1111m456m789m11s[111m]"}, "tiles",
     "{count} of {tile}: there are only four of each tile", {"count": 7, "tile": "1m"}),
    ({"variant": "hainan", "tiles": "9999s456m789m11s+9s"}, "tiles",
     "{count} of {tile}: there are only four of each tile", {"count": 5, "tile": "9s"}),
    ({"variant": "cixi", "indicator": "1m", "tiles": "123m456m789m11s1f+1s"}, "tiles",
     "{variant} plays without flowers", {"variant": "cixi"}),
    ({"variant": "hainan", "tiles": "123m456m789m11s22s1f1f"}, "tiles",
     "there is only one of each flower", {}),
    ({"variant": "hainan", "tiles": "123m456m789m11s22s", "seat": 4}, "seat",
     "{number} is not a seat (seats are 0–3)", {"number": 4}),
    ({"variant": "hainan", "tiles": "123m456m789m11s22s", "seat": True}, "seat",
     "must be an integer (got {value})", {"value": "True"}),
    ({"variant": "hainan", "tiles": "123m456m789m11s22s", "round_wind": 4}, "round_wind",
     "must be ≤ {max} (got {value})", {"max": 3, "value": "4"}),
    ({"variant": "hainan", "tiles": "123m456m789m11s22s", "by": "tsumo"}, "by",
     "must be one of {expected} (got {value})",
     {"expected": "'self_draw', 'discard' or 'robbed_kong'", "value": "'tsumo'"}),
    ({"variant": "hainan", "tiles": "123m456m789m11s22s", "indicator": 5}, "indicator",
     "must be a string (got {value})", {"value": "5"}),
    ({"variant": "hainan", "tiles": 5}, "tiles", "must be a string (got {value})", {"value": "5"}),
    ({"variant": "hainan"}, "tiles", "is required", {}),
    ({"variant": "hainan", "tiles": "11m", "seat": "1", "turn": 2}, "seat",
     "must be an integer (got {value})", {"value": "'1'"}),
    ({"variant": "hainan", "tiles": "11m", "turn": 2}, "turn", "unknown field", {}),
    ({"variant": "hainan", "tiles": "11m", "rules": {"ghosts": 8}}, "rules.ghosts",
     "unknown rule for {variant}", {"variant": "hainan"}),
    ({"variant": "luzhou", "tiles": "11m", "rules": {"ghosts": 8.0}}, "rules.ghosts",
     "must be one of {expected} (got {value})", {"expected": "4 or 8", "value": "8.0"}),
    ({"variant": "hainan", "tiles": "11m", "rules": []}, "rules",
     "must be an object (got {value})", {"value": "[]"}),
])
def test_a_request_is_refused_as_before(data: dict[str, Any], field: str, template: str,
                                        params: dict[str, Any]) -> None:
    for _ in range(2):  # memos empty, then filled
        with pytest.raises(ScoringError) as err:
            split_win(read_request(data), 14)
        assert (err.value.field, err.value.template, err.value.params) == (field, template,
                                                                          params)


def test_what_is_not_refused() -> None:
    # 红中 beyond four up to the rule ghosts; four of a tile; flowers in Hainan
    for data in [{**LUZHOU, "tiles": "123m456m789m7z7z7z7z7z"},
                 {"variant": "hainan", "tiles": "1111m456m789m1122s", "indicator": None},
                 {"variant": "hainan", "tiles": "123m456m789m11s22s1f2f"}]:
        t = read_request(data)
        assert isinstance(t, Table) and t.req == Request.model_validate(data)
    t = read_request({"variant": "hainan", "tiles": "123m456m789m11s22s1f2f"})
    assert t.flowers == (0, 1) and t.hand[-1] == 19 and t.name == "hainan"


class Inner(StrictModel):
    n: int = Field(default=1, ge=0, le=9)


class Outer(StrictModel):
    name: str
    inner: Inner | None = None
    tags: list[str] = Field(default_factory=list)
    from_: int | None = Field(default=None, alias="from")

    @model_validator(mode="after")
    def named(self) -> Outer:
        if self.name == "x":
            raise ValueError("not x")  # not a template: raised as it is
        return self


class Plain(StrictModel):
    a: int
    b: str = "b"
    c: dict[str, Any] = Field(default_factory=dict)


@pytest.mark.parametrize(("model", "data", "field", "template"), [
    (Plain, {"b": "x"}, "a", "is required"),
    (Plain, {"a": 1, "b": 2}, "b", "must be a string (got {value})"),
    (Plain, {"a": 1, "d": 2, "b": 2}, "b", "must be a string (got {value})"),
    (Plain, {"a": 1, "d": 2}, "d", "unknown field"),
    (Plain, {"a": 1, "c": {"k": 1, 2: 3}}, "c[2]", "must be a string (got {value})"),
    (Plain, [], "", "must be an object (got {value})"),
    (Outer, {"name": "n", "inner": {"n": 10}}, "inner.n", "must be ≤ {max} (got {value})"),
    (Outer, {"name": "n", "inner": {"n": -1}}, "inner.n", "must be ≥ {min} (got {value})"),
    (Outer, {"name": "n", "from": "1"}, "from", "must be an integer (got {value})"),
    (Outer, {"name": "n", "from_": 1}, "from_", "unknown field"),
    (Outer, {"name": "n", "tags": ["a", 1]}, "tags[1]", "must be a string (got {value})"),
])
def test_a_record_refusal_names_the_first_field_in_order(
        model: type[StrictModel], data: Any, field: str, template: str) -> None:
    with pytest.raises(ScoringError) as err:
        validated(model, data)
    assert (err.value.field, err.value.template) == (field, template)


def test_a_record_keeps_field_order_defaults_and_fresh_factories() -> None:
    one, two = Plain.model_validate({"b": "x", "a": 1}), Plain.model_validate({"a": 2})
    assert list(one.__dict__) == ["a", "b", "c"] and one.model_dump() == {"a": 1, "b": "x",
                                                                          "c": {}}
    assert one.c is not two.c and two.b == "b"
    given = {"k": [1]}
    assert Plain.model_validate({"a": 1, "c": given}).c == given
    assert Plain.model_validate({"a": 1, "c": given}).c is not given  # a copy, as before
    outer = Outer.model_validate({"from": 2, "name": "n", "inner": {}})
    assert list(outer.__dict__) == ["name", "inner", "tags", "from_"]
    assert outer.from_ == 2 and outer.inner == Inner(n=1) and Outer.model_validate(outer) is outer
    with pytest.raises(ValueError, match="not x"):
        Outer.model_validate({"name": "x"})


# -- the quick paths against the step-by-step ones, on any input ---------------------------------

PIECES = st.sampled_from(["1", "2", "5", "7", "9", "0", "m", "p", "s", "z", "f", "[", "]", "(",
                          ")", "+", " ", "中", "东", "5m", "7z", "123m", "11z", "[555p]",
                          "[(9999s)]", "[5m5m5m]", "+5m", "2f"])


@settings(max_examples=300, deadline=None)
@given(st.lists(PIECES, max_size=16).map("".join))
def test_any_tile_string_is_read_as_the_reader_reads_it(text: str) -> None:
    first = outcome(read_tiles, text)  # memo as other examples left it
    slow = outcome(_read, text)  # the reader, which remembers the valid pieces it met
    assert first == slow
    assert outcome(read_tiles, text) == slow  # now with this string's pieces remembered


def tile_outcome(check: Any, *args: Any) -> Any:
    try:
        check(*args)
    except ScoringError as exc:
        return exc.field, exc.template, exc.params
    return None


@settings(max_examples=300, deadline=None)
@given(variant=st.sampled_from(tile_styles()),
       hand=st.lists(st.integers(0, 33), max_size=14),
       meld=st.one_of(st.none(), st.lists(st.integers(0, 33), min_size=3, max_size=4)),
       win=st.one_of(st.none(), st.integers(0, 33)),
       flowers=st.lists(st.integers(0, 7), max_size=3),
       ghosts=st.integers(4, 8))
def test_the_tile_check_refuses_what_the_reference_refuses(
        variant: str, hand: list[int], meld: list[int] | None, win: int | None,
        flowers: list[int], ghosts: int) -> None:
    tiles = tileset(variant)  # a fixed joker as itself; turned ones: two tiles as if turned
    jokers = frozenset(TILE_IDS[x] for x in tiles.fixed) or (
        frozenset({4, 5}) if tiles.indicator else frozenset())
    rules = SimpleNamespace(ghosts=ghosts)
    melds = (RawMeld(tuple(meld), False),) if meld else ()
    all_tiles = [*hand, *(meld or []), *([win] if win is not None else [])]
    quick = tile_outcome(_check_tiles, get_variant(variant), tuple(hand), melds, win, tuple(flowers),
                         jokers, rules)
    assert quick == tile_outcome(refuse_tiles, variant, all_tiles, tuple(flowers), jokers,
                                 rules)


def test_a_style_reading_its_own_tiles_counts_the_story_told_beside_them() -> None:
    """Every registered style that counts the hand whole (`reads_own_tiles`) takes, in its
    `analyze` request, each of its story fields and `after_kong` (`Variant.story_for_tiles`),
    so that the flags a player gives count with the tiles; the others' requests carry none."""
    from scoring.tiles import analyze
    from scoring.variant import all_variants

    for variant in all_variants().values():
        fields = variant.Winner.model_fields
        story = {name: True if fields[name].annotation in (bool, "bool") else 1
                 for name in variant.story_fields()}
        given = variant.story_for_tiles(story, after_kong=True)
        if not variant.reads_own_tiles:
            assert given == {}, variant.name
            continue
        assert set(given) == {*variant.story_fields(), "after_kong"}, variant.name
        with pytest.raises(ScoringError) as exc:  # each field read, not refused as unknown
            analyze({"variant": variant.name, "tiles": "1m", **given})
        assert exc.value.field not in given, (variant.name, exc.value)
