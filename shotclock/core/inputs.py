"""What the table is fed: pin edges from its buttons and floor commands from the network.

Both are small frozen values dated on the device's monotonic clock, in the style of h11's
events: they say what happened and when, nothing else. :class:`~shotclock.core.table.Table`
takes them in any order and reads each against the state at its own time.
"""

from __future__ import annotations

from dataclasses import dataclass, fields


@dataclass(frozen=True)
class Edge:
    """A pin edge: ``button`` went ``pressed`` (or released) at ``t`` (seconds).

    Example::

        >>> Edge(12.5, "action", True)
        Edge(t=12.5, button='action', pressed=True)
    """

    t: float
    button: str
    pressed: bool


# The floor commands a network may send (``call`` and ``bet`` take ``facing_bet``, ``extend`` a ``seat``).
# The seat commands (seat tracking, docs/rules.md "Seats") take ``seat``, ``player`` (a name), ``bank``, ``chips``,
# ``seconds`` or ``players`` as docs/network.md says. The tournament's (levels, hand-for-hand: TDA RP-8, the named
# rule sets) go to every table of the venue at once, a room or section in them naming the tables they are for.
COMMANDS = ("call", "pause", "resume", "cancel", "start", "stop", "extend", "bet", "undo", "reset_chips",
            "last_action", "seat", "rename", "empty", "button", "top_up", "seating", "fold", "all_in",
            "turn_back", "turn_forward", "mark", "unmark", "level", "hands", "hand_for_hand", "release_hand",
            "end_hand_for_hand", "rule_set")


@dataclass(frozen=True, kw_only=True)
class CommandArgs:
    """The fields a floor command may carry besides its name, each optional (core/fields.py bounds them): the
    one list for the core's :class:`Command` and the wire's request (core/wire.py)."""

    facing_bet: bool | None = None
    seat: int | None = None
    player: str | None = None
    bank: float | None = None
    chips: int | None = None
    seconds: float | None = None
    players: tuple | None = None
    mark: str | None = None
    mark_seconds: float | None = None
    level: int | None = None
    hands: int | None = None
    minutes: float | None = None
    rule_set: str | None = None


ARGS = tuple(f.name for f in fields(CommandArgs))  # their names, in order


def args_of(source) -> dict:
    """The command fields of ``source`` (a request, or any object with those attributes)."""
    return {name: getattr(source, name) for name in ARGS}


@dataclass(frozen=True)
class Command(CommandArgs):
    """A floor command from the network, dated when it reached the device (the device is the time authority).

    :param t: monotonic seconds of arrival at the device.
    :param name: one of :data:`COMMANDS`.
    :param id: the sender's command id (for the acknowledgement and the log).
    :param sender: who sent it (the MQTT username).
    :param facing_bet: for ``call`` (None keeps the table's bet state) and ``bet`` (None toggles it).
    :param seat: for ``extend``: the player's seat (1-10), counted against ``shot.allowance``; the seat of a
        seat command.
    :param player: a player's name (``seat``, ``rename``).
    :param bank: seconds of time bank a player brings (``seat``: a player moved from another table).
    :param chips: extension chips a player brings (``seat``), or more for everyone (``top_up``).
    :param seconds: more time bank for everyone (``top_up``).
    :param players: ``((seat, name), …)`` for ``seating``.
    :param mark: ``mark``: ``warning`` or ``clock``; ``seat``: the mark a moved player brings.
    :param mark_seconds: a ``clock`` mark's own clock (seconds).
    :param level: the tournament level (``level``), from the next hand.
    :param hands: hands per level (``level``, ``hands``), from the next hand.
    :param minutes: ``hand_for_hand``: minutes each hand takes off the tournament clock (None: RP-8's 2).
    :param rule_set: ``rule_set``: the named rule set from the next hand ("": the table's own rules).

    Example::

        >>> Command(31.2, "pause", id="a7", sender="floor-3").name, Command(31.2, "seat", id="a8", sender="f", seat=4).seat
        ('pause', 4)
    """

    t: float
    name: str
    id: str
    sender: str


@dataclass(frozen=True)
class RoomHandForHand:
    """The venue's retained hand-for-hand state of a scope this table stands in (docs/network.md,
    "hand-for-hand"), dated when it reached the device: what the table takes to be where its room is after a
    command it missed (:mod:`shotclock.core.roomstate`).

    :param t: monotonic seconds of arrival at the device.
    :param on: the scope plays hand-for-hand.
    :param hands: the hand-for-hand hands released so far (the room's count).
    :param minutes: what each takes off the tournament clock.
    :param seq: the state's sequence number (a table takes only a newer one).
    :param room: the scope's room (None: every room), for the log.
    :param section: the scope's section (None: every section), for the log.

    Example::

        >>> RoomHandForHand(40.5, True, 3, 2, 17, room="East").hands
        3
    """

    t: float
    on: bool
    hands: int
    minutes: float
    seq: int
    room: str | None = None
    section: str | None = None


@dataclass(frozen=True)
class TournamentNews:
    """The tournament clock's retained state, as the table follows it (:mod:`shotclock.core.following`), dated when
    it reached the device.

    :param t: monotonic seconds of arrival at the device.
    :param id: the tournament's id; ``seq`` the state's sequence number (a table takes only a newer one).
    :param level: the level in force (None: a break).
    :param hands: the level ends after this many hands (0: by time).
    :param on_break: the stage in force is a break (no clock can be called or started).
    :param break_left: the break's time left at arrival (None: not a break).
    :param paused: the tournament clock stands still (a pause, hand-for-hand).
    :param break_name: the break's name ("dinner").
    :param gone: the tournament no longer covers this table (its state was cleared, or its scope changed): the
        table follows it no more (its level stays; a break it was on ends).

    Example::

        >>> TournamentNews(12.0, "main", 7, None, 0, True, 600.0, False, "dinner").break_name
        'dinner'
    """

    t: float
    id: str
    seq: int
    level: int | None
    hands: int
    on_break: bool
    break_left: float | None
    paused: bool
    break_name: str = ""
    gone: bool = False
