"""Every field an input carries, declared once: its type, its bounds and the one rule for text from outside.

A replay line, a floor command, a seating CSV, the command line (``shotclock send``, ``shotclock seating``), the
configuration and the pages all carry the same few fields (a seat, chips, a time bank, a player's name…). Each
is declared here once, as a :class:`Field`; the replay reader (:mod:`shotclock.core.replay`), the network check
(:mod:`shotclock.core.wire`), the seating import (:func:`shotclock.core.seats.parse_seating`), the CLI, the
config schema (:mod:`shotclock.config`), the pages (``lib/device-rules.js``, :mod:`shotclock.web`) and
docs/network.md's command schema (:func:`command_schema`) take it from here. Why each bound is what it is:
docs/rules.md, "Fields and their bounds".

Text from outside (a name typed on a terminal, a CSV, a floor command) follows one rule, :func:`text_problem`:
valid Unicode (no lone surrogates, which is what a name from a terminal that is not UTF-8 becomes), no control
characters (tab, newline, direction marks), not blank, and at most so many characters. It is checked once, where
the text comes in, so a bad name never reaches the engine, the log or the wire.

Example::

    >>> FIELDS["seat"].problem(4.0)
    "'seat' must be a whole seat number from 1 to 10, not 4.0"
    >>> FIELDS["player"].problem("M\\udcf6ller")
    "'player': a name must be valid Unicode (a lone surrogate: was it typed on a terminal that is not UTF-8?)"
    >>> missing("command", "seat", "seat")
    "the 'seat' command needs 'seat' (a seat number from 1 to 10)"
"""

from __future__ import annotations

import json
import re
import unicodedata
from dataclasses import dataclass
from typing import Annotated, Literal, Union

import msgspec

from shotclock.core.codec import text as json_text
from shotclock.errors import shown as quoted  # a key as a message names it ('seat')

MIN_SEATS, MAX_SEATS = 2, 10  # a poker table seats at most ten
NAME_MAX = 40  # characters: the screen shows the name beside the seat
ID_MAX = 64  # characters of a command's id or sender
PLACE_MAX = 32  # characters: a room's or section's name on the dashboard's filter buttons
LEVEL_MAX = 100  # tournament levels: a long event plays 40 or so
HANDS_MAX = 100  # hands per level at a final table (EPT plays a dozen or so)
CHIPS_MAX = 50  # extension chips a player may hold: shot.allowance's bound; a top-up stops there
BANK_MAX = 36_000  # seconds of time bank (ten hours, more than any tournament day); a top-up stops there
MARKS = ("warning", "clock")  # what the floor marks a player with (TDA 2024 Rules 70 and 71; docs/rules.md, "Marks")
MARK_SECONDS = (5, 300)  # a marked player's own clock: at least a countdown's 5 s, at most five minutes
RP8_MINUTES_MAX = 3  # minutes: the most RP-8 takes off the tournament clock for one hand-for-hand hand
HAND_FOR_HAND_HANDS_MAX = 1000  # hand-for-hand hands a room plays (a bubble takes a few dozen at most)
SEQ_MAX = 2 ** 53 - 1  # a hand-for-hand state's sequence number: a whole number a page's JavaScript holds exactly
INT64 = (-(2 ** 63), 2 ** 63 - 1)
T_LIMIT = 1_000_000_000  # an event's time: seconds from 0 up to (not including) 10^9, about 31 years
BLIND_MAX = 1_000_000_000  # chips: fifty times a Main Event's last blinds; a time in ms (13 digits) is not a blind
STAGE_MINUTES_MAX = 240  # minutes of one level or break: a Main Event level is 120; 300 and more is seconds
STAGE_NAME_MAX = 60  # characters of a break's name or a level's game ("Pot Limit Omaha Hi-Lo 8 or Better")
TITLE_MAX = 100  # characters of a tournament's title
DELAY_MAX = 3_600  # seconds a broadcast overlay may run late (30 minutes at WSOP); the archive keeps that much history
HISTORY_SKIP_MAX = 100_000  # messages of one millisecond an overlay's history passes over: far more than one holds

# Unicode categories no text from outside may hold: control and format characters (tab, newline, direction marks,
# zero-width characters), line and paragraph separators, and surrogates (only ever alone in a Python string).
_CONTROL = frozenset({"Cc", "Cf", "Zl", "Zp"})


