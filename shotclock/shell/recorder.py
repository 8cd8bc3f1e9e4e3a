"""Turns every round into decision-log records, and brings back a clock a crash or power cut interrupted.

The :class:`Recorder` runs on the loop's thread but does no I/O there: it builds the records
and hands them to a sink -- the log writer process (:class:`~shotclock.adapters.logwriter.WriterProcess`)
on the device, or :class:`DirectSink` where a test wants to read the log at once.
"""

from __future__ import annotations

import collections
import logging
import os
import sqlite3
from datetime import datetime, timezone
from pathlib import Path

from shotclock import __version__
from shotclock.adapters.log import DecisionLog, lock_state_dir, utc_iso
from shotclock.adapters.logwriter import StreamWriter, WriterProcess, heard, import_pending, lost_message
from shotclock.core.clocks import chips_used, clocks_from
from shotclock.core.engine import PAUSED, RUNNING
from shotclock.core.faults import LOG_UNAVAILABLE, LOG_WRITE_FAILED, LogFault
from shotclock.core.log_records import Alive, ClockRef, LogRecord, SeatsData
from shotclock.core.records import RecordBuilder, SessionUtc
from shotclock.core.restore import CHECKPOINT_SECONDS, Interrupted, plan_recovery
from shotclock.errors import LogError

log = logging.getLogger("shotclock.recorder")


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
        self.backlog: list = []
        self.alive: Alive | None = None  # the last heartbeat (for die())

    @property
    def log(self) -> DecisionLog:
        """The log written to."""
        return self.stream.log

    def put(self, messages: list) -> None:
        """Write ``messages`` (:mod:`~shotclock.core.log_records`' Structs, after any held back)."""
        for msg in messages:
            self.alive = heard(self.alive, msg)
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

    def die(self, utc: str, silent_for: float = 0.0) -> None:
        """What the writer process records when the device dies ``silent_for`` seconds after its last
        heartbeat (tests of a crash): the ``lost`` record, dated ``utc``."""
        if self.alive is not None:
            self.put([lost_message(self.alive, silent_for, utc)])

    def close(self, timeout: float = 0) -> bool:
        """Close the log; True when nothing was left unwritten."""
        self.stream.log.close()
        return not self.backlog


