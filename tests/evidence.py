"""A table played on the real device (fake pins, virtual time, the real decision log), and the evidence of each
of its clocks compared: what the log says was ruled, what ``log export --replay N | shotclock replay`` rules,
the ledger's line and the bank the player's next clock carries (tests/test_evidence.py)."""

from __future__ import annotations

import argparse
import io
from datetime import datetime, timedelta, timezone

from shotclock.adapters.log import DecisionLog
from shotclock.adapters.pins import make_pin_factory
from shotclock.config.loading import config_from, parse_config
from shotclock.core.inputs import Command
from shotclock.core.ledger import ledger
from shotclock.core.replay import ReplayInput, replay
from shotclock.shell.device import Device
from shotclock.shell.edgereplay import cmd_replay_edges
from shotclock.shell.logcmd import cmd_export, cmd_list
from shotclock.shell.recorder import DirectSink, Recorder

UTC = datetime(2026, 11, 29, 20, 0, tzinfo=timezone.utc)
# What a clock's evidence is: the fields of its start and its decision every account must agree on.
START = ("seat", "seconds", "bank", "mark")  # (mark: a marked player's own clock)
DECISION = ("outcome", "remaining", "at_zero", "by", "seat", "bank_used", "bank_left")


class Bench:
    """One table's device run after run on one state directory (a restart is a new device on the same log)."""

    def __init__(self, vclock, state, config: str):
        self.clock, self.state, self.text = vclock, state, config
        self.config = parse_config(config)
        self.device = self.recorder = None
        self.devices = []
        self.commands = 0
        self.start()

    def start(self) -> None:
        """Start the device (again): recover an interrupted clock, the chips and the seats from the log."""
        d = Device(self.config, make_pin_factory("mock", clock=self.clock), clock=self.clock)
        log = DecisionLog(self.state)
        base = self.clock.now
        rec = Recorder(DirectSink(log), self.config, utcnow=lambda: UTC + timedelta(seconds=self.clock.now - base))
        rec.start_session(self.clock())
        rec.recover(log, d.table, self.clock())
        rec.restore_chips(log, d.table, self.clock())
        rec.restore_seats(log, d.table, self.clock())
        d.loop.listeners.append(rec)
        self.device, self.recorder, self.log = d, rec, log
        self.devices.append(d)

    def press(self, button: str, hold: float = 0.05) -> None:
        pin = self.device.pins.pin(button)
        pin.drive_low()
        self.clock.now += hold
        pin.drive_high()
        self.clock.now += 0.001
        self.device.loop.run_once()

    def chord(self, held: str, pressed: str) -> None:
        """Press ``pressed`` while ``held`` is down (the dealer's seat gestures)."""
        a, b = self.device.pins.pin(held), self.device.pins.pin(pressed)
        a.drive_low()
        self.clock.now += 0.05
        self.device.loop.run_once()
        b.drive_low()
        self.clock.now += 0.05
        b.drive_high()
        self.clock.now += 0.05
        a.drive_high()
        self.clock.now += 0.001
        self.device.loop.run_once()

    def command(self, name: str, **fields) -> None:
        self.commands += 1
        self.device.loop.post(Command(self.clock.now, name, id=f"c{self.commands}", sender="floor", **fields))
        self.clock.now += 0.001
        self.device.loop.run_once()

    def wait(self, seconds: float) -> None:
        self.clock.now += seconds
        self.device.loop.run_once()
        while (wake := self.device.loop.next_wake(self.clock.now)) is not None and wake <= self.clock.now:
            self.device.loop.run_once()

    def crash(self, down: float = 20.0) -> None:
        """The device dies (its log writer records when) and starts again ``down`` seconds later."""
        self.recorder.sink.die(utc="2026-11-29T21:00:00.000000Z")
        self.log.close()
        self.clock.now += down
        self.start()

    def stop(self, down: float = 5.0) -> None:
        """A graceful stop, and a start ``down`` seconds later."""
        self.recorder.stop(self.clock.now, self.device.table.state)
        self.log.close()
        self.clock.now += down
        self.start()

    def close(self) -> None:
        self.log.close()
        for d in self.devices:
            d.pins.close()

    # -- the evidence -------------------------------------------------------------------

    def rows(self) -> list[dict]:
        log = DecisionLog(self.state, readonly=True)
        try:
            return log.rows()
        finally:
            log.close()

    def args(self, **more) -> argparse.Namespace:
        return argparse.Namespace(**{"state_dir": str(self.state), "collected": None, "table": None, "out": None,
                                     "config_out": None, "csv": False, "jsonl": False, "replay": None, "limit": 1000,
                                     **more})

    def export(self, number: int) -> str:
        out = io.StringIO()
        cmd_export(self.args(replay=number), out)
        return out.getvalue()

    def check_all(self) -> tuple[int, str]:
        """``log replay --check --all``: every session's edges and commands against the log."""
        out = io.StringIO()
        code = cmd_replay_edges(self.args(session=None, check=True, all=True), out)
        return code, out.getvalue()

    def listing(self) -> str:
        out = io.StringIO()
        cmd_list(self.args(), out)
        return out.getvalue()


