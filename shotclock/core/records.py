"""What the decision log gets for each round: records built in pure code, with virtual time.

:class:`RecordBuilder` turns every :class:`~shotclock.core.table.Round` into the log's records
(raw edges, commands and the room's hand-for-hand states, inputs, outputs, button faults), numbers the clocks (a record refers
to its clock by the stream number, ``seq``, of the clock's start record, or by the record id of
a clock already in the log), and decides when a running clock needs a ``checkpoint`` (the
power-cut bound) and when the device tells its log writer it is alive (the crash bound, see
:mod:`shotclock.core.restore`). The shell only hands the messages to the writer.

The messages are the log writer's pipe format, declared in :mod:`shotclock.core.log_records`:
:class:`~shotclock.core.log_records.LogRecord` (``{"seq", "clock", "type", "t", "utc", "data"}``) for a record and
:class:`~shotclock.core.log_records.Alive` (``{"control": "alive", "t", "clock"}``) for a heartbeat, which the
writer keeps in memory and never stores.

Example::

    >>> from shotclock.core.table import Table
    >>> from shotclock.core.inputs import Command
    >>> from shotclock.core.settings import Settings
    >>> table, builder = Table(Settings()), RecordBuilder()
    >>> r = table.feed([Command(1.0, "call", id="c1", sender="floor", facing_bet=True)], now=1.0)
    >>> [getattr(m, "type", "alive") for m in builder.round(r, lambda t: "")]
    ['command', 'input', 'start', 'alive']
    >>> builder.next_wake(1.0)
    1.25
"""

from __future__ import annotations

from typing import Callable

from shotclock.core.engine import PAUSED, RUNNING, Snapshot
from shotclock.core.events import Decision, Started
from shotclock.core.fields import SEAT_FIELDS
from shotclock.core.inputs import Command, Edge, RoomHandForHand, TournamentNews
from shotclock.core.log_records import (Alive, CheckpointData, ClockRef, CommandData, EdgeData, FaultData, LogRecord,
                                        RoomStateData, ShutdownData, TournamentData)
from shotclock.core.restore import CHECKPOINT_SECONDS, HEARTBEAT
from shotclock.core.table import Input, Round

UtcAt = Callable[[float], str]  # the wall-clock time (ISO 8601) of a time on the table's clock


class SessionUtc:
    """The wall-clock time of the log's records, which never goes back within a session.

    Each reading of the wall clock gives an offset from the table's monotonic clock; the records use
    the newest one, held so that ``utc`` never runs backwards: a wall clock stepped forward (NTP
    catching up after a boot with no real-time clock) is followed at once; one stepped back holds the
    session's time still until it has caught up, then is followed. So a wall clock wrong for a moment
    (a glitch, or a reading paired with a stale monotonic time) costs the records of that moment, never
    the rest of the session.

    Example::

        >>> utc = SessionUtc()
        >>> utc.at(10.0, wall=1000.0, t_now=10.0), utc.at(11.0, wall=1001.0, t_now=11.0)
        (1000.0, 1001.0)
        >>> utc.at(12.0, wall=900.0, t_now=12.0)   # the wall clock stepped back 102 s: held, not followed back
        1001.0
        >>> utc.at(13.0, wall=1500.0, t_now=13.0)  # stepped forward: followed
        1500.0
        >>> utc.at(14.0, wall=1001.0, t_now=14.0), utc.at(600.0, wall=1587.0, t_now=600.0)  # back: held, then on
        (1500.0, 1587.0)
    """

    def __init__(self):
        self.offset: float | None = None
        self.last: float | None = None

    def at(self, t: float, wall: float, t_now: float) -> float:
        """The Unix time of table time ``t``, given the wall clock ``wall`` (Unix seconds) read at ``t_now``."""
        self.offset = wall - t_now
        value = t + self.offset
        if self.last is not None and value < self.last:
            value = self.last  # not before a record already dated: held until the wall clock catches up
        self.last = value
        return value


