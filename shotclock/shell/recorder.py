"""Turns every round into decision-log records, and brings back a clock a crash or power cut interrupted.

The :class:`Recorder` runs on the loop's thread but does no I/O there: it builds the records
and hands them to a sink -- the log writer process (:class:`~shotclock.adapters.logwriter.WriterProcess`)
on the device, or :class:`DirectSink` where a test wants to read the log at once.
"""

from __future__ import annotations

import collections
import logging
import sqlite3
from datetime import datetime, timedelta, timezone
from pathlib import Path

from shotclock import __version__
from shotclock.adapters.log import DecisionLog, lock_state_dir, utc_iso
from shotclock.adapters.logwriter import StreamWriter, WriterProcess, import_pending
from shotclock.core.clocks import chips_used, clocks_from, last_known
from shotclock.core.engine import PAUSED, RUNNING
from shotclock.core.events import Decision, Started
from shotclock.core.faults import LOG_UNAVAILABLE, LOG_WRITE_FAILED, LogFault
from shotclock.core.inputs import Command, Edge
from shotclock.core.table import Input
from shotclock.errors import LogError

log = logging.getLogger("shotclock.recorder")
CHECKPOINT_SECONDS = 5.0  # while a clock runs, at most this long between records (power-cut bound)


def boot_id() -> str | None:
    """This boot's id (Linux): the same across a crash and restart, new after a power cut or reboot."""
    try:
        return Path("/proc/sys/kernel/random/boot_id").read_text().strip() or None
    except OSError:
        return None


class DirectSink:
    """Writes records in the caller's thread (tests); on a failure keeps them and retries with the next ones."""

    def __init__(self, decision_log: DecisionLog, on_status=lambda status: None):
        self.stream = StreamWriter(decision_log)
        self.on_status = on_status
        self.backlog: list[dict] = []

    @property
    def log(self) -> DecisionLog:
        """The log written to."""
        return self.stream.log

    def put(self, messages: list[dict]) -> None:
        """Write ``messages`` (after any held back)."""
        pending = self.backlog + messages
        if not pending:
            return
        try:
            self.stream.write(pending)
        except sqlite3.Error as exc:
            self.backlog = pending
            self.on_status({"fault": LOG_WRITE_FAILED, "detail": str(exc)})
            return
        if self.backlog:
            self.on_status({"fault": None})
        self.backlog = []

    def close(self, timeout: float = 0) -> bool:
        """Close the log; True when nothing was left unwritten."""
        self.stream.log.close()
        return not self.backlog


