"""Broker conformance: exactly the MQTT features shotclock relies on, one named test each.

Runs against Mosquitto started here from ``broker-config`` (single, and a room broker bridged to a venue
broker), or against a venue's own broker (``SHOTCLOCK_BROKER_URL``, see conftest.py and docs/network.md,
"Checking your own broker"). A failing test names the feature that broker lacks. Every retained message a
test sets is cleared again, so the suite leaves nothing behind on a venue's broker.
"""

from __future__ import annotations

import json
import threading
import time
import uuid

from shotclock.core.topics import all_tables, archive_topic, table_topic

WAIT = 30.0  # bounds a hang only: every wait ends as soon as its condition holds
REFUSED = 0x80  # MQTT 5: a reason code from 0x80 is a failure


class Box:
    """The messages one client received (thread-safe), for waiting on."""

    def __init__(self):
        self.messages: list = []
        self._cond = threading.Condition()

    def __call__(self, client, userdata, message):
        with self._cond:
            self.messages.append(message)
            self._cond.notify_all()

    def wait_for(self, predicate, timeout: float = WAIT):
        """The first message for which ``predicate`` holds, or None after ``timeout`` s."""
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

    def payloads(self, topic: str | None = None) -> list[dict]:
        with self._cond:
            return [json.loads(m.payload) for m in self.messages
                    if m.payload and (topic is None or m.topic == topic)]


def subscribe(client, *topics: str) -> list[int]:
    """Subscribe at QoS 1; the SUBACK's reason codes (a value from 0x80 is a refusal)."""
    done, codes = threading.Event(), []

    def on_subscribe(c, userdata, mid, reason_codes, properties):
        codes.extend(rc.value for rc in reason_codes)
        done.set()

    client.on_subscribe = on_subscribe
    client.subscribe([(t, 1) for t in topics])
    assert done.wait(WAIT), f"no SUBACK for {topics} (the broker closed the connection or ignored it)"
    return codes


def publish(client, topic: str, payload, retain: bool = False, expiry: int | None = None, **properties) -> int:
    """Publish at QoS 1 and wait for the PUBACK; its reason code (0 or 16 is success, from 0x80 refused)."""
    from paho.mqtt.packettypes import PacketTypes
    from paho.mqtt.properties import Properties

    props = None
    if expiry is not None or properties:
        props = Properties(PacketTypes.PUBLISH)
        if expiry is not None:
            props.MessageExpiryInterval = expiry
        for key, value in properties.items():
            setattr(props, key, value)
    cond, acked = threading.Condition(), {}

    def on_publish(c, userdata, mid, reason_code, properties):
        with cond:
            acked[mid] = reason_code.value if reason_code is not None else 0
            cond.notify_all()

    client.on_publish = on_publish
    body = payload if isinstance(payload, (bytes, str)) else json.dumps(payload)
    info = client.publish(topic, body, qos=1, retain=retain, properties=props)
    with cond:
        assert cond.wait_for(lambda: info.mid in acked, WAIT), f"no PUBACK for {topic}"
        return acked[info.mid]


def nonce() -> str:
    return uuid.uuid4().hex[:12]


def marked(box: Box, key: str):
    """Wait for the message whose JSON payload carries ``key`` as its nonce."""
    return box.wait_for(lambda m: m.payload and json.loads(m.payload).get("nonce") == key)


def clear_retained(target, role: str, topic: str) -> None:
    """Leave no retained message behind (a venue's real broker)."""
    publish(target.client(role), topic, b"", retain=True)


def test_login_is_required_and_checked(target):
    anonymous = target.client("floor", anonymous=True, refusal=True)
    assert anonymous.connack is None or anonymous.connack.is_failure, "an anonymous client was let in"
    wrong = target.client("floor", password="not-the-password", refusal=True)
    assert wrong.connack is None or wrong.connack.is_failure, "a wrong password was accepted"
    assert not target.client("floor").connack.is_failure, "the floor's own login was refused"


def test_retained_status_reaches_a_late_subscriber(target):
    topic, key = table_topic(target.venue, target.tables["table"], "status"), nonce()
    live = Box()
    floor = target.client("floor", on_message=live)
    subscribe(floor, topic)
    try:
        assert publish(target.client("table"), topic, {"online": True, "nonce": key}, retain=True) < REFUSED
        assert marked(live, key) is not None, "the status never reached the floor"
        late = Box()
        subscribe(target.client("floor", on_message=late), topic)
        found = marked(late, key)
        assert found is not None and found.retain, "a subscriber arriving later did not get the retained status"
    finally:
        clear_retained(target, "table", topic)


def test_last_will_is_published_on_an_unclean_disconnect(target):
    topic, key = table_topic(target.venue, target.tables["table"], "status"), nonce()
    box = Box()
    subscribe(target.client("floor", on_message=box), topic)
    table = target.client("table", will=(topic, json.dumps({"online": False, "clean": False, "nonce": key})))
    assert not table.connack.is_failure
    try:
        table.loop_stop()
        table.socket().close()  # the network cable pulled: no DISCONNECT
        will = marked(box, key)
        assert will is not None, "the broker never published the Last Will"
    finally:
        clear_retained(target, "table", topic)