class Recorder:
    """A loop listener that hands each round's records to the log writer.

    What the records are -- and the clock numbering, checkpoints and heartbeats -- is decided by
    the pure :class:`~shotclock.core.records.RecordBuilder`; what a restart restores by
    :mod:`shotclock.core.restore`. This class adds the wall clock, the sink and the log's reading.

    :param sink: where the records go (``put(messages)``).
    :param config: the configuration in force (stored with the session).
    :param utcnow: the wall clock (tests pass a fixed one).
    :param checkpoint_every: seconds between records while a clock runs (a power cut then
        restores at most this much more time than the player had).
    :param on_written: told of the rows each commit stored (the floor network's link), or None.
    :param clock: the table's monotonic clock, read with each wall-clock reading (None: the caller's time is
        taken as the reading's; tests that drive both clocks by hand).
    """

    failure_fault = LogFault(LOG_WRITE_FAILED, "records could not be written")  # the loop shows it while update fails

    def __init__(self, sink, config, utcnow=lambda: datetime.now(timezone.utc),
                 checkpoint_every: float = CHECKPOINT_SECONDS, boot: str | None = None, on_written=None,
                 clock=None):
        self.sink = sink
        self.clock = clock
        self.boot = boot  # this run's id on the floor network
        self.on_written = on_written or (lambda rows: None)  # called from the writer's status thread
        self._notes: collections.deque[dict] = collections.deque()
        self._note_sources: list = []  # each (now, final) -> records due, e.g. a command flood's summaries
        self.state_dir: Path | None = None
        self.table_start: float | None = None
        self.first_id = 1  # the id this session's record gets (when the log could be read at start)
        self.config = config
        self.utcnow = utcnow
        self.builder = RecordBuilder(checkpoint_every)
        self._utc = SessionUtc()  # records' utc never goes back within the session, whatever NTP does
        self._commit_listeners: list = []

    @property
    def checkpoint_every(self) -> float:
        """Seconds between records while a clock runs."""
        return self.builder.checkpoint_every

    @property
    def current_clock(self) -> ClockRef | None:
        """The open clock's reference in the stream (its start's stream number, or its record id)."""
        return self.builder.current_clock

    @property
    def handed_seq(self) -> int:
        """The stream number of the newest record handed to the writer (its commit is reported to the
        :meth:`add_commit_listener` listeners)."""
        return self.builder.seq

    def add_commit_listener(self, listener) -> None:
        """``listener(seq)`` is called (from the writer's status thread) once the log has committed every record
        up to stream number ``seq`` with its kind's sync (adapters/log.py); ``listener(None)`` when the log
        cannot be written (a fault the screen shows), so nothing waits for a commit that may not come."""
        self._commit_listeners.append(listener)

    def committed(self, seq: int | None) -> None:
        """The writer committed up to ``seq`` (None: it failed); tells the listeners."""
        for listener in self._commit_listeners:
            listener(seq)

    def start_session(self, t: float) -> None:
        """Record the session: table, mode, the whole configuration, the version and the boot id."""
        data = {"table": self.config.table, "mode": self.config.mode, "version": __version__,
                "config": self.config.values, "boot_id": boot_id()}
        if self.boot:
            data["boot"] = self.boot
        if self.table_start is not None:
            data["table_start"] = self.table_start  # where the table's clock began (log replay starts there)
        self.sink.put(self.builder.session(t, self._utc_at(t)(t), data))

    def add_note_source(self, source) -> None:
        """``source(now, final)`` returns records (``t``, ``type``, ``data``) due at ``now``, or all of
        them when ``final`` (the device stops); the recorder logs them with each round."""
        self._note_sources.append(source)

    def note(self, record: dict) -> None:
        """Log a record (``t``, ``type``, ``data``) from another thread with the next round (thread-safe)."""
        self._notes.append(record)

    def recover(self, decision_log: DecisionLog, table, t: float):
        """If the log's newest clock has no decision, restore it paused (on ``table``, a
        :class:`~shotclock.core.table.Table`) with the time it had when the device stopped, and record
        it as interrupted (see :mod:`shotclock.core.restore`). The floor decides every restored clock.
        Returns the interrupted :class:`~shotclock.core.clocks.Clock`, or None."""
        rows = decision_log.newest_clock_rows()
        if not rows:
            return None
        sessions = decision_log.sessions()
        [clock] = clocks_from(rows)
        plan = plan_recovery(clock, sessions.get(clock.session, {}).get("table"), self.config.table,
                             table.engine.mode)
        if plan is None:
            return None
        point = plan.point
        if plan.restored:
            table.restore(point, t)
            log.warning("clock %d was interrupted (%s) with %.3f s left (%s): shown paused; "
                        "the floor resumes or cancels it", clock.id, point.cause.replace("_", " "), point.remaining,
                        point.how)
        elif plan.other_table is not None:
            log.warning("clock %d of table %r was left open (%s); this is table %r: not restored", clock.id,
                        plan.other_table, point.cause.replace("_", " "), self.config.table)
        else:
            log.warning("clock %d was interrupted but the mode changed to %s: not restored", clock.id,
                        table.engine.mode)
        self.sink.put([self.builder.interrupted(clock.id, t, self._utc_at(t)(t), Interrupted.of(plan), plan.restored)])
        return clock

    def restore_chips(self, decision_log: DecisionLog, table, t: float) -> dict[int, int]:
        """Give the table back the extension chips each seat had used before this start (shot mode with
        an allowance), so a restart or power cut does not hand players their chips again; record what was
        restored (``chips_restored``, which ``log replay`` applies too). Returns the used counts."""
        if self.config.mode != "shot" or not self.config.shot.allowance:
            return {}
        reset_at_hand = self.config.shot.allowance_reset == "hand"
        tables = {sid: s.get("table") for sid, s in decision_log.sessions().items()}
        rows = [r for r in decision_log.chip_rows(reset_at_hand)
                if tables.get(r["session"]) in (None, self.config.table)]
        used = chips_used(rows, reset_at_hand)
        if used:
            table.restore_chips(used)
            allowance = self.config.shot.allowance
            log.warning("extension chips used before this start, restored from the log: %s",
                        ", ".join(f"seat {seat} {n} of {allowance}" for seat, n in used.items()))
            self.sink.put([self.builder.message(None, "chips_restored", t, self._utc_at(t)(t),
                                                {"used": {str(seat): n for seat, n in used.items()},
                                                 "allowance": allowance})])
        return used

    def restore_seats(self, decision_log: DecisionLog, table, t: float) -> bool:
        """Give the table back its seats, names, hand, time banks and chips as the log last kept them (seat
        tracking), and record what was restored (``seats_restored``, which ``log replay`` applies too)."""
        if not self.config.seats.track:
            return False
        tables = {sid: s.get("table") for sid, s in decision_log.sessions().items()}
        rows = [r for r in decision_log.rows("WHERE type IN ('seats', 'seats_restored') AND id >= "
                                             "(SELECT COALESCE(MAX(id), 0) FROM records WHERE type IN "
                                             "('seats', 'seats_restored'))")
                if tables.get(r["session"]) in (None, self.config.table)]
        if not rows:
            return False
        data = {k: rows[-1].get(k) for k in SeatsData.__struct_fields__}
        if not table.restore_seats(data):
            log.warning("the seats in the log do not fit this table (seats.count changed?): not restored")
            return False
        log.warning("seats restored from the log: %d players, button at %s, %s on turn", len(data["players"] or {}),
                    data["button"], data["turn"])
        self.sink.put([self.builder.message(None, "seats_restored", t, utc_iso(self.utcnow()), data)])
        return True

    def restore_levels(self, decision_log: DecisionLog, table, t: float) -> bool:
        """Give the table back its tournament level, the hand count of the level and the hands per level (and a level
        that waited for the next hand) as the log last kept them, and record what was restored (``level_restored``,
        which ``log replay`` applies too). Done before the clock is recovered: it runs on the level's rules."""
        from shotclock.core.levels import RECORD_TYPES, restored_record, rhythm_from_records

        kinds = ", ".join(f"'{k}'" for k in RECORD_TYPES)
        tables = {sid: s.get("table") for sid, s in decision_log.sessions().items()}
        rows = [r for r in decision_log.rows(f"WHERE type IN ({kinds}) AND id >= (SELECT COALESCE(MAX(id), 0) FROM "
                                             "records WHERE type IN ('level', 'level_restored'))")
                if tables.get(r["session"]) in (None, self.config.table)]
        try:
            found = rhythm_from_records(rows)
        except (ValueError, TypeError, KeyError) as exc:
            log.warning("the level in the log cannot be read (%s): the table starts with no level", exc)
            return False
        if found is None:
            return False
        data = restored_record(*found)
        table.restore_levels(data)
        current, pending = found
        log.warning("level restored from the log: level %s, hand %d%s%s", current.level, current.hand,
                    f" of {current.hands}" if current.hands else "",
                    f"; level {pending.level} waits for the next hand" if pending is not None else "")
        self.sink.put([self.builder.message(None, "level_restored", t, self._utc_at(t)(t), data)])
        return True
    def restore_tournament(self, decision_log: DecisionLog, table, t: float) -> list:
        """Give the table back hand-for-hand and the named rule set as the log's last ``hand_for_hand`` and
        ``rule_set`` records kept them (this table's), and record what was restored (the same record types, with
        ``why`` "restored"), so a table restarted while it waited for the floor's release waits on and starts
        no clock. Returns the outputs."""
        tables = {sid: s.get("table") for sid, s in decision_log.sessions().items()}
        restored = []
        for kind, restore in (("hand_for_hand", table.restore_hand_for_hand), ("rule_set", table.restore_rule_set)):
            rows = decision_log.rows("WHERE id = (SELECT MAX(id) FROM records WHERE type = ?)", (kind,))
            if rows and tables.get(rows[-1]["session"]) in (None, self.config.table):
                restored += restore(rows[-1], t)
        for out in restored:
            data = out.record()
            said = log.info if data.get("on") is False else log.warning  # (off: only the room's state taken last)
            said("restored from the log: %s", ", ".join(f"{k} {v}" for k, v in data.items() if k != "t"))
            self.sink.put([self.builder.message(None, data.pop("type"), t, utc_iso(self.utcnow()),
                                                {k: v for k, v in data.items() if k != "t"})])
        return restored

    def update(self, round) -> None:
        """Hand this round's records to the sink."""
        messages = self.builder.round(round, self._utc_at(round.acted_at))
        messages += self._take_notes(round.acted_at)
        if messages:
            self.sink.put(messages)
        elif hasattr(self.sink, "flush"):
            self.sink.flush()  # what the pipe could not take last time

    def next_wake(self, now: float) -> float | None:
        """When the next checkpoint or heartbeat of the running clock is due."""
        return self.builder.next_wake(now)

    def stop(self, t: float, state) -> None:
        """A graceful stop: record the exact time the open clock has left (the next start restores it),
        after the records noted since the last round (a refused command acked just before the stop)."""
        messages = self._take_notes(t, final=True) + self.builder.stop(t, state, self._utc_at(t)(t))
        if messages:
            self.sink.put(messages)
        if self.current_clock is not None and state.phase in (RUNNING, PAUSED):
            log.info("stopping with a clock open: %.3f s left, recorded", state.remaining(t))

    def close(self) -> None:
        """Hand the last records to the writer and wait for it a moment; then release the state directory."""
        if getattr(self, "_closed", False):
            return
        self._closed = True
        if not self.sink.close():
            log.warning("the decision log writer had not finished at exit (see its messages above)")
        if getattr(self, "lock_fd", None) is not None:
            os.close(self.lock_fd)
            self.lock_fd = None

    def _utc_at(self, t_now: float):
        """The wall-clock time of table time t, the wall clock read once now; never earlier than a record before
        it in this session (:class:`~shotclock.core.records.SessionUtc`). With a ``clock`` the table time of
        that reading is read with it: ``t_now`` (when the caller's work began) may be long past by now -- the
        session's ``t`` is taken before the log is opened and the writer process started, a second or two on a
        Pi -- and paired with a later wall reading it would date every record that much late."""
        wall = self.utcnow().timestamp()
        if self.clock is not None:
            t_now = self.clock()
        return lambda t: utc_iso(datetime.fromtimestamp(self._utc.at(t, wall, t_now), timezone.utc))

    def _take_notes(self, t_now: float, final: bool = False) -> list[LogRecord]:
        notes = []
        while self._notes:
            notes.append(self._notes.popleft())
        for source in self._note_sources:
            notes.extend(source(t_now, final))
        return self.builder.notes(notes, self._utc_at(t_now)) if notes else []


