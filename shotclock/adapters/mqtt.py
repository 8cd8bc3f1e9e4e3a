"""The device's MQTT link to the floor broker (paho-mqtt 2.x, MQTT 5), off the main loop's thread.

Two threads, and each piece of state has one owner:

* paho's network thread connects, reconnects, reads commands and gets PUBACKs. It keeps only
  its own "unreachable since" for the log; everything else it hands over.
* the sender thread owns the rest: the :class:`~shotclock.core.delivery.Delivery` (which records
  are in flight, the watermark), the last state, the acks waiting for a connection, the outbox
  and the :class:`LinkStatus` the screen reads. It publishes; it never waits for the network.

Every other thread -- the main loop offering a state or an ack, the log writer's status thread
offering records, paho's callbacks -- only puts into the :class:`Handover` (one lock, held for an
append) and wakes the sender. Nothing offered is lost: the newest state replaces an older one
not yet taken, records are all kept (or, past a bound, read back from the log), signals keep
their order. paho's ``on_publish`` runs while paho holds its own lock: putting into the
hand-over there is safe (its lock is never held while calling paho).
"""

from __future__ import annotations

import collections
import hashlib
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
from shotclock.core.delivery import WINDOW, Delivery, Read
from shotclock.core.inbound import parse_json
from shotclock.core.wire import dumps, event_message, status_message
from shotclock.errors import ShotclockError

log = logging.getLogger("shotclock.network")

STOP_TIMEOUT = 2.0
ACKS_KEPT = 1000  # command acks waiting for a connection (older ones are of no use to anyone)
SESSION_TAKEN_OVER = 0x8E  # MQTT 5 reason code: a client connected with this client id
CLONE_SHOWN = 120.0  # seconds the screen and the state say "another device is this table" after the last sign
CLONE_RETRY = (20, 40)  # seconds before connecting again after another device took the session (no flapping)


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


def private_client_id(prefix: str, password: str) -> str:
    """A client id only the holder of ``password`` can know: ``prefix`` and 16 hex digits derived from it.

    MQTT gives a session to whoever connects last with its client id, and Mosquitto 2.0's password
    file cannot tie a client id to a user: a credential that could name another's client id could take
    its session (and knock it offline). Derived from the password, no other credential can name it.

        >>> private_client_id("shotclock-casino-7", "s3cret")
        'shotclock-casino-7-d80b33ee399f3bcb'
    """
    digest = hashlib.sha256(b"shotclock client id\0" + password.encode("utf-8", "surrogatepass")).hexdigest()
    return f"{prefix}-{digest[:16]}"


def read_credentials(path: str | Path) -> tuple[str, str]:
    """(username, password) from a credentials file written by ``shotclock broker-config``."""
    try:
        data = tomllib.loads(Path(path).read_text(encoding="utf-8"))
    except OSError as exc:
        raise ShotclockError(f"cannot read the credentials file {path}: {exc.strerror}") from None
    except UnicodeDecodeError:
        raise ShotclockError(f"{path}: not valid TOML (not UTF-8 text)") from None
    except tomllib.TOMLDecodeError as exc:
        raise ShotclockError(f"{path}: not valid TOML: {exc}") from None
    if not isinstance(data.get("username"), str) or not isinstance(data.get("password"), str):
        raise ShotclockError(f"{path}: needs 'username' and 'password' strings")
    return data["username"], data["password"]


class LoginProblem(Exception):
    """A mistake on the device's side that no wait mends: the credentials file or the CA file.

    :param kind: ``credentials`` or ``tls`` (the screen's words for it).
    :param detail: one line naming the file and what is wrong.
    """

    def __init__(self, kind: str, detail: str):
        super().__init__(detail)
        self.kind = kind
        self.detail = detail


def tls_context(ca_file: str) -> ssl.SSLContext:
    """The TLS context that trusts ``ca_file`` (PEM; empty: the system's CAs). Raises :class:`LoginProblem`."""
    try:
        return ssl.create_default_context(cafile=ca_file or None)
    except (ssl.SSLError, ValueError) as exc:  # first: an SSLError is an OSError too
        raise LoginProblem("tls", f"the CA file {ca_file} holds no PEM certificate ({exc})") from None
    except FileNotFoundError:
        raise LoginProblem("tls", f"the CA file {ca_file} does not exist") from None
    except OSError as exc:
        raise LoginProblem("tls", f"cannot read the CA file {ca_file}: {exc.strerror or exc}") from None


