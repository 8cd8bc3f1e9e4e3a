"""The floor network's benchmarks: event latency, command round trip, CPU cost, tables per broker.

A real mosquitto on loopback (configured by ``shotclock broker-config``), a fleet of simulated
tables (``shotclock fleet``, its own process: a thousand tables on one loop thread, each with its own login,
client id, decision log and messages, as a device) loading it, and one measured device
(``shotclock run`` in script mode, its own process, screen drawn offscreen) whose dealer
presses the action button (on an idle clock) every 0.2 s. Pin edges are dated on CLOCK_MONOTONIC, which every
process on the machine shares, so an event's latency is its arrival here minus its record's
``t``. Run by ``bench/run.py``; ``python bench/network.py [--quick]`` runs only these, ``… --archive-rate``
only the archive's sustained rates.
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import os
import resource
import signal
import subprocess
import sys
import tempfile
import threading
import time
import uuid
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent / "tests"))  # the test suite's mosquitto runner

from mqtt_broker import MosquittoBroker  # noqa: E402
from postgres_server import PostgresServer, postgres_bin  # noqa: E402

from run import ENV, PY, ROOT, cpu_seconds, peak_rss_mb, percentile  # noqa: E402
from shotclock.adapters.archive import Archive  # noqa: E402

EVENT_GOAL_MS, ACK_GOAL_MS, ARCHIVE_GOAL_MS = 50.0, 100.0, 100.0
H4H_GOAL_MS, H4H_TABLES = 250.0, 500  # hand-for-hand: the floor's release reaches every table of a 500-table room
# The tournament clock back from a kill -9: its level's time left against a clock that never stopped, beyond the
# outage it states (0 in principle; the bound is the timers' and the measurement's own jitter).
CLOCK_RESTART_GOAL_MS = 50.0
# A thousand busy tables (the bench's pace) send a few hundred records a second: the archive keeps up with
# twice that, so a backlog (a collector back from a restart) drains.
ARCHIVE_RATE_GOAL = 1000.0
GOALS = {
    "net_archive_latency_ms_p99": (ARCHIVE_GOAL_MS, "max", "ms"),
    "net_archive_latency_ms_p50": (None, "max", "ms"),
    "net_event_latency_ms_p99": (EVENT_GOAL_MS, "max", "ms"),
    "net_event_latency_ms_p50": (None, "max", "ms"),
    "net_cmd_ack_ms_p99": (ACK_GOAL_MS, "max", "ms"),
    "net_cmd_ack_ms_p50": (None, "max", "ms"),
    "net_cpu_cost_pct": (0.5, "max", "pp"),
    "net_tables_per_broker": (1000, "min", "tables"),
    "net_h4h_release_ms_p99": (H4H_GOAL_MS, "max", "ms"),
    "net_h4h_release_ms_p50": (None, "max", "ms"),
    "net_h4h_ack_ms_p99": (None, "max", "ms"),
    "net_fleet_cpu_pct": (None, "max", "%"),
    "net_fleet_rss_mb": (None, "max", "MB"),
    "net_broker_cpu_pct": (None, "max", "%"),
    "net_broker_rss_mb": (None, "max", "MB"),
    "net_fleet_records_per_s": (None, "max", "/s"),
    "net_archive_rate_1": (ARCHIVE_RATE_GOAL, "min", "/s"),
    "net_archive_rate_pg_1": (None, "min", "/s"),
    "net_archive_rate_pg_2": (None, "min", "/s"),
    "net_clock_level_ms_p99": (H4H_GOAL_MS, "max", "ms"),
    "net_clock_level_ms_p50": (None, "max", "ms"),
    "net_clock_restart_error_ms": (CLOCK_RESTART_GOAL_MS, "max", "ms"),
    "net_clock_away_s": (None, "max", "s"),
    "net_expiry_late_ms_p99": (2.0, "max", "ms"),
    "net_off_expiry_late_ms_p99": (None, "max", "ms"),
    "net_beep_late_ms_p99": (2.0, "max", "ms"),
    "net_cpu_running_pct": (5.0, "max", "%"),
}
WHAT = {
    "net_event_latency_ms_p50": "the same, median",
    "net_archive_latency_ms_p99": "a pin edge on a device until its record is stored in the collector's archive "
                                  "(the collector's word goes back to the table), same load, 99th percentile",
    "net_archive_latency_ms_p50": "the same, median",
    "net_cmd_ack_ms_p50": "the same, median",
    "net_event_latency_ms_p99": "a pin edge on a device to its event at a subscriber, 100 other tables on the "
                                "broker (loopback), 99th percentile",
    "net_cmd_ack_ms_p99": "a floor command to its ack at the floor, same load, 99th percentile",
    "net_cpu_cost_pct": "the device's CPU with the network on minus off, while a clock runs (percentage points)",
    "net_tables_per_broker": "simulated tables one mosquitto on this machine keeps within both latency goals, "
                             "all online (steps of 100, 500, 1,000, 1,500 and 2,000)",
    "net_h4h_release_ms_p99": "hand-for-hand: the floor's release publish until it reaches each of 500 waiting "
                              "simulated tables (read from the table's socket by its link), 99th percentile; "
                              "counted only when every table then acked it `done`",
    "net_h4h_release_ms_p50": "the same, median",
    "net_h4h_ack_ms_p99": "the same release until each table's ack is back at the floor (its rules took it, its "
                          "records committed): one simulator process does the 500 tables' work in turn, which "
                          "500 devices do side by side",
    "net_clock_level_ms_p99": "the tournament clock: the floor's `next` until the new level's state reaches each of "
                              "500 simulated tables (read from its socket; the clock's journal commit and publish "
                              "included), 99th percentile",
    "net_clock_level_ms_p50": "the same, median",
    "net_clock_restart_error_ms": "the tournament clock killed (-9) mid-level and started again: its level's time "
                                  "left against a clock that never stopped, beyond the outage it states",
    "net_clock_away_s": "the outage the clock stated after that kill -9 (the kill to its return, as measured)",
    "net_fleet_cpu_pct": "CPU the fleet simulator itself takes at the largest step (% of one core; the machine "
                         "has `nproc` × 100)",
    "net_fleet_rss_mb": "the fleet simulator's peak memory at the largest step (all its processes)",
    "net_broker_cpu_pct": "mosquitto's CPU at the largest step (% of one core)",
    "net_broker_rss_mb": "mosquitto's peak memory at the largest step",
    "net_fleet_records_per_s": "records the fleet's tables send at the largest step (what the archive must keep "
                               "up with)",
    "net_archive_rate_1": "records per second one collector stores, sustained (a backlog of 20,000 events "
                          "drained into the archive)",
    "net_archive_rate_pg_1": "the same, one collector writing a PostgreSQL archive (a server on this machine, "
                             "every record committed and synced before its ack)",
    "net_archive_rate_pg_2": "the same with two collectors in one MQTT 5 share group writing one PostgreSQL archive",
    "net_expiry_late_ms_p99": "`expiry_late_ms_p99` with the network on (every record published)",
    "net_off_expiry_late_ms_p99": "the same device with the network off, run just before (this run's noise)",
    "net_beep_late_ms_p99": "`beep_late_ms_p99` with the network on",
    "net_cpu_running_pct": "`cpu_running_pct` with the network on",
}
VENUE = "bench"
STEPS = [100, 500, 1000, 1500, 2000]  # tables on the broker; the search stops at the first step that misses


def device_process(tmp: Path, name: str, script: list[dict], config: str):
    """``shotclock run`` in script mode, screen drawn offscreen; returns the process."""
    (tmp / f"{name}.jsonl").write_text("\n".join(json.dumps(s) for s in script) + "\n")
    (tmp / f"{name}.toml").write_text(config)
    return subprocess.Popen([PY, "-m", "shotclock", "run", "--pins", "mock", "--offscreen",
                             "--config", str(tmp / f"{name}.toml"), "--state-dir", str(tmp / f"{name}.state"),
                             "--script", str(tmp / f"{name}.jsonl")],
                            env=ENV, cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)


def network_section(broker, table: str) -> str:
    return (f'\n[network]\nenabled = true\nhost = "127.0.0.1"\nport = {broker.port}\ntls = false\n'
            f'venue = "{VENUE}"\ntable_id = "{table}"\ncredentials = "{broker.credentials_file("table-" + table)}"\n')


def children(pid: int) -> list[int]:
    """``pid`` and every process below it."""
    parents = {}
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                parents[int(entry)] = int(Path(f"/proc/{entry}/stat").read_text().rsplit(")", 1)[1].split()[1])
            except (OSError, IndexError, ValueError):
                pass
    found, todo = [], [pid]
    while todo:
        p = todo.pop()
        found.append(p)
        todo += [c for c, parent in parents.items() if parent == p]
    return found


def stop_fleet(fleet) -> None:
    """Stop the fleet (its processes stop their tables); kill what is left after two minutes, children too
    (a fleet left running would load every step after it)."""
    pids = children(fleet.pid)
    fleet.terminate()
    try:
        fleet.wait(120)
    except subprocess.TimeoutExpired:
        print("bench: the fleet did not stop in 120 s; killed", file=sys.stderr, flush=True)
    for pid in pids:
        try:
            os.kill(pid, 9)
        except OSError:
            pass
    fleet.wait(10)


class Usage:
    """CPU (% of one core) and peak memory (MB, summed) of a process (and its children, with ``tree``) over a
    window."""

    def __init__(self, pid: int, tree: bool = True):
        self.pid = pid
        self.tree = tree
        self.t0 = time.monotonic()
        self.cpu0 = self._cpu()

    def _cpu(self) -> dict[int, float]:
        out = {}
        for p in children(self.pid) if self.tree else [self.pid]:
            try:
                out[p] = cpu_seconds(p)
            except OSError:
                pass
        return out

    def done(self) -> tuple[float, float]:
        """(CPU %, peak RSS MB) since this object was made."""
        cpu1, elapsed = self._cpu(), time.monotonic() - self.t0
        used = sum(c - self.cpu0.get(p, 0.0) for p, c in cpu1.items())
        rss = 0.0
        for p in cpu1:
            try:
                rss += peak_rss_mb(p)
            except OSError:
                pass
        return 100 * used / elapsed, rss


class Watcher:
    """The floor's view: table 1's events and acks, and how many fleet tables are online."""

    def __init__(self, broker):
        self.events: list[float] = []
        self.acks: dict[str, float] = {}
        self.online: set[str] = set()
        self.client = broker.client("floor")
        self.client.on_message = self._on_message
        done = threading.Event()
        self.client.on_subscribe = lambda *a: done.set()
        self.client.subscribe([(f"shotclock/v1/{VENUE}/table/1/event", 1), (f"shotclock/v1/{VENUE}/table/1/cmd/ack", 1),
                               (f"shotclock/v1/{VENUE}/table/+/status", 1)])
        done.wait(30)

    def _on_message(self, client, userdata, message):
        now = time.monotonic()
        data = json.loads(message.payload)
        if message.topic.endswith("/event"):
            record = data["record"]
            if record["type"] == "input" and record.get("button") == "action":
                self.events.append((now - record["t"]) * 1000)
        elif message.topic.endswith("/ack"):
            self.acks[data["id"]] = now
        elif message.topic.endswith("/status"):
            (self.online.add if data["online"] else self.online.discard)(data["table"])


class TimedArchive(Archive):
    """The collector's archive, noting when each of table 1's action presses is stored (its latency in ms)."""

    def __init__(self, folder):
        super().__init__(folder)
        self.latencies: list[float] = []

    def add_many(self, messages, received=None):
        added = super().add_many(messages, received)
        now = time.monotonic()
        for message, stored in zip(messages, added):
            record = message.get("record") or {}
            if stored and message.get("table") == "1" and record.get("type") == "input" \
                    and record.get("button") == "action":
                self.latencies.append((now - record["t"]) * 1000)
        return added


def start_collector(broker, folder: Path):
    """The venue's collector, in this process (it is what stores and answers ``stored``)."""
    from shotclock.floor.collector import Collector

    archive = TimedArchive(folder)
    collector = Collector(archive, "127.0.0.1", broker.port, VENUE, "collector", broker.passwords["collector"])
    collector.start()
    if not collector.connected.wait(60):
        raise SystemExit("bench: the collector did not connect")
    return archive, collector


