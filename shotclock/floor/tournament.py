"""``shotclock tournament run``: one tournament's clock, on the floor side (docs/tournament.md).

The process holds a :class:`~shotclock.core.tournament.TournamentClock` on its own monotonic timeline, takes the
floor's commands (``…/tournament/<id>/cmd/by/<login>``: the sender is the login the ACL let write that topic) and the
room's hand-for-hand state (retained, ``…/handforhand/…``), and publishes the clock's state retained
(``…/tournament/<id>/state``) at every change and every heartbeat, with its own online status (a Last Will says
offline). Each change goes to the archive (``…/tournament/<id>/event``) beside the tables' rulings.

It sleeps until the next stage is due, a message comes or the heartbeat is due: nothing polls for the time to be
up. Every event is committed to the journal (:mod:`shotclock.adapters.clock_journal`) before it is answered; after a
crash or a power cut the journal is played again and the time away (the wall clock since the last heartbeat) is
counted as played, said in the state (``away_s``) for the floor to add back or keep.
"""

from __future__ import annotations

import logging
import queue
import signal
import threading
import time
from pathlib import Path

from shotclock.core import tournament as tc
from shotclock.core.codec import JsonProblem, decode, encode
from shotclock.core.fields import FIELDS
from shotclock.core.inbound import MAX_PAYLOAD
from shotclock.core.roomstate import RoomState, newest, room_state_of
from shotclock.core.structure import Structure
from shotclock.core.topics import (check_name, every_hand_for_hand, hand_for_hand_scope, split_tournament_topic,
                                   tournament_topic)
from shotclock.core.tournament_state import HEARTBEAT_S, Scope, TournamentState, state_of
from shotclock.core.tournament_wire import ClockAck, ClockCommand, command_event, refusal
from shotclock.errors import ShotclockError

log = logging.getLogger("shotclock.tournament")
ALIVE_S = 1.0  # seconds between the journal's signs of life: the time away after a crash is stated to within this


