"""``shotclock provision``: one first-boot file per table, for its SD card's boot partition.

Takes each table's credential from the folder ``shotclock broker-config`` wrote (run that first:
the broker must know the same passwords), adds the broker's address, its CA certificate and the
time server, and writes ``DIR/<table>/shotclock-firstboot.toml`` (mode 0600: it holds a secret).
The format and the device's side are in :mod:`shotclock.shell.firstboot`.

Everything the broker folder knows is checked before a file is written (exit 2, one line): the venue,
every table id, each credential against ``passwd``, the port against the broker's listeners, the host
against the broker's certificate, the CA (parsed; it must have signed that certificate). Without
``--ca-file`` the folder's own CA (``tls/ca.pem`` from ``broker-config --make-certs``) is taken.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import tomllib
from pathlib import Path

from shotclock.config.loading import config_from
from shotclock.config.schema import KEYS, is_key
from shotclock.core.topics import check_name
from shotclock.errors import ConfigError, ShotclockError
from shotclock.floor.broker.passwords import check_password
from shotclock.floor.broker.plan import parse_endpoint, parse_tables, table_user
from shotclock.floor.broker.render import SUMMARY_FILE
from shotclock.input_files import input_problem, read_input_file, read_input_text
from shotclock.shell.firstboot import FILENAME, FirstBoot, ca_problem, credential_check, hostname_for, render

# What the first-boot file sets itself: a template may not set these.
OWN_KEYS = {"table", "time.server"} | {k for k in KEYS if k.startswith("network.")} - {
    "network.keepalive", "network.command_max_age", "network.state_interval", "network.outbox_max",
    "network.room", "network.section"}  # a template per room names its tables' room


def template_keys(path: str | None, keep_own: bool = False) -> dict:
    """The flat configuration keys of a template file (every table gets them); ShotclockError when wrong.

    :param keep_own: also return the keys the first-boot file sets (at their defaults, or the table's name).
    """
    if not path:
        return {}
    text = read_input_text(path, what="template")
    try:
        data = tomllib.loads(text)
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
    unknown = sorted(k for k in flat if not is_key(k))
    if unknown:
        raise ShotclockError(f"the template {path} has unknown keys: {', '.join(unknown)}")
    # A key the first-boot file sets, at a value of its own, would be lost: refused, not dropped. At its
    # default (a template made from config.example.toml) it says nothing and goes.
    # The table's name (a master card's config as the template) gives way to --names, said by cmd_provision.
    own = sorted(k for k in flat if k in OWN_KEYS - {"table"} and flat[k] != KEYS[k].default)
    if own:
        raise ShotclockError(f"the template {path} sets {', '.join(own)}: the first-boot file sets those itself "
                             "(from --venue, --broker, --ca-file, --time-server, --names); remove them")
    return flat if keep_own else {k: v for k, v in flat.items() if k not in OWN_KEYS}


def table_password(broker_dir: Path, table: str) -> tuple[str, str]:
    """(username, password) of ``table`` from broker-config's credentials/; ShotclockError when missing."""
    path = broker_dir / "credentials" / f"{table_user(table)}.toml"
    try:
        data = tomllib.loads(read_input_text(path))
        return data["username"], data["password"]
    except (ShotclockError, KeyError, tomllib.TOMLDecodeError):
        raise ShotclockError(f"no credential for table {table} in {path.parent}: run 'shotclock broker-config' "
                             f"with this table in --tables first") from None


def _openssl(*args: str) -> subprocess.CompletedProcess | None:
    binary = shutil.which("openssl")
    return subprocess.run([binary, *args], capture_output=True, text=True) if binary else None


class BrokerFolder:
    """What a folder from ``shotclock broker-config`` says about the broker (its ``broker.toml``)."""

    def __init__(self, path: Path):
        self.path = path
        summary = path / SUMMARY_FILE
        try:
            data = tomllib.loads(read_input_file(summary).decode("utf-8"))
        except FileNotFoundError:
            raise ShotclockError(f"--broker-dir {path}: no {SUMMARY_FILE} there: not a folder 'shotclock broker-config' "
                                 "wrote (an older one: run broker-config again, it keeps every password)") from None
        except (OSError, UnicodeDecodeError) as exc:
            raise ShotclockError(f"{summary}: {input_problem(exc, 'summary of broker-config')}") from None
        except tomllib.TOMLDecodeError as exc:
            raise ShotclockError(f"{summary}: not valid TOML: {exc}") from None
        self.venue = str(data.get("venue", ""))
        self.tables = [str(t) for t in data.get("tables", [])]
        self.listen = parse_endpoint(data["listen"], "listen") if data.get("listen") else None
        self.local = parse_endpoint(data["local"], "local") if data.get("local") else None
        self.certfile = Path(data["certfile"]) if data.get("certfile") else None
        self.hashes = {}
        for line in read_input_text(path / "passwd", what="password file").splitlines():
            user, _, hashed = line.partition(":")
            self.hashes[user] = hashed

    def check_venue_and_tables(self, venue: str, tables: list[str]) -> None:
        """ShotclockError when the folder is another venue's, or lacks one of ``tables``."""
        if venue != self.venue:
            raise ShotclockError(f"--venue {venue}: the broker folder {self.path} is for venue {self.venue!r}; "
                                 "its tables would never appear")
        missing = [t for t in tables if t not in self.tables]
        if missing:
            shown = ", ".join(missing[:10]) + (" ..." if len(missing) > 10 else "")
            raise ShotclockError(f"tables {shown} are not in the broker folder {self.path}: run 'shotclock "
                                 "broker-config' with them in --tables first")

    def check_credential(self, table: str, username: str, password: str) -> None:
        """ShotclockError when ``credentials/`` no longer matches ``passwd`` (the broker would refuse it)."""
        if not check_password(password, self.hashes.get(username, "")):
            raise ShotclockError(f"table {table}'s credential in {self.path / 'credentials'} does not match "
                                 f"{self.path / 'passwd'}: run 'shotclock broker-config' again")

    def check_address(self, host: str, port: int) -> None:
        """ShotclockError when no listener of the broker takes tables at ``host:port``, or its certificate
        is not for ``host``."""
        loopback = parse_endpoint(f"{host}:{port}", "--broker").loopback
        ports = [e.port for e in (self.listen, self.local if loopback else None) if e is not None]
        if self.listen is None and not loopback:
            raise ShotclockError(f"the broker folder {self.path} has no listener beyond loopback: run broker-config "
                                 "with --listen 0.0.0.0:8883 for the tables")
        if port not in ports:
            raise ShotclockError(f"--broker {host}:{port}: the broker takes tables on port "
                                 f"{' or '.join(map(str, ports))}, not {port}")
        if self.certfile is None or loopback:
            return
        flag = "-checkip" if host.replace(".", "").isdigit() or ":" in host else "-checkhost"
        done = _openssl("x509", "-noout", "-in", str(self.certfile), flag, host)
        if done is not None and "does NOT match" in done.stdout:
            raise ShotclockError(f"--broker {host}: the broker's certificate ({self.certfile}) is not for {host}; "
                                 "the tables would refuse it (give a name it has, or make it for this one)")

    def default_ca(self) -> Path | None:
        """The folder's own CA (``broker-config --make-certs``), if it has one."""
        ca = self.path / "tls" / "ca.pem"
        return ca if ca.is_file() else None

    def check_ca(self, ca: Path) -> None:
        """ShotclockError when ``ca`` did not sign the broker's certificate."""
        if self.certfile is None or not self.certfile.is_file():
            return
        done = _openssl("verify", "-CAfile", str(ca), str(self.certfile))
        if done is not None and done.returncode != 0:
            raise ShotclockError(f"--ca-file {ca} did not sign the broker's certificate {self.certfile}: the tables "
                                 "would refuse the broker")


def write_files(out: Path, tables: list[FirstBoot]) -> list[Path]:
    """Write each table's first-boot file into ``out/<id>/`` (mode 0600); return the paths.

    Never through a link: provision runs as root (it reads the broker's folder), and a link planted at
    ``out/7`` or at its file would have it write a table's password over any file. Checked for every table
    before the first is written; ShotclockError naming the entry."""
    for fb in tables:
        folder, file = out / fb.table_id, out / fb.table_id / FILENAME
        for path, what, fits in ((folder, "a folder", Path.is_dir), (file, "a file", Path.is_file)):
            problem = ("a symbolic link" if path.is_symlink() else
                       f"not {what}" if os.path.lexists(path) and not fits(path) else None)
            if problem:
                raise ShotclockError(f"{path} is {problem}: provision writes no first-boot file through it (remove "
                                     "it, or give another folder)")
    paths = []
    for fb in tables:
        folder = out / fb.table_id
        folder.mkdir(parents=True, exist_ok=True)
        path = folder / FILENAME
        try:
            fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC | os.O_NOFOLLOW, 0o600)
        except OSError as exc:
            raise ShotclockError(f"cannot write {path}: {exc.strerror}") from None
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            os.fchmod(f.fileno(), 0o600)
            f.write(render(fb))
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
    for table in tables:
        if problem := check_name("table id", table):
            raise ShotclockError(problem)
    folder = BrokerFolder(Path(args.broker_dir))
    folder.check_venue_and_tables(args.venue, tables)
    folder.check_address(broker.host, broker.port)
    ca = ""
    ca_path = Path(args.ca_file) if args.ca_file else folder.default_ca()
    if ca_path is not None:
        ca = read_input_text(ca_path, what="CA certificate")
        if problem := ca_problem(ca):
            raise ShotclockError(f"{ca_path} {problem}")
        folder.check_ca(ca_path)
    if "{id}" not in args.names:
        raise ShotclockError("--names must contain {id}, or every table gets the same name")
    config = template_keys(args.template)
    result = []
    for table in tables:
        username, password = table_password(folder.path, table)
        folder.check_credential(table, username, password)
        name = args.names.replace("{id}", table)
        if not 1 <= len(name) <= 40:
            raise ShotclockError(f"the name {name!r} must have 1 to 40 characters")
        fb = FirstBoot(table_id=table, name=name, venue=args.venue, host=broker.host, port=broker.port,
                       username=username, password=password, ca=ca,
                       time_server=args.time_server if args.time_server is not None else broker.host, config=config,
                       hostname="" if args.keep_hostname else hostname_for(table),
                       check=credential_check(args.venue, table, password))
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
    if args.template and "table" in template_keys(args.template, keep_own=True):
        print(f"the template's table name gives way to --names {args.names!r}")
    if tables[0].ca and not args.ca_file:
        print(f"the tables trust the broker folder's CA, {Path(args.broker_dir) / 'tls' / 'ca.pem'}")
    print(f"copy each onto its table's SD card's boot partition ('bootfs'); see 'Forty tables' in hardware/README.md")
    return 0
