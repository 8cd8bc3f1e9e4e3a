"""What a venue's broker holds about its tables, read from the retained messages: who is there, where each
stands, who is away and since when, and the hand-for-hand state of each scope.

The floor's tools (``shotclock send``) subscribe to the tables' ``status``, the room bridges' ``state`` and the
hand-for-hand states (docs/network.md), hand each message to :meth:`VenueView.take`, and then know which tables
a command for a room is for -- every table the venue knows there, online or not -- and why one that did not take
it did not. Nothing from the broker is trusted to be well formed: a payload that cannot be read is left out.

Example::

    >>> v = VenueView("casino")
    >>> v.take("shotclock/v1/casino/table/7/status", b'{"online": false, "table": "7", "boot": "0123456789ab", '
    ...        b'"clean": true, "since_ms": 0, "room": "East"}')
    True
    >>> v.tables_in("East", None), v.away("7", clock=lambda ms: "14:02")
    (['7'], 'offline since 14:02')
"""

from __future__ import annotations

import time
from dataclasses import dataclass

from shotclock.core.fields import FIELDS
from shotclock.core.inbound import Refused, parse_json
from shotclock.core.roomstate import RoomState, newest, room_state_of
from shotclock.core.topics import bridge_room, check_name, hand_for_hand_scope, split_table_topic


@dataclass(frozen=True)
class TableSeen:
    """A table as its retained status shows it: ``online``, where it stands (``room``, ``section``: "" for none),
    for an offline one whether it stopped cleanly (``clean``) and since when (``since_ms``, wall clock), and the
    room broker whose bridge carries it (``bridge``: "" for none)."""

    table: str
    online: bool
    room: str = ""
    section: str = ""
    clean: bool | None = None
    since_ms: int | None = None
    bridge: str = ""


class VenueView:
    """The venue's retained messages as one picture (see the module's description)."""

    def __init__(self, venue: str):
        self.venue = venue
        self.tables: dict[str, TableSeen] = {}
        self.bridges: dict[str, bool] = {}  # room → its bridge connected
        self.hand_for_hand: dict[tuple[str | None, str | None], RoomState] = {}  # scope → its state

    def take(self, topic: str, payload: bytes) -> bool:
        """Fold one message in; True when it was a status, a bridge's state or a hand-for-hand state."""
        parts = split_table_topic(topic)
        if parts is not None and parts[0] == self.venue and parts[2] == "status":
            seen = _table_seen(parts[1], payload)
            if seen is None:
                self.tables.pop(parts[1], None)  # cleared (or unreadable): the broker holds nothing of it
            else:
                self.tables[parts[1]] = seen
            return True
        room = bridge_room(topic)
        if room is not None:
            if payload in (b"0", b"1"):
                self.bridges[room] = payload == b"1"
            return True
        scope = hand_for_hand_scope(topic)
        if scope is not None and scope[0] == self.venue:
            state = room_state_of(payload, scope[1], scope[2])
            if isinstance(state, RoomState):
                self.hand_for_hand[scope[1:]] = state
            else:  # cleared, or not a state this version can read
                self.hand_for_hand.pop(scope[1:], None)
            return True
        return False

    def known(self, table: str) -> bool:
        """The broker holds a status of ``table``: it connected once at least."""
        return table in self.tables

    def tables_in(self, room: str | None, section: str | None) -> list[str]:
        """The tables the venue knows in ``room`` and ``section`` (None: any), online or not, in table order."""
        return sorted((t for t, s in self.tables.items()
                       if (room is None or s.room == room) and (section is None or s.section == section)),
                      key=table_order)

    def places(self, kind: str) -> list[str]:
        """The rooms (``kind`` "room") or sections the known tables stand in, in order ("" left out)."""
        return sorted({getattr(s, kind) for s in self.tables.values()} - {""})

    def away(self, table: str, clock=None) -> str | None:
        """Why ``table`` cannot take a command now, in words (None: it is online and reachable): "offline since
        14:02" (a clean stop), "offline: its connection was lost" (the broker's Last Will), "unreachable: room
        east's bridge is down". ``clock``: wall ms → the time shown (default: local HH:MM, the date when not
        today)."""
        seen = self.tables.get(table)
        if seen is None:
            return "unknown to the venue"
        if seen.online:
            if seen.bridge and self.bridges.get(seen.bridge) is False:
                return f"unreachable: room {seen.bridge}'s bridge to the venue broker is down"
            return None
        if seen.since_ms is not None:
            return f"offline since {(clock or clock_text)(seen.since_ms)}"
        if seen.clean is False:
            return "offline: its connection was lost"
        return "offline"

    def room_state(self, room: str | None, section: str | None) -> RoomState | None:
        """The hand-for-hand state the tables of ``room`` and ``section`` follow (the newest of the scopes around)."""
        return newest(self.hand_for_hand.values(), room, section)

    def newest_seq(self) -> int:
        """The highest sequence number of the venue's hand-for-hand states (0: none)."""
        return max((s.seq for s in self.hand_for_hand.values()), default=0)


def table_order(table: str):
    """Tables in the order a person counts them: 2 before 10, numbers before names."""
    return (0, int(table), "") if table.isdigit() else (1, 0, table)


def clock_text(ms: int) -> str:
    """A wall-clock time as a floor person reads it: ``14:02`` today, ``3 Dec 14:02`` another day."""
    then = time.localtime(ms / 1000)
    if time.strftime("%Y-%m-%d", then) == time.strftime("%Y-%m-%d"):
        return time.strftime("%H:%M", then)
    return f"{then.tm_mday} {time.strftime('%b %H:%M', then)}"


def _table_seen(table: str, payload: bytes) -> TableSeen | None:
    """A table's status read within bounds, or None (cleared, or not a status)."""
    if not payload:
        return None
    status = parse_json(payload)
    if isinstance(status, Refused) or not isinstance(status, dict) or not isinstance(status.get("online"), bool):
        return None

    def place(key: str) -> str:
        value = status.get(key)
        return value if isinstance(value, str) and FIELDS[key].problem(value) is None else ""

    since = status.get("since_ms")
    bridge = status.get("bridge")
    return TableSeen(table, status["online"], place("room"), place("section"),
                     status.get("clean") if isinstance(status.get("clean"), bool) else None,
                     since if FIELDS["sent_ms"].problem(since) is None else None,
                     bridge if check_name("room", bridge) is None else "")
