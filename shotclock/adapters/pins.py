"""The table's buttons, LEDs, buzzer and strobe on GPIO, through gpiozero.

The pin callback does one thing: it turns gpiozero's ``(ticks, state)`` into a
:class:`~shotclock.core.buttons.Edge` on the monotonic clock and hands it to ``on_edge``.
Debounce and gestures are decided in :mod:`shotclock.core.buttons`, never here.

A pin factory's ticks are opaque: their unit, epoch and wrap-around are the backend's. The
callback asks the factory how long ago the edge was (``factory.ticks_diff(factory.ticks(),
ticks)``) and dates the edge that long before now on the device's monotonic clock. What the
date means depends on the backend (:data:`EDGE_DATING`): lgpio's ticks are the kernel's
timestamp of the edge itself; RPi.GPIO and the native factory read the clock when their
callback runs, after the edge -- the device says so at start, since a ruling at 0 depends on it.
"""

from __future__ import annotations

import logging
import time
from typing import Callable

from shotclock.config.pins import BUTTONS
from shotclock.core.buttons import Edge
from shotclock.errors import HardwareError

log = logging.getLogger("shotclock.pins")

# An edge older than this (or dated in the future) is implausible: date it now instead.
_PLAUSIBLE = 5.0

# What an edge's time means, by pin factory: (meaning, dated at the contact?).
EDGE_DATING = {
    "LGPIOFactory": ("the kernel's timestamp of the edge", True),
    "ChipLGPIOFactory": ("the kernel's timestamp of the edge", True),
    "PiGPIOFactory": ("pigpiod's tick at the edge", True),
    "MockFactory": ("the moment the fake pin was driven", True),  # and FakePinFactory, its subclass
    "RPiGPIOFactory": ("the moment RPi.GPIO's callback ran, after the edge", False),
    "NativeFactory": ("the moment the native factory's polling thread saw the edge", False),
}


def edge_dating(factory) -> tuple[str, bool]:
    """(what an edge's timestamp means, whether it is the contact's own time) for a pin factory."""
    for cls in type(factory).__mro__:
        if cls.__name__ in EDGE_DATING:
            return EDGE_DATING[cls.__name__]
    return f"{type(factory).__name__}'s ticks (unknown meaning)", False


# gpiozero's own backends, by the names GPIOZERO_PIN_FACTORY accepts (plus "mock").
FACTORIES = {
    "mock": "shotclock.adapters.fake_pins:FakePinFactory",  # gpiozero's MockFactory on the device's clock
    "lgpio": "gpiozero.pins.lgpio:LGPIOFactory",
    "rpigpio": "gpiozero.pins.rpigpio:RPiGPIOFactory",
    "native": "gpiozero.pins.native:NativeFactory",
}


def make_pin_factory(name: str, gpio=None, clock: Callable[[], float] = time.monotonic):
    """A gpiozero pin factory by name: ``mock`` (:class:`~shotclock.adapters.fake_pins.FakePinFactory`
    on ``clock``),
    ``auto`` (gpiozero's own choice), ``lgpio`` (Pi 5, and Pi 3-4 on Bookworm), ``rpigpio``
    (Pi 1-4) or ``native``.

    :param gpio: the configuration's typed ``gpio`` section (``config.gpio``); with ``board = "generic"``, ``auto`` and
        ``lgpio`` open lgpio on ``gpio.chip`` (see :mod:`shotclock.adapters.boards`).
    """
    if name == "mock":
        from shotclock.adapters.fake_pins import FakePinFactory

        return FakePinFactory(clock)  # the tests' mock_factory fixture is this one too
    if name in ("auto", "lgpio") and gpio and gpio.board != "raspberry-pi":
        from shotclock.adapters.boards import board_pin_factory

        return board_pin_factory(gpio)
    if name == "auto":
        return None
    if name not in FACTORIES:
        raise HardwareError(f"unknown pin factory {name!r} (choose from auto, {', '.join(FACTORIES)})")
    module_name, cls_name = FACTORIES[name].split(":")
    try:
        import importlib

        return getattr(importlib.import_module(module_name), cls_name)()
    except Exception as exc:  # gpiozero and the backends raise many kinds here
        hint = " (install the 'pi' extra: pip install 'shotclock[pi]')" if name == "lgpio" else ""
        raise HardwareError(f"pin factory {name!r} is not available: {exc}{hint}") from None


