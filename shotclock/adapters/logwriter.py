"""The decision log's writer: a process of its own, so the log never delays a beep or a ruling.

The device's loop hands each round's records to :class:`WriterProcess`, which writes them as
JSON lines into a pipe without blocking (what the pipe cannot take at once waits in memory
for the next round). A separate process reads the pipe and writes SQLite with
:class:`StreamWriter`. Because it is a process, not a thread, the records handed over are
written even when the device is killed (``kill -9``, a crash): the writer reads to the end
of the pipe, then exits.

The writer survives what a disk does: a locked database (another process holding it), a
full disk, a database deleted while running (it is recreated), a log that cannot be opened
at all (it retries). It reports each fault, and its end, on its standard output as one JSON
line, for the screen. Records it still cannot write when the device has stopped are not
dropped silently: after a few seconds of retrying they go to ``pending-*.jsonl`` in the
state directory, and the next start writes them into the log before anything else.

The pipe's messages (one JSON object a line; declared in :mod:`shotclock.core.log_records`):

* ``{"seq": N, "type": "session", "t", "utc", "data"}`` -- starts the stream: this record's id
  is the session of every record after it.
* ``{"seq": N, "clock": REF, "type", "t", "utc", "data"}`` -- a record; ``REF`` is None,
  ``{"seq": M}`` (the clock started by the stream's record M) or ``{"id": ID}`` (a clock
  already in the log, such as one restored after a power cut).
* ``{"control": "alive", "t", "clock": REF}`` -- the device's heartbeat while a clock runs (and
  once more when it stops running): kept in memory, never stored.
* ``{"control": "bye"}`` -- the device stops on purpose: the end of the pipe is no death.

When the pipe ends without a ``bye`` the device died (``kill -9``, a crash, the watchdog's
kill): the writer records a ``lost`` record at the moment the device went silent, on the
device's clock, so that the next start gives the player back the time the clock had then
(:mod:`shotclock.core.restore`).
"""

from __future__ import annotations

import logging
import os
import signal
import subprocess
import sys
import threading
import time
from collections import deque
from datetime import datetime, timedelta, timezone
from pathlib import Path

import msgspec

from shotclock.adapters.log import utc_iso
from shotclock.core.codec import decode, encode, text
from shotclock.core.log_records import Alive, Bye, LogRecord, LostData, Message, as_message, read_message
from shotclock.core.restore import HEARTBEAT

log = logging.getLogger("shotclock.logwriter")

RETRY_SECONDS = 0.5  # between attempts to write or to open the log
DRAIN_SECONDS = 3.0  # after the device stopped: how long to retry before writing pending-*.jsonl
BUSY_TIMEOUT = 1.0  # how long one write waits for another process's lock
PENDING_GLOB = "pending-*.jsonl"


def lost_message(alive: Alive, silent_for: float, utc: str) -> LogRecord:
    """The ``lost`` record for a device whose pipe ended without a ``bye``.

    ``alive``: its last heartbeat (``t`` on the device's clock, ``clock`` the clock then running);
    ``silent_for``: seconds from that heartbeat to the end of the pipe. A device killed at once
    (``kill -9``) ended the pipe within a heartbeat: it stopped then. One silent for longer had hung
    first (the watchdog killed it later): it stopped at its last heartbeat, at most one heartbeat
    early, in the player's favour.
    """
    died = alive.t + silent_for if silent_for <= HEARTBEAT * 1.5 else alive.t
    return LogRecord(seq=None, clock=alive.clock, type="lost", t=died, utc=utc,
                     data=LostData(heard_at=alive.t, silent_for=round(silent_for, 6)))


def heard(alive: Alive | None, msg: Message) -> Alive | None:
    """The last heartbeat after ``msg`` came down the pipe: a heartbeat replaces it; a ``decision`` of the
    clock it names means no clock runs any more (the device may die before its next heartbeat says so, and
    a ``lost`` record must never be charged to a clock that has its ruling)."""
    if isinstance(msg, Alive):
        return msg
    if alive is not None and alive.clock is not None and isinstance(msg, LogRecord) and msg.type == "decision" \
            and msg.clock == alive.clock:
        return msgspec.structs.replace(alive, clock=None)
    return alive


