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


def test_a_release_the_room_missed_while_its_bridge_was_down_reaches_it_when_the_bridge_is_back(tmp_path, certificate,
                                                                                                  capsys):
    # Issue 36, 3: the room broker's table waits for the floor; its bridge goes down, the floor releases the room (the
    # venue broker's own table of that room takes it), and the bridge comes back after the command expired: the
    # room's state, retained at the venue, comes through the bridge and releases the table at the room's count.
    from shotclock.cli import main
    from shotclock.core.topics import hand_for_hand_topic

    pair = Pair(tmp_path, certificate)
    fast = "[device]\nhold = 0.3\n"
    east = RunningDevice(network_config(pair.room, table="1", extra=fast) + 'room = "east"\n', tmp_path / "state-1")
    here = RunningDevice(network_config(pair.venue, table="3", extra=fast) + 'room = "east"\n', tmp_path / "state-3")
    base = ["send", "--broker", f"127.0.0.1:{pair.venue.port}", "--venue", VENUE, "--credentials",
            str(pair.venue.credentials_file("floor")), "--all", "--room", "east"]
    try:
        for table, dev in (("1", east), ("3", here)):
            assert status_of(pair.inbox, table, lambda s, d=dev: s["online"] and s["boot"] == d.device.boot), table
            wait_until(lambda d=dev: d.link.status.connected, what=f"table {table} connected")
        assert main(base + ["hand_for_hand"]) == 0
        for dev in (east, here):
            dev.tap("street", hold=0.5)  # the dealer's new hand: done, waiting for the floor
            wait_until(lambda d=dev: d.device.table.state.hand_for_hand.waiting, what="the hand done")
        pair.room.kill()  # the room broker gone: its bridge's Last Will says so at the venue
        assert pair.inbox.wait_for(lambda m: m.topic == f"shotclock/v1/{VENUE}/bridge/east/state"
                                   and m.payload == b"0") is not None
        capsys.readouterr()
        assert main(base + ["release_hand"]) == 1
        err = capsys.readouterr().err
        assert "  table 1: unreachable: room east's bridge to the venue broker is down; it takes the room's " \
               "hand-for-hand state when it comes back\n" in err, err
        time.sleep(5)  # past the command's 5 s expiry: only the retained state can bring the release now
        pair.room.start()
        wait_until(lambda: not east.device.table.state.hand_for_hand.waiting, timeout=60,
                   what="the room's table released through the bridge")
        assert east.device.table.state.hand_for_hand.hands == 1 == here.device.table.state.hand_for_hand.hands
        kept = [json.loads(m.payload) for m in list(pair.inbox.messages)
                if m.topic == hand_for_hand_topic(VENUE, "east")]
        assert [(k["on"], k["hands"]) for k in kept] == [(True, 0), (True, 1)]  # kept at the start and the release
    finally:
        east.stop()
        here.stop()
        pair.close()
