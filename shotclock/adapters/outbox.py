"""The outbox: which decision-log records the broker has acknowledged, and the ones still to send.

The records themselves stay where they are, in the decision log; the outbox keeps only a
watermark (the highest record delivered) in ``outbox.db`` beside the log, written by the
network's own thread, so the main loop never waits for it. Only the sender thread calls
these methods (SQLite connections are opened in that thread).
"""

from __future__ import annotations

import collections
import logging
import os
import sqlite3
from pathlib import Path

from shotclock.adapters.log import DB_NAME
from shotclock.core.codec import decode

OUTBOX_NAME = "outbox.db"
BUSY_TIMEOUT = 0.5  # seconds SQLite waits for a lock: a lock held longer is a failure the sender retries later,
# so the state and the acks never wait behind it
log = logging.getLogger("shotclock.network")


class LogOutbox:
    """The outbox over a decision log in ``state_dir``.

    :param state_dir: the folder of ``shotclock.db``.
    :param start_after: the watermark to begin with when there is no ``outbox.db`` yet (the
        network was just switched on: send from this session on, not the whole history).
    """

    def __init__(self, state_dir: str | Path, start_after: int):
        self.state_dir = Path(state_dir)
        self.start_after = start_after
        self._log: sqlite3.Connection | None = None
        self._db: sqlite3.Connection | None = None
        self._boots: dict[int, str] = {}

    def _open(self) -> None:
        if self._db is None:
            self._log = sqlite3.connect(f"file:{self.state_dir / DB_NAME}?mode=ro", uri=True, timeout=BUSY_TIMEOUT)
            self._db = sqlite3.connect(self.state_dir / OUTBOX_NAME, isolation_level=None, timeout=BUSY_TIMEOUT)
            self._db.execute("PRAGMA journal_mode=WAL")
            self._db.execute("CREATE TABLE IF NOT EXISTS outbox (key TEXT PRIMARY KEY, value INTEGER NOT NULL)")
            self._db.execute("INSERT OR IGNORE INTO outbox VALUES ('delivered', ?)", (self.start_after,))

    def delivered(self) -> int:
        """The highest record id the broker has acknowledged (or skipped as over the bound)."""
        self._open()
        return self._db.execute("SELECT value FROM outbox WHERE key = 'delivered'").fetchone()[0]

    def set_delivered(self, record_id: int) -> None:
        """Move the watermark (one small commit; NORMAL sync: a power cut at worst resends a few)."""
        self._open()
        self._db.execute("PRAGMA synchronous=NORMAL")
        self._db.execute("UPDATE outbox SET value = ? WHERE key = 'delivered'", (record_id,))

    def rows_after(self, record_id: int, limit: int) -> list[dict]:
        """Up to ``limit`` records after ``record_id``, in order, each with its ``boot``."""
        self._open()
        rows = []
        for r in self._log.execute("SELECT id, session, clock, type, t, utc, data, prev, hash FROM records "
                                   "WHERE id > ? ORDER BY id LIMIT ?", (record_id, limit)):
            row = dict(zip(("id", "session", "clock", "type", "t", "utc", "data", "prev", "hash"), r))
            row["data"] = decode(row["data"])
            if row["type"] == "session" and "boot" in row["data"]:
                self._boots[row["id"]] = row["data"]["boot"]
            row["boot"] = self.boot_of(row["session"])
            rows.append(row)
        return rows

    def newest(self) -> int:
        """The newest record's id in the log."""
        self._open()
        return self._log.execute("SELECT COALESCE(MAX(id), 0) FROM records").fetchone()[0]

    def boot_of(self, session: int) -> str:
        """The boot id of a session (from its session record; a made-up one for logs older than the network)."""
        if session not in self._boots:
            row = self._log.execute("SELECT data FROM records WHERE id = ?", (session,)).fetchone()
            data = decode(row[0]) if row else {}
            self._boots[session] = data.get("boot") or f"{session:012x}"[-12:]
        return self._boots[session]

    def close(self) -> None:
        """Close both connections (from the thread that used them)."""
        for db in (self._log, self._db):
            if db is not None:
                db.close()
        self._log = self._db = None

    def repair(self) -> bool:
        """If ``outbox.db`` is damaged, move it aside (``outbox.db.damaged``) and return True: it holds
        only the watermark, so the next use makes it anew, from the newest records the bound lets wait
        (the archive drops what it has twice). A locked or sound one is left alone (False)."""
        self.close()
        path = self.state_dir / OUTBOX_NAME
        if not path.exists():
            return False
        try:
            db = sqlite3.connect(f"file:{path}?mode=ro", uri=True, timeout=BUSY_TIMEOUT)
            try:
                sound = db.execute("PRAGMA quick_check").fetchone()[0] == "ok"
                if sound:
                    db.execute("SELECT value FROM outbox WHERE key = 'delivered'").fetchone()
            finally:
                db.close()
        except sqlite3.OperationalError as exc:
            sound = "locked" in str(exc) or "busy" in str(exc)  # held by someone: not damaged
        except sqlite3.DatabaseError:
            sound = False
        if sound:
            return False
        for suffix in ("", "-wal", "-shm"):
            old = path.with_name(OUTBOX_NAME + suffix)
            if old.exists():
                os.replace(old, path.with_name(OUTBOX_NAME + suffix + ".damaged"))
        self.start_after = 0  # which records the broker had is unknown now: all go again, up to the bound
        return True


class MemoryOutbox:
    """An outbox in memory, for a device without a decision log and for the fleet simulator.

    Records are numbered from 1 as they are added; at most ``limit`` wait.
    """

    def __init__(self, limit: int = 100_000):
        self._rows: collections.deque[dict] = collections.deque(maxlen=limit)
        self._delivered = 0
        self._next = 1

    def add(self, row: dict) -> dict:
        """Number ``row`` (it needs ``type``, ``t``, ``data``, ``boot``) and keep it; return it."""
        row = dict(row, id=self._next)
        self._next += 1
        self._rows.append(row)
        return row

    def delivered(self) -> int:
        """The highest record number acknowledged."""
        return self._delivered

    def set_delivered(self, record_id: int) -> None:
        """Forget what the broker has."""
        self._delivered = record_id
        while self._rows and self._rows[0]["id"] <= record_id:
            self._rows.popleft()

    def rows_after(self, record_id: int, limit: int) -> list[dict]:
        """Up to ``limit`` kept records after ``record_id``."""
        return [r for r in list(self._rows) if r["id"] > record_id][:limit]

    def newest(self) -> int:
        """The newest record's number (0: none)."""
        return self._next - 1

    def close(self) -> None:
        """Nothing to close."""
