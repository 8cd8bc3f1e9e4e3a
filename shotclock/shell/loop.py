"""The main loop: sleeps until the next thing happens, then feeds the engine in time order.

One round: take the edges the GPIO callbacks queued (each dated at its pin edge), sort
them, turn them into gestures and engine events, let the engine's and the buttons' own
timers run up to now, and hand everything that happened to the listeners (sound first,
then LEDs, log, report, screen). Then sleep until the earliest of: an edge, the engine's
next beep or ruling, a button's hold or bounce window, a frame the screen must change,
a watchdog ping. Nothing polls.
"""

from __future__ import annotations

import collections
import logging
import threading
import time
from dataclasses import dataclass, field, replace
from typing import Callable, Protocol

from shotclock.core.buttons import ButtonFault, ButtonReader, Edge, Gesture, gesture_event
from shotclock.core.engine import Engine, Snapshot
from shotclock.core.events import Event, Output

log = logging.getLogger("shotclock.loop")


@dataclass(frozen=True)
class Input:
    """A gesture, the engine event it became, and the bet state and street just after it.

    ``t`` is the time given to the event (its pin edge, or the engine's clock if the edge
    reached the loop after the engine had moved on).
    """

    gesture: Gesture
    event: Event
    facing_bet: bool | None = None
    street: str | None = None

    def record(self) -> dict:
        """The JSON form: ``{"t", "type": "input", "event", "button", "gesture", …}``."""
        rec = {"t": self.event.t, "type": "input", "event": self.event.NAME,
               "button": self.gesture.button, "gesture": self.gesture.kind}
        if getattr(self.event, "facing_bet", None) is not None:
            rec["set_bet"] = self.event.facing_bet
        return rec


@dataclass
class Round:
    """Everything one pass of the loop saw and caused."""

    now: float
    state: Snapshot | None = None  # the engine's state after the round
    inputs: list[Input] = field(default_factory=list)
    outputs: list[Output] = field(default_factory=list)
    button_faults: list[ButtonFault] = field(default_factory=list)
    faults: dict[str, str] = field(default_factory=dict)
    acted_at: float = 0.0
    sequence: list = field(default_factory=list)  # inputs and outputs in the order the engine took them

    def add_outputs(self, outputs: list[Output]) -> None:
        """Outputs the engine just gave."""
        self.outputs += outputs
        self.sequence += outputs

    def add_input(self, item: "Input") -> None:
        """An input just handed to the engine."""
        self.inputs.append(item)
        self.sequence.append(item)


class Listener(Protocol):
    """What the loop hands each round to (sound, LEDs, log, report, screen)."""

    def update(self, round: Round) -> None: ...

    def next_wake(self, now: float) -> float | None: ...


class Waker:
    """A sleep that an edge can cut short (thread-safe)."""

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
    """Wires the engine, the button reader and the listeners together.

    :param engine: the clock engine, started at the clock's current time.
    :param reader: the pure button reader.
    :param listeners: called in order after every round.
    :param clock: the monotonic clock (seconds).
    :param waker: how the loop sleeps; the simulator passes one that also wakes on window events.
    :param edge_grace: how long the ruling at the end of the tie window waits for an edge dated
        before it that the GPIO driver has not delivered yet (seconds; beeps never wait).
    """

    def __init__(self, engine: Engine, reader: ButtonReader, listeners: list = (),
                 clock: Callable[[], float] = time.monotonic, waker=None, edge_grace: float = 0.0):
        self.engine = engine
        self.edge_grace = edge_grace
        self.reader = reader
        self.listeners = list(listeners)
        self.clock = clock
        self.waker = waker or Waker()
        self.faults: dict[str, str] = {}
        self._inbox: collections.deque[Edge] = collections.deque()
        self._pending_faults: list[ButtonFault] = []

    # Called from gpiozero's callback thread: append and wake, nothing else.
    def post(self, edge: Edge) -> None:
        """Queue a timestamped edge (thread-safe) and wake the loop."""
        self._inbox.append(edge)
        self.waker.wake()

    @property
    def has_pending_edges(self) -> bool:
        """Edges queued by a callback and not yet taken by a round."""
        return bool(self._inbox)

    def set_fault(self, key: str, message: str | None) -> None:
        """Report (or with None, clear) a fault the screen should show, such as no sound."""
        if message is None:
            self.faults.pop(key, None)
        else:
            self.faults[key] = message

    def step(self) -> Round:
        """One round: everything due up to now, in time order."""
        now = self.clock()
        edges = []
        while self._inbox:
            edges.append(self._inbox.popleft())
        edges.sort(key=lambda e: e.t)
        round = Round(now=now)
        items: list = self._pending_faults
        self._pending_faults = []
        for edge in edges:
            items += self.reader.edge(replace(edge, t=min(edge.t, now)))
        items += self.reader.advance(now)
        for item in items:
            if isinstance(item, ButtonFault):
                self._button_fault(item, round)
            else:
                self._gesture(item, round)
        round.add_outputs(self.engine.advance(now, self.edge_grace))
        round.state = self.engine.state
        round.faults = dict(self.faults)
        round.acted_at = self.clock()
        return round

    def _gesture(self, gesture: Gesture, round: Round) -> None:
        event = gesture_event(gesture, self.engine.state)
        if event is None:
            return
        if event.t < self.engine.now:
            # The engine already moved past this edge (it reached the loop late); take it now.
            event = replace(event, t=self.engine.now)
        outputs = self.engine.handle(event)
        round.add_input(Input(gesture, event, self.engine.facing_bet, self.engine.street))
        round.add_outputs(outputs)

    def _button_fault(self, fault: ButtonFault, round: Round) -> None:
        round.button_faults.append(fault)
        key = f"stuck:{fault.button}"
        if fault.kind == "stuck":
            # fault.t is on the monotonic clock: say it as the local time of day a person can check.
            since = time.strftime("%H:%M:%S", time.localtime(time.time() - (self.clock() - fault.t)))
            log.warning("button '%s' is stuck (held down, reported at %s); ignoring it until released",
                        fault.button, since)
            self.faults[key] = fault.button
        else:
            log.info("button '%s' released; it works again", fault.button)
            self.faults.pop(key, None)

    def button_held_at_start(self, button: str) -> None:
        """A button that reads pressed at start is stuck until released."""
        self._pending_faults += self.reader.held_at_start(self.clock(), button)

    def next_wake(self, now: float) -> float | None:
        """The earliest moment anything is due: engine, buttons or a listener."""
        wakes = [self.engine.next_wake(self.edge_grace), self.reader.next_wake()]
        wakes += [listener.next_wake(now) for listener in self.listeners if hasattr(listener, "next_wake")]
        wakes = [w for w in wakes if w is not None]
        return min(wakes) if wakes else None

    def run_once(self) -> Round:
        """One round, handed to every listener. A listener that fails is logged, not fatal."""
        round = self.step()
        for listener in self.listeners:
            try:
                listener.update(round)
            except Exception:
                log.exception("%s failed; carrying on", type(listener).__name__)
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
