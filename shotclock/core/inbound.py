"""Checks for what comes off the floor network, before anything else touches it (pure, no I/O).

Nothing a table or a page publishes is trusted: a payload may be any bytes. :func:`parse_json`
reads one payload by the one codec (:func:`shotclock.core.codec.decode`: size, nesting depth, UTF-8 without
surrogates, finite numbers, no key given twice) and bounds what no type declares (integers within 64 bits,
strings of at most 4,096 characters), so SQLite, the encoder and the pages never meet a value they cannot take. :func:`check_event` checks one ``event`` against its schema (docs/network.md) and takes
the table from the **topic**, which the broker's ACL ties to the credential that published it:
a payload that names another table is refused, never filed under that table.

Each check returns the value or a :class:`Refused` with a reason (a short word, counted) and a
detail (one line for the log). Nothing here raises on bad input.

Example::

    >>> check_event(b'{"table": "2", "boot": "0123456789ab", "seq": 1, "record": {"t": 1, "type": "x"}}', "1")
    Refused(reason='table', detail="the payload names table '2', its topic table '1'")
    >>> check_event(b'{"boot": "0123456789ab", "seq": 100000000000000000000, "record": {"t": 1, "type": "x"}}', "1")
    Refused(reason='number', detail='a whole number beyond 64 bits')
    >>> check_event(b'{"boot": "0123456789ab", "seq": 3, "record": {"t": 1, "type": "x"}}', "1")["table"]
    '1'
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Annotated, Any

import msgspec

from shotclock.core.codec import JsonProblem, decode, integers_problem
from shotclock.core.fields import FIELDS
from shotclock.core.slowplay import DAY
from shotclock.core.topics import ID_MAX, NAME, check_name

MAX_PAYLOAD = 65_536  # the broker's max_packet_size: nothing larger can arrive
MAX_DEPTH = 8  # an event's record is flat; a question is one level
MAX_TEXT = 4_096  # characters in one string
INT_MIN, INT_MAX = -(2 ** 63), 2 ** 63 - 1  # SQLite's INTEGER
BOOT = re.compile(r"[0-9a-f]{12}")
HASH = re.compile(r"[0-9a-f]{64}")
RECORD_TYPE = re.compile(r"[A-Za-z0-9_.-]{1,64}")


@dataclass(frozen=True)
class Refused:
    """A message not taken: ``reason`` (one word, what is counted) and ``detail`` (one line for the log)."""

    reason: str
    detail: str


def parse_json(payload: bytes, max_bytes: int = MAX_PAYLOAD, max_depth: int = MAX_DEPTH):
    """The JSON value of ``payload``, or :class:`Refused` when it is not JSON within the bounds.

    >>> parse_json(b'{"a": [1, 2.5, "x"]}')
    {'a': [1, 2.5, 'x']}
    >>> parse_json(b'[' * 50 + b']' * 50).reason, parse_json(b'"\\\\ud800"').reason, parse_json(b'NaN').reason
    ('depth', 'text', 'number')
    >>> parse_json(b'{"seq": 1, "seq": 2}')
    Refused(reason='duplicate', detail="the key 'seq' is given twice")
    """
    try:
        value = decode(payload, max_bytes=max_bytes, max_depth=max_depth)
    except JsonProblem as exc:
        return Refused(exc.reason, exc.detail)
    problem = _value_problem(value)
    return problem if problem else value


def check_event(payload: bytes, topic_table: str):
    """One ``event`` published on table ``topic_table``'s topic: the message (with ``table`` set from the
    topic) ready for the archive, or :class:`Refused`."""
    message = parse_json(payload)
    if isinstance(message, Refused):
        return message
    if not isinstance(message, dict):
        return Refused("malformed", "an event is a JSON object")
    named = message.get("table", topic_table)
    if named != topic_table:
        return Refused("table", f"the payload names table {_short(named)}, its topic table {topic_table!r}")
    boot, seq, record, chain = message.get("boot"), message.get("seq"), message.get("record"), message.get("log")
    if not isinstance(boot, str) or not BOOT.fullmatch(boot):
        return Refused("malformed", "'boot' must be 12 hex digits")
    if not _whole(seq) or seq < 1:
        return Refused("malformed", "'seq' must be a whole number from 1")
    if not isinstance(record, dict):
        return Refused("malformed", "'record' must be an object")
    if not _number(record.get("t")):
        return Refused("malformed", "'record.t' must be a number")
    if not isinstance(record.get("type"), str) or not RECORD_TYPE.fullmatch(record["type"]):
        return Refused("malformed", "'record.type' must be a short word")
    if chain is not None:
        problem = _chain_problem(chain)
        if problem:
            return Refused("malformed", problem)
    return dict(message, table=topic_table)


def event_id(payload: bytes) -> tuple[str, int] | None:
    """(boot, seq) of an event that was refused, when those two are sound: the collector still tells the table it
    has dealt with it, so one bad record never holds up the table's outbox.

    >>> event_id(b'{"boot": "0123456789ab", "seq": 7, "record": null}'), event_id(b'{"seq": 7}')
    (('0123456789ab', 7), None)
    """
    try:  # only boot and seq are read, and checked: whatever else the payload holds does not matter here
        message = decode(payload, _EventId, max_bytes=MAX_PAYLOAD, max_depth=64)
    except JsonProblem:
        return None
    return message.boot, message.seq


class Question(msgspec.Struct, frozen=True):
    """An archive question (docs/network.md, "archive"; :mod:`shotclock.floor.answers` says what each asks): ``what``
    (rulings, clock, report or history) and, as each asks, a table's id, a clock's id and one of its ``boot``s, a floor
    ``day``, a tournament ``level``, and a history's ``delay`` and the window and place of its next part (``until_ms``,
    ``after_ms``, ``skip``) (their bounds the table of fields')."""

    what: Any = None  # named by the answer ("unknown question …"), as the number of rulings (``limit``) is
    limit: Any = None
    table: Annotated[str, msgspec.Meta(pattern=rf"\A{NAME.pattern}\Z")] | None = None
    clock: Annotated[int, msgspec.Meta(ge=1, le=INT_MAX)] | None = None
    boot: Annotated[str, msgspec.Meta(pattern=rf"\A{BOOT.pattern}\Z")] | None = None
    day: Annotated[str, msgspec.Meta(pattern=rf"\A{DAY.pattern}\Z")] | None = None
    level: FIELDS["level"].typed() | None = None
    delay: FIELDS["delay"].typed() | None = None
    until_ms: FIELDS["until_ms"].typed() | None = None
    after_ms: FIELDS["after_ms"].typed() | None = None
    skip: FIELDS["skip"].typed() | None = None


def read_question(payload: bytes) -> dict | Refused:
    """One archive question, decoded by the one codec into a :class:`Question` (its fields given, for the answer),
    or :class:`Refused` naming the first field out of bounds (:func:`check_question`'s words)."""
    def named(value):
        problem = _value_problem(value) or check_question(value)
        return problem if isinstance(problem, Refused) else \
            Refused("question", problem or "a question's field is out of its bounds")

    try:
        question = decode(payload, Question, max_bytes=MAX_PAYLOAD, max_depth=MAX_DEPTH, plain=named)
    except JsonProblem as exc:
        return Refused(exc.reason, exc.detail)
    if isinstance(question, Refused):
        return question
    fields = {k: v for k, v in msgspec.structs.asdict(question).items() if v is not None}
    return _value_problem(fields) or fields


def check_question(question) -> str | None:
    """None when an archive question's fields are within bounds (see :mod:`shotclock.floor.answers` for
    what they mean), else the problem in one line."""
    if not isinstance(question, dict):
        return "a question is a JSON object"
    table, clock, boot = question.get("table"), question.get("clock"), question.get("boot")
    if table is not None and check_name("table", table):  # a table id, as the topics have it
        return f"a question's table is a table id (1 to {ID_MAX} letters, digits, '-' or '_')"
    if clock is not None and not (_whole(clock) and clock >= 1):
        return "a question's clock is a whole number from 1 (a clock's id in the table's log)"
    if boot is not None and (not isinstance(boot, str) or not BOOT.fullmatch(boot)):
        return "a clock question's boot is 12 hex digits (a ruling's boot)"
    day = question.get("day")
    if day is not None and (not isinstance(day, str) or not DAY.fullmatch(day)):
        return "a report question's day is a date as YYYY-MM-DD"
    level = question.get("level")
    if level is not None and FIELDS["level"].problem(level):
        return f"a report question's {FIELDS['level'].problem(level)}"
    for key in ("delay", "until_ms", "after_ms", "skip"):
        value = question.get(key)
        if value is not None and FIELDS[key].problem(value):
            return f"a history question's {FIELDS[key].problem(value)}"
    return None


# What the broadcast overlay draws from beside the records, kept by the collector for its history (the topic after
# ``shotclock/v1/<venue>/``): a table's state and status, the venue's feature table, a room broker's bridge.
HEARD = re.compile(rf"table/(?P<table>{NAME.pattern})/(?:state|status)|feature|bridge/{NAME.pattern}/state")


@dataclass(frozen=True)
class Heard:
    """A message the overlay's history keeps: its ``topic`` (after the venue), its table (``""``: the venue's),
    ``boot`` and ``seq`` (a state's; ``""`` and 0 otherwise) and its ``payload`` as the text it came as."""

    topic: str
    table: str
    boot: str
    seq: int
    payload: str


def check_heard(topic: str, payload: bytes) -> Heard | Refused | None:
    """One message for the overlay's history (``topic`` after ``shotclock/v1/<venue>/``), checked as the pages read it:
    a state's boot and sequence number, a status's ``online``, a feature's table, a bridge's ``0`` or ``1``; a
    payload that names another table than its topic is refused. None: nothing to keep (an emptied retained message).

    >>> check_heard("table/7/state", b'{"table": "7", "boot": "0123456789ab", "seq": 3, "t": 8.5}').seq
    3
    >>> check_heard("table/7/status", b'{"online": true, "table": "8"}')
    Refused(reason='table', detail="the payload names table '8', its topic table '7'")
    >>> check_heard("bridge/east/state", b"1").payload, check_heard("feature", b"")
    ('1', None)
    """
    match = HEARD.fullmatch(topic)
    if match is None:
        return Refused("topic", f"not a topic the overlay's history keeps: {topic[:80]!r}")
    if not payload:
        return None
    table = match.group("table") or ""
    if topic.startswith("bridge/"):
        if payload not in (b"0", b"1"):
            return Refused("malformed", "a bridge's state is 0 or 1")
        return Heard(topic, "", "", 0, payload.decode("ascii"))
    message = parse_json(payload)
    if isinstance(message, Refused):
        return message
    if not isinstance(message, dict):
        return Refused("malformed", "a state, status or feature is a JSON object")
    if table and message.get("table", table) != table:
        return Refused("table", f"the payload names table {_short(message.get('table'))}, its topic table {table!r}")
    boot, seq = "", 0
    if topic.endswith("/state"):
        boot, seq = message.get("boot"), message.get("seq")
        if not isinstance(boot, str) or not BOOT.fullmatch(boot):
            return Refused("malformed", "'boot' must be 12 hex digits")
        if not _whole(seq) or seq < 1:
            return Refused("malformed", "'seq' must be a whole number from 1")
        if "t" in message and not _number(message["t"]):
            return Refused("malformed", "'t' must be a number")
    elif topic.endswith("/status"):
        if not isinstance(message.get("online"), bool):
            return Refused("malformed", "a status says 'online': true or false")
    else:
        named = message.get("table")
        if named is not None and check_name("table", named):
            return Refused("malformed", "a feature's table is a table id or null")
    return Heard(topic, table, boot, seq, payload.decode("utf-8"))


# -- inside ---------------------------------------------------------------------------------------------


class _EventId(msgspec.Struct, frozen=True):
    """An event's ``boot`` and ``seq`` (its other fields are not read)."""

    boot: Annotated[str, msgspec.Meta(pattern=rf"\A{BOOT.pattern}\Z")]
    seq: Annotated[int, msgspec.Meta(ge=1, le=INT_MAX)]


def _value_problem(value) -> Refused | None:
    """Every string at most MAX_TEXT characters, every whole number within 64 bits (the codec refused the rest)."""
    stack = [value]
    while stack:
        v = stack.pop()
        if v.__class__ is dict:
            stack.extend(v.keys())
            stack.extend(v.values())
        elif v.__class__ is list:
            stack.extend(v)
        elif v.__class__ is str and len(v) > MAX_TEXT:
            return Refused("size", f"a string of {len(v)} characters (at most {MAX_TEXT})")
    problem = integers_problem(value, INT_MIN, INT_MAX)
    return Refused("number", problem) if problem else None


def _whole(v) -> bool:
    return isinstance(v, int) and not isinstance(v, bool)


def _number(v) -> bool:
    return isinstance(v, (int, float)) and not isinstance(v, bool)


def _short(value) -> str:
    return repr(value)[:40]


def _chain_problem(chain) -> str | None:
    if not isinstance(chain, dict):
        return "'log' must be an object"
    if not _whole(chain.get("session")):
        return "'log.session' must be a whole number"
    if chain.get("clock") is not None and not _whole(chain["clock"]):
        return "'log.clock' must be a whole number or null"
    if not isinstance(chain.get("utc"), str) or len(chain["utc"]) > 40:
        return "'log.utc' must be a time (text)"
    for key in ("prev", "hash"):
        if not isinstance(chain.get(key), str) or not HASH.fullmatch(chain[key]):
            return f"'log.{key}' must be 64 hex digits"
    return None
