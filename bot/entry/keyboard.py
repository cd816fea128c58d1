"""The tile keyboard: a hand entered tile by tile on one message (issue 14).

Reusable on its own (the /hand wizard's winner step uses it, 查叫 by tiles too). The state is a
`KeyState`, kept in the caller's draft (stored as JSON); three pure functions work on it:

    state = new_state(tiles=("1m", "2m"), win=False)   # a blank hand, or one read from a photo
    spec = KeySpec(variant=session.variant, rules={}, want=14)  # want=13: a ready hand
    press_key(state, spec, act, tile) -> KeyExit.DONE | KeyExit.BACK | None  # raises KeyRefused
    keys_screen(state, spec, t, cb, title="") -> Screen             # t: the chat's translator
    notation(state, spec) -> "123m456p[555s]+7z"                    # what scoring.tiles reads

The keys are the tile keyboard's actions of the callback table (bot/plumbing/callbacks.py `Act`,
family KEYS): a tile (`KEY_TILE`: "5m", "7z", "3f"; the joker keys are tiles too: a fixed joker
such as 红中, and once the turned tile is known the jokers it names, 龙 or 正精 and 副精), the set
keys acting on the tile just tapped (`PAIR` one more of it, `PUNG` two more, `CHOW` the next two
of its suit, `SAME_SET` the set just entered once more: 112233 is 1m, Chow, Same set),
`BACKSPACE` (one key back: a whole set), `MELDS` on/off, `KONG` (the next tile is a concealed
kong), `TAKE_OUT`, `TURNED` (the next tile is the turned indicator, `state.indicator`, for
`analyze`/`waits`), `KEYS_DONE`, `KEYS_BACK`. `cb(act)`, `cb(Act.KEY_TILE, tile)` make a key's
callback data.
`state.unsure`: tiles a photo was unsure of, named above the keys until taken out, or until the
tiles were changed and the hand is whole again (corrected); a flower's doubt stays until that
flower is taken out (Take out, or ⌫).

The caller keeps the state in its own draft, routes its keys to `press_key` and shows
`keys_screen`; many quick taps should go through bot/plumbing/throttle.py (the /hand wizard's
handler, bot/commands/hands.py `on_key`, answers each tap at once and coalesces the edits).
A `KeyRefused` carries a msgid and its params (`refusal_text(t, exc)` translates it) for the
callback's answer; the state is then unchanged. DONE means the tile count is right for `want`
(14 plus one per kong); whether the tiles win is scoring's call (`scoring.tiles.analyze` /
`waits` on `notation`).

Tiles keep the order they were added in; with `spec.want == 14` the last tile added to the hand
is the winning tile (`+` in the notation), unless the hand came from a photo and no tile has been
added since. A set key adds its tiles after the one tapped, so the winning tile is the set's
last: 5s + Pung wins on a 5s, 4m + Chow on the 6m (to win on the 4m of 456m, tap 5m 6m 4m).
In meld mode taps build exposed sets: a chow closes at its third tile, four of a kind close as a
kong, a pung closes when a different tile starts the next meld (or at done).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from scoring.tiles.request import joker_codes
from scoring.variant import TileSet, Variant, get_variant, in_lang

from ..plumbing.callbacks import Act
from ..plumbing.messages import Button
from ..view.i18n import N_, Translator
from ..view.render import esc
from ..view.tiles import tile_label
from .screens import Screen

SUITS = "mps"
FLOWERS = tuple(f"{n}f" for n in range(1, 9))
ANIMALS = tuple(f"{n}a" for n in range(1, 5))  # Singapore's cat, mouse, rooster, centipede
BONUS = (*FLOWERS, *ANIMALS)  # the bonus tiles: shown apart from the hand, one of each
HONOURS = tuple(f"{n}z" for n in range(1, 8))
# Unicode mahjong tiles: 🀇…🀏 characters, 🀙…🀡 dots, 🀐…🀘 bamboo, 🀀🀁🀂🀃 winds, 🀆🀅🀄
# white green red; flowers 春夏秋冬 🀦🀧🀨🀩, 梅兰菊竹 🀢🀣🀥🀤
_GLYPH_BASE = {"m": 0x1F007, "p": 0x1F019, "s": 0x1F010}
_HONOUR_GLYPHS = "🀀🀁🀂🀃🀆🀅🀄"
_FLOWER_GLYPHS = "🀦🀧🀨🀩🀢🀣🀥🀤"
_ANIMAL_GLYPHS = ("🐈", "🐀", "🐓", "🐛")  # no mahjong tile in Unicode for the animals

Cb = Callable[..., str]  # a key's callback data: cb(key), cb(Act.KEY_TILE, tile)


class KeyRefused(Exception):
    """A tap the keyboard does not take; `msgid`/`params` say why (translate with t)."""

    def __init__(self, msgid: str, **params: object) -> None:
        super().__init__(msgid)
        self.msgid, self.params = msgid, params


class ReadRefused(Exception):
    """Tiles the analysis refused: `text` is the chat's explanation (plain text)."""

    def __init__(self, text: str) -> None:
        super().__init__(text)
        self.text = text


