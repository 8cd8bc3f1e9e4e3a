"""``shotclock fleet --tables N``: N simulated tables on one broker, for tests, benchmarks and demos.

Each simulated table is the device without its pins, screen and sound: the same pure
:class:`~shotclock.core.table.Table`, :class:`~shotclock.shell.loop.DeviceLoop`, decision log,
recorder, outbox and MQTT link as ``shotclock run``, each loop in its own thread; the tables of one
process share one log-writer thread (:mod:`shotclock.floor.fleet_writer`), not a process each. A dealer
thread presses their buttons (pin edges posted to the loop, as gpiozero's callback does):
now and then a clock is called, and the player acts in time or the clock runs out (shot-mode
tables play betting rounds, streets and hands). The floor can command them like real tables.
"""

from __future__ import annotations

import heapq
import logging
import random
import signal
import tempfile
import threading
import time
from pathlib import Path

from shotclock.config import parse_config
from shotclock.core.inputs import Edge
from shotclock.core.settings import STREETS
from shotclock.core.table import Table
from shotclock.errors import ShotclockError
from shotclock.shell.loop import DeviceLoop

log = logging.getLogger("shotclock.fleet")


class SimulatedTable:
    """One table: a device loop in its own thread, with its decision log and MQTT link.

    ``device`` has what the recorder and the network wiring expect of a device: ``loop``,
    ``engine``, ``boot`` and ``link``.
    """

    def __init__(self, table_id: str, config_text: str, state_dir: Path, writer=None):
        """``writer``: a :class:`~shotclock.floor.fleet_writer.SharedWriter` that writes this table's log
        (None: a writer process of its own, as on a device)."""
        from shotclock.adapters.mqtt_login import new_boot_id

        self.id = table_id
        self.config = parse_config(config_text)
        self.state_dir = state_dir
        self.writer = writer
        self.boot = new_boot_id()
        self.link = None
        self.loop: DeviceLoop | None = None
        self.engine = None
        self._stop = False
        self._ready = threading.Event()
        self.error: Exception | None = None
        self.thread = threading.Thread(target=self._run, name=f"table-{table_id}", daemon=True)

    def start(self, wait: bool = True) -> None:
        """Build and run the table in its thread (SQLite writes from the thread that opened the log)."""
        self.thread.start()
        if wait:
            self.wait_ready()

    def wait_ready(self) -> None:
        """Wait until the table runs; raise what stopped it from starting."""
        self._ready.wait(60)
        if self.error:
            raise self.error

    def _run(self) -> None:
        from shotclock.shell.device import attach_log_and_network

        try:
            c = self.config
            # No minimum press time: the dealer thread's taps are as short as its pace makes them.
            table = Table(c.settings, start=time.monotonic(), debounce=c["device.debounce"], hold=c["device.hold"],
                          stuck_after=c["device.stuck_after"], edge_grace=c["device.edge_grace"])
            self.engine = table.engine
            self.loop = DeviceLoop(table)
            attached = attach_log_and_network(self, c, self.state_dir,
                                              make_writer=self.writer.sink if self.writer else None)
            self.recorder = attached.recorder
            if self.recorder is not None and self.writer is not None:
                # Heartbeats tell a writer process when its device died; the shared writer drops them (a
                # simulated table dies with it), so the loop need not wake four times a second to send them.
                self.recorder.builder.heartbeat = self.recorder.checkpoint_every
            self.loop.listeners = attached.listeners
        except Exception as exc:
            self.error = exc
            self._ready.set()
            return
        self._ready.set()
        try:
            self.loop.run(lambda round: self._stop)
        finally:
            if self.recorder:
                self.recorder.close()  # the log writer finishes: its last records reach the link
            if self.link:
                self.link.stop()

    def press(self, button: str, t: float) -> None:
        """A pin edge: ``button`` pressed at ``t`` (posted as gpiozero's callback would)."""
        self.loop.post(Edge(t, button, True))

    def release(self, button: str, t: float) -> None:
        """A pin edge: ``button`` released at ``t``."""
        self.loop.post(Edge(t, button, False))

    def stop(self, wait: bool = True) -> None:
        """Stop the loop; the link says offline (clean) and closes. ``wait=False``: return at once (a fleet
        stops every table first, then waits for them all: :func:`stop_all`)."""
        self._stop = True
        if self.loop:
            self.loop.waker.wake()
        if wait:
            self.thread.join(10)


