"""First-boot provisioning: a table's identity and secrets, from the SD card's boot partition to /etc/shotclock.

``shotclock provision`` (the floor's side, :mod:`shotclock.floor.provision`) writes one small TOML file per
table, ``shotclock-firstboot.toml``; it is copied onto the boot partition (FAT, readable on any laptop)
of that table's card. At the next boot ``shotclock-firstboot.service`` runs ``shotclock firstboot``
as root, before the table's service: it writes the configuration, the credential (owner shotclock,
mode 0600) and the CA certificate into /etc/shotclock, points time sync at the floor, and removes the
file from the boot partition, so no secret stays on the FAT partition, readable by anyone who takes
the card out. Nothing is removed until everything is written and flushed.

A file that cannot be taken stays where it is, and its one-line reason goes to
``/etc/shotclock/firstboot-failed.txt`` (:data:`FAILED`): the table's screen shows it from the service's
start (:func:`failure`) and ``shotclock selftest`` fails on it, until a first-boot file is taken.
A card that already is a table takes no other identity (another id or venue) unless the file says
``replace = true``.

The file::

    [table]
    id = "7"                  # the table's id in the topics
    replace = true            # optional, by hand: this card was another table (or venue) and becomes this one
    name = "Tafel 7"          # shown on the idle screen
    venue = "hollandcasino"
    hostname = "shotclock-7"  # may be empty: the card keeps its hostname
    [broker]
    host = "floor.local"
    port = 8883
    tls = true
    username = "table-7"      # must be table-<id>: a credential of another table is refused
    password = "..."
    check = "..."             # from provision: ties the password to this venue and id (credential_check)
    ca = "-----BEGIN CERTIFICATE-----..."   # may be empty: the system's CAs
    [time]
    server = "floor.local"    # may be empty
    [config]                  # optional: any other configuration keys (a template for every table)
    preset = "house-29"
"""

from __future__ import annotations

import hashlib
import json
import logging
import os
import pwd
import re
import ssl
import subprocess
import tomllib
from dataclasses import dataclass, field
from pathlib import Path

from shotclock.config.loading import config_from
from shotclock.config.schema import SCHEMA, is_key
from shotclock.errors import ConfigError, ShotclockError
from shotclock.input_files import input_problem, read_input_file

log = logging.getLogger("shotclock.firstboot")

FILENAME = "shotclock-firstboot.toml"
BOOT_DIRS = ("boot/firmware", "boot")  # Raspberry Pi OS bookworm and later; older images
TIMESYNC_CONF = "etc/systemd/timesyncd.conf.d/shotclock.conf"
FAILED = "etc/shotclock/firstboot-failed.txt"  # under the root: why the last first-boot file was not taken
SYSTEM_ROOT = Path("/")  # where the device and selftest look for it (tests point it elsewhere)
HOSTNAME = re.compile(r"[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?")


def hostname_for(table_id: str) -> str:
    """The default host name of a table: ``shotclock-<id>``, lower case, '_' as '-'."""
    return f"shotclock-{table_id}".lower().replace("_", "-")[:63].rstrip("-")


def table_login(table_id: str) -> str:
    """The MQTT username of table ``table_id`` (as ``shotclock broker-config`` names it)."""
    return f"table-{table_id}"


def credential_check(venue: str, table_id: str, password: str) -> str:
    """16 hex digits that tie ``password`` to this venue and table id, written by ``provision``.

    Not a secret and no signature: it catches a password copied from another table's file (a mix-up
    that would connect and then be refused everything), which the username alone cannot show.
    """
    text = "\0".join(("shotclock credential check", venue, table_id, password))
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()[:16]


def ca_problem(text: str) -> str | None:
    """Why ``text`` is not a PEM certificate TLS can use (parsed, not searched for a marker), or None."""
    if "-----BEGIN CERTIFICATE-----" not in text:
        return "is not a PEM certificate"
    try:
        ssl.create_default_context().load_verify_locations(cadata=text)
    except (ssl.SSLError, ValueError) as exc:
        return f"is not a certificate TLS can read ({getattr(exc, 'reason', None) or exc})"
    return None


