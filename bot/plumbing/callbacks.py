"""Callback data: what each button the bot makes carries, named, and the one codec for it.

A button's data is `prefix:head…:code:fields…`, ASCII, at most 64 bytes (Telegram's limit): the
prefix names the kind of message the button is on (`Family`), the head what that message is
about (the wizard's entry and screen version, a session), the code which action (`Act`), the
fields its arguments. `Act` is the one table of every action: its family, code, fields and what
it does. `encode` and `decode` are the only code that knows the wire format; a handler is routed
by its family's `pattern`, then decodes. Data that does not decode is stale or forged.

The wizard's and the tile keyboard's head names the entry (`ENTRY`, the draft's number, stored
with it): a tap that comes before the entry's message id is stored still finds its draft.
"""

from __future__ import annotations

import enum
import re
from collections.abc import Callable
from dataclasses import dataclass

Value = int | str | None  # a decoded field: a number, a word, None for "none" ("-")
LIMIT = 64  # bytes of callback data Telegram takes


def _number(text: str) -> int:
    return int(text)


def _base36(text: str) -> int:
    return int(text, 36)


def _to_base36(value: Value) -> str:
    n, digits = int(value or 0), ""
    while True:
        n, r = divmod(n, 36)
        digits = "0123456789abcdefghijklmnopqrstuvwxyz"[r] + digits
        if n == 0:
            return digits


def _none_or(parse: Callable[[str], Value]) -> Callable[[str], Value]:
    return lambda text: None if text == "-" else parse(text)


@dataclass(frozen=True)
class Kind:
    """How a field is written: its pattern, how it reads, and the smallest and largest values
    it carries (the 64-byte test encodes every action with these)."""

    pattern: str
    read: Callable[[str], Value]
    smallest: Value
    largest: Value
    write: Callable[[Value], str] = str

    def parse(self, text: str) -> Value:
        if not re.fullmatch(self.pattern, text):
            raise ValueError(text)
        return self.read(text)


def _write_none(value: Value) -> str:
    return "-" if value is None else str(value)


TILE_RE = r"[1-9][mps]|[1-7]z|[1-8]f|[1-4]a"
SEAT = Kind("[0-3]", _number, 0, 3)
SEAT_OR_NONE = Kind("[0-3]|-", _none_or(_number), None, 3, _write_none)
# a seat's counter one up or down, "2+", or ten where the map's amounts are signed: "2--"
SEAT_STEP = Kind(r"[0-3]([-+]|--|\+\+)", str, "0-", "3++")
STEP = Kind(r"[-+]|--|\+\+", str, "-", "++")  # one down or up, or ten (a hand's points)
INDEX = Kind("[0-9]{1,2}", _number, 0, 99)  # a place in a short list (a choice, an event type)
REV = Kind("[0-9]{1,9}", _number, 0, 999_999_999)  # the wizard's screen version
ID = Kind("[0-9]{1,13}", _number, 0, 9_999_999_999_999)  # a database id (a session, a person)
CENTS = Kind("[0-9]{1,19}", _number, 0, 9_223_372_036_854_775_807)
ENTRY = Kind("[0-9a-z]{1,13}", _base36, 0, 2**62, _to_base36)  # the draft's number, base 36
REF = Kind(r"[0-9]{1,2}(\.[0-9]{1,2}\.[0-9]{1,2})?", str, "0", "99.99.99")  # a form's field: "4.0.2"
TILE = Kind(TILE_RE, str, "1m", "9s")
TILE_OR_NONE = Kind(f"{TILE_RE}|-", _none_or(str), None, "9s", _write_none)
WORD = Kind("[A-Za-z0-9_-]{1,20}", str, "x", "x" * 20)  # a style's name, a language


@dataclass(frozen=True)
class Field:
    name: str
    kind: Kind
    optional: bool = False  # the last fields only: left out when None


