"""The table: every input dated, ordered and read by the rules, in pure code.

One :class:`Table` owns the button reader, the gesture map, the engine, the faults and the
late-input policy. The shell feeds it timestamped inputs from any source -- pin
:class:`~shotclock.core.inputs.Edge`\\ s from the buttons, floor
:class:`~shotclock.core.inputs.Command`\\ s from the network -- and gets back a
:class:`Round`: what was taken, what it caused, and (with :meth:`Table.next_wake`) when the
table next needs waking. Like the engine, it never reads a clock: tests drive it with
virtual time.

The rules for inputs, all here so that they can be replayed:

* Inputs are taken in time order. An input dated in the future (a clock that stepped) is
  taken as now; one dated before an input already taken is taken at that input's time.
* An input is read against the state at its own time: beeps and rulings due before it are
  made first, even when the loop woke late.
* An input that reaches the table after the engine's clock passed it (the loop was late by
  more than ``edge_grace``) is taken at the engine's clock.
* The ruling at the end of the tie window waits ``edge_grace`` for an edge dated before it
  that the GPIO driver has not delivered yet. Beeps never wait.
* A press inside a bounce window (a second press within ``debounce`` of a release) counts
  when the window closes, dated at its edge; the ruling waits for it like for a late edge.
* A tap (the floor's resume, the dealer's bet toggle and extension chip) is dated at its press
  edge. While such a press is undecided (tap or hold?), the engine's clock waits at the press
  edge and the ruling at the end of the tie window waits with it (at most the hold time), so the
  tap's event is exact: a chip pressed at 29.9 s and released at 30.7 s counts.

Example::

    >>> from shotclock.core.inputs import Command, Edge
    >>> from shotclock.core.settings import Settings
    >>> table = Table(Settings())
    >>> r = table.feed([Edge(1.0, "floor", True), Edge(1.1, "floor", False)], now=1.2)
    >>> [(i.event.NAME, i.event.t) for i in r.inputs]
    [('call', 1.0)]
    >>> r = table.feed([Command(3.0, "pause", id="c1", sender="floor")], now=3.0)
    >>> r.acks[0].caused
    ['pause']
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Callable, Iterable

import msgspec

from shotclock.core import events as ev
from shotclock.core.buttons import ButtonFault, ButtonReader, Gesture
from shotclock.core.engine import Phase, Snapshot
from shotclock.core.faults import Fault, StuckButton
from shotclock.core.gestures import HOLD, PRESS, Hold, chord_event, gesture_event, hold_event
from shotclock.core.handforhand import HandForHandState
from shotclock.core.following import Following
from shotclock.core.inputs import COMMANDS, Command, Edge, RoomHandForHand, TournamentNews
from shotclock.core.levels import RHYTHM, TableLevels
from shotclock.core.log_records import InputData, InputFields
from shotclock.core.restore import ClockAtStop
from shotclock.core.rhythm import Changes
from shotclock.core.rulesets import RuleSets, name_of
from shotclock.core.seated import make_engine
from shotclock.core.settings import Settings


def _command_event(cls: type[ev.Event]) -> Callable[[float, Snapshot, Command], ev.Event]:
    return lambda t, state, command: cls(t)


# What each floor command becomes: read against the state at the command's time, like a gesture.
COMMAND_EVENTS: dict[str, Callable[[float, Snapshot, Command], ev.Event]] = {
    "call": lambda t, state, command: ev.Call(t, command.facing_bet),
    "bet": lambda t, state, command: ev.Bet(t, not state.facing_bet if command.facing_bet is None
                                            else command.facing_bet),
    "pause": _command_event(ev.Pause),
    "resume": _command_event(ev.Resume),
    "cancel": _command_event(ev.Cancel),
    "start": _command_event(ev.Start),
    "stop": _command_event(ev.Stop),
    "extend": lambda t, state, command: ev.Extend(t, command.seat),
    "undo": _command_event(ev.Undo),
    "reset_chips": _command_event(ev.ResetChips),
    "last_action": _command_event(ev.LastAction),
    "seat": lambda t, state, c: ev.SeatPlayer(t, c.seat, c.player, c.bank, c.chips, c.mark, c.mark_seconds),
    "rename": lambda t, state, c: ev.Rename(t, c.seat, c.player or ""),
    "empty": lambda t, state, c: ev.EmptySeat(t, c.seat),
    "button": lambda t, state, c: ev.SetButton(t, c.seat),
    "top_up": lambda t, state, c: ev.TopUp(t, c.chips, c.seconds),
    "seating": lambda t, state, c: ev.Seating(t, tuple(c.players or ())),
    "fold": lambda t, state, c: ev.Fold(t, c.seat),
    "all_in": lambda t, state, c: ev.AllIn(t, c.seat),
    "turn_back": _command_event(ev.TurnBack),
    "turn_forward": _command_event(ev.TurnForward),
    # who marked is the command's sender, the login the broker proved (core/topics.py command_sender)
    "mark": lambda t, state, c: ev.Mark(t, c.seat, c.mark or "", c.mark_seconds, c.sender),
    "unmark": lambda t, state, c: ev.Unmark(t, c.seat, c.sender),
    "hand_for_hand": lambda t, state, c: ev.HandForHand(t, c.minutes),
    "release_hand": _command_event(ev.ReleaseHand),
    "end_hand_for_hand": _command_event(ev.EndHandForHand),
    "rule_set": lambda t, state, c: ev.UseRuleSet(t, c.rule_set or ""),
    "level": lambda t, state, c: ev.Level(t, c.level, c.hands, c.sender),
    "hands": lambda t, state, c: ev.Hands(t, c.hands, c.sender),
}
assert set(COMMAND_EVENTS) == set(COMMANDS)


# The event fields an input record keeps (a seat event's, a mark's, the rhythm's): its replay line is rebuilt from them.
SEAT_FIELDS = ("seat", "name", "bank", "chips", "seconds", "players", "mark", "mark_seconds", "by", "level", "hands")
FLOOR_FIELDS = ("minutes", "rule_set", "on", "seq")  # and the tournament's (no replay line: they never touch a clock)


@dataclass(frozen=True)
class Input:
    """An input the table took: its ``source`` (a gesture, a command or the room's hand-for-hand state), the engine
    event it became (None for a command the table does not know), and the bet state and street just after.

    The event's ``t`` is the time it was given: its press edge or arrival, or the engine's
    clock if it reached the table after the engine had moved on. A hold is dated when it is reached;
    ``pressed`` is when its press was taken (the floor's hold that cancels a clock paused it there first).
    """

    source: Gesture | Command | RoomHandForHand | TournamentNews
    event: ev.Event | None
    facing_bet: bool | None = None
    street: str | None = None
    pressed: float | None = None

    @property
    def t(self) -> float:
        """The time the input was taken at."""
        return self.event.t if self.event is not None else self.source.t

    @property
    def gesture(self) -> Gesture | None:
        """The button gesture, for an input from a button."""
        return self.source if isinstance(self.source, Gesture) else None

    @property
    def command(self) -> Command | None:
        """The floor command, for an input from the network."""
        return self.source if isinstance(self.source, Command) else None

    def fields(self) -> InputFields:
        """What the input was (:class:`~shotclock.core.log_records.InputFields`): the ``event``, with ``button`` and
        ``gesture`` for a button (and ``pressed`` for a hold), ``command``, ``id`` and ``sender`` for a floor command,
        ``room`` and ``section`` for the room's hand-for-hand state (its scope), and the event's own fields."""
        return InputFields(**self._fields())

    def log_data(self, round: float) -> InputData:
        """The data of its ``input`` record: :meth:`fields`, the bet state and street after it and the ``round``."""
        return InputData(**self._fields(), facing_bet=self.facing_bet, street=self.street, round=round)

    def record(self) -> dict:
        """The JSON form ``shotclock replay`` and the report print: ``{"t", "type": "input", …}`` and :meth:`fields`."""
        return {"t": self.t, "type": "input", **msgspec.to_builtins(self.fields())}

    def _fields(self) -> dict:
        src = self.source
        rec = {"event": self.event.NAME if self.event is not None else src.name}
        if isinstance(src, Command):
            rec.update(command=src.name, id=src.id, sender=src.sender)
        elif isinstance(src, RoomHandForHand):
            rec.update(room=src.room, section=src.section)
        elif isinstance(src, TournamentNews):
            rec.update(tournament=src.id, seq=src.seq)
        else:
            rec.update(button=src.button, gesture=src.kind)
            if self.pressed is not None:
                rec["pressed"] = self.pressed
        if getattr(self.event, "facing_bet", None) is not None:
            rec["set_bet"] = self.event.facing_bet
        for name in SEAT_FIELDS + FLOOR_FIELDS:  # a seat event's own fields: its replay line is rebuilt from them
            value = getattr(self.event, name, None)
            if value is not None:
                rec[name] = [list(p) for p in value] if name == "players" else value
        return rec


@dataclass(frozen=True)
class Ack:
    """What one floor command caused: the outputs of its event (an ``ignored`` output says why not)."""

    command: Command
    outputs: tuple[ev.Output, ...]

    @property
    def ignored(self) -> str | None:
        """The reason the command changed nothing, or None when it took effect."""
        for out in self.outputs:
            if isinstance(out, ev.Ignored):
                return out.reason
        return None

    @property
    def caused(self) -> list[str]:
        """The types of the outputs it caused (``start``, ``pause``, ``decision``…)."""
        return [out.TYPE for out in self.outputs]


@dataclass
class Round:
    """Everything one feeding of the table took and caused, in the order the engine took it."""

    now: float
    state: Snapshot | None = None  # the engine's state after the round
    inputs: list[Input] = field(default_factory=list)
    outputs: list[ev.Output] = field(default_factory=list)
    button_faults: list[ButtonFault] = field(default_factory=list)
    faults: tuple[Fault, ...] = ()
    holds: tuple[Hold, ...] = ()  # buttons held now, and what their hold will do
    acks: list[Ack] = field(default_factory=list)
    arrivals: list = field(default_factory=list)  # the edges, commands and room states taken, as they arrived, in order
    held_at_start: list[tuple[float, str]] = field(default_factory=list)  # (t, button) found pressed at start
    after: float | None = None  # the ``now`` of the round before (with ``now``, a replay feeds this round alike)
    acted_at: float = 0.0  # set by the shell: when the round was done on its clock
    sequence: list = field(default_factory=list)  # inputs and outputs in the order the engine took them
    seats_at_start: dict = field(default_factory=dict)  # seat tracking: id(a start output) -> the seats it started with

    def add_outputs(self, outputs: list[ev.Output]) -> None:
        """Outputs the engine just gave."""
        self.outputs += outputs
        self.sequence += outputs

    def add_input(self, item: Input) -> None:
        """An input just handed to the engine."""
        self.inputs.append(item)
        self.sequence.append(item)


def round_us(seconds: float) -> int:
    """Seconds as whole microseconds, as the engine keeps time."""
    return round(seconds * 1_000_000)


class Table:
    """One table's rules: buttons, gestures, floor commands, the engine and the faults.

    :param settings: the mode and rule settings.
    :param start: the time the table's clock begins (seconds).
    :param debounce: seconds after a counted edge in which further edges are contact bounce.
    :param hold: seconds a floor or street press must last to be a hold.
    :param stuck_after: seconds after which a held button is reported stuck.
    :param edge_grace: how long the ruling at the end of the tie window waits for an edge dated
        before it that the GPIO driver has not delivered yet (seconds).
    :param floor_min_press: seconds the floor button's contact must stay closed before its press
        counts (a jack plugged in shorts it for a moment); the press is still dated at its edge.
    :param rule_sets: the named rule sets the floor may put the table on from its next hand (name → its rule
        changes, layered on the table's rhythm: :mod:`shotclock.core.rhythm`).
    """

    def __init__(self, settings: Settings, start: float = 0.0, *, debounce: float = 0.03, hold: float = 2.0,
                 stuck_after: float = 10.0, edge_grace: float = 0.0, floor_min_press: float = 0.0,
                 rule_sets: dict[str, Changes] | None = None):
        self.engine = make_engine(settings, start)  # with seat tracking, an engine that knows the seats
        self.levels = TableLevels(settings)  # the tournament's level and hands per level, from the next hand
        self.hand_for_hand = HandForHandState()  # the floor's hand-for-hand (TDA RP-8), beside the engine
        self.rules = RuleSets(rule_sets)  # the house's named rule sets: a layer of the levels' rhythm
        self.following = Following()  # the tournament clock this table follows: its level, its breaks
        self.reader = ButtonReader(debounce, hold, stuck_after, min_press={"floor": floor_min_press})
        self.edge_grace = edge_grace
        self._faults: dict[object, Fault] = {}
        self._phase_at_press: dict[str, Phase] = {}
        self._pressed_at: dict[str, float] = {}  # when each button's last press was taken (a hold's input says it)
        self._held_at_start: list[ButtonFault] = []
        self._chorded: set[str] = set()  # buttons of a chord (seat tracking) whose own tap or hold is dropped
        self.start = start
        self._last_t = start
        self._last_now: float | None = None

    # -- the public interface ------------------------------------------------------

    @property
    def state(self) -> Snapshot:
        """The engine's state now, with the level when one was set, the floor's hand-for-hand and the rule set when
        either is on."""
        state = self.engine.state
        level, hand_for_hand, rule_set = self.levels.view, self.hand_for_hand.view, self.rules.view(self.levels.next)
        on_break = self.following.view(self._last_now) if self._last_now is not None else None
        if level is None and hand_for_hand is None and rule_set is None and on_break is None:
            return state
        return replace(state, level=level, hand_for_hand=hand_for_hand, rule_set=rule_set, tournament_break=on_break)

    @property
    def faults(self) -> tuple[Fault, ...]:
        """The faults to show, in the order they arose."""
        return tuple(self._faults.values())

    def set_fault(self, fault: Fault) -> None:
        """Show ``fault`` (replacing one with the same key)."""
        self._faults[fault.key] = fault

    def clear_fault(self, key: object) -> None:
        """Stop showing the fault with ``key`` (a fault's class, or its ``key``)."""
        self._faults.pop(key, None)

    def button_held_at_start(self, t: float, button: str) -> None:
        """A button that reads pressed at start: stuck until released (reported in the next round)."""
        self._held_at_start += self.reader.held_at_start(t, button)

    def restore(self, point: ClockAtStop, t: float) -> None:
        """Bring back, paused, a clock the device stopped on (see :mod:`shotclock.core.restore`): the one
        way the device, ``log replay`` and ``screenshot --interrupted`` restore a clock. The engine
        never rules on it by itself: the floor resumes or cancels it."""
        self.engine.restore_paused(t, point.remaining, point.facing_bet, point.street, point.extensions,
                                   point.seconds)

    def restore_chips(self, used: dict[int, int]) -> None:
        """Bring back the extension chips each seat had used before a restart (from the log)."""
        self.engine.restore_chips(used)

    def restore_seats(self, record: dict) -> bool:
        """Bring back the seats, banks and chips a ``seats`` record of the log kept (seat tracking); False when
        this table tracks no seats or the record does not fit it (then it starts as configured)."""
        from shotclock.core.seats import view_from_record

        restore = getattr(self.engine, "restore_seats", None)
        view = view_from_record(record, self.engine.settings.seats.count) if restore else None
        if view is None:
            return False
        restore(view)
        return True

    def restore_hand_for_hand(self, record: dict, t: float) -> list[ev.Output]:
        """Bring back hand-for-hand as the log's last ``hand_for_hand`` record kept it (a restart): a table that
        waited for the floor's release waits on. Returns what changed (nothing when it was off)."""
        return self.hand_for_hand.restore(record, t)

    def restore_rule_set(self, record: dict, t: float) -> list[ev.Output]:
        """Bring back the named rule set in force (and the one waiting) as the log's last ``rule_set`` record kept
        it (a restart): the table runs it at once, no clock being open at a start."""
        outputs = self.rules.restore(record, self.levels.next, t)
        if outputs and self.engine.phase == Phase.IDLE:  # (a clock brought back runs on; the next hand retunes)
            self.engine.retune(self.levels.settings)
        return outputs
    def restore_levels(self, record: dict) -> bool:
        """Bring back the level, the hand count and the hands per level a ``level_restored`` record keeps (a restart:
        :mod:`shotclock.core.levels`), the engine retuned with the level's rules; False when it holds no level."""
        from shotclock.core.levels import rhythm_from_records

        found = rhythm_from_records([dict(record, type="level_restored")])
        if found is None:
            return False
        self.levels.restore(*found)
        if self.levels.settings != self.engine.settings and self.engine.phase == Phase.IDLE:
            self.engine.retune(self.levels.settings)  # (a clock brought back runs on; the next hand retunes)
        return True

    def feed(self, inputs: Iterable[Edge | Command | RoomHandForHand | TournamentNews], now: float) -> Round:
        """Take ``inputs`` (in any order) and let time pass to ``now``; return what happened."""
        round = Round(now=now, after=self._last_now)
        self._last_now = now
        round.held_at_start = [(f.t, f.button) for f in self._held_at_start]
        self._take(self._held_at_start, round)
        self._held_at_start = []
        round.arrivals = sorted(inputs, key=lambda i: i.t)
        for item in round.arrivals:
            t = min(max(item.t, self._last_t), now)
            self._last_t = t
            if isinstance(item, Edge):
                self._take(self.reader.edge(item if t == item.t else replace(item, t=t)), round)
            else:
                self._take(self.reader.advance(t), round)
                if isinstance(item, Command):
                    self._command(item, t, round)
                elif isinstance(item, TournamentNews):
                    self._tournament(item, t, round)
                else:
                    self._room(item, t, round)
        self._take(self.reader.advance(now), round)
        # A press seen inside a bounce window (or waiting for its minimum press time) counts later,
        # dated at its edge; a tap is known at the release but dated at its press edge. The engine's
        # clock waits at the earliest such edge, so the ruling at 0 waits for it (beeps never wait).
        pending = [t for t in (self.reader.unsettled_press_since(), self.reader.undecided_since()) if t is not None]
        # While no clock runs nothing can fall due, so the engine's clock for events stays at the last
        # input: an edge the driver hands over late (a loaded machine) keeps its own time.
        self._timers(round, self.engine.advance(now, self.edge_grace, pending=min(pending) if pending else None,
                                                hold=self._last_t))
        round.state = self.state
        round.faults = self.faults
        round.holds = self.holds()
        return round

    def holds(self) -> tuple[Hold, ...]:
        """The buttons held down now whose hold would do something, with what (for the screen)."""
        out = []
        state = self.engine.state
        for button, since in self.reader.holding():
            if button in self._chorded:
                continue
            phase = self._phase_at_press.get(button, state.phase)
            event = hold_event(button, since, self.reader.hold, state, phase)
            if event is not None:
                out.append(Hold(button, since, self.reader.hold, event.NAME))
        return tuple(out)

    def next_wake(self) -> float | None:
        """The earliest moment the table has something to do by itself (a beep, a ruling, a hold…)."""
        wakes = [w for w in (self.engine.next_wake(self.edge_grace), self.reader.next_wake()) if w is not None]
        return min(wakes) if wakes else None

    # -- inside ------------------------------------------------------------------------

    def _take(self, items: list, round: Round) -> None:
        for item in items:
            if isinstance(item, ButtonFault):
                self._button_fault(item, round)
            else:
                self._gesture(item, round)

    def _at(self, t: float, round: Round) -> float:
        """Bring the engine to just before ``t`` (never back): the time an input is taken at."""
        if round_us(t) < round_us(self.engine.now):  # the engine keeps whole microseconds: compare as it does
            t = self.engine.now
        self._timers(round, self.engine.catch_up(t))
        return t

    def _timers(self, round: Round, outputs: list[ev.Output]) -> None:
        """The engine's own outputs: beeps, rulings and, in clock mode with seat tracking, the clock a ruling starts
        for a marked player it moved the turn to (with the seats it starts with, as for an input: the export's)."""
        round.add_outputs(outputs)
        if outputs and outputs[-1].__class__ is ev.Started and self.engine.state.seats is not None:
            round.seats_at_start[id(outputs[-1])] = self.engine.state.seats

    def _gesture(self, gesture: Gesture, round: Round) -> None:
        t = self._at(gesture.t, round)
        state = self.engine.state
        if state.seats is not None and self._chord(gesture, t, round):
            return
        pressed = None
        if gesture.kind == PRESS:
            self._phase_at_press[gesture.button] = state.phase
            self._pressed_at[gesture.button] = t
            phase = state.phase
        else:  # a tap or a hold means what it meant when the button went down
            phase = self._phase_at_press.pop(gesture.button, state.phase)
            pressed = self._pressed_at.pop(gesture.button, None) if gesture.kind == HOLD else None
        event = gesture_event(gesture if t == gesture.t else replace(gesture, t=t), state, phase)
        if event is not None:
            self._handle(event, gesture, round, pressed)

    def _chord(self, gesture: Gesture, t: float, round: Round) -> bool:
        """Seat tracking: a press while another button is held is a chord (:data:`~shotclock.core.gestures.CHORDS`);
        the tap or hold of a chord's buttons is then dropped. True when the gesture was taken here."""
        if gesture.kind != PRESS:
            if gesture.button in self._chorded:
                self._chorded.discard(gesture.button)
                self._phase_at_press.pop(gesture.button, None)
                self._pressed_at.pop(gesture.button, None)
                return True
            return False
        for held, since in self.reader.holding():
            if held == gesture.button or since > gesture.t:
                continue
            event = chord_event(held, gesture.button, t)
            if event is not None:
                self._chorded.update((held, gesture.button))
                self._handle(event, gesture, round)
                return True
        return False

    def _command(self, command: Command, t: float, round: Round) -> None:
        t = self._at(t, round)
        make = COMMAND_EVENTS.get(command.name)
        if make is None:
            outputs = [ev.Ignored(t, command.name, f"unknown command {command.name!r} "
                                                    f"(known: {', '.join(COMMANDS)})")]
            round.add_input(Input(command, None, self.engine.facing_bet, self.engine.street))
            round.add_outputs(outputs)
        else:
            outputs = self._handle(make(t, self.engine.state, command), command, round)
        round.acks.append(Ack(command, tuple(outputs)))

    def _room(self, state: RoomHandForHand, t: float, round: Round) -> None:
        """The room's hand-for-hand state (no ack: nobody waits for one): taken by hand-for-hand, beside the engine."""
        t = self._at(t, round)
        self._handle(ev.RoomHandForHand(t, state.on, state.hands, state.minutes, state.seq), state, round)

    def _tournament(self, news: TournamentNews, t: float, round: Round) -> None:
        """The tournament clock's state (no ack: nobody waits for one): its level from the next hand, its break."""
        t = self._at(t, round)
        level = self.following.take(replace(news, t=t), self.levels.next.upcoming.level)
        if level is not None:
            self._handle(level, news, round)

    def _handle(self, event: ev.Event, source, round: Round, pressed: float | None = None) -> list[ev.Output]:
        cls, before = event.__class__, name_of(self.levels.next.current)
        if cls is ev.UseRuleSet:  # the tournament's commands: beside the engine, never touching its clock
            outputs = self.rules.handle(event, self.levels.next)
        elif cls in ev.FLOOR_EVENTS:
            outputs = self.hand_for_hand.handle(event)
        elif (blocked := self.hand_for_hand.blocks(event) or self.following.blocks(event)) is not None:
            # a clock's start while the table waits for the floor's release, or during the tournament's break
            outputs = [blocked]
        else:  # a level, the hands per level, and a new hand (which brings in what waits for it) go by the levels
            outputs = self.levels.take(event, self.engine) if cls in RHYTHM else self.engine.handle(event)
        round.add_input(Input(source, event, self.engine.facing_bet, self.engine.street, pressed))
        round.add_outputs(outputs)
        if cls is ev.Hand and not any(o.__class__ is ev.Ignored for o in outputs):
            self.following.hand_dealt()
            outputs = outputs + self._new_hand(event.t, before, round)
        if outputs and outputs[-1].__class__ is ev.Started:  # a start is its event's last output
            seats = self.engine.state.seats
            if seats is not None:  # what the log's export puts a replay of this clock in
                round.seats_at_start[id(outputs[-1])] = seats
        return outputs

    def _new_hand(self, t: float, before: str, round: Round) -> list[ev.Output]:
        """The engine took a new hand (no clock runs now) and the levels brought in what waited for it: the named
        rule set the hand moved in (``before``: the one of the hand before), and in hand-for-hand the hand before it
        is done."""
        outputs = self.rules.applied(t, before, self.levels.next.current)
        if outputs and self.rules.resets_chips(outputs[-1].rule_set):  # a stage's exact chips, as it begins
            outputs += self.engine.handle(ev.ResetChips(t))
        outputs += self.hand_for_hand.hand_dealt(t)
        round.add_outputs(outputs)
        return outputs

    def _button_fault(self, fault: ButtonFault, round: Round) -> None:
        round.button_faults.append(fault)
        if fault.kind == "stuck":
            self.set_fault(StuckButton(fault.button, fault.t))
        else:
            self.clear_fault((StuckButton, fault.button))
