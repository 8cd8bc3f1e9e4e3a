"""The tournament clock, in pure code: one tournament's structure played on its own timeline.

A tournament does not run by the time of day: its clock stops for breaks that overrun, for hand-for-hand and for
the floor's adjustments. :class:`TournamentClock` is handed the floor's commands and the room's hand-for-hand state
as timestamped events (seconds on the clock process's own monotonic timeline) and says what changed, which stage is
in force and when it next needs waking, like the table's engine (sans-I/O: no time, no threads, no I/O here).

* ``start`` sets the clock running from the stage in force (the first, or the one a ``level`` jumped to);
  ``pause`` / ``resume`` stop and restart it; ``adjust`` adds (or, negative, takes) seconds to the stage in force;
  ``level`` jumps to a level's start with its whole time; ``next`` ends the stage in force now (a final table's
  level that ends by hands: the floor says its hands are played).
* When a timed stage's time is up the next stage begins at that very moment (the overshoot of a late wake-up is
  carried, never lost); after the last stage the clock stays on it, finished.
* Hand-for-hand (TDA RP-8) stops the clock while the room plays it, and every hand the floor releases takes its
  minutes (2 by default, at most 3) off the stage in force (from the next stages too, when it is longer). The
  room's count is taken whole (a clock that was away while hands were released takes them off when it is back),
  but hands released before the clock's start are not this tournament's.
* A level that ends by hands (``Stage.hands``) has no time: the clock waits on it for the floor's ``next`` (or a
  ``level``).
* ``restored`` is the clock process coming back after a crash or a power cut: it says how long it was away; the
  clock counted that time as played, as the tables played on, and the floor decides whether to add it back.

Every event names who sent it (``by``); every change is an output the clock's journal and the archive keep.

Example::

    >>> from shotclock.core.structure import Stage, Structure
    >>> s = Structure("Sunday", (Stage(20, 25, 50), Stage(5, is_break=True, name="color-up"), Stage(20, 50, 100)))
    >>> c = TournamentClock(s)
    >>> [o.why for o in c.handle(Start(0.0, "floor"))], c.next_wake
    (['started'], 1200.0)
    >>> [(o.why, o.index) for o in c.advance(1200.5)], c.view(1200.5).remaining
    ([('time', 1)], 299.5)
    >>> c.handle(Pause(1300.0, "floor"))[0].why, c.view(1400.0).remaining, c.next_wake
    ('paused', 200.0, None)
"""

from __future__ import annotations

import msgspec

from shotclock.core.handforhand import RP8_MINUTES
from shotclock.core.structure import Stage, Structure


class ClockEvent(msgspec.Struct, frozen=True, tag_field="event", tag="", omit_defaults=True):
    """A command to the tournament clock or news it takes: ``t`` on the clock's timeline, ``by`` who sent it."""

    t: float
    by: str = ""


class Start(ClockEvent, tag="start"):
    """Set the clock running (from the stage in force)."""


class Pause(ClockEvent, tag="pause"):
    """Stop the clock, keeping the time left."""


class Resume(ClockEvent, tag="resume"):
    """Restart a paused clock."""


class Adjust(ClockEvent, tag="adjust"):
    """Add ``seconds`` to the stage in force (negative: take them off; a stage ends at 0 at the least)."""

    seconds: float = 0.0


class GoToLevel(ClockEvent, tag="level"):
    """Jump to level ``level`` (breaks not counted) with its whole time, running or not as the clock was."""

    level: int = 1


class NextStage(ClockEvent, tag="next"):
    """End the stage in force now (a final table's level that ends by hands; a break cut short)."""


class RoomHandForHand(ClockEvent, tag="hand_for_hand"):
    """The room's hand-for-hand state (core/roomstate.py): ``on``, the ``hands`` released so far in the hand-for-hand
    that began at ``since_ms`` (its identity: a new one counts from 0) and the ``minutes`` each takes off the
    tournament clock (TDA RP-8)."""

    on: bool = False
    hands: int = 0
    minutes: float = RP8_MINUTES
    since_ms: int | None = None


class Restored(ClockEvent, tag="restored"):
    """The clock's process is back after ``away`` seconds (a crash, a power cut): counted as played."""

    away: float = 0.0


