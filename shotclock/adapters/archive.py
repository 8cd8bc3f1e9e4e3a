"""The floor's archive: every table's records in one store, deduplicated on (table, boot, seq).

The store is an SQLite file on the collector's machine, or a PostgreSQL database that collectors on several
machines write together (:mod:`shotclock.adapters.archive_store`, the one place their SQL differs).
The collector writes it (:mod:`shotclock.floor.collector`); ``shotclock log --collected DIR
--table ID`` reads one table of it (:class:`CollectedLog`) through a read-only
:class:`~shotclock.adapters.log.DecisionLog` per chain, so list, show, export, stats and verify
work as on the device -- verify checks the device's own hash chain, record by record, as the
events carried it.

A table's records may come from more than one device log: a device replaced, or its state
directory wiped, starts its log again at record 1. Each device log is a **chain** of its own
(:func:`chains`), found from the records themselves: a boot (one run of a device) that starts at
record 1 from the genesis hash starts a chain; a boot whose first record follows a record of
another boot goes on with that boot's chain. A new chain is not a tamper alarm, and an edited,
removed or inserted record inside a chain still is. Clocks are numbered in the order their
start records arrived, so a clock keeps its number whatever arrives later (:func:`clock_numbers`).
"""

from __future__ import annotations

import contextlib
import json
import sqlite3
import threading
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path

from shotclock.adapters.archive_store import (ARCHIVE_NAME, NETWORK_LOCK, Store, archive_path, is_database_url,
                                              open_store)
from shotclock.adapters.log import GENESIS, DecisionLog, utc_iso
from shotclock.core.inbound import Heard
from shotclock.core.wire import row_of_event
from shotclock.errors import LogError

__all__ = ["ARCHIVE_NAME", "EVENT_COLUMNS", "Archive", "Chain", "CollectedLog", "Store", "archive_path", "chains",
           "clock_numbers", "is_database_url", "open_store", "table_log", "tables", "venues"]
CHECKPOINT_EVERY = 2.0  # seconds between two checkpoints of the archive's WAL, off the collector's thread
EVENT_COLUMNS = "table_id, boot, seq, session, clock, type, t, utc, data, prev, hash, received_utc"


