"""An outcome survives the store: what `to_dict` writes (the JSON a hand is stored with),
`from_dict` reads back as the same Outcome, so the bot works on the type, never on a dict."""

from __future__ import annotations

import json

import pytest

from scoring import score
from scoring.outcome import Outcome
from tests.worked_examples import Example

from .test_worked_examples import EXAMPLES


@pytest.mark.parametrize("example", EXAMPLES, ids=lambda e: e.name)
def test_an_outcome_read_back_from_json_is_the_same(example: Example) -> None:
    outcome = score(example.record)
    stored = json.loads(json.dumps(outcome.to_dict()))  # lists where the type has tuples
    back = Outcome.from_dict(stored)
    assert back == outcome
    assert back.to_dict() == stored


def test_the_examples_have_lines_with_terms_and_values() -> None:
    """The round trip above meets a line's optional parts, and a line without its value."""
    lines = [line for e in EXAMPLES for line in score(e.record).lines]
    assert any(line.terms for line in lines) and any(line.value is not None for line in lines)
    assert any(line.value is None for line in lines)
