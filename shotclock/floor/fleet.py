"""``shotclock fleet --tables N``: N simulated tables on one broker, for tests, benchmarks and demos.

Each simulated table is the device without its pins, screen and sound: the same pure
:class:`~shotclock.core.table.Table`, :class:`~shotclock.shell.loop.DeviceLoop`, decision log,
recorder, outbox, sender and MQTT link as ``shotclock run`` -- the same login and client id, the same
messages. What differs is who runs them: a device gives its loop, its link's sender and paho's network a
thread each; the tables of one fleet process share one loop thread (:mod:`shotclock.floor.fleet_loop`, with
:mod:`shotclock.floor.fleet_link`) and one log-writer thread (:mod:`shotclock.floor.fleet_writer`), so the
simulator measures the broker, not itself. A dealer thread presses their buttons (pin edges posted to the
loop, as gpiozero's callback does): now and then a clock is called, and the player acts in time or the clock
runs out (shot-mode tables play betting rounds, streets and hands). The floor can command them like real tables.
"""

from __future__ import annotations

import gc
import heapq
import logging
import os
import random
import signal
import tempfile
import threading
import time
from pathlib import Path

from shotclock.config.loading import parse_config
from shotclock.core.inputs import Edge
from shotclock.core.settings import STREETS
from shotclock.core.table import Table
from shotclock.errors import ShotclockError
from shotclock.shell.loop import DeviceLoop

log = logging.getLogger("shotclock.fleet")


class LoopWaker:
    """A simulated table's waker: a wake asks the fleet's loop for a round of the table (any thread), where a
    device's loop would cut its own sleep short."""

    def __init__(self, loop, round):
        self.loop = loop
        self.round = round
        # A round is asked for and has not begun (set by any thread, cleared by the round). Set until the table
        # is built: a wake while its log and link are being opened waits for the first round.
        self.wanted = True

    def wake(self) -> None:
        """Ask for a round (one, however many wakes come before it)."""
        if not self.wanted:
            self.wanted = True
            self.loop.call_soon(self.round)

    def wait(self, timeout) -> None:
        """Never called: the fleet's loop sleeps for all its tables."""
        raise RuntimeError("a simulated table never sleeps on its own")