def latency_step(tmp: Path, tables: int, seconds: float) -> dict:
    """Event latency and command round trip of one device with ``tables`` simulated tables on the broker."""
    from paho.mqtt.packettypes import PacketTypes
    from paho.mqtt.properties import Properties

    with MosquittoBroker(tmp / f"broker-{tables}", venue=VENUE, tables=[str(n) for n in range(1, tables + 2)],
                         websockets=False, autosave=30) as broker:
        watcher = Watcher(broker)
        archive, collector = start_collector(broker, tmp / f"archive-{tables}")
        fleet = subprocess.Popen([PY, "-m", "shotclock", "fleet", "--tables", str(tables), "--first", "2",
                                  "--broker", f"127.0.0.1:{broker.port}", "--venue", VENUE,
                                  "--credentials", str(broker.folder / "credentials"), "--pace", "0.3",
                                  "--seed", "13"], env=ENV, cwd=ROOT, stdout=subprocess.DEVNULL,
                                 stderr=subprocess.DEVNULL)
        try:
            deadline = time.monotonic() + 60 + tables * 0.2
            while len(watcher.online) < tables and time.monotonic() < deadline:
                time.sleep(0.2)
            online = len(watcher.online)
            # The action button on an idle clock: its input is decided at the press edge (a bet press waits
            # for its release, to tell a tap from a hold), so this measures the network, not the gesture.
            presses = [{"t": 1.0 + 0.2 * i, "button": "action", "hold": 0.05} for i in range(int(seconds / 0.2))]
            device = device_process(tmp, f"measured-{tables}", presses, network_section(broker, "1"))
            while "1" not in watcher.online and device.poll() is None:
                time.sleep(0.05)
            # What each part takes while the latencies are measured: the simulator, the broker, this process
            # (the measuring subscriber and the collector).
            usage = {"fleet": Usage(fleet.pid), "broker": Usage(broker.process.pid), "bench": Usage(os.getpid(), tree=False)}
            load_before = os.getloadavg()[0]
            stored_before = archive.added
            sent: dict[str, float] = {}
            props = Properties(PacketTypes.PUBLISH)
            props.MessageExpiryInterval = 5
            for n in range(int(seconds / 0.2)):
                time.sleep(0.2)
                command_id = uuid.uuid4().hex[:10]
                message = {"id": command_id, "name": "bet", "sender": "bench", "sent_ms": int(time.time() * 1000),
                           "facing_bet": n % 2 == 0}
                sent[command_id] = time.monotonic()
                watcher.client.publish(f"shotclock/v1/{VENUE}/table/1/cmd", json.dumps(message), qos=1,
                                       properties=props)
            _, err = device.communicate(timeout=60)
            if device.returncode != 0:
                raise SystemExit(f"bench: the measured device failed:\n{err}")
            time.sleep(0.5)
            window = time.monotonic() - usage["fleet"].t0
            used = {name: u.done() for name, u in usage.items()}
            records_per_s = (archive.added - stored_before) / window
        finally:
            stop_fleet(fleet)
            collector.stop()
            archive.close()
    acks = [(watcher.acks[i] - t) * 1000 for i, t in sent.items() if i in watcher.acks]
    lost = len(watcher.events) < len(presses) * 0.9 or len(acks) < len(sent) * 0.9
    if lost:  # a step past what the machine can do: it misses the goals, the figures before it stand
        print(f"bench: {tables} tables: only {len(watcher.events)} of {len(presses)} events and "
              f"{len(acks)} of {len(sent)} acks arrived", file=sys.stderr, flush=True)
    p = lambda values, q: float("inf") if lost or not values else percentile(values, q)
    return {"tables": tables, "online": online, "event_p50": p(watcher.events, 0.5),
            "event_p99": p(watcher.events, 0.99), "ack_p50": p(acks, 0.5),
            "ack_p99": p(acks, 0.99), "events": len(watcher.events), "acks": len(acks), "lost": lost,
            "archive_p50": percentile(archive.latencies, 0.5) if archive.latencies else float("nan"),
            "archive_p99": percentile(archive.latencies, 0.99) if archive.latencies else float("nan"),
            "archived": len(archive.latencies), "fleet_cpu": used["fleet"][0], "fleet_rss": used["fleet"][1],
            "broker_cpu": used["broker"][0], "broker_rss": used["broker"][1], "bench_cpu": used["bench"][0],
            "records_per_s": records_per_s, "load": os.getloadavg()[0], "load_before": load_before}


