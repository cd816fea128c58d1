"""The /hand wizard's draft: the hand being entered, as the store keeps it (JSON) between taps.

`HandDraft.load(data)` reads what the store holds (drafts saved by earlier versions included: the
JSON keys are the ones they used); `dump()` is what to store. The hand's events and the event
being entered (`pending`) stay plain JSON: each variant's own models (scoring) say what they hold.
"""

from __future__ import annotations

import secrets
from enum import StrEnum
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, field_validator

from ..keyboard import KeyState


class Step(StrEnum):
    """Where the wizard is: main (who won, or what else happened) → how (self-drawn, whose
    discard, whose kong) → form (the event's fields; tile: its tile picker; keys: the tile
    keyboard) → back to main … → preview → confirm."""

    MAIN = "main"
    HOW = "how"
    FORM = "form"
    TILE = "tile"
    KEYS = "keys"
    PREVIEW = "preview"


class Reading(BaseModel):
    """One way a winner's tiles read: the winner's features, what it is worth, its sets."""

    model_config = ConfigDict(extra="ignore")

    winner: dict[str, Any]
    value: int
    sets: str


class Read(BaseModel):
    """A winner's tiles read (entry/preview.py draws it): their notation, the readings (the
    best few), which was taken and of how many; keyed tiles keep their keyboard `state` and
    the way of winning they were read under (`by`), typed ones (/hu, the page) have neither."""

    model_config = ConfigDict(extra="ignore")

    tiles: str
    readings: list[Reading]
    chosen: int = 0
    total: int
    state: KeyState | None = None
    by: str | None = None


class ReadyRead(BaseModel):
    """A seat's 13 tiles at an exhausted wall (查叫) as scoring.tiles.ready_entry read them; shown
    while the seat's entry is still `ready`."""

    model_config = ConfigDict(extra="ignore")

    tiles: str
    state: KeyState
    ready: dict[str, Any] | str | None
    value: int | None
    tile: str | None
    waits: list[str]


class OpenKeys(BaseModel):
    """The tile keyboard open (step keys): for the pending win's winner number `w`, or for the
    seat `ready` at an exhausted wall (查叫)."""

    model_config = ConfigDict(extra="ignore")

    w: int | None = None
    ready: int | None = None
    state: KeyState = Field(default_factory=KeyState)


def new_entry() -> int:
    """An entry's number: what its buttons name (bot/plumbing/callbacks.py ENTRY) and where the
    store keeps it until its message is posted (a negative placeholder message id)."""
    return secrets.randbits(62) + 1


class HandDraft(BaseModel):
    """The hand being entered. `rev` numbers the screen shown (a tap of an older one redraws it);
    `table` is the table mark the screen was computed at (bot/books/hands.py)."""

    model_config = ConfigDict(extra="ignore")

    step: Step = Step.MAIN
    events: list[dict[str, Any]] = Field(default_factory=list)
    pending: dict[str, Any] | None = None  # the event being entered
    path: list[str] = Field(default_factory=list)  # the sub-form open: ["ready", "2"], ["flipped"]
    error: str | None = None  # shown under the screen until the next tap
    rev: int = 1
    table: str | None = None
    entry: int | None = None  # None: saved before entries were numbered
    web: bool = False  # opened by the page to book its hand
    keys: OpenKeys | None = None
    # a winner's tiles: held (left with Back, or kept from a win taken back), read, the concealed
    # kong events they added (they go with the win)
    held: dict[str, KeyState] = Field(default_factory=dict)
    reads: dict[str, Read] = Field(default_factory=dict)
    auto_kongs: dict[str, int] = Field(default_factory=dict)
    ready_reads: dict[str, ReadyRead] = Field(default_factory=dict)
    # a photo's tiles (and those it was unsure of) until the winner's keyboard opens with them,
    # and the features its caption named (杠上花 …), kept over any reading
    photo: list[str] | None = None
    unsure: list[str] = Field(default_factory=list)
    words: dict[str, dict[str, Any]] = Field(default_factory=dict)

    @field_validator("step", mode="before")
    @classmethod
    def _earlier_steps(cls, step: object) -> object:
        """A draft saved by the earlier flow (winners, then from) picks up at "how"."""
        return Step.HOW if step in ("winners", "from") else step

    @field_validator("held", "reads", "auto_kongs", "ready_reads", "words", mode="before")
    @classmethod
    def _none_is_no_map(cls, value: object) -> object:
        return {} if value is None else value

    @classmethod
    def load(cls, data: dict[str, Any]) -> HandDraft:
        return cls.model_validate(data)

    def dump(self) -> dict[str, Any]:
        return self.model_dump(mode="json")


def new_draft(events: list[dict[str, Any]] | None = None, step: Step = Step.MAIN) -> HandDraft:
    return HandDraft(step=step, events=list(events or []), entry=new_entry())
