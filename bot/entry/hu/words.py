"""One-line hand entry in the players' own words: `/hu 西 自摸 清一色 大对子`, `/hu Carol 点炮 北 七对`,
`/hu 2 zimo all_pungs pure`, `/hu n quads=2 kong`.

Grammar (examples in /help, in the chat's language):
    /hu WINNER [FEATURE …] [+ WINNER [FEATURE …] …] [自摸 | 点炮 SEAT | 抢杠 SEAT] [杠]
WINNER and SEAT: 0–3, a wind (E S W N, 东南西北 / 東南西北, east …) or a player's name. FEATURE: a
winner feature of the variant by any name the screens show, in any of the three languages (`清一色`,
`pure suit`, `pure`), a form (`七对`), or a count written either way (`闺2`, `quads=2`, `龙×2`).
`杠` marks a win after a kong (杠上花 / 杠上炮); `杠上花` and `杠上炮` say so themselves.
An unknown word is answered with the closest known words.
Tiles in place of feature words (docs/tiles.md, read in bot/entry/hu/tiles.py): `/hu 南 自摸
123m456m789p11s 中中中`; where the jokers follow a turned tile, the line names it, `翻=5m`
(`turned=5m`), or the first joker by its own name (`Jokers.words`): `龙=6m` where the 龙 is the
tile after the turned one (which was then 5m).
An exhausted wall, with 查叫 by tiles (bot/entry/hu/ready.py): `/hu 流局 东 111m222m333p44p55p 南 不听`.
"""

from __future__ import annotations

import difflib
import re
from dataclasses import dataclass, field
from typing import Any

from scoring import ScoringError
from scoring.tiles import parse_tiles
from scoring.tiles.notation import N_TILES, tile_name
from scoring.tiles.request import turned_jokers
from scoring.variant import Variant, all_variants, term_name

from ...view.i18n import LANGS, translator
from .. import controls
from ..controls import Kind
from ..screens import COMMON_LABELS  # the labels the form buttons show

SEAT_WORDS = {"e": 0, "s": 1, "w": 2, "n": 3, "east": 0, "south": 1, "west": 2, "north": 3,
              "东": 0, "南": 1, "西": 2, "北": 3, "東": 0, "东家": 0, "南家": 1, "西家": 2, "北家": 3,
              "東家": 0}
SELF_DRAW = {"zimo", "self", "tsumo", "selfdraw", "自摸", "自摸胡"}
DISCARD = {"from", "off", "discard", "点炮", "點炮", "放炮", "点", "點", "放槍", "放枪", "点炮胡",
           "點炮胡"}
ROBBED = {"rob", "robbed", "robbedkong", "抢杠", "搶槓", "抢杠胡", "搶槓胡"}
KONG = {"kong", "gang", "杠", "槓"}
AFTER_KONG = {"杠上花", "杠上开花", "槓上花", "槓上開花", "杠上炮", "槓上炮"}
PLUS = {"+", "＋", "和", "and"}
TILE_LIKE = re.compile(r"\d[mpszfa]")  # a word of tile notation, right or wrong
COUNT = re.compile(r"^(.*?)\s*[=×xX*:：]?\s*(\d+)$")
AMOUNT = re.compile(r"^(\d+)\s*(\D.*)$")  # the number first: 24番, 24points
SPLIT = re.compile(r"[,，、]+")
TURNED = {"turned", "indicator", "翻", "翻牌", "指示牌"}  # 翻=5m: the tile turned up
JOKER = "joker"  # joker=6m: the joker itself; or by a style's own name for it, 龙=6m
TILES = "_tiles"  # a winner's tile tokens, until bot/entry/hu/tiles.py reads them
AFTER_KONG_MARK = "_after_kong"  # 杠上开花 named as an element beside tiles, until parse_hu


