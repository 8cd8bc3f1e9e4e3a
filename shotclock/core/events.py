"""Input events and output records of the clock engine, and their one JSON codec.

Events are small frozen records in the style of h11: each names what happened and carries its timestamp ``t``
(seconds on the caller's clock) and nothing else. Outputs are what the engine decided, frozen as well. Both are
msgspec ``Struct``s tagged with their name (``"event": "call"``, ``"type": "start"``): :meth:`Output.record`
and :meth:`Event.record` give their JSON form as a dict, :func:`json_lines` writes outputs as JSON Lines (what
``shotclock replay`` prints), and a field left at its default (None) is not written. The replay reader
(:mod:`shotclock.core.replay`) builds events from the same structs.
"""

from __future__ import annotations

from typing import Annotated

import msgspec

from shotclock.core.codec import ENCODER
from shotclock.core.fields import FIELDS, T_LIMIT

# Each field's type and bounds as the replay reader's decoder checks them: from the table of fields.
_Time = Annotated[float, msgspec.Meta(ge=0, lt=T_LIMIT)]
_Seat, _Name, _By = FIELDS["seat"].typed(), FIELDS["name"].typed(), FIELDS["by"].typed()
_Bank, _Chips, _Seconds = FIELDS["bank"].typed(), FIELDS["chips"].typed(), FIELDS["seconds"].typed()
_Mark, _MarkSeconds, _Players = FIELDS["mark"].typed(), FIELDS["mark_seconds"].typed(), FIELDS["players"].typed()
_Level, _Hands = FIELDS["level"].typed(), FIELDS["hands"].typed()


class _Tag:
    """A struct's tag read as a class attribute (``Call.NAME == "call"``, ``Started.TYPE == "start"``): the tag is
    written once, in the class line."""

    def __get__(self, obj, cls) -> str:
        return cls.__struct_config__.tag


class Event(msgspec.Struct, frozen=True, tag_field="event", tag="", omit_defaults=True, forbid_unknown_fields=True):
    """Something that happened at the table at time ``t`` (seconds)."""

    t: _Time
    NAME = _Tag()  # "call", "bet", …

    def record(self) -> dict:
        """The event as a replay input line (``{"event": …, "t": …}`` and the fields that are set)."""
        return msgspec.to_builtins(self)


class Call(Event, tag="call"):
    """The floor calls the clock (clock mode). ``facing_bet`` None keeps the current state."""

    facing_bet: bool | None = None


class Bet(Event, tag="bet"):
    """The dealer marks whether the player faces a bet."""

    facing_bet: bool


class Action(Event, tag="action"):
    """The dealer: the player acted."""


class LastAction(Event, tag="last_action"):
    """The dealer: the player acted and nobody is left to act (an all-in called): no next clock."""


class Pause(Event, tag="pause"):
    """Stop the running clock, keeping the remaining time."""


class Resume(Event, tag="resume"):
    """Restart a paused clock with the time it had left."""


class Cancel(Event, tag="cancel"):
    """The floor cancels the clock: no ruling, and the screen says so."""


class Hand(Event, tag="hand"):
    """Shot mode: a new hand (preflop, facing the blinds)."""


class Street(Event, tag="street"):
    """Shot mode: the next street (no bet faced yet)."""


class Start(Event, tag="start"):
    """Shot mode: the dealer starts the clock for the player to act."""


class Stop(Event, tag="stop"):
    """Shot mode: no more action in this hand (hand over, all-in called): the clock ends quietly, no ruling."""


class Extend(Event, tag="extend"):
    """Shot mode: the player uses one time-extension chip; ``seat`` (1-10) when known, for the allowance."""

    seat: _Seat | None = None


class Undo(Event, tag="undo"):
    """Shot mode: take back the last extension of this decision (a mis-press), within ``shot.undo_seconds``."""


class ResetChips(Event, tag="reset_chips"):
    """Shot mode: the floor gives every player their extension allowance back (a new day or stage)."""


# -- seat tracking (``seats.track``): ignored with the reason when it is off ----------------


class SeatPlayer(Event, tag="seat"):
    """The floor seats a player at ``seat``, optionally with their ``name`` (1-40 characters)."""

    seat: _Seat
    name: _Name | None = None
    bank: _Bank | None = None  # seconds of time bank the player brings (a table move); None: the preset's
    chips: _Chips | None = None  # extension chips the player brings (a table move); None: the allowance
    mark: _Mark | None = None  # the floor's mark the player brings (a table move): ``warning`` or ``clock``
    mark_seconds: _MarkSeconds | None = None  # a ``clock`` mark's own clock (seconds)


