"""``shotclock floor idle``: the step of a fleet update that waits for a table with no clock open."""

from __future__ import annotations

import json
import time

import pytest

from mqtt_broker import Inbox
from shotclock.core.topics import table_topic

import shotclock
from shotclock.cli import main
from shotclock.floor.fleet import start_fleet
from shotclock.floor.update import blocker

ONLINE = {"online": True, "table": "1", "boot": "b1", "version": "0.2.0"}
IDLE = {"table": "1", "boot": "b1", "phase": "idle"}


def test_an_online_idle_table_may_be_updated():
    assert blocker(ONLINE, IDLE) is None
    assert blocker(ONLINE, IDLE, version="0.2.0") is None


@pytest.mark.parametrize("status, state, version, words", [
    (None, None, None, "no status"),
    ({**ONLINE, "online": False}, IDLE, None, "offline"),
    (ONLINE, IDLE, "0.3.0", "runs 0.2.0, not 0.3.0"),
    (ONLINE, None, None, "no state"),
    (ONLINE, {**IDLE, "boot": "b0"}, None, "no state from its current run"),
    (ONLINE, {**IDLE, "phase": "running"}, None, "a clock is open (running)"),
    (ONLINE, {**IDLE, "phase": "paused"}, None, "a clock is open (paused)"),
    (ONLINE, {**IDLE, "interrupted": True}, None, "interrupted"),
])
def test_what_keeps_a_table_from_its_update_is_named(status, state, version, words):
    assert words in blocker(status, state, version)


@pytest.mark.slow
def test_floor_idle_waits_for_the_clock_to_close(broker, tmp_path, capsys):
    tables = start_fleet(1, "127.0.0.1", broker.port, "test", broker.folder / "credentials", tmp_path / "fleet",
                         extra="[clock]\nseconds = 600\n")
    ask = ["floor", "idle", "--broker", f"127.0.0.1:{broker.port}", "--venue", "test", "--credentials",
           str(broker.credentials_file("floor")), "--table", "1"]
    try:
        assert main([*ask, "--version", shotclock.__version__, "--wait", "60"]) == 0
        assert f"shotclock {shotclock.__version__}" in capsys.readouterr().out
        inbox = Inbox(broker.client("floor"), table_topic("test", "1", "state"))
        now = time.monotonic()
        tables[0].press("floor", now)
        tables[0].release("floor", now + 0.1)  # a clock is called: no update now
        assert inbox.wait_for(lambda m: json.loads(m.payload)["phase"] != "idle"), "the clock never showed"
        assert main([*ask, "--wait", "3"]) == 1
        assert "a clock is open" in capsys.readouterr().out
        assert main([*ask, "--version", "9.9.9", "--wait", "0.5"]) == 1
    finally:
        for table in tables:
            table.stop()