class SimulatedTable:
    """One table: the device's rules, decision log and MQTT link, run by the fleet's loop (no thread of its own).

    ``device`` has what the recorder and the network wiring expect of a device: ``loop``,
    ``engine``, ``boot`` and ``link``.
    """

    def __init__(self, table_id: str, config_text: str, state_dir: Path, writer=None, fleet_loop=None,
                 arrivals: "Arrivals | None" = None):
        """``writer``: a :class:`~shotclock.floor.fleet_writer.SharedWriter` that writes this table's log
        (None: a writer process of its own, as on a device); ``fleet_loop``: the
        :class:`~shotclock.floor.fleet_loop.FleetLoop` that runs it (None: one of its own); ``arrivals``: notes
        when each floor command reached the table (``--arrivals``)."""
        from shotclock.adapters.mqtt_login import new_boot_id

        self.id = table_id
        self.config = parse_config(config_text)
        self.state_dir = state_dir
        self.writer = writer
        self.fleet_loop = fleet_loop
        self.arrivals = arrivals
        self.boot = new_boot_id()
        self.link = None
        self.loop: DeviceLoop | None = None
        self.engine = None
        self.table: Table | None = None
        self.recorder = None
        self.error: Exception | None = None
        self._timer = None  # the fleet loop's timer for this table's next round
        self._halted = threading.Event()  # no round runs now, and none will
        self._joined = False  # runs on its fleet loop (until stop_all lets it go)

    def start(self, wait: bool = True) -> None:
        """Build the table (its log opened, its link started) and give it to the fleet's loop; raises what
        stopped it from starting. (``wait`` is kept for callers of the threaded simulator: building is done
        when this returns.)"""
        from shotclock.floor.fleet_link import LoopLink
        from shotclock.floor.fleet_loop import FleetLoop
        from shotclock.shell.device import attach_log_and_network

        if self.fleet_loop is None:
            self.fleet_loop = FleetLoop()
        fleet_loop = self.fleet_loop
        c = self.config
        # No minimum press time: the dealer thread's taps are as short as its pace makes them.
        table = Table(c.settings, start=time.monotonic(), debounce=c.device.debounce, hold=c.device.hold,
                      stuck_after=c.device.stuck_after, edge_grace=c.device.edge_grace, rule_sets=c.rule_sets)
        self.engine = table.engine
        self.table = table
        self.loop = DeviceLoop(table, waker=LoopWaker(fleet_loop, self._round))
        fleet_loop.join()
        noted = self.arrivals.note if self.arrivals is not None else None
        try:
            attached = attach_log_and_network(self, c, self.state_dir,
                                              make_writer=self.writer.sink if self.writer else None,
                                              make_link=lambda *a, **k: LoopLink(fleet_loop, *a, on_arrival=noted, **k))
        except Exception as exc:
            self.error = exc
            self._halted.set()
            fleet_loop.leave()
            raise
        self._joined = True
        self.recorder = attached.recorder
        if self.recorder is not None and self.writer is not None:
            # Heartbeats tell a writer process when its device died; the shared writer drops them (a
            # simulated table dies with it), so the loop need not wake four times a second to send them.
            self.recorder.builder.heartbeat = self.recorder.checkpoint_every
        self.loop.listeners = attached.listeners
        self.loop.waker.wanted = False
        self.loop.waker.wake()  # the first round

    def wait_ready(self) -> None:
        """Raise what stopped the table from starting (it is ready once :meth:`start` returned)."""
        if self.error:
            raise self.error

    def _round(self) -> None:
        """One round of the device loop (the fleet loop's thread), then a timer for the next thing due."""
        self.loop.waker.wanted = False
        if self._halted.is_set():
            return
        round = self.loop.run_once()
        wake = self.loop.next_wake(round.now)
        timer = self._timer
        if timer is not None and timer.when() == wake:
            return  # due then still: the timer stands (a thousand tables' rounds made and cancelled one each)
        if timer is not None:
            timer.cancel()
        self._timer = None if wake is None else self.fleet_loop.call_at(wake, self._timed_round)

    def _timed_round(self) -> None:
        self._timer = None  # it ran
        self._round()

    def waits_for_floor(self) -> bool:
        """The table shows "hand-for-hand: wait for the floor" (read from the dealer's thread: one flag)."""
        return self.table is not None and self.table.hand_for_hand.waiting

    def press(self, button: str, t: float) -> None:
        """A pin edge: ``button`` pressed at ``t`` (posted as gpiozero's callback would)."""
        self.loop.post(Edge(t, button, True))

    def release(self, button: str, t: float) -> None:
        """A pin edge: ``button`` released at ``t``."""
        self.loop.post(Edge(t, button, False))

    def halt(self) -> None:
        """Run no more rounds (any thread but the loop's; :meth:`wait_halted` waits for it)."""
        if self.fleet_loop is None or not self.fleet_loop.thread.is_alive():
            self._halted.set()
            return

        def halted():
            if self._timer is not None:
                self._timer.cancel()
            self._halted.set()
        self.fleet_loop.call_soon(halted)

    def leave_loop(self) -> None:
        """The table is stopped: the fleet's loop no longer runs it (it ends with its last table)."""
        if self._joined:
            self._joined = False
            self.fleet_loop.leave()

    def wait_halted(self, timeout: float = 10.0) -> bool:
        """Wait until no round runs or will."""
        return self._halted.wait(timeout)

    def stop(self, wait: bool = True) -> None:
        """Stop the table: its last records written, the link says offline (clean) and closes.
        (``wait`` is kept for the threaded simulator's callers: this always waits; :func:`stop_all` stops many
        at once.)"""
        stop_all([self])