class RecordBuilder:
    """Builds the decision log's messages, round by round.

    :param checkpoint_every: seconds between records while a clock runs (a power cut then restores
        at most this much more time than the player had).
    :param heartbeat: seconds between the device's ``alive`` messages while a clock runs (a crash
        then restores at most this much more time than the player had).
    """

    def __init__(self, checkpoint_every: float = CHECKPOINT_SECONDS, heartbeat: float = HEARTBEAT):
        self.checkpoint_every = checkpoint_every
        self.heartbeat = heartbeat
        self.current_clock: ClockRef | None = None  # the stream number of its start, or its record id
        self._seq = 0
        self._last_input: Input | None = None
        self._last_clock_t: float | None = None  # the newest record of the running clock
        self._alive_t: float | None = None  # the last heartbeat (None: none due, no clock runs)
        self._running = False
        self._seats = None  # the seats last written (seat tracking): a ``seats`` record when they change

    @property
    def seq(self) -> int:
        """The stream number of the newest record made (0: none yet): the log writer reports the number it
        has committed up to, so what depends on a record being on disk (a floor command's ack) can wait for it."""
        return self._seq

    def message(self, clock: ClockRef | None, kind: str, t: float, utc: str, data) -> LogRecord:
        """One record, numbered in the stream (``data``: a Struct of :mod:`~shotclock.core.log_records`, an output's
        fields, or a restore's)."""
        self._seq += 1
        return LogRecord(seq=self._seq, clock=clock, type=kind, t=t, utc=utc, data=data)

    def session(self, t: float, utc: str, data: dict) -> list:
        """The session record (it starts the stream) and a first heartbeat, so the writer knows the clock."""
        return [self.message(None, "session", t, utc, data), self._alive(t)]

    def interrupted(self, clock_id: int, t: float, utc: str, data, restored: bool) -> LogRecord:
        """The record of a clock the last stop left open; a restored clock is this table's open clock again."""
        if restored:
            self.current_clock = ClockRef(id=clock_id)
        return self.message(ClockRef(id=clock_id), "interrupted", t, utc, data)

    def round(self, round: Round, utc_at: UtcAt) -> list:
        """The messages for one round: raw inputs, then inputs and outputs in the engine's order,
        button faults, a checkpoint when one is due, and a heartbeat when one is due."""
        out: list = []

        def add(clock, kind, t, data):
            out.append(self.message(clock, kind, t, utc_at(t), data))

        for t, button in round.held_at_start:
            add(None, "edge", t, EdgeData(button=button, pressed=True, at_start=True))
        where = {"round": round.now, "after": round.after}
        for item in round.arrivals:
            if isinstance(item, Edge):
                add(None, "edge", item.t, EdgeData(button=item.button, pressed=item.pressed, **where))
            elif isinstance(item, Command):  # with the seat commands' fields that are set (seat tracking, marks…)
                extra = {k: getattr(item, k) for k in ("seat",) + SEAT_FIELDS if getattr(item, k) is not None}
                if "players" in extra:
                    extra["players"] = [list(p) for p in extra["players"]]
                add(None, "command", item.t, CommandData(name=item.name, id=item.id, sender=item.sender,
                                                         facing_bet=item.facing_bet, **extra, **where))
            elif isinstance(item, TournamentNews):  # the tournament clock's state, as it arrived
                add(None, "tournament", item.t, TournamentData(
                    tournament=item.id, seq=item.seq, level=item.level, hands=item.hands, on_break=item.on_break,
                    break_left=item.break_left, paused=item.paused, break_name=item.break_name,
                    **({"gone": True} if item.gone else {}), **where))
            elif isinstance(item, RoomHandForHand):  # the room's hand-for-hand state, as it arrived
                add(None, "room_state", item.t, RoomStateData(on=item.on, hands=item.hands, minutes=item.minutes,
                                                              seq=item.seq, room=item.room, section=item.section,
                                                              **where))
        sequence = round.sequence
        for index, item in enumerate(sequence):
            if isinstance(item, Input):
                clock = self._clock_of_input(round, index)
                add(clock, "input", item.t, item.log_data(round.now))
                self._last_input = item
            else:
                data = item.record()
                if isinstance(item, Started):
                    seats = round.seats_at_start.get(id(item))
                    if seats is not None and seats != self._seats:  # the seats this clock starts with, before it
                        add(None, "seats", item.t, seats.record())
                        self._seats = seats
                    self.current_clock = ClockRef(seq=self._seq + 1)  # this record's own
                    if self._last_input is not None:
                        data["facing_bet"] = self._last_input.facing_bet
                clock = self.current_clock
                if isinstance(item, Decision):
                    self.current_clock = None
                del data["type"], data["t"]  # an output's data: its own fields
                add(clock, item.TYPE, item.t, data)
            if clock is not None:
                self._last_clock_t = item.t
        for fault in round.button_faults:
            add(None, "fault", fault.t, FaultData(fault=fault.kind, button=fault.button))
        seats = round.state.seats if round.state is not None else None
        if seats is not None and seats != self._seats:  # what a restart brings back (names, hand, banks, chips)
            add(None, "seats", round.now, seats.record())
            self._seats = seats
        state = round.state
        if (state is not None and state.phase == RUNNING and self.current_clock is not None
                and self._last_clock_t is not None and round.now >= self._last_clock_t + self.checkpoint_every):
            add(self.current_clock, "checkpoint", round.now, CheckpointData(remaining=state.remaining(round.now)))
            self._last_clock_t = round.now
        alive = self._heartbeat(state, round.now)
        if alive is not None:
            out.append(alive)
        return out

    def notes(self, notes: list[dict], utc_at: UtcAt) -> list[LogRecord]:
        """Records another thread asked for (``t``, ``type``, ``data``; a refused floor command)."""
        return [self.message(None, n["type"], n["t"], utc_at(n["t"]), n["data"]) for n in notes]

    def stop(self, t: float, state: Snapshot, utc: str) -> list[LogRecord]:
        """A graceful stop: the exact time the open clock has left (the next start restores it)."""
        if self.current_clock is None or state.phase not in (RUNNING, PAUSED):
            return []
        return [self.message(self.current_clock, "shutdown", t, utc,
                             ShutdownData(remaining=state.remaining(t), running=state.phase == RUNNING))]

    def next_wake(self, now: float) -> float | None:
        """When the next checkpoint or heartbeat of the running clock is due (None: no clock runs).

        The same sums as the rounds' tests for being due, so a round at this time finds it due."""
        if not self._running:
            return None
        wakes = [self._alive_t + self.heartbeat]
        if self.current_clock is not None and self._last_clock_t is not None:
            wakes.append(self._last_clock_t + self.checkpoint_every)
        return min(wakes)

    def _heartbeat(self, state: Snapshot | None, now: float) -> Alive | None:
        """An ``alive`` message when one is due while a clock runs, and one more as it stops running."""
        running = state is not None and state.phase == RUNNING
        was, self._running = self._running, running
        if running and (not was or self._alive_t is None or now >= self._alive_t + self.heartbeat):
            return self._alive(now)
        if was and not running:
            return self._alive(now)  # no clock runs any more: a crash from now on costs no one time
        return None

    def _alive(self, t: float) -> Alive:
        self._alive_t = t
        return Alive(t=t, clock=self.current_clock if self._running else None)

    def _clock_of_input(self, round: Round, index: int) -> ClockRef | None:
        """An input belongs to the clock it ends, else the clock it starts, else the current one."""
        sequence = round.sequence
        for offset, item in enumerate(sequence[index + 1:], start=1):
            if isinstance(item, Input):
                break
            if isinstance(item, Decision):
                return self.current_clock
            if isinstance(item, Started):
                seats = round.seats_at_start.get(id(item))
                ahead = seats is not None and seats != self._seats  # its seats record comes first
                return ClockRef(seq=self._seq + 1 + offset + ahead)
        return self.current_clock
