"""The variant interface and the registry every variant module joins.

A variant is one module in `scoring/variants/` with one `Variant` subclass decorated with
`@register`. It declares its house rules (a `RulesBase` model: defaults and validation), its
winner features (a `WinnerBase` model), the event models it accepts, and `score(hand)`.
"""

from __future__ import annotations

import importlib
import pkgutil
from collections import Counter
from collections.abc import Iterable
from typing import Annotated, Any, ClassVar, Union

from pydantic import Field, TypeAdapter, ValidationError

from .errors import IncompleteHand, ScoringError, refusal, unknown_rule, validated
from .model import Hand, KongEvent, RulesBase, WinEvent, WinnerBase
from .outcome import Outcome

Term = tuple[str, str, str]  # (en, zh-Hans, zh-Hant)
TERM_LANGS = ("en", "zh-Hans", "zh-Hant")  # the order of a Term's names


def in_lang(names: Term, lang: str) -> str:
    """A term's name in a language (en, zh-Hans, zh-Hant); English for any other."""
    return names[TERM_LANGS.index(lang)] if lang in TERM_LANGS else names[0]


class Variant:
    name: ClassVar[str]
    title: ClassVar[Term]
    unit: ClassVar[Term]
    Rules: ClassVar[type[RulesBase]]
    Winner: ClassVar[type[WinnerBase]]
    events: ClassVar[tuple[type, ...]]
    # names of hand features and line items, for rendering lines in each language
    terms: ClassVar[dict[str, Term]] = {}
    # several winners on one discard / robbed kong (一炮多响)
    multi_winner: ClassVar[bool] = False
    # counts its tiles with its own engine, not scoring.tiles': `analyze_tiles` and
    # `waits_tiles` answer `python -m scoring analyze` and `waits` for it
    reads_own_tiles: ClassVar[bool] = False

    _events: ClassVar[tuple[Any, TypeAdapter[list[Any]]] | None] = None

    @classmethod
    def read_events(cls, events: Any) -> list[Any]:
        """This variant's events from JSON, each read by the event model its "type" names;
        errors as `ScoringError` at ``events[i]...``."""
        if cls.__dict__.get("_events") is None:
            union = Union[tuple(cls.events)]  # noqa: UP007 - built at run time
            tp = list[Annotated[union, Field(discriminator="type")]]
            cls._events = (tp, TypeAdapter(tp))
        tp, adapter = cls._events  # type: ignore[misc]
        try:
            return adapter.validate_python(events)
        except ValidationError as exc:
            raise refusal(exc, tp, "events") from None

    @classmethod
    def event_types(cls) -> list[str]:
        return [ev.model_fields["type"].annotation.__args__[0] for ev in cls.events]

    def resolved_rules(self, rules: dict[str, Any]) -> dict[str, Any]:
        """Every house rule's value, defaults filled in: what a session records when it starts,
        so that later changes to the defaults never re-score its hands. `ScoringError` (at
        ``rules.<name>``) for an unknown rule or a bad value."""
        return self.read_rules(rules).model_dump(mode="json")

    def read_rules(self, rules: Any) -> RulesBase:
        """The house rules from JSON, errors as `ScoringError` at ``rules.<name>``."""
        return validated(self.Rules, rules, "rules", unknown_rule(self.name))

    def win_types(self, rules: Any) -> tuple[str, ...]:
        """How a hand may be won under these rules (the wizard offers only these)."""
        return ("self_draw", "discard", "robbed_kong")

    def initial_balances(self, rules: Any) -> tuple[int, int, int, int]:
        """What each seat holds before the first hand (a bankroll variant overrides it)."""
        return (0, 0, 0, 0)

    def score(self, hand: Hand) -> Outcome:
        raise NotImplementedError

    def analyze_tiles(self, data: Any) -> dict[str, Any]:
        """`analyze` for a variant that `reads_own_tiles` (docs/tiles.md's contract)."""
        raise NotImplementedError

    def waits_tiles(self, data: Any) -> dict[str, Any]:
        """`waits` for a variant that `reads_own_tiles`."""
        raise NotImplementedError

    # shared checks a variant's score() calls while it walks the events
    def check_winner_count(self, ev: WinEvent, path: str) -> None:
        if len(ev.winners) > 1 and not self.multi_winner:
            raise ScoringError(f"{path}.winners",
                               "{variant} allows one winner per discard (截胡); got {count}",
                               variant=self.name, count=len(ev.winners))

    @staticmethod
    def check_end_and_kongs(end: object, kongs: Iterable[KongEvent]) -> None:
        """After reading a hand that ends at one win or an exhausted wall: it has that end (else
        it is still being entered) and nobody made more than four kongs."""
        if end is None:
            raise IncompleteHand("events", "the hand has no end: add its win or exhausted event")
        kongs = list(kongs)
        if len(kongs) <= 4:  # the usual hand: nobody can have made five
            return
        for seat, n in sorted(Counter(k.seat for k in kongs).items()):
            if n > 4:
                raise ScoringError("events", "{seat} has more than four kongs", seat=seat)


    @staticmethod
    def check_robbed_kong(ev: WinEvent, path: str, kongs: list[tuple[str, KongEvent]]) -> None:
        """A hand's robbed kong and its win go together (docs/hand-format.md): a kong marked robbed
        needs the robbed_kong win from its owner, and that win needs the robbed kong, the
        last kong before it (no other kong or win between them). One kong is robbed at most."""
        robbed = [(p, k) for p, k in kongs if k.robbed]
        for p, k in robbed:
            if ev.by != "robbed_kong" or k.seat != ev.from_:
                raise ScoringError(f"{p}.robbed", "{seat}'s kong was robbed, so the hand must end "
                                   "in a robbed_kong win from {seat}", seat=k.seat)
        if len(robbed) > 1:
            raise ScoringError(f"{robbed[1][0]}.robbed", "only one kong can be robbed in a hand")
        if ev.by == "robbed_kong" and not robbed:
            raise ScoringError(f"{path}.by", "a robbed_kong win needs the robbed kong: a kong by "
                               "{seat} with robbed: true", seat=ev.from_)
        if robbed and kongs[-1][1] is not robbed[0][1]:
            raise ScoringError(kongs[-1][0], "the robbed kong ({event}) is robbed by the win "
                               "right after it; no other kong can come between",
                               event=robbed[0][0])