@dataclass(frozen=True)
class FirstBoot:
    """What one table's first-boot file holds.

    :param table_id: the table's id in the topics.
    :param name: its name on the idle screen.
    :param venue: the venue's name in the topics.
    :param host: the broker's host name or address.
    :param port: the broker's port.
    :param username: the table's MQTT username.
    :param password: its password (the secret).
    :param ca: the broker's CA certificate (PEM text); empty: the system's CAs.
    :param tls: TLS to the broker.
    :param time_server: the NTP server; empty: the system's default.
    :param config: further configuration keys, flat (``{"clock.seconds": 30}``).
    :param hostname: the Pi's new host name (cards cloned from one master all start with the same); empty: kept.
    :param check: :func:`credential_check` of the password (empty: a file from before it, checked by username).
    :param replace: the installer's word that a card which already is another table becomes this one.
    """

    table_id: str
    name: str
    venue: str
    host: str
    port: int
    username: str
    password: str
    ca: str = ""
    tls: bool = True
    time_server: str = ""
    config: dict = field(default_factory=dict)
    hostname: str = ""
    check: str = ""
    replace: bool = False

    def settings(self, etc: str = "/etc/shotclock") -> dict:
        """The configuration keys this file sets (flat), with the files at their places under ``etc``."""
        values = dict(self.config)
        values.update({
            "table": self.name, "network.enabled": True, "network.host": self.host, "network.port": self.port,
            "network.tls": self.tls, "network.venue": self.venue, "network.table_id": self.table_id,
            "network.credentials": f"{etc}/credentials.toml",
            "network.ca_file": f"{etc}/ca.pem" if self.ca else "",
            "time.server": self.time_server,
        })
        return values


def _str(value) -> str:
    return json.dumps(value, ensure_ascii=False)  # a JSON string is a TOML basic string


def toml_value(value) -> str:
    """One configuration value as TOML (the schema's types: str, int, float, bool)."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, str):
        return _str(value)
    return repr(value)


def toml_text(flat: dict, header: str = "", table: str = "") -> str:
    """Flat configuration keys (``"clock.seconds"``) as a TOML file, top-level keys first, sections in schema order,
    each section's header once; with ``table``, all of it under that table (``[config]``, ``[config.sound]``).

    Example::

        >>> print(toml_text({"pins.floor": 4, "preset": "tda-2024", "language": "en"}, table="config"))
        [config]
        preset = "tda-2024"
        language = "en"
        <BLANKLINE>
        [config.pins]
        floor = 4
        <BLANKLINE>
    """
    order = {k.name: i for i, k in enumerate(SCHEMA)}
    rank: dict[str, int] = {}  # a section's place: its first key's in the schema
    for key in flat:
        head = key.rpartition(".")[0]
        rank[head] = min(rank.get(head, len(order)), order.get(key, len(order)))
    keys = sorted(flat, key=lambda k: (k.rpartition(".")[0] != "", rank[k.rpartition(".")[0]], k.rpartition(".")[0],
                                       order.get(k, len(order)), k))
    lines = [f"# {line}" if line else "#" for line in header.splitlines()]
    section = None
    for key in keys:
        head, _, leaf = key.rpartition(".")
        if head != section:
            name = ".".join(part for part in (table, head) if part)
            if name:
                lines += ["", f"[{name}]"] if lines else [f"[{name}]"]
            section = head
        lines.append(f"{leaf} = {toml_value(flat[key])}")
    return "\n".join(lines) + "\n"


def _flatten(table: dict, prefix: str = "") -> dict:
    flat = {}
    for k, v in table.items():
        if isinstance(v, dict):
            flat.update(_flatten(v, f"{prefix}{k}."))
        else:
            flat[f"{prefix}{k}"] = v
    return flat


def render(fb: FirstBoot) -> str:
    """The text of a first-boot file."""
    lines = ["# shotclock first-boot file (written by 'shotclock provision'). Copy it onto the boot partition of",
             f"# table {fb.table_id}'s SD card; the first boot moves it into /etc/shotclock and deletes it here.",
             "", "[table]", f"id = {_str(fb.table_id)}", f"name = {_str(fb.name)}", f"venue = {_str(fb.venue)}",
             f"hostname = {_str(fb.hostname)}", *(["replace = true"] if fb.replace else []),
             "", "[broker]", f"host = {_str(fb.host)}", f"port = {fb.port}", f"tls = {toml_value(fb.tls)}",
             f"username = {_str(fb.username)}", f"password = {_str(fb.password)}",
             *([f"check = {_str(fb.check)}"] if fb.check else []), f"ca = {_str(fb.ca)}",
             "", "[time]", f"server = {_str(fb.time_server)}"]
    if fb.config:
        lines += ["", toml_text(fb.config, table="config").strip()]
    return "\n".join(lines) + "\n"


def parse(text: str, source: str) -> FirstBoot:
    """A first-boot file's text as :class:`FirstBoot`; ShotclockError naming the file and every problem."""
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise ShotclockError(f"{source}: not valid TOML ({exc})") from None
    problems = []

    def get(section: str, key: str, types, default=None):
        table = data.get(section, {})
        value = table.get(key, default) if isinstance(table, dict) else None
        if value is None or not isinstance(value, types) or (types is str and not value and default is None):
            problems.append(f"[{section}] {key} is missing or not {types.__name__}")
        return value

    fb = FirstBoot(
        table_id=get("table", "id", str), name=get("table", "name", str), venue=get("table", "venue", str),
        host=get("broker", "host", str), port=get("broker", "port", int), username=get("broker", "username", str),
        password=get("broker", "password", str), ca=get("broker", "ca", str, ""), tls=get("broker", "tls", bool, True),
        time_server=get("time", "server", str, ""), config=_flatten(data.get("config", {})),
        hostname=get("table", "hostname", str, ""), check=get("broker", "check", str, ""),
        replace=get("table", "replace", bool, False))
    unknown = sorted(k for k in fb.config if not is_key(k))
    if unknown:
        problems.append(f"[config] has unknown keys: {', '.join(unknown)}")
    if fb.hostname and not HOSTNAME.fullmatch(fb.hostname):
        problems.append(f"[table] hostname {fb.hostname!r} must be 1 to 63 letters, digits and '-'")
    if isinstance(fb.ca, str) and fb.ca and (problem := ca_problem(fb.ca)):
        problems.append(f"[broker] ca {problem}")
    if not problems:
        problems += identity_problems(fb)
    if problems:
        raise ShotclockError(f"{source}: " + "; ".join(problems))
    return fb


