"""``shotclock tournament run``: one tournament's clock, on the floor side (docs/tournament.md).

The process holds a :class:`~shotclock.core.tournament.TournamentClock` on its own timeline (the machine's clock
since its boot: no wall-clock step moves it), takes the floor's commands (``…/tournament/<id>/cmd/by/<login>``:
the sender is the login the ACL let write that topic) and the room's hand-for-hand state (retained,
``…/handforhand/…``), and publishes the clock's state retained (``…/tournament/<id>/state``) at every change and every heartbeat, with its
own online status (a Last Will says offline). Each change goes to the archive (``…/tournament/<id>/event``) beside
the tables' rulings, with who made it.

It sleeps until the next stage is due, a message comes or the heartbeat is due: nothing polls for the time to be
up. Every event is committed to the journal (:mod:`shotclock.adapters.clock_journal`) before it is answered; after a
crash, a stop or a power cut the journal is played again and the time away (since the last sign of life: on the
machine's own clock when it did not reboot, else on the wall clock) is counted as played, as the tables played on,
and said in the state (``away_s``) for the floor to add back or keep.
"""

from __future__ import annotations

import logging
import queue
import signal
import threading
import time
from pathlib import Path

import msgspec

from shotclock.adapters.clock_journal import Alive
from shotclock.core import tournament as tc
from shotclock.core.codec import JsonProblem, decode, encode
from shotclock.core.fields import FIELDS
from shotclock.core.inbound import MAX_PAYLOAD
from shotclock.core.roomstate import RoomState, newest, room_state_of
from shotclock.core.structure import Structure
from shotclock.core.topics import (check_name, every_hand_for_hand, hand_for_hand_scope, split_tournament_topic,
                                   tournament_topic)
from shotclock.core.tournament_state import (HEARTBEAT_S, TABLES_MAX, ClockStatus, Scope, TournamentState,
                                             state_of)
from shotclock.core.tournament_wire import ClockAck, ClockCommand, command_event, refusal
from shotclock.core.view import countdown_text
from shotclock.errors import ShotclockError

log = logging.getLogger("shotclock.tournament")
BOOT_ID = Path("/proc/sys/kernel/random/boot_id")  # the kernel's identity of this boot (Linux)
BEAT_S = 1.0  # the journal's sign of life: a restart's stated time away holds at most this much of the time before


def since_boot() -> float:
    """The machine's clock since its boot, in seconds: monotonic, and it counts a suspend (a floor laptop's lid shut
    while the tables play on); no NTP step or a person setting the time moves it."""
    try:
        return time.clock_gettime(time.CLOCK_BOOTTIME)
    except (AttributeError, OSError):  # not Linux
        return time.monotonic()


def boot_id() -> str:
    """This boot's identity: the clock since boot of another boot says nothing about this one."""
    try:
        return BOOT_ID.read_text(encoding="ascii").strip()[:64]
    except OSError:
        return ""