class LineError(ValueError):
    """What is wrong with the typed line, as an English msgid with format arguments."""

    def __init__(self, msgid: str, **kwargs: Any) -> None:
        super().__init__(msgid)
        self.msgid, self.kwargs = msgid, kwargs


def norm(word: str) -> str:
    """How words are compared: case, spaces, _ and - do not matter ("All pungs" = all_pungs)."""
    return re.sub(r"[\s_\-·]+", "", word.casefold())


@dataclass
class Words:
    """Every word a variant's /hu understands, from the same names the screens show."""

    flags: dict[str, str] = field(default_factory=dict)  # word → bool field
    choices: dict[str, tuple[str, str]] = field(default_factory=dict)  # word → (field, value)
    counts: dict[str, str] = field(default_factory=dict)  # word → int field
    seats_of: dict[str, str] = field(default_factory=dict)  # word → seat field (name=SEAT)
    terms: dict[str, tuple[str, str]] = field(default_factory=dict)  # word → (list field, term)
    shown: dict[str, list[str]] = field(default_factory=dict)  # lang → words as shown there
    spelled: dict[str, str] = field(default_factory=dict)  # every known word → as written

    def known(self) -> list[str]:
        return [*self.flags, *self.choices, *self.counts, *self.seats_of, *self.terms]


_VOCABULARIES: dict[Variant, Words] = {}


def vocabulary(variant: Variant) -> Words:
    """The variant's words, built once per registered style (from static names and
    catalogues: about a millisecond each time, on every /hu); callers only read them."""
    words = _VOCABULARIES.get(variant)
    if words is None:
        words = _VOCABULARIES[variant] = _vocabulary(variant)
    return words


def joker_words() -> set[str]:
    """What a line may call a joker to name the turned tile by it: "joker", or any style's own
    name for its first joker (龙, 精)."""
    words = {JOKER}
    for v in all_variants().values():
        if v.tiles is not None and v.tiles.jokers is not None:
            words.update(norm(w) for w in v.tiles.jokers.words)
    return words


def _vocabulary(variant: Variant) -> Words:
    words = Words()

    def names(key: str) -> list[tuple[str, str]]:
        """(lang, name) of a field or value: its key and the screens' label in each language,
        then what other variants call the same thing (碰碰胡 where this one says 大对子), not
        shown in /help."""
        out = [("", key)]
        for lang in LANGS:
            if key in variant.terms:
                out.append((lang, term_name(variant.terms, key, lang)))
            elif key in COMMON_LABELS:
                out.append((lang, translator(lang)(COMMON_LABELS[key])))
        out += [("", term_name(other.terms, key, lang)) for other in all_variants().values()
                if other is not variant and key in other.terms for lang in LANGS]
        return out

    def add(table: dict[str, Any], key: str, value: Any, *, show: bool = True) -> None:
        """`show`: /help lists the word (not each of a table of 81 elements)."""
        for lang, name in names(key):
            table.setdefault(norm(name), value)
            if "_" not in name:
                words.spelled.setdefault(norm(name), name)
            if show and lang and name not in words.shown.setdefault(lang, []):
                words.shown[lang].append(name)

    for spec in controls.fields_of(variant.Winner):
        if spec.name == "seat":
            continue
        if spec.kind is Kind.BOOL:
            add(words.flags, spec.name, spec.name)
        elif spec.kind is Kind.CHOICE:
            for choice in spec.choices:
                add(words.choices, str(choice), (spec.name, choice))
        elif spec.kind is Kind.INT:
            add(words.counts, spec.name, spec.name)
        elif spec.kind is Kind.SEAT:
            add(words.seats_of, spec.name, spec.name)
    for spec in controls.fields_of(variant.Winner):
        if spec.kind is Kind.TERMS:  # the elements a player counted: each by any of its names
            taken = {*words.flags, *words.choices, *words.counts, *words.seats_of}
            for key in variant.term_points:
                if not any(norm(name) in taken for _, name in names(key)):
                    add(words.terms, key, (spec.name, key), show=False)
    return words


