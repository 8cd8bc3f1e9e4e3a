"""Hand-for-hand and the named rule sets over a real Mosquitto, with real table devices (fake pins, real time): one
message on the venue's command topic reaches every table, a ``room`` in it narrows it to that room's tables, each
table that takes it acks, the state says playing / waiting, a restart waits on, and ``shotclock send --all`` does
the same from a script."""

from __future__ import annotations

import json
import time

import pytest

from helpers import wait_until
from mqtt_broker import Inbox, MosquittoBroker
from network_device import RunningDevice, network_config
from network_schemas import check
from shotclock.cli import main
from shotclock.core.topics import all_tables, venue_cmd_topic

ROOMS = {"1": "Main", "2": "Salon"}
RULES = '[rule_sets.bubble]\nclock.seconds = 20\n'


@pytest.fixture
def floor(tmp_path):
    with MosquittoBroker(tmp_path / "broker", venue="test", tables=list(ROOMS)) as broker:
        client = broker.client("floor")
        inbox = Inbox(client, all_tables("test", "cmd/ack"), all_tables("test", "state"), all_tables("test", "status"))
        devices = {t: start(broker, t, tmp_path) for t in ROOMS}
        for t in ROOMS:
            wait_until(lambda t=t: devices[t].link.status.connected, what=f"table {t} online")
        yield broker, client, inbox, devices, tmp_path
        for dev in devices.values():
            if dev.thread.is_alive():
                dev.stop()


def start(broker, table: str, folder) -> RunningDevice:
    config = network_config(broker, table, extra=RULES) + f'room = "{ROOMS[table]}"\n'
    return RunningDevice(config, folder / f"state-{table}")


def send(client, name: str, **fields) -> str:
    """One command to every table of the venue (the shared floor login's plain topic), with a 5 s expiry."""
    from paho.mqtt.packettypes import PacketTypes
    from paho.mqtt.properties import Properties

    props = Properties(PacketTypes.PUBLISH)
    props.MessageExpiryInterval = 5
    ident = f"{name}-{time.monotonic_ns()}"
    body = {"id": ident, "name": name, "sender": "floor", "sent_ms": int(time.time() * 1000), **fields}
    client.publish(venue_cmd_topic("test"), json.dumps(body), qos=1, properties=props)
    return ident


def ack_of(inbox, ident: str, table: str) -> dict:
    m = inbox.wait_for(lambda m: m.topic.endswith(f"/table/{table}/cmd/ack") and json.loads(m.payload)["id"] == ident)
    assert m is not None, f"table {table} did not ack {ident}"
    return check("ack", m.payload)


def acked(inbox, ident: str) -> set[str]:
    return {m.topic.split("/")[4] for m in list(inbox.messages)
            if m.topic.endswith("/cmd/ack") and json.loads(m.payload)["id"] == ident}


def state_of(inbox, table: str, test) -> dict:
    m = inbox.wait_for(lambda m: m.topic.endswith(f"/table/{table}/state") and test(json.loads(m.payload)))
    assert m is not None, f"table {table}'s state never matched"
    return check("state", m.payload)


def new_hand(dev) -> None:
    dev.tap("street", hold=2.3)  # the dealer's new hand: the street button held past device.hold (2 s)


