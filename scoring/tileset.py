"""What a style's tiles are, as plain data its `Variant` declares (`Variant.tiles`): which tiles
the set holds, its jokers and how a turned tile names them, and which winning shapes it knows.
The tile analysis (scoring/tiles), the tile keyboard and the page read these and nothing else
about a style's tiles.

Tiles are named as in the notation (docs/tiles.md): "5m", "7z" (红中), "3f".
"""

from __future__ import annotations

from dataclasses import dataclass

Term = tuple[str, str, str]  # (en, zh-Hans, zh-Hant), as scoring.variant.Term


@dataclass(frozen=True)
class Shapes:
    """Which shapes a variant knows besides four sets and a pair."""

    seven_pairs: bool = True
    honor_chows: bool = False  # three different winds, or 中发白, are a chow (Feibao)
    thirteen_orphans: bool = False  # 十三幺 (Hainan)
    orphans: bool = False  # 九幺: terminals and honours in any order (Feibao)
    waves: bool = False  # 十三浪 / 大乱: nothing connects (Feibao, Cixi)
    all_honors: bool = False  # 全风: every tile but the jokers an honour (Cixi)
    # what readings the features can tell apart: "all" keeps every reading; "win" merges
    # readings alike in suits, quads, chows, joker count and where the winning tile and a
    # joker sit; "plain" the same without the winning tile (features that never ask where the
    # winning tile sits)
    keep: str = "all"


@dataclass(frozen=True)
class Jokers:
    """A style's jokers (百搭): tiles that stand for any other tile.

    Either the same tiles at every table (`fixed`), or the tiles a tile turned up before play
    names (`turned`, the indicator): each joker is that many steps after the turned tile in
    indicator order (0: the turned tile itself; 9 wraps to 1, 北 to 东, 中 to 白)."""

    # each joker's name, in `fixed` or `turned` order, as the keys and the reading show it
    # ("龙 5万", "正精 4万"; a fixed one beside its face: "🀄 鬼")
    names: tuple[Term, ...]
    fixed: tuple[str, ...] = ()
    turned: tuple[int, ...] = ()
    # a joker tile may also stand for itself (False: a 红中 held is always a ghost)
    as_themselves: bool = True
    # what a /hu line may call the first joker to name the turned tile by it: `龙=6m`
    words: tuple[str, ...] = ()
    # /help's example of naming it on a /hu line, in each language ("龙=6m in Cixi")
    example: Term | None = None


@dataclass(frozen=True)
class TileSet:
    """The tiles a style plays and how its hands read. The numbered suits are always in."""

    honours: bool = True  # the seven honours 东南西北白发中 (a fixed joker is in either way)
    flowers: bool = False  # the eight flowers 春夏秋冬梅兰菊竹, one of each
    animals: bool = False  # the four animals 猫鼠鸡蜈 (Singapore), one of each, beside the flowers
    chows: bool = True  # a chow may be melded (False: only pungs and kongs are)
    shapes: Shapes = Shapes()
    jokers: Jokers | None = None
    # 缺一门: a hand must lack one of the three suits. The word is what the ready map of an
    # exhausted wall takes for a hand still holding all three (花猫); None: no such rule
    missing_suit: str | None = None
    # what a /hu line may call that hand at an exhausted wall ("花猫", "flower cat")
    missing_suit_words: tuple[str, ...] = ()
    # the winner features ask whether the hand before the winning tile waited on one tile only
    # (单张和): the waits are then worked out for every winning hand, which costs a search
    single_wait: bool = False

    @property
    def indicator(self) -> bool:
        """The jokers follow a tile turned up before play, which a hand's tiles must name."""
        return self.jokers is not None and bool(self.jokers.turned)

    @property
    def fixed(self) -> tuple[str, ...]:
        """The jokers that are the same at every table."""
        return self.jokers.fixed if self.jokers is not None else ()
