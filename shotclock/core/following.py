"""A table following its tournament's clock, in pure code (docs/tournament.md, "The tables").

The tournament clock's state reaches the table retained (:mod:`shotclock.core.tournament_state`), at every change,
every heartbeat and at every (re)connect, dated at its arrival (:class:`~shotclock.core.inputs.TournamentNews`).
:class:`Following` turns it into what the table does:

* the level in force: when the clock's stage differs from the last one this table took, its level goes to the
  table's levels as the floor's ``level`` would (:class:`~shotclock.core.events.Level`, ``by`` ``tournament:<id>``),
  from the next hand (TDA 2024 Rule 23); at first sight (a boot, a reconnect mid-level) the level in force at once,
  unless the table is already there, or past it on a level that ends by hands (it counted its hands itself);
* a break: from the table's next hand (TDA 2024 Rule 23, as a level: the hand in play when the break begins is
  played out, its clocks called and started as ever), no clock can be called or started (a ``call`` or ``start``
  is ``ignored`` with the reason) until the break's time is up on the table's own clock, or the clock says the
  break is over. The screen shows PAUZE / BREAK with the time left whenever no clock runs.
* a tournament that no longer covers the table (its state cleared, its scope changed: ``gone``) is followed no more:
  the level stays, a break ends.

The device reads each state (:meth:`~shotclock.core.tournament_state.TournamentState.news`) and hands the loop only
news that changes what the table does (:func:`worth_taking`): the heartbeats of a clock that runs on are not logged
at every table.

Example::

    >>> from shotclock.core import events as ev
    >>> f = Following()
    >>> news = TournamentNews(10.0, "main", 4, level=3, hands=0, on_break=False, break_left=None, paused=False)
    >>> f.take(news, upcoming_level=None)
    Level(t=10.0, level=3, hands=0, by='tournament:main')
    >>> f.take(TournamentNews(20.0, "main", 5, None, 0, True, 600.0, False), upcoming_level=3)
    >>> f.blocks(ev.Call(25.0)) is None  # the hand in play when the break began is played out
    True
    >>> f.hand_dealt()
    >>> f.blocks(ev.Call(30.0)).reason, f.view(30.0).left(30.0), f.blocks(ev.Call(621.0)) is None
    ('break: no clock can start during the break', 590.0, True)
"""

from __future__ import annotations

from dataclasses import dataclass

from shotclock.core import events as ev
from shotclock.core.inputs import TournamentNews
from shotclock.core.reasons import reason
from shotclock.core.topics import TOURNAMENT_TABLE

RESET_BREAK_S = 1.0  # a break's end known this well is not sent to the loop again (a heartbeat's drift)

BLOCKED = (ev.Call, ev.Start)  # what a table on a break does not take: a clock's start


@dataclass(frozen=True)
class BreakView:
    """A break as the screen shows it: when it ends on the table's own clock (``until``; None: the tournament clock
    stands still during it) and its ``name``."""

    until: float | None
    name: str = ""

    def left(self, now: float) -> float | None:
        """Its time left at ``now`` (None: the clock stands still)."""
        return None if self.until is None else max(0.0, self.until - now)


class Following:
    """What this table took of its tournament's clock (see the module's description)."""

    def __init__(self):
        self._forget()

    def _forget(self) -> None:
        """Follow no tournament (at first; and when the one followed is gone: its break ends, the level stays)."""
        self.id: str | None = None
        self.seq = -1
        self.stage_level: int | None = None  # the level of the last news taken (None: a break, or none yet)
        self.seen = False
        self.on_break = False
        self.dealt_on_break = False  # a hand was dealt since the break began: from it on, no clock starts
        self.break_until: float | None = None  # the table's own clock; None while the break is paused
        self.break_name = ""

    def take(self, news: TournamentNews, upcoming_level: int | None) -> ev.Level | None:
        """Take the clock's news (an older one than the last taken is left); the ``level`` the table must take from
        its next hand, or None. ``upcoming_level``: the level the table's next hand will have now."""
        if news.gone:
            if news.id == self.id:
                self._forget()
            return None
        if news.id == self.id and news.seq <= self.seq:
            return None
        first = not self.seen or news.id != self.id
        self.id, self.seq, self.seen = news.id, news.seq, True
        if news.on_break and not self.on_break:
            self.dealt_on_break = False  # a new break: the hand in play is played out
        self.on_break = news.on_break
        self.break_until = None if not news.on_break or news.break_left is None or news.paused else \
            news.t + news.break_left
        self.break_name = news.break_name
        level, before = news.level, self.stage_level
        if level is not None:
            self.stage_level = level
        if level is None or level == upcoming_level:
            return None
        if first and news.hands and upcoming_level is not None and upcoming_level > level:
            return None  # on a level that ends by hands this table moved on by its own count
        if not first and level == before:
            return None  # the same stage: the table's own count moved it (hands per level)
        return ev.Level(news.t, level, news.hands, TOURNAMENT_TABLE + news.id)

    def hand_dealt(self) -> None:
        """The dealer dealt a new hand (the engine took a ``hand``): on a break, no clock starts from it on."""
        if self.on_break:
            self.dealt_on_break = True

    def blocks(self, event: ev.Event) -> ev.Ignored | None:
        """An ``ignored`` output when the table is on a break, has dealt a hand since it began, and ``event`` would
        start a clock; else None."""
        if not self.on_break or not self.dealt_on_break or not isinstance(event, BLOCKED):
            return None
        if self.break_until is not None and event.t >= self.break_until:
            return None  # the break's time is up on this table's own clock
        return ev.Ignored(event.t, event.NAME, reason("tournament_break"))

    def view(self, now: float) -> BreakView | None:
        """The break as the screen shows it at ``now`` (None: no break)."""
        if not self.on_break or (self.break_until is not None and self.break_until <= now):
            return None
        return BreakView(self.break_until, self.break_name)


def worth_taking(last: TournamentNews | None, news: TournamentNews) -> bool:
    """Whether ``news`` changes what a table does after ``last`` (the last news of that tournament it was handed):
    another level, hands per level, break, pause or name, the tournament gone, or a break whose end moved by a
    second or more.

    >>> a = TournamentNews(10.0, "main", 4, None, 0, True, 600.0, False)
    >>> worth_taking(a, TournamentNews(15.0, "main", 5, None, 0, True, 595.2, False))
    False
    >>> worth_taking(a, TournamentNews(15.0, "main", 5, None, 0, True, 655.0, False))  # the floor added a minute
    True
    """
    if last is None or last.id != news.id:
        return True
    same = (last.level, last.hands, last.on_break, last.paused, last.break_name, last.gone) == \
        (news.level, news.hands, news.on_break, news.paused, news.break_name, news.gone)
    if not same:
        return True
    if news.on_break and not news.paused and news.break_left is not None and last.break_left is not None:
        return abs((news.t + news.break_left) - (last.t + last.break_left)) >= RESET_BREAK_S
    return False