def parse_seat(token: str, names: list[str | None] | None = None) -> int:
    word = norm(token)
    if word in ("0", "1", "2", "3"):
        return int(word)
    if word in SEAT_WORDS:
        return SEAT_WORDS[word]
    for seat, name in enumerate(names or []):
        if name and norm(name.lstrip("@")) == word.lstrip("@"):
            return seat
    raise LineError("“{token}” is not a seat: use a wind (东 南 西 北 or E S W N), 0–3 or a "
                    "player's name.", token=token)


def split_tokens(raw: list[str]) -> list[str]:
    """Split on Chinese and Latin commas too, and a word that ends in a seat after a way of
    winning (点炮西) into the two."""
    out: list[str] = []
    for piece in raw:
        for tok in SPLIT.split(piece):
            tok = tok.strip()
            if not tok:
                continue
            head = tok[:-1]
            if len(tok) > 1 and tok[-1] in "东南西北東" and norm(head) in DISCARD | ROBBED:
                out += [head, tok[-1]]
            else:
                out.append(tok)
    return out


def _joined(tokens: list[str], words: Words, names: list[str | None] | None) -> list[str]:
    """Words of several tokens as one: "pure suit", "all pungs", "self draw", "North Dan",
    "Out with Replacement Tile"."""
    known = (set(words.known()) | SELF_DRAW | DISCARD | ROBBED | KONG | AFTER_KONG
             | {norm(n) for n in names or [] if n})
    out: list[str] = []
    i = 0
    while i < len(tokens):
        for k in (4, 3, 2):  # "out with replacement tile"
            if i + k <= len(tokens) and norm("".join(tokens[i:i + k])) in known:
                out.append(" ".join(tokens[i:i + k]))
                i += k
                break
        else:
            out.append(tokens[i])
            i += 1
    return out


def parse_hu(variant: Variant, tokens: list[str],
             names: list[str | None] | None = None) -> dict[str, Any]:
    """Tokens after /hu → one win event (JSON), or LineError."""
    words = vocabulary(variant)
    tokens = _joined(split_tokens(tokens), words, names)
    if not tokens:
        raise LineError("Say who won, e.g. /hu 2 zimo all_pungs")
    by, frm, after_kong = "self_draw", None, False
    groups: list[list[str]] = [[]]
    it = iter(tokens)
    for raw in it:
        tok = norm(raw)
        if tok in PLUS:
            groups.append([])
        elif tok in SELF_DRAW:
            by = "self_draw"
        elif tok in DISCARD or tok in ROBBED:
            by = "robbed_kong" if tok in ROBBED else "discard"
            try:
                frm = parse_seat(next(it), names)
            except StopIteration:
                raise LineError("“{word}” needs a seat after it.", word=raw) from None
        elif tok in KONG or tok in AFTER_KONG:
            after_kong = True
        else:
            groups[-1].append(raw)
    winners = [parse_winner(variant, words, g, names) for g in groups if g]
    if not winners:
        raise LineError("Say who won, e.g. /hu 2 zimo all_pungs")
    if [w.pop(AFTER_KONG_MARK) for w in winners if AFTER_KONG_MARK in w]:
        after_kong = True
    event: dict[str, Any] = {"type": "win", "by": by, "winners": winners}
    if frm is not None:
        event["from"] = frm
    if after_kong:
        event["after_kong"] = True
    if (after_kong or by == "robbed_kong") and "kong" in variant.event_types():
        # a whole hand holds the kong itself (docs/hand-format.md); one line cannot say which
        raise LineError("A win after a kong or on a robbed kong needs the kong itself: enter "
                        "this hand with /hand, the kong first.")
    return event


