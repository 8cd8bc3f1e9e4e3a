"""``shotclock floor-demo`` (``./dev floor``): a whole floor on this machine, its addresses printed."""

import os
import re
import signal
import subprocess
import sys
import urllib.request

from mqtt_broker import require_mosquitto
from helpers import wait_until


def test_the_demo_starts_everything_prints_the_addresses_and_stops(tmp_path):
    require_mosquitto()
    proc = subprocess.Popen([sys.executable, "-m", "shotclock", "floor-demo", "--tables", "2", "--seconds", "120",
                             "--dir", str(tmp_path / "floor")], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            text=True, start_new_session=True)
    try:
        lines = []
        while not lines or not lines[-1].startswith("Ctrl-C stops it all.") and lines[-1]:
            lines.append(proc.stdout.readline())
        dashboard = re.search(r"dashboard: (http://127\.0\.0\.1:\d+/dashboard/)\s+\(user floor, password (\S+)\)",
                              lines[1])
        assert dashboard, lines
        overlay = re.search(r"overlay:\s+(http://\S+/overlay/\?password=\S+)", lines[2])
        assert overlay, lines
        # Mosquitto itself serves the pages, from the package.
        page = urllib.request.urlopen(dashboard.group(1), timeout=30).read().decode()
        assert "<title>Shotclock · Floor</title>" in page
        assert b"mqtt" in urllib.request.urlopen(dashboard.group(1) + "../vendor/mqtt.min.js", timeout=30).read(200)
        # Two tables: one of each mode by default, and the dealers say how to stop them.
        assert "tables:    1 clock call, 2 shot clock, 3 the feature table (Tempo time bank, six named players: " \
               "try its Seats panel); the dealers press buttons by themselves" in "".join(lines)
        # Issue 17: the archive commands it prints run as printed, from any folder (it printed 'log --collected
        # DIR stats', which needs --table, and 'shotclock', which ./dev floor does not put on the PATH).
        commands = [m.group(1) for m in (re.search(r"^\s+(?:archive:\s+)?(\S.*? log --collected .*?)\s{2,}\(", line)
                                         for line in lines) if m]
        assert len(commands) == 2 and commands[1].endswith("--table 1"), lines
        elsewhere = tmp_path / "elsewhere"
        elsewhere.mkdir()
        run = lambda command: subprocess.run(command, shell=True, cwd=elsewhere, capture_output=True, text=True,
                                             timeout=60, env={"PATH": "/usr/bin:/bin"})
        listed = lambda: [line.split()[0] for line in run(commands[0]).stdout.splitlines()[1:3]]
        assert wait_until(lambda: listed() == ["1", "2"]), run(commands[0])  # once the tables' first records arrive
        table = run(commands[1])
        assert table.returncode == 0 and ("Sim 1" in table.stdout or "no clocks" in table.stdout), table
        # Issue 35, 8: the demo runs a tournament, and the README's tournament examples work on it as printed.
        status = next(re.search(r"(\S+ tournament status .*)$", line).group(1) for line in lines
                      if " tournament status " in line)
        said = run(status)
        assert said.returncode == 0 and said.stdout.startswith("tournament main (Demo Sunday): level 1 (25/50)"), said
        send = status.replace(" tournament status ", " send ").replace(" --id main", " --all")
        bubble = run(f"{send} rule_set --rule-set bubble")
        assert bubble.returncode == 0 and "3 of 3 tables" in bubble.stderr, bubble
    finally:
        # Ctrl-C in a terminal: SIGINT to the whole foreground process group, not to the demo alone.
        os.killpg(proc.pid, signal.SIGINT)
        out, err = proc.communicate(timeout=60)
    assert proc.returncode == 0, err
    assert out.splitlines()[-1].startswith("stopped: tables, collector and broker"), out
    assert err == "", err
    for name in ("mosquitto", "collector", "fleet", "device-3", "tournament"):
        assert (tmp_path / "floor" / f"{name}.log").exists(), name


def test_bad_arguments_get_one_line_and_exit_2(tmp_path):
    for args, words in [(["--tables", "0"], "--tables must be from 1 to 500"),
                        (["--dir", "/proc/no/such"], "--dir '/proc/no/such': cannot make the folder"),
                        (["--tables", "x"], "'x' is not a whole number in plain digits (0-9)"),
                        (["--tables", "2", "--shot", "3"], "--shot must be from 0 to the number of tables (2)")]:
        proc = subprocess.run([sys.executable, "-m", "shotclock", "floor-demo", *args], capture_output=True,
                              text=True, timeout=30)
        assert proc.returncode == 2 and words in proc.stderr and "Traceback" not in proc.stderr, (args, proc.stderr)


def test_a_quiet_demo_leaves_the_tables_to_the_floor_and_can_run_shot_tables(tmp_path):
    # Issue 17: the simulated tables pressed buttons at random and fought a person using the dashboard.
    from shotclock.floor.demo import Floor

    require_mosquitto()
    floor = Floor(tmp_path, "demo", 3, quiet=True, shot=2).start(collector=False)
    try:
        [fleet] = [p for name, p in floor.processes if name == "fleet"]
        assert "--idle" in fleet.args and fleet.args[fleet.args.index("--shot") + 1] == "2"
        assert floor.modes() == "1 clock call, 2-3 shot clock; quiet: they press nothing, only what you command happens"
    finally:
        floor.stop()
    loud = Floor(tmp_path, "demo", 8, shot=0)
    assert loud.modes().startswith("1-8 clock call; the dealers press buttons by themselves (--quiet")


def test_the_feature_table_is_a_tempo_table_with_its_players_seated_and_named(tmp_path):
    """'./dev floor' had no seat-tracked table: the Seats panel could not be tried without building a venue."""
    import json
    import sqlite3

    from shotclock.floor.demo import FEATURE_PLAYERS, Floor

    require_mosquitto()
    floor = Floor(tmp_path, "demo", 1, feature=True, quiet=True)
    try:
        floor.start(collector=False)  # returns once the table acknowledged its seating
        assert floor.feature == "2" and "2 the feature table (Tempo time bank" in floor.modes()
        db = tmp_path / "state-2" / "shotclock.db"

        def seated():
            if not db.exists():
                return []
            with sqlite3.connect(db) as c:
                rows = [json.loads(d) for (d,) in c.execute("SELECT data FROM records WHERE type = 'seat'")]
            return [(r["seat"], r["name"]) for r in rows if r.get("change") == "seated"]

        assert wait_until(lambda: seated() == FEATURE_PLAYERS), seated()
        config = (tmp_path / "device-2.toml").read_text()
        assert 'preset = "tempo"' in config and "bank = 120" in config
    finally:
        floor.stop()


def test_the_feature_tables_dealer_plays_hands_into_the_bank_for_as_long_as_asked():
    import json

    from shotclock.floor.demo import FEATURE_HAND, feature_script

    lines = [json.loads(line) for line in feature_script(600).splitlines()]
    times = [line["t"] for line in lines]
    assert times == sorted(times) and times[-1] <= 600 and len(lines) > 2 * len(FEATURE_HAND)
    assert [(line["button"], line["hold"]) for line in lines[:len(FEATURE_HAND)]] == \
        [(button, hold) for _, button, hold in FEATURE_HAND]
    assert max(pause for pause, button, _ in FEATURE_HAND if button == "action") > 30  # a decision into the bank
