"""The engine with seat tracking: the clock's rules, and whose decision each clock is.

:class:`SeatedEngine` wraps an :class:`~shotclock.core.engine.Engine` with the table's
:class:`~shotclock.core.seats.Seats`. It takes the same events and gives the same outputs, with the
seat added: a ``start`` and a ``decision`` name the seat on the clock, ``turn`` lines say who is to act
next, and the seat events (``seat``, ``empty``, ``button``, ``fold``, ``all_in``, ``turn_back``,
``turn_forward``) change the seats. The engine's timing rules are untouched: a seat changes *who* a
clock is for, never *how long* it runs or how it is ruled.

Only ``seats.track = true`` builds one (:func:`make_engine`); off, the table runs the bare engine, as
before seat tracking existed, so its outputs stay byte for byte the same.

What a decision does to the seats:

* ``action``: the player on turn acted and is still in; ``fold`` and ``all_in`` mark how. In shot mode
  the engine rules ``acted`` and starts the next player's clock -- unless nobody is left to act (the
  others folded or all-in), when it starts none (as ``last_action`` does). In clock mode, with no clock
  called, a decision only moves the turn.
* a ``fold`` or ``all_in`` naming a seat other than the one on turn only marks that seat (the dealer's
  hold of the action button folds the seat its press ruled for).
* a ruling at 0: ``hand_dead`` folds the seat, ``check`` keeps it in; the turn moves on.
* everyone else folded: ``hand_over`` names the winner, and a running shot clock ends quietly (``stop``).
* an extension without a seat is charged to the seat on the clock.

Example::

    >>> from shotclock.core.settings import SeatSettings, Settings
    >>> engine = SeatedEngine(Settings(mode="shot", seats=SeatSettings(track=True, count=3)))
    >>> [o.to_json() for o in engine.handle(ev.Hand(0))]   # button 1, blinds 2 and 3: seat 1 acts first
    ['{"t":0,"type":"turn","seat":1,"why":"hand","button":1}']
    >>> [o.to_json() for o in engine.handle(ev.Start(1))]
    ['{"t":1,"type":"start","seconds":30,"street":"preflop","seat":1}']
    >>> [o.to_json() for o in engine.handle(ev.Fold(5))][:2]
    ['{"t":5,"type":"decision","outcome":"acted","remaining":26,"at_zero":false,"seat":1}', '{"t":5,"type":"seat","seat":1,"change":"folded"}']
"""

from __future__ import annotations

from dataclasses import replace

from shotclock.core import events as ev
from shotclock.core.engine import IDLE, PAUSED, RUNNING, US, Engine, Snapshot
from shotclock.core.seats import SeatError, Seats
from shotclock.core.settings import Settings
from shotclock.errors import EventError


def make_engine(settings: Settings, start: float = 0.0):
    """The engine a table with ``settings`` runs: a :class:`SeatedEngine` with seat tracking, else the bare
    :class:`~shotclock.core.engine.Engine`."""
    return SeatedEngine(settings, start) if settings.seats.track else Engine(settings, start)


