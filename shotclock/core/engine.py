"""The clock engine: rule 29's clock call and the tour shot clock as a pure state machine.

Sans-I/O, in the style of h11: the engine never reads a clock. The caller hands it
timestamped :mod:`events <shotclock.core.events>` with :meth:`Engine.handle`, lets time pass
with :meth:`Engine.advance`, and asks :meth:`Engine.next_wake` when something will next
happen on its own (a countdown beep or the ruling at the end of the tie window).

Times inside are whole microseconds, so that ``0.1 + 30`` is exactly ``30.1`` and a tie at
0 is decided exactly, the same way on every machine.

Example::

    >>> from shotclock.core.events import Call
    >>> engine = Engine(Settings())
    >>> [o.record()["type"] for o in engine.handle(Call(0, facing_bet=True))]
    ['start']
    >>> engine.next_wake()
    25.0
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum
from typing import Protocol

from shotclock.core import events as ev
from shotclock.core.reasons import reason
from shotclock.core.settings import STREETS, Settings
from shotclock.errors import EventError

US = 1_000_000  # microseconds per second


class Phase(StrEnum):
    """Where the clock is. String-valued, so records, replay output and the floor network's
    messages keep saying ``"idle"``, ``"running"`` and ``"paused"``."""

    IDLE = "idle"  # no clock on
    RUNNING = "running"  # counting down (the tie window after 0 included)
    PAUSED = "paused"  # held by the floor or the dealer, with the time it had left


IDLE, RUNNING, PAUSED = Phase.IDLE, Phase.RUNNING, Phase.PAUSED


class Expire(ev.Event, tag="expire"):
    """The engine's own timer: the tie window after 0 closed. Never an input (replay has no such line)."""


EXPIRE = Expire.NAME


class TurnCorrected(ev.Event, tag="turn_corrected"):
    """The seat side's own event: the dealer corrected the turn while a clock ran; the clock becomes the right
    player's own (a new clock with its base time and bank), the time on the wrong seat is nobody's. Never an input."""


class EndQuietly(ev.Event, tag="end_quietly"):
    """The seat side's own event: the seat on the clock was emptied, or the table reseated (``by``): the clock
    ends quietly and is charged to nobody. Never an input."""

    by: str


INTERNAL = frozenset({EXPIRE, TurnCorrected.NAME, EndQuietly.NAME})  # the engine's own events: no replay line


class SeatSide(Protocol):
    """What the engine asks of the seats (seat tracking, :class:`~shotclock.core.seated.TableSeats`): whose each
    clock is and what bank it carries. The engine adds the bank as the clock's last part."""

    def clock_starts(self) -> tuple[int | None, int, int | None]:
        """A clock starts: (the seat it is for, the bank it carries in µs, 0 for none, and the player's own clock
        in µs that replaces the table's base time: a floor's ``clock`` mark; None: the table's rule)."""

    def clock_ends(self, outcome: str, left: int, by: str | None) -> tuple[int | None, float | None, float | None]:
        """The clock ends with ``outcome`` (``by``: why a cancelled one ended) and ``left`` µs on it: (its seat,
        the bank seconds it used, the bank seconds left), the bank charged."""


@dataclass(frozen=True)
class Transition:
    """What an event does in a phase: the engine method that carries it out, and the phase after."""

    do: str
    to: str

    @property
    def method(self) -> str:
        """The engine method's name."""
        return "_" + self.do


def _t(do: str, to: Phase) -> Transition:
    return Transition(do, to)


