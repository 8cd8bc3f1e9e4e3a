"""The tables follow their tournament's clock (issue 35), over a real Mosquitto with the clock's process and real
table devices (fake pins, real time): the level in force from the next hand, also for a table that boots mid-level;
a break on which no clock can be called, shown with its time left; a table of another room left alone; and the
device's log replaying to the same."""

from __future__ import annotations

import json
import sqlite3

import pytest

from helpers import wait_until
from mqtt_broker import Inbox, MosquittoBroker
from network_device import RunningDevice, network_config
from shotclock.cli import main
from shotclock.core.topics import tournament_topic
from shotclock.core.view import view_at
from tournament_clock import SUNDAY as STRUCTURE, Clock, latest

ROOMS = {"1": "Main", "2": "Main", "3": "Salon"}


@pytest.fixture
def floor(tmp_path):
    with MosquittoBroker(tmp_path / "broker", venue="test", tables=list(ROOMS)) as broker:
        structure = tmp_path / "sunday.toml"
        structure.write_text(STRUCTURE)
        inbox = Inbox(broker.client("floor"), tournament_topic("test", "main", "#"))
        clock = Clock(broker, tmp_path)
        clock.start("--structure", str(structure))
        latest(inbox)
        devices = {}
        yield broker, inbox, devices, tmp_path
        for dev in devices.values():
            if dev.thread.is_alive():
                dev.stop()
        clock.kill()


def device(broker, devices, table, folder) -> RunningDevice:
    config = network_config(broker, table, extra="[device]\nhold = 0.3\n") + f'room = "{ROOMS[table]}"\n'
    dev = devices[table] = RunningDevice(config, folder / f"state-{table}")
    wait_until(lambda: dev.link.status.connected, what=f"table {table} online")
    return dev


def command(broker, capsys, *args: str) -> int:
    code = main(["tournament", args[0], "--broker", f"127.0.0.1:{broker.port}", "--venue", "test", "--credentials",
                 str(broker.credentials_file("floor")), "--id", "main", *args[1:]])
    capsys.readouterr()
    return code


def upcoming(dev) -> int | None:
    return dev.device.table.levels.next.upcoming.level


def test_the_tables_of_the_room_take_the_level_from_the_next_hand_and_a_late_table_at_once(floor, capsys):
    broker, inbox, devices, folder = floor
    first, other = device(broker, devices, "1", folder), device(broker, devices, "3", folder)
    assert command(broker, capsys, "start") == 0
    wait_until(lambda: upcoming(first) == 1, what="level 1 waiting for table 1's next hand")
    assert command(broker, capsys, "level", "2") == 0
    wait_until(lambda: upcoming(first) == 2, what="level 2 at table 1")
    assert first.device.table.levels.next.current.level is None  # not before the next hand (TDA Rule 23)
    first.tap("street", hold=0.5)  # the dealer's new hand
    wait_until(lambda: first.device.table.levels.next.current.level == 2, what="level 2 in play")
    late = device(broker, devices, "2", folder)  # boots mid-level: the retained state gives it the level at once
    wait_until(lambda: upcoming(late) == 2, what="the late table on level 2")
    assert upcoming(other) is None  # the Salon does not play this tournament


def test_on_a_break_no_clock_can_be_called_and_the_screen_says_how_long(floor, capsys):
    broker, inbox, devices, folder = floor
    table = device(broker, devices, "1", folder)
    assert command(broker, capsys, "start") == 0
    assert command(broker, capsys, "next") == 0  # the break begins
    wait_until(lambda: table.device.table.state.tournament_break is not None, what="the break at the table")
    table.tap("street", hold=0.5)  # the dealer deals on the break (the hand in play was played out)
    wait_until(lambda: table.device.table.following.dealt_on_break, what="the hand dealt on the break")
    table.tap("floor")  # the floor calls the clock: not on a break
    wait_until(lambda: ignored(folder / "state-1"), what="the call refused")
    assert table.device.table.engine.state.phase.name == "IDLE"
    state = table.device.table.state
    view = view_at(state, table.device.loop.clock())
    assert view.screen == "break" and view.title == "PAUZE · dinner" and view.big.startswith(("29:", "30:00"))
    assert command(broker, capsys, "next") == 0  # the floor ends the break: the tables may call the clock again
    wait_until(lambda: table.device.table.state.tournament_break is None, what="the break over")
    table.tap("floor")
    wait_until(lambda: table.device.table.engine.state.phase.name == "RUNNING", what="the clock called")
    table.stop()  # the evidence: its log, replayed from what reached it (the clock's states too), says the same
    assert main(["log", "--state-dir", str(folder / "state-1"), "replay", "--check", "--all"]) == 0, \
        capsys.readouterr()


def ignored(state_dir) -> list[str]:
    """The reasons of the ``ignored`` records in a device's log."""
    db = sqlite3.connect(state_dir / "shotclock.db")
    try:
        rows = db.execute("SELECT data FROM records WHERE type = 'ignored'").fetchall()
    finally:
        db.close()
    return [json.loads(d).get("reason", "") for (d,) in rows if "break" in json.loads(d).get("reason", "")]


def test_a_table_on_a_room_broker_follows_the_clock_at_the_venue_through_the_bridge(tmp_path, certificate, capsys):
    from test_bridge import VENUE, Pair

    pair = Pair(tmp_path, certificate)
    structure = tmp_path / "sunday.toml"
    structure.write_text(STRUCTURE)
    clock = Clock(pair.venue, tmp_path, venue=VENUE)
    clock.start("--structure", str(structure), scope=("--room", "east"))
    latest(pair.inbox)  # the clock is on the network
    east = RunningDevice(network_config(pair.room, table="1") + 'room = "east"\n', tmp_path / "state-1")
    try:
        wait_until(lambda: east.link.status.connected, what="the room's table online")
        assert main(["tournament", "start", "--broker", f"127.0.0.1:{pair.venue.port}", "--venue", VENUE,
                     "--credentials", str(pair.venue.credentials_file("floor")), "--id", "main"]) == 0
        wait_until(lambda: upcoming(east) == 1, what="level 1 at the room broker's table")
        assert main(["tournament", "next", "--broker", f"127.0.0.1:{pair.venue.port}", "--venue", VENUE,
                     "--credentials", str(pair.venue.credentials_file("floor")), "--id", "main"]) == 0
        wait_until(lambda: east.device.table.state.tournament_break is not None, what="the break through the bridge")
    finally:
        capsys.readouterr()
        east.stop()
        clock.kill()
        pair.close()
