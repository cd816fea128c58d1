"""The one exception scoring raises for a record it cannot score."""

from __future__ import annotations


class ScoringError(ValueError):
    """An invalid hand record. `field` is a path like ``events[1].winners[0].seat``."""

    def __init__(self, field: str, message: str) -> None:
        self.field = field
        self.message = message
        super().__init__(f"{field}: {message}" if field else message)


class IncompleteHand(ScoringError):
    """The events so far are fine but the hand has not ended yet (no win or exhausted wall).

    Scoring a finished record treats it like any error; the bot's wizard, which validates a
    hand while it is being entered, lets it pass until the preview."""
