"""What the hand-entry screens and parsers know about the session and the chat: the variant,
the language, the seats' names, the next hand's starting state; hands scored once per update."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any

from scoring import Outcome, ScoringError, score
from scoring.variant import Variant

from ..view.i18n import Translator, translator
from ..view.render import reason


@dataclass
class Ctx:
    """What the wizard needs to know about the session and the chat."""

    variant: Variant
    lang: str
    names: list[str | None]
    base: dict[str, Any]  # the hand record without its events
    hand_no: int = 1
    totals: tuple[int, ...] = (0, 0, 0, 0)
    stake_cents: int = 0
    table: int | None = None  # the table's number, where the chat runs several at once
    # outcomes (or refusals) by record, for this Ctx's life (one update): checking a hand and
    # drawing it (/hu's check, then its preview or first screen) score it once
    _scored: dict[str, Outcome | ScoringError] = field(
        default_factory=dict, init=False, repr=False, compare=False)

    @cached_property
    def t(self) -> Translator:  # made once: every screen asks for it many times
        return translator(self.lang)

    def record(self, events: list[dict[str, Any]]) -> dict[str, Any]:
        return {**self.base, "events": events}

    def score(self, events: list[dict[str, Any]]) -> Outcome:
        """score(self.record(events)), reusing this Ctx's earlier result for the same record;
        raises ScoringError (IncompleteHand too) just as scoring does."""
        record = self.record(events)
        key = json.dumps(record, sort_keys=True, ensure_ascii=False, default=str)
        hit = self._scored.get(key)
        if hit is None:
            try:
                hit = score(record)
            except ScoringError as exc:
                hit = exc
            self._scored[key] = hit
        if isinstance(hit, ScoringError):
            raise hit
        return hit

    def explain(self, exc: ScoringError) -> str:
        """Scoring's refusal in this chat's language, seats named by their players:
        "Not allowed: East Alice cannot win off its own tile"."""
        return self.t("Not allowed: {reason}", reason=self.why(exc))

    def why(self, exc: ScoringError) -> str:
        """Scoring's refusal as the reason alone (the page shows it beside what was tapped, where
        "Not allowed:" adds nothing)."""
        return reason(self.t, self.lang, exc, self.names, self.variant)
