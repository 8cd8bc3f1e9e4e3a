"""The device's MQTT link to the floor broker (paho-mqtt 2.x, MQTT 5): paho's side, off the main loop's thread.

Its jobs live in one module each: who the table is and how it logs in (:mod:`shotclock.adapters.mqtt_login`),
the hand-over between threads (:mod:`shotclock.adapters.handover`), the sender thread
(:mod:`shotclock.adapters.sender`) and the sender's decisions (:class:`shotclock.core.uplink.Uplink`, pure,
beside :class:`shotclock.core.delivery.Delivery`). This one is paho's side:

* paho's network thread connects, reconnects, reads commands and gets PUBACKs. It keeps only
  its own "unreachable since" for the log; everything else it hands over.
* the sender thread owns the rest (see :class:`~shotclock.adapters.sender.Sender`). It publishes through
  :meth:`MqttLink.publish`; it never waits for the network.

Every other thread -- the main loop offering a state or an ack, the log writer's status thread
offering records, paho's callbacks -- only puts into the :class:`Handover` (one lock, held for an
append) and wakes the sender. Nothing offered is lost: the newest state replaces an older one
not yet taken, records are all kept (or, past a bound, read back from the log), signals keep
their order. paho's ``on_publish`` runs while paho holds its own lock: putting into the
hand-over there is safe (its lock is never held while calling paho).
"""

from __future__ import annotations

import logging
import ssl
import threading
import time

from shotclock.adapters.handover import Handover
from shotclock.adapters.mqtt_login import LinkSettings, no_delay, private_client_id
from shotclock.core import topics
from shotclock.core.delivery import WINDOW
from shotclock.core.inbound import parse_json
from shotclock.core.uplink import CLONE_SHOWN, STOP_TIMEOUT, LinkStatus
from shotclock.core.wire import dumps, status_message

log = logging.getLogger("shotclock.network")