class TablePins:
    """The buttons (to ground, internal pull-up), the running and bet LEDs, an optional buzzer and strobe.

    :param pins: role → BCM pin number (``floor``, ``action``, ``bet``, ``extend``, ``street``,
        ``led_running``, ``led_bet`` and optionally ``buzzer`` and ``strobe``).
    :param on_edge: called from gpiozero's callback thread with each timestamped edge.
    :param pin_factory: a gpiozero pin factory, or None for gpiozero's default.
    :param clock: the monotonic clock the ticks are checked against (tests pass a virtual one).

    Example, with fake pins::

        >>> from shotclock.adapters.fake_pins import FakePinFactory
        >>> edges = []
        >>> table = TablePins({"floor": 17, "action": 27, "bet": 22, "extend": 23, "street": 24,
        ...                    "led_running": 5, "led_bet": 6}, edges.append, FakePinFactory())
        >>> table.pin("action").drive_low()
        >>> edges[0].button, edges[0].pressed
        ('action', True)
    """

    def __init__(self, pins: dict[str, int], on_edge: Callable[[Edge], None], pin_factory=None,
                 clock: Callable[[], float] = time.monotonic):
        import warnings

        from gpiozero import LED, Buzzer, DigitalOutputDevice, InputDevice
        from gpiozero.exc import PinFactoryFallback

        self.on_edge = on_edge
        self.clock = clock
        self._devices: list = []
        self.buttons: dict = {}
        # gpiozero holds when_changed only weakly: these references keep the callbacks alive.
        self._callbacks: dict = {}
        # gpiozero warns once for each backend it could not load; keep those for the error message.
        with warnings.catch_warnings(record=True) as fallbacks:
            warnings.simplefilter("always", PinFactoryFallback)
            try:
                self._open(pins, pin_factory, LED, Buzzer, InputDevice, DigitalOutputDevice)
            except Exception as exc:  # gpiozero's errors, OSError, and each backend's own (lgpio.error)
                self.close()
                tried = "; ".join(str(w.message) for w in fallbacks if issubclass(w.category, PinFactoryFallback))
                if tried:
                    raise HardwareError(f"no GPIO here ({tried}). On a desktop use 'shotclock simulate', or "
                                        "'shotclock run --pins mock' for fake pins") from None
                used = ", ".join(f"{role} BCM {pin}" for role, pin in pins.items())
                raise HardwareError(f"cannot set up the GPIO pins ({used}): {exc}") from None
        for w in fallbacks:
            log.debug("%s", w.message)
        self.factory = self.buttons["floor"].pin_factory
        self._running_mode = None
        meaning, at_contact = edge_dating(self.factory)
        if at_contact:
            log.info("edges are dated by %s", meaning)
        else:
            log.warning("edges are dated by %s: a press can be dated late under load, which matters for a "
                        "ruling at 0; use the lgpio backend (--pins lgpio, python3-lgpio)", meaning)

    def _open(self, pins, pin_factory, LED, Buzzer, InputDevice, DigitalOutputDevice) -> None:
        for role in BUTTONS:
            dev = InputDevice(pins[role], pull_up=True, pin_factory=pin_factory)
            self._devices.append(dev)
            dev.pin.edges = "both"
            self._callbacks[role] = self._callback(role, dev.pin_factory)
            dev.pin.when_changed = self._callbacks[role]
            self.buttons[role] = dev
        self.led_running = LED(pins["led_running"], pin_factory=pin_factory)
        self.led_bet = LED(pins["led_bet"], pin_factory=pin_factory)
        self._devices += [self.led_running, self.led_bet]
        self.buzzer = Buzzer(pins["buzzer"], pin_factory=pin_factory) if pins.get("buzzer") else None
        if self.buzzer:
            self._devices.append(self.buzzer)
        # A strobe light or a vibrating puck, switched by a transistor: high while a visual cue's pulse is on.
        self.strobe = DigitalOutputDevice(pins["strobe"], pin_factory=pin_factory) if pins.get("strobe") else None
        if self.strobe:
            self._devices.append(self.strobe)

    def _callback(self, role: str, factory):
        on_edge, clock = self.on_edge, self.clock
        ticks_now, ticks_diff = factory.ticks, factory.ticks_diff

        def changed(ticks, state):
            # Keep this tiny: it runs on gpiozero's thread at every edge.
            now = clock()
            age = None
            if ticks is not None:
                try:
                    age = ticks_diff(ticks_now(), ticks)  # the factory's own arithmetic: units, wrap-around
                except Exception:  # a backend whose ticks cannot be compared: date it now
                    age = None
            t = now - age if age is not None and 0 <= age < _PLAUSIBLE else now
            on_edge(Edge(t, role, not state))  # pulled up: low means pressed

        return changed

    def pin(self, role: str):
        """The gpiozero pin object of a button (tests and the simulator drive mock pins through it)."""
        return self.buttons[role].pin

    def pressed_now(self) -> dict[str, bool]:
        """Which buttons read pressed right now (used at start and by the self-test)."""
        return {role: not dev.pin.state for role, dev in self.buttons.items()}

    def show(self, running: bool, countdown: bool, facing_bet: bool, pulse: bool | None = None) -> None:
        """Set the LEDs: running (steady, or blinking in the countdown) and facing a bet.

        ``pulse`` (visual cues on): whether a cue's pulse is on now. The running LED is then lit by the
        pulses in the countdown (it blinks with the seconds, not on a timer of its own) and at each cue
        outside it; the strobe is high exactly while a pulse is on.
        """
        if pulse is None:
            mode = "blink" if countdown else "on" if running else "off"
        else:
            mode = "on" if pulse or (running and not countdown) else "off"
            if self.strobe and pulse != self.strobe.is_active:
                self.strobe.value = pulse
        if mode != self._running_mode:
            self._running_mode = mode
            if mode == "blink":
                self.led_running.blink(on_time=0.25, off_time=0.25)
            elif mode == "on":
                self.led_running.on()
            else:
                self.led_running.off()
        if facing_bet != self.led_bet.is_lit:
            self.led_bet.value = facing_bet

    def beep(self, long: bool = False) -> None:
        """Sound the buzzer once (long at 0), in the background; nothing without a buzzer."""
        if self.buzzer:
            self.buzzer.beep(on_time=0.6 if long else 0.08, off_time=0.01, n=1, background=True)

    def close(self) -> None:
        """Release every pin."""
        for dev in self._devices:
            try:
                dev.close()
            except Exception:  # closing is best effort
                pass
        self._devices.clear()
