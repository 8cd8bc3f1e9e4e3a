"""The dealer check: how late the dealer's press comes after a cue, measured before the day starts.

A ruling at 0 depends on when the dealer presses: the tie window (``clock.tie_window``) must cover
the time a dealer takes to see the clock reach 0 and press. The check gives a dozen cues at random
moments; the dealer presses the action button at each. A press is dated at its pin edge, so the
reaction time is the dealer's, not the device's. A press before its cue is counted as too early
(never as a reaction); a cue with no press within :data:`TIMEOUT` is counted as missed.

Pure: the moments come from a random generator handed in (seeded, so a check can be replayed),
presses and time are handed in; :meth:`DealerCheck.next_wake` says when it next needs waking.

Example::

    >>> import random
    >>> check = DealerCheck(schedule(random.Random(1), start=0.0, rounds=2))
    >>> [round(t, 2) for t in check.cues]
    [3.54, 9.93]
    >>> check.press(1.0), [what for what, i, t in check.advance(3.6)], check.press(3.9)
    ('early', ['cue'], 'reaction')
    >>> round(check.result().reactions[0], 3)
    0.363
"""

from __future__ import annotations

import statistics
from dataclasses import dataclass

ROUNDS = 12  # cues in a check
GAP = (3.0, 7.0)  # seconds between one cue and the next, drawn uniformly: the dealer cannot count them down
TIMEOUT = 2.0  # seconds after a cue in which a press is its reaction; later, the cue is missed
EARLY, REACTION, IGNORED = "early", "reaction", "ignored"


def schedule(rng, start: float, rounds: int = ROUNDS, gap: tuple[float, float] = GAP) -> tuple[float, ...]:
    """The cues' moments: ``rounds`` of them after ``start``, each ``gap`` seconds (drawn by ``rng.uniform``,
    e.g. a seeded ``random.Random``) after the one before."""
    t, cues = start, []
    for _ in range(rounds):
        t += rng.uniform(*gap)
        cues.append(t)
    return tuple(cues)


@dataclass(frozen=True)
class Result:
    """What a check measured: each cue's reaction time (None: missed) and the presses that came too early."""

    reactions: tuple[float | None, ...]
    early: int

    @property
    def times(self) -> list[float]:
        """The reaction times of the cues that got a press, in seconds."""
        return [r for r in self.reactions if r is not None]

    @property
    def missed(self) -> int:
        """Cues with no press within :data:`TIMEOUT`."""
        return sum(r is None for r in self.reactions)

    @property
    def median(self) -> float | None:
        """The median reaction time (None: no reaction at all)."""
        return statistics.median(self.times) if self.times else None

    @property
    def spread(self) -> tuple[float, float] | None:
        """The middle half of the reaction times: (first quartile, third quartile); None under two reactions."""
        if len(self.times) < 2:
            return None
        q1, _, q3 = statistics.quantiles(self.times, n=4, method="inclusive")
        return q1, q3

    def covered_by(self, tie_window: float) -> int:
        """How many reactions came within ``tie_window`` seconds of their cue."""
        return sum(r <= tie_window for r in self.times)

    def summary(self, tie_window: float) -> str:
        """One line for the floor: median, middle half, slowest, too early, missed, and the tie window's cover.

        Example::

            >>> Result((0.3, 0.25, 0.4, None), early=1).summary(0.5)
            'median 0.300 s, middle half 0.275-0.350 s, slowest 0.400 s; 3 of 4 cues answered, 1 missed, 1 too early; the tie window (0.5 s) covers 3 of 3'
        """
        if not self.times:
            return f"no press answered a cue: {self.missed} missed, {self.early} too early"
        parts = [f"median {self.median:.3f} s"]
        if self.spread:
            parts.append(f"middle half {self.spread[0]:.3f}-{self.spread[1]:.3f} s")
        parts.append(f"slowest {max(self.times):.3f} s")
        counts = f"{len(self.times)} of {len(self.reactions)} cues answered, {self.missed} missed, {self.early} too early"
        cover = f"the tie window ({tie_window:g} s) covers {self.covered_by(tie_window)} of {len(self.times)}"
        return ", ".join(parts) + f"; {counts}; {cover}"


class DealerCheck:
    """A dealer check over the cue moments ``cues`` (see :func:`schedule`); ``timeout`` is :data:`TIMEOUT`.

    Call :meth:`advance` when :meth:`next_wake` is due (it gives ``("cue", i, t)`` and ``("missed", i, t)``)
    and :meth:`press` with each press's edge time, in time order.
    """

    def __init__(self, cues: tuple[float, ...], timeout: float = TIMEOUT):
        self.cues = tuple(cues)
        self.timeout = timeout
        self.given = 0  # cues given so far
        self.reactions: list[float | None] = []  # one per cue given and closed (answered or missed)
        self.early = 0

    @property
    def done(self) -> bool:
        """Every cue was given and answered or missed."""
        return len(self.reactions) == len(self.cues)

    @property
    def waiting(self) -> bool:
        """A cue was given and waits for its press."""
        return self.given > len(self.reactions)

    def press(self, t: float) -> str:
        """A press at ``t`` (its edge): ``reaction`` to the cue given, ``early`` before one, ``ignored`` once done."""
        self.advance(t)
        if self.done:
            return IGNORED
        if self.waiting and t >= self.cues[len(self.reactions)]:  # an edge before its cue, taken late, is early
            self.reactions.append(t - self.cues[len(self.reactions)])
            return REACTION
        self.early += 1
        return EARLY

    def advance(self, now: float) -> list[tuple]:
        """Give the cues due by ``now`` and close those whose press did not come in time, in time order."""
        out = []
        while True:
            if self.waiting and self.cues[len(self.reactions)] + self.timeout <= now:
                i = len(self.reactions)
                self.reactions.append(None)
                out.append(("missed", i, self.cues[i] + self.timeout))
            elif not self.waiting and self.given < len(self.cues) and self.cues[self.given] <= now:
                out.append(("cue", self.given, self.cues[self.given]))
                self.given += 1
            else:
                return out

    def next_wake(self) -> float | None:
        """When the next cue is due or the cue given times out (None: done)."""
        if self.waiting:
            return self.cues[len(self.reactions)] + self.timeout
        return self.cues[self.given] if self.given < len(self.cues) else None

    def result(self) -> Result:
        """What was measured so far."""
        return Result(tuple(self.reactions), self.early)
