"""Visual cues: when the screen flashes, the running LED blinks and the strobe pin is high.

TDA Rule 9 (special needs): a deaf or hard-of-hearing player cannot hear the countdown, so with
``[display] visual_cues`` the device shows what the speaker says. Every cue follows an output the
engine already gives -- a countdown beep, the bank's start, a ruling -- dated at that output's own
time, never at the moment a frame happens to be drawn. A cue is a short, bounded series of pulses:
the strobe pin (a strobe light or a vibrating puck) is never left high.

Pure like the rest of the core: :meth:`Cues.take` is handed the outputs, :meth:`Cues.lit` says
whether a pulse is on at a moment, :meth:`Cues.next_change` when that will next change.

Example::

    >>> from shotclock.core.events import Beep
    >>> cues = Cues()
    >>> cues.take([Beep(t=25.0, remaining=5)])
    >>> cues.lit(25.1), cues.lit(25.5), cues.next_change(25.1)
    ('tick', '', 25.3)
"""

from __future__ import annotations

from dataclasses import dataclass

from shotclock.core.events import CHECK, HAND_DEAD, Output

TICK, BANK, RULING = "tick", "bank", "ruling"

#: Each cue's pulses as (start, end) offsets from the output's time, in seconds. A countdown second
#: flashes once (well inside its second, so the seconds stay apart); the bank's start twice; a ruling
#: three times. The longest cue ends 1.3 s after its output.
PULSES: dict[str, tuple[tuple[float, float], ...]] = {
    TICK: ((0.0, 0.3),),
    BANK: ((0.0, 0.25), (0.45, 0.7)),
    RULING: ((0.0, 0.3), (0.5, 0.8), (1.0, 1.3)),
}
#: The rulings the speaker sounds (time ran out): the same outputs give a visual ruling cue.
SOUNDED_RULINGS = frozenset({HAND_DEAD, CHECK})


def cue_of(output: Output) -> str | None:
    """The cue an engine output gives (``tick``, ``bank``, ``ruling``), or None.

    A countdown beep (its last one, at 0, included) is a tick; a time bank starting is ``bank``;
    a decision the speaker sounds (``hand_dead``, ``check``) is a ruling.
    """
    kind = output.TYPE
    if kind == "beep":
        return TICK
    if kind == "bank":
        return BANK
    if kind == "decision" and output.outcome in SOUNDED_RULINGS:
        return RULING
    return None


@dataclass(frozen=True)
class Pulse:
    """One pulse of a cue: on from ``start`` to ``end`` (seconds, the engine's clock)."""

    start: float
    end: float
    cue: str


class Cues:
    """The pulses still to come or on, from the outputs handed in (see the module's docstring)."""

    def __init__(self):
        self.pulses: list[Pulse] = []

    def take(self, outputs) -> None:
        """Add the pulses of each output's cue, dated at the output's own time (outputs come in time order:
        a pulse over before the latest output's time is forgotten)."""
        for out in outputs:
            cue = cue_of(out)
            if cue is not None:
                self.pulses = [p for p in self.pulses if p.end > out.t]
                self.pulses += [Pulse(out.t + a, out.t + b, cue) for a, b in PULSES[cue]]
        self.pulses.sort(key=lambda p: p.start)

    def lit(self, now: float) -> str:
        """The cue whose pulse is on at ``now`` (the latest started one), or ""."""
        on = [p for p in self.pulses if p.start <= now < p.end]
        return on[-1].cue if on else ""

    def next_change(self, now: float) -> float | None:
        """The next moment after ``now`` a pulse starts or ends (None: nothing to come)."""
        times = [t for p in self.pulses for t in (p.start, p.end) if t > now]
        return min(times) if times else None