def stop_all(tables: list[SimulatedTable]) -> None:
    """Stop every table at once and wait for them (one by one, a thousand tables took minutes): their rounds
    end, their logs are closed (the last records reach the links), their links send what is left, say offline
    and disconnect. The fleet's loop ends once it runs no table."""
    for table in tables:
        table.halt()
    for table in tables:
        table.wait_halted()
    recorders = [t.recorder for t in tables if t.recorder is not None]
    for recorder in recorders:
        if hasattr(recorder.sink, "begin_close"):
            recorder.sink.begin_close()  # the shared writer closes them all in one go
    for recorder in recorders:
        recorder.close()
    links = [t.link for t in tables if t.link is not None]
    for link in links:
        link.stop(wait=False)
    deadline = time.monotonic() + 15
    for link in links:
        link.wait_stopped(max(0.0, deadline - time.monotonic()))
    for table in tables:
        table.leave_loop()


class Arrivals:
    """When each floor command, and each tournament clock's state, reached each table (``shotclock fleet --arrivals
    FILE``): noted on the loop's thread as a table's link reads it from its socket, before the table acts on it;
    written as JSON lines (``{"table": "7", "id": "<command id>", "t": <CLOCK_MONOTONIC seconds>}``; a clock's state:
    ``"id": "stage:<index>"``) when the fleet stops. A benchmark
    on the same machine compares ``t`` with its own monotonic clock: the time a command took to reach the tables,
    apart from the time the simulator then takes to act on it for all of them in turn."""

    def __init__(self, path: Path, clock=time.monotonic):
        self.path = Path(path)
        self.clock = clock
        self.seen: list[tuple[float, str, bytes]] = []  # appended on the loop's thread only

    def check(self) -> None:
        """One line naming the file when it cannot be written (before any table starts)."""
        try:
            with open(self.path, "a"):
                pass
        except OSError as exc:
            raise ShotclockError(f"--arrivals {self.path}: cannot be written ({exc.strerror})") from None

    def note(self, table: str, payload: bytes) -> None:
        """A command for ``table`` was read now (kept raw: the loop's thread only appends)."""
        self.seen.append((self.clock(), table, payload))

    def write(self) -> None:
        """Append the noted arrivals to the file (several fleet processes may share it: one write each)."""
        from shotclock.core.codec import text
        from shotclock.core.inbound import parse_json

        lines = []
        for t, table, payload in self.seen:
            command = parse_json(payload)
            ident = command.get("id") if isinstance(command, dict) else None
            if isinstance(command, dict) and isinstance(command.get("index"), int) and "stage" in command:
                ident = f"stage:{command['index']}"  # a tournament clock's state: the stage it brings
            lines.append(text({"table": table, "id": ident if isinstance(ident, str) else None, "t": t}) + "\n")
        with open(self.path, "a") as out:
            out.write("".join(lines))


WAIT_LOOK = 0.5  # seconds between a simulated dealer's looks at a screen that says "wait for the floor"
RELEASE = "release "  # a dealer's queued release of a button: "release street"


