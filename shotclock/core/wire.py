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
from shotclock.core.inputs import COMMANDS  # noqa: F401 (one list of commands, in the core; re-exported)

# Refusal reasons (the ack's ``reason`` when ``outcome`` is ``refused``).
EXPIRED, REPLAYED, MALFORMED, UNKNOWN = "expired", "replayed", "malformed", "unknown"
_COMMAND_FIELDS = {"id", "name", "sender", "sent_ms", "facing_bet", "seat", "player", "bank", "chips", "seconds",
                   "players"}
# The seat commands (seat tracking) and the fields each takes, beyond id, name, sender and sent_ms; (required).
SEAT_COMMAND_FIELDS = {
    "seat": ({"seat"}, {"player", "bank", "chips"}), "rename": ({"seat", "player"}, set()),
    "empty": ({"seat"}, set()), "button": ({"seat"}, set()), "top_up": (set(), {"chips", "seconds"}),
    "seating": ({"players"}, set()), "fold": (set(), {"seat"}), "all_in": (set(), {"seat"}),
    "turn_back": (set(), set()), "turn_forward": (set(), set()),
}
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
                        "bank_ms": ms(banks.get(seat))} for seat, name in seats.players]
    return fields


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
class CommandRequest:
    """A command as it came off the wire, before the engine saw it."""

    id: str
    name: str
    sender: str
    sent_ms: int
    facing_bet: bool | None = None
    seat: int | None = None
    player: str | None = None
    bank: float | None = None
    chips: int | None = None
    seconds: float | None = None
    players: tuple | None = None


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
INT64 = (-(2 ** 63), 2 ** 63 - 1)


def clean_text(value, longest: int = 64) -> str | None:
    """``value`` when it is a string of 1 to ``longest`` characters that UTF-8 can encode (no lone
    surrogates, no NUL), else None.

    Example::

        >>> clean_text("floor/anna"), clean_text("\\ud800"), clean_text(""), clean_text(7)
        ('floor/anna', None, None, None)
    """
    if not isinstance(value, str) or not 1 <= len(value) <= longest or "\x00" in value:
        return None
    try:
        value.encode("utf-8")
    except UnicodeEncodeError:
        return None
    return value


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
    players = message.get("players")
    return CommandRequest(ident, name, sender, message["sent_ms"], message.get("facing_bet"), message.get("seat"),
                          message.get("player"), message.get("bank"), message.get("chips"), message.get("seconds"),
                          tuple((s, n) for s, n in players) if players is not None else None)


def command_problem(message: dict) -> str | None:
    """What is wrong with a command message's fields, as the device refuses it (None: nothing)."""
    extra = set(message) - _COMMAND_FIELDS
    if extra:
        unexpected = sorted(extra)[0]
        return f"unexpected field {clean_text(unexpected, 32) or '(unprintable)'!r}"
    for key in ("id", "sender"):
        if clean_text(message.get(key)) is None:
            return f"'{key}' must be a string of 1 to 64 characters (UTF-8, no NUL)"
    if message.get("name") not in COMMANDS:
        name = message.get("name")
        shown = repr(clean_text(name, 32)) if isinstance(name, str) else type(name).__name__
        return f"unknown command {shown} (known: {', '.join(COMMANDS)})"
    sent = message.get("sent_ms")
    if isinstance(sent, bool) or not isinstance(sent, int) or not INT64[0] <= sent <= INT64[1]:
        return "'sent_ms' must be a whole number of milliseconds (64-bit)"
    bet = message.get("facing_bet")
    if bet is not None and not isinstance(bet, bool):
        return "'facing_bet' must be true or false"
    if message["name"] == "bet" and bet is None:
        return "'bet' needs 'facing_bet'"
    if message["name"] in SEAT_COMMAND_FIELDS:
        return _seat_command_problem(message)
    seat = message.get("seat")
    if seat is not None and (message["name"] != "extend" or isinstance(seat, bool) or not isinstance(seat, int)
                             or not 1 <= seat <= 10):
        return "'seat' goes with 'extend' and must be a seat number from 1 to 10"
    if set(message) & {"player", "bank", "chips", "seconds", "players"}:
        key = sorted(set(message) & {"player", "bank", "chips", "seconds", "players"})[0]
        return f"'{key}' goes with the seat commands ({', '.join(SEAT_COMMAND_FIELDS)})"
    return None


def _seat_command_problem(message: dict) -> str | None:
    """What is wrong with a seat command's fields (None: nothing). Whether the seat exists at this table is
    the table's to say (an ``ignored`` ack with the reason)."""
    from shotclock.core.seats import name_problem

    name = message["name"]
    required, optional = SEAT_COMMAND_FIELDS[name]
    given = set(message) - {"id", "name", "sender", "sent_ms"}
    if given - required - optional:
        return f"'{sorted(given - required - optional)[0]}' does not go with '{name}'"
    if required - given:
        return f"'{name}' needs '{sorted(required - given)[0]}'"
    seat = message.get("seat")
    if seat is not None and (isinstance(seat, bool) or not isinstance(seat, int) or not 1 <= seat <= 10):
        return "'seat' must be a seat number from 1 to 10"
    if "player" in message and (problem := name_problem(message["player"])):
        return f"'player': {problem}"
    for key in ("bank", "seconds"):
        v = message.get(key)
        if v is not None and (isinstance(v, bool) or not isinstance(v, (int, float)) or not 0 <= v <= 36000):
            return f"'{key}' must be a number of seconds from 0 to 36000"
    chips = message.get("chips")
    if chips is not None and (isinstance(chips, bool) or not isinstance(chips, int) or not 0 <= chips <= 50):
        return "'chips' must be a whole number from 0 to 50"
    players = message.get("players")
    if players is not None and (not isinstance(players, list) or len(players) > 10 or not all(
            isinstance(p, list) and len(p) == 2 and isinstance(p[0], int) and not isinstance(p[0], bool)
            and 1 <= p[0] <= 10 and isinstance(p[1], str) and (p[1] == "" or not name_problem(p[1])) for p in players)):
        return "'players' must be a list of [seat, name] pairs (seats 1 to 10, names of 1 to 40 characters)"
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