class ClockProcess:
    """One tournament's clock process (see the module's description).

    :param journal: the :class:`~shotclock.adapters.clock_journal.ClockJournal` it keeps.
    :param client: a paho client logged in (not yet connected); ``connect`` connects it in the background.
    :param clock: the machine's clock since boot (seconds), ``wall`` the wall clock (seconds), ``boot`` this boot's
        identity: tests give their own.
    :param loaded_by: the login that gave it a new structure on its command line (said in the archive).
    """

    def __init__(self, journal, venue: str, tournament: str, client=None, connect=None, clock=since_boot,
                 wall=time.time, boot: str | None = None, heartbeat: float = HEARTBEAT_S,
                 loaded_by: str | None = None):
        self.journal, self.venue, self.id = journal, venue, tournament
        self.client, self._connect = client, connect
        self._clock, self._wall, self.heartbeat = clock, wall, heartbeat
        self.boot_id = boot_id() if boot is None else boot
        self.inbox: queue.Queue = queue.Queue()
        self.stopping = threading.Event()
        self.connected = False
        self.rooms: dict[tuple, RoomState] = {}  # the venue's hand-for-hand states, by scope
        self.away: float | None = None  # the time away to say (the floor adds it back or keeps it)
        self.away_measured = ""  # how it was measured ("the machine's clock", "the wall clock")
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
        self.seq = alive.seq if alive is not None else 0
        self._t0, self._mono0 = 0.0, self._clock()
        if alive is not None:  # back after a crash, a stop or a power cut: the time away counted as played
            away = self._time_away(alive)
            self._t0 = alive.t + away
            if self.clock.started:
                running = self.clock.running
                self._take(tc.Restored(self.now(), "clock", away=round(away, 3)))
                self.away = away if running else None  # a clock that stood still lost nothing
        if loaded_by is not None:
            self._loaded(loaded_by)

    def _time_away(self, alive: Alive) -> float:
        """Seconds since the journal's last sign of life: on the machine's clock when it did not reboot since (exact,
        whatever the wall clock did), else on the wall clock (a power cut: the only clock that survives it)."""
        if alive.boot_id and alive.boot_id == self.boot_id and self._mono0 >= alive.since_boot:
            self.away_measured = "the machine's clock"
            return self._mono0 - alive.since_boot
        self.away_measured = "the wall clock (the machine restarted)"
        away = self._wall() - alive.wall_ms / 1000.0
        if away < 0:
            log.warning("the wall clock is %.0f s behind the journal's last sign of life: the time away is taken "
                        "as 0 (set the machine's time, then 'shotclock tournament add' the outage)", -away)
        return max(0.0, away)

    # -- time ------------------------------------------------------------------------------------------------------

    def now(self) -> float:
        """The clock's timeline now: where the journal left it, plus the machine's clock since this start."""
        return self._t0 + (self._clock() - self._mono0)

    def wall_ms(self) -> int:
        return int(self._wall() * 1000)

    def alive(self) -> Alive:
        """This moment as the journal keeps it."""
        return Alive(self.now(), self.wall_ms(), self._clock(), self.boot_id, self.seq)

    # -- the loop --------------------------------------------------------------------------------------------------

    def run(self) -> None:
        """Connect, then take what comes until :attr:`stopping` is set; keeps time with the broker away."""
        client = self.client
        client.will_set(self.topic("status"), ClockStatus(online=False, id=self.id, clean=False).encode(), qos=1,
                        retain=True)
        client.on_connect = self._on_connect
        client.on_disconnect = lambda c, u, flags, rc, p: self.inbox.put(("disconnected", b""))
        client.on_message = lambda c, u, m: self.inbox.put((m.topic, m.payload))
        self._connect(client)
        next_state = next_beat = self._clock()
        while not self.stopping.is_set():
            wake = self.clock.next_wake
            timeout = min(next_state, next_beat) - self._clock()
            if wake is not None:
                timeout = min(timeout, wake - self.now())
            try:
                item = self.inbox.get(timeout=max(0.0, timeout))
            except queue.Empty:
                item = None
            changed = self._advance()
            if item is not None:
                try:
                    changed = self._message(*item) or changed
                except (ShotclockError, OSError, ArithmeticError, ValueError, TypeError, KeyError):
                    # one message that cannot be handled never stops the clock (the journal's own faults do)
                    log.exception("a message on %s could not be handled", item[0])
            mono = self._clock()
            publish = changed or mono >= next_state
            if publish:
                self.seq = max(self.seq + 1, self.wall_ms())  # kept in the journal first: never again after a restart
            if publish or mono >= next_beat:
                self.journal.beat(self.alive())  # the last sign of life: a restart's time away is measured from it
                next_beat = mono + BEAT_S
            if publish:
                self.publish_state()
                next_state = mono + self.heartbeat
        if self.connected:
            client.publish(self.topic("status"), ClockStatus(online=False, id=self.id, boot=self.boot, clean=True,
                                                             since_ms=self.wall_ms()).encode(),
                           qos=1, retain=True).wait_for_publish(5)
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
        client.publish(self.topic("status"), ClockStatus(online=True, id=self.id, boot=self.boot).encode(), qos=1,
                       retain=True)
        client.subscribe([(self.topic("cmd/by/+"), 1), (every_hand_for_hand(self.venue), 1)])
        self.inbox.put(("connected", b""))

    # -- what comes in ---------------------------------------------------------------------------------------------

    def _advance(self) -> bool:
        changes = self.clock.advance(self.now())
        self._publish_changes(self.journal.add_changes(changes, self.alive()))
        return bool(changes)

    def _message(self, topic: str, payload: bytes) -> bool:
        if topic in ("connected", "disconnected"):
            self.connected = topic == "connected"
            if self.connected:  # every change again (the archive keeps each once): none lost while away
                log.info("connected to the broker")
                for n, wall_ms, change in self.journal.changes():
                    self._archive(n, wall_ms, change)
            else:
                log.warning("the broker is gone: the clock keeps time and says it when the broker is back")
            return self.connected
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
        if command.name == "load":
            return self._load(command, sender)
        if command.name == "players":
            if command.players is None:
                self._ack(ClockAck(id=command.id, name="players", outcome="refused",
                                   reason="'players' needs 'players'"))
                return False
            self.players = command.players or None
            self.journal.set_meta(players=str(command.players))
            self._ack(ClockAck(id=command.id, name="players", outcome="done",
                               said=f"{command.players} players" if command.players else
                               "the players' count is off"))
            return True
        event = command_event(command, self.now(), sender)
        if event is None:  # keep: the floor keeps the time as it is after a restart
            if self.away is None:
                self._ack(ClockAck(id=command.id, name="keep", outcome="ignored",
                                   reason="there is no time away to keep or give back"))
                return False
            log.info("%s keeps the %.1f s away as played", sender, self.away)
            self.away = None
            self._ack(ClockAck(id=command.id, name="keep", outcome="done", said="the time away is kept as played"))
            return True
        changes = self._take(event)
        if command.name in ("add", "take") and changes:
            self.away = None  # the floor decided about the time away
        problem = refusal(command, changes, self.clock)
        if problem:
            self._ack(ClockAck(id=command.id, name=command.name, outcome="ignored", reason=problem))
            return bool(changes)
        said = _said(changes[-1], self.clock.structure)
        self._ack(ClockAck(id=command.id, name=command.name, outcome="done", said=said))
        return True

    def _load(self, command: ClockCommand, sender: str) -> bool:
        problem = refusal(command, [], self.clock)
        if problem:
            self._ack(ClockAck(id=command.id, name="load", outcome="refused", reason=problem))
            return False
        if self.clock.started:
            self._ack(ClockAck(id=command.id, name="load", outcome="ignored",
                               reason="the clock has started: a structure is loaded before the start"))
            return False
        structure = command.structure
        self.journal.set_structure(structure)
        self.clock = tc.TournamentClock(structure)
        self._loaded(sender)
        self._ack(ClockAck(id=command.id, name="load", outcome="done", said=_loaded_words(structure)))
        return True

    def _loaded(self, by: str) -> None:
        """A new structure, said in the journal and the archive with who gave it."""
        structure = self.clock.structure
        log.info("structure %r loaded by %s: %d stages", structure.title, by, len(structure.stages))
        change = tc.Change(self.now(), "loaded", 0, structure.level_of(0), self.clock.remaining(self.now()), None, by)
        self._publish_changes(self.journal.add_changes([change], self.alive()))

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
        self._publish_changes(self.journal.add(event, self.alive(), changes))
        return changes

    # -- what goes out ---------------------------------------------------------------------------------------------

    def state(self) -> TournamentState:
        """The clock's state message now (numbered :attr:`seq`)."""
        return state_of(self.clock, self.now(), self.id, self.scope, seq=max(1, self.seq), at_ms=self.wall_ms(),
                        away_s=self.away, players=self.players, heartbeat=self.heartbeat)

    def publish_state(self) -> None:
        if self.connected:  # a state kept while the broker was away would be old news: the newest goes at connect
            self.client.publish(self.topic("state"), self.state().encode(), qos=1, retain=True)

    def _ack(self, ack: ClockAck) -> None:
        self.client.publish(self.topic("cmd/ack"), encode(ack), qos=1)

    def _publish_changes(self, numbered) -> None:
        for n, change in numbered:
            self._archive(n, self.wall_ms(), change)

    def _archive(self, n: int, wall_ms: int, change: tc.Change) -> None:
        if not self.connected or self.client is None:
            return  # sent with the rest when the broker is back
        record = dict(msgspec.to_builtins(change), utc=_utc(wall_ms), tournament=self.id)
        self.client.publish(self.topic("event"), encode({"boot": self.boot, "seq": n, "record": record}), qos=1)


