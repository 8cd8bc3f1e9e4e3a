"""shotclock's benchmarks: how punctual, how light, how fast to start (``./dev bench``).

Every figure is measured on the real device (``shotclock run`` in script mode, fake pins,
the screen drawn on SDL's dummy driver at 800×480, sounds and the decision log on), and
where a ratio matters, against the naive frame loop in ``bench/naive_loop.py`` in the
same run, so machine noise hits both. Prints a table; writes ``bench/latest.json``.

    ./dev bench            # the full run, a few minutes
    ./dev bench --quick    # a smoke run of a few clocks (the test suite runs this)
    ./dev bench --replay   # only the two replay figures, with the machine's load (bench/latest.json untouched)
    ./dev bench --structure  # only the structure reader's figures (bench/latest.json untouched)
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
PY = sys.executable
ENV = dict(os.environ, SDL_VIDEODRIVER="dummy", SDL_AUDIODRIVER="dummy", PYGAME_HIDE_SUPPORT_PROMPT="1")
CLK_TCK = os.sysconf("SC_CLK_TCK")

GOALS = {  # key: (goal, "max" or "min", unit)
    "expiry_late_ms_p50": (None, "max", "ms"),
    "expiry_late_ms_p99": (2.0, "max", "ms"),
    "expiry_late_ms_max": (None, "max", "ms"),
    "beep_late_ms_p99": (2.0, "max", "ms"),
    "ruling_late_ms_p99_db_locked": (2.0, "max", "ms"),
    "naive_expiry_late_ms_p99": (None, "max", "ms"),
    "press_error_ms_max": (1.0, "max", "ms"),
    "cpu_idle_pct": (1.0, "max", "%"),
    "cpu_running_pct": (5.0, "max", "%"),
    "naive_cpu_running_pct": (None, "max", "%"),
    "startup_s": (1.5, "max", "s"),
    "rss_mb": (80.0, "max", "MB"),
    "replay_events_per_s": (100_000, "min", "/s"),
    # Seat tracking (issue 19): the same goals with seats on.
    "expiry_late_ms_p99_seats": (2.0, "max", "ms"),
    "replay_seats_events_per_s": (100_000, "min", "/s"),
    # A tournament's structure (issue 35): TD's saved tournament read, checked and loaded (shotclock structure).
    "structure_tdt_200kb_ms": (250.0, "max", "ms"),
    "structure_tdt_4mb_ms": (None, "max", "ms"),
}


def _network_goals() -> None:
    """Add the floor network's goals and descriptions (bench/network.py, bench/bridge.py, bench/floor_pages.py)."""
    sys.path.insert(0, str(HERE))
    import bridge
    import floor_pages
    import network

    for module in (network, bridge, floor_pages):
        GOALS.update(module.GOALS)
        WHAT.update(module.WHAT)


QUICK = False  # a smoke run (set by main)


MISCOUNTS: list[str] = []  # script runs that did not give the clocks they should (printed with the table)


def miscount(message: str) -> None:
    """A script run that did not give the clocks it should. The script player is a thread that sleeps
    until each scripted edge; when it wakes late enough it can turn a press into two or none. The run
    goes on with the figures of the clocks there are, and the table says so (a whole bench run is not
    thrown away for one such press)."""
    MISCOUNTS.append(message)
    print(message + " (figures taken from what there is)", file=sys.stderr)


def percentile(values, q):
    """The q-quantile (0..1) by linear interpolation."""
    values = sorted(values)
    pos = q * (len(values) - 1)
    lo = int(pos)
    hi = min(lo + 1, len(values) - 1)
    return values[lo] + (values[hi] - values[lo]) * (pos - lo)


