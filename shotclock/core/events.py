"""Input events and output records of the clock engine.

Events are small frozen dataclasses in the style of h11: each names what happened and
carries its timestamp ``t`` (seconds on the caller's clock) and nothing else. Outputs are
what the engine decided; :meth:`Output.record` gives the stable JSON form used by
``shotclock replay`` and the log. Outputs are slotted dataclasses that nothing changes once
built, but not frozen: replay builds a few hundred thousand a second (see :func:`_record`).
"""

from __future__ import annotations

import json
from dataclasses import MISSING, dataclass, fields
from json.encoder import encode_basestring as _encode_string  # json's own C string escaper
from typing import ClassVar

_FIELD_NAMES: dict[type, tuple[str, ...]] = {}


def _names(cls) -> tuple[str, ...]:
    """The dataclass's field names other than ``t``, computed once per class (records are hot in replay)."""
    names = _FIELD_NAMES.get(cls)
    if names is None:
        names = _FIELD_NAMES[cls] = tuple(f.name for f in fields(cls) if f.name != "t")
    return names


def _frozen(cls):
    """``@dataclass(frozen=True, slots=True)``, with an ``__init__`` that fills the slots directly.

    The dataclass's own frozen ``__init__`` sets each field through ``object.__setattr__``; replay builds
    hundreds of thousands of these records, and that took a tenth of its time. Setting a slot through its
    descriptor skips the frozen ``__setattr__`` (as ``object.__setattr__`` does) at half the cost. Equality,
    hashing, ``repr``, ``replace`` and the refusal to assign stay the dataclass's.
    """
    cls = dataclass(frozen=True, slots=True, init=False)(cls)
    params, body, namespace = [], [], {}
    for f in fields(cls):
        if f.default_factory is not MISSING:
            raise TypeError(f"{cls.__name__}.{f.name}: a record's defaults are plain values")
        params.append(f.name if f.default is MISSING else f"{f.name}=_default_{f.name}")
        namespace[f"_default_{f.name}"] = f.default
        namespace[f"_set_{f.name}"] = getattr(cls, f.name).__set__  # the slot's own descriptor
        body.append(f"    _set_{f.name}(self, {f.name})")
    source = f"def __init__(self, {', '.join(params)}):\n" + "\n".join(body) + "\n"
    exec(source, namespace)  # noqa: S102 -- from the class's own field names, as dataclasses itself does
    init = namespace["__init__"]
    init.__qualname__ = f"{cls.__qualname__}.__init__"
    cls.__init__ = init
    return cls


def _record(cls):
    """``@dataclass(slots=True)`` for the engine's outputs: built by the engine and never changed after (nothing
    assigns to a record's field), but not frozen. A frozen dataclass cannot be built with plain attribute stores,
    and replay builds hundreds of thousands of outputs: frozen, building them took a tenth of replay's time.
    Equal records hash alike (``unsafe_hash``), as frozen ones did."""
    return dataclass(slots=True, unsafe_hash=True)(cls)


@_frozen
class Event:
    """Something that happened at the table at time ``t`` (seconds)."""

    t: float
    NAME: ClassVar[str] = ""

    def record(self) -> dict:
        """The event as a replay input line (``{"t": …, "event": …}``)."""
        rec = {"t": number(self.t), "event": self.NAME}
        for name in _names(type(self)):
            value = getattr(self, name)
            if value is not None:
                rec[name] = value
        return rec


@_frozen
class Call(Event):
    """The floor calls the clock (clock mode). ``facing_bet`` None keeps the current state."""

    facing_bet: bool | None = None
    NAME: ClassVar[str] = "call"


@_frozen
class Bet(Event):
    """The dealer marks whether the player faces a bet."""

    facing_bet: bool = True
    NAME: ClassVar[str] = "bet"


@_frozen
class Action(Event):
    """The dealer: the player acted."""

    NAME: ClassVar[str] = "action"


@_frozen
class LastAction(Event):
    """The dealer: the player acted and nobody is left to act (an all-in called): no next clock."""

    NAME: ClassVar[str] = "last_action"