class KeyExit(StrEnum):
    """How a key leaves the keyboard."""

    DONE = "done"
    BACK = "back"


class Mode(StrEnum):
    """What the next tile tapped does."""

    HAND = "hand"  # goes into the hand
    MELD = "meld"  # builds an exposed set
    KONG = "kong"  # makes a concealed kong
    REMOVE = "remove"  # is taken out
    INDICATOR = "indicator"  # is the turned tile


class Meld(BaseModel):
    """A set apart from the hand: exposed (`open` while still being entered) or a concealed kong."""

    tiles: list[str]
    concealed: bool = False
    open: bool = False


class KeyState(BaseModel):
    """A keyboard's state, as the caller's draft stores it (JSON)."""

    model_config = ConfigDict(extra="ignore")

    hand: list[str] = Field(default_factory=list)
    melds: list[Meld] = Field(default_factory=list)
    flowers: list[str] = Field(default_factory=list)
    # what each key added, for backspace: h a hand tile, f a flower, k a kong, g a meld's tile;
    # a set key's tiles as one ("h+2": a pung's two; "g=3": a meld repeated)
    log: list[str] = Field(default_factory=list)
    mode: Mode = Mode.HAND
    last: str | None = None
    win: bool = False  # the hand's last tile is the winning one
    indicator: str | None = None
    base: str | None = None  # the tile the set keys act on (the one just tapped)
    again: list[str] | None = None  # the set Same set repeats
    unsure: list[str] = Field(default_factory=list)

    def restore(self, kept: KeyState) -> None:
        """Back to `kept` (a copy taken before a key that was refused)."""
        for name in type(self).model_fields:
            setattr(self, name, getattr(kept, name))


@dataclass(frozen=True)
class KeySpec:
    """What the keyboard offers: the variant's tiles (its `Variant.tiles`), and how many tiles
    make a hand."""

    variant: str
    rules: dict[str, Any] = field(default_factory=dict)
    want: int = 14  # 14: a winning hand, the last tile tapped is the winning one; 13: ready hand

    @property
    def style(self) -> Variant:
        return get_variant(self.variant)

    @property
    def tileset(self) -> TileSet:
        tiles = self.style.tiles
        return tiles if tiles is not None else TileSet()

    @property
    def honours(self) -> bool:
        return self.tileset.honours

    @property
    def flowers(self) -> bool:
        return self.tileset.flowers

    @property
    def animals(self) -> bool:
        return self.tileset.animals

    @property
    def fixed(self) -> tuple[str, ...]:
        """The jokers that are the same at every table (红中), keyed beside the suits."""
        return self.tileset.fixed

    @property
    def indicator(self) -> bool:
        """The jokers follow a tile turned before play (the indicator)."""
        return self.tileset.indicator

    def most(self, tile: str) -> int:
        """How many of a tile there are: four, one of a flower, a fixed joker as many as the
        table plays."""
        style = self.style
        return style.most_of(tile, style.read_rules(self.rules))

    def usable(self, tile: str) -> bool:
        if tile.endswith("f"):
            return self.flowers
        if tile.endswith("a"):
            return self.animals
        if tile.endswith("z"):
            return self.honours or tile in self.fixed
        return True


def new_state(tiles: tuple[str, ...] | list[str] = (), *, win: bool = False) -> KeyState:
    """A keyboard's state: the hand tiles (in the order given), no melds. `win`: the last of
    `tiles` is the winning tile (False for tiles read from a photo)."""
    hand = [x for x in tiles if _valid(x) and x not in BONUS]
    flowers = [x for x in tiles if x in BONUS]
    return KeyState(hand=hand, flowers=flowers, log=["h"] * len(hand) + ["f"] * len(flowers),
                    last=hand[-1] if hand else None, win=bool(win and hand))


