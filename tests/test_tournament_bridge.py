"""The tournament clock across a bridged room: the clock's process on the venue broker, a table on a room broker
bridged to it. The table follows the clock through the bridge, and a break it missed while its room's bridge was
down reaches it when the bridge is back (the clock's retained state). Two real mosquitto instances, a real device."""

from __future__ import annotations

import pytest

from helpers import wait_until
from mqtt_broker import Inbox
from network_device import RunningDevice, network_config
from shotclock.cli import main
from shotclock.core.topics import tournament_topic
from test_bridge import VENUE, Pair
from test_tournament_tables import ignored
from tournament_clock import SUNDAY as STRUCTURE, Clock, latest


@pytest.fixture
def bridged(tmp_path, certificate):
    pair = Pair(tmp_path, certificate)
    structure = tmp_path / "sunday.toml"
    structure.write_text(STRUCTURE)
    clock = Clock(pair.venue, tmp_path)
    inbox = Inbox(pair.venue.client("floor"), tournament_topic(VENUE, "main", "#"))
    clock.start("--structure", str(structure), scope=("--room", "east"))
    latest(inbox)
    table = RunningDevice(network_config(pair.room, table="1", extra="[device]\nhold = 0.3\n") + 'room = "east"\n',
                          tmp_path / "state-1")
    wait_until(lambda: table.link.status.connected, what="the room's table online")
    yield pair, clock, table
    if table.thread.is_alive():
        table.stop()
    clock.kill()
    pair.close()


def command(pair, capsys, *args: str) -> int:
    code = main(["tournament", args[0], "--broker", f"127.0.0.1:{pair.venue.port}", "--venue", VENUE,
                 "--credentials", str(pair.venue.credentials_file("floor")), "--id", "main", *args[1:]])
    capsys.readouterr()
    return code


def test_a_room_brokers_table_follows_the_clock_and_takes_a_break_it_missed_when_its_bridge_is_back(bridged, capsys):
    pair, clock, table = bridged
    assert command(pair, capsys, "start") == 0
    wait_until(lambda: table.device.table.levels.next.upcoming.level == 1, what="level 1 through the bridge")
    pair.room.kill()  # the room's broker gone, and its bridge with it
    assert command(pair, capsys, "next") == 0  # the break begins while the room hears nothing
    assert table.device.table.state.tournament_break is None
    pair.room.start()
    wait_until(lambda: table.device.table.state.tournament_break is not None, timeout=60,
               what="the break the room missed, through the bridge")
    table.tap("street", hold=0.5)  # the dealer deals on the break (the hand in play was played out)
    wait_until(lambda: table.device.table.following.dealt_on_break, what="the hand dealt on the break")
    table.tap("floor")  # no clock on a break
    wait_until(lambda: ignored(table.state_dir), what="the call refused")
    assert table.device.table.engine.state.phase.name == "IDLE"
    assert command(pair, capsys, "next") == 0  # level 2: the break is over, through the bridge at once
    wait_until(lambda: table.device.table.levels.next.upcoming.level == 2 and
               table.device.table.state.tournament_break is None, what="level 2 through the bridge")
