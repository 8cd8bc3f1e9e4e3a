"""A level on the real device (fake pins, real time, the real log writer): it survives a restart, and the export of
a clock played at it replays to the same ruling (``log export --replay N | shotclock replay``)."""

import json
import sqlite3
import subprocess
import sys
import time

from helpers import wait_until
from network_device import RunningDevice
from shotclock.core.inputs import Command
from shotclock.core.levels import LevelView

CONFIG = """mode = "clock"
[levels.11]
mode = "shot"
shot.preflop = 1
shot.countdown = 0
"""


def test_a_level_survives_a_restart_and_the_export_replays_the_same_ruling(tmp_path):
    state = tmp_path / "state"
    dev = RunningDevice(CONFIG, state)
    try:
        dev.device.loop.post(Command(time.monotonic(), "level", id="l1", sender="floor-anna", level=11, hands=3))
        waiting = LevelView(None, next_level=11, next_hands=3)
        wait_until(lambda: dev.device.table.state.level == waiting, what="the level waits")
        dev.tap("street", hold=2.3)  # a new hand: level 11, hand 1 of 3, the shot clock
        wait_until(lambda: dev.device.table.state.level == LevelView(11, 1, 3), what="level 11 in play")
        dev.tap("action")  # the shot clock starts: 1 s, nobody acts: dead against the blinds
        wait_until(lambda: dev.device.table.state.last is not None, what="the ruling")
        assert dev.device.table.state.last.outcome == "hand_dead"
    finally:
        dev.stop()
    again = RunningDevice(CONFIG, state)
    try:
        assert again.device.table.state.level == LevelView(11, 1, 3)
        assert again.device.table.state.mode == "shot"
    finally:
        again.stop()
    db = sqlite3.connect(state / "shotclock.db")
    [restored] = [json.loads(d) for (d,) in db.execute("SELECT data FROM records WHERE type = 'level_restored'")]
    assert restored == {"current": {"level": 11, "hand": 1, "hands": 3, "by": "floor-anna"}, "next": None}
    header, outcomes = export_and_replay(state)
    assert header["level"] == 11 and header["config"]["mode"] == "shot" and header["config"]["shot.preflop"] == 1
    assert outcomes == ["hand_dead"]


def export_and_replay(state) -> tuple[dict, list[str]]:
    """``log export --replay 1 | shotclock replay``: the export's header and the replay's outcomes, after
    ``log replay --check --all`` held the whole log (every session, from its edges and commands) to what it says."""
    check = subprocess.run([sys.executable, "-m", "shotclock", "log", "--state-dir", str(state), "replay", "--check",
                            "--all"], capture_output=True, text=True)
    assert check.returncode == 0, check.stdout + check.stderr
    exported = subprocess.run([sys.executable, "-m", "shotclock", "log", "--state-dir", str(state), "export",
                               "--replay", "1"], capture_output=True, text=True, check=True).stdout
    replayed = subprocess.run([sys.executable, "-m", "shotclock", "replay"], input=exported, capture_output=True,
                              text=True, check=True).stdout
    return json.loads(exported.splitlines()[0]), [json.loads(x)["outcome"] for x in replayed.splitlines()
                                                  if '"decision"' in x]


BUBBLE = """mode = "clock"
[rule_sets.bubble]
mode = "shot"
shot.preflop = 1
shot.countdown = 0
"""


