"""A real Mosquitto for tests: started on free loopback ports with a config from ``shotclock broker-config``.

Use the ``broker`` fixture (conftest.py), or in a script::

    with MosquittoBroker(tmp_path, venue="test", tables=["1", "2"]) as broker:
        client = broker.client("floor")      # a connected paho client with the floor's credential
        broker.kill(); broker.start()        # a crash and a restart on the same ports and data

``./dev`` installs Debian's mosquitto, and what builds the client-id plugin, when run as root. Without them
these tests are skipped, except under CI (``CI`` set), where a missing broker fails them.
"""

from __future__ import annotations

import os
import shutil
import signal
import socket
import subprocess
import threading
import time
import uuid
from pathlib import Path

from helpers import wait_until
from shotclock.floor.broker.build import PLUGIN_FILE, PluginBuildError, build_plugin
from shotclock.floor.broker.plan import bridge_client_id, bridge_user
from shotclock.floor.broker_config import (BrokerPlan, Bridge, Endpoint, add_room, table_client_id, table_user,
                                          write_broker_config, write_rooms)

# Deadlines that only bound a hang: a loaded 2-core machine can take seconds for what takes ms.
START_TIMEOUT = 30.0
WAIT_TIMEOUT = 30.0


def mosquitto_path() -> str | None:
    """The mosquitto binary (Debian puts it in /usr/sbin, often not on a user's PATH)."""
    return shutil.which("mosquitto") or shutil.which("mosquitto", path="/usr/sbin:/usr/local/sbin")


def missing(message: str):
    """A system tool a test needs is missing: skip the test, but fail it under CI (``CI`` set), where
    ./dev must have installed it."""
    import pytest  # here, so the benchmarks can use this module without pytest

    if os.environ.get("CI"):
        pytest.fail(message)
    pytest.skip(message)


def require_mosquitto() -> str:
    """The binary, or skip the test (fail it under CI, where ./dev must have installed it)."""
    path = mosquitto_path()
    if path is None:
        missing("mosquitto is not installed (./dev installs Debian's mosquitto when run as root)")
    return path


_plugin: list = []  # the client-id plugin built by this process (once), or the reason it could not be


def built_plugin() -> Path:
    """The client-id plugin, built once per test run into a folder of its own (the compiler runs once, not for
    each broker); raises :class:`PluginBuildError` as building would."""
    import atexit
    import tempfile

    if not _plugin:
        folder = tempfile.mkdtemp(prefix="shotclock-plugin-")
        atexit.register(shutil.rmtree, folder, True)
        try:
            _plugin.append(build_plugin(Path(folder) / PLUGIN_FILE))
        except PluginBuildError as exc:
            _plugin.append(exc)
    if isinstance(_plugin[0], Exception):
        raise _plugin[0]
    return _plugin[0]


def copy_of_plugin(out) -> Path:
    """What ``build_plugin(out)`` makes, copied from :func:`built_plugin` (conftest.py hands this to
    ``broker-config`` in place of the compiler)."""
    out = Path(out)
    out.parent.mkdir(parents=True, exist_ok=True)
    shutil.copyfile(built_plugin(), out)
    return out


def client_id_plugin() -> str:
    """The client-id plugin's path; skips the test when it cannot be built (fails it under CI, where ./dev
    must have installed what builds it)."""
    try:
        return str(built_plugin())
    except PluginBuildError as exc:
        missing(f"{exc} (./dev installs them when run as root)")


