"""The collector's answers to the pages' questions, on a thread of their own.

A question (the report over a week's archive, a clock's records) can take seconds to answer. Answered on
the collector's network thread, it held every table's records back for as long: the archive's latency tail.
Here questions wait in a short queue and one thread answers them from its own read-only connection (SQLite's
WAL, or PostgreSQL, lets it read while the collector writes), so storing never waits for a question.
"""

from __future__ import annotations

import logging
import queue
import threading
from pathlib import Path
from typing import Callable

from shotclock.adapters.archive import Store, open_store
from shotclock.floor import answers

log = logging.getLogger("shotclock.collector")
WAITING = 16  # questions that may wait; past that a page is told the archive is busy (it asks again)
BUSY = {"ok": False, "reason": "the archive is busy answering other questions; ask again in a moment"}

Reply = Callable[[dict], None]


class Answerer:
    """Answers questions on its own thread; :meth:`ask` never blocks the caller.

    :param spec: the archive: its SQLite file or its ``postgresql://`` database (opened read-only here).
    :param venue: answer from this venue's records only (a tour's database holds several venues').
    :param answer: the question → answer function (default :func:`shotclock.floor.answers.answer`, looked up
        at each question).
    """

    def __init__(self, spec: Path | str, answer: Callable[[Store, object], dict] | None = None,
                 venue: str | None = None):
        self.spec = spec
        self.venue = venue
        self.history_since_ms: int | None = None  # since when the collector keeps the overlay's history whole
        self._answer = answer or (lambda db, question: answers.answer(db, question, self.history_since_ms))
        self._questions: queue.Queue = queue.Queue(maxsize=WAITING)
        self._thread: threading.Thread | None = None
        self._lock = threading.Lock()

    def ask(self, question, reply: Reply) -> None:
        """Queue ``question``; ``reply`` gets the answer on the answering thread (or at once, busy)."""
        self.ensure_running()
        try:
            self._questions.put_nowait((question, reply))
        except queue.Full:
            reply(BUSY)

    def check(self) -> None:
        """Start the thread again if it was started and has ended (it should not), saying so."""
        if self._thread is not None:
            self.ensure_running()

    def ensure_running(self) -> None:
        """Start the thread, or start it again if it ended (it should not), saying so."""
        with self._lock:
            if self._thread is not None and self._thread.is_alive():
                return
            if self._thread is not None:
                log.error("the collector's answering thread ended; starting it again")
            self._thread = threading.Thread(target=self._run, name="collector-answers", daemon=True)
            self._thread.start()

    def stop(self, timeout: float = 2.0) -> None:
        """End the thread once the questions already queued are answered."""
        thread = self._thread
        if thread is not None and thread.is_alive():
            self._questions.put(None)
            thread.join(timeout)

    def _run(self) -> None:
        db = None
        while True:
            item = self._questions.get()
            if item is None:
                break
            question, reply = item
            try:
                if db is None:
                    db = open_store(self.spec, readonly=True, venue=self.venue)
                result = self._answer(db, question)
            except Exception as exc:
                log.exception("cannot answer an archive question")
                result = {"ok": False, "reason": f"the archive cannot answer: {exc}"}
                if db is not None:  # a broken connection is opened again for the next question
                    db.close()
                    db = None
            try:
                reply(result)
            except Exception:
                log.exception("cannot send an archive answer")
        if db is not None:
            db.close()