def test_qos1_messages_all_arrive_in_order(target):
    topic, key = table_topic(target.venue, target.tables["table"], "event"), nonce()
    box = Box()
    subscribe(target.client("floor", on_message=box), topic)
    table = target.client("table")
    codes = [publish(table, topic, {"seq": n, "nonce": key}) for n in range(1, 51)]
    assert all(rc < REFUSED for rc in codes)
    assert box.wait_for(lambda m: json.loads(m.payload) == {"seq": 50, "nonce": key}) is not None
    seqs = [p["seq"] for p in box.payloads(topic) if p.get("nonce") == key]
    assert seqs == list(range(1, 51)), "QoS 1 lost or reordered messages of one topic"


def test_message_expiry_drops_an_expired_retained_state(target):
    # A table's retained state expires (state_expiry): a dashboard that connects later must not show a stale clock.
    topic, key = table_topic(target.venue, target.tables["table"], "state"), nonce()
    marker_topic = table_topic(target.venue, target.tables["table"], "event")
    live = Box()
    subscribe(target.client("floor", on_message=live), topic)
    table = target.client("table")
    try:
        sent = time.monotonic()
        assert publish(table, topic, {"nonce": key}, retain=True, expiry=4) < REFUSED
        seen = marked(live, key)
        assert seen is not None, "the state never reached the floor"
        assert getattr(seen.properties, "MessageExpiryInterval", None) is not None, \
            "the message expiry interval was not passed on"
        time.sleep(max(0.0, 6 - (time.monotonic() - sent)))  # the broker's own clock must pass the expiry
        late = Box()
        subscribe(target.client("floor", on_message=late), topic, marker_topic)
        end = nonce()
        publish(table, marker_topic, {"nonce": end})
        assert marked(late, end) is not None
        assert not [p for p in late.payloads(topic) if p.get("nonce") == key], \
            "an expired retained message was still given to a new subscriber"
    finally:
        clear_retained(target, "table", topic)


def test_message_expiry_drops_a_queued_command_that_expired(target):
    # Commands expire after 5 s: one stuck in a queue (a table away, a bridge down) must not act later.
    topic = table_topic(target.venue, target.tables["table"], "cmd")
    client_id = f"shotclock-{target.venue}-{target.tables['table']}-conformance-{nonce()}"
    table = target.client("table", client_id=client_id, clean_start=False, session_expiry=300)
    subscribe(table, topic)
    table.disconnect()
    table.loop_stop()
    floor = target.client("floor")
    stale, fresh = nonce(), nonce()
    sent = time.monotonic()
    assert publish(floor, topic, {"nonce": stale}, expiry=2) < REFUSED
    assert publish(floor, topic, {"nonce": fresh}, expiry=120) < REFUSED
    time.sleep(max(0.0, 4 - (time.monotonic() - sent)))
    box = Box()
    back = target.client("table", client_id=client_id, clean_start=False, session_expiry=0, on_message=box)
    assert not back.connack.is_failure
    assert marked(box, fresh) is not None, "the session did not keep a queued command"
    assert not [p for p in box.payloads(topic) if p.get("nonce") == stale], "an expired command was delivered"


def test_a_persistent_session_gets_what_was_queued_while_away(target):
    # The collector's session (session expiry a week): the broker queues events while it is away.
    topic, key = all_tables(target.venue, "event"), nonce()
    client_id = f"shotclock-collector-{target.venue}-conformance-{nonce()}"
    collector = target.client("collector", client_id=client_id, clean_start=False, session_expiry=300)
    subscribe(collector, topic)
    collector.disconnect()
    collector.loop_stop()
    table = target.client("table")
    own = table_topic(target.venue, target.tables["table"], "event")
    assert all(publish(table, own, {"seq": n, "nonce": key}) < REFUSED for n in range(1, 11))
    box = Box()
    back = target.client("collector", client_id=client_id, clean_start=False, session_expiry=0, on_message=box)
    assert back.connack is not None and not back.connack.is_failure
    assert box.wait_for(lambda m: json.loads(m.payload) == {"seq": 10, "nonce": key}) is not None, \
        "the session did not resume with the events queued while away"
    assert sorted(p["seq"] for p in box.payloads() if p.get("nonce") == key) == list(range(1, 11))