class SeatedEngine:
    """An engine that knows whose decision each clock is (see the module's description).

    Same interface as :class:`~shotclock.core.engine.Engine` (``handle``, ``advance``, ``catch_up``,
    ``next_wake``, ``state``…); anything else is read from the wrapped engine.
    """

    def __init__(self, settings: Settings, start: float = 0.0):
        self.engine = Engine(settings, start)
        self.seats = Seats(settings.seats.count)
        for seat in range(1, settings.seats.count + 1):
            self.seats.players[seat] = ""  # a full table of unnamed players: the buttons-alone baseline
        self.on_clock: int | None = None  # the seat the running or paused clock is for
        self._handlers = {
            ev.Hand: self._hand, ev.Street: self._street, ev.Action: self._decision, ev.LastAction: self._decision,
            ev.Fold: self._decision, ev.AllIn: self._decision, ev.Extend: self._extend,
            ev.TurnBack: self._correct, ev.TurnForward: self._correct,
            ev.SeatPlayer: self._seat_player, ev.EmptySeat: self._empty, ev.SetButton: self._button,
        }

    def __getattr__(self, name):
        return getattr(self.engine, name)  # phase, facing_bet, street, last, settings, mode…

    # -- the engine's interface ------------------------------------------------------

    def handle(self, event: ev.Event) -> list[ev.Output]:
        """Take one event (see :meth:`Engine.handle <shotclock.core.engine.Engine.handle>`)."""
        if round(event.t * US) < round(self.engine.now * US):
            self.engine.handle(event)  # raises the engine's own EventError, state untouched
            raise EventError("unreachable")
        out = self._timers(self.engine.catch_up(event.t))
        handler = self._handlers.get(event.__class__)
        if handler is None:
            out += self._tag(self.engine.handle(event))
        else:
            out += handler(event)
        return out

    def advance(self, t: float, settle: float = 0.0, pending: float | None = None,
                hold: float | None = None) -> list[ev.Output]:
        """Let time pass (see :meth:`Engine.advance <shotclock.core.engine.Engine.advance>`)."""
        return self._timers(self.engine.advance(t, settle, pending, hold))

    def catch_up(self, t: float) -> list[ev.Output]:
        """Let time pass to just before ``t`` (see :meth:`Engine.catch_up <shotclock.core.engine.Engine.catch_up>`)."""
        return self._timers(self.engine.catch_up(t))

    def next_wake(self, settle: float = 0.0) -> float | None:
        """When the engine next has something to do by itself."""
        return self.engine.next_wake(settle)

    @property
    def now(self) -> float:
        """The engine's clock (seconds)."""
        return self.engine.now

    @property
    def state(self) -> Snapshot:
        """The engine's snapshot with the seats and the seat on the clock."""
        state = self.engine.state
        on_clock = self.on_clock if state.phase in (RUNNING, PAUSED) else None
        return replace(state, seats=self.seats.view(), on_clock=on_clock)

    def restore_paused(self, t: float, remaining: float, facing_bet: bool, street: str | None,
                       extensions: int = 0, seconds: float | None = None) -> None:
        """Bring back a clock cut off by a stop, paused, for the seat on turn."""
        self.engine.restore_paused(t, remaining, facing_bet, street, extensions, seconds)
        self.on_clock = self.seats.turn

    def restore_chips(self, used: dict[int, int]) -> None:
        """Bring back the extension chips each seat had used (from the log)."""
        self.engine.restore_chips(used)

    # -- outputs -------------------------------------------------------------------------

    def _tag(self, outputs: list[ev.Output]) -> list[ev.Output]:
        """Name the seat in the engine's starts and decisions."""
        out = []
        for o in outputs:
            if o.__class__ is ev.Started:
                self.on_clock = self.seats.turn
                o = replace(o, seat=self.on_clock)
            elif o.__class__ is ev.Decision:
                o = replace(o, seat=self.on_clock)
                self.engine.last = o
                if not o.quiet:
                    self.engine.last_shown = o
            out.append(o)
        return out

    def _timers(self, outputs: list[ev.Output]) -> list[ev.Output]:
        """The engine's own outputs (beeps, a ruling at 0): a ruling moves the turn on."""
        if not outputs:
            return outputs
        out = []
        for o in self._tag(outputs):
            out.append(o)
            if o.__class__ is ev.Decision and o.outcome in (ev.HAND_DEAD, ev.CHECK):
                seat, turn = o.seat, self.seats.turn
                if o.outcome == ev.HAND_DEAD and seat is not None:
                    self.seats.fold(seat)
                    out.append(ev.SeatChanged(o.t, seat, "folded"))
                elif seat is not None and seat == turn:
                    self.seats.acted()
                out += self._after(o.t, turn, "ruling")
        return out

    def _turn(self, t: float, why: str, button: int | None = None) -> ev.Turn:
        turn = self.seats.turn
        return ev.Turn(t, turn, why, self.seats.players.get(turn) or None, button)

    def _after(self, t: float, turn_before: int | None, why: str) -> list[ev.Output]:
        """The turn line when the turn moved, and the end of the hand when one player is left."""
        out = [self._turn(t, why)] if self.seats.turn != turn_before else []
        if self.seats.winner is not None:
            out.append(ev.HandOver(t, self.seats.winner))
            if self.engine.mode == "shot" and self.engine.phase != IDLE:
                out += self._tag(self.engine.handle(ev.Stop(t)))  # nobody left to play against: end it quietly
        return out

    @staticmethod
    def _ignored(outputs: list[ev.Output]) -> bool:
        return any(o.__class__ is ev.Ignored for o in outputs)

    # -- the events ----------------------------------------------------------------------

    def _hand(self, event: ev.Hand) -> list[ev.Output]:
        out = self._tag(self.engine.handle(event))
        if self._ignored(out):
            return out
        self.seats.new_hand()
        return out + [self._turn(event.t, "hand", self.seats.button)]

    def _street(self, event: ev.Street) -> list[ev.Output]:
        out = self._tag(self.engine.handle(event))
        if self._ignored(out):
            return out
        self.seats.new_street()
        return out + [self._turn(event.t, "street")]

    def _decision(self, event) -> list[ev.Output]:
        """``action``, ``last_action``, ``fold``, ``all_in``: a decision of the player on turn, or a mark."""
        t, seats = event.t, self.seats
        seat = getattr(event, "seat", None)
        kind = event.NAME
        if seat is not None and seat != seats.turn:
            return self._mark(event, seat)
        if seats.turn is None and self.engine.phase == IDLE:
            return [ev.Ignored(t, kind, "nobody is on turn (start a new hand, or correct the turn)")]
        before, turn = seats.view(), seats.turn
        if kind == "fold":
            seats.fold()
        elif kind == "all_in":
            seats.go_all_in()
        else:
            seats.acted()
        marks = [ev.SeatChanged(t, turn, "folded" if kind == "fold" else "all_in")] \
            if kind in ("fold", "all_in") and turn is not None else []
        out: list[ev.Output] = []
        if self.engine.phase != IDLE:
            last = kind == "last_action" or seats.turn is None or seats.winner is not None
            out = self._tag(self.engine.handle(ev.LastAction(t) if last else ev.Action(t)))
            if self._ignored(out):
                seats.restore(before)
                return out
            if self.engine.phase == IDLE:
                self.on_clock = None
            # The next player's clock was started before the turn line: put the line first.
            started = [o for o in out if o.__class__ is ev.Started]
            rest = [o for o in out if o.__class__ is not ev.Started]
            return rest + marks + self._after(t, turn, kind) + started
        return marks + self._after(t, turn, kind)

    def _mark(self, event, seat: int) -> list[ev.Output]:
        """A fold or all-in marked on a seat that is not on turn (the action button's hold, the floor)."""
        t, seats, kind = event.t, self.seats, event.NAME
        if kind not in ("fold", "all_in"):
            return [ev.Ignored(t, kind, "an action is the decision of the seat on turn")]
        if seat not in seats.in_hand:
            return [ev.Ignored(t, kind, f"seat {seat} is not in the hand")]
        if kind == "all_in" and seat in seats.all_in:
            return [ev.Ignored(t, kind, f"seat {seat} is already all-in")]
        turn = seats.turn
        if kind == "fold":
            seats.fold(seat)
        else:
            seats.go_all_in(seat)
        return [ev.SeatChanged(t, seat, "folded" if kind == "fold" else "all_in")] + self._after(t, turn, kind)

    def _extend(self, event: ev.Extend) -> list[ev.Output]:
        if event.seat is None and self.on_clock is not None and self.engine.phase != IDLE:
            event = ev.Extend(event.t, self.on_clock)  # charged to the seat on the clock
        return self._tag(self.engine.handle(event))

    def _correct(self, event) -> list[ev.Output]:
        t, seats = event.t, self.seats
        turn = seats.turn
        if event.__class__ is ev.TurnBack:
            seats.back()
        else:
            seats.forward()
        if seats.turn == turn:
            return [ev.Ignored(t, event.NAME, "nobody else can be on turn" if turn is not None
                               else "nobody is on turn")]
        if self.engine.phase != IDLE:
            self.on_clock = seats.turn  # the running clock is this seat's decision
        return [self._turn(t, "back" if event.__class__ is ev.TurnBack else "forward")]

    def _seat_player(self, event: ev.SeatPlayer) -> list[ev.Output]:
        try:
            self.seats.seat(event.seat, event.name or "")
        except SeatError as exc:
            return [ev.Ignored(event.t, event.NAME, str(exc))]
        return [ev.SeatChanged(event.t, event.seat, "seated", event.name)]

    def _empty(self, event: ev.EmptySeat) -> list[ev.Output]:
        turn = self.seats.turn
        try:
            self.seats.empty(event.seat)
        except SeatError as exc:
            return [ev.Ignored(event.t, event.NAME, str(exc))]
        if self.on_clock == event.seat and self.engine.phase != IDLE:
            self.on_clock = self.seats.turn
        return [ev.SeatChanged(event.t, event.seat, "emptied")] + self._after(event.t, turn, "empty")

    def _button(self, event: ev.SetButton) -> list[ev.Output]:
        try:
            self.seats.set_button(event.seat)
        except SeatError as exc:
            return [ev.Ignored(event.t, event.NAME, str(exc))]
        return [ev.SeatChanged(event.t, event.seat, "button")]
