"""What a venue's broker configuration holds: its users, listeners, tables and bridges (no I/O).

:class:`BrokerPlan` is checked whole (:meth:`BrokerPlan.problems`) before anything is written.
"""

from __future__ import annotations

import ipaddress
from dataclasses import dataclass, field

from shotclock.core import topics
from shotclock.core.topics import (bridge_topic, check_name, collector_topic, command_topic, every_hand_for_hand,
                                   table_topic, tournament_topic, venue_cmd_topic)
from shotclock.errors import ShotclockError

FLOOR, OVERLAY, COLLECTOR = topics.SHARED_FLOOR, "overlay", "collector"


def table_user(table: str) -> str:
    """The MQTT username of a table."""
    return f"table-{table}"


def floor_user(name: str) -> str:
    """The MQTT username of a floor person."""
    return f"floor-{name}"


def bridge_user(room: str) -> str:
    """The MQTT username of a room broker's bridge on the venue broker."""
    return f"bridge-{room}"


def table_client_id(venue: str, table: str, password: str) -> str:
    """The one client id the broker lets ``table``'s login use (the device derives the same one)."""
    from shotclock.adapters.mqtt_login import private_client_id

    return private_client_id(f"shotclock-{venue}-{table}", password)


def bridge_client_id(venue: str, room: str, password: str, side: str = "remote") -> str:
    """The client id of a room's bridge on the venue broker (``remote``) or on its own broker (``local``)."""
    from shotclock.adapters.mqtt_login import private_client_id

    middle = "bridge" if side == "remote" else "bridge-local"
    return private_client_id(f"shotclock-{middle}-{venue}-{room}", password)


def bridge_state_topic(venue: str, room: str) -> str:
    """The bridge's own retained state on both brokers: ``1`` connected, ``0`` not (Mosquitto's
    bridge notification; on the venue broker ``0`` is the bridge's Last Will)."""
    return bridge_topic(venue, room)


@dataclass(frozen=True)
class Endpoint:
    """A listener: host and port; TLS whenever the host is not loopback."""

    host: str
    port: int

    @property
    def loopback(self) -> bool:
        """True for 127.0.0.0/8, ::1 and localhost."""
        if self.host == "localhost":
            return True
        try:
            return ipaddress.ip_address(self.host).is_loopback
        except ValueError:
            return False


def parse_endpoint(text: str, what: str) -> Endpoint:
    """``HOST:PORT`` (``[::1]:1883`` for IPv6) as an :class:`Endpoint`; ShotclockError naming ``what``."""
    host, sep, port = text.rpartition(":")
    host = host.strip("[]")
    if not sep or not host or not port.isdigit() or not 1 <= int(port) <= 65535:
        raise ShotclockError(f"{what} {text!r} must be HOST:PORT with a port from 1 to 65535")
    return Endpoint(host, int(port))


def parse_tables(text: str) -> list[str]:
    """``"1-12,feature"`` → ``["1", …, "12", "feature"]``; ranges of whole numbers expand."""
    tables: list[str] = []
    for part in (p.strip() for p in text.split(",")):
        first, dash, last = part.partition("-")
        if dash and first.isdigit() and last.isdigit():
            if int(last) < int(first) or int(last) - int(first) > 10_000:
                raise ShotclockError(f"--tables: the range {part!r} is empty or too long")
            tables += [str(n) for n in range(int(first), int(last) + 1)]
        elif part:
            tables.append(part)
    return tables


@dataclass(frozen=True)
class Bridge:
    """A room broker's bridge to the venue's broker.

    :param venue_broker: the venue broker's address (its TLS listener unless on loopback).
    :param room: the room's name (the bridge's user is ``bridge-<room>``).
    :param password: the bridge's password on the venue broker (from the venue's ``credentials/``).
    :param cafile: the CA (or self-signed certificate) of the venue broker: TLS; None: plain (loopback only).
    """

    venue_broker: Endpoint
    room: str
    password: str
    cafile: str | None = None

    def problems(self) -> list[str]:
        """Every reason this bridge cannot be written, one line each."""
        problems = [p for p in [check_name("room", self.room)] if p]
        if not self.cafile and not self.venue_broker.loopback:
            problems.append("a bridge beyond loopback needs TLS: give --ca-file with the venue broker's CA")
        return problems


