"""The floor network's topic names (see docs/network.md): one place, used by the device,
the broker configuration, the collector, the fleet simulator and the tests.

Every topic lives under ``shotclock/v1/<venue>/``. A venue and a table id are short names
of letters, digits, ``-`` and ``_``, so they can never hold an MQTT wildcard or a slash.
"""

from __future__ import annotations

import re

PREFIX = "shotclock/v1"
ID_MAX = 32  # characters of a venue's or a table's id in the topics
NAME = re.compile(rf"[A-Za-z0-9_-]{{1,{ID_MAX}}}")
# Per table: what it publishes, and what it reads.
TABLE_PUBLISHES = ("status", "state", "event", "cmd/ack")
TABLE_READS = ("cmd", "cmd/by/+", "stored", "status")  # and the venue's hand-for-hand states (hand_for_hand_topic)
# The shared floor login: the only one the generated ACL lets write a plain ``…/cmd`` topic, so a command
# there is this login's, whatever ``sender`` its payload claims.
SHARED_FLOOR = "floor"


def check_name(kind: str, value: str) -> str | None:
    """None when ``value`` is a valid venue or table id, else the problem in one line."""
    if isinstance(value, str) and NAME.fullmatch(value):
        return None
    return f"{kind} {value!r} must be 1 to {ID_MAX} letters, digits, '-' or '_'"


def venue_root(venue: str) -> str:
    """``shotclock/v1/<venue>``."""
    return f"{PREFIX}/{venue}"


def table_topic(venue: str, table: str, leaf: str) -> str:
    """``shotclock/v1/<venue>/table/<table>/<leaf>`` (leaf: status, state, event, cmd, cmd/ack, stored)."""
    return f"{PREFIX}/{venue}/table/{table}/{leaf}"


def feature_topic(venue: str) -> str:
    """The venue's retained choice of the table the broadcast overlay shows."""
    return f"{PREFIX}/{venue}/feature"


def command_topic(venue: str, table: str | None, user: str) -> str:
    """A command from the floor user ``user`` to one table (``table`` None: every table of the venue):
    ``…/table/<table>/cmd/by/<user>``. The ACL lets only ``user`` write it, so the device takes the sender
    from the topic, not from the payload."""
    where = f"{PREFIX}/{venue}/table/{table}/cmd" if table is not None else f"{PREFIX}/{venue}/cmd"
    return f"{where}/by/{user}"


def command_sender(topic: str) -> str:
    """The login the broker proved sent a command: the user a ``…/cmd/by/<user>`` topic names (the ACL lets only
    that user write it), else the shared floor login (the only one that may write a plain ``…/cmd``).

        >>> command_sender("shotclock/v1/casino/table/7/cmd/by/floor-anna"), command_sender("shotclock/v1/casino/cmd")
        ('floor-anna', 'floor')
    """
    head, sep, user = topic.rpartition("/cmd/by/")
    return user if sep and head.startswith(PREFIX + "/") and "/" not in user else SHARED_FLOOR


def venue_cmd_topic(venue: str) -> str:
    """Commands to every table of the venue at once (a break: pause all)."""
    return f"{PREFIX}/{venue}/cmd"


def collector_topic(venue: str) -> str:
    """The collector's retained status: online or not, active or standing by. Its presence tells the tables
    that the venue keeps an archive, so they wait for the archive's word (``…/table/<id>/stored``)."""
    return f"{PREFIX}/{venue}/collector/status"


def bridge_topic(venue: str, room: str) -> str:
    """A room broker's bridge's own retained state, ``1`` connected or ``0`` not (Mosquitto's bridge
    notification, on both brokers; at the venue ``0`` is also the bridge's Last Will). ``room`` ``+``: every
    room's. A table on a room broker reads its own bridge's here and names the room in its status, so a page
    at the venue knows which tables a dead bridge hides."""
    return f"{PREFIX}/{venue}/bridge/{room}/state"


def bridge_room(topic: str) -> str | None:
    """The room a bridge state topic names, or None for any other topic.

        >>> bridge_room("shotclock/v1/casino/bridge/east/state"), bridge_room("shotclock/v1/casino/cmd")
        ('east', None)
    """
    parts = topic.split("/")
    if len(parts) != 6 or "/".join(parts[:2]) != PREFIX or parts[3] != "bridge" or parts[5] != "state":
        return None
    return parts[4] if NAME.fullmatch(parts[4]) else None


def member_topic(venue: str, group: str, member: str) -> str:
    """A share group member's retained status (``+`` for every group or member): online, or gone (its Last
    Will, sent when its session ends: the broker gave its share of the events to the group's others)."""
    return f"{PREFIX}/{venue}/collector/member/{group}/{member}"


def archive_topic(venue: str, leaf: str) -> str:
    """The collector's archive questions (``get``) and answers (``reply/<client id>``): the dashboard's
    rulings feed and timelines (MQTT 5 request/response, see docs/network.md)."""
    return f"{PREFIX}/{venue}/archive/{leaf}"