class FloorView:
    """The floor's view of hand-for-hand: which tables are online and wait for the release, every table's acks."""

    def __init__(self, broker):
        from shotclock.core.topics import all_tables

        self.online: set[str] = set()
        self.waiting: set[str] = set()
        self.acks: dict[str, dict[str, tuple[float, dict]]] = {}  # command id -> table -> (arrival, ack)
        self._lock = threading.Lock()
        self.client = broker.client("floor")
        self.client.on_message = self._on_message
        done = threading.Event()
        self.client.on_subscribe = lambda *a: done.set()
        self.client.subscribe([(all_tables(VENUE, "cmd/ack"), 1), (all_tables(VENUE, "state"), 1),
                               (all_tables(VENUE, "status"), 1)])
        done.wait(30)

    def _on_message(self, client, userdata, message):
        now = time.monotonic()
        table = message.topic.split("/")[4]
        data = json.loads(message.payload) if message.payload else {}
        with self._lock:
            if message.topic.endswith("/ack"):
                self.acks.setdefault(data.get("id"), {})[table] = (now, data)
            elif message.topic.endswith("/state"):
                waits = (data.get("hand_for_hand") or {}).get("waiting") is True
                (self.waiting.add if waits else self.waiting.discard)(table)
            elif message.topic.endswith("/status"):
                (self.online.add if data.get("online") else self.online.discard)(table)

    def send(self, name: str) -> tuple[str, float]:
        """A command to every table of the venue (the floor's venue topic, 5 s expiry); (its id, when it went)."""
        from paho.mqtt.packettypes import PacketTypes
        from paho.mqtt.properties import Properties
        from shotclock.core.topics import venue_cmd_topic

        props = Properties(PacketTypes.PUBLISH)
        props.MessageExpiryInterval = 5
        ident = f"{name}-{uuid.uuid4().hex[:8]}"
        body = json.dumps({"id": ident, "name": name, "sender": "bench", "sent_ms": int(time.time() * 1000)})
        sent = time.monotonic()
        self.client.publish(venue_cmd_topic(VENUE), body, qos=1, properties=props)
        return ident, sent

    def acked(self, ident: str) -> dict[str, tuple[float, dict]]:
        with self._lock:
            return dict(self.acks.get(ident, {}))

    def count(self, which: str) -> int:
        with self._lock:
            return len(getattr(self, which))


