"""A deliberately naive shot clock, as hobby clocks are written: the yardstick for the benchmarks.

A fixed-rate frame loop (pygame's ``Clock.tick(fps)``) polls the button's level every frame,
starts the clock on the frame that sees the press, checks every frame whether time is up, and
redraws the whole screen every frame. It uses the same renderer as shotclock, so drawing costs
the same; only the loop differs.

    python bench/naive_loop.py expiry --fps 30 --clocks 100     # ruling lateness, JSON on stdout
    python bench/naive_loop.py cpu --fps 60 --seconds 10        # CPU while a clock runs
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
os.environ.setdefault("SDL_VIDEODRIVER", "dummy")
os.environ.setdefault("PYGAME_HIDE_SUPPORT_PROMPT", "1")

import pygame  # noqa: E402
from gpiozero import Button  # noqa: E402
from gpiozero.pins.mock import MockFactory  # noqa: E402

from shotclock.adapters.screen import Renderer  # noqa: E402
from shotclock.core.view import View  # noqa: E402
from shotclock.shell.script import ScriptPlayer, edge_schedule  # noqa: E402


class Pins:
    """Just enough of TablePins for the script player: the floor button's mock pin."""

    def __init__(self):
        self.factory = MockFactory()
        self.floor = Button(17, pull_up=True, bounce_time=None, pin_factory=self.factory)

    def pin(self, button):
        return self.floor.pin


def run(fps: int, seconds: float, tie: float, presses: list[float], until: float) -> list[dict]:
    """Run the naive loop; return each ruling with its lateness against the true press edge."""
    pygame.display.init()
    pygame.font.init()
    screen = pygame.display.set_mode((800, 480))
    renderer = Renderer()
    pins = Pins()
    start = time.monotonic() + 0.05
    script = [{"t": t, "button": "floor", "hold": 0.05, "bounce": 0} for t in presses]
    player = ScriptPlayer(edge_schedule(script), pins, start, lambda: None)
    player.start()
    frame = pygame.time.Clock()
    deadline, was_pressed, rulings, calls = None, False, [], 0
    while time.monotonic() < start + until:
        now = time.monotonic()
        pressed = pins.floor.is_pressed
        if pressed and not was_pressed and deadline is None:
            deadline = now + seconds  # the clock starts on the frame that saw the press
            calls += 1
        was_pressed = pressed
        if deadline is not None and now >= deadline + tie:
            exact = start + presses[calls - 1] + seconds + tie
            rulings.append({"late_ms": (now - exact) * 1000})
            deadline = None
        left = 0 if deadline is None else max(0.0, deadline - now)
        view = View("running", "calm", str(int(left) + 1), "Klok · regel 29", "Bij 0: CHECK", "",
                    left / seconds if deadline else None)
        renderer.draw(screen, view)  # every frame, changed or not
        pygame.display.flip()
        frame.tick(fps)
    return rulings


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("what", choices=["expiry", "cpu"])
    parser.add_argument("--fps", type=int, default=30)
    parser.add_argument("--clocks", type=int, default=100)
    parser.add_argument("--seconds", type=float, default=10)
    args = parser.parse_args()
    if args.what == "expiry":
        seconds, tie, gap = 0.5, 0.1, 0.85
        presses = [0.1 + i * gap for i in range(args.clocks)]
        rulings = run(args.fps, seconds, tie, presses, presses[-1] + 1.0)
        print(json.dumps({"late_ms": [r["late_ms"] for r in rulings]}))
    else:
        cpu0, wall0 = time.process_time(), time.monotonic()
        run(args.fps, args.seconds + 5, 0.5, [0.1], args.seconds)
        cpu, wall = time.process_time() - cpu0, time.monotonic() - wall0
        print(json.dumps({"cpu_pct": 100 * cpu / wall}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
