"""Building and running the table device: pins, loop, listeners, systemd (``shotclock run``)."""

from __future__ import annotations

import logging
import signal
import time
from dataclasses import dataclass
from pathlib import Path

from shotclock.adapters.mqtt_login import new_boot_id
from shotclock.adapters.pins import TablePins, make_pin_factory
from shotclock.adapters.systemd import SystemdNotifier
from shotclock.config import BUTTONS, Config
from shotclock.core.cues import Cues
from shotclock.core.engine import IDLE, RUNNING
from shotclock.core.faults import FirstBootFailed, NoSound
from shotclock.core.table import Table
from shotclock.errors import HardwareError, ShotclockError
from shotclock.shell.loop import DeviceLoop

log = logging.getLogger("shotclock.device")


class LightsPresenter:
    """Drives the LEDs and, where no speaker plays, the buzzer, from each round; with ``cues`` (visual
    cues on: a :class:`~shotclock.core.cues.Cues`) the running LED and the strobe pulse with them."""

    def __init__(self, pins: TablePins, buzzer_beeps: bool, cues: Cues | None = None):
        self.pins = pins
        self.buzzer_beeps = buzzer_beeps
        self.cues = cues

    def update(self, round) -> None:
        """Beep the buzzer for beeps; set the running, countdown and bet LEDs."""
        if self.buzzer_beeps:
            for out in round.outputs:
                if out.TYPE == "beep":
                    self.pins.beep(long=out.remaining == 0)
        pulse = None
        if self.cues is not None:
            self.cues.take(round.outputs)
            pulse = bool(self.cues.lit(round.now))
        state = round.state
        self.pins.show(running=state.phase != IDLE, countdown=state.in_countdown(round.now),
                       facing_bet=state.facing_bet, pulse=pulse)

    def next_wake(self, now: float) -> float | None:
        """The next pulse's start or end (visual cues only)."""
        return None if self.cues is None else self.cues.next_change(now)


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


def log_dir_for(args):
    """The state directory the command's log goes in, or None with ``--no-log``."""
    if getattr(args, "no_log", False):
        return None
    from shotclock.adapters.log import default_state_dir

    return Path(args.state_dir) if getattr(args, "state_dir", None) else default_state_dir()


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


def cmd_run(args) -> int:
    """``shotclock run``: the device (or, with --script, a timed bench run on fake pins)."""
    from shotclock.shell.args import load_for

    config = load_for(args)
    if args.script and args.pins != "mock":
        raise ShotclockError("--script plays presses onto fake pins: use it with --pins mock")
    if args.report and not args.script:
        raise ShotclockError("--report goes with --script")
    if args.report:
        from shotclock.adapters.log import DB_NAME
        from shotclock.shell.files import refuse_overwrite

        log_dir = log_dir_for(args)
        refuse_overwrite("--report", args.report, {"the decision log": log_dir and log_dir / DB_NAME,
                                                   "the script": args.script, "the configuration": args.config})
    parts = {}
    if not args.headless:
        from shotclock.shell.presenters import build_presenters

        try:
            presenters = build_presenters(config, fullscreen=config.screen.fullscreen and not args.offscreen,
                                          allow_nowhere=args.offscreen)
        except HardwareError as exc:
            raise HardwareError(f"{exc}; or run with --headless (no screen, no sound)") from None
        parts = presenters.parts()
        if not args.offscreen and not args.script:
            from shotclock.adapters.backlight import set_brightness

            set_brightness(config.screen.brightness)  # where the display has a backlight; logged
    if args.script:
        return _run_script(args, config, parts)
    device = build_device(config, args.pins, log_dir=log_dir_for(args), **parts)
    device.run()
    return 0


SCRIPT_MAX = 16_000_000  # bytes of a script of presses (``run --script``)


def _run_script(args, config, parts) -> int:
    from shotclock.shell.script import ReportWriter, ScriptPlayer, edge_schedule, parse_script

    from shotclock.config import read_input_file

    try:  # a pipe too, but never without end (/dev/zero): a day of the feature table's presses is 0.2 MB
        text = read_input_file(args.script, SCRIPT_MAX, streams=True).decode("utf-8")
    except OSError as exc:
        raise ShotclockError(f"cannot read the script {args.script}: {exc.strerror}") from None
    except UnicodeDecodeError as exc:
        raise ShotclockError(f"cannot read the script {args.script}: not UTF-8 text (byte {exc.start})") from None
    try:
        edges = edge_schedule(parse_script(text))
    except ShotclockError as exc:
        raise ShotclockError(f"{args.script}: {exc}") from None
    report = ReportWriter(args.report) if args.report else None  # an unwritable report fails before the device starts
    device = build_device(config, "mock", log_dir=log_dir_for(args), extra=[report] if report else [], **parts)
    start = time.monotonic() + 0.05  # a moment for the player thread to start
    if report:
        report.start = start
    player = ScriptPlayer(edges, device.pins, start, device.loop.waker.wake)
    player.start()

    def finished(round) -> bool:
        return (player.done and not device.loop.has_pending_inputs and round.state.phase != RUNNING
                and device.reader.next_wake() is None)

    device.run(finished)
    return 0
