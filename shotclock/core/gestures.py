"""The gesture map: which engine event a button gesture means, as data.

:data:`GESTURES` maps ``(button, gesture kind)`` to a row of ``(mode, phase) → event``;
``*`` matches any mode or phase, and the most exact entry wins. A gesture missing from
the map does nothing. To add a gesture, add an entry: there is no control flow to edit.

Every gesture that can change a ruling is dated at the press edge. A ``tap`` or ``hold`` is read
against the phase the clock was in at the button's *press* edge, so pressing the floor
button on a running clock pauses it at once (the press), and keeping it held then cancels
it (the hold) -- while a press that called a clock does not cancel it when held a little
long. A tap is known at the release but dated at the press; while a press is undecided the
table holds the engine's rulings (not its beeps) at that edge, so a tap is ruled exactly as if
it had acted on its press. The street button moves to the next street on its press; held, it
then starts a new hand.

========= =========================== ========================== =================================
button    press (at the press edge)   tap (dated at the press)   hold (2 s)
========= =========================== ========================== =================================
floor     idle: call; running: pause  paused: resume             running/paused: cancel;
                                                                 shot, idle: give chips back
action    action (shot, idle: start)  --                         shot: no more action (the clock
                                                                 the press started ends quietly)
bet       --                          toggle facing a bet        shot: pause / resume (the dealer
                                                                 counts a bet)
extend    --                          one extension chip         shot: take the last one back
street    next street                 --                         new hand
========= =========================== ========================== =================================

With seat tracking on (``seats.track``), :data:`SEAT_GESTURES` takes the place of entries above (holding
the action button folds the seat its press ruled for) and :data:`CHORDS` adds presses made while the bet
button is held (all-in, the turn one seat back or forward); off, nothing changes.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

from shotclock.core import events as ev
from shotclock.core.buttons import HOLD, PRESS, TAP, Gesture
from shotclock.core.engine import IDLE, PAUSED, RUNNING, TRANSITIONS, Phase, Snapshot

CLOCK, SHOT = "clock", "shot"
ANY = "*"

EventFor = Callable[[float, Snapshot], ev.Event]


def _plain(cls: type[ev.Event]) -> EventFor:
    make = lambda t, state: cls(t)
    make.__name__ = cls.NAME
    make.event = cls  # the class it makes, as the engine's table is keyed
    return make


def _toggle_bet(t: float, state: Snapshot) -> ev.Event:
    return ev.Bet(t, not state.facing_bet)


_toggle_bet.__name__ = "toggle bet"
_toggle_bet.event = ev.Bet

GESTURES: dict[tuple[str, str], dict[tuple[str, str], EventFor]] = {
    ("floor", PRESS): {(CLOCK, IDLE): _plain(ev.Call), (ANY, RUNNING): _plain(ev.Pause)},
    ("floor", TAP): {(ANY, PAUSED): _plain(ev.Resume)},
    ("floor", HOLD): {(ANY, RUNNING): _plain(ev.Cancel), (ANY, PAUSED): _plain(ev.Cancel),
                      (SHOT, IDLE): _plain(ev.ResetChips)},
    ("action", PRESS): {(SHOT, IDLE): _plain(ev.Start), (ANY, ANY): _plain(ev.Action)},
    ("action", HOLD): {(SHOT, RUNNING): _plain(ev.Stop), (SHOT, PAUSED): _plain(ev.Stop)},
    ("bet", TAP): {(ANY, ANY): _toggle_bet},
    ("bet", HOLD): {(SHOT, RUNNING): _plain(ev.Pause), (SHOT, PAUSED): _plain(ev.Resume)},
    ("extend", TAP): {(ANY, ANY): _plain(ev.Extend)},
    ("extend", HOLD): {(SHOT, ANY): _plain(ev.Undo)},
    ("street", PRESS): {(ANY, ANY): _plain(ev.Street)},
    ("street", HOLD): {(ANY, ANY): _plain(ev.Hand)},
}


def _fold_last(t: float, state: Snapshot) -> ev.Event | None:
    seats = state.seats
    return ev.Fold(t, seats.last_acted) if seats is not None and seats.last_acted is not None else None


_fold_last.__name__ = "fold"
_fold_last.event = ev.Fold

# With seat tracking on (``seats.track``), these entries take the place of GESTURES' own; off, nothing
# changes. Holding the action button folds the seat its press ruled for (the press already ruled the
# action and moved the turn): in shot mode it takes the place of ``stop``, which the seats make needless
# (with all-ins and folds marked, the table knows when nobody is left to act).
SEAT_GESTURES: dict[tuple[str, str], dict[tuple[str, str], EventFor]] = {
    ("action", HOLD): {(SHOT, RUNNING): _fold_last, (SHOT, PAUSED): _fold_last, (CLOCK, ANY): _fold_last},
}

# With seat tracking on: a button pressed while the bet button is held down (the bet button's own tap or
# hold is then dropped). ``(held, pressed) -> event``. The bet button is the dealer's "about the bet" key:
# held with the action button, the player bet everything; with the street or extend button, the turn is
# corrected one seat back or forward.
CHORDS: dict[tuple[str, str], type[ev.Event]] = {
    ("bet", "action"): ev.AllIn,
    ("bet", "street"): ev.TurnBack,
    ("bet", "extend"): ev.TurnForward,
}


def chord_event(held: str, pressed: str, t: float) -> ev.Event | None:
    """The event of pressing ``pressed`` while ``held`` is down (seat tracking), or None."""
    cls = CHORDS.get((held, pressed))
    return cls(t) if cls is not None else None


@dataclass(frozen=True)
class Hold:
    """A button held down now whose hold would do something: ``event`` (its name) once it has been
    down ``seconds`` since ``since``. The screen fills a bar with it, so the floor sees the gesture work."""

    button: str
    since: float
    seconds: float
    event: str

    def progress(self, now: float, steps: int) -> float:
        """The fraction of the hold done at ``now``, in whole ``steps`` (0 to 1)."""
        done = (now - self.since) / self.seconds
        return min(1.0, max(0.0, int(round(done * steps, 6)) / steps))


# The buttons each mode uses (the simulator shows only these). Clock mode has no extension chips.
MODE_BUTTONS = {CLOCK: ("floor", "action", "bet", "street"), SHOT: ("floor", "action", "bet", "extend", "street")}


def hold_meanings(button: str, mode: str, seats: bool = False) -> list[str]:
    """What holding ``button`` can do in ``mode`` (event names: a running clock first, then paused, idle);
    ``seats``: with seat tracking on (:data:`SEAT_GESTURES`).

    Only holds the engine accepts in that phase count: a clock-mode street hold is a new hand when
    idle, but nothing while a called clock runs."""
    if seats and (button, HOLD) in SEAT_GESTURES:
        row = SEAT_GESTURES[(button, HOLD)]
        return sorted({make.__name__ for (m, _), make in row.items() if m in (mode, ANY)})
    row = GESTURES.get((button, HOLD), {})
    names = []
    for phase in (RUNNING, PAUSED, IDLE):
        make = lookup(row, mode, phase)
        if make is not None and accepts(mode, phase, make.event) and make.__name__ not in names:
            names.append(make.__name__)
    return names


def accepts(mode: str, phase: Phase, event: type[ev.Event]) -> bool:
    """Whether the engine's state machine takes events of class ``event`` in ``phase`` of ``mode``
    (else they are ignored)."""
    return event in TRANSITIONS.get(mode, {}).get(phase, {})


def hold_event(button: str, since: float, hold: float, state: Snapshot, phase: Phase | None = None) -> ev.Event | None:
    """The event holding ``button`` (down since ``since``) will give after ``hold`` seconds, if the
    engine would take it in ``state``; None otherwise, so the screen never shows a hold bar that ends in nothing.

    :param phase: the phase at the button's press edge (default: ``state.phase``)."""
    event = gesture_event(Gesture(since + hold, button, HOLD), state, phase)
    if event is not None and isinstance(event, ev.SEAT_EVENTS):
        return event if state.seats is not None else None
    return event if event is not None and accepts(state.mode, state.phase, type(event)) else None