CLOCK_STRUCTURE = "title = \"Bench\"\n" + "".join(f"[[stage]]\nsmall_blind = {n * 100}\nbig_blind = {n * 200}\n"
                                                  "minutes = 20\n" for n in range(1, 21))


def clock_bench(tmp: Path, tables: int, rounds: int) -> dict:
    """The tournament clock (``shotclock tournament run``) with ``tables`` simulated tables following it: the floor's
    ``next`` ``rounds`` times, each new level's state until it reaches each table (the fleet's ``--arrivals``: one
    monotonic clock on the machine); then a kill -9 of the clock's process mid-level and its return: its level's time
    left against a clock that never stopped, beyond the outage it states."""
    from shotclock.core.topics import tournament_topic
    from shotclock.core.tournament_state import TournamentState, tournament_state_of

    arrivals_file = tmp / f"clock-arrivals-{tables}.jsonl"
    structure = tmp / "clock-structure.toml"
    structure.write_text(CLOCK_STRUCTURE)
    states: list[tuple[float, TournamentState]] = []
    acks: dict[str, float] = {}
    with MosquittoBroker(tmp / f"broker-clock-{tables}", venue=VENUE, tables=[str(n) for n in range(1, tables + 1)],
                         websockets=False, autosave=30) as broker:
        floor = broker.client("floor")

        def heard(client, userdata, message):
            now = time.monotonic()
            if message.topic.endswith("/state") and message.payload:
                state = tournament_state_of(message.payload)
                if isinstance(state, TournamentState):
                    states.append((now, state))
            elif message.topic.endswith("/cmd/ack"):
                acks[json.loads(message.payload).get("id")] = now

        floor.on_message = heard
        floor.subscribe([(tournament_topic(VENUE, "bench", "state"), 1), (tournament_topic(VENUE, "bench", "cmd/ack"), 1)])
        login = ["--broker", f"127.0.0.1:{broker.port}", "--venue", VENUE, "--credentials",
                 str(broker.credentials_file("floor")), "--id", "bench"]
        run = [PY, "-m", "shotclock", "tournament", "run", *login, "--journal", str(tmp / "clock.journal")]
        clock = subprocess.Popen(run + ["--structure", str(structure), "--venue-wide"], env=ENV, cwd=ROOT,
                                 stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        fleet = subprocess.Popen([PY, "-m", "shotclock", "fleet", "--tables", str(tables), "--broker",
                                  f"127.0.0.1:{broker.port}", "--venue", VENUE, "--credentials",
                                  str(broker.folder / "credentials"), "--pace", "0.1", "--seed", "31",
                                  "--arrivals", str(arrivals_file)],
                                 env=ENV, cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)

        def command(name: str) -> float:
            ident = f"{name}-{uuid.uuid4().hex[:8]}"
            sent = time.monotonic()
            floor.publish(tournament_topic(VENUE, "bench", "cmd/by/floor"),
                          json.dumps({"id": ident, "name": name, "sent_ms": int(time.time() * 1000)}), qos=1)
            wait_for(lambda: ident in acks, 30)
            return sent

        sent: dict[int, float] = {}
        load = os.getloadavg()[0]
        error = away = float("inf")
        try:
            if not wait_for(lambda: states, 60):
                raise SystemExit("bench: the tournament clock published no state")
            command("start")
            time.sleep(5 + tables * 0.02)  # every table online and following
            for n in range(1, rounds + 1):
                sent[n] = command("next")
                time.sleep(2.0)
            load = max(load, os.getloadavg()[0])
            # A kill -9 mid-level (a power cut of the clock's machine), and its return.
            before_t, before = max(states, key=lambda s: s[1].seq)
            clock.send_signal(signal.SIGKILL)
            clock.wait(30)
            killed = time.monotonic()
            time.sleep(3.0)
            clock = subprocess.Popen(run, env=ENV, cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
            if wait_for(lambda: any(s.away_s is not None for _, s in states), 60):
                back_t, back = next((t, s) for t, s in states if s.away_s is not None)
                # A clock that never stopped (the outage counted as played), by the states' own times (the clock's
                # machine's wall clock, the same for both: the bench's reading of them would add its own lag).
                expected = before.remaining - (back.at_ms - before.at_ms) / 1000
                error = abs(back.remaining - expected) * 1000
                away = back.away_s
                print(f"bench: tournament clock back after a kill -9: stated away {away:.2f} s (killed "
                      f"{back_t - killed:.2f} s before its state came back), time left {back.remaining:.3f} s "
                      f"against {expected:.3f} s", file=sys.stderr, flush=True)
        finally:
            stop_fleet(fleet)
            if clock.poll() is None:
                clock.terminate()
                clock.wait(30)
    reached: dict[tuple[int, str], float] = {}
    for line in arrivals_file.read_text().splitlines() if arrivals_file.exists() else []:
        seen = json.loads(line)
        ident = seen.get("id") or ""
        if ident.startswith("stage:") and int(ident[6:]) in sent:
            k = int(ident[6:])
            reached.setdefault((k, seen["table"]), (seen["t"] - sent[k]) * 1000)
    latencies = list(reached.values())
    missed = len(sent) * tables - len(reached)
    p = lambda q: float("inf") if missed or not latencies else percentile(latencies, q)
    print(f"bench: tournament clock level at {tables} tables: reached p50 {p(0.5):.1f} ms, p99 {p(0.99):.1f} ms "
          f"({len(latencies)} arrivals, {missed} missed, load average {load:.1f})", file=sys.stderr, flush=True)
    return {"net_clock_level_ms_p99": p(0.99), "net_clock_level_ms_p50": p(0.5), "net_clock_missed": missed,
            "net_clock_restart_error_ms": error, "net_clock_away_s": away}


def wait_for(predicate, seconds: float) -> bool:
    deadline = time.monotonic() + seconds
    while not predicate():
        if time.monotonic() > deadline:
            return False
        time.sleep(0.05)
    return True


def h4h_release(tmp: Path, tables: int, rounds: int) -> dict:
    """Hand-for-hand at ``tables`` simulated tables (their own rules, ``shotclock fleet``): the floor starts it
    for the venue, each table's dealer deals its next hand and the table waits; once every table waits the floor
    releases the next hand, ``rounds`` times. Each release's latency at a table: the floor's publish until the
    table's link read it from its socket (the fleet's ``--arrivals``; one monotonic clock on the machine); the ack
    back at the floor (``done``: the table's own rules took it) is a reference, and every table must send it."""
    arrivals_file = tmp / f"h4h-arrivals-{tables}.jsonl"
    with MosquittoBroker(tmp / f"broker-h4h-{tables}", venue=VENUE, tables=[str(n) for n in range(1, tables + 1)],
                         websockets=False, autosave=30) as broker:
        floor = FloorView(broker)
        fleet = subprocess.Popen([PY, "-m", "shotclock", "fleet", "--tables", str(tables), "--broker",
                                  f"127.0.0.1:{broker.port}", "--venue", VENUE, "--credentials",
                                  str(broker.folder / "credentials"), "--pace", "0.1", "--seed", "29", "--deal",
                                  "--arrivals", str(arrivals_file)],
                                 env=ENV, cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        acked, releases, missed, refused, load = [], {}, 0, 0, os.getloadavg()[0]
        try:
            if not wait_for(lambda: floor.count("online") >= tables, 60 + tables * 0.2):
                raise SystemExit(f"bench: hand-for-hand: only {floor.count('online')} of {tables} tables online")
            started, _ = floor.send("hand_for_hand")
            wait_for(lambda: len(floor.acked(started)) >= tables, 60)
            for n in range(rounds):
                # A clock-mode hand at --pace 0.1 lasts up to about 50 s: then every table has dealt its next one.
                if not wait_for(lambda: floor.count("waiting") >= tables, 180):
                    print(f"bench: hand-for-hand: only {floor.count('waiting')} of {tables} tables wait for the "
                          "release", file=sys.stderr, flush=True)
                ident, sent = floor.send("release_hand")
                releases[ident] = sent
                wait_for(lambda: len(floor.acked(ident)) >= tables, 30)
                acks = floor.acked(ident)
                acked += [(at - sent) * 1000 for at, _ in acks.values()]
                refused += sum(1 for _, ack in acks.values() if ack.get("outcome") != "done")
                missed += tables - len(acks)
            floor.send("end_hand_for_hand")
            load = max(load, os.getloadavg()[0])
        finally:
            stop_fleet(fleet)
    reached = {}  # (release id, table) -> ms from the floor's publish; a table's first reading of it counts
    for line in arrivals_file.read_text().splitlines() if arrivals_file.exists() else []:
        seen = json.loads(line)
        if seen["id"] in releases:
            reached.setdefault((seen["id"], seen["table"]), (seen["t"] - releases[seen["id"]]) * 1000)
    latencies = list(reached.values())
    missed += len(releases) * tables - len(reached)  # a release a table never read
    if missed or refused:
        print(f"bench: hand-for-hand: {missed} releases not read or never acked, {refused} not taken (the table "
              "still played)", file=sys.stderr, flush=True)
    p = lambda values, q: float("inf") if missed or refused or not values else percentile(values, q)
    print(f"bench: hand-for-hand release at {tables} tables: reached p50 {p(latencies, 0.5):.1f} ms, p99 "
          f"{p(latencies, 0.99):.1f} ms; acked p50 {p(acked, 0.5):.1f} ms, p99 {p(acked, 0.99):.1f} ms "
          f"({len(latencies)} arrivals, {len(acked)} acks, load average {load:.1f})", file=sys.stderr, flush=True)
    return {"net_h4h_release_ms_p99": p(latencies, 0.99), "net_h4h_release_ms_p50": p(latencies, 0.5),
            "net_h4h_ack_ms_p99": p(acked, 0.99), "net_h4h_missed": missed, "net_h4h_refused": refused,
            "net_h4h_load": load}


def collector_process(broker, archive: str, logs: Path, member: str | None):
    """``shotclock floor collect --archive ARCHIVE`` in its own process (two of them use both cores), in share group
    ``bench`` when ``member`` is given; returns the process once it is subscribed (its log, in ``logs``, says so)."""
    argv = [PY, "-m", "shotclock", "floor", "collect", "--broker", f"127.0.0.1:{broker.port}", "--venue", VENUE,
            "--credentials", str(broker.credentials_file("collector")), "--archive", archive]
    # A member's session outlives it --member-expiry s: long enough to hold the backlog published while it is away.
    argv += ["--share", "bench", "--member", member, "--member-expiry", "3600"] if member else []
    log = open(logs / f"collector-{member or 'alone'}.log", "w+")
    proc = subprocess.Popen(argv, env=ENV, cwd=ROOT, stdout=subprocess.DEVNULL, stderr=log)
    deadline = time.monotonic() + 180  # bounds a hang only: a loaded machine can take long to start Python
    while "subscribed" not in Path(log.name).read_text():
        if proc.poll() is not None or time.monotonic() > deadline:
            raise SystemExit(f"bench: the collector did not subscribe:\n{Path(log.name).read_text()}")
        time.sleep(0.05)
    proc.log = log
    return proc


def stop_collector(proc) -> int:
    """Stop a collector process; the events it stored this run (its last log line says)."""
    proc.terminate()
    proc.wait(60)
    text = Path(proc.log.name).read_text()
    proc.log.close()
    stored = [line for line in text.splitlines() if "events stored this run" in line]
    return int(stored[-1].split("stopped: ")[1].split()[0]) if stored else 0


def backlog(broker, records: int, tables: int = 20) -> None:
    """Publish ``records`` valid events (``tables`` tables, a hash chain each) and wait for the broker's PUBACKs."""
    from shotclock.adapters.log import GENESIS, record_hash
    from shotclock.core.wire import event_message

    clients = [broker.client(f"table-{n}") for n in range(1, tables + 1)]
    infos = []
    for n, client in enumerate(clients, start=1):
        prev = GENESIS
        topic = f"shotclock/v1/{VENUE}/table/{n}/event"
        for seq in range(1, records // tables + 1):
            row = {"id": seq, "session": 1, "clock": None, "type": "beep", "t": float(seq),
                   "utc": "2026-12-01T20:00:00.000000Z", "data": json.dumps({"remaining": 1}), "prev": prev}
            row["hash"] = prev = record_hash(row)
            message = event_message(str(n), f"{n:012x}", dict(row, data={"remaining": 1}))
            infos.append(client.publish(topic, json.dumps(message, separators=(",", ":")), qos=1))
    for info in infos:
        info.wait_for_publish(120)
    for client in clients:
        client.disconnect()
        client.loop_stop()


def archive_rate(tmp: Path, collectors: int, records: int, store: str = "sqlite") -> dict:
    """Records per second the archive stores, sustained, with ``collectors`` collector processes (a share
    group when more than one) writing one archive (``store``: an SQLite file, or a PostgreSQL database on a server
    of its own on this machine, fsync on): their sessions hold a backlog of ``records`` events (published while
    they were away), and the rate is timed from the first record stored to the last."""
    import contextlib

    from shotclock.adapters.archive_store import open_store

    name = f"{store}-{collectors}"
    with MosquittoBroker(tmp / f"broker-rate-{name}", venue=VENUE, tables=[str(n) for n in range(1, 21)],
                         websockets=False, autosave=3600) as broker, \
            (PostgresServer(fsync=True) if store == "postgresql" else contextlib.nullcontext()) as server:
        logs = tmp / f"rate-{name}"
        logs.mkdir(parents=True)
        spec = server.database("rulings") if server else str(logs / "archive")
        members = [str(n) for n in range(1, collectors + 1)] if collectors > 1 else [None]
        for m in members:  # each makes its persistent session (subscribed), then goes away
            stop_collector(collector_process(broker, spec, logs, m))
        backlog(broker, records)
        procs = [collector_process(broker, spec, logs, m) for m in members]
        db = open_store(spec, readonly=True)
        count = lambda: db.execute("SELECT COUNT(*) FROM events").fetchone()[0]
        first = None
        deadline = time.monotonic() + 120 + records / 100
        while count() < records and time.monotonic() < deadline:
            if first is None and count() > 0:
                first = (time.monotonic(), count())
            time.sleep(0.02)
        end, stored = time.monotonic(), count()
        db.close()
        shares = [stop_collector(p) for p in procs]
    if stored < records or first is None:
        raise SystemExit(f"bench: {collectors} collector(s) on {store} stored {stored} of {records} records")
    rate = (stored - first[1]) / max(end - first[0], 1e-6)
    print(f"bench: archive in {store}, {collectors} collector(s): {rate:,.0f} records/s (stored by each: {shares})",
          file=sys.stderr, flush=True)
    return {"rate": rate, "shares": shares}


def archive_rates(tmp: Path, quick: bool) -> dict:
    """The archive's sustained rates: one collector on SQLite, one and two (a share group) on PostgreSQL. Without
    Debian's postgresql the PostgreSQL figures are not measured (NaN), and the run says so."""
    records = 2_000 if quick else 20_000
    figures = {"net_archive_rate_1": archive_rate(tmp, 1, records)["rate"]}
    missing = ("PostgreSQL is not installed (./dev installs it as root)" if postgres_bin() is None
               else None if importlib.util.find_spec("psycopg") else "psycopg is not installed (pip install -e '.[dev]')")
    if missing:
        print(f"bench: {missing}: the archive's PostgreSQL rates are not measured", file=sys.stderr, flush=True)
        return {**figures, "net_archive_rate_pg_1": float("nan"), "net_archive_rate_pg_2": float("nan")}
    two = archive_rate(tmp, 2, records, "postgresql")
    return {**figures, "net_archive_rate_pg_1": archive_rate(tmp, 1, records, "postgresql")["rate"],
            "net_archive_rate_pg_2": two["rate"], "net_archive_shares_pg_2": two["shares"]}


def cpu_cost(tmp: Path, window: float) -> tuple[float, float]:
    """(percentage points of one core, CPU % with the network on): the same running clock with the
    network on and off, side by side."""
    with MosquittoBroker(tmp / "broker-cpu", venue=VENUE, tables=["1"], websockets=False) as broker:
        clock = f"[clock]\nseconds = {window + 3}\ncountdown = 5\n"
        script = [{"t": 0.2, "button": "floor"}]
        on = device_process(tmp, "cpu-on", script, clock + network_section(broker, "1"))
        off = device_process(tmp, "cpu-off", script, clock)
        time.sleep(1.5)
        c_on, c_off, t0 = cpu_seconds(on.pid), cpu_seconds(off.pid), time.monotonic()
        time.sleep(window)
        elapsed = time.monotonic() - t0
        d_on, d_off = cpu_seconds(on.pid) - c_on, cpu_seconds(off.pid) - c_off
        for proc in (on, off):
            proc.communicate(timeout=60 + window)
    return 100 * (d_on - d_off) / elapsed, 100 * d_on / elapsed


def timing_with_network(tmp: Path, clocks: int) -> dict:
    """The device's own timing goals, measured with the network on (bench/run.py's timing step)."""
    from run import bench_timing

    with MosquittoBroker(tmp / "broker-timing", venue=VENUE, tables=["1"], websockets=False) as broker:
        try:
            off = bench_timing(tmp, clocks, "", name="timing-off")
            figures = bench_timing(tmp, clocks, network_section(broker, "1"), name="timing-net")
        except SystemExit as exc:  # a clock missed on an overloaded machine: say so, keep the other figures
            print(f"{exc}; the timing figures with the network on are not measured", file=sys.stderr)
            return {"net_expiry_late_ms_p99": float("nan"), "net_beep_late_ms_p99": float("nan"),
                    "net_off_expiry_late_ms_p99": float("nan")}
    return {"net_expiry_late_ms_p99": figures["expiry_late_ms_p99"], "net_beep_late_ms_p99": figures["beep_late_ms_p99"],
            "net_off_expiry_late_ms_p99": off["expiry_late_ms_p99"]}


def raise_fd_limit() -> None:
    """A thousand tables are a thousand connections: mosquitto (started from here) inherits the limit.
    (Its ``max_connections`` is unlimited unless set, so the open-file limit is the one that bites.)"""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if hard == resource.RLIM_INFINITY or hard > soft:
        resource.setrlimit(resource.RLIMIT_NOFILE, (hard if hard != resource.RLIM_INFINITY else 65536, hard))


def step_within(step: dict) -> bool:
    """Every table online, both latency goals met."""
    return (step["online"] >= step["tables"] and step["event_p99"] <= EVENT_GOAL_MS
            and step["ack_p99"] <= ACK_GOAL_MS)


def why(step: dict) -> str:
    """What a step that missed its goals ran out of, from what each part took (CPU % of one core)."""
    cores = os.cpu_count() or 1
    parts = {"the fleet simulator": step["fleet_cpu"], "mosquitto": step["broker_cpu"],
             "the measuring process (subscriber and collector)": step["bench_cpu"]}
    busiest = max(parts, key=parts.get)
    total = sum(parts.values())
    said = ", ".join(f"{name} {cpu:.0f} %" for name, cpu in parts.items())
    missed = [] if step["online"] >= step["tables"] else [f"only {step['online']} of {step['tables']} online"]
    missed += [f"only {step['events']} events and {step['acks']} acks arrived"] if step.get("lost") else []
    missed += [f"event p99 {step['event_p99']:.0f} ms"] if step["event_p99"] > EVENT_GOAL_MS else []
    missed += [f"ack p99 {step['ack_p99']:.0f} ms"] if step["ack_p99"] > ACK_GOAL_MS else []
    if total >= 80 * cores:
        cause = f"the machine's {cores} cores are saturated, most by {busiest}"
    elif step["broker_cpu"] >= 90:
        cause = "mosquitto (one thread) is saturated"
    else:
        cause = f"no part is saturated (load average {step['load']:.1f})"
    return f"{'; '.join(missed)}: {cause} ({said} of {cores * 100} %)"


def bench_network(tmp: Path, quick: bool) -> dict:
    """Every network figure (keys of GOALS), plus the steps of the tables-per-broker search."""
    raise_fd_limit()
    steps = [5] if quick else STEPS
    seconds = 2.0 if quick else 20.0
    results = []
    for tables in steps:
        print(f"bench: network, {tables} simulated tables…", file=sys.stderr, flush=True)
        step = latency_step(tmp, tables, seconds)
        print(f"bench: {step}", file=sys.stderr, flush=True)
        results.append(step)
        if not step_within(step):
            print(f"bench: {tables} tables miss the goals: {why(step)}", file=sys.stderr, flush=True)
            break
    within = [s["tables"] for s in results if step_within(s)]
    largest = results[-1]
    print(f"bench: hand-for-hand release at {5 if quick else H4H_TABLES} tables…", file=sys.stderr, flush=True)
    h4h = h4h_release(tmp, 5 if quick else H4H_TABLES, 1 if quick else 2)
    print(f"bench: the tournament clock at {5 if quick else H4H_TABLES} tables…", file=sys.stderr, flush=True)
    clock = clock_bench(tmp, 5 if quick else H4H_TABLES, 1 if quick else 3)
    print("bench: the archive's sustained rate…", file=sys.stderr, flush=True)
    rates = archive_rates(tmp, quick)
    print("bench: network CPU cost…", file=sys.stderr, flush=True)
    cost, running = cpu_cost(tmp, 2.0 if quick else 20.0)
    print("bench: timing with the network on…", file=sys.stderr, flush=True)
    return {"net_event_latency_ms_p99": results[0]["event_p99"], "net_cmd_ack_ms_p99": results[0]["ack_p99"],
            "net_archive_latency_ms_p99": results[0]["archive_p99"],
            "net_archive_latency_ms_p50": results[0]["archive_p50"],
            "net_event_latency_ms_p50": results[0]["event_p50"], "net_cmd_ack_ms_p50": results[0]["ack_p50"],
            "net_cpu_cost_pct": cost, "net_cpu_running_pct": running,
            "net_tables_per_broker": max(within, default=0), "net_steps": results,
            "net_tables_why": "" if step_within(largest) else why(largest),
            "net_fleet_cpu_pct": largest["fleet_cpu"], "net_fleet_rss_mb": largest["fleet_rss"],
            "net_broker_cpu_pct": largest["broker_cpu"], "net_broker_rss_mb": largest["broker_rss"],
            "net_fleet_records_per_s": largest["records_per_s"],
            **rates, **h4h, **clock,
            **timing_with_network(tmp, 5 if quick else 120)}


def rows(results: dict) -> str:
    """The rows of docs/benchmarks.md's table for the network figures."""
    lines = []
    for key, (goal, kind, unit) in GOALS.items():
        if key not in results:
            continue
        value = results[key]
        shown = f"{value:,.0f}" if unit in ("/s", "tables") else f"{value:.2f}"
        goal_text = "(reference)" if goal is None else f"{'≤' if kind == 'max' else '≥'} {goal:,g} {unit}"
        lines.append(f"| `{key}` | {WHAT[key]} | {goal_text} | {shown} {unit} |")
    return "\n".join(lines)


def main(argv: list[str]) -> int:
    """Only the network figures (``--archive-rate``: only the archive's sustained rates; ``--clock``: only the
    tournament clock's): printed as JSON and as
    rows of docs/benchmarks.md's table, merged into bench/latest.json."""
    parser = argparse.ArgumentParser(prog="bench/network.py", description="The floor network's benchmarks "
                                     "(a full run takes several minutes and writes bench/latest.json).")
    parser.add_argument("--quick", action="store_true", help="small and short: checks that it runs, writes nothing")
    only = parser.add_mutually_exclusive_group()
    only.add_argument("--clock", action="store_true", help="only the tournament clock's figures")
    only.add_argument("--archive-rate", action="store_true", help="only the archive's sustained rates")
    args = parser.parse_args(argv)
    quick = args.quick
    with tempfile.TemporaryDirectory() as tmp:
        if args.clock:
            results = clock_bench(Path(tmp), 5 if quick else H4H_TABLES, 1 if quick else 3)
        elif args.archive_rate:
            results = archive_rates(Path(tmp), quick)
        else:
            results = bench_network(Path(tmp), quick)
    print(json.dumps(results, indent=2))
    print(rows(results))
    if results.get("net_tables_why"):
        print(f"tables per broker: stopped at the step after {results['net_tables_per_broker']}: "
              f"{results['net_tables_why']}")
    latest = HERE / "latest.json"
    if not quick:
        merged = json.loads(latest.read_text()) if latest.exists() else {}
        merged.update({k: round(v, 4) if isinstance(v, float) else v for k, v in results.items()})
        latest.write_text(json.dumps(merged, indent=2) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