def device(tmp: Path, name: str, script: list[dict], config: str, env=None):
    """Start the real device in script mode with the screen on; returns (process, report path)."""
    (tmp / f"{name}.jsonl").write_text("\n".join(json.dumps(s) for s in script) + "\n")
    (tmp / f"{name}.toml").write_text(config)
    report = tmp / f"{name}.report.jsonl"
    proc = subprocess.Popen([PY, "-m", "shotclock", "run", "--pins", "mock", "--offscreen",
                             "--config", str(tmp / f"{name}.toml"), "--state-dir", str(tmp / f"{name}.state"),
                             "--script", str(tmp / f"{name}.jsonl"), "--report", str(report)],
                            env=env or ENV, cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    return proc, report


def finish(proc, timeout):
    _, err = proc.communicate(timeout=timeout)
    if proc.returncode != 0:
        raise SystemExit(f"bench: the device failed:\n{err}")


def cpu_seconds(pid: int) -> float:
    """User + system CPU time of a process so far (from /proc)."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / CLK_TCK


def peak_rss_mb(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) / 1024
    return float("nan")


def bench_timing(tmp: Path, clocks: int, extra_config: str = "", name: str = "timing", lead=()) -> dict:
    """Short clocks called by the floor (with contact bounce): ruling, beep and press timing.

    ``extra_config`` is appended to the device's configuration (bench/network.py turns the network on);
    ``lead``: script presses before the first clock (within its first second), not counted as calls.
    """
    # A 0.1 s press: well past the floor button's 40 ms minimum press time, as a hand presses it.
    seconds, tie, gap, hold = 0.5, 0.1, 0.85, 0.1
    start = 1.2 if lead else 0.2
    script = list(lead) + [{"t": start + i * gap, "button": "floor", "hold": hold, "bounce": 4}
                           for i in range(clocks)]
    config = f"[clock]\nseconds = {seconds}\ncountdown = 0\ntie_window = {tie}\n" + extra_config
    proc, report = device(tmp, name, script, config)
    finish(proc, timeout=60 + clocks * gap * 2)
    records = [json.loads(x) for x in report.read_text().splitlines()]
    decisions = [(r["t"] - r["due"]) * 1000 for r in records if r["type"] == "decision"]
    beeps = [(r["t"] - r["due"]) * 1000 for r in records if r["type"] == "beep"]
    calls = [r["t"] for r in records if r["type"] == "input" and r.get("event", "call") == "call"]
    edges = [s["t"] for s in script[len(lead):]]  # the floor's call is dated at its press edge
    errors = [abs(c - e) * 1000 for c, e in zip(calls, edges)]
    if len(decisions) != clocks or len(calls) != clocks:
        miscount(f"bench: expected {clocks} clocks, got {len(decisions)} rulings and {len(calls)} calls")
    return {"expiry_late_ms_p50": percentile(decisions, 0.5), "expiry_late_ms_p99": percentile(decisions, 0.99),
            "expiry_late_ms_max": max(decisions), "beep_late_ms_p99": percentile(beeps, 0.99),
            "press_error_ms_max": max(errors), "clocks": clocks}


def bench_timing_seats(tmp: Path, clocks: int) -> dict:
    """:func:`bench_timing` with seat tracking on (``seats.track``, nine seats, a hand dealt first, so every clock
    is a seat's): the seat model must cost the rulings no time."""
    config = "[device]\nhold = 0.3\n[seats]\ntrack = true\ncount = 9\n"
    lead = [{"t": 0.2, "button": "street", "hold": 0.5}]  # held: a new hand, a seat on turn
    figures = bench_timing(tmp, clocks, config, name="timing-seats", lead=lead)
    return {"expiry_late_ms_p99_seats": figures["expiry_late_ms_p99"]}


def _has_records(db: Path) -> bool:
    import sqlite3

    try:
        con = sqlite3.connect(f"file:{db}?mode=ro", uri=True, timeout=0.1)
        try:
            return con.execute("SELECT COUNT(*) FROM records").fetchone()[0] > 0
        finally:
            con.close()
    except sqlite3.Error:
        return False


def bench_timing_db_locked(tmp: Path, clocks: int, lock_seconds: float = 6.0) -> dict:
    """The same clocks while another process holds an exclusive lock on the decision log for 6 s."""
    seconds, tie, gap, hold = 1.2, 0.1, 1.5, 0.1  # a real floor press (>= 80 ms); a beep at 1 s left and one at 0, then the ruling
    clocks = max(clocks, int(lock_seconds / gap) + 3)  # clocks all through the lock
    script = [{"t": 0.8 + i * gap, "button": "floor", "hold": hold, "bounce": 4} for i in range(clocks)]
    config = f"[clock]\nseconds = {seconds}\ncountdown = 1\ntie_window = {tie}\n"
    proc, report = device(tmp, "locked", script, config)
    db = tmp / "locked.state" / "shotclock.db"
    deadline = time.monotonic() + 30
    while not _has_records(db) and time.monotonic() < deadline:
        time.sleep(0.01)
    locker = subprocess.Popen([PY, "-c", (
        "import sqlite3, sys, time\n"
        f"con = sqlite3.connect({str(db)!r}, isolation_level=None)\n"
        f"con.execute('BEGIN EXCLUSIVE'); print('locked', flush=True); time.sleep({lock_seconds})\n"
        "con.execute('COMMIT')\n")], stdout=subprocess.PIPE, text=True)
    locker.stdout.readline()
    t_locked = time.monotonic()
    finish(proc, timeout=60 + clocks * gap * 2)
    locker.wait(timeout=30)
    records = [json.loads(x) for x in report.read_text().splitlines()]
    late = [(r["t"] - r["due"]) * 1000 for r in records if r["type"] in ("decision", "beep")]
    calls = [r for r in records if r["type"] == "input"]
    if len(calls) != clocks or len([r for r in records if r["type"] == "decision"]) != clocks:
        miscount(f"bench: with the log locked, expected {clocks} calls and rulings; got "
                         f"{[(r['event'], round(r['t'], 3)) for r in calls]} and "
                         f"{[(r['outcome'], round(r['t'], 3)) for r in records if r['type'] == 'decision']}")
    return {"ruling_late_ms_p99_db_locked": percentile(late, 0.99)}


def bench_naive_timing(clocks: int) -> dict:
    out = subprocess.run([PY, str(HERE / "naive_loop.py"), "expiry", "--fps", "30", "--clocks", str(clocks)],
                         env=ENV, capture_output=True, text=True, timeout=60 + clocks * 2, check=True)
    late = json.loads(out.stdout)["late_ms"]
    return {"naive_expiry_late_ms_p99": percentile(late, 0.99)}


def bench_cpu(tmp: Path, window: float) -> dict:
    """CPU of one core while idle and while a clock counts down, screen on; peak memory."""
    # Idle: one press long after the window, so the device just sits with its screen on.
    proc, _ = device(tmp, "idle", [{"t": window + 2, "button": "bet"}], "")
    time.sleep(1.5)
    c0, t0 = cpu_seconds(proc.pid), time.monotonic()
    time.sleep(window)
    idle = 100 * (cpu_seconds(proc.pid) - c0) / (time.monotonic() - t0)
    finish(proc, timeout=60)
    # Running: a clock called at once, counting down through the window (the last 5 s included).
    seconds = window + 1.5
    config = f"[clock]\nseconds = {seconds}\ncountdown = {min(5, int(window))}\n"
    proc, _ = device(tmp, "running", [{"t": 0.1, "button": "floor"}], config)
    time.sleep(1.0)
    c0, t0 = cpu_seconds(proc.pid), time.monotonic()
    time.sleep(window)
    running = 100 * (cpu_seconds(proc.pid) - c0) / (time.monotonic() - t0)
    rss = peak_rss_mb(proc.pid)
    finish(proc, timeout=60 + seconds)
    return {"cpu_idle_pct": idle, "cpu_running_pct": running, "rss_mb": rss}


def bench_naive_cpu(window: float) -> dict:
    out = subprocess.run([PY, str(HERE / "naive_loop.py"), "cpu", "--fps", "60", "--seconds", str(window)],
                         env=ENV, capture_output=True, text=True, timeout=60 + window, check=True)
    return {"naive_cpu_running_pct": json.loads(out.stdout)["cpu_pct"]}


def bench_startup(tmp: Path, runs: int) -> dict:
    """Process start until READY=1 arrives on a NOTIFY_SOCKET, with screen, sound and log."""
    times = []
    for i in range(runs):
        path = str(tmp / f"notify-{i}.sock")
        sock = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
        sock.bind(path)
        sock.settimeout(30)
        env = dict(ENV, NOTIFY_SOCKET=path)
        t0 = time.monotonic()
        proc, _ = device(tmp, f"startup-{i}", [{"t": 30, "button": "bet"}], "", env=env)
        while not sock.recv(4096).startswith(b"READY=1"):
            pass
        times.append(time.monotonic() - t0)
        proc.kill()
        proc.wait()
        sock.close()
    return {"startup_s": statistics.median(times)}


def replay_rates(path: Path, events: int, runs: int) -> list[float]:
    """Events per second of ``shotclock replay`` on ``path`` (``events`` events), once per run."""
    rates = []
    for _ in range(runs):
        t0 = time.monotonic()
        subprocess.run([PY, "-m", "shotclock", "replay", str(path)], env=ENV, cwd=ROOT, check=True,
                       stdout=subprocess.DEVNULL, timeout=300)
        rates.append(events / (time.monotonic() - t0))
    return rates


def bench_replay(tmp: Path, events: int, runs: int = 5) -> dict:
    """``shotclock replay`` on a file of ``events`` events (clocks called, paused, acted on).

    The median of ``runs`` runs: on a shared virtual machine one run can take twice as long
    as the next, with nothing else running.
    """
    path = tmp / "replay.jsonl"
    lines, t = [], 0.0
    cycle = [("bet", {"facing_bet": True}), ("call", {}), ("pause", {}), ("resume", {}), ("action", {}),
             ("bet", {"facing_bet": False})]
    while len(lines) < events:
        for name, fields in cycle:
            t += 0.7
            lines.append(json.dumps({"t": round(t, 3), "event": name, **fields}))
    path.write_text("\n".join(lines[:events]) + "\n")
    rates = replay_rates(path, events, runs)
    return {"replay_events_per_s": statistics.median(rates), "replay_events_per_s_best": max(rates),
            "replay_events": events}


# A hand at a six-handed table in time bank mode (the tempo preset with a 60 s bank): the turn moves, players fold
# and go all-in, a decision runs into the bank (its cue, the deduction), an extension, a pause, a street, a top-up.
SEATED_HAND = [("hand", {}), ("start", {}), ("action", {}), ("fold", {}), ("extend", {}), ("action", {}),
               ("all_in", {}), ("fold", {}), ("pause", {}), ("resume", {}), ("action", {}), ("street", {}),
               ("start", {}), ("action", {}), ("bet", {"facing_bet": True}), ("action", {}), ("fold", {}),
               ("top_up", {"seconds": 5})]


def bench_replay_seats(tmp: Path, events: int, runs: int = 5) -> dict:
    """``shotclock replay`` with seat tracking on (``SEATED_HAND`` over and over; every third decision into the
    player's bank), the median of ``runs`` runs. Its events give about 2.4 output records each (the bare
    replay's about 0.7): each decision starts the next player's clock and moves the turn."""
    path = tmp / "replay-seats.jsonl"
    header = {"config": {"mode": "shot", "preset": "tempo", "seats.count": 6, "seats.bank": 60}}
    lines, t = [json.dumps(header)], 0.0
    while len(lines) <= events:
        for name, fields in SEATED_HAND:
            t += 40 if name == "action" and len(lines) % 3 == 0 else 0.7
            lines.append(json.dumps({"t": round(t, 3), "event": name, **fields}))
    path.write_text("\n".join(lines[:events + 1]) + "\n")
    rates = replay_rates(path, events, runs)
    return {"replay_seats_events_per_s": statistics.median(rates), "replay_seats_events_per_s_best": max(rates)}


def tdt_file(size: int) -> str:
    """A TD saved tournament of about ``size`` characters on one line, as TD 3.7 writes one: 30 levels and 3
    breaks, then as many players (each with a buy-in and escaped text) and history items as make up the size."""
    token = "Tokens: new TokenOverrides({Tokens: Map.from([])})"
    levels = []
    for n in range(1, 31):
        blind = 25 * n
        levels.append(f'new GameRound({{Minutes: 20, SmallBlind: {blind}, BigBlind: {2 * blind}, Ante: {2 * blind}, '
                      f'BigBlindAnte: true, GameType: 2, GameName: "Texas Hold \'Em", {token}}})')
        if n % 10 == 0:
            levels.append('new GameBreak({Minutes: 10, Name: "color-up", ColorUp: true})')
    player = ('new GamePlayer({{UUID: "{0:032x}", Nickname: "Player \\"{0}\\" \\u00e9", Firstname: "A", '
              'Notes: "line one\\nline two", Buyins: [new GameBuyin({{Amount: 250, Chips: 20000, '
              'ProfileName: "Standard", Time: 1760027747661}})], Seat: -1, Points: 12.75}})')
    item = 'new GameHistoryItem({{Time: {0}, Text: "Start of round {1}", Source: 0}})'
    head = '{ V: "3.7.2", T: new Tournament({Title: "Bench", Levels: [' + ", ".join(levels) + "], "
    players, history, n, length = [], [], 0, len(head) + 200
    while length < size:
        players.append(f'["{n:032x}", {player.format(n)}]')
        history.append(item.format(1760027747661 + n * 1000, n % 30 + 1))
        length += len(players[-1]) + len(history[-1]) + 4  # and the two ", " between entries
        n += 1
    return (head + "Players: new GamePlayers({Players: Map.from([" + ", ".join(players) + "])}), "
            "History: new GameHistory({History: [" + ", ".join(history) + "]}) }) }")


def bench_structure(tmp: Path, runs: int = 5) -> dict:
    """``load_structure`` (read, decode, parse, check) on a one-line TD file of 200 kB, as floors have, and of
    4 MB, the most it reads: the median of ``runs``."""
    sys.path.insert(0, str(ROOT))
    from shotclock.shell.structurecmd import FILE_MAX, load_structure

    results = {}
    for key, size in (("structure_tdt_200kb_ms", 200_000), ("structure_tdt_4mb_ms", FILE_MAX - 1000)):
        path = tmp / f"{size}.tdt"
        path.write_text(tdt_file(size), encoding="utf-8")
        times = []
        for _ in range(runs):
            start = time.perf_counter()
            structure = load_structure(path)
            times.append((time.perf_counter() - start) * 1000)
        assert len(structure.stages) == 33
        results[key] = statistics.median(times)
        results[key.removesuffix("_ms") + "_bytes"] = path.stat().st_size
    return results


def structure_only(runs: int) -> int:
    """``--structure``: the structure reader's figures and their goals, with the load before and after."""
    load = os.getloadavg()[0]
    with tempfile.TemporaryDirectory() as tmp:
        results = bench_structure(Path(tmp), runs)
    print(f"structure reader on {machine()}, load average {load:.2f} before, {os.getloadavg()[0]:.2f} after")
    for key in ("structure_tdt_200kb_ms", "structure_tdt_4mb_ms"):
        goal = GOALS[key][0]
        verdict = "reference" if goal is None else f"goal ≤ {goal:g} ms: {'met' if results[key] <= goal else 'MISSED'}"
        print(f"{key}: {results[key]:.1f} ms for {results[key.removesuffix('_ms') + '_bytes']:,} bytes ({verdict})")
    return 0


def machine() -> str:
    model = ""
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith(("model name", "Model")):
                model = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    return f"{platform.machine()}, {os.cpu_count()} cores, {model or 'unknown CPU'}, Python {platform.python_version()}"


def table(results: dict) -> str:
    rows = [f"| {'key':<26} | {'figure':>10} | goal |", f"|{'-' * 28}|{'-' * 12}|------|"]
    for key, (goal, kind, unit) in GOALS.items():
        value = results[key]
        shown = f"{value:,.0f}" if unit in ("/s", "tables") else f"{value:.2f}"
        verdict = "(reference)" if goal is None else (
            f"{'≤' if kind == 'max' else '≥'} {goal:g} {unit} " +
            ("met" if (value <= goal if kind == "max" else value >= goal) else "MISSED"))
        rows.append(f"| {key:<26} | {shown:>10} | {verdict} |")
    return "\n".join(rows)


WHAT = {
    "expiry_late_ms_p50": "ruling time minus the exact deadline + tie window, median (120 short clocks)",
    "expiry_late_ms_p99": "the same, 99th percentile",
    "expiry_late_ms_max": "the same, worst",
    "beep_late_ms_p99": "countdown beep time minus its exact second, 99th percentile",
    "ruling_late_ms_p99_db_locked": "rulings and beeps, p99, while another process holds the log locked for 6 s",
    "naive_expiry_late_ms_p99": "the naive 30 fps frame loop, ruling lateness p99",
    "press_error_ms_max": "input timestamp minus the scripted pin edge, bounce included, worst",
    "cpu_idle_pct": "CPU of one core, idle, screen on (dummy driver, 800×480)",
    "cpu_running_pct": "CPU while a clock counts down, screen on",
    "naive_cpu_running_pct": "the naive loop at 60 fps, same measure",
    "startup_s": "process start until READY is sent",
    "rss_mb": "peak resident memory of the device",
    "replay_events_per_s": "`shotclock replay` on a 100,000-event file (median of 5 runs)",
    "expiry_late_ms_p99_seats": "ruling lateness p99 as above, with seat tracking on (seats.track)",
    "replay_seats_events_per_s": "`shotclock replay` with seats on: 100,000 events of six-handed hands with folds, "
                                 "all-ins and time banks (median of 5 runs)",
    "structure_tdt_200kb_ms": "`load_structure` on TD's saved tournament, one line of 200 kB: read, parsed, checked "
                              "(median of 5)",
    "structure_tdt_4mb_ms": "the same on a 4 MB file, the most it reads (median of 5)",
}


def markdown(results: dict) -> str:
    """The performance table of docs/benchmarks.md for these figures."""
    lines = ["| key | what | goal | measured |", "|---|---|---|---|"]
    for key, (goal, kind, unit) in GOALS.items():
        value = results[key]
        shown = f"{value:,.0f}" if unit in ("/s", "tables") else f"{value:.2f}"
        goal_text = "(reference)" if goal is None else f"{'≤' if kind == 'max' else '≥'} {goal:,g} {unit}"
        lines.append(f"| `{key}` | {WHAT[key]} | {goal_text} | {shown} {unit} |")
    return "\n".join(lines)


def replay_only(events: int, runs: int) -> int:
    """``--replay``: the two replay figures and their goals, with the load before and after (a shared machine)."""
    load = os.getloadavg()[0]
    with tempfile.TemporaryDirectory() as tmp:
        results = {**bench_replay(Path(tmp), events, runs), **bench_replay_seats(Path(tmp), events, runs)}
    print(f"shotclock replay on {machine()}, load average {load:.2f} before, {os.getloadavg()[0]:.2f} after")
    for key in ("replay_events_per_s", "replay_seats_events_per_s"):
        goal = GOALS[key][0]
        print(f"{key}: {results[key]:,.0f}/s (best {results[key + '_best']:,.0f}/s; goal ≥ {goal:,}/s: "
              f"{'met' if results[key] >= goal else 'MISSED'})")
    return 0


def main(argv=None) -> int:
    _network_goals()
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="a smoke run: a few clocks, short windows")
    parser.add_argument("--out", default=str(HERE / "latest.json"), help="where to write the figures")
    parser.add_argument("--markdown", action="store_true", help="print docs/benchmarks.md's table for the figures in --out")
    parser.add_argument("--replay", action="store_true",
                        help="only the replay figures (bare and with seats), printed with the load average; "
                             "writes no file")
    parser.add_argument("--structure", action="store_true",
                        help="only the structure reader's figures, printed with the load average; writes no file")
    args = parser.parse_args(argv)
    if args.markdown:
        print(markdown(json.loads(Path(args.out).read_text())))
        return 0
    if args.replay:
        return replay_only(2_000 if args.quick else 100_000, 1 if args.quick else 5)
    if args.structure:
        return structure_only(1 if args.quick else 5)
    global QUICK
    QUICK = args.quick
    # bench/network.py does 'from run import …': run as a script, this module is __main__, and without
    # this line that import would load a second copy of it whose QUICK is still False.
    sys.modules.setdefault("run", sys.modules[__name__])
    clocks, window, startups, events = (5, 2.0, 1, 2_000) if args.quick else (120, 8.0, 5, 100_000)
    import floor_pages  # the dashboard and overlay in chromium (bench/floor_pages.py)
    import network  # the floor network's figures (bench/network.py)
    import bridge  # through a room broker's bridge to the venue broker (bench/bridge.py)

    with tempfile.TemporaryDirectory() as tmp:
        tmp = Path(tmp)
        results = {}
        steps = [("timing", lambda: bench_timing(tmp, clocks)),
                 ("timing, log locked", lambda: bench_timing_db_locked(tmp, clocks)),
                 ("naive timing", lambda: bench_naive_timing(clocks)),
                 ("cpu", lambda: bench_cpu(tmp, window)), ("naive cpu", lambda: bench_naive_cpu(window)),
                 ("startup", lambda: bench_startup(tmp, startups)), ("replay", lambda: bench_replay(tmp, events, 1 if args.quick else 5)),
                 ("timing, seats on", lambda: bench_timing_seats(tmp, clocks)),
                 ("replay, seats on", lambda: bench_replay_seats(tmp, events, 1 if args.quick else 5)),
                 ("structure", lambda: bench_structure(tmp, 1 if args.quick else 5)),
                 ("network", lambda: network.bench_network(tmp, args.quick)),
                 ("bridge", lambda: bridge.bench_bridge(tmp, args.quick)),
                 ("floor pages", lambda: floor_pages.run(args.quick))]
        for name, step in steps:
            print(f"bench: {name}…", file=sys.stderr, flush=True)
            results.update(step())
    results = {k: round(v, 4) if isinstance(v, float) else v for k, v in results.items()}
    results["machine"] = machine()
    results["quick"] = args.quick
    results["miscounts"] = MISCOUNTS
    Path(args.out).write_text(json.dumps(results, indent=2) + "\n")
    print(f"shotclock benchmarks on {results['machine']}" + (" (quick smoke run)" if args.quick else ""))
    print(table(results))
    for message in MISCOUNTS:
        print(f"note: {message}")
    print(f"wrote {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
