"""Tournament levels and hands per level at one table: the floor's ``level`` and ``hands``, taken at the next hand.

:class:`TableLevels` is the one place a table (:class:`~shotclock.core.table.Table`) and ``shotclock replay``
(:func:`~shotclock.core.replay.replay_steps`) take the rhythm's events, so both rule the same:

* ``level`` (:class:`~shotclock.core.events.Level`) and ``hands`` (:class:`~shotclock.core.events.Hands`) wait for
  the next hand (TDA 2024 Rule 23): a ``level_set`` output says they were taken and by whom; nothing of a clock
  that runs or a hand in play changes.
* a ``hand`` the engine takes (a street button held, seat tracking's new hand) brings them in
  (:meth:`~shotclock.core.rhythm.NextHand.at_hand`): the engine is retuned with the level's rules, a ``level``
  output names the level, the hand's number in it and the hands per level ("hand 7 of 12"), and a level reached
  on the way up for the first time in the tournament tops the seated players up as its ``[levels.N]`` section says
  (once: a correction, 3 then 2 then 3 again, gives it once; the ``level`` record keeps the levels given, as
  ``topped_up``, so a restart knows them; back at level 1 a new tournament begins). After its hands per level the
  table moves one level up by itself (EPT's final tables: a fixed number of hands per level).
* a table no level was ever set on gives no such output: its records stay what they were before levels existed.

A restart brings the level and the count back from the log's records (:func:`rhythm_from_records`).
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Iterable

from shotclock.core import events as ev
from shotclock.core.fields import FIELDS, LEVEL_MAX
from shotclock.core.reasons import reason
from shotclock.core.rhythm import NextHand, Rhythm, level_changes, rule_value, top_up_amounts
from shotclock.core.settings import Settings

# The log's records a restart reads the rhythm from (the outputs' types, and the record a restart writes).
LEVEL, LEVEL_SET, LEVEL_RESTORED = ev.LevelHand.TYPE, ev.LevelSet.TYPE, "level_restored"
RECORD_TYPES = (LEVEL, LEVEL_SET, LEVEL_RESTORED)
RHYTHM = frozenset({ev.Hand, *ev.RHYTHM_EVENTS})  # the events :meth:`TableLevels.take` takes (a hand among them)


@dataclass(frozen=True)
class LevelView:
    """What the screen and the dashboard show of the rhythm: the ``level`` (None: none set), this ``hand`` of the
    level and the ``hands`` per level (0: not counted); ``next_level`` / ``next_hands`` wait for the next hand."""

    level: int | None
    hand: int = 0
    hands: int = 0
    next_level: int | None = None
    next_hands: int | None = None

    @property
    def last_hand(self) -> bool:
        """The hand in play is the last of its level."""
        return bool(self.hands) and self.hand >= self.hands

    def message(self) -> dict:
        """The ``level`` part of the floor network's ``state`` (docs/network.md)."""
        return {"level": self.level, "hand": self.hand, "hands": self.hands, "last_hand": self.last_hand,
                "next_level": self.next_level, "next_hands": self.next_hands}


class TableLevels:
    """One table's levels (see the module's description). :param base: the configuration's settings."""

    def __init__(self, base: Settings):
        self.next = NextHand(base, LEVEL_MAX)

    @property
    def in_use(self) -> bool:
        """A level was set, a layer is on (a named rule set), or one of them waits for the next hand."""
        current = self.next.current
        return current.level is not None or bool(current.layers) or self.next.pending is not None

    @property
    def view(self) -> LevelView | None:
        """What to show, or None while no level was ever set."""
        if not self.in_use:
            return None
        current, pending = self.next.current, self.next.pending
        next_level = pending.level if pending is not None and (pending.hand == 0 or pending.level != current.level) \
            else None
        next_hands = pending.hands if pending is not None and pending.hands != current.hands else None
        return LevelView(current.level, current.hand, current.hands, next_level, next_hands)

    def propose(self, change) -> Rhythm:
        """Change the rhythm waiting for the next hand (:meth:`~shotclock.core.rhythm.NextHand.propose`): how a named
        rule set is put on (``replace(r, layers=…)``) from the next hand, as a level is."""
        return self.next.propose(change)

    def take(self, event: ev.Event, engine) -> list[ev.Output]:
        """Take a ``level``, ``hands`` or ``hand`` event on ``engine``; the outputs in time order."""
        cls = event.__class__
        if cls is ev.Hand:
            return self._hand(event, engine)
        out = engine.catch_up(event.t)  # timers due before it first: the outputs stay in time order
        by = event.by or None
        if cls is ev.Level:
            hands = event.hands
            self.next.propose(lambda r: replace(r, level=event.level, hand=0, by=by or "",
                                                hands=r.hands if hands is None else hands))
            return out + [ev.LevelSet(event.t, event.level, hands, by)]
        if self.next.upcoming.level is None:
            return out + [ev.Ignored(event.t, event.NAME, reason("no_level"))]
        self.next.propose(lambda r: replace(r, hands=event.hands))
        return out + [ev.LevelSet(event.t, None, event.hands, by)]

    def _hand(self, event: ev.Hand, engine) -> list[ev.Output]:
        out = engine.handle(event)
        if not self.in_use or any(o.__class__ is ev.Ignored for o in out):
            return out  # no level in use, or the hand was not taken (a called clock still on)
        start = self.next.at_hand()
        played = engine.settings  # the last hand's
        if start.settings != played:  # (a restart may have left the engine on the base settings)
            engine.retune(start.settings)  # a new hand ended every clock: the engine is idle
        after, before = start.after, start.before
        if after.level is None:
            return out  # layers only (a named rule set), no level: nothing to count
        changed = None
        by = None
        if start.level_changed:
            by = after.by or None
            keys = level_changes(self.next.base, before.level).keys() | level_changes(self.next.base, after.level).keys()
            changed = tuple(sorted(k for k in keys if rule_value(played, k) != rule_value(start.settings, k))) or None
        out.append(ev.LevelHand(event.t, after.level, after.hand, after.hands or None, by, changed,
                                after.topped_up or None))
        if any(r.reset_chips and r.level in start.top_up for r in self.next.base.levels):
            out += engine.handle(ev.ResetChips(event.t))  # a stage's exact chips: the level's allowance, once
        if start.top_up:  # a level reached for the first time in the tournament: its top-up, once
            chips, seconds = top_up_amounts(self.next.base, start.top_up)
            out += engine.handle(ev.TopUp(event.t, chips, seconds))
        return out

    def restore(self, current: Rhythm, pending: Rhythm | None = None) -> None:
        """Bring back the rhythm a restart found in the log; the engine is retuned by the caller (idle at start)."""
        self.next.restore(current, pending)

    @property
    def settings(self) -> Settings:
        """The settings the hand in play runs with."""
        return self.next.settings


