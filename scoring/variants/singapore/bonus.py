"""Singapore's bonus tiles: the eight flowers and the four animals, whose they are, the tai they
add to a win and the instant payments (bites, 咬) their sets book when they are shown.

A bonus tile is an index as the tile notation keeps it (scoring/tiles/notation.py): 0–3 the
seasons 春夏秋冬, 4–7 the flowers 梅兰菊竹, 8–11 the animals 猫鼠鸡蜈. The records name them
by these keys, each a boolean of a winner or of a `bonus` event.
"""

from __future__ import annotations

from collections.abc import Iterable

BONUS = ("spring", "summer", "autumn", "winter", "plum", "orchid", "chrysanthemum", "bamboo",
         "cat", "mouse", "rooster", "centipede")
CHARS = "春夏秋冬梅兰菊竹猫鼠鸡蜈"  # each as the tile shows it, what a refusal names
SEASONS = frozenset(range(4))
FLOWERS = frozenset(range(4, 8))
ANIMALS = frozenset(range(8, 12))
PAIRS = (frozenset((8, 9)), frozenset((10, 11)))  # cat and mouse, rooster and centipede

# a bite's payment from each other seat, in stakes (a 1-tai share); a hidden bite (暗咬) doubles
BITE_STAKES = {"animal_pair": 1, "all_animals": 2, "own_flowers": 1, "flower_set": 2,
               "season_set": 2}


def held(obj: object) -> frozenset[int]:
    """The bonus tiles a winner or a `bonus` event marks."""
    return frozenset(i for i, key in enumerate(BONUS) if getattr(obj, key))


def own(seat: int, dealer: int) -> frozenset[int]:
    """A seat's own season and flower: the dealer (East) 春 and 梅, the next 夏 and 兰 …"""
    p = (seat - dealer) % 4
    return frozenset((p, 4 + p))


def tai_elements(tiles: frozenset[int], seat: int, dealer: int) -> list[tuple[str, int]]:
    """The tai the bonus tiles a winner holds add: each own flower or season 1, a full set of
    four flowers or of four seasons 1 more, each animal 1, all four animals 1 more."""
    out: list[tuple[str, int]] = []
    mine = len(tiles & own(seat, dealer))
    if mine:
        out.append((f"own_flower:{mine}" if mine > 1 else "own_flower", mine))
    for key, group in (("season_set", SEASONS), ("flower_set", FLOWERS)):
        if group <= tiles:
            out.append((key, 1))
    animals = len(tiles & ANIMALS)
    if animals:
        out.append((f"animal:{animals}" if animals > 1 else "animal", animals))
    if animals == 4:
        out.append(("all_animals", 1))
    return out


def bites(before: frozenset[int], after: frozenset[int], seat: int, dealer: int) -> list[str]:
    """The bites a seat's showing more bonus tiles completes (`before` → `after`): a pair of
    animals, all four animals (in place of the second pair), its own season and flower, a full
    set of seasons or of flowers."""
    out: list[str] = []
    if ANIMALS <= after and not ANIMALS <= before:
        # the first pair, if it completes only now, still bites on its own
        done = [p for p in PAIRS if p <= before]
        if not done and sum(1 for p in PAIRS if p <= after) == 2:
            out.append("animal_pair")
        out.append("all_animals")
    else:
        out += ["animal_pair" for p in PAIRS if p <= after and not p <= before]
    mine = own(seat, dealer)
    if mine <= after and not mine <= before:
        out.append("own_flowers")
    if SEASONS <= after and not SEASONS <= before:
        out.append("season_set")
    if FLOWERS <= after and not FLOWERS <= before:
        out.append("flower_set")
    return out


def names(tiles: Iterable[int]) -> list[str]:
    return [BONUS[i] for i in sorted(tiles)]


def crossed(tiles: frozenset[int], seat: int, whose: dict[int, int]) -> list[tuple[int, int]]:
    """The pairs split between this seat and another that showing `tiles` completes, each as
    (predator, prey): the cat and the rooster eat the mouse and the centipede (rule
    `cross_bites`)."""
    out = []
    for pair in PAIRS:
        predator, prey = sorted(pair)
        if (predator in tiles or prey in tiles) and pair <= whose.keys() \
                and whose[predator] != whose[prey] and seat in (whose[predator], whose[prey]):
            out.append((predator, prey))
    return out