class Dealer:
    """Presses the simulated tables' buttons at random moments (one thread for all tables).

    Clock mode: a bet now and then, the floor calls a clock, and the player acts after a random time (a
    third of the clocks run out: hand dead or check). With ``deal`` each hand begins with the new hand (a
    street hold): during hand-for-hand the table then waits for the floor's release, as a device does, and the
    dealer, reading "wait for the floor", waits with it (looking again every WAIT_LOOK seconds).

    Shot mode: the dealer starts the first decision of a betting round; each player acts in
    time (now and then after an extension chip) or runs out of time, and each action starts the
    next player's clock; a street press ends the betting round, a street hold after the river
    deals a new hand.
    """

    def __init__(self, tables: list[SimulatedTable], seed: int | None = None, pace: float = 1.0, deal: bool = False):
        """``pace`` scales the idle time between hands (0.1: ten times as many clocks); ``deal``: in clock mode
        each hand begins with the new hand (a street hold), which hand-for-hand waits on."""
        self.deal = deal
        self.tables = tables
        self.random = random.Random(seed)
        self.pace = pace
        self._stop = threading.Event()
        self._queue: list = []
        self._street: dict[int, str] = {}  # shot mode: the street each table is on, as the dealer dealt it
        self._decisions: dict[int, int] = {}  # shot mode: decisions left in the betting round
        self.presses = 0
        self.thread = threading.Thread(target=self._run, name="fleet-dealer", daemon=True)

    def start(self) -> None:
        """Begin pressing."""
        now = time.monotonic()
        for n, table in enumerate(self.tables):
            first = "round" if table.config.mode == "shot" else "hand"
            self._at(now + self.random.uniform(0.5, 8) * self.pace, n, first)
        self.thread.start()

    def stop(self) -> None:
        """Stop pressing."""
        self._stop.set()
        self.thread.join(5)

    def _at(self, t: float, n: int, what: str) -> None:
        heapq.heappush(self._queue, (t, n, what))

    def _run(self) -> None:
        while not self._stop.is_set() and self._queue:
            t, n, what = self._queue[0]
            if self._stop.wait(max(0.0, t - time.monotonic())):
                return
            heapq.heappop(self._queue)
            if what.startswith(RELEASE):
                self.tables[n].release(what[len(RELEASE):], time.monotonic())
            else:
                self._act(self.tables[n], n, what, time.monotonic())

    def _tap(self, n: int, button: str, t: float, hold: float = 0.08) -> None:
        """Press ``button`` now and release it ``hold`` s on, each edge posted when it happens (as the pins
        would: an edge posted ahead of its time is seen with the press, and a hold is then never one)."""
        self.tables[n].press(button, t)
        self._at(t + hold, n, RELEASE + button)
        self.presses += 1

    def _act(self, table, n, what, now) -> None:
        if table.config.mode == "shot":
            self._act_shot(table, n, what, now)
            return
        r = self.random
        if what == "deal" and table.waits_for_floor():  # the screen says wait: the dealer deals once released
            self._at(now + WAIT_LOOK, n, "deal")
        elif what == "hand" and self.deal:  # a new hand (a street hold): in hand-for-hand the table now waits
            hold = table.config.device.hold + 0.2
            self._tap(n, "street", now, hold=hold)
            self._at(now + hold + 0.1, n, "deal")
        elif what == "hand":
            self._act(table, n, "deal", now)
        elif what == "deal":
            if r.random() < 0.5:
                self._tap(n, "bet", now)
            self._at(now + 0.3, n, "call")
        elif what == "call":
            self._tap(n, "floor", now)
            seconds = table.config.clock.seconds
            wait = r.uniform(0.05, 1.5) * seconds  # a third of the clocks run out
            if wait < seconds:
                self._at(now + wait, n, "act")
            self._at(now + max(wait, seconds + 1) + r.uniform(3, 15) * self.pace, n, "hand")
        elif what == "act":
            self._tap(n, "action", now)

    def _act_shot(self, table, n, what, now) -> None:
        r = self.random
        street = self._street.setdefault(n, STREETS[0])
        seconds = table.config.shot.seconds_for(street)
        if what == "round" and table.waits_for_floor():
            self._at(now + WAIT_LOOK, n, "round")
        elif what == "round":  # a betting round: one to four players to act
            self._decisions[n] = r.randint(1, 4)
            self._act_shot(table, n, "start", now)
        elif what == "start":  # idle: the action button starts the player's clock
            self._tap(n, "action", now)
            self._at(now, n, "decide")
        elif what == "decide":  # a clock runs: the player acts in time, or the clock runs out
            wait = r.uniform(0.1, 1.25) * seconds
            if wait >= seconds:
                self._at(now + seconds + 1.5, n, "ruled")
                return
            if r.random() < 0.2:
                self._at(now + wait / 2, n, "extend")
            self._at(now + wait, n, "act")
        elif what == "extend":
            self._tap(n, "extend", now)
        elif what in ("act", "ruled"):
            if what == "act":
                self._tap(n, "action", now)  # in time: it also starts the next player's clock
            self._decisions[n] -= 1
            if self._decisions[n] <= 0:
                self._at(now + r.uniform(0.5, 3), n, "street")
            elif what == "act":
                self._at(now, n, "decide")
            else:
                self._at(now + 1, n, "start")
        elif what == "street":
            if street == STREETS[-1]:  # after the river: a hold deals a new hand
                hold = table.config.device.hold + 0.2
                self._tap(n, "street", now, hold=hold)
                self._street[n] = STREETS[0]
                self._at(now + hold + r.uniform(3, 15) * self.pace, n, "round")
            else:  # the betting round is over: a running clock ends quietly
                self._tap(n, "street", now)
                self._street[n] = STREETS[STREETS.index(street) + 1]
                self._at(now + r.uniform(1, 4) * self.pace, n, "round")