class StreamWriter:
    """Writes the pipe's messages into a :class:`~shotclock.adapters.log.DecisionLog`, resolving
    stream references (``seq``) into record ids. Used by the writer process, by the import of
    ``pending-*.jsonl`` and, in-process, by tests.

    :param decision_log: an open, writable log.
    """

    def __init__(self, decision_log):
        self.log = decision_log
        self.ids: dict[int, int] = {}
        self.session_id: int | None = None
        self.session_message: LogRecord | None = None
        # After the file was deleted and made anew, a clock reference by record id (a clock restored at
        # start) names a record of the lost file: such records keep no clock rather than a wrong one.
        self.ids_lost = False

    def write(self, messages: list[Message | dict]) -> None:
        """Append ``messages`` in one commit (all or none); raises sqlite3.Error and leaves the state as it was."""
        messages = [m for m in map(as_message, messages) if isinstance(m, LogRecord)]  # heartbeats are never stored
        if not messages:
            return
        head = self.log.head_id
        ids, session = dict(self.ids), self.session_id
        records = []
        if session is None and messages[0].type != "session" and self.session_message is not None:
            again = self.session_message
            messages = [msgspec.structs.replace(again, data={**_plain(again.data), "reopened": True})] + messages
        for index, msg in enumerate(messages):  # ids first: an input refers to the clock it starts, just after it
            if msg.seq is not None:
                ids[msg.seq] = head + 1 + index
        session_message = self.session_message
        for index, msg in enumerate(messages):
            if msg.type == "session":
                session, session_message = head + 1 + index, msg
            records.append({"session": session if session is not None else head + 1 + index,
                            "clock": self._resolve(msg.clock, ids, self.ids_lost), "type": msg.type,
                            "t": msg.t, "utc": msg.utc, "data": _plain(msg.data)})
        self.log.append(records)
        self.ids, self.session_id, self.session_message = ids, session, session_message

    @staticmethod
    def _resolve(ref, ids: dict[int, int], ids_lost: bool = False) -> int | None:
        if ref is None:
            return None
        if ref.id is not msgspec.UNSET:
            return None if ids_lost else ref.id
        return ids.get(ref.seq)

    def reopened(self, decision_log) -> None:
        """Go on in a new log (the old one was deleted): the session is written again first, and the
        records of a clock that started in the lost file keep no clock id (its ids mean nothing here)."""
        self.log = decision_log
        self.session_id = None
        self.ids = {}
        self.ids_lost = True


def _plain(data) -> dict:
    """A record's data as the log stores and hashes it: a Struct's fields that are set (what the pipe carries)."""
    return data if isinstance(data, dict) else msgspec.to_builtins(data)


def _line(message: Message | dict) -> bytes:
    """One message as a line of the writer's pipe (UTF-8 JSON). Text that is not valid Unicode (a lone surrogate:
    the edge refuses it, core/fields.py) is written with "?" in its place and said once, never raised: one bad
    field must not cost the round's other records, a decision among them."""
    try:
        return encode(message) + b"\n"
    except UnicodeEncodeError:
        if not getattr(_line, "said", False):
            _line.said = True
            log.error("a %s record held text that is not valid Unicode; written with '?' in its place",
                      getattr(message, "type", None) or type(message).__name__.lower())
        return encode(_replaced(msgspec.to_builtins(message))) + b"\n"


