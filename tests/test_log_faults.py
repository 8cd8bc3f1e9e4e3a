"""The device keeps perfect time whatever the log does: a locked, deleted or missing database, a second device.

These run the real device process in script mode (fake pins, real time) with its log writer process.
Timing bounds are loose (a loaded 2-core machine); the figures are in bench/ (ruling_late_ms_p99_db_locked).
"""

import os
import sqlite3
import subprocess
import sys
import threading
from pathlib import Path

import pytest

from helpers import read_report, run_device, start_device, wait_until
from shotclock.adapters.log import DB_NAME, DecisionLog, lock_state_dir

CONFIG = "[clock]\nseconds = 1\ncountdown = 1\ntie_window = 0.25\n"
# A floor call every 1.5 s: each clock expires 1.25 s after its call (a check).
CALLS = [{"t": 0.3 + 1.5 * k, "button": "floor", "hold": 0.1} for k in range(5)]


def start(tmp_path, script, state, extra=()):
    return start_device(tmp_path, config=CONFIG, script=script, state=state, extra=extra)


def has_records(db: Path, n=1):
    try:
        con = sqlite3.connect(f"file:{db}?mode=ro", uri=True, timeout=0.1)
        try:
            return con.execute("SELECT COUNT(*) FROM records").fetchone()[0] >= n
        finally:
            con.close()
    except sqlite3.Error:
        return False


def report(tmp_path):
    return read_report(tmp_path / "report.jsonl")


def decisions_of(rows):
    return [(r["outcome"], round(r.get("remaining") or 0, 6)) for r in rows if r["type"] == "decision"]


@pytest.mark.slow
def test_a_locked_database_delays_no_beep_no_ruling_and_loses_no_call(tmp_path):
    state = tmp_path / "state"
    proc = start(tmp_path, CALLS, state)
    wait_until(lambda: has_records(state / DB_NAME, 3), what="3 records in the log", alive=proc)
    # Another process holds an exclusive lock for 3 s while clocks run and the floor calls.
    locker = subprocess.Popen([sys.executable, "-c", (
        "import sqlite3, sys, time\n"
        f"con = sqlite3.connect({str(state / DB_NAME)!r}, isolation_level=None)\n"
        "con.execute('BEGIN EXCLUSIVE'); print('locked', flush=True); time.sleep(3); con.execute('COMMIT')\n")],
        stdout=subprocess.PIPE, text=True)
    assert locker.stdout.readline().strip() == "locked"
    _, err = proc.communicate(timeout=60)
    locker.wait(timeout=10)
    assert proc.returncode == 0, err
    rows = report(tmp_path)
    assert [r["type"] for r in rows if r["type"] == "input"] == ["input"] * 5  # every call taken
    assert len(decisions_of(rows)) == 5
    for r in rows:
        if r["type"] in ("beep", "decision"):
            assert 0 <= r["t"] - r["due"] < 0.5, r  # on time (figures: bench)
    assert "cannot write" in err and "locked" in err  # the writer met the lock, and said so
    log = DecisionLog(state, readonly=True)
    assert log.verify()[0]
    session = max(log.sessions())
    assert sorted(decisions_of(log.rows("WHERE session = ?", (session,)))) == sorted(decisions_of(rows))


@pytest.mark.slow
def test_a_database_deleted_while_running_is_recreated(tmp_path):
    state = tmp_path / "state"
    proc = start(tmp_path, CALLS, state)
    wait_until(lambda: has_records(state / DB_NAME, 3), what="3 records in the log", alive=proc)
    for suffix in ("", "-wal", "-shm"):
        Path(str(state / DB_NAME) + suffix).unlink(missing_ok=True)
    _, err = proc.communicate(timeout=60)
    assert proc.returncode == 0, err
    assert "was deleted or replaced while running" in err
    log = DecisionLog(state, readonly=True)
    assert log.verify()[0]
    sessions = log.sessions()
    assert any(s.get("reopened") for s in sessions.values())  # the session is recorded again
    rows = log.rows()
    assert decisions_of(rows)  # and the rulings after the deletion are there
    # Every record names a session of this file, and a clock of this file or none (not ids of the deleted one).
    starts = {r["id"] for r in rows if r["type"] == "start"}
    assert {r["session"] for r in rows} <= set(sessions)
    assert {r["clock"] for r in rows if r["clock"] is not None} <= starts


@pytest.mark.slow
def test_a_log_that_cannot_be_made_at_start_is_made_when_it_can(tmp_path):
    blocker = tmp_path / "full"
    blocker.write_text("")  # the state directory cannot be made (as on a full disk)
    state = blocker / "state"
    proc = start(tmp_path, CALLS[:3], state)
    lines = []
    reader = threading.Thread(target=lambda: lines.extend(proc.stderr), daemon=True)
    reader.start()
    wait_until(lambda: any("keeps trying" in line for line in lines), what="running without its log")
    blocker.unlink()  # space again
    proc.wait(timeout=60)
    reader.join(10)
    err = "".join(lines)
    assert proc.returncode == 0, err
    log = DecisionLog(state, readonly=True)
    assert log.verify()[0]
    assert len(decisions_of(log.rows())) == 3  # every ruling, also those made before the log could be opened


@pytest.mark.slow
def test_a_second_device_on_the_same_state_directory_is_refused(tmp_path):
    state = tmp_path / "state"
    fd = lock_state_dir(state)  # as a running device holds it
    try:
        proc = run_device(tmp_path, state=state)
    finally:
        os.close(fd)
    assert proc.returncode == 2
    assert "another shotclock device is running on the state directory" in proc.stderr
    assert "Traceback" not in proc.stderr


def test_a_stream_made_anew_never_points_a_record_at_a_clock_of_the_lost_file(tmp_path):
    # In-process, the writer's part alone: a clock starts in file A, A is lost, the ruling goes into file B.
    from shotclock.adapters.logwriter import StreamWriter

    def msg(seq, type, clock=None, t=1.0):
        return {"seq": seq, "clock": clock, "type": type, "t": t, "utc": "2026-11-30T00:00:00Z", "data": {}}

    stream = StreamWriter(DecisionLog(tmp_path / "a"))
    stream.write([msg(1, "session"), msg(2, "input"), msg(3, "start"), msg(4, "beep", {"seq": 3})])
    assert [r["clock"] for r in stream.log.rows()] == [None, None, None, 3]
    fresh = DecisionLog(tmp_path / "b")
    stream.reopened(fresh)
    stream.write([msg(5, "decision", {"seq": 3}), msg(6, "interrupted", {"id": 3}), msg(7, "start"),
                  msg(8, "decision", {"seq": 7})])
    rows = fresh.rows()
    assert [(r["type"], r["clock"]) for r in rows] == [("session", None), ("decision", None),
                                                         ("interrupted", None), ("start", None), ("decision", 4)]
    assert rows[0]["reopened"] is True and {r["session"] for r in rows} == {rows[0]["id"]}