class EmptySeat(Event, tag="empty"):
    """The floor empties ``seat`` (the player busted or moved)."""

    seat: _Seat


class SetButton(Event, tag="button"):
    """The floor puts the dealer button at ``seat``; the next hand is dealt from it as it is."""

    seat: _Seat


class Fold(Event, tag="fold"):
    """The dealer: the player on turn folded (a decision); with ``seat``, that seat is out of the hand."""

    seat: _Seat | None = None


class AllIn(Event, tag="all_in"):
    """The dealer: the player on turn went all-in (a decision); with ``seat``, that seat is all-in."""

    seat: _Seat | None = None


class TurnBack(Event, tag="turn_back"):
    """The dealer corrects the turn one active seat back (no decision)."""


class TurnForward(Event, tag="turn_forward"):
    """The dealer corrects the turn one active seat forward (no decision)."""


class TopUp(Event, tag="top_up"):
    """The floor tops up every seated player: ``chips`` more extension chips, ``seconds`` more time bank
    (a new day or stage: "+4 on Day 2")."""

    chips: _Chips | None = None
    seconds: _Seconds | None = None


class Seating(Event, tag="seating"):
    """The floor seats the whole table at once (a tournament program's seating export): ``players`` is
    ``((seat, name), …)``; every other seat is emptied. All or nothing: one bad entry changes nothing."""

    players: _Players


class Rename(Event, tag="rename"):
    """The floor names (or renames) the player at ``seat``."""

    seat: _Seat
    name: _Name


class End(Event, tag="end"):
    """Replay only: advance time to ``t`` and stop."""


class Mark(Event, tag="mark"):
    """The floor marks the player at ``seat`` (TDA 2024 Rules 70 and 71): a ``warning``, or ``clock``: their own
    clock of ``mark_seconds`` on every decision. The mark is the player's (it leaves with them); ``by`` is who
    marked (a floor command's proven sender). It replaces a mark they had, and never changes a running clock."""

    seat: _Seat
    mark: _Mark
    mark_seconds: _MarkSeconds | None = None
    by: _By | None = None


class Unmark(Event, tag="unmark"):
    """The floor takes the mark off the player at ``seat`` (``by``: who); the table's rule is theirs again from the
    next clock on them, never during one."""

    seat: _Seat
    by: _By | None = None


SEAT_EVENTS: tuple[type[Event], ...] = (SeatPlayer, Rename, EmptySeat, SetButton, Fold, AllIn, TurnBack, TurnForward,
                                        TopUp, Seating, Mark, Unmark)
SEAT_EVENT_NAMES = frozenset(cls.NAME for cls in SEAT_EVENTS)


# -- the tournament's rhythm (core/rhythm.py, core/levels.py): from the next hand ---------------------


class Level(Event, tag="level"):
    """The floor sets the tournament ``level`` (and, with ``hands``, the hands per level) from the next hand;
    ``by``: who set it (the floor login the broker proved)."""

    level: _Level
    hands: _Hands | None = None
    by: _By | None = None


class Hands(Event, tag="hands"):
    """The floor sets the hands per level (0: not counted) from the next hand; the level's count goes on."""

    hands: _Hands
    by: _By | None = None


RHYTHM_EVENTS: tuple[type[Event], ...] = (Level, Hands)
# -- the tournament's floor commands (sent to the venue at once): no replay line, they never touch a clock -----


class HandForHand(Event, tag="hand_for_hand"):
    """The floor starts hand-for-hand (TDA RP-8): the table plays its hand, then waits for the floor's release;
    ``minutes``: what each hand-for-hand hand takes off the tournament clock (None: RP-8's 2)."""

    minutes: float | None = None


class ReleaseHand(Event, tag="release_hand"):
    """The floor releases the next hand-for-hand hand (every table at once)."""


class EndHandForHand(Event, tag="end_hand_for_hand"):
    """The floor ends hand-for-hand: the tables play on as before."""


class RoomHandForHand(Event, tag="room_hand_for_hand"):
    """The venue's retained hand-for-hand state of a scope that covers this table (docs/network.md,
    "hand-for-hand"), dated when it reached the table: ``on``, the room's ``hands`` released so far, the ``minutes``
    each takes off the tournament clock and its sequence number ``seq`` (the table takes only a newer one). A table
    that missed a command (offline, a bridge down) is put where the room is (:mod:`shotclock.core.handforhand`)."""

    on: bool
    hands: int
    minutes: float
    seq: int


