"""Statistics over scored hands: per player and variant. Pure: hands in, numbers out."""

from __future__ import annotations

from collections import Counter
from collections.abc import Hashable, Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any


@dataclass(frozen=True)
class ScoredHand:
    """One stored hand: its record, its outcome, and who sat in each seat."""

    record: dict[str, Any]
    outcome: dict[str, Any]
    seats: Sequence[Hashable]


@dataclass
class PlayerStats:
    hands: int = 0
    wins: int = 0
    self_draws: int = 0
    dealt_in: int = 0
    points: int = 0
    biggest_gain: int = 0
    patterns: Counter[str] = field(default_factory=Counter)

    def add(self, other: Any) -> None:
        """Count in another player's stats, or a stored row of them (the same fields)."""
        self.hands += other.hands
        self.wins += other.wins
        self.self_draws += other.self_draws
        self.dealt_in += other.dealt_in
        self.points += other.points
        self.biggest_gain = max(self.biggest_gain, other.biggest_gain)
        self.patterns.update({term: n for term, n in other.patterns.items() if n > 0})

    @property
    def win_rate(self) -> float:
        return self.wins / self.hands if self.hands else 0.0

    @property
    def self_draw_rate(self) -> float:
        return self.self_draws / self.wins if self.wins else 0.0

    @property
    def points_per_hand(self) -> float:
        return self.points / self.hands if self.hands else 0.0

    def top_patterns(self, n: int = 3) -> list[tuple[str, int]]:
        return self.patterns.most_common(n)


@dataclass(frozen=True)
class SeatFacts:
    """What one hand adds to one seat's statistics (the unit running aggregates add up)."""

    points: int
    wins: int = 0
    self_draws: int = 0
    dealt_in: int = 0
    patterns: tuple[str, ...] = ()


def seat_facts(record: dict[str, Any], outcome: dict[str, Any]) -> list[SeatFacts]:
    """Per seat 0-3, what this hand counts for. A win counts once per hand per winner; being the
    discarder (or the robbed kong's owner) of a win counts as dealing in."""
    wins, self_draws, dealt_in = [0] * 4, [0] * 4, [0] * 4
    patterns: list[list[str]] = [[], [], [], []]
    for ev in record.get("events", []):
        if ev.get("type") != "win":
            continue
        for w in ev["winners"]:
            wins[w["seat"]] += 1
            self_draws[w["seat"]] += ev["by"] == "self_draw"
        if ev.get("from") is not None:
            dealt_in[ev["from"]] += 1
    for line in outcome.get("lines", []):
        if line.get("what") == "win" and line.get("seat") is not None:
            patterns[line["seat"]].extend(t.partition(":")[0] for t in line.get("terms", []))
    return [SeatFacts(outcome["deltas"][seat], wins[seat], self_draws[seat], dealt_in[seat],
                      tuple(patterns[seat])) for seat in range(4)]


def player_stats(hands: Iterable[ScoredHand]) -> dict[Hashable, dict[str, PlayerStats]]:
    """person → variant → stats (see `seat_facts` for what counts)."""
    out: dict[Hashable, dict[str, PlayerStats]] = {}
    for hand in hands:
        variant = hand.record["variant"]
        for person, facts in zip(hand.seats, seat_facts(hand.record, hand.outcome), strict=True):
            st = out.setdefault(person, {}).setdefault(variant, PlayerStats())
            st.hands += 1
            st.points += facts.points
            st.biggest_gain = max(st.biggest_gain, facts.points)
            st.wins += facts.wins
            st.self_draws += facts.self_draws
            st.dealt_in += facts.dealt_in
            st.patterns.update(facts.patterns)
    return out


def merge(stats: Iterable[PlayerStats]) -> PlayerStats:
    """All variants of one player together."""
    total = PlayerStats()
    for st in stats:
        total.add(st)
    return total
