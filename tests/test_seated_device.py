"""A seat-aware hand played on the device in script mode (mock pins), and its log replayed with --check."""

import json
import subprocess
import sys

from helpers import read_report, run_device

CONFIG = """mode = "shot"
[shot]
preflop = 3
flop = 3
countdown = 1
tie_window = 0.25
allowance = 1
[seats]
track = true
count = 6
"""
# Button 1, blinds 2 and 3: seat 4 acts first. Holds are 0.3 s (device.hold 0.3 below).
SCRIPT = [
    {"t": 0.2, "button": "street", "hold": 0.5},   # hold: a new hand
    {"t": 1.0, "button": "action", "hold": 0.05},  # start: seat 4's clock
    {"t": 1.3, "button": "extend", "hold": 0.05},  # a chip charged to seat 4
    {"t": 1.6, "button": "action", "hold": 0.5},   # seat 4 acted, held: folded; seat 5 on the clock
    {"t": 2.4, "button": "bet", "hold": 0.3},      # bet held ...
    {"t": 2.5, "button": "action", "hold": 0.05},  # ... and action: seat 5 all-in; seat 6 on the clock
    {"t": 2.9, "button": "action", "hold": 0.05},  # seat 6 acted; seat 1 on the clock
]


def test_a_seat_aware_hand_on_the_device_and_its_log_replays_exactly(tmp_path):
    config = CONFIG.replace('[shot]', '[device]\nhold = 0.3\n[shot]')
    proc = run_device(tmp_path, config=config, script=SCRIPT)
    assert proc.returncode == 0, proc.stderr
    report = read_report(tmp_path / "report.jsonl")
    starts = [r.get("seat") for r in report if r.get("type") == "start"]
    assert starts[:4] == [4, 5, 6, 1]
    extended = [r for r in report if r.get("type") == "extended"]
    assert extended and extended[0]["seat"] == 4 and extended[0]["chips_left"] == 0
    assert {"folded", "all_in"} <= {r.get("change") for r in report if r.get("type") == "seat"}
    check = subprocess.run([sys.executable, "-m", "shotclock", "log", "--state-dir", str(tmp_path / "state"),
                            "replay", "1", "--check"], capture_output=True, text=True, timeout=60)
    assert check.returncode == 0, check.stdout + check.stderr
    # The ledger agrees with what the device reported: seat 4 took one chip, seat 1 was ruled against.
    ledger = subprocess.run([sys.executable, "-m", "shotclock", "log", "--state-dir", str(tmp_path / "state"),
                             "ledger", "--json"], capture_output=True, text=True, timeout=60)
    assert ledger.returncode == 0, ledger.stderr
    lines = {line["seat"]: line for line in json.loads(ledger.stdout)}
    decisions = [r for r in report if r.get("type") == "decision" and r.get("outcome") != "cancelled"]
    assert sum(line["decisions"] for line in lines.values()) == len(decisions)
    assert lines[4]["extensions"] == 1
    against = {r["seat"] for r in decisions if r["outcome"] in ("hand_dead", "check")}
    assert {seat for seat, line in lines.items() if line["rulings_against"]} == against


BANK_CONFIG = """mode = "shot"
[device]
hold = 0.3
[shot]
preflop = 0.5
countdown = 0
tie_window = 0.1
allowance = 2
[seats]
track = true
count = 3
bank = 2
"""
BANK_SCRIPT = [
    {"t": 0.2, "button": "street", "hold": 0.5},   # hold: a new hand; button 1, seat 1 acts first (3-handed)
    {"t": 1.0, "button": "action", "hold": 0.05},  # start: seat 1's clock, 0.5 s base + 2 s bank
    {"t": 1.2, "button": "extend", "hold": 0.05},  # seat 1 uses a chip (+30 s)
    {"t": 1.5, "button": "extend", "hold": 0.4},   # held: taken back
    {"t": 3.0, "button": "action", "hold": 0.05},  # seat 1 acted after 2 s: 1.5 s of its bank used
]


def test_seats_banks_and_chips_survive_a_restart_and_the_log_replays_both_sessions(tmp_path):
    from shotclock.adapters.log import DecisionLog

    proc = run_device(tmp_path, config=BANK_CONFIG, script=BANK_SCRIPT)
    assert proc.returncode == 0, proc.stderr
    report = read_report(tmp_path / "report.jsonl")
    decision = next(r for r in report if r.get("type") == "decision")
    assert decision["seat"] == 1 and decision["bank_left"] < 2
    proc = run_device(tmp_path, config=BANK_CONFIG, script=[{"t": 0.2, "button": "bet", "hold": 0.05}])
    assert proc.returncode == 0, proc.stderr
    assert "seats restored from the log" in proc.stderr
    log = DecisionLog(tmp_path / "state", readonly=True)
    restored = log.rows("WHERE type = 'seats_restored'")
    sessions = sorted(log.sessions())
    log.close()
    assert len(restored) == 1
    # Seat 2's clock ran out before the device stopped (a dead hand: folded): seat 3 is on turn.
    assert restored[0]["banks"]["1"] == decision["bank_left"] and restored[0]["turn"] == 3
    assert restored[0]["in_hand"] == [1, 3] and restored[0]["chips_used"] == {}
    for session in sessions:
        check = subprocess.run([sys.executable, "-m", "shotclock", "log", "--state-dir", str(tmp_path / "state"),
                                "replay", str(session), "--check"], capture_output=True, text=True, timeout=60)
        assert check.returncode == 0, check.stdout + check.stderr
