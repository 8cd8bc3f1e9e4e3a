"""The device's MQTT link to the floor broker (paho-mqtt 2.x, MQTT 5), off the main loop's thread.

Two threads: paho's network thread (connects, reconnects, reads commands, gets PUBACKs) and
the sender thread (publishes the newest state, the acks and the outbox's records in order,
at most ``WINDOW`` unacknowledged at a time, and moves the outbox's watermark as PUBACKs come
back). The main loop only calls :meth:`MqttLink.offer_state`, :meth:`~MqttLink.offer_records`
and :meth:`~MqttLink.offer_ack`, which append to memory and return at once.

paho's ``on_publish`` runs while paho holds its own lock, so it only queues the ack; the
sender thread does the rest (taking a lock there could deadlock with ``publish``).
"""

from __future__ import annotations

import collections
import logging
import socket
import ssl
import threading
import time
import tomllib
import uuid
from dataclasses import dataclass
from pathlib import Path

from shotclock.core import topics
from shotclock.core.wire import dumps, event_message, status_message
from shotclock.errors import ShotclockError

log = logging.getLogger("shotclock.network")

WINDOW = 20  # unacknowledged events in flight (mosquitto's default receive maximum)
BATCH = 200  # records read from the log at a time while catching up
STOP_TIMEOUT = 2.0


def new_boot_id() -> str:
    """A random 12-hex-digit id for this run of the device."""
    return uuid.uuid4().hex[:12]


def no_delay(client, userdata, sock) -> None:
    """paho's ``on_socket_open``: turn Nagle's algorithm off, so a small event leaves at once
    (with it on, a message waits up to ~40 ms for the previous one's TCP ACK)."""
    try:
        sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    except (OSError, AttributeError):  # not TCP (a unix socket), or a websocket wrapper
        pass


def read_credentials(path: str | Path) -> tuple[str, str]:
    """(username, password) from a credentials file written by ``shotclock broker-config``."""
    try:
        data = tomllib.loads(Path(path).read_text(encoding="utf-8"))
    except OSError as exc:
        raise ShotclockError(f"cannot read the credentials file {path}: {exc.strerror}") from None
    except tomllib.TOMLDecodeError as exc:
        raise ShotclockError(f"{path}: not valid TOML: {exc}") from None
    if not isinstance(data.get("username"), str) or not isinstance(data.get("password"), str):
        raise ShotclockError(f"{path}: needs 'username' and 'password' strings")
    return data["username"], data["password"]


@dataclass(frozen=True)
class LinkSettings:
    """Where and who: broker, TLS, venue, table id, login, keep-alive."""

    host: str
    port: int
    venue: str
    table: str
    username: str
    password: str
    tls: bool = False
    ca_file: str = ""
    keepalive: int = 5

    @classmethod
    def from_config(cls, config) -> "LinkSettings":
        """From the ``[network]`` section (reads the credentials file)."""
        username, password = read_credentials(config["network.credentials"])
        return cls(config["network.host"], config["network.port"], config["network.venue"],
                   config["network.table_id"], username, password, config["network.tls"],
                   config["network.ca_file"], config["network.keepalive"])


@dataclass(frozen=True)
class LinkStatus:
    """What the screen's network mark shows: connected, records waiting, records given up."""

    connected: bool
    pending: int
    dropped: int = 0
    refused: str = ""


