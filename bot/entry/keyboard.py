"""The tile keyboard: a hand entered tile by tile on one message (issue 14).

Reusable on its own (the /hand wizard's winner step uses it, 查叫 by tiles can too). The state is
plain JSON, kept in the caller's draft; three pure functions work on it:

    state = new_state(tiles=("1m", "2m"), win=False)   # a blank hand, or one read from a photo
    spec = KeySpec(variant=session.variant, rules={}, want=14)  # want=13: a ready hand
    press_key(state, spec, op, arg) -> "done" | "back" | None      # raises KeyRefused
    keys_screen(state, spec, t, cb, title="") -> Screen             # t: the chat's translator
    notation(state, spec) -> "123m456p[555s]+7z"                    # what scoring.tiles reads

`cb(op, arg)` makes a button's callback data (at most 64 bytes with the caller's prefix); ops:
`t` a tile (arg "5m", "7z", "3f"; the joker keys are tiles too: a fixed joker such as 红中, and
once the turned tile is known the jokers it names, 龙 or 正精 and 副精), the set keys acting on
the tile just
tapped: `2` pair (one more of it), `3` pung (two more), `c` chow (the next two of its suit),
`s` the set just entered once more (112233: 1m, chow, same set), `x` backspace (one key back:
a whole set), `g` melds on/off, `k` the next tile is a concealed kong, `r` the next tile is taken
out, `i` the next tile is the turned indicator (state["indicator"], for `analyze`/`waits`),
`d` done, `b` back. Optional state["unsure"]: tiles a photo was unsure of, named above the keys
until taken out, or until the tiles were changed and the hand is whole again (corrected).

The caller keeps the state in its own draft, routes its own callback prefix to `press_key` and
shows `keys_screen`; many quick taps should go through bot/plumbing/throttle.py (the /hand wizard's
handler, bot/commands/hands.py `on_key`, answers each tap at once and coalesces the edits).
A `KeyRefused` carries a msgid and its params (`refusal_text(t, exc)` translates it) for the
callback's answer; the state is then unchanged. "done" means the tile count is right for `want`
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
from typing import Any

from scoring.tiles.request import joker_codes
from scoring.variant import TileSet, Variant, get_variant, in_lang

from ..plumbing.messages import Button
from ..view.i18n import N_
from ..view.render import esc
from ..view.tiles import tile_label
from .screens import Screen

SUITS = "mps"
FLOWERS = tuple(f"{n}f" for n in range(1, 9))
HONOURS = tuple(f"{n}z" for n in range(1, 8))
# Unicode mahjong tiles: 🀇…🀏 characters, 🀙…🀡 dots, 🀐…🀘 bamboo, 🀀🀁🀂🀃 winds, 🀆🀅🀄
# white green red; flowers 春夏秋冬 🀦🀧🀨🀩, 梅兰菊竹 🀢🀣🀥🀤
_GLYPH_BASE = {"m": 0x1F007, "p": 0x1F019, "s": 0x1F010}
_HONOUR_GLYPHS = "🀀🀁🀂🀃🀆🀅🀄"
_FLOWER_GLYPHS = "🀦🀧🀨🀩🀢🀣🀥🀤"

Cb = Callable[[str, str], str]


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


KEY_PREFIX = "k"  # the wizard's callback data of a key: k:op[:arg]


def key_cb(op: str, arg: str = "") -> str:
    return f"{KEY_PREFIX}:{op}:{arg}" if arg else f"{KEY_PREFIX}:{op}"


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
        if tile.endswith("z"):
            return self.honours or tile in self.fixed
        return True


def new_state(tiles: tuple[str, ...] | list[str] = (), *, win: bool = False) -> dict[str, Any]:
    """A keyboard's state: the hand tiles (in the order given), no melds. `win`: the last of
    `tiles` is the winning tile (False for tiles read from a photo)."""
    hand = [x for x in tiles if _valid(x) and not x.endswith("f")]
    return {"hand": hand, "melds": [], "flowers": [x for x in tiles if x in FLOWERS],
            "log": ["h"] * len(hand) + ["f"] * sum(x in FLOWERS for x in tiles),
            "mode": "hand", "last": hand[-1] if hand else None, "win": bool(win and hand),
            "indicator": None, "base": None, "again": None}


def refusal_text(t: Callable[..., str], exc: KeyRefused) -> str:
    """A KeyRefused in the chat's language, its tile named as on the keys."""
    params = {k: tile_label(t, v) if k == "tile" and isinstance(v, str) and _valid(v) else v
              for k, v in exc.params.items()}
    return t(exc.msgid, **params)