ANY_PLACE = "*"  # a hand-for-hand scope's level for "any room" (or section): the command named none
NO_PLACE = "_"  # the level for the empty name: the tables with no room (or section) set
PLACE_SAFE = frozenset(b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-.")


def place_level(name: str | None) -> str:
    """A room's or section's name as one topic level: ``*`` for none named (any), ``_`` for the empty name, else its
    UTF-8 with every byte but ASCII letters, digits, ``-`` and ``.`` as ``%XX`` (so no name holds a ``/``, ``+``,
    ``#``, ``*`` or ``_`` of its own). ``lib/link.js`` writes it the same way.

        >>> place_level(None), place_level(""), place_level("East"), place_level("Zaal 1/B"), place_level("Café")
        ('*', '_', 'East', 'Zaal%201%2FB', 'Caf%C3%A9')
    """
    if name is None:
        return ANY_PLACE
    if name == "":
        return NO_PLACE
    return "".join(chr(b) if b in PLACE_SAFE else f"%{b:02X}" for b in name.encode("utf-8"))


def place_name(level: str) -> str | None:
    """The room or section a topic level names (:func:`place_level` read back); raises ValueError for a level no
    name gives.

        >>> place_name("*"), place_name("_"), place_name("Zaal%201%2FB"), place_name("Caf%C3%A9")
        (None, '', 'Zaal 1/B', 'Café')
    """
    if level == ANY_PLACE:
        return None
    if level == NO_PLACE:
        return ""
    out, i = bytearray(), 0
    while i < len(level):
        c = level[i]
        if c == "%" and len(level) >= i + 3 and all(h in "0123456789ABCDEF" for h in level[i + 1:i + 3]):
            byte = int(level[i + 1:i + 3], 16)
            if byte in PLACE_SAFE:
                raise ValueError(f"{level[i:i + 3]} spells a character that is written as itself")
            out.append(byte)
            i += 3
        elif c.isascii() and ord(c) in PLACE_SAFE:
            out.append(ord(c))
            i += 1
        else:
            raise ValueError(f"{c!r} is not written so in a place's topic level")
    if not out:
        raise ValueError("an empty topic level")
    return out.decode("utf-8")  # (a UnicodeDecodeError is a ValueError)


def hand_for_hand_topic(venue: str, room: str | None = None, section: str | None = None) -> str:
    """The retained hand-for-hand state of one scope: ``shotclock/v1/<venue>/handforhand/<room>/<section>``, each
    level a :func:`place_level` (``*``: any). ``room`` and ``section`` ``"+"`` subscribe to every scope.

        >>> hand_for_hand_topic("casino"), hand_for_hand_topic("casino", "East", "A")
        ('shotclock/v1/casino/handforhand/*/*', 'shotclock/v1/casino/handforhand/East/A')
    """
    levels = [name if name == "+" else place_level(name) for name in (room, section)]
    return f"{hand_for_hand_root(venue)}{levels[0]}/{levels[1]}"


def every_hand_for_hand(venue: str) -> str:
    """Every scope's hand-for-hand state of the venue (``…/handforhand/#``: the ACL's and a reader's filter)."""
    return hand_for_hand_root(venue) + "#"


def hand_for_hand_root(venue: str) -> str:
    """What every hand-for-hand state's topic of the venue begins with (``shotclock/v1/<venue>/handforhand/``)."""
    return f"{PREFIX}/{venue}/handforhand/"


def hand_for_hand_scope(topic: str) -> tuple[str, str | None, str | None] | None:
    """(venue, room, section) of a hand-for-hand state's topic (None: any), or None for any other topic or a level
    no name gives.

        >>> hand_for_hand_scope("shotclock/v1/casino/handforhand/East/*")
        ('casino', 'East', None)
        >>> hand_for_hand_scope("shotclock/v1/casino/cmd") is None
        True
    """
    parts = topic.split("/")
    if len(parts) != 6 or "/".join(parts[:2]) != PREFIX or parts[3] != "handforhand" or not NAME.fullmatch(parts[2]):
        return None
    try:
        return parts[2], place_name(parts[4]), place_name(parts[5])
    except ValueError:
        return None


def all_tables(venue: str, leaf: str) -> str:
    """The subscription to one leaf of every table (``…/table/+/<leaf>``)."""
    return f"{PREFIX}/{venue}/table/+/{leaf}"


def split_table_topic(topic: str) -> tuple[str, str, str] | None:
    """(venue, table, leaf) of a table topic, or None for any other topic."""
    parts = topic.split("/")
    if len(parts) < 6 or "/".join(parts[:2]) != PREFIX or parts[3] != "table":
        return None
    return parts[2], parts[4], "/".join(parts[5:])


TOURNAMENT_TABLE = "tournament:"
"""What the archive files a tournament clock's changes under, before its id (no table's id holds a colon)."""


def tournament_topic(venue: str, tournament: str, leaf: str) -> str:
    """A tournament clock's topic: ``shotclock/v1/<venue>/tournament/<id>/<leaf>`` (leaf: ``state`` and ``status``,
    retained; ``event``, its records for the archive; ``cmd/by/<login>``, the floor's commands; ``cmd/ack``).
    ``tournament`` ``+``: every tournament's.

        >>> tournament_topic("casino", "main", "state")
        'shotclock/v1/casino/tournament/main/state'
    """
    return f"{PREFIX}/{venue}/tournament/{tournament}/{leaf}"


def split_tournament_topic(topic: str) -> tuple[str, str, str] | None:
    """(venue, tournament id, leaf) of a tournament clock's topic, or None for any other topic.

        >>> split_tournament_topic("shotclock/v1/casino/tournament/main/cmd/by/floor-anna")
        ('casino', 'main', 'cmd/by/floor-anna')
    """
    parts = topic.split("/")
    if len(parts) < 6 or "/".join(parts[:2]) != PREFIX or parts[3] != "tournament" or not NAME.fullmatch(parts[4]):
        return None
    return parts[2], parts[4], "/".join(parts[5:])
