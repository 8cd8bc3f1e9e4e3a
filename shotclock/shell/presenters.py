"""Listeners that show each round on the screen and play it through the speaker."""

from __future__ import annotations

import dataclasses
import logging

from shotclock.core.cues import RULING, Cues, cue_of
from shotclock.core.view import Display, last_fold, next_change, view_at
from shotclock.errors import HardwareError

log = logging.getLogger("shotclock.presenters")


def display_for(config) -> Display:
    """The screen's fixed settings from a configuration."""
    return Display(table=config["table"], language=config["language"],
                   last_ruling_seconds=config["screen.last_ruling_seconds"], label=config["label"])


class SoundPresenter:
    """Plays the countdown (voice or ticks), the tone at 0 and the ruling tone."""

    def __init__(self, player):
        self.player = player

    def update(self, round) -> None:
        """Play this round's beeps and rulings, as soon as the loop has them."""
        for out in round.outputs:
            if out.TYPE == "beep":
                self.player.beep(out.remaining)
            elif out.TYPE == "decision" and cue_of(out) == RULING:  # the rulings the visual cues flash for
                self.player.ruling()
            elif out.TYPE == "bank" and hasattr(self.player, "cue"):  # a player without one stays silent
                self.player.cue()

    def close(self) -> None:
        """Release the audio device."""
        self.player.close()


class ViewFollower:
    """What a screen shows, round by round: the view model for each round (with the last fold, the visual
    cue's pulse and the floor network's corner mark) and when it will next change by itself. The window's,
    the Pi's and the terminal's presenters share it.

    ``visual_cues``: the view flashes with each cue (:mod:`shotclock.core.cues`), timed by the outputs."""

    def __init__(self, display: Display, visual_cues: bool = False):
        self.display = display
        self.cues = Cues() if visual_cues else None
        self._state = None
        self._holds = ()
        self._fold = None
        self._corner = lambda: ""

    def set_corner(self, mark) -> None:
        """Show ``mark()`` (the floor network's small mark, see shell/network.py) in a corner of each frame."""
        self._corner = mark

    def view_for(self, round):
        """The view for this round."""
        self._state, self._holds = round.state, round.holds
        self._fold = last_fold(round.outputs, self._fold)
        cue = ""
        if self.cues is not None:
            self.cues.take(round.outputs)
            cue = self.cues.lit(round.now)
        view = view_at(round.state, round.now, self.display, round.faults, round.holds, self._fold, cue)
        corner = self._corner()
        return dataclasses.replace(view, corner=corner) if corner else view

    def next_wake(self, now: float) -> float | None:
        """When the view will next change by itself (a second, a ring step, a ruling fading, a cue's pulse)."""
        if self._state is None:
            return None
        wakes = [next_change(self._state, now, self.display, self._holds, self._fold),
                 self.cues.next_change(now) if self.cues is not None else None]
        wakes = [w for w in wakes if w is not None]
        return min(wakes) if wakes else None


class ScreenPresenter(ViewFollower):
    """Draws the view model; redraws only when the view changes, and asks to be woken when it will."""

    def __init__(self, screen, display: Display, area=None, visual_cues: bool = False):
        super().__init__(display, visual_cues)
        self.screen = screen
        self.area = area
        self.view_shown = None
        self.frames = 0

    def update(self, round) -> None:
        """Draw the view for this round if it differs from what is on screen."""
        view = self.view_for(round)
        if view != self.view_shown:
            self.screen.show(view, self.area)
            self.view_shown = view
            self.frames += 1

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
    if not config["sound.enabled"]:
        return None, None
    from shotclock.adapters.sound import SoundPlayer

    try:
        player = SoundPlayer(config["language"], config["sound.voice"], config["sound.volume"],
                             device=config["sound.device"])
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
    listeners.append(ScreenPresenter(screen, display_for(config), area, visual_cues=config["screen.visual_cues"]))
    return Presenters(listeners, problem, screen)