SHOT_PRESET = "shot-15-20-30"  # the shot-mode tables' rules (15 s preflop, 20 s flop, 30 s turn and river)


def fleet_config(table_id: str, host: str, port: int, venue: str, credentials: Path, tls: bool, ca_file: str,
                 extra: str = "") -> str:
    """A simulated table's configuration (clock mode, the network on), in a room and section of its own."""
    return (f'table = "Sim {table_id}"\nlanguage = "en"\n{extra}\n[network]\nenabled = true\nhost = "{host}"\n'
            f'port = {port}\ntls = {"true" if tls else "false"}\nca_file = "{ca_file}"\nvenue = "{venue}"\n'
            f'table_id = "{table_id}"\ncredentials = "{credentials}"\nkeepalive = {FLEET_KEEPALIVE}\n'
            f'{fleet_place(table_id)}{FLEET_RULE_SETS}')


# The house's rule set near the money on every simulated table: `send --all rule_set --rule-set bubble` puts a
# room on a 20 s clock call (clock mode) or a 20 s shot clock preflop and on the flop (shot mode) from its next hand.
FLEET_RULE_SETS = "[rule_sets.bubble]\nclock.seconds = 20\nshot.preflop = 20\nshot.flop = 20\n"


def fleet_place(table_id: str) -> str:
    """Where a simulated table stands: 100 tables a room, 10 a section ("Main", "A"; then "Room 2"…), for the
    dashboard."""
    if not table_id.isdigit():
        return ""
    n = int(table_id) - 1
    room = "Main" if n < 100 else f"Room {n // 100 + 1}"
    return f'room = "{room}"\nsection = "{chr(ord("A") + n // 10 % 10)}"\n'


# A device pings every 5 s, so the floor sees it gone within 8 s. A thousand simulated tables on a machine
# that also runs the broker can be starved for longer than that: the broker then drops them, they reconnect,
# and the reconnections load the machine more (a storm). Their pings do not weigh on the broker either way.
FLEET_KEEPALIVE = 30


def start_fleet(count: int, host: str, port: int, venue: str, credentials_dir: Path, state_root: Path,
                first: int = 1, tls: bool = False, ca_file: str = "", extra: str = "", shot: int = 0,
                shot_extra: str = f'preset = "{SHOT_PRESET}"\n', cancel: threading.Event | None = None,
                arrivals: Arrivals | None = None) -> list[SimulatedTable]:
    """Start ``count`` simulated tables (ids ``first``…) in this process, on one fleet loop and one log
    writer; each needs ``credentials_dir/table-<id>.toml``. At most TABLES_PER_PROCESS (``shotclock fleet``
    spreads more).

    ``extra``: configuration for the clock-mode tables; the last ``shot`` tables run the shot clock
    with ``shot_extra`` instead. ``cancel`` set while they start (Ctrl-C): the ones started are stopped and
    none is returned. ``arrivals``: notes when each floor command reached each table."""
    if count > TABLES_PER_PROCESS:
        raise ShotclockError(f"at most {TABLES_PER_PROCESS} tables in one process (file descriptors)")
    from shotclock.floor.fleet_loop import FleetLoop
    from shotclock.floor.fleet_writer import SharedWriter

    check_credentials(Path(credentials_dir), first, count)
    raise_open_files(count * FILES_PER_TABLE + 100)
    writer = SharedWriter()  # one thread writes every table's log: no process per table
    fleet_loop = FleetLoop()  # one thread runs every table's rules and connection
    tables = []
    try:
        for n in range(first, first + count):
            table_id = str(n)
            credentials = Path(credentials_dir) / f"table-{table_id}.toml"
            rules = shot_extra if n >= first + count - shot else extra
            table = SimulatedTable(table_id, fleet_config(table_id, host, port, venue, credentials, tls, ca_file,
                                                          rules), state_root / table_id, writer, fleet_loop,
                                   arrivals)
            table.start()
            tables.append(table)
            if cancel is not None and cancel.is_set():
                break
    except BaseException:
        stop_all(tables)
        raise
    if cancel is not None and cancel.is_set():
        stop_all(tables)
        return []
    return tables


