"""The engine with seat tracking: the clock's rules, and whose decision each clock is.

:class:`SeatedEngine` holds an :class:`~shotclock.core.engine.Engine` and the table's seats
(:class:`TableSeats`, the engine's :class:`~shotclock.core.engine.SeatSide`: it answers whose each clock is
and what bank it carries). It takes the same events and gives the same outputs, with the seat added: a
``start`` and a ``decision`` name the seat on the clock, ``turn`` lines say who is to act next, and the
seat events (``seat``, ``empty``, ``button``, ``fold``, ``all_in``, ``turn_back``, ``turn_forward``) change
the seats. Every clock is one player's: the engine's timing rules are untouched, and a seat event on a
running clock is ruled once, here (docs/rules.md, "Seat changes on a running clock"): a turn correction
ends the wrong seat's clock charged to nobody and starts the right player's own; an ``empty`` of the seat
on the clock or a ``seating`` ends it quietly, charged to nobody; a ``top_up`` of the banks lengthens the
running clock by as much (the bank is its last part); ``rename``, ``button`` and ``seat`` change nothing of it.

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

The floor's marks (``mark``, ``unmark``; TDA 2024 Rules 70 and 71): a mark is the player's, kept with the banks
and leaving with them (``empty`` says it, ``seat`` brings it). A ``clock`` mark gives every clock that starts on the
player its ``mark_seconds`` in place of the table's time (the bank still follows); in clock mode the table starts
that clock itself as the turn comes to them, and a street, a new hand or the hand won ends it quietly (a floor's
called clock still refuses them). A mark or unmark never changes a running clock.

Example::

    >>> from shotclock.core.settings import SeatSettings, Settings
    >>> engine = SeatedEngine(Settings(mode="shot", seats=SeatSettings(track=True, count=3)))
    >>> [o.to_json() for o in engine.handle(ev.Hand(0.0))]   # button 1, blinds 2 and 3: seat 1 acts first
    ['{"type":"turn","t":0.0,"seat":1,"why":"hand","button":1}']
    >>> [o.to_json() for o in engine.handle(ev.Start(1.0))]
    ['{"type":"start","t":1.0,"seconds":30,"street":"preflop","seat":1}']
    >>> [o.to_json() for o in engine.handle(ev.Fold(5.0))][:2]
    ['{"type":"decision","t":5.0,"outcome":"acted","remaining":26.0,"at_zero":false,"seat":1}', '{"type":"seat","t":5.0,"seat":1,"change":"folded"}']
"""

from __future__ import annotations

from dataclasses import replace

from shotclock.core import events as ev
from shotclock.core.engine import IDLE, PAUSED, RUNNING, US, EndQuietly, Engine, Snapshot, TurnCorrected
from shotclock.core.fields import BANK_MAX, CHIPS_MAX
from shotclock.core.reasons import reason
from shotclock.core.seats import SeatError, Seats, SeatsView, mark_problem, refusal
from shotclock.core.settings import Settings
from shotclock.errors import EventError


def make_engine(settings: Settings, start: float = 0.0):
    """The engine a table with ``settings`` runs: a :class:`SeatedEngine` with seat tracking, else the bare
    :class:`~shotclock.core.engine.Engine`."""
    return SeatedEngine(settings, start) if settings.seats.track else Engine(settings, start)