def refusal_text(t: Translator, exc: KeyRefused) -> str:
    """A KeyRefused in the chat's language, its tile named as on the keys."""
    params = {k: tile_label(t, v) if k == "tile" and isinstance(v, str) and _valid(v) else v
              for k, v in exc.params.items()}
    return t(exc.msgid, **params)


def _valid(tile: str) -> bool:
    return (len(tile) == 2 and tile[0] in "123456789" and tile[1] in "mps") or (
        tile in HONOURS or tile in BONUS)


# -- counting -------------------------------------------------------------------------------------

def all_tiles(state: KeyState) -> list[str]:
    """Every tile held: the hand and the melds (not flowers, not the indicator)."""
    return [*state.hand, *(x for m in state.melds for x in m.tiles)]


def kongs(state: KeyState) -> int:
    return sum(1 for m in state.melds if len(m.tiles) == 4)


def count(state: KeyState) -> int:
    """Tiles toward the hand: a kong counts three, as it does at the table."""
    return len(all_tiles(state)) - kongs(state)


# -- pressing a key -------------------------------------------------------------------------------

def press_key(state: KeyState, spec: KeySpec, act: Act, tile: str = "") -> KeyExit | None:
    """Apply one key to `state` (in place). Returns DONE or BACK when the keyboard is left,
    else None. Raises KeyRefused (state unchanged) for a tap that does not fit."""
    before = sorted(all_tiles(state))
    kept = state.model_copy(deep=True)
    try:
        out = _press(state, spec, act, tile)
    except KeyRefused:  # a key of several tiles goes whole or not at all
        state.restore(kept)
        raise
    if state.unsure and sorted(all_tiles(state)) != before and count(state) == spec.want:
        # the photo's reading corrected, its hand whole: the doubts are moot (the flowers'
        # stay: correcting the hand did not check them)
        state.unsure = [x for x in state.unsure if x in BONUS]
    return out


SET_KEYS = {Act.PAIR: N_("Pair"), Act.PUNG: N_("Pung"), Act.CHOW: N_("Chow")}
_MODE_KEYS = {Act.KONG: Mode.KONG, Act.TAKE_OUT: Mode.REMOVE, Act.TURNED: Mode.INDICATOR}


def _press(state: KeyState, spec: KeySpec, act: Act, tile: str) -> KeyExit | None:
    if act in SET_KEYS or act is Act.SAME_SET:
        _set_key(state, spec, act)
        return None
    state.base = state.again = None  # set keys act on the tile just tapped only
    if act is Act.KEY_TILE:
        _tile_key(state, spec, tile)
    elif act is Act.BACKSPACE:
        _backspace(state)
    elif act is Act.MELDS:
        if state.mode is Mode.MELD:
            _close_meld(state, finishing=True)
        state.mode = Mode.HAND if state.mode is Mode.MELD else Mode.MELD
    elif act in _MODE_KEYS:
        if act is Act.TURNED and not spec.indicator:
            raise KeyRefused(N_("That button is no longer valid."))
        _close_meld(state, finishing=True)
        state.mode = Mode.HAND if state.mode is _MODE_KEYS[act] else _MODE_KEYS[act]
    elif act is Act.KEYS_DONE:
        return _done(state, spec)
    elif act is Act.KEYS_BACK:
        return KeyExit.BACK
    else:
        raise KeyRefused(N_("That button is no longer valid."))
    return None


def _tile_key(state: KeyState, spec: KeySpec, tile: str) -> None:
    mode = state.mode
    _tile(state, spec, tile)
    if tile not in BONUS and (mode is Mode.HAND or (
            mode is Mode.MELD and _meld_start(state, tile))):
        state.base = tile  # a tile into the hand, or one starting a meld


def _done(state: KeyState, spec: KeySpec) -> KeyExit:
    _close_meld(state, finishing=True)
    state.mode = Mode.HAND
    if count(state) != spec.want:
        raise KeyRefused(N_("{count} tile so far; a hand needs {want} (a kong counts as "
                            "three).") if count(state) == 1 else
                         N_("{count} tiles so far; a hand needs {want} (a kong counts as "
                            "three)."), count=count(state), want=spec.want)
    if spec.indicator and state.indicator is None:
        raise KeyRefused(N_("Which tile was turned? Tap “Turned”, then the tile."))
    return KeyExit.DONE


