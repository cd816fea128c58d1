"""The one exception scoring raises for a record it cannot score."""

from __future__ import annotations

from collections.abc import Callable


class ScoringError(ValueError):
    """An invalid hand record. `field` is a path like ``events[1].winners[0].seat``.

    `template` is an English message with ``{name}`` placeholders filled from `params`; it is
    also the message key the bot translates (extracted with `-k ScoringError:2`), so raise with
    a literal template and the changing parts as keyword arguments. A parameter whose name
    starts with `seat` holds a seat number or a list of them and stands for the whole noun
    ("{seat} has already won" reads "seat 2 has already won"), so the bot can put players'
    names there instead."""

    def __init__(self, field: str, template: str, **params: object) -> None:
        self.field = field
        self.template = template
        self.params = params
        self.message = format_message(template, params)
        super().__init__(f"{field}: {self.message}" if field else self.message)


class IncompleteHand(ScoringError):
    """The events so far are fine but the hand has not ended yet (no win or exhausted wall).

    Scoring a finished record treats it like any error; the bot's wizard, which validates a
    hand while it is being entered, lets it pass until the preview."""


class Invalid(ValueError):
    """A validator's refusal, not yet placed: `scoring.schema` reports it at the path of the
    value or model the validator checked."""

    def __init__(self, template: str, params: dict[str, object]) -> None:
        self.template = template
        self.params = params
        super().__init__(format_message(template, params))


def invalid(template: str, **params: object) -> Invalid:
    """`raise invalid(...)` in a model's validator (extracted for translation like
    `ScoringError`'s template)."""
    return Invalid(template, params)


def format_message(template: str, params: dict[str, object]) -> str:
    """The English text: seat parameters read "seat 2" or "seats 1, 3"."""
    if not params:
        return template
    return template.format(**seat_params(params, _seat_words))


def seat_params(params: dict[str, object], show: Callable[[list[int]], str]) -> dict[str, object]:
    """`params` with each seat parameter (a name starting with `seat`: one seat or several)
    replaced by `show` of its seats, sorted; the one place that convention is read."""
    return {k: show(sorted(v) if isinstance(v, (list, tuple, set, frozenset)) else [v])  # type: ignore[arg-type]
            if k.startswith("seat") else v for k, v in params.items()}


def _seat_words(seats: list[int]) -> str:
    if len(seats) == 1:
        return f"seat {seats[0]}"
    return "seats " + ", ".join(map(str, seats))
