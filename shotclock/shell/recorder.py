"""Writes every round into the decision log, and brings back a clock a power cut interrupted."""

from __future__ import annotations

import collections
import logging
import sqlite3
from datetime import datetime, timedelta, timezone

from shotclock import __version__
from shotclock.adapters.log import DecisionLog, utc_iso
from shotclock.core.clocks import clocks_from, remaining_at_last_record
from shotclock.core.events import Decision, Started
from shotclock.errors import LogError
from shotclock.core.faults import LOG_UNAVAILABLE, LOG_WRITE_FAILED, LogFault
from shotclock.core.table import Input

log = logging.getLogger("shotclock.recorder")
BACKLOG_LIMIT = 10_000


class Recorder:
    """A loop listener that appends each round's inputs, outputs and button faults to the log.

    :param log_: the open decision log.
    :param config: the configuration in force (stored with the session).
    :param on_fault: called with a message (or None when it works again) for the screen.
    :param utcnow: the wall clock (tests pass a fixed one).
    """

    def __init__(self, log_: DecisionLog, config, on_fault=lambda message: None,
                 utcnow=lambda: datetime.now(timezone.utc), boot: str | None = None):
        self.log = log_
        self.boot = boot
        self.on_written = lambda rows: None  # the network's outbox is told of each commit
        self._notes: collections.deque[dict] = collections.deque()
        self.config = config
        self.on_fault = on_fault
        self.utcnow = utcnow
        self.current_clock: int | None = None
        self._last_input: Input | None = None
        self._backlog: list[dict] = []

    def start_session(self, t: float) -> int:
        """Record the session: table, mode, the whole configuration and the version."""
        data = {"table": self.config["table"], "mode": self.config["mode"], "version": __version__,
                "config": self.config.values}
        if self.boot:
            data["boot"] = self.boot
        return self.log.new_session(t, utc_iso(self.utcnow()), data)

    def note(self, record: dict) -> None:
        """Log a record (``t``, ``type``, ``data``) from another thread with the next round (thread-safe)."""
        self._notes.append(record)

    def recover(self, engine, t: float):
        """If the log's newest clock has no decision, restore it paused and record it as interrupted.

        Returns the interrupted :class:`~shotclock.core.clocks.Clock`, or None.
        """
        row = self.log.db.execute("SELECT MAX(clock) FROM records").fetchone()
        if row[0] is None:
            return None
        clocks = clocks_from(self.log.rows("WHERE clock = ?", (row[0],)),
                             {sid: s["mode"] for sid, s in self.log.sessions().items()})
        if not clocks or not clocks[0].open:
            return None
        clock = clocks[0]
        remaining = remaining_at_last_record(clock)
        data = {"remaining": remaining, "facing_bet": bool(clock.facing_bet), "street": clock.street,
                "restored": clock.mode == engine.mode}
        if clock.mode == engine.mode:
            length = clock.seconds + sum(r["seconds"] * (1 if r["type"] == "extended" else -1)
                                         for r in clock.records if r["type"] in ("extended", "undo"))
            engine.restore_paused(t, remaining, bool(clock.facing_bet), clock.street, clock.extensions, length)
            self.current_clock = clock.id
            log.warning("clock %d was interrupted (power cut?) with %.1f s left: shown paused; "
                        "the floor resumes or cancels it", clock.id, remaining)
        else:
            log.warning("clock %d was interrupted but the mode changed to %s: not restored", clock.id, engine.mode)
        self.log.append([{"session": self.log.session, "clock": clock.id, "type": "interrupted", "t": t,
                          "utc": utc_iso(self.utcnow()), "data": data}])
        return clock

    def update(self, round) -> None:
        """Append this round's records; on a write failure keep them and retry next round."""
        records = self._records(round)
        while self._notes:
            note = self._notes.popleft()
            records.append({"session": self.log.session, "clock": None, "type": note["type"], "t": note["t"],
                            "utc": utc_iso(self.utcnow()), "data": note["data"]})
        if not records and not self._backlog:
            return
        pending = self._backlog + records
        try:
            self.log.append(pending)
        except sqlite3.Error as exc:
            self._backlog = pending[-BACKLOG_LIMIT:]
            log.error("cannot write the decision log (%s); %d records kept to retry", exc, len(self._backlog))
            self.on_fault(str(exc))
            return
        self.on_written([dict(row, boot=self.boot) for row in self.log.last_written])
        if self._backlog:
            log.info("decision log writable again: %d held records written", len(self._backlog))
            self.on_fault(None)
        self._backlog = []

    def _records(self, round) -> list[dict]:
        now_utc = self.utcnow()
        # The wall-clock time of monotonic time t, taken once per round (NTP may step the wall clock).
        utc_at = lambda t: utc_iso(now_utc - timedelta(seconds=round.acted_at - t))
        session = self.log.session
        next_id = self.log.next_id() + len(self._backlog)
        out: list[dict] = []
        sequence = round.sequence
        for index, item in enumerate(sequence):
            record_id = next_id + len(out)
            if isinstance(item, Input):
                data = item.record()
                data.update(facing_bet=item.facing_bet, street=item.street)
                clock = self._clock_of_input(sequence, index, record_id)
                self._last_input = item
            else:
                data = item.record()
                if isinstance(item, Started):
                    self.current_clock = record_id
                    if self._last_input is not None:
                        data["facing_bet"] = self._last_input.facing_bet
                clock = self.current_clock
                if isinstance(item, Decision):
                    self.current_clock = None
            t = data.pop("t")
            out.append({"session": session, "clock": clock, "type": data.pop("type"), "t": t, "utc": utc_at(t),
                        "data": data})
        for fault in round.button_faults:
            out.append({"session": session, "clock": None, "type": "fault", "t": fault.t,
                        "utc": utc_at(fault.t),
                        "data": {"fault": fault.kind, "button": fault.button}})
        return out

    def _clock_of_input(self, sequence, index, record_id) -> int | None:
        """An input belongs to the clock it ends, else the clock it starts, else the current one."""
        for offset, item in enumerate(sequence[index + 1:], start=1):
            if isinstance(item, Input):
                break
            if isinstance(item, Decision):
                return self.current_clock
            if isinstance(item, Started):
                return record_id + offset
        return self.current_clock


def open_recorder(config, state_dir, device, utcnow=lambda: datetime.now(timezone.utc)) -> Recorder | None:
    """Open the log in ``state_dir``, archive old records, start a session and recover an interrupted clock.

    When the log cannot be opened the device runs on without it and says so on screen.
    """
    try:
        decision_log = DecisionLog(state_dir)
    except LogError as exc:
        log.error("%s; running without a decision log", exc)
        device.loop.set_fault(LogFault(LOG_UNAVAILABLE, str(exc)))
        return None
    try:
        decision_log.archive(config["log.keep_days"])
    except (sqlite3.Error, OSError) as exc:
        log.warning("cannot archive old records: %s", exc)

    def on_fault(message):
        if message is None:
            device.loop.clear_fault(LogFault)
        else:
            device.loop.set_fault(LogFault(LOG_WRITE_FAILED, message))

    recorder = Recorder(decision_log, config, on_fault, utcnow, boot=getattr(device, "boot", None))
    now = device.loop.clock()
    try:
        recorder.start_session(now)
        recorder.recover(device.engine, now)
    except sqlite3.Error as exc:
        log.error("cannot write the decision log %s: %s; running without it", decision_log.path, exc)
        on_fault(str(exc))
        return None
    log.info("decision log: %s", decision_log.path)
    return recorder
