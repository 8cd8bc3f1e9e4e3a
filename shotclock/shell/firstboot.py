"""First-boot provisioning: a table's identity and secrets, from the SD card's boot partition to /etc/shotclock.

``shotclock provision`` (the floor's side, :mod:`shotclock.floor.provision`) writes one small TOML file per
table, ``shotclock-firstboot.toml``; it is copied onto the boot partition (FAT, readable on any laptop)
of that table's card. At the next boot ``shotclock-firstboot.service`` runs ``shotclock firstboot``
as root, before the table's service: it writes the configuration, the credential (owner shotclock,
mode 0600) and the CA certificate into /etc/shotclock, points time sync at the floor, and removes the
file from the boot partition, so no secret stays on the FAT partition, readable by anyone who takes
the card out. Nothing is removed until everything is written and flushed.

The file::

    [table]
    id = "7"                  # the table's id in the topics
    name = "Tafel 7"          # shown on the idle screen
    venue = "hollandcasino"
    hostname = "shotclock-7"  # may be empty: the card keeps its hostname
    [broker]
    host = "floor.local"
    port = 8883
    tls = true
    username = "table-7"
    password = "..."
    ca = "-----BEGIN CERTIFICATE-----..."   # may be empty: the system's CAs
    [time]
    server = "floor.local"    # may be empty
    [config]                  # optional: any other configuration keys (a template for every table)
    preset = "house-29"
"""

from __future__ import annotations

import json
import logging
import os
import pwd
import re
import subprocess
import tomllib
from dataclasses import dataclass, field
from pathlib import Path

from shotclock.config import KEYS, SCHEMA, config_from
from shotclock.errors import ConfigError, ShotclockError

log = logging.getLogger("shotclock.firstboot")

FILENAME = "shotclock-firstboot.toml"
BOOT_DIRS = ("boot/firmware", "boot")  # Raspberry Pi OS bookworm and later; older images
TIMESYNC_CONF = "etc/systemd/timesyncd.conf.d/shotclock.conf"
HOSTNAME = re.compile(r"[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?")


def hostname_for(table_id: str) -> str:
    """The default host name of a table: ``shotclock-<id>``, lower case, '_' as '-'."""
    return f"shotclock-{table_id}".lower().replace("_", "-")[:63].rstrip("-")


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


def toml_text(flat: dict, header: str = "") -> str:
    """Flat configuration keys (``"clock.seconds"``) as a TOML file, top-level keys first, sections in schema order."""
    order = {k.name: i for i, k in enumerate(SCHEMA)}
    keys = sorted(flat, key=lambda k: (("." in k), order.get(k, len(order)), k))
    lines = [f"# {line}" if line else "#" for line in header.splitlines()]
    section = ""
    for key in keys:
        head, _, leaf = key.rpartition(".")
        if head != section:
            lines += ["", f"[{head}]"]
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
             f"hostname = {_str(fb.hostname)}",
             "", "[broker]", f"host = {_str(fb.host)}", f"port = {fb.port}", f"tls = {toml_value(fb.tls)}",
             f"username = {_str(fb.username)}", f"password = {_str(fb.password)}", f"ca = {_str(fb.ca)}",
             "", "[time]", f"server = {_str(fb.time_server)}"]
    if fb.config:
        lines += ["", toml_text({f"config.{k}": v for k, v in fb.config.items()}).strip()]
    return "\n".join(lines) + "\n"


def parse(text: str, source: str) -> FirstBoot:
    """A first-boot file's text as :class:`FirstBoot`; ShotclockError naming the file and every problem."""
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise ShotclockError(f"{source}: not valid TOML ({exc})") from None
    problems = []

    def get(section: str, key: str, types, default=None):
        value = data.get(section, {}).get(key, default)
        if value is None or not isinstance(value, types) or (types is str and not value and default is None):
            problems.append(f"[{section}] {key} is missing or not {types.__name__}")
        return value

    fb = FirstBoot(
        table_id=get("table", "id", str), name=get("table", "name", str), venue=get("table", "venue", str),
        host=get("broker", "host", str), port=get("broker", "port", int), username=get("broker", "username", str),
        password=get("broker", "password", str), ca=get("broker", "ca", str, ""), tls=get("broker", "tls", bool, True),
        time_server=get("time", "server", str, ""), config=_flatten(data.get("config", {})),
        hostname=get("table", "hostname", str, ""))
    unknown = sorted(k for k in fb.config if k not in KEYS)
    if unknown:
        problems.append(f"[config] has unknown keys: {', '.join(unknown)}")
    if fb.hostname and not HOSTNAME.fullmatch(fb.hostname):
        problems.append(f"[table] hostname {fb.hostname!r} must be 1 to 63 letters, digits and '-'")
    if fb.ca and "-----BEGIN CERTIFICATE-----" not in fb.ca:
        problems.append("[broker] ca is not a PEM certificate")
    if problems:
        raise ShotclockError(f"{source}: " + "; ".join(problems))
    return fb


def find(root: Path) -> Path | None:
    """The first-boot file on the boot partition under ``root``, or None."""
    for folder in BOOT_DIRS:
        path = root / folder / FILENAME
        if path.is_file():
            return path
    return None


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
    fb = parse(path.read_text(encoding="utf-8"), str(path))
    etc = root / "etc" / "shotclock"
    config_path = etc / "config.toml"
    flat = {}
    if config_path.exists():
        try:
            flat = _flatten(tomllib.loads(config_path.read_text(encoding="utf-8")))
        except (tomllib.TOMLDecodeError, UnicodeDecodeError) as exc:
            log.warning("the existing %s is not valid TOML (%s): replaced", config_path, exc)
    flat.update(fb.settings(etc="/etc/shotclock"))
    try:
        config_from({k: v for k, v in flat.items() if k in KEYS}, str(path))
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
    done = apply(root)
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