def free_port() -> int:
    """A TCP port free on 127.0.0.1 right now."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def port_open(port: int, host: str = "127.0.0.1") -> bool:
    """True when something accepts connections on ``host:port``."""
    try:
        with socket.create_connection((host, port), timeout=0.2):
            return True
    except OSError:
        return False


def listening(port: int) -> bool:
    """True when a socket listens on TCP ``port`` (read from the kernel's tables, without connecting: a probe's
    connection, closed before a TLS handshake, would put an error line in the broker's log)."""
    for table in ("/proc/net/tcp", "/proc/net/tcp6"):
        try:
            with open(table) as f:
                rows = f.read().splitlines()[1:]
        except OSError:
            continue
        for row in rows:
            local, state = row.split()[1], row.split()[3]
            if state == "0A" and int(local.rsplit(":", 1)[1], 16) == port:  # 0A: LISTEN
                return True
    return False


class MosquittoBroker:
    """A mosquitto process with a generated configuration in ``folder``.

    :param folder: where mosquitto.conf, passwd, acl, credentials/ and data/ go.
    :param venue: the venue in the topics.
    :param tables: the table ids that get a credential.
    :param websockets: also open a websockets listener (for browser tests).
    :param persistence: keep retained messages and sessions across restarts.
    :param autosave: seconds between persistence saves (1: a crash loses almost nothing).
    :param tls: (certfile, keyfile): also a TLS listener on ``tls_port``, as for the floor network.
    :param pages: serve this folder over HTTP on the websockets listener (the web pages' tests).
    :param floor: floor people, each with a credential of their own (``floor-<name>``).
    :param bridge_to: a room broker: bridge it to this (venue) broker, as ``broker-config --bridge-to`` does
        (the venue broker's passwd and acl get the room's bridge: make the room broker before starting it).
    :param room: the room's name for ``bridge_to``.
    :param cafile: with ``bridge_to``: bridge over TLS to its ``tls_port``, trusting this certificate.
    :param bind_client_ids: load the client-id plugin: a table's (and a room bridge's) client id for its own
        login alone, that login with that id alone (False: the broker as it was without it, to show what the
        binding stops).
    """

    def __init__(self, folder: str | Path, venue: str = "test", tables=("1", "2"), websockets: bool = True,
                 persistence: bool = True, autosave: int = 1, tls: tuple[str, str] | None = None,
                 pages: str | Path | None = None, floor=(), bridge_to: "MosquittoBroker | None" = None,
                 room: str = "room", cafile: str | None = None, bind_client_ids: bool = True):
        self.binary = require_mosquitto()
        self.folder = Path(folder)
        self.venue = venue
        self.tables = list(tables)
        self.port = free_port()
        self.ws_port = free_port() if websockets else None
        self.tls_port = free_port() if tls else None
        plan = BrokerPlan(venue, self.tables, list(floor), local=Endpoint("127.0.0.1", self.port),
                          websockets=Endpoint("127.0.0.1", self.ws_port) if websockets else None,
                          persistence="data" if persistence else None,
                          run_as="root" if os.geteuid() == 0 else None, autosave_interval=autosave,
                          network=Endpoint("127.0.0.1", self.tls_port) if tls else None,
                          certfile=tls[0] if tls else None, keyfile=tls[1] if tls else None,
                          pages=str(pages) if pages else None,
                          client_id_plugin=client_id_plugin() if bind_client_ids else None)
        if bridge_to is not None:
            password = add_room(bridge_to.folder, venue, room, self.tables)
            bridge_to.passwords.update(write_rooms(bridge_to.folder, venue))
            plan.bridge = Bridge(Endpoint("127.0.0.1", bridge_to.tls_port if cafile else bridge_to.port), room,
                                 password, cafile)
        self.passwords = write_broker_config(plan, self.folder)
        self.conf = self.folder / "mosquitto.conf"
        self.log_path = self.folder / "mosquitto.log"
        self.process: subprocess.Popen | None = None
        self._clients: list = []

    # -- the process ----------------------------------------------------------------------

    def start(self) -> "MosquittoBroker":
        """Start mosquitto and wait until every listener accepts connections."""
        log = open(self.log_path, "ab")
        self.process = subprocess.Popen([self.binary, "-c", str(self.conf)], stdout=log, stderr=subprocess.STDOUT,
                                        stdin=subprocess.DEVNULL)
        log.close()
        ports = [p for p in (self.port, self.ws_port, self.tls_port) if p]
        try:
            wait_until(lambda: all(port_open(p) for p in ports), START_TIMEOUT, what="mosquitto's listeners",
                       alive=self.process)
        except AssertionError as exc:
            self.kill()
            raise RuntimeError(f"{exc}:\n{self.log_text()}") from None
        return self

    def stop(self) -> None:
        """A clean stop (SIGTERM): mosquitto saves its persistence file."""
        if self.process and self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(5)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
        self.process = None

    def kill(self) -> None:
        """A crash (SIGKILL): nothing saved since the last autosave."""
        if self.process and self.process.poll() is None:
            self.process.send_signal(signal.SIGKILL)
            self.process.wait()
        self.process = None

    def wait_saved(self, since: float, timeout: float = 60.0) -> None:
        """Wait until mosquitto has saved its persistence file after wall time ``since`` (it autosaves
        every ``autosave`` s), so a crash (:meth:`kill`) keeps what it had by then, e.g. a session that
        ``since`` had been subscribed. The timeout only bounds a hang."""
        path = self.folder / "data" / "mosquitto.db"
        wait_until(lambda: path.exists() and path.stat().st_mtime > since, timeout, what=f"mosquitto to save {path}")

    @property
    def running(self) -> bool:
        """True while the process is alive."""
        return self.process is not None and self.process.poll() is None

    def log_text(self) -> str:
        """What mosquitto wrote so far."""
        try:
            return self.log_path.read_text(errors="replace")
        except OSError:
            return ""

    def __enter__(self) -> "MosquittoBroker":
        return self.start()

    def __exit__(self, *exc) -> None:
        self.close()

    def close(self) -> None:
        """Disconnect every client made by :meth:`client` and stop the broker."""
        for c in self._clients:
            try:
                c.disconnect()  # first: it wakes the network thread, so loop_stop returns at once
                c.loop_stop()
            except Exception:
                pass
        self._clients.clear()
        self.stop()

    # -- credentials and clients ---------------------------------------------------------

    def credentials_file(self, user: str) -> Path:
        """The credentials file (TOML) of ``user`` (``table-1``, ``floor``, ``overlay``, ``collector``)."""
        return self.folder / "credentials" / f"{user}.toml"

    def bound_client_id(self, user: str | None, password: str | None = None) -> str | None:
        """The one client id the broker lets a table's or room bridge's login use (``client-ids``), else None."""
        password = self.passwords.get(user, "") if password is None else password
        if user is not None and user.startswith(table_user("")):
            return table_client_id(self.venue, user[len(table_user("")):], password)
        if user is not None and user.startswith(bridge_user("")):
            return bridge_client_id(self.venue, user[len(bridge_user("")):], password)
        return None

    def client(self, user: str | None, password: str | None = None, connect: bool = True, session: str = "",
               **kwargs):
        """A paho MQTT v5 client logged in as ``user`` (None: anonymous), its network thread running.

        With ``connect`` the call waits for the CONNACK; ``client.connack`` holds its reason code.
        A ``session`` name makes a persistent session (fixed client id, kept an hour): the broker
        queues QoS 1 messages while the client is away, also across a broker restart.
        """
        import paho.mqtt.client as mqtt

        from paho.mqtt.packettypes import PacketTypes
        from paho.mqtt.properties import Properties

        c = mqtt.Client(mqtt.CallbackAPIVersion.VERSION2,
                        client_id=session or self.bound_client_id(user, password) or f"test-{uuid.uuid4().hex[:8]}",
                        protocol=mqtt.MQTTv5, **kwargs)
        c.reconnect_delay_set(0.1, 0.5)
        from shotclock.adapters.mqtt_login import no_delay

        c.on_socket_open = no_delay
        connect_properties = None
        if session:
            connect_properties = Properties(PacketTypes.CONNECT)
            connect_properties.SessionExpiryInterval = 3600
        if user is not None:
            c.username_pw_set(user, self.passwords.get(user, "") if password is None else password)
        c.connack = None
        c.connected_event = threading.Event()

        def on_connect(client, userdata, flags, reason_code, properties):
            client.connack = reason_code
            client.connected_event.set()

        c.on_connect = on_connect
        self._clients.append(c)
        if connect:
            c.connect("127.0.0.1", self.port, clean_start=not session, properties=connect_properties)
            c.loop_start()
            if not c.connected_event.wait(START_TIMEOUT):
                raise RuntimeError("no CONNACK from mosquitto")
        return c


class Inbox:
    """Collects the messages a subscribed client receives (thread-safe), for assertions."""

    def __init__(self, client, *topics: str, qos: int = 1):
        self.messages: list = []
        self.arrivals: list[float] = []  # monotonic time each message arrived
        self._cond = threading.Condition()
        client.on_message = self._on_message
        subscribed = threading.Event()
        client.on_subscribe = lambda *a: subscribed.set()
        client.subscribe([(t, qos) for t in topics])
        if not subscribed.wait(START_TIMEOUT):
            raise RuntimeError("no SUBACK")

    def _on_message(self, client, userdata, message):
        with self._cond:
            self.arrivals.append(time.monotonic())
            self.messages.append(message)
            self._cond.notify_all()

    def wait_for(self, predicate, timeout: float = WAIT_TIMEOUT):
        """The first message for which ``predicate(message)`` holds, waiting up to ``timeout`` s; None if none."""
        deadline = time.monotonic() + timeout
        with self._cond:
            while True:
                for m in self.messages:
                    if predicate(m):
                        return m
                left = deadline - time.monotonic()
                if left <= 0:
                    return None
                self._cond.wait(left)

    def topics(self) -> list[str]:
        """The topics received so far, in order."""
        with self._cond:
            return [m.topic for m in self.messages]
