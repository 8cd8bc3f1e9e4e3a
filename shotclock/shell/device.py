"""Building the table device: its table of rules, pins, loop, lights and listeners, the decision log and the floor
network, closed in order (``shotclock run`` is :mod:`shotclock.shell.runcmd`)."""

from __future__ import annotations

import logging
import signal
import time
from dataclasses import dataclass

from shotclock.adapters.mqtt_login import new_boot_id
from shotclock.adapters.pins import TablePins, make_pin_factory
from shotclock.adapters.systemd import SystemdNotifier
from shotclock.config.typed import Config
from shotclock.core.cues import Cues
from shotclock.core.faults import FirstBootFailed, NoSound
from shotclock.core.table import Table
from shotclock.shell.lights import LightsPresenter
from shotclock.shell.loop import DeviceLoop

log = logging.getLogger("shotclock.device")


def make_table(config: Config, start: float) -> Table:
    """The table's rules from a configuration: the device and ``log replay`` build it alike."""
    return Table(config.settings, start=start, debounce=config.device.debounce, hold=config.device.hold,
                 stuck_after=config.device.stuck_after, floor_min_press=config.device.floor_min_press,
                 edge_grace=config.device.edge_grace, rule_sets=config.rule_sets)


class Device:
    """The whole table device, built from a configuration.

    :param config: the validated configuration.
    :param pin_factory: a gpiozero pin factory name (``auto``, ``mock``, ``lgpio``, …), or a pin
        factory object (the tests pass their fake one, the same class ``mock`` makes).
    :param listeners: extra listeners (screen, sound, log, report), called after the lights.
    :param buzzer_beeps: beep the GPIO buzzer with the countdown (when no speaker plays).
    :param clock: the monotonic clock for the engine, loop and pins (tests pass a virtual one).
    """

    def __init__(self, config: Config, pin_factory: str = "auto", listeners=(), buzzer_beeps=True,
                 waker=None, notifier: SystemdNotifier | None = None, clock=time.monotonic):
        self.config = config
        self.notifier = notifier or SystemdNotifier()
        self.boot = new_boot_id()  # this run's id on the floor network and in the log's session record
        self.link = None  # the floor network's MQTT link, when attached
        self.table = make_table(config, clock())
        self.engine = self.table.engine
        self.reader = self.table.reader
        self.loop = DeviceLoop(self.table, clock=clock, waker=waker)
        factory = (make_pin_factory(pin_factory, config.gpio, clock=clock)
                   if isinstance(pin_factory, str) else pin_factory)
        # A factory made here is closed here (it holds the GPIO chip); one handed in belongs to the
        # caller, and gpiozero's own default ("auto") is closed by gpiozero at exit.
        self._own_factory = factory if isinstance(pin_factory, str) else None
        self.pins = TablePins(config.pins, self.loop.post, factory, clock=clock)
        self.lights = LightsPresenter(self.pins, buzzer_beeps, Cues() if config.screen.visual_cues else None)
        self.set_listeners(listeners)
        for button, pressed in self.pins.pressed_now().items():
            if pressed:
                log.warning("button '%s' reads pressed at start: treated as stuck until released", button)
                self.loop.button_held_at_start(button)
        log.info("pins: %s on %s", ", ".join(f"{r}={p}" for r, p in config.pins.items()),
                 type(self.pins.factory).__name__)

    def set_listeners(self, listeners) -> None:
        """The loop's listeners: the lights first, then ``listeners`` in order, systemd's watchdog last."""
        self.loop.listeners = [self.lights, *listeners, self.notifier]

    def run(self, should_stop=lambda round: False) -> None:
        """Run until ``should_stop(round)`` or SIGTERM/SIGINT; then close everything, in order."""
        stopping = []

        def on_signal(signum, frame):
            stopping.append(signum)
            self.loop.waker.wake()

        previous = {s: signal.signal(s, on_signal) for s in (signal.SIGTERM, signal.SIGINT)}
        self.notifier.ready(f"{self.config.mode} mode, table {self.config.table}", time.monotonic())
        log.info("ready: %s mode, table %r", self.config.mode, self.config.table)
        try:
            self.loop.run(lambda round: bool(stopping) or should_stop(round))
        finally:
            for s, handler in previous.items():
                signal.signal(s, handler)
            self.close()

    def close(self) -> None:
        """Stop the listeners (the log records the time an open clock has left), close them in reverse
        order, then the floor network's link, the pins and the pin factory the device made. Safe to call twice."""
        if getattr(self, "_closed", False):
            return
        self._closed = True
        now, state = self.loop.clock(), self.table.state
        self.notifier.stopping()
        for listener in self.loop.listeners:
            if hasattr(listener, "stop"):
                _quietly(listener.stop, now, state)
        for listener in reversed(self.loop.listeners):
            if hasattr(listener, "close"):
                _quietly(listener.close)  # the log writer finishes: its last records reach the network
        if self.link is not None:
            _quietly(self.link.stop)  # says offline (clean) and lets the last events go
        _quietly(self.pins.close)
        if self._own_factory is not None:
            _quietly(self._own_factory.close)


