"""The seats of one table: who sits where, the dealer button, who is still in the hand, whose turn it is.

Pure, like the rest of the core: no clock, no I/O. :class:`Seats` is told what happened (a new hand,
a new street, the player on turn acted, folded or went all-in, the floor seated or moved a player)
and keeps whose turn it is, by the book:

* pre-flop the first player to act is the first one left of the big blind; after the flop it is the
  first active seat left of the button;
* heads-up (two players in the hand) the button is the small blind: it acts first pre-flop and last
  after the flop;
* folded and all-in seats are skipped; when nobody but the player who just acted can still act (all
  the others folded or all-in), nobody is on turn (``turn`` is None) until the next street or hand;
* the dealer's street press is what ends a street (the model never guesses that a betting round is
  complete: it does not know the bets);
* a new hand moves the button to the next occupied seat.

Dead-button simplification: the tournament "dead button" and "dead small blind" rules (when the player
who should have the button or a blind has busted) are not modelled. The button simply moves to the next
occupied seat, the small blind is the next occupied seat after it and the big blind the next after that.
A floor that plays a dead button sets the button by hand (:meth:`Seats.set_button`): a button set
since the last hand is taken as it is by the next one.

Example::

    >>> seats = Seats(6)
    >>> for s in (1, 3, 5):
    ...     seats.seat(s)
    >>> seats.set_button(1)
    >>> seats.new_hand()     # button 1, small blind 3, big blind 5: seat 1 acts first
    >>> seats.turn
    1
    >>> seats.fold(); seats.turn
    3
    >>> seats.new_street(); seats.turn    # after the flop: the first active seat left of the button
    3
"""

from __future__ import annotations

import csv
from dataclasses import dataclass

from shotclock.core.fields import (FIELDS, as_whole, MAX_SEATS, MIN_SEATS, NAME_MAX,  # noqa: F401 (one rule, in fields)
                                   name_problem)
from shotclock.core.log_records import SeatMark, SeatsData


class SeatError(ValueError):
    """A seat command that cannot be carried out (a seat out of range, an empty seat, a bad name)."""


@dataclass(frozen=True)
class SeatsView:
    """A frozen picture of the seats, for the screen, the log and the tests.

    ``players`` maps each occupied seat to its name ("" when none is known); ``turn`` is the seat to act
    (None: nobody); ``last_acted`` the seat whose decision the dealer marked last (a fold marked by
    holding the action button applies to it).
    """

    count: int
    players: tuple[tuple[int, str], ...]
    button: int | None
    in_hand: frozenset[int]
    all_in: frozenset[int]
    turn: int | None
    last_acted: int | None
    winner: int | None = None
    banks: tuple[tuple[int, float], ...] = ()  # time bank mode: (seat, seconds left)
    chips_used: tuple[tuple[int, int], ...] = ()  # extension chips used per seat (negative: topped up)
    allowance: int = 0  # the extension chips each player starts with (0: not counted)
    marks: tuple[tuple[int, str, float | None], ...] = ()  # the floor's marks: (seat, mark, its own clock's seconds)

    def name(self, seat: int | None) -> str:
        """The name at ``seat`` ("" when unknown or empty)."""
        return dict(self.players).get(seat, "") if seat is not None else ""

    def bank(self, seat: int | None) -> float | None:
        """The time bank ``seat`` has left (None: no time bank)."""
        return dict(self.banks).get(seat) if seat is not None else None

    def mark(self, seat: int | None) -> tuple[str, float | None] | None:
        """The mark on the player at ``seat``: (``warning`` or ``clock``, the clock's seconds), or None."""
        for s, mark, seconds in self.marks:
            if s == seat:
                return mark, seconds
        return None

    def record(self) -> SeatsData:
        """The data of the ``seats`` record the log keeps, from which :func:`view_from_record` restores it."""
        return SeatsData(count=self.count, players={str(s): n for s, n in self.players}, button=self.button,
                         in_hand=sorted(self.in_hand), all_in=sorted(self.all_in), turn=self.turn,
                         last_acted=self.last_acted, banks={str(s): b for s, b in self.banks},
                         chips_used={str(s): n for s, n in self.chips_used},
                         marks={str(s): SeatMark(m) if sec is None else SeatMark(m, sec) for s, m, sec in self.marks})


