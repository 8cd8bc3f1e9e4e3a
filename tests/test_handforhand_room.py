"""Hand-for-hand with a table away (issue 36, part 3), over a real Mosquitto with real table devices (fake pins, real
time) and ``shotclock send --all`` as the floor runs it: the room's state is kept on the broker, so a table that
missed the end leaves hand-for-hand the moment it is back, one that missed a release is released and counts the
room's hands; ``send`` names every table of the room that did not take a command, why, and exits 1; a table or a
room the venue does not know is said at once."""

from __future__ import annotations

import json
import re
import sqlite3

import pytest

from helpers import wait_until
from mqtt_broker import Inbox, MosquittoBroker
from network_device import RunningDevice, network_config
from network_schemas import check
from shotclock.cli import main
from shotclock.core.topics import all_tables, every_hand_for_hand, hand_for_hand_topic

ROOMS = {"1": "Main", "2": "Main", "3": "Salon"}


@pytest.fixture
def floor(tmp_path):
    with MosquittoBroker(tmp_path / "broker", venue="test", tables=list(ROOMS)) as broker:
        client = broker.client("floor")
        inbox = Inbox(client, all_tables("test", "state"), all_tables("test", "status"), every_hand_for_hand("test"))
        devices = {t: start(broker, t, tmp_path) for t in ("1", "2")}
        yield broker, inbox, devices, tmp_path
        for dev in devices.values():
            if dev.thread.is_alive():
                dev.stop()


def start(broker, table: str, folder) -> RunningDevice:
    config = network_config(broker, table, extra="[device]\nhold = 0.3\n") + f'room = "{ROOMS[table]}"\n'
    dev = RunningDevice(config, folder / f"state-{table}")
    wait_until(lambda: dev.link.status.connected, what=f"table {table} online")
    return dev


def send(broker, capsys, *args: str) -> tuple[int, str, str]:
    """``shotclock send`` with the floor's login: its exit code, what it printed and what it said on stderr."""
    code = main(["send", "--broker", f"127.0.0.1:{broker.port}", "--venue", "test", "--credentials",
                 str(broker.credentials_file("floor")), *args])
    said = capsys.readouterr()
    return code, said.out, said.err


def hand_for_hand(dev):
    return dev.device.table.state.hand_for_hand


def new_hand(dev) -> None:
    dev.tap("street", hold=0.5)  # the dealer's new hand: the street button held past device.hold (0.3 s here)
    wait_until(lambda: hand_for_hand(dev) is not None and hand_for_hand(dev).waiting, what="the hand done")


def last_state(inbox, table: str) -> dict:
    return check("state", [m for m in list(inbox.messages) if m.topic.endswith(f"/table/{table}/state")][-1].payload)


def test_a_table_away_for_the_end_is_named_and_leaves_hand_for_hand_the_moment_it_is_back(floor, capsys):
    broker, inbox, devices, folder = floor
    assert send(broker, capsys, "--all", "--room", "Main", "hand_for_hand")[0] == 0
    for dev in devices.values():
        new_hand(dev)
    code, out, err = send(broker, capsys, "--all", "--room", "Main", "release_hand")
    assert code == 0 and sorted(out.splitlines()) == [
        "table 1: released: hand 1 of hand-for-hand (2 min off the tournament clock)",
        "table 2: released: hand 1 of hand-for-hand (2 min off the tournament clock)"]
    devices["2"].stop()  # a clean stop: its status says offline since now
    code, out, err = send(broker, capsys, "--all", "--room", "Main", "end_hand_for_hand")
    assert code == 1 and out == "table 1: hand-for-hand ended after 1 hand (2 min off the tournament clock)\n"
    lines = err.splitlines()
    assert lines[:2] == ["1 of 2 tables in room 'Main' took it; 1 did not:", lines[1]]
    assert re.fullmatch(r"  table 2: offline since \d\d:\d\d; it takes the room's hand-for-hand state when it comes "
                        r"back", lines[1]), lines[1]
    kept = inbox.wait_for(lambda m: m.topic == hand_for_hand_topic("test", "Main") and m.payload
                          and not json.loads(m.payload)["on"])
    assert kept is not None
    state = check("hand_for_hand", kept.payload)
    assert (state["room"], state["section"], state["hands"], state["by"]) == ("Main", None, 1, "floor")
    devices["2"] = start(broker, "2", folder)  # back: its log says it played hand-for-hand, the room's state not
    wait_until(lambda: hand_for_hand(devices["2"]) is None, what="table 2 out of hand-for-hand")
    code, out, _ = send(broker, capsys, "--table", "2", "call")
    assert code == 0 and out.startswith("table 2: ok: call: start")