def text_problem(value: object, longest: int, what: str = "a name", empty: bool = False) -> str | None:
    """Why ``value`` cannot be a text field of at most ``longest`` characters (None when it can): the one rule for
    every text from outside. ``what`` names it in the message; ``empty``: "" is allowed (it means none).

    >>> text_problem("Ana Costa", 40) is None, text_problem("", 32, "a room", empty=True) is None
    (True, True)
    >>> text_problem("a\\tb", 40)
    'a name must not hold control characters (tab, newline, direction marks)'
    """
    if not isinstance(value, str):
        return f"{what} must be text"
    if empty and value == "":
        return None
    if not value.strip():
        return f"{what} must be empty or hold a visible character" if empty else f"{what} must not be empty"
    categories = {unicodedata.category(c) for c in value}
    if "Cs" in categories:
        return f"{what} must be valid Unicode (a lone surrogate: was it typed on a terminal that is not UTF-8?)"
    if categories & _CONTROL:
        return f"{what} must not hold control characters (tab, newline, direction marks)"
    if len(value) > longest:
        return f"{what} must be at most {longest} characters ({len(value)} given)"
    return None


_DECIMAL = re.compile(r"[0-9]+(\.[0-9]+)?", re.ASCII)


def as_whole(value):
    """The whole number a text of ASCII digits spells; any other value as it is, for a field's check to name.
    Python's ``int`` also reads ``1_0``, ``+1``, `` 1 `` and other scripts' digits, and ``str.isdigit`` passes
    ``²``, which ``int`` then refuses: text from outside (argv, a CSV, a structure) is a number here only as plain
    digits, and this is the one rule that says so.

    >>> as_whole("12"), as_whole("1_0"), as_whole("1²"), as_whole("\u0661"), as_whole("\uff15"), as_whole(7)
    (12, '1_0', '1²', '١', '５', 7)
    """
    if isinstance(value, str) and value.isascii() and value.isdigit():
        return int(value)
    return value


def as_decimal(value):
    """:func:`as_whole` for a number of seconds or minutes: plain ASCII digits with at most one decimal point
    (``12``, ``2.5``); any other value as it is (``1e309``, ``nan``, ``-0``, ``٢``), for a field's check to name.

    >>> as_decimal("12"), as_decimal("2.5"), as_decimal("1e3"), as_decimal("nan"), as_decimal(".5")
    (12, 2.5, '1e3', 'nan', '.5')
    """
    if isinstance(value, str) and _DECIMAL.fullmatch(value):
        return int(value) if value.isdigit() else float(value)
    return value


def json_problem(problem) -> str:
    """A :class:`~shotclock.core.codec.JsonProblem`'s line, naming the field by its own rule where the codec found
    which one broke it (a lone surrogate, refused while decoding, in a ``name``: "'name': a name must be valid
    Unicode …")."""
    field = FIELDS.get(problem.key) if problem.key is not None and problem.reason == "text" else None
    if field is None:
        return problem.detail
    return field.problem("\udcf6") if field.kind == "text" else f"'{field.key}': {problem.detail}"


def name_problem(name: object) -> str | None:
    """Why ``name`` cannot be a player's name (None when it can): :func:`text_problem` with 1 to 40 characters.

    >>> name_problem("Ana Costa") is None
    True
    >>> name_problem("a\\tb")
    'a name must not hold control characters (tab, newline, direction marks)'
    """
    return text_problem(name, NAME_MAX)


def shown(value) -> str:
    """A value as the JSON it came as (``4.0``, ``true``, ``"x"``), cut short when long."""
    try:
        text = json_text(value)
    except (TypeError, ValueError, OverflowError):
        text = repr(value)
    return text if len(text) <= 40 else text[:37] + "..."