def _utc(wall_ms: int) -> str:
    return time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(wall_ms / 1000)) + f".{wall_ms % 1000:03d}Z"


def _id_of(payload: bytes) -> str:
    try:
        value = decode(payload, max_bytes=MAX_PAYLOAD)
    except JsonProblem:
        return ""
    ident = value.get("id") if isinstance(value, dict) else None
    return ident if isinstance(ident, str) and len(ident) <= 64 else ""


SAID = {"level": "now", "next": "now", "time": "now", "hand_for_hand": "hand-for-hand", "released": "released",
        "hand_for_hand_ended": "hand-for-hand ended"}  # a change in the ack's words (else its own name)


def _said(change: tc.Change, structure: Structure) -> str:
    """A change in words, for the ack: ``adjusted: level 3, 17:42 left``, ``now the break after level 2 (dinner),
    30:00 left``."""
    stage = structure.stages[change.index]
    where = structure.label(change.index) + (f" ({stage.name})" if stage.is_break and stage.name else "")
    left = "" if change.remaining is None else f", {countdown_text(change.remaining)} left"
    word = SAID.get(change.why, change.why)
    return f"{word} {where}{left}" if word == "now" else f"{word}: {where}{left}"


def _seconds_text(seconds: float) -> str:
    """A time away as the floor would type it back: tenths under ten seconds, else whole seconds."""
    return f"{seconds:.1f}" if seconds < 10 else f"{seconds:.0f}"


def _loaded_words(structure: Structure) -> str:
    levels = sum(1 for s in structure.stages if not s.is_break)
    breaks = len(structure.stages) - levels
    return f"{structure.title or 'the structure'}: {levels} level{'s' * (levels != 1)}, " \
           f"{breaks} break{'s' * (breaks != 1)}"


