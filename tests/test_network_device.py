"""The table device on the floor network, against a real mosquitto (no mocks of MQTT)."""

import json

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
