"""``shotclock floor collect``: every table's events into one archive, nothing lost, nothing twice.

The collector keeps a persistent MQTT session (the broker queues events while it is away)
and acknowledges each event only after it is stored (paho's manual acks), so a crash of the
collector loses nothing either. Duplicates -- a device resends what it cannot know was
delivered -- are dropped on (table, boot, seq).
"""

from __future__ import annotations

import json
import logging
import signal
import threading

from shotclock.adapters.mqtt import no_delay
from shotclock.core.topics import all_tables, archive_topic, check_name
from shotclock.floor import answers
from shotclock.adapters.archive import Archive

log = logging.getLogger("shotclock.collector")


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

    def start(self) -> None:
        """Connect (in the background, retrying) and collect."""
        self.client.connect_async(self.host, self.port, keepalive=30, clean_start=False, properties=self._session)
        self.client.loop_start()

    def stop(self) -> None:
        """Disconnect; the broker keeps the session and queues events until the next start."""
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
        if message.topic == archive_topic(self.venue, "get"):
            self._answer(message)
            client.ack(message.mid, message.qos)
            return
        try:
            event = json.loads(message.payload)
            self.archive.add(event)
        except (ValueError, KeyError, TypeError) as exc:
            log.warning("skipped a malformed event on %s: %s", message.topic, exc)
        except Exception:
            log.exception("cannot store an event; not acknowledged, the broker will send it again")
            return
        client.ack(message.mid, message.qos)


    def _answer(self, message) -> None:
        """A page's question about the archive, answered on its Response Topic (shotclock.floor.answers)."""
        props = getattr(message, "properties", None)
        reply_to = getattr(props, "ResponseTopic", None)
        if not reply_to or not reply_to.startswith(archive_topic(self.venue, "reply/")):
            return  # nowhere (or nowhere allowed) to answer
        try:
            question = json.loads(message.payload)
        except ValueError:
            question = None
        reply = self._reply_properties(getattr(props, "CorrelationData", None))
        body = json.dumps(answers.answer(self.archive.db, question), ensure_ascii=False, separators=(",", ":"))
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
