"""`analyze` (docs/tiles.md): from the tiles to the best winner object; every wait of a
13-tile hand valued (`scored_waits`, what `ready` builds `waits` and 查叫 on).

Each reading's winner features are valued by building a one-win hand record and scoring it with
the variant's own `score` — the value tables live only in the variant modules.
"""

from __future__ import annotations

import json
from functools import lru_cache
from itertools import product
from typing import Any, NamedTuple

from ..errors import ScoringError
from ..outcome import Outcome
from ..validation import build_hand
from ..variant import get_variant
from .engine import readings, waiting
from .features import Context, named, suits
from .reading import Holding, Reading, groups_out
from .request import Table, own_engine, read_request, split_win

WIN_LINES = ("win", "all_in")  # the lines that pay the winner for the win itself


# -- valuing a winner object --------------------------------------------------------------------

@lru_cache(maxsize=65536)
def _value(variant: str, rules: str, by: str, seat: int, dealer: int, round_wind: int,
           kongs: tuple[str, ...], winner: str) -> int | ScoringError:
    """What the winner collects from the win alone, scored by the variant itself."""
    events: list[dict[str, Any]] = []
    for kind in kongs:
        kong: dict[str, Any] = {"type": "kong", "seat": seat, "kind": kind}
        if kind == "exposed":
            kong["from"] = (seat + 3) % 4
        events.append(kong)
    win: dict[str, Any] = {"type": "win", "by": by, "winners": [json.loads(winner)]}
    if by != "self_draw":
        win["from"] = (seat + 3) % 4
    v = get_variant(variant)
    if by == "robbed_kong" and "kong" in v.event_types():
        # the kong robbed: an added kong by the seat that pays, right before the win
        events.append({"type": "kong", "seat": win["from"], "kind": "added", "robbed": True})
    events.append(win)
    if v.blood_battle:  # the hand goes on after a win: it ends when the wall runs out
        end: dict[str, Any] = {"type": "exhausted"}
        if v.ready_fields:  # nobody ready
            end["ready"] = {str(s): None for s in range(4) if s != seat}
        events.append(end)
    try:
        outcome = score_record(variant, rules, dealer, round_wind, events)
    except ScoringError as exc:
        return exc
    return sum(line.deltas[seat] for line in outcome.lines if line.what in WIN_LINES)


def score_record(variant: str, rules: str, dealer: int, round_wind: int,
                 events: list[dict[str, Any]]) -> Outcome:
    """The variant's own score of a one-hand record built here: what `parse_record` and
    `score` make of `{"variant", "rules", "dealer", "round_wind", "events"}`, the same refusals
    included, with the rules read once per table (`_rules_model`), not for every value a new
    winner needs."""
    v = get_variant(variant)
    return v.score(build_hand(v, _rules_model(variant, rules), events, dealer, round_wind))


@lru_cache(maxsize=256)
def _rules_model(variant: str, rules: str) -> Any:
    """A variant's rules from their sorted JSON (the value memos' key); models are immutable,
    so every record valued under them shares one."""
    return get_variant(variant).read_rules(json.loads(rules))


_HAS_KONG: dict[str, bool] = {}


def _kongs(table: Table) -> tuple[str, ...]:
    has = _HAS_KONG.get(table.name)
    if has is None:
        has = _HAS_KONG[table.name] = "kong" in table.variant.event_types()
    if not has:
        return ()
    return tuple("concealed" if g.meld == "concealed_kong" else "exposed"
                 for g in table.melds if g.kind == "kong")


# -- analysis -------------------------------------------------------------------------------------

class Scored(NamedTuple):
    winner: dict[str, Any]
    value: int
    reading: Reading
    key: str  # the winner as sorted JSON: a fixed order between equal values
    named: int  # the winner's named features: the first tie-break between equal values

    def to_dict(self) -> dict[str, Any]:
        r = self.reading
        out = {"winner": self.winner, "value": self.value, "shape": r.shape,
               "sets": groups_out(r.groups)}
        if r.win >= 0:
            out["winning_group"] = r.win
        return out