class MqttLink:
    """One table's connection: status with a Last Will, state, events from an outbox, commands in.

    :param settings: broker and identity.
    :param outbox: a :class:`~shotclock.adapters.outbox.LogOutbox` or ``MemoryOutbox``.
    :param boot: this run's boot id.
    :param on_command: called on paho's thread with (payload bytes, MQTT properties) of each command.
    :param status_extra: fields added to the online status (name, mode, version).
    :param outbox_max: records that may wait; older ones are skipped (and counted) past it.
    """

    def __init__(self, settings: LinkSettings, outbox, boot: str, on_command=lambda payload, props: None,
                 status_extra: dict | None = None, outbox_max: int = 100_000):
        import paho.mqtt.client as mqtt

        self.settings = settings
        self.outbox = outbox
        self.boot = boot
        self.on_command = on_command
        self.status_extra = status_extra or {}
        self.outbox_max = outbox_max
        self.dropped = 0
        self._wake = threading.Event()
        self._stopping = False
        self._connected = False
        self._fresh_connection = False
        self._state: bytes | None = None
        self._last_state: bytes | None = None
        self._acks: collections.deque[bytes] = collections.deque(maxlen=1000)
        self._cache: collections.OrderedDict[int, dict] = collections.OrderedDict()
        self._newest = 0
        self._pubacks: collections.deque = collections.deque()
        self._inflight: dict[int, int] = {}  # paho mid → record id
        self._acked: set[int] = set()
        self._delivered = 0
        self._next = 1
        self._pending = 0
        self._refused = ""
        self._thread: threading.Thread | None = None
        self.on_status_change = lambda: None  # called (from the link's threads) when connected or caught up
        s = settings
        self.topic = lambda leaf: topics.table_topic(s.venue, s.table, leaf)
        self.client = mqtt.Client(mqtt.CallbackAPIVersion.VERSION2, client_id=f"shotclock-{s.venue}-{s.table}",
                                  protocol=mqtt.MQTTv5)
        self.client.username_pw_set(s.username, s.password)
        if s.tls:
            context = ssl.create_default_context(cafile=s.ca_file or None)
            self.client.tls_set_context(context)
        self.client.will_set(self.topic("status"), dumps(status_message(s.table, boot, False, clean=False)),
                             qos=1, retain=True)
        self.client.max_inflight_messages_set(WINDOW)
        # Try again at least every 0.5 s while the broker is away (a refused connect on a LAN costs nothing), so
        # the dashboard and the broadcast overlay show the right clock within a second of the broker's return.
        self.client.reconnect_delay_set(0.25, 0.5)
        self.client.on_connect = self._on_connect
        self.client.on_disconnect = self._on_disconnect
        self.client.on_publish = self._on_publish
        self.client.on_message = self._on_message
        self.client.on_connect_fail = self._on_connect_fail
        self.client.on_socket_open = no_delay
        self._unreachable_since: float | None = None

    # -- called from the main loop: append, wake, return -------------------------------------

    def offer_state(self, payload: bytes) -> None:
        """The newest state (replaces any not yet sent)."""
        self._state = payload
        self._wake.set()

    def offer_records(self, rows: list[dict]) -> None:
        """Records just written to the outbox's store (each with ``id`` and ``boot``)."""
        for row in rows:
            self._cache[row["id"]] = row
            self._newest = max(self._newest, row["id"])
        while len(self._cache) > 10_000:  # beyond that the sender reads them back from the log
            self._cache.popitem(last=False)
        self._wake.set()

    def offer_ack(self, payload: bytes) -> None:
        """A command's ack, to send when connected."""
        self._acks.append(payload)
        self._wake.set()

    @property
    def status(self) -> LinkStatus:
        """Connected, records waiting and dropped (read by the loop for the screen's mark)."""
        return LinkStatus(self._connected, self._pending, self.dropped, self._refused)

    # -- lifecycle -----------------------------------------------------------------------------

    def start(self) -> None:
        """Connect in the background and start sending; returns at once."""
        self.client.connect_async(self.settings.host, self.settings.port, keepalive=self.settings.keepalive)
        self.client.loop_start()
        self._thread = threading.Thread(target=self._run, name="shotclock-mqtt-sender", daemon=True)
        self._thread.start()

    def stop(self, clean: bool = True) -> None:
        """Say offline (a clean stop), disconnect, and end both threads."""
        self._stopping = True
        self._wake.set()
        if self._thread:
            self._thread.join(STOP_TIMEOUT + 1)
        if clean and self._connected:
            info = self.client.publish(self.topic("status"),
                                       dumps(status_message(self.settings.table, self.boot, False, clean=True)),
                                       qos=1, retain=True)
            try:
                info.wait_for_publish(STOP_TIMEOUT)
            except (RuntimeError, ValueError):
                pass
        self.client.disconnect()
        self.client.loop_stop()

    # -- paho's thread ---------------------------------------------------------------------------

    def _on_connect(self, client, userdata, flags, reason_code, properties):
        if reason_code.is_failure:
            self._refused = str(reason_code)
            log.error("the broker refused the connection: %s", reason_code)
            return
        self._refused = ""
        self._unreachable_since = None
        s = self.settings
        # Subscribe first: the broker handles one connection's packets in order, so whoever sees this
        # table online can send it a command at once (online before subscribed lost that command).
        client.subscribe([(self.topic("cmd"), 1), (topics.venue_cmd_topic(s.venue), 1)])
        client.publish(self.topic("status"), dumps(status_message(s.table, self.boot, True, **self.status_extra)),
                       qos=1, retain=True)
        self._connected = True
        self._fresh_connection = True
        log.info("connected to the broker %s:%d as %s", s.host, s.port, s.username)
        self._wake.set()
        self.on_status_change()

    def _on_connect_fail(self, client, userdata):
        # Said once per outage (and once a minute after), not at every retry.
        now = time.monotonic()
        if self._unreachable_since is None or now - self._unreachable_since > 60:
            log.warning("cannot reach the broker %s:%d; retrying (records wait in the outbox)",
                        self.settings.host, self.settings.port)
            self._unreachable_since = now

    def _on_disconnect(self, client, userdata, flags, reason_code, properties):
        if self._connected and not self._stopping:
            log.warning("lost the broker (%s); records wait in the outbox", reason_code)
        self._connected = False
        self._wake.set()
        self.on_status_change()

    def _on_publish(self, client, userdata, mid, reason_code, properties):
        self._pubacks.append((mid, reason_code.value if reason_code is not None else 0))
        self._wake.set()

    def _on_message(self, client, userdata, message):
        try:
            self.on_command(message.payload, message.properties)
        except Exception:
            log.exception("a command could not be handled")

    # -- the sender thread -----------------------------------------------------------------------

    def _run(self) -> None:
        try:
            self._delivered = self.outbox.delivered()
            self._next = self._delivered + 1
            self._newest = max(self._newest, self.outbox.newest())
            while not self._stopping:
                self._wake.wait(1.0)
                self._wake.clear()
                self._round()
            self._round()  # what the loop offered last
            deadline = time.monotonic() + STOP_TIMEOUT
            while self._inflight and self._connected and time.monotonic() < deadline:
                self._wake.wait(0.05)  # a clean stop: let the last PUBACKs arrive
                self._wake.clear()
                self._take_pubacks()
        except Exception:
            log.exception("the network sender failed; the device carries on without it")
        finally:
            self.outbox.close()

    def _round(self) -> None:
        self._take_pubacks()
        if self._fresh_connection:
            # A new connection: everything not acknowledged goes again, in order.
            self._fresh_connection = False
            self._inflight.clear()
            self._acked.clear()
            self._next = self._delivered + 1
            if self._state is None:
                self._state = self._last_state  # the broker may have lost it (a crash): retained again
        self._bound()
        if not self._connected:
            self._pending = self._newest - self._delivered
            return
        state, self._state = self._state, None
        if state is not None:
            self._send_state(state)
        while self._acks:
            self.client.publish(self.topic("cmd/ack"), self._acks.popleft(), qos=1)
        self._send_records()
        pending, self._pending = self._pending, self._newest - self._delivered
        if pending and not self._pending:
            self.on_status_change()  # caught up: the mark goes

    def _send_state(self, payload: bytes) -> None:
        self._last_state = payload
        self.client.publish(self.topic("state"), payload, qos=1, retain=True)

    def _send_records(self) -> None:
        while len(self._inflight) < WINDOW and self._next <= self._newest and self._connected:
            room = WINDOW - len(self._inflight)
            row = self._cache.get(self._next)
            rows = [row] if row is not None else self.outbox.rows_after(self._next - 1, max(room, BATCH))
            if not rows:
                self._next = self._newest + 1  # nothing more in the store (archived or never written)
                return
            for row in rows[:room]:
                message = event_message(self.settings.table, row.get("boot", self.boot), row)
                info = self.client.publish(self.topic("event"), dumps(message), qos=1)
                self._inflight[info.mid] = row["id"]
                self._next = row["id"] + 1
            for row in rows[room:]:
                self._cache.setdefault(row["id"], row)

    def _take_pubacks(self) -> None:
        moved = False
        while self._pubacks:
            mid, code = self._pubacks.popleft()
            record_id = self._inflight.pop(mid, None)
            if record_id is None:
                continue
            if code >= 0x80:
                self._refused = f"event refused by the broker (reason {code})"
                log.error("the broker refused event %d (reason code %d): check the ACL", record_id, code)
            self._acked.add(record_id)
        while self._delivered + 1 in self._acked:
            self._delivered += 1
            self._acked.discard(self._delivered)
            self._cache.pop(self._delivered, None)
            moved = True
        if moved:
            self.outbox.set_delivered(self._delivered)

    def _bound(self) -> None:
        over = self._newest - self._delivered - self.outbox_max
        if over > 0:
            self.dropped += over
            log.error("outbox full: %d oldest records will not be delivered (they stay in the log)", over)
            self._delivered += over
            self._next = max(self._next, self._delivered + 1)
            for record_id in [i for i in self._cache if i <= self._delivered]:
                del self._cache[record_id]
            self.outbox.set_delivered(self._delivered)
