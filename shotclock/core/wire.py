"""The floor network's messages (docs/network.md), built and checked without any I/O.

The device's MQTT adapter sends what these functions build and hands incoming commands to
:func:`check_command`; the time it needs (the device's monotonic time) is an argument, as everywhere in the core.
"""

from __future__ import annotations

from collections import OrderedDict
from dataclasses import dataclass
from typing import Iterable, Literal

import msgspec

from shotclock.core.codec import JsonProblem, decode, encode, head
from shotclock.core.engine import IDLE, RUNNING
from shotclock.core.faults import Fault
from shotclock.core.fields import (COMMAND_FIELDS, COMMAND_HEAD, FIELDS, SCOPE, input_fields, json_problem, missing,
                                   text_problem, unexpected)
from shotclock.core.inputs import ARGS, COMMANDS, CommandArgs  # noqa: F401 (one list of commands, in the core)

# Refusal reasons (the ack's ``reason`` when ``outcome`` is ``refused``).
EXPIRED, REPLAYED, MALFORMED, UNKNOWN = "expired", "replayed", "malformed", "unknown"
RATE_LIMITED = "rate_limited"  # over the sender's rate: acked, and summarised in the log


def ms(seconds: float | None) -> int | None:
    """Seconds as whole milliseconds (None stays None)."""
    return None if seconds is None else int(round(seconds * 1000))


def dumps(message) -> bytes:
    """A message (a Struct below, or a dict) as compact UTF-8 JSON, by the one encoder
    (:data:`shotclock.core.codec.ENCODER`)."""
    return encode(message)


class Status(msgspec.Struct, frozen=True, omit_defaults=True):
    """The retained ``status`` (docs/network.md, "status"): online, or offline with ``clean`` (False in the Last
    Will); where the table stands and what it runs."""

    online: bool
    table: str
    boot: str
    clean: bool | None = None
    degraded: str | None = None
    name: str | None = None
    room: str | None = None
    section: str | None = None
    bridge: str | None = None
    mode: str | None = None
    version: str | None = None
    rule_sets: tuple[str, ...] | None = None
    since_ms: int | None = None  # a clean stop: when it went offline (wall clock; the Last Will cannot say)


def status_message(table: str, boot: str, online: bool, clean: bool | None = None, **extra) -> Status:
    """The retained ``status``: online, or offline with ``clean`` (False in the Last Will); ``extra``: the fields
    of :class:`Status` the table adds (name, mode, version, room…)."""
    return Status(online, table, boot, None if online else bool(clean), **extra)


def state_message(snapshot, now: float, table: str, boot: str, seq: int, name: str, faults: Iterable[Fault],
                  network: dict, language: str | None = None, heartbeat_ms: int | None = None) -> dict:
    """The retained ``state`` of a table from the engine's snapshot at ``now`` (device seconds).

    ``heartbeat_ms`` promises the next state within that long while a clock runs: a page that hears
    nothing for a few of them greys the table out instead of counting down a clock nobody confirms.

    ``faults`` are the device's :class:`~shotclock.core.faults.Fault` values; each goes as its own
    JSON object (:meth:`~shotclock.core.faults.Fault.to_dict`), in a stable order.
    """
    remaining = snapshot.remaining(now)
    last = snapshot.last
    last_ruling = None
    if last is not None:
        last_ruling = {"outcome": last.outcome, "remaining_ms": ms(last.remaining), "at_zero": last.at_zero,
                       "age_ms": max(0, ms(now - last.t))}
    message = {
        "table": table, "boot": boot, "seq": seq, "t": round(now, 3), "name": name, "mode": snapshot.mode, "phase": snapshot.phase,
        "facing_bet": bool(snapshot.facing_bet), "street": snapshot.street, "extensions": snapshot.extensions,
        "seconds": None if snapshot.phase == IDLE else snapshot.seconds,
        "remaining_ms": ms(remaining), "countdown": snapshot.countdown, "last_ruling": last_ruling,
        "faults": sorted((f.to_dict() for f in faults), key=lambda f: repr(sorted(f.items()))),
        "network": network,
    }
    if language:
        message["language"] = language
    if heartbeat_ms is not None:
        message["heartbeat_ms"] = heartbeat_ms
    if getattr(snapshot, "interrupted", False):
        message["interrupted"] = True
    seats = getattr(snapshot, "seats", None)
    if seats is not None:
        message.update(seat_fields(snapshot))
    level = getattr(snapshot, "level", None)
    if level is not None:  # a level was set (core/levels.py): the level, "hand 7 of 12", what waits for the next hand
        message["level"] = level.message()
    for key in ("hand_for_hand", "rule_set"):  # the tournament's, while the floor has either on: a Struct each
        view = getattr(snapshot, key, None)
        if view is not None:
            message[key] = view
    return message


