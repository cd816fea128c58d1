"""The variant interface and the registry every variant module joins.

A variant (a style) is one folder in `scoring/variants/` (its `Variant` in the folder's
`__init__.py`, its messages' translations in the folder's `locale/`; docs/layout.md says how to
add one), or one module for the older styles, with one `Variant` subclass decorated with
`@register`. It declares everything the rest of the project knows about it: its names, its unit,
its house rules (a `RulesBase` model: defaults and validation), its winner features (a
`WinnerBase` model) and their words, the event models it accepts and the options of the shared
ones it goes without, how a hand ends and who pays on a discard, its tiles and jokers
(`scoring.tileset`), the features its tiles show (or its own count of the whole hand), how many
hands make a game, and `score(hand)`. Code outside `scoring/variants/` names no style:
it asks the variant.
"""

from __future__ import annotations

import importlib
import pkgutil
from collections import Counter
from collections.abc import Iterable
from fractions import Fraction
from typing import TYPE_CHECKING, Annotated, Any, ClassVar, Union

from pydantic import Field, TypeAdapter, ValidationError

from .errors import IncompleteHand, ScoringError, refusal, unknown_rule, validated
from .model import Hand, KongEvent, RulesBase, WinEvent, WinnerBase
from .outcome import Outcome
from .tileset import Jokers, Shapes, Term, TileSet

if TYPE_CHECKING:
    from .tiles.features import Context
    from .tiles.reading import Reading

__all__ = ["Jokers", "Shapes", "Term", "TileSet", "Variant", "all_variants", "describe",
           "get_variant", "in_lang", "listed", "register", "registry_changes", "term_name",
           "unregister"]

TERM_LANGS = ("en", "zh-Hans", "zh-Hant")  # the order of a Term's names


def in_lang(names: Term, lang: str) -> str:
    """A term's name in a language (en, zh-Hans, zh-Hant); English for any other."""
    return names[TERM_LANGS.index(lang)] if lang in TERM_LANGS else names[0]


