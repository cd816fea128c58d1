"""The callback codec (bot/plumbing/callbacks.py): every action of the table round-trips, within
Telegram's 64 bytes with the largest values its fields carry; each family's handler pattern
claims its own data only; data of any other shape, or values a field does not carry, are
refused."""

from __future__ import annotations

import re

import pytest

from bot.plumbing.callbacks import LIMIT, Act, Family, Value, decode, encode

ACTS = pytest.mark.parametrize("act", list(Act), ids=lambda a: a.name)


def values(act: Act, pick: str) -> tuple[tuple[Value, ...], tuple[Value, ...]]:
    """The head's and the fields' values: each kind's smallest (None where a field may be
    none) or largest."""
    return (tuple(getattr(f.kind, pick) for f in act.family.head),
            tuple(getattr(f.kind, pick) for f in act.fields))


@ACTS
@pytest.mark.parametrize("pick", ["largest", "smallest"])
def test_every_action_round_trips_within_64_bytes(act: Act, pick: str) -> None:
    head, args = values(act, pick)
    data = encode(act, head, *args)
    assert data.isascii() and len(data.encode()) <= LIMIT, (data, len(data))
    tap = decode(data)
    assert tap is not None and tap.act is act, data
    named = [*act.family.head, *act.fields]
    assert tap.values == {f.name: v for f, v in zip(named, (*head, *args), strict=True)}
    assert tap.args == args


@ACTS
def test_every_action_says_what_it_does_and_its_family_claims_it(act: Act) -> None:
    assert act.does and not act.does.endswith(".")
    head, args = values(act, "largest")
    data = encode(act, head, *args)
    assert [f for f in Family if re.match(f.pattern, data)] == [act.family]


def test_optional_fields_may_be_left_out() -> None:
    assert encode(Act.PAID, (), 1, 2, 300) == "p:1:2:300"
    assert decode("p:1:2:300").values == {"payer": 1, "payee": 2, "cents": 300,  # type: ignore[union-attr]
                                          "session": None}
    assert decode("pc:7:12").values == {"payment": 7, "session": 12}  # type: ignore[union-attr]


def test_the_wire_format_of_the_sessions_and_ledger_buttons_is_kept() -> None:
    """Messages posted before the codec keep working: the same data, the same actions."""
    for data, act in [("s:12:j", Act.JOIN), ("s:12:w:2", Act.SWAP), ("r:12:3", Act.RULE),
                      ("n:luzhou", Act.NEW_SESSION), ("l:zh-Hant", Act.LANGUAGE),
                      ("p:1:2:3:4", Act.PAID), ("pc:5", Act.RECEIVED)]:
        tap = decode(data)
        assert tap is not None and tap.act is act
        head = tuple(tap.values[f.name] for f in act.family.head)
        assert encode(act, head, *[v for v in tap.args if v is not None]) == data


@pytest.mark.parametrize("data", [
    None, "", "h", "h:", "h:1", "h:1:2", "h:1:2:zz", "h:1:wh:0", "k:t:5m", "k:d",  # older screens
    "h:1:2:wh", "h:1:2:wh:4", "h:1:2:wh:0:1", "h:-1:2:q", "h:1:2:t:-1", "h:1:2:t:4.-1.1",
    "h:1:2:i:4.0.2:x", "h:1:2:v:0m", "k:1:t:0z", "k:1:t", "k:1:zz", "x" * 64, "p:1:2",
    "p:1:2:3:4:5", "p:１:2:3", "pc:", "s:1", "s:1:j:2", "s:x:j", "r:1", "l:", "n:", "q:1",
    "p:1:2:99999999999999999999", "s:12345678901234:j",
])
def test_data_of_any_other_shape_is_refused(data: str | None) -> None:
    assert decode(data) is None


@pytest.mark.parametrize(("act", "head", "args"), [
    (Act.WINNER, (1, 1), (4,)), (Act.WINNER, (1, 1), ()), (Act.KEY_TILE, (1,), ("0m",)),
    (Act.PAID, (), (1, 2, 10**19)), (Act.JOIN, (10**13,), ()), (Act.CANCEL, (1,), ()),
    (Act.REMOVE_LAST, (1, 10**9), ()), (Act.NEW_SESSION, (), ("no:colons",)),
])
def test_a_value_a_field_does_not_carry_is_not_written(act: Act, head: tuple[Value, ...],
                                                      args: tuple[Value, ...]) -> None:
    with pytest.raises(ValueError):
        encode(act, head, *args)