def open_recorder(config, state_dir, device, utcnow=lambda: datetime.now(timezone.utc),
                  on_written=None, make_writer=None) -> Recorder | None:
    """Lock ``state_dir``, import records a failed writer kept, archive old records, recover an
    interrupted clock, start the writer process and the session.

    ``on_written`` (the floor network's link) is told of the rows each commit stored, each with the
    recorder's ``boot``; without it the writer does not report them.

    ``make_writer`` makes the sink (None: a :class:`~shotclock.adapters.logwriter.WriterProcess`; same arguments); the
    fleet's simulated tables share one writer thread (:mod:`shotclock.floor.fleet_writer`).

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
            recorder_log.archive(config.log.keep_days)
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
            if status.get("seq") is not None:
                recorder.committed(status["seq"])
            return
        fault = status.get("fault")
        if fault is None:
            device.loop.clear_fault(LogFault)
        else:
            device.loop.set_fault(LogFault(fault, status.get("detail", "")))
            if recorder is not None:  # (a writer that fails at once may say so before the recorder is made)
                recorder.committed(None)

    writer = (make_writer or WriterProcess)(state_dir, on_status, lock_fd=lock_fd, report_rows=on_written is not None)
    recorder = Recorder(writer, config, utcnow, boot=getattr(device, "boot", None), on_written=on_written,
                        clock=device.loop.clock)
    recorder.lock_fd = lock_fd
    recorder.state_dir = Path(state_dir)
    recorder.first_id = recorder_log.next_id() if recorder_log is not None else 1
    table = getattr(device, "table", None) or getattr(device.loop, "table", None)
    recorder.table_start = getattr(table, "start", None)
    recorder.start_session(now)
    if recorder_log is not None:
        try:
            # The rules first (the level, then a rule set layered on it: each retunes the idle engine), then the clock
            # a stop interrupted, under them.
            recorder.restore_levels(recorder_log, device.loop.table, now)
            recorder.restore_tournament(recorder_log, device.loop.table, now)
            recorder.recover(recorder_log, device.loop.table, now)
            recorder.restore_chips(recorder_log, device.loop.table, now)
            recorder.restore_seats(recorder_log, device.loop.table, now)
        except (LogError, sqlite3.Error) as exc:
            log.error("cannot read the last clock from the decision log (%s); nothing restored", exc)
        finally:
            recorder_log.close()
    log.info("decision log: %s", Path(state_dir) / "shotclock.db")
    return recorder