CLOCK_EVENTS = (Start, Pause, Resume, Adjust, GoToLevel, NextStage, RoomHandForHand, Restored)


class Change(msgspec.Struct, frozen=True, tag_field="type", tag="tournament", omit_defaults=True):
    """What changed on the tournament clock, for its journal, the archive and the pages.

    :param t: when (the clock's timeline).
    :param why: ``started``, ``paused``, ``resumed``, ``adjusted``, ``level`` (the floor jumped), ``time`` (a stage's
        time was up), ``next`` (the floor ended the stage), ``hand_for_hand`` (it began), ``released`` (hands taken
        off), ``hand_for_hand_ended``, ``restored``, ``finished`` (the last stage's time is up), ``loaded`` (the
        clock's process took a new structure, before the start).
    :param index: the stage in force after the change; ``level`` its level number (None: a break).
    :param remaining: the stage's time left after the change (seconds; None: a level that ends by hands).
    :param seconds: what was added or taken (adjusted, released: RP-8's time off, restored: the time away).
    :param by: who (a floor login, ``clock`` for a stage whose time was up, ``room`` for hand-for-hand).
    """

    t: float
    why: str
    index: int
    level: int | None = None
    remaining: float | None = None
    seconds: float | None = None
    by: str = ""


class ClockView(msgspec.Struct, frozen=True):
    """The clock as a page or a table shows it at one moment.

    :param index: the stage in force; ``stage`` it; ``level`` its number (None: a break).
    :param remaining: its time left (None: a level that ends by hands).
    :param running: the clock counts down now (started, not paused, not stopped by hand-for-hand, not finished).
    :param started: the floor started it.
    :param paused: the floor paused it.
    :param hand_for_hand: the room plays hand-for-hand (the clock stands still).
    :param finished: the last stage's time is up.
    :param next_index: the next stage (None: the last).
    :param to_break: seconds to the next break's start (None: no break ahead, or a level that ends by hands first).
    """

    index: int
    stage: Stage
    level: int | None
    remaining: float | None
    running: bool
    started: bool
    paused: bool
    hand_for_hand: bool
    finished: bool
    next_index: int | None
    to_break: float | None


