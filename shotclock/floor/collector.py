"""``shotclock floor collect``: every table's events into one archive, nothing lost, nothing twice.

The collector keeps a persistent MQTT session (the broker queues events while it is away)
and acknowledges each event only after it is stored (paho's manual acks), so a crash of the
collector loses nothing either. The network thread checks each event and hands it to the store
thread, which commits what arrived meanwhile in one transaction (one sync for them all: what makes
PostgreSQL's commits affordable), then tells each table (``…/table/<id>/stored``), which keeps the
record in its outbox until then, so a crash of the broker loses nothing, and acknowledges each. Duplicates -- a
device resends what it cannot know was delivered -- are dropped on (table, boot, seq).

Nothing from the network is trusted (docs/network.md, threat model): the table is the one the
topic names (the ACL ties it to the credential), every field is checked
(:mod:`shotclock.core.inbound`), and a bad message is refused, counted and acknowledged, never
left to block the queue or end a thread. One collector per venue is active; a second one with
another archive stands by (:meth:`Collector.start`).

Collectors on several machines share the load: the members of one MQTT 5 shared subscription group
(``$share/<group>/…``) each receive a part of the events, and all write the same PostgreSQL database
(``--archive postgresql://…``; an SQLite file has one writer at a time, so a share group needs PostgreSQL).
Each member has its own session (``member``), so what the broker gave a member that is away a moment waits
for it. Mosquitto deals a group's messages out in turn to every member whose session exists,
connected or not, and drops what a session holds when it ends: so a member's session ends
``member_expiry`` seconds after it is gone (stopped or killed: a quick restart keeps its share), and
its Last Will, sent then (its Will Delay Interval), says so on ``…/collector/member/<group>/<member>``. The others then
say online again on the collector's status, and each table sends again what the archive has not
confirmed (it keeps every record until the archive's word): the part the gone member held arrives
through the members left, and the archive drops what it has twice.

The collector also watches the floor network itself: a room broker's bridge going down (its tables
are unreachable, whatever their last retained status says) and a share group's member gone, each
logged and kept in the archive's ``network`` table (:meth:`Archive.note`).

And it keeps the broadcast overlay's history: what a delayed overlay draws from beside the records (every table's
states and statuses, the feature table, the bridges; QoS 0, never queued for it while it is away) for the longest
delay, on a thread of its own that never holds the records back (what it cannot keep in time is dropped and
counted), so an overlay that is reloaded asks for it and shows at once what it showed
(:mod:`shotclock.floor.history`).
"""

from __future__ import annotations

import collections
import logging
import os
import queue
import signal
import threading
import time
from datetime import datetime, timezone

from shotclock.adapters.mqtt_login import no_delay, private_client_id
from shotclock.core.codec import encode, text
from shotclock.core.fields import DELAY_MAX
from shotclock.core.inbound import Heard, Refused, check_event, check_heard, event_id, parse_json, read_question
from shotclock.core.topics import (TOURNAMENT_TABLE, all_tables, archive_topic, bridge_room, bridge_topic, check_name,
                                   collector_topic, feature_topic, member_topic, split_table_topic,
                                   split_tournament_topic, table_topic, tournament_topic, venue_root)
from shotclock.floor.answering import Answerer
from shotclock.adapters.archive import Archive, is_database_url
from shotclock.errors import ShotclockError

log = logging.getLogger("shotclock.collector")
ACTIVE, STANDBY = "active", "standby"
SESSION_TAKEN_OVER = 0x8E  # MQTT 5 reason code: another client connected with this client id
LOG_EVERY = 60.0  # seconds between two log lines about one table's refused messages of one kind
DISCONNECT_WITH_WILL = 0x04  # MQTT 5 DISCONNECT reason code: keep the Will (sent after its delay)
MEMBER_EXPIRY = 30  # seconds a share group member may be away before the broker ends its session (its share)
BATCH = 100  # events committed in one transaction at most (those that arrived while the last one was stored)
WAITING = 1000  # checked events waiting for the store thread; past that the network thread waits (backpressure)
HEARD_WAITING = 5000  # the overlay's messages waiting for their thread; past that they are dropped (and counted)
HEARD_BATCH = 500  # the overlay's messages kept in one transaction at most
HEARD_KEPT_MS = (DELAY_MAX + 60) * 1000  # how long the overlay's history is kept: the longest delay, and a minute
FORGET_EVERY = 60.0  # seconds between two clean-ups of the overlay's history
ONLY_HISTORY = "only a history question is answered on this topic (the overlay's)"
SHARE_NEEDS_POSTGRESQL = ("--share needs an archive in PostgreSQL (--archive postgresql://…): collectors sharing one "
                          "SQLite file wait for its one writer and store no more than one alone (docs/network.md)")


