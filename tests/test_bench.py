"""A smoke run of the benchmarks (a few clocks), so they keep working; the figures are not judged here."""

import json
import math
import subprocess
import sys
from pathlib import Path

import pytest



ROOT = Path(__file__).parent.parent


@pytest.mark.slow
def test_bench_quick_writes_every_key(tmp_path):
    out = tmp_path / "latest.json"
    proc = subprocess.run([sys.executable, str(ROOT / "bench" / "run.py"), "--quick", "--out", str(out)],
                          capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr
    figures = json.loads(out.read_text())
    sys.path.insert(0, str(ROOT / "bench"))
    from postgres_server import postgres_bin
    from run import GOALS, _network_goals

    _network_goals()
    assert "net_event_latency_ms_p99" in GOALS
    for key in GOALS:
        value = figures[key]
        assert isinstance(value, (int, float)), key
        if key in ("net_expiry_late_ms_p99", "net_beep_late_ms_p99", "net_off_expiry_late_ms_p99") and math.isnan(value):
            continue  # a clock missed on an overloaded machine: bench/network.py says so and goes on
        if key.startswith("net_archive_rate_pg_") and math.isnan(value) and postgres_bin() is None:
            continue  # no PostgreSQL here (./dev installs it as root; CI has it)
        assert value >= 0 or key == "net_cpu_cost_pct", key  # a difference of two CPU figures
    assert "| expiry_late_ms_p99" in proc.stdout  # the table is printed
    # Comparing figures (the device against the naive frame loop) is the full bench's job: on a loaded
    # machine a smoke run of a few clocks says nothing about it, and a test must not depend on load.


def test_log_size_bench_runs():
    proc = subprocess.run([sys.executable, str(ROOT / "bench" / "log_size.py")], capture_output=True, text=True,
                          timeout=300)
    assert proc.returncode == 0, proc.stderr
    results = json.loads(proc.stdout.splitlines()[-1])
    assert {r["mode"] for r in results} == {"clock", "shot"} and all(r["bytes_per_clock"] > 0 for r in results)


def test_bench_replay_prints_the_two_replay_figures_and_the_load(tmp_path):
    latest = ROOT / "bench" / "latest.json"
    before = latest.read_bytes() if latest.exists() else None
    proc = subprocess.run([sys.executable, str(ROOT / "bench" / "run.py"), "--replay", "--quick"],
                          capture_output=True, text=True, timeout=300, cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    lines = proc.stdout.splitlines()
    assert "load average" in lines[0]
    assert [line.split(":")[0] for line in lines[1:]] == ["replay_events_per_s", "replay_seats_events_per_s"]
    assert (latest.read_bytes() if latest.exists() else None) == before  # the full run's figures are kept


def test_bench_structure_prints_the_structure_readers_figures(tmp_path):
    proc = subprocess.run([sys.executable, str(ROOT / "bench" / "run.py"), "--structure", "--quick"],
                          capture_output=True, text=True, timeout=300, cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    lines = proc.stdout.splitlines()
    assert "load average" in lines[0]
    assert [line.split(":")[0] for line in lines[1:]] == ["structure_tdt_200kb_ms", "structure_tdt_4mb_ms"]
    assert "for 200,0" in lines[1] and "for 3,99" in lines[2]  # the sizes the figures are for