class TableSeats:
    """The seat side of a seat-aware clock (the engine's :class:`~shotclock.core.engine.SeatSide`): the seats,
    each player's time bank, and whose the running clock is. The engine asks it whose each clock is as it starts
    one and charges the bank through it as one ends; it never asks the engine anything.

    :param count: the table's seats. :param bank: each player's time bank at the start (µs; 0: no bank mode).
    """

    def __init__(self, count: int, bank: int):
        self.seats = Seats(count)
        for seat in range(1, count + 1):
            self.seats.players[seat] = ""  # a full table of unnamed players: the buttons-alone baseline
        self.bank_at_start = bank
        self.banks: dict[int, int] = {seat: bank for seat in self.seats.players} if bank else {}  # seat -> µs left
        self.on_clock: int | None = None  # the seat the running or paused clock is for
        self.bank: tuple[int, int] | None = None  # (seat, its bank at the clock's start) of the clock running now
        self.cued = False  # the bank's cue has sounded for this clock
        self.marks: dict[int, tuple[str, float | None]] = {}  # seat -> the floor's mark on its player (mark, seconds)

    def clock_starts(self) -> tuple[int | None, int, int | None]:
        """A clock starts: it is the seat on turn's, with that player's own bank as its last part, and their own
        clock in place of the table's time when the floor marked them so."""
        seat = self.on_clock = self.seats.turn
        bank = self.banks.get(seat, 0) if self.banks else 0
        self.bank, self.cued = ((seat, bank) if bank > 0 else None), False
        return seat, bank, self.own_clock(seat)

    def unmark(self, seat: int) -> tuple[str, float | None]:
        """Take the floor's mark off the player at ``seat``: the mark it was; :class:`SeatError` when none."""
        mark = self.marks.pop(seat, None)
        if mark is None:
            raise refusal("not_marked", seat=seat)
        return mark

    def bank_refusal(self) -> str | None:
        """Why this table gives no seconds of time bank (a top-up of seconds), or None: it runs one (``seats.bank``)."""
        return None if self.bank_at_start else reason("no_bank")

    def own_clock(self, seat: int | None) -> int | None:
        """The µs of ``seat``'s own clock (a ``clock`` mark), or None: the table's rule."""
        mark = self.marks.get(seat) if self.marks else None
        return round(mark[1] * US) if mark is not None and mark[0] == "clock" else None

    def clock_ends(self, outcome: str, left: int, by: str | None) -> tuple[int | None, float | None, float | None]:
        """The clock ends with ``outcome`` and ``left`` µs on it (negative in the tie window): its seat and, in time
        bank mode, the bank seconds it used and what is left (deducted here). A clock that was nobody's (the turn
        corrected, the seat emptied, the table reseated) uses none; a ruling at 0 used all of it."""
        if self.bank is None:
            return self.on_clock, None, None
        seat, bank = self.bank
        self.bank = None
        if left >= bank or (by is not None and by in ev.NOBODYS):
            used = 0  # acted before the bank began; or nobody's clock
        elif outcome != ev.ACTED and outcome != ev.CANCELLED:
            used = bank  # ruled at 0: the whole bank went
        else:
            used = bank - left if left > 0 else bank
        after = self.banks[seat] = self.banks.get(seat, bank) - used
        return self.on_clock, used / US, after / US