def _valid(tile: str) -> bool:
    return (len(tile) == 2 and tile[0] in "123456789" and tile[1] in "mps") or (
        tile in HONOURS or tile in FLOWERS)


# -- counting -------------------------------------------------------------------------------------

def all_tiles(state: dict[str, Any]) -> list[str]:
    """Every tile held: the hand and the melds (not flowers, not the indicator)."""
    return [*state["hand"], *(x for m in state["melds"] for x in m["tiles"])]


def kongs(state: dict[str, Any]) -> int:
    return sum(1 for m in state["melds"] if len(m["tiles"]) == 4)


def count(state: dict[str, Any]) -> int:
    """Tiles toward the hand: a kong counts three, as it does at the table."""
    return len(all_tiles(state)) - kongs(state)


# -- pressing a key -------------------------------------------------------------------------------

def press_key(state: dict[str, Any], spec: KeySpec, op: str, arg: str = "") -> str | None:
    """Apply one key to `state` (in place). Returns "done" or "back" when the keyboard is left,
    else None. Raises KeyRefused (state unchanged) for a tap that does not fit."""
    done: list[str | None] = []
    before = sorted(all_tiles(state))
    _atomic(state, lambda: done.append(_press(state, spec, op, arg)))
    if state.get("unsure") and sorted(all_tiles(state)) != before and count(state) == spec.want:
        state["unsure"] = []  # the photo's reading corrected, its hand whole: the doubts are moot
    return done[0]


def _press(state: dict[str, Any], spec: KeySpec, op: str, arg: str) -> str | None:
    if op in SET_OPS or op == "s":
        _set_key(state, spec, op)
        return None
    state["base"] = state["again"] = None  # set keys act on the tile just tapped only
    if op == "t":
        mode = state["mode"]
        _tile(state, spec, arg)
        if not arg.endswith("f") and (mode == "hand" or (
                mode == "meld" and _meld_start(state, arg))):
            state["base"] = arg  # a tile into the hand, or one starting a meld
    elif op == "x":
        _backspace(state)
    elif op == "g":
        if state["mode"] == "meld":
            _close_meld(state, finishing=True)
            state["mode"] = "hand"
        else:
            state["mode"] = "meld"
    elif op in ("k", "r", "i"):
        if op == "i" and not spec.indicator:
            raise KeyRefused(N_("That button is no longer valid."))
        wanted = {"k": "kong", "r": "remove", "i": "indicator"}[op]
        _close_meld(state, finishing=True)
        state["mode"] = "hand" if state["mode"] == wanted else wanted
    elif op == "d":
        _close_meld(state, finishing=True)
        state["mode"] = "hand"
        want = spec.want
        if count(state) != want:
            raise KeyRefused(N_("{count} tiles so far; a hand needs {want} (a kong counts as "
                                "three)."), count=count(state), want=want)
        if spec.indicator and state.get("indicator") is None:
            raise KeyRefused(N_("Which tile was turned? Tap “Turned”, then the tile."))
        return "done"
    elif op == "b":
        return "back"
    else:
        raise KeyRefused(N_("That button is no longer valid."))
    return None