def _tile(state: KeyState, spec: KeySpec, tile: str) -> None:
    if not _valid(tile) or not spec.usable(tile):
        raise KeyRefused(N_("That button is no longer valid."))
    mode = state.mode
    if mode is Mode.INDICATOR:
        if tile in BONUS:
            raise KeyRefused(N_("That button is no longer valid."))
        state.indicator, state.mode = tile, Mode.HAND
        return
    if tile in BONUS:
        if mode is Mode.REMOVE:  # a flower the photo misread goes as a hand tile does
            _take_out_flower(state, tile)
            return
        if tile in state.flowers:
            raise KeyRefused(N_("There is only one of each flower."))
        state.flowers.append(tile)
        state.log.append("f")
        return
    if mode is Mode.REMOVE:
        _take_out(state, tile)
        return
    held = Counter(all_tiles(state))[tile]
    kong = mode is Mode.KONG
    if held + (4 if kong else 1) > spec.most(tile):
        raise KeyRefused(N_("There are only {n} of {tile}."), n=spec.most(tile), tile=tile)
    if count(state) + (3 if kong else 1) > spec.want + (1 if kong else 0) \
            and not (mode is Mode.MELD and _open_kong_step(state, tile)):
        raise KeyRefused(N_("The hand is full ({want} tiles): ⌫ takes one back."), want=spec.want)
    if kong:
        state.melds.append(Meld(tiles=[tile] * 4, concealed=True))
        state.log.append("k")
        state.mode = Mode.HAND
    elif mode is Mode.MELD:
        _meld_tile(state, tile)
    else:
        state.hand.append(tile)
        state.log.append("h")
        state.win = True
    state.last = tile


def _take_out(state: KeyState, tile: str) -> None:
    if tile not in state.hand:
        raise KeyRefused(N_("{tile} is not in the hand."), tile=tile)
    at = len(state.hand) - 1 - state.hand[::-1].index(tile)
    state.hand.pop(at)
    _drop_last(state.log, "h")
    if tile in state.unsure:
        state.unsure.remove(tile)  # checked: taken out
    state.mode = Mode.HAND
    if at == len(state.hand):
        state.win = False  # the winning tile went: the next tap is the winning one


def _take_out_flower(state: KeyState, tile: str) -> None:
    if tile not in state.flowers:
        raise KeyRefused(N_("{tile} is not in the hand."), tile=tile)
    state.flowers.remove(tile)
    _drop_last(state.log, "f")  # the flowers' tags are alike: backspace takes the last one left
    if tile in state.unsure:
        state.unsure.remove(tile)
    state.mode = Mode.HAND


# -- the set keys ---------------------------------------------------------------------------------

def _meld_start(state: KeyState, tile: str) -> bool:
    """`tile` began the meld being entered (set keys may finish it)."""
    m = state.melds[-1] if state.melds else None
    return bool(m and m.open and m.tiles == [tile])


def _set_tiles(state: KeyState, act: Act) -> list[str]:
    """The set a set key makes: from the tile just tapped, or the set just entered again."""
    if act is Act.SAME_SET:
        if not state.again:
            raise KeyRefused(N_("“Same set” repeats the set just entered: tap a tile and Pair, "
                                "Pung or Chow first."))
        return list(state.again)
    base = state.base
    if base is None or state.mode not in (Mode.HAND, Mode.MELD):
        raise KeyRefused(N_("Tap a tile first: Pair, Pung and Chow finish a set from the "
                            "tile just tapped."))
    if act is Act.PAIR and state.mode is Mode.MELD:
        raise KeyRefused(N_("An exposed meld is three or four tiles; a pair goes in the "
                            "hand (tap “Melds” to leave meld mode)."))
    if act is Act.CHOW:
        n, suit = int(base[0]), base[1]
        if suit not in SUITS or n > 7:  # a joker's tile may stand for itself: allowed
            raise KeyRefused(N_("A chow runs up from {tile}: only 1–7 of a suit can start "
                                "one."), tile=base)
        return [base, f"{n + 1}{suit}", f"{n + 2}{suit}"]
    return [base] * (2 if act is Act.PAIR else 3)


