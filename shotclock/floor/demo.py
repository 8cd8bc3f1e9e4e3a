"""``shotclock floor-demo`` (``./dev floor``): a whole floor network on this machine, to look at.

Writes a broker configuration (``shotclock broker-config``) into a folder, starts Mosquitto on free
loopback ports serving the web pages, the collector and a fleet of simulated tables, prints the
dashboard's and the overlay's addresses with their credentials, and runs until Ctrl-C (or
``--seconds``), then stops everything in reverse order.
"""

from __future__ import annotations

import math
import os
import shlex
import shutil
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

from shotclock.core.codec import text as json_text
from shotclock.core.topics import check_name
from shotclock.errors import ShotclockError
from shotclock.floor.broker.build import PLUGIN_FILE, PluginBuildError, build_plugin
from shotclock.floor.broker_config import FLOOR, OVERLAY, BrokerPlan, Endpoint, write_broker_config
from shotclock.floor.fleet import FLEET_RULE_SETS
from shotclock.web import web_dir

START_TIMEOUT = 10.0
READY_TIMEOUT = 60.0  # a process's own start on a loaded machine

# The feature table: a real device (fake pins, no screen) with seat tracking and Triton's time bank, its
# players seated and named by the floor's seating command, so the dashboard's Seats panel can be tried.
FEATURE_CONFIG = 'preset = "tempo"\ntable = "Feature table"\n[seats]\ncount = 6\nbank = 120\n' + FLEET_RULE_SETS
FEATURE_PLAYERS = [(1, "Ana Costa"), (2, "Ben Okafor"), (3, "Li Bo"), (4, "Daniel Negreanu"), (5, "Eva Jansen"),
                   (6, "Femke de Vries")]
# Each hand the dealer plays: (seconds after the last press, button, held seconds). A hand (street held), the first
# decision's clock started, four decisions (one into the time bank), the flop, two more, then the next hand.
FEATURE_HAND = [(0.5, "street", 2.5), (3.0, "action", 0.1), (8.0, "action", 0.1), (14.0, "action", 0.1),
                (38.0, "action", 0.1), (6.0, "action", 0.1), (4.0, "street", 0.1), (2.0, "action", 0.1),
                (11.0, "action", 0.1), (9.0, "action", 0.1), (5.0, "street", 0.1)]
FEATURE_HOURS = 12  # the script's length: a demo left running for a day's session of play
# The demo's tournament: short levels and a break, so a newcomer sees a level change and a break within minutes.
DEMO_TOURNAMENT = "main"
DEMO_STRUCTURE = """title = "Demo Sunday"
[[stage]]
small_blind = 25
big_blind = 50
minutes = 6
[[stage]]
small_blind = 50
big_blind = 100
ante = 100
big_blind_ante = true
minutes = 6
[[stage]]
break = true
name = "color-up"
minutes = 3
[[stage]]
small_blind = 100
big_blind = 200
ante = 200
big_blind_ante = true
minutes = 6
[[stage]]
small_blind = 150
big_blind = 300
ante = 300
big_blind_ante = true
minutes = 6
"""


def free_port(preferred: int = 0) -> int:
    """A TCP port free on 127.0.0.1 right now: ``preferred`` when it is free (an address to bookmark)."""
    for port in (preferred, 0) if preferred else (0,):
        with socket.socket() as s:
            try:
                s.bind(("127.0.0.1", port))
            except OSError:
                continue
            return s.getsockname()[1]
    raise ShotclockError("no free TCP port on 127.0.0.1")


def _wait(ready, process: subprocess.Popen, name: str, timeout: float, failure: str, where: str) -> None:
    """Poll ``ready()`` until true; ShotclockError if ``process`` exits first or ``timeout`` seconds pass."""
    deadline = time.monotonic() + timeout
    while not ready():
        if process.poll() is not None:
            raise ShotclockError(f"{name} exited with code {process.returncode} (see {where})")
        if time.monotonic() > deadline:
            raise ShotclockError(f"{name} {failure} within {timeout:.0f} s (see {where})")
        time.sleep(0.05)


