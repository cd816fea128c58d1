"""The styles the tests run over, read from the registry in its order (`ORDER` in
scoring/variants/__init__.py): no test types out a list of them, so a style added in its folder
is worked through every such test with no edit to the tests (and tests/test_docs.py checks the
docs' lists against the same registry)."""

from __future__ import annotations

from scoring.tileset import TileSet
from scoring.variant import get_variant, listed


def every_style() -> tuple[str, ...]:
    return tuple(v.name for v in listed())


def keyed_styles() -> tuple[str, ...]:
    """The styles whose hands are keyed in tile by tile (a `tiles` declaration)."""
    return tuple(v.name for v in listed() if v.tiles is not None)


def tile_styles() -> tuple[str, ...]:
    """The styles the shared tile engine reads (`tiles`, with `tile_features`), not those that
    count their whole hand themselves (`reads_own_tiles`)."""
    return tuple(v.name for v in listed() if v.tiles is not None and not v.reads_own_tiles)


def tileset(variant: str) -> TileSet:
    tiles = get_variant(variant).tiles
    assert tiles is not None, variant
    return tiles
