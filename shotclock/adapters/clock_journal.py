"""The tournament clock's journal: every event it took, with its timeline time and the wall clock, on disk.

The clock's process (``shotclock tournament run``) writes each event here and commits it (SQLite, ``synchronous =
FULL``) before it answers the floor, so a crash or a power cut loses nothing the floor was told was done. A
heartbeat row, rewritten every second, says when the process was last alive, on its timeline, the wall clock
and the machine's own clock since its boot (with the boot's identity), and the last state's sequence number: after a
restart the time away is measured on the machine's clock when the machine did not reboot (a wall clock stepped by
NTP or a person changes nothing), on the wall clock when it did (a power cut), and the clock's timeline goes on from
there (docs/tournament.md, "Durable").

The journal also keeps the tournament's id, scope and structure (``meta``), and each change the clock made, for the
archive (``changes``: the archive keys them by the journal's ``boot`` and their number, so sending one again is
harmless).
"""

from __future__ import annotations

import fcntl
import os
import sqlite3
from pathlib import Path
from typing import NamedTuple, Union

from shotclock.core.codec import decode, encode
from shotclock.core.structure import Structure
from shotclock.core.tournament import CLOCK_EVENTS, Change, ClockEvent
from shotclock.core.tournament_state import Scope

SCHEMA = [
    "CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL)",
    "CREATE TABLE IF NOT EXISTS events (n INTEGER PRIMARY KEY, t REAL NOT NULL, wall_ms INTEGER NOT NULL,"
    " event TEXT NOT NULL)",
    "CREATE TABLE IF NOT EXISTS changes (n INTEGER PRIMARY KEY, t REAL NOT NULL, wall_ms INTEGER NOT NULL,"
    " change TEXT NOT NULL)",
    "CREATE TABLE IF NOT EXISTS beat (one INTEGER PRIMARY KEY CHECK (one = 1), t REAL NOT NULL,"
    " wall_ms INTEGER NOT NULL, since_boot REAL NOT NULL, boot_id TEXT NOT NULL, seq INTEGER NOT NULL)",
]
_EVENTS = Union[CLOCK_EVENTS]  # every event the clock takes, by its tag


class JournalError(Exception):
    """The journal cannot be opened or read (one line naming the file)."""


class Alive(NamedTuple):
    """The last sign of life the journal holds: ``t`` on the clock's timeline, ``wall_ms`` the wall clock,
    ``since_boot`` the machine's clock since its boot ``boot_id``, and ``seq`` the last state's number."""

    t: float
    wall_ms: int
    since_boot: float
    boot_id: str
    seq: int