_REGISTRY: dict[str, Variant] = {}
_LOADED = False


def register(cls: type[Variant]) -> type[Variant]:
    _REGISTRY[cls.name] = cls()
    return cls


def _load_all() -> None:
    from . import variants as package

    for mod in pkgutil.iter_modules(package.__path__):
        importlib.import_module(f"{package.__name__}.{mod.name}")


def all_variants() -> dict[str, Variant]:
    global _LOADED
    if not _LOADED:  # a flag, not "registry empty": importing one variant must not hide the rest
        _load_all()
        _LOADED = True
    return dict(sorted(_REGISTRY.items()))


def get_variant(name: str) -> Variant:
    if name not in _REGISTRY and isinstance(name, str) and name.isidentifier():
        # Only the variant asked for (scoring one hand need not build the other four).
        try:
            importlib.import_module(f"{__package__}.variants.{name}")
        except ModuleNotFoundError:
            pass
    if name in _REGISTRY:
        return _REGISTRY[name]
    known = all_variants()
    if name not in known:
        raise ScoringError("variant", "unknown variant {name} (known: {known})", name=repr(name),
                           known=", ".join(known))
    return known[name]


def term_name(terms: dict[str, Term], term: str, lang: str = "zh-Hans") -> str:
    """Render one term key (``"pure"`` or ``"quads:2"``) in a language: en, zh-Hans, zh-Hant."""
    key, _, count = term.partition(":")
    names = terms.get(key)
    if names is None:
        return term
    name = in_lang(names, lang)
    return f"{name}×{count}" if count else name


def describe(terms: dict[str, Term], keys: tuple[str, ...] | list[str], lang: str = "zh-Hans") -> str:
    return " ".join(term_name(terms, k, lang) for k in keys)
