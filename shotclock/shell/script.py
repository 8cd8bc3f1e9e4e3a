"""Script mode for test benches: physical presses played onto the fake pins in real time.

A script line: ``{"t": 0.5, "button": "floor", "hold": 0.1, "bounce": 4}`` -- press at ``t``,
release after ``hold`` (default 0.1 s), with ``bounce`` extra contact bounces (each a flip
and back) inside the first 5 ms of both the press and the release.
"""

from __future__ import annotations

import math
import threading
import time
from pathlib import Path

from shotclock.config.pins import BUTTONS
from shotclock.core.codec import text as json_text
from shotclock.core.replay import decode_line
from shotclock.errors import ReplayFormatError, shown, ShotclockError

BOUNCE_SPAN = 0.005
MAX_T = 86_400  # a script plays in real time: a day is more than any bench needs
MAX_HOLD = 3_600  # seconds a button may be held (past device.stuck_after it reads as stuck)


def parse_script(text: str) -> list[dict]:
    """The script's presses, validated; raises ReplayFormatError naming the line."""
    presses = []
    for number, line in enumerate(text.splitlines(), start=1):
        if not line.strip():
            continue
        obj = decode_line(number, line)
        if not isinstance(obj, dict):
            raise ReplayFormatError(number, "expected a JSON object")
        unknown = set(obj) - {"t", "button", "hold", "bounce"}
        if unknown:
            raise ReplayFormatError(number, f"unknown field(s) {sorted(unknown)}; known: t, button, hold, bounce")
        t, hold, bounce = obj.get("t"), obj.get("hold", 0.1), obj.get("bounce", 0)
        if not _number(t) or not 0 <= t <= MAX_T:
            raise ReplayFormatError(number, f"'t' must be a number of seconds from 0 to {MAX_T}, not {shown(t)}")
        if obj.get("button") not in BUTTONS:
            raise ReplayFormatError(number, f"'button' must be one of {', '.join(BUTTONS)}, "
                                            f"not {shown(obj.get('button'))}")
        if not _number(hold) or not 0 < hold <= MAX_HOLD:
            raise ReplayFormatError(number, f"'hold' must be a number of seconds above 0 and at most {MAX_HOLD}, "
                                            f"not {shown(hold)}")
        if not isinstance(bounce, int) or isinstance(bounce, bool) or not 0 <= bounce <= 100:
            raise ReplayFormatError(number, f"'bounce' must be a whole number from 0 to 100, not {shown(bounce)}")
        presses.append({"t": t, "button": obj["button"], "hold": hold, "bounce": bounce})
    return presses



def _number(x) -> bool:
    # An int of any size compares fine; math.isfinite would overflow on a huge one.
    return isinstance(x, int) and not isinstance(x, bool) or isinstance(x, float) and math.isfinite(x)


def edge_schedule(presses: list[dict]) -> list[tuple[float, str, bool, bool, int]]:
    """Every pin edge of the script, in time order: ``(t, button, pressed, flip, press)``; ``flip``
    marks a bounce away from the level the contact settles at, ``press`` numbers the press."""
    edges = []
    for n, p in enumerate(presses):
        for start, pressed in ((p["t"], True), (p["t"] + p["hold"], False)):
            edges.append((start, p["button"], pressed, False, n))
            step = BOUNCE_SPAN / (2 * p["bounce"] + 1) if p["bounce"] else 0
            for k in range(p["bounce"]):
                edges.append((start + (2 * k + 1) * step, p["button"], not pressed, True, n))
                edges.append((start + (2 * k + 2) * step, p["button"], pressed, False, n))
    edges.sort(key=lambda e: e[0])
    return edges


class ScriptPlayer(threading.Thread):
    """Drives the mock pins through the script's edges at their times after ``start``.

    A sleeping thread wakes late on a loaded machine. A press it makes late keeps its length
    (its release moves with it), and a bounce it would make more than ``BOUNCE_SPAN`` late is
    left out: that late it would be a new press, not contact bounce.
    """

    def __init__(self, edges, pins, start: float, on_done):
        super().__init__(name="script-player", daemon=True)
        self.edges = edges
        self.pins = pins
        self.start_time = start
        self.on_done = on_done
        self.done = False

    def run(self):
        self.skipped = 0
        late: dict[int, float] = {}  # by press: how late its press edge was made
        for t, button, pressed, flip, press in self.edges:
            due = self.start_time + t + late.get(press, 0.0)
            delay = due - time.monotonic()
            if delay > 0:
                time.sleep(delay)  # which may itself end late: lateness is measured after it
            if flip and time.monotonic() - due > BOUNCE_SPAN:
                self.skipped += 1
                continue
            pin = self.pins.pin(button)
            pin.drive_low() if pressed else pin.drive_high()  # buttons pull low when pressed
            if press not in late:
                # Measured once the edge is made: a press made late (a late wake-up included) keeps its
                # length. Counting only a late start of the sleep once made a 0.1 s press 0.1 ms long.
                late[press] = max(0.0, time.monotonic() - due)
        self.done = True
        self.on_done()


class ReportWriter:
    """Writes every input and output record as JSON Lines, ``t`` in seconds since the script started.

    Output records carry ``t`` = when the device acted on them and ``due`` = the engine's
    exact time for them; input records carry the timestamp given to the input.
    """

    def __init__(self, path: str | Path, start: float = 0.0):
        self.start = start
        try:
            self._file = open(path, "w", encoding="utf-8")
        except OSError as exc:
            raise ShotclockError(f"cannot write the report {path}: {exc.strerror}") from None

    def _write(self, record: dict) -> None:
        self._file.write(json_text(record) + "\n")

    def update(self, round) -> None:
        """Append this round's inputs, outputs and button faults."""
        for item in round.inputs:
            rec = item.record()
            rec["t"] = round6(rec["t"] - self.start)
            self._write(rec)
        for out in round.outputs:
            rec = out.record()
            rec["due"] = round6(out.t - self.start)
            rec["t"] = round6(round.acted_at - self.start)
            self._write(rec)
        for fault in round.button_faults:
            self._write({"t": round6(fault.t - self.start), "type": "fault", "fault": fault.kind,
                         "button": fault.button})
        self._file.flush()

    def close(self) -> None:
        """Flush and close the report."""
        self._file.close()


def round6(x: float) -> float:
    """Seconds rounded to the microsecond."""
    return round(x, 6)