def stop_all(tables: list[SimulatedTable]) -> None:
    """Stop every table at once and wait for them (one by one, a thousand tables took minutes)."""
    for table in tables:
        table.stop(wait=False)
    deadline = time.monotonic() + 15
    for table in tables:
        table.thread.join(max(0.0, deadline - time.monotonic()))


class Dealer:
    """Presses the simulated tables' buttons at random moments (one thread for all tables).

    Clock mode: a bet now and then, the floor calls a clock, and the player acts after a
    random time (a third of the clocks run out: hand dead or check).

    Shot mode: the dealer starts the first decision of a betting round; each player acts in
    time (now and then after an extension chip) or runs out of time, and each action starts the
    next player's clock; a street press ends the betting round, a street hold after the river
    deals a new hand.
    """

    def __init__(self, tables: list[SimulatedTable], seed: int | None = None, pace: float = 1.0):
        """``pace`` scales the idle time between hands (0.1: ten times as many clocks)."""
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
            first = "round" if table.config["mode"] == "shot" else "hand"
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
            self._act(self.tables[n], n, what, time.monotonic())

    def _tap(self, table: SimulatedTable, button: str, t: float, hold: float = 0.08) -> None:
        table.press(button, t)
        table.release(button, t + hold)
        self.presses += 1

    def _act(self, table, n, what, now) -> None:
        if table.config["mode"] == "shot":
            self._act_shot(table, n, what, now)
            return
        r = self.random
        if what == "hand":
            if r.random() < 0.5:
                self._tap(table, "bet", now)
            self._at(now + 0.3, n, "call")
        elif what == "call":
            self._tap(table, "floor", now)
            seconds = table.config["clock.seconds"]
            wait = r.uniform(0.05, 1.5) * seconds  # a third of the clocks run out
            if wait < seconds:
                self._at(now + wait, n, "act")
            self._at(now + max(wait, seconds + 1) + r.uniform(3, 15) * self.pace, n, "hand")
        elif what == "act":
            self._tap(table, "action", now)

    def _act_shot(self, table, n, what, now) -> None:
        r = self.random
        street = self._street.setdefault(n, STREETS[0])
        seconds = table.config[f"shot.{street}"]
        if what == "round":  # a betting round: one to four players to act
            self._decisions[n] = r.randint(1, 4)
            self._act_shot(table, n, "start", now)
        elif what == "start":  # idle: the action button starts the player's clock
            self._tap(table, "action", now)
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
            self._tap(table, "extend", now)
        elif what in ("act", "ruled"):
            if what == "act":
                self._tap(table, "action", now)  # in time: it also starts the next player's clock
            self._decisions[n] -= 1
            if self._decisions[n] <= 0:
                self._at(now + r.uniform(0.5, 3), n, "street")
            elif what == "act":
                self._at(now, n, "decide")
            else:
                self._at(now + 1, n, "start")
        elif what == "street":
            if street == STREETS[-1]:  # after the river: a hold deals a new hand
                hold = table.config["device.hold"] + 0.2
                self._tap(table, "street", now, hold=hold)
                self._street[n] = STREETS[0]
                self._at(now + hold + r.uniform(3, 15) * self.pace, n, "round")
            else:  # the betting round is over: a running clock ends quietly
                self._tap(table, "street", now)
                self._street[n] = STREETS[STREETS.index(street) + 1]
                self._at(now + r.uniform(1, 4) * self.pace, n, "round")


SHOT_PRESET = "shot-15-20-30"  # the shot-mode tables' rules (15 s preflop, 20 s flop, 30 s turn and river)


def fleet_config(table_id: str, host: str, port: int, venue: str, credentials: Path, tls: bool, ca_file: str,
                 extra: str = "") -> str:
    """A simulated table's configuration (clock mode, the network on), in a room and section of its own."""
    return (f'table = "Sim {table_id}"\nlanguage = "en"\n{extra}\n[network]\nenabled = true\nhost = "{host}"\n'
            f'port = {port}\ntls = {"true" if tls else "false"}\nca_file = "{ca_file}"\nvenue = "{venue}"\n'
            f'table_id = "{table_id}"\ncredentials = "{credentials}"\nkeepalive = {FLEET_KEEPALIVE}\n'
            f'{fleet_place(table_id)}')