class Recorder:
    """A loop listener that records each round: raw edges and commands, inputs, outputs, button faults,
    and a checkpoint every few seconds while a clock runs.

    :param sink: where the records go (``put(messages)``).
    :param config: the configuration in force (stored with the session).
    :param utcnow: the wall clock (tests pass a fixed one).
    :param checkpoint_every: seconds between records while a clock runs (a power cut then
        restores at most this much more time than the player had).
    :param on_written: told of the rows each commit stored (the floor network's link), or None.
    """

    def __init__(self, sink, config, utcnow=lambda: datetime.now(timezone.utc),
                 checkpoint_every: float = CHECKPOINT_SECONDS, boot: str | None = None, on_written=None):
        self.sink = sink
        self.boot = boot  # this run's id on the floor network
        self.on_written = on_written or (lambda rows: None)  # called from the writer's status thread
        self._notes: collections.deque[dict] = collections.deque()
        self.state_dir: Path | None = None
        self.table_start: float | None = None
        self.first_id = 1  # the id this session's record gets (when the log could be read at start)
        self.config = config
        self.utcnow = utcnow
        self.checkpoint_every = checkpoint_every
        self.current_clock: dict | None = None  # {"seq": n} or {"id": record id}
        self._seq = 0
        self._last_input: Input | None = None
        self._last_clock_t: float | None = None  # the newest record of the running clock
        self._state = None

    def _next_seq(self) -> int:
        self._seq += 1
        return self._seq

    def start_session(self, t: float) -> None:
        """Record the session: table, mode, the whole configuration, the version and the boot id."""
        data = {"table": self.config["table"], "mode": self.config["mode"], "version": __version__,
                "config": self.config.values, "boot_id": boot_id()}
        if self.boot:
            data["boot"] = self.boot
        if self.table_start is not None:
            data["table_start"] = self.table_start  # where the table's clock began (log replay starts there)
        self.sink.put([{"seq": self._next_seq(), "clock": None, "type": "session", "t": t,
                        "utc": utc_iso(self.utcnow()), "data": data}])

    def note(self, record: dict) -> None:
        """Log a record (``t``, ``type``, ``data``) from another thread with the next round (thread-safe)."""
        self._notes.append(record)

    def recover(self, decision_log: DecisionLog, engine, t: float):
        """If the log's newest clock has no decision, restore it paused and record it as interrupted.

        After a graceful stop the time left is exact; after a crash in the same boot it is exact
        too (the monotonic clock went on); after a power cut it is the time left at the last
        record, at most ``checkpoint_every`` more than the truth. The floor decides every restored
        clock. Returns the interrupted :class:`~shotclock.core.clocks.Clock`, or None.
        """
        row = decision_log.db.execute("SELECT MAX(clock) FROM records").fetchone()
        if row[0] is None:
            return None
        sessions = decision_log.sessions()
        clocks = clocks_from(decision_log.rows("WHERE clock = ?", (row[0],)),
                             {sid: s.get("mode") for sid, s in sessions.items()})
        if not clocks or not clocks[0].open:
            return None
        clock = clocks[0]
        known = last_known(clock)
        same_boot = known.running and boot_id() is not None and sessions.get(known.session, {}).get("boot_id") == boot_id()
        remaining = known.remaining - (t - known.t) if same_boot else known.remaining
        how = ("exact: same boot" if same_boot else "exact: stopped" if not known.running
               else f"at its last record, at most {self.checkpoint_every:g} s more than the truth")
        # A deliberate stop (Esc in the simulator, systemctl stop) wrote a shutdown record: not a power cut.
        last = clock.records[-1]  # an earlier start that left it alone (another table) passes its cause on
        cause = "stop" if last["type"] == "shutdown" or last.get("cause") == "stop" else "power_cut"
        table = sessions.get(clock.session, {}).get("table")
        same_table = table is None or table == self.config["table"]
        restored = clock.mode == engine.mode and same_table
        data = {"remaining": max(0.0, remaining), "facing_bet": bool(clock.facing_bet), "street": clock.street,
                "restored": restored, "how": how, "cause": cause}
        if not same_table:
            data["table"] = table
        if restored:
            length = clock.seconds + sum(r["seconds"] * (1 if r["type"] == "extended" else -1)
                                         for r in clock.records if r["type"] in ("extended", "undo"))
            engine.restore_paused(t, max(0.0, remaining), bool(clock.facing_bet), clock.street, clock.extensions,
                                  length)
            self.current_clock = {"id": clock.id}
            log.warning("clock %d was interrupted (%s) with %.3f s left (%s): shown paused; "
                        "the floor resumes or cancels it", clock.id, cause.replace("_", " "), max(0.0, remaining), how)
        elif not same_table:
            log.warning("clock %d of table %r was left open (%s); this is table %r: not restored", clock.id, table,
                        cause.replace("_", " "), self.config["table"])
        else:
            log.warning("clock %d was interrupted but the mode changed to %s: not restored", clock.id, engine.mode)
        self.sink.put([{"seq": self._next_seq(), "clock": {"id": clock.id}, "type": "interrupted", "t": t,
                        "utc": utc_iso(self.utcnow()), "data": data}])
        return clock

    def restore_chips(self, decision_log: DecisionLog, engine, t: float) -> dict[int, int]:
        """Give the engine back the extension chips each seat had used before this start (shot mode with
        an allowance), so a restart or power cut does not hand players their chips again; record what was
        restored (``chips_restored``, which ``log replay`` applies too). Returns the used counts."""
        if self.config["mode"] != "shot" or not self.config["shot.allowance"]:
            return {}
        reset_at_hand = self.config["shot.allowance_reset"] == "hand"
        since = decision_log.db.execute(
            "SELECT MAX(id) FROM records WHERE type IN ('chips_reset', 'chips_restored')").fetchone()[0] or 0
        if reset_at_hand:  # the last new hand bounds it too, so a long log is not read input by input
            try:
                since = max(since, decision_log.db.execute(
                    "SELECT MAX(id) FROM records WHERE type = 'input' AND json_extract(data, '$.event') = 'hand'"
                ).fetchone()[0] or 0)
            except sqlite3.OperationalError:  # an SQLite without JSON functions: read from the reset on
                pass
        kinds = "'extended', 'undo', 'chips_reset', 'chips_restored'" + (", 'input'" if reset_at_hand else "")
        tables = {sid: s.get("table") for sid, s in decision_log.sessions().items()}
        rows = [r for r in decision_log.rows(f"WHERE id >= ? AND type IN ({kinds})", (since,))
                if tables.get(r["session"]) in (None, self.config["table"])]
        used = chips_used(rows, reset_at_hand)
        if used:
            engine.restore_chips(used)
            allowance = self.config["shot.allowance"]
            log.warning("extension chips used before this start, restored from the log: %s",
                        ", ".join(f"seat {seat} {n} of {allowance}" for seat, n in used.items()))
            self.sink.put([{"seq": self._next_seq(), "clock": None, "type": "chips_restored", "t": t,
                            "utc": utc_iso(self.utcnow()),
                            "data": {"used": {str(seat): n for seat, n in used.items()}, "allowance": allowance}}])
        return used

    def update(self, round) -> None:
        """Hand this round's records to the sink."""
        self._state = round.state
        messages = self._messages(round)
        if messages:
            self.sink.put(messages)
        elif hasattr(self.sink, "flush"):
            self.sink.flush()  # what the pipe could not take last time

    def next_wake(self, now: float) -> float | None:
        """When the next checkpoint of the running clock is due."""
        if self._state is None or self._state.phase != RUNNING or self._last_clock_t is None:
            return None
        return self._last_clock_t + self.checkpoint_every

    def stop(self, t: float, state) -> None:
        """A graceful stop: record the exact time the open clock has left (the next start restores it),
        after the records noted since the last round (a refused command acked just before the stop)."""
        now_utc = self.utcnow()
        notes = []
        while self._notes:
            note = self._notes.popleft()
            notes.append({"seq": self._next_seq(), "clock": None, "type": note["type"], "t": note["t"],
                          "utc": utc_iso(now_utc - timedelta(seconds=t - note["t"])), "data": note["data"]})
        if notes:
            self.sink.put(notes)
        if self.current_clock is None or state.phase not in (RUNNING, PAUSED):
            return
        remaining = state.remaining(t)
        self.sink.put([{"seq": self._next_seq(), "clock": self.current_clock, "type": "shutdown", "t": t,
                        "utc": utc_iso(self.utcnow()),
                        "data": {"remaining": remaining, "running": state.phase == RUNNING}}])
        log.info("stopping with a clock open: %.3f s left, recorded", remaining)

    def close(self) -> None:
        """Hand the last records to the writer and wait for it a moment; then release the state directory."""
        import os

        if getattr(self, "_closed", False):
            return
        self._closed = True
        if not self.sink.close():
            log.warning("the decision log writer had not finished at exit (see its messages above)")
        if getattr(self, "lock_fd", None) is not None:
            os.close(self.lock_fd)
            self.lock_fd = None

    def _messages(self, round) -> list[dict]:
        now_utc = self.utcnow()
        # The wall-clock time of monotonic time t, taken once per round (NTP may step the wall clock).
        utc_at = lambda t: utc_iso(now_utc - timedelta(seconds=round.acted_at - t))
        out: list[dict] = []

        def add(clock, kind, t, data):
            out.append({"seq": self._next_seq(), "clock": clock, "type": kind, "t": t, "utc": utc_at(t),
                        "data": data})
            return out[-1]["seq"]

        for t, button in round.held_at_start:
            add(None, "edge", t, {"button": button, "pressed": True, "at_start": True})
        for item in round.arrivals:
            where = {"round": round.now, "after": round.after}
            if isinstance(item, Edge):
                add(None, "edge", item.t, {"button": item.button, "pressed": item.pressed, **where})
            elif isinstance(item, Command):
                seat = {"seat": item.seat} if item.seat is not None else {}  # an extension's player, for the allowance
                add(None, "command", item.t, {"name": item.name, "id": item.id, "sender": item.sender,
                                              "facing_bet": item.facing_bet, **seat, **where})
        sequence = round.sequence
        for index, item in enumerate(sequence):
            if isinstance(item, Input):
                data = item.record()
                data.update(facing_bet=item.facing_bet, street=item.street, round=round.now)
                clock = self._clock_of_input(sequence, index)
                self._last_input = item
            else:
                data = item.record()
                if isinstance(item, Started):
                    self.current_clock = {"seq": self._seq + 1}  # this record's own
                    if self._last_input is not None:
                        data["facing_bet"] = self._last_input.facing_bet
                clock = self.current_clock
                if isinstance(item, Decision):
                    self.current_clock = None
            t = data.pop("t")
            add(clock, data.pop("type"), t, data)
            if clock is not None:
                self._last_clock_t = t
        for fault in round.button_faults:
            add(None, "fault", fault.t, {"fault": fault.kind, "button": fault.button})
        while self._notes:
            note = self._notes.popleft()
            add(None, note["type"], note["t"], note["data"])
        state = round.state
        if (state is not None and state.phase == RUNNING and self.current_clock is not None
                and self._last_clock_t is not None and round.now - self._last_clock_t >= self.checkpoint_every):
            add(self.current_clock, "checkpoint", round.now, {"remaining": state.remaining(round.now)})
            self._last_clock_t = round.now
        return out

    def _clock_of_input(self, sequence, index) -> dict | None:
        """An input belongs to the clock it ends, else the clock it starts, else the current one."""
        for offset, item in enumerate(sequence[index + 1:], start=1):
            if isinstance(item, Input):
                break
            if isinstance(item, Decision):
                return self.current_clock
            if isinstance(item, Started):
                return {"seq": self._seq + 1 + offset}
        return self.current_clock


