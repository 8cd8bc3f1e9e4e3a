"""The floor network's messages (docs/network.md), built and checked without any I/O.

The device's MQTT adapter sends what these functions build and hands incoming commands to
:func:`check_command`; the times they need (the device's monotonic time, the wall clock in
Unix ms) are arguments, as everywhere in the core.
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
                  network: dict, language: str | None = None) -> dict:
    """The retained ``state`` of a table from the engine's snapshot at ``now`` (device seconds).

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
        "table": table, "boot": boot, "seq": seq, "name": name, "mode": snapshot.mode, "phase": snapshot.phase,
        "facing_bet": bool(snapshot.facing_bet), "street": snapshot.street, "extensions": snapshot.extensions,
        "seconds": None if snapshot.phase == IDLE else snapshot.seconds,
        "remaining_ms": ms(remaining), "countdown": snapshot.countdown, "last_ruling": last_ruling,
        "faults": sorted((f.to_dict() for f in faults), key=lambda f: json.dumps(f, sort_keys=True)),
        "network": network,
    }
    if language:
        message["language"] = language
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
    return tuple((k, repr(v)) for k, v in message.items() if k not in ("seq", "remaining_ms", "last_ruling")) + (
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
    """Command ids seen lately (bounded), to refuse a replay; older ones are refused as stale anyway."""

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


def check_command(payload: bytes, now: float, now_ms: int, max_age: float, recent: RecentIds
                  ) -> CommandRequest | Refusal:
    """Parse and check one command (docs/network.md, "command").

    :param payload: the MQTT payload.
    :param now: the device's monotonic time (seconds), for the replay memory.
    :param now_ms: the device's wall clock (Unix ms), to tell a stale command.
    :param max_age: seconds a command may be old (or ahead, for a clock set wrong).
    """
    try:
        message = json.loads(payload)
    except (ValueError, UnicodeDecodeError):
        return Refusal(MALFORMED, "not JSON")
    if not isinstance(message, dict):
        return Refusal(MALFORMED, "not a JSON object")
    ident, sender, name = message.get("id"), message.get("sender"), message.get("name")
    who = {"id": ident if isinstance(ident, str) else "", "sender": sender if isinstance(sender, str) else "",
           "name": name if isinstance(name, str) else ""}
    problem = command_problem(message)
    if problem:
        return Refusal(UNKNOWN if problem.startswith("unknown") else MALFORMED, problem, **who)
    age = (now_ms - message["sent_ms"]) / 1000
    if abs(age) > max_age:
        return Refusal(EXPIRED, f"sent {age:.1f} s ago (more than {max_age:g} s)", **who)
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
        return f"unexpected field {sorted(extra)[0]!r}"
    for key in ("id", "sender"):
        value = message.get(key)
        if not isinstance(value, str) or not 1 <= len(value) <= 64:
            return f"'{key}' must be a string of 1 to 64 characters"
    if message.get("name") not in COMMANDS:
        return f"unknown command {message.get('name')!r} (known: {', '.join(COMMANDS)})"
    sent = message.get("sent_ms")
    if isinstance(sent, bool) or not isinstance(sent, int):
        return "'sent_ms' must be a whole number of milliseconds"
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