def _holdings(table: Table, hand: tuple[int, ...], win: int | None) -> list[Holding]:
    """One holding per way the jokers in hand split into standing in and standing as
    themselves (unless the variant's jokers always stand in)."""
    tiles = list(hand) + ([win] if win is not None else [])
    if table.jokers.isdisjoint(tiles):  # the common case: no joker in hand, one holding
        counts = [0] * 34
        for x in tiles:
            counts[x] += 1
        return [Holding(tuple(counts), 0, table.melds, win, False)]
    base = [0] * 34
    held = {j: 0 for j in sorted(table.jokers)}
    for x in tiles:
        if x in held:
            held[x] += 1
        else:
            base[x] += 1
    out = []
    jokers = table.tileset.jokers
    own = list(held) if jokers is not None and jokers.as_themselves else []
    for natural in product(*(range(held[j] + 1) for j in own)):
        counts = list(base)
        for j, n in zip(own, natural, strict=True):
            counts[j] += n
        wild = sum(held.values()) - sum(natural)
        if win is not None and win in held:
            nat = dict(zip(own, natural, strict=True)).get(win, 0)
            ways = ([True] if wild else []) + ([False] if nat else [])
        else:
            ways = [False]
        out += [Holding(tuple(counts), wild, table.melds, win, w) for w in ways]
    return out


def _context(table: Table, hand: tuple[int, ...], win: int | None, by: str,
             waits: list[int] | None = None) -> Context:
    """`waits`: the 13-tile hand's waits, when the caller has them (`scored_waits`)."""
    jokers = table.jokers
    joker_tiles = 0  # no jokers at the table: none in a meld either
    if jokers:
        in_melds = sum(1 for g in table.melds for x, w in zip(g.tiles, g.wild, strict=True)
                       if w or x in jokers)  # a joker in a meld stands in, or as itself
        joker_tiles = in_melds + sum(1 for x in hand if x in jokers) + (win in jokers)
    single = False
    if win is not None and table.tileset.single_wait and win not in table.jokers:
        # 单张和: only one tile could complete the hand. A 精 completes any ready hand, so the
        # waits that count are the other tiles, and only those still to be had (a tile whose
        # four are all in the hand and its melds completes nothing), as `waits` lists them
        if waits is None:
            counts, wild = _split_jokers(hand, table.jokers)
            waits = waiting(counts, wild, table.melds, table.tileset.shapes,
                            _candidates(table, hand, counts), 2)
        single = len(waits) == 1
    req = table.req
    return Context(by, req.seat, req.dealer, req.round_wind, table.rules, table.flowers,
                   joker_tiles, single)


def _shown(features: dict[str, Any]) -> dict[str, Any]:
    """The features a winner object names: none that is false, nothing or the plain form."""
    return {k: v for k, v in features.items() if v not in (False, 0, None, "standard")}


class Prep(NamedTuple):
    """What valuing a hand's readings needs besides the readings, the same for every winning
    tile `waits` tries (none of them a joker)."""

    ctx: Context
    rules: str  # the rules as sorted JSON: part of the value's cache key
    kongs: tuple[str, ...]


def prepare(table: Table, hand: tuple[int, ...], win: int | None, by: str,
            waits: list[int] | None = None) -> Prep:
    return Prep(_context(table, hand, win, by, waits), table.rules_json, _kongs(table))


def paying_seat(rel: int) -> int:
    """The seat, counted from the dealer, whose values stand for seat `rel`'s: the dealer's
    win is paid apart, every other seat's alike (whoever discarded; a property test checks it
    under random house rules and every way to win)."""
    return 0 if rel == 0 else 1


_VALUED: dict[tuple, tuple[int | ScoringError, int]] = {}
_TEXTS: dict[tuple[frozenset[tuple[str, Any]], int], str] = {}
MEMO_LIMIT = 20_000