def seat_fields(snapshot) -> dict:
    """Seat tracking's part of the ``state``: the seat on the clock (``seat``, ``player``, ``bank_ms``: its bank
    before this decision, the last part of the clock), who is to act, the button, and every seat's player,
    chips and bank for the dashboard."""
    seats = snapshot.seats
    on = snapshot.on_clock
    chips_used = dict(seats.chips_used)
    banks = dict(seats.banks)
    fields = {"seat": on, "player": seats.name(on) or None if on is not None else None,
              "bank_ms": ms(banks.get(on)) if on is not None else None, "turn": seats.turn, "button": seats.button}
    fields["seats"] = [{"seat": seat, "player": name or None, "in_hand": seat in seats.in_hand,
                        "all_in": seat in seats.all_in,
                        "chips": seats.allowance - chips_used.get(seat, 0) if seats.allowance else None,
                        "bank_ms": ms(banks.get(seat)), **_mark_fields(seats.mark(seat))}
                       for seat, name in seats.players]
    return fields


def _mark_fields(mark: tuple[str, float | None] | None) -> dict:
    """A seat's floor mark in the ``state`` (only a marked seat carries ``mark``, and a clock mark ``mark_seconds``)."""
    if mark is None:
        return {}
    return {"mark": mark[0]} if mark[1] is None else {"mark": mark[0], "mark_seconds": mark[1]}


def state_key(message: dict) -> tuple:
    """What makes a state different for a reader, leaving out the ticking times and the counter."""
    return tuple((k, repr(v)) for k, v in message.items() if k not in ("seq", "t", "remaining_ms", "last_ruling")) + (
        ("last", None if message["last_ruling"] is None else message["last_ruling"]["outcome"]),
        ("paused_ms", message["remaining_ms"] if message["phase"] != RUNNING else None))


def event_message(table: str, boot: str, row: dict) -> dict:
    """The ``event`` of one decision-log row (``id``, ``type``, ``t``, ``data`` and, if logged, the chain)."""
    record = {"t": row["t"], "type": row["type"], **row["data"]}
    message = {"table": table, "boot": boot, "seq": row["id"], "record": record}
    if "hash" in row:
        message["log"] = {k: row[k] for k in ("session", "clock", "utc", "prev", "hash")}
    return message


def row_of_event(message: dict) -> dict:
    """The decision-log row an ``event`` carries (the inverse of :func:`event_message`)."""
    record = dict(message["record"])
    row = {"id": message["seq"], "t": float(record.pop("t")), "type": record.pop("type"), "data": record}
    row.update(message.get("log") or {})
    return row


CommandRequest = msgspec.defstruct(
    "CommandRequest",
    [(key, Literal[COMMANDS] if key == "name" else FIELDS[key].typed()) for key in COMMAND_HEAD]
    + [(key, FIELDS[key].typed() | None, None) for key in ARGS + SCOPE],
    frozen=True, forbid_unknown_fields=True, module=__name__)
CommandRequest.__doc__ = """A command as it came off the wire, before the engine saw it: its head (``id``, ``name``,
``sender``, ``sent_ms``), the command's own fields (:class:`~shotclock.core.inputs.CommandArgs`) and the scope
(``room``, ``section``: only the tables there take it). Each field's type and bounds are the table of fields'
(core/fields.py): a command is decoded straight into it (docs/network.md, "command")."""
def in_scope(request: CommandRequest, room: str, section: str) -> bool:
    """Whether a table standing in ``room`` and ``section`` (its ``network.room`` and ``network.section``) takes
    ``request``: a command naming a room or a section is for the tables there only (docs/network.md, "Scope").

        >>> in_scope(CommandRequest("1", "level", "floor", 0, level=9, room="East"), "East", "B")
        True
        >>> in_scope(CommandRequest("1", "level", "floor", 0, level=9, room="East", section="A"), "East", "B")
        False
    """
    return (request.room is None or request.room == room) and (request.section is None or request.section == section)


@dataclass(frozen=True)
class Refusal:
    """A command the device will not pass to the engine, and why (``reason``: expired, replayed…)."""

    reason: str
    detail: str
    id: str = ""
    sender: str = ""
    name: str = ""


class RecentIds:
    """Command ids seen lately (bounded), to refuse a replay.

    The broker drops a command whose MQTT 5 Message Expiry Interval has passed, so an id needs
    remembering only a little longer than that; ``keep_seconds`` is generous, and ``limit`` bounds
    the memory under a flood.
    """

    def __init__(self, keep_seconds: float, limit: int = 10_000):
        self.keep_seconds = keep_seconds
        self.limit = limit
        self._seen: OrderedDict[str, float] = OrderedDict()

    def seen(self, command_id: str, now: float) -> bool:
        """True when ``command_id`` came before; otherwise remember it (``now``: device seconds)."""
        while self._seen and (len(self._seen) >= self.limit
                              or next(iter(self._seen.values())) < now - self.keep_seconds):
            self._seen.popitem(last=False)
        if command_id in self._seen:
            return True
        self._seen[command_id] = now
        return False