class Family(enum.Enum):
    """The kinds of message a button is on: its prefix, the head every action on it carries,
    and whether actions are told apart by a code (one-action families have none)."""

    WIZARD = ("h", (Field("entry", ENTRY), Field("rev", REV)), True)
    KEYS = ("k", (Field("entry", ENTRY),), True)
    LOBBY = ("s", (Field("session", ID),), True)
    RULE = ("r", (Field("session", ID),), False)
    SEATS = ("t", (Field("session", ID),), True)
    NEW = ("n", (), False)
    ANOTHER = ("na", (), False)
    TABLE = ("tb", (Field("session", ID),), False)
    LANGUAGE = ("l", (), False)
    PAID = ("p", (), False)
    RECEIVED = ("pc", (), False)

    def __init__(self, prefix: str, head: tuple[Field, ...], coded: bool) -> None:
        self.prefix, self.head, self.coded = prefix, head, coded

    def __repr__(self) -> str:
        return f"Family.{self.name}"

    @property
    def pattern(self) -> str:
        """The handler's pattern: this family's data, and no other's."""
        return f"^{re.escape(self.prefix)}(:|$)"


_W, _K = Family.WIZARD, Family.KEYS
_REF = Field("ref", REF)


class Act(enum.Enum):
    """Every action a button carries: (family, code, fields, what it does). The table."""

    # -- the /hand wizard (bot/entry/wizard/flow.py), head: entry, screen version --
    NOOP = (_W, "_", (), "nothing: a row's heading, drawn as a button")
    CANCEL = (_W, "q", (), "close the entry without recording anything")
    WINNER = (_W, "wh", (Field("seat", SEAT),), "this seat won; how is asked next")
    SELF_DRAWN = (_W, "wz", (Field("seat", SEAT),), "this seat won self-drawn; its form next")
    EXHAUSTED = (_W, "x", (), "the wall ran out: its form (the ready hands), or added at once")
    EXTRA = (_W, "e", (Field("type", INDEX),), "another event (a kong, chickens …), the n-th offered")
    REMOVE_LAST = (_W, "u", (), "take the last event entered back")
    PREVIEW = (_W, "p", (), "the whole hand's preview, or what it still lacks")
    SELF_DRAW = (_W, "hs", (), "the winner drew the tile himself")
    DISCARD = (_W, "hd", (Field("seat", SEAT),), "won on this seat's discard")
    ROBBED = (_W, "hr", (Field("seat", SEAT),), "won by robbing this seat's kong")
    ALSO_WON = (_W, "ha", (Field("seat", SEAT),), "this seat won on the same discard too (or not)")
    ROBBED_SWITCH = (_W, "hk", (), "the seat buttons name whose kong was robbed (or discarded)")
    TOGGLE = (_W, "t", (_REF,), "a yes/no field flipped")
    CHOOSE = (_W, "c", (_REF, Field("choice", INDEX)), "a field set to its n-th choice (again: back)")
    COUNT = (_W, "i", (_REF, Field("step", STEP)), "a counter one (or ten) up or down")
    SEAT_FIELD = (_W, "s", (_REF, Field("seat", SEAT_OR_NONE)), "a seat field set (or none)")
    SEATS_FIELD = (_W, "m", (_REF, Field("seat", SEAT)), "a seat put in or taken out of a set")
    MAP_COUNT = (_W, "k", (_REF, Field("step", SEAT_STEP)), "a seat's count in a map up or down")
    MAP_ENTRY = (_W, "n", (_REF, Field("seat", SEAT)), "a seat's entry in a map: on, its words, off")
    MAP_FIRST = (_W, "f", (_REF, Field("step", SEAT_STEP)), "a seat's entry's first counter ±1")
    OPEN = (_W, "o", (_REF,), "open a field's sub-form or its tile picker")
    OPEN_ENTRY = (_W, "oe", (_REF, Field("seat", SEAT)), "open a seat's entry of a map")
    FLIPPED = (_W, "v", (Field("tile", TILE_OR_NONE),), "the flipped tile (none: the wall was empty)")
    ENTER_TILES = (_W, "kt", (Field("winner", INDEX),), "the tile keyboard for the n-th winner")
    READING = (_W, "kr", (Field("seat", SEAT), Field("reading", INDEX)),
               "another reading of a winner's tiles")
    READY_TILES = (_W, "rt", (Field("seat", SEAT),), "the tile keyboard for a seat's 13 tiles (查叫)")
    DONE = (_W, "d", (), "the event added (Add), or the sub-form closed (Done)")
    CONFIRM = (_W, "ok", (), "record the hand: from the preview, or the form of its last event")
    BACK = (_W, "b", (), "one screen back")
    # -- the tile keyboard (bot/entry/keyboard.py), head: entry --
    KEY_TILE = (_K, "t", (Field("tile", TILE),), "a tile (by the mode: into the hand, a meld …)")
    PAIR = (_K, "2", (), "one more of the tile just tapped")
    PUNG = (_K, "3", (), "two more of the tile just tapped")
    CHOW = (_K, "c", (), "the next two of the tile just tapped's suit")
    SAME_SET = (_K, "s", (), "the set just entered once more")
    BACKSPACE = (_K, "x", (), "one key back (a whole set), or a pending mode off")
    MELDS = (_K, "g", (), "meld mode on or off: taps build exposed sets")
    KONG = (_K, "k", (), "the next tile is a concealed kong")
    TAKE_OUT = (_K, "r", (), "the next tile is taken out of the hand")
    TURNED = (_K, "i", (), "the next tile is the one turned up (the jokers follow it)")
    KEYS_DONE = (_K, "d", (), "the tiles are entered: read them")
    KEYS_BACK = (_K, "b", (), "leave the keyboard, the tiles kept for later")
    # -- the session's messages (bot/commands/sessions.py) --
    JOIN = (Family.LOBBY, "j", (), "sit down at the first free seat")
    LEAVE = (Family.LOBBY, "l", (), "leave one's seat")
    SWAP = (Family.LOBBY, "w", (Field("seat", INDEX),), "swap this seat and the next")
    RULES = (Family.LOBBY, "r", (), "the house rules' keyboard")
    TO_LOBBY = (Family.LOBBY, "b", (), "back to the lobby")
    RULE = (Family.RULE, "", (Field("rule", INDEX),), "this house rule to its next value")
    # -- the seats and the scorekeeper (bot/commands/seats.py), head: session --
    SEATS_SHOW = (Family.SEATS, "o", (), "the seats screen as it is now")
    SIT = (Family.SEATS, "s", (Field("seat", SEAT),),
           "the tapper sits in this empty seat (moving from theirs) from the next hand")
    GIVE_UP = (Family.SEATS, "l", (Field("seat", SEAT),), "this seat is given up from the next hand")
    SWAP_SEATS = (Family.SEATS, "w", (Field("seat", SEAT), Field("other", SEAT)),
                  "these two seats swap players (换位) from the next hand")
    KEEP = (Family.SEATS, "k", (), "the tapper offers to keep score (named at once if at the table)")
    KEEPER_OK = (Family.SEATS, "a", (Field("person", ID),), "the table names this person scorekeeper")
    NEW_SESSION = (Family.NEW, "", (Field("variant", WORD), Field("after", ID, optional=True)),
                   "start a session of this style (after: a table beside those running, the "
                   "newest of which had this number when asked: a second tap starts none)")
    ANOTHER_TABLE = (Family.ANOTHER, "", (Field("after", ID), Field("variant", WORD, optional=True)),
                     "start another table beside those running, the newest numbered `after` "
                     "(of this style, else ask which)")
    PICK_TABLE = (Family.TABLE, "", (Field("command", WORD), Field("asker", ID)),
                  "run the command asked about for this table (its asker's tap only; 0: anyone)")
    LANGUAGE = (Family.LANGUAGE, "", (Field("lang", WORD),), "the chat's language")
    # -- settling up (bot/commands/ledger.py) --
    PAID = (Family.PAID, "", (Field("payer", ID), Field("payee", ID), Field("cents", CENTS),
                              Field("session", ID, optional=True)), "this transfer was made")
    RECEIVED = (Family.RECEIVED, "", (Field("payment", ID), Field("session", ID, optional=True)),
                "the payee confirms a payment arrived")

    def __init__(self, family: Family, code: str, fields: tuple[Field, ...], does: str) -> None:
        self.family, self.code, self.fields, self.does = family, code, fields, does

    def __repr__(self) -> str:
        return f"Act.{self.name}"


