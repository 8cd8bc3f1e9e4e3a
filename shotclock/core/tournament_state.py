"""The tournament clock's state as the floor network carries it: one retained message per tournament.

The clock's process (``shotclock tournament run``) publishes it retained at every change and every heartbeat on
``shotclock/v1/<venue>/tournament/<id>/state`` (docs/network.md, "tournament"), so a table that boots or reconnects
mid-level takes the level in force at once, and the room's screen and the dashboard show the clock. The message
carries its own times: ``remaining`` is the stage's time left at ``at_ms`` (the process's wall clock, for display:
a page counts down from it; a table from its arrival on its own monotonic clock) and ``heartbeat_s`` says how soon
the next message comes, so a page that hears nothing for a few of them shows the clock unreachable, as it does when
the clock's retained ``status`` (:class:`ClockStatus`, with a Last Will) says offline.

Example::

    >>> from shotclock.core.structure import Stage, Structure
    >>> from shotclock.core.tournament import Start, TournamentClock
    >>> clock = TournamentClock(Structure("Sunday", (Stage(20, 25, 50), Stage(5, is_break=True, name="dinner"))))
    >>> _ = clock.handle(Start(0.0, "floor"))
    >>> state = state_of(clock, 60.0, "main", Scope(rooms=("East",)), seq=3, at_ms=1_000)
    >>> (state.level, state.remaining, state.to_break, state.next_stage.name), state.scope.covers("7", "East", "")
    ((1, 1140.0, 1140.0, 'dinner'), True)
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

HEARTBEAT_S = 5.0  # seconds between two states of the clock
QUIET_BEATS = 3  # a page shows the clock unreachable once this many heartbeats (and a second) brought no state
QUIET_SLACK_S = 1.0
TABLES_MAX = 1000  # a scope's list of tables (a venue of 500 tables names rooms or sections instead)
_Name = Annotated[str, msgspec.Meta(pattern=NAME.pattern, max_length=32)]
_Place = Annotated[str, msgspec.Meta(max_length=PLACE_MAX)]
_Seconds = Annotated[float, msgspec.Meta(ge=0, le=10 ** 7)]


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
    """The retained ``tournament/<id>/state`` (docs/network.md, "tournament").

    :param id: the tournament's id (its topic's); ``title`` its name.
    :param scope: the tables that follow it.
    :param seq: grows with every message of this tournament, across restarts of its process (a reader takes only a
        newer one).
    :param at_ms: when the message was made (the process's wall clock, ms: for display only).
    :param index: the stage in force (0 the first); ``level`` its level number (None: a break).
    :param stage: the stage in force; ``next_stage`` and ``next_level`` the one after it (None: the last).
    :param remaining: the stage's time left at ``at_ms`` (seconds; None: a level that ends by hands).
    :param to_break: seconds from ``at_ms`` to the next break (None: none ahead or a level by hands before it).
    :param started: the floor started the clock; ``running``: it counts down now; ``paused``: the floor paused it;
        ``hand_for_hand``: the room plays hand-for-hand (the clock stands still); ``finished``: the last stage's
        time is up.
    :param away_s: the clock's process was away this long (a crash, a power cut) and counted it as played; the floor
        may add it back (None: nothing to say).
    :param players: the players left, as the floor typed it (None: not typed).
    :param heartbeat_s: the next message comes within this long while the clock runs.
    """

    id: _Name
    title: Annotated[str, msgspec.Meta(max_length=TITLE_MAX)] = ""
    scope: Scope = Scope()
    seq: Annotated[int, msgspec.Meta(ge=0)]
    at_ms: Annotated[int, msgspec.Meta(ge=0)]
    index: Annotated[int, msgspec.Meta(ge=0, le=1000)]
    level: Annotated[int, msgspec.Meta(ge=1, le=1000)] | None
    stage: Stage
    next_stage: Stage | None = None
    next_level: Annotated[int, msgspec.Meta(ge=1, le=1000)] | None = None
    remaining: _Seconds | None
    to_break: _Seconds | None = None
    started: bool
    running: bool
    paused: bool
    hand_for_hand: bool
    finished: bool
    away_s: _Seconds | None = None
    players: Annotated[int, msgspec.Meta(ge=0)] | None = None
    heartbeat_s: _Seconds = HEARTBEAT_S

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
        left = self.remaining if self.on_break else None
        return TournamentNews(t, self.id, self.seq, self.level, self.stage.hands, self.on_break, left,
                              not self.running, self.stage.name if self.on_break else "")


class ClockStatus(msgspec.Struct, frozen=True, kw_only=True, omit_defaults=True):
    """The retained ``tournament/<id>/status``: ``online`` true while the clock's process is connected; false when it
    stopped cleanly (``clean``) or from its Last Will (it vanished: a crash, a power cut, its network). ``boot`` is
    its journal's identity; ``since_ms`` when a clean stop went offline (Unix ms)."""

    online: bool
    id: _Name
    boot: Annotated[str, msgspec.Meta(pattern="^[0-9a-f]{12}$")] | None = None
    clean: bool | None = None
    since_ms: Annotated[int, msgspec.Meta(ge=0)] | None = None

    def encode(self) -> bytes:
        """The retained message's payload."""
        return encode(self)


def state_of(clock: TournamentClock, t: float, id: str, scope: Scope, *, seq: int, at_ms: int, title: str | None = None,
             away_s: float | None = None, players: int | None = None,
             heartbeat: float = HEARTBEAT_S) -> TournamentState:
    """The state message of ``clock`` at ``t`` (its timeline), made at wall time ``at_ms``."""
    view = clock.view(t)
    stages = clock.structure.stages
    nxt = view.next_index
    return TournamentState(
        id=id, title=clock.structure.title if title is None else title, scope=scope, seq=seq, at_ms=at_ms,
        index=view.index, level=view.level, stage=view.stage,
        next_stage=stages[nxt] if nxt is not None else None,
        next_level=clock.structure.level_of(nxt) if nxt is not None else None,
        remaining=_rounded(view.remaining), to_break=_rounded(view.to_break), started=view.started,
        running=view.running, paused=view.paused, hand_for_hand=view.hand_for_hand, finished=view.finished,
        away_s=_rounded(away_s), players=players or None, heartbeat_s=heartbeat)


def _rounded(seconds: float | None) -> float | None:
    return None if seconds is None else round(seconds, 3)


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


def message_schemas() -> dict[str, dict]:
    """docs/network.md's schemas of a tournament clock's messages, made from the Structs themselves (msgspec's JSON
    Schema, without the docstrings): ``tournament`` (its state), ``tournament_status``, ``tournament_command`` and
    ``tournament_ack``."""
    from shotclock.core.tournament_wire import ClockAck, ClockCommand

    out = {}
    for name, cls in (("tournament", TournamentState), ("tournament_status", ClockStatus),
                      ("tournament_command", ClockCommand), ("tournament_ack", ClockAck)):
        schema = _plain(msgspec.json.schema(cls))
        out[name] = {"$schema": "https://json-schema.org/draft/2020-12/schema", "title": name, **schema}
    return out


def _plain(value, names: bool = False):
    """A schema without msgspec's titles and docstring descriptions (the document says those in words); ``names``:
    ``value`` maps names to schemas (``properties``, ``$defs``), where a key called ``title`` is a field's name."""
    if isinstance(value, dict):
        return {k: _plain(v, k in ("properties", "$defs") and not names) for k, v in value.items()
                if names or k not in ("title", "description")}
    if isinstance(value, list):
        return [_plain(v) for v in value]
    return value