def view_from_record(row: dict, count: int) -> SeatsView | None:
    """The seats a ``seats`` record kept, for a table of ``count`` seats (None: the record does not fit the
    table, or is damaged; never fatal: the table then starts as configured)."""
    def seat(v):
        v = as_whole(v)
        return v if v.__class__ is int and 1 <= v <= count else None

    try:
        players = {seat(k): v for k, v in (row.get("players") or {}).items() if isinstance(v, str)}
        if None in players or any(v and name_problem(v) for v in players.values()):
            return None
        in_hand = frozenset(s for s in map(seat, row.get("in_hand") or ()) if s in players)
        all_in = frozenset(s for s in map(seat, row.get("all_in") or ()) if s in in_hand)
        turn = seat(row.get("turn"))
        turn = turn if turn in in_hand and turn not in all_in else None
        banks = tuple(sorted((seat(k), float(v)) for k, v in (row.get("banks") or {}).items()
                             if seat(k) is not None and isinstance(v, (int, float)) and v >= 0))
        chips = tuple(sorted((seat(k), v) for k, v in (row.get("chips_used") or {}).items()
                             if seat(k) is not None and v.__class__ is int))
        marks = tuple(sorted(m for m in (mark_entry(seat(k), v) for k, v in (row.get("marks") or {}).items())
                             if m is not None and m[0] in players))
    except (AttributeError, TypeError, ValueError):
        return None
    if row.get("count") != count:
        return None
    return SeatsView(count, tuple(sorted(players.items())), seat(row.get("button")), in_hand, all_in, turn,
                     seat(row.get("last_acted")), None, banks, chips, marks=marks)


def mark_problem(mark: object, seconds: object) -> str | None:
    """Why (``mark``, ``mark_seconds``) is no mark (None: it is one): each by the table of fields, and a ``clock``
    mark has its seconds, a warning none."""
    problem = FIELDS["mark"].problem(mark) or (seconds is not None and FIELDS["mark_seconds"].problem(seconds))
    if problem:
        return problem
    if mark == "clock" and seconds is None:
        return str(refusal("mark_no_seconds", low=FIELDS["mark_seconds"].low, high=FIELDS["mark_seconds"].high))
    if mark == "warning" and seconds is not None:
        return str(refusal("warning_seconds"))
    return None


def mark_entry(seat: int | None, value) -> tuple[int, str, float | None] | None:
    """A ``seats`` record's mark of ``seat`` ({"mark", "mark_seconds"}) as (seat, mark, seconds); None when damaged."""
    if seat is None or not isinstance(value, dict):
        return None
    mark, seconds = value.get("mark"), value.get("mark_seconds")
    return None if mark_problem(mark, seconds) else (seat, mark, seconds)


def refusal(code: str, **params) -> SeatError:
    """The :class:`SeatError` for a reason of :mod:`shotclock.core.reasons` (its words: one template each, in
    core/texts.py, so the pages can say it in Dutch)."""
    from shotclock.core.reasons import reason  # only when refusing: core.reasons imports the texts

    return SeatError(reason(code, **params))


