"""Levels (级) over a session of a bankroll variant (each seat starts a level holding
`Variant.initial_balances`; it ends when one reaches 0): which hands made up each level, how it
ended, who won it.

Pure: hand records in, standings out. Every hand is scored again on the balances the hands
before it left, so the chain is always consistent, also after an earlier hand was undone or
corrected; the balances stored inside each record (but the first) are not trusted.

    >>> st = session_levels("cixi", records)
    >>> st.next_level, st.next_balances, st.levels_won
    (3, (86, 138, 90, 86), (1, 0, 1, 0))
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from .errors import ScoringError
from .outcome import Outcome
from .validation import parse_record
from .variant import get_variant

Balances = tuple[int, int, int, int]


@dataclass(frozen=True)
class Level:
    """One level: its hands (positions in the input), balances at its start and now."""

    number: int  # 1, 2, 3, … in the session
    hands: tuple[int, ...]
    start_balances: Balances
    final_balances: Balances  # after its last hand so far
    ended: bool  # a seat reached 0 in its last hand
    ended_by: tuple[int, ...]  # the seats at 0 when it ended; () while it runs
    won_by: tuple[int, ...]  # the highest balance when it ended (ties share the win); () while it runs

    @property
    def deltas(self) -> Balances:
        d = [f - s for f, s in zip(self.final_balances, self.start_balances, strict=True)]
        return (d[0], d[1], d[2], d[3])

    @property
    def ended_at(self) -> int | None:
        """Position (in the input) of the hand that ended the level."""
        return self.hands[-1] if self.ended else None

    @property
    def leaders(self) -> tuple[int, ...]:
        """The seats holding the most now (the winners once it has ended)."""
        best = max(self.final_balances)
        return tuple(s for s, b in enumerate(self.final_balances) if b == best)


@dataclass(frozen=True)
class LevelStandings:
    """Every level of a session, the hands re-scored on chained balances, and what comes next."""

    levels: tuple[Level, ...]  # in order; the last one may still be running
    outcomes: tuple[Outcome, ...]  # one per input hand, scored on the chained balances
    next_balances: Balances  # the `balances` of the next hand's record
    next_level: int  # the number of the level the next hand plays in

    @property
    def current(self) -> Level | None:
        """The level still running, if any hands of it were played."""
        if self.levels and not self.levels[-1].ended:
            return self.levels[-1]
        return None

    @property
    def finished(self) -> tuple[Level, ...]:
        return tuple(lv for lv in self.levels if lv.ended)

    @property
    def levels_won(self) -> Balances:
        """Per seat, how many finished levels it won (a tie counts for every tied seat)."""
        won = [0, 0, 0, 0]
        for lv in self.finished:
            for s in lv.won_by:
                won[s] += 1
        return (won[0], won[1], won[2], won[3])


def _record_of(hand: Any) -> Mapping[str, Any]:
    """A record dict, or a stored hand carrying one as `.record` (db RecordedHand, ScoredHand)."""
    record = hand if isinstance(hand, Mapping) else getattr(hand, "record", None)
    if not isinstance(record, Mapping):
        raise TypeError(f"expected a hand record or an object with .record, got {type(hand)!r}")
    return record


def _fresh(name: str, rules: Mapping[str, Any] | None) -> Balances:
    variant = get_variant(name)
    return variant.initial_balances(variant.Rules.model_validate(dict(rules or {})))


def session_levels(name: str, hands: Iterable[Mapping[str, Any] | Any], *,
                   start: Sequence[int] | None = None,
                   rules: Mapping[str, Any] | None = None) -> LevelStandings:
    """Walk the hands of a session of variant `name` in order and split them into levels.

    `hands`: hand records (dicts), or stored hands with a `.record`, undone hands left out.
    `start`: balances before the first hand; default the first record's own `balances`, else
    `level_points` each. `rules`: the session's rules, only for a fresh level's `level_points`
    when there are no hands yet (afterwards each record's own rules count).
    Raises `ScoringError` (field ``hands[i]…``) for a hand that is not a valid record of it.
    """
    levels: list[Level] = []
    outcomes: list[Outcome] = []
    balances: Balances | None = tuple(start) if start is not None else None  # type: ignore[assignment]
    level_start = balances
    members: list[int] = []
    fresh = _fresh(name, rules)
    for i, hand in enumerate(hands):
        record = dict(_record_of(hand))
        if record.get("variant") != name:
            raise ScoringError(f"hands[{i}].variant", "a session's levels are of {name} hands "
                               "only (got {variant})", name=name,
                               variant=repr(record.get("variant")))
        if balances is not None:
            record["balances"] = list(balances)
        try:
            variant, parsed = parse_record(record)
            out = variant.score(parsed)
        except ScoringError as exc:
            raise ScoringError(f"hands[{i}].{exc.field}", exc.template, **exc.params) from None
        fresh = variant.initial_balances(parsed.rules)
        if level_start is None:
            level_start = parsed.balances
        outcomes.append(out)
        members.append(i)
        balances = out.balances
        if out.level_over:
            levels.append(_level(len(levels) + 1, members, level_start, balances, True))
            members, balances, level_start = [], fresh, fresh
    if members:
        assert level_start is not None and balances is not None
        levels.append(_level(len(levels) + 1, members, level_start, balances, False))
    next_level = len(levels) + 1 if not levels or levels[-1].ended else len(levels)
    return LevelStandings(tuple(levels), tuple(outcomes), balances or fresh, next_level)


def _level(number: int, members: list[int], start: Balances, final: Balances,
           ended: bool) -> Level:
    best = max(final)
    return Level(
        number=number,
        hands=tuple(members),
        start_balances=start,
        final_balances=final,
        ended=ended,
        ended_by=tuple(s for s, b in enumerate(final) if b == 0) if ended else (),
        won_by=tuple(s for s, b in enumerate(final) if b == best) if ended else (),
    )
