"""The decision log: every input and output in SQLite, hash-chained, safe across power cuts.

* WAL journal; commits that change a clock's state (a start, pause, extension, ruling…) or a
  player's seat or time (a floor command, a seat, a bank, a top-up, the seats) are made with
  ``synchronous=FULL`` so they survive a power cut the moment they are reported; beeps, edges and
  inputs use ``NORMAL`` (``SYNCHRONOUS`` names each kind).
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

from shotclock.core.codec import decode, text as json_text
from shotclock.errors import LogError

log = logging.getLogger("shotclock.log")

DB_NAME = "shotclock.db"
GENESIS = "0" * 64
# How each kind of record is committed. FULL: SQLite syncs the WAL at the commit, so the record survives a
# power cut the moment it is written: what changes or ends a clock, and what the floor relies on about a
# player (a floor command, the seat, bank and top-up it changed, a mark, the seats a restart brings back, a
# refusal).
# NORMAL: it survives a crash of the device (kill -9); a power cut may lose the last ones, which cost no
# ruling: beeps, pin edges, button inputs (the ruling they lead to is FULL), faults, the turn moving on.
# A kind not named here is committed FULL.
SYNCHRONOUS = {
    **dict.fromkeys(("start", "pause", "resume", "extended", "undo", "decision", "interrupted", "checkpoint",
                     "shutdown", "lost", "session", "chips_reset", "chips_restored", "seats_restored"), "FULL"),
    **dict.fromkeys(("command", "seat", "bank", "top_up", "seats", "refused"), "FULL"),
    # What a restart brings back of the tournament: a table waiting for the floor's release starts no clock after
    # a power cut, and a rule set in force rules on.
    **dict.fromkeys(("hand_for_hand", "rule_set", "room_state"), "FULL"),
    **dict.fromkeys(("command", "seat", "bank", "top_up", "seats", "refused", "mark"), "FULL"),
    # the tournament level and its hand count: a restart counts on them (one a hand: a sync a minute or so)
    **dict.fromkeys(("level_set", "level", "level_restored"), "FULL"),
    **dict.fromkeys(("beep", "edge", "input", "fault", "turn", "hand_over", "ignored", "session_taken",
                     "tournament"), "NORMAL"),
}
DURABLE = frozenset(kind for kind, mode in SYNCHRONOUS.items() if mode == "FULL")

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


def lock_state_dir(state_dir: str | Path, wait: float = 5.0) -> int:
    """Take the state directory's lock for one device (an ``flock`` on the directory itself).

    Waits up to ``wait`` seconds (the writer of a device that just died may still be finishing).
    Returns the locked file descriptor: keep it open while the device runs, and let the log
    writer inherit it. Raises :class:`~shotclock.errors.LogError` when another device holds it.
    """
    import fcntl
    import time

    path = Path(state_dir)
    path.mkdir(parents=True, exist_ok=True)
    fd = os.open(path, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)
    deadline = time.monotonic() + wait
    while True:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            return fd
        except BlockingIOError:
            if time.monotonic() >= deadline:
                os.close(fd)
                raise LogError(f"another shotclock device is running on the state directory {path} "
                               "(stop it first, e.g. 'systemctl stop shotclock', or use another --state-dir)") from None
            time.sleep(0.05)


def default_state_dir() -> Path:
    """``$STATE_DIRECTORY`` under systemd, else the platform's user state directory."""
    if os.environ.get("STATE_DIRECTORY"):
        return Path(os.environ["STATE_DIRECTORY"].split(":")[0])
    import platformdirs

    return Path(platformdirs.user_state_dir("shotclock"))


RECORD_COLUMNS = frozenset({"id", "session", "clock", "type", "t", "utc", "data", "prev", "hash"})