class ClockProcess:
    """One tournament's clock process (see the module's description).

    :param journal: the :class:`~shotclock.adapters.clock_journal.ClockJournal` it keeps.
    :param client: a paho client logged in (not yet connected), with ``connect`` to connect it.
    :param clock: the monotonic clock (seconds), ``wall`` the wall clock (seconds): tests give their own.
    """

    def __init__(self, journal, venue: str, tournament: str, client, connect, clock=time.monotonic,
                 wall=time.time, heartbeat: float = HEARTBEAT_S):
        self.journal, self.venue, self.id = journal, venue, tournament
        self.client, self._connect = client, connect
        self._clock, self._wall, self.heartbeat = clock, wall, heartbeat
        self.inbox: queue.Queue = queue.Queue()
        self.stopping = threading.Event()
        self.rooms: dict[tuple, RoomState] = {}  # the venue's hand-for-hand states, by scope
        self.seq = 0
        self.away: float | None = None
        self.boot = journal.boot()
        self.scope = journal.scope() or Scope()
        kept = journal.meta("players")
        self.players = int(kept) if kept and kept.isdigit() and int(kept) else None
        structure = journal.structure()
        if structure is None:
            raise ShotclockError(f"{journal.path}: no structure yet: start it with --structure FILE")
        self.clock = tc.TournamentClock(structure)
        for event in journal.events():  # where it was
            self.clock.handle(event)
        alive = journal.last_alive()
        self._t0, self._mono0 = 0.0, self._clock()
        if alive is not None:  # back after a crash, a stop or a power cut: the time away counted as played
            last_t, last_wall = alive
            self.away = max(0.0, self._wall() - last_wall / 1000.0)
            self._t0 = last_t + self.away
            if self.clock.started:
                self._take(tc.Restored(self.now(), "clock", away=round(self.away, 3)))
            else:
                self.away = None

    # -- time ------------------------------------------------------------------------------------------------------

    def now(self) -> float:
        """The clock's timeline now: where the journal left it, plus the monotonic time since this start."""
        return self._t0 + (self._clock() - self._mono0)

    def wall_ms(self) -> int:
        return int(self._wall() * 1000)

    # -- the loop --------------------------------------------------------------------------------------------------

    def run(self) -> None:
        """Connect, then take what comes until :attr:`stopping` is set."""
        client = self.client
        client.will_set(self.topic("status"), encode({"online": False, "id": self.id}), qos=1, retain=True)
        client.on_connect = self._on_connect
        client.on_message = lambda c, u, m: self.inbox.put((m.topic, m.payload))
        self._connect(client)
        next_beat = next_alive = self._clock()
        self._republish()
        while not self.stopping.is_set():
            wake = self.clock.next_wake
            timeout = min(next_beat, next_alive) - self._clock()
            if wake is not None:
                timeout = min(timeout, wake - self.now())
            try:
                item = self.inbox.get(timeout=max(0.0, timeout))
            except queue.Empty:
                item = None
            changed = self._advance()
            if item is not None:
                changed = self._message(*item) or changed
            if changed or self._clock() >= next_alive:  # the time away after a crash is said to within this
                self.journal.beat(self.now(), self.wall_ms())
                next_alive = self._clock() + ALIVE_S
            if changed or self._clock() >= next_beat:
                self.publish_state()
                next_beat = self._clock() + self.heartbeat
        client.publish(self.topic("status"), encode({"online": False, "id": self.id, "clean": True}), qos=1,
                       retain=True).wait_for_publish(5)
        client.disconnect()
        client.loop_stop()

    def stop(self) -> None:
        self.stopping.set()
        self.inbox.put(None)

    def topic(self, leaf: str) -> str:
        return tournament_topic(self.venue, self.id, leaf)

    def _on_connect(self, client, userdata, flags, reason_code, properties):
        if reason_code.is_failure:
            log.error("the broker refused the connection: %s", reason_code)
            return
        client.publish(self.topic("status"), encode({"online": True, "id": self.id, "boot": self.boot}), qos=1,
                       retain=True)
        client.subscribe([(self.topic("cmd/by/+"), 1), (every_hand_for_hand(self.venue), 1)])
        self.inbox.put(("connected", b""))

    # -- what comes in ---------------------------------------------------------------------------------------------

    def _advance(self) -> bool:
        changes = self.clock.advance(self.now())
        self._publish_changes(self.journal.add_changes(changes, self.wall_ms()))
        return bool(changes)

    def _message(self, topic: str, payload: bytes) -> bool:
        if topic == "connected":
            self._republish()
            return True
        where = split_tournament_topic(topic)
        if where is not None and where[1] == self.id and where[2].startswith("cmd/by/"):
            return self._command(where[2][len("cmd/by/"):], payload)
        scope = hand_for_hand_scope(topic)
        if scope is not None:
            return self._room(scope, payload)
        return False

    def _command(self, sender: str, payload: bytes) -> bool:
        try:
            command = decode(payload, ClockCommand, max_bytes=MAX_PAYLOAD)
        except JsonProblem as exc:
            self._ack(ClockAck(id=_id_of(payload), name="", outcome="refused", reason=exc.detail))
            return False
        t = self.now()
        if command.name == "load":
            return self._load(command, sender)
        if command.name == "players":
            if command.players is None:
                self._ack(ClockAck(id=command.id, name="players", outcome="refused", reason="'players' needs 'players'"))
                return False
            self.players = command.players or None
            self.journal.set_meta(players=str(command.players))
            self._ack(ClockAck(id=command.id, name="players", outcome="done",
                               said=f"{command.players} players" if command.players else "the players' count is off"))
            return True
        event = command_event(command, t, sender)
        if event is None:  # keep: the floor keeps the time as it is after a restart
            self.away = None
            self._ack(ClockAck(id=command.id, name=command.name, outcome="done", said="the time away is kept"))
            return True
        changes = self._take(event)
        if command.name in ("add", "take") and changes:
            self.away = None  # the floor decided about the time away
        problem = refusal(command, changes, self.clock)
        if problem:
            self._ack(ClockAck(id=command.id, name=command.name, outcome="ignored", reason=problem))
            return False
        self._ack(ClockAck(id=command.id, name=command.name, outcome="done", said=_said(changes[-1])))
        return True

    def _load(self, command: ClockCommand, sender: str) -> bool:
        if self.clock.started:
            self._ack(ClockAck(id=command.id, name="load", outcome="ignored",
                               reason="the clock has started: a structure is loaded before the start"))
            return False
        structure = command.structure
        self.journal.set_structure(structure)
        self.clock = tc.TournamentClock(structure)
        log.info("structure %r loaded by %s: %d stages", structure.title, sender, len(structure.stages))
        self._ack(ClockAck(id=command.id, name="load", outcome="done",
                           said=f"{structure.title!r}: {len(structure.stages)} stages"))
        return True

    def _room(self, scope: tuple, payload: bytes) -> bool:
        state = room_state_of(payload, scope[1], scope[2])
        if state is None:
            self.rooms.pop(scope, None)
            return False
        if not isinstance(state, RoomState):
            log.warning("refused the hand-for-hand state on %s: %s", scope, state.detail)
            return False
        self.rooms[scope] = state
        mine = self._room_state()
        if mine is None:
            return False
        return bool(self._take(tc.RoomHandForHand(self.now(), mine.by or "room", on=mine.on, hands=mine.hands,
                                                  minutes=mine.minutes, since_ms=mine.since_ms)))

    def _room_state(self) -> RoomState | None:
        """The newest hand-for-hand state that covers any part of this tournament's scope."""
        states = list(self.rooms.values())
        found = [newest(states, room, section) for room in (self.scope.rooms or (None,))
                 for section in (self.scope.sections or (None,))]
        found = [s for s in found if s is not None]
        return max(found, key=lambda s: s.seq, default=None)

    def _take(self, event: tc.ClockEvent) -> list[tc.Change]:
        """Hand ``event`` to the clock, keep it and its changes in the journal (committed), send the changes."""
        changes = self.clock.handle(event)
        self._publish_changes(self.journal.add(event, self.wall_ms(), changes))
        return changes

    # -- what goes out ---------------------------------------------------------------------------------------------

    def state(self) -> TournamentState:
        self.seq += 1
        return state_of(self.clock, self.now(), self.id, self.scope, seq=max(self.seq, self.wall_ms()),
                        at_ms=self.wall_ms(), away_s=self.away, players=self.players)

    def publish_state(self) -> None:
        self.client.publish(self.topic("state"), self.state().encode(), qos=1, retain=True)

    def _ack(self, ack: ClockAck) -> None:
        self.client.publish(self.topic("cmd/ack"), encode(ack), qos=1)

    def _publish_changes(self, numbered) -> None:
        for n, change in numbered:
            self._archive(n, self.wall_ms(), change)

    def _archive(self, n: int, wall_ms: int, change: tc.Change) -> None:
        record = dict(msgspec_builtins(change), utc=_utc(wall_ms), tournament=self.id)
        self.client.publish(self.topic("event"), encode({"boot": self.boot, "seq": n, "record": record}), qos=1)

    def _republish(self) -> None:
        """Every change of the journal again (the archive keeps each once): none lost while the collector was away."""
        for n, wall_ms, change in self.journal.changes():
            self._archive(n, wall_ms, change)


