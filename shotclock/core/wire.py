"""The floor network's messages (docs/network.md), built and checked without any I/O.

The device's MQTT adapter sends what these functions build and hands incoming commands to
:func:`check_command`; the time it needs (the device's monotonic time) is an argument, as everywhere in the core.
"""

from __future__ import annotations

import json
from collections import OrderedDict
from dataclasses import dataclass
from typing import Iterable

from shotclock.core.engine import IDLE, RUNNING
from shotclock.core.faults import Fault
from shotclock.core.fields import COMMAND_FIELDS, COMMAND_HEAD, FIELDS, input_fields, missing, text_problem, unexpected
from shotclock.core.inputs import COMMANDS, CommandArgs  # noqa: F401 (one list of commands, in the core; re-exported)

# Refusal reasons (the ack's ``reason`` when ``outcome`` is ``refused``).
EXPIRED, REPLAYED, MALFORMED, UNKNOWN = "expired", "replayed", "malformed", "unknown"
RATE_LIMITED = "rate_limited"  # over the sender's rate: acked, and summarised in the log


def ms(seconds: float | None) -> int | None:
    """Seconds as whole milliseconds (None stays None)."""
    return None if seconds is None else int(round(seconds * 1000))


def dumps(message: dict) -> bytes:
    """A message as compact UTF-8 JSON."""
    return json.dumps(message, separators=(",", ":"), ensure_ascii=False).encode()


def status_message(table: str, boot: str, online: bool, clean: bool | None = None, **extra) -> dict:
    """The retained ``status``: online, or offline with ``clean`` (False in the Last Will)."""
    message = {"online": online, "table": table, "boot": boot}
    if not online:
        message["clean"] = bool(clean)
    message.update(extra)
    return message


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
        "faults": sorted((f.to_dict() for f in faults), key=lambda f: json.dumps(f, sort_keys=True)),
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
    for key in ("hand_for_hand", "rule_set"):  # the tournament's, while the floor has either on
        view = getattr(snapshot, key, None)
        if view is not None:
            message[key] = view.record()
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


@dataclass(frozen=True)
class CommandRequest(CommandArgs):
    """A command as it came off the wire, before the engine saw it: its head, the command's own fields
    (:class:`~shotclock.core.inputs.CommandArgs`) and the scope."""

    id: str
    name: str
    sender: str
    sent_ms: int
    room: str | None = None  # the scope: only the tables of this room (and section) take it
    section: str | None = None


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
MAX_DIGITS = 20  # a JSON integer longer than this cannot be a 64-bit one


def clean_text(value, longest: int = 64) -> str | None:
    """``value`` when it is text of 1 to ``longest`` characters by the one rule for text from outside
    (:func:`shotclock.core.fields.text_problem`: valid Unicode, no control characters), else None.

    Example::

        >>> clean_text("floor/anna"), clean_text("\\ud800"), clean_text(""), clean_text(7)
        ('floor/anna', None, None, None)
    """
    return None if text_problem(value, longest, "it") else value


def _depth(payload: bytes) -> int:
    """The deepest nesting of ``[`` and ``{`` in a JSON text, outside strings (a cheap look before parsing)."""
    depth = deepest = 0
    in_string = escaped = False
    for byte in payload:
        if in_string:
            if escaped:
                escaped = False
            elif byte == 0x5C:  # backslash
                escaped = True
            elif byte == 0x22:
                in_string = False
        elif byte == 0x22:
            in_string = True
        elif byte in (0x5B, 0x7B):
            depth += 1
            deepest = max(deepest, depth)
        elif byte in (0x5D, 0x7D):
            depth -= 1
    return deepest


def _small_int(text: str) -> int:
    if len(text.lstrip("-")) > MAX_DIGITS:
        raise ValueError("an integer longer than 64 bits")
    return int(text)


def parse_json_object(payload: bytes, max_bytes: int, max_depth: int) -> dict | str:
    """A JSON object from the network, or why not (a short reason). Bounded before anything is
    parsed: size, nesting depth, UTF-8; integers longer than 20 digits are refused while parsing.

    Example::

        >>> parse_json_object(b'{"a": 1}', 100, 1), parse_json_object(b'[[[]]]', 100, 2)
        ({'a': 1}, 'nested 3 deep (at most 2)')
    """
    if not isinstance(payload, (bytes, bytearray)):
        return "not bytes"
    if len(payload) > max_bytes:
        return f"{len(payload)} bytes (at most {max_bytes})"
    depth = _depth(payload)
    if depth > max_depth:
        return f"nested {depth} deep (at most {max_depth})"
    try:
        text = bytes(payload).decode("utf-8")
    except UnicodeDecodeError:
        return "not UTF-8"
    try:
        message = json.loads(text, parse_int=_small_int)
    except (ValueError, RecursionError):
        return "not JSON"
    if not isinstance(message, dict):
        return "not a JSON object"
    return message


def check_command(payload: bytes, now: float, recent: RecentIds) -> CommandRequest | Refusal:
    """Parse and check one command (docs/network.md, "command"). Never raises, whatever ``payload`` holds.

    A command's freshness is the broker's business (it drops a command whose MQTT 5 Message
    Expiry Interval has passed) and the replay memory's: ``sent_ms`` is checked to be a 64-bit
    integer but never compared with this device's wall clock, so a venue without a time server works.

    :param payload: the MQTT payload.
    :param now: the device's monotonic time (seconds), for the replay memory.
    :param recent: the replay memory.
    """
    message = parse_json_object(payload, MAX_COMMAND_BYTES, 3)  # 3: a seating's [[seat, name], …]
    if isinstance(message, str):
        return Refusal(MALFORMED, message)
    ident, sender, name = message.get("id"), message.get("sender"), message.get("name")
    who = {"id": clean_text(ident) or "", "sender": clean_text(sender) or "",
           "name": name if name in COMMANDS else ""}
    problem = command_problem(message)
    if problem:
        return Refusal(UNKNOWN if problem.startswith("unknown") else MALFORMED, problem, **who)
    if recent.seen(ident, now):
        return Refusal(REPLAYED, f"command id {ident!r} was already received", **who)
    fields = {key: message[key] for key in COMMAND_FIELDS if key in message}
    if "players" in fields:
        fields["players"] = tuple((s, n) for s, n in fields["players"])
    return CommandRequest(**fields)


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


def ack_message(table: str, boot: str, request, outcome: str, reason: str = "", outputs=(),
                state_seq: int | None = None) -> dict:
    """The ``cmd/ack`` for a :class:`CommandRequest` or :class:`Refusal`."""
    message = {"id": request.id, "table": table, "boot": boot, "sender": request.sender, "name": request.name,
               "outcome": outcome}
    if reason:
        message["reason"] = reason
    if outputs:
        message["outputs"] = list(outputs)
    if state_seq is not None:
        message["state_seq"] = state_seq
    return message
