"""Hand-for-hand across a bridged room: one command on the venue broker's command topic, with the room in it,
reaches the table on the room broker through the bridge (and not the venue broker's own table of another room);
its ack and its state come back the same way. Two real mosquitto instances, two real devices."""

from __future__ import annotations

import json
import time

from helpers import wait_until
from network_device import RunningDevice, network_config
from shotclock.core.topics import table_topic, venue_cmd_topic
from test_bridge import VENUE, Pair, status_of


def test_a_release_at_the_venue_reaches_the_room_brokers_table_and_its_ack_comes_back(tmp_path, certificate):
    pair = Pair(tmp_path, certificate)
    east = RunningDevice(network_config(pair.room, table="1") + 'room = "east"\n', tmp_path / "state-1")
    west = RunningDevice(network_config(pair.venue, table="3") + 'room = "west"\n', tmp_path / "state-3")
    try:
        for table, dev in (("1", east), ("3", west)):
            assert status_of(pair.inbox, table, lambda s, d=dev: s["online"] and s["boot"] == d.device.boot), table
            wait_until(lambda d=dev: d.link.status.connected, what=f"table {table} connected")

        def send(name: str) -> str:
            ident = f"{name}-{time.monotonic_ns()}"
            pair.floor.publish(venue_cmd_topic(VENUE), json.dumps(
                {"id": ident, "name": name, "sender": "floor", "sent_ms": int(time.time() * 1000), "room": "east"}),
                qos=1)
            return ident

        def ack(ident: str, table: str = "1") -> dict:
            m = pair.inbox.wait_for(lambda m: m.topic == table_topic(VENUE, table, "cmd/ack")
                                    and json.loads(m.payload)["id"] == ident)
            assert m is not None, f"no ack of {ident} from table {table} at the venue"
            return json.loads(m.payload)

        started = send("hand_for_hand")
        assert ack(started)["outcome"] == "done"
        east.tap("street", hold=2.3)  # the dealer's new hand: the table's hand is done
        waiting = pair.inbox.wait_for(lambda m: m.topic == table_topic(VENUE, "1", "state")
                                      and (json.loads(m.payload).get("hand_for_hand") or {}).get("waiting"))
        assert waiting is not None, "the room's table never said it waits, at the venue"
        released = send("release_hand")
        assert [o["why"] for o in ack(released)["outputs"]] == ["released"]
        # The west room's table, on the venue broker itself, had both and answered neither: a command of its own,
        # sent after them to every room, is its first answer.
        probe = f"probe-{time.monotonic_ns()}"
        pair.floor.publish(venue_cmd_topic(VENUE), json.dumps(
            {"id": probe, "name": "release_hand", "sender": "floor", "sent_ms": int(time.time() * 1000)}), qos=1)
        assert ack(probe, "3")["reason"] == "this table is not in hand-for-hand"
        answered = {json.loads(m.payload)["id"] for m in list(pair.inbox.messages)
                    if m.topic == table_topic(VENUE, "3", "cmd/ack")}
        assert answered == {probe}
    finally:
        east.stop()
        west.stop()
        pair.close()