def cmd_tournament_run(args) -> int:
    """``shotclock tournament run``: hold one tournament's clock until stopped (Ctrl-C, SIGTERM)."""
    import sqlite3

    from shotclock.adapters.clock_journal import ClockJournal, JournalError
    from shotclock.floor.client import floor_client

    problem = check_name("--id", args.id)
    if problem:
        raise ShotclockError(problem)
    scope = _scope(args)
    if not args.structure and not Path(args.journal).exists():  # a typo in --journal makes no new journal
        raise ShotclockError(f"--journal {args.journal}: no such journal yet: the first start needs --structure FILE")
    client, username = floor_client(args, f"shotclock-tournament-{args.id}")
    try:
        journal = ClockJournal(args.journal)
    except JournalError as exc:
        raise ShotclockError(str(exc)) from None
    try:
        return _run(args, journal, scope, client, username)
    except sqlite3.Error as exc:  # the journal cannot be written: stopping beats a clock that forgets
        raise ShotclockError(f"{args.journal}: the journal cannot be written ({exc}): the clock stops; its state "
                             "is kept up to the last committed event") from None
    finally:
        journal.close()


def _run(args, journal, scope: Scope | None, client, username: str) -> int:
    kept_id = journal.meta("id")
    if kept_id not in (None, args.id):
        raise ShotclockError(f"{args.journal}: the journal of tournament {kept_id!r}, not {args.id!r}")
    if scope is None and journal.scope() is None:
        raise ShotclockError("say which tables follow this tournament: --room, --section, --tables or --venue-wide")
    loaded = False
    if args.structure:
        from shotclock.shell.structurecmd import load_structure

        loaded = _take_structure(journal, load_structure(args.structure, getattr(args, "encoding", None)),
                                 args.structure)
    elif journal.structure() is None:
        raise ShotclockError(f"{args.journal}: no structure yet: give it one with --structure FILE")
    if scope is not None:
        journal.set_meta(scope=encode(scope).decode(), id=args.id)
    elif kept_id is None:
        journal.set_meta(id=args.id)
    process = ClockProcess(journal, args.venue, args.id, client, _connector(args),
                           loaded_by=username if loaded else None)
    for s in (signal.SIGTERM, signal.SIGINT):
        signal.signal(s, lambda *a: process.stop())
    if process.away is not None:
        log.warning("back after %.1f s away (on %s): counted as played ('shotclock tournament add %s' gives it "
                    "back, 'keep' keeps it)", process.away, process.away_measured, _seconds_text(process.away))
    log.info("tournament %s (%s) for %s, as %s", args.id, process.clock.structure.title, process.scope.words,
             username)
    print(f"tournament {args.id}: running ({process.clock.structure.title}, {process.scope.words})", flush=True)
    process.run()
    return 0


def _connector(args):
    """Connect in the background: the clock keeps time while the broker is away, and paho tries again."""
    from shotclock.floor.broker_config import parse_endpoint

    endpoint = parse_endpoint(args.broker, "--broker")

    def connect(client) -> None:
        client.reconnect_delay_set(0.25, 5)
        client.connect_async(endpoint.host, endpoint.port, keepalive=15)
        client.loop_start()

    return connect


def _scope(args) -> Scope | None:
    """The tables the command line names (None: it names none; the journal's scope stays)."""
    scope = Scope(tuple(args.room or ()), tuple(args.section or ()), tuple(_tables(args.tables)))
    for kind, names in (("--room", scope.rooms), ("--section", scope.sections)):
        for name in names:
            problem = FIELDS[kind[2:]].problem(name)
            if problem or not name:
                raise ShotclockError(f"{kind}: {problem or 'a name, not empty'}")
    if args.venue_wide:
        if scope != Scope():
            raise ShotclockError("--venue-wide is every table of the venue: leave out --room, --section and --tables")
        return scope
    return scope if scope != Scope() else None


def _take_structure(journal, structure: Structure, name: str) -> bool:
    """A structure from --structure: taken when none is kept or the clock has not started (True: a new one). A started
    clock keeps its own, said in one line: a restart by its service with the file it first had, after the floor
    loaded another before the start, goes on with the tournament instead of failing at every attempt."""
    kept = journal.structure()
    if kept == structure:
        return False
    if kept is not None and any(isinstance(e, tc.Start) for e in journal.events()):
        log.warning("--structure %s: not used: the journal holds a started tournament (%r), which keeps its own "
                    "structure; a new tournament needs a new --journal", name, kept.title)
        return False
    journal.set_structure(structure)
    return True


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
    if len(out) > TABLES_MAX:
        raise ShotclockError(f"--tables: {len(out)} tables; a tournament's list holds at most {TABLES_MAX} (name its "
                             "rooms or sections instead)")
    return out
