"""How big the decision log grows: a simulated tournament day through the real recorder and loop.

Prints bytes per clock for the clock mode and the shot mode, and the size of a day at a busy
feature table. Uses fake pins and virtual time, so it runs in seconds.
"""

from __future__ import annotations

import json
import sys
import tempfile
import time
from datetime import datetime, timedelta, timezone
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from shotclock.adapters.log import DecisionLog  # noqa: E402
from shotclock.config.loading import parse_config  # noqa: E402
from shotclock.shell.device import Device  # noqa: E402
from shotclock.shell.recorder import DirectSink, Recorder  # noqa: E402


class VirtualClock:
    def __init__(self):
        self.now = time.monotonic()

    def __call__(self):
        return self.now


def day(mode: str, clocks: int) -> dict:
    """Run ``clocks`` clocks (a third expire, the rest are acted on) and measure the database."""
    import gpiozero.pins.mock as mock

    clock = VirtualClock()
    mock.monotonic = clock  # the fake pins stamp edges with virtual time
    config = parse_config(f'mode = "{mode}"\n')
    with tempfile.TemporaryDirectory() as state:
        device = Device(config, "mock", clock=clock)
        log = DecisionLog(state)
        base = clock.now
        recorder = Recorder(DirectSink(log), config, utcnow=lambda: datetime(2026, 11, 29, tzinfo=timezone.utc)
                            + timedelta(seconds=clock.now - base))
        recorder.start_session(clock())
        device.loop.listeners.append(recorder)

        def press(button):
            pin = device.pins.pin(button)
            pin.drive_low()
            clock.now += 0.1
            pin.drive_high()
            clock.now += 0.05
            device.loop.run_once()

        start = log.next_id()
        for i in range(clocks):
            if mode == "clock":
                if i % 2:
                    press("bet")
                press("floor")
            else:
                press("action")  # idle: start; then each action is the next player's decision
            clock.now += 8 if i % 3 else 31
            device.loop.run_once()
            if i % 3:
                press("action")
            if mode == "shot":
                press("floor")
                clock.now += 2.1  # hold: stop the clock (hand over)
                device.loop.run_once()
                device.pins.pin("floor").drive_high()
                clock.now += 0.05
                device.loop.run_once()
        records = log.next_id() - start
        log.db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        size = Path(log.path).stat().st_size
        device.pins.close()
        log.close()
    return {"mode": mode, "clocks": clocks, "records": records, "bytes": size,
            "bytes_per_clock": round(size / clocks), "records_per_clock": round(records / clocks, 1)}


def main() -> int:
    results = [day("clock", 300), day("shot", 300)]
    busy = {"clock": 40, "shot": 1500}  # clock calls / timed decisions at one feature table in a 12-hour day
    for r in results:
        r["bytes_per_day"] = r["bytes_per_clock"] * busy[r["mode"]]
        print(f"{r['mode']:<5}: {r['records_per_clock']} records and {r['bytes_per_clock']} bytes a clock; "
              f"a busy day ({busy[r['mode']]} clocks): {r['bytes_per_day'] / 1e6:.2f} MB")
    print(json.dumps(results))
    return 0


if __name__ == "__main__":
    sys.exit(main())
