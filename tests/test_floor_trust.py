"""Issue 18: who may be whom on the floor network, tried against a real mosquitto from ``broker-config``.

A credential cannot take another's session; two devices given one table are seen, on both and on the
dashboard, instead of flapping in silence. (The collector's own checks are in test_collector.py.)
"""

import json

from helpers import wait_until
from mqtt_broker import Inbox
from network_device import RunningDevice, network_config
from shotclock.core.topics import table_topic
from shotclock.core.view import network_mark


def test_another_tables_credential_cannot_take_a_tables_session(broker, tmp_path):
    # Issue 18, 4: table 2's credential connecting with table 1's client id kicked table 1 off 29 times in 10 s.
    watcher = Inbox(broker.client("floor"), table_topic("test", "1", "status"), table_topic("test", "1", "event"))
    device = RunningDevice(network_config(broker, table="1"), tmp_path / "state")
    try:
        wait_until(lambda: device.link.status.connected, what="table 1 online")
        own_id = device.link.client_id
        assert own_id.startswith("shotclock-test-1-") and broker.passwords["table-1"] not in own_id
        for guess in ("shotclock-test-1", "shotclock-test-1-0000000000000000", "table-1"):
            thief = broker.client("table-2", session=guess)  # a persistent session under that id
            assert thief.connack.is_failure  # table-2's login may use its own client id only
        device.tap("bet")
        device.tap("floor")  # the table still publishes, on the same connection
        assert watcher.wait_for(lambda m: m.topic.endswith("/event") and b'"start"' in m.payload) is not None
    finally:
        device.stop()
    statuses = [json.loads(m.payload) for m in list(watcher.messages) if m.topic.endswith("/status")]
    assert not any(s["online"] is False and s.get("clean") is False for s in statuses), statuses  # never knocked off


def test_two_devices_for_one_table_are_seen_on_both_and_on_the_dashboard(broker, tmp_path):
    # Issue 18, 4: two devices with the same table_id (a cloned SD card) made 314 takeovers in 80 s, unsaid.
    states = Inbox(broker.client("floor"), table_topic("test", "1", "state"))
    first = RunningDevice(network_config(broker, table="1"), tmp_path / "a")
    second = None
    try:
        wait_until(lambda: first.link.status.connected, what="the first device online")
        second = RunningDevice(network_config(broker, table="1"), tmp_path / "b")
        wait_until(lambda: first.link.status.clone and second.link.status.clone, what="both devices see the clone")
        shown = states.wait_for(lambda m: json.loads(m.payload)["network"].get("clone") is True)
        assert shown is not None  # the dashboard shows it on the table's card
        for device in (first, second):  # the screen's corner is network_mark of the link's status
            status = device.link.status
            assert "another device is this table" in network_mark(status.connected, status.pending, "en",
                                                                  clone=status.clone)
        # Not a flap: the device knocked off waits before it connects again.
        assert not first.link.status.connected or not second.link.status.connected
    finally:
        first.stop()
        if second is not None:
            second.stop()


def command(client, topic, **fields):
    """Publish a floor command as the dashboard does (MQTT 5 expiry 5 s); returns the message."""
    import time

    from paho.mqtt.packettypes import PacketTypes
    from paho.mqtt.properties import Properties

    props = Properties(PacketTypes.PUBLISH)
    props.MessageExpiryInterval = 5
    message = {"sender": "the boss", "sent_ms": int(time.time() * 1000), **fields}
    client.publish(topic, json.dumps(message), qos=1, properties=props).wait_for_publish(30)
    return message


def test_each_floor_person_has_a_credential_and_the_broker_proves_who_commanded(tmp_path):
    # Issue 18, 9: one shared floor login, a free-text name, and the command's sender whatever the payload said.
    import sqlite3

    from mqtt_broker import MosquittoBroker
    from shotclock.core.topics import command_topic

    with MosquittoBroker(tmp_path / "broker", tables=["1"], floor=["anna", "ben"]) as broker:
        anna = broker.client("floor-anna")
        acks = Inbox(anna, table_topic("test", "1", "cmd/ack"))
        device = RunningDevice(network_config(broker, table="1"), tmp_path / "state")
        try:
            wait_until(lambda: device.link.status.connected, what="table 1 online")
            command(anna, command_topic("test", "1", "floor-ben"), id="as-ben", name="call", facing_bet=True)
            command(anna, table_topic("test", "1", "cmd"), id="shared", name="call", facing_bet=True)
            command(anna, command_topic("test", "1", "floor-anna"), id="c1", name="call", facing_bet=True)
            ack = acks.wait_for(lambda m: json.loads(m.payload)["id"] == "c1")
            assert ack is not None and json.loads(ack.payload)["sender"] == "floor-anna"  # not "the boss"
            command(anna, command_topic("test", None, "floor-anna"), id="break", name="pause")  # every table
            assert acks.wait_for(lambda m: json.loads(m.payload)["id"] == "break") is not None
        finally:
            device.stop()
        assert {json.loads(m.payload)["id"] for m in acks.messages} == {"c1", "break"}  # the others never arrived
    db = sqlite3.connect(tmp_path / "state" / "shotclock.db")
    inputs = [json.loads(d) for (d,) in db.execute("SELECT data FROM records WHERE type = 'input'")]
    assert [(i["id"], i["sender"]) for i in inputs] == [("c1", "floor-anna"), ("break", "floor-anna")]


def test_floor_people_are_added_and_removed_without_touching_the_tables(tmp_path, capsys):
    from shotclock.cli import main

    out = tmp_path / "broker"
    args = ["broker-config", str(out), "--venue", "v", "--tables", "1-2", "--no-pages"]
    assert main(args + ["--floor", "anna,ben"]) == 0
    assert "floor-anna, floor-ben" in capsys.readouterr().out
    table = (out / "credentials" / "table-1.toml").read_text()
    assert main(args + ["--floor", "anna,cem"]) == 0
    users = [line.split(":")[0] for line in (out / "passwd").read_text().splitlines()]
    assert "floor-cem" in users and "floor-ben" not in users and "floor-anna" in users
    assert not (out / "credentials" / "floor-ben.toml").exists()
    assert (out / "credentials" / "table-1.toml").read_text() == table  # the tables keep their passwords
    acl = (out / "acl").read_text()
    assert "user floor-anna\n" in acl and "topic write shotclock/v1/v/table/+/cmd/by/floor-anna" in acl
    assert "cmd/by/floor-ben" not in acl
    assert main(args + ["--floor", "a b"]) == 2