def parse_link(value: str) -> tuple[int, str] | None:
    """``"ID:HASH"`` (meta's head and anchor) as (id, hash), or None when it is damaged."""
    ident, _, digest = str(value).partition(":")
    if not ident.isdigit() or len(digest) != 64 or any(c not in "0123456789abcdef" for c in digest):
        return None
    return int(ident), digest


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
    :param busy_timeout: how long a statement waits for another process's lock (seconds).

    Raises :class:`~shotclock.errors.LogError` with the path when it cannot be opened.
    """

    def __init__(self, state_dir: str | Path, readonly: bool = False, busy_timeout: float = 5.0):
        self.path = Path(state_dir) / DB_NAME
        self.readonly = readonly
        try:
            if readonly:
                if not self.path.exists():
                    raise LogError(f"no decision log at {self.path} yet: no clock has been recorded here "
                                   "(give --state-dir DIR for another device's log)")
                self.db = sqlite3.connect(f"file:{self.path}?mode=ro", uri=True, isolation_level=None,
                                          timeout=busy_timeout)
            else:
                self.path.parent.mkdir(parents=True, exist_ok=True)
                self.db = sqlite3.connect(self.path, isolation_level=None, timeout=busy_timeout)
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
            # A new log being set up is no news (the simulator's first run); an upgraded one is.
            log.log(logging.INFO if version else logging.DEBUG, "decision log %s: schema migrated to version %d",
                    self.path, target)

    def _meta(self, key: str, default=None):
        row = self.db.execute("SELECT value FROM meta WHERE key = ?", (key,)).fetchone()
        return row[0] if row else default

    def _head(self) -> tuple[int, str]:
        """The chain's head: meta's head, else the anchor, else genesis. A damaged head value is
        replaced by the newest record (``verify`` still reports the damage)."""
        for key in ("head", "anchor"):
            value = self._meta(key)
            if value:
                parsed = parse_link(value)
                if parsed is not None:
                    return parsed
                log.error("decision log %s: meta %r is damaged (%r); continuing from the newest record",
                          self.path, key, value[:80])
                row = self.db.execute("SELECT id, hash FROM records ORDER BY id DESC LIMIT 1").fetchone()
                if row is not None:
                    return int(row[0]), str(row[1])
        return 0, GENESIS

    # -- writing ---------------------------------------------------------------------

    def append(self, records: list[dict], durable: bool | None = None) -> list[int]:
        """Append records (each with ``session``, ``clock``, ``type``, ``t``, ``utc``, ``data``) in one commit.

        Returns their ids; ``last_written`` then holds the rows as stored (``data`` as a dict).
        ``durable`` forces synchronous=FULL; by default it is used when any record's kind is FULL
        in :data:`SYNCHRONOUS` (or not named there).
        """
        if not records:
            return []
        if durable is None:
            durable = any(SYNCHRONOUS.get(r["type"], "FULL") == "FULL" for r in records)
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
                row = decode(r["data"])
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

    def newest_clock_rows(self) -> list[dict]:
        """The records of the newest clock in the log (empty when it has none), in id order."""
        row = self.db.execute("SELECT MAX(clock) FROM records").fetchone()
        return [] if row[0] is None else self.rows("WHERE clock = ?", (row[0],))

    def chip_rows(self, reset_at_hand: bool) -> list[dict]:
        """The records that count extension chips since the last time they were all given back (or read
        back at a start): ``extended``, ``undo``, ``chips_reset``, ``chips_restored``, and with
        ``reset_at_hand`` the inputs from the last new hand on."""
        since = self.db.execute(
            "SELECT MAX(id) FROM records WHERE type IN ('chips_reset', 'chips_restored')").fetchone()[0] or 0
        if reset_at_hand:  # the last new hand bounds it too, so a long log is not read input by input
            try:
                since = max(since, self.db.execute(
                    "SELECT MAX(id) FROM records WHERE type = 'input' AND json_extract(data, '$.event') = 'hand'"
                ).fetchone()[0] or 0)
            except sqlite3.OperationalError:  # an SQLite without JSON functions: read from the reset on
                pass
        kinds = "'extended', 'undo', 'chips_reset', 'chips_restored'" + (", 'input'" if reset_at_hand else "")
        return self.rows(f"WHERE id >= ? AND type IN ({kinds})", (since,))

    # -- checking ----------------------------------------------------------------------

    def verify(self, since: int | None = None) -> tuple[bool, str]:
        """(ok, message): walk the chain; name the first record changed, removed or inserted.

        A chain that goes on from an archive anchor is only proven when the archives in
        ``archive/`` next to the database lead up to that anchor from the first record.
        ``since``: walk only from that record (and its link to the one before) to the head, a quick
        check of the newest records for ``shotclock log``; ``log verify`` walks it all.
        """
        anchor_text = self._meta("anchor")
        anchor = parse_link(anchor_text) if anchor_text else None
        if anchor_text and anchor is None:
            return False, f"the archive anchor in meta is damaged ({anchor_text[:80]!r})"
        expect_id, expect_prev = (anchor[0] + 1, anchor[1]) if anchor else (1, GENESIS)
        partial = False
        if since is not None and since > expect_id:
            before = self.db.execute("SELECT hash FROM records WHERE id = ?", (since - 1,)).fetchone()
            if before is not None:
                expect_id, expect_prev, partial = since, before[0], True
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
        head_text = self._meta("head")
        if head_text:
            head = parse_link(head_text)
            if head is None:
                return False, f"the head in meta is damaged ({head_text[:80]!r})"
            hid, hhash = head
            newest = (last["id"], last["hash"]) if last else anchor
            if newest is None or newest[0] < hid:
                after = newest[0] if newest else 0
                return False, f"the newest records after record {after} were removed (the head is record {hid})"
            if newest[0] > hid or newest[1] != hhash:
                return False, f"record {newest[0]} was inserted or changed after the head (record {hid})"
        if anchor and not partial:
            ok, message = self._verify_archives_up_to(anchor)
            if not ok:
                return False, message
            return True, f"OK: {count} records, chain intact from archived record {anchor[0]} ({message})"
        return True, f"OK: {count} records, chain intact"

    def _verify_archives_up_to(self, anchor: tuple[int, str]) -> tuple[bool, str]:
        """The archives in ``archive/`` must chain from the first record to ``anchor`` (a forged anchor fails)."""
        folder = self.path.parent / "archive"
        files = []
        for path in folder.glob("records-*-*.jsonl.gz"):
            parts = path.name[len("records-"):-len(".jsonl.gz")].split("-")
            if len(parts) == 2 and all(p.isdigit() for p in parts):
                files.append((int(parts[0]), int(parts[1]), path))
        files.sort()
        expect_id, expect_prev = 1, GENESIS
        for first, last_id, path in files:
            if last_id > anchor[0]:
                break
            if first != expect_id:
                return False, (f"the chain goes on from archived record {anchor[0]}, but no archive in {folder} "
                               f"holds record {expect_id} (moved away? check one with --archive FILE)")
            ok, message, last = verify_archive(path, expect_prev)
            if not ok:
                return False, f"{path.name}: {message}"
            expect_id, expect_prev = last[0] + 1, last[1]
        if expect_id != anchor[0] + 1:
            return False, (f"the chain goes on from archived record {anchor[0]}, but no archive in {folder} "
                           f"holds record {expect_id if expect_id <= anchor[0] else anchor[0]} "
                           "(moved away? check one with --archive FILE)")
        if expect_prev != anchor[1]:
            return False, f"archived record {anchor[0]} differs from the one the live log continues from"
        return True, f"{len([f for f in files if f[1] <= anchor[0]])} archive(s) checked"

    def anchor(self) -> tuple[int, str] | None:
        """(id, hash) of the last archived record the chain continues from, or None."""
        anchor = self._meta("anchor")
        return parse_link(anchor) if anchor else None

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
                f.write(json_text(dict(r)) + "\n")
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


def verify_archive(path: str | Path, first_prev: str | None = None) -> tuple[bool, str, tuple[int, str] | None]:
    """(ok, message, (last id, last hash)) for an archive written by :meth:`DecisionLog.archive`.

    ``first_prev``: the hash the archive's first record must follow (the previous archive's last).
    """
    try:
        with gzip.open(path, "rt", encoding="utf-8") as f:
            rows = [decode(line) for line in f]
        if not rows:
            return False, f"{path} holds no records", None
        for row in rows:
            if not isinstance(row, dict) or not RECORD_COLUMNS <= row.keys():
                raise ValueError("a line is not a record")
    except (OSError, EOFError, ValueError) as exc:
        return False, f"cannot read {path}: {exc}", None
    prev = rows[0]["prev"] if first_prev is None else first_prev
    if rows[0]["id"] == 1 and prev != GENESIS:
        return False, "record 1 does not start the chain", None
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