def _set_key(state: KeyState, spec: KeySpec, act: Act) -> None:
    tiles = _set_tiles(state, act)
    again = act is Act.SAME_SET
    meld = state.mode is Mode.MELD
    adds = tiles if again else tiles[1:]
    if again and meld:
        _close_meld(state, finishing=True)  # the repeat is a meld of its own
    for x in adds:
        _tile(state, spec, x)
    if again and meld and state.melds[-1].tiles != tiles:
        raise KeyRefused(N_("{tile} does not fit the meld being entered."), tile=tiles[0])
    del state.log[len(state.log) - len(adds):]
    state.log.append(f"{'g' if meld else 'h'}{'=' if again else '+'}{len(adds)}")
    state.base, state.again = None, tiles


def _open_kong_step(state: KeyState, tile: str) -> bool:
    """The fourth of a kind going onto an open pung: a kong, which does not grow the count."""
    m = state.melds[-1] if state.melds else None
    return bool(m and m.open and m.tiles == [tile] * 3)


def _meld_tile(state: KeyState, tile: str) -> None:
    melds = state.melds
    cur = melds[-1] if melds and melds[-1].open else None
    if cur is not None and not _fits(cur.tiles, tile):
        if len(cur.tiles) == 3 and len(set(cur.tiles)) == 1:
            cur.open = False  # a pung, ended by the next meld's first tile
            cur = None
        else:
            raise KeyRefused(N_("{tile} does not fit the meld being entered."), tile=tile)
    if cur is None:
        cur = Meld(tiles=[], open=True)
        melds.append(cur)
    cur.tiles.append(tile)
    state.log.append("g")
    ts = cur.tiles
    if len(ts) == 4 or (len(ts) == 3 and len(set(ts)) == 3):
        cur.open = False  # a kong, or a chow: nothing more can go on


def _fits(tiles: list[str], tile: str) -> bool:
    """`tile` may join an open meld: toward a pung/kong of one tile, or a chow of one suit."""
    both = [*tiles, tile]
    if len(set(both)) == 1:
        return len(both) <= 4
    if tile[1] == "z" or any(x[1] != tile[1] for x in tiles) or len(both) > 3:
        return False
    ranks = sorted(int(x[0]) for x in both)
    return len(set(ranks)) == len(ranks) and ranks[-1] - ranks[0] <= 2


def _close_meld(state: KeyState, *, finishing: bool) -> None:
    melds = state.melds
    if not melds or not melds[-1].open:
        return
    ts = melds[-1].tiles
    if len(ts) == 3 and len(set(ts)) == 1:
        melds[-1].open = False
    elif finishing:
        raise KeyRefused(N_("A meld is three tiles in a run, or three or four alike: finish it, "
                            "or ⌫."))


def _drop_last(log: list[str], tag: str) -> None:
    for i in range(len(log) - 1, -1, -1):
        if log[i] == tag:
            del log[i]
            return


def _backspace(state: KeyState) -> None:
    if state.mode in (Mode.KONG, Mode.REMOVE, Mode.INDICATOR):
        state.mode = Mode.HAND  # first, a pending choice is called off
        return
    if not state.log:
        raise KeyRefused(N_("Nothing to take back."))
    tag = state.log.pop()
    state.base = state.again = None
    if len(tag) == 1:
        _backspace_one(state, tag)
        return
    n = int(tag[2:])  # a set key's tiles, or a set repeated: taken back whole
    for _ in range(n):
        _backspace_one(state, tag[0])
    in_hand = tag[0] == "h"
    if tag[1] == "+":  # the tile it acted on is still the one just tapped
        state.base = state.hand[-1] if in_hand else state.melds[-1].tiles[0]
    else:
        state.again = state.hand[-n:] if in_hand else list(state.melds[-1].tiles)


def _backspace_one(state: KeyState, tag: str) -> None:
    if tag == "h":
        state.hand.pop()
        state.win = bool(state.hand) and state.win
    elif tag == "f":
        flower = state.flowers.pop()
        if flower in state.unsure:  # a doubted flower taken back: nothing left to check
            state.unsure.remove(flower)
    elif tag == "k":
        state.melds.pop()
    else:  # a meld's tile: that meld opens again without it
        m = state.melds[-1]
        m.tiles.pop()
        m.open = True
        if not m.tiles:
            state.melds.pop()
        state.mode = Mode.MELD


# -- the notation ---------------------------------------------------------------------------------

def _key(tile: str) -> tuple[int, int]:
    return "mpszfa".index(tile[1]), int(tile[0])


