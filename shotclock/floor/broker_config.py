"""A Mosquitto configuration for a venue's floor network (``shotclock broker-config``).

Writes into one folder:

* ``mosquitto.conf`` -- no anonymous access; a plain listener on loopback only (the floor
  laptop's own collector and tools); TLS on every listener that faces the network; a
  websockets listener for the browser dashboard and overlay; persistence, so retained state
  and queued messages survive a broker restart.
* ``passwd`` -- one credential per table, ``floor`` (may command), ``overlay`` (read-only:
  the broadcast), ``collector`` (read-only: the archive), hashed as ``mosquitto_passwd``
  does (PBKDF2-SHA512, ``$7$``).
* ``acl`` -- a table publishes only its own topics and reads only its own commands.
* ``chrony.conf`` (with ``--time NETWORK``) -- this host serves time to the tables on NETWORK, from
  its own clock when the venue has no internet; floor commands and rulings carry wall-clock times.
* ``credentials/<user>.toml`` -- each user's password in clear (mode 0600), for the
  ``[network] credentials`` key of that table's configuration. Running the command again
  keeps every existing password, so adding a table changes no other.

A room broker (``--bridge-to HOST[:PORT] --room NAME --venue-dir DIR``) also gets a bridge to the
venue's broker in its ``mosquitto.conf`` (:func:`bridge_text`), and the venue broker's folder gets
the matching side: ``rooms/<room>.toml`` (the room's tables), the bridge's credential, its line in
``passwd`` and its block in ``acl`` (:func:`write_rooms`), allowed exactly what the bridge carries.
"""

from __future__ import annotations

import base64
import hashlib
import ipaddress
import os
import secrets
import tomllib
from dataclasses import dataclass, field, replace
from pathlib import Path

from shotclock.core import topics
from shotclock.core.topics import (all_tables, archive_topic, bridge_topic, check_name, collector_topic, command_topic,
                                   feature_topic, member_topic, table_topic, venue_cmd_topic, venue_root)
from shotclock.errors import ShotclockError
from shotclock.web import web_dir

FLOOR, OVERLAY, COLLECTOR = topics.SHARED_FLOOR, "overlay", "collector"
ROOMS_MARK = "# Bridged rooms (shotclock broker-config --bridge-to): each room broker's bridge, its tables only."
PBKDF2_ITERATIONS = 101  # mosquitto_passwd's own default; passwords here are random 128-bit tokens


def table_user(table: str) -> str:
    """The MQTT username of a table."""
    return f"table-{table}"


def hash_password(password: str, salt: bytes | None = None, iterations: int = PBKDF2_ITERATIONS) -> str:
    """A ``mosquitto_passwd``-compatible hash: ``$7$<iterations>$<salt b64>$<PBKDF2-SHA512 b64>``."""
    salt = salt if salt is not None else secrets.token_bytes(12)
    digest = hashlib.pbkdf2_hmac("sha512", password.encode(), salt, iterations)
    return f"$7${iterations}${base64.b64encode(salt).decode()}${base64.b64encode(digest).decode()}"


def check_password(password: str, hashed: str) -> bool:
    """True when ``password`` matches a ``$7$`` hash from :func:`hash_password` or mosquitto_passwd."""
    try:
        _, kind, iterations, salt, _ = hashed.split("$")
        if kind != "7":
            return False
        return hash_password(password, base64.b64decode(salt), int(iterations)) == hashed
    except ValueError:
        return False


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