class Archive:
    """The archive, open for writing (the collector's).

    :param spec: a folder (``collected.db`` there, created if missing) or a ``postgresql://`` database
        (:mod:`shotclock.adapters.archive_store`). ``db`` is its :class:`~shotclock.adapters.archive_store.Store`;
        ``name`` names it in messages; ``path`` is the SQLite file (None in PostgreSQL).
    :param venue: the venue whose records these are (a tour's database holds several; see :meth:`adopt`).
    """

    def __init__(self, spec: str | Path, venue: str = ""):
        self.db: Store = open_store(spec)
        self.venue = venue
        self.name = self.db.name
        self.path: Path | None = getattr(self.db, "path", None)
        self.added = 0
        self.duplicates = 0
        self._lock = threading.Lock()  # the collector's threads take turns: a transaction is never shared
        self._checkpoints: threading.Thread | None = None
        self._stop_checkpoints = threading.Event()

    def checkpoint_apart(self, every: float = CHECKPOINT_EVERY) -> None:
        """Copy SQLite's WAL into the file from a thread of its own, every ``every`` s, instead of inside a store.

        SQLite's own checkpoint runs in the commit that fills the WAL past 1000 pages: it writes them all into
        the file and syncs it while that store waits -- and with it the collector's one message thread and
        every event behind it (100-odd ms on a small machine's disk: the archive latency's p99 of 149 ms
        against a median of 3 ms). A passive checkpoint on another connection never blocks a store.
        (PostgreSQL checkpoints in a process of its own.)
        """
        if self._checkpoints is not None or self.path is None:
            return
        self.db.execute("PRAGMA wal_autocheckpoint=0")
        path = self.path

        def run():
            db = sqlite3.connect(path, timeout=30.0, check_same_thread=False)
            try:
                while not self._stop_checkpoints.wait(every):
                    try:
                        db.execute("PRAGMA wal_checkpoint(PASSIVE)").fetchall()
                    except sqlite3.Error:
                        pass  # a busy or full disk: the next one tries again (the WAL keeps every record)
            finally:
                db.close()

        self._checkpoints = threading.Thread(target=run, name="archive-checkpoint", daemon=True)
        self._checkpoints.start()

    def adopt(self, venue: str) -> None:
        """Store records as ``venue``'s from now on; records kept before the archive knew venues (an SQLite archive
        from before schema 3, one venue's) become this venue's too."""
        self.venue = venue
        try:
            with self._lock:
                self.db.execute("UPDATE events SET venue = ? WHERE venue = ''", (venue,))
                self.db.execute("UPDATE network SET venue = ? WHERE venue = ''", (venue,))
        except self.db.errors as exc:
            raise LogError(f"cannot write the archive {self.name}: {exc}") from None

    def add(self, message: dict, received: datetime | None = None) -> bool:
        """Store one ``event`` message, committed when this returns; False when (table, boot, seq) was there
        already. Any record type is stored the same way (its fields are ``data``)."""
        return self.add_many([message], received)[0]

    def add_many(self, messages: list[dict], received: datetime | None = None) -> list[bool]:
        """Store ``event`` messages in one transaction, all committed when this returns (one commit, and in
        PostgreSQL one sync, for them all), or none when it raises; for each, False when it was there already."""
        received = utc_iso(received or datetime.now(timezone.utc))
        rows = [self._row(message, received) for message in messages]
        insert = (f"INSERT INTO events ({EVENT_COLUMNS}, venue) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) "
                  "ON CONFLICT (table_id, boot, seq) DO NOTHING")
        with self._lock, (self.db.transaction() if len(rows) > 1 else contextlib.nullcontext()):
            stored = [self.db.execute(insert, row).rowcount > 0 for row in rows]  # one alone commits on its own
        self.added += sum(stored)
        self.duplicates += len(stored) - sum(stored)
        return stored

    def _row(self, message: dict, received: str) -> tuple:
        row = row_of_event(message)
        chain = message.get("log") or {}
        return (message["table"], message["boot"], message["seq"], chain.get("session"), chain.get("clock"),
                row["type"], row["t"], chain.get("utc") or received,
                json.dumps(row["data"], sort_keys=True, separators=(",", ":"), ensure_ascii=False),
                chain.get("prev", ""), chain.get("hash", ""), received, self.venue)

    def note(self, kind: str, name: str, up: bool, detail: str = "", when: datetime | None = None) -> bool:
        """Record that a part of the floor network went down or came back: ``kind`` ``bridge`` (a room broker's
        bridge, ``name`` its room; ``detail`` the tables it hides) or ``member`` (a share group's member,
        ``group/member``). Only a change is kept: False when the last row for it says ``up`` already (the members
        of a share group all see it; they take turns, so two of them cannot both add it)."""
        with self._lock, self.db.exclusive(NETWORK_LOCK):
            cursor = self.db.execute(
                "INSERT INTO network (kind, name, up, utc, detail, venue) SELECT ?, ?, ?, ?, ?, ? WHERE coalesce(("
                f"SELECT up FROM network WHERE kind = ? AND name = ? AND venue = ? ORDER BY {self.db.arrival} DESC "
                "LIMIT 1), -1) != ?",
                (kind, name, int(up), utc_iso(when or datetime.now(timezone.utc)), detail, self.venue, kind, name,
                 self.venue, int(up)))
            return cursor.rowcount > 0

    def network(self) -> list[tuple[str, str, bool, str, str]]:
        """Every change :meth:`note` kept for this venue, oldest first: (kind, name, up, utc, detail)."""
        with self._lock:
            rows = self.db.execute(f"SELECT kind, name, up, utc, detail FROM network WHERE venue = ? "
                                   f"ORDER BY {self.db.arrival}", (self.venue,)).fetchall()
        return [(k, n, bool(u), t, d) for k, n, u, t, d in rows]

    def keep_heard(self, heard: list[tuple[Heard, int]]) -> None:
        """Keep what the broadcast overlay draws from beside the records (:class:`~shotclock.core.inbound.Heard`,
        each with when the collector received it, Unix ms), in one transaction: its history (docs/network.md)."""
        rows = [(self.venue, h.topic, h.table, h.boot, h.seq, h.payload, received_ms) for h, received_ms in heard]
        with self._lock, self.db.transaction():
            for row in rows:
                self.db.execute("INSERT INTO heard (venue, topic, table_id, boot, seq, payload, received_ms) "
                                "VALUES (?, ?, ?, ?, ?, ?, ?)", row)

    def forget_heard(self, before_ms: int) -> int:
        """Forget what was heard before ``before_ms`` (Unix ms), but the newest of each topic: what is in force at
        the start of the overlay's longest delay. Returns how many went."""
        with self._lock:
            return self.db.execute(
                "DELETE FROM heard WHERE venue = ? AND received_ms < ? AND received_ms < "
                "(SELECT MAX(h.received_ms) FROM heard h WHERE h.venue = heard.venue AND h.topic = heard.topic)",
                (self.venue, before_ms)).rowcount

    def count(self) -> int:
        """Records stored."""
        with self._lock:
            return self.db.execute("SELECT COUNT(*) FROM events").fetchone()[0]

    def close(self) -> None:
        """Close the archive (after the checkpoint thread, if any)."""
        if self._checkpoints is not None:
            self._stop_checkpoints.set()
            self._checkpoints.join(5)
        self.db.close()


