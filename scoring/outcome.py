"""The outcome of a hand and the ledger that builds it one itemised line at a time."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from .model import Hand
from .rotation import next_streak

Transfer = tuple[int, int, int]  # (payer, payee, amount)


@dataclass(frozen=True)
class Line:
    """One payment item: what it is, whose it is, a readable text, and its own zero-sum deltas.

    `terms` are the variant's feature keys behind the value (for translated rendering) and
    `value` the figure the payments were computed from.
    """

    what: str
    seat: int | None
    text: str
    deltas: tuple[int, int, int, int]
    terms: tuple[str, ...] = ()
    value: int | None = None

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {"what": self.what, "seat": self.seat, "text": self.text,
                               "deltas": list(self.deltas)}
        if self.terms:
            out["terms"] = list(self.terms)
        if self.value is not None:
            out["value"] = self.value
        return out

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Line:
        """A line as `to_dict` wrote it (a stored hand's outcome, read back)."""
        d = data["deltas"]
        return cls(data["what"], data["seat"], data["text"], (d[0], d[1], d[2], d[3]),
                   tuple(data.get("terms", ())), data.get("value"))


@dataclass(frozen=True)
class Outcome:
    deltas: tuple[int, int, int, int]
    next_dealer: int
    next_dealer_streak: int
    next_round_wind: int
    balances: tuple[int, int, int, int]
    level_over: bool
    lines: tuple[Line, ...]

    def to_dict(self) -> dict[str, Any]:
        return {
            "deltas": list(self.deltas),
            "next_dealer": self.next_dealer,
            "next_dealer_streak": self.next_dealer_streak,
            "next_round_wind": self.next_round_wind,
            "balances": list(self.balances),
            "level_over": self.level_over,
            "lines": [line.to_dict() for line in self.lines],
        }

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Outcome:
        """An outcome as `to_dict` wrote it (what the store keeps as JSON), read back:
        `Outcome.from_dict(o.to_dict()) == o`."""
        d, b = data["deltas"], data["balances"]
        return cls(deltas=(d[0], d[1], d[2], d[3]), next_dealer=data["next_dealer"],
                   next_dealer_streak=data["next_dealer_streak"],
                   next_round_wind=data["next_round_wind"], balances=(b[0], b[1], b[2], b[3]),
                   level_over=bool(data["level_over"]),
                   lines=tuple(Line.from_dict(line) for line in data["lines"]))


def transfers_to_deltas(transfers: Iterable[Transfer]) -> tuple[int, int, int, int]:
    deltas = [0, 0, 0, 0]
    for payer, payee, amount in transfers:
        deltas[payer] -= amount
        deltas[payee] += amount
    return (deltas[0], deltas[1], deltas[2], deltas[3])


@dataclass
class Ledger:
    """Collects lines; every line is made of transfers, so every line sums to zero."""

    lines: list[Line] = field(default_factory=list)

    def add(self, what: str, seat: int | None, text: str, transfers: Iterable[Transfer],
            terms: Iterable[str] = (), value: int | None = None) -> Line:
        line = Line(what, seat, text, transfers_to_deltas(transfers), tuple(terms), value)
        self.lines.append(line)
        return line

    @property
    def deltas(self) -> tuple[int, int, int, int]:
        a = b = c = d = 0
        for line in self.lines:  # (asked for after every line: one pass, no generators)
            da, db, dc, dd = line.deltas
            a, b, c, d = a + da, b + db, c + dc, d + dd
        return (a, b, c, d)

    def held(self, start: Iterable[int]) -> list[int]:
        """Points each seat holds now, from `start` plus every line so far."""
        return [b + d for b, d in zip(start, self.deltas, strict=True)]

    def outcome(self, hand: Hand, next_dealer: int, *, next_round_wind: int | None = None,
                level_over: bool = False) -> Outcome:
        deltas = self.deltas
        balances = tuple(b + d for b, d in zip(hand.balances, deltas, strict=True))
        return Outcome(
            deltas=deltas,
            next_dealer=next_dealer,
            next_dealer_streak=next_streak(hand.dealer, next_dealer, hand.dealer_streak),
            next_round_wind=hand.round_wind if next_round_wind is None else next_round_wind,
            balances=balances,  # type: ignore[arg-type]
            level_over=level_over,
            lines=tuple(self.lines),
        )