@dataclass
class BrokerPlan:
    """What to write: the venue, its tables, the listeners and the TLS files.

    :param venue: the venue's name in the topics.
    :param tables: every table id.
    :param floor: the floor people, each with a credential of their own (``floor-<name>``).
    :param local: the plain loopback listener.
    :param network: a TLS listener for the floor network (None: loopback only).
    :param websockets: the browsers' listener (TLS unless on loopback; None: none).
    :param certfile: server certificate (PEM) for TLS listeners.
    :param keyfile: its private key.
    :param persistence: where mosquitto keeps retained messages and sessions (None: in memory).
    :param run_as: the ``user`` mosquitto drops to when started as root (None: its default).
    :param autosave_interval: seconds between saves of the persistence file (a crash loses at most this).
    :param pages: a folder the websockets listener serves over HTTP (``http_dir``): the dashboard and the
        overlay (:func:`shotclock.web.web_dir`); None: no pages.
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
    bridge: "Bridge | None" = None

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
            problems.append("a listener beyond loopback needs TLS: give --certfile and --keyfile")
        ports = [e.port for e in (self.local, self.network, self.websockets) if e is not None]
        if len(set(ports)) != len(ports):
            problems.append("two listeners share a port")
        if self.bridge is not None:
            problems += self.bridge.problems()
        return problems


def bridge_user(room: str) -> str:
    """The MQTT username of a room broker's bridge on the venue broker."""
    return f"bridge-{room}"


def bridge_state_topic(venue: str, room: str) -> str:
    """The bridge's own retained state on both brokers: ``1`` connected, ``0`` not (Mosquitto's
    bridge notification; on the venue broker ``0`` is the bridge's Last Will)."""
    return bridge_topic(venue, room)


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


def bridge_topics(venue: str, tables: list[str]) -> tuple[list[str], list[str]]:
    """(out, in): the topics a room's bridge carries to the venue broker and back.

    Out, per table of the room: what a table publishes (``status``, ``state``, ``event``, ``cmd/ack``).
    In, per table: what is addressed to it (``cmd``, ``cmd/by/+``, ``stored``); for the venue: its commands
    to every table (``cmd``, ``cmd/by/+``) and the collector's retained status. The two lists share no topic,
    so nothing loops back and nothing arrives twice; the venue's own topics (``feature``, ``archive/…``)
    stay on the venue broker.
    """
    out = [table_topic(venue, t, leaf) for t in tables for leaf in ("status", "state", "event", "cmd/ack")]
    into = [t for table in tables for t in (table_topic(venue, table, "cmd"), command_topic(venue, table, "+"),
                                            table_topic(venue, table, "stored"))]
    into += [venue_cmd_topic(venue), command_topic(venue, None, "+"), collector_topic(venue)]
    return out, into


def bridge_text(plan: "BrokerPlan", folder: Path) -> list[str]:
    """The ``connection`` section of a room broker's mosquitto.conf: MQTT 5, a persistent session on both
    sides (``cleansession false``: what a table publishes while the venue broker is away waits in the room
    broker's queue), TLS with the venue's CA, its own credential and client ids only its password can name."""
    from shotclock.adapters.mqtt import private_client_id

    b = plan.bridge
    out, into = bridge_topics(plan.venue, plan.tables)
    lines = ["", f"# The bridge to the venue broker: room {b.room}'s tables there, the floor's commands and the",
             "# archive's answers back here. Its password is below: keep this file readable by mosquitto only.",
             f"connection shotclock-{b.room}",
             f"address {b.venue_broker.host}:{b.venue_broker.port}",
             "bridge_protocol_version mqttv50",
             "cleansession false",
             "local_cleansession false",
             f"remote_clientid {private_client_id(f'shotclock-bridge-{plan.venue}-{b.room}', b.password)}",
             f"local_clientid {private_client_id(f'shotclock-bridge-local-{plan.venue}-{b.room}', b.password)}",
             f"remote_username {bridge_user(b.room)}",
             f"remote_password {b.password}",
             "start_type automatic",
             "# Notice a lost venue broker within seconds; try again after 1 s, at most every 10 s.",
             "keepalive_interval 10",
             "restart_timeout 1 10",
             "notifications true",
             f"notification_topic {bridge_state_topic(plan.venue, b.room)}"]
    if b.cafile:
        lines += [f"bridge_cafile {Path(b.cafile).resolve()}", "bridge_insecure false"]
    lines += [f"topic {t} out 1" for t in out] + [f"topic {t} in 1" for t in into]
    return lines


def floor_user(name: str) -> str:
    """The MQTT username of a floor person."""
    return f"floor-{name}"