# The state machine as data, keyed by mode, phase and the event's class (as h11 keys its table by
# event type). An event missing from its phase's row is ignored with the reason given by
# ignore_reason(), and the state is left untouched. A method may still refuse (a bet that changes
# nothing, a street after the river), with the same effect.
TRANSITIONS: dict[str, dict[Phase, dict[type[ev.Event], Transition]]] = {
    "clock": {
        IDLE: {
            ev.Call: _t("start_clock", RUNNING),
            ev.Bet: _t("set_bet", IDLE),
            ev.Hand: _t("new_hand", IDLE),
            ev.Street: _t("next_street", IDLE),
        },
        RUNNING: {
            ev.Bet: _t("set_bet", RUNNING),
            ev.Action: _t("rule_acted", IDLE),
            ev.LastAction: _t("rule_acted", IDLE),
            ev.Pause: _t("pause", PAUSED),
            ev.Cancel: _t("cancel", IDLE),
            Expire: _t("rule_expired", IDLE),
            TurnCorrected: _t("restart_for_the_right_seat", RUNNING),
            EndQuietly: _t("end_quietly", IDLE),
        },
        PAUSED: {
            ev.Bet: _t("set_bet", PAUSED),
            ev.Action: _t("rule_acted", IDLE),
            ev.LastAction: _t("rule_acted", IDLE),
            ev.Resume: _t("resume", RUNNING),
            ev.Cancel: _t("cancel", IDLE),
            TurnCorrected: _t("restart_for_the_right_seat", RUNNING),
            EndQuietly: _t("end_quietly", IDLE),
        },
    },
    "shot": {
        IDLE: {
            ev.Bet: _t("set_bet", IDLE),
            ev.Hand: _t("new_hand", IDLE),
            ev.Street: _t("next_street", IDLE),
            ev.Start: _t("start_shot", RUNNING),
            ev.ResetChips: _t("reset_chips", IDLE),
        },
        RUNNING: {
            ev.Bet: _t("set_bet", RUNNING),
            ev.Action: _t("acted_next_player", RUNNING),
            ev.LastAction: _t("rule_acted", IDLE),
            ev.Pause: _t("pause", PAUSED),
            ev.Extend: _t("extend", RUNNING),
            ev.Undo: _t("undo", RUNNING),
            ev.Stop: _t("stop", IDLE),
            ev.Cancel: _t("cancel", IDLE),
            ev.Hand: _t("new_hand", IDLE),
            ev.Street: _t("next_street", IDLE),
            Expire: _t("rule_expired", IDLE),
            TurnCorrected: _t("restart_for_the_right_seat", RUNNING),
            EndQuietly: _t("end_quietly", IDLE),
        },
        PAUSED: {
            ev.Bet: _t("set_bet", PAUSED),
            ev.Action: _t("acted_next_player", RUNNING),
            ev.LastAction: _t("rule_acted", IDLE),
            ev.Resume: _t("resume", RUNNING),
            ev.Extend: _t("extend", PAUSED),
            ev.Undo: _t("undo", PAUSED),
            ev.Stop: _t("stop", IDLE),
            ev.Cancel: _t("cancel", IDLE),
            ev.Hand: _t("new_hand", IDLE),
            ev.Street: _t("next_street", IDLE),
            TurnCorrected: _t("restart_for_the_right_seat", RUNNING),
            EndQuietly: _t("end_quietly", IDLE),
        },
    },
}

def _event_names(mode: str) -> set[str]:
    return {event.NAME for row in TRANSITIONS[mode].values() for event in row} - INTERNAL


# The events only one mode takes (a clock-mode file fed to a shot table names them), from the table.
MODE_EVENTS = {"clock": _event_names("clock") - _event_names("shot"),
               "shot": _event_names("shot") - _event_names("clock")}


def ignore_reason(mode: str, phase: Phase, event: str, last: ev.Decision | None) -> str:
    """Why ``event`` changes nothing in ``phase`` of ``mode`` (a sentence for the floor)."""
    other = "shot" if mode == "clock" else "clock"
    if event in (ev.Mark.NAME, ev.Unmark.NAME):
        return reason("mark_seats_off", event=event)
    if event in ev.SEAT_EVENT_NAMES:
        return f"'{event}' needs seat tracking, which is off on this table (seats.track)"
    if event in MODE_EVENTS[other]:
        return f"'{event}' belongs to the {other} mode; this table runs the {mode} mode"
    if phase == IDLE:
        if last is not None and last.is_ruling and event in ("action", "last_action", "extend"):
            when = f"{ev.number(last.t)}"
            what = {"action": "an action after the ruling", "last_action": "an action after the ruling",
                    "extend": "an extension after the tie window closed"}
            return f"{what[event]} ({last.outcome} at t={when}) does not count"
        return "no clock is running"
    if event in ("call", "start"):
        return "a clock is already running" if phase == RUNNING else "the clock is paused: resume or cancel it"
    if event == "pause":
        return "the clock is already paused"
    if event == "resume":
        return "the clock is not paused"
    if mode == "clock" and event in ("hand", "street"):
        what = "a new street" if event == "street" else "a new hand"
        return f"a called clock ends with an action, a ruling or the floor's cancel, not with {what}"
    return f"'{event}' does nothing while the clock is {phase}"