SESSION_TAKEN_OVER = 0x8E  # MQTT 5 reason code: a client connected with this client id
# What shotclock's broker says instead: its client-id plugin, on a Mosquitto before 2.0.15 (which closes a session
# taken over without a word), disconnects the connection being replaced with "administrative action" (0x98).
TAKEN_OVER = (SESSION_TAKEN_OVER, 0x98)
CLONE_RETRY = (20, 40)  # seconds before connecting again after another device took the session (no flapping)
# Try again at least every 0.5 s while the broker is away (a refused connect on a LAN costs nothing), so the
# dashboard and the broadcast overlay show the right clock within a second of the broker's return.
RECONNECT_DELAY = (0.25, 0.5)


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
        self.settings = settings
        self.boot = boot
        self.status_extra = status_extra or {}
        self.outbox_max = outbox_max
        self.handover = Handover()
        self._status = LinkStatus(False, 0)  # replaced, never changed, by the sender thread
        self._on_command = lambda payload, props: None
        self._on_room_state = lambda topic, payload: None
        self._on_status_change = lambda: None
        self._thread: threading.Thread | None = None
        self._unreachable_since: float | None = None  # paho's thread only
        self._clone_seen: float | None = None  # paho's thread only: the last sign of another device as this table
        self._connections = 0  # paho's thread only: connections made by this run
        self.bridge = ""  # the room broker's bridge this table reaches the venue through (paho's thread writes it)
        s = settings
        self.topic = lambda leaf: topics.table_topic(s.venue, s.table, leaf)
        self._hand_for_hand = topics.hand_for_hand_root(s.venue)
        # paho's client, made once the login is read (:meth:`set_login`): its client id comes from the password.
        self.client = None
        self.client_id = ""  # the client id it connects with (set with the client)
        self.reconnect_delay = RECONNECT_DELAY  # paho's back-off (min, max seconds), as last set
        self._tournaments = topics.tournament_topic(s.venue, "", "")[:-1]  # …/tournament/: a clock's state under it
        self._connecting = False  # set by the sender thread once the login could be read
        self.login = settings.username  # the user the broker knows this table as (set again at connect)

    def make_client(self, client_id: str):
        """paho's client for this table: MQTT 5, ``client_id``, the Last Will, the in-flight window, the back-off and
        the callbacks (a subclass adds its own)."""
        import paho.mqtt.client as mqtt

        s = self.settings
        client = mqtt.Client(mqtt.CallbackAPIVersion.VERSION2, client_id=client_id, protocol=mqtt.MQTTv5)
        client.will_set(self.topic("status"), dumps(status_message(s.table, self.boot, False, clean=False,
                                                                   **self.place())),
                        qos=1, retain=True)
        client.max_inflight_messages_set(WINDOW)
        client.reconnect_delay_set(*self.reconnect_delay)
        client.on_connect = self._on_connect
        client.on_disconnect = self._on_disconnect
        client.on_publish = self._on_publish
        client.on_message = self._on_message
        client.on_connect_fail = self._on_connect_fail
        client.on_socket_open = no_delay
        return client

    def set_reconnect_delay(self, low: float, high: float) -> None:
        """paho's back-off after a lost or refused connection: from ``low`` seconds, doubling up to ``high``."""
        self.reconnect_delay = (low, high)
        self.client.reconnect_delay_set(low, high)

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

    def online_status(self, degraded: str = "") -> bytes:
        """The retained online status: name, mode, version, place; the bridge this table's broker reaches the
        venue through (a page there shows the table unreachable while that bridge is down); what fails."""
        extra = dict(self.status_extra)
        if self.bridge:
            extra["bridge"] = self.bridge
        if degraded:
            extra["degraded"] = degraded
        return dumps(status_message(self.settings.table, self.boot, True, **extra))

    def offline_status(self) -> bytes:
        """The retained status of a clean stop: offline since now (wall clock, ms: the floor's tools say since when),
        where the table stands."""
        return dumps(status_message(self.settings.table, self.boot, False, clean=True,
                                    since_ms=int(time.time() * 1000), **self.place()))

    def place(self) -> dict:
        """Where the table stands (room, section), also in its offline status: a page that opens while the
        table is away still files it under its room."""
        return {k: v for k, v in self.status_extra.items() if k in ("room", "section")}

    # -- lifecycle -----------------------------------------------------------------------------

    def start(self, outbox, on_command=None, on_status_change=None, on_room_state=None) -> None:
        """Connect in the background and start sending; returns at once.

        :param outbox: a :class:`~shotclock.adapters.outbox.LogOutbox` or ``MemoryOutbox``; from now
            on only the sender thread uses it.
        :param on_command: called on paho's thread with (payload bytes, MQTT properties) of each command.
        :param on_status_change: called from the link's threads when it connects, loses the broker, is
            refused or has caught up (the loop wakes to redraw the screen's network mark).
        :param on_room_state: called on paho's thread with (topic, payload bytes) of each tournament clock's state
            and each of the venue's
            hand-for-hand states (retained: every one at each connect, and each change).
        """
        self.take_callbacks(on_command, on_status_change, on_room_state)
        from shotclock.adapters.sender import Sender

        sender = Sender(self, outbox)
        self._thread = threading.Thread(target=sender.run, name="shotclock-mqtt-sender", daemon=True)
        self._thread.start()  # it reads the login and connects (a missing file is retried there, not raised here)

    def take_callbacks(self, on_command=None, on_status_change=None, on_room_state=None) -> None:
        """Keep :meth:`start`'s callbacks (those given)."""
        if on_command is not None:
            self._on_command = on_command
        if on_status_change is not None:
            self._on_status_change = on_status_change
        if on_room_state is not None:
            self._on_room_state = on_room_state

    def connect(self, username: str, password: str, context: ssl.SSLContext | None) -> None:
        """Start connecting in the background with this login (the sender thread, once)."""
        self.set_login(username, password, context)
        self.client.loop_start()
        self._connecting = True

    def set_login(self, username: str, password: str, context: ssl.SSLContext | None) -> None:
        """Make paho's client for this login (its client id, its TLS context) and the broker to connect to."""
        # The client id comes from the password just read: one from a credentials file is not known before
        # (deriving it from the empty one gave every such table a client id anyone could name, and the broker,
        # which ties each table's login to its own id, refused it). paho takes a client id only when the client is
        # made, so the client is made now.
        self.client_id = private_client_id(f"shotclock-{self.settings.venue}-{self.settings.table}", password)
        client = self.make_client(self.client_id)
        client.username_pw_set(username, password)
        self.login = username  # as the credentials file gave it (the settings' own username is empty then)
        if context is not None:
            client.tls_set_context(context)
        client.connect_async(self.settings.host, self.settings.port, keepalive=self.settings.keepalive)
        self.client = client

    def stop(self, clean: bool = True) -> None:
        """Send what is left (up to ``STOP_TIMEOUT``), say offline (a clean stop), disconnect, end both threads."""
        self.handover.signal("stop")
        if self._thread:
            self._thread.join(STOP_TIMEOUT + 1)
        if not self._connecting:
            return
        if clean and self._status.connected:
            info = self.client.publish(self.topic("status"), self.offline_status(), qos=1, retain=True)
            try:
                info.wait_for_publish(STOP_TIMEOUT)
            except (RuntimeError, ValueError):
                pass
        self.client.disconnect()
        self.client.loop_stop()

    @property
    def connecting(self) -> bool:
        """True once :meth:`connect` was called (the login could be read)."""
        return self._connecting

    def publish(self, leaf: str, payload: bytes, retain: bool = False, expiry: int | None = None):
        """Publish on this table's ``leaf`` topic, QoS 1 (the sender thread); paho's message info."""
        return self.client.publish(self.topic(leaf), payload, qos=1, retain=retain, properties=expiry_properties(expiry))

    def set_status(self, status: LinkStatus) -> None:
        """The sender thread's new status; the loop is woken when the screen's mark must change now."""
        old, self._status = self._status, status
        if (status.connected != old.connected or status.refused != old.refused or status.fault != old.fault
                or status.clone != old.clone or status.taken != old.taken or status.takeovers != old.takeovers
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
            self.set_reconnect_delay(*RECONNECT_DELAY)  # no clone lately: quick again after a loss
        s = self.settings
        # Subscribe first: the broker handles one connection's packets in order, so whoever sees this
        # table online can send it a command at once (online before subscribed lost that command).
        client.subscribe([(self.topic("cmd"), 1), (topics.venue_cmd_topic(s.venue), 1),
                          (topics.collector_topic(s.venue), 1), (self.topic("stored"), 1),
                          (self.topic("status"), 1), (topics.command_topic(s.venue, s.table, "+"), 1),
                          (topics.command_topic(s.venue, None, "+"), 1), (topics.bridge_topic(s.venue, "+"), 1),
                          (topics.hand_for_hand_topic(s.venue, "+", "+"), 1),
                          (topics.tournament_topic(s.venue, "+", "state"), 1)])
        client.publish(self.topic("status"), self.online_status(), qos=1, retain=True)
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
        if getattr(reason_code, "value", 0) in TAKEN_OVER:  # another connection with this table's credential
            self._clone("", taken=str(reason_code))
        self.handover.signal("disconnected", str(reason_code))

    def _clone(self, other_boot: str, taken: str = "") -> None:
        """Another device uses this table's identity (``taken``: the broker's reason, when it said that another
        connection took this one's session): say so, and wait longer before taking the session back, so the two
        take turns every CLONE_RETRY seconds instead of flapping (paho's thread)."""
        self._clone_seen = time.monotonic()
        self.set_reconnect_delay(*CLONE_RETRY)
        if taken:
            self.handover.signal("taken", taken)
        else:
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
        room = topics.bridge_room(message.topic)
        if room is not None:
            # Only a room broker lets its tables read its bridge's state (the ACL): this table is behind it.
            if room != self.bridge:
                self.bridge = room
                self.handover.signal("restatus")
            return
        if message.topic == topics.collector_topic(self.settings.venue):
            self.handover.signal("collector", message.payload)
            return
        if message.topic.startswith(self._hand_for_hand) or message.topic.startswith(self._tournaments):
            # the venue's hand-for-hand state of a scope, or a tournament clock's state (both retained)
            try:
                self._on_room_state(message.topic, message.payload)
            except Exception:
                log.exception("the room's state on %s could not be handled", message.topic)
            return
        payload = message.payload
        # The sender is the login the broker let publish on this topic (…/cmd/by/<user>: that user; a plain …/cmd:
        # the shared floor login), never what the payload claims.
        command = parse_json(payload)
        if isinstance(command, dict):
            payload = dumps(dict(command, sender=topics.command_sender(message.topic)))
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