class UseRuleSet(Event, tag="rule_set"):
    """The floor puts the table on the named rule set from its next hand ("": back to its own rules)."""

    rule_set: str = ""


FLOOR_EVENTS: tuple[type[Event], ...] = (HandForHand, ReleaseHand, EndHandForHand, RoomHandForHand, UseRuleSet)


EVENT_TYPES: dict[str, type[Event]] = {
    cls.NAME: cls
    for cls in (Call, Bet, Action, LastAction, Pause, Resume, Cancel, Hand, Street, Start, Stop, Extend, Undo,
                ResetChips, *SEAT_EVENTS, *RHYTHM_EVENTS, End)
}


class Output(msgspec.Struct, frozen=True, tag_field="type", tag="", omit_defaults=True):
    """Something the engine decided at time ``t``."""

    t: float
    TYPE = _Tag()  # "start", "beep", …

    def record(self) -> dict:
        """The JSON form as a dict: ``type``, ``t`` and the fields that are set."""
        return msgspec.to_builtins(self)

    def to_json(self) -> str:
        """:meth:`record` as one line of JSON (what ``shotclock replay`` prints for it)."""
        return _encode(self).decode()


class Started(Output, tag="start"):
    """A clock started with ``seconds`` on it (shot mode names the street)."""

    seconds: float
    street: str | None = None
    seat: int | None = None  # with seat tracking: the seat on the clock
    bank: float | None = None  # time bank mode: the player's bank, the last part of ``seconds``
    mark: str | None = None  # ``clock``: the player's own clock (the floor's mark), not the table's rule


class Beep(Output, tag="beep"):
    """A countdown beep: ``remaining`` N…1 at each countdown second, 0 at the deadline."""

    remaining: int


ACTED, HAND_DEAD, CHECK, CANCELLED = "acted", "hand_dead", "check", "cancelled"
# Why a clock ended without a ruling (a cancelled decision's ``by``): only the floor's cancel is shown as
# such; the others are the normal flow of a hand and end the clock quietly.
BY_FLOOR, BY_STOP, BY_STREET, BY_HAND = "floor", "stop", "street", "hand"
# Seat tracking: the dealer corrected the turn, the floor emptied the seat on the clock or reseated the table.
# Such a clock is nobody's decision: no bank and no chip is charged for it (docs/rules.md).
BY_TURN, BY_EMPTY, BY_SEATING = "turn", "empty", "seating"
NOBODYS = frozenset({BY_TURN, BY_EMPTY, BY_SEATING})
QUIET_ENDS = frozenset({BY_STOP, BY_STREET, BY_HAND}) | NOBODYS


class Decision(Output, tag="decision"):
    """How a clock ended: ``acted`` (with ``remaining`` and ``at_zero``), ``hand_dead``, ``check`` or ``cancelled``.

    A cancelled clock says ``by`` what: ``floor`` (the floor cancelled it), ``stop`` (no more action in the
    hand), ``street`` or ``hand`` (the dealer moved on to the next street or hand).
    """

    outcome: str
    remaining: float | None = None
    at_zero: bool | None = None
    by: str | None = None
    seat: int | None = None  # with seat tracking: the seat the clock was on
    bank_used: float | None = None  # time bank mode: seconds of the player's bank this decision used
    bank_left: float | None = None  # and what is left of it

    @property
    def is_ruling(self) -> bool:
        """True for a ruling (anything but a cancellation)."""
        return self.outcome != CANCELLED

    @property
    def quiet(self) -> bool:
        """A clock the flow of the hand ended (street, hand, stop): nothing to show for it."""
        return self.by in QUIET_ENDS


class Paused(Output, tag="pause"):
    """The clock was paused with ``remaining`` seconds on it."""

    remaining: float


class Resumed(Output, tag="resume"):
    """The clock runs again with ``remaining`` seconds on it."""

    remaining: float


class Extended(Output, tag="extended"):
    """An extension chip added ``seconds``; ``remaining`` is the time left after it.

    With a per-player allowance and a known seat: ``seat`` and ``chips_left`` (that seat's chips after it).
    """

    seconds: float
    remaining: float
    seat: int | None = None
    chips_left: int | None = None


class Undone(Output, tag="undo"):
    """The last extension was taken back: ``seconds`` removed, ``remaining`` the time left after it."""

    seconds: float
    remaining: float


class ChipsReset(Output, tag="chips_reset"):
    """Every player's extension allowance was given back (``allowance`` chips each)."""

    allowance: int