def lookup(row: dict[tuple[str, str], EventFor], mode: str, phase: str) -> EventFor | None:
    """The entry of ``row`` for ``mode`` and ``phase``: the most exact match, or None."""
    for key in ((mode, phase), (mode, ANY), (ANY, phase), (ANY, ANY)):
        if key in row:
            return row[key]
    return None


def gesture_event(gesture, state: Snapshot, phase: Phase | None = None) -> ev.Event | None:
    """The engine event ``gesture`` means in ``state`` (None: nothing).

    :param gesture: a :class:`~shotclock.core.buttons.Gesture` (``t``, ``button``, ``kind``).
    :param state: the engine's state at the gesture's time.
    :param phase: the phase at the button's press edge, for a tap or a hold (default: ``state.phase``).

    Example::

        >>> from shotclock.core.engine import Engine
        >>> from shotclock.core.settings import Settings
        >>> gesture_event(Gesture(2.0, "floor", "press"), Engine(Settings()).state)
        Call(t=2.0, facing_bet=None)
    """
    key = (gesture.button, gesture.kind)
    row = SEAT_GESTURES.get(key) if state.seats is not None and key in SEAT_GESTURES else GESTURES.get(key)
    make = row and lookup(row, state.mode, phase or state.phase)
    return make(gesture.t, state) if make else None


def gesture_table_markdown() -> str:
    """The gesture map as a Markdown table (button, gesture, mode, phase, event)."""
    lines = ["| button | gesture | mode | phase | event |", "|---|---|---|---|---|"]
    for (button, kind), row in GESTURES.items():
        for (mode, phase), make in row.items():
            lines.append(f"| {button} | {kind} | {mode} | {phase} | {make.__name__} |")
    return "\n".join(lines)


def seat_gesture_table_markdown() -> str:
    """The gestures that seat tracking adds or changes, as a Markdown table."""
    lines = ["| button | gesture | mode | phase | event |", "|---|---|---|---|---|"]
    for (button, kind), row in SEAT_GESTURES.items():
        for (mode, phase), make in row.items():
            lines.append(f"| {button} | {kind} | {mode} | {phase} | {make.__name__} (the seat the press ruled for) |")
    for (held, pressed), cls in CHORDS.items():
        lines.append(f"| {pressed} | press while {held} is held | * | * | {cls.NAME} |")
    return "\n".join(lines)
