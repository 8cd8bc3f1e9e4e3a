"""The device's lights: the running and bet LEDs, the buzzer where no speaker plays, the strobe of the visual
cues, driven from each round of the loop."""

from __future__ import annotations

from shotclock.adapters.pins import TablePins
from shotclock.core.cues import Cues
from shotclock.core.engine import IDLE


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