def parse_winner(variant: Variant, words: Words, tokens: list[str],
            names: list[str | None] | None) -> dict[str, Any]:
    seat = parse_seat(tokens[0], names)
    winner: dict[str, Any] = {"seat": seat}
    specs = {s.name: s for s in controls.fields_of(variant.Winner)}
    rest = iter(_amounts(tokens[1:], words))
    for at, raw in enumerate(rest, 1):
        name, eq, value = raw.partition("=")
        word = norm(name)
        if eq and word in TURNED and tile_token(value):
            winner["_indicator"] = value.strip()
            continue
        if eq and word in joker_words() and tile_token(value):
            winner["_indicator"] = turned_for(variant, value.strip())
            continue
        if eq and word in specs and word != "seat":  # name=value, the keys themselves
            winner[word] = _value(specs[word], value.strip(), names)
            continue
        if eq:
            word = norm(name)
            if word in words.counts:
                winner[words.counts[word]] = _value(specs[words.counts[word]], value, names)
                continue
            if word in words.seats_of:
                winner[words.seats_of[word]] = parse_seat(value, names)
                continue
        elif word in words.flags:
            winner[words.flags[word]] = True
            continue
        elif word in words.choices:
            key, choice = words.choices[word]
            winner[key] = choice
            continue
        elif word in words.seats_of:  # "hoarded winds by" SEAT
            try:
                winner[words.seats_of[word]] = parse_seat(next(rest), names)
            except StopIteration:
                raise LineError("“{word}” needs a seat after it.", word=raw) from None
            continue
        count = COUNT.match(raw)
        if count and norm(count.group(1)) in words.counts:  # 闺2, 龙×2, quads2
            key = words.counts[norm(count.group(1))]
            winner[key] = _value(specs[key], count.group(2), names)
            continue
        amount = AMOUNT.match(raw)
        if amount and norm(amount.group(2)) in words.counts:  # 24番, 24 points
            key = words.counts[norm(amount.group(2))]
            winner[key] = _value(specs[key], amount.group(1), names)
            continue
        if word in words.terms or (count and norm(count.group(1)) in words.terms):
            # an element counted (七对), or counted n times (一般高×2)
            key, term = words.terms[word] if word in words.terms else words.terms[norm(count.group(1))]
            times = int(count.group(2)) if word not in words.terms and count else 1
            listed = winner.setdefault(key, [])
            listed.append(term if times == 1 else f"{term}:{times}")
            continue
        if tile_token(raw):
            winner.setdefault(TILES, []).append(raw)
            continue
        amount_of = sole_amount(variant)
        if raw.isdigit() and amount_of is not None:  # a winner's amount alone: 东 自摸 12
            winner[amount_of.name] = _value(amount_of, raw, names)
            continue
        if TILE_LIKE.search(raw):
            parse_tiles(raw)  # written as tiles: why they cannot be read (a ninth flower, 9f)
        raise unknown(words, raw, tokens[at + 1] if at + 1 < len(tokens) else "")
    if TILES in winner and story_beside_tiles(variant, winner):
        winner[AFTER_KONG_MARK] = True
    return winner


def story_beside_tiles(variant: Variant, winner: dict[str, Any]) -> bool:
    """Beside tiles (typed, or a photo's), an element of the hand's story (海底捞月, 和绝张) is
    the flag the tiles are counted with (`Variant.story_terms`), not an element counted
    besides them: the winner is changed so, in place. True when one was 杠上开花, the win's
    `after_kong`."""
    after_kong = False
    for key in {k for k, _ in vocabulary(variant).terms.values()}:
        listed = winner.get(key)
        if not isinstance(listed, list):
            continue
        for term in [x for x in listed if x in variant.story_terms]:
            listed.remove(term)
            flag = variant.story_terms[term]
            if flag == "after_kong":
                after_kong = True
            else:
                winner[flag] = True
        if not listed:
            del winner[key]
    return after_kong


