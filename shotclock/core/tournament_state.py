"""The tournament clock's state as the floor network carries it: one retained message per tournament.

The clock's process (``shotclock tournament run``) publishes it retained at every change and every heartbeat on
``shotclock/v1/<venue>/tournament/<id>/state`` (docs/network.md, "tournament clock"), so a table that boots or
reconnects mid-level takes the level in force at once, and the room's screen and the dashboard show the clock. The
message carries its own times, as the tables' state does (durations in ms): ``remaining_ms`` is the stage's time left
when the message left (``at_ms``, the process's wall clock, for people and display only: a reader counts down from a
message's arrival), and ``heartbeat_ms`` says how soon the next one comes, so a page that hears nothing for three of
them shows the clock unreachable, as it does when the clock's retained ``status`` (:class:`ClockStatus`, with a Last
Will) says offline.

Example::

    >>> from shotclock.core.structure import Stage, Structure
    >>> from shotclock.core.tournament import Start, TournamentClock
    >>> clock = TournamentClock(Structure("Sunday", (Stage(20, 25, 50), Stage(5, is_break=True, name="dinner"))))
    >>> _ = clock.handle(Start(0.0, "floor"))
    >>> state = state_of(clock, 60.0, "main", Scope(rooms=("East",)), seq=3, at_ms=1_000)
    >>> (state.level, state.remaining_ms, state.to_break_ms, state.next_stage.name), state.scope.covers("7", "East", "")
    ((1, 1140000, 1140000, 'dinner'), True)
    >>> tournament_state_of(state.encode()) == state
    True
"""

from __future__ import annotations

from typing import Annotated

import msgspec

from shotclock.core.codec import JsonProblem, decode, encode
from shotclock.core.fields import PLACE_MAX, TITLE_MAX
from shotclock.core.inbound import MAX_PAYLOAD, Refused
from shotclock.core.inputs import TournamentNews
from shotclock.core.structure import Stage, stage_problem
from shotclock.core.topics import NAME
from shotclock.core.tournament import TournamentClock

TABLES_MAX = 1000  # a scope's list of tables (a venue of 500 tables names rooms or sections instead)
HEARTBEAT_S = 5.0  # seconds between two states of the clock: a page shows it unreachable after three missed
_Name = Annotated[str, msgspec.Meta(pattern=NAME.pattern, max_length=32)]
_Place = Annotated[str, msgspec.Meta(max_length=PLACE_MAX)]
_Ms = Annotated[int, msgspec.Meta(ge=0, le=10 ** 10)]  # a duration in ms (the longest structure: 200 × 240 min)
_WallMs = Annotated[int, msgspec.Meta(ge=0, le=2 ** 53 - 1)]


class Scope(msgspec.Struct, frozen=True, omit_defaults=True):
    """The tables a tournament's clock is for: those of the ``rooms``, the ``sections`` and the ``tables`` named
    (each empty: no bound of that kind; all three empty: the whole venue)."""

    rooms: Annotated[tuple[_Place, ...], msgspec.Meta(max_length=100)] = ()
    sections: Annotated[tuple[_Place, ...], msgspec.Meta(max_length=100)] = ()
    tables: Annotated[tuple[_Name, ...], msgspec.Meta(max_length=TABLES_MAX)] = ()

    def covers(self, table: str, room: str, section: str) -> bool:
        """Whether table ``table`` standing in ``room`` and ``section`` follows this tournament."""
        return (not self.rooms or room in self.rooms) and (not self.sections or section in self.sections) and \
            (not self.tables or table in self.tables)

    @property
    def words(self) -> str:
        """The scope for a person ("rooms East, West", "the venue")."""
        parts = [f"{kind} {', '.join(names)}" for kind, names in (("rooms", self.rooms), ("sections", self.sections),
                                                                   ("tables", self.tables)) if names]
        return "; ".join(parts) or "the whole venue"