def identity_problems(fb: FirstBoot) -> list[str]:
    """Whether the credential belongs to the table the file names: its username, and its check value."""
    if fb.username != table_login(fb.table_id):
        return [f"[broker] username {fb.username!r} is not table {fb.table_id}'s login ({table_login(fb.table_id)}): "
                "the credential belongs to another table"]
    if fb.check and fb.check != credential_check(fb.venue, fb.table_id, fb.password):
        return [f"[broker] password is not table {fb.table_id}'s of venue {fb.venue} (its check value differs): "
                "copy the file 'shotclock provision' wrote for this table"]
    return []


FILE_MAX = 1_000_000  # bytes: a first-boot file is about 3 kB (its CA the most of it)


def find(root: Path) -> Path | None:
    """The first-boot file on the boot partition under ``root``, or None. Whatever bears its name counts (a
    folder, a link, a FIFO): :func:`apply` refuses it in one line rather than boot as if there were none."""
    for folder in BOOT_DIRS:
        path = root / folder / FILENAME
        if os.path.lexists(path):
            return path
    return None


def read_file(path: Path) -> str:
    """The first-boot file's text: a regular file (not a link: it is removed once taken) of at most FILE_MAX
    bytes, UTF-8; else ShotclockError naming it."""
    try:
        return read_input_file(path, FILE_MAX, follow_links=False).decode("utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise ShotclockError(f"{path}: {input_problem(exc, 'first-boot file')}; copy the file 'shotclock provision' "
                             "wrote") from None


def _write(path: Path, text: str, mode: int, owner: tuple[int, int] | None) -> None:
    """Write ``path`` whole or not at all (a temporary file renamed over it), flushed to the disk."""
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f".{path.name}.tmp")
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, mode)
    try:
        os.fchmod(fd, mode)  # the umask must not widen or narrow it
        if owner is not None:
            os.fchown(fd, *owner)
        os.write(fd, text.encode())
        os.fsync(fd)
    finally:
        os.close(fd)
    os.replace(tmp, path)


