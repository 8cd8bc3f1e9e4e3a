"""The decision log's records, declared: what the device hands its log writer, and what each kind of record keeps.

A record is a :class:`LogRecord`: its number in the stream (``seq``), the clock it belongs to (:class:`ClockRef`), its
``type``, its time ``t`` on the table's clock, the wall-clock ``utc`` and its ``data``. The data of the records the
table makes itself is declared here too, field by field (an input's, a seats record's, a raw edge's, a floor
command's…); an engine output's data is the output's own Struct (:mod:`shotclock.core.events`) without ``t`` and
``type``. The writer's pipe also carries :class:`Alive` (the device's heartbeat) and :class:`Bye` (a stop on purpose).

A field that a record of that kind may leave out is ``UNSET`` by default and then not written; a field that is
always written is required, and ``None`` is written as ``null``. So each record's JSON is what the log has always
held: the record's hash (sha256 over its canonical JSON, :func:`shotclock.adapters.log.record_hash`) of a log written
by an earlier version still holds, and the log corpus (tests/test_log_corpus.py) proves the text unchanged.

Example::

    >>> from shotclock.core.codec import text
    >>> text(LogRecord(seq=3, clock=ClockRef(seq=2), type="edge", t=1.5, utc="",
    ...                data=EdgeData(button="dealer", pressed=True, round=1.5, after=None)))
    '{"seq":3,"clock":{"seq":2},"type":"edge","t":1.5,"utc":"","data":{"button":"dealer","pressed":true,"round":1.5,"after":null}}'
    >>> read_message(b'{"control": "alive", "t": 4.0, "clock": {"id": 17}}')
    Alive(t=4.0, clock=ClockRef(seq=UNSET, id=17))
"""

from __future__ import annotations

from typing import Any, Union

import msgspec
from msgspec import UNSET, Struct, UnsetType

from shotclock.core.codec import JsonProblem, decode
from shotclock.core.fields import FIELDS

_Seat = FIELDS["seat"].typed()
_Text = Union[str, None, UnsetType]
_Number = Union[float, UnsetType]  # a time on the table's clock, or seconds


class ClockRef(Struct, frozen=True, forbid_unknown_fields=True):
    """The clock a record belongs to: ``seq``, the stream number of the clock's ``start`` record, or ``id``, the
    record id of a clock already in the log (one restored after a stop). Exactly one is set."""

    seq: Union[int, UnsetType] = UNSET
    id: Union[int, UnsetType] = UNSET