def test_a_waiting_table_away_for_two_releases_is_released_and_counts_the_rooms_hands(floor, capsys):
    broker, inbox, devices, folder = floor
    assert send(broker, capsys, "--all", "--room", "Main", "hand_for_hand", "--minutes", "3")[0] == 0
    for dev in devices.values():
        new_hand(dev)
    devices["2"].stop()  # done with its hand, waiting for the floor, when its network went
    for hands in (1, 2):
        code, out, err = send(broker, capsys, "--all", "--room", "Main", "release_hand")
        assert code == 1 and f"kept on the broker for the tables in room 'Main': released: hand {hands} of " \
                              f"hand-for-hand ({3 * hands} min off the tournament clock)" in err
        new_hand(devices["1"])
    devices["2"] = start(broker, "2", folder)
    wait_until(lambda: hand_for_hand(devices["2"]).hands == 2, what="table 2 at the room's count")
    assert not hand_for_hand(devices["2"]).waiting  # released: it deals its next hand
    wait_until(lambda: last_state(inbox, "2").get("hand_for_hand", {}).get("hands") == 2, what="table 2's state")
    assert last_state(inbox, "2")["hand_for_hand"] == {"waiting": False, "hands": 2, "minutes": 3, "time_off_s": 360}
    assert last_state(inbox, "1")["hand_for_hand"] == {"waiting": True, "hands": 2, "minutes": 3, "time_off_s": 360}
    new_hand(devices["2"])  # both now wait for the same third release
    code, out, err = send(broker, capsys, "--all", "--room", "Main", "release_hand")
    assert code == 0 and err == ("2 of 2 tables in room 'Main' took it\n"
                                 "kept on the broker for the tables in room 'Main': released: hand 3 of hand-for-hand "
                                 "(9 min off the tournament clock)\n")
    devices["2"].stop()  # the evidence: its log, replayed from what reached it (the room's state too), says the same
    check_log = main(["log", "--state-dir", str(folder / "state-2"), "replay", "--check", "--all"])
    assert check_log == 0, capsys.readouterr()
    db = sqlite3.connect(folder / "state-2" / "shotclock.db")
    arrived = [json.loads(d) for (d,) in db.execute("SELECT data FROM records WHERE type = 'room_state'")]
    assert (True, 2, "Main") in [(a["on"], a["hands"], a["room"]) for a in arrived]  # what released it


def test_a_table_or_a_room_the_venue_does_not_know_is_said_at_once(floor, capsys):
    broker, inbox, devices, folder = floor
    everything = Inbox(broker.client("floor"), "shotclock/v1/test/#")
    code, out, err = send(broker, capsys, "--table", "77", "call")
    assert (code, out) == (2, "") and err == (
        "shotclock: --table 77: no such table at venue 'test' on this broker (no status of it is retained: it never "
        "connected); its tables: 1, 2\n")
    code, out, err = send(broker, capsys, "--table", "3", "call", "--broker-dir", str(broker.folder), "--wait", "1")
    assert code == 2 and err == "shotclock: table 3 did not answer within 1 s: it never connected to this broker\n"
    code, out, err = send(broker, capsys, "--table", "77", "call", "--broker-dir", str(broker.folder))
    assert code == 2 and err == f"shotclock: --table 77: no such table in the broker folder {broker.folder}; its " \
                                "tables: 1, 2, 3\n"
    code, out, err = send(broker, capsys, "--all", "--room", "Mian", "hand_for_hand")
    assert (code, out) == (2, "") and err == ("shotclock: --room Mian: no table the venue knows stands in room 'Mian' "
                                              "(rooms: 'Main')\n")
    # Said before anything was sent: the one command on the broker is table 3's (known, so sent), nothing kept.
    sent = [json.loads(m.payload)["name"] for m in list(everything.messages) if m.topic.endswith("/cmd")]
    assert sent == ["call"] and not [m for m in everything.messages if "/handforhand/" in m.topic]
    assert [m.topic for m in everything.messages if m.topic.endswith("/cmd")] == ["shotclock/v1/test/table/3/cmd"]


def test_an_offline_tables_command_says_since_when_it_is_offline(floor, capsys):
    broker, inbox, devices, folder = floor
    devices["2"].stop()
    code, out, err = send(broker, capsys, "--table", "2", "call", "--wait", "1")
    assert code == 2 and re.fullmatch(r"shotclock: table 2 did not answer within 1 s: offline since \d\d:\d\d\n", err)


def test_a_broker_configured_before_the_rooms_state_existed_is_said_and_the_answers_still_come(tmp_path, capsys):
    broker = MosquittoBroker(tmp_path / "broker", venue="test", tables=["1"])
    acl = broker.folder / "acl"  # as broker-config wrote it before: no line for the hand-for-hand states
    acl.write_text("\n".join(line for line in acl.read_text().splitlines() if "/handforhand/" not in line) + "\n")
    with broker:
        dev = start(broker, "1", tmp_path)
        try:
            code, out, err = send(broker, capsys, "--all", "hand_for_hand")
            assert code == 1 and out == "table 1: hand-for-hand started (2 min off the tournament clock a hand)\n"
            assert err == ("1 of 1 tables took it\n"
                           "not kept on the broker, so a table that was away will not catch up: the broker refused "
                           "the hand-for-hand state: not allowed for this login (run 'shotclock broker-config' again: "
                           "its ACL lets floor logins keep it)\n")
        finally:
            dev.stop()