def _valued(table: Table, prep: Prep, by: str, rel: int, key: frozenset[tuple[str, Any]],
            shown: dict[str, Any]) -> tuple[int | ScoringError, int]:
    """What a winner object with these features (`shown`, `key` its items) collects from the
    win (or the variant's refusal), and how many it names. A win pays the same wherever the
    table sits and whatever the round's wind (the wind only moves the deal; both checked by a
    property test), so values are kept for the seat as counted from the dealer in an east
    round, and for one seat of those paid alike (`rel`, see `paying_seat`): the same few
    objects recur in every hand."""
    ck = (table.name, prep.rules, by, rel, prep.kongs, key)
    got = _VALUED.get(ck)
    if got is None:
        turned = json.dumps({"seat": rel, **shown}, sort_keys=True)
        got = (_value(table.name, prep.rules, by, rel, 0, 0, prep.kongs, turned), named(shown))
        if len(_VALUED) > MEMO_LIMIT:
            _VALUED.clear()
        _VALUED[ck] = got
    return got


def _text(key: frozenset[tuple[str, Any]], seat: int, shown: dict[str, Any]) -> str:
    """The winner object as sorted JSON: the order between readings of equal value."""
    got = _TEXTS.get((key, seat))
    if got is None:
        got = json.dumps({"seat": seat, **shown}, sort_keys=True)
        if len(_TEXTS) > MEMO_LIMIT:
            _TEXTS.clear()
        _TEXTS[(key, seat)] = got
    return got


def score_readings(table: Table, hand: tuple[int, ...], win: int | None, by: str,
                   prep: Prep | None = None,
                   ) -> tuple[list[Scored], list[Reading], list[ScoringError]]:
    """Every legal reading valued, best first; the readings found; the refusals met."""
    if prep is None:
        prep = prepare(table, hand, win, by)
    shapes = table.tileset.shapes
    found: list[Reading] = []
    for h in _holdings(table, hand, win):
        found += readings(h, shapes)
    found = _legal(table, found)
    scored, errors = value_readings(table, found, prep, by)
    return scored, found, errors


def _legal(table: Table, found: list[Reading]) -> list[Reading]:
    """The readings the variant allows: where a hand must lack a suit (缺一门), not those of
    three."""
    if table.tileset.missing_suit:
        return [r for r in found if suits(r) < 3]
    return found


def value_readings(table: Table, found: list[Reading], prep: Prep, by: str,
                   ) -> tuple[list[Scored], list[ScoringError]]:
    """The readings' winner objects valued, one reading per object, best first; the refusals
    met."""
    ctx = prep.ctx
    feats = table.variant.tile_features
    req = table.req
    seat = req.seat
    seen: dict[frozenset[tuple[str, Any]], tuple[dict[str, Any], Reading]] = {}
    for r in found:
        shown = _shown(feats(r, ctx))
        key = frozenset(shown.items())
        # one reading per winner object: readings that differ only in where the jokers or the
        # winning tile sit tell the player nothing more (8 ghosts make thousands of them)
        old = seen.get(key)
        if old is None or (r.groups, r.win) < (old[1].groups, old[1].win):
            seen[key] = (shown, r)
    rel = (seat - req.dealer) % 4
    if not table.variant.values_by_seat:
        rel = paying_seat(rel)
    scored: list[Scored] = []
    errors: list[ScoringError] = []
    for key, (shown, r) in seen.items():
        value, n = _valued(table, prep, by, rel, key, shown)
        text = _text(key, seat, shown)
        if isinstance(value, ScoringError) and (rel, 0, 0) != (seat, req.dealer, req.round_wind):
            # the refusal as this table sits (its message may name seats)
            value = _value(table.name, prep.rules, by, seat, req.dealer, req.round_wind,
                           prep.kongs, text)
        if isinstance(value, ScoringError):
            errors.append(value)
        else:
            scored.append(Scored({"seat": seat, **shown}, value, r, text, n))
    if len(scored) > 1:
        scored.sort(key=lambda s: (-s.value, -s.named, s.key, s.reading.groups, s.reading.win))
    return scored, errors


