"""The floor's archive: every table's records in one SQLite file, deduplicated on (table, boot, seq).

The collector writes it (:mod:`shotclock.floor.collector`); ``shotclock log --collected DIR
--table ID`` reads one table of it through a :class:`~shotclock.adapters.log.DecisionLog`
over a per-table view, so list, show, export, stats and verify work as on the device --
verify checks the device's own hash chain, record by record, as the events carried it.
"""

from __future__ import annotations

import json
import sqlite3
from datetime import datetime, timezone
from pathlib import Path

from shotclock.adapters.log import DecisionLog, utc_iso
from shotclock.core.wire import row_of_event
from shotclock.errors import LogError

ARCHIVE_NAME = "collected.db"
SCHEMA = """
CREATE TABLE IF NOT EXISTS events (
    table_id TEXT NOT NULL,
    boot TEXT NOT NULL,
    seq INTEGER NOT NULL,
    session INTEGER,
    clock INTEGER,
    type TEXT NOT NULL,
    t REAL NOT NULL,
    utc TEXT NOT NULL,
    data TEXT NOT NULL,
    prev TEXT NOT NULL,
    hash TEXT NOT NULL,
    received_utc TEXT NOT NULL,
    PRIMARY KEY (table_id, boot, seq)
);
CREATE INDEX IF NOT EXISTS events_table_seq ON events (table_id, seq);
"""


def archive_path(folder: str | Path) -> Path:
    """The archive's file in ``folder``."""
    return Path(folder) / ARCHIVE_NAME


class Archive:
    """The archive, open for writing (the collector's).

    :param folder: where ``collected.db`` lives (created if missing).
    """

    def __init__(self, folder: str | Path):
        self.path = archive_path(folder)
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            self.db = sqlite3.connect(self.path, isolation_level=None, check_same_thread=False)
            self.db.execute("PRAGMA journal_mode=WAL")
            self.db.execute("PRAGMA synchronous=NORMAL")
            self.db.executescript(SCHEMA)
        except (sqlite3.Error, OSError) as exc:
            raise LogError(f"cannot open the archive {self.path}: {exc}") from None
        self.added = 0
        self.duplicates = 0

    def add(self, message: dict, received: datetime | None = None) -> bool:
        """Store one ``event`` message; False when (table, boot, seq) was already there."""
        row = row_of_event(message)
        chain = message.get("log") or {}
        received = utc_iso(received or datetime.now(timezone.utc))
        cursor = self.db.execute(
            "INSERT OR IGNORE INTO events VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
            (message["table"], message["boot"], message["seq"], chain.get("session"), chain.get("clock"),
             row["type"], row["t"], chain.get("utc") or received,
             json.dumps(row["data"], sort_keys=True, separators=(",", ":"), ensure_ascii=False),
             chain.get("prev", ""), chain.get("hash", ""), received))
        if cursor.rowcount:
            self.added += 1
            return True
        self.duplicates += 1
        return False

    def count(self) -> int:
        """Records stored."""
        return self.db.execute("SELECT COUNT(*) FROM events").fetchone()[0]

    def close(self) -> None:
        """Close the file."""
        self.db.close()


def tables(folder: str | Path) -> list[tuple[str, int, str, str]]:
    """(table id, records, first utc, last utc) for every table in the archive at ``folder``."""
    db = _connect_readonly(archive_path(folder))
    try:
        return list(db.execute("SELECT table_id, COUNT(*), MIN(utc), MAX(utc) FROM events GROUP BY table_id "
                               "ORDER BY table_id"))
    finally:
        db.close()


def table_log(folder: str | Path, table: str) -> DecisionLog:
    """One table of the archive as a read-only :class:`DecisionLog` (records by the device's ids)."""
    path = archive_path(folder)
    db = _connect_readonly(path)
    known = [r[0] for r in db.execute("SELECT DISTINCT table_id FROM events ORDER BY table_id")]
    if table not in known:
        db.close()
        raise LogError(f"no table {table!r} in the archive {path} (tables: {', '.join(known) or 'none'})")
    db.execute("CREATE TEMP VIEW records AS SELECT seq AS id, session, clock, type, t, utc, data, prev, hash "
               f"FROM events WHERE table_id = {_quote(table)}")
    # verify() starts the chain at the first record the archive holds, as after an archiving.
    first = db.execute("SELECT id, prev FROM records ORDER BY id LIMIT 1").fetchone()
    db.execute("CREATE TEMP TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL)")
    db.execute("INSERT INTO meta VALUES ('anchor', ?)", (f"{first[0] - 1}:{first[1]}",))
    return DecisionLog.over(db, path)


def _quote(text: str) -> str:
    return "'" + text.replace("'", "''") + "'"


def _connect_readonly(path: Path) -> sqlite3.Connection:
    if not path.exists():
        raise LogError(f"no archive at {path} (see 'shotclock floor collect')")
    try:
        return sqlite3.connect(f"file:{path}?mode=ro", uri=True, isolation_level=None)
    except sqlite3.Error as exc:
        raise LogError(f"cannot open the archive {path}: {exc}") from None