def wait_for_port(port: int, process: subprocess.Popen, name: str) -> None:
    """Wait until ``port`` accepts connections; ShotclockError if ``process`` exits first or it takes too long."""
    def listening() -> bool:
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=0.2):
                return True
        except OSError:
            return False

    _wait(listening, process, name, START_TIMEOUT, f"did not listen on port {port}", "its log")


def wait_for_line(log: Path, offset: int, words: str, process: subprocess.Popen, name: str) -> None:
    """Wait until ``log`` has a line holding ``words`` after ``offset``; ShotclockError if ``process`` exits first
    or it takes longer than READY_TIMEOUT."""
    def found() -> bool:
        try:
            with open(log, "rb") as f:
                f.seek(offset)
                return words.encode() in f.read()
        except OSError:
            return False

    _wait(found, process, name, READY_TIMEOUT, "was not ready", str(log))


def mosquitto_binary() -> str:
    """The mosquitto binary; ShotclockError naming the Debian package when it is missing."""
    path = shutil.which("mosquitto") or shutil.which("mosquitto", path="/usr/sbin:/usr/local/sbin")
    if path is None:
        raise ShotclockError("mosquitto is not installed "
                             "(Debian: apt-get install mosquitto; ./dev floor does it as root)")
    return path


def spawn(argv: list[str], log_path: Path, own_group: bool = False) -> subprocess.Popen:
    """Start ``argv`` with its output appended to ``log_path`` and no standard input; ``own_group``: in a
    process group of its own, so a Ctrl-C in the terminal reaches only us, and we stop it in order."""
    log = open(log_path, "ab")
    try:
        return subprocess.Popen(argv, stdout=log, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
                                process_group=0 if own_group else None)
    finally:
        log.close()


def end(process: subprocess.Popen) -> None:
    """Stop a process: SIGTERM (a clean stop: a device says offline), SIGKILL after 5 s."""
    if process.poll() is None:
        process.terminate()
        try:
            process.wait(5)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()