class LogRecord(Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    """One record for the log writer: ``{"seq", "clock", "type", "t", "utc", "data"}``.

    ``seq`` is None only for the writer's own ``lost`` record; ``data`` is one of this module's Structs, an engine
    output's fields, or (read back from the pipe) a plain JSON object, kept as sent: the log hashes what it got."""

    seq: Union[int, None] = None
    clock: Union[ClockRef, None] = None  # (the pipe's session record may leave it out)
    type: str
    t: float
    utc: str
    data: Any


class Alive(Struct, frozen=True, tag_field="control", tag="alive", forbid_unknown_fields=True):
    """The device's heartbeat while a clock runs (and once more as it stops running): kept in memory by the writer,
    never stored; ``clock`` is the clock that ran then (None: none)."""

    t: float
    clock: Union[ClockRef, None]


class Bye(Struct, frozen=True, tag_field="control", tag="bye", forbid_unknown_fields=True):
    """The device stops on purpose: the end of the pipe is no death."""


Message = Union[LogRecord, Alive, Bye]
_CONTROL = Union[Alive, Bye]


def read_message(line: bytes | str | dict) -> Message:
    """One message of the writer's pipe (a line of JSON, or the same already read as a dict), as its Struct.

    Raises :class:`~shotclock.core.codec.JsonProblem` (a ``ValueError``) for a message that is none of them."""
    value = decode(line) if isinstance(line, (bytes, str)) else line
    if not isinstance(value, dict):
        raise JsonProblem("malformed", "a log message must be a JSON object")
    try:
        return msgspec.convert(value, _CONTROL if "control" in value else LogRecord)
    except msgspec.ValidationError as exc:
        raise JsonProblem("field", f"a log message: {exc}") from None


def as_message(message: Message | dict) -> Message:
    """``message`` as its Struct (a dict, as tests and older pending files give it, is read by :func:`read_message`)."""
    return message if isinstance(message, (LogRecord, Alive, Bye)) else read_message(message)


# -- the data of the records the table makes ---------------------------------------------------------------------


class EdgeData(Struct, frozen=True, forbid_unknown_fields=True):
    """An ``edge`` record: a pin edge as it reached the table, with the loop ``round`` that took it and the round
    before (``after``); a button found pressed at the start has ``at_start`` instead of the rounds."""

    button: str
    pressed: bool
    at_start: Union[bool, UnsetType] = UNSET
    round: _Number = UNSET
    after: Union[float, None, UnsetType] = UNSET


class CommandData(Struct, frozen=True, forbid_unknown_fields=True):
    """A ``command`` record: a floor command as it reached the table (its fields that are set), with its rounds."""

    name: str
    id: str
    sender: str
    facing_bet: Union[bool, None]
    seat: Union[int, UnsetType] = UNSET
    player: _Text = UNSET
    bank: _Number = UNSET
    chips: Union[int, UnsetType] = UNSET
    mark: _Text = UNSET
    mark_seconds: _Number = UNSET
    seconds: _Number = UNSET
    players: Union[list, UnsetType] = UNSET
    level: Union[int, UnsetType] = UNSET
    hands: Union[int, UnsetType] = UNSET
    minutes: _Number = UNSET
    rule_set: _Text = UNSET
    round: _Number = UNSET
    after: Union[float, None, UnsetType] = UNSET


class TournamentData(Struct, frozen=True, forbid_unknown_fields=True):
    """A ``tournament`` record: the tournament clock's state as it reached the table (``gone``: its clock went)."""

    tournament: str
    seq: int
    level: Union[int, None]
    hands: int
    on_break: bool
    break_left: Union[float, None]
    paused: bool
    break_name: str
    gone: Union[bool, UnsetType] = UNSET
    round: _Number = UNSET
    after: Union[float, None, UnsetType] = UNSET


class RoomStateData(Struct, frozen=True, forbid_unknown_fields=True):
    """A ``room_state`` record: the room's hand-for-hand state as it reached the table, with its scope."""

    on: bool
    hands: int
    minutes: float
    seq: int
    room: Union[str, None]
    section: Union[str, None]
    round: _Number = UNSET
    after: Union[float, None, UnsetType] = UNSET


class InputFields(Struct, frozen=True, forbid_unknown_fields=True):
    """What an input was: the ``event`` it became, and where it came from (``button`` and ``gesture``, and
    ``pressed`` for a hold; ``command``, ``id`` and ``sender``; the room's ``room`` and ``section``; the tournament
    clock's ``tournament`` and ``seq``), ``set_bet`` and the event's own fields (its replay line is rebuilt from
    them). ``shotclock replay``'s input lines are these with ``t`` and ``type``."""

    event: str
    command: Union[str, UnsetType] = UNSET
    id: Union[str, UnsetType] = UNSET
    sender: Union[str, UnsetType] = UNSET
    room: _Text = UNSET
    section: _Text = UNSET
    tournament: Union[str, UnsetType] = UNSET
    button: Union[str, UnsetType] = UNSET
    gesture: Union[str, UnsetType] = UNSET
    pressed: _Number = UNSET
    set_bet: Union[bool, UnsetType] = UNSET
    seat: Union[int, UnsetType] = UNSET
    name: _Text = UNSET
    bank: _Number = UNSET
    chips: Union[int, UnsetType] = UNSET
    seconds: _Number = UNSET
    players: Union[list, UnsetType] = UNSET
    mark: _Text = UNSET
    mark_seconds: _Number = UNSET
    by: _Text = UNSET
    level: Union[int, UnsetType] = UNSET
    hands: Union[int, UnsetType] = UNSET
    minutes: _Number = UNSET
    rule_set: _Text = UNSET
    on: Union[bool, UnsetType] = UNSET
    seq: Union[int, UnsetType] = UNSET


class InputData(InputFields, frozen=True, kw_only=True):
    """An ``input`` record: :class:`InputFields`, and the bet state and street just after it, and the loop round
    that took it."""

    facing_bet: Union[bool, None]
    street: Union[str, None]
    round: float


class SeatMark(Struct, frozen=True, forbid_unknown_fields=True):
    """The floor's mark on a player: ``warning`` or ``clock`` (with its own clock's ``mark_seconds``)."""

    mark: str
    mark_seconds: _Number = UNSET


class SeatsData(Struct, frozen=True, forbid_unknown_fields=True):
    """A ``seats`` record: what a restart brings back of the seats (names, hand, banks, chips, marks), by seat
    number as text (JSON's object keys)."""

    count: int
    players: dict[str, str]
    button: Union[_Seat, None]
    in_hand: list[int]
    all_in: list[int]
    turn: Union[_Seat, None]
    last_acted: Union[_Seat, None]
    banks: dict[str, float]
    chips_used: dict[str, int]
    marks: dict[str, SeatMark]


class FaultData(Struct, frozen=True, forbid_unknown_fields=True):
    """A ``fault`` record: a button fault (stuck, chattering…) of ``button``."""

    fault: str
    button: str


class CheckpointData(Struct, frozen=True, forbid_unknown_fields=True):
    """A ``checkpoint`` record: the time the running clock had left (a power cut restores at most this)."""

    remaining: float


class ShutdownData(Struct, frozen=True, forbid_unknown_fields=True):
    """A ``shutdown`` record: the time the open clock had left at a graceful stop, and whether it ran."""

    remaining: float
    running: bool


class LostData(Struct, frozen=True, forbid_unknown_fields=True):
    """A ``lost`` record (the writer's own): the device's last heartbeat and how long it was silent after it."""

    heard_at: float
    silent_for: float


DATA: dict[str, type[Struct]] = {
    "edge": EdgeData, "command": CommandData, "tournament": TournamentData, "room_state": RoomStateData,
    "input": InputData, "seats": SeatsData, "fault": FaultData, "checkpoint": CheckpointData,
    "shutdown": ShutdownData, "lost": LostData,
}
"""The declared data of each record type the table and the writer make (the others are an output's or a restore's)."""
