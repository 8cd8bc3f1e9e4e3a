"""The main loop: drain the inbox, feed the table, hand the round to the listeners, sleep.

Everything the rules decide -- ordering, late inputs, gestures, the edge grace -- is in the
pure :class:`~shotclock.core.table.Table`. The loop only owns the clock, the thread-safe
inbox (pin edges from gpiozero's callback thread, floor commands from the network) and the
listeners (sound first, then LEDs, log, report, screen). It sleeps until the earliest of: an
input, the table's next beep, ruling, hold or bounce window, a frame the screen must change,
a watchdog ping. Nothing polls.
"""

from __future__ import annotations

import collections
import logging
import threading
import time
from typing import Callable, Protocol

from shotclock.core.faults import Fault
from shotclock.core.inputs import Command, Edge, RoomHandForHand
from shotclock.core.table import Input, Round, Table

__all__ = ["DeviceLoop", "Input", "Listener", "Round", "Waker"]

log = logging.getLogger("shotclock.loop")


class Listener(Protocol):
    """What the loop hands each round to (sound, LEDs, log, report, screen). A listener may name the
    ``failure_fault`` the screen shows while its ``update`` fails (the recorder: the log)."""

    def update(self, round: Round) -> None: ...

    def next_wake(self, now: float) -> float | None: ...


class Waker:
    """A sleep that an input can cut short (thread-safe)."""

    def __init__(self):
        self._event = threading.Event()

    def wait(self, timeout: float | None) -> None:
        """Sleep up to ``timeout`` seconds (None: until woken)."""
        self._event.wait(timeout)
        self._event.clear()

    def wake(self) -> None:
        """Cut the current or next sleep short."""
        self._event.set()


class DeviceLoop:
    """Runs a :class:`~shotclock.core.table.Table` on real time and fans each round out to the listeners.

    :param table: the table's rules, started at the clock's current time.
    :param listeners: called in order after every round.
    :param clock: the monotonic clock (seconds).
    :param waker: how the loop sleeps; the simulator passes one that also wakes on window events.
    """

    def __init__(self, table: Table, listeners: list = (), clock: Callable[[], float] = time.monotonic,
                 waker=None):
        self.table = table
        self.listeners = list(listeners)
        self.clock = clock
        self.waker = waker or Waker()
        self._inbox: collections.deque[Edge | Command | RoomHandForHand] = collections.deque()
        self._changes: collections.deque = collections.deque()
        self._failing: dict[int, int] = {}  # id(listener) -> rounds it has failed in a row

    @property
    def engine(self):
        """The table's engine."""
        return self.table.engine

    @property
    def reader(self):
        """The table's button reader."""
        return self.table.reader

    @property
    def edge_grace(self) -> float:
        """How long a ruling at the end of the tie window waits for a late-delivered edge."""
        return self.table.edge_grace

    # Called from gpiozero's callback thread or the network's: append and wake, nothing else.
    def post(self, item: Edge | Command | RoomHandForHand) -> None:
        """Queue a timestamped edge, floor command or room hand-for-hand state (thread-safe) and wake the loop."""
        self._inbox.append(item)
        self.waker.wake()

    @property
    def has_pending_inputs(self) -> bool:
        """Inputs queued by another thread and not yet taken by a round."""
        return bool(self._inbox)

    has_pending_edges = has_pending_inputs

    def set_fault(self, fault: Fault) -> None:
        """Show a fault on screen from the next round on (thread-safe)."""
        self._changes.append((True, fault))
        self.waker.wake()

    def clear_fault(self, key: object) -> None:
        """Stop showing the fault with ``key`` (a fault class, or a fault's ``key``; thread-safe)."""
        self._changes.append((False, key))
        self.waker.wake()

    def button_held_at_start(self, button: str) -> None:
        """A button that reads pressed at start is stuck until released."""
        self.table.button_held_at_start(self.clock(), button)

    def step(self) -> Round:
        """One round: everything due up to now, in time order."""
        while self._changes:
            show, what = self._changes.popleft()
            self.table.set_fault(what) if show else self.table.clear_fault(what)
        inputs = []
        while self._inbox:
            inputs.append(self._inbox.popleft())
        # Read the clock after taking the inputs: every edge is stamped before it is queued, so none is
        # then in the future. (Read before, a loop descheduled in between would see a whole press --
        # edge and release -- as future-dated, squeezed onto one instant, and take it for a glitch.)
        now = self.clock()
        round = self.table.feed(inputs, now)
        round.acted_at = self.clock()
        for fault in round.button_faults:
            if fault.kind == "stuck":
                # fault.t is on the monotonic clock: say it as the local time of day a person can check.
                since = time.strftime("%H:%M:%S", time.localtime(time.time() - (self.clock() - fault.t)))
                log.warning("button '%s' is stuck (held down, reported at %s); ignoring it until released",
                            fault.button, since)
            else:
                log.info("button '%s' released; it works again", fault.button)
        return round

    def next_wake(self, now: float) -> float | None:
        """The earliest moment anything is due: the table or a listener."""
        wakes = [self.table.next_wake()]
        wakes += [listener.next_wake(now) for listener in self.listeners if hasattr(listener, "next_wake")]
        wakes = [w for w in wakes if w is not None]
        return min(wakes) if wakes else None

    def run_once(self) -> Round:
        """One round, handed to every listener. A listener that fails is logged, not fatal: once with its
        traceback when it starts failing and once when it works again (never every round: a fault that
        repeats must not fill the journal or starve the loop)."""
        round = self.step()
        for listener in self.listeners:
            try:
                listener.update(round)
            except Exception:
                failed = self._failing.get(id(listener), 0)
                if not failed:
                    log.exception("%s failed; carrying on (said once until it works again)",
                                  type(listener).__name__)
                    fault = getattr(listener, "failure_fault", None)  # what the screen says while it fails
                    if fault is not None:
                        self.set_fault(fault)
                self._failing[id(listener)] = failed + 1
            else:
                if self._failing:
                    failed = self._failing.pop(id(listener), 0)
                    if failed:
                        log.warning("%s works again (it failed %d rounds)", type(listener).__name__, failed)
                        fault = getattr(listener, "failure_fault", None)
                        if fault is not None:
                            self.clear_fault(fault.key)
        return round

    def run(self, should_stop: Callable[[Round], bool] = lambda round: False) -> None:
        """Run rounds until ``should_stop(round)`` is true; sleep in between until something is due."""
        while True:
            round = self.run_once()
            if should_stop(round):
                return
            wake = self.next_wake(round.now)
            timeout = None if wake is None else max(0.0, wake - self.clock())
            self.waker.wait(timeout)