class Floor:
    """The demo's processes: broker, collector, fleet; :meth:`stop` ends them in reverse order."""

    def __init__(self, folder: Path, venue: str, tables: int, extra_tables=(), quiet: bool = False,
                 keep_ports: bool = False, shot: int = 0, feature: bool = False):
        """``tables`` simulated tables "1"…"N"; ``extra_tables``: ids that get a credential for a real device;
        ``quiet``: the fleet plays no clocks by itself (``--idle``: the floor drives them); ``keep_ports``: the
        pages on port 9001 when it is free (a bookmark that works next time); ``shot``: the last ``shot``
        tables run the shot clock; ``feature``: one more table, a real seat-tracked device in time bank mode
        (Tempo) with named players (id ``tables + 1``)."""
        self.folder = folder
        self.venue = venue
        self.tables = tables
        self.extra_tables = list(extra_tables)
        self.quiet = quiet
        self.shot = shot
        self.feature = str(tables + 1) if feature else None
        if self.feature:
            self.extra_tables.append(self.feature)
        self.port = free_port()
        self.ws_port = free_port(9001 if keep_ports else 0)
        self.processes: list[tuple[str, subprocess.Popen]] = []
        self.passwords: dict[str, str] = {}

    def _spawn(self, name: str, argv: list[str]) -> subprocess.Popen:
        process = spawn(argv, self.folder / f"{name}.log", own_group=True)
        self.processes.append((name, process))
        return process

    def start(self, collector: bool = True, fleet: bool = True, tournament: bool = False) -> "Floor":
        """Configure and start the broker, then (unless told not to) the collector and the fleet, and with
        ``tournament`` the demo's tournament clock."""
        binary = mosquitto_binary()
        broker_dir = self.folder / "broker"
        plan = BrokerPlan(self.venue, [str(n) for n in range(1, self.tables + 1)] + self.extra_tables,
                          local=Endpoint("127.0.0.1", self.port), websockets=Endpoint("127.0.0.1", self.ws_port),
                          pages=str(web_dir()), run_as="root" if os.geteuid() == 0 else None)
        try:  # the client-id plugin, as broker-config builds it; a demo runs without it when it cannot be built
            plan.client_id_plugin = str(build_plugin(broker_dir / PLUGIN_FILE))
        except PluginBuildError as exc:
            print(f"warning: {exc}; this demo's broker does not keep each table's client id for its login",
                  file=sys.stderr, flush=True)
        self.passwords = write_broker_config(plan, broker_dir)
        self.broker_argv = [binary, "-c", str(broker_dir / "mosquitto.conf")]
        self.restart_broker()
        me = [sys.executable, "-m", "shotclock"]
        address = f"127.0.0.1:{self.port}"
        if collector:
            log = self.folder / "collector.log"
            seen = log.stat().st_size if log.exists() else 0  # a folder used before keeps its old log
            process = self._spawn("collector", me + ["floor", "collect", "--broker", address, "--venue", self.venue,
                                                     "--credentials", str(broker_dir / "credentials" / "collector.toml"),
                                                     "--archive", str(self.folder / "archive")])
            # The broker keeps the tables' events for the collector only once it has subscribed: before that,
            # a table's first records (its name, its mode) would never reach the archive.
            wait_for_line(log, seen, "subscribed:", process, "the collector")
        if fleet:
            self._spawn("fleet", me + ["fleet", "--tables", str(self.tables), "--broker", address,
                                       "--venue", self.venue, "--credentials", str(broker_dir / "credentials"),
                                       "--shot", str(self.shot)]
                        + (["--idle"] if self.quiet else []))
        if self.feature and fleet:
            self.start_feature()
        if tournament:
            self.start_tournament()
        return self

    def start_tournament(self) -> None:
        """The demo's tournament clock (every table of the venue follows it), started."""
        structure = self.folder / "demo-structure.toml"
        structure.write_text(DEMO_STRUCTURE, encoding="utf-8")
        journal = self.folder / "tournament.journal"
        for old in (journal, Path(f"{journal}-wal"), Path(f"{journal}-shm")):  # a new demo, a new tournament
            old.unlink(missing_ok=True)
        address = f"127.0.0.1:{self.port}"
        login = ["--broker", address, "--venue", self.venue, "--credentials", str(self.credentials_file(FLOOR)),
                 "--id", DEMO_TOURNAMENT]
        log = self.folder / "tournament.log"
        seen = log.stat().st_size if log.exists() else 0
        process = self._spawn("tournament", [sys.executable, "-m", "shotclock", "tournament", "run", *login,
                                             "--journal", str(journal), "--structure", str(structure), "--venue-wide"])
        wait_for_line(log, seen, "running", process, "the tournament clock")
        start = [sys.executable, "-m", "shotclock", "tournament", "start", *login, "--wait", "10"]
        answer = subprocess.run(start, capture_output=True, text=True, stdin=subprocess.DEVNULL)
        if answer.returncode != 0:
            raise ShotclockError(f"the demo's tournament clock did not start: "
                                 f"{(answer.stdout + answer.stderr).strip() or answer.returncode}")

    def start_feature(self) -> None:
        """Start the feature table (a real device) and seat its players once it is on the network."""
        table = self.feature
        network = (f'[network]\nenabled = true\nhost = "127.0.0.1"\nport = {self.port}\ntls = false\n'
                   f'venue = "{self.venue}"\ntable_id = "{table}"\n'
                   f'credentials = "{self.credentials_file("table-" + table)}"\n')
        log = self.folder / f"device-{table}.log"
        seen = log.stat().st_size if log.exists() else 0
        script = None if self.quiet else self.folder / "feature-script.jsonl"
        if script:
            script.write_text(feature_script(FEATURE_HOURS * 3600), encoding="utf-8")
        process = self.start_device(table, FEATURE_CONFIG + network, script)
        wait_for_line(log, seen, "connected to the broker", process, "the feature table")
        seating = self.folder / "feature-seating.csv"
        seating.write_text("seat,name\n" + "".join(f"{s},{n}\n" for s, n in FEATURE_PLAYERS), encoding="utf-8")
        send = [sys.executable, "-m", "shotclock", "send", "--broker", f"127.0.0.1:{self.port}", "--venue",
                self.venue, "--credentials", str(self.credentials_file(FLOOR)), "--table", table, "seating",
                "--seating", str(seating), "--seats", "6", "--wait", "10"]
        deadline = time.monotonic() + READY_TIMEOUT
        while True:
            answer = subprocess.run(send, capture_output=True, text=True, stdin=subprocess.DEVNULL)
            if answer.returncode == 0:
                return
            if process.poll() is not None or time.monotonic() > deadline:
                raise ShotclockError(f"the feature table's players could not be seated: "
                                     f"{(answer.stdout + answer.stderr).strip() or answer.returncode}")
            time.sleep(0.5)

    def credentials_file(self, user: str) -> Path:
        """The credentials file of ``user`` (``table-7``, ``floor``…) that broker-config wrote."""
        return self.folder / "broker" / "credentials" / f"{user}.toml"

    def start_device(self, table: str, config_text: str, script: Path | None = None) -> subprocess.Popen:
        """A real device (``shotclock run`` with fake pins and no screen) with this configuration, playing
        ``script`` (presses onto its fake pins) when given; it is stopped with the rest."""
        config = self.folder / f"device-{table}.toml"
        config.write_text(config_text, encoding="utf-8")
        return self._spawn(f"device-{table}", [sys.executable, "-m", "shotclock", "run", "--pins", "mock",
                                               "--headless", "--config", str(config),
                                               "--state-dir", str(self.folder / f"state-{table}")]
                           + (["--script", str(script)] if script else []))

    def restart_broker(self) -> None:
        """Start mosquitto (again, after a stop: same ports, same persistence) and wait until it listens."""
        self.processes = [(n, p) for n, p in self.processes if n != "mosquitto" or p.poll() is None]
        broker = spawn(self.broker_argv, self.folder / "mosquitto.log", own_group=True)
        self.processes.insert(0, ("mosquitto", broker))
        wait_for_port(self.ws_port, broker, "mosquitto")

    def stop_broker(self) -> None:
        """Stop mosquitto cleanly (it saves its retained messages); the rest keeps running."""
        for name, process in self.processes:
            if name == "mosquitto":
                end(process)

    def check(self) -> str | None:
        """The first process that has died, as a sentence, or None."""
        for name, process in self.processes:
            if process.poll() is not None:
                return f"{name} exited with code {process.returncode}: see {self.folder / (name + '.log')}"
        return None

    def stop(self) -> None:
        """Stop the fleet, the collector and the broker (SIGTERM, then SIGKILL after 5 s)."""
        for _, process in reversed(self.processes):
            end(process)
        self.processes.clear()

    def addresses(self) -> str:
        """What to open, with the credentials, and the commands that read the archive (for a person at this
        machine: each runs as printed, from any folder)."""
        base = f"http://127.0.0.1:{self.ws_port}"
        log = f"{shotclock_command()} log --collected {shlex.quote(str(self.folder / 'archive'))}"
        return "\n".join([
            f"floor network '{self.venue}': {self.tables} simulated tables, broker on 127.0.0.1:{self.port}",
            f"  dashboard: {base}/dashboard/   (user {FLOOR}, password {self.passwords[FLOOR]})",
            f"  overlay:   {base}/overlay/?password={self.passwords[OVERLAY]}",
            f"             (add &position=top-left&scale=1.5&language=en; pick the table on the dashboard: ☆)",
            f"  tables:    {self.modes()}",
            f"  tournament: clock '{DEMO_TOURNAMENT}' (6-minute levels, a break after level 2), every table follows "
            f"it: {shotclock_command()} tournament status --broker 127.0.0.1:{self.port} --venue {self.venue} "
            f"--credentials "
            f"{shlex.quote(str(self.credentials_file(FLOOR)))} --id {DEMO_TOURNAMENT}",
            f"              the room's screen: {base}/tournament/?password={self.passwords[OVERLAY]}&id={DEMO_TOURNAMENT}",
            f"  archive:   {log}             (its tables)",
            f"             {log} --table 1   (table 1's clocks; add: show N, stats, verify)",
            f"  logs and configuration: {self.folder}",
        ])

    def modes(self) -> str:
        """Which simulated tables run which mode, and whether they play by themselves."""
        clock, shot = self.tables - self.shot, self.shot
        span = lambda a, b: f"{a}" if a == b else f"{a}-{b}"
        parts = ([f"{span(1, clock)} clock call"] if clock else []) + \
                ([f"{span(clock + 1, self.tables)} shot clock"] if shot else [])
        if self.feature:
            parts.append(f"{self.feature} the feature table (Tempo time bank, six named players: try its Seats panel)")
        play = ("quiet: they press nothing, only what you command happens" if self.quiet
                else "the dealers press buttons by themselves (--quiet: they press nothing)")
        return f"{', '.join(parts)}; {play}"


