"""The dealer check on the table's own pins (``shotclock selftest --dealer``, ``shotclock simulate --dealer-check``).

The check itself -- the random moments, what counts as a reaction, too early or missed, the
statistics -- is :mod:`shotclock.core.dealer_check`; this module gives its cues (the screen, the running
LED, the strobe, the buzzer or speaker) and hands it the action button's presses, dated at their pin
edge by :class:`~shotclock.adapters.pins.TablePins` and recognised by the core's button reader. The
loop sleeps until the next cue, time-out, bounce window or edge.
"""

from __future__ import annotations

import collections
import logging
import random
import time
from typing import Callable

from shotclock.core.buttons import Gesture, PRESS, ButtonReader
from shotclock.core.dealer_check import DealerCheck, Result, schedule
from shotclock.core.view import dealer_check_view
from shotclock.shell.loop import Waker

log = logging.getLogger("shotclock.dealer")


class DealerCheckRun:
    """A :class:`DealerCheck` on real (or a test's virtual) time.

    :param check: the check (its cue moments are on ``clock``).
    :param pins: the table's :class:`~shotclock.adapters.pins.TablePins`, made with :meth:`post` as ``on_edge``
        (see :func:`open_pins`).
    :param reader: the core's button reader (the device's debounce).
    :param show: called with each new view (a screen's ``show``), or None.
    :param sound: a sound player (``beep(0)`` at each cue), or None: the buzzer then beeps.
    :param out: where each cue's line goes (the terminal).
    """

    def __init__(self, check: DealerCheck, reader: ButtonReader, clock: Callable[[], float] = time.monotonic,
                 waker=None, show=None, sound=None, out=print, language: str = "nl"):
        self.check, self.reader, self.clock = check, reader, clock
        self.waker = waker or Waker()
        self.show, self.sound, self.out, self.language = show, sound, out, language
        self.pins = None
        self._inbox: collections.deque = collections.deque()
        self._view = None

    def post(self, edge) -> None:
        """Queue a pin edge (gpiozero's thread) and wake the loop."""
        self._inbox.append(edge)
        self.waker.wake()

    def _cue(self, on: bool) -> None:
        if self.pins is None:
            return
        self.pins.show(running=False, countdown=False, facing_bet=False, pulse=on)  # the LED and the strobe
        if on:
            if self.sound is not None:
                self.sound.beep(0)
            else:
                self.pins.beep(long=True)

    def step(self) -> None:
        """Take the queued presses, then the cues and time-outs due now; show what changed."""
        check = self.check
        while self._inbox:
            for g in self.reader.edge(self._inbox.popleft()):
                self._press(g)
        now = self.clock()
        for g in self.reader.advance(now):
            self._press(g)
        for what, i, t in check.advance(now):
            if what == "cue":
                self._cue(True)
            else:
                self._cue(False)
                self.out(f"cue {i + 1:>2} of {len(check.cues)}: missed (no press within {check.timeout:g} s)")
        view = dealer_check_view(check, self.language)
        if self.show is not None and view != self._view:
            self.show(view)
        self._view = view

    def _press(self, g) -> None:
        if not (isinstance(g, Gesture) and g.button == "action" and g.kind == PRESS):
            return
        check = self.check
        i = len(check.reactions)
        what = check.press(g.t)
        if what == "reaction":
            self._cue(False)
            self.out(f"cue {i + 1:>2} of {len(check.cues)}: {check.reactions[-1] * 1000:.0f} ms")
        elif what == "early":
            self.out(f"cue {i + 1:>2} of {len(check.cues)}: pressed too early (before the cue): not counted")

    def run(self, should_stop=lambda: False) -> Result:
        """Run until the check is done (or ``should_stop()``); returns what it measured."""
        while not self.check.done and not should_stop():
            self.step()
            wakes = [w for w in (self.check.next_wake(), self.reader.next_wake()) if w is not None]
            if self.check.done or not wakes:
                break
            self.waker.wait(max(0.0, min(wakes) - self.clock()))
        self._cue(False)
        self.step()
        return self.check.result()


def new_check(config, clock: Callable[[], float], seed: int | None = None, lead: float = 2.0) -> DealerCheck:
    """A check whose first moment is drawn after ``lead`` seconds from now; ``seed`` (None: a fresh one) makes
    its moments."""
    return DealerCheck(schedule(random.Random(seed), start=clock() + lead))


def open_pins(run: DealerCheckRun, config, pin_factory):
    """The table's pins with their edges going to ``run`` (set as ``run.pins``)."""
    from shotclock.adapters.pins import TablePins

    run.pins = TablePins(config.pins, run.post, pin_factory, clock=run.clock)
    return run.pins


def reader_for(config) -> ButtonReader:
    """The core's button reader with the device's debounce and hold times."""
    return ButtonReader(debounce=config["device.debounce"], hold=config["device.hold"],
                        stuck_after=config["device.stuck_after"])