@dataclass(frozen=True)
class LinkSettings:
    """Where and who: broker, TLS, venue, table id, login, keep-alive.

    With ``credentials`` (a file's path) the login is read from that file when the link starts, and
    read again while it cannot be (a mistake there never stops the device): ``username`` and
    ``password`` are then ignored.
    """

    host: str
    port: int
    venue: str
    table: str
    username: str
    password: str
    tls: bool = False
    ca_file: str = ""
    keepalive: int = 5
    credentials: str = ""

    @classmethod
    def from_config(cls, config) -> "LinkSettings":
        """From the ``[network]`` section (the credentials file is read when the link starts)."""
        return cls(config["network.host"], config["network.port"], config["network.venue"],
                   config["network.table_id"], "", "", config["network.tls"],
                   config["network.ca_file"], config["network.keepalive"], config["network.credentials"])

    def login(self) -> tuple[str, str, ssl.SSLContext | None]:
        """(username, password, TLS context or None), reading the files now. Raises :class:`LoginProblem`."""
        username, password = self.username, self.password
        if self.credentials:
            try:
                username, password = read_credentials(self.credentials)
            except ShotclockError as exc:
                raise LoginProblem("credentials", str(exc)) from None
        return username, password, tls_context(self.ca_file) if self.tls else None

    def files_signature(self) -> tuple:
        """What the login's files look like now (a change is worth another try at once)."""
        out = []
        for path in (self.credentials, self.ca_file if self.tls else ""):
            try:
                st = Path(path).stat() if path else None
                out.append(st and (st.st_mtime_ns, st.st_size, st.st_mode, st.st_uid, st.st_ino))
            except OSError as exc:
                out.append(exc.errno)
        return tuple(out)


@dataclass(frozen=True)
class LinkStatus:
    """What the screen's network mark shows: connected, records waiting, records given up, and why the
    broker refused (the connection, or an event). Made by the sender thread; read by anyone."""

    connected: bool
    pending: int
    dropped: int = 0
    refused: str = ""
    fault: str = ""  # a fault on this side: "credentials", "tls" or "outbox" (see core.view.NETWORK_FAULTS)
    detail: str = ""  # the fault's cause, one line (also in the retained status as "degraded")
    clone: bool = False  # another device uses this table's identity (a cloned SD card): seen lately




@dataclass
class Taken:
    """What the sender thread took from the :class:`Handover` in one go."""

    signals: list[tuple]
    state: bytes | None
    acks: list[bytes]
    rows: list[dict]
    newest: int
    state_expiry: int | None = None


class Handover:
    """Everything other threads give the sender thread, behind one lock.

    Any thread puts (holding the lock only to append) and wakes the taker; only the sender thread
    takes, everything at once. Nothing is lost: the newest state replaces one not yet taken (only
    the newest matters: it is retained), signals keep their order, and past ``rows_kept`` waiting
    records the oldest leave only their ids behind (the sender reads them back from the outbox).

    Example::

        >>> h = Handover()
        >>> h.put_state(b"1"); h.put_state(b"2"); h.put_rows([{"id": 7}]); h.signal("connected")
        >>> t = h.take(0)
        >>> t.state, t.rows, t.newest, t.signals
        (b'2', [{'id': 7}], 7, [('connected',)])
    """

    def __init__(self, rows_kept: int = 10_000, acks_kept: int = ACKS_KEPT):
        self._lock = threading.Lock()
        self._wake = threading.Event()
        self._rows_kept = rows_kept
        self._signals: list[tuple] = []
        self._state: bytes | None = None
        self._state_expiry: int | None = None
        self._acks: collections.deque[bytes] = collections.deque(maxlen=acks_kept)
        self._rows: collections.deque[dict] = collections.deque()
        self._newest = 0

    def put_state(self, payload: bytes, expiry: int | None = None) -> None:
        """The newest state (replaces one not yet taken), and how long the broker may keep it (None: for good)."""
        with self._lock:
            self._state = payload
            self._state_expiry = expiry
        self._wake.set()

    def put_rows(self, rows: list[dict]) -> None:
        """Records just written (each with ``id``)."""
        with self._lock:
            for row in rows:
                self._rows.append(row)
                self._newest = max(self._newest, row["id"])
            while len(self._rows) > self._rows_kept:
                self._rows.popleft()
        self._wake.set()

    def put_ack(self, payload: bytes) -> None:
        """A command's ack."""
        with self._lock:
            self._acks.append(payload)
        self._wake.set()

    def signal(self, *signal) -> None:
        """Something the sender must act on, in order: ``("connected",)``, ``("disconnected", why)``,
        ``("refused", why)``, ``("puback", mid, reason code)``, ``("stop",)``."""
        with self._lock:
            self._signals.append(signal)
        self._wake.set()

    def take(self, timeout: float | None) -> Taken:
        """Wait up to ``timeout`` seconds for something to be put (None: until it is), then take all of it."""
        self._wake.wait(timeout)
        self._wake.clear()  # before taking: whatever is put from now on wakes the next take
        with self._lock:
            taken = Taken(self._signals, self._state, list(self._acks), list(self._rows), self._newest,
                          self._state_expiry)
            self._signals, self._state = [], None
            self._acks.clear()
            self._rows.clear()
        return taken


