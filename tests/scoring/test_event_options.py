"""A style says which options of the shared events it has: the made-up style keeps the shared
kong event, robs no kong (`win_types`) and has no 杠上花 / 杠上炮 (`options_off`), so a record
that sets those is refused at the field, and no form offers them (tests/bot/test_event_options.py)."""

from __future__ import annotations

from typing import Any

import pytest

from scoring import ScoringError, score
from scoring.model import KongEvent
from scoring.variant import Variant, all_variants

KONG = {"type": "kong", "seat": 0, "kind": "added"}


def toy(*events: dict[str, Any]) -> dict[str, Any]:
    return {"variant": "toy", "events": list(events)}


def test_the_made_up_style_uses_the_shared_kong_event(made_up_style: Variant) -> None:
    assert KongEvent in made_up_style.events
    assert made_up_style.lacks("kong", made_up_style.Rules()) == {"robbed"}
    assert made_up_style.lacks("win", made_up_style.Rules()) == {"after_kong"}


def test_a_robbed_kong_is_refused_where_nobody_robs(made_up_style: Variant) -> None:
    win = {"type": "win", "by": "discard", "from": 0, "winners": [{"seat": 1}]}
    with pytest.raises(ScoringError) as exc:
        score(toy({**KONG, "robbed": True}, win))
    assert exc.value.field == "events[0].robbed"
    assert exc.value.template == "{variant} has no {option} in a {event}: leave {option} off"
    assert exc.value.params == {"variant": "toy", "option": "robbed", "event": "kong"}
    # the near miss: the same kong, not robbed, is an ordinary event of the hand
    assert score(toy(KONG, win)).to_dict()["deltas"] == [-1, 1, 0, 0]


def test_an_option_the_style_leaves_off_is_refused(made_up_style: Variant) -> None:
    win = {"type": "win", "by": "self_draw", "winners": [{"seat": 0}]}
    with pytest.raises(ScoringError) as exc:
        score(toy(KONG, {**win, "after_kong": True}))
    assert exc.value.field == "events[1].after_kong"
    assert score(toy(KONG, {**win, "after_kong": False})).to_dict()["deltas"] == [3, -1, -1, -1]


def test_a_style_that_robs_keeps_the_option() -> None:
    styles = all_variants()
    robbing = [v for v in styles.values() if "kong" in v.event_types()
               and "robbed_kong" in v.win_types(v.Rules())]
    assert robbing and all("robbed" not in v.lacks("kong", v.Rules()) for v in robbing)


def _fields(v: Variant, event: str) -> set[str]:
    model = next(ev for ev in v.events if ev.model_fields["type"].annotation.__args__[0] == event)
    return {info.alias or name for name, info in model.model_fields.items()}


def test_every_style_declares_only_options_its_events_have(made_up_style: Variant) -> None:
    for name, v in all_variants().items():
        for event, options in v.options_off.items():
            assert event in v.event_types(), (name, event)
            assert set(options) <= _fields(v, event) - {"type"}, (name, event, options)
