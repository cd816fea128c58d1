"""Tiles as the chat names them: one label per tile for the keyboard's buttons and every line
that names a tile, and the notation of a reading (`123m 111z`) in those labels."""

from __future__ import annotations

import re

from .i18n import N_, Translator

# Button labels: short, the characters on the tiles (an English table reads 東/中 off them too)
HONOUR_LABELS = (N_("E"), N_("S"), N_("W"), N_("N"), N_("Wh"), N_("Gr"), N_("Rd"))
FLOWER_LABELS = (N_("Spr"), N_("Sum"), N_("Aut"), N_("Wtr"), N_("Plum"), N_("Orch"), N_("Chrys"),
                 N_("Bmb"))
ANIMAL_LABELS = (N_("Cat"), N_("Mouse"), N_("Rooster"), N_("Centipede"))
SUIT_LABELS = {"m": N_("{n}m"), "p": N_("{n}p"), "s": N_("{n}s")}
_RUN = re.compile(r"([1-9]+)([mpszfa])")


def tile_label(t: Translator, tile: str) -> str:
    """A tile's name on a button: "5p" / "5筒", 东 / "E", 春 / "Spring"."""
    n, s = int(tile[0]), tile[1]
    if s == "z":
        return t(HONOUR_LABELS[n - 1])
    if s == "f":
        return t(FLOWER_LABELS[n - 1])
    if s == "a":
        return t(ANIMAL_LABELS[n - 1])
    return t(SUIT_LABELS[s], n=n)


def notation_text(t: Translator, text: str) -> str:
    """Tile notation as the keyboard names the tiles, for Chinese text: `111z [555m]` →
    `东东东 [555万]`. English keeps the notation, which is what a /hu line types."""
    if not str(getattr(t, "lang", "en")).startswith("zh"):
        return text

    def run(m: re.Match[str]) -> str:
        digits, suit = m.group(1), m.group(2)
        if suit in "zfa":
            return "".join(tile_label(t, d + suit) for d in digits)
        return t(SUIT_LABELS[suit], n=digits)

    return _RUN.sub(run, text)
