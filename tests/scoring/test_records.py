"""The record layer (pydantic models, `scoring.model`; refusals by `scoring.errors`): strictness,
field order, the paths and messages of refusals, and the model API the bot and the variants
use."""

from __future__ import annotations

import pytest
from pydantic import Field, ValidationError, model_validator

from scoring import ScoringError, score
from scoring.errors import invalid, validated
from scoring.model import StrictModel, WinEvent
from scoring.variant import get_variant

from .cli import self_draw


def test_a_field_named_like_an_event_type_is_named_in_the_error() -> None:
    """Feibao's winner field fei_bao is also an event type: the path keeps it."""
    bad = {"variant": "feibao", "events": [self_draw(1, fei_bao="two")]}
    with pytest.raises(ScoringError) as err:
        score(bad)
    assert err.value.field == "events[0].winners[0].fei_bao"
    unknown = {"variant": "guiyang", "events": [self_draw(1, ready=True)]}
    with pytest.raises(ScoringError) as err:
        score(unknown)
    assert err.value.field == "events[0].winners[0].ready"
    assert err.value.template == "unknown field"


@pytest.mark.parametrize("value", [True, 1.0, "1"])
def test_a_numeric_choice_takes_only_integers(value: object) -> None:
    with pytest.raises(ScoringError) as err:
        score({"variant": "luzhou", "rules": {"no_ghost_steps": value}, "events": []})
    assert err.value.field == "rules.no_ghost_steps"
    assert err.value.message == f"must be one of 1 or 2 (got {value!r})"


def test_fields_keep_declaration_order_base_classes_first() -> None:
    """The bot's buttons refer to fields by position, so the order is part of the contract."""
    winner = get_variant("luzhou").Winner
    assert list(winner.model_fields)[:5] == ["form", "pure", "quads", "no_ghost", "seat"]
    win = get_variant("feibao").events[0]
    assert list(win.model_fields) == ["type", "by", "from_", "after_kong", "winners",
                                      "robs_earlier_kongs"]
    assert win.model_fields["from_"].alias == "from"


class Pair(StrictModel):
    a: int = Field(default=0, ge=0, le=3)
    b: list[int] = Field(default_factory=list, min_length=1, max_length=2)

    @model_validator(mode="after")
    def _differ(self) -> Pair:
        if self.a in self.b:
            raise invalid("{n} twice", n=self.a)
        return self


def test_models_check_construct_compare_and_dump() -> None:
    p = Pair.model_validate({"b": [1]})
    assert (p.a, p.b) == (0, [1]) and p == Pair(b=[1])
    assert p.model_dump() == {"a": 0, "b": [1]}
    with pytest.raises(ValidationError):
        p.a = 2  # type: ignore[misc]
    cases = [({"b": [1], "c": 1}, "pair.c", "unknown field", {}),
             ({"b": []}, "pair.b", "has {count} items, needs at least {n}", {"count": 0, "n": 1}),
             ({"b": [1, 2, 3]}, "pair.b", "has {count} items, allows at most {n}",
              {"count": 3, "n": 2}),
             ({"a": 4, "b": [1]}, "pair.a", "must be ≤ {max} (got {value})",
              {"max": 3, "value": "4"}),
             ({"a": 1, "b": [0, "x"]}, "pair.b[1]", "must be an integer (got {value})",
              {"value": "'x'"}),
             ({"a": 1, "b": [1]}, "pair", "{n} twice", {"n": 1})]
    for data, field, template, params in cases:
        with pytest.raises(ScoringError) as err:
            validated(Pair, data, "pair")
        assert (err.value.field, err.value.template, err.value.params) == (field, template,
                                                                           params), data


def test_a_generic_event_is_one_class_per_winner_type() -> None:
    winner = get_variant("hainan").Winner
    assert WinEvent[winner] is WinEvent[winner]
    assert issubclass(WinEvent[winner], WinEvent)
    ev = WinEvent[winner].model_validate({"type": "win", "by": "self_draw",
                                          "winners": [{"seat": 2}]})
    assert isinstance(ev, WinEvent) and isinstance(ev.winners[0], winner) and ev.seats == [2]