class SeatedEngine:
    """An engine that knows whose decision each clock is (see the module's description).

    It holds an :class:`~shotclock.core.engine.Engine` and the :class:`TableSeats` the engine asks whose each clock
    is; it takes the same events and gives the same outputs, with the seat added, and talks to the engine only
    through its public interface. The clock an event started (the next player's after a decision, the right
    player's after a turn correction) is the engine's :attr:`~shotclock.core.engine.Engine.last_started`; it comes
    after the turn line, wherever the engine put it among the event's outputs.
    """

    def __init__(self, settings: Settings, start: float = 0.0):
        self.book = TableSeats(settings.seats.count, round(settings.seats.bank * US))
        self.engine = Engine(settings, start, seat_side=self.book)
        self.seats = self.book.seats
        self._notice: tuple[float, str, int] | None = None  # a refusal the screen shows for a while
        self._t_us = 0  # the time of the event being handled (µs), worked out once per event
        self._own: ev.Decision | None = None  # clock mode: the last decision when the table started a marked player's
        self._own_on = False  # own clock (it runs while no decision came since)
        self._handlers = {
            ev.Hand: self._hand, ev.Street: self._street, ev.Action: self._decision, ev.LastAction: self._decision,
            ev.Fold: self._decision, ev.AllIn: self._decision, ev.Extend: self._extend,
            ev.TurnBack: self._correct, ev.TurnForward: self._correct,
            ev.SeatPlayer: self._seat_player, ev.EmptySeat: self._empty, ev.SetButton: self._button,
            ev.TopUp: self._top_up, ev.Seating: self._seating, ev.Rename: self._rename,
            ev.Mark: self._mark_player, ev.Unmark: self._unmark_player,
        }

    # -- what the engine says, as the engine says it -------------------------------------

    settings = property(lambda self: self.engine.settings, doc="The rule settings.")
    mode = property(lambda self: self.engine.mode, doc="``clock`` or ``shot``.")
    phase = property(lambda self: self.engine.phase, doc="Where the clock is (idle, running, paused).")
    facing_bet = property(lambda self: self.engine.facing_bet, doc="Whether the player on turn faces a bet.")
    street = property(lambda self: self.engine.street, doc="The street (None in clock mode until known).")
    extensions = property(lambda self: self.engine.extensions, doc="This decision's extensions.")
    last = property(lambda self: self.engine.last, doc="The last decision.")
    banks = property(lambda self: self.book.banks, doc="Seat -> time bank left (µs), in time bank mode.")
    on_clock = property(lambda self: self.book.on_clock, doc="The seat the running or paused clock is for.")

    # -- the engine's interface ------------------------------------------------------

    def handle(self, event: ev.Event) -> list[ev.Output]:
        """Take one event (see :meth:`Engine.handle <shotclock.core.engine.Engine.handle>`)."""
        # Timers due before the event first (the bank's cue first: the engine may rule the clock at 0), so the
        # seats see a ruling before the event.
        book, engine = self.book, self.engine
        bank = book.bank
        cue = self._cue_at() if bank is not None and not book.cued else None
        self._t_us, timers = engine.take_time(event)  # (raises for an event dated before the engine's clock)
        if cue is not None and cue < event.t:  # (a tie goes to the player: an input at the cue's time comes first)
            book.cued = True
            out = self._timers([ev.BankStarted(cue, bank[0], bank[1] / US)] + timers)
        else:
            out = self._timers(timers) if timers else timers
        handler = self._handlers.get(event.__class__)
        if handler is None:
            return out + engine.handle_at(self._t_us, event) if out else engine.handle_at(self._t_us, event)
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
        deadline = self.engine.deadline_us
        if self.book.bank is None or self.book.cued or deadline is None:
            return None
        return (deadline - self.book.bank[1]) / US  # the bank is the clock's last part

    def _cue(self, t: float, inclusive: bool) -> list[ev.Output]:
        """The bank's cue when it falls due by ``t`` (a tie goes to the player: an input at the cue's own
        time is taken first). Like a beep, it never waits for late inputs."""
        at = self._cue_at()
        if at is None or at > t or (at == t and not inclusive):
            return []
        self.book.cued = True
        return [ev.BankStarted(at, self.book.bank[0], self.book.bank[1] / US)]

    @property
    def now(self) -> float:
        """The engine's clock (seconds)."""
        return self.engine.now

    @property
    def state(self) -> Snapshot:
        """The engine's snapshot with the seats and the seat on the clock."""
        state = self.engine.state
        on_clock = self.book.on_clock if state.phase in (RUNNING, PAUSED) else None
        view = replace(self.seats.view(), banks=tuple((s, b / US) for s, b in sorted(self.book.banks.items())),
                       chips_used=tuple(sorted((s, n) for s, n in self.engine.chips_used().items() if n)),
                       allowance=self.engine.settings.shot.allowance,
                       marks=tuple((s, m, sec) for s, (m, sec) in sorted(self.book.marks.items())))
        return replace(state, seats=view, on_clock=on_clock, notice=self._notice)

    def restore_seats(self, view: SeatsView) -> None:
        """Bring back the seats, the hand, the banks and the chips as the log last kept them (a restart)."""
        self.seats.restore(view)
        self.book.banks = {seat: round(b * US) for seat, b in view.banks}
        self.book.marks = {seat: (mark, seconds) for seat, mark, seconds in view.marks}
        self.engine.restore_chips({})
        for seat, used in view.chips_used:
            self.engine.give_chips((seat,), -used)
        if self.engine.phase != IDLE:
            self.book.on_clock = self.seats.turn  # a clock brought back paused is the seat on turn's
            self._bank_restored()

    def restore_paused(self, t: float, remaining: float, facing_bet: bool, street: str | None,
                       extensions: int = 0, seconds: float | None = None) -> None:
        """Bring back a clock cut off by a stop, paused, for the seat on turn."""
        self.engine.restore_paused(t, remaining, facing_bet, street, extensions, seconds)
        self.book.on_clock = self.seats.turn
        self._bank_restored()

    def _bank_restored(self) -> None:
        """In time bank mode, a clock brought back still ends in its player's bank (the last part of the clock,
        as when it started: the log keeps each bank as it was at the clock's start). The player pays for the
        clock time used before the stop and after the resume, never for the time the device was down: the
        clock came back with the time it had when the device stopped. So its decision deducts ``bank_used``
        as any decision does (the bank's cue already sounded when less than the bank is left)."""
        book = self.book
        bank = book.banks.get(book.on_clock, 0) if book.on_clock is not None else 0
        book.bank = (book.on_clock, bank) if bank > 0 else None
        book.cued = self.engine.left_us <= bank

    def restore_chips(self, used: dict[int, int]) -> None:
        """Bring back the extension chips each seat had used (from the log)."""
        self.engine.restore_chips(used)

    def retune(self, settings: Settings) -> None:
        """Play the next hand with ``settings`` (see :meth:`Engine.retune <shotclock.core.engine.Engine.retune>`);
        the seats and banks stay as they are."""
        self.engine.retune(settings)

    # -- outputs -------------------------------------------------------------------------

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
                seat, turn, winner = o.seat, self.seats.turn, self.seats.winner
                if o.outcome == ev.HAND_DEAD and seat is not None:
                    self.seats.fold(seat)
                    out.append(ev.SeatChanged(o.t, seat, "folded"))
                elif seat is not None and seat == turn:
                    self.seats.acted()
                out += self._after(o.t, turn, "ruling", winner)
        return out

    def _turn(self, t: float, why: str, button: int | None = None) -> ev.Turn:
        turn = self.seats.turn
        return ev.Turn(t, turn, why, self.seats.players.get(turn) or None, button)

    def _turned(self, t: float, why: str, button: int | None = None) -> list[ev.Output]:
        """The turn line, and in clock mode the clock of a player the floor marked with their own clock: it starts
        as the turn comes to them (their every decision), with the mark's length."""
        seats, engine = self.seats, self.engine
        turn = seats.turn  # (_turn, written out: every decision comes here)
        line = ev.Turn(t, turn, why, seats.players.get(turn) or None, button)
        if (engine.mode != "clock" or engine.phase != IDLE or turn is None or seats.winner is not None
                or self.book.own_clock(turn) is None):
            return [line]
        started = engine.handle_at(round(t * US), ev.Call(t))
        self._own, self._own_on = engine.last, True
        return [line] + started

    def _own_runs(self) -> bool:
        """Clock mode: the clock running is a marked player's own, which the table started (not a floor's call)."""
        if self._own_on and (self.engine.phase == IDLE or self.engine.last is not self._own):
            self._own_on = False
        return self._own_on

    def _after(self, t: float, turn_before: int | None, why: str, winner_before: int | None) -> list[ev.Output]:
        """The turn line when the turn moved, and the end of the hand when one player is left (once a hand)."""
        seats = self.seats
        out = self._turned(t, why) if seats.turn != turn_before else []
        winner = seats.winner
        if winner is not None and winner_before is None:
            out.append(ev.HandOver(t, winner))
            if self.engine.mode == "shot" and self.engine.phase != IDLE:
                out += self._engine(ev.Stop(t))  # nobody left to play against: end it quietly
            elif self._own_runs():  # clock mode: the winner's own clock too (a floor's called clock is the floor's)
                out += self._engine(EndQuietly(t, ev.BY_HAND))
        return out

    @staticmethod
    def _ignored(outputs: list[ev.Output]) -> bool:
        for o in outputs:  # (a loop, not any() over a generator: every hand and street asks)
            if o.__class__ is ev.Ignored:
                return True
        return False

    def _engine(self, event: ev.Event) -> list[ev.Output]:
        """The engine takes ``event`` at the time :meth:`handle` worked out for it."""
        return self.engine.handle_at(self._t_us, event)

    def _handed_over(self, event: ev.Event) -> tuple[list[ev.Output], ev.Started | None]:
        """The engine takes ``event``: (its outputs but the clock it started, that clock or None). The clock is the
        engine's :attr:`~shotclock.core.engine.Engine.last_started` when the event started one, found there, not by
        its place among the outputs, so an output the engine adds cannot move a seated record's parts."""
        engine = self.engine
        before = engine.last_started
        out = engine.handle_at(self._t_us, event)
        started = engine.last_started
        if started is before:
            return out, None
        out.remove(started)  # (one clock starts an event: no other output is equal to it)
        return out, started

    def _end_quietly(self, t: float, by: str) -> list[ev.Output]:
        """End the running or paused clock charged to nobody (an emptied seat, a reseated table)."""
        return self._engine(EndQuietly(t, by)) if self.engine.phase != IDLE else []

    # -- the events ----------------------------------------------------------------------

    def _hand(self, event: ev.Hand) -> list[ev.Output]:
        out = self._own_ends(event.t, ev.BY_HAND) + self._engine(event)
        if self._ignored(out):
            return out
        self.seats.new_hand()
        return out + self._turned(event.t, "hand", self.seats.button)

    def _street(self, event: ev.Street) -> list[ev.Output]:
        out = self._own_ends(event.t, ev.BY_STREET) + self._engine(event)
        if self._ignored(out):
            return out
        self.seats.new_street()
        return out + self._turned(event.t, "street")

    def _own_ends(self, t: float, by: str) -> list[ev.Output]:
        """Clock mode: a street or a new hand ends a marked player's own clock quietly, as the flow of the hand ends
        a shot clock (the dealer's street press says the betting round is over; a called clock still refuses it)."""
        return self._engine(EndQuietly(t, by)) if self._own_runs() else []

    def _decision(self, event) -> list[ev.Output]:
        """``action``, ``last_action``, ``fold``, ``all_in``: a decision of the player on turn, or a mark."""
        t, seats = event.t, self.seats
        seat = getattr(event, "seat", None)
        kind = event.NAME
        if seat is not None and seat != seats.turn:
            return self._mark(event, seat)
        engine = self.engine
        if engine.phase == IDLE:
            try:
                seats.check_on_turn()
            except SeatError as exc:
                return [ev.Ignored(t, kind, str(exc))]
        turn, winner = seats.turn, seats.winner
        if kind == "fold":
            seats.fold()
        elif kind == "all_in":
            seats.go_all_in()
        else:
            seats.acted()
        marks = [ev.SeatChanged(t, turn, "folded" if kind == "fold" else "all_in")] \
            if kind != "action" and kind != "last_action" and turn is not None else None
        if engine.phase == IDLE:
            return marks + self._after(t, turn, kind, winner) if marks else self._after(t, turn, kind, winner)
        # Never ignored: a running or paused clock takes an action in both modes (TRANSITIONS). Nobody left to
        # act: the last action, which starts no next clock.
        last = kind == "last_action" or seats.turn is None or seats.winner is not None
        played = ev.LastAction(t) if last else event if event.__class__ is ev.Action else ev.Action(t)
        before = engine.last_started  # (_handed_over, written out: every decision comes here)
        out = engine.handle_at(self._t_us, played)
        started = engine.last_started
        if started is before:
            started = None
        elif out[-1] is started:  # the next player's clock: it comes after the turn line, wherever the engine put it
            out.pop()
        else:
            out.remove(started)
        if engine.phase == IDLE:
            self.book.on_clock = None
        if marks:
            out += marks
        out += self._after(t, turn, kind, winner)
        if started is not None:
            out.append(started)
        return out

    def _mark(self, event, seat: int) -> list[ev.Output]:
        """A fold or all-in marked on a seat that is not on turn (the action button's hold, the floor)."""
        t, seats, kind = event.t, self.seats, event.NAME
        try:
            seats.check_mark(kind, seat)
        except SeatError as exc:
            return [ev.Ignored(t, kind, str(exc))]
        turn, winner = seats.turn, seats.winner
        if kind == "fold":
            seats.fold(seat)
        else:
            seats.go_all_in(seat)
        return [ev.SeatChanged(t, seat, "folded" if kind == "fold" else "all_in")] + self._after(t, turn, kind, winner)

    def _extend(self, event: ev.Extend) -> list[ev.Output]:
        if event.seat is None and self.book.on_clock is not None and self.engine.phase != IDLE:
            event = ev.Extend(event.t, self.book.on_clock)  # charged to the seat on the clock
        out = self._engine(event)
        if event.seat is not None and self._ignored(out) and self._chips(event.seat) == 0:
            self._notice = (event.t, "no_chips", event.seat)  # the dealer sees why the chip did nothing
        return out

    def _correct(self, event) -> list[ev.Output]:
        """The dealer corrects the turn. On a running or paused clock the clock becomes the right player's own: the
        wrong seat's clock ends charged to nobody and the right player's starts, with their base time and bank."""
        t, seats = event.t, self.seats
        try:
            seats.correct(back=event.__class__ is ev.TurnBack)
        except SeatError as exc:
            return [ev.Ignored(t, event.NAME, str(exc))]
        why = "back" if event.__class__ is ev.TurnBack else "forward"
        if self.engine.phase == IDLE:
            return self._turned(t, why)
        if self._own_runs() and self.book.own_clock(seats.turn) is None:  # the own clock was the wrong seat's:
            ended = self._engine(EndQuietly(t, ev.BY_TURN))           # nobody's, and the right one is not marked
            return ended + [self._turn(t, why)]
        line = self._turn(t, why)
        own = self._own_runs()
        ended, started = self._handed_over(TurnCorrected(t))  # the wrong seat's clock ended; the right one's
        if own:  # the right player's own clock, as the table started it
            self._own = self.engine.last
        return ended + [line] + ([started] if started is not None else [])

    def _seat_player(self, event: ev.SeatPlayer) -> list[ev.Output]:
        problem = self.engine.chips_refusal() if event.chips is not None else None
        if not problem and (event.mark or event.mark_seconds):
            problem = mark_problem(event.mark, event.mark_seconds)
        if problem:
            return [ev.Ignored(event.t, event.NAME, problem)]
        try:
            self.seats.seat(event.seat, event.name or "")
        except SeatError as exc:
            return [ev.Ignored(event.t, event.NAME, str(exc))]
        if event.mark:  # a moved player brings the floor's mark along
            self.book.marks[event.seat] = (event.mark, event.mark_seconds)
        bank = None
        if self.book.bank_at_start or event.bank is not None:
            bank = self.book.bank_at_start if event.bank is None else round(event.bank * US)
            self.book.banks[event.seat] = bank
        self.engine.set_chips(event.seat, event.chips)
        return [ev.SeatChanged(event.t, event.seat, "seated", event.name, None if bank is None else bank / US,
                               self._chips(event.seat), event.mark, event.mark_seconds)]

    def _rename(self, event: ev.Rename) -> list[ev.Output]:
        try:
            self.seats.rename(event.seat, event.name)
        except SeatError as exc:
            return [ev.Ignored(event.t, event.NAME, str(exc))]
        return [ev.SeatChanged(event.t, event.seat, "renamed", event.name)]

    def _seating(self, event: ev.Seating) -> list[ev.Output]:
        """The whole table seated at once; a player already at the same seat under the same name keeps their
        bank and chips. Checked first on a copy: one bad entry changes nothing. A running clock ends quietly,
        charged to nobody: the table is reseated."""
        try:
            new = self.seats.check_seating(event.players)
        except SeatError as exc:
            return [ev.Ignored(event.t, event.NAME, str(exc))]
        out = self._end_quietly(event.t, ev.BY_SEATING)
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
        """The player at the seat leaves. Their clock, when it runs, ends quietly first, charged to nobody: they
        leave with the bank and chips they had before it."""
        seat, turn, winner = event.seat, self.seats.turn, self.seats.winner
        name = self.seats.players.get(seat)
        try:
            self.seats.check_seat(seat, occupied=True)
        except SeatError as exc:
            return [ev.Ignored(event.t, event.NAME, str(exc))]
        out = self._end_quietly(event.t, ev.BY_EMPTY) if self.book.on_clock == seat else []
        self.seats.empty(seat)
        # What the player leaves with (a table move takes it along): the bank and the chips left.
        bank = self.book.banks.pop(seat, None)
        chips = self._chips(seat)
        mark, mark_seconds = self.book.marks.pop(seat, (None, None))
        self.engine.set_chips(seat, None)
        return out + [ev.SeatChanged(event.t, seat, "emptied", name or None, None if bank is None else bank / US,
                                     chips, mark, mark_seconds)] + self._after(event.t, turn, "empty", winner)

    def _top_up(self, event: ev.TopUp) -> list[ev.Output]:
        """Every seated player gets ``chips`` and ``seconds`` more. A player's bank is the last part of their
        clock: when their clock runs, it gets ``seconds`` longer (the bank's cue moves with its end)."""
        chips, seconds = event.chips or 0, event.seconds or 0
        problem = (reason("top_up_empty") if not chips and not seconds
                   else chips and self.engine.chips_refusal() or seconds and self.book.bank_refusal())
        if problem:
            return [ev.Ignored(event.t, event.NAME, problem)]
        seated = list(self.seats.players)
        for seat in seated if chips else ():  # no player holds more than the field's bound (core/fields.py)
            self.engine.give_chips([seat], max(0, min(chips, CHIPS_MAX - (self._chips(seat) or 0))))
        book, grew = self.book, {}
        for seat in seated if seconds else ():  # nor more bank than the field's bound
            before = book.banks.get(seat, 0)
            book.banks[seat] = min(BANK_MAX * US, before + round(seconds * US))
            grew[seat] = book.banks[seat] - before
        remaining = lengthened = None
        more = grew.get(book.on_clock, 0)
        if more > 0 and self.engine.phase != IDLE:
            left = self.engine.add_time(more / US)
            if book.bank is None:  # no bank when the clock started: the base is up once less than it is left
                book.cued = left * US <= more
            book.bank = (book.on_clock, (book.bank[1] if book.bank else 0) + more)
            remaining, lengthened = max(0.0, left), more / US
        return [ev.ToppedUp(event.t, chips or None, seconds or None, remaining, lengthened)]

    def _mark_player(self, event: ev.Mark) -> list[ev.Output]:
        """The floor marks a player (a warning, or their own clock). It never changes a running clock: a clock
        mark gives every clock that starts on them afterwards its length (clock mode: one starts each time the
        turn comes to them)."""
        try:
            self.seats.check_seat(event.seat, occupied=True)
        except SeatError as exc:
            return [ev.Ignored(event.t, event.NAME, str(exc))]
        problem = mark_problem(event.mark, event.mark_seconds)
        if problem:
            return [ev.Ignored(event.t, event.NAME, problem)]
        self.book.marks[event.seat] = (event.mark, event.mark_seconds)
        return [ev.Marked(event.t, event.seat, "marked", event.mark, event.mark_seconds,
                          self.seats.players.get(event.seat) or None, event.by)]

    def _unmark_player(self, event: ev.Unmark) -> list[ev.Output]:
        """The floor takes a player's mark off; a clock of theirs running keeps its length (never during a clock)."""
        try:
            self.seats.check_seat(event.seat, occupied=True)
            mark = self.book.unmark(event.seat)
        except SeatError as exc:
            return [ev.Ignored(event.t, event.NAME, str(exc))]
        return [ev.Marked(event.t, event.seat, "unmarked", mark[0], mark[1],
                          self.seats.players.get(event.seat) or None, event.by)]

    def _button(self, event: ev.SetButton) -> list[ev.Output]:
        try:
            self.seats.set_button(event.seat)
        except SeatError as exc:
            return [ev.Ignored(event.t, event.NAME, str(exc))]
        return [ev.SeatChanged(event.t, event.seat, "button")]
