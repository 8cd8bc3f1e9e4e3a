"""Writing a venue broker's folder: credentials, passwd, acl, the client-id bindings, rooms, the unit.

Running again keeps every existing password, so adding a table or a room changes no other.
"""

from __future__ import annotations

import grp
import os
import pwd
import tomllib
from pathlib import Path

from shotclock.core.topics import check_name, venue_root
from shotclock.errors import ShotclockError
from shotclock.floor.broker.passwords import hash_password, new_password
from shotclock.floor.broker.plan import COLLECTOR, FLOOR, OVERLAY, BrokerPlan, bridge_user, floor_user, table_user
from shotclock.floor.broker.build import PLUGIN_FILE
from shotclock.floor.broker.render import (BINDINGS_FILE, SUMMARY_FILE, UNIT_FILE, acl_text, bindings_text, conf_text,
                                           room_acl_text, summary_text, unit_text)

ROOMS_MARK = "# Bridged rooms (shotclock broker-config --bridge-to): each room broker's bridge, its tables only."
# What mosquitto itself reads (its group gets them) and where it writes.
BROKER_READS = ("mosquitto.conf", "passwd", "acl", BINDINGS_FILE, PLUGIN_FILE, "tls/server.key")  # certificates: public


def _existing_password(path: Path) -> str | None:
    try:
        return tomllib.loads(path.read_text(encoding="utf-8")).get("password")
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError):
        return None


def write_credentials(path: Path, username: str, password: str) -> None:
    """A credentials file (TOML: username, password) readable by its owner only."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "w", encoding="utf-8") as f:
        f.write(f'# MQTT credentials; point [network] credentials at this file.\n'
                f'username = "{username}"\npassword = "{password}"\n')


def _passwords(folder: Path, users: list[str]) -> dict[str, str]:
    """{user: password}: each kept from credentials/<user>.toml, or new (and written there)."""
    passwords = {}
    for user in users:
        path = folder / "credentials" / f"{user}.toml"
        passwords[user] = _existing_password(path) or new_password()
        write_credentials(path, user, passwords[user])
    return passwords


def _write(path: Path, text: str, mode: int = 0o644) -> None:
    path.write_text(text, encoding="utf-8")
    os.chmod(path, mode)


def write_bindings(folder: Path, venue: str) -> None:
    """``client-ids``: the client id of every table and room bridge that ``passwd`` lists, and the local client
    id of this broker's own bridge (in its ``mosquitto.conf``), which no login may name."""
    users = [line.split(":", 1)[0] for line in (folder / "passwd").read_text(encoding="utf-8").splitlines() if line]
    passwords = {u: p for u in users if (p := _existing_password(folder / "credentials" / f"{u}.toml"))}
    conf = folder / "mosquitto.conf"
    conf_lines = conf.read_text(encoding="utf-8").splitlines() if conf.is_file() else []
    local = [line.split()[1] for line in conf_lines if line.startswith("local_clientid ") and len(line.split()) == 2]
    _write(folder / BINDINGS_FILE, bindings_text(venue, passwords, local), 0o640)


def give_to_broker(folder: Path, user: str) -> bool:
    """As root: give ``user``'s group read access to what mosquitto reads, and ``user`` its data folder.

    Returns False (nothing changed) when not root or there is no such user; then the caller says how.
    """
    if os.geteuid() != 0 or user == "root":
        return False
    try:
        entry = pwd.getpwnam(user)
    except KeyError:
        return False
    for name in BROKER_READS:
        path = folder / name
        if path.exists():
            os.chown(path, 0, entry.pw_gid)
            os.chmod(path, 0o640)
    data = folder / "data"
    if data.is_dir():
        for path in [data, *data.rglob("*")]:
            os.chown(path, entry.pw_uid, entry.pw_gid)
    return True


def broker_user(plan: BrokerPlan) -> tuple[str, str]:
    """(user, group) the broker runs as: ``--run-as``, else Debian's ``mosquitto``."""
    user = plan.run_as or "mosquitto"
    try:
        group = grp.getgrgid(pwd.getpwnam(user).pw_gid).gr_name
    except KeyError:
        group = user
    return user, group


def write_broker_config(plan: BrokerPlan, folder: str | Path) -> dict[str, str]:
    """Write mosquitto.conf, passwd, acl, the bindings, credentials/ and the unit into ``folder``;
    return {user: password}.

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
    passwords = _passwords(folder, users)
    _write(folder / "passwd", "".join(f"{u}:{hash_password(p)}\n" for u, p in passwords.items()), 0o640)
    _write(folder / "acl", acl_text(plan.venue, plan.tables, plan.floor, plan.bridge.room if plan.bridge else ""))
    passwords.update(write_rooms(folder, plan.venue))  # the bridges of rooms added with --bridge-to stay
    if plan.persistence and not Path(plan.persistence).is_absolute():
        (folder / plan.persistence).mkdir(exist_ok=True)
    # 0640 with a bridge: it holds the bridge's password
    _write(folder / "mosquitto.conf", conf_text(plan, folder), 0o640 if plan.bridge is not None else 0o644)
    write_bindings(folder, plan.venue)  # after mosquitto.conf: it names this broker's own bridge's local client id
    _write(folder / UNIT_FILE, unit_text(plan.venue, folder, *broker_user(plan)))
    _write(folder / SUMMARY_FILE, summary_text(plan))
    return passwords


def read_rooms(folder: Path) -> dict[str, list[str]]:
    """{room: its tables} from ``folder/rooms/*.toml`` (written by :func:`add_room`)."""
    rooms = {}
    for path in sorted((folder / "rooms").glob("*.toml")):
        try:
            tables = tomllib.loads(path.read_text(encoding="utf-8")).get("tables")
        except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError) as exc:
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
    passwords = _passwords(folder, [bridge_user(room) for room in rooms])
    passwd = folder / "passwd"
    kept = [line for line in passwd.read_text(encoding="utf-8").splitlines(keepends=True)
            if not line.startswith(bridge_user(""))]
    _write(passwd, "".join(kept) + "".join(f"{u}:{hash_password(p)}\n" for u, p in passwords.items()), 0o640)
    acl = folder / "acl"
    base = acl.read_text(encoding="utf-8").split(ROOMS_MARK)[0].rstrip("\n") + "\n"
    if rooms:
        base += "\n" + ROOMS_MARK + "\n\n" + "\n".join(room_acl_text(venue, r, t) for r, t in rooms.items())
    acl.write_text(base, encoding="utf-8")
    return passwords


def add_room(venue_folder: str | Path, venue: str, room: str, tables: list[str]) -> str:
    """Add (or update) a room on the venue broker whose configuration is in ``venue_folder`` (written by
    ``broker-config`` for the venue broker); return the room bridge's password. A running venue broker
    reads passwd, acl and the client-id bindings again on SIGHUP."""
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
    password = write_rooms(folder, venue)[bridge_user(room)]
    write_bindings(folder, venue)
    return password