@_frozen
class Pause(Event):
    """Stop the running clock, keeping the remaining time."""

    NAME: ClassVar[str] = "pause"


@_frozen
class Resume(Event):
    """Restart a paused clock with the time it had left."""

    NAME: ClassVar[str] = "resume"


@_frozen
class Cancel(Event):
    """The floor cancels the clock: no ruling, and the screen says so."""

    NAME: ClassVar[str] = "cancel"


@_frozen
class Hand(Event):
    """Shot mode: a new hand (preflop, facing the blinds)."""

    NAME: ClassVar[str] = "hand"


@_frozen
class Street(Event):
    """Shot mode: the next street (no bet faced yet)."""

    NAME: ClassVar[str] = "street"


@_frozen
class Start(Event):
    """Shot mode: the dealer starts the clock for the player to act."""

    NAME: ClassVar[str] = "start"


@_frozen
class Stop(Event):
    """Shot mode: no more action in this hand (hand over, all-in called): the clock ends quietly, no ruling."""

    NAME: ClassVar[str] = "stop"


@_frozen
class Extend(Event):
    """Shot mode: the player uses one time-extension chip; ``seat`` (1-10) when known, for the allowance."""

    seat: int | None = None
    NAME: ClassVar[str] = "extend"


@_frozen
class Undo(Event):
    """Shot mode: take back the last extension of this decision (a mis-press), within ``shot.undo_seconds``."""

    NAME: ClassVar[str] = "undo"


@_frozen
class ResetChips(Event):
    """Shot mode: the floor gives every player their extension allowance back (a new day or stage)."""

    NAME: ClassVar[str] = "reset_chips"


# -- seat tracking (``seats.track``): ignored with the reason when it is off ----------------


@_frozen
class SeatPlayer(Event):
    """The floor seats a player at ``seat``, optionally with their ``name`` (1-40 characters)."""

    seat: int = 0
    name: str | None = None
    bank: float | None = None  # seconds of time bank the player brings (a table move); None: the preset's
    chips: int | None = None  # extension chips the player brings (a table move); None: the allowance
    mark: str | None = None  # the floor's mark the player brings (a table move): ``warning`` or ``clock``
    mark_seconds: float | None = None  # a ``clock`` mark's own clock (seconds)
    NAME: ClassVar[str] = "seat"


@_frozen
class EmptySeat(Event):
    """The floor empties ``seat`` (the player busted or moved)."""

    seat: int = 0
    NAME: ClassVar[str] = "empty"


@_frozen
class SetButton(Event):
    """The floor puts the dealer button at ``seat``; the next hand is dealt from it as it is."""

    seat: int = 0
    NAME: ClassVar[str] = "button"


@_frozen
class Fold(Event):
    """The dealer: the player on turn folded (a decision); with ``seat``, that seat is out of the hand."""

    seat: int | None = None
    NAME: ClassVar[str] = "fold"


@_frozen
class AllIn(Event):
    """The dealer: the player on turn went all-in (a decision); with ``seat``, that seat is all-in."""

    seat: int | None = None
    NAME: ClassVar[str] = "all_in"


@_frozen
class TurnBack(Event):
    """The dealer corrects the turn one active seat back (no decision)."""

    NAME: ClassVar[str] = "turn_back"


@_frozen
class TurnForward(Event):
    """The dealer corrects the turn one active seat forward (no decision)."""

    NAME: ClassVar[str] = "turn_forward"


@_frozen
class TopUp(Event):
    """The floor tops up every seated player: ``chips`` more extension chips, ``seconds`` more time bank
    (a new day or stage: "+4 on Day 2")."""

    chips: int | None = None
    seconds: float | None = None
    NAME: ClassVar[str] = "top_up"


@_frozen
class Seating(Event):
    """The floor seats the whole table at once (a tournament program's seating export): ``players`` is
    ``((seat, name), …)``; every other seat is emptied. All or nothing: one bad entry changes nothing."""

    players: tuple = ()
    NAME: ClassVar[str] = "seating"


@_frozen
class Rename(Event):
    """The floor names (or renames) the player at ``seat``."""

    seat: int = 0
    name: str = ""
    NAME: ClassVar[str] = "rename"


