"""Buttons in pure code: debounce, press/hold gestures and stuck detection from edge timestamps.

GPIO callbacks only timestamp edges; everything else is decided here, so it can be tested
with virtual time (gpiozero's MockFactory does not simulate bounce, and lgpio's own
debounce delays and shifts the timestamp, which a ruling at 0 cannot afford).

* The first edge of a press counts at once, with its own timestamp: no added latency.
  Edges within ``debounce`` after a counted edge are contact bounce and are ignored;
  if the contact ended up in the other state, that is counted when the window closes,
  at the time of the last edge seen.
* Every button gives a ``press`` gesture on its press edge, dated at that edge.
* Every button has a hold gesture as well: released before ``hold`` it also gives a ``tap``,
  dated at the *press* edge (the gesture logic never moves a timestamp); held that long it
  gives a ``hold``, dated when the hold time is reached.
* A button with a minimum press time (``min_press``: the floor's, on a long cable with a jack)
  counts a press only once the contact has stayed closed that long: plugging the jack in shorts
  the contacts for a moment, which must not call or pause a clock. The press is still dated at
  its edge; until it is confirmed the rulings wait for it (:meth:`ButtonReader.unsettled_press_since`).
* A button held longer than ``stuck_after`` is reported stuck and ignored until released.

What a gesture means is decided by :mod:`shotclock.core.gestures`, not here.

Example::

    >>> reader = ButtonReader(debounce=0.03, hold=2.0, stuck_after=10.0)
    >>> reader.edge(Edge(1.000, "action", True))
    [Gesture(t=1.0, button='action', kind='press')]
    >>> reader.edge(Edge(1.002, "action", False))   # bounce
    []
"""

from __future__ import annotations

from dataclasses import dataclass

from shotclock.core.inputs import Edge

__all__ = ["ButtonFault", "ButtonReader", "Edge", "Gesture", "HOLD", "HOLDABLE", "PRESS", "TAP"]

#: The kinds of :class:`Gesture`; what each means is :mod:`shotclock.core.gestures`' business.
PRESS, TAP, HOLD = "press", "tap", "hold"

HOLDABLE = frozenset({"floor", "action", "bet", "extend", "street"})


@dataclass(frozen=True)
class Gesture:
    """A recognised gesture: ``kind`` is ``press`` (at the press edge), ``tap`` (a holdable
    button released before the hold time, dated at its press edge) or ``hold``."""

    t: float
    button: str
    kind: str


@dataclass(frozen=True)
class ButtonFault:
    """A button became ``stuck`` or was ``released`` after being stuck."""

    t: float
    button: str
    kind: str


class _Button:
    __slots__ = ("pressed", "counted_t", "press_t", "held", "stuck", "raw_pressed", "raw_t", "confirmed")

    def __init__(self):
        self.confirmed = True  # False while a press waits for its minimum press time
        self.pressed = False
        self.counted_t: float | None = None
        self.press_t = 0.0
        self.held = False
        self.stuck = False
        self.raw_pressed = False
        self.raw_t = 0.0


