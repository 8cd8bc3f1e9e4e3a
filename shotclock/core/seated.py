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

The time bank mode (``seats.bank`` seconds, Triton's Tempo): every decision has its street's time (the
base); the player's own bank follows it as the last part of the same clock (``start`` says ``seconds``,
the whole, and ``bank``). When the base is up a ``bank`` line is the bank's own cue; the countdown and the
ruling at 0 are the usual ones at the end of the bank (dead facing a bet, else check; a tie goes to the
player). Each decision's ``bank_used`` is deducted (``bank_left``). A clock brought back after a restart
ends in the bank as before, and deducts only the clock time the player used: the time the device was down
never counts (the player never pays for the device's fault; the decision's ``bank_used`` says what was taken).

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
from shotclock.core.engine import IDLE, PAUSED, RUNNING, TRANSITIONS, US, Engine, Snapshot, Transition
from shotclock.core.fields import BANK_MAX, CHIPS_MAX
from shotclock.core.seats import SeatError, Seats, SeatsView
from shotclock.core.settings import Settings
from shotclock.errors import EventError


PASS_ON = Transition("acted_next_player", RUNNING)  # the transition SeatedEngine._pass_on writes out


def make_engine(settings: Settings, start: float = 0.0):
    """The engine a table with ``settings`` runs: a :class:`SeatedEngine` with seat tracking, else the bare
    :class:`~shotclock.core.engine.Engine`."""
    return SeatedEngine(settings, start) if settings.seats.track else Engine(settings, start)


