"""The README and docs/ as a reader finds them in a clone: every link to a file of the
repository leads to one, the README stays short, and its test command is the one CI runs."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from scoring.variant import Variant, in_lang, listed

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


# -- the lists of styles ---------------------------------------------------------------------
# A list of the styles in a page stands between <!-- styles --> and <!-- /styles --> (or
# <!-- styles, any order --> where it is grouped otherwise, as a table of jokers): it names every
# registered style, in the registry's order. A style named by its code (`luzhou`,
# rules/luzhou.md) or its English short name (Luzhou).
_LIST = re.compile(r"(?<!`)<!-- styles(, any order)? -->(.*?)<!-- /styles -->", re.S)  # not `quoted`


def _mention(text: str, v: Variant) -> int | None:
    """Where a text first names a style, or None."""
    found = [m.start() for pattern in (rf"\b{re.escape(v.name)}\b", re.escape(in_lang(v.short, "en")))
             if (m := re.search(pattern, text))]
    return min(found, default=None)


def style_lists(page: Path) -> list[tuple[bool, str]]:
    """(in order, text) of each marked list of styles on a page."""
    return [(not m.group(1), m.group(2)) for m in _LIST.finditer(page.read_text(encoding="utf-8"))]


LISTING = [p for p in PAGES if style_lists(p)]


def test_the_pages_mark_their_lists_of_styles() -> None:
    names = {p.relative_to(ROOT).as_posix() for p in LISTING}
    assert {"README.md", "docs/README.md", "docs/commands.md", "docs/hand-format.md",
            "docs/tiles.md"} <= names


@pytest.mark.parametrize("page", LISTING, ids=lambda p: str(p.relative_to(ROOT)))
def test_every_list_of_styles_names_every_style_in_the_registrys_order(page: Path) -> None:
    styles = listed()
    for ordered, text in style_lists(page):
        where = {v.name: _mention(text, v) for v in styles}
        missing = [n for n, at in where.items() if at is None]
        assert not missing, f"{page.name}: a list of styles lacks {missing}: {text.strip()[:80]}"
        if ordered:
            assert sorted(where, key=lambda n: where[n]) == [v.name for v in styles], (
                f"{page.name}: not in the order of scoring/variants/__init__.py's ORDER: {text[:80]}")


@pytest.mark.parametrize("page", PAGES, ids=lambda p: str(p.relative_to(ROOT)))
def test_no_list_of_styles_goes_unchecked(page: Path) -> None:
    """A paragraph or table row outside the marks that names four styles or more by their
    codes is a list of them the tests would not check: mark it."""
    text = _LIST.sub("", page.read_text(encoding="utf-8"))
    styles = listed()
    for block in re.split(r"\n\s*\n|\n(?=\|)", text):
        codes = [v.name for v in styles if re.search(rf"`{v.name}`|rules/{v.name}\.md", block)]
        assert len(codes) < 4, f"{page.name}: an unmarked list of styles {codes}: {block[:80]}"