def _replaced(value):
    """``value`` with each string's lone surrogates as "?" (what the encoder cannot write as UTF-8)."""
    if isinstance(value, str):
        return value.encode("utf-8", "replace").decode()
    if isinstance(value, dict):
        return {_replaced(k): _replaced(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_replaced(v) for v in value]
    return value


class WriterProcess:
    """The device's side of the writer: hands messages to the process, never blocking.

    :param state_dir: the log's directory.
    :param on_status: called (from a reader thread) with each status the writer reports:
        ``{"fault": "unavailable"|"write_failed", "detail": …}`` or ``{"fault": None}``.
    :param lock_fd: the state directory's locked descriptor; the writer inherits it, so the lock is
        held until the writer is done. None: the writer takes the lock itself once it can.
    :param report_rows: also report each commit's rows as stored and the newest stream number among them
        (``{"written": rows, "seq": N}``; the floor network sends the rows on, and acks a floor command once
        its records are committed).
    """

    def __init__(self, state_dir, on_status=lambda status: None, lock_fd: int | None = None,
                 report_rows: bool = False):
        self.on_status = on_status
        args = [sys.executable, "-m", "shotclock.adapters.logwriter", str(state_dir),
                "-" if lock_fd is None else str(lock_fd)] + (["rows"] if report_rows else [])
        self.proc = subprocess.Popen(
            args, stdin=subprocess.PIPE, stdout=subprocess.PIPE, pass_fds=() if lock_fd is None else (lock_fd,),
            start_new_session=True)  # a Ctrl-C in the terminal stops the device, the writer drains
        self._fd = self.proc.stdin.fileno()
        os.set_blocking(self._fd, False)
        self._buffer = bytearray()
        self._status = threading.Thread(target=self._read_status, name="log-status", daemon=True)
        self._status.start()

    def put(self, messages: list[Message]) -> None:
        """Queue ``messages`` for the writer: one non-blocking write to the pipe, the rest kept for later."""
        for msg in messages:
            self._buffer += _line(msg)
        self.flush()

    def flush(self) -> None:
        """Write what the pipe takes now (never blocks)."""
        while self._buffer:
            try:
                n = os.write(self._fd, self._buffer)
            except BlockingIOError:
                return
            except OSError as exc:  # the writer died: keep the records, say so once
                if self._buffer and not getattr(self, "_dead", False):
                    self._dead = True
                    log.error("the log writer stopped (%s); records are kept in memory", exc)
                    self.on_status({"fault": "write_failed", "detail": "log writer stopped"})
                return
            del self._buffer[:n]

    @property
    def pending_bytes(self) -> int:
        """Bytes not yet handed to the writer."""
        return len(self._buffer)

    def _read_status(self) -> None:
        for line in self.proc.stdout:
            try:
                status = decode(line)
            except ValueError:
                continue
            self.on_status(status)

    def close(self, timeout: float = DRAIN_SECONDS + 2) -> bool:
        """Hand over everything, close the pipe, and wait up to ``timeout`` for the writer to finish.

        Returns True when it finished; otherwise it goes on in the background (it holds the
        state directory's lock until it is done, so the next start waits for it).
        """
        self.put([Bye()])  # a stop on purpose: the writer records no death
        os.set_blocking(self._fd, True)
        try:
            if self._buffer:
                self.proc.stdin.write(bytes(self._buffer))
                self._buffer.clear()
            self.proc.stdin.close()
        except OSError as exc:
            log.error("cannot hand the last records to the log writer: %s", exc)
        try:
            self.proc.wait(timeout)
        except subprocess.TimeoutExpired:
            log.warning("the log writer is still writing after %.0f s; it finishes in the background", timeout)
            return False
        self._status.join(1)
        return self.proc.returncode == 0


# -- the writer process ----------------------------------------------------------------------------


class _Inbox:
    """The pipe's messages, read by a thread so that the pipe never fills while SQLite waits."""

    def __init__(self, stream):
        self.messages: deque[LogRecord] = deque()
        self.eof = False
        self.eof_at: float | None = None
        self.alive: Alive | None = None  # the device's last heartbeat
        self.alive_at: float | None = None  # when it came, on this process's clock
        self.bye = False  # the device said it stops on purpose
        self._ready = threading.Condition()
        threading.Thread(target=self._read, args=(stream,), name="log-inbox", daemon=True).start()

    def _read(self, stream) -> None:
        for line in stream:
            try:
                msg = read_message(line)
            except ValueError as exc:
                log.error("log writer: a damaged message was skipped (%s): %r", exc, line[:120])
                continue
            if isinstance(msg, Alive):
                self.alive, self.alive_at = msg, time.monotonic()
                continue
            self.alive = heard(self.alive, msg)
            if isinstance(msg, Bye):
                self.bye = True
                continue
            with self._ready:
                self.messages.append(msg)
                self._ready.notify()
        with self._ready:
            self.eof, self.eof_at = True, time.monotonic()
            if not self.bye and self.alive is not None:  # the device died: record when it went silent
                silent_for = self.eof_at - self.alive_at
                utc = datetime.now(timezone.utc) - timedelta(seconds=silent_for)
                self.messages.append(lost_message(self.alive, silent_for, utc_iso(utc)))
            self._ready.notify()

    def wait(self, timeout: float) -> None:
        """Until a message arrives, the pipe ends, or ``timeout`` seconds."""
        with self._ready:
            if not self.messages and not self.eof:
                self._ready.wait(timeout)

    def take(self) -> list[LogRecord]:
        """Every message read so far."""
        with self._ready:
            out = list(self.messages)
            self.messages.clear()
        return out


class _Writer:
    def __init__(self, state_dir: Path, report, locked: bool = True, rows: bool = False):
        self.state_dir = state_dir
        self.report = report
        self.locked = locked
        self.rows = rows
        self.stream: StreamWriter | None = None
        self.inode: int | None = None
        self.fault: str | None = None

    def _say(self, fault: str | None, detail: str = "") -> None:
        if fault != self.fault:
            self.fault = fault
            self.report({"fault": fault, "detail": detail})

    def _open(self) -> bool:
        from shotclock.adapters.log import DecisionLog, lock_state_dir
        from shotclock.errors import LogError

        try:
            if not self.locked:
                self.lock_fd = lock_state_dir(self.state_dir, wait=0)
                self.locked = True
            decision_log = DecisionLog(self.state_dir, busy_timeout=BUSY_TIMEOUT)
            self.inode = os.stat(decision_log.path).st_ino
        except (LogError, OSError) as exc:
            log.error("log writer: %s; retrying", exc)
            self._say("unavailable", str(exc))
            return False
        if self.stream is None:
            self.stream = StreamWriter(decision_log)
        else:
            log.warning("log writer: the decision log %s was recreated; the session is recorded again",
                        decision_log.path)
            self.stream.reopened(decision_log)
        return True

    def _still_there(self) -> bool:
        """False when the database file was deleted or replaced under us (then it is reopened)."""
        try:
            return os.stat(self.stream.log.path).st_ino == self.inode
        except OSError:
            return False

    def write(self, pending: list[LogRecord]) -> bool:
        import sqlite3

        if self.stream is not None and not self._still_there():
            log.error("log writer: %s was deleted or replaced while running", self.stream.log.path)
            self.stream.log.close()
            self.inode = None
            if not self._open():
                return False
        elif self.stream is None and not self._open():
            return False
        try:
            self.stream.write(pending)
        except sqlite3.Error as exc:
            log.error("log writer: cannot write %d records (%s); retrying", len(pending), exc)
            self._say("write_failed", str(exc))
            return False
        self._say(None)
        if self.rows:  # with the stream number committed up to: a floor command's ack waits for its records
            seqs = [m.seq for m in pending if m.seq is not None]
            self.report({"written": self.stream.log.last_written, **({"seq": max(seqs)} if seqs else {})})
        return True

    def dump(self, pending: list[LogRecord]) -> None:
        """Keep records that cannot be written in ``pending-*.jsonl`` (or, failing that, on stderr)."""
        stamp = time.strftime("%Y%m%dT%H%M%S", time.gmtime())
        path = self.state_dir / f"pending-{stamp}-{os.getpid()}.jsonl"
        state = {"ids": self.stream.ids if self.stream else {},
                 "session_id": self.stream.session_id if self.stream else None,
                 "session_message": self.stream.session_message if self.stream else None,
                 "ids_lost": self.stream.ids_lost if self.stream else False}
        lines = [text({"stream": state})] + [_line(m).decode().rstrip("\n") for m in pending]
        try:
            path.write_text("\n".join(lines) + "\n", encoding="utf-8")
            log.error("log writer: %d records could not be written; kept in %s for the next start",
                      len(pending), path)
        except OSError as exc:
            log.error("log writer: %d records could not be written, nor kept in %s (%s); here they are:",
                      len(pending), path, exc)
            for line in lines:
                print(line, file=sys.stderr)


def writer_main(state_dir: str, lock_fd: str = "-", rows: str = "") -> int:
    """The writer process: read messages from stdin, write them, report faults on stdout."""
    logging.basicConfig(level=logging.INFO, format="%(name)s: %(message)s", stream=sys.stderr)
    # The device decides when the writer stops, by closing the pipe; until then keep writing.
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, signal.SIG_IGN)

    def report(status: dict) -> None:
        try:
            sys.stdout.write(text(status) + "\n")
            sys.stdout.flush()
        except OSError:
            pass  # the device is gone: nobody to tell

    inbox = _Inbox(sys.stdin.buffer)
    writer = _Writer(Path(state_dir), report, locked=lock_fd != "-", rows=rows == "rows")
    pending: list[LogRecord] = []
    failed_at: float | None = None
    while True:
        inbox.wait(RETRY_SECONDS if (pending or inbox.eof) else 60)
        pending += inbox.take()
        if pending and (failed_at is None or time.monotonic() - failed_at >= RETRY_SECONDS):
            if writer.write(pending):
                pending, failed_at = [], None
            else:
                failed_at = time.monotonic()
        if inbox.eof and not inbox.messages:
            if not pending:
                return 0
            if time.monotonic() - inbox.eof_at >= DRAIN_SECONDS:
                writer.dump(pending)
                return 1


def import_pending(decision_log) -> int:
    """Write the records of ``pending-*.jsonl`` files into the log (then delete the files); returns how many."""
    total = 0
    for path in sorted(decision_log.path.parent.glob(PENDING_GLOB)):
        try:
            lines = [x for x in path.read_text(encoding="utf-8").splitlines() if x.strip()]
            state = decode(lines[0])["stream"]
            messages = [read_message(x) for x in lines[1:]]
            session_message = state.get("session_message")
            session_message = read_message(session_message) if session_message is not None else None
        except (OSError, ValueError, KeyError, IndexError, TypeError) as exc:
            log.error("cannot read %s (%s); left in place", path, exc)
            continue
        stream = StreamWriter(decision_log)
        stream.ids = {int(k): v for k, v in state.get("ids", {}).items()}
        stream.session_message = session_message
        stream.session_id = state.get("session_id")
        stream.ids_lost = bool(state.get("ids_lost", False))
        stream.write(messages)
        path.unlink()
        total += len(messages)
        log.warning("wrote %d records kept in %s after a log failure", len(messages), path.name)
    return total


if __name__ == "__main__":
    sys.exit(writer_main(*sys.argv[1:4]))