class TournamentClock:
    """One tournament's clock (see the module's description). :param structure: the stages it plays."""

    def __init__(self, structure: Structure):
        self.structure = structure
        self.index = 0
        self.left = structure.stages[0].seconds  # the stage's time left at ``since`` (the clock's last change)
        self.since = 0.0
        self.started = False
        self.paused = False
        self.hand_for_hand = False
        self.period: int | None = None  # the hand-for-hand whose hands were taken off (its since_ms)
        self.hands_taken = 0  # the hands of that hand-for-hand already taken off
        self.finished = False

    # -- reading --------------------------------------------------------------------------------------------------

    @property
    def stage(self) -> Stage:
        """The stage in force."""
        return self.structure.stages[self.index]

    @property
    def running(self) -> bool:
        """The clock counts down now."""
        return self.started and not self.paused and not self.hand_for_hand and not self.finished and \
            not self.stage.hands

    def remaining(self, t: float) -> float | None:
        """The stage in force's time left at ``t`` (None: a level that ends by hands)."""
        if self.stage.hands:
            return None
        return max(0.0, self.left - (t - self.since)) if self.running else self.left

    @property
    def next_wake(self) -> float | None:
        """When the stage in force's time is up (None: the clock does not count down)."""
        return self.since + self.left if self.running else None

    def view(self, t: float) -> ClockView:
        """The clock at ``t`` (call :meth:`advance` first: a view does not move stages)."""
        stages = self.structure.stages
        remaining = self.remaining(t)
        nxt = self.index + 1 if self.index + 1 < len(stages) else None
        return ClockView(self.index, self.stage, self.structure.level_of(self.index), remaining, self.running,
                         self.started, self.paused, self.hand_for_hand, self.finished, nxt,
                         self._to_break(remaining))

    def _to_break(self, remaining: float | None) -> float | None:
        if self.stage.is_break or remaining is None:
            return None
        total = remaining
        for stage in self.structure.stages[self.index + 1:]:
            if stage.is_break:
                return total
            if stage.hands:
                return None
            total += stage.seconds
        return None

    # -- taking events ---------------------------------------------------------------------------------------------

    def advance(self, t: float) -> list[Change]:
        """Move the clock to ``t``: every stage whose time is up by then ends at its own moment."""
        out: list[Change] = []
        while self.running and self.since + self.left <= t:
            end = self.since + self.left
            if self.index + 1 >= len(self.structure.stages):
                self._settle(end)
                self.left = 0.0
                self.finished = True
                out.append(self._change(end, "finished", "clock"))
                break
            self._enter(self.index + 1, end)
            out.append(self._change(end, "time", "clock"))
        return out

    def handle(self, event: ClockEvent) -> list[Change]:
        """Take one event (after :meth:`advance` to its time): the changes it made (none: it changed nothing)."""
        t = event.t
        out = self.advance(t)
        cls = event.__class__
        if cls is Start:
            if self.started:
                return out
            self.started, self.paused, self.since = True, False, t
            out.append(self._change(t, "started", event.by))
        elif cls is Pause:
            if not self.started or self.paused or self.finished:
                return out
            self._settle(t)
            self.paused = True
            out.append(self._change(t, "paused", event.by))
        elif cls is Resume:
            if not self.paused:
                return out
            self._settle(t)
            self.paused = False
            out.append(self._change(t, "resumed", event.by))
        elif cls is Adjust:
            if self.stage.hands or not event.seconds:
                return out
            self._settle(t)
            before = self.left
            self.left = max(0.0, self.left + event.seconds)
            self.finished = self.finished and self.left == 0
            out.append(self._change(t, "adjusted", event.by, self.left - before))
            out += self.advance(t)
        elif cls is GoToLevel:
            index = self.structure.index_of_level(event.level)
            if index is None:
                return out
            self._enter(index, t)
            out.append(self._change(t, "level", event.by))
        elif cls is NextStage:
            if self.index + 1 >= len(self.structure.stages):
                return out
            self._enter(self.index + 1, t)
            out.append(self._change(t, "next", event.by))
        elif cls is RoomHandForHand:
            out += self._room(event)
        elif cls is Restored:
            out.append(self._change(t, "restored", event.by, event.away))
        return out

    def _room(self, event: RoomHandForHand) -> list[Change]:
        t, out, by = event.t, [], event.by or "room"
        if event.since_ms != self.period:  # another hand-for-hand than the one counted: its hands from 0
            self.period, self.hands_taken = event.since_ms, 0
        if not self.started:  # hands released before this tournament began (yesterday's, kept on the broker)
            self.hands_taken = event.hands  # are none of its own: its count starts from them
        if event.on and not self.hand_for_hand:
            self._settle(t)
            self.hand_for_hand = True
            out.append(self._change(t, "hand_for_hand", by))
        released = event.hands - self.hands_taken
        if released > 0:  # hands the clock has not taken off yet (also when it was away while they were played)
            self._settle(t)
            out += self._take_off(t, released * event.minutes * 60.0, by)
            self.hands_taken = event.hands
        if not event.on and self.hand_for_hand:
            self._settle(t)
            self.hand_for_hand = False
            out.append(self._change(t, "hand_for_hand_ended", by))
        return out

    def _take_off(self, t: float, seconds: float, by: str) -> list[Change]:
        """RP-8's time off: from the stage in force, and from the next timed stages when it is longer."""
        out, left = [], seconds
        while left > 0 and not self.stage.hands:
            taken = min(left, self.left)
            self.left -= taken
            left -= taken
            if self.left > 0 or self.index + 1 >= len(self.structure.stages):
                break
            self._enter(self.index + 1, t)
            out.append(self._change(t, "time", "clock"))
        out.append(self._change(t, "released", by, seconds - left))
        return out

    # -- inside -----------------------------------------------------------------------------------------------------

    def _settle(self, t: float) -> None:
        """Count the time run since the last change into ``left``; the clock's last change is now ``t``."""
        if self.running:
            self.left = max(0.0, self.left - (t - self.since))
        self.since = t

    def _enter(self, index: int, t: float) -> None:
        self.index = index
        self.left = self.structure.stages[index].seconds
        self.since = t
        self.finished = False

    def _change(self, t: float, why: str, by: str, seconds: float | None = None) -> Change:
        return Change(t, why, self.index, self.structure.level_of(self.index), self.remaining(t), seconds, by)