def test_a_room_plays_hand_for_hand_from_one_message_and_a_restarted_table_waits_on(floor):
    broker, client, inbox, devices, folder = floor
    started = send(client, "hand_for_hand", room="Main")
    assert ack_of(inbox, started, "1")["outcome"] == "done"
    probe = send(client, "release_hand")  # to every room: table 2 answers it, so it had the one before
    assert ack_of(inbox, probe, "2")["reason"] == "this table is not in hand-for-hand"
    assert ack_of(inbox, probe, "1")["code"] == "hand_for_hand_playing"
    assert acked(inbox, started) == {"1"}  # the Salon's table let the Main room's command pass unanswered
    new_hand(devices["1"])
    waiting = state_of(inbox, "1", lambda s: (s.get("hand_for_hand") or {}).get("waiting"))
    assert waiting["hand_for_hand"] == {"waiting": True, "hands": 0, "minutes": 2, "time_off_s": 0}
    call = send(client, "call", room="Main")
    assert ack_of(inbox, call, "1")["reason"] == "hand-for-hand: wait for the floor"
    release = send(client, "release_hand", room="Main")
    ack = ack_of(inbox, release, "1")
    assert [(o["type"], o["why"], o["hands"]) for o in ack["outputs"]] == [("hand_for_hand", "released", 1)]
    new_hand(devices["1"])
    state_of(inbox, "1", lambda s: (s.get("hand_for_hand") or {}).get("hands") == 1 and s["hand_for_hand"]["waiting"])
    devices["1"].stop()
    devices["1"] = start(broker, "1", folder)  # the same log: the table comes back waiting for the floor
    wait_until(lambda: devices["1"].link.status.connected, what="table 1 back online")
    call = send(client, "call", room="Main")
    assert ack_of(inbox, call, "1")["code"] == "hand_for_hand_wait"
    ended = send(client, "end_hand_for_hand", room="Main")
    assert ack_of(inbox, ended, "1")["outcome"] == "done"
    assert ack_of(inbox, send(client, "call", room="Main"), "1")["outcome"] == "done"


def test_a_rule_set_is_taken_at_the_next_hand_and_an_unknown_one_refused_with_the_reason(floor):
    broker, client, inbox, devices, folder = floor
    unknown = send(client, "rule_set", rule_set="final")
    for table in ROOMS:
        ack = ack_of(inbox, unknown, table)
        assert (ack["outcome"], ack["code"], ack["params"]) == ("ignored", "rule_set_unknown",
                                                                {"name": "final", "known": "bubble"})
    bubble = send(client, "rule_set", rule_set="bubble")
    for table in ROOMS:
        assert ack_of(inbox, bubble, table)["outcome"] == "done"
    state_of(inbox, "2", lambda s: s.get("rule_set") == {"name": "", "next": "bubble"})
    new_hand(devices["2"])
    state_of(inbox, "2", lambda s: s.get("rule_set") == {"name": "bubble", "next": None})
    ack = ack_of(inbox, send(client, "call", room="Salon"), "2")
    assert [o["seconds"] for o in ack["outputs"] if o["type"] == "start"] == [20]  # the bubble's 20 s


def test_send_all_prints_each_tables_answer_and_exits_1_when_one_did_not_take_it(floor, capsys):
    broker, client, inbox, devices, folder = floor
    base = ["send", "--broker", f"127.0.0.1:{broker.port}", "--venue", "test", "--credentials",
            str(broker.credentials_file("floor")), "--all"]
    assert main(base + ["hand_for_hand", "--room", "Main", "--minutes", "3"]) == 0
    said = capsys.readouterr()
    assert said.out == "table 1: hand-for-hand started (3 min off the tournament clock a hand)\n"
    assert said.err == ("1 of 1 tables in room 'Main' took it\n"
                        "kept on the broker for the tables in room 'Main': hand-for-hand started (3 min off the "
                        "tournament clock a hand)\n")
    assert main(base + ["release_hand"]) == 1
    said = capsys.readouterr()
    assert sorted(said.out.splitlines()) == [  # (as the answers came)
        "table 1: refused: release_hand: this table is still playing its hand",
        "table 2: refused: release_hand: this table is not in hand-for-hand"]
    assert said.err == ("0 of 2 tables took it; 2 did not:\n"
                        "  table 1: refused: this table is still playing its hand\n"
                        "  table 2: refused: this table is not in hand-for-hand\n")
    assert main(base + ["hand_for_hand", "--minutes", "4"]) == 2
    assert capsys.readouterr().err == "shotclock: --minutes: must be a number of minutes from 0 to 3, not 4.0\n"
