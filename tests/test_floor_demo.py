"""``shotclock floor-demo`` (``./dev floor``): a whole floor on this machine, its addresses printed."""

import os
import re
import signal
import subprocess
import sys
import urllib.request

from mqtt_broker import require_mosquitto


def test_the_demo_starts_everything_prints_the_addresses_and_stops(tmp_path):
    require_mosquitto()
    proc = subprocess.Popen([sys.executable, "-m", "shotclock", "floor-demo", "--tables", "2", "--seconds", "20",
                             "--dir", str(tmp_path)], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            start_new_session=True)
    try:
        lines = [proc.stdout.readline() for _ in range(3)]
        dashboard = re.search(r"dashboard: (http://127\.0\.0\.1:\d+/dashboard/)\s+\(user floor, password (\S+)\)",
                              lines[1])
        assert dashboard, lines
        overlay = re.search(r"overlay:\s+(http://\S+/overlay/\?password=\S+)", lines[2])
        assert overlay, lines
        # Mosquitto itself serves the pages, from the package.
        page = urllib.request.urlopen(dashboard.group(1), timeout=30).read().decode()
        assert "<title>Shotclock · Floor</title>" in page
        assert b"mqtt" in urllib.request.urlopen(dashboard.group(1) + "../vendor/mqtt.min.js", timeout=30).read(200)
    finally:
        # Ctrl-C in a terminal: SIGINT to the whole foreground process group, not to the demo alone.
        os.killpg(proc.pid, signal.SIGINT)
        out, err = proc.communicate(timeout=60)
    assert proc.returncode == 0, err
    assert out.splitlines()[-1].startswith("stopped: tables, collector and broker"), out
    assert err == "", err
    for name in ("mosquitto", "collector", "fleet"):
        assert (tmp_path / f"{name}.log").exists(), name


def test_bad_arguments_get_one_line_and_exit_2(tmp_path):
    for args, words in [(["--tables", "0"], "--tables must be from 1 to 500"),
                        (["--dir", "/proc/no/such"], "--dir '/proc/no/such': cannot make the folder"),
                        (["--tables", "x"], "invalid int value")]:
        proc = subprocess.run([sys.executable, "-m", "shotclock", "floor-demo", *args], capture_output=True,
                              text=True, timeout=30)
        assert proc.returncode == 2 and words in proc.stderr and "Traceback" not in proc.stderr, (args, proc.stderr)
