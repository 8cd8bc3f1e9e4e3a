"""Levels on the floor network, against a real mosquitto: one venue-wide command, taken by the tables of the room
and section it names, from each table's next hand; logged with the sender the broker proved."""

import json
import sqlite3

from helpers import wait_until
from mqtt_broker import Inbox, MosquittoBroker
from network_device import RunningDevice, network_config
from network_schemas import check
from shotclock.cli import main
from shotclock.core.topics import all_tables

LEVELS = '[levels.11]\nmode = "shot"\nshot.preflop = 20\n'
PLACES = {"1": ("East", "A"), "2": ("East", "B"), "3": ("West", "A")}


def config(broker, table):
    room, section = PLACES[table]
    return network_config(broker, table, extra=LEVELS) + f'room = "{room}"\nsection = "{section}"\n'


def send_all(capsys, broker, *argv):
    code = main(["send", "--broker", f"127.0.0.1:{broker.port}", "--venue", broker.venue, "--credentials",
                 str(broker.credentials_file("floor-anna")), "--all", "--wait", "20", *argv])
    out, err = capsys.readouterr()
    return code, out, err


def latest_state(inbox, table):
    states = [json.loads(m.payload) for m in list(inbox.messages) if m.topic.endswith(f"/table/{table}/state")]
    return states[-1] if states else None


def test_a_level_for_a_room_reaches_its_tables_only_and_applies_from_each_ones_next_hand(tmp_path, capsys):
    with MosquittoBroker(tmp_path / "broker", tables=list(PLACES), floor=["anna"]) as broker:
        states = Inbox(broker.client("floor"), all_tables("test", "state"))
        devices = {t: RunningDevice(config(broker, t), tmp_path / f"state{t}") for t in PLACES}
        try:
            for t, dev in devices.items():
                wait_until(lambda: dev.link.status.connected, what=f"table {t} online")
            devices["2"].tap("floor")  # table 2 has a called clock running when the level comes
            wait_until(lambda: (latest_state(states, "2") or {}).get("phase") == "running", what="table 2's clock")
            code, out, err = send_all(capsys, broker, "--room", "East", "level", "--level", "11", "--hands", "12")
            assert code == 0, (out, err)
            assert sorted(out.splitlines()) == ["table 1: level 11 from the next hand, 12 hands a level",
                                                "table 2: level 11 from the next hand, 12 hands a level"]
            assert err == "2 of 2 tables in room 'East' took it\n"
            # Nothing changes before the next hand: table 2's called clock runs on in clock mode.
            wait_until(lambda: (latest_state(states, "2") or {}).get("level", {}).get("next_level") == 11,
                       what="table 2 says level 11 waits")
            assert latest_state(states, "2")["mode"] == "clock" and latest_state(states, "2")["phase"] == "running"
            devices["1"].tap("street", hold=2.3)  # the dealer holds the street button: a new hand at table 1
            wait_until(lambda: (latest_state(states, "1") or {}).get("level", {}).get("level") == 11,
                       what="table 1 at level 11")
            state = check("state", latest_state(states, "1"))  # docs/network.md's schema holds the level too
            check("state", latest_state(states, "2"))
            assert state["mode"] == "shot" and state["level"] == {
                "level": 11, "hand": 1, "hands": 12, "last_hand": False, "next_level": None, "next_hands": None}
            assert "level" not in (latest_state(states, "3") or {})  # West never took it
            code, out, err = send_all(capsys, broker, "--room", "East", "--section", "B", "level", "--level", "12")
            assert code == 0 and out.splitlines() == ["table 2: level 12 from the next hand"]
            code, out, err = send_all(capsys, broker, "hands", "--hands", "999")
            assert code == 2 and err == "shotclock: --hands: must be a number of hands from 0 to 100, not 999\n"
        finally:
            for dev in devices.values():
                dev.stop()
    db = sqlite3.connect(tmp_path / "state1" / "shotclock.db")
    kinds = [(k, json.loads(d)) for k, d in db.execute(
        "SELECT type, data FROM records WHERE type IN ('level_set', 'level') ORDER BY id")]
    assert kinds == [("level_set", {"level": 11, "hands": 12, "by": "floor-anna"}),
                     ("level", {"level": 11, "hand": 1, "hands": 12, "by": "floor-anna",
                                "changed": ["mode", "shot.preflop"]})]
    assert not sqlite3.connect(tmp_path / "state3" / "shotclock.db").execute(
        "SELECT COUNT(*) FROM records WHERE type LIKE 'level%'").fetchone()[0]
