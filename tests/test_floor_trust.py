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
        own_id = device.link.client._client_id.decode()
        assert own_id.startswith("shotclock-test-1-") and broker.passwords["table-1"] not in own_id
        for guess in ("shotclock-test-1", "shotclock-test-1-0000000000000000", "table-1"):
            thief = broker.client("table-2", session=guess)  # a persistent session under that id
            assert not thief.connack.is_failure
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
            assert "another device is this table" in network_mark(status.connected, status.pending, "en", status.clone)
        # Not a flap: the device knocked off waits before it connects again.
        assert not first.link.status.connected or not second.link.status.connected
    finally:
        first.stop()
        if second is not None:
            second.stop()
