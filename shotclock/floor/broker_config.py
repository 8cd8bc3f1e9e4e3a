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
"""

from __future__ import annotations

import base64
import hashlib
import ipaddress
import os
import secrets
import tomllib
from dataclasses import dataclass, field
from pathlib import Path

from shotclock.core.topics import (all_tables, archive_topic, check_name, collector_topic, command_topic,
                                   feature_topic, table_topic, venue_cmd_topic, venue_root)
from shotclock.errors import ShotclockError
from shotclock.web import web_dir

FLOOR, OVERLAY, COLLECTOR = "floor", "overlay", "collector"
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
        return problems


def floor_user(name: str) -> str:
    """The MQTT username of a floor person."""
    return f"floor-{name}"


def acl_text(venue: str, tables: list[str], floor: list[str] = ()) -> str:
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
                  f"topic read {command_topic(venue, table, '+')}", f"topic read {command_topic(venue, None, '+')}", ""]
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
              f"topic read {all_tables(venue, 'event')}", f"topic read {feature_topic(venue)}", ""]
    lines += [f"user {COLLECTOR}", f"topic read {root}/#", f"topic write {archive_topic(venue, 'reply/#')}",
              f"topic write {all_tables(venue, 'stored')}", f"topic write {collector_topic(venue)}", ""]
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
    (folder / "acl").write_text(acl_text(plan.venue, plan.tables, plan.floor), encoding="utf-8")
    if plan.persistence and not Path(plan.persistence).is_absolute():
        (folder / plan.persistence).mkdir(exist_ok=True)
    (folder / "mosquitto.conf").write_text(conf_text(plan, folder), encoding="utf-8")
    return passwords


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
    for path in (plan.certfile, plan.keyfile):
        if path and not Path(path).is_file():
            raise ShotclockError(f"no such file: {path}")
    chrony = chrony_text(args.time) if getattr(args, "time", None) else None
    write_broker_config(plan, args.out)
    out = Path(args.out)
    if chrony:
        (out / "chrony.conf").write_text(chrony, encoding="utf-8")
        print(f"wrote {out / 'chrony.conf'}: serves time to {args.time} (cp it to /etc/chrony/conf.d/shotclock.conf)")
    print(f"wrote {out / 'mosquitto.conf'}, passwd, acl and credentials/ for {len(plan.tables)} tables "
          f"of venue {plan.venue!r}")
    if plan.floor:
        print(f"floor credentials: {', '.join(floor_user(n) for n in plan.floor)} (credentials/<user>.toml)")
    print(f"start it with: mosquitto -c {out.resolve() / 'mosquitto.conf'}"
          " (a running one reads passwd and acl again on SIGHUP)")
    return 0