class MqttLink:
    """One table's connection: status with a Last Will, state, events from an outbox, commands in.

    Made before the decision log (the builder hands :meth:`offer_records` to the recorder) and
    started once the outbox is known (:meth:`start`). Every ``offer_*`` method may be called from
    any thread, before or after the start; each returns at once.

    :param settings: broker and identity.
    :param boot: this run's boot id.
    :param status_extra: fields added to the online status (name, mode, version).
    :param outbox_max: records that may wait; older ones are skipped (and counted) past it.
    """

    def __init__(self, settings: LinkSettings, boot: str, status_extra: dict | None = None,
                 outbox_max: int = 100_000):
        import paho.mqtt.client as mqtt

        self.settings = settings
        self.boot = boot
        self.status_extra = status_extra or {}
        self.outbox_max = outbox_max
        self.handover = Handover()
        self._status = LinkStatus(False, 0)  # replaced, never changed, by the sender thread
        self._on_command = lambda payload, props: None
        self._on_status_change = lambda: None
        self._thread: threading.Thread | None = None
        self._unreachable_since: float | None = None  # paho's thread only
        self._clone_seen: float | None = None  # paho's thread only: the last sign of another device as this table
        self._connections = 0  # paho's thread only: connections made by this run
        s = settings
        self.topic = lambda leaf: topics.table_topic(s.venue, s.table, leaf)
        self.client = mqtt.Client(mqtt.CallbackAPIVersion.VERSION2, client_id=private_client_id(f"shotclock-{s.venue}-{s.table}", s.password),
                                  protocol=mqtt.MQTTv5)
        self._connecting = False  # set by the sender thread once the login could be read
        self.login = settings.username  # the user the broker knows this table as (set again at connect)
        self.client.will_set(self.topic("status"), dumps(status_message(s.table, boot, False, clean=False,
                                                                        **self.place())),
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

    # -- any thread: hand over, wake, return ------------------------------------------------------

    def offer_state(self, payload: bytes, expiry: int | None = None) -> None:
        """The newest state (replaces any not yet sent); ``expiry``: its MQTT 5 Message Expiry Interval (s)."""
        self.handover.put_state(payload, expiry)

    def offer_records(self, rows: list[dict]) -> None:
        """Records just written to the outbox's store (each with ``id`` and ``boot``)."""
        self.handover.put_rows(rows)

    def offer_ack(self, payload: bytes) -> None:
        """A command's ack, to send when connected."""
        self.handover.put_ack(payload)

    @property
    def status(self) -> LinkStatus:
        """Connected, records waiting and dropped (read by the loop for the screen's mark)."""
        return self._status

    def place(self) -> dict:
        """Where the table stands (room, section), also in its offline status: a page that opens while the
        table is away still files it under its room."""
        return {k: v for k, v in self.status_extra.items() if k in ("room", "section")}

    # -- lifecycle -----------------------------------------------------------------------------

    def start(self, outbox, on_command=None, on_status_change=None) -> None:
        """Connect in the background and start sending; returns at once.

        :param outbox: a :class:`~shotclock.adapters.outbox.LogOutbox` or ``MemoryOutbox``; from now
            on only the sender thread uses it.
        :param on_command: called on paho's thread with (payload bytes, MQTT properties) of each command.
        :param on_status_change: called from the link's threads when it connects, loses the broker, is
            refused or has caught up (the loop wakes to redraw the screen's network mark).
        """
        if on_command is not None:
            self._on_command = on_command
        if on_status_change is not None:
            self._on_status_change = on_status_change
        sender = Sender(self, outbox)
        self._thread = threading.Thread(target=sender.run, name="shotclock-mqtt-sender", daemon=True)
        self._thread.start()  # it reads the login and connects (a missing file is retried there, not raised here)

    def connect(self, username: str, password: str, context: ssl.SSLContext | None) -> None:
        """Start connecting in the background with this login (the sender thread, once)."""
        # The client id comes from the password just read: one from a credentials file is not known
        # before (deriving it from the empty one gave every such table a client id anyone could name,
        # and the broker, which ties each table's login to its own id, refused it). paho has no setter.
        self.client._client_id = private_client_id(f"shotclock-{self.settings.venue}-{self.settings.table}",
                                                   password).encode()
        self.client.username_pw_set(username, password)
        self.login = username  # as the credentials file gave it (the settings' own username is empty then)
        if context is not None:
            self.client.tls_set_context(context)
        self.client.connect_async(self.settings.host, self.settings.port, keepalive=self.settings.keepalive)
        self.client.loop_start()
        self._connecting = True

    def stop(self, clean: bool = True) -> None:
        """Send what is left (up to ``STOP_TIMEOUT``), say offline (a clean stop), disconnect, end both threads."""
        self.handover.signal("stop")
        if self._thread:
            self._thread.join(STOP_TIMEOUT + 1)
        if not self._connecting:
            return
        if clean and self._status.connected:
            info = self.client.publish(self.topic("status"),
                                       dumps(status_message(self.settings.table, self.boot, False, clean=True,
                                                            **self.place())),
                                       qos=1, retain=True)
            try:
                info.wait_for_publish(STOP_TIMEOUT)
            except (RuntimeError, ValueError):
                pass
        self.client.disconnect()
        self.client.loop_stop()

    def _set_status(self, status: LinkStatus) -> None:
        """The sender thread's new status; the loop is woken when the screen's mark must change now."""
        old, self._status = self._status, status
        if (status.connected != old.connected or status.refused != old.refused or status.fault != old.fault
                or status.clone != old.clone
                or (old.pending and not status.pending)):
            self._on_status_change()

    # -- paho's thread: log, hand over ---------------------------------------------------------------

    def _on_connect(self, client, userdata, flags, reason_code, properties):
        if reason_code.is_failure:
            log.error("the broker refused the connection: %s", reason_code)
            self.handover.signal("refused", str(reason_code))
            return
        self._unreachable_since = None
        self._connections += 1
        if self._clone_seen is None or time.monotonic() - self._clone_seen > CLONE_SHOWN:
            client.reconnect_delay_set(0.25, 0.5)  # no clone lately: quick again after a loss
        s = self.settings
        # Subscribe first: the broker handles one connection's packets in order, so whoever sees this
        # table online can send it a command at once (online before subscribed lost that command).
        client.subscribe([(self.topic("cmd"), 1), (topics.venue_cmd_topic(s.venue), 1),
                          (topics.collector_topic(s.venue), 1), (self.topic("stored"), 1),
                          (self.topic("status"), 1), (topics.command_topic(s.venue, s.table, "+"), 1),
                          (topics.command_topic(s.venue, None, "+"), 1)])
        client.publish(self.topic("status"), dumps(status_message(s.table, self.boot, True, **self.status_extra)),
                       qos=1, retain=True)
        log.info("connected to the broker %s:%d as %s", s.host, s.port, self.login)
        self.handover.signal("connected")

    def _on_connect_fail(self, client, userdata):
        # Said once per outage (and once a minute after), not at every retry.
        now = time.monotonic()
        if self._unreachable_since is None or now - self._unreachable_since > 60:
            log.warning("cannot reach the broker %s:%d; retrying (records wait in the outbox)",
                        self.settings.host, self.settings.port)
            self._unreachable_since = now

    def _on_disconnect(self, client, userdata, flags, reason_code, properties):
        if getattr(reason_code, "value", 0) == SESSION_TAKEN_OVER:  # a broker that says so (Mosquitto 2.0.11 does not)
            self._clone("")
        self.handover.signal("disconnected", str(reason_code))

    def _clone(self, other_boot: str) -> None:
        """Another device uses this table's identity: say so, and wait longer before taking the session back,
        so the two take turns every CLONE_RETRY seconds instead of flapping (paho's thread)."""
        self._clone_seen = time.monotonic()
        self.client.reconnect_delay_set(*CLONE_RETRY)
        self.handover.signal("clone", other_boot)

    def _on_publish(self, client, userdata, mid, reason_code, properties):
        self.handover.signal("puback", mid, reason_code.value if reason_code is not None else 0)

    def _on_message(self, client, userdata, message):
        if message.topic == self.topic("stored"):  # the archive's word: to the sender, which owns the delivery
            self.handover.signal("stored", message.payload)
            return
        if message.topic == self.topic("status"):
            # Only this table's credential can publish here: a status of another boot means another device is this
            # table (a cloned SD card) when it comes live, or is found on a reconnect (it held the table since our
            # last connection). On the first connect it is our own previous run's, nothing more.
            status = parse_json(message.payload) if message.payload else None
            if (isinstance(status, dict) and status.get("boot") != self.boot
                    and (not message.retain or self._connections > 1)):
                self._clone(str(status.get("boot"))[:32])
            return
        if message.topic == topics.collector_topic(self.settings.venue):
            self.handover.signal("collector", message.payload)
            return
        payload = message.payload
        user = topics.command_sender(message.topic)
        if user is not None:  # …/cmd/by/<user>: the broker let only that user publish here, so that is the sender
            command = parse_json(payload)
            if isinstance(command, dict):
                payload = dumps(dict(command, sender=user))
        try:
            self._on_command(payload, message.properties)
        except Exception:
            log.exception("a command could not be handled")


def expiry_properties(seconds: int | None):
    """The PUBLISH properties with an MQTT 5 Message Expiry Interval, or None for none."""
    if seconds is None:
        return None
    from paho.mqtt.packettypes import PacketTypes
    from paho.mqtt.properties import Properties

    props = Properties(PacketTypes.PUBLISH)
    props.MessageExpiryInterval = seconds
    return props


LOGIN_RETRY = 5.0  # seconds between tries to read a login file that could not be read (sooner when it changes)
BACKOFF = (1.0, 30.0)  # the outbox's retry delay after a failure: first, longest (doubling in between)


class Sender:
    """The sender thread: everything here belongs to it alone (the outbox's SQLite connections too).

    Each round it takes what was handed over, tells the :class:`~shotclock.core.delivery.Delivery`,
    publishes what is due (the newest state, the acks, the next records), moves the outbox's
    watermark and publishes a new :class:`LinkStatus` when it changed.

    Nothing ends it but the stop: a login file that cannot be read is read again (when it changes,
    or every ``LOGIN_RETRY`` s); an outbox that fails (a lock held too long, a damaged
    ``outbox.db``) is retried with a doubling delay while state and acks still go, and the failure
    is shown (the screen's mark, the retained status's ``degraded``) until it mends.
    """

    def __init__(self, link: MqttLink, outbox):
        self.link = link
        self.outbox = outbox
        self.delivery: Delivery | None = None  # made once the outbox could be read
        self.online = False
        self.last_state: bytes | None = None
        self.state_expiry: int | None = None
        self.state_due = False
        self.acks: collections.deque[bytes] = collections.deque(maxlen=ACKS_KEPT)
        self.refused = ""
        self.stopping = False
        self.saved = 0  # the watermark as written to the outbox
        self.clone_seen: float | None = None  # monotonic time of the last sign of another device as this table
        self.clone_said = -CLONE_SHOWN
        self.sent_boots: set[str] = set()  # boots of the records sent in this run (the archive's word names one)
        self.newest = 0  # the newest record handed over (while there is no delivery)
        self.login_fault: LoginProblem | None = None
        self._login_retry_at = 0.0
        self._login_signature: tuple | None = None
        self.outbox_fault = ""  # why the outbox failed last ("": it works)
        self._outbox_retry_at = 0.0
        self._backoff = BACKOFF[0]
        self.degraded_sent = ""  # the "degraded" reason the broker's retained status holds
        self.end_to_end = False  # a collector's status is on the broker: delivered means stored in the archive

    def run(self) -> None:
        """Rounds until the link stops; then what is left, for up to ``STOP_TIMEOUT``."""
        try:
            while not self.stopping:
                self.guarded_round(self.wait())
            deadline = time.monotonic() + STOP_TIMEOUT
            while (self.online and self.delivery is not None and self.delivery.pending and not self.outbox_fault
                   and time.monotonic() < deadline):
                self.guarded_round(0.05)  # a clean stop: let the last events go
        finally:
            try:
                self.outbox.close()
            except Exception:
                log.exception("the outbox could not be closed")

    def wait(self) -> float:
        """How long the next take may wait: a second, or less when a retry is due sooner."""
        due = [1.0]
        if self.outbox_fault:
            due.append(self._outbox_retry_at - time.monotonic())
        return max(0.0, min(due))

    def guarded_round(self, timeout: float) -> None:
        """One round; whatever fails in it is logged and the thread goes on (the next round tries again)."""
        try:
            self.round(self.link.handover.take(timeout))
        except Exception:
            log.exception("the network sender's round failed; it goes on")
            time.sleep(0.2)  # a fault that repeats at once must not spin the CPU the loop needs

    def round(self, taken: Taken) -> None:
        """Act on one hand-over: signals in order, then records, state and acks; send; report."""
        now = time.monotonic()
        self.try_login(now)
        for signal in taken.signals:
            self.on_signal(*signal)
        self.newest = max(self.newest, taken.newest)
        if self.delivery is not None:
            over = self.delivery.written(taken.rows, taken.newest)
            if over:
                log.error("outbox full: %d oldest records will not be delivered (they stay in the log)", over)
        if taken.state is not None:
            self.last_state, self.state_due = taken.state, True
            self.state_expiry = taken.state_expiry
        self.acks.extend(taken.acks)
        if self.online:
            client, topic = self.link.client, self.link.topic
            if self.state_due:
                client.publish(topic("state"), self.last_state, qos=1, retain=True,
                               properties=expiry_properties(self.state_expiry))
                self.state_due = False
            while self.acks:
                client.publish(topic("cmd/ack"), self.acks.popleft(), qos=1)
        self.outbox_round(now)
        self.report()

    # -- the login ----------------------------------------------------------------------------------

    def try_login(self, now: float) -> None:
        """Read the login and start connecting, unless done; a failure is said once and tried again
        when the files change or every ``LOGIN_RETRY`` s."""
        if self.link._connecting:
            return
        settings = self.link.settings
        signature = settings.files_signature()
        if self.login_fault is not None and now < self._login_retry_at and signature == self._login_signature:
            return
        self._login_signature = signature
        try:
            username, password, context = settings.login()
        except LoginProblem as problem:
            if self.login_fault is None or problem.detail != self.login_fault.detail:
                log.error("floor network: %s; the table's clock runs without it, retrying when the file "
                          "changes", problem.detail)
            self.login_fault = problem
            self._login_retry_at = now + LOGIN_RETRY
            return
        if self.login_fault is not None:
            log.info("floor network: the login can be read now; connecting")
        self.login_fault = None
        self.link.connect(username, password, context)

    # -- the outbox -----------------------------------------------------------------------------------

    def outbox_round(self, now: float) -> None:
        """Open the delivery, send the records due and move the watermark, unless a failure's retry
        is not due yet. A failure leaves everything in memory as it was: the next try goes on from there."""
        if self.outbox_fault and now < self._outbox_retry_at:
            return
        try:
            if self.delivery is None:
                self.saved = self.outbox.delivered()
                self.delivery = Delivery(self.saved, max(self.outbox.newest(), self.newest),
                                         bound=self.link.outbox_max)
                self.delivery.set_end_to_end(self.end_to_end)
                if self.online:
                    self.delivery.connected()
            d = self.delivery
            if d.online:
                self.send_records()
            if d.delivered != self.saved:
                self.outbox.set_delivered(d.delivered)
                self.saved = d.delivered
        except Exception as exc:  # sqlite3.Error above all; whatever it is, the thread goes on
            self.outbox_failed(exc, now)
            return
        if self.outbox_fault:
            log.info("the outbox works again; records are being sent")
            self.outbox_fault = ""
            self._backoff = BACKOFF[0]

    def outbox_failed(self, exc: Exception, now: float) -> None:
        """Log the failure (once per cause), close the outbox's connections, retry after a doubling delay;
        a damaged ``outbox.db`` (only a watermark) is moved aside and made anew."""
        reason = f"outbox: {exc}" if str(exc) else f"outbox: {type(exc).__name__}"
        if reason != self.outbox_fault:
            log.error("the network's outbox failed (%s); state and acks still go, events wait; retrying", exc)
        self.outbox_fault = reason
        try:
            self.outbox.close()
        except Exception:
            pass
        repair = getattr(self.outbox, "repair", None)
        if repair is not None and repair():
            if self.delivery is not None:  # what this run knows delivered still holds
                self.outbox.start_after = self.delivery.delivered
            log.error("outbox.db was damaged: moved aside; records not known to be delivered go again")
            self.delivery = None  # the watermark is read anew
            self._outbox_retry_at = now
            return
        self._outbox_retry_at = now + self._backoff
        self._backoff = min(BACKOFF[1], self._backoff * 2)

    # -- signals and status ---------------------------------------------------------------------------

    def on_signal(self, kind: str, *args) -> None:
        """One signal from another thread (see :meth:`Handover.signal`)."""
        d = self.delivery
        if kind == "connected":
            self.online = True
            if d is not None:
                d.connected()
            self.refused = ""
            self.degraded_sent = ""  # the connect published a fresh status, without it
            # The broker may have lost the retained state (a crash): the last one goes again.
            self.state_due = self.last_state is not None
        elif kind == "disconnected":
            if self.online and not self.stopping:
                log.warning("lost the broker (%s); records wait in the outbox", args[0])
            self.online = False
            if d is not None:
                d.disconnected()
        elif kind == "refused":
            self.refused = args[0]
        elif kind == "puback":
            mid, code = args
            record_id = d.acked(mid) if d is not None else None
            if record_id is not None and code >= 0x80:
                self.refused = f"event refused by the broker (reason {code})"
                log.error("the broker refused event %d (reason code %d): check the ACL", record_id, code)
        elif kind == "stored":
            stored = parse_json(args[0])
            if (d is not None and isinstance(stored, dict) and stored.get("boot") in self.sent_boots
                    and isinstance(stored.get("seq"), int) and not isinstance(stored.get("seq"), bool)):
                d.stored([stored["seq"]])
        elif kind == "collector":
            # A collector's retained status (any): the venue keeps an archive, so a record is delivered only once
            # the archive has it. None (its status removed): the broker's PUBACK is the word again.
            status = parse_json(args[0]) if args[0] else None
            self.end_to_end = isinstance(status, dict)
            if d is not None:
                d.set_end_to_end(self.end_to_end)
                if self.end_to_end and status.get("online") is True:
                    d.resend()
        elif kind == "clone":
            now = time.monotonic()
            self.clone_seen = now
            if now - self.clone_said >= CLONE_SHOWN:
                self.clone_said = now
                log.error("another device uses table %s's identity%s (a cloned SD card, or two devices given one "
                          "table_id): give each its own table id and credential", self.link.settings.table,
                          f" (boot {args[0]})" if args[0] else ", and took this one's session")
        elif kind == "stop":
            self.stopping = True

    def report(self) -> None:
        """The new :class:`LinkStatus` for the screen, and the retained status's ``degraded`` when it changed."""
        d = self.delivery
        pending = d.pending if d is not None else max(0, self.newest - self.saved)
        if self.login_fault is not None:
            fault, detail = self.login_fault.kind, self.login_fault.detail
        elif self.outbox_fault:
            fault, detail = "outbox", self.outbox_fault
        else:
            fault, detail = "", ""
        clone = self.clone_seen is not None and time.monotonic() - self.clone_seen < CLONE_SHOWN
        self.link._set_status(LinkStatus(self.online, pending, d.dropped if d is not None else 0, self.refused,
                                         fault, detail, clone))
        if self.online and detail != self.degraded_sent:
            s, link = self.link.settings, self.link
            extra = dict(link.status_extra, degraded=detail) if detail else link.status_extra
            link.client.publish(link.topic("status"), dumps(status_message(s.table, link.boot, True, **extra)),
                                qos=1, retain=True)
            self.degraded_sent = detail

    def send_records(self) -> None:
        """Publish the records the delivery says are due, reading them from the outbox when asked."""
        d, link = self.delivery, self.link
        while True:
            step = d.next()
            if isinstance(step, Read):
                d.read(step.after, self.outbox.rows_after(step.after, step.limit))
                continue
            if not step:
                return
            for row in step:
                message = event_message(link.settings.table, row.get("boot", link.boot), row)
                self.sent_boots.add(message["boot"])
                info = link.client.publish(link.topic("event"), dumps(message), qos=1)
                d.sent(info.mid, row["id"])