def _tile(state: dict[str, Any], spec: KeySpec, tile: str) -> None:
    if not _valid(tile) or not spec.usable(tile):
        raise KeyRefused(N_("That button is no longer valid."))
    mode = state["mode"]
    if mode == "indicator":
        if tile.endswith("f"):
            raise KeyRefused(N_("That button is no longer valid."))
        state.update(indicator=tile, mode="hand")
        return
    if tile.endswith("f"):
        if tile in state["flowers"]:
            raise KeyRefused(N_("There is only one of each flower."))
        state["flowers"].append(tile)
        state["log"].append("f")
        return
    if mode == "remove":
        if tile not in state["hand"]:
            raise KeyRefused(N_("{tile} is not in the hand."), tile=tile)
        at = len(state["hand"]) - 1 - state["hand"][::-1].index(tile)
        state["hand"].pop(at)
        _drop_last(state["log"], "h")
        if tile in state.get("unsure", []):
            state["unsure"].remove(tile)  # checked: taken out
        state["mode"] = "hand"
        if at == len(state["hand"]):
            state["win"] = False  # the winning tile went: the next tap is the winning one
        return
    held = Counter(all_tiles(state))[tile]
    adds = 4 if mode == "kong" else 1
    if held + adds > spec.most(tile):
        raise KeyRefused(N_("There are only {n} of {tile}."), n=spec.most(tile), tile=tile)
    if count(state) + (3 if mode == "kong" else 1) > spec.want + (1 if mode == "kong" else 0) \
            and not (mode == "meld" and _open_kong_step(state, tile)):
        raise KeyRefused(N_("The hand is full ({want} tiles): ⌫ takes one back."), want=spec.want)
    if mode == "kong":
        state["melds"].append({"tiles": [tile] * 4, "concealed": True, "open": False})
        state["log"].append("k")
        state["mode"] = "hand"
    elif mode == "meld":
        _meld_tile(state, tile)
    else:
        state["hand"].append(tile)
        state["log"].append("h")
        state["win"] = True
    state["last"] = tile


# -- the set keys ---------------------------------------------------------------------------------

SET_OPS = {"2": N_("Pair"), "3": N_("Pung"), "c": N_("Chow")}


def _atomic(state: dict[str, Any], step: Callable[[], None]) -> None:
    """Run a key of several tiles whole or not at all (a refusal leaves the state as it was)."""
    import copy

    kept = copy.deepcopy(state)
    try:
        step()
    except KeyRefused:
        state.clear()
        state.update(kept)
        raise


def _meld_start(state: dict[str, Any], tile: str) -> bool:
    """`tile` began the meld being entered (set keys may finish it)."""
    m = state["melds"][-1] if state["melds"] else None
    return bool(m and m["open"] and m["tiles"] == [tile])


def _set_key(state: dict[str, Any], spec: KeySpec, op: str) -> None:
    mode = state["mode"]
    if op == "s":
        tiles = state.get("again")
        if not tiles:
            raise KeyRefused(N_("“Same set” repeats the set just entered: tap a tile and Pair, "
                                "Pung or Chow first."))
    else:
        base = state.get("base")
        if base is None or mode not in ("hand", "meld"):
            raise KeyRefused(N_("Tap a tile first: Pair, Pung and Chow finish a set from the "
                                "tile just tapped."))
        if op == "2" and mode == "meld":
            raise KeyRefused(N_("An exposed meld is three or four tiles; a pair goes in the "
                                "hand (tap “Melds” to leave meld mode)."))
        if op == "c":
            n, suit = int(base[0]), base[1]
            if suit not in SUITS or n > 7:  # a joker's tile may stand for itself: allowed
                raise KeyRefused(N_("A chow runs up from {tile}: only 1–7 of a suit can start "
                                    "one."), tile=base)
            tiles = [base, f"{n + 1}{suit}", f"{n + 2}{suit}"]
        else:
            tiles = [base] * int(op)
    adds = tiles[1:] if op != "s" else tiles
    tag = "h" if mode == "hand" else "g"
    if op == "s" and mode == "meld":
        _close_meld(state, finishing=True)  # the repeat is a meld of its own
    for x in adds:
        _tile(state, spec, x)
    if op == "s" and mode == "meld" and state["melds"][-1]["tiles"] != tiles:
        raise KeyRefused(N_("{tile} does not fit the meld being entered."), tile=tiles[0])
    del state["log"][len(state["log"]) - len(adds):]
    state["log"].append(f"{tag}{'=' if op == 's' else '+'}{len(adds)}")
    state["base"], state["again"] = None, tiles