class Collector:
    """Subscribes to ``…/table/+/event`` of a venue and stores every event in an :class:`Archive`.

    :param archive: the open archive.
    :param host: the broker; :param port: its port.
    :param venue: the venue's name in the topics.
    :param username: :param password: the collector's credential.
    :param tls: use TLS (with ``ca_file``, or the system's CAs).
    :param share: an MQTT 5 shared-subscription group: this collector gets a part of the events, the
        group's other members (same archive, in PostgreSQL) the rest; ``member`` names this one (its session).
    :param member_expiry: seconds a member's session outlives it (a quick restart keeps its share).
    """

    def __init__(self, archive: Archive, host: str, port: int, venue: str, username: str, password: str,
                 tls: bool = False, ca_file: str = "", share: str = "", member: str = "",
                 member_expiry: int = MEMBER_EXPIRY):
        import paho.mqtt.client as mqtt
        from paho.mqtt.packettypes import PacketTypes
        from paho.mqtt.properties import Properties

        if share and archive.db.kind == "sqlite":
            raise ShotclockError(SHARE_NEEDS_POSTGRESQL)
        self.archive = archive
        archive.adopt(venue)  # its records are this venue's (one database may hold a tour's venues)
        # Questions never hold the records back (answering.py); a page hears of its own venue's records only.
        self.answerer = Answerer(archive.db.spec, venue=venue)
        archive.checkpoint_apart()  # no store waits for SQLite's WAL to be copied into the file
        self.venue = venue
        self.host, self.port = host, port
        self.connected = threading.Event()
        self.refused: collections.Counter[str] = collections.Counter()  # reason → messages refused
        self.storage_fault = ""  # the archive's last error while it cannot store
        self._said: dict[tuple[str, str], float] = {}
        self._refused_lock = threading.Lock()  # both threads count refusals
        self._stopping = threading.Event()
        self._to_store: queue.Queue = queue.Queue(maxsize=WAITING)  # (message, table, event) checked, not stored
        self._storer: threading.Thread | None = None
        self._heard: queue.Queue = queue.Queue(maxsize=HEARD_WAITING)  # (Heard, received ms) for the overlay's history
        self._last_heard: dict[str, object] = {}  # topic → the last kept (boot, seq) or payload: a repeat is not kept
        self._keeper: threading.Thread | None = None
        self.heard_dropped = 0  # the overlay's messages not kept (its thread fell behind, or the store failed)
        # One archive per venue: this collector is the active one, or stands by (see start()). A share group's
        # members on several machines name their one database alike (its id, whatever host name each reaches it by).
        self.instance = archive.db.instance()
        self.role = ""  # ACTIVE or STANDBY once known
        self.standing_by = threading.Event()
        self.watcher = None
        self.loops: dict = {}  # each client's paho loop thread, as its connection attempts show it (on_pre_connect)
        self._role_lock = threading.Lock()
        self._looked = threading.Event()
        self._other: str | None = None  # the instance of another active collector, from its retained status
        self._probe_mid = -1
        self._login = (username, password)
        self._tls = None
        self.share, self.member = share, member
        self.bridges: dict[str, bool] = {}  # room → its bridge connected (the venue broker's word)
        self.behind: dict[str, str] = {}  # table → the room broker's bridge it reaches the venue through
        self.members: dict[str, bool] = {}  # "group/member" → online (share groups' retained statuses)
        session = f"shotclock-collector-{venue}" + (f"-{share}-{member}" if share else "")
        self.client = mqtt.Client(mqtt.CallbackAPIVersion.VERSION2, client_id=private_client_id(session, password),
                                  protocol=mqtt.MQTTv5, manual_ack=True)
        self.client.username_pw_set(username, password)
        if tls:
            import ssl

            self._tls = ssl.create_default_context(cafile=ca_file or None)
            self.client.tls_set_context(self._tls)
        self.client.reconnect_delay_set(0.25, 5)
        self._session = Properties(PacketTypes.CONNECT)
        # A lone collector: a week away and the broker still queues. A share group's member: the group's others
        # take over its share once its session ends (Mosquitto deals a group's events to absent members too).
        self._session.SessionExpiryInterval = member_expiry if share else 7 * 24 * 3600
        self._will = None
        if share:
            self._will = Properties(PacketTypes.WILLMESSAGE)
            self._will.WillDelayInterval = member_expiry  # sent when the session ends, not when the member drops
        self.client.on_connect = self._on_connect
        self.client.on_message = self._on_message
        self.client.on_subscribe = self._on_subscribe
        self.client.on_disconnect = self._on_disconnect
        self.client.on_socket_open = no_delay
        self.client.on_pre_connect = self._note_loop
        self.client.suppress_exceptions = True  # a callback's error is logged by paho, its thread goes on

    def start(self) -> None:
        """Look for another collector of this venue, then collect (active) or stand by; returns at once.

        The venue has one archive: a collector whose retained status (``…/collector/status``) says another
        archive is online stands by, and takes over when that one goes offline (its Last Will). One that
        finds the session taken over by another stands by too, instead of taking it back (no flapping).
        """
        import paho.mqtt.client as mqtt

        self._start_storer()
        self._start_keeper()
        self.watcher = mqtt.Client(mqtt.CallbackAPIVersion.VERSION2, protocol=mqtt.MQTTv5,
                                   client_id=private_client_id(f"shotclock-collector-{self.venue}-watch-{os.getpid()}",
                                                                self._login[1]))
        self.watcher.username_pw_set(*self._login)
        if self._tls:
            self.watcher.tls_set_context(self._tls)
        if self.share:  # the member's own session's Will says when its share is released (see _activate)
            self.watcher.will_set(collector_topic(self.venue), self._status(False), qos=1, retain=True)
        self.watcher.reconnect_delay_set(0.25, 5)
        self.watcher.suppress_exceptions = True
        self.watcher.on_pre_connect = self._note_loop
        self.watcher.on_connect = lambda c, *a: c.subscribe([(collector_topic(self.venue), 1),
                                                             (bridge_topic(self.venue, "+"), 1),
                                                             (all_tables(self.venue, "status"), 1),
                                                             (member_topic(self.venue, "+", "+"), 1)])
        self.watcher.on_subscribe = self._on_watch_subscribe
        self.watcher.on_message = self._on_watched
        self.watcher.connect_async(self.host, self.port, keepalive=30)
        self.watcher.loop_start()

    def _on_watch_subscribe(self, client, userdata, mid, reason_codes, properties):
        # A second subscription after the first: its SUBACK comes after the first's retained status (one
        # connection's packets are handled in order), so by then we know whether another collector is active.
        if not self._looked.is_set() and mid != self._probe_mid:
            self._probe_mid = client.subscribe(archive_topic(self.venue, "probe"), 0)[1]
            return
        if not self._looked.is_set():
            self._looked.set()
            with self._role_lock:
                other = self._other
            if other:
                self._stand_by(f"collector {other!r} is active")
            else:
                self._activate()

    def _on_watched(self, client, userdata, message):
        try:
            room = bridge_room(message.topic)
            where = split_table_topic(message.topic)
            if message.topic == collector_topic(self.venue):
                self._on_collector_status(client, userdata, message)
            elif room is not None:
                self._on_bridge(room, message.payload)
            elif where is not None and where[2] == "status":
                status = parse_json(message.payload) if message.payload else None
                bridge = status.get("bridge") if isinstance(status, dict) else None
                if isinstance(bridge, str) and not check_name("room", bridge):
                    self.behind[where[1]] = bridge
                else:
                    self.behind.pop(where[1], None)
            elif message.topic.startswith(member_topic(self.venue, "", "")[:-1]):
                self._on_member(message.topic.split("/")[-2:], message.payload)
        except Exception:
            log.exception("a message on %s could not be handled", message.topic)

    def _on_bridge(self, room: str, payload: bytes) -> None:
        """A room broker's bridge connected (``1``) or not (``0``): its tables are unreachable while it is down."""
        if payload not in (b"0", b"1"):
            return
        up = payload == b"1"
        was = self.bridges.get(room)
        self.bridges[room] = up
        tables = sorted((t for t, r in self.behind.items() if r == room), key=lambda t: (len(t), t))
        detail = f"tables {', '.join(tables)}" if tables else "no table known behind it"
        if was is not up:
            if up:
                log.info("room %s's broker is connected again (%s)", room, detail)
            else:
                log.warning("room %s's broker is not connected: %s unreachable, whatever their last status says",
                            room, detail)
        self._note("bridge", room, up, detail)

    def _on_member(self, names: list[str], payload: bytes) -> None:
        """A share group member's status: one gone released its share, so the tables send again what the archive
        has not confirmed (the broker dropped what that member's session held) and the members left archive it."""
        status = parse_json(payload) if payload else None
        if not isinstance(status, dict) or not isinstance(status.get("online"), bool):
            return
        key, up = "/".join(names), status["online"]
        was = self.members.get(key)
        self.members[key] = up
        if names == [self.share, self.member]:
            return
        if was is not up and not up:
            log.warning("collector %s of share group %s is gone (%s): the group's others take its share; the tables "
                        "send again what the archive has not confirmed", names[1], names[0],
                        "it stopped" if status.get("clean") else "its session ended")
        elif was is False and up:
            log.info("collector %s of share group %s is back", names[1], names[0])
        self._note("member", key, up, "stopped" if status.get("clean") else "" if up else "its session ended")
        if not up and names[0] == self.share and self.role == ACTIVE and self.client.is_connected() \
                and not self._stopping.is_set():
            self.client.publish(collector_topic(self.venue), self._status(True), qos=1, retain=True)

    def _note(self, kind: str, name: str, up: bool, detail: str) -> None:
        try:
            self.archive.note(kind, name, up, detail)
        except self.archive.db.errors as exc:
            log.error("cannot note in the archive that %s %s is %s: %s", kind, name, "up" if up else "down", exc)

    def _member_status(self, online: bool, clean: bool = False) -> str:
        status = {"online": online, "group": self.share, "member": self.member, "instance": self.instance,
                  "since": datetime.now(timezone.utc).isoformat(timespec="seconds")}
        if not online:
            status["clean"] = clean
        return text(status)

    def _on_collector_status(self, client, userdata, message):
        status = parse_json(message.payload) if message.payload else None
        online = isinstance(status, dict) and status.get("online") is True
        instance = status.get("instance") if isinstance(status, dict) else None
        with self._role_lock:
            self._other = instance if online and instance != self.instance else None
            take_over = self.role == STANDBY and not self._other and self._looked.is_set()
            # A member of a share group that left said "offline" for the archive the others still keep.
            still_here = (self.share and self.role == ACTIVE and not online and instance == self.instance
                          and self.client.is_connected())
        if still_here and not self._stopping.is_set():
            self.client.publish(collector_topic(self.venue), self._status(True), qos=1, retain=True)
        if take_over and not self._stopping.is_set():
            log.warning("the active collector went offline: this one takes over (archive %s)", self.archive.name)
            self._activate()

    def _activate(self) -> None:
        with self._role_lock:
            if self.role == ACTIVE or self._stopping.is_set():
                return
            self.role = ACTIVE
        self.client.loop_stop()  # a thread left from before standing by (it has ended)
        if self.share:  # said when the broker ends the session (the Will Delay Interval): the share is released
            self.client.will_set(member_topic(self.venue, self.share, self.member), self._member_status(False),
                                 qos=1, retain=True, properties=self._will)
        else:
            self.client.will_set(collector_topic(self.venue), self._status(False), qos=1, retain=True)
        self.client.connect_async(self.host, self.port, keepalive=30, clean_start=False, properties=self._session)
        self.client.loop_start()

    def _stand_by(self, why: str) -> None:
        with self._role_lock:
            self.role = STANDBY
        self.standing_by.set()
        log.warning("standing by: %s; this collector takes over when it goes offline (one archive for the "
                    "venue)", why)

    def _status(self, online: bool, clean: bool = False) -> str:
        status = {"online": online, "instance": self.instance, "archive": str(self.archive.name)}
        if not online:
            status["clean"] = clean
        return text(status)

    def stop(self) -> None:
        """Disconnect; the broker keeps the session and queues events until the next start. A share group's
        member says it stopped and keeps its Last Will (MQTT 5's "disconnect with Will Message"): its session
        waits ``member_expiry`` for a restart; past that the Will says it is gone and the others take over."""
        from paho.mqtt.packettypes import PacketTypes
        from paho.mqtt.reasoncodes import ReasonCode

        self._stopping.set()
        end = None
        if self.role == ACTIVE and self.client.is_connected():
            said = [self.client.publish(collector_topic(self.venue), self._status(False, clean=True), qos=1,
                                        retain=True)]
            if self.share:
                said.append(self.client.publish(member_topic(self.venue, self.share, self.member),
                                                self._member_status(False, clean=True), qos=1, retain=True))
                end = ReasonCode(PacketTypes.DISCONNECT, identifier=DISCONNECT_WITH_WILL)
            for info in said:
                try:
                    info.wait_for_publish(2)
                except (RuntimeError, ValueError):
                    pass
        self.client.disconnect(reasoncode=end)
        self.client.loop_stop()
        for thread in (self._storer, self._keeper):  # each ends within a moment: it waits on nothing longer than 0.5 s
            if thread is not None:
                thread.join(10)
        self.answerer.stop()
        if self.watcher is not None:
            self.watcher.disconnect()
            self.watcher.loop_stop()

    def check_threads(self) -> None:
        """Restart a network thread that ended (it should not: every callback catches its errors), saying so."""
        self.answerer.check()
        if self._storer is not None and not self._storer.is_alive() and not self._stopping.is_set():
            log.error("the collector's store thread ended; starting it again")
            self._start_storer()
        if self._keeper is not None and not self._keeper.is_alive() and not self._stopping.is_set():
            log.error("the collector's history thread ended; starting it again")
            self._start_keeper()
        for name, client, wanted in (("collector", self.client, self.role == ACTIVE), ("watcher", self.watcher, True)):
            thread = self.loops.get(client)
            if wanted and thread is not None and not thread.is_alive() and not self._stopping.is_set():
                log.error("the %s's network thread ended; starting it again", name)
                self.loops.pop(client, None)  # the new thread notes itself at its first connection attempt
                client.loop_stop()
                client.reconnect_delay_set(0.25, 5)
                client.connect_async(self.host, self.port, keepalive=30,
                                     **({"clean_start": False, "properties": self._session} if client is self.client
                                        else {}))
                client.loop_start()

    def _note_loop(self, client, userdata) -> None:
        """paho's ``on_pre_connect``, called on its loop thread before each connection attempt: note the thread."""
        self.loops[client] = threading.current_thread()

    def _on_connect(self, client, userdata, flags, reason_code, properties):
        if reason_code.is_failure:
            log.error("the broker refused the collector: %s", reason_code)
            return
        shared = f"$share/{self.share}/" if self.share else ""  # each question answered once too
        # The overlay's history at QoS 0: what the broker holds while the collector is away is no history.
        heard = [all_tables(self.venue, "state"), all_tables(self.venue, "status"), feature_topic(self.venue),
                 bridge_topic(self.venue, "+")]
        client.subscribe([(shared + all_tables(self.venue, "event"), 1), (shared + archive_topic(self.venue, "get"), 1),
                          (shared + archive_topic(self.venue, "history/get"), 1),
                          (shared + tournament_topic(self.venue, "+", "event"), 1)] +
                         [(shared + topic, 0) for topic in heard])
        client.publish(collector_topic(self.venue), self._status(True), qos=1, retain=True)
        if self.share:
            client.publish(member_topic(self.venue, self.share, self.member), self._member_status(True), qos=1,
                           retain=True)
        log.info("collecting venue %r from %s:%d%s%s", self.venue, self.host, self.port,
                 f" (shared with group {self.share!r})" if self.share else "",
                 " (resumed session)" if flags.session_present else "")

    def _on_disconnect(self, client, userdata, flags, reason_code, properties):
        self.connected.clear()
        self.answerer.history_since_ms = None  # what the tables say while it is away is not heard: a gap
        if getattr(reason_code, "value", 0) == SESSION_TAKEN_OVER and not self._stopping.is_set():
            client.disconnect()  # no reconnect: taking the session back would make the two collectors flap
            self._stand_by("another collector took over this venue's session")

    def _on_subscribe(self, client, userdata, mid, reason_codes, properties):
        if not self.connected.is_set():
            log.info("subscribed: every table's events are kept from now on")  # floor-demo waits for this line
        if self.answerer.history_since_ms is None:  # the overlay's history is whole from now on
            self.answerer.history_since_ms = round(time.time() * 1000)
        self.connected.set()  # only now does the broker queue the tables' events for this session

    def _on_message(self, client, userdata, message):
        # Whatever a message holds, it is answered, refused or handed to the store thread, and this thread goes on:
        # paho's network thread is the collector's only reader (an exception here would end it).
        try:
            if message.topic in (archive_topic(self.venue, "get"), archive_topic(self.venue, "history/get")):
                self._answer(message)
            elif message.topic.startswith(venue_root(self.venue) + "/") and not message.topic.endswith("/event"):
                self._hear(message)
            else:
                checked = self._check(message)
                if checked is not None:
                    self._queue(message, *checked)
                    return  # acknowledged by the store thread once committed
        except Exception:
            log.exception("a message on %s could not be handled; acknowledged and skipped", message.topic)
            self._refuse("?", "error", "could not be handled")
        self._ack(message)

    def _hear(self, message) -> None:
        """A message for the overlay's history: checked, handed to its thread unless it repeats the last of its topic
        (a retained message again after a reconnect); dropped and counted when that thread is behind."""
        topic = message.topic[len(venue_root(self.venue)) + 1:]
        heard = check_heard(topic, message.payload)
        if isinstance(heard, Refused):
            self._refuse(topic.split("/")[1] if topic.startswith("table/") else "?", heard.reason, heard.detail)
            return
        if heard is None:
            return
        key = (heard.boot, heard.seq) if heard.seq else heard.payload
        if self._last_heard.get(topic) == key:
            return
        self._last_heard[topic] = key
        try:
            self._heard.put_nowait((heard, round(time.time() * 1000)))
        except queue.Full:
            self.heard_dropped += 1

    def _start_keeper(self) -> None:
        self._keeper = threading.Thread(target=self._keep_loop, name="collector-history", daemon=True)
        self._keeper.start()

    def _keep_loop(self) -> None:
        """The overlay history's thread: what waits is kept in one transaction, and once a minute what is older than
        the longest delay is forgotten. A store that fails costs the history those messages, never a record."""
        forgot = time.monotonic()
        while not self._stopping.is_set():
            try:
                batch: list[tuple[Heard, int]] = [self._heard.get(timeout=0.5)]
            except queue.Empty:
                batch = []
            while batch and len(batch) < HEARD_BATCH:
                try:
                    batch.append(self._heard.get_nowait())
                except queue.Empty:
                    break
            try:
                if batch:
                    self.archive.keep_heard(batch)
                if time.monotonic() - forgot >= FORGET_EVERY:
                    forgot = time.monotonic()
                    self.archive.forget_heard(round(time.time() * 1000) - HEARD_KEPT_MS)
            except Exception as exc:
                self.heard_dropped += len(batch)
                now = time.monotonic()
                with self._refused_lock:
                    said = now - self._said.get(("", "history"), -LOG_EVERY) >= LOG_EVERY
                    if said:
                        self._said[("", "history")] = now
                if said:
                    log.error("the overlay's history cannot be kept (%s): %d messages dropped so far", exc,
                              self.heard_dropped)

    def _ack(self, message) -> None:
        try:
            self.client.ack(message.mid, message.qos)
        except Exception:
            log.exception("cannot acknowledge a message on %s", message.topic)

    def _check(self, message) -> tuple[str, dict] | None:
        """(table, event) for an event to store; None when it is refused (counted, and the table told)."""
        where = split_table_topic(message.topic)
        clock = split_tournament_topic(message.topic)
        if clock is not None and clock[0] == self.venue and clock[2] == "event":  # a tournament clock's change
            where = (clock[0], TOURNAMENT_TABLE + clock[1], "event")
        if where is None or where[0] != self.venue or where[2] != "event":
            self._refuse("?", "topic", f"not a table's event topic: {message.topic[:80]!r}")
            return None
        table = where[1]
        event = check_event(message.payload, table)
        if isinstance(event, Refused):
            self._refuse(table, event.reason, event.detail)
            known = event_id(message.payload)
            if known:  # dealt with (refused, counted): the table's outbox need not hold it up for ever
                self._tell(table, {"boot": known[0], "seq": known[1], "refused": event.reason})
            return None
        return table, event

    def _queue(self, message, table: str, event: dict) -> None:
        """Hand a checked event to the store thread, waiting while it has :data:`WAITING` (the broker then holds the
        rest); a collector that stops meanwhile leaves it unacknowledged (the broker sends it again)."""
        while not self._stopping.is_set():
            try:
                self._to_store.put((message, table, event), timeout=0.5)
                return
            except queue.Full:
                continue

    def _start_storer(self) -> None:
        self._storer = threading.Thread(target=self._store_loop, name="collector-store", daemon=True)
        self._storer.start()

    def _store_loop(self) -> None:
        """The store thread: what waits (up to :data:`BATCH` events) is stored in one transaction, then each event's
        table is told and the broker acknowledged. Nothing that goes wrong ends this thread."""
        while not self._stopping.is_set():
            try:
                batch = [self._to_store.get(timeout=0.5)]
            except queue.Empty:
                continue
            while len(batch) < BATCH:
                try:
                    batch.append(self._to_store.get_nowait())
                except queue.Empty:
                    break
            try:
                if not self._store([event for _, _, event in batch]):
                    return  # stopping: none acknowledged, the broker sends them again
                for message, table, event in batch:
                    # The archive's word to the table (end to end): only now is the record delivered, so a broker
                    # that crashed before saving it cannot lose it (the device keeps it until this arrives).
                    self._tell(table, {"boot": event["boot"], "seq": event["seq"]})
                    self._ack(message)
            except Exception:
                log.exception("%d events could not be handled; acknowledged and skipped", len(batch))
                for message, table, _ in batch:
                    self._refuse(table, "error", "could not be handled")
                    self._ack(message)

    def _tell(self, table: str, word: dict) -> None:
        """The archive's word about one event, on the table's own ``stored`` topic (docs/network.md, stored); a
        tournament clock sends its changes again at every start instead (the archive keeps each once)."""
        if table.startswith(TOURNAMENT_TABLE):
            return
        self.client.publish(table_topic(self.venue, table, "stored"), encode(word), qos=1)

    def _store(self, events: list[dict]) -> bool:
        """Add ``events`` to the archive, committed together when this returns; a fault of the store (a full or
        locked disk, a database server gone) is retried with backoff until it goes or the collector stops (False),
        and a value the store will not take is refused, that event alone."""
        delay = 0.1
        refusals = self.archive.db.refusals + (OverflowError, ValueError, TypeError, KeyError)
        faults = self.archive.db.errors + (OSError,)
        while True:
            try:
                self.archive.add_many(events)
                if self.storage_fault:
                    log.info("storing again (after: %s)", self.storage_fault)
                    self.storage_fault = ""
                return True
            except refusals as exc:
                if len(events) > 1:  # one of them: each alone, so the others are kept
                    return all(self._store([event]) for event in events)
                self._refuse(events[0].get("table", "?"), "storage", f"the archive cannot take it: {exc}")
                return True
            except faults as exc:
                self.storage_fault = str(exc)
                log.error("cannot store %d events (%s); retrying in %.1f s", len(events), exc, delay)
                if self._stopping.wait(delay):
                    return False
                delay = min(delay * 2, 5.0)

    def _refuse(self, table: str, reason: str, detail: str) -> None:
        """Count a refused message; say so in the log at most once a minute per table and reason."""
        with self._refused_lock:
            self.refused[reason] += 1
            key = (table, reason)
            now = time.monotonic()
            said = now - self._said.get(key, -LOG_EVERY) >= LOG_EVERY
            if said:
                self._said[key] = now
        if said:
            log.warning("refused a message of table %s (%s): %s (%d refused so far)", table, reason, detail,
                        sum(self.refused.values()))

    def _answer(self, message) -> None:
        """A page's question about the archive, answered on its Response Topic (shotclock.floor.answers) by the
        answering thread, so a long question never holds the tables' records back. The overlay's topic
        (``archive/history/get``, its replies on ``archive/history/reply/…``) takes history questions only: its
        login reads what it would have read live, nothing of the archive's past."""
        props = getattr(message, "properties", None)
        reply_to = getattr(props, "ResponseTopic", None)
        history = message.topic == archive_topic(self.venue, "history/get")
        answers_to = archive_topic(self.venue, "history/reply/" if history else "reply/")
        if not reply_to or not reply_to.startswith(answers_to):
            return  # nowhere (or nowhere allowed) to answer
        question = read_question(message.payload)
        problem = question.detail if isinstance(question, Refused) else None
        if not problem and history and question.get("what") != "history":
            problem = ONLY_HISTORY
        reply = self._reply_properties(getattr(props, "CorrelationData", None))

        def send(result: dict) -> None:
            body = encode(result)
            self.client.publish(reply_to, body, qos=1, properties=reply)

        if problem:
            self._refuse("?", "question", problem)
            send({"ok": False, "reason": problem})
        else:
            self.answerer.ask(question, send)

    def _reply_properties(self, correlation):
        from paho.mqtt.packettypes import PacketTypes
        from paho.mqtt.properties import Properties

        props = Properties(PacketTypes.PUBLISH)
        if correlation is not None:
            props.CorrelationData = correlation
        props.MessageExpiryInterval = 30
        return props