def _quietly(func, *args) -> None:
    """Closing is best effort: one part failing to close must not keep the others open."""
    try:
        func(*args)
    except Exception:
        log.exception("%s failed while closing", getattr(func, "__qualname__", func))


def build_device(config: Config, pin_factory="auto", *, sound=(), screens=(), extra=(), sound_problem=None,
                 log_dir=None, waker=None, clock=time.monotonic) -> Device:
    """Assemble the device: the one place ``run``, script mode, the simulator and the terminal view
    build it. Listeners run in this order: LEDs, sound, decision log, the floor network, ``extra``
    (the script report), screens, systemd -- so a ruling is sounded, then stored, then sent and
    acknowledged (an ack never waits for a frame to be drawn), then shown.

    :param sound: sound listeners; ``sound_problem`` says why there are none (shown on screen; the
        buzzer beeps instead).
    :param screens: the screen listeners (window, Pi screen or terminal view); with the floor
        network each is handed its mark (``set_corner``).
    :param log_dir: the state directory for the decision log, or None for none.
    """
    device = Device(config, pin_factory, buzzer_beeps=not sound, waker=waker, clock=clock)
    if sound_problem:
        device.loop.set_fault(NoSound(sound_problem))
    from shotclock.shell import firstboot

    if problem := firstboot.failure(firstboot.SYSTEM_ROOT):  # read once, at start: the file changes only at boot
        device.loop.set_fault(FirstBootFailed(problem))
    try:
        attached = attach_log_and_network(device, config, log_dir)
    except Exception:
        device.close()
        raise
    if attached.network is not None:
        for screen in screens:
            screen.set_corner(attached.network.mark)
    device.set_listeners([*sound, *attached.listeners, *extra, *screens])
    return device


@dataclass(frozen=True)
class LogAndNetwork:
    """What :func:`attach_log_and_network` opened (each None when not in use)."""

    recorder: object | None = None  # the decision log's listener
    network: object | None = None  # the floor network's listener (NetworkPresenter)
    link: object | None = None  # its MQTT link

    @property
    def listeners(self) -> list:
        """The loop listeners, in order: the log first (a ruling is stored before it is sent)."""
        return [listener for listener in (self.recorder, self.network) if listener is not None]


def attach_log_and_network(device, config, log_dir, make_writer=None, make_link=None) -> LogAndNetwork:
    """The decision log in ``log_dir`` (None: none) and, when ``[network] enabled``, the floor network.

    ``device`` needs ``loop``, ``engine``, ``boot`` and ``link`` (the fleet's simulated tables have
    no pins); ``device.link`` is set here. The link is made first, so the recorder is handed where
    its written records go; it starts once the log is open (the log is its outbox). The caller puts
    the returned listeners in the loop. ``make_writer`` and ``make_link`` make the log's sink and the link (None:
    the device's own; see :func:`~shotclock.shell.recorder.open_recorder` and
    :func:`~shotclock.shell.network.open_link`).
    """
    from shotclock.shell.network import open_link, start_network

    link = open_link(config, device.boot, make_link)  # an unreadable credentials file stops here, nothing open yet
    recorder = None
    if log_dir is not None:
        from shotclock.shell.recorder import open_recorder

        recorder = open_recorder(config, log_dir, device, on_written=link.offer_records if link else None,
                                 make_writer=make_writer)
    try:
        network = start_network(link, device, config, recorder) if link is not None else None
    except Exception:  # leave nothing open: the recorder is in no listener list yet
        if recorder is not None:
            recorder.close()
        raise
    device.link = link
    return LogAndNetwork(recorder, network, link)