def _open_kong_step(state: dict[str, Any], tile: str) -> bool:
    """The fourth of a kind going onto an open pung: a kong, which does not grow the count."""
    m = state["melds"][-1] if state["melds"] else None
    return bool(m and m["open"] and m["tiles"] == [tile] * 3)


def _meld_tile(state: dict[str, Any], tile: str) -> None:
    melds = state["melds"]
    cur = melds[-1] if melds and melds[-1]["open"] else None
    if cur is not None and not _fits(cur["tiles"], tile):
        if len(cur["tiles"]) == 3 and len(set(cur["tiles"])) == 1:
            cur["open"] = False  # a pung, ended by the next meld's first tile
            cur = None
        else:
            raise KeyRefused(N_("{tile} does not fit the meld being entered."), tile=tile)
    if cur is None:
        cur = {"tiles": [], "concealed": False, "open": True}
        melds.append(cur)
    cur["tiles"].append(tile)
    state["log"].append("g")
    ts = cur["tiles"]
    if len(ts) == 4 or (len(ts) == 3 and len(set(ts)) == 3):
        cur["open"] = False  # a kong, or a chow: nothing more can go on


def _fits(tiles: list[str], tile: str) -> bool:
    """`tile` may join an open meld: toward a pung/kong of one tile, or a chow of one suit."""
    both = [*tiles, tile]
    if len(set(both)) == 1:
        return len(both) <= 4
    if tile[1] == "z" or any(x[1] != tile[1] for x in tiles) or len(both) > 3:
        return False
    ranks = sorted(int(x[0]) for x in both)
    return len(set(ranks)) == len(ranks) and ranks[-1] - ranks[0] <= 2


def _close_meld(state: dict[str, Any], *, finishing: bool) -> None:
    melds = state["melds"]
    if not melds or not melds[-1]["open"]:
        return
    ts = melds[-1]["tiles"]
    if len(ts) == 3 and len(set(ts)) == 1:
        melds[-1]["open"] = False
    elif finishing:
        raise KeyRefused(N_("A meld is three tiles in a run, or three or four alike: finish it, "
                            "or ⌫."))


def _drop_last(log: list[str], tag: str) -> None:
    for i in range(len(log) - 1, -1, -1):
        if log[i] == tag:
            del log[i]
            return


def _backspace(state: dict[str, Any]) -> None:
    if state["mode"] in ("kong", "remove", "indicator"):
        state["mode"] = "hand"  # first, a pending choice is called off
        return
    if not state["log"]:
        raise KeyRefused(N_("Nothing to take back."))
    tag = state["log"].pop()
    state["base"] = state["again"] = None
    if len(tag) > 1:  # a set key's tiles, or a set repeated: taken back whole
        n = int(tag[2:])
        for _ in range(n):
            _backspace_one(state, tag[0])
        if tag[1] == "+":  # the tile it acted on is still the one just tapped
            state["base"] = state["hand"][-1] if tag[0] == "h" else state["melds"][-1]["tiles"][0]
        else:
            state["again"] = (state["hand"][-n:] if tag[0] == "h"
                              else list(state["melds"][-1]["tiles"]))
        return
    _backspace_one(state, tag)


def _backspace_one(state: dict[str, Any], tag: str) -> None:
    if tag == "h":
        state["hand"].pop()
        state["win"] = bool(state["hand"]) and state["win"]
    elif tag == "f":
        state["flowers"].pop()
    elif tag == "k":
        state["melds"].pop()
    else:  # a meld's tile: that meld opens again without it
        m = state["melds"][-1]
        m["tiles"].pop()
        m["open"] = True
        if not m["tiles"]:
            state["melds"].pop()
        state["mode"] = "meld"


# -- the notation ---------------------------------------------------------------------------------

def _key(tile: str) -> tuple[int, int]:
    return "mpszf".index(tile[1]), int(tile[0])