_BY_CODE: dict[tuple[Family, str], Act] = {(a.family, a.code): a for a in Act}


@dataclass(frozen=True)
class Tap:
    """Decoded callback data: the action, the values of its family's head and its fields by
    name, and its fields' values in order (`args`)."""

    act: Act
    values: dict[str, Value]
    args: tuple[Value, ...] = ()

    def number(self, name: str) -> int:
        value = self.values[name]
        assert isinstance(value, int), (name, value)
        return value

    def text(self, name: str) -> str:
        value = self.values[name]
        assert isinstance(value, str), (name, value)
        return value

    def get(self, name: str) -> Value:
        return self.values.get(name)


@dataclass(frozen=True)
class Buttons:
    """Makes the data of the buttons of one message: `act` with its fields, under `head` (the
    message's entry and screen version, a session …)."""

    head: tuple[Value, ...]

    def __call__(self, act: Act, *args: Value) -> str:
        return encode(act, self.head, *args)


def encode(act: Act, head: tuple[Value, ...] = (), *args: Value) -> str:
    """The data of a button: `act` on the message `head` names, with `args` for its fields
    (trailing optional ones may be left out or None). ValueError for a value its field does
    not carry, or data over 64 bytes."""
    family = act.family
    if len(head) != len(family.head) or len(args) > len(act.fields):
        raise ValueError(f"{act.name}: {head} {args}")
    parts = [family.prefix]
    for field, value in zip(family.head, head, strict=True):
        parts.append(_written(field, value))
    if family.coded:
        parts.append(act.code)
    for i, field in enumerate(act.fields):
        value = args[i] if i < len(args) else None
        if value is None and field.optional:
            break
        if i >= len(args):
            raise ValueError(f"{act.name}: {field.name} missing")
        parts.append(_written(field, value))
    data = ":".join(parts)
    if len(data.encode()) > LIMIT:
        raise ValueError(f"{act.name}: {len(data.encode())} bytes")
    return data


def _written(field: Field, value: Value) -> str:
    text = field.kind.write(value)
    field.kind.parse(text)  # what it cannot read back, it does not write
    return text


def decode(data: str | None) -> Tap | None:
    """The action a button's data names, with its values; None for data no button of this
    bot carries (forged, or from an older screen of another shape)."""
    parts = (data or "").split(":")
    family = next((f for f in Family if f.prefix == parts[0]), None)
    if family is None:
        return None
    try:
        values = {f.name: f.kind.parse(p) for f, p in zip(family.head, parts[1:], strict=False)}
        rest = parts[1 + len(family.head):]
        if len(values) < len(family.head) or (family.coded and not rest):
            return None
        act = _BY_CODE.get((family, rest[0] if family.coded else ""))
        if act is None:
            return None
        given = rest[1:] if family.coded else rest
        needed = sum(not f.optional for f in act.fields)
        if not needed <= len(given) <= len(act.fields):
            return None
        values.update({f.name: f.kind.parse(p) for f, p in zip(act.fields, given, strict=False)})
    except ValueError:
        return None
    values.update({f.name: None for f in act.fields[len(given):]})
    return Tap(act, values, tuple(values[f.name] for f in act.fields))