def rhythm_from_records(records: Iterable[dict]) -> tuple[Rhythm, Rhythm | None] | None:
    """The rhythm in force and the one waiting for the next hand, from the log's ``level``, ``level_set`` and
    ``level_restored`` records (each a dict with ``type`` and its fields, in id order); None when no level was set.
    Raises ValueError, TypeError or KeyError for a damaged record.

    Example::

        >>> rhythm_from_records([{"type": "level", "level": 11, "hand": 7, "hands": 12, "by": "floor-anna"},
        ...                      {"type": "level_set", "level": 12, "by": "floor-ben"}])
        (Rhythm(level=11, hand=7, hands=12, by='floor-anna', layers=(), topped_up=()), Rhythm(level=12, hand=0, hands=12, by='floor-ben', layers=(), topped_up=()))
    """
    current: Rhythm | None = None
    pending: Rhythm | None = None
    for r in records:
        kind = r.get("type")
        if kind == LEVEL:
            level = int(r["level"])
            by = r.get("by") or (current.by if current is not None and current.level == level else "")
            current, pending = Rhythm(level, int(r.get("hand") or 0), int(r.get("hands") or 0), by,
                                      topped_up=_levels(r.get("topped_up"))), None
        elif kind == LEVEL_SET:
            upcoming = pending or current or Rhythm()
            if r.get("level") is not None:
                pending = replace(upcoming, level=int(r["level"]), hand=0, by=r.get("by") or "",
                                  hands=upcoming.hands if r.get("hands") is None else int(r["hands"]))
            else:
                pending = replace(upcoming, hands=int(r.get("hands") or 0))
        elif kind == LEVEL_RESTORED:
            current = _rhythm(r["current"]) if r.get("current") else None
            pending = _rhythm(r["next"]) if r.get("next") else None
    if current is None and pending is None:
        return None
    return current or Rhythm(), pending


def _rhythm(d: dict) -> Rhythm:
    return Rhythm(None if d.get("level") is None else int(d["level"]), int(d.get("hand") or 0),
                  int(d.get("hands") or 0), str(d.get("by") or ""), topped_up=_levels(d.get("topped_up")))


def _levels(value) -> tuple[int, ...]:
    """The ``topped_up`` of a record: the levels whose top-up was given (a damaged one raises ValueError)."""
    if value is None:
        return ()
    if not isinstance(value, list) or any(FIELDS["level"].problem(n) for n in value):
        raise ValueError(f"'topped_up' must be a list of levels, not {value!r:.40}")
    return tuple(sorted(set(value)))


def restored_record(current: Rhythm, pending: Rhythm | None) -> dict:
    """The ``level_restored`` record's fields (``log replay`` and the next restart read them); the levels whose top-up
    was given as ``topped_up``, when there are any."""
    def plain(r: Rhythm) -> dict:
        return {"level": r.level, "hand": r.hand, "hands": r.hands, "by": r.by,
                **({"topped_up": list(r.topped_up)} if r.topped_up else {})}
    return {"current": plain(current) if current.level is not None else None,
            "next": plain(pending) if pending is not None else None}