def group(tiles: list[str]) -> str:
    """Compact notation: ["1m", "2m", "5p"] → "12m5p"."""
    out, run, suit = "", "", None
    for x in sorted(tiles, key=_key):
        if suit is not None and x[1] != suit:
            out += run + suit
            run = ""
        run, suit = run + x[0], x[1]
    return out + (run + suit if suit else "")


def notation(state: dict[str, Any], spec: KeySpec) -> str:
    """The hand in scoring's notation: concealed tiles, melds in brackets, `+` the winning tile,
    flowers."""
    hand = list(state["hand"])
    win = hand.pop() if spec.want == 14 and state.get("win") and hand else None
    text = group(hand)
    for m in state["melds"]:
        inner = group(m["tiles"])
        text += f"[({inner})]" if m["concealed"] else f"[{inner}]"
    text += group(state["flowers"])
    if win is not None:
        text += "+" + win
    return text


def _joker_tiles(spec: KeySpec, indicator: str) -> tuple[str, ...]:
    """The tiles a turned tile makes jokers, in the variant's order of their names."""
    return joker_codes(spec.style, indicator)


def _joker_name(t: Callable[..., str], spec: KeySpec, k: int) -> str:
    """The variant's own name of its k-th joker (龙, 正精, 鬼) in the chat's language."""
    jokers = spec.tileset.jokers
    assert jokers is not None
    return in_lang(jokers.names[k], str(getattr(t, "lang", "en")))


def joker_names(t: Callable[..., str], spec: KeySpec, indicator: str) -> list[str]:
    """The variant's own names for the jokers a turned tile makes: 龙 5万; 正精 4万, 副精 5万."""
    return [f"{_joker_name(t, spec, k)} {tile_label(t, x)}"
            for k, x in enumerate(_joker_tiles(spec, indicator))]


def jokers(state: dict[str, Any], spec: KeySpec) -> set[str]:
    """The tiles that are jokers at this table (shown marked)."""
    if spec.fixed:
        return set(spec.fixed)
    ind = state.get("indicator")
    if not spec.indicator or ind is None:
        return set()
    return set(_joker_tiles(spec, ind))


# -- the screen -----------------------------------------------------------------------------------

def glyph(tile: str) -> str:
    n, s = int(tile[0]), tile[1]
    if s == "z":
        return _HONOUR_GLYPHS[n - 1]
    if s == "f":
        return _FLOWER_GLYPHS[n - 1]
    return chr(_GLYPH_BASE[s] + n - 1)


def _glyphs(tiles: list[str], wild: set[str]) -> str:
    return "".join(glyph(x) + ("*" if x in wild else "") for x in sorted(tiles, key=_key))


def hand_text(state: dict[str, Any], spec: KeySpec, t: Callable[..., str]) -> str:
    """HTML: the hand so far in tile symbols, its notation, and how many tiles are still to come."""
    wild = jokers(state, spec)
    hand = list(state["hand"])
    win = hand.pop() if spec.want == 14 and state.get("win") and hand else None
    parts = [_glyphs(hand, wild)]
    for m in state["melds"]:
        inner = _glyphs(m["tiles"], wild)
        parts.append(f"[{inner}{'…' if m['open'] else ''}]" if not m["concealed"] else f"[({inner})]")
    if win is not None:
        parts.append("+ " + glyph(win))
    if state["flowers"]:
        parts.append(_glyphs(state["flowers"], set()))
    shown = " ".join(p for p in parts if p) or "—"
    lines = [shown]
    code = notation(state, spec)
    if code:
        lines.append(f"<code>{esc(code)}</code>")
    n = count(state)
    lines.append(esc(t("{count} of {want} tiles", count=n, want=spec.want)))
    if state.get("unsure"):  # read from a photo with little confidence: worth a look
        lines.append("❓ " + esc(t("The photo was unsure of: {tiles}", tiles=" ".join(
            tile_label(t, x) for x in state["unsure"]))))
    if spec.indicator:
        ind = state.get("indicator")
        lines.append(esc(t("Turned: {tile}", tile=tile_label(t, ind) if ind else "—"))
                     + (" → " + esc(" · ".join(joker_names(t, spec, ind))) if wild else ""))
    return "\n".join(lines)