def test_shared_subscription_splits_messages_between_two_subscribers(target):
    # $share/<group>/<filter>: two collectors share one venue's events, each event to exactly one of them.
    group = f"$share/shotclock-{nonce()}/{all_tables(target.venue, 'event')}"
    boxes = [Box(), Box()]
    for box in boxes:
        codes = subscribe(target.client("collector", on_message=box), group)
        assert all(rc < REFUSED for rc in codes), f"shared subscriptions refused (SUBACK reason {codes})"
    key = nonce()
    table = target.client("table")
    own = table_topic(target.venue, target.tables["table"], "event")
    assert all(publish(table, own, {"seq": n, "nonce": key}) < REFUSED for n in range(1, 41))
    got = lambda: [{p["seq"] for p in b.payloads() if p.get("nonce") == key} for b in boxes]
    deadline = time.monotonic() + WAIT
    while len(got()[0] | got()[1]) < 40 and time.monotonic() < deadline:
        time.sleep(0.05)
    first, second = got()
    assert first | second == set(range(1, 41)), "the group lost messages"
    assert not first & second, "a message went to both members of the group"
    assert first and second, "one member got everything: the messages were not split"


def test_a_table_cannot_publish_another_tables_topics(target):
    other = table_topic(target.venue, target.tables["table2"], "event")
    own = table_topic(target.venue, target.tables["table"], "event")
    box = Box()
    subscribe(target.client("floor", on_message=box), other, own)
    table = target.client("table")
    forged, end = nonce(), nonce()
    rc = publish(table, other, {"nonce": forged})
    publish(table, own, {"nonce": end})
    assert marked(box, end) is not None
    assert box.wait_for(lambda m: json.loads(m.payload).get("nonce") == forged, timeout=1) is None, \
        f"table {target.tables['table']} published on table {target.tables['table2']}'s topic (PUBACK reason {rc})"
    # An MQTT 5 broker says so (0x87 not authorized); one that drops it silently still passes above.
    assert rc >= REFUSED or target.external, f"the refusal was not reported in the PUBACK ({rc})"


def test_a_table_cannot_read_another_tables_commands(target):
    other = table_topic(target.venue, target.tables["table2"], "cmd")
    own = table_topic(target.venue, target.tables["table"], "cmd")
    box = Box()
    subscribe(target.client("table", on_message=box), other, own)
    floor = target.client("floor")
    secret, end = nonce(), nonce()
    publish(floor, other, {"nonce": secret})
    publish(floor, own, {"nonce": end})
    assert marked(box, end) is not None, "a table did not get its own command"
    assert box.wait_for(lambda m: json.loads(m.payload).get("nonce") == secret, timeout=1) is None, \
        "a table read another table's command"


def test_only_the_collector_speaks_for_the_archive(target):
    topic = table_topic(target.venue, target.tables["table"], "stored")
    box = Box()
    subscribe(target.client("table", on_message=box), topic)
    forged, real = nonce(), nonce()
    publish(target.client("table"), topic, {"nonce": forged})
    publish(target.client("floor"), topic, {"nonce": forged})
    assert publish(target.client("collector"), topic, {"nonce": real}) < REFUSED
    assert marked(box, real) is not None, "the collector's word did not reach the table"
    assert box.wait_for(lambda m: json.loads(m.payload).get("nonce") == forged, timeout=1) is None, \
        "someone other than the collector published the archive's word"


def test_private_client_ids_are_accepted_and_a_second_connection_takes_the_session(target):
    # A device's client id is its prefix and 16 hex digits derived from its password (longer than MQTT 3.1's
    # 23 characters); two devices with one identity take the session from each other, and each sees it.
    from shotclock.adapters.mqtt_login import private_client_id

    login = target.logins["table"]
    client_id = private_client_id(f"shotclock-{target.venue}-{target.tables['table']}", login.password) + nonce()[:4]
    first = target.client("table", client_id=client_id)
    assert not first.connack.is_failure, f"a client id of {len(client_id)} characters was refused"
    first.reconnect_delay_set(60, 60)  # no fight back during the check
    first.disconnected.clear()
    second = target.client("table", client_id=client_id)
    assert not second.connack.is_failure
    assert first.disconnected.wait(WAIT), "the first connection kept the session after a second took it"


def test_request_response_properties_reach_the_collector_and_back(target):
    # The dashboard's archive questions: MQTT 5 Response Topic and Correlation Data, passed on untouched.
    reply = archive_topic(target.venue, f"reply/conformance-{nonce()}")
    questions, answers = Box(), Box()
    collector = target.client("collector", on_message=questions)
    subscribe(collector, archive_topic(target.venue, "get"))
    floor = target.client("floor", on_message=answers)
    subscribe(floor, reply)
    key = nonce()
    assert publish(floor, archive_topic(target.venue, "get"), {"what": "rulings", "nonce": key}, expiry=5,
                   ResponseTopic=reply, CorrelationData=key.encode()) < REFUSED
    question = marked(questions, key)
    assert question is not None
    assert question.properties.ResponseTopic == reply and question.properties.CorrelationData == key.encode()
    assert publish(collector, reply, {"ok": True, "nonce": key}, CorrelationData=key.encode()) < REFUSED
    answer = marked(answers, key)
    assert answer is not None and answer.properties.CorrelationData == key.encode()