@_frozen
class Mark(Event):
    """The floor marks the player at ``seat`` (TDA 2024 Rules 70 and 71): a ``warning``, or ``clock``: their own
    clock of ``mark_seconds`` on every decision. The mark is the player's (it leaves with them); ``by`` is who
    marked (a floor command's proven sender). It replaces a mark they had, and never changes a running clock."""

    seat: int = 0
    mark: str = ""
    mark_seconds: float | None = None
    by: str | None = None
    NAME: ClassVar[str] = "mark"


@_frozen
class Unmark(Event):
    """The floor takes the mark off the player at ``seat`` (``by``: who); the table's rule is theirs again from the
    next clock on them, never during one."""

    seat: int = 0
    by: str | None = None
    NAME: ClassVar[str] = "unmark"


SEAT_EVENTS: tuple[type[Event], ...] = (SeatPlayer, Rename, EmptySeat, SetButton, Fold, AllIn, TurnBack, TurnForward,
                                        TopUp, Seating, Mark, Unmark)
SEAT_EVENT_NAMES = frozenset(cls.NAME for cls in SEAT_EVENTS)


# -- the tournament's rhythm (core/rhythm.py, core/levels.py): from the next hand ---------------------


@_frozen
class Level(Event):
    """The floor sets the tournament ``level`` (and, with ``hands``, the hands per level) from the next hand;
    ``by``: who set it (the floor login the broker proved)."""

    level: int = 1
    hands: int | None = None
    by: str | None = None
    NAME: ClassVar[str] = "level"


@_frozen
class Hands(Event):
    """The floor sets the hands per level (0: not counted) from the next hand; the level's count goes on."""

    hands: int = 0
    by: str | None = None
    NAME: ClassVar[str] = "hands"


RHYTHM_EVENTS: tuple[type[Event], ...] = (Level, Hands)
# -- the tournament's floor commands (sent to the venue at once): no replay line, they never touch a clock -----


@_frozen
class HandForHand(Event):
    """The floor starts hand-for-hand (TDA RP-8): the table plays its hand, then waits for the floor's release;
    ``minutes``: what each hand-for-hand hand takes off the tournament clock (None: RP-8's 2)."""

    minutes: float | None = None
    NAME: ClassVar[str] = "hand_for_hand"


@_frozen
class ReleaseHand(Event):
    """The floor releases the next hand-for-hand hand (every table at once)."""

    NAME: ClassVar[str] = "release_hand"


@_frozen
class EndHandForHand(Event):
    """The floor ends hand-for-hand: the tables play on as before."""

    NAME: ClassVar[str] = "end_hand_for_hand"


@_frozen
class UseRuleSet(Event):
    """The floor puts the table on the named rule set from its next hand ("": back to its own rules)."""

    rule_set: str = ""
    NAME: ClassVar[str] = "rule_set"


FLOOR_EVENTS: tuple[type[Event], ...] = (HandForHand, ReleaseHand, EndHandForHand, UseRuleSet)


@_frozen
class End(Event):
    """Replay only: advance time to ``t`` and stop."""

    NAME: ClassVar[str] = "end"


EVENT_TYPES: dict[str, type[Event]] = {
    cls.NAME: cls
    for cls in (Call, Bet, Action, LastAction, Pause, Resume, Cancel, Hand, Street, Start, Stop, Extend, Undo,
                ResetChips, *SEAT_EVENTS, *RHYTHM_EVENTS, End)
}


@_record
class Output:
    """Something the engine decided at time ``t``."""

    t: float
    TYPE: ClassVar[str] = ""

    def to_json(self) -> str:
        """:meth:`record` as compact JSON, written straight from the fields (replay's hot path)."""
        parts = [f'{{"t":{_json_value(number(self.t))},"type":"{self.TYPE}"']
        for name in _names(type(self)):
            value = getattr(self, name)
            if value is not None:
                parts.append(f',"{name}":{_json_value(number(value) if value.__class__ is float else value)}')
        parts.append("}")
        return "".join(parts)

    def record(self) -> dict:
        """The stable JSON form: ``t``, ``type`` and the fields that are set."""
        rec = {"t": number(self.t), "type": self.TYPE}
        for name in _names(type(self)):
            value = getattr(self, name)
            if value is not None:
                rec[name] = number(value) if value.__class__ is float else value
        return rec