class ButtonReader:
    """Turns timestamped edges into gestures and faults; tells when it next needs waking.

    :param debounce: seconds after a counted edge in which further edges are bounce.
    :param hold: seconds a holdable button must be held for a ``hold`` gesture.
    :param stuck_after: seconds after which a held button is reported stuck.
    :param holdable: the buttons with a hold gesture (they also give a tap or a hold).
    :param min_press: seconds of closed contact before a press counts, by button (``{"floor": 0.04}``).
    """

    def __init__(self, debounce: float = 0.03, hold: float = 2.0, stuck_after: float = 10.0,
                 holdable: frozenset = HOLDABLE, min_press: dict[str, float] | None = None):
        self.debounce = debounce
        self.hold = hold
        self.stuck_after = stuck_after
        self.holdable = holdable
        self.min_press = {name: s for name, s in (min_press or {}).items() if s > 0}
        self._buttons: dict[str, _Button] = {}

    def _button(self, name: str) -> _Button:
        return self._buttons.setdefault(name, _Button())

    def stuck(self) -> set[str]:
        """The buttons now reported stuck."""
        return {name for name, b in self._buttons.items() if b.stuck}

    def held_at_start(self, t: float, button: str) -> list[ButtonFault]:
        """A button found pressed when the device starts: stuck until released."""
        b = self._button(button)
        b.pressed = b.raw_pressed = b.stuck = True
        b.counted_t = b.press_t = b.raw_t = t
        b.held = True
        return [ButtonFault(t, button, "stuck")]

    def undecided_since(self) -> float | None:
        """The press edge of the earliest holdable button still down whose tap or hold is not yet known."""
        times = [press_t for _, press_t in self.holding()]
        return min(times) if times else None

    def holding(self) -> list[tuple[str, float]]:
        """(button, press edge) of every holdable button down now whose tap or hold is not yet known."""
        return [(name, b.press_t) for name, b in self._buttons.items()
                if name in self.holdable and b.pressed and b.confirmed and not b.held and not b.stuck]

    def unsettled_press_since(self) -> float | None:
        """The earliest press edge not yet counted: seen inside a bounce window (counted when it closes),
        or waiting for its minimum press time."""
        times = [b.raw_t for b in self._buttons.values()
                 if b.raw_pressed and not b.pressed and b.counted_t is not None]
        times += [b.press_t for b in self._buttons.values() if b.pressed and not b.confirmed]
        return min(times) if times else None

    def edge(self, edge: Edge) -> list[Gesture | ButtonFault]:
        """Take one edge (in time order) and return the gestures and faults it completes."""
        out = self.advance(edge.t)
        b = self._button(edge.button)
        b.raw_pressed, b.raw_t = edge.pressed, edge.t
        if b.counted_t is not None and edge.t - b.counted_t < self.debounce:
            return out  # contact bounce
        if edge.pressed == b.pressed:
            return out  # no change (an edge we saw the other half of as bounce)
        return out + self._count(edge.button, b, edge.t, edge.pressed)

    def advance(self, t: float) -> list[Gesture | ButtonFault]:
        """Let time pass to ``t``: settle bounce windows, fire holds and stuck reports due by then."""
        out: list[Gesture | ButtonFault] = []
        while (due := self._next(t)) is not None:
            when, name, what = due
            b = self._buttons[name]
            if what == "settle":
                out += self._count(name, b, b.raw_t, b.raw_pressed)
            elif what == "confirm":
                b.confirmed = True
                out.append(Gesture(b.press_t, name, PRESS))  # dated at its press edge
            elif what == "hold":
                b.held = True
                out.append(Gesture(when, name, HOLD))
            else:
                b.stuck = True
                out.append(ButtonFault(when, name, "stuck"))
        return out

    def next_wake(self) -> float | None:
        """When a bounce window closes, a hold completes or a button becomes stuck."""
        due = self._next(float("inf"))
        return None if due is None else due[0]

    def _next(self, limit: float):
        best = None
        for name, b in self._buttons.items():
            for when, what in self._timers(name, b):
                if when <= limit and (best is None or when < best[0]):
                    best = (when, name, what)
        return best

    def _timers(self, name: str, b: _Button):
        if b.counted_t is not None and b.raw_pressed != b.pressed:
            yield b.counted_t + self.debounce, "settle"  # bounce ended in the other state
        if b.pressed and not b.confirmed:
            # Closed long enough (and closed still, bounce aside): a real press, not a jack's short.
            if b.raw_pressed:
                yield b.press_t + self.min_press[name], "confirm"
            return
        if b.pressed and not b.stuck:
            if not b.held and name in self.holdable:
                yield b.press_t + self.hold, "hold"
            yield b.press_t + self.stuck_after, "stuck"

    def _count(self, name: str, b: _Button, t: float, pressed: bool):
        b.pressed = pressed
        b.counted_t = t
        if pressed:
            b.press_t, b.held = t, False
            b.confirmed = name not in self.min_press
            return [Gesture(t, name, PRESS)] if b.confirmed else []
        if not b.confirmed:
            b.confirmed = True
            return []  # opened again before the minimum press time: a glitch, not a press
        if b.stuck:
            b.stuck = False
            return [ButtonFault(t, name, "released")]
        if name in self.holdable and not b.held:
            return [Gesture(b.press_t, name, TAP)]  # dated at its press edge
        return []