def msgspec_builtins(value):
    import msgspec

    return msgspec.to_builtins(value)


def _utc(wall_ms: int) -> str:
    return time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(wall_ms / 1000)) + f".{wall_ms % 1000:03d}Z"


def _id_of(payload: bytes) -> str:
    try:
        value = decode(payload, max_bytes=MAX_PAYLOAD)
    except JsonProblem:
        return ""
    ident = value.get("id") if isinstance(value, dict) else None
    return ident if isinstance(ident, str) and len(ident) <= 64 else ""


def _said(change: tc.Change) -> str:
    """A change in words, for the ack."""
    where = f"level {change.level}" if change.level is not None else f"the break (stage {change.index + 1})"
    left = "" if change.remaining is None else f", {_clock_text(change.remaining)} left"
    return f"{change.why.replace('_', ' ')}: {where}{left}"


def _clock_text(seconds: float) -> str:
    s = int(round(seconds))
    return f"{s // 3600}:{s // 60 % 60:02d}:{s % 60:02d}" if s >= 3600 else f"{s // 60}:{s % 60:02d}"


def cmd_tournament_run(args) -> int:
    """``shotclock tournament run``: hold one tournament's clock until stopped (Ctrl-C, SIGTERM)."""
    from shotclock.adapters.clock_journal import ClockJournal, JournalError
    from shotclock.floor.client import connect, floor_client

    problem = check_name("--id", args.id)
    if problem:
        raise ShotclockError(problem)
    scope = Scope(tuple(args.room or ()), tuple(args.section or ()), tuple(_tables(args.tables)))
    for kind, names in (("--room", scope.rooms), ("--section", scope.sections)):
        for name in names:
            problem = FIELDS[kind[2:]].problem(name)
            if problem or not name:
                raise ShotclockError(f"{kind}: {problem or 'a name, not empty'}")
    if not args.structure and not Path(args.journal).exists():
        raise ShotclockError(f"--journal {args.journal}: no such journal yet: the first start needs --structure FILE")
    try:
        journal = ClockJournal(args.journal)
    except JournalError as exc:
        raise ShotclockError(str(exc)) from None
    if args.structure:
        from shotclock.shell.structurecmd import load_structure

        structure = load_structure(args.structure, getattr(args, "encoding", None))
        _take_structure(journal, structure, args.structure)
    if journal.scope() is None or scope != Scope() or args.structure:
        journal.set_meta(scope=encode(scope).decode(), id=args.id)
    if journal.meta("id") not in (None, args.id):
        raise ShotclockError(f"{args.journal}: the journal of tournament {journal.meta('id')!r}, not {args.id!r}")
    client, username = floor_client(args, f"shotclock-tournament-{args.id}")
    process = ClockProcess(journal, args.venue, args.id, client, lambda c: connect(c, args, keepalive=15))
    for s in (signal.SIGTERM, signal.SIGINT):
        signal.signal(s, lambda *a: process.stop())
    if process.away is not None:
        log.warning("back after %.1f s away: counted as played ('shotclock tournament add %.0f' gives it back)",
                    process.away, process.away)
    log.info("tournament %s (%s) for %s, as %s", args.id, process.clock.structure.title, process.scope.words,
             username)
    print(f"tournament {args.id}: running ({process.clock.structure.title}, {process.scope.words})", flush=True)
    process.run()
    journal.close()
    return 0


def _take_structure(journal, structure: Structure, name: str) -> None:
    """A structure from --structure: taken when none is kept or the clock has not started; a started clock keeps
    its own (the floor says so on the command line, one line, exit 2)."""
    kept = journal.structure()
    if kept == structure:
        return
    if kept is not None and journal.events():
        started = any(isinstance(e, tc.Start) for e in journal.events())
        if started:
            raise ShotclockError(f"--structure {name}: the journal holds a started tournament with another "
                                 "structure; start without --structure to go on, or use a new --journal")
    journal.set_structure(structure)


def _tables(text: str | None) -> list[str]:
    """``--tables 1-40,final`` as table ids."""
    if not text:
        return []
    out = []
    for part in text.split(","):
        part = part.strip()
        low, dash, high = part.partition("-")
        if dash and low.isascii() and low.isdigit() and high.isascii() and high.isdigit():
            if int(high) - int(low) > 10_000 or int(high) < int(low):
                raise ShotclockError(f"--tables: {part!r} is not a range of tables")
            out += [str(n) for n in range(int(low), int(high) + 1)]
        else:
            problem = check_name("table", part)
            if problem:
                raise ShotclockError(f"--tables: {problem}")
            out.append(part)
    return out