@dataclass(frozen=True)
class Field:
    """One field of an input: its key, its kind, its bounds, what it is (for messages) and what it is for.

    :param key: the field's key (``"seat"``); a player's name is ``name`` in the replay format and ``player`` on
        the wire (where ``name`` names the command): two fields of one rule.
    :param kind: ``seat``, ``whole``, ``seconds``, ``minutes``, ``flag``, ``text``, ``players``, ``int64`` or
        ``choice`` (one of ``choices``).
    :param low: the least value (a number) or length (text).
    :param high: the greatest value (a number) or length (text).
    :param what: the field in words, for a message (``"a seat number"``).
    :param doc: what the field carries, for the docs' schema.
    """

    key: str
    kind: str
    low: int | float
    high: int | float
    what: str
    doc: str = ""
    choices: tuple[str, ...] = ()

    def problem(self, value) -> str | None:
        """What is wrong with ``value`` for this field, in one line naming the field (None: nothing)."""
        problem = self.value_problem(value)
        if problem is None:
            return None
        return f"'{self.key}': {problem}" if self.kind in ("text", "players") else f"'{self.key}' {problem}"

    def value_problem(self, value) -> str | None:
        """:meth:`problem` without the field's key ("must be a seat number from 1 to 10, not 11")."""
        kind = self.kind
        if kind == "flag":
            return None if isinstance(value, bool) else f"must be true or false, not {shown(value)}"
        if kind == "text":
            return text_problem(value, self.high, self.what, empty=self.low == 0)
        if kind == "players":
            return _players_problem(value)
        if kind == "choice":
            return None if value in self.choices and isinstance(value, str) else \
                f"must be one of {', '.join(self.choices)}, not {shown(value)}"
        if self.fits(value):
            return None
        if kind == "int64":
            return "must be a whole number of milliseconds (64-bit)"
        what = "a whole seat number" if kind == "seat" and isinstance(value, float) else self.what
        return f"must be {what} from {self.low} to {self.high}, not {shown(value)}"

    def fits(self, value) -> bool:
        """True when ``value`` is a number of this field's kind within its bounds (the replay's hot path asks)."""
        if value.__class__ is int:
            return self.low <= value <= self.high
        if value.__class__ is float and self.kind in ("seconds", "minutes"):
            return self.low <= value <= self.high
        return False

    def schema(self, plain: bool = False) -> dict:
        """This field as a JSON Schema (docs/network.md's command schema is made of these); ``plain``: without
        its description."""
        doc = {"description": self.doc} if self.doc and not plain else {}
        if self.kind == "flag":
            return {"type": "boolean", **doc}
        if self.kind == "text":
            return {"type": "string", "minLength": self.low, "maxLength": self.high, **doc}
        if self.kind == "choice":
            return {"enum": list(self.choices), **doc}
        if self.kind == "players":
            name = FIELDS["player"]
            return {"type": "array", "maxItems": MAX_SEATS,
                    "items": {"type": "array", "prefixItems": [FIELDS["seat"].schema(plain=True),
                                                               {"type": "string", "maxLength": name.high}],
                              "minItems": 2, "maxItems": 2}, **doc}
        number = "number" if self.kind in ("seconds", "minutes") else "integer"
        return {"type": number, "minimum": self.low, "maximum": self.high, **doc}

    def typed(self):
        """This field as msgspec checks it while a message is decoded (:mod:`shotclock.core.codec`): its type and
        bounds. Text is bounded in length here; the rest of the text rule (:func:`text_problem`) is the reader's."""
        kind = self.kind
        if kind == "flag":
            return bool
        if kind in ("seat", "whole", "int64"):
            return Annotated[int, msgspec.Meta(ge=self.low, le=self.high)]
        if kind in ("seconds", "minutes"):  # a whole number stays one (``5``), as the JSON gave it
            bounds = msgspec.Meta(ge=self.low, le=self.high)
            return Union[Annotated[int, bounds], Annotated[float, bounds]]
        if kind == "text":
            return Annotated[str, msgspec.Meta(min_length=self.low, max_length=self.high)]
        if kind == "choice":
            return Literal[self.choices]
        if kind == "players":
            pair = tuple[FIELDS["seat"].typed(), Annotated[str, msgspec.Meta(max_length=NAME_MAX)]]
            return Annotated[tuple[pair, ...], msgspec.Meta(max_length=self.high)]
        raise ValueError(f"no type for the field kind {kind!r}")

    def bounds(self) -> dict:
        """The bounds the pages check a form's value against (``lib/device-rules.js``)."""
        if self.kind == "choice":
            return {"kind": self.kind, "choices": list(self.choices)}
        return {"kind": self.kind, "min": self.low, "max": self.high}