def test_the_bubbles_shot_clock_on_a_clock_mode_table_exports_and_replays_as_ruled(tmp_path):
    # Issue 27, 2: the house puts a clock-mode room on "a shot clock on every decision" near the money. The clock's
    # mode is read from its own start (a shot clock names its street), so its export and the log's replay say shot.
    state = tmp_path / "state"
    dev = RunningDevice(BUBBLE, state)
    try:
        dev.device.loop.post(Command(time.monotonic(), "rule_set", id="r1", sender="floor-anna", rule_set="bubble"))
        waiting = lambda: getattr(dev.device.table.state.rule_set, "next", None) == "bubble"  # noqa: E731
        wait_until(waiting, what="the bubble waits for the hand")
        assert dev.device.table.state.mode == "clock"
        dev.tap("street", hold=2.3)  # the dealer's new hand: the bubble from here
        wait_until(lambda: dev.device.table.state.mode == "shot", what="the bubble's shot clock")
        dev.tap("action")  # a 1 s shot clock, nobody acts: dead against the blinds
        wait_until(lambda: dev.device.table.state.last is not None, what="the ruling")
        assert dev.device.table.state.last.outcome == "hand_dead"
    finally:
        dev.stop()
    again = RunningDevice(BUBBLE, state)
    try:
        assert again.device.table.state.mode == "shot"  # still the bubble after a restart
    finally:
        again.stop()
    header, outcomes = export_and_replay(state)
    assert header["config"]["mode"] == "shot" and header["config"]["shot.preflop"] == 1
    assert outcomes == ["hand_dead"]


TOP_UP = """mode = "shot"
[device]
hold = 0.3
[shot]
preflop = 0.5
countdown = 0
tie_window = 0.1
[seats]
track = true
count = 3
bank = 1
[levels.3]
top_up.seconds = 1
"""


def test_a_levels_top_up_is_given_once_through_a_correction_and_a_restart_and_the_export_agrees(tmp_path):
    # Issue 36, 4: level 3, then 2 (a correction), then 3 again after a restart: the 1 s top-up is given once.
    state = tmp_path / "state"

    def level_hand(dev, n: int) -> None:
        dev.device.loop.post(Command(time.monotonic(), "level", id=f"l{n}-{time.monotonic_ns()}",
                                     sender="floor-anna", level=n))
        wait_until(lambda: (dev.device.table.state.level or LevelView(None)).next_level == n, what=f"level {n} waits")
        dev.tap("street", hold=0.5)  # the dealer's new hand (device.hold 0.3 s): level n from here
        wait_until(lambda: dev.device.table.state.level.level == n, what=f"level {n} in play")

    dev = RunningDevice(TOP_UP, state)
    try:
        dev.device.loop.post(Command(time.monotonic(), "seating", id="s1", sender="floor-anna",
                                     players=((1, "Ana"), (2, "Ben"), (3, "Cas"))))
        wait_until(lambda: dev.device.table.state.seats.bank(1) == 1, what="the table seated")
        level_hand(dev, 3)
        assert [dev.device.table.state.seats.bank(s) for s in (1, 2, 3)] == [2, 2, 2]
        level_hand(dev, 2)
    finally:
        dev.stop()
    again = RunningDevice(TOP_UP, state)
    try:
        level_hand(again, 3)
        assert [again.device.table.state.seats.bank(s) for s in (1, 2, 3)] == [2, 2, 2]  # not 3: given once
        again.tap("action")  # seat 1's shot clock: 0.5 s and its 2 s bank, nobody acts
        wait_until(lambda: again.device.table.state.last is not None, what="the ruling")
        assert again.device.table.state.last.outcome == "hand_dead"
    finally:
        again.stop()
    db = sqlite3.connect(state / "shotclock.db")
    [restored] = [json.loads(d) for (d,) in db.execute("SELECT data FROM records WHERE type = 'level_restored'")]
    assert restored["current"]["topped_up"] == [3]
    logged = [json.loads(d) for (d,) in db.execute("SELECT data FROM records WHERE type = 'decision'")]
    header, outcomes = export_and_replay(state)
    assert header["level"] == 3 and outcomes == ["hand_dead"]
    exported = subprocess.run([sys.executable, "-m", "shotclock", "log", "--state-dir", str(state), "export",
                               "--replay", "1"], capture_output=True, text=True, check=True).stdout
    replayed = subprocess.run([sys.executable, "-m", "shotclock", "replay"], input=exported, capture_output=True,
                              text=True, check=True).stdout
    [decision] = [json.loads(x) for x in replayed.splitlines() if '"decision"' in x]
    assert (decision["bank_used"], logged[0]["bank_used"]) == (2, 2)
