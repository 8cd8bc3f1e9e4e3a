"""The venue's hand-for-hand state, kept on the broker for a returning table (pure; docs/network.md, "hand-for-hand").

Hand-for-hand's commands (:mod:`shotclock.core.handforhand`) reach the tables online when they are sent; they expire
after 5 s. So whoever sends one to a scope (a room, a section, the venue: ``shotclock send --all``, the dashboard)
also keeps that scope's state on the broker, retained, once a table took it: on or off, the hands released so far
(the room's count), the minutes each takes off the tournament clock (TDA RP-8), and a sequence number
(:func:`next_room_state`). A table takes it at every (re)connect and whenever it changes
(:class:`~shotclock.core.events.RoomHandForHand`), so one that missed a command is put where its room is; the
tournament clock reads it to stop and to take the hands' minutes off.

Example::

    >>> on = next_room_state(None, "hand_for_hand", "East", None, by="floor-anna", now_ms=1_000, newest_seq=0)
    >>> released = next_room_state(on, "release_hand", "East", None, by="floor-anna", now_ms=2_000)
    >>> room_state_of(released.encode(), "East", None) == released, time_off(released.hands, released.minutes)
    (True, 120)
"""

from __future__ import annotations

import msgspec

from shotclock.core import events as ev
from shotclock.core.codec import encode as _encode
from shotclock.core.fields import FIELDS
from shotclock.core.handforhand import RP8_MINUTES, time_off  # noqa: F401 (time_off: the example's)
from shotclock.core.inbound import Refused, parse_json

class RoomState(msgspec.Struct, frozen=True, kw_only=True):
    """The venue's retained hand-for-hand state of one scope (docs/network.md, "hand-for-hand"): a room's, a
    section's or the whole venue's, whatever its tables' own messages say. Self-contained: a reader needs no other
    message to know whether the scope plays hand-for-hand and what it takes off the tournament clock
    (:func:`time_off` of ``hands`` and ``minutes``).

    :param room: the room it is for (None: every room; "": the tables with no room set).
    :param section: the section it is for (None: every section).
    :param on: the scope plays hand-for-hand.
    :param hands: the hand-for-hand hands released so far (the room's count; kept after the end).
    :param minutes: what each takes off the tournament clock (TDA RP-8).
    :param since_ms: when this hand-for-hand began (the sender's wall clock, ms; for people only).
    :param at_ms: when this change was made (the sender's wall clock, ms; for people only).
    :param by: who made it, as the sender says (the ACL proves only that a floor login wrote it).
    :param seq: grows with every change of any scope of the venue: a table takes the newest.
    """

    room: str | None = None
    section: str | None = None
    on: bool
    hands: int = 0
    minutes: float = RP8_MINUTES
    since_ms: int | None = None
    at_ms: int | None = None
    by: str | None = None
    seq: int

    def covers(self, room: str, section: str) -> bool:
        """Whether a table standing in ``room`` and ``section`` follows this scope (as a command's scope)."""
        return (self.room is None or self.room == room) and (self.section is None or self.section == section)

    def encode(self) -> bytes:
        """The retained message's payload (compact JSON, every field written)."""
        return _encode(self)

    def event(self, t: float) -> ev.RoomHandForHand:
        """What a table takes it as, dated ``t`` (its arrival)."""
        return ev.RoomHandForHand(t, self.on, self.hands, self.minutes, self.seq)


_ROOM_STATE_FIELDS = {"room": "room", "section": "section", "on": "facing_bet", "hands": "hand_for_hand.hands",
                      "minutes": "minutes", "since_ms": "sent_ms", "at_ms": "sent_ms", "by": "sender",
                      "seq": "hand_for_hand.seq"}  # each key of the message → the field of core/fields.py it is
_NULLABLE = frozenset({"room", "section", "since_ms", "at_ms", "by"})