def fleet_place(table_id: str) -> str:
    """Where a simulated table stands: 100 tables a room, 10 a section ("Room 1", "A"), for the dashboard."""
    if not table_id.isdigit():
        return ""
    n = int(table_id) - 1
    return f'room = "Room {n // 100 + 1}"\nsection = "{chr(ord("A") + n // 10 % 10)}"\n'


# A device pings every 5 s, so the floor sees it gone within 8 s. A thousand simulated tables on a machine
# that also runs the broker can be starved for longer than that: the broker then drops them, they reconnect,
# and the reconnections load the machine more (a storm). Their pings do not weigh on the broker either way.
FLEET_KEEPALIVE = 30


def start_fleet(count: int, host: str, port: int, venue: str, credentials_dir: Path, state_root: Path,
                first: int = 1, tls: bool = False, ca_file: str = "", extra: str = "", shot: int = 0,
                shot_extra: str = f'preset = "{SHOT_PRESET}"\n') -> list[SimulatedTable]:
    """Start ``count`` simulated tables (ids ``first``…) in this process; each needs
    ``credentials_dir/table-<id>.toml``. At most TABLES_PER_PROCESS (``shotclock fleet`` spreads more).

    ``extra``: configuration for the clock-mode tables; the last ``shot`` tables run the shot clock
    with ``shot_extra`` instead."""
    if count > TABLES_PER_PROCESS:
        raise ShotclockError(f"at most {TABLES_PER_PROCESS} tables in one process (paho's select() limit)")
    from shotclock.floor.fleet_writer import SharedWriter

    writer = SharedWriter()  # one thread writes every table's log: no process per table
    tables = []
    for n in range(first, first + count):
        table_id = str(n)
        credentials = Path(credentials_dir) / f"table-{table_id}.toml"
        if not credentials.is_file():
            raise ShotclockError(f"no credentials for table {table_id}: {credentials} "
                                 f"(make them with 'shotclock broker-config --tables {first}-{first + count - 1}')")
        rules = shot_extra if n >= first + count - shot else extra
        table = SimulatedTable(table_id, fleet_config(table_id, host, port, venue, credentials, tls, ca_file, rules),
                               state_root / table_id, writer)
        table.start(wait=False)  # all at once: each opens its own decision log
        tables.append(table)
    for table in tables:
        table.wait_ready()
    return tables


# paho waits with select(), which takes no file descriptor above 1023, and each table holds
# about ten (its decision log, outbox, socket): a big fleet runs as several processes.
TABLES_PER_PROCESS = 60


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
    missing = [n for n in range(args.first, args.first + args.tables)
               if not (Path(args.credentials) / f"table-{n}.toml").is_file()]
    if missing:
        raise ShotclockError(f"no credentials for table {missing[0]}: {Path(args.credentials) / f'table-{missing[0]}.toml'} "
                             f"(make them with 'shotclock broker-config --tables {args.first}-{args.first + args.tables - 1}')")
    if args.tables > TABLES_PER_PROCESS:
        return _spread(args)
    stop = threading.Event()
    for s in (signal.SIGTERM, signal.SIGINT):
        signal.signal(s, lambda *a: stop.set())
    # A table still stopping past stop_all's deadline may write into the folder while it is removed.
    with tempfile.TemporaryDirectory(prefix="shotclock-fleet-", ignore_cleanup_errors=True) as temp:
        state_root = Path(args.state_dir) if args.state_dir else Path(temp)
        tables = start_fleet(args.tables, endpoint.host, endpoint.port, args.venue, Path(args.credentials),
                             state_root, first=args.first, tls=args.tls, ca_file=args.ca_file or "", shot=args.shot)
        dealer = Dealer(tables, seed=args.seed, pace=args.pace)
        if not args.idle:
            dealer.start()
        log.info("%d simulated tables on %s, venue %r", len(tables), args.broker, args.venue)
        started = time.monotonic()
        while not stop.wait(5 if args.duration is None else min(5, max(0.01, started + args.duration - time.monotonic()))):
            if args.duration is not None and time.monotonic() >= started + args.duration:
                break
            connected = sum(1 for t in tables if t.link and t.link.status.connected)
            pending = sum(t.link.status.pending for t in tables if t.link)
            log.info("%d/%d tables connected, %d records waiting, %d presses", connected, len(tables), pending,
                     dealer.presses)
        if not args.idle:
            dealer.stop()
        stop_all(tables)
    return 0
