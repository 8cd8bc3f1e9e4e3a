"""kill -9 at random moments: the log stays sound, keeps every reported ruling, and recovers the clock."""

import os
import random
import signal
import subprocess
import sys
import time

import pytest

from helpers import read_report, start_device, wait_until
from shotclock.adapters.log import DecisionLog, lock_state_dir
from shotclock.core.clocks import clocks_from

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
            # Killed in the same boot: the time left is exact, from the monotonic deadline.
            assert interrupted[0]["how"] in ("exact: same boot", "exact: stopped")
            assert log.verify()[0]
            log.close()
            recovered += 1
    assert recovered >= 2, "the chosen moments should include clocks cut off while running"
