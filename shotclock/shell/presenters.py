"""Listeners that show each round on the screen and play it through the speaker."""

from __future__ import annotations

import dataclasses
import logging

from shotclock.core.events import CHECK, HAND_DEAD
from shotclock.core.view import Display, next_change, view_at
from shotclock.errors import HardwareError

log = logging.getLogger("shotclock.presenters")


def display_for(config) -> Display:
    """The screen's fixed settings from a configuration."""
    return Display(table=config.table, language=config.language,
                   last_ruling_seconds=config.screen.last_ruling_seconds, label=config.label)


class SoundPresenter:
    """Plays the countdown (voice or ticks), the tone at 0 and the ruling tone."""

    def __init__(self, player):
        self.player = player

    def update(self, round) -> None:
        """Play this round's beeps and rulings, as soon as the loop has them."""
        for out in round.outputs:
            if out.TYPE == "beep":
                self.player.beep(out.remaining)
            elif out.TYPE == "decision" and out.outcome in (HAND_DEAD, CHECK):
                self.player.ruling()
            elif out.TYPE == "bank" and hasattr(self.player, "cue"):  # a player without one stays silent
                self.player.cue()

    def close(self) -> None:
        """Release the audio device."""
        self.player.close()


class ScreenPresenter:
    """Draws the view model; redraws only when the view changes, and asks to be woken when it will."""

    def __init__(self, screen, display: Display, area=None):
        self.screen = screen
        self.display = display
        self.area = area
        self.view = None
        self._state = None
        self._holds = ()
        self.frames = 0
        self._corner = lambda: ""

    def set_corner(self, mark) -> None:
        """Show ``mark()`` (the floor network's small mark, see shell/network.py) in a corner of each frame."""
        self._corner = mark

    def update(self, round) -> None:
        """Draw the view for this round if it differs from what is on screen."""
        self._state, self._holds = round.state, round.holds
        view = view_at(round.state, round.now, self.display, round.faults, round.holds)
        corner = self._corner()
        if corner:
            view = dataclasses.replace(view, corner=corner)
        if view != self.view:
            self.screen.show(view, self.area)
            self.view = view
            self.frames += 1

    def next_wake(self, now: float) -> float | None:
        """When the view will next change by itself (a second, a ring step, a ruling fading)."""
        return None if self._state is None else next_change(self._state, now, self.display, self._holds)

    def close(self) -> None:
        """Close the display."""
        self.screen.close()


class Presenters:
    """The screen and sound listeners, and whether sound works."""

    def __init__(self, listeners, sound_problem: str | None, screen=None):
        self.listeners = listeners
        self.sound_problem = sound_problem
        self.screen = screen

    @property
    def sound_ok(self) -> bool:
        """True when the speaker plays (else the buzzer takes over)."""
        return self.sound_problem is None

    def parts(self) -> dict:
        """The keyword arguments :func:`~shotclock.shell.device.build_device` takes for these presenters."""
        return {"sound": [l for l in self.listeners if isinstance(l, SoundPresenter)],
                "screens": [l for l in self.listeners if not isinstance(l, SoundPresenter)],
                "sound_problem": self.sound_problem}


def make_sound(config) -> tuple[object | None, str | None]:
    """(player, problem): the sound player, or why there is none."""
    if not config.sound.enabled:
        return None, None
    from shotclock.adapters.sound import SoundPlayer

    try:
        player = SoundPlayer(config.language, config.sound.voice, config.sound.volume,
                             device=config.sound.device)
    except HardwareError as exc:
        log.warning("running silently: %s", exc)
        return None, str(exc)
    log.info("audio driver '%s'", player.driver)
    return player, None


def build_presenters(config, fullscreen: bool, allow_nowhere=False, size=None, area=None,
                     caption="shotclock") -> Presenters:
    """The screen (a window, or fullscreen on the Pi) and the speaker.

    ``allow_nowhere`` is passed to :class:`~shotclock.adapters.screen.Screen`.
    """
    from shotclock.adapters.screen import Screen

    screen = Screen(size or config.screen_size, fullscreen, allow_nowhere=allow_nowhere, caption=caption)
    listeners = []
    player, problem = make_sound(config)
    if player:
        listeners.append(SoundPresenter(player))
    listeners.append(ScreenPresenter(screen, display_for(config), area))
    return Presenters(listeners, problem, screen)
