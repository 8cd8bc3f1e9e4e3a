"""``shotclock floor collect``: every table's events into one archive, nothing lost, nothing twice.

The collector keeps a persistent MQTT session (the broker queues events while it is away)
and acknowledges each event only after it is stored (paho's manual acks), so a crash of the
collector loses nothing either. Duplicates -- a device resends what it cannot know was
delivered -- are dropped on (table, boot, seq).
"""

from __future__ import annotations

import collections
import json
import logging
import signal
import sqlite3
import threading
import time

from shotclock.adapters.mqtt import no_delay
from shotclock.core.inbound import Refused, check_event, check_question, parse_json
from shotclock.core.topics import all_tables, archive_topic, check_name, split_table_topic
from shotclock.floor import answers
from shotclock.adapters.archive import Archive

log = logging.getLogger("shotclock.collector")
LOG_EVERY = 60.0  # seconds between two log lines about one table's refused messages of one kind


class Collector:
    """Subscribes to ``…/table/+/event`` of a venue and stores every event in an :class:`Archive`.

    :param archive: the open archive.
    :param host: the broker; :param port: its port.
    :param venue: the venue's name in the topics.
    :param username: :param password: the collector's credential.
    :param tls: use TLS (with ``ca_file``, or the system's CAs).
    """

    def __init__(self, archive: Archive, host: str, port: int, venue: str, username: str, password: str,
                 tls: bool = False, ca_file: str = ""):
        import paho.mqtt.client as mqtt
        from paho.mqtt.packettypes import PacketTypes
        from paho.mqtt.properties import Properties

        self.archive = archive
        self.venue = venue
        self.host, self.port = host, port
        self.connected = threading.Event()
        self.refused: collections.Counter[str] = collections.Counter()  # reason → messages refused
        self.storage_fault = ""  # the archive's last error while it cannot store
        self._said: dict[tuple[str, str], float] = {}
        self._stopping = threading.Event()
        self.client = mqtt.Client(mqtt.CallbackAPIVersion.VERSION2, client_id=f"shotclock-collector-{venue}",
                                  protocol=mqtt.MQTTv5, manual_ack=True)
        self.client.username_pw_set(username, password)
        if tls:
            import ssl

            self.client.tls_set_context(ssl.create_default_context(cafile=ca_file or None))
        self.client.reconnect_delay_set(0.25, 5)
        self._session = Properties(PacketTypes.CONNECT)
        self._session.SessionExpiryInterval = 7 * 24 * 3600  # a week away and the broker still queues
        self.client.on_connect = self._on_connect
        self.client.on_message = self._on_message
        self.client.on_subscribe = self._on_subscribe
        self.client.on_disconnect = lambda *a: self.connected.clear()
        self.client.on_socket_open = no_delay
        self.client.suppress_exceptions = True  # a callback's error is logged by paho, its thread goes on

    def start(self) -> None:
        """Connect (in the background, retrying) and collect."""
        self.client.connect_async(self.host, self.port, keepalive=30, clean_start=False, properties=self._session)
        self.client.loop_start()

    def stop(self) -> None:
        """Disconnect; the broker keeps the session and queues events until the next start."""
        self._stopping.set()
        self.client.disconnect()
        self.client.loop_stop()

    def _on_connect(self, client, userdata, flags, reason_code, properties):
        if reason_code.is_failure:
            log.error("the broker refused the collector: %s", reason_code)
            return
        client.subscribe([(all_tables(self.venue, "event"), 1), (archive_topic(self.venue, "get"), 1)])
        log.info("collecting venue %r from %s:%d%s", self.venue, self.host, self.port,
                 " (resumed session)" if flags.session_present else "")

    def _on_subscribe(self, client, userdata, mid, reason_codes, properties):
        if not self.connected.is_set():
            log.info("subscribed: every table's events are kept from now on")  # floor-demo waits for this line
        self.connected.set()  # only now does the broker queue the tables' events for this session

    def _on_message(self, client, userdata, message):
        # Whatever a message holds, it is answered or refused, acknowledged, and this thread goes on:
        # paho's network thread is the collector's only reader (an exception here would end it).
        try:
            if message.topic == archive_topic(self.venue, "get"):
                self._answer(message)
            elif not self._collect(message):
                return  # not stored and not refused: the broker sends it again after a reconnect
        except Exception:
            log.exception("a message on %s could not be handled; acknowledged and skipped", message.topic)
            self._refuse("?", "error", "could not be handled")
        try:
            client.ack(message.mid, message.qos)
        except Exception:
            log.exception("cannot acknowledge a message on %s", message.topic)

    def _collect(self, message) -> bool:
        """Store one event, or refuse it; False only when the collector stops before it could be stored."""
        where = split_table_topic(message.topic)
        if where is None or where[0] != self.venue or where[2] != "event":
            self._refuse("?", "topic", f"not a table's event topic: {message.topic[:80]!r}")
            return True
        table = where[1]
        event = check_event(message.payload, table)
        if isinstance(event, Refused):
            self._refuse(table, event.reason, event.detail)
            return True
        return self._store(table, event)

    def _store(self, table: str, event: dict) -> bool:
        """Add ``event`` to the archive; a fault of the disk (full, locked) is retried with backoff until it
        goes or the collector stops, and a value SQLite will not take is refused."""
        delay = 0.1
        while True:
            try:
                self.archive.add(event)
                if self.storage_fault:
                    log.info("storing again (after: %s)", self.storage_fault)
                    self.storage_fault = ""
                return True
            except (sqlite3.DataError, sqlite3.IntegrityError, sqlite3.InterfaceError, OverflowError,
                    ValueError, TypeError, KeyError) as exc:
                self._refuse(table, "storage", f"the archive cannot take it: {exc}")
                return True
            except (sqlite3.Error, OSError) as exc:
                self.storage_fault = str(exc)
                log.error("cannot store an event of table %s (%s); retrying in %.1f s", table, exc, delay)
                if self._stopping.wait(delay):
                    return False
                delay = min(delay * 2, 5.0)

    def _refuse(self, table: str, reason: str, detail: str) -> None:
        """Count a refused message; say so in the log at most once a minute per table and reason."""
        self.refused[reason] += 1
        key = (table, reason)
        now = time.monotonic()
        if now - self._said.get(key, -LOG_EVERY) >= LOG_EVERY:
            self._said[key] = now
            log.warning("refused a message of table %s (%s): %s (%d refused so far)", table, reason, detail,
                        sum(self.refused.values()))

    def _answer(self, message) -> None:
        """A page's question about the archive, answered on its Response Topic (shotclock.floor.answers)."""
        props = getattr(message, "properties", None)
        reply_to = getattr(props, "ResponseTopic", None)
        if not reply_to or not reply_to.startswith(archive_topic(self.venue, "reply/")):
            return  # nowhere (or nowhere allowed) to answer
        question = parse_json(message.payload)
        problem = question.detail if isinstance(question, Refused) else check_question(question)
        if problem:
            self._refuse("?", "question", problem)
            result = {"ok": False, "reason": problem}
        else:
            try:
                result = answers.answer(self.archive.db, question)
            except Exception as exc:
                log.exception("cannot answer an archive question")
                result = {"ok": False, "reason": f"the archive cannot answer: {exc}"}
        reply = self._reply_properties(getattr(props, "CorrelationData", None))
        body = json.dumps(result, ensure_ascii=False, separators=(",", ":"))
        self.client.publish(reply_to, body, qos=1, properties=reply)

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
    from shotclock.adapters.mqtt import read_credentials
    from shotclock.floor.broker_config import parse_endpoint
    from shotclock.errors import ShotclockError

    problem = check_name("venue", args.venue)
    if problem:
        raise ShotclockError(problem)
    endpoint = parse_endpoint(args.broker, "--broker")
    username, password = read_credentials(args.credentials)
    archive = Archive(args.archive)
    collector = Collector(archive, endpoint.host, endpoint.port, args.venue, username, password,
                          tls=args.tls, ca_file=args.ca_file or "")
    stop = threading.Event()
    for s in (signal.SIGTERM, signal.SIGINT):
        signal.signal(s, lambda *a: stop.set())
    collector.start()
    log.info("archive: %s", archive.path)
    while not stop.wait(60):
        log.info("%d events stored, %d duplicates dropped", archive.added, archive.duplicates)
    collector.stop()
    log.info("stopped: %d events stored this run, %d duplicates dropped", archive.added, archive.duplicates)
    archive.close()
    return 0