def tables(spec: str | Path, venue: str | None = None) -> list[tuple[str, int, str, str]]:
    """(table id, records, first utc, last utc) for every table in the archive ``spec`` names (a folder, its file
    or a ``postgresql://`` database); ``venue``'s only when given."""
    db = open_store(spec, readonly=True, venue=venue)
    try:
        return [tuple(row) for row in db.execute("SELECT table_id, COUNT(*), MIN(utc), MAX(utc) FROM events "
                                                 "GROUP BY table_id ORDER BY table_id")]
    except db.errors as exc:
        raise LogError(f"cannot read the archive {db.name}: {exc}") from None
    finally:
        db.close()


def venues(spec: str | Path) -> list[str]:
    """The venues whose records the archive ``spec`` names holds (one, unless it is a tour's database)."""
    db = open_store(spec, readonly=True)
    try:
        if db.version() < 3:
            return [""]  # from before venues: one venue's
        return [row[0] for row in db.execute("SELECT DISTINCT venue FROM events ORDER BY venue")]
    except db.errors as exc:
        raise LogError(f"cannot read the archive {db.name}: {exc}") from None
    finally:
        db.close()


@dataclass
class Chain:
    """One device log's records of a table in the archive: the boots whose records chain on from each other.

    ``number`` counts a table's chains 1, 2, 3... in the order they first arrived; ``first`` and ``last``
    are the device's ids of its first and last record in the archive; ``new_log``: its first record is the
    device log's first (a new device, or a state directory wiped), not one the archive joined late."""

    number: int
    boots: list[str]
    first: int
    last: int
    records: int
    first_utc: str
    last_utc: str
    new_log: bool