def group(tiles: list[str]) -> str:
    """Compact notation: ["1m", "2m", "5p"] → "12m5p"."""
    out, run, suit = "", "", None
    for x in sorted(tiles, key=_key):
        if suit is not None and x[1] != suit:
            out += run + suit
            run = ""
        run, suit = run + x[0], x[1]
    return out + (run + suit if suit else "")


def notation(state: KeyState, spec: KeySpec) -> str:
    """The hand in scoring's notation: concealed tiles, melds in brackets, `+` the winning tile,
    flowers."""
    hand = list(state.hand)
    win = hand.pop() if spec.want == 14 and state.win and hand else None
    text = group(hand)
    for m in state.melds:
        inner = group(m.tiles)
        text += f"[({inner})]" if m.concealed else f"[{inner}]"
    text += group(state.flowers)
    if win is not None:
        text += "+" + win
    return text


def _joker_tiles(spec: KeySpec, indicator: str) -> tuple[str, ...]:
    """The tiles a turned tile makes jokers, in the variant's order of their names."""
    return joker_codes(spec.style, indicator)


def _joker_name(t: Translator, spec: KeySpec, k: int) -> str:
    """The variant's own name of its k-th joker (龙, 正精, 鬼) in the chat's language."""
    jokers = spec.tileset.jokers
    assert jokers is not None
    return in_lang(jokers.names[k], t.lang)


def joker_names(t: Translator, spec: KeySpec, indicator: str) -> list[str]:
    """The variant's own names for the jokers a turned tile makes: 龙 5万; 正精 4万, 副精 5万."""
    return [f"{_joker_name(t, spec, k)} {tile_label(t, x)}"
            for k, x in enumerate(_joker_tiles(spec, indicator))]


def jokers(spec: KeySpec, indicator: str | None = None) -> set[str]:
    """The tiles that are jokers at this table (shown marked), the turned tile given where
    the jokers follow it."""
    if spec.fixed:
        return set(spec.fixed)
    if not spec.indicator or indicator is None:
        return set()
    return set(_joker_tiles(spec, indicator))


# -- the screen -----------------------------------------------------------------------------------

def glyph(tile: str) -> str:
    n, s = int(tile[0]), tile[1]
    if s == "z":
        return _HONOUR_GLYPHS[n - 1]
    if s == "f":
        return _FLOWER_GLYPHS[n - 1]
    if s == "a":
        return _ANIMAL_GLYPHS[n - 1]
    return chr(_GLYPH_BASE[s] + n - 1)


def _glyphs(tiles: list[str], wild: set[str]) -> str:
    return "".join(glyph(x) + ("*" if x in wild else "") for x in sorted(tiles, key=_key))


def hand_text(state: KeyState, spec: KeySpec, t: Translator) -> str:
    """HTML: the hand so far in tile symbols, its notation, and how many tiles are still to come."""
    wild = jokers(spec, state.indicator)
    hand = list(state.hand)
    win = hand.pop() if spec.want == 14 and state.win and hand else None
    parts = [_glyphs(hand, wild)]
    for m in state.melds:
        inner = _glyphs(m.tiles, wild)
        parts.append(f"[{inner}{'…' if m.open else ''}]" if not m.concealed else f"[({inner})]")
    if win is not None:
        parts.append("+ " + glyph(win))
    if state.flowers:
        parts.append(_glyphs(state.flowers, set()))
    shown = " ".join(p for p in parts if p) or "—"
    lines = [shown]
    code = notation(state, spec)
    if code:
        lines.append(f"<code>{esc(code)}</code>")
    lines.append(esc(t("{count} of {want} tiles", count=count(state), want=spec.want)))
    if state.unsure:  # read from a photo with little confidence: worth a look
        lines.append("❓ " + esc(t("The photo was unsure of: {tiles}", tiles=" ".join(
            tile_label(t, x) for x in state.unsure))))
    if spec.indicator:
        ind = state.indicator
        lines.append(esc(t("Turned: {tile}", tile=tile_label(t, ind) if ind else "—"))
                     + (" → " + esc(" · ".join(joker_names(t, spec, ind))) if ind and wild else ""))
    return "\n".join(lines)


