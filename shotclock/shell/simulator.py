"""``shotclock simulate``: the device on a desktop.

A window shows the device's screen with a panel of the table's buttons below it. Keys and
clicks drive gpiozero's fake pins (press on key-down, release on key-up), so the same
input code runs as on the Pi: holds, bounces and all. Where no display can be opened, a
terminal view takes over.
"""

from __future__ import annotations

import dataclasses
import logging
import math
import os
import sys
import threading
import time

from shotclock.config.pins import BUTTONS
from shotclock.core.button_card import KEYS, buttons_for
from shotclock.errors import HardwareError
from shotclock.shell.args import log_dir_for
from shotclock.shell.device import build_device
from shotclock.shell.presenters import ViewFollower

log = logging.getLogger("shotclock.simulator")

PANEL_BG, BUTTON_BG, BUTTON_DOWN, BUTTON_INK = (28, 28, 34), (60, 62, 74), (240, 200, 40), (245, 245, 245)
LED_RUNNING, LED_BET, LED_STROBE = (255, 40, 40), (255, 176, 0), (255, 255, 255)  # as wired: red, amber, a strobe


class PygameWaker:
    """Sleeps in pygame's event queue, so window events and GPIO edges both wake the loop.

    ``wake()`` is thread-safe (SDL's event queue is); ``on_event`` handles each window event.
    """

    def __init__(self, on_event):
        import pygame

        self._pygame = pygame
        self.on_event = on_event
        self.WAKE = pygame.event.custom_type()

    def wake(self) -> None:
        """Wake the loop from any thread."""
        self._pygame.event.post(self._pygame.event.Event(self.WAKE))

    def wait(self, timeout: float | None) -> None:
        """Sleep until a window event, a wake, or ``timeout`` seconds (sub-millisecond rest by sleep)."""
        pygame = self._pygame
        deadline = None if timeout is None else time.monotonic() + timeout
        if timeout is None:
            event = pygame.event.wait()
        elif timeout >= 0.001:
            event = pygame.event.wait(max(1, math.floor(timeout * 1000)))
        else:
            event = pygame.event.Event(pygame.NOEVENT)
        events = [event] + pygame.event.get()
        real = [e for e in events if e.type not in (pygame.NOEVENT, self.WAKE)]
        for e in real:
            self.on_event(e)
        if deadline is not None and not real and not any(e.type == self.WAKE for e in events):
            rest = deadline - time.monotonic()
            if 0 < rest < 0.002:
                time.sleep(rest)  # SDL waits in whole milliseconds; finish the last fraction here


def _later(delay: float, fn):
    """Call ``fn`` after ``delay`` seconds on a timer thread (as a GPIO edge arrives on its own thread)."""
    timer = threading.Timer(delay, fn)
    timer.daemon = True
    timer.start()
    return timer