def check_credentials(folder: Path, first: int, count: int) -> None:
    """Every table's ``table-<id>.toml`` is in ``folder``; else one line names the first missing."""
    for n in range(first, first + count):
        if not (folder / f"table-{n}.toml").is_file():
            raise ShotclockError(f"no credentials for table {n}: {folder / f'table-{n}.toml'} "
                                 f"(make them with 'shotclock broker-config --tables {first}-{first + count - 1}')")


# Each table holds about eleven file descriptors (its decision log, the outbox's two connections, the lock, the
# socket); the fleet loop's epoll takes any number, the process's limit (20,000 here) does not: past
# TABLES_PER_PROCESS a fleet runs as several processes.
FILES_PER_TABLE = 12
TABLES_PER_PROCESS = 1000


def raise_open_files(needed: int) -> None:
    """Raise this process's soft limit of open files towards ``needed`` (never past the hard limit)."""
    import resource

    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if soft != resource.RLIM_INFINITY and soft < needed:
        limit = needed if hard == resource.RLIM_INFINITY else min(needed, hard)
        resource.setrlimit(resource.RLIMIT_NOFILE, (limit, hard))


def _spread(args) -> int:
    """Run the fleet as processes of at most TABLES_PER_PROCESS tables each; wait for them all."""
    import subprocess
    import sys

    children = []
    first_shot = args.first + args.tables - args.shot  # the last --shot tables run the shot clock
    for first in range(args.first, args.first + args.tables, TABLES_PER_PROCESS):
        count = min(TABLES_PER_PROCESS, args.first + args.tables - first)
        shot = max(0, min(count, first + count - first_shot))
        argv = [sys.executable, "-m", "shotclock", "fleet", "--tables", str(count), "--first", str(first),
                "--broker", args.broker, "--venue", args.venue, "--credentials", str(args.credentials),
                "--pace", str(args.pace), "--shot", str(shot)]
        argv += ["--idle"] if args.idle else []
        argv += ["--deal"] if args.deal else []
        argv += ["--arrivals", args.arrivals] if args.arrivals else []
        argv += ["--tls"] if args.tls else []
        argv += ["--ca-file", args.ca_file] if args.ca_file else []
        argv += ["--duration", str(args.duration)] if args.duration is not None else []
        argv += ["--seed", str(args.seed + first)] if args.seed is not None else []
        argv += ["--state-dir", str(Path(args.state_dir) / f"from-{first}")] if args.state_dir else []
        children.append(subprocess.Popen(argv))
    stop = lambda *a: [c.terminate() for c in children if c.poll() is None]
    for s in (signal.SIGTERM, signal.SIGINT):
        signal.signal(s, stop)
    return max(c.wait() for c in children)


def memory_folder() -> str | None:
    """Where the simulated tables' logs go by default: a folder in memory (/dev/shm) where there is one, else the
    system's temporary folder. Each table's log and outbox are SQLite files, whose every commit and close waits
    for the disk (fsync): a thousand tables on a disk spent seconds of the fleet loop's time in those waits, and a
    simulated table has no power cut to survive."""
    shm = Path("/dev/shm")
    return str(shm) if shm.is_dir() and os.access(shm, os.W_OK | os.X_OK) else None


class BrokerWatch:
    """Says in one line when tables lose the broker, and in one when they are all back (not a line per table)."""

    def __init__(self, tables: int, broker: str):
        self.tables = tables
        self.broker = broker
        self.lost = False

    def saw(self, links) -> None:
        """Look at the tables' links now (each a :class:`~shotclock.floor.fleet_link.LoopLink`)."""
        lost = sum(1 for link in links if link.was_up and not link.up)
        if not self.lost and lost:
            self.lost = True
            log.warning("%d of %d tables lost the broker %s; they keep trying to reconnect", lost, self.tables,
                        self.broker)
        elif self.lost and not lost:
            self.lost = False
            log.warning("the tables are connected to the broker %s again", self.broker)


