"""Every worked example of docs/ (each style's rules page and the hand record's), scored through
the real command line: the outcome each page writes under its record, every line in order."""

from __future__ import annotations

import pytest

from scoring import get_variant
from tests.worked_examples import VARIANTS, Example, differences, read_page

from .cli import assert_invariants, run_cli

PAGES = ["hand-format.md", *(f"rules/{v}.md" for v in VARIANTS)]
# As many as each style's rules had when they moved into docs/: a page may add, never lose one.
AT_LEAST = {f"rules/{v}.md": 3 for v in VARIANTS} | {"hand-format.md": 1}
EXAMPLES = [e for page in PAGES for e in read_page(page).examples]


@pytest.mark.parametrize("example", EXAMPLES, ids=lambda e: e.name)
def test_the_record_gives_the_outcome_its_page_says(example: Example) -> None:
    code, out, err = run_cli(example.record)
    assert code == 0, (out, err)
    assert not differences(out, example.outcome), differences(out, example.outcome)
    variant = get_variant(example.record["variant"])
    start = example.record.get("balances") or list(
        variant.initial_balances(variant.read_rules(example.record.get("rules", {}))))
    assert_invariants(out, start)


@pytest.mark.parametrize("page", PAGES)
def test_every_worked_example_is_checked(page: str) -> None:
    """Each numbered item of a rules page's "Worked examples" has a record and its outcome, and
    no page has fewer examples than it had."""
    read = read_page(page)
    numbers = [e.number for e in read.examples]
    assert read.items == tuple(range(1, len(read.items) + 1)), read.items
    assert [n for n in read.items if n not in numbers] == [], "items without a record"
    assert len(read.items or numbers) >= AT_LEAST[page]


def test_the_comparison_notices_a_wrong_figure() -> None:
    """`differences` fails an outcome that differs from its page, a line's text aside."""
    out = {"deltas": [1, -1, 0, 0], "lines": [{"what": "win", "seat": 0, "deltas": [1, -1, 0, 0],
                                               "text": "any words"}]}
    assert differences(out, {"deltas": [1, -1, 0, 0], "lines": [{"text": "other words"}]}) == []
    assert differences(out, {"deltas": [2, -2, 0, 0]})
    assert differences(out, {"lines": [{"deltas": [1, 0, -1, 0]}]})
    assert differences(out, {"lines": []})
    assert differences(out, {"next_dealer": 0})