def room_state_of(payload: bytes, room: str | None, section: str | None) -> RoomState | Refused | None:
    """The hand-for-hand state a retained message on the scope ``room`` / ``section`` holds (its topic's, which
    the payload must name too), :class:`~shotclock.core.inbound.Refused` naming the first field out of bounds (the
    field table's words), or None for an empty payload (the scope's state was cleared). Fields a newer version adds
    are left alone.

        >>> room_state_of(b'{"room": "East", "section": null, "on": true, "hands": 2, "seq": 7}', "East", None).hands
        2
        >>> room_state_of(b'{"room": "East", "on": true, "hands": -1, "seq": 7}', "East", None).detail
        "'hands' must be a number of hands from 0 to 1000, not -1"
    """
    if not payload:
        return None
    value = parse_json(payload, max_bytes=2048)
    if isinstance(value, Refused):
        return value
    if not isinstance(value, dict):
        return Refused("malformed", "a hand-for-hand state is a JSON object")
    for key in ("on", "seq"):
        if key not in value:
            return Refused("malformed", f"a hand-for-hand state needs {key!r}")
    fields = {}
    for key, field in _ROOM_STATE_FIELDS.items():
        if key not in value or (value[key] is None and key in _NULLABLE):
            continue
        field = FIELDS[field]
        problem = field.value_problem(value[key])
        if problem:  # named by its key in this message, in the field table's words
            return Refused("malformed", f"'{key}'{':' if field.kind == 'text' else ''} {problem}")
        fields[key] = value[key]
    if (fields.get("room"), fields.get("section")) != (room, section):
        return Refused("scope", f"the payload is for room {fields.get('room')!r}, section {fields.get('section')!r}; "
                                f"its topic for room {room!r}, section {section!r}")
    return RoomState(**fields)


def newest(states, room: str | None, section: str | None) -> RoomState | None:
    """The state tables of the scope ``room`` / ``section`` follow: the newest (highest ``seq``) of ``states``
    whose scope covers that scope (its own, its room's, the venue's), or None."""
    around = [s for s in states if (s.room is None or s.room == room) and (s.section is None or s.section == section)]
    return max(around, key=lambda s: s.seq, default=None)


def inside(state: RoomState, room: str | None, section: str | None) -> bool:
    """Whether ``state``'s scope lies strictly inside the scope ``room`` / ``section`` (a change there replaces it)."""
    return ((room is None or state.room == room) and (section is None or state.section == section)
            and (state.room, state.section) != (room, section))


def next_room_state(current: RoomState | None, command: str, room: str | None, section: str | None, *,
                    minutes: float | None = None, by: str | None = None, now_ms: int,
                    newest_seq: int = 0) -> RoomState | None:
    """The scope's new state once a table took ``command`` (``hand_for_hand``, ``release_hand`` or
    ``end_hand_for_hand``) sent to it, from ``current`` (what its tables follow now: :func:`newest`); None when the
    command changes nothing there (a release or an end while the scope is off, a second start). ``seq`` is one more
    than the newest of the venue's states (``newest_seq``), or the clock ``now_ms`` when larger: a broker that lost
    its retained messages never starts the count below what a table took.

        >>> on = next_room_state(None, "hand_for_hand", "East", None, minutes=3, by="floor-anna", now_ms=5,
        ...                      newest_seq=9)
        >>> (on.on, on.hands, on.minutes, on.seq), next_room_state(on, "release_hand", "East", None, now_ms=6).hands
        ((True, 0, 3, 10), 1)
        >>> next_room_state(None, "release_hand", "East", None, now_ms=6) is None
        True
    """
    seq = max(newest_seq, current.seq if current is not None else 0) + 1
    common = {"room": room, "section": section, "at_ms": now_ms, "by": by, "seq": max(seq, now_ms)}
    on = current is not None and current.on
    if command == "hand_for_hand":
        if on:
            return None
        return RoomState(on=True, hands=0, minutes=RP8_MINUTES if minutes is None else minutes, since_ms=now_ms,
                         **common)
    if not on:
        return None
    if command == "release_hand":
        return RoomState(on=True, hands=current.hands + 1, minutes=current.minutes, since_ms=current.since_ms,
                         **common)
    if command == "end_hand_for_hand":
        return RoomState(on=False, hands=current.hands, minutes=current.minutes, since_ms=current.since_ms, **common)
    raise ValueError(f"{command!r} does not change a room's hand-for-hand")


ROOM_COMMANDS = ("hand_for_hand", "release_hand", "end_hand_for_hand")  # the commands that change a room's state
