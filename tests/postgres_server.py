"""A real PostgreSQL for tests: Debian's server, a cluster made by ``initdb`` in a temporary folder.

Use the ``postgres`` fixture (conftest.py: one server for the whole run, a new database per test), or in a script::

    with PostgresServer() as server:
        url = server.database("rulings")   # postgresql://shotclock@127.0.0.1:PORT/rulings
        server.kill(); server.start()      # a crash and a restart on the same port and data

PostgreSQL refuses to run as root, and the tests do: as root the cluster belongs to ``nobody`` and the server
runs as that user. It listens on a free loopback port and on a Unix socket in its own folder, with ``trust``
for local connections (a test cluster nobody else can reach). ``./dev`` installs Debian's postgresql when run
as root; without it (or without psycopg) these tests are skipped, except under CI (``CI`` set), where they fail.
"""

from __future__ import annotations

import glob
import os
import pwd
import shutil
import signal
import subprocess
import tempfile
import uuid
from pathlib import Path

from helpers import wait_until
from mqtt_broker import free_port, missing

START_TIMEOUT = 60.0  # bounds a hang only: a loaded 2-core machine can take seconds
SUPERUSER = "shotclock"


def postgres_bin() -> Path | None:
    """Debian's server binaries (``/usr/lib/postgresql/<version>/bin``), the newest, or None."""
    found = sorted(glob.glob("/usr/lib/postgresql/*/bin/initdb"), key=lambda p: int(p.split("/")[4]))
    return Path(found[-1]).parent if found else None


def require_postgres() -> Path:
    """The server's binaries, with psycopg importable, or skip the test (fail it under CI)."""
    where = postgres_bin()
    if where is None:
        missing("PostgreSQL is not installed (./dev installs Debian's postgresql when run as root)")
    try:
        import psycopg  # noqa: F401
    except ImportError:
        missing("psycopg is not installed (pip install -e '.[dev]' brings it)")
    return where


class PostgresServer:
    """A PostgreSQL server with a cluster of its own in a temporary folder, removed by :meth:`close`."""

    def __init__(self, fsync: bool = False):
        self.bin = require_postgres()
        self.fsync = fsync
        self.folder = Path(tempfile.mkdtemp(prefix="shotclock-pg-"))
        self.data = self.folder / "data"
        self.log_path = self.folder / "postgres.log"
        self.port = free_port()
        self.user = pwd.getpwnam("nobody") if os.geteuid() == 0 else None
        if self.user is not None:  # the server's own user owns its folder (initdb and postgres refuse root)
            os.chown(self.folder, self.user.pw_uid, self.user.pw_gid)
        self.process: subprocess.Popen | None = None
        self._run([str(self.bin / "initdb"), "-D", str(self.data), "-U", SUPERUSER, "--auth=trust", "--no-sync",
                   "-E", "UTF8", "--locale=C.UTF-8"])

    def _run(self, argv: list[str]) -> None:
        done = subprocess.run(argv, capture_output=True, text=True, cwd=self.folder, **self._as_owner())
        if done.returncode:
            raise RuntimeError(f"{' '.join(argv[:2])} failed:\n{done.stdout}{done.stderr}")

    def _as_owner(self) -> dict:
        return {"user": self.user.pw_uid, "group": self.user.pw_gid, "extra_groups": []} if self.user else {}

    def start(self) -> "PostgresServer":
        """Start the server (its own process group) and wait until it takes connections."""
        log = open(self.log_path, "ab")
        if self.user is not None:
            os.chown(self.log_path, self.user.pw_uid, self.user.pw_gid)
        # fsync off (unless asked for): a killed server keeps what it committed (the kernel holds it); only a power
        # cut would not.
        settings = {"listen_addresses": "127.0.0.1", "unix_socket_directories": str(self.folder),
                    "max_connections": "60", **({} if self.fsync else {"fsync": "off"})}
        self.process = subprocess.Popen(
            [str(self.bin / "postgres"), "-D", str(self.data), "-p", str(self.port),
             *(arg for key, value in settings.items() for arg in ("-c", f"{key}={value}"))],
            stdout=log, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL, start_new_session=True,
            cwd=self.folder, **self._as_owner())
        log.close()
        try:
            wait_until(self._ready, START_TIMEOUT, what="PostgreSQL to take connections", alive=self.process)
        except AssertionError as exc:
            self.kill()
            raise RuntimeError(f"{exc}:\n{self.log_text()}") from None
        return self

    def _ready(self) -> bool:
        import psycopg

        try:
            psycopg.connect(self.url("postgres"), connect_timeout=2).close()
            return True
        except psycopg.OperationalError:
            return False

    def url(self, database: str) -> str:
        """The URL of ``database`` on this server, over TCP on loopback."""
        return f"postgresql://{SUPERUSER}@127.0.0.1:{self.port}/{database}"

    def database(self, name: str = "") -> str:
        """A new empty database (a name of its own when none is given); its URL."""
        import psycopg

        name = name or f"test_{uuid.uuid4().hex[:12]}"
        with psycopg.connect(self.url("postgres"), autocommit=True) as db:
            db.execute(f'CREATE DATABASE "{name}"')
        return self.url(name)

    def kill(self) -> None:
        """A crash: SIGKILL to the server and every process it started; it recovers from its WAL at the next start."""
        if self.process and self.process.poll() is None:
            os.killpg(self.process.pid, signal.SIGKILL)
            self.process.wait()
        self.process = None

    def stop(self) -> None:
        """A clean (fast) shutdown."""
        if self.process and self.process.poll() is None:
            self.process.send_signal(signal.SIGINT)
            try:
                self.process.wait(30)
            except subprocess.TimeoutExpired:
                self.kill()
        self.process = None

    @property
    def running(self) -> bool:
        """True while the server process is alive."""
        return self.process is not None and self.process.poll() is None

    def log_text(self) -> str:
        """What the server wrote so far."""
        try:
            return self.log_path.read_text(errors="replace")
        except OSError:
            return ""

    def close(self) -> None:
        """Stop the server and remove its folder."""
        self.stop()
        shutil.rmtree(self.folder, ignore_errors=True)

    def __enter__(self) -> "PostgresServer":
        return self.start()

    def __exit__(self, *exc) -> None:
        self.close()
