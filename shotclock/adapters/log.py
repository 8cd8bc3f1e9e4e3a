"""The decision log: every input and output in SQLite, hash-chained, safe across power cuts.

* WAL journal; commits that change a clock's state (a start, pause, extension, ruling…) are
  made with ``synchronous=FULL`` so they survive a power cut the moment they are reported;
  beeps and ignored events use ``NORMAL``.
* Each record carries ``hash = sha256(canonical JSON of its columns, including prev)``, where
  ``prev`` is the previous record's hash. The newest record's id and hash are also kept in
  ``meta`` (the head), so removing the last records is detected too. ``verify`` names the
  first record that was changed, removed or inserted.
* The schema is versioned (``meta.schema_version``) and migrated on open.
* Old records are archived to gzip'd JSON Lines (``archive/``); the chain continues from an
  anchor (the last archived record's id and hash) so the rest still verifies.
"""

from __future__ import annotations

import gzip
import hashlib
import json
import logging
import os
import sqlite3
from datetime import datetime, timedelta, timezone
from pathlib import Path

from shotclock.errors import LogError

log = logging.getLogger("shotclock.log")

DB_NAME = "shotclock.db"
GENESIS = "0" * 64
# Record types whose commit must survive a power cut at once (they change or end a clock).
DURABLE = {"start", "pause", "resume", "extended", "undo", "chips_reset", "decision", "session", "interrupted"}

MIGRATIONS = {
    1: [
        "CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL)",
        """CREATE TABLE records (
            id INTEGER PRIMARY KEY,
            session INTEGER NOT NULL,
            clock INTEGER,
            type TEXT NOT NULL,
            t REAL NOT NULL,
            utc TEXT NOT NULL,
            data TEXT NOT NULL,
            prev TEXT NOT NULL,
            hash TEXT NOT NULL)""",
    ],
    2: [
        "CREATE INDEX records_clock ON records (clock)",
        "CREATE INDEX records_utc ON records (utc)",
    ],
}
SCHEMA_VERSION = max(MIGRATIONS)


def default_state_dir() -> Path:
    """``$STATE_DIRECTORY`` under systemd, else the platform's user state directory."""
    if os.environ.get("STATE_DIRECTORY"):
        return Path(os.environ["STATE_DIRECTORY"].split(":")[0])
    import platformdirs

    return Path(platformdirs.user_state_dir("shotclock"))


def record_hash(row: dict) -> str:
    """The hash of a row: sha256 over the canonical JSON of every column but ``hash``."""
    body = {k: row[k] for k in ("id", "session", "clock", "type", "t", "utc", "data", "prev")}
    return hashlib.sha256(json.dumps(body, sort_keys=True, separators=(",", ":")).encode()).hexdigest()


def utc_iso(dt: datetime) -> str:
    """UTC time as ISO 8601 with microseconds and a Z."""
    return dt.astimezone(timezone.utc).strftime("%Y-%m-%dT%H:%M:%S.%fZ")