class ClockJournal:
    """One tournament's journal at ``path`` (created when missing)."""

    def __init__(self, path: str | Path):
        self.path = Path(path)
        try:
            if self.path.exists() and not self.path.is_file():
                raise JournalError(f"{self.path}: not a file (the tournament's journal is one SQLite file)")
            self.path.parent.mkdir(parents=True, exist_ok=True)
            self._lock = open(self.path, "ab")  # one clock a journal: a second process on it is refused
            try:
                fcntl.flock(self._lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:
                self._lock.close()
                raise JournalError(f"{self.path}: another clock's process holds this journal (one process a "
                                   "tournament)") from None
            self.db = sqlite3.connect(str(self.path), isolation_level=None, check_same_thread=False)
            self.db.execute("PRAGMA journal_mode = WAL")
            self.db.execute("PRAGMA synchronous = FULL")
            for statement in SCHEMA:
                self.db.execute(statement)
        except sqlite3.DatabaseError as exc:
            self._lock.close()
            raise JournalError(f"{self.path}: cannot be used as the tournament's journal ({exc})") from None
        except OSError as exc:
            raise JournalError(f"{self.path}: {exc.strerror or exc}") from None

    # -- the tournament ---------------------------------------------------------------------------------------------

    def meta(self, key: str) -> str | None:
        row = self.db.execute("SELECT value FROM meta WHERE key = ?", (key,)).fetchone()
        return row[0] if row else None

    def set_meta(self, **values: str) -> None:
        with self.db:
            self.db.execute("BEGIN")
            self.db.executemany("INSERT OR REPLACE INTO meta (key, value) VALUES (?, ?)", values.items())

    def boot(self) -> str:
        """The journal's own identity (12 hex digits, made once): the archive keys its records by it."""
        boot = self.meta("boot")
        if boot is None:
            boot = os.urandom(6).hex()
            self.set_meta(boot=boot)
        return boot

    def structure(self) -> Structure | None:
        text = self.meta("structure")
        return None if text is None else decode(text, Structure)

    def scope(self) -> Scope | None:
        text = self.meta("scope")
        return None if text is None else decode(text, Scope)

    def set_structure(self, structure: Structure) -> None:
        """A new structure: the events taken on the one before are gone (allowed before the start only; the changes
        they made stay, as the archive has them)."""
        with self.db:
            self.db.execute("BEGIN")
            self.db.execute("INSERT OR REPLACE INTO meta (key, value) VALUES ('structure', ?)",
                            (encode(structure).decode(),))
            self.db.execute("DELETE FROM events")

    # -- events and the heartbeat ----------------------------------------------------------------------------------

    def events(self) -> list[ClockEvent]:
        """Every event taken, in order."""
        return [decode(row[0], _EVENTS) for row in self.db.execute("SELECT event FROM events ORDER BY n")]

    def add(self, event: ClockEvent, alive: Alive, changes: list[Change]) -> list[tuple[int, Change]]:
        """Keep ``event`` and the ``changes`` it made, committed (and synced) when this returns, with the sign of
        life ``alive``; the changes with their numbers (the archive's ``seq``)."""
        with self.db:
            self.db.execute("BEGIN")
            self.db.execute("INSERT INTO events (t, wall_ms, event) VALUES (?, ?, ?)",
                            (event.t, alive.wall_ms, encode(event).decode()))
            numbered = self._changes(changes, alive.wall_ms)
            self._beat(alive)
        return numbered

    def add_changes(self, changes: list[Change], alive: Alive) -> list[tuple[int, Change]]:
        """Keep changes the clock made by itself (a stage's time up) or the process made (a structure loaded)."""
        if not changes:
            return []
        with self.db:
            self.db.execute("BEGIN")
            numbered = self._changes(changes, alive.wall_ms)
            self._beat(alive)
        return numbered

    def _changes(self, changes: list[Change], wall_ms: int) -> list[tuple[int, Change]]:
        out = []
        for change in changes:
            cursor = self.db.execute("INSERT INTO changes (t, wall_ms, change) VALUES (?, ?, ?)",
                                     (change.t, wall_ms, encode(change).decode()))
            out.append((cursor.lastrowid, change))
        return out

    def beat(self, alive: Alive) -> None:
        """The process is alive (see :class:`Alive`)."""
        with self.db:
            self.db.execute("BEGIN")
            self._beat(alive)

    def _beat(self, alive: Alive) -> None:
        self.db.execute("INSERT OR REPLACE INTO beat (one, t, wall_ms, since_boot, boot_id, seq) VALUES "
                        "(1, ?, ?, ?, ?, ?)", tuple(alive))

    def last_alive(self) -> Alive | None:
        """The last sign of life, or None for a new journal."""
        row = self.db.execute("SELECT t, wall_ms, since_boot, boot_id, seq FROM beat WHERE one = 1").fetchone()
        return Alive(*row) if row else None

    def changes(self) -> list[tuple[int, int, Change]]:
        """Every change kept: (number, wall ms, change)."""
        return [(n, wall, decode(text, Change)) for n, wall, text in
                self.db.execute("SELECT n, wall_ms, change FROM changes ORDER BY n")]

    def close(self) -> None:
        self.db.close()
        self._lock.close()