def open_recorder(config, state_dir, device, utcnow=lambda: datetime.now(timezone.utc),
                  on_written=None) -> Recorder | None:
    """Lock ``state_dir``, import records a failed writer kept, archive old records, recover an
    interrupted clock, start the writer process and the session.

    ``on_written`` (the floor network's link) is told of the rows each commit stored, each with the
    recorder's ``boot``; without it the writer does not report them.

    A second device on the same state directory is refused (:class:`~shotclock.errors.LogError`).
    When the log cannot be opened the device runs on, shows it on screen, and the writer keeps
    trying to open it.
    """
    try:
        lock_fd = lock_state_dir(state_dir)
    except OSError as exc:  # the directory cannot even be made (a full disk, a file in the way)
        log.error("cannot use the state directory %s (%s); the device runs on and keeps trying", state_dir, exc)
        device.loop.set_fault(LogFault(LOG_UNAVAILABLE, str(exc)))
        lock_fd = None  # the writer takes the lock itself once it can
    now = device.loop.clock()
    recorder_log = None
    try:
        if lock_fd is None:
            raise LogError(f"no state directory {state_dir}")
        recorder_log = DecisionLog(state_dir)
        import_pending(recorder_log)
        try:
            recorder_log.archive(config["log.keep_days"])
        except (sqlite3.Error, OSError) as exc:
            log.warning("cannot archive old records: %s", exc)
    except (LogError, sqlite3.Error, OSError) as exc:
        log.error("%s; the device runs on and keeps trying to open the log", exc)
        device.loop.set_fault(LogFault(LOG_UNAVAILABLE, str(exc)))
        recorder_log = None

    recorder = None

    def on_status(status):
        if "written" in status:  # the rows as stored (only asked for when the floor network sends them)
            recorder.on_written([dict(row, boot=recorder.boot) for row in status["written"]])
            return
        fault = status.get("fault")
        if fault is None:
            device.loop.clear_fault(LogFault)
        else:
            device.loop.set_fault(LogFault(fault, status.get("detail", "")))

    writer = WriterProcess(state_dir, on_status, lock_fd=lock_fd, report_rows=on_written is not None)
    recorder = Recorder(writer, config, utcnow, boot=getattr(device, "boot", None), on_written=on_written)
    recorder.lock_fd = lock_fd
    recorder.state_dir = Path(state_dir)
    recorder.first_id = recorder_log.next_id() if recorder_log is not None else 1
    table = getattr(device, "table", None) or getattr(device.loop, "table", None)
    recorder.table_start = getattr(table, "start", None)
    recorder.start_session(now)
    if recorder_log is not None:
        try:
            recorder.recover(recorder_log, device.engine, now)
            recorder.restore_chips(recorder_log, device.engine, now)
        except (LogError, sqlite3.Error) as exc:
            log.error("cannot read the last clock from the decision log (%s); nothing restored", exc)
        finally:
            recorder_log.close()
    log.info("decision log: %s", Path(state_dir) / "shotclock.db")
    return recorder
