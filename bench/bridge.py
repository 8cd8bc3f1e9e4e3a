"""The floor network through a bridge: a pin edge on a table of a room broker to a subscriber on the venue broker.

Two real mosquitto on loopback, configured by ``shotclock broker-config`` (the room broker with
``--bridge-to``: MQTT 5, persistent sessions, per-table topics); a fleet of simulated tables
(``shotclock fleet``, its own process) on the room broker; one measured device (``shotclock run`` in
script mode) on the room broker whose dealer presses the action button every 0.2 s; the floor's
subscriber on the venue broker. The bridge runs without TLS here (loopback), as bench/network.py's
devices do. Run by ``bench/run.py``; ``python bench/bridge.py [--quick]`` runs only this.
"""

from __future__ import annotations

import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent / "tests"))  # the test suite's mosquitto runner
sys.path.insert(0, str(HERE))

from mqtt_broker import MosquittoBroker  # noqa: E402
from network import VENUE, Watcher, device_process, network_section  # noqa: E402

from run import ENV, PY, ROOT, percentile  # noqa: E402

BRIDGE_GOAL_MS = 50.0
GOALS = {
    "bridge_event_latency_ms_p99": (BRIDGE_GOAL_MS, "max", "ms"),
    "bridge_event_latency_ms_p50": (None, "max", "ms"),
}
WHAT = {
    "bridge_event_latency_ms_p99": "a pin edge on a device of a room broker to its event at a subscriber on the venue "
                                   "broker (a Mosquitto bridge), 500 other tables on the room broker, 99th percentile",
    "bridge_event_latency_ms_p50": "the same, median",
}


def bridged_step(tmp: Path, tables: int, seconds: float) -> dict:
    """Event latency at the venue of one device with ``tables`` simulated tables on its room broker."""
    ids = [str(n) for n in range(1, tables + 2)]
    venue = MosquittoBroker(tmp / f"venue-{tables}", venue=VENUE, tables=["1"], websockets=False, autosave=30)
    room = MosquittoBroker(tmp / f"room-{tables}", venue=VENUE, tables=ids, websockets=False, autosave=30,
                           bridge_to=venue, room="bench")
    fleet = None
    try:
        venue.start()
        room.start()
        watcher = Watcher(venue)  # the floor at the venue: table 1's events, every table's status
        fleet = subprocess.Popen([PY, "-m", "shotclock", "fleet", "--tables", str(tables), "--first", "2",
                                  "--broker", f"127.0.0.1:{room.port}", "--venue", VENUE,
                                  "--credentials", str(room.folder / "credentials"), "--pace", "0.3",
                                  "--seed", "13"], env=ENV, cwd=ROOT, stdout=subprocess.DEVNULL,
                                 stderr=subprocess.DEVNULL)
        deadline = time.monotonic() + 60 + tables * 0.2
        while len(watcher.online) < tables and time.monotonic() < deadline:
            time.sleep(0.2)
        online = len(watcher.online)  # seen online at the venue: through the bridge
        presses = [{"t": 1.0 + 0.2 * i, "button": "action", "hold": 0.05} for i in range(int(seconds / 0.2))]
        device = device_process(tmp, f"bridged-{tables}", presses, network_section(room, "1"))
        _, err = device.communicate(timeout=120 + seconds)
        if device.returncode != 0:
            raise SystemExit(f"bench: the measured device failed:\n{err}")
        deadline = time.monotonic() + 10
        while len(watcher.events) < len(presses) and time.monotonic() < deadline:
            time.sleep(0.1)
    finally:
        if fleet is not None:
            fleet.terminate()
            fleet.wait(60)
        room.close()
        venue.close()
    if len(watcher.events) < len(presses) * 0.9:
        raise SystemExit(f"bench: bridged, {tables} tables: only {len(watcher.events)} of {len(presses)} events "
                         "reached the venue broker")
    return {"tables": tables, "online_at_venue": online, "events": len(watcher.events),
            "event_p50": percentile(watcher.events, 0.5), "event_p99": percentile(watcher.events, 0.99)}


def bench_bridge(tmp: Path, quick: bool) -> dict:
    """The bridge's figures (keys of GOALS), plus the step's details."""
    tables, seconds = (5, 2.0) if quick else (500, 20.0)
    print(f"bench: bridge, {tables} simulated tables on the room broker…", file=sys.stderr, flush=True)
    step = bridged_step(tmp, tables, seconds)
    print(f"bench: {step}", file=sys.stderr, flush=True)
    return {"bridge_event_latency_ms_p99": step["event_p99"], "bridge_event_latency_ms_p50": step["event_p50"],
            "bridge_step": step}


def main(argv: list[str]) -> int:
    """Only the bridge's figures, printed as JSON."""
    import argparse

    parser = argparse.ArgumentParser(prog="bench/bridge.py", description="The room broker's bridge: event latency "
                                     "through it, printed as JSON.")
    parser.add_argument("--quick", action="store_true", help="small and short: checks that it runs")
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory() as tmp:
        results = bench_bridge(Path(tmp), args.quick)
    print(json.dumps(results, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
