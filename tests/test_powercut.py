"""kill -9 at random moments: the log stays sound, keeps every reported ruling, and recovers the clock."""

import json
import os
import random
import signal
import subprocess
import sys
import time

import pytest

from helpers import read_report, run_device, start_device, wait_until
from shotclock.adapters.log import DecisionLog, lock_state_dir
from shotclock.core.clocks import clocks_from
from shotclock.core.restore import HOW_LOST, HOW_PAUSED

CONFIG = "[clock]\nseconds = 1.5\ncountdown = 1\ntie_window = 0.25\n"
# Clocks called, paused, acted on and left to expire, one after another for about 5 s.
# Floor presses of 0.1 s, as a hand presses: well past the 40 ms the floor button must stay closed.
SCRIPT = [
    {"t": 0.05, "button": "bet", "hold": 0.05},
    {"t": 0.10, "button": "floor", "hold": 0.1},   # call (clock 1; or resumes a recovered clock)
    {"t": 0.60, "button": "action", "hold": 0.05},  # acted
    {"t": 0.70, "button": "floor", "hold": 0.1},   # call (clock 2)
    {"t": 1.00, "button": "floor", "hold": 0.1},   # pause
    {"t": 1.30, "button": "floor", "hold": 0.1},   # resume
    {"t": 1.50, "button": "bet", "hold": 0.05},     # bet off: it will be a check
    {"t": 3.40, "button": "floor", "hold": 0.1},   # call (clock 3) after clock 2 expired
    {"t": 4.40, "button": "action", "hold": 0.05},  # acted
]


def start(tmp_path, script_lines, report):
    return start_device(tmp_path, config=CONFIG, script=script_lines, report=report)


def wait_for_script_start(proc, report) -> float:
    """Wait until the device plays its script (the report's first record, the bet pressed at 0.05 s) and
    return the script time it had reached then, so kill moments count from the script's start, not from
    the Popen: a loaded machine takes seconds to start Python."""
    first = wait_until(lambda: read_report(report)[:1], what="the device to begin its script", alive=proc)
    return max(0.0, first[0]["t"])


def decisions(records):
    return sorted((r["outcome"], round(r.get("remaining") or 0, 6)) for r in records if r["type"] == "decision")


@pytest.mark.slow
def test_kill_9_at_random_moments(tmp_path):
    rng = random.Random(29)  # reproducible moments
    moments = sorted(rng.uniform(0.5, 5.0) for _ in range(7))
    recovered = 0
    for i, moment in enumerate(moments):
        report = tmp_path / f"report-{i}.jsonl"
        proc = start(tmp_path, SCRIPT, report)
        reached = wait_for_script_start(proc, report)
        time.sleep(max(0.0, moment - reached))
        os.kill(proc.pid, signal.SIGKILL)
        proc.wait(timeout=30)
        os.close(lock_state_dir(tmp_path / "state", wait=20))  # the log writer finishes what it was handed
        assert (tmp_path / "state" / "shotclock.db").exists()  # its script ran: the log was open
        log = DecisionLog(tmp_path / "state", readonly=True)
        assert log.integrity() == "ok"
        ok, message = log.verify()
        assert ok, f"after a kill at {moment:.2f} s: {message}"
        # Every ruling the device reported before it died is in the log (for that session).
        reported = read_report(report)
        session = max(log.sessions())
        logged = [r for r in log.rows("WHERE session = ?", (session,))]
        assert set(decisions(reported)) <= set(decisions(logged)), f"kill at {moment:.2f} s lost a ruling"
        # The killed run, replayed from the raw edges in its log, gives the same inputs and rulings.
        check = subprocess.run([sys.executable, "-m", "shotclock", "log", "--state-dir", str(tmp_path / "state"),
                                "replay", str(session), "--check"], capture_output=True, text=True, timeout=60)
        assert check.returncode == 0, check.stdout + check.stderr
        clocks = clocks_from(log.rows("WHERE clock IS NOT NULL"))
        open_clock = clocks[-1] if clocks and clocks[-1].open else None
        log.close()

        # The next start recovers a clock that was running or paused when the power went.
        if open_clock is not None:
            proc = start(tmp_path, [], tmp_path / "recover.jsonl")
            _, err = proc.communicate(timeout=60)
            assert proc.returncode == 0, err
            assert f"clock {open_clock.id} was interrupted" in err
            os.close(lock_state_dir(tmp_path / "state", wait=20))
            log = DecisionLog(tmp_path / "state", readonly=True)
            recovery = max(log.sessions())
            interrupted = log.rows("WHERE type = 'interrupted' AND clock = ? AND session = ?",
                                   (open_clock.id, recovery))
            assert len(interrupted) == 1 and interrupted[0]["remaining"] >= 0
            # Killed while the log writer lives on: the time left is exact, to the moment the device died.
            assert interrupted[0]["how"] in (HOW_LOST, HOW_PAUSED)
            assert log.verify()[0]
            log.close()
            recovered += 1
    assert recovered >= 2, "the chosen moments should include clocks cut off while running"