def chains(db: Store, table: str) -> list[Chain]:
    """The chains of ``table`` in the archive's ``events``, oldest first (see the module's docstring).

    A boot whose first record follows no record the archive holds (a record lost, removed, changed, or
    one inserted) goes on with the chain that holds the nearest record before it, so that ``verify``
    fails there and names what is wrong; only when no chain arrived before it does it start one of its
    own, from its first record (the collector started after the device).
    """
    boots = list(db.execute(f"SELECT boot, MIN({db.arrival}), MIN(seq), MAX(seq), COUNT(*), MIN(utc), MAX(utc) "
                            f"FROM events WHERE table_id = ? GROUP BY boot ORDER BY MIN({db.arrival})", (table,)))
    parent = {boot: boot for boot, *_ in boots}

    def root(boot: str) -> str:
        while parent[boot] != boot:
            boot = parent[boot]
        return boot

    loose = []  # boots whose first record follows no record the archive holds
    for boot, _, first, *_ in boots:
        (prev,) = db.execute("SELECT prev FROM events WHERE table_id = ? AND boot = ? AND seq = ?",
                             (table, boot, first)).fetchone()
        if first == 1 and prev == GENESIS:
            continue  # the first record of a device log: a chain of its own
        before = db.execute("SELECT boot FROM events WHERE table_id = ? AND seq = ? AND hash = ? AND boot != ? "
                            "LIMIT 1", (table, first - 1, prev, boot)).fetchone()
        if before is not None and root(before[0]) != boot:
            parent[boot] = root(before[0])
        else:
            loose.append((boot, first))
    arrived = {boot: arrival for boot, arrival, *_ in boots}
    for boot, first in loose:  # in the order they arrived
        best = None  # (the nearest record before it, the chain's latest arrival before it, the chain's root)
        for group in {root(b) for b in parent} - {root(boot)}:
            members = [b for b in parent if root(b) == group and arrived[b] < arrived[boot]]
            if not members:
                continue
            (nearest,) = db.execute("SELECT MAX(seq) FROM events WHERE table_id = ? AND seq < ? AND boot IN (%s)"
                                    % ",".join("?" * len(members)), (table, first, *members)).fetchone()
            if nearest is not None and (best is None or (nearest, max(arrived[b] for b in members)) > best[:2]):
                best = (nearest, max(arrived[b] for b in members), group)
        if best is not None:
            parent[root(boot)] = best[2]
    groups: dict[str, list] = {}
    for row in boots:  # in arrival order: a chain's first boot is the one that arrived first
        groups.setdefault(root(row[0]), []).append(row)
    out = []
    for number, rows in enumerate(sorted(groups.values(), key=lambda rows: rows[0][1]), start=1):
        first = min(r[2] for r in rows)
        (prev,) = db.execute("SELECT prev FROM events WHERE table_id = ? AND seq = ? AND boot IN (%s) LIMIT 1"
                             % ",".join("?" * len(rows)), (table, first, *[r[0] for r in rows])).fetchone()
        out.append(Chain(number, [r[0] for r in rows], first, max(r[3] for r in rows), sum(r[4] for r in rows),
                         min(r[5] for r in rows), max(r[6] for r in rows), first == 1 and prev == GENESIS))
    return out


def clock_numbers(db: Store, table: str, table_chains: list[Chain]) -> dict[tuple[int, int], int]:
    """Every clock of ``table`` by (chain number, its id in the device's log) → its number, 1, 2, 3... in the
    order the start records arrived: what ``shotclock log --collected DIR --table ID`` lists and ``show N`` takes.
    A clock's number never changes, whatever arrives after it (another device's clocks included)."""
    chain_of = {boot: chain.number for chain in table_chains for boot in chain.boots}
    starts = db.execute("SELECT boot, seq FROM events WHERE table_id = ? AND type = 'start' AND clock = seq "
                        f"ORDER BY {db.arrival}", (table,))
    return {(chain_of[boot], seq): number for number, (boot, seq) in enumerate(starts, start=1)}


class _ChainLog(DecisionLog):
    """A read-only log over one chain of the archive: its chain begins at the first record the archive holds
    (the floor's archive keeps no archive files of its own, whatever the device archived)."""

    def _verify_archives_up_to(self, anchor):
        return True, f"the floor's archive holds it from record {anchor[0] + 1} on"