def sole_amount(variant: Variant) -> controls.Spec | None:
    """The winner's one required count, where it has one (the amount a table counted): a bare
    number on the line is it."""
    counts = [s for s in controls.fields_of(variant.Winner) if s.kind is Kind.INT and s.required]
    return counts[0] if len(counts) == 1 else None


def _amounts(tokens: list[str], words: Words) -> list[str]:
    """A number and the word of its amount as one token: "24 points" → "24points"."""
    out: list[str] = []
    for tok in tokens:
        if out and out[-1].isdigit() and norm(tok) in words.counts:
            out[-1] += tok
        else:
            out.append(tok)
    return out


def turned_for(variant: Variant, joker: str) -> str:
    """The turned tile that makes `joker` the variant's first joker (docs/tiles.md): a 龙
    one step after the turned tile (`Jokers.turned`) was turned 1m when 龙=2m; a 正精 that is the
    turned tile itself names it. Anything but one tile is passed on as written, for the tile
    reader to refuse."""
    jokers = variant.tiles.jokers if variant.tiles is not None else None
    steps = jokers.turned[:1] if jokers is not None else ()
    if not any(steps):
        return joker
    try:
        tiles = parse_tiles(joker)
    except ScoringError:
        return joker
    if len(tiles.hand) != 1 or tiles.melds or tiles.win is not None or tiles.flowers:
        return joker
    return tile_name(next(t for t in range(N_TILES) if turned_jokers(t, steps) == tiles.hand[:1]))


def tile_token(raw: str) -> bool:
    """A word of tile notation (`123m`, `中中中`, `[555p]`, `+7s`), not a feature word."""
    try:
        tiles = parse_tiles(raw)
    except ScoringError:
        return False
    return bool(tiles.hand or tiles.melds or tiles.win is not None or tiles.flowers)


def unknown(words: Words, raw: str, after: str = "") -> LineError:
    """An unknown word, with the closest known words (as the screens write them); a slip in a
    name of two words ("al pungs") is looked up with the word after it."""
    word = norm(raw.partition("=")[0])
    if after and difflib.get_close_matches(word + norm(after), list(words.spelled), n=1,
                                           cutoff=0.75):
        word += norm(after)
    own = {norm(w): w for lang in words.shown for w in words.shown[lang]}
    shown = {**words.spelled, **own}
    close: list[str] = []
    for pool in (own, words.spelled):  # this game's own names first, other games' after
        close = close or difflib.get_close_matches(word, list(pool), n=3, cutoff=0.5)
    if not close:  # Chinese: the words that share a character
        close = [k for k in own if set(k) & set(word) and not word.isascii()][:3]
    if close:
        return LineError("Unknown word “{word}”. Did you mean: {close}?", word=raw,
                         close=" / ".join(shown[c] for c in close))
    return LineError("Unknown word “{word}”: /help lists the words for this game.", word=raw)


def _value(spec: controls.Spec, text: str, names: list[str | None] | None = None) -> Any:
    low = text.strip().lower()
    if spec.kind is Kind.BOOL and low in ("1", "true", "yes", "0", "false", "no"):
        return low in ("1", "true", "yes")
    if spec.kind is Kind.INT and low.lstrip("-").isdigit():
        number = int(low)
        if not spec.lo <= number <= spec.hi:
            raise LineError("“{value}” is out of range: {lo} to {hi}.", value=text, lo=spec.lo,
                            hi=spec.hi)
        return number
    if spec.kind is Kind.SEAT:
        return parse_seat(low, names)
    if spec.kind is Kind.CHOICE:
        for choice in spec.choices:
            if str(choice).lower() == low:
                return choice
    raise LineError("“{value}” does not fit here.", value=text)


def features_help(variant: Variant, lang: str = "en") -> list[str]:
    """The feature words a variant accepts, as the screens of `lang` show them, for /help."""
    words = vocabulary(variant)
    return [f"{word}×N" if norm(word) in words.counts else word
            for word in words.shown.get(lang, [])]