def cmd_collect(args) -> int:
    """``shotclock floor collect``: run until interrupted."""
    from shotclock.adapters.mqtt_login import read_credentials
    from shotclock.floor.broker_config import parse_endpoint

    problem = check_name("venue", args.venue)
    if problem:
        raise ShotclockError(problem)
    share, member = getattr(args, "share", None) or "", getattr(args, "member", None) or ""
    for option, value in (("--share", share), ("--member", member)):
        problem = check_name(option, value) if value else None
        if problem:
            raise ShotclockError(problem)
    if bool(share) != bool(member):
        raise ShotclockError("--share GROUP and --member NAME go together (each member its own session)")
    if share and not is_database_url(args.archive):
        raise ShotclockError(SHARE_NEEDS_POSTGRESQL)
    expiry = getattr(args, "member_expiry", MEMBER_EXPIRY)
    if not 1 <= expiry <= 24 * 3600:
        raise ShotclockError(f"--member-expiry must be from 1 to 86400 seconds, not {expiry}")
    endpoint = parse_endpoint(args.broker, "--broker")
    username, password = read_credentials(args.credentials)
    archive = Archive(args.archive)
    collector = Collector(archive, endpoint.host, endpoint.port, args.venue, username, password,
                          tls=args.tls, ca_file=args.ca_file or "", share=share, member=member, member_expiry=expiry)
    stop = threading.Event()
    for s in (signal.SIGTERM, signal.SIGINT):
        signal.signal(s, lambda *a: stop.set())
    collector.start()
    log.info("archive: %s", archive.name)
    while not stop.wait(60):
        collector.check_threads()
        log.info("%s: %d events stored, %d duplicates dropped, %d messages refused%s", collector.role or "starting",
                 archive.added, archive.duplicates, sum(collector.refused.values()),
                 "".join(f", {n} {why}" for why, n in sorted(collector.refused.items())))
    collector.stop()
    log.info("stopped: %d events stored this run, %d duplicates dropped, %d refused", archive.added,
             archive.duplicates, sum(collector.refused.values()))
    archive.close()
    return 0