FIELDS: dict[str, Field] = {f.key: f for f in (
    Field("id", "text", 1, ID_MAX, "a command id", "unique per command; echoed in the ack"),
    Field("sender", "text", 1, ID_MAX, "a sender"),
    Field("sent_ms", "int64", INT64[0], INT64[1], "a whole number of milliseconds", "Unix time in ms when sent"),
    Field("facing_bet", "flag", 0, 1, "true or false", "call: the bet state to start with; bet: required"),
    Field("seat", "seat", 1, MAX_SEATS, "a seat number",
          "extend: the player's seat, counted against the extension allowance; seat, rename, empty, button: "
          "required; fold, all_in: a seat other than the one on turn"),
    Field("player", "text", 1, NAME_MAX, "a name", "seat, rename: the player's name (no control characters)"),
    Field("name", "text", 1, NAME_MAX, "a name", "seat, rename: the player's name (the replay format's key)"),
    Field("bank", "seconds", 0, BANK_MAX, "a number of seconds",
          "seat: the time bank (seconds) a player moved from another table brings"),
    Field("chips", "whole", 0, CHIPS_MAX, "a whole number of chips",
          "seat: the extension chips a moved player brings; top_up: more chips for everyone"),
    Field("seconds", "seconds", 0, BANK_MAX, "a number of seconds", "top_up: more time bank for everyone"),
    Field("mark", "choice", 0, 0, "warning or clock",
          "mark: `warning` (TDA Rule 71) or `clock` (the player's own clock on every decision); seat: the mark a "
          "moved player brings", choices=MARKS),
    Field("mark_seconds", "seconds", MARK_SECONDS[0], MARK_SECONDS[1], "a number of seconds",
          "mark, seat: the length of a `clock` mark's own clock (required with it)"),
    Field("by", "text", 1, ID_MAX, "a sender",
          "mark, unmark, level, hands (replay format only): who marked or set the level; on the wire it is the "
          "command's proven sender"),
    Field("players", "players", 0, MAX_SEATS, "a list of [seat, name] pairs",
          "seating: the whole table as [seat, name] pairs; every other seat is emptied"),
    Field("table", "text", 1, NAME_MAX, "a table's name", "the configuration's `table`: its name on the screen"),
    Field("room", "text", 0, PLACE_MAX, "a room", "`network.room`: the dashboard's filter (empty: none); a command "
          "to every table: only the tables of this room take it"),
    Field("section", "text", 0, PLACE_MAX, "a section", "`network.section`: the dashboard's filter (empty: none); "
          "a command to every table: only the tables of this section take it"),
    Field("level", "whole", 1, LEVEL_MAX, "a tournament level",
          "level: the tournament level, from the table's next hand"),
    Field("hands", "whole", 0, HANDS_MAX, "a number of hands",
          "level, hands: hands per level (0: not counted), from the next hand"),
    Field("minutes", "seconds", 0, RP8_MINUTES_MAX, "a number of minutes",
          "hand_for_hand: the minutes each hand-for-hand hand takes off the tournament clock (TDA RP-8; "
          "default 2)"),
    Field("hand_for_hand.hands", "whole", 0, HAND_FOR_HAND_HANDS_MAX, "a number of hands",
          "the venue's retained hand-for-hand state (docs/network.md, 'hand-for-hand'): the hands released so far, "
          "the room's count"),
    Field("hand_for_hand.seq", "whole", 1, SEQ_MAX, "a sequence number",
          "the venue's retained hand-for-hand state: grows with every change; a table takes the newest"),
    Field("rule_set", "text", 0, PLACE_MAX, "a rule set's name",
          "rule_set: the named rule set (`[rule_sets.NAME]` in the tables' configuration) from the next hand; "
          "empty: back to the table's own rules"),
    # A tournament's structure (core/structure.py, docs/structure.md): what its readers take from a file.
    Field("small_blind", "whole", 1, BLIND_MAX, "a whole number of chips", "a structure's level: its small blind"),
    Field("big_blind", "whole", 1, BLIND_MAX, "a whole number of chips",
          "a structure's level: its big blind (not less than the small blind)"),
    Field("ante", "whole", 0, BLIND_MAX, "a whole number of chips",
          "a structure's level: its ante (0: none); with `big_blind_ante` the big blind pays it for the table"),
    Field("big_blind_ante", "flag", 0, 1, "true or false", "a structure's level: the ante is a big-blind ante"),
    Field("level_minutes", "minutes", 1, STAGE_MINUTES_MAX, "a number of minutes",
          "a structure's level: how long it lasts (a level that ends after `hands`: 0)"),
    Field("break_minutes", "minutes", 1, STAGE_MINUTES_MAX, "a number of minutes",
          "a structure's break: how long it lasts"),
    Field("stage_name", "text", 0, STAGE_NAME_MAX, "a name",
          "a structure's break: its name (dinner, color-up); a level: its game"),
    Field("title", "text", 0, TITLE_MAX, "a title", "a structure's title: the tournament's name"),
    Field("delay", "seconds", 0, DELAY_MAX, "a number of seconds",
          "the broadcast overlay's `delay`; an archive history question: how far back it reaches"),
    Field("until_ms", "int64", INT64[0], INT64[1], "a whole number of milliseconds",
          "an archive history question: the end of its window (the collector's clock, Unix ms; the first part's)"),
    Field("after_ms", "int64", INT64[0], INT64[1], "a whole number of milliseconds",
          "an archive history question: its next part begins at this millisecond (the last part's `next_ms`)"),
    Field("skip", "whole", 0, HISTORY_SKIP_MAX, "a number of messages",
          "an archive history question: how many of that millisecond's messages the parts before gave (the last "
          "part's `skip`)"),
)}

