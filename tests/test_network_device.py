"""The table device on the floor network, against a real mosquitto (no mocks of MQTT)."""

import json
import sqlite3
import time

from mqtt_broker import Inbox
from network_device import RunningDevice, network_config, payloads
from network_schemas import check
from shotclock.adapters.log import record_hash
from shotclock.core.topics import table_topic
from shotclock.core.wire import row_of_event


def watch(broker, *leaves, table="1"):
    return Inbox(broker.client("collector"), *[table_topic(broker.venue, table, leaf) for leaf in leaves])


def test_device_publishes_status_state_and_events(broker, tmp_path):
    inbox = watch(broker, "status", "state", "event")
    dev = RunningDevice(network_config(broker), tmp_path / "state")
    try:
        online = inbox.wait_for(lambda m: m.topic.endswith("/status") and json.loads(m.payload)["online"])
        assert online is not None and online.retain is False or online is not None
        status = check("status", online.payload)
        assert status["boot"] == dev.device.boot and status["table"] == "1" and status["name"] == "Tafel 1"
        dev.tap("bet")
        dev.tap("floor")
        running = inbox.wait_for(lambda m: m.topic.endswith("/state") and json.loads(m.payload)["phase"] == "running")
        state = check("state", running.payload)
        assert state["facing_bet"] is True and 25_000 < state["remaining_ms"] <= 30_000 and state["seconds"] == 30
        dev.tap("action")
        inbox.wait_for(lambda m: m.topic.endswith("/event") and json.loads(m.payload)["record"]["type"] == "decision")
    finally:
        dev.stop()
    offline = inbox.wait_for(lambda m: m.topic.endswith("/status") and not json.loads(m.payload)["online"])
    assert check("status", offline.payload)["clean"] is True
    events = [check("event", e) for e in payloads(inbox, "event")]
    seqs = [e["seq"] for e in events]
    assert seqs == list(range(seqs[0], seqs[0] + len(seqs)))  # in order, none missing
    assert events[0]["record"]["type"] == "session" and events[0]["record"]["boot"] == dev.device.boot
    kinds = [(e["record"]["type"], e["record"].get("event") or e["record"].get("outcome")) for e in events]
    assert ("input", "call") in kinds and ("decision", "acted") in kinds
    for event in events:  # the archive can check the device's hash chain from the events alone
        row = row_of_event(event)
        row["data"] = json.dumps(row["data"], sort_keys=True, separators=(",", ":"), ensure_ascii=False)
        assert record_hash(row) == event["log"]["hash"]
    states = [check("state", s) for s in payloads(inbox, "state")]
    assert [s["seq"] for s in states] == sorted(s["seq"] for s in states)


def send_command(floor, topic, **fields):
    """Publish a floor command (MQTT 5 message expiry 5 s), as the dashboard does."""
    from paho.mqtt.packettypes import PacketTypes
    from paho.mqtt.properties import Properties

    props = Properties(PacketTypes.PUBLISH)
    props.MessageExpiryInterval = 5
    message = {"sender": "floor/test", "sent_ms": int(time.time() * 1000), **fields}
    floor.publish(topic, json.dumps(message), qos=1, properties=props)
    return message


def acks_of(inbox, command_id):
    return inbox.wait_for(lambda m: m.topic.endswith("/cmd/ack") and json.loads(m.payload)["id"] == command_id)


def test_floor_commands_enter_the_engine_and_are_acknowledged(broker, tmp_path):
    floor = broker.client("floor")
    inbox = Inbox(floor, table_topic("test", "1", "cmd/ack"), table_topic("test", "1", "state"),
                  table_topic("test", "1", "status"))
    dev = RunningDevice(network_config(broker), tmp_path / "state")
    try:
        assert inbox.wait_for(lambda m: m.topic.endswith("/status") and json.loads(m.payload)["online"])
        send_command(floor, table_topic("test", "1", "cmd"), id="c1", name="call", facing_bet=True)
        ack = check("ack", acks_of(inbox, "c1").payload)
        # The sender is the login the broker proved (the plain cmd topic: the shared floor login), not the
        # payload's own claim ("floor/test").
        assert ack["outcome"] == "done" and ack["sender"] == "floor" and ack["boot"] == dev.device.boot
        assert [o["type"] for o in ack["outputs"]] == ["start"]
        send_command(floor, "shotclock/v1/test/cmd", id="break-1", name="pause")  # every table: a break
        ack = check("ack", acks_of(inbox, "break-1").payload)
        assert ack["outcome"] == "done" and ack["outputs"][0]["type"] == "pause"
        paused = inbox.wait_for(lambda m: m.topic.endswith("/state") and json.loads(m.payload)["phase"] == "paused")
        assert paused is not None and json.loads(paused.payload)["seq"] <= ack["state_seq"]
        send_command(floor, table_topic("test", "1", "cmd"), id="c2", name="extend")  # clock mode has no chips
        ack = check("ack", acks_of(inbox, "c2").payload)
        assert ack["outcome"] == "ignored" and ack["reason"]
    finally:
        dev.stop()
    db = sqlite3.connect(tmp_path / "state" / "shotclock.db")
    inputs = [json.loads(d) for (d,) in db.execute("SELECT data FROM records WHERE type = 'input'")]
    assert [(i["command"], i["id"], i["sender"]) for i in inputs] == [
        ("call", "c1", "floor"), ("pause", "break-1", "floor"), ("extend", "c2", "floor")]


def test_replayed_and_malformed_commands_are_refused_and_logged(broker, tmp_path):
    floor = broker.client("floor")
    inbox = Inbox(floor, table_topic("test", "1", "cmd/ack"), table_topic("test", "1", "status"))
    dev = RunningDevice(network_config(broker), tmp_path / "state")
    topic = table_topic("test", "1", "cmd")
    try:
        assert inbox.wait_for(lambda m: m.topic.endswith("/status") and json.loads(m.payload)["online"])
        send_command(floor, topic, id="once", name="call")
        assert json.loads(acks_of(inbox, "once").payload)["outcome"] == "done"
        inbox.messages.clear()
        send_command(floor, topic, id="once", name="call")  # the same message again: a replay
        ack = check("ack", acks_of(inbox, "once").payload)
        assert ack["outcome"] == "refused" and ack["reason"].startswith("replayed")
        send_command(floor, topic, id="bad", name="explode")
        assert json.loads(acks_of(inbox, "bad").payload)["reason"].startswith("unknown")
        floor.publish(topic, b"not json", qos=1)
        assert inbox.wait_for(lambda m: json.loads(m.payload).get("reason", "").startswith("malformed"))
        # Each refusal was noted for the log before its ack went out: the stop writes what is still noted.
    finally:
        dev.stop()
    db = sqlite3.connect(tmp_path / "state" / "shotclock.db")
    refused = [json.loads(d) for (d,) in db.execute("SELECT data FROM records WHERE type = 'refused'")]
    assert [(r["id"], r["reason"]) for r in refused] == [("once", "replayed"), ("bad", "unknown"),
                                                         ("", "malformed")]
    assert all(r["sender"] == "floor" for r in refused[:2])
    phases = [json.loads(d)["outcome"] for (d,) in db.execute("SELECT data FROM records WHERE type = 'decision'")]
    assert phases == []  # the one accepted call is still running: nothing ruled twice