class Turn(Output, tag="turn"):
    """Seat tracking: ``seat`` is on turn now (None: nobody can act), with its ``name`` when known.

    A new hand also names the ``button``; ``why`` says what moved the turn (``hand``, ``street``,
    ``acted``, ``fold``, ``all_in``, ``ruling``, ``back``, ``forward``, ``empty``): always given."""

    seat: int | None = None
    why: str = ""
    name: str | None = None
    button: int | None = None


class SeatChanged(Output, tag="seat"):
    """Seat tracking: the floor ``seated`` a player at ``seat`` (with ``name``), ``emptied`` it, or put the
    ``button`` there; a ``folded`` or ``all_in`` mark names the seat too."""

    seat: int
    change: str
    name: str | None = None
    bank: float | None = None  # a seated or emptied player's time bank (seconds), in time bank mode
    chips: int | None = None  # a seated or emptied player's extension chips, with an allowance
    mark: str | None = None  # a seated or emptied player's mark (the floor's), which a table move takes along
    mark_seconds: float | None = None  # and a ``clock`` mark's own clock


class Marked(Output, tag="mark"):
    """The floor ``marked`` the player at ``seat`` (``mark``, ``mark_seconds`` for a ``clock`` mark) or
    ``unmarked`` them (``mark``: the mark taken off); ``name`` the player's, ``by`` who did it."""

    seat: int
    change: str
    mark: str
    mark_seconds: float | None = None
    name: str | None = None
    by: str | None = None


class BankStarted(Output, tag="bank"):
    """Time bank mode: the decision's base time is up; ``seat``'s own ``bank`` (seconds) runs now, with its cue."""

    seat: int
    bank: float


class ToppedUp(Output, tag="top_up"):
    """The floor topped up every seated player: ``chips`` and ``seconds`` of bank each."""

    chips: int | None = None
    seconds: float | None = None
    remaining: float | None = None  # the running clock's time left after it, when its player's bank grew
    grew: float | None = None  # how much longer that clock got (less than ``seconds`` where a bank reached its bound)


class HandOver(Output, tag="hand_over"):
    """Seat tracking: everyone else folded; ``seat`` wins the hand and no clock runs until the next one."""

    seat: int


class LevelSet(Output, tag="level_set"):
    """The floor's ``level`` (or ``hands`` per level) is taken: it applies from the next hand; ``by`` who set it."""

    level: int | None = None
    hands: int | None = None
    by: str | None = None


class LevelHand(Output, tag="level"):
    """A hand began at ``level``: its number ``hand`` in the level and the ``hands`` per level (None: not counted).
    The first hand of a level says ``by`` whom it was set (the floor's login, or ``hands``: the table moved up
    after its hands per level); ``changed`` lists the rule keys the level changed for this hand; ``topped_up`` the
    levels whose top-up the table has given in this tournament (each once: a restart reads them back)."""

    level: int
    hand: int
    hands: int | None = None
    by: str | None = None
    changed: tuple | None = None
    topped_up: tuple | None = None


class HandForHandChanged(Output, tag="hand_for_hand"):
    """Hand-for-hand on this table changed (``why``: started, done, released, ended, restored, or counted: the
    room's count or minutes taken from its state): ``on``, whether it ``waiting`` for the floor's release, the
    hand-for-hand ``hands`` released so far (the room's count) and the ``minutes`` each takes off the tournament
    clock; ``seq``: the room's state taken last (None: none yet)."""

    why: str
    on: bool
    waiting: bool
    hands: int
    minutes: float
    seq: int | None = None


class RuleSetChanged(Output, tag="rule_set"):
    """The named rule set this table runs, or will from its next hand (``why``: chosen, applied, restored):
    ``rule_set`` in force ("" the table's own) and ``next`` (None: no change waiting)."""

    why: str
    rule_set: str
    next: str | None = None


class Ignored(Output, tag="ignored"):
    """An event that changed nothing, with the human reason."""

    event: str
    reason: str


_encoder = ENCODER  # the one encoder of every edge (core/codec.py)
_encode = _encoder.encode


def json_lines(outputs) -> bytes:
    """``outputs`` as JSON Lines (UTF-8, one record a line, each ended by a newline): ``shotclock replay``'s output."""
    return _encoder.encode_lines(outputs)


def number(x: float | int) -> float | int:
    """A number for a message: whole numbers as int (``30``), others as the shortest float (``30.5``)."""
    if x.__class__ is float and x.is_integer():
        return int(x)
    return x