# What each input takes beyond its time (a replay line) or its id, name, sender and sent_ms (a command):
# (required, optional). A player's name is ``name`` in the replay format; on the wire it is ``player``.
INPUT_FIELDS: dict[str, tuple[tuple[str, ...], tuple[str, ...]]] = {
    "call": ((), ("facing_bet",)), "bet": (("facing_bet",), ()), "extend": ((), ("seat",)),
    "seat": (("seat",), ("name", "bank", "chips", "mark", "mark_seconds")), "rename": (("seat", "name"), ()),
    "empty": (("seat",), ()), "button": (("seat",), ()), "top_up": ((), ("chips", "seconds")),
    "seating": (("players",), ()), "fold": ((), ("seat",)), "all_in": ((), ("seat",)),
    "mark": (("seat", "mark"), ("mark_seconds", "by")), "unmark": (("seat",), ("by",)),
    "level": (("level",), ("hands", "by")), "hands": (("hands",), ("by",)),
    "hand_for_hand": ((), ("minutes",)), "release_hand": ((), ()), "end_hand_for_hand": ((), ()),
    "rule_set": (("rule_set",), ()),
}
COMMAND_HEAD = ("id", "name", "sender", "sent_ms")  # what every command carries
# What any command may carry to be taken by some tables only: sent to every table of the venue, a command naming a
# room (and a section) is taken by the tables whose ``network.room`` (and ``network.section``) it names.
SCOPE = ("room", "section")
_ON_THE_WIRE = {"name": "player"}
_OFF_THE_WIRE = frozenset({"by"})  # the replay format's record of who sent a command: the wire's proven sender


def input_fields(name: str, wire: bool = False) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """(required, optional) fields of the input ``name`` (an event or a command), with the wire's keys when
    ``wire``.

    >>> input_fields("rename"), input_fields("rename", wire=True), input_fields("pause")
    ((('seat', 'name'), ()), (('seat', 'player'), ('room', 'section')), ((), ()))
    """
    required, optional = INPUT_FIELDS.get(name, ((), ()))
    if wire:
        required = tuple(_ON_THE_WIRE.get(k, k) for k in required)
        optional = tuple(_ON_THE_WIRE.get(k, k) for k in optional if k not in _OFF_THE_WIRE) + SCOPE
    return required, optional


COMMAND_FIELDS = tuple(dict.fromkeys(
    COMMAND_HEAD + tuple(k for n in INPUT_FIELDS for part in input_fields(n, True) for k in part)))
"""Every field a command may carry, in a stable order."""
SEAT_FIELDS = tuple(k for k in COMMAND_FIELDS if k not in COMMAND_HEAD + SCOPE and k not in ("facing_bet", "seat"))
"""The fields only some commands carry, beyond the bet and the seat (a command record keeps those given)."""


def _players_problem(players) -> str | None:
    if not isinstance(players, list) or len(players) > MAX_SEATS:
        return f"must be a list of at most {MAX_SEATS} [seat, name] pairs, not {shown(players)}"
    for number, pair in enumerate(players, 1):
        if not isinstance(pair, list) or len(pair) != 2:
            return f"entry {number} must be a [seat, name] pair, not {shown(pair)}"
        problem = FIELDS["seat"].value_problem(pair[0])
        if problem:
            return f"entry {number}: the seat {problem}"
        problem = pair[1] != "" and name_problem(pair[1])
        if problem:
            return f"entry {number}: {problem}"
    return None