def replayed(text: str) -> list[dict]:
    """``shotclock replay`` of an exported clock (its header's settings), as records."""
    source = ReplayInput([text.encode()])
    settings = config_from(source.header, "header").settings
    return [o.record() for o in replay(source.events(settings.mode), settings)]


def logged_clocks(rows: list[dict]) -> list[tuple[dict, dict | None]]:
    """Each clock's start record and its decision record (None while open), in the log's order."""
    starts = [r for r in rows if r["type"] == "start" and r["clock"] == r["id"]]
    decisions = {r["clock"]: r for r in rows if r["type"] == "decision"}
    return [(s, decisions.get(s["id"])) for s in starts]


def pick(record: dict | None, keys) -> dict | None:
    return None if record is None else {k: record.get(k) for k in keys}


def disagreements(bench: Bench) -> list[str]:
    """Every place where a clock's accounts differ (empty: the evidence holds)."""
    rows = bench.rows()
    code, said = bench.check_all()
    problems = [] if code == 0 else [line for line in said.splitlines() if line.startswith("FAIL")]
    clocks = logged_clocks(rows)
    for number, (start, decision) in enumerate(clocks, 1):
        out = replayed(bench.export(number))
        starts = [r for r in out if r["type"] == "start"]
        decisions = [r for r in out if r["type"] == "decision"]
        if not starts or pick(starts[0], START) != pick(start, START):
            problems.append(f"clock {number}: start logged {pick(start, START)}, "
                            f"replayed {pick(starts[0], START) if starts else None}")
        again = decisions[0] if decisions else None
        if decision is not None and pick(again, DECISION) != pick(decision, DECISION):
            problems.append(f"clock {number}: decision logged {pick(decision, DECISION)}, "
                            f"replayed {pick(again, DECISION)}")
    # The ledger: each seat's bank used is what its decisions used; the next clock's bank is the last one left.
    lines = {(e.seat, e.player): e for e in ledger(rows)}
    used: dict[int, float] = {}
    for start, decision in clocks:
        if decision is not None and decision.get("bank_used") is not None and decision["outcome"] != "cancelled":
            used[decision["seat"]] = used.get(decision["seat"], 0) + decision["bank_used"]
    for seat, total in used.items():
        charged = sum(e.bank_used for (s, _), e in lines.items() if s == seat)
        if abs(charged - total) > 1e-6:
            problems.append(f"seat {seat}: the ledger charges {charged} s of bank, the decisions used {total} s")
    # The next clock's bank: what the seat's last decision left, as moves, top-ups and restarts changed it since.
    left: dict[int, float] = {}
    for r in rows:
        kind, seat = r["type"], r.get("seat")
        if kind == "start" and r["clock"] == r["id"] and seat is not None and seat in left:
            if abs((r.get("bank") or 0) - left[seat]) > 1e-6:
                problems.append(f"clock {r['id']}: seat {seat} starts with {r.get('bank')} s of bank, "
                                f"its last decision left {left[seat]} s")
        elif kind == "decision" and r.get("bank_left") is not None:
            left[seat] = r["bank_left"]
        elif kind == "seat" and r.get("change") == "seated" and r.get("bank") is not None:
            left[seat] = r["bank"]
        elif kind == "seat" and r.get("change") == "emptied":
            left.pop(seat, None)
        elif kind == "top_up" and r.get("seconds"):
            left = {s: b + r["seconds"] for s, b in left.items()}
        elif kind == "seats_restored":
            left = {int(s): b for s, b in (r.get("banks") or {}).items()}
    return problems