class Variant:
    """One style of the game. Data is declared as class attributes, behaviour as methods; the
    defaults are those of most styles."""

    # the code that names it in records, commands and files: "luzhou"
    name: ClassVar[str]
    # its full name in each language (en, zh-Hans, zh-Hant): "Luzhou ghost mahjong", "泸州鬼麻将"
    title: ClassVar[Term]
    # its short name, as a list of styles in running text says it: "Luzhou", "泸州", "瀘州"
    short: ClassVar[Term]
    # what its points are called: "ke", "颗", "顆"
    unit: ClassVar[Term]
    # its house rules: each field a rule with its default (a frozen model, so rules hash)
    Rules: ClassVar[type[RulesBase]]
    # a winner's features: what the wizard's form, the /hu words and the page offer
    Winner: ClassVar[type[WinnerBase]]
    # the event models a hand record of it may hold (a win, kongs, its own accounting …)
    events: ClassVar[tuple[type, ...]]
    # the options of the shared events (scoring.model: a kong's `robbed`, a win's `after_kong`)
    # this style does not have, by event type: {"win": ("after_kong",)}. The event models stay
    # the shared ones; the forms, the page and the words offer none of these, and a record that
    # sets one is refused at that field (`lacks` adds those its house rules switch off: a kong's
    # `robbed` where `win_types` has no robbed_kong)
    options_off: ClassVar[dict[str, tuple[str, ...]]] = {}
    # names of hand features, events, rules' values and line items, in each language: how the
    # screens, the lines and the /hu words name them
    terms: ClassVar[dict[str, Term]] = {}
    # a flag's term while a count of the winner is 0, as the screens name it: (flag, count) →
    # the term ("pure" reads "clean_pure", 无龙清一色, while the winner holds no 龙)
    terms_without: ClassVar[dict[tuple[str, str], str]] = {}
    # events besides a win and an exhausted wall that end a hand on their own (a table's own
    # count of the hand: the points each seat won); the entry screens close the hand after one
    ends_hand: ClassVar[frozenset[str]] = frozenset()
    # several winners on one discard / robbed kong (一炮多响)
    multi_winner: ClassVar[bool] = False
    # 血战 (blood battle): a win does not end the hand; play goes on until three seats have won
    # or the wall runs out, so the wizard asks for the next win
    blood_battle: ClassVar[bool] = False
    # the events of the accounting that may follow the hand's end (chickens, 精 …): the form of
    # a hand-ending win offers them before it is confirmed
    after_end: ClassVar[frozenset[str]] = frozenset()
    # the discarder (or a robbed kong's owner) pays half the hand's value, not all of it: the
    # line says so beside the value, which would otherwise read wrong beside the payment
    discard_pays_half: ClassVar[bool] = False
    # 查叫: an exhausted wall pays for ready hands, each seat still in given its best ready hand
    # in the exhausted event's `ready` map; these are that hand's features the tiles show
    # (the analysis fills them in). (): an exhausted wall pays nothing for ready hands
    ready_fields: ClassVar[tuple[str, ...]] = ()
    # its tiles, jokers and winning shapes, for the tile analysis, the keyboard and the page;
    # None: its features are entered by hand only
    tiles: ClassVar[TileSet | None] = None
    # counts a hand's worth from its whole tiles itself (a table of scoring elements and a
    # counter of its own), not from winner features the tile analysis fills in: `analyze_tiles`
    # and `waits_tiles` answer `analyze` and `waits` for it, in the shape docs/tiles.md gives
    # (readings with their sets, winner and value), and its winner object carries the tiles
    reads_own_tiles: ClassVar[bool] = False
    # the winner's fields a reading of the tiles decides: every key `tile_features` may give,
    # or for a style that reads its own tiles those that count the hand (the tiles, or in
    # their place its elements or total). Beside tiles a player adds only the others
    # (`story_fields`), as a /hu line's words do
    tile_fields: ClassVar[tuple[str, ...]] = ()
    # elements a player may name beside the tiles, by the field that counts them from the tiles
    # (a winner's field, or the win's `after_kong`): 妙手回春 said beside tiles is
    # `last_of_wall`, where the tiles count the hand (`reads_own_tiles`) and the elements too
    # would count it twice
    story_terms: ClassVar[dict[str, str]] = {}
    # terms worth the same points each time they count (a table of scoring elements: 七对 24):
    # the lines show each beside its points and the hand's value as their sum; a term written
    # "key:n" counts n times. {}: the terms name features, and the value alone is a figure
    term_points: ClassVar[dict[str, int]] = {}
    # what a hand's value is counted in where it is not the scores' `unit`: 番 beside 分
    value_unit: ClassVar[Term | None] = None
    # a game is this many hands: the scores kept over a game start afresh after it (its hands
    # carry the game's running scores as their `balances`; `score` marks the game's last hand
    # `level_over`), and `game_points` may give places points. 0: a session is not cut into games
    game_hands: ClassVar[int] = 0
    # a winner object's worth depends on the seat that holds it, counted from the dealer (its
    # features name tiles that are one seat's own, like Singapore's flowers): the tile analysis
    # values it at that seat, not at one seat standing for all non-dealers
    values_by_seat: ClassVar[bool] = False

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

    def rules_notes(self, rules: Any, lang: str) -> list[str]:
        """Lines a style shows under its house rules (/rules), in a language (en, zh-Hans,
        zh-Hant), as plain text set in a fixed-width block: what the rules pay, where a table
        of amounts says it best (Singapore's payments per tai). [] for none."""
        return []

    def lacks(self, event_type: str, rules: Any) -> frozenset[str]:
        """The options (fields, by their JSON names) of an event type this style does not have
        under these rules: its `options_off`, and a kong's `robbed` where no win robs a kong."""
        off = set(self.options_off.get(event_type, ()))
        if event_type == "kong" and "robbed_kong" not in self.win_types(rules):
            off.add("robbed")
        return frozenset(off)

    def check_options(self, events: list[Any], rules: Any) -> None:
        """Refuse an event that sets an option this style lacks (`lacks`), at that field."""
        for i, ev in enumerate(events):
            off = self.lacks(ev.type, rules)
            if not off:
                continue
            for name, info in type(ev).model_fields.items():
                key = info.alias or name
                if key in off and getattr(ev, name) != info.default:
                    raise ScoringError(f"events[{i}].{key}", "{variant} has no {option} in a "
                                       "{event}: leave {option} off", variant=self.name,
                                       option=key, event=ev.type)

    def offers(self, event_type: str, rules: Any) -> bool:
        """Whether the hand-entry screens offer this event under these house rules (some
        events exist only under some rules)."""
        return True

    def score(self, hand: Hand) -> Outcome:
        raise NotImplementedError

    def story_fields(self) -> tuple[str, ...]:
        """The winner's features the tiles cannot show, which a player adds beside them: the
        story of the hand (天胡, 杠上花, 绝张 …) and whatever else is not in `tile_fields`."""
        return tuple(name for name in self.Winner.model_fields
                     if name != "seat" and name not in self.tile_fields)

    def story_for_tiles(self, winner: dict[str, Any], after_kong: bool = False
                        ) -> dict[str, Any]:
        """What an `analyze` request carries beside the tiles of a winner whose story was told
        (杠上开花, 绝张, 妙手回春, flowers …). A style that reads its own tiles counts the hand
        whole, its minimum included, so the story goes with the tiles: its request takes
        `after_kong` and its `story_fields`. The others' readings show only what the tiles
        show, and the story is laid over them afterwards: {}."""
        if not self.reads_own_tiles:
            return {}
        story = {k: winner[k] for k in self.story_fields() if winner.get(k)}
        return {**story, "after_kong": True} if after_kong else story

    # -- what the tiles show (used where `tiles` is declared) --------------------------------
    # These serve styles whose value comes from winner features, which the tile analysis fills
    # in; a style that counts its points from the whole hand itself (`reads_own_tiles`) answers
    # `analyze_tiles` and `waits_tiles` below instead, its `tiles` telling the keyboard and the
    # page which tiles it plays.

    def tile_features(self, r: Reading, ctx: Context) -> dict[str, Any]:
        """The winner features one reading of the tiles shows (scoring.tiles.features has
        the shared questions: flush, pungs, quads …). Only what the tiles show: features that
        need the story of the hand (天胡, 杠上花 …) stay for the player to add."""
        raise NotImplementedError(f"{self.name} reads no tiles")

    def check_indicator(self, indicator: str | None) -> None:
        """Refuse a turned tile where the jokers follow none, or its lack where they do."""
        jokers = self.tiles.jokers if self.tiles else None
        if jokers is not None and jokers.turned:
            if indicator is None:
                raise ScoringError("indicator", "{variant} needs the turned tile (indicator) to "
                                   "know its jokers", variant=self.name)
        elif indicator is not None and jokers is not None:
            raise ScoringError("indicator", "{variant}'s jokers are the same at every table; it "
                               "turns no indicator", variant=self.name)
        elif indicator is not None:
            raise ScoringError("indicator", "{variant} plays without jokers; it turns no "
                               "indicator", variant=self.name)

    def most_of(self, tile: str, rules: Any) -> int:
        """How many of a tile the set holds: one of each flower, four of every other tile."""
        return 1 if tile.endswith("f") else 4

    def refuse_count(self, tile: str, count: int, rules: Any) -> ScoringError:
        """More of a tile than `most_of` allows (a style whose `most_of` differs words it)."""
        return ScoringError("tiles", "{count} of {tile}: there are only four of each tile",
                            count=count, tile=tile)

    def refuse_tile(self, tile: str) -> ScoringError:
        """An honour in a set without them (`TileSet.honours` False)."""
        return ScoringError("tiles", "{variant} does not use {tile}: it plays the three suits "
                            "only", variant=self.name, tile=tile)

    def refuse_three_suits(self) -> ScoringError:
        """A winning hand holding all three suits where one must be missing (缺一门)."""
        return ScoringError("tiles", "缺一门: a {variant} hand lacks one suit, and these tiles "
                            "hold all three", variant=self.name)

    def refuse_tiles(self, errors: list[ScoringError], by: str) -> ScoringError | None:
        """What to say when every reading of a hand's tiles was refused (`errors`, one per
        reading), where the style says it better than its first refusal; None: that one."""
        return None

    # -- a style that `reads_own_tiles` ------------------------------------------------------

    def analyze_tiles(self, data: Any) -> dict[str, Any]:
        """`analyze` for a variant that `reads_own_tiles` (docs/tiles.md's contract)."""
        raise NotImplementedError(f"{self.name} reads its tiles with scoring.tiles")

    def waits_tiles(self, data: Any) -> dict[str, Any]:
        """`waits` for a variant that `reads_own_tiles`."""
        raise NotImplementedError(f"{self.name} reads its tiles with scoring.tiles")

    def cannot_count(self) -> ScoringError | None:
        """Why tiles cannot be counted here (its counter is not installed), with how to get
        it: the tile keyboard says so before a hand is tapped in, and the hand is entered by
        its worth instead. None: they can."""
        return None

    # -- games -------------------------------------------------------------------------------

    def game_points(self, totals: tuple[int, int, int, int], rules: Any
                    ) -> tuple[Fraction, Fraction, Fraction, Fraction] | None:
        """What each seat's place in a finished game (`totals`: the game's scores) earns under
        these rules (a league's table points); None where the rules give none."""
        return None

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
_CHANGES = [0]  # how many times a style joined or left the registry


def registry_changes() -> int:
    """A number that changes whenever a style joins or leaves the registry: what a cache of
    something read from every style (the bot's merged catalogues) compares."""
    return _CHANGES[0]


def register(cls: type[Variant]) -> type[Variant]:
    """Add a style to the registry (its module's decorator; a test may add one of its own)."""
    _REGISTRY[cls.name] = cls()
    _CHANGES[0] += 1
    return cls


def unregister(name: str) -> None:
    """Take a style out of the registry again (a test's own style, when the test is done)."""
    if _REGISTRY.pop(name, None) is not None:
        _CHANGES[0] += 1


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


def listed() -> list[Variant]:
    """Every style in the order lists of them name them (`scoring.variants.ORDER`), any
    other after those, by name."""
    from .variants import ORDER

    known = all_variants()
    first = [known[n] for n in ORDER if n in known]
    return first + [v for n, v in known.items() if n not in ORDER]


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