class SeatedEngine:
    """An engine that knows whose decision each clock is (see the module's description).

    Same interface as :class:`~shotclock.core.engine.Engine` (``handle``, ``advance``, ``catch_up``,
    ``next_wake``, ``state``…); anything else is read from the wrapped engine. The wrapped engine asks it
    whose each clock is as it starts one (:meth:`clock_starts`) and ends one (:meth:`clock_ends`), so a start or a
    decision is built once, seat and bank included.
    """

    def __init__(self, settings: Settings, start: float = 0.0):
        self.engine = Engine(settings, start)
        self.engine.seating = self  # the engine asks whose each clock is (clock_starts, clock_ends)
        self.seats = Seats(settings.seats.count)
        for seat in range(1, settings.seats.count + 1):
            self.seats.players[seat] = ""  # a full table of unnamed players: the buttons-alone baseline
        self.on_clock: int | None = None  # the seat the running or paused clock is for
        self._bank_us = round(settings.seats.bank * US)  # each player's bank at the start (0: no bank mode)
        self.banks: dict[int, int] = {}  # seat -> bank left (µs), in time bank mode
        if self._bank_us:
            self.banks = {seat: self._bank_us for seat in self.seats.players}
        self._bank: tuple[int, int] | None = None  # (seat, its bank at the start) of the clock running now
        self._cued = False  # the bank's cue has sounded for this clock
        self._t_us = 0  # the time of the event being handled (µs), worked out once and handed to the engine
        # A decision of the seat on turn on a running or paused clock goes to _pass_on when the mode's transitions
        # rule it acted and start the next player's clock (shot mode); the general path otherwise.
        rows = TRANSITIONS[settings.mode]
        self._passes_on = all(rows[phase].get(ev.Action) == PASS_ON for phase in (RUNNING, PAUSED))
        self._notice: tuple[float, str, int] | None = None  # a refusal the screen shows for a while
        self._handlers = {
            ev.Hand: self._hand, ev.Street: self._street, ev.Action: self._decision, ev.LastAction: self._decision,
            ev.Fold: self._decision, ev.AllIn: self._decision, ev.Extend: self._extend,
            ev.TurnBack: self._correct, ev.TurnForward: self._correct,
            ev.SeatPlayer: self._seat_player, ev.EmptySeat: self._empty, ev.SetButton: self._button,
            ev.TopUp: self._top_up, ev.Seating: self._seating, ev.Rename: self._rename,
        }

    def __getattr__(self, name):
        return getattr(self.engine, name)  # phase, facing_bet, street, last, settings, mode…

    # -- the engine's interface ------------------------------------------------------

    def handle(self, event: ev.Event) -> list[ev.Output]:
        """Take one event (see :meth:`Engine.handle <shotclock.core.engine.Engine.handle>`)."""
        engine, t = self.engine, event.t
        t_us = round(t * US)
        if t_us < engine._now:
            engine.handle(event)  # raises the engine's own EventError, state untouched
            raise EventError("unreachable")
        # Timers due before the event first (the engine would run them itself; the seats must see them).
        out = []
        if engine.phase == RUNNING:
            bank = self._bank
            if bank is not None and not self._cued and engine._deadline - bank[1] <= t_us:
                out = self._cue(t, False)  # the cue first: the engine may rule the clock at 0
            if t_us > engine._now:  # (the engine's timers before its own clock have run)
                beep = engine._next_beep  # the next timer's time (Engine._next_timer, written out: hot path)
                due = engine._deadline - beep * US if beep is not None else engine._deadline + engine._tie
                if due <= t_us:
                    timers = engine._run_timers(t_us, inclusive=False)  # (engine.catch_up, written out)
                    if timers:
                        out = out + timers
                engine._now = t_us
            if out:
                out = self._timers(out)
        self._t_us = t_us
        handler = self._handlers.get(event.__class__)
        if handler is None:
            return out + engine.handle_at(t_us, event) if out else engine.handle_at(t_us, event)
        return out + handler(event) if out else handler(event)

    def advance(self, t: float, settle: float = 0.0, pending: float | None = None,
                hold: float | None = None) -> list[ev.Output]:
        """Let time pass (see :meth:`Engine.advance <shotclock.core.engine.Engine.advance>`)."""
        return self._timers(self._cue(t, True) + self.engine.advance(t, settle, pending, hold))

    def catch_up(self, t: float) -> list[ev.Output]:
        """Let time pass to just before ``t`` (see :meth:`Engine.catch_up <shotclock.core.engine.Engine.catch_up>`)."""
        return self._timers(self._cue(t, False) + self.engine.catch_up(t))

    def next_wake(self, settle: float = 0.0) -> float | None:
        """When the engine next has something to do by itself (a beep, a ruling, the bank's cue)."""
        wake = self.engine.next_wake(settle)
        cue = self._cue_at()
        return wake if cue is None else cue if wake is None else min(wake, cue)

    def _cue_at(self) -> float | None:
        """When the running clock's base time is up and the player's bank begins (None: no cue due)."""
        if self._bank is None or self._cued or self.engine.phase != RUNNING:
            return None
        return (self.engine._deadline - self._bank[1]) / US  # the bank is the clock's last part

    def _cue(self, t: float, inclusive: bool) -> list[ev.Output]:
        """The bank's cue when it falls due by ``t`` (a tie goes to the player: an input at the cue's own
        time is taken first). Like a beep, it never waits for late inputs."""
        if self._bank is None or self._cued or self.engine.phase != RUNNING:  # (_cue_at, written out: hot path)
            return []
        at = (self.engine._deadline - self._bank[1]) / US
        if at > t or (at == t and not inclusive):
            return []
        self._cued = True
        return [ev.BankStarted(at, self._bank[0], self._bank[1] / US)]

    @property
    def now(self) -> float:
        """The engine's clock (seconds)."""
        return self.engine.now

    @property
    def state(self) -> Snapshot:
        """The engine's snapshot with the seats and the seat on the clock."""
        state = self.engine.state
        on_clock = self.on_clock if state.phase in (RUNNING, PAUSED) else None
        view = replace(self.seats.view(), banks=tuple((s, b / US) for s, b in sorted(self.banks.items())),
                       chips_used=tuple(sorted((s, n) for s, n in self.engine.chips_used().items() if n)),
                       allowance=self.engine.settings.shot.allowance)
        return replace(state, seats=view, on_clock=on_clock, notice=self._notice)

    def restore_seats(self, view: SeatsView) -> None:
        """Bring back the seats, the hand, the banks and the chips as the log last kept them (a restart)."""
        self.seats.restore(view)
        self.banks = {seat: round(b * US) for seat, b in view.banks}
        self.engine.restore_chips({})
        for seat, used in view.chips_used:
            self.engine.give_chips((seat,), -used)
        if self.engine.phase != IDLE:
            self.on_clock = self.seats.turn  # a clock brought back paused is the seat on turn's
            self._bank_restored()

    def restore_paused(self, t: float, remaining: float, facing_bet: bool, street: str | None,
                       extensions: int = 0, seconds: float | None = None) -> None:
        """Bring back a clock cut off by a stop, paused, for the seat on turn."""
        self.engine.restore_paused(t, remaining, facing_bet, street, extensions, seconds)
        self.on_clock = self.seats.turn
        self._bank_restored()

    def _bank_restored(self) -> None:
        """In time bank mode, a clock brought back still ends in its player's bank (the last part of the clock,
        as when it started: the log keeps each bank as it was at the clock's start). The player pays for the
        clock time used before the stop and after the resume, never for the time the device was down: the
        clock came back with the time it had when the device stopped. So its decision deducts ``bank_used``
        as any decision does (the bank's cue already sounded when less than the bank is left)."""
        bank = self.banks.get(self.on_clock, 0) if self.on_clock is not None else 0
        self._bank = (self.on_clock, bank) if bank > 0 else None
        self._cued = self.engine._left <= bank  # the clock is paused: _left is its time left

    def restore_chips(self, used: dict[int, int]) -> None:
        """Bring back the extension chips each seat had used (from the log)."""
        self.engine.restore_chips(used)

    # -- outputs -------------------------------------------------------------------------

    def clock_starts(self) -> tuple[int | None, int]:
        """The engine starts a clock: it is the seat on turn's. Returns (the seat, its time bank in µs, 0 for
        none): the engine adds the bank as the last part of the same clock."""
        seat = self.on_clock = self.seats.turn
        bank = self.banks.get(seat, 0) if self.banks else 0
        if bank > 0:
            self._bank, self._cued = (seat, bank), False
            return seat, bank
        self._bank, self._cued = None, False
        return seat, 0

    def clock_ends(self, outcome: str, left: int) -> tuple[int | None, float | None, float | None]:
        """The engine ends the clock with ``outcome`` and ``left`` µs on it (negative in the tie window): the
        seat it was for and, in time bank mode, the seconds of the player's bank it used and what is left
        (deducted here; the bank is the clock's last part)."""
        if self._bank is None:
            return self.on_clock, None, None
        seat, bank = self._bank
        self._bank = None
        if outcome != ev.ACTED and outcome != ev.CANCELLED:
            left = 0  # ruled at 0: the whole bank went
        used = min(bank, max(0, bank - left))
        banks = self.banks
        after = banks[seat] = banks.get(seat, bank) - used
        return self.on_clock, used / US, after / US

    def _timers(self, outputs: list[ev.Output]) -> list[ev.Output]:
        """The engine's own outputs (beeps, a ruling at 0, the bank's cue first): a ruling moves the turn on."""
        if not outputs:
            return outputs
        if outputs[0].__class__ is ev.BankStarted:
            outputs = sorted(outputs, key=lambda o: o.t)  # stable: the cue before a beep at the same time
        out = []
        for o in outputs:
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
        turn = self.seats.turn
        out = [ev.Turn(t, turn, why, self.seats.players.get(turn) or None)] if turn != turn_before else []  # _turn
        if self.seats.winner is not None:
            out.append(ev.HandOver(t, self.seats.winner))
            if self.engine.mode == "shot" and self.engine.phase != IDLE:
                out += self.engine.handle(ev.Stop(t))  # nobody left to play against: end it quietly
        return out

    @staticmethod
    def _ignored(outputs: list[ev.Output]) -> bool:
        for o in outputs:  # (a loop, not any() over a generator: every hand and street asks)
            if o.__class__ is ev.Ignored:
                return True
        return False

    # -- the events ----------------------------------------------------------------------

    def _hand(self, event: ev.Hand) -> list[ev.Output]:
        out = self.engine.handle_at(self._t_us, event)
        if self._ignored(out):
            return out
        self.seats.new_hand()
        return out + [self._turn(event.t, "hand", self.seats.button)]

    def _street(self, event: ev.Street) -> list[ev.Output]:
        out = self.engine.handle_at(self._t_us, event)
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
        turn = seats.turn
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
            if not last and self._passes_on:
                return self._pass_on(t, kind, marks)
            # Never ignored: a running or paused clock takes an action in both modes (TRANSITIONS).
            played = ev.LastAction(t) if last else event if event.__class__ is ev.Action else ev.Action(t)
            out = self.engine.handle_at(self._t_us, played)
            if self.engine.phase == IDLE:
                self.on_clock = None
            # The next player's clock (the engine's last output) is put after the turn line.
            started = out.pop() if out and out[-1].__class__ is ev.Started else None
            if marks:
                out += marks
            out += self._after(t, turn, kind)
            if started is not None:
                out.append(started)
            return out
        return marks + self._after(t, turn, kind)

    def _pass_on(self, t: float, kind: str, marks: list[ev.Output]) -> list[ev.Output]:
        """A decision on a running or paused shot clock with another seat to act next: the most frequent event
        at a seated table. What the general path does (the engine's ``acted_next_player`` transition: rule the
        clock acted, start the next player's; the seats' part around it), written out: output for output the
        same (tests/test_seated_pass_on.py replays random sessions both ways)."""
        engine, t_us = self.engine, self._t_us
        # As Engine.handle_at: a beep due at the event's own time sounds first (handle caught up to the event
        # only when it came later than the last: two events at one time find the beep here; never a ruling,
        # which waits for the time after its own). A paused clock's engine has not come this far yet.
        timers = []
        if engine.phase == RUNNING:
            beep = engine._next_beep
            if (engine._deadline - beep * US if beep is not None else engine._deadline + engine._tie) <= t_us:
                timers = engine._run_timers(t_us, inclusive=False)
        engine._now = t_us
        # The ruling: Engine._acted_next_player, _decide and clock_ends.
        left = engine._deadline - t_us if engine.phase == RUNNING else engine._left
        used = bank_left = None
        if self._bank is not None:
            seat, bank = self._bank
            spent = min(bank, max(0, bank - left))
            after = self.banks[seat] = self.banks.get(seat, bank) - spent
            used, bank_left = spent / US, after / US
        decision = engine.last = engine.last_shown = ev.Decision(
            t_us / US, ev.ACTED, max(0, left) / US, left <= 0, None, self.on_clock, used, bank_left)
        engine.interrupted = False
        # The next player's clock: Engine._start and clock_starts.
        seat = self.on_clock = self.seats.turn
        bank = self.banks.get(seat, 0) if self.banks else 0
        self._bank, self._cued = ((seat, bank) if bank > 0 else None), False
        street = engine.street
        seconds = engine._street_seconds[street]
        length = engine._seconds = round(seconds * US) + bank
        engine._deadline = t_us + length
        engine._next_beep = min(engine._countdown, length // US) if length >= 0 else None
        engine.extensions = 0
        engine._chips = []
        engine.phase = RUNNING
        started = (ev.Started(t_us / US, seconds + bank / US, street, seat, bank / US) if bank
                   else ev.Started(t_us / US, seconds, street, seat))
        turn_line = ev.Turn(t, seat, kind, self.seats.players.get(seat) or None)  # _after: the turn moved on
        return [*timers, decision, *marks, turn_line, started] if timers or marks else [decision, turn_line, started]

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
        out = self.engine.handle_at(self._t_us, event)
        if event.seat is not None and self._ignored(out) and self._chips(event.seat) == 0:
            self._notice = (event.t, "no_chips", event.seat)  # the dealer sees why the chip did nothing
        return out

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
        if event.chips is not None and not self.engine.settings.shot.allowance:
            return [ev.Ignored(event.t, event.NAME, "this table counts no extension chips (shot.allowance)")]
        try:
            self.seats.seat(event.seat, event.name or "")
        except SeatError as exc:
            return [ev.Ignored(event.t, event.NAME, str(exc))]
        bank = None
        if self._bank_us or event.bank is not None:
            bank = self._bank_us if event.bank is None else round(event.bank * US)
            self.banks[event.seat] = bank
        self.engine.set_chips(event.seat, event.chips)
        return [ev.SeatChanged(event.t, event.seat, "seated", event.name, None if bank is None else bank / US,
                               self._chips(event.seat))]

    def _rename(self, event: ev.Rename) -> list[ev.Output]:
        try:
            self.seats.rename(event.seat, event.name)
        except SeatError as exc:
            return [ev.Ignored(event.t, event.NAME, str(exc))]
        return [ev.SeatChanged(event.t, event.seat, "renamed", event.name)]

    def _seating(self, event: ev.Seating) -> list[ev.Output]:
        """The whole table seated at once; a player already at the same seat under the same name keeps their
        bank and chips. Checked first on a copy: one bad entry changes nothing."""
        trial = Seats(self.seats.count)
        try:
            for entry in event.players:
                seat, name = entry
                trial.seat(seat, name)
        except (SeatError, TypeError, ValueError) as exc:
            return [ev.Ignored(event.t, event.NAME, f"nothing seated: {exc}")]
        out: list[ev.Output] = []
        new = dict(trial.players)
        for seat in sorted(self.seats.players):
            if self.seats.players[seat] != new.get(seat) or not new.get(seat):
                out += self._empty(ev.EmptySeat(event.t, seat))
        for seat, name in sorted(new.items()):
            if seat not in self.seats.players:
                out += self._seat_player(ev.SeatPlayer(event.t, seat, name or None))
        return out

    def _chips(self, seat: int) -> int | None:
        """The extension chips ``seat`` holds (None: not counted)."""
        allowance = self.engine.settings.shot.allowance
        return allowance - self.engine.chips_used().get(seat, 0) if allowance else None

    def _empty(self, event: ev.EmptySeat) -> list[ev.Output]:
        turn, name = self.seats.turn, self.seats.players.get(event.seat)
        try:
            self.seats.empty(event.seat)
        except SeatError as exc:
            return [ev.Ignored(event.t, event.NAME, str(exc))]
        if self.on_clock == event.seat and self.engine.phase != IDLE:
            self.on_clock = self.seats.turn
        # What the player leaves with (a table move takes it along): the bank and the chips left.
        bank = self.banks.pop(event.seat, None)
        chips = self._chips(event.seat)
        self.engine.set_chips(event.seat, None)
        return [ev.SeatChanged(event.t, event.seat, "emptied", name or None, None if bank is None else bank / US,
                               chips)] + self._after(event.t, turn, "empty")

    def _top_up(self, event: ev.TopUp) -> list[ev.Output]:
        chips, seconds = event.chips or 0, event.seconds or 0
        if not chips and not seconds:
            return [ev.Ignored(event.t, event.NAME, "a top-up needs chips or seconds")]
        if chips and not self.engine.settings.shot.allowance:
            return [ev.Ignored(event.t, event.NAME, "this table counts no extension chips (shot.allowance)")]
        if seconds and not self._bank_us:
            return [ev.Ignored(event.t, event.NAME, "this table runs no time bank (seats.bank)")]
        seated = list(self.seats.players)
        for seat in seated if chips else ():  # no player holds more than the field's bound (core/fields.py)
            self.engine.give_chips([seat], max(0, min(chips, CHIPS_MAX - (self._chips(seat) or 0))))
        for seat in seated if seconds else ():
            self.banks[seat] = min(BANK_MAX * US, self.banks.get(seat, 0) + round(seconds * US))
        return [ev.ToppedUp(event.t, chips or None, seconds or None)]

    def _button(self, event: ev.SetButton) -> list[ev.Output]:
        try:
            self.seats.set_button(event.seat)
        except SeatError as exc:
            return [ev.Ignored(event.t, event.NAME, str(exc))]
        return [ev.SeatChanged(event.t, event.seat, "button")]