def acl_text(venue: str, tables: list[str], floor: list[str] = (), room: str = "") -> str:
    """The ACL file: per table its own topics; the floor reads all and commands (each floor person only under
    their own name); overlay and collector read; the collector alone says what the archive stored."""
    root = venue_root(venue)
    lines = ["# Generated by 'shotclock broker-config'. Only what is listed is allowed.", ""]
    for table in tables:
        lines.append(f"user {table_user(table)}")
        lines += [f"topic write {table_topic(venue, table, leaf)}" for leaf in ("status", "state", "event", "cmd/ack")]
        lines += [f"topic read {table_topic(venue, table, 'cmd')}", f"topic read {venue_cmd_topic(venue)}",
                  f"topic read {table_topic(venue, table, 'stored')}", f"topic read {collector_topic(venue)}",
                  f"topic read {table_topic(venue, table, 'status')}",
                  f"topic read {command_topic(venue, table, '+')}", f"topic read {command_topic(venue, None, '+')}"]
        lines += [f"topic read {bridge_topic(venue, '+')}", ""] if room else [""]  # a room broker: its bridge
    lines += [f"user {FLOOR}", f"topic read {root}/#", f"topic write {all_tables(venue, 'cmd')}",
              f"topic write {venue_cmd_topic(venue)}", f"topic write {command_topic(venue, '+', FLOOR)}",
              f"topic write {command_topic(venue, None, FLOOR)}",
              f"topic write {feature_topic(venue)}", f"topic write {archive_topic(venue, 'get')}", ""]
    for name in floor:  # a command under one's own name only: the device takes the sender from the topic
        user = floor_user(name)
        lines += [f"user {user}", f"topic read {root}/#", f"topic write {command_topic(venue, '+', user)}",
                  f"topic write {command_topic(venue, None, user)}",
                  f"topic write {feature_topic(venue)}", f"topic write {archive_topic(venue, 'get')}", ""]
    lines += [f"user {OVERLAY}", f"topic read {all_tables(venue, 'status')}", f"topic read {all_tables(venue, 'state')}",
              f"topic read {all_tables(venue, 'event')}", f"topic read {feature_topic(venue)}",
              f"topic read {bridge_topic(venue, '+')}", ""]
    lines += [f"user {COLLECTOR}", f"topic read {root}/#", f"topic write {archive_topic(venue, 'reply/#')}",
              f"topic write {all_tables(venue, 'stored')}", f"topic write {collector_topic(venue)}",
              f"topic write {member_topic(venue, '+', '+')}", ""]
    return "\n".join(lines)


def conf_text(plan: BrokerPlan, folder: Path) -> str:
    """mosquitto.conf for ``plan``, with absolute paths into ``folder``."""
    folder = folder.resolve()
    lines = [
        "# Generated by 'shotclock broker-config' for venue " + plan.venue + ". See docs/network.md.",
        "per_listener_settings false",
        "allow_anonymous false",
        f"password_file {folder / 'passwd'}",
        f"acl_file {folder / 'acl'}",
        "# Room for a collector that was away: its persistent session queues this many events.",
        "max_queued_messages 100000",
        "max_packet_size 65536",
        "# Small messages leave at once (Nagle's algorithm would hold each for the last one's ACK).",
        "set_tcp_nodelay true",
        "log_dest stderr",
        "log_type error",
        "log_type warning",
        "log_type notice",
        "connection_messages true",
    ]
    if plan.run_as:
        lines.append(f"user {plan.run_as}")
    if plan.persistence:
        location = Path(plan.persistence)
        location = location if location.is_absolute() else folder / location
        lines += ["persistence true", f"persistence_location {location}/", f"autosave_interval {plan.autosave_interval}"]
    else:
        lines.append("persistence false")
    lines += ["", "# Loopback only, without TLS: tools on this machine.",
              f"listener {plan.local.port} {plan.local.host}"]
    tls = [f"certfile {plan.certfile}", f"keyfile {plan.keyfile}"] if plan.certfile else []
    if plan.network:
        lines += ["", "# The floor network: tables, tablets (TLS).",
                  f"listener {plan.network.port} {plan.network.host}", *tls]
    if plan.websockets:
        lines += ["", "# Browsers: dashboard and broadcast overlay (MQTT over websockets).",
                  f"listener {plan.websockets.port} {plan.websockets.host}", "protocol websockets"]
        if plan.websockets.loopback:
            # Mosquitto 2.0's websockets (libwebsockets) ignore the listener's address and take every
            # interface; binding to the loopback interface keeps this plain listener on this machine.
            lines.append("bind_interface lo")
        else:
            lines += tls
        if plan.pages:
            lines += ["# The pages themselves, from the same address: /dashboard/ and /overlay/.",
                      f"http_dir {Path(plan.pages).resolve()}"]
    if plan.bridge is not None:
        lines += bridge_text(plan, folder)
    lines += plan.extra
    return "\n".join(lines) + "\n"