@_record
class Started(Output):
    """A clock started with ``seconds`` on it (shot mode names the street)."""

    seconds: float
    street: str | None = None
    seat: int | None = None  # with seat tracking: the seat on the clock
    bank: float | None = None  # time bank mode: the player's bank, the last part of ``seconds``
    mark: str | None = None  # ``clock``: the player's own clock (the floor's mark), not the table's rule
    TYPE: ClassVar[str] = "start"

    def to_json(self) -> str:
        if self.mark is not None:
            return Output.to_json(self)
        # (_text(x) or _num(x): a number already written costs no call; replay writes a start per decision)
        t, seconds = _text(self.t) or _num(self.t), _text(self.seconds) or _num(self.seconds)
        street = "" if self.street is None else f',"street":"{self.street}"'
        if self.bank is not None:
            seat = "" if self.seat is None else f',"seat":{self.seat}'
            bank = _text(self.bank) or _num(self.bank)
            return f'{{"t":{t},"type":"start","seconds":{seconds}{street}{seat},"bank":{bank}}}'
        if self.seat is not None:
            return f'{{"t":{t},"type":"start","seconds":{seconds}{street},"seat":{self.seat}}}'
        return f'{{"t":{t},"type":"start","seconds":{seconds}{street}}}'


@_record
class Beep(Output):
    """A countdown beep: ``remaining`` N…1 at each countdown second, 0 at the deadline."""

    remaining: int
    TYPE: ClassVar[str] = "beep"

    def to_json(self) -> str:
        return f'{{"t":{_num(self.t)},"type":"beep","remaining":{self.remaining}}}'


ACTED, HAND_DEAD, CHECK, CANCELLED = "acted", "hand_dead", "check", "cancelled"
# Why a clock ended without a ruling (a cancelled decision's ``by``): only the floor's cancel is shown as
# such; the others are the normal flow of a hand and end the clock quietly.
BY_FLOOR, BY_STOP, BY_STREET, BY_HAND = "floor", "stop", "street", "hand"
# Seat tracking: the dealer corrected the turn, the floor emptied the seat on the clock or reseated the table.
# Such a clock is nobody's decision: no bank and no chip is charged for it (docs/rules.md).
BY_TURN, BY_EMPTY, BY_SEATING = "turn", "empty", "seating"
NOBODYS = frozenset({BY_TURN, BY_EMPTY, BY_SEATING})
QUIET_ENDS = frozenset({BY_STOP, BY_STREET, BY_HAND}) | NOBODYS


@_record
class Decision(Output):
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
    TYPE: ClassVar[str] = "decision"

    def to_json(self) -> str:
        t = _text(self.t) or _num(self.t)  # (as in Started.to_json)
        seat = "" if self.seat is None else f',"seat":{self.seat}'
        if self.bank_used is not None:  # time bank mode: what this decision used of the bank, and what is left
            seat += f',"bank_used":{_text(self.bank_used) or _num(self.bank_used)}'
            if self.bank_left is not None:
                seat += f',"bank_left":{_text(self.bank_left) or _num(self.bank_left)}'
        # outcome and by are plain words: no escaping needed
        if self.remaining is not None and self.by is None and self.at_zero is not None:  # acted
            return (f'{{"t":{t},"type":"decision","outcome":"{self.outcome}",'
                    f'"remaining":{_text(self.remaining) or _num(self.remaining)},'
                    f'"at_zero":{"true" if self.at_zero else "false"}{seat}}}')
        if self.remaining is None:
            by = "" if self.by is None else f',"by":"{self.by}"'
            return f'{{"t":{t},"type":"decision","outcome":"{self.outcome}"{by}{seat}}}'
        return Output.to_json(self)  # no such decision is made; written by the general writer all the same

    @property
    def is_ruling(self) -> bool:
        """True for a ruling (anything but a cancellation)."""
        return self.outcome != CANCELLED

    @property
    def quiet(self) -> bool:
        """A clock the flow of the hand ended (street, hand, stop): nothing to show for it."""
        return self.by in QUIET_ENDS


