"""Reading a mahjong hand from a photo (optional extra `photo`): the reader in detect.py, with
our own models — the locator (locator.py: where the tiles are), the classifier (classify.py:
which tile), both loaded by models.py — the hand's row (row.py) and boxes (boxes.py); the
player's corrections in correct.py, fetching a chat's photo in chat.py."""

from .correct import (
    Add,
    Correction,
    Remove,
    Replace,
    apply_corrections,
    corrected_string,
    corrections_between,
)
from .detect import (
    INSTALL_HINT,
    TILE_KINDS,
    DetectedTile,
    PhotoError,
    PhotoReading,
    photo_support,
    read_tiles,
    read_tiles_async,
    tile_string,
)

__all__ = ["INSTALL_HINT", "TILE_KINDS", "Add", "Correction", "DetectedTile", "PhotoError", "PhotoReading",
           "Remove", "Replace", "apply_corrections", "corrected_string", "corrections_between",
           "photo_support", "read_tiles", "read_tiles_async", "tile_string"]