def _refusal(table: Table, found: list[Reading], errors: list[ScoringError], by: str) -> ScoringError:
    if not found:
        return ScoringError("tiles", "not a complete hand: these tiles make neither four sets "
                            "and a pair nor any other winning shape {variant} knows",
                            variant=table.name)
    first = errors[0]
    own = table.variant.refuse_tiles(errors, by)
    if own is not None:
        return own
    return ScoringError("tiles", first.template, **first.params)


def analyze_table(table: Table) -> dict[str, Any]:
    _check_missing_suit(table)
    hand, win = split_win(table, 14)
    scored, found, errors = score_readings(table, hand, win, table.req.by)
    if not scored:
        raise _refusal(table, found, errors, table.req.by)
    best = scored[0]
    return {"winner": best.winner, "value": best.value,
            "readings": [s.to_dict() for s in scored]}


def _real_suits(table: Table) -> set[int]:
    tiles = [*table.hand, *(x for g in table.melds for x, w in zip(g.tiles, g.wild, strict=True) if not w)]
    if table.win is not None:
        tiles.append(table.win)
    return {x // 9 for x in tiles if x < 27 and x not in table.jokers}


def three_suits(table: Table) -> bool:
    """A hand holding all three suits where one must be missing (缺一门): it cannot win, and
    at an exhausted wall it is the variant's word for it (`TileSet.missing_suit`, 花猪)."""
    return bool(table.tileset.missing_suit) and len(_real_suits(table)) == 3


def _check_missing_suit(table: Table) -> None:
    if three_suits(table):
        raise table.variant.refuse_three_suits()


def analyze(data: Any) -> dict[str, Any]:
    """The best reading of a winning hand and every legal reading, best first."""
    own = own_engine(data)
    if own is not None:
        return own.analyze_tiles(data)
    return analyze_table(read_request(data))


def scored_waits(table: Table, hand: tuple[int, ...]) -> list[tuple[int, list[Scored]]]:
    """Each tile completing the 13-tile `hand`, in order, with its legal readings valued as a
    self-draw, best first (`ready.waits` and 查叫 both start from these)."""
    counts, wild = _split_jokers(hand, table.jokers)
    tiles = waiting(counts, wild, table.melds, table.tileset.shapes,
                    _candidates(table, hand, counts))
    if not tiles:
        return []
    # a wait is never a joker, so the context is the same for each
    prep = prepare(table, hand, tiles[0], "self_draw", tiles)
    out = []
    for tile in tiles:
        scored, _, _ = score_readings(table, hand, tile, "self_draw", prep)
        if scored:
            out.append((tile, scored))
    return out


def _split_jokers(hand: tuple[int, ...], jokers: frozenset[int]) -> tuple[list[int], int]:
    """The hand's real tiles as 34 counts, and how many jokers it holds."""
    counts = [0] * 34
    wild = 0
    for x in hand:
        if x in jokers:
            wild += 1
        else:
            counts[x] += 1
    return counts, wild


def _candidates(table: Table, hand: tuple[int, ...],
                counts: list[int] | None = None) -> tuple[int, ...]:
    """The tiles a hand may wait on: not a joker, not all four held (a joker in a meld is held
    as itself), in the variant's tile set (缺一门: not a third suit). `counts`: the hand's
    tiles that are not jokers (`_split_jokers`), when the caller has them."""
    if counts is None:
        counts, _ = _split_jokers(hand, table.jokers)
    held = counts  # a joker is never a wait, so the jokers in hand need no count
    if table.melds:
        held = list(counts)
        for g in table.melds:
            for x, w in zip(g.tiles, g.wild, strict=True):
                if not w:
                    held[x] += 1
    tileset = table.tileset
    tiles = range(34) if tileset.honours else range(27)
    if tileset.missing_suit:
        suits = _real_suits(table)
        if len(suits) == 2:
            tiles = [x for x in tiles if x // 9 in suits]
    return tuple(x for x in tiles if held[x] < 4 and x not in table.jokers)


def clear_caches() -> None:
    """Empty this module's memos (`scoring.tiles.clear_caches`)."""
    _value.cache_clear()
    _rules_model.cache_clear()
    _VALUED.clear()
    _TEXTS.clear()