class CollectedLog:
    """One table of the archive, read as ``shotclock log`` reads a device's log, one chain at a time.

    ``chains`` are the table's :class:`Chain`\\ s and ``logs`` a read-only
    :class:`~shotclock.adapters.log.DecisionLog` over each (records by the device's own ids), oldest
    first. :meth:`verify` checks every chain; :meth:`sessions` and :meth:`rows` read the newest chain
    (what ``log replay`` replays).
    """

    def __init__(self, path: Path | str, table: str, table_chains: list[Chain], logs: list[DecisionLog],
                 numbers: dict[tuple[int, int], int]):
        self.path = path
        self.table = table
        self.chains = table_chains
        self.logs = logs
        self.numbers = numbers

    def verify(self, since: int | None = None) -> tuple[bool, str]:
        """(ok, message): every chain's hash chain, as :meth:`DecisionLog.verify`; a failure names its chain.
        ``since`` is not used: the whole table is checked (the archive is on the floor's own disk)."""
        for chain, log in zip(self.chains, self.logs):
            ok, message = log.verify()
            if not ok:
                return False, f"{self.describe(chain)}: {message}"
        if len(self.chains) == 1:
            return True, f"OK: {chain.records} records, chain intact" + (
                "" if chain.new_log else f" from record {chain.first} (the first the archive holds)")
        return True, (f"OK: {len(self.chains)} chains, each intact (a device log each: a new device, or its log "
                      f"wiped, starts one): " + "; ".join(map(self.describe, self.chains)))

    def describe(self, chain: Chain) -> str:
        """A chain in a message: its number, its records and when it began (local time)."""
        start = "1" if chain.new_log else f"{chain.first} (the first the archive holds)"
        try:
            since = datetime.fromisoformat(chain.first_utc.replace("Z", "+00:00")).astimezone()
            since_text = since.strftime("%Y-%m-%d %H:%M:%S")
        except ValueError:  # a damaged time: verify names the record
            since_text = chain.first_utc
        return f"chain {chain.number} (records {start} to {chain.last}, since {since_text})"

    def integrity(self) -> str:
        """The store's own check: SQLite's integrity check of the archive file (PostgreSQL checks its pages itself,
        and the chain's records are read into one in memory)."""
        return self.logs[0].integrity()

    def anchor(self) -> None:
        """The floor's archive continues from no archive file of its own."""
        return None

    def sessions(self) -> dict[int, dict]:
        """The newest chain's sessions (see :meth:`DecisionLog.sessions`)."""
        return self.logs[-1].sessions()

    def rows(self, where: str = "", params: tuple = ()) -> list[dict]:
        """The newest chain's records (see :meth:`DecisionLog.rows`)."""
        return self.logs[-1].rows(where, params)

    def close(self) -> None:
        """Close every chain's connection."""
        for log in self.logs:
            log.close()


def table_log(spec: str | Path, table: str, venue: str | None = None) -> CollectedLog:
    """One table of the archive ``spec`` names as a read-only :class:`CollectedLog` (records by the device's ids);
    with ``venue``, that venue's table of that name (a tour's database may hold a table 7 of several venues)."""
    db = open_store(spec, readonly=True, venue=venue)
    try:
        with db.reading():  # one snapshot: the chains and the records they hold agree
            known = [r[0] for r in db.execute("SELECT DISTINCT table_id FROM events ORDER BY table_id")]
            if table not in known:
                raise LogError(f"no table {table!r} in the archive {db.name} (tables: {', '.join(known) or 'none'})")
            table_chains = chains(db, table)
            numbers = clock_numbers(db, table, table_chains)
            logs = [_chain_log(db, table, chain) for chain in table_chains]
    except db.errors as exc:
        raise LogError(f"cannot read the archive {db.name}: {exc}") from None
    finally:
        db.close()
    return CollectedLog(db.name, table, table_chains, logs, numbers)


def _chain_log(store: Store, table: str, chain: Chain) -> DecisionLog:
    """A read-only DecisionLog over one chain, on a connection of its own (its ``records``)."""
    db = store.chain_db(table, chain.boots)
    if not chain.new_log:  # verify() starts the chain at the first record the archive holds, as after an archiving
        (prev,) = db.execute("SELECT prev FROM records WHERE id = ? LIMIT 1", (chain.first,)).fetchone()
        db.execute("INSERT INTO meta VALUES ('anchor', ?)", (f"{chain.first - 1}:{prev}",))
    log = _ChainLog.over(db, Path("."))
    log.path = store.name  # a file's path, or a database's URL without its password (messages only)
    return log
