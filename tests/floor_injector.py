"""Many tables without their devices: a real Mosquitto serving the pages, and one client that publishes
the tables' retained ``status`` and their ``state`` messages as devices would (docs/network.md's schemas).

For the dashboard's tests and its frame-time bench at 500 tables (bench/floor_pages.py): 500 device
processes, or the fleet simulator's 500 threads, would load a 2-core machine more than the page measured.
The page under test is the real one, with its real MQTT link through the broker's websockets listener.
"""

from __future__ import annotations

import json
import threading
import time
from pathlib import Path

from mqtt_broker import MosquittoBroker
from shotclock.floor.broker_config import hash_password

INJECTOR = "injector"  # the one user that may publish for every table (tests and bench only)


class InjectedFloor:
    """A broker with the pages and an ``injector`` credential that speaks for every table of ``venue``.

    ``tables`` maps a table id to its status fields (``name``, ``room``, ``section``, …)."""

    def __init__(self, folder: Path, venue: str = "test", floor=("tester",)):
        from shotclock.web import web_dir

        self.venue = venue
        self.broker = MosquittoBroker(folder, venue=venue, tables=["0"], pages=web_dir(), floor=list(floor))
        self.passwords = self.broker.passwords
        self.passwords[INJECTOR] = "injector-" + folder.name
        with open(folder / "passwd", "a") as f:
            f.write(f"{INJECTOR}:{hash_password(self.passwords[INJECTOR])}\n")
        with open(folder / "acl", "a") as f:
            f.write(f"\nuser {INJECTOR}\ntopic readwrite shotclock/v1/{venue}/#\n")
        self.broker.start()
        self.client = self.broker.client(INJECTOR)
        self.boots: dict[str, str] = {}
        self.seqs: dict[str, int] = {}
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self.running: dict[str, tuple] = {}   # table → (monotonic time its clock reaches 0, its length in s)

    @property
    def base(self) -> str:
        return f"http://127.0.0.1:{self.broker.ws_port}"

    def dashboard(self, web, query: str = "?lang=en", size=(1280, 900)):
        """A browser page on the dashboard, logged in as the floor's tester (``query``: its URL parameters)."""
        page = web.page(*size)
        page.goto(f"{self.base}/dashboard/{query}")
        page.fill("input[name=user]", "floor-tester")
        page.fill("input[name=password]", self.passwords["floor-tester"])
        page.click("button[type=submit]")
        return page

    def topic(self, table: str, leaf: str) -> str:
        return f"shotclock/v1/{self.venue}/table/{table}/{leaf}"

    def boot(self, table: str) -> str:
        return self.boots.setdefault(table, f"{len(self.boots) + 1:012x}")

    def status(self, table: str, online: bool = True, wait: bool = False, **fields) -> None:
        """Publish the table's retained status (``fields``: name, room, section, degraded, version…)."""
        message = {"online": online, "table": table, "boot": self.boot(table), "mode": "clock", **fields}
        if not online:  # as a device's Last Will: its room and section, nothing else
            message = {"online": False, "table": table, "boot": self.boot(table), "clean": False,
                       **{k: v for k, v in fields.items() if k in ("room", "section")}}
        info = self.client.publish(self.topic(table, "status"), json.dumps(message), qos=1, retain=True)
        if wait:
            info.wait_for_publish(30)

    def state(self, table: str, phase: str = "idle", remaining_ms: int | None = None, seconds: float | None = None,
              faults=(), network=None, wait: bool = False, **fields) -> dict:
        """Publish a retained state; a running one with no expiry (these tests keep their clocks confirmed)."""
        seq = self.seqs[table] = self.seqs.get(table, 0) + 1
        message = {"table": table, "boot": self.boot(table), "seq": seq, "name": fields.pop("name", f"Tafel {table}"),
                   "language": "en", "mode": "clock", "phase": phase, "facing_bet": False, "street": None,
                   "extensions": 0, "seconds": seconds if phase != "idle" else None,
                   "remaining_ms": remaining_ms if phase != "idle" else None, "countdown": 5,
                   "last_ruling": None, "faults": list(faults), "network": network or {"outbox": 0},
                   "heartbeat_ms": 1000, **fields}
        if message["heartbeat_ms"] is None:  # a device before heartbeats: its clock is never taken for quiet
            del message["heartbeat_ms"]
        info = self.client.publish(self.topic(table, "state"), json.dumps(message), qos=1, retain=True)
        if wait:
            info.wait_for_publish(30)
        return message

    def run_clock(self, table: str, seconds: float, name: str | None = None) -> None:
        """Start a clock on ``table`` and keep it confirmed by heartbeats (``start_heartbeats``)."""
        self.running[table] = (time.monotonic() + seconds, seconds)
        self.state(table, "running", int(seconds * 1000), seconds, name=name or f"Tafel {table}")

    def start_heartbeats(self, names: dict[str, str] | None = None) -> None:
        """Every second, each running clock's state, spread over the second as devices' heartbeats are."""
        names = names or {}

        def beat():
            while not self._stop.is_set():
                tables = list(self.running.items())
                step = 1.0 / max(1, len(tables))
                for table, (zero, seconds) in tables:
                    left = zero - time.monotonic()
                    if left <= 0:  # a long bench outlives a clock: it starts again
                        self.running[table] = (time.monotonic() + seconds, seconds)
                        left = seconds
                    self.state(table, "running", int(left * 1000), seconds, name=names.get(table, f"Tafel {table}"))
                    if self._stop.wait(step):
                        return

        self._thread = threading.Thread(target=beat, name="heartbeats", daemon=True)
        self._thread.start()

    def close(self) -> None:
        self._stop.set()
        if self._thread:
            self._thread.join(5)
        self.broker.close()


def populate(floor: InjectedFloor, count: int = 500, running: int = 100) -> dict[str, dict]:
    """``count`` tables in the fleet simulator's rooms and sections, ``running`` of them with a clock counting
    (spread over the list, each at another point of its clock), every 50th offline, every 25th with a fault.
    Returns each table's status fields."""
    import tomllib

    from shotclock.floor.fleet import fleet_place

    every = max(1, count // running) if running else 0
    tables = {}
    for n in range(1, count + 1):
        table = str(n)
        fields = {"name": f"Tafel {n}", **tomllib.loads(fleet_place(table))}
        tables[table] = fields
        online = n % 50 != 0
        floor.status(table, online=online, **fields)
        faults = [{"kind": "no_sound", "detail": "no audio device"}] if n % 25 == 0 and online else []
        if every and n % every == 1 % every and len(floor.running) < running:
            floor.run_clock(table, 30 + (n * 7) % 90, name=fields["name"])
        else:
            floor.state(table, faults=faults, name=fields["name"])
    return tables