@dataclass
class BrokerPlan:
    """What to write: the venue, its tables, the listeners and the TLS files.

    :param venue: the venue's name in the topics.
    :param tables: every table id.
    :param floor: the floor people, each with a credential of their own (``floor-<name>``).
    :param local: the plain loopback listener.
    :param network: a TLS listener for the floor network (None: loopback only).
    :param websockets: the browsers' listener (TLS unless on loopback; None: none).
    :param certfile: server certificate (PEM) for TLS listeners (written as an absolute path).
    :param keyfile: its private key (likewise).
    :param persistence: where mosquitto keeps retained messages and sessions (None: in memory).
    :param run_as: the ``user`` mosquitto drops to when started as root (None: its default).
    :param autosave_interval: seconds between saves of the persistence file (a crash loses at most this).
    :param pages: a folder the websockets listener serves over HTTP (``http_dir``): the dashboard and the
        overlay (:func:`shotclock.web.web_dir`); None: no pages.
    :param client_id_plugin: the client-id plugin the broker loads (built by :mod:`.build`): each table's and
        room bridge's client id for its own login alone, and that login with that id alone (the bindings file
        ``client-ids``); None: no such binding (any login could take a table's session).
    """

    venue: str
    tables: list[str]
    floor: list[str] = field(default_factory=list)
    local: Endpoint = Endpoint("127.0.0.1", 1883)
    network: Endpoint | None = None
    websockets: Endpoint | None = Endpoint("127.0.0.1", 9001)
    certfile: str | None = None
    keyfile: str | None = None
    persistence: str | None = "data"
    run_as: str | None = None
    autosave_interval: int = 30
    pages: str | None = None
    extra: list[str] = field(default_factory=list)
    bridge: Bridge | None = None
    client_id_plugin: str | None = None

    def problems(self) -> list[str]:
        """Every reason this plan cannot be written, one line each."""
        problems = [p for p in [check_name("venue", self.venue)] if p]
        problems += [p for t in self.tables if (p := check_name("table id", t))]
        if not self.tables:
            problems.append("give at least one table (--tables)")
        if len(set(self.tables)) != len(self.tables):
            problems.append("a table id is given twice")
        problems += [p for n in self.floor if (p := check_name("floor name", n))]
        if len(set(self.floor)) != len(self.floor):
            problems.append("a floor name is given twice")
        if not self.local.loopback:
            problems.append(f"the plain listener must be on loopback, not {self.local.host} (use --listen for TLS)")
        facing = [e for e in (self.network, self.websockets) if e is not None and not e.loopback]
        if facing and not (self.certfile and self.keyfile):
            problems.append("a listener beyond loopback needs TLS: give --certfile and --keyfile, or --make-certs")
        ports = [e.port for e in (self.local, self.network, self.websockets) if e is not None]
        if len(set(ports)) != len(ports):
            problems.append("two listeners share a port")
        if self.bridge is not None:
            problems += self.bridge.problems()
        return problems


def bridge_topics(venue: str, tables: list[str]) -> tuple[list[str], list[str]]:
    """(out, in): the topics a room's bridge carries to the venue broker and back.

    Out, per table of the room: what a table publishes (``status``, ``state``, ``event``, ``cmd/ack``).
    In, per table: what is addressed to it (``cmd``, ``cmd/by/+``, ``stored``); for the venue: its commands
    to every table (``cmd``, ``cmd/by/+``), the collector's retained status and the hand-for-hand states. The two lists share no topic,
    so nothing loops back and nothing arrives twice; the venue's own topics (``feature``, ``archive/…``)
    stay on the venue broker.
    """
    out = [table_topic(venue, t, leaf) for t in tables for leaf in ("status", "state", "event", "cmd/ack")]
    into = [t for table in tables for t in (table_topic(venue, table, "cmd"), command_topic(venue, table, "+"),
                                            table_topic(venue, table, "stored"))]
    into += [venue_cmd_topic(venue), command_topic(venue, None, "+"), collector_topic(venue),
             every_hand_for_hand(venue), tournament_topic(venue, "+", "state"), tournament_topic(venue, "+", "status")]
    return out, into