def _hint(state: dict[str, Any], spec: KeySpec, t: Callable[..., str]) -> str:
    mode = state["mode"]
    if mode == "kong":
        return t("Tap the tile of the concealed kong.")
    if mode == "remove":
        return t("Tap the tile to take out.")
    if mode == "indicator":
        return t("Tap the tile that was turned up.")
    base = state.get("base")
    sets = t("Pair, Pung, Chow: finish a set from the tile just tapped ({tile}).",
             tile=tile_label(t, base)) if base else t(
        "Pair, Pung, Chow finish a set from the tile just tapped; Same set repeats one.")
    if mode == "meld":
        return _join(t("Meld mode: tap the tiles of an exposed set (chow, pung or kong); tap "
                       "“Melds” again when done."), sets)
    if spec.want == 14:
        return _join(sets, t("The last tile added is the winning tile (after +)."))
    return _join(sets, t("Tap the 13 tiles of the hand."))


def _join(first: str, second: str) -> str:
    """Two sentences: a space after an English full stop, none after a Chinese one."""
    return first + ("" if first.endswith("。") else " ") + second


def keys_screen(state: dict[str, Any], spec: KeySpec, t: Callable[..., str], cb: Cb,
                title: str = "") -> Screen:
    """The keyboard's message and buttons: at most 8 buttons a row (Telegram's limit), short
    labels; a suit's nine tiles take two rows (5 + 4)."""
    text = (f"<b>{esc(title)}</b>\n" if title else "") + hand_text(state, spec, t)
    text += "\n\n" + esc(_hint(state, spec, t))
    missing = spec.style.cannot_count()
    if missing is not None:  # its counter is not installed here: say how to get it, and what else
        text += "\n\n⚠️ " + esc(t(missing.template, **missing.params))
    rows: list[list[Button]] = []
    for s in SUITS:
        keys = [Button(tile_label(t, f"{n}{s}"), cb("t", f"{n}{s}")) for n in range(1, 10)]
        rows += [keys[:5], keys[5:]]
    if spec.honours:
        rows.append([Button(tile_label(t, x), cb("t", x)) for x in HONOURS])
    else:  # a fixed joker (红中, the ghost) beside the last suit's 6–9
        rows[-1] += [Button(f"{glyph(x)} {_joker_name(t, spec, k)}", cb("t", x))
                     for k, x in enumerate(spec.fixed) if x.endswith("z")]
    if spec.flowers:
        keys = [Button(("✅" if x in state["flowers"] else "") + tile_label(t, x), cb("t", x))
                for x in FLOWERS]  # eight a row where they are one character each (春夏秋冬)
        rows += [keys] if all(len(tile_label(t, x)) == 1 for x in FLOWERS) else [keys[:4], keys[4:]]
    mode = state["mode"]
    # the set keys, on the tile just tapped (named in the hint)
    rows.append([*(Button(t(SET_OPS[op]), cb(op, "")) for op in ("2", "3", "c")),
                 Button(t("Same set"), cb("s", ""))])
    rows.append([Button("⌫", cb("x", "")),
                 Button(("✅ " if mode == "meld" else "") + t("Melds"), cb("g", "")),
                 Button(("✅ " if mode == "kong" else "") + t("Conc. kong"), cb("k", ""))])
    if spec.indicator:  # the turned tile, then a key for each joker it makes
        ind = state.get("indicator")
        row = [Button(("✅ " if mode == "indicator" else "") + t("Turned")
                      + (" " + tile_label(t, ind) if ind else ""), cb("i", ""))]
        if ind is not None:
            row += [Button("🃏" + label, cb("t", x))
                    for label, x in zip(joker_names(t, spec, ind), _joker_tiles(spec, ind),
                                        strict=True)]
        rows.append(row)
    rows.append([Button("◀ " + t("Back"), cb("b", "")),
                 Button(("✅ " if mode == "remove" else "") + t("Take out"), cb("r", "")),
                 Button("✔ " + t("Done"), cb("d", ""), "primary")])
    return Screen(text, rows)
