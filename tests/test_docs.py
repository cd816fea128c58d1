"""The README and docs/ as a reader finds them in a clone: every link to a file of the
repository leads to one, the README stays short, and its test command is the one CI runs."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PAGES = [ROOT / "README.md", *sorted((ROOT / "docs").rglob("*.md"))]
_LINK = re.compile(r"\]\(([^)\s]+)\)")


@pytest.mark.parametrize("page", PAGES, ids=lambda p: str(p.relative_to(ROOT)))
def test_every_link_into_the_repository_leads_to_a_file(page: Path) -> None:
    targets = [m.group(1).split("#")[0] for m in _LINK.finditer(page.read_text(encoding="utf-8"))]
    local = [t for t in targets if t and not re.match(r"[a-z]+:", t)]
    # out of the clone: what lies beside a checkout (../shared) is not there for a reader
    outside = [t for t in local if not (page.parent / t).resolve().is_relative_to(ROOT)]
    assert not outside, outside
    missing = [t for t in local if not (page.parent / t).resolve().exists()]
    assert not missing, missing


def test_the_readme_reads_in_two_minutes() -> None:
    assert len((ROOT / "README.md").read_text(encoding="utf-8").splitlines()) <= 120


def test_the_readme_test_command_is_the_one_ci_runs() -> None:
    ci = (ROOT / ".ci" / "run").read_text(encoding="utf-8")
    command = "python3 -m venv .venv && .venv/bin/pip install -e '.[test]' && .venv/bin/pytest"
    assert command in ci.splitlines()
    assert f"    {command}" in (ROOT / "README.md").read_text(encoding="utf-8").splitlines()