class Seats:
    """The seats of one table (see the module's description).

    :param count: the number of seats, 2 to 10.
    """

    def __init__(self, count: int = 9):
        if not MIN_SEATS <= count <= MAX_SEATS:
            raise SeatError(f"a table has {MIN_SEATS} to {MAX_SEATS} seats, not {count}")
        self.count = count
        # The seats clockwise after each seat, itself last (seat 0: from seat 1), and counter-clockwise before it.
        self._clockwise = {seat: tuple((seat + step - 1) % count + 1 for step in range(1, count + 1))
                           for seat in range(count + 1)}
        self._counter_clockwise = {seat: tuple((seat - step - 1) % count + 1 for step in range(1, count + 1))
                                   for seat in range(count + 1)}
        self.players: dict[int, str] = {}  # occupied seat -> name ("" when unknown)
        self.button: int | None = None
        self._button_placed = False  # the floor set the button since the last hand: the next hand keeps it
        self.in_hand: set[int] = set()
        self.all_in: set[int] = set()
        self.turn: int | None = None
        self.last_acted: int | None = None
        self.winner: int | None = None  # everyone else folded: the hand is over

    # -- the floor ------------------------------------------------------------------

    def check_seat(self, seat: object, occupied: bool | None = None) -> int:
        """``seat`` if it is a seat of this table (and occupied or empty as asked), else :class:`SeatError`."""
        if seat.__class__ is not int or not 1 <= seat <= self.count:
            raise refusal("seat_range", count=self.count, seat=repr(seat))
        if occupied is True and seat not in self.players:
            raise refusal("seat_empty", seat=seat)
        if occupied is False and seat in self.players:
            raise refusal("seat_taken", seat=seat)
        return seat

    def seat(self, seat: int, name: str = "") -> None:
        """Seat a player at ``seat``, optionally named; they play from the next hand. The seat must be empty
        or held by an unnamed player (the seats a table starts with), who is then this player."""
        self.check_seat(seat)
        if self.players.get(seat):
            raise refusal("seat_taken_by", seat=seat, name=self.players[seat])
        if name:
            problem = name_problem(name)
            if problem:
                raise SeatError(problem)
        self.players[seat] = name

    def rename(self, seat: int, name: str) -> None:
        """Name the player at ``seat``."""
        self.check_seat(seat, occupied=True)
        problem = name_problem(name)
        if problem:
            raise SeatError(problem)
        self.players[seat] = name

    def empty(self, seat: int) -> None:
        """The player at ``seat`` leaves (busted, moved): out of the hand; the turn moves on if it was theirs."""
        self.check_seat(seat, occupied=True)
        del self.players[seat]
        if seat in self.in_hand:
            self._out(seat)

    def set_button(self, seat: int) -> None:
        """Put the dealer button at ``seat`` (occupied): the next hand is dealt from it as it is."""
        self.check_seat(seat, occupied=True)
        self.button = seat
        self._button_placed = True

    # -- the dealer ------------------------------------------------------------------

    def new_hand(self) -> None:
        """A new hand: the button moves on (unless the floor just set it), everyone seated is in, the
        pre-flop order starts left of the big blind. Fewer than two players: no hand, nobody on turn."""
        self.all_in.clear()
        self.last_acted = self.winner = None
        if len(self.players) < 2:
            self.in_hand.clear()
            self.turn = None
            return
        if self.button is None or (not self._button_placed):
            start = self.button if self.button is not None else 0
            self.button = self._next(start, self.players)
        self._button_placed = False
        self.in_hand = set(self.players)
        self.turn = self.preflop_first()

    def blinds(self) -> tuple[int, int] | None:
        """(small blind, big blind) of this hand, or None when fewer than two are in it.

        Heads-up the button is the small blind."""
        if self.button is None or len(self.in_hand) < 2:
            return None
        dealt = self.in_hand
        if len(dealt) == 2:
            small = self.button if self.button in dealt else self._next(self.button, dealt)
        else:
            small = self._next(self.button, dealt)
        return small, self._next(small, dealt)

    def preflop_first(self) -> int | None:
        """The first seat to act pre-flop: the first active seat left of the big blind."""
        blinds = self.blinds()
        if blinds is None:
            return None
        return self._next(blinds[1], self._active())

    def new_street(self) -> None:
        """The dealer's street press: the first active seat left of the button acts (nobody when fewer
        than two can still act)."""
        self.last_acted = None
        active = self._active()
        if len(active) < 2 or self.button is None:
            self.turn = None
            return
        self.turn = self._next(self.button, active)

    def acted(self) -> None:
        """The player on turn acted and is still in: the turn moves to the next active seat."""
        if self.turn is None:
            return
        self.last_acted = self.turn
        self._move_on(self.turn)

    def fold(self, seat: int | None = None) -> None:
        """``seat`` (default: the player on turn) folds: out of the hand; on turn, the turn moves on."""
        seat = self.turn if seat is None else seat
        if seat is None or seat not in self.in_hand:
            return
        if seat == self.turn:
            self.last_acted = seat
        self._out(seat)

    def go_all_in(self, seat: int | None = None) -> None:
        """``seat`` (default: the player on turn) is all-in: skipped from now on; on turn, the turn moves on."""
        seat = self.turn if seat is None else seat
        if seat is None or seat not in self.in_hand:
            return
        self.all_in.add(seat)
        if seat == self.turn:
            self.last_acted = seat
            self._move_on(seat)

    def correct(self, back: bool) -> None:
        """The dealer corrects the turn one active seat back or forward (:meth:`back`, :meth:`forward`);
        :class:`SeatError` when it cannot move."""
        turn = self.turn
        if back:
            self.back()
        else:
            self.forward()
        if self.turn == turn:
            raise SeatError("nobody else can be on turn" if turn is not None else "nobody is on turn")

    def check_on_turn(self) -> None:
        """:class:`SeatError` when nobody is on turn: a decision with no clock running is the turn's."""
        if self.turn is None:
            raise SeatError("nobody is on turn (start a new hand, or correct the turn)")

    def check_mark(self, kind: str, seat: int) -> None:
        """:class:`SeatError` when ``kind`` (an event's name) cannot be marked on ``seat``, a seat not on turn: only a
        fold or an all-in can (the action button's hold, the floor), of a seat in the hand, not all-in twice."""
        if kind not in ("fold", "all_in"):
            raise SeatError("an action is the decision of the seat on turn")
        if seat not in self.in_hand:
            raise SeatError(f"seat {seat} is not in the hand")
        if kind == "all_in" and seat in self.all_in:
            raise SeatError(f"seat {seat} is already all-in")

    def check_seating(self, players) -> dict[int, str]:
        """The players (``(seat, name)`` pairs) a whole seating would seat, checked whole on a copy: one bad entry
        is a :class:`SeatError` (``nothing seated: …``) and nothing is seated."""
        trial = Seats(self.count)
        try:
            for entry in players:
                seat, name = entry
                trial.seat(seat, name)
        except (SeatError, TypeError, ValueError) as exc:
            raise refusal("nothing_seated", why=exc) from None
        return dict(trial.players)

    def forward(self) -> None:
        """Correct the turn one active seat forward (no decision is marked). A hand with one player left is
        over: nobody can be on turn in it."""
        if self.turn is not None and len(self.in_hand) >= 2:
            self.turn = self._next(self.turn, self._active())

    def back(self) -> None:
        """Correct the turn one active seat back (no decision is marked); nobody in a hand that is over."""
        active = self._active()
        if not active or len(self.in_hand) < 2:
            return
        start = self.turn if self.turn is not None else (self.last_acted or 1) % self.count + 1
        self.turn = self._previous(start, active)

    # -- reading -------------------------------------------------------------------

    def view(self) -> SeatsView:
        """A frozen picture of the seats now."""
        return SeatsView(self.count, tuple(sorted(self.players.items())), self.button, frozenset(self.in_hand),
                         frozenset(self.all_in), self.turn, self.last_acted, self.winner)

    def restore(self, view: SeatsView) -> None:
        """Back to ``view`` (a picture taken with :meth:`view`)."""
        self.players = dict(view.players)
        self.button, self.turn, self.last_acted, self.winner = view.button, view.turn, view.last_acted, view.winner
        self.in_hand, self.all_in = set(view.in_hand), set(view.all_in)

    def can_act(self) -> frozenset[int]:
        """The seats that can still act: in the hand and not all-in."""
        return frozenset(self._active())

    # -- inside --------------------------------------------------------------------

    def _active(self) -> set[int]:
        return self.in_hand - self.all_in

    def _out(self, seat: int) -> None:
        was_turn = seat == self.turn
        self.in_hand.discard(seat)
        self.all_in.discard(seat)
        if len(self.in_hand) == 1:
            self.winner = next(iter(self.in_hand))
            self.turn = None
        elif was_turn:
            self._move_on(seat)

    def _move_on(self, seat: int) -> None:
        """The turn passes from ``seat`` to the next active seat; None when only ``seat`` (or nobody) can act."""
        in_hand, all_in = self.in_hand, self.all_in
        for s in self._clockwise[seat]:  # (_next over _active, written out: every decision moves the turn)
            if s in in_hand and s not in all_in:
                self.turn = None if s == seat else s
                return
        self.turn = None

    def _next(self, seat: int, among) -> int | None:
        """The first seat of ``among`` clockwise after ``seat`` (``seat`` itself last)."""
        for s in self._clockwise[seat]:
            if s in among:
                return s
        return None

    def _previous(self, seat: int, among) -> int | None:
        """The first seat of ``among`` counter-clockwise before ``seat`` (``seat`` itself last)."""
        for s in self._counter_clockwise[seat]:
            if s in among:
                return s
        return None