class TournamentState(msgspec.Struct, frozen=True, kw_only=True):
    """The retained ``tournament/<id>/state`` (docs/network.md, "tournament clock").

    :param id: the tournament's id (its topic's); ``title`` its name.
    :param scope: the tables that follow it.
    :param seq: grows with every message of this tournament, across restarts of its process (a reader takes only a
        newer one).
    :param at_ms: when the message left (the process's wall clock, Unix ms: for people and display only).
    :param index: the stage in force (0 the first); ``level`` its level number (None: a break).
    :param stage: the stage in force; ``next_stage`` and ``next_level`` the one after it (None: the last).
    :param remaining_ms: the stage's time left when the message left (None: a level that ends by hands).
    :param to_break_ms: the time to the next break's start when the message left (None: no break ahead, or a level
        that ends by hands before it).
    :param started: the floor started the clock; ``running``: it counts down now; ``paused``: the floor paused it;
        ``hand_for_hand``: the room plays hand-for-hand (the clock stands still); ``finished``: the last stage's
        time is up.
    :param away_ms: the clock's process was away this long (a crash, a power cut) and counted it as played, for the
        floor to add back or keep (None: nothing to say).
    :param heartbeat_ms: the next message comes within this long.
    """

    id: _Name
    title: Annotated[str, msgspec.Meta(max_length=TITLE_MAX)] = ""
    scope: Scope = Scope()
    seq: Annotated[int, msgspec.Meta(ge=1, le=2 ** 53 - 1)]
    at_ms: _WallMs
    index: Annotated[int, msgspec.Meta(ge=0, le=1000)]
    level: Annotated[int, msgspec.Meta(ge=1, le=1000)] | None
    stage: Stage
    next_stage: Stage | None = None
    next_level: Annotated[int, msgspec.Meta(ge=1, le=1000)] | None = None
    remaining_ms: _Ms | None
    to_break_ms: _Ms | None = None
    started: bool
    running: bool
    paused: bool
    hand_for_hand: bool
    finished: bool
    away_ms: _Ms | None = None
    heartbeat_ms: Annotated[int, msgspec.Meta(ge=1, le=600_000)] = int(HEARTBEAT_S * 1000)

    @property
    def on_break(self) -> bool:
        """The stage in force is a break (the tables take no clock)."""
        return self.stage.is_break and self.started and not self.finished

    def encode(self) -> bytes:
        """The retained message's payload."""
        return encode(self)

    def news(self, t: float) -> TournamentNews:
        """What a table takes of this state that reached it at ``t`` (its own monotonic clock; docs/tournament.md,
        "The tables"): the break's time left counts from the arrival; a clock that does not run (paused,
        hand-for-hand) says the break stands still."""
        left = self.remaining_ms / 1000 if self.on_break and self.remaining_ms is not None else None
        return TournamentNews(t, self.id, self.seq, self.level, self.stage.hands, self.on_break, left,
                              not self.running, self.stage.name if self.on_break else "")


class ClockStatus(msgspec.Struct, frozen=True, kw_only=True, omit_defaults=True):
    """The retained ``tournament/<id>/status``: ``online`` true while the clock's process is connected; false when it
    stopped cleanly (``clean``) or from its Last Will (it vanished: a crash, a power cut, its network). ``boot`` is
    its journal's identity."""

    online: bool
    id: _Name
    boot: Annotated[str, msgspec.Meta(pattern="^[0-9a-f]{12}$")] | None = None
    clean: bool | None = None
    since_ms: _WallMs | None = None

    def encode(self) -> bytes:
        """The retained message's payload."""
        return encode(self)


def state_of(clock: TournamentClock, t: float, id: str, scope: Scope, *, seq: int, at_ms: int, title: str | None = None,
             away: float | None = None, heartbeat: float = HEARTBEAT_S) -> TournamentState:
    """The state message of ``clock`` at ``t`` (its timeline), made at wall time ``at_ms``; ``away``: the seconds its
    process was away, to say."""
    view = clock.view(t)
    stages = clock.structure.stages
    nxt = view.next_index
    return TournamentState(
        id=id, title=clock.structure.title if title is None else title, scope=scope, seq=seq, at_ms=at_ms,
        index=view.index, level=view.level, stage=view.stage,
        next_stage=stages[nxt] if nxt is not None else None,
        next_level=clock.structure.level_of(nxt) if nxt is not None else None,
        remaining_ms=_ms(view.remaining), to_break_ms=_ms(view.to_break), started=view.started,
        running=view.running, paused=view.paused, hand_for_hand=view.hand_for_hand, finished=view.finished,
        away_ms=_ms(away), heartbeat_ms=_ms(heartbeat))


def _ms(seconds: float | None) -> int | None:
    return None if seconds is None else int(round(seconds * 1000))


def tournament_state_of(payload: bytes) -> TournamentState | Refused | None:
    """The state a retained message holds, :class:`~shotclock.core.inbound.Refused` naming what is wrong, or None
    for an empty payload (the tournament's state was cleared)."""
    if not payload:
        return None
    try:
        state = decode(payload, TournamentState, max_bytes=MAX_PAYLOAD)
    except JsonProblem as exc:
        return Refused(exc.reason, exc.detail)
    for stage in (state.stage, state.next_stage):  # a stage's bounds are the structure's, from the table of fields
        problem = stage_problem(stage) if stage is not None else None
        if problem:
            return Refused("field", problem[1])
    return state
