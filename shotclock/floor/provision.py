"""``shotclock provision``: one first-boot file per table, for its SD card's boot partition.

Takes each table's credential from the folder ``shotclock broker-config`` wrote (run that first:
the broker must know the same passwords), adds the broker's address, its CA certificate and the
time server, and writes ``DIR/<table>/shotclock-firstboot.toml`` (mode 0600: it holds a secret).
The format and the device's side are in :mod:`shotclock.shell.firstboot`.
"""

from __future__ import annotations

import os
import tomllib
from pathlib import Path

from shotclock.config import KEYS, config_from
from shotclock.core.topics import check_name
from shotclock.errors import ConfigError, ShotclockError
from shotclock.floor.broker_config import parse_endpoint, parse_tables, table_user
from shotclock.shell.firstboot import FILENAME, FirstBoot, hostname_for, render

# What the first-boot file sets itself: a template may not set these.
OWN_KEYS = {"table", "time.server"} | {k for k in KEYS if k.startswith("network.")} - {
    "network.keepalive", "network.command_max_age", "network.state_interval", "network.outbox_max",
    "network.room", "network.section"}  # a template per room names its tables' room


def template_keys(path: str | None) -> dict:
    """The flat configuration keys of a template file (every table gets them); ShotclockError when wrong."""
    if not path:
        return {}
    try:
        data = tomllib.loads(Path(path).read_text(encoding="utf-8"))
    except OSError as exc:
        raise ShotclockError(f"cannot read the template {path}: {exc.strerror}") from None
    except tomllib.TOMLDecodeError as exc:
        raise ShotclockError(f"the template {path} is not valid TOML: {exc}") from None
    flat: dict = {}

    def walk(table: dict, prefix: str) -> None:
        for k, v in table.items():
            if isinstance(v, dict):
                walk(v, f"{prefix}{k}.")
            else:
                flat[f"{prefix}{k}"] = v

    walk(data, "")
    unknown = sorted(k for k in flat if k not in KEYS)
    if unknown:
        raise ShotclockError(f"the template {path} has unknown keys: {', '.join(unknown)}")
    return {k: v for k, v in flat.items() if k not in OWN_KEYS}


def table_password(broker_dir: Path, table: str) -> tuple[str, str]:
    """(username, password) of ``table`` from broker-config's credentials/; ShotclockError when missing."""
    path = broker_dir / "credentials" / f"{table_user(table)}.toml"
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
        return data["username"], data["password"]
    except (OSError, KeyError, tomllib.TOMLDecodeError):
        raise ShotclockError(f"no credential for table {table} in {path.parent}: run 'shotclock broker-config' "
                             f"with this table in --tables first") from None


def write_files(out: Path, tables: list[FirstBoot]) -> list[Path]:
    """Write each table's first-boot file into ``out/<id>/`` (mode 0600); return the paths."""
    paths = []
    for fb in tables:
        folder = out / fb.table_id
        folder.mkdir(parents=True, exist_ok=True)
        path = folder / FILENAME
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            f.write(render(fb))
        os.chmod(path, 0o600)
        paths.append(path)
    return paths


def plan(args) -> list[FirstBoot]:
    """Every table's :class:`FirstBoot` from the command's arguments; ShotclockError naming the first problem."""
    for what, value in (("venue", args.venue),):
        if problem := check_name(what, value):
            raise ShotclockError(problem)
    tables = parse_tables(args.tables)
    if not tables:
        raise ShotclockError("give at least one table (--tables)")
    broker = parse_endpoint(args.broker, "--broker")
    ca = ""
    if args.ca_file:
        try:
            ca = Path(args.ca_file).read_text(encoding="utf-8")
        except OSError as exc:
            raise ShotclockError(f"cannot read the CA certificate {args.ca_file}: {exc.strerror}") from None
        if "-----BEGIN CERTIFICATE-----" not in ca:
            raise ShotclockError(f"{args.ca_file} is not a PEM certificate")
    if "{id}" not in args.names:
        raise ShotclockError("--names must contain {id}, or every table gets the same name")
    config = template_keys(args.template)
    broker_dir = Path(args.broker_dir)
    result = []
    for table in tables:
        if problem := check_name("table id", table):
            raise ShotclockError(problem)
        username, password = table_password(broker_dir, table)
        name = args.names.replace("{id}", table)
        if not 1 <= len(name) <= 40:
            raise ShotclockError(f"the name {name!r} must have 1 to 40 characters")
        fb = FirstBoot(table_id=table, name=name, venue=args.venue, host=broker.host, port=broker.port,
                       username=username, password=password, ca=ca,
                       time_server=args.time_server if args.time_server is not None else broker.host, config=config,
                       hostname="" if args.keep_hostname else hostname_for(table))
        try:  # the device would refuse it at first boot: say so now, on the laptop
            config_from(fb.settings(), f"table {table}'s configuration")
        except ConfigError as exc:
            raise ShotclockError(f"table {table}'s configuration would be wrong: {'; '.join(exc.problems)}") from None
        result.append(fb)
    return result


def cmd_provision(args) -> int:
    """``shotclock provision``: write the first-boot files of a venue's tables."""
    tables = plan(args)
    paths = write_files(Path(args.out), tables)
    print(f"wrote {len(paths)} first-boot files into {Path(args.out)}/<table>/{FILENAME}")
    print(f"copy each onto its table's SD card's boot partition ('bootfs'); see 'Forty tables' in hardware/README.md")
    return 0