def parse_seating(lines, count: int) -> list[tuple[int, str]]:
    """A seating export (``seat,name`` a line; a first line ``seat,name`` is a header) as ``[(seat, name)]``.

    :param lines: the file's lines (strings).
    :param count: the table's seats (``seats.count``).
    :raises SeatError: naming the first bad line ("line 3: seat 11 is not a seat of this table (1 to 9)").

    >>> parse_seating(["seat,name", "1,Ana Costa", '4,"Okafor, Ben"'], 9)
    [(1, 'Ana Costa'), (4, 'Okafor, Ben')]
    """
    out: list[tuple[int, str]] = []
    seen: dict[int, int] = {}
    names: dict[str, tuple[int, int]] = {}  # a name (casefolded) → its seat and line
    for number, row in enumerate(csv.reader(lines), 1):
        if not row or all(not cell.strip() for cell in row):
            continue
        if number == 1 and [c.strip().lower() for c in row] == ["seat", "name"]:
            continue
        if len(row) != 2:
            raise SeatError(f"line {number}: expected 'seat,name' (2 fields), got {len(row)}")
        text, name = row[0].strip(), row[1].strip()
        seat = as_whole(text)  # plain digits only: '1²' and '١' are no seat numbers
        if seat.__class__ is not int:
            raise SeatError(f"line {number}: the seat must be a number in plain digits (0-9), not {text!r}")
        if not 1 <= seat <= count:
            raise SeatError(f"line {number}: seat {seat} is not a seat of this table (1 to {count})")
        if seat in seen:
            raise SeatError(f"line {number}: seat {seat} is given twice (line {seen[seat]} too)")
        problem = name_problem(name)
        if problem:
            raise SeatError(f"line {number}: {problem}")
        if name.casefold() in names:  # one player, one seat (a name given twice is a mistake in the export)
            other, line = names[name.casefold()]
            raise SeatError(f"line {number}: {name!r} is seated twice (seat {seat}, and seat {other} on line {line})")
        names[name.casefold()] = (seat, number)
        seen[seat] = number
        out.append((seat, name))
    if not out:
        raise SeatError("no players (expected 'seat,name' lines)")
    return out
