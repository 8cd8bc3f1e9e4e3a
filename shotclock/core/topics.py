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
TABLE_READS = ("cmd", "cmd/by/+", "stored", "status")
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


def all_tables(venue: str, leaf: str) -> str:
    """The subscription to one leaf of every table (``…/table/+/<leaf>``)."""
    return f"{PREFIX}/{venue}/table/+/{leaf}"


def split_table_topic(topic: str) -> tuple[str, str, str] | None:
    """(venue, table, leaf) of a table topic, or None for any other topic."""
    parts = topic.split("/")
    if len(parts) < 6 or "/".join(parts[:2]) != PREFIX or parts[3] != "table":
        return None
    return parts[2], parts[4], "/".join(parts[5:])