class Simulator:
    """The window: the device's screen on top, the button panel below.

    :param config: the configuration (``screen.size`` gives the device screen's size).
    :param clock: the monotonic clock (tests pass a virtual one).
    :param pin_factory: ``"mock"`` (fake pins on ``clock``), or the tests' own fake pin factory.
    """

    PANEL_RATIO = 0.30

    def __init__(self, config, clock=time.monotonic, size=None, log_dir=None, pin_factory="mock"):
        from shotclock.shell.presenters import build_presenters

        self._window(config, size, clock)
        self.presenters = build_presenters(config, fullscreen=False, allow_nowhere="requested",
                                           size=self.window_size, area=self.screen_area,
                                           caption=f"shotclock simulator · {config.table}")
        self.screen = self.presenters.screen
        self.device = build_device(config, pin_factory, log_dir=log_dir, waker=self.waker, clock=clock,
                                   **self.presenters.parts())
        self.device.set_listeners([*self.device.loop.listeners[1:-1], self])  # the panel's lights follow each round
        self._panel()

    def _window(self, config, size, clock) -> None:
        """The window's parts: the device screen's area on top, the panel's below, the waker."""
        import pygame

        self._pygame = pygame
        self.config = config
        self.clock = clock
        width, height = size or config.screen_size
        self.panel_height = max(90, int(height * self.PANEL_RATIO))
        self.screen_area = pygame.Rect(0, 0, width, height)
        self.panel_area = pygame.Rect(0, height, width, self.panel_height)
        self.window_size = (width, height + self.panel_height)
        self.waker = PygameWaker(self.handle_event)

    def _panel(self) -> None:
        """The button panel's state, drawn once."""
        config = self.config
        self.down: set[str] = set()
        # A key tap lasts a few ms, shorter than a real button's press: a release that comes sooner than
        # the inputs' minimum contact (the floor's 40 ms, the debounce) is held back until then, so a quick
        # tap registers as a brief press of a real button would.
        self.min_contact = max(config.device.floor_min_press, config.device.debounce) + 0.01
        self.later = _later  # (delay, fn) -> a handle with cancel(); tests swap it
        self._pressed_at: dict[str, float] = {}
        self._releases: dict = {}
        self._mouse_button: str | None = None
        self.quit = False
        self.buttons = self._layout()
        self.draw_panel()

    def _layout(self):
        """One rectangle per button the mode uses (clock mode has no extension chips)."""
        pygame = self._pygame
        buttons = buttons_for(self.config.mode, self.config.seats.track)
        n = len(buttons)
        gap = self.panel_area.width * 0.015
        w = (self.panel_area.width - gap * (n + 1)) / n
        h = self.panel_height * 0.68
        top = self.panel_area.top + self.panel_height * 0.06
        return {b: pygame.Rect(int(gap + i * (w + gap)), int(top), int(w), int(h)) for i, b in enumerate(buttons)}

    def draw_panel(self) -> None:
        """Draw the buttons (pressed ones highlighted) and the key legend."""
        pygame = self._pygame
        surface = self.screen.surface
        renderer = self.screen.renderer
        from shotclock.core import texts

        from shotclock.core.gestures import hold_meanings

        lang, mode = self.config.language, self.config.mode
        space = texts.text(lang, "key.space")
        legend = {b: " / ".join(k.upper() if len(k) == 1 else space for k, v in KEYS.items() if v == b)
                  for b in BUTTONS}
        pygame.draw.rect(surface, PANEL_BG, self.panel_area)

        for button, rect in self.buttons.items():
            down = button in self.down
            pygame.draw.rect(surface, BUTTON_DOWN if down else BUTTON_BG, rect, border_radius=int(rect.h * 0.18))
            ink = (0, 0, 0) if down else BUTTON_INK
            name = texts.text(lang, f"button.{button}").upper()
            renderer.text(surface, name, ink, (rect.centerx, rect.top + rect.h * 0.28), rect.w * 0.86, rect.h * 0.3)
            renderer.text(surface, legend[button], ink, (rect.centerx, rect.top + rect.h * 0.58), rect.w * 0.8,
                          rect.h * 0.18)
            holds = " / ".join(texts.text(lang, f"short.{e}")
                               for e in hold_meanings(button, mode, self.config.seats.track)) \
                if self.show_holds else ""
            if holds:  # what holding it does in this mode, from the gesture map itself
                renderer.text(surface, texts.text(lang, "short.hold", what=holds), ink,
                              (rect.centerx, rect.top + rect.h * 0.83), rect.w * 0.9, rect.h * 0.15)
        hint = self.hint()
        lights = self._draw_lights(surface)
        renderer.text(surface, hint, (190, 190, 200),
                      (self.panel_area.centerx + lights / 2, self.panel_area.top + self.panel_height * 0.88),
                      self.panel_area.width * 0.96 - lights, self.panel_height * 0.13)
        pygame.display.flip()

    show_holds = True  # the panel names what holding a button does

    def hint(self) -> str:
        """The key legend under the buttons."""
        lang, mode = self.config.language, self.config.mode
        from shotclock.core import texts

        return texts.text(lang, "hint.seats") if self.config.seats.track else texts.text(lang, f"hint.{mode}")

    def lights(self) -> list[tuple[tuple[int, int, int], bool]]:
        """The table's lights as (colour, lit): the running LED, the bet LED, the strobe where configured."""
        pins = self.device.pins
        lights = [(LED_RUNNING, pins.led_running.is_lit), (LED_BET, pins.led_bet.is_lit)]
        if pins.strobe is not None:
            lights.append((LED_STROBE, pins.strobe.is_active))
        return lights

    def _draw_lights(self, surface) -> float:
        """The lights as dots left of the legend (dim when off); returns the width they take."""
        pygame = self._pygame
        r = max(4, int(self.panel_height * 0.05))
        y = int(self.panel_area.top + self.panel_height * 0.88)
        x = int(self.panel_area.width * 0.02) + r
        shown = self.lights()
        for colour, lit in shown:
            pygame.draw.circle(surface, colour if lit else tuple(c // 5 for c in colour), (x, y), r)
            x += 3 * r
        return 3 * r * len(shown) + self.panel_area.width * 0.02

    def update(self, round) -> None:
        """A listener after the lights: redraw the panel when a light changed (a cue's pulse, the clock)."""
        lights = self.lights()
        if lights != getattr(self, "_lit", None):
            self._lit = lights
            self.draw_panel()

    def press(self, button: str, down: bool) -> None:
        """Drive the button's fake pin: low while pressed (the buttons pull up)."""
        if down == (button in self.down):
            return
        pin = self.device.pins.pin(button)
        if down:
            pending = self._releases.pop(button, None)
            if pending is not None:
                pending.cancel()  # pressed again before a held-back release: one press goes on
            self.down.add(button)
            self._pressed_at[button] = self.clock()
            pin.drive_low()
        else:
            self.down.discard(button)
            held = self.clock() - self._pressed_at.get(button, -math.inf)
            if held < self.min_contact:
                self._releases[button] = self.later(self.min_contact - held, pin.drive_high)
            else:
                pin.drive_high()
        self.draw_panel()

    def handle_event(self, event) -> None:
        """A window event: keys and clicks drive the fake pins; Esc or closing the window quits."""
        pygame = self._pygame
        if event.type == pygame.QUIT:
            self.quit = True
        elif event.type in (pygame.KEYDOWN, pygame.KEYUP):
            name = pygame.key.name(event.key)
            if event.type == pygame.KEYDOWN and name in ("escape", "q"):
                self.quit = True
            elif name in KEYS and KEYS[name] in self.buttons:  # only the buttons the mode uses
                self.press(KEYS[name], event.type == pygame.KEYDOWN)
        elif event.type == pygame.MOUSEBUTTONDOWN and event.button == 1:
            for button, rect in self.buttons.items():
                if rect.collidepoint(event.pos):
                    self._mouse_button = button
                    self.press(button, True)
        elif event.type == pygame.MOUSEBUTTONUP and event.button == 1 and self._mouse_button:
            self.press(self._mouse_button, False)
            self._mouse_button = None
        elif event.type == pygame.WINDOWEXPOSED:
            self.draw_panel()

    def run(self) -> None:
        """Run until the window is closed or Esc is pressed."""
        self.device.run(lambda round: self.quit)


class DealerCheckSimulator(Simulator):
    """The dealer check (``shotclock simulate --dealer-check``) in the simulator's window: the cues on the
    device's screen, the action key (A or space) on the panel driving the fake action pin, as at the table.

    :param seed: the cue moments' seed (None: fresh ones).
    :param out: where each cue's line goes (the log by default).
    """

    def __init__(self, config, clock=time.monotonic, size=None, pin_factory="mock", seed=None, out=None):
        from types import SimpleNamespace

        from shotclock.adapters.pins import make_pin_factory
        from shotclock.adapters.screen import Screen
        from shotclock.shell.dealer import DealerCheckRun, new_check, open_pins, reader_for
        from shotclock.shell.presenters import make_sound

        self._window(config, size, clock)
        self.screen = Screen(self.window_size, allow_nowhere="requested", caption="shotclock dealer check")
        self.player, _ = make_sound(config)
        self.run_check = DealerCheckRun(new_check(config, clock, seed), reader_for(config), clock, self.waker,
                                        show=self._show,
                                        sound=self.player, out=out or log.info, language=config.language)
        factory = make_pin_factory(pin_factory, clock=clock) if isinstance(pin_factory, str) else pin_factory
        self.device = SimpleNamespace(pins=open_pins(self.run_check, config, factory))  # what the panel drives
        self._panel()

    show_holds = False  # a hold means nothing in the check

    def _show(self, view) -> None:
        """The check's view on the device's screen; the panel's lights changed with it (a cue, a press)."""
        self.screen.show(view, self.screen_area)
        self.draw_panel()

    def hint(self) -> str:
        from shotclock.core import texts

        return texts.text(self.config.language, "dealer.ready")

    def update(self, round) -> None:  # no device loop here: the check's own lights
        pass

    def _layout(self):
        """One button: the dealer's action."""
        pygame = self._pygame
        w, h = self.panel_area.width * 0.5, self.panel_height * 0.68
        top = self.panel_area.top + self.panel_height * 0.06
        return {"action": pygame.Rect(int(self.panel_area.width * 0.25), int(top), int(w), int(h))}

    def run(self):
        """Run the check until it is done or the window closes; returns what it measured (and logs it)."""
        try:
            result = self.run_check.run(lambda: self.quit)
        finally:
            self.device.pins.close()
        log.info("dealer check: %s", result.summary(self.config.settings.tie_window))
        return result

    def close(self) -> None:
        """Close the window and the speaker."""
        if self.player is not None:
            self.player.close()
        self.screen.close()


class TerminalSimulator:
    """The simulator without a display: the screen as text, keys typed in the terminal.

    Lower-case keys tap a button (0.1 s); upper-case keys hold it 2.5 s (``F``, ``A``, ``B``, ``E``, ``S``).
    ``pin_factory`` is ``"mock"`` or the tests' own fake pin factory.
    """

    TAP, HOLD = 0.1, 2.5

    def __init__(self, config, out=sys.stdout, inp=sys.stdin, log_dir=None, pin_factory="mock"):
        from shotclock.shell.presenters import SoundPresenter, make_sound
        from shotclock.shell.presenters import display_for

        self.config = config
        self.out = out
        self.inp = inp
        self.presenter = TerminalPresenter(out, display_for(config), config.screen.visual_cues)
        player, problem = make_sound(config)  # the same speaker as the window, where there is one
        self.device = build_device(config, pin_factory, sound=[SoundPresenter(player)] if player else [],
                                   screens=[self.presenter], sound_problem=problem, log_dir=log_dir)
        self.quit = False

    def key(self, char: str) -> None:
        """Act on one typed character."""
        if char in ("q", "\x1b", "\x03", "\x04"):
            self.quit = True
            self.device.loop.waker.wake()
            return
        button = KEYS.get(char.lower())
        if button:
            hold = self.HOLD if char.isupper() else self.TAP
            threading.Thread(target=self._tap, args=(button, hold), daemon=True).start()

    def _tap(self, button, hold):
        pin = self.device.pins.pin(button)
        pin.drive_low()
        time.sleep(hold)
        pin.drive_high()

    def _read_keys(self):
        fd = self.inp.fileno() if hasattr(self.inp, "fileno") else None
        raw = fd is not None and os.isatty(fd)
        if raw:
            import termios
            import tty

            saved = termios.tcgetattr(fd)
            tty.setcbreak(fd)
        try:
            while not self.quit:
                char = os.read(fd, 1).decode(errors="ignore") if raw else self.inp.read(1)
                if not char:
                    self.key("q")
                    break
                self.key(char)
        finally:
            if raw:
                termios.tcsetattr(fd, termios.TCSADRAIN, saved)

    def run(self) -> None:
        """Run until ``q`` (or the end of input)."""
        threading.Thread(target=self._read_keys, daemon=True).start()
        self.device.run(lambda round: self.quit)


class TerminalPresenter(ViewFollower):
    """Writes the view as a few lines of text whenever it changes (a visual cue's pulse as ``***``)."""

    LEGEND = "keys: f floor · a action · b bet · e extend · s street (upper case: hold 2.5 s) · q quit"

    def __init__(self, out, display, visual_cues: bool = False):
        super().__init__(display, visual_cues)
        self.out = out
        self.last = None
        self.tty = hasattr(out, "isatty") and out.isatty()

    def render(self, view) -> str:
        """The text for a view."""
        bar = ""
        if view.progress is not None:
            filled = round(view.progress * 30)
            bar = "[" + "#" * filled + "." * (30 - filled) + "]"
        title = f" · {view.seat}" if view.seat else "" if view.title == self.display.table else f" · {view.title}"
        corner = f"   [{view.corner}]" if view.corner else ""
        lines = [f"shotclock · {self.display.table}{title}{corner}",
                 f"   {view.big:>4}  {bar}  {view.sub}".rstrip()]
        if view.info:
            lines.append(f"   {view.info}")
        lines += [f"   ! {f}" for f in view.faults]
        if view.hold:
            filled = round((view.hold_progress or 0) * 20)
            lines.append(f"   {view.hold}  [" + "=" * filled + " " * (20 - filled) + "]")
        lines.append(self.LEGEND)
        if view.tone == "flash":  # a visual cue's pulse
            lines[0] = "*** " + lines[0]
        return "\n".join(lines)

    def update(self, round) -> None:
        """Print the view when it changed."""
        view = self.view_for(round)
        if view != self.last:
            self.last = view
            clear = "\x1b[2J\x1b[H" if self.tty else "\n"
            self.out.write(clear + self.render(view) + "\n")
            self.out.flush()


def cmd_simulate(args) -> int:
    """``shotclock simulate``: a window, or the terminal view where no display opens."""
    from shotclock.shell.args import load_for

    config = load_for(args)
    players = seating_for(config, getattr(args, "seating", None))
    log_dir = log_dir_for(args)
    if getattr(args, "dealer_check", False):
        try:
            simulator = DealerCheckSimulator(config, out=print)
        except HardwareError as exc:
            raise HardwareError(f"{exc}: --dealer-check needs a window (at the table: shotclock selftest "
                                "--dealer)") from None
        try:
            result = simulator.run()
        finally:
            simulator.close()
        print(result.summary(config.settings.tie_window))
        return 0
    if not args.terminal:
        try:
            simulator = Simulator(config, log_dir=log_dir)
        except HardwareError as exc:
            log.warning("no window (%s): using the terminal view", exc)
        else:
            seat_players(simulator.device, players)
            log.info("simulator window open: keys F A B E S (hold F or S for 2 s), Esc quits")
            simulator.run()
            return 0
    terminal = TerminalSimulator(config, log_dir=log_dir)
    seat_players(terminal.device, players)
    terminal.run()
    return 0


def seating_for(config, path: str | None) -> list[tuple[int, str]] | None:
    """The players of ``--seating FILE.csv``, checked against the table's seats before anything opens; None
    without it. ShotclockError (one line) when the table tracks no seats or the file is wrong."""
    from shotclock.errors import ShotclockError
    from shotclock.shell.seatingcmd import read_seating

    if path is None:
        return None
    if not config.seats.track:
        raise ShotclockError("--seating needs seat tracking: a configuration with [seats] track = true "
                             "(try --config docs/examples/tempo-bank.toml)")
    return read_seating(path, config.seats.count)


def seat_players(device, players: list[tuple[int, str]] | None) -> None:
    """Seat the whole table as the floor's ``seating`` command does (recorded in the log as the simulator's)."""
    if players is None:
        return
    from shotclock.core.inputs import Command

    device.loop.post(Command(device.loop.clock(), "seating", id="simulate-seating", sender="simulator",
                             players=tuple(players)))