def _existing_password(path: Path) -> str | None:
    try:
        return tomllib.loads(path.read_text(encoding="utf-8")).get("password")
    except (OSError, tomllib.TOMLDecodeError):
        return None


def write_credentials(path: Path, username: str, password: str) -> None:
    """A credentials file (TOML: username, password) readable by its owner only."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "w", encoding="utf-8") as f:
        f.write(f'# MQTT credentials; point [network] credentials at this file.\n'
                f'username = "{username}"\npassword = "{password}"\n')


def write_broker_config(plan: BrokerPlan, folder: str | Path) -> dict[str, str]:
    """Write mosquitto.conf, passwd, acl and credentials/ into ``folder``; return {user: password}.

    Raises :class:`ShotclockError` listing every problem of the plan.
    """
    problems = plan.problems()
    if problems:
        raise ShotclockError("; ".join(problems))
    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    users = [table_user(t) for t in plan.tables] + [floor_user(n) for n in plan.floor] + [FLOOR, OVERLAY, COLLECTOR]
    gone = [p for p in (folder / "credentials").glob(f"{floor_user('')}*.toml") if p.stem not in users]
    for path in gone:  # a floor person removed: their credential goes; the tables' stay as they were
        path.unlink()
    passwords = {}
    for user in users:
        path = folder / "credentials" / f"{user}.toml"
        passwords[user] = _existing_password(path) or secrets.token_urlsafe(18)
        write_credentials(path, user, passwords[user])
    (folder / "passwd").write_text("".join(f"{u}:{hash_password(p)}\n" for u, p in passwords.items()),
                                   encoding="utf-8")
    os.chmod(folder / "passwd", 0o640)
    (folder / "acl").write_text(acl_text(plan.venue, plan.tables, plan.floor, plan.bridge.room if plan.bridge else ""),
                                encoding="utf-8")
    passwords.update(write_rooms(folder, plan.venue))  # the bridges of rooms added with --bridge-to stay
    if plan.persistence and not Path(plan.persistence).is_absolute():
        (folder / plan.persistence).mkdir(exist_ok=True)
    (folder / "mosquitto.conf").write_text(conf_text(plan, folder), encoding="utf-8")
    if plan.bridge is not None:  # it holds the bridge's password
        os.chmod(folder / "mosquitto.conf", 0o640)
    return passwords


def room_acl_text(venue: str, room: str, tables: list[str]) -> str:
    """A room bridge's block of the venue broker's ACL: exactly what :func:`bridge_topics` carries.

    It may publish only its own room's tables' topics, so a room cannot forge another room's tables;
    within the room, which table may publish what is the room broker's ACL (its tables' own credentials).
    """
    out, into = bridge_topics(venue, tables)
    lines = [f"user {bridge_user(room)}", f"topic write {bridge_state_topic(venue, room)}"]
    lines += [f"topic write {t}" for t in out] + [f"topic read {t}" for t in into]
    return "\n".join(lines) + "\n"


def read_rooms(folder: Path) -> dict[str, list[str]]:
    """{room: its tables} from ``folder/rooms/*.toml`` (written by :func:`add_room`)."""
    rooms = {}
    for path in sorted((folder / "rooms").glob("*.toml")):
        try:
            tables = tomllib.loads(path.read_text(encoding="utf-8")).get("tables")
        except (OSError, tomllib.TOMLDecodeError) as exc:
            raise ShotclockError(f"cannot read {path}: {exc}") from None
        if not isinstance(tables, list) or not all(isinstance(t, str) and not check_name("table id", t)
                                                   for t in tables):
            raise ShotclockError(f"{path}: 'tables' must be a list of table ids")
        rooms[path.stem] = tables
    return rooms


def write_rooms(folder: Path, venue: str) -> dict[str, str]:
    """The venue broker's side of its rooms' bridges: a credential per room in ``credentials/``, its line in
    ``passwd`` and its block at the end of ``acl``, from ``rooms/*.toml``; other lines stay. {user: password}."""
    rooms = read_rooms(folder)
    users = {bridge_user(room) for room in rooms}
    for path in (folder / "credentials").glob(f"{bridge_user('')}*.toml"):
        if path.stem not in users:  # a room removed (its rooms/<room>.toml deleted): its credential goes
            path.unlink()
    passwords = {}
    for room in rooms:
        path = folder / "credentials" / f"{bridge_user(room)}.toml"
        passwords[bridge_user(room)] = _existing_password(path) or secrets.token_urlsafe(18)
        write_credentials(path, bridge_user(room), passwords[bridge_user(room)])
    passwd = folder / "passwd"
    kept = [line for line in passwd.read_text(encoding="utf-8").splitlines(keepends=True)
            if not line.startswith(bridge_user(""))]
    passwd.write_text("".join(kept) + "".join(f"{u}:{hash_password(p)}\n" for u, p in passwords.items()),
                      encoding="utf-8")
    acl = folder / "acl"
    base = acl.read_text(encoding="utf-8").split(ROOMS_MARK)[0].rstrip("\n") + "\n"
    if rooms:
        base += "\n" + ROOMS_MARK + "\n\n" + "\n".join(room_acl_text(venue, r, t) for r, t in rooms.items())
    acl.write_text(base, encoding="utf-8")
    return passwords


def add_room(venue_folder: str | Path, venue: str, room: str, tables: list[str]) -> str:
    """Add (or update) a room on the venue broker whose configuration is in ``venue_folder`` (written by
    ``broker-config`` for the venue broker); return the room bridge's password. A running venue broker
    reads passwd and acl again on SIGHUP."""
    folder = Path(venue_folder)
    if not (folder / "acl").is_file() or not (folder / "passwd").is_file():
        raise ShotclockError(f"--venue-dir {folder}: no acl or passwd there; "
                             "run 'shotclock broker-config' for the venue broker first")
    if f"topic read {venue_root(venue)}/#" not in (folder / "acl").read_text(encoding="utf-8"):
        raise ShotclockError(f"--venue-dir {folder} is the broker configuration of another venue than {venue!r}")
    taken = {t: r for r, ts in read_rooms(folder).items() if r != room for t in ts}
    twice = sorted({t for t in tables if t in taken}, key=lambda t: (len(t), t))
    if twice:
        raise ShotclockError(f"tables already in another room: " +
                             ", ".join(f"{t} (room {taken[t]})" for t in twice[:10]))
    (folder / "rooms").mkdir(exist_ok=True)
    (folder / "rooms" / f"{room}.toml").write_text(
        "# Written by 'shotclock broker-config --bridge-to': the tables of this room's broker. Delete this file\n"
        "# and run broker-config for the venue broker again to remove the room.\n"
        "tables = [" + ", ".join(f'"{t}"' for t in tables) + "]\n", encoding="utf-8")
    return write_rooms(folder, venue)[bridge_user(room)]


def chrony_text(network: str) -> str:
    """A chrony drop-in (``/etc/chrony/conf.d/shotclock.conf``) serving time to ``network`` (a CIDR).

    ``local stratum 8 orphan``: with no upstream server (a venue without internet) this host's own
    clock is still served, so the tables agree with each other and with the floor's commands.
    """
    try:
        net = ipaddress.ip_network(network, strict=False)
    except ValueError:
        raise ShotclockError(f"--time {network!r} must be a network such as 192.168.10.0/24") from None
    return ("# Generated by 'shotclock broker-config --time': this host serves time to the tables.\n"
            "# Install: apt-get install chrony; cp chrony.conf /etc/chrony/conf.d/shotclock.conf;\n"
            "# systemctl restart chrony. Upstream servers stay those of /etc/chrony/chrony.conf.\n"
            f"allow {net}\n"
            "# No upstream reachable (no internet at the venue): serve this host's own clock anyway.\n"
            "local stratum 8 orphan\n")


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


def cmd_broker_config(args) -> int:
    """``shotclock broker-config``: write a venue's Mosquitto configuration."""
    plan = BrokerPlan(
        venue=args.venue, tables=parse_tables(args.tables),
        floor=[n.strip() for n in args.floor.split(",") if n.strip()],
        local=parse_endpoint(args.local, "--local"),
        network=parse_endpoint(args.listen, "--listen") if args.listen else None,
        websockets=parse_endpoint(args.websockets, "--websockets") if args.websockets != "none" else None,
        certfile=args.certfile, keyfile=args.keyfile, run_as=args.run_as,
        pages=None if args.no_pages else str(web_dir()))
    if args.bridge_to:
        plan.bridge = parse_bridge(args)
    else:
        alone = [flag for flag, value in (("--room", args.room), ("--venue-dir", args.venue_dir),
                                          ("--ca-file", args.ca_file)) if value]
        if alone:  # a bridge option without the bridge would be silently ignored
            raise ShotclockError(f"{' and '.join(alone)}: only with --bridge-to HOST (a room broker's bridge)")
    for path in (plan.certfile, plan.keyfile, plan.bridge and plan.bridge.cafile):
        if path and not Path(path).is_file():
            raise ShotclockError(f"no such file: {path}")
    problems = plan.problems()
    if problems:
        raise ShotclockError("; ".join(problems))
    chrony = chrony_text(args.time) if getattr(args, "time", None) else None
    if plan.bridge is not None:  # the venue broker's side first: it holds the bridge's password
        password = add_room(args.venue_dir, plan.venue, plan.bridge.room, plan.tables)
        plan.bridge = replace(plan.bridge, password=password)
    write_broker_config(plan, args.out)
    out = Path(args.out)
    if chrony:
        (out / "chrony.conf").write_text(chrony, encoding="utf-8")
        print(f"wrote {out / 'chrony.conf'}: serves time to {args.time} (cp it to /etc/chrony/conf.d/shotclock.conf)")
    print(f"wrote {out / 'mosquitto.conf'}, passwd, acl and credentials/ for {len(plan.tables)} tables "
          f"of venue {plan.venue!r}")
    if plan.floor:
        print(f"floor credentials: {', '.join(floor_user(n) for n in plan.floor)} (credentials/<user>.toml)")
    if plan.bridge is not None:
        print(f"bridged to {plan.bridge.venue_broker.host}:{plan.bridge.venue_broker.port} as "
              f"{bridge_user(plan.bridge.room)}; the venue broker's passwd and acl in {args.venue_dir} now allow it "
              f"(kill -HUP the venue's mosquitto)")
    print(f"start it with: mosquitto -c {out.resolve() / 'mosquitto.conf'}"
          " (a running one reads passwd and acl again on SIGHUP)")
    return 0


def parse_bridge(args) -> Bridge:
    """The bridge of ``--bridge-to HOST[:PORT] --room NAME --venue-dir DIR [--ca-file PEM]`` (port 8883 by
    default); ShotclockError naming a missing option. The password is filled in from the venue's folder."""
    missing = [flag for flag, value in (("--room", args.room), ("--venue-dir", args.venue_dir)) if not value]
    if missing:
        raise ShotclockError(f"--bridge-to needs {' and '.join(missing)}")
    text = args.bridge_to
    if text.endswith("]") or ":" not in text:  # no port ([::1] for IPv6)
        text += ":8883"
    return Bridge(parse_endpoint(text, "--bridge-to"), args.room, "", args.ca_file)