@_record
class Paused(Output):
    """The clock was paused with ``remaining`` seconds on it."""

    remaining: float
    TYPE: ClassVar[str] = "pause"

    def to_json(self) -> str:
        return f'{{"t":{_num(self.t)},"type":"pause","remaining":{_num(self.remaining)}}}'


@_record
class Resumed(Output):
    """The clock runs again with ``remaining`` seconds on it."""

    remaining: float
    TYPE: ClassVar[str] = "resume"

    def to_json(self) -> str:
        return f'{{"t":{_num(self.t)},"type":"resume","remaining":{_num(self.remaining)}}}'


@_record
class Extended(Output):
    """An extension chip added ``seconds``; ``remaining`` is the time left after it.

    With a per-player allowance and a known seat: ``seat`` and ``chips_left`` (that seat's chips after it).
    """

    seconds: float
    remaining: float
    seat: int | None = None
    chips_left: int | None = None
    TYPE: ClassVar[str] = "extended"

    def to_json(self) -> str:
        seat = "" if self.seat is None else f',"seat":{self.seat}'
        chips = "" if self.chips_left is None else f',"chips_left":{self.chips_left}'
        return (f'{{"t":{_num(self.t)},"type":"extended","seconds":{_num(self.seconds)},'
                f'"remaining":{_num(self.remaining)}{seat}{chips}}}')


@_record
class Undone(Output):
    """The last extension was taken back: ``seconds`` removed, ``remaining`` the time left after it."""

    seconds: float
    remaining: float
    TYPE: ClassVar[str] = "undo"


@_record
class ChipsReset(Output):
    """Every player's extension allowance was given back (``allowance`` chips each)."""

    allowance: int
    TYPE: ClassVar[str] = "chips_reset"


@_record
class Turn(Output):
    """Seat tracking: ``seat`` is on turn now (None: nobody can act), with its ``name`` when known.

    A new hand also names the ``button``; ``why`` says what moved the turn (``hand``, ``street``,
    ``acted``, ``fold``, ``all_in``, ``ruling``, ``back``, ``forward``, ``empty``)."""

    seat: int | None
    why: str
    name: str | None = None
    button: int | None = None
    TYPE: ClassVar[str] = "turn"

    def to_json(self) -> str:
        seat = "" if self.seat is None else f',"seat":{self.seat}'
        name = "" if self.name is None else f',"name":{_encode_string(self.name)}'  # a name is escaped
        button = "" if self.button is None else f',"button":{self.button}'
        return f'{{"t":{_text(self.t) or _num(self.t)},"type":"turn"{seat},"why":"{self.why}"{name}{button}}}'


@_record
class SeatChanged(Output):
    """Seat tracking: the floor ``seated`` a player at ``seat`` (with ``name``), ``emptied`` it, or put the
    ``button`` there; a ``folded`` or ``all_in`` mark names the seat too."""

    seat: int
    change: str
    name: str | None = None
    bank: float | None = None  # a seated or emptied player's time bank (seconds), in time bank mode
    chips: int | None = None  # a seated or emptied player's extension chips, with an allowance
    mark: str | None = None  # a seated or emptied player's mark (the floor's), which a table move takes along
    mark_seconds: float | None = None  # and a ``clock`` mark's own clock
    TYPE: ClassVar[str] = "seat"

    def to_json(self) -> str:
        if self.name is None and self.bank is None and self.chips is None and self.mark is None:  # a fold, the button
            return f'{{"t":{_text(self.t) or _num(self.t)},"type":"seat","seat":{self.seat},"change":"{self.change}"}}'
        return Output.to_json(self)


@_record
class Marked(Output):
    """The floor ``marked`` the player at ``seat`` (``mark``, ``mark_seconds`` for a ``clock`` mark) or
    ``unmarked`` them (``mark``: the mark taken off); ``name`` the player's, ``by`` who did it."""

    seat: int
    change: str
    mark: str
    mark_seconds: float | None = None
    name: str | None = None
    by: str | None = None
    TYPE: ClassVar[str] = "mark"