def feature_script(seconds: float) -> str:
    """The feature table's dealer for ``seconds``: :data:`FEATURE_HAND` over and over, as a script of presses
    (``shotclock run --script``)."""

    lines, t = [], 0.0
    while True:
        for pause, button, hold in FEATURE_HAND:
            t = round(t + pause, 3)
            if t > seconds:
                return "".join(lines)
            lines.append(json_text({"t": t, "button": button, "hold": hold}) + "\n")
            t += hold


def shotclock_command() -> str:
    """How to run this shotclock from a shell, anywhere: ``shotclock`` when that is this one on the PATH, else
    its full path (``./dev floor`` runs inside .venv, which is not on the PATH)."""
    beside = Path(sys.executable).parent / "shotclock"
    found = shutil.which("shotclock")
    if found and beside.exists() and Path(found).resolve() == beside.resolve():
        return "shotclock"
    if beside.exists():
        return shlex.quote(str(beside))
    return f"{shlex.quote(sys.executable)} -m shotclock"


def cmd_floor_demo(args) -> int:
    """``shotclock floor-demo``: run a local floor network until Ctrl-C (or ``--seconds``)."""
    if not 1 <= args.tables <= 500:
        raise ShotclockError(f"--tables must be from 1 to 500, not {args.tables}")
    problem = check_name("venue", args.venue)
    if problem:
        raise ShotclockError(problem)
    if args.seconds is not None and not (math.isfinite(args.seconds) and args.seconds > 0):
        raise ShotclockError(f"--seconds must be more than 0 (leave it out to run until Ctrl-C), not {args.seconds:g}")
    shot = args.shot if args.shot is not None else ((args.tables + 3) // 4 if args.tables > 1 else 0)
    if not 0 <= shot <= args.tables:
        raise ShotclockError(f"--shot must be from 0 to the number of tables ({args.tables}), not {shot}")
    try:
        folder = Path(args.dir).resolve()
        folder.mkdir(parents=True, exist_ok=True)
    except (OSError, ValueError) as exc:
        raise ShotclockError(f"--dir {args.dir!r}: cannot make the folder ({getattr(exc, 'strerror', None) or exc})") \
            from None
    floor = Floor(folder, args.venue, args.tables, keep_ports=True, quiet=args.quiet, shot=shot,
                  feature=not args.no_feature)
    stop = []
    # Ctrl-C (and a closed terminal, or SIGTERM) is the ordinary way out: a request to stop, not an
    # interruption, so it cannot land in the middle of starting or stopping a process.
    for signum in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP):
        signal.signal(signum, lambda *a: stop.append(1))
    try:
        floor.start(tournament=True)
        print(floor.addresses(), flush=True)
        print("Ctrl-C stops it all.", flush=True)
        deadline = time.monotonic() + args.seconds if args.seconds else None
        while not stop and (deadline is None or time.monotonic() < deadline):
            problem = floor.check()
            if problem:
                raise ShotclockError(problem)
            time.sleep(0.5)
    finally:
        floor.stop()
    print(f"stopped: tables, collector and broker (logs and archive stay in {folder})", flush=True)
    return 0
