"""One thread that writes the decision logs of many simulated tables (``shotclock fleet``).

A device writes its log from a process of its own (:class:`~shotclock.adapters.logwriter.WriterProcess`),
so that a crash keeps what was handed over. A fleet of a thousand simulated tables cannot afford a
Python process per table (about 20 MB and a start each): the tables of one fleet process share one
writer thread instead. Each table gets a :class:`TableSink` with the writer process's interface
(``put``, ``flush``, ``close``) and the same reports (``{"written": rows}``, faults), written by the
same :class:`~shotclock.adapters.logwriter._Writer` (its open, reopen and retry logic). What a crash
of the fleet loses does not matter: the tables are simulated.
"""

from __future__ import annotations

import queue
import threading
from pathlib import Path

from shotclock.adapters.logwriter import RETRY_SECONDS, _Writer
from shotclock.core.log_records import LogRecord, as_message


class TableSink:
    """One table's end of the shared writer (what the recorder writes to)."""

    def __init__(self, owner: "SharedWriter", state_dir: Path, on_status, locked: bool, report_rows: bool):
        self.owner = owner
        self.writer = _Writer(Path(state_dir), on_status, locked=locked, rows=report_rows)
        self.pending: list[LogRecord] = []  # the writer thread's: what could not be written yet
        self.closed = threading.Event()
        self.clean = False  # set by the writer thread at the close: nothing was left unwritten
        self._closing = False

    def put(self, messages: list) -> None:
        """Queue ``messages`` for the writer thread; returns at once. Heartbeats are dropped: they tell a
        writer process when its device died, and the fleet's tables die with the writer."""
        messages = [m for m in map(as_message, messages) if isinstance(m, LogRecord)]
        if messages:
            self.owner.queue.put((self, messages))

    def flush(self) -> None:
        """Nothing waits on this side (the queue takes everything)."""

    def begin_close(self) -> None:
        """Ask the writer thread to write what is queued and close the log; returns at once (a fleet asks for
        all its tables before it waits for any)."""
        if not self._closing:
            self._closing = True
            self.owner.queue.put((self, None))

    def close(self, timeout: float = 5.0) -> bool:
        """Write what is queued, close the log; True when nothing was left unwritten."""
        self.begin_close()
        self.closed.wait(timeout)
        return self.clean


class SharedWriter:
    """The writer thread of one fleet process; :meth:`sink` makes a table's :class:`TableSink`.

    ``make_writer`` for :func:`~shotclock.shell.recorder.open_recorder` (same arguments as
    :class:`~shotclock.adapters.logwriter.WriterProcess`)::

        shared = SharedWriter()
        recorder = open_recorder(config, state_dir, device, make_writer=shared.sink)
    """

    def __init__(self):
        self.queue: queue.SimpleQueue = queue.SimpleQueue()
        self._failed: set[TableSink] = set()
        self.thread = threading.Thread(target=self._run, name="fleet-log-writer", daemon=True)
        self.thread.start()

    def sink(self, state_dir, on_status=lambda status: None, lock_fd: int | None = None,
             report_rows: bool = False) -> TableSink:
        """A table's sink; the state directory's lock (``lock_fd``) stays the recorder's."""
        return TableSink(self, state_dir, on_status, locked=lock_fd is not None, report_rows=report_rows)

    def _run(self) -> None:
        while True:
            try:
                batch = [self.queue.get(timeout=RETRY_SECONDS if self._failed else None)]
            except queue.Empty:
                batch = []
            while True:  # everything queued now: one commit per table, however many rounds it sent
                try:
                    batch.append(self.queue.get_nowait())
                except queue.Empty:
                    break
            closing = []
            for sink, messages in batch:
                if messages is None:
                    closing.append(sink)
                else:
                    sink.pending += messages
                    self._failed.add(sink)
            for sink in list(self._failed):
                if sink.writer.write(sink.pending):
                    sink.pending = []
                    self._failed.discard(sink)
            for sink in closing:
                self._failed.discard(sink)
                sink.clean = not sink.pending
                if sink.writer.stream is not None:
                    sink.writer.stream.log.close()
                sink.closed.set()