class _Refused(Exception):
    """Raised by a transition method that finds the event changes nothing."""


@dataclass(frozen=True)
class Snapshot:
    """What the engine knows at one moment: enough for a view, a log or a test to read.

    ``deadline`` is set while running, ``left`` while paused (both in seconds; ``left`` may be
    negative inside the tie window). ``seconds`` is the clock's length including extensions.
    ``extension_limit`` is the chips one decision may take (0: no limit); ``chips_left`` the chips the
    seat of this decision's last extension still holds (None when not tracked); ``undo_until`` until when
    the last extension can be taken back (None: nothing to undo).
    """

    mode: str
    phase: Phase
    facing_bet: bool
    street: str | None
    seconds: float | None
    deadline: float | None
    left: float | None
    tie_window: float
    countdown: int
    extensions: int
    last: ev.Decision | None
    now: float
    interrupted: bool = False
    extension_limit: int = 0
    chips_left: int | None = None
    undo_until: float | None = None
    last_shown: ev.Decision | None = None  # the last ruling or floor's cancel, until a street or a new hand
    seats: object = None  # with seat tracking: a shotclock.core.seats.SeatsView (the seat on the clock, names…)
    on_clock: int | None = None  # with seat tracking: the seat the running or paused clock is on
    notice: tuple[float, str, int] | None = None  # with seat tracking: (t, what, seat) of a refusal to show
    level: object = None  # a level was set: the table's shotclock.core.levels.LevelView (level, hand of the level)
    hand_for_hand: object = None  # a shotclock.core.handforhand.HandForHandView while the floor plays hand-for-hand
    rule_set: object = None  # a shotclock.core.rulesets.RuleSetView while a named rule set runs or waits
    tournament_break: object = None  # a shotclock.core.following.BreakView while the tournament is on a break

    def remaining(self, now: float) -> float | None:
        """Seconds left to 0 at ``now`` (never negative), or None when no clock is on."""
        if self.phase == RUNNING:
            return max(0.0, self.deadline - now)
        if self.phase == PAUSED:
            return max(0.0, self.left)
        return None

    @property
    def consequence(self) -> str:
        """The ruling if time runs out (:func:`consequence`)."""
        return consequence(self.facing_bet)

    def in_countdown(self, now: float) -> bool:
        """True while the clock runs in its countdown at ``now`` (:func:`in_countdown`): the screen and the LEDs ask."""
        return self.phase == RUNNING and in_countdown(self.remaining(now), self.countdown)


def consequence(facing_bet: bool) -> str:
    """The ruling if time runs out (rule 29): ``hand_dead`` when a bet is faced, else ``check``."""
    return ev.HAND_DEAD if facing_bet else ev.CHECK


def in_countdown(remaining: float, countdown: int) -> bool:
    """A running clock is in its countdown (the urgent screen, the blinking LED) with ``countdown`` seconds or less
    left: from the moment the audible countdown begins (its first beep) to the ruling."""
    return remaining <= countdown