def quiet_tables() -> None:
    """A fleet's tables say what a device says, a thousand times over: of their network's and log's lines only
    the errors go through, each kind once (:class:`OncePerKind`); the fleet says the rest for all of them."""
    once = OncePerKind()
    for name in ("shotclock.network", "shotclock.recorder"):
        logger = logging.getLogger(name)
        logger.setLevel(logging.ERROR)
        logger.addFilter(once)


class OncePerKind(logging.Filter):
    """Lets a message through the first time its kind (its format string) is logged, and then every 1,000th."""

    def __init__(self):
        super().__init__()
        self.seen: dict[str, int] = {}

    def filter(self, record: logging.LogRecord) -> bool:
        kind = str(record.msg)
        n = self.seen[kind] = self.seen.get(kind, 0) + 1
        if n > 1 and n % 1000 == 0:
            record.msg = f"{record.msg} (said {n} times by the fleet's tables)"
        return n == 1 or n % 1000 == 0


def cmd_fleet(args) -> int:
    """``shotclock fleet``: run until --duration passes or Ctrl-C."""
    from shotclock.core.topics import check_name
    from shotclock.floor.broker_config import parse_endpoint

    if args.tables < 1 or args.tables > 2000:
        raise ShotclockError("--tables must be from 1 to 2000")
    if not 0 <= args.shot <= args.tables:
        raise ShotclockError(f"--shot must be from 0 to the number of tables ({args.tables}), not {args.shot}")
    problem = check_name("venue", args.venue)
    if problem:
        raise ShotclockError(problem)
    endpoint = parse_endpoint(args.broker, "--broker")
    if not Path(args.credentials).is_dir():
        raise ShotclockError(f"--credentials {args.credentials}: not a folder (broker-config's credentials/)")
    check_credentials(Path(args.credentials), args.first, args.tables)
    arrivals = Arrivals(Path(args.arrivals)) if args.arrivals else None
    if arrivals is not None:
        arrivals.check()
    if args.tables > TABLES_PER_PROCESS:
        return _spread(args)
    stop = threading.Event()
    for s in (signal.SIGTERM, signal.SIGINT):
        signal.signal(s, lambda *a: stop.set())
    quiet_tables()
    # A table still stopping past stop_all's deadline may write into the folder while it is removed.
    with tempfile.TemporaryDirectory(prefix="shotclock-fleet-", dir=memory_folder(),
                                     ignore_cleanup_errors=True) as temp:
        state_root = Path(args.state_dir) if args.state_dir else Path(temp)
        tables = start_fleet(args.tables, endpoint.host, endpoint.port, args.venue, Path(args.credentials),
                             state_root, first=args.first, tls=args.tls, ca_file=args.ca_file or "", shot=args.shot,
                             cancel=stop, arrivals=arrivals)
        if not tables:
            return 0  # stopped while starting
        # What the tables hold from their start on stays: out of the collector's way. One process holds the heaps of
        # hundreds of tables, and a full collection of it stopped the loop for 120-200 ms (measured on 500 tables:
        # a hand-for-hand release then reached half the tables 200 ms late); a device's heap is one table's.
        gc.freeze()
        dealer = Dealer(tables, seed=args.seed, pace=args.pace, deal=args.deal)
        if not args.idle:
            dealer.start()
        log.info("%d simulated tables on %s, venue %r", len(tables), args.broker, args.venue)
        watch = BrokerWatch(len(tables), args.broker)
        started, said = time.monotonic(), 0.0
        while not stop.wait(1 if args.duration is None else min(1, max(0.01, started + args.duration - time.monotonic()))):
            if args.duration is not None and time.monotonic() >= started + args.duration:
                break
            links = [t.link for t in tables if t.link]
            watch.saw(links)
            if time.monotonic() >= said + 5:
                said = time.monotonic()
                log.info("%d/%d tables connected, %d records waiting, %d presses",
                         sum(1 for link in links if link.status.connected), len(tables),
                         sum(link.status.pending for link in links), dealer.presses)
        if not args.idle:
            dealer.stop()
        stop_all(tables)
    if arrivals is not None:
        arrivals.write()
    return 0