def first_reported(proc, report, kind) -> dict:
    """The first report record of type ``kind``: the device reached that point of its script."""
    found = wait_until(lambda: [r for r in read_report(report) if r.get("type") == kind][:1],
                       what=f"a {kind} in the report", alive=proc)
    return found[0]


def exported(tmp_path) -> list[dict]:
    """Every record, as ``shotclock log export --jsonl`` prints it (what a floor reads)."""
    out = subprocess.run([sys.executable, "-m", "shotclock", "log", "--state-dir", str(tmp_path / "state"),
                          "export", "--jsonl"], capture_output=True, text=True, timeout=60)
    assert out.returncode == 0, out.stderr
    return [json.loads(line) for line in out.stdout.splitlines()]


def restart_and_read_interrupted(tmp_path) -> dict:
    os.close(lock_state_dir(tmp_path / "state", wait=20))  # the killed device's writer finishes first
    done = run_device(tmp_path / "restart", config=SHOT, script=[], state=tmp_path / "state")
    assert done.returncode == 0, done.stderr
    [record] = [r for r in exported(tmp_path) if r["type"] == "interrupted"]
    return record


SHOT = 'preset = "shot-30"\n'


@pytest.mark.slow
def test_kill_9_while_running_restores_the_time_the_clock_had_when_the_device_died(tmp_path):
    report = tmp_path / "run" / "report.jsonl"
    proc = start_device(tmp_path / "run", config=SHOT, script=[{"t": 0.3, "button": "action"}, {"t": 30, "button": "bet"}],
                        state=tmp_path / "state")
    first_reported(proc, report, "start")
    time.sleep(1.5)
    killed_at = time.monotonic()  # the device's clock is this machine's monotonic clock
    os.kill(proc.pid, signal.SIGKILL)
    proc.wait(timeout=30)
    time.sleep(3)  # the device is down for a while: not the player's time
    record = restart_and_read_interrupted(tmp_path)
    records = exported(tmp_path)
    [start] = [r for r in records if r["type"] == "start"]
    [lost] = [r for r in records if r["type"] == "lost"]
    truth = 30 - (killed_at - start["t"])
    assert record["restored"] and (record["how"], record["cause"]) == (HOW_LOST, "crash")
    assert record["remaining"] == pytest.approx(30 - (lost["t"] - start["t"]), abs=1e-6)
    # The writer notices the death a moment after it (the end of the pipe): within 0.25 s, as promised.
    assert record["remaining"] >= truth - 0.25
    assert record["remaining"] <= truth + 2.0  # within a heartbeat (a loaded machine wakes late: bounded loosely)
    assert lost["silent_for"] <= 0.25 * 1.5 or lost["t"] == lost["heard_at"]


@pytest.mark.slow
def test_kill_9_after_an_undo_while_paused_restores_the_paused_time(tmp_path):
    # Issue 17's reproduction: the undo while paused was once taken for "running" and the downtime ran off.
    script = [{"t": 0.3, "button": "action"}, {"t": 1, "button": "extend"}, {"t": 2, "button": "floor"},
              {"t": 3, "button": "extend", "hold": 2.3}, {"t": 30, "button": "bet"}]
    report = tmp_path / "run" / "report.jsonl"
    proc = start_device(tmp_path / "run", config=SHOT, script=script, state=tmp_path / "state")
    first_reported(proc, report, "undo")
    time.sleep(0.5)
    os.kill(proc.pid, signal.SIGKILL)
    proc.wait(timeout=30)
    time.sleep(3)
    record = restart_and_read_interrupted(tmp_path)
    [pause] = [r for r in exported(tmp_path) if r["type"] == "pause"]
    assert record["restored"] and record["how"] == HOW_PAUSED
    assert record["remaining"] == pytest.approx(pause["remaining"] - 30, abs=1e-6)  # 28.3: the chip taken back
    # The script's 28.3 s, give or take a loaded machine's late presses; the 3 s of downtime never ran off.
    assert record["remaining"] == pytest.approx(28.3, abs=0.5)
    assert (record["extensions"], record["seconds"]) == (0, 30)