@_record
class BankStarted(Output):
    """Time bank mode: the decision's base time is up; ``seat``'s own ``bank`` (seconds) runs now, with its cue."""

    seat: int
    bank: float
    TYPE: ClassVar[str] = "bank"

    def to_json(self) -> str:
        return f'{{"t":{_num(self.t)},"type":"bank","seat":{self.seat},"bank":{_num(self.bank)}}}'


@_record
class ToppedUp(Output):
    """The floor topped up every seated player: ``chips`` and ``seconds`` of bank each."""

    chips: int | None = None
    seconds: float | None = None
    remaining: float | None = None  # the running clock's time left after it, when its player's bank grew
    grew: float | None = None  # how much longer that clock got (less than ``seconds`` where a bank reached its bound)
    TYPE: ClassVar[str] = "top_up"


@_record
class HandOver(Output):
    """Seat tracking: everyone else folded; ``seat`` wins the hand and no clock runs until the next one."""

    seat: int
    TYPE: ClassVar[str] = "hand_over"


@_record
class LevelSet(Output):
    """The floor's ``level`` (or ``hands`` per level) is taken: it applies from the next hand; ``by`` who set it."""

    level: int | None = None
    hands: int | None = None
    by: str | None = None
    TYPE: ClassVar[str] = "level_set"


@_record
class LevelHand(Output):
    """A hand began at ``level``: its number ``hand`` in the level and the ``hands`` per level (None: not counted).
    The first hand of a level says ``by`` whom it was set (the floor's login, or ``hands``: the table moved up
    after its hands per level); ``changed`` lists the rule keys the level changed for this hand."""

    level: int
    hand: int
    hands: int | None = None
    by: str | None = None
    changed: tuple | None = None
    TYPE: ClassVar[str] = "level"


@_record
class HandForHandChanged(Output):
    """Hand-for-hand on this table changed (``why``: started, done, released, ended, restored): ``on``, whether
    it ``waiting`` for the floor's release, the hand-for-hand ``hands`` released so far and the ``minutes``
    each takes off the tournament clock."""

    why: str
    on: bool
    waiting: bool
    hands: int
    minutes: float
    TYPE: ClassVar[str] = "hand_for_hand"


@_record
class RuleSetChanged(Output):
    """The named rule set this table runs, or will from its next hand (``why``: chosen, applied, restored):
    ``rule_set`` in force ("" the table's own) and ``next`` (None: no change waiting)."""

    why: str
    rule_set: str
    next: str | None = None
    TYPE: ClassVar[str] = "rule_set"


@_record
class Ignored(Output):
    """An event that changed nothing, with the human reason."""

    event: str
    reason: str
    TYPE: ClassVar[str] = "ignored"


def _json_value(v) -> str:
    """One flat value as JSON, as ``json.dumps`` writes it (records hold numbers, booleans and strings)."""
    if v is True:
        return "true"
    if v is False:
        return "false"
    cls = v.__class__
    if cls is int:
        return str(v)
    if cls is float:
        return repr(v)
    if cls is str:
        return _encode_string(v)
    return json.dumps(v, separators=(",", ":"), ensure_ascii=False)


_NUMBER_TEXTS: dict[float, str] = {}  # float -> its JSON text: the records of one event share times and lengths
_text = _NUMBER_TEXTS.get  # "_text(x) or _num(x)" in the hot writers above: a known number costs no call of _num


def _num(x) -> str:
    """A number as JSON text, whole numbers without a decimal point (as :func:`number` and json.dumps give)."""
    if x.__class__ is float:
        text = _NUMBER_TEXTS.get(x)
        if text is None:
            if len(_NUMBER_TEXTS) >= 1024:
                _NUMBER_TEXTS.clear()
            text = _NUMBER_TEXTS[x] = str(int(x)) if x.is_integer() else repr(x)
        return text
    return str(x)


def number(x: float | int) -> float | int:
    """A number for JSON: whole numbers as int (``30``), others as the shortest float (``30.5``)."""
    if x.__class__ is float and x.is_integer():
        return int(x)
    return x