def missing(kind: str, name: str, key: str) -> str:
    """The message for a ``kind`` ("command", "event") ``name`` without its required ``key``."""
    field = FIELDS[key]
    bounds = f" from {field.low} to {field.high}" if field.kind in ("seat", "whole", "seconds") else ""
    return f"the '{name}' {kind} needs '{key}' ({field.what}{bounds})"


def unexpected(kind: str, name: str, key: str, hint: str = "", wire: bool = False) -> str:
    """The message for a ``kind`` ("command", "event") ``name`` given a field ``key`` it does not take (``hint``:
    a "did you mean" to add); it says what the input takes.

    >>> unexpected("event", "top_up", "seat")
    "the 'top_up' event takes no field 'seat' (it takes 'chips', 'seconds')"
    """
    required, optional = input_fields(name, wire)
    takes = ", ".join(f"'{k}'" for k in required + optional if k not in SCOPE)  # (every command takes the scope)
    return f"the '{name}' {kind} takes no field {quoted(key)}{hint} ({f'it takes {takes}' if takes else 'it takes none'})"


def command_schema(commands) -> dict:
    """docs/network.md's ``command`` schema, from :data:`FIELDS` and :data:`INPUT_FIELDS` (``commands``: the
    names a command may have): each field's type and bounds, and for each command the fields it needs and takes."""
    properties = {key: {"enum": list(commands)} if key == "name" else FIELDS[key].schema() for key in COMMAND_FIELDS}
    properties["sent_ms"] = {"type": "integer", "description": FIELDS["sent_ms"].doc}
    per_command = []
    for name in commands:
        required, optional = input_fields(name, wire=True)
        per_command.append({"if": {"properties": {"name": {"const": name}}},
                            "then": {"required": list(required),
                                     "propertyNames": {"enum": list(COMMAND_HEAD + required + optional)}}})
    return {"$schema": "https://json-schema.org/draft/2020-12/schema", "title": "command", "type": "object",
            "required": list(COMMAND_HEAD), "additionalProperties": False, "properties": properties,
            "allOf": per_command}


def command_schema_text(commands) -> str:
    """:func:`command_schema` as docs/network.md shows it (the body of its ```json schema=command block)."""
    schema = command_schema(commands)
    line = lambda value: json.dumps(value, ensure_ascii=False)  # noqa: E731 (the docs' spacing, not an edge)
    head = [f"  {line(k)}: {line(v)}," for k, v in schema.items() if k not in ("properties", "allOf")]
    properties = ",\n".join(f"    {line(k)}: {line(v)}" for k, v in schema["properties"].items())
    per_command = ",\n".join(f"    {line(v)}" for v in schema["allOf"])
    return "\n".join(["{", *head, '  "properties": {', properties, "  },", '  "allOf": [', per_command, "  ]", "}"])


def fields_table() -> str:
    """docs/fields.md's table of every field (Markdown), from :data:`FIELDS`."""
    kinds = {"seat": "whole number", "whole": "whole number", "seconds": "number (seconds)",
             "minutes": "number (minutes)", "flag": "true or false",
             "text": "text (the text rule)", "players": "list of [seat, name]", "int64": "whole number",
             "choice": "one word"}
    rows = ["| field | type | bounds | carries |", "|---|---|---|---|"]
    for f in FIELDS.values():
        if f.kind in ("text",):
            bounds = f"{f.low} to {f.high} characters" + (" (empty: none)" if f.low == 0 else "")
        elif f.kind == "players":
            bounds = f"at most {f.high} pairs; names as `name`, or \"\""
        elif f.kind == "flag":
            bounds = ""
        elif f.kind == "int64":
            bounds = "64 bits"
        elif f.kind == "choice":
            bounds = "one of " + ", ".join(f"`{c}`" for c in f.choices)
        else:
            bounds = f"{f.low} to {f.high:,}".replace(",", "\u202f")
        rows.append(f"| `{f.key}` | {kinds[f.kind]} | {bounds} | {f.doc or f.what} |")
    return "\n".join(rows)


def page_bounds() -> dict:
    """The bounds the dashboard's seat and level forms use (``Shotclock.DEVICE_RULES.fields``)."""
    return {key: FIELDS[key].bounds() for key in ("seat", "chips", "bank", "seconds", "player", "mark", "mark_seconds",
                                                  "level", "hands", "rule_set", "delay")}