class DecisionLog:
    """The log in ``state_dir/shotclock.db``.

    :param state_dir: the directory (created if missing).
    :param readonly: open for reading only (the CLI), never migrating or writing.

    Raises :class:`~shotclock.errors.LogError` with the path when it cannot be opened.
    """

    def __init__(self, state_dir: str | Path, readonly: bool = False):
        self.path = Path(state_dir) / DB_NAME
        self.readonly = readonly
        try:
            if readonly:
                if not self.path.exists():
                    raise LogError(f"no decision log at {self.path}")
                self.db = sqlite3.connect(f"file:{self.path}?mode=ro", uri=True, isolation_level=None)
            else:
                self.path.parent.mkdir(parents=True, exist_ok=True)
                self.db = sqlite3.connect(self.path, isolation_level=None)
                self.db.execute("PRAGMA journal_mode=WAL")
                self._migrate()
        except (sqlite3.Error, OSError) as exc:
            raise LogError(f"cannot open the decision log {self.path}: {exc}") from None
        self.db.row_factory = sqlite3.Row
        if not readonly:
            self.head_id, self.head_hash = self._head()
            self.session: int | None = None

    @classmethod
    def over(cls, db: sqlite3.Connection, path: Path) -> "DecisionLog":
        """A read-only log over an open connection whose ``records`` and ``meta`` may be views
        (the floor archive's per-table view); ``path`` names it in messages."""
        self = cls.__new__(cls)
        self.path, self.readonly, self.db = Path(path), True, db
        self.db.row_factory = sqlite3.Row
        return self

    # -- schema ----------------------------------------------------------------------

    def schema_version(self) -> int:
        """The schema version of the open database (0: empty)."""
        try:
            row = self.db.execute("SELECT value FROM meta WHERE key = 'schema_version'").fetchone()
        except sqlite3.OperationalError:
            return 0
        return int(row[0]) if row else 0

    def _migrate(self) -> None:
        version = self.schema_version()
        if version > SCHEMA_VERSION:
            raise LogError(f"{self.path} was written by a newer shotclock (schema {version} > {SCHEMA_VERSION})")
        for target in range(version + 1, SCHEMA_VERSION + 1):
            self.db.execute("BEGIN IMMEDIATE")
            try:
                for statement in MIGRATIONS[target]:
                    self.db.execute(statement)
                self.db.execute("INSERT OR REPLACE INTO meta VALUES ('schema_version', ?)", (str(target),))
                self.db.execute("COMMIT")
            except sqlite3.Error:
                self.db.execute("ROLLBACK")
                raise
            log.info("decision log %s: schema migrated to version %d", self.path, target)

    def _meta(self, key: str, default=None):
        row = self.db.execute("SELECT value FROM meta WHERE key = ?", (key,)).fetchone()
        return row[0] if row else default

    def _head(self) -> tuple[int, str]:
        head = self._meta("head")
        if head:
            hid, hhash = head.split(":")
            return int(hid), hhash
        anchor = self._meta("anchor")
        if anchor:
            aid, ahash = anchor.split(":")
            return int(aid), ahash
        return 0, GENESIS

    # -- writing ---------------------------------------------------------------------

    def append(self, records: list[dict], durable: bool | None = None) -> list[int]:
        """Append records (each with ``session``, ``clock``, ``type``, ``t``, ``utc``, ``data``) in one commit.

        Returns their ids; ``last_written`` then holds the rows as stored (``data`` as a dict).
        ``durable`` forces synchronous=FULL; by default it is used when a
        record changes or ends a clock.
        """
        if not records:
            return []
        if durable is None:
            durable = any(r["type"] in DURABLE for r in records)
        self.db.execute(f"PRAGMA synchronous={'FULL' if durable else 'NORMAL'}")
        ids = []
        written = []
        head_id, head_hash = self.head_id, self.head_hash
        self.db.execute("BEGIN IMMEDIATE")
        try:
            for rec in records:
                row = {"id": head_id + 1, "session": rec["session"], "clock": rec.get("clock"), "type": rec["type"],
                       "t": float(rec["t"]), "utc": rec["utc"],
                       "data": json.dumps(rec["data"], sort_keys=True, separators=(",", ":"), ensure_ascii=False),
                       "prev": head_hash}
                row["hash"] = record_hash(row)
                self.db.execute("INSERT INTO records VALUES (:id, :session, :clock, :type, :t, :utc, :data, :prev, :hash)",
                                row)
                head_id, head_hash = row["id"], row["hash"]
                ids.append(head_id)
                written.append(dict(row, data=rec["data"]))
            self.db.execute("INSERT OR REPLACE INTO meta VALUES ('head', ?)", (f"{head_id}:{head_hash}",))
            self.db.execute("COMMIT")
        except sqlite3.Error:
            self.db.execute("ROLLBACK")
            raise
        self.head_id, self.head_hash = head_id, head_hash
        self.last_written = written
        return ids

    def next_id(self) -> int:
        """The id the next appended record will get."""
        return self.head_id + 1

    def new_session(self, t: float, utc: str, data: dict) -> int:
        """Record the start of a session (one run of the device); returns its id."""
        session = self.next_id()
        self.append([{"session": session, "clock": None, "type": "session", "t": t, "utc": utc, "data": data}])
        self.session = session
        return session

    # -- reading ---------------------------------------------------------------------

    def rows(self, where: str = "", params: tuple = ()) -> list[dict]:
        """Records as dicts (columns plus the record's own fields), in id order."""
        out = []
        for r in self.db.execute(f"SELECT * FROM records {where} ORDER BY id", params):
            try:
                row = json.loads(r["data"])
            except (ValueError, TypeError):
                row = None
            if not isinstance(row, dict):
                raise LogError(f"{self.path}: record {r['id']} is damaged: its data is not a JSON object "
                               "(see 'shotclock log verify')")
            row.update(id=r["id"], session=r["session"], clock=r["clock"], type=r["type"], t=r["t"], utc=r["utc"])
            out.append(row)
        return out

    def sessions(self) -> dict[int, dict]:
        """Every session record by id: table, mode and the configuration in force."""
        return {r["id"]: r for r in self.rows("WHERE type = 'session'")}

    # -- checking ----------------------------------------------------------------------

    def verify(self, since: int | None = None) -> tuple[bool, str]:
        """(ok, message): walk the chain; name the first record changed, removed or inserted.

        ``since``: walk only from that record (and its link to the one before) to the head, a quick
        check of the newest records for ``shotclock log``; ``log verify`` walks it all.
        """
        anchor = self._meta("anchor")
        expect_id, expect_prev = (int(anchor.split(":")[0]) + 1, anchor.split(":")[1]) if anchor else (1, GENESIS)
        if since is not None and since > expect_id:
            before = self.db.execute("SELECT hash FROM records WHERE id = ?", (since - 1,)).fetchone()
            if before is not None:
                expect_id, expect_prev = since, before[0]
        count = 0
        last = None
        for r in self.db.execute("SELECT * FROM records WHERE id >= ? ORDER BY id", (expect_id,)):
            row = dict(r)
            if row["id"] != expect_id:
                if row["id"] > expect_id:
                    gap = (f"record {expect_id} was removed" if row["id"] == expect_id + 1
                           else f"records {expect_id} to {row['id'] - 1} were removed")
                    return False, gap
                return False, f"record {row['id']} is out of order (inserted)"
            if record_hash(row) != row["hash"]:
                return False, f"record {row['id']} was changed (its content does not match its hash)"
            if row["prev"] != expect_prev:
                return False, (f"record {row['id']} does not follow record {row['id'] - 1}: "
                               "a record was inserted, or one before it was replaced")
            expect_id, expect_prev = row["id"] + 1, row["hash"]
            last = row
            count += 1
        head = self._meta("head")
        if head:
            hid, hhash = int(head.split(":")[0]), head.split(":")[1]
            if last is None or last["id"] < hid:
                after = last["id"] if last else expect_id - 1
                return False, f"the newest records after record {after} were removed (the head is record {hid})"
            if last["id"] > hid or last["hash"] != hhash:
                return False, f"record {last['id']} was inserted or changed after the head (record {hid})"
        return True, f"OK: {count} records, chain intact" + (f" from archived record {anchor.split(':')[0]}" if anchor else "")

    def anchor(self) -> tuple[int, str] | None:
        """(id, hash) of the last archived record the chain continues from, or None."""
        anchor = self._meta("anchor")
        return (int(anchor.split(":")[0]), anchor.split(":")[1]) if anchor else None

    def integrity(self) -> str:
        """SQLite's own ``PRAGMA integrity_check`` ('ok' when the file is sound)."""
        return self.db.execute("PRAGMA integrity_check").fetchone()[0]

    # -- size ----------------------------------------------------------------------------

    def archive(self, keep_days: float, now: datetime | None = None) -> Path | None:
        """Move records older than ``keep_days`` into ``archive/records-FIRST-LAST.jsonl.gz``.

        The chain goes on from an anchor (the last archived record), so ``verify`` still checks
        everything that stays. Returns the archive file, or None when nothing was old enough.
        """
        now = now or datetime.now(timezone.utc)
        cutoff = utc_iso(now - timedelta(days=keep_days))
        row = self.db.execute("SELECT MAX(id) FROM records WHERE utc < ?", (cutoff,)).fetchone()
        last = row[0]
        if last is None:
            return None
        first = self.db.execute("SELECT MIN(id) FROM records").fetchone()[0]
        folder = self.path.parent / "archive"
        folder.mkdir(exist_ok=True)
        path = folder / f"records-{first}-{last}.jsonl.gz"
        with gzip.open(path, "wt", encoding="utf-8") as f:
            for r in self.db.execute("SELECT * FROM records WHERE id <= ? ORDER BY id", (last,)):
                f.write(json.dumps(dict(r), separators=(",", ":"), ensure_ascii=False) + "\n")
        anchor_hash = self.db.execute("SELECT hash FROM records WHERE id = ?", (last,)).fetchone()[0]
        self.db.execute("BEGIN IMMEDIATE")
        self.db.execute("DELETE FROM records WHERE id <= ?", (last,))
        self.db.execute("INSERT OR REPLACE INTO meta VALUES ('anchor', ?)", (f"{last}:{anchor_hash}",))
        self.db.execute("COMMIT")
        log.info("archived records %d to %d into %s", first, last, path)
        return path

    def close(self) -> None:
        """Close the database (a WAL checkpoint happens on the last close)."""
        self.db.close()


def verify_archive(path: str | Path) -> tuple[bool, str, tuple[int, str] | None]:
    """(ok, message, (last id, last hash)) for an archive written by :meth:`DecisionLog.archive`."""
    try:
        with gzip.open(path, "rt", encoding="utf-8") as f:
            rows = [json.loads(line) for line in f]
    except (OSError, EOFError, ValueError) as exc:
        return False, f"cannot read {path}: {exc}", None
    if not rows:
        return False, f"{path} holds no records", None
    prev = rows[0]["prev"]
    for i, row in enumerate(rows):
        if i and row["id"] != rows[i - 1]["id"] + 1:
            return False, f"record {rows[i - 1]['id'] + 1} was removed", None
        if record_hash(row) != row["hash"]:
            return False, f"record {row['id']} was changed (its content does not match its hash)", None
        if row["prev"] != prev:
            return False, f"record {row['id']} does not follow record {row['id'] - 1}", None
        prev = row["hash"]
    last = (rows[-1]["id"], rows[-1]["hash"])
    return True, f"OK: records {rows[0]['id']} to {last[0]}, chain intact", last
