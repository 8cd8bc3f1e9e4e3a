"""The fake pins the device runs on with ``--pins mock``: the simulator, script mode and the tests.

gpiozero's MockFactory, with one change: its pins are stamped and its ticks read on a clock the
device gives it (its own monotonic clock), where gpiozero's mock reads ``time.monotonic`` directly.
A test's virtual clock then dates the pin edges too, with no patching of gpiozero, and the tests'
``mock_factory`` fixture is this very factory, so tests drive the pins the device really uses.
"""

from __future__ import annotations

import time
from typing import Callable

from gpiozero.pins.mock import MockFactory, MockPin, PinState


class FakePin(MockPin):
    """A MockPin whose changes are stamped with its factory's clock."""

    def _change_state(self, value):
        # MockPin's own, with the factory's ticks in place of time.monotonic().
        if self._state != value:
            t = self._factory.ticks()
            self._state = value
            self.states.append(PinState(t - self._last_change, value))
            self._last_change = t
            return True
        return False

    def clear_states(self):
        self._last_change = self._factory.ticks()
        self.states = [PinState(0.0, self._state)]


class FakePinFactory(MockFactory):
    """gpiozero's MockFactory on ``clock`` (seconds, monotonic): ``ticks()`` is ``clock()``.

    :param clock: the device's monotonic clock; tests pass a virtual one (and may swap it later
        through the ``clock`` attribute).
    """

    def __init__(self, clock: Callable[[], float] = time.monotonic):
        self.clock = clock
        super().__init__(pin_class=FakePin)

    def ticks(self) -> float:
        """Now, on the device's clock."""
        return self.clock()