def _sync_dir(path: Path) -> None:
    fd = os.open(path, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def service_owner(user: str = "shotclock") -> tuple[int, int] | None:
    """(uid, gid) of the service's user, or None when there is no such user."""
    try:
        entry = pwd.getpwnam(user)
    except KeyError:
        return None
    return entry.pw_uid, entry.pw_gid


def apply(root: Path = Path("/"), owner: tuple[int, int] | None = None) -> tuple[FirstBoot, Path] | None:
    """Take the first-boot file under ``root``: write /etc/shotclock, time sync, then delete the file.

    Keeps every key of an existing config.toml that the file does not set. Returns (what it held,
    where it was), or None when there is none. Raises ShotclockError (the file stays) when the file
    or the configuration it makes is wrong.

    :param root: the system's root (a temporary folder in tests).
    :param owner: (uid, gid) for the secret's file; None: the ``shotclock`` user's, else the caller's.
    """
    path = find(root)
    if path is None:
        return None
    fb = parse(read_file(path), str(path))
    etc = root / "etc" / "shotclock"
    config_path = etc / "config.toml"
    flat = {}
    if config_path.exists():
        try:
            flat = _flatten(tomllib.loads(config_path.read_text(encoding="utf-8")))
        except (tomllib.TOMLDecodeError, UnicodeDecodeError) as exc:
            log.warning("the existing %s is not valid TOML (%s): replaced", config_path, exc)
    if flat.get("network.enabled") is True and not fb.replace:
        was = (str(flat.get("network.table_id", "")), str(flat.get("network.venue", "")))
        if was != (fb.table_id, fb.venue):
            raise ShotclockError(f"{path}: this card already is table {was[0]} of venue {was[1]}; the file would make "
                                 f"it table {fb.table_id} of venue {fb.venue}: add 'replace = true' under [table] "
                                 "to change its identity")
    flat.update(fb.settings(etc="/etc/shotclock"))
    try:
        config_from({k: v for k, v in flat.items() if is_key(k)}, str(path))
    except ConfigError as exc:
        raise ShotclockError(f"{path}: the configuration it makes is wrong: {'; '.join(exc.problems)}") from None
    owner = owner if owner is not None else service_owner()
    etc.mkdir(parents=True, exist_ok=True)
    _write(etc / "credentials.toml", f"# MQTT credentials of table {fb.table_id} (from the first-boot file).\n"
           f"username = {_str(fb.username)}\npassword = {_str(fb.password)}\n", 0o600, owner)
    if fb.ca:
        _write(etc / "ca.pem", fb.ca if fb.ca.endswith("\n") else fb.ca + "\n", 0o644, None)
    _write(config_path, toml_text(flat, f"shotclock configuration of table {fb.table_id} ({fb.name}), venue "
                                        f"{fb.venue}.\nWritten at first boot from {FILENAME}; edit freely."),
           0o644, None)
    if fb.time_server:
        _write(root / TIMESYNC_CONF, "# Written by 'shotclock firstboot': the floor serves time.\n"
               f"[Time]\nNTP={fb.time_server}\nFallbackNTP=\n", 0o644, None)
    if fb.hostname:
        set_hostname(root, fb.hostname)
    _sync_dir(etc)
    path.unlink()  # only now: everything it held is on the root file system
    _sync_dir(path.parent)
    return fb, path


def set_hostname(root: Path, name: str) -> None:
    """Write /etc/hostname and the 127.0.1.1 line of /etc/hosts under ``root``."""
    _write(root / "etc" / "hostname", name + "\n", 0o644, None)
    hosts = root / "etc" / "hosts"
    lines = hosts.read_text().splitlines() if hosts.exists() else ["127.0.0.1\tlocalhost"]
    lines = [line for line in lines if not line.startswith("127.0.1.1")] + [f"127.0.1.1\t{name}"]
    _write(hosts, "\n".join(lines) + "\n", 0o644, None)


def _best_effort(*cmd: str) -> None:
    try:
        subprocess.run(cmd, check=False, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, timeout=60)
    except (OSError, subprocess.TimeoutExpired):
        log.warning("could not run %s: it takes effect at the next boot", " ".join(cmd))


def cmd_firstboot(args) -> int:
    """``shotclock firstboot``: apply the first-boot file, if there is one (run by shotclock-firstboot.service)."""
    root = Path(args.root)
    try:
        done = apply(root)
    except ShotclockError as exc:
        record_failure(root, str(exc))
        raise
    record_failure(root, None)
    if done is None:
        print(f"firstboot: no {FILENAME} in {' or '.join(str(root / d) for d in BOOT_DIRS)}: nothing to do")
        return 0
    fb, path = done
    if root == Path("/"):
        # These started before this unit could run: they must take the new values now.
        if fb.hostname:
            _best_effort("hostname", fb.hostname)
            _best_effort("systemctl", "try-restart", "avahi-daemon.service")  # name.local on the network
        if fb.time_server:
            _best_effort("systemctl", "try-restart", "systemd-timesyncd.service")
    print(f"firstboot: this is table {fb.table_id} ({fb.name}) of venue {fb.venue}, broker {fb.host}:{fb.port}; "
          f"wrote {root / 'etc/shotclock'}, removed {path}")
    return 0


def record_failure(root: Path, problem: str | None) -> None:
    """Write (or, with None, remove) :data:`FAILED` under ``root``: what the screen and selftest show."""
    path = root / FAILED
    if problem is None:
        path.unlink(missing_ok=True)
        return
    try:
        _write(path, problem.replace("\n", " ") + "\n", 0o644, None)
    except OSError as exc:  # a read-only root: the journal still has the line
        log.warning("cannot write %s: %s", path, exc)


def failure(root: Path = Path("/")) -> str | None:
    """Why the last first-boot file was not taken (:data:`FAILED`), or None."""
    try:
        return (root / FAILED).read_text(encoding="utf-8", errors="replace").strip() or None
    except OSError:
        return None