# Bounds on what a command may hold (docs/network.md, "command"): nothing from the network is
# trusted to be small, shallow, encodable or to fit a 64-bit integer.
MAX_COMMAND_BYTES = 4096  # a seating of ten 40-character names fits
def clean_text(value, longest: int = 64) -> str | None:
    """``value`` when it is text of 1 to ``longest`` characters by the one rule for text from outside
    (:func:`shotclock.core.fields.text_problem`: valid Unicode, no control characters), else None.

    Example::

        >>> clean_text("floor/anna"), clean_text("\\ud800"), clean_text(""), clean_text(7)
        ('floor/anna', None, None, None)
    """
    return None if text_problem(value, longest, "it") else value


def check_command(payload: bytes, now: float, recent: RecentIds) -> CommandRequest | Refusal:
    """Parse and check one command (docs/network.md, "command"). Never raises, whatever ``payload`` holds.

    A command's freshness is the broker's business (it drops a command whose MQTT 5 Message
    Expiry Interval has passed) and the replay memory's: ``sent_ms`` is checked to be a 64-bit
    integer but never compared with this device's wall clock, so a venue without a time server works.

    :param payload: the MQTT payload.
    :param now: the device's monotonic time (seconds), for the replay memory.
    :param recent: the replay memory.
    """
    try:  # 3 deep: a seating's [[seat, name], …]
        request = decode(payload, CommandRequest, max_bytes=MAX_COMMAND_BYTES, max_depth=3, nulls=False,
                         plain=lambda message: message)
    except JsonProblem as exc:
        return Refusal(MALFORMED, json_problem(exc), **_who(head(payload, ("id", "sender", "name"))))
    if request.__class__ is dict:
        message = request
    elif isinstance(request, CommandRequest):  # as the table of fields reads it: players as [seat, name] lists
        message = {k: [list(p) for p in v] if k == "players" else v
                   for k in COMMAND_FIELDS if (v := getattr(request, k)) is not None}
    else:
        return Refusal(MALFORMED, "not a JSON object")
    who = _who(message)
    problem = command_problem(message)
    if problem and request.__class__ is not dict:  # named in the message's own order: its first problem
        problem = command_problem(decode(payload))
    if problem:
        return Refusal(UNKNOWN if problem.startswith("unknown") else MALFORMED, problem, **who)
    if request.__class__ is dict:  # the struct refused what the table of fields takes: never, if they agree
        return Refusal(MALFORMED, "a field out of its bounds", **who)
    ident = request.id
    if recent.seen(ident, now):
        return Refusal(REPLAYED, f"command id {ident!r} was already received", **who)
    return request


def _who(message: dict) -> dict:
    """The id, sender and command name a refusal's ack names: each as given where it is readable, else ""."""
    name = message.get("name")
    return {"id": clean_text(message.get("id")) or "", "sender": clean_text(message.get("sender")) or "",
            "name": name if name in COMMANDS else ""}


def command_problem(message: dict) -> str | None:
    """What is wrong with a command message's fields, as the device refuses it (None: nothing): every field by
    the one table of fields (core/fields.py), the first problem in the message's order."""
    extra = set(message) - set(COMMAND_FIELDS)
    if extra:
        first = sorted(extra)[0]
        return f"unexpected field {clean_text(first, 32) or '(unprintable)'!r}"
    for key in ("id", "sender"):
        problem = FIELDS[key].problem(message.get(key))
        if problem:
            return problem
    name = message.get("name")
    if name not in COMMANDS:
        shown = repr(clean_text(name, 32)) if isinstance(name, str) else type(name).__name__
        return f"unknown command {shown} (known: {', '.join(COMMANDS)})"
    problem = FIELDS["sent_ms"].problem(message.get("sent_ms"))
    if problem:
        return problem
    required, optional = input_fields(name, wire=True)
    for key in message:
        if key not in COMMAND_HEAD and key not in required and key not in optional:
            return unexpected("command", name, key, wire=True)
    for key in required:
        if key not in message:
            return missing("command", name, key)
    for key in message:
        if key not in COMMAND_HEAD and (problem := FIELDS[key].problem(message[key])):
            return problem
    return None


class Ack(msgspec.Struct, frozen=True, omit_defaults=True):
    """The ``cmd/ack`` (docs/network.md, "ack"): the command's id, sender and name as it gave them, the outcome
    (``done``, ``ignored``, ``refused``), why (``reason``; ``code`` and ``params`` for a page to say it in its own
    language), what it did (``outputs``) and the ``state_seq`` that shows it."""

    id: str
    table: str
    boot: str
    sender: str
    name: str
    outcome: str
    reason: str = ""
    code: str | None = None
    params: dict | None = None
    outputs: tuple = ()
    state_seq: int | None = None


def ack_message(table: str, boot: str, request, outcome: str, reason: str = "", outputs=(),
                state_seq: int | None = None, explained: tuple[str, dict] | None = None) -> Ack:
    """The ``cmd/ack`` for a :class:`CommandRequest` or :class:`Refusal` (``outputs``: the engine's output
    records; ``explained``: the reason's code and parameters)."""
    code, params = explained or (None, None)
    return Ack(request.id, table, boot, request.sender, request.name, outcome, reason, code, params, tuple(outputs),
               state_seq)