def _hint(state: KeyState, spec: KeySpec, t: Translator) -> str:
    mode = state.mode
    if mode is Mode.KONG:
        return t("Tap the tile of the concealed kong.")
    if mode is Mode.REMOVE:
        return t("Tap the tile to take out.")
    if mode is Mode.INDICATOR:
        return t("Tap the tile that was turned up.")
    base = state.base
    sets = t("Pair, Pung, Chow: finish a set from the tile just tapped ({tile}).",
             tile=tile_label(t, base)) if base else t(
        "Pair, Pung, Chow finish a set from the tile just tapped; Same set repeats one.")
    if mode is Mode.MELD:
        return _join(t("Meld mode: tap the tiles of an exposed set (chow, pung or kong); tap "
                       "“Melds” again when done."), sets)
    if spec.want == 14:
        return _join(sets, t("The last tile added is the winning tile (after +)."))
    return _join(sets, t("Tap the 13 tiles of the hand."))


def _join(first: str, second: str) -> str:
    """Two sentences: a space after an English full stop, none after a Chinese one."""
    return first + ("" if first.endswith("。") else " ") + second


def _ticked(on: bool, text: str) -> str:
    return ("✅ " if on else "") + text


def keys_screen(state: KeyState, spec: KeySpec, t: Translator, cb: Cb,
                title: str = "") -> Screen:
    """The keyboard's message and buttons: at most 8 buttons a row (Telegram's limit), short
    labels; a suit's nine tiles take two rows (5 + 4)."""
    text = (f"<b>{esc(title)}</b>\n" if title else "") + hand_text(state, spec, t)
    text += "\n\n" + esc(_hint(state, spec, t))
    missing = spec.style.cannot_count()
    if missing is not None:  # its counter is not installed here: say how to get it, and what else
        text += "\n\n⚠️ " + esc(t(missing.template, **missing.params))
    return Screen(text, [*_tile_rows(state, spec, t, cb), *_key_rows(state, spec, t, cb)])


def _tile_rows(state: KeyState, spec: KeySpec, t: Translator, cb: Cb) -> list[list[Button]]:
    def key(tile: str, label: str) -> Button:
        return Button(label, cb(Act.KEY_TILE, tile))

    rows: list[list[Button]] = []
    for s in SUITS:
        keys = [key(f"{n}{s}", tile_label(t, f"{n}{s}")) for n in range(1, 10)]
        rows += [keys[:5], keys[5:]]
    if spec.honours:
        rows.append([key(x, tile_label(t, x)) for x in HONOURS])
    else:  # a fixed joker (红中, the ghost) beside the last suit's 6–9
        rows[-1] += [key(x, f"{glyph(x)} {_joker_name(t, spec, k)}")
                     for k, x in enumerate(spec.fixed) if x.endswith("z")]
    if spec.flowers:
        keys = [key(x, ("✅" if x in state.flowers else "") + tile_label(t, x)) for x in FLOWERS]
        # eight a row where they are one character each (春夏秋冬)
        rows += [keys] if all(len(tile_label(t, x)) == 1 for x in FLOWERS) else [keys[:4], keys[4:]]
    if spec.animals:
        rows.append([key(x, ("✅" if x in state.flowers else "") + glyph(x) + tile_label(t, x))
                     for x in ANIMALS])
    return rows


def _key_rows(state: KeyState, spec: KeySpec, t: Translator, cb: Cb) -> list[list[Button]]:
    """The set keys (on the tile just tapped, named in the hint), the modes, the turned tile
    and the jokers it makes, and the way out."""
    mode = state.mode
    rows = [[*(Button(t(name), cb(act)) for act, name in SET_KEYS.items()),
             Button(t("Same set"), cb(Act.SAME_SET))],
            [Button("⌫", cb(Act.BACKSPACE)),
             Button(_ticked(mode is Mode.MELD, t("Melds")), cb(Act.MELDS)),
             Button(_ticked(mode is Mode.KONG, t("Conc. kong")), cb(Act.KONG))]]
    if spec.indicator:
        ind = state.indicator
        row = [Button(_ticked(mode is Mode.INDICATOR, t("Turned"))
                      + (" " + tile_label(t, ind) if ind else ""), cb(Act.TURNED))]
        if ind is not None:
            row += [Button("🃏" + label, cb(Act.KEY_TILE, x))
                    for label, x in zip(joker_names(t, spec, ind), _joker_tiles(spec, ind),
                                        strict=True)]
        rows.append(row)
    rows.append([Button("◀ " + t("Back"), cb(Act.KEYS_BACK)),
                 Button(_ticked(mode is Mode.REMOVE, t("Take out")), cb(Act.TAKE_OUT)),
                 Button("✔ " + t("Done"), cb(Act.KEYS_DONE), "primary")])
    return rows