class Engine:
    """The clock for one table.

    :param settings: the mode and the rule settings (:class:`~shotclock.core.settings.Settings`).
    :param start: the time at which the engine's clock begins (seconds).

    Call :meth:`handle` for each event in time order; call :meth:`advance` when
    :meth:`next_wake` says something is due. Both return the outputs, in time order
    (at equal times, beeps before decisions).

    :attr:`last_started` is the ``start`` output of the clock the engine started last: the seat side (the
    :class:`~shotclock.core.seated.SeatedEngine` around it) finds the clock an event started by it, not by its
    place among the event's outputs.

    Example::

        >>> from shotclock.core.events import Action, Start
        >>> engine = Engine(Settings(mode="shot"))
        >>> out = engine.handle(Start(0)) + engine.handle(Action(5))
        >>> [o.TYPE for o in out], engine.last_started is out[-1], engine.last_started.t
        (['start', 'decision', 'start'], True, 5.0)
    """

    def __init__(self, settings: Settings, start: float = 0.0, seat_side: SeatSide | None = None):
        self.settings = settings
        self._seat_side = seat_side  # with seat tracking: whose each clock is, and its bank (None: no seats)
        self.mode = settings.mode
        self._now = _us(start)
        self.phase: Phase = IDLE
        self.facing_bet = self.mode == "shot"  # shot mode starts as a hand: facing the blinds
        self.street = STREETS[0] if self.mode == "shot" else None  # clock mode: known once the dealer says
        self._seconds = 0  # the clock's length, extensions included
        self._deadline = 0  # while RUNNING
        self._left = 0  # while PAUSED
        self._next_beep: int | None = None  # the next countdown number to sound
        self.extensions = 0
        self._chips: list[tuple[int, int | None]] = []  # this decision's extensions: (time, seat)
        self._used: dict[int, int] = {}  # extension chips used per seat, against shot.allowance
        self.last: ev.Decision | None = None
        self.last_shown: ev.Decision | None = None  # the last decision the screen shows (not a quiet end)
        # until a street or a new hand: the hand has moved on, and the screen with it
        self.interrupted = False  # a clock restored after a power cut, until resumed or ended
        # The clock the engine started last (its ``start`` output), for the seat side: the clock an event started
        # is found by this, never by its place among the event's outputs (SeatedEngine puts it after the turn line).
        self.last_started: ev.Started | None = None
        self._tune(settings)

    def _tune(self, settings: Settings) -> None:
        """Take the rule settings: the mode's rows of the table, the times, the countdown and the tie window."""
        self.settings = settings
        self.mode = settings.mode
        self._tie = _us(settings.tie_window)
        self._countdown = settings.countdown
        self._street_seconds = {street: settings.shot.seconds_for(street) for street in STREETS}
        # This mode's rows of TRANSITIONS with each method bound: phase -> event class -> (method, next phase)
        self._rows = {phase: {cls: (getattr(self, tr.method), tr.to) for cls, tr in row.items()}
                      for phase, row in TRANSITIONS[self.mode].items()}

    def retune(self, settings: Settings) -> None:
        """Play the next hand with ``settings`` (a new level's rules, :mod:`shotclock.core.rhythm`): only between
        hands, with no clock on (raises :class:`~shotclock.errors.EventError` otherwise, the state untouched).
        The chips each seat used are kept; the new allowance counts them."""
        if self.phase != IDLE:
            raise EventError(f"the rules change only between hands; a clock is {self.phase}")
        self._tune(settings)

    # -- the public interface ------------------------------------------------------

    def handle(self, event: ev.Event) -> list[ev.Output]:
        """Take one event and return what it caused (timers due before it come first).

        Raises :class:`~shotclock.errors.EventError` when the event's time lies before the
        engine's clock; the state is then untouched.
        """
        t = round(event.t * US)
        if t < self._now:
            raise EventError(
                f"event '{event.NAME}' at t={event.t} lies before the engine's clock "
                f"(t={self._now / US}); events must come in time order"
            )
        return self.handle_at(t, event)

    def handle_at(self, t: int, event: ev.Event) -> list[ev.Output]:
        """:meth:`handle` for an event at ``t`` µs, not before the engine's clock (the caller checked, as the
        :class:`~shotclock.core.seated.SeatedEngine` around it does: the time is worked out once per event)."""
        # The timers due by t first: beeps at t itself too, but a tie goes to the player: the ruling at the end
        # of the tie window waits until after an event at its time (_run_timers).
        if self.phase == RUNNING:
            beep = self._next_beep  # the next timer's time (_next_timer, written out: every event asks)
            if (self._deadline - beep * US if beep is not None else self._deadline + self._tie) <= t:
                out = self._run_timers(t, inclusive=False)
                self._now = t
                return out + self._apply(t, event) if out else self._apply(t, event)
        self._now = t
        return self._apply(t, event)

    def take_time(self, event: ev.Event) -> tuple[int, list[ev.Output]]:
        """Bring the engine's clock to ``event``'s time for a caller that handles the event in parts (the
        :class:`~shotclock.core.seated.SeatedEngine` around it): returns the time in µs (for :meth:`handle_at`)
        and the timers due before it (:meth:`catch_up`). Raises :class:`~shotclock.errors.EventError`, the
        state untouched, when the event's time lies before the engine's clock."""
        t = round(event.t * US)
        if t < self._now:
            self.handle(event)  # raises the error with its message
        if t == self._now:
            return t, []
        out = self._run_timers(t, inclusive=False) if self.phase == RUNNING else []
        self._now = t
        return t, out

    def advance(self, t: float, settle: float = 0.0, pending: float | None = None,
                hold: float | None = None) -> list[ev.Output]:
        """Let time pass to ``t`` (inclusive) and return the beeps and rulings that fell due.

        ``settle``: inputs may still arrive dated up to this much before ``t`` (a GPIO driver
        hands edges over a little late), so the engine's clock for events only moves to
        ``t - settle``, and the ruling at the end of the tie window waits until that clock
        passes it. Beeps do not wait. Every output keeps its exact time.

        ``pending``: an input dated this early is still being decided (a bounce window, a tap or
        a hold): the engine's clock for events does not pass it either.

        ``hold``: once no clock runs (after the timers due by ``t``), keep the engine's clock for
        events no later than this (nothing can fall due, so a late input keeps its own time).
        """
        us = _us(t)
        if us < self._now:
            return []
        limit = us - _us(settle)
        if pending is not None:
            limit = min(limit, _us(pending))
        out = self._run_timers(us, inclusive=True, settle=us - limit)
        if hold is not None and self.phase != RUNNING:
            limit = min(limit, _us(hold))
        self._now = max(self._now, limit)
        return out

    def catch_up(self, t: float) -> list[ev.Output]:
        """Let time pass to just before ``t``: the beeps and rulings due before it, for reading an input at ``t``.

        Timers due at ``t`` itself wait (a tie goes to the player). The engine's clock moves to
        ``t``, so a later event may not be dated before it.
        """
        us = round(t * US)
        if us <= self._now:
            return []
        out = self._run_timers(us, inclusive=False) if self.phase == RUNNING else []
        self._now = us
        return out

    def next_wake(self, settle: float = 0.0) -> float | None:
        """When the engine next has something to do by itself (seconds), or None (see ``advance``)."""
        due = self._next_timer()
        if due is None:
            return None
        return (due[0] + (_us(settle) if due[1] == EXPIRE else 0)) / US

    @property
    def now(self) -> float:
        """The engine's clock: the time of the last event or advance (seconds)."""
        return self._now / US

    @property
    def state(self) -> Snapshot:
        """A frozen snapshot of the engine's state."""
        running = self.phase == RUNNING
        paused = self.phase == PAUSED
        return Snapshot(
            mode=self.mode,
            phase=self.phase,
            facing_bet=self.facing_bet,
            street=self.street,
            seconds=self._seconds / US if (running or paused) else None,
            deadline=self._deadline / US if running else None,
            left=self._left / US if paused else None,
            tie_window=self._tie / US,
            countdown=self._countdown,
            extensions=self.extensions,
            last=self.last,
            last_shown=self.last_shown,
            now=self._now / US,
            interrupted=self.interrupted,
            extension_limit=self.settings.shot.extension_limit if self.mode == "shot" else 0,
            chips_left=self._chips_left(self._chips[-1][1]) if (running or paused) and self._chips else None,
            undo_until=(self._chips[-1][0] + _us(self.settings.shot.undo_seconds)) / US
            if (running or paused) and self._chips else None,
        )

    def restore_paused(self, t: float, remaining: float, facing_bet: bool, street: str | None,
                       extensions: int = 0, seconds: float | None = None) -> None:
        """Bring back a clock that was cut off (power cut) as paused with ``remaining`` seconds.

        ``seconds`` is the clock's whole length (for the ring), extensions included. The engine
        never rules on such a clock by itself: the floor resumes or cancels it.
        """
        self._now = max(self._now, _us(t))
        self.phase = PAUSED
        self.facing_bet = facing_bet
        if street is not None:
            self.street = street
        self._left = _us(remaining)
        self._seconds = max(self._left, _us(seconds or 0), 0)
        self.extensions = extensions
        self.interrupted = True
        self._next_beep = self._first_beep(self._left)

    @property
    def deadline_us(self) -> int | None:
        """When the running clock reaches 0 (µs on the engine's clock; None unless running)."""
        return self._deadline if self.phase == RUNNING else None

    @property
    def left_us(self) -> int | None:
        """The time the running or paused clock has left now (µs; negative in the tie window; None: no clock)."""
        return self._left_at(self._now) if self.phase != IDLE else None

    def add_time(self, seconds: float) -> float:
        """Make the running or paused clock ``seconds`` longer (a player's bank topped up while it runs); returns
        the seconds left after it."""
        return self._add_time(_us(seconds)) / US

    def give_chips(self, seats, chips: int) -> None:
        """Give each of ``seats`` ``chips`` more extension chips (the floor's top-up; may go past the allowance)."""
        for seat in seats:
            self._used[seat] = self._used.get(seat, 0) - chips

    def set_chips(self, seat: int, chips: int | None) -> None:
        """``seat`` holds ``chips`` extension chips (a player moved in with them); None: the full allowance."""
        self._used.pop(seat, None)
        if chips is not None:
            self._used[seat] = self.settings.shot.allowance - chips

    def chips_refusal(self) -> str | None:
        """Why this table takes no seat's count of extension chips (a player seated with chips, a top-up of chips),
        or None: it counts them (``shot.allowance``)."""
        return None if self.settings.shot.allowance else reason("no_chips")

    def chips_used(self) -> dict[int, int]:
        """Extension chips used per seat (negative: topped up past the allowance)."""
        return dict(self._used)

    def restore_chips(self, used: dict[int, int]) -> None:
        """Bring back the extension chips each seat had used before a restart (from the log)."""
        self._used = {int(seat): int(n) for seat, n in used.items() if n > 0}

    # -- timers --------------------------------------------------------------------

    def _next_timer(self) -> tuple[int, str] | None:
        if self.phase != RUNNING:
            return None
        if self._next_beep is not None:
            return self._deadline - self._next_beep * US, "beep"
        return self._deadline + self._tie, EXPIRE

    def _run_timers(self, t: int, inclusive: bool, settle: int = 0) -> list[ev.Output]:
        out: list[ev.Output] = []
        # The timers of _next_timer, written out: this runs before every event (replay's hot path).
        while self.phase == RUNNING:
            beep = self._next_beep
            if beep is not None:
                when = self._deadline - beep * US
                if when > t:
                    break
                out.append(ev.Beep(when / US, beep))
                self._next_beep = beep - 1 if beep > 0 else None
            else:
                when = self._deadline + self._tie
                if not (when < t - settle or (inclusive and when <= t - settle)):
                    break
                self._now = max(self._now, when)
                out.extend(self._apply(when, Expire(when / US)))
        return out

    def _first_beep(self, left: int) -> int | None:
        """The first countdown number still ahead with ``left`` µs to 0."""
        if left < 0:
            return None
        return min(self._countdown, left // US)

    # -- applying the table --------------------------------------------------------

    def _apply(self, t: int, event: ev.Event) -> list[ev.Output]:
        transition = self._rows[self.phase].get(event.__class__)
        if transition is None:
            return [ev.Ignored(t / US, event.NAME, ignore_reason(self.mode, self.phase, event.NAME, self.last))]
        method, to = transition
        try:
            out = method(t, event)
        except _Refused as refusal:
            return [ev.Ignored(t / US, event.NAME, str(refusal))]
        self.phase = to
        return out

    def _start(self, t: int, seconds: float, street: str | None) -> ev.Started:
        seat, bank, own = self._seat_side.clock_starts() if self._seat_side is not None else (None, 0, None)
        if own is not None:  # a marked player's own clock replaces the table's time (their bank still follows)
            seconds = own / US
        self._seconds = round(seconds * US) + bank  # a player's time bank is the last part of the same clock
        self._deadline = t + self._seconds
        self._next_beep = min(self._countdown, self._seconds // US) if self._seconds >= 0 else None  # _first_beep
        self.extensions = 0
        self._chips = []
        mark = None if own is None else "clock"
        if bank:
            started = self.last_started = ev.Started(t / US, seconds + bank / US, street, seat, bank / US, mark)
        else:
            started = self.last_started = ev.Started(t / US, seconds, street, seat, None, mark)
        return started

    def _decide(self, t: int, outcome: str, remaining: float | None = None, at_zero: bool | None = None,
                by: str | None = None) -> ev.Decision:
        if self._seat_side is None:
            seat = used = left = None
        else:
            seat, used, left = self._seat_side.clock_ends(outcome, self._left_at(t), by)
        self.last = ev.Decision(t / US, outcome, remaining, at_zero, by, seat, used, left)
        if by not in ev.QUIET_ENDS:  # not a quiet end (Decision.quiet)
            self.last_shown = self.last
        self._next_beep = None
        self.interrupted = False
        return self.last

    def _left_at(self, t: int) -> int:
        return self._deadline - t if self.phase == RUNNING else self._left

    # -- the transitions named in TRANSITIONS ---------------------------------------

    def _start_clock(self, t, event: ev.Call):
        if event.facing_bet is not None:
            self.facing_bet = event.facing_bet
        return [self._start(t, self.settings.clock.seconds, None)]

    def _start_shot(self, t, event):
        return [self._start(t, self._street_seconds[self.street], self.street)]

    def _set_bet(self, t, event: ev.Bet):
        if event.facing_bet == self.facing_bet:
            state = "already facing a bet" if self.facing_bet else "already not facing a bet"
            raise _Refused(f"the player is {state}")
        self.facing_bet = event.facing_bet
        return []

    def _rule_acted(self, t, event):
        left = self._left_at(t)
        return [self._decide(t, ev.ACTED, remaining=max(0, left) / US, at_zero=left <= 0)]

    def _acted_next_player(self, t, event):
        left = self._deadline - t if self.phase == RUNNING else self._left  # (_rule_acted, written out: hot path)
        return [self._decide(t, ev.ACTED, max(0, left) / US, left <= 0),
                self._start(t, self._street_seconds[self.street], self.street)]

    def _rule_expired(self, t, event):
        return [self._decide(t, ev.HAND_DEAD if self.facing_bet else ev.CHECK)]

    def _restart_for_the_right_seat(self, t, event):
        # The extension chips this clock took are given back: the clock was nobody's.
        for _, seat in self._chips:
            if seat is not None and seat in self._used:
                self._used[seat] -= 1
        base = self.settings.clock.seconds if self.mode == "clock" else self._street_seconds[self.street]
        return [self._decide(t, ev.CANCELLED, by=ev.BY_TURN), self._start(t, base, self.street if self.mode == "shot"
                                                                         else None)]

    def _end_quietly(self, t, event: EndQuietly):
        return [self._decide(t, ev.CANCELLED, by=event.by)]

    def _cancel(self, t, event, by: str = ev.BY_FLOOR):
        return [self._decide(t, ev.CANCELLED, by=by)]

    def _stop(self, t, event):
        return self._cancel(t, event, ev.BY_STOP)

    def _pause(self, t, event):
        self._left = self._deadline - t
        return [ev.Paused(t / US, max(0, self._left) / US)]

    def _resume(self, t, event):
        self.interrupted = False
        self._deadline = t + self._left
        return [ev.Resumed(t / US, max(0, self._left) / US)]

    def _chips_left(self, seat: int | None) -> int | None:
        allowance = self.settings.shot.allowance
        if not allowance or seat is None:
            return None
        # Never below 0: a restart may restore more chips used than an allowance lowered since.
        return max(0, allowance - self._used.get(seat, 0))

    def _add_time(self, us: int) -> int:
        """Add ``us`` (may be negative) to the running or paused clock; returns the time left after it."""
        if self.phase == RUNNING:
            self._deadline += us
        else:
            self._left += us
        self._seconds += us
        left = self._left_at(self._now)
        self._next_beep = self._first_beep(left)
        return left

    def _extend(self, t, event: ev.Extend):
        shot = self.settings.shot
        if shot.extension_limit and self.extensions >= shot.extension_limit:
            raise _Refused(f"this decision has had its {shot.extension_limit} extensions (shot.extension_limit)")
        seat = event.seat
        chips = self._chips_left(seat)
        if chips is not None and chips <= 0:
            raise _Refused(f"seat {seat} has used all {shot.allowance} of its extension chips")
        if shot.allowance and seat is not None:
            self._used[seat] = self._used.get(seat, 0) + 1
        ext = _us(shot.extension)
        left = self._add_time(ext)
        self.extensions += 1
        self._chips.append((t, seat))
        return [ev.Extended(t / US, ext / US, max(0, left) / US, seat, self._chips_left(seat))]

    def _undo(self, t, event):
        shot = self.settings.shot
        if not self._chips:
            raise _Refused("this decision has no extension to take back")
        when, seat = self._chips[-1]
        if t - when > _us(shot.undo_seconds):
            raise _Refused(f"the last extension was {ev.number((t - when) / US)} s ago; "
                           f"it can be taken back for {ev.number(shot.undo_seconds)} s (shot.undo_seconds)")
        ext = _us(shot.extension)
        if self._left_at(t) - ext <= 0:
            raise _Refused("taking the extension back would leave no time on the clock")
        left = self._add_time(-ext)
        self.extensions -= 1
        self._chips.pop()
        if seat is not None and seat in self._used:
            self._used[seat] -= 1
        return [ev.Undone(t / US, ext / US, left / US)]

    def _reset_chips(self, t, event):
        allowance = self.settings.shot.allowance
        if not allowance:
            raise _Refused("no extension allowance is set (shot.allowance)")
        self._used.clear()
        return [ev.ChipsReset(t / US, allowance)]

    def _new_hand(self, t, event):
        # A new street or hand ends a running clock quietly: that is the flow of the hand, not a cancel.
        out = self._cancel(t, event, ev.BY_HAND) if self.phase != IDLE else []
        self.last_shown = None  # the table has moved on: the screen no longer shows the last decision
        self.street = STREETS[0]
        self.facing_bet = True  # the blinds are a bet
        if self.settings.shot.allowance_reset == "hand":
            self._used.clear()
        return out

    def _next_street(self, t, event):
        index = STREETS.index(self.street) if self.street else 0
        if index + 1 == len(STREETS):
            raise _Refused("there is no street after the river; start a new hand")
        out = self._cancel(t, event, ev.BY_STREET) if self.phase != IDLE else []
        self.last_shown = None
        self.street = STREETS[index + 1]
        self.facing_bet = False
        return out


def _us(seconds: float) -> int:
    return round(seconds * US)


def transition_table_markdown() -> str:
    """The transition table as Markdown, one table per mode (used in docs/rules.md)."""
    lines = []
    for mode, phases in TRANSITIONS.items():
        lines += [f"### {mode} mode", "", "| phase | event | does | next phase |", "|---|---|---|---|"]
        for phase, row in phases.items():
            for event, tr in row.items():
                lines.append(f"| {phase} | `{event.NAME}` | {tr.do.replace('_', ' ')} | {tr.to} |")
        lines.append("")
    return "\n".join(lines)
