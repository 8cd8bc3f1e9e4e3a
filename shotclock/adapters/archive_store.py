"""Where the floor's archive lives: an SQLite file on this machine, or a PostgreSQL database.

``--archive DIR`` (or the file ``DIR/collected.db``) is SQLite, the embedded default for one collector on one
machine; ``--archive postgresql://…`` is a PostgreSQL database, which collectors on several machines (one MQTT 5
share group) write together and a tour's venues can share. :func:`open_store` opens either as a
:class:`Store`: one connection with one ``execute(sql, params)`` whose SQL is written once, with ``?``
placeholders, for both. What differs between the two is here and only here: the placeholders, the column that
orders records by arrival (SQLite's ``rowid``, PostgreSQL's ``arrival``), the schema's types, the lock a
change of the ``network`` table takes, which errors are a fault of the store (retried) and which a value it
cannot take (refused), and how a read-only chain of one table's records is handed to the decision log's checks.

The schema is versioned the same way in both: :data:`MIGRATIONS` numbers each step, ``schema_version`` keeps
one row per step applied, and a writer applies the missing steps in order, each in a transaction of its own
(two collectors starting together take turns). A reader never migrates; an archive written by a newer
shotclock is refused in one line.

psycopg (3) is needed for PostgreSQL only: ``pip install 'shotclock[postgresql]'`` on the floor machine.
"""

from __future__ import annotations

import contextlib
import sqlite3
import threading
import time
from pathlib import Path
from urllib.parse import urlsplit

from shotclock.errors import LogError

ARCHIVE_NAME = "collected.db"
URL_SCHEMES = ("postgresql://", "postgres://")
BUSY_TIMEOUT = 30.0  # seconds a write waits for another process's lock on an SQLite archive
CONNECT_TIMEOUT = 10  # seconds to reach a PostgreSQL server
MIGRATION_LOCK = 0x73686F74  # PostgreSQL advisory lock: one collector migrates at a time ("shot")
NETWORK_LOCK = 0x6E6F7465  # PostgreSQL advisory lock: one change of the network table at a time ("note")

# Each step of the archive's schema, numbered, in SQLite's and PostgreSQL's words. Text columns in PostgreSQL sort
# bytewise (COLLATE "C"), as SQLite's do, so both stores list tables and times in one order.
MIGRATIONS: dict[int, dict[str, list[str]]] = {
    1: {  # the archive as it was before it had versions (IF NOT EXISTS: an older SQLite archive is kept as it is)
        "sqlite": [
            """CREATE TABLE IF NOT EXISTS events (
                table_id TEXT NOT NULL, boot TEXT NOT NULL, seq INTEGER NOT NULL, session INTEGER, clock INTEGER,
                type TEXT NOT NULL, t REAL NOT NULL, utc TEXT NOT NULL, data TEXT NOT NULL, prev TEXT NOT NULL,
                hash TEXT NOT NULL, received_utc TEXT NOT NULL, PRIMARY KEY (table_id, boot, seq))""",
            "CREATE INDEX IF NOT EXISTS events_table_seq ON events (table_id, seq)",
            """CREATE TABLE IF NOT EXISTS network (
                kind TEXT NOT NULL, name TEXT NOT NULL, up INTEGER NOT NULL, utc TEXT NOT NULL,
                detail TEXT NOT NULL)""",
        ],
        "postgresql": [
            """CREATE TABLE events (
                table_id TEXT COLLATE "C" NOT NULL, boot TEXT COLLATE "C" NOT NULL, seq BIGINT NOT NULL,
                session BIGINT, clock BIGINT, type TEXT COLLATE "C" NOT NULL, t DOUBLE PRECISION NOT NULL,
                utc TEXT COLLATE "C" NOT NULL, data TEXT COLLATE "C" NOT NULL, prev TEXT COLLATE "C" NOT NULL,
                hash TEXT COLLATE "C" NOT NULL, received_utc TEXT COLLATE "C" NOT NULL,
                arrival BIGSERIAL NOT NULL UNIQUE, PRIMARY KEY (table_id, boot, seq))""",
            "CREATE INDEX events_table_seq ON events (table_id, seq)",
            """CREATE TABLE network (
                kind TEXT COLLATE "C" NOT NULL, name TEXT COLLATE "C" NOT NULL, up INTEGER NOT NULL,
                utc TEXT COLLATE "C" NOT NULL, detail TEXT COLLATE "C" NOT NULL, arrival BIGSERIAL PRIMARY KEY)""",
        ],
    },
    2: {  # the archive's own id: collectors on several machines know they write one archive by it
        "sqlite": ["CREATE TABLE archive (key TEXT PRIMARY KEY, value TEXT NOT NULL)",
                   "INSERT INTO archive VALUES ('id', lower(hex(randomblob(8))))"],
        "postgresql": ['CREATE TABLE archive (key TEXT COLLATE "C" PRIMARY KEY, value TEXT NOT NULL)',
                       "INSERT INTO archive VALUES "
                       "('id', substr(md5(random()::text || clock_timestamp()::text), 1, 16))"],
    },
    3: {  # the venue of each record and network change: one database can hold a tour's venues (docs/network.md)
        "sqlite": ["ALTER TABLE events ADD COLUMN venue TEXT NOT NULL DEFAULT ''",
                   "ALTER TABLE network ADD COLUMN venue TEXT NOT NULL DEFAULT ''"],
        "postgresql": ["""ALTER TABLE events ADD COLUMN venue TEXT COLLATE "C" NOT NULL DEFAULT ''""",
                       """ALTER TABLE network ADD COLUMN venue TEXT COLLATE "C" NOT NULL DEFAULT ''"""],
    },
    4: {  # the broadcast overlay's history: what it draws from beside the records, kept for the longest delay
        "sqlite": [
            """CREATE TABLE heard (
                venue TEXT NOT NULL, topic TEXT NOT NULL, table_id TEXT NOT NULL, boot TEXT NOT NULL,
                seq INTEGER NOT NULL, payload TEXT NOT NULL, received_ms INTEGER NOT NULL)""",
            "CREATE INDEX heard_received ON heard (venue, received_ms)",
            "CREATE INDEX heard_topic ON heard (venue, topic, received_ms)",
            "CREATE INDEX events_table_received ON events (table_id, received_utc)",
        ],
        "postgresql": [
            """CREATE TABLE heard (
                venue TEXT COLLATE "C" NOT NULL, topic TEXT COLLATE "C" NOT NULL, table_id TEXT COLLATE "C" NOT NULL,
                boot TEXT COLLATE "C" NOT NULL, seq BIGINT NOT NULL, payload TEXT COLLATE "C" NOT NULL,
                received_ms BIGINT NOT NULL, arrival BIGSERIAL PRIMARY KEY)""",
            "CREATE INDEX heard_received ON heard (venue, received_ms)",
            "CREATE INDEX heard_topic ON heard (venue, topic, received_ms)",
            "CREATE INDEX events_table_received ON events (table_id, received_utc)",
        ],
    },
}
SCHEMA_VERSION = max(MIGRATIONS)
VERSION_TABLE = "CREATE TABLE IF NOT EXISTS schema_version (version INTEGER PRIMARY KEY, applied_utc TEXT NOT NULL)"
NOW_UTC = {"sqlite": "strftime('%Y-%m-%dT%H:%M:%fZ', 'now')",
           "postgresql": "to_char(now() AT TIME ZONE 'UTC', 'YYYY-MM-DD\"T\"HH24:MI:SS.MS\"Z\"')"}


def is_database_url(spec: str | Path) -> bool:
    """True when ``--archive`` names a PostgreSQL database (``postgresql://…``), not a folder or file."""
    return isinstance(spec, str) and spec.startswith(URL_SCHEMES)


def shown_url(url: str) -> str:
    """A database URL as messages and the collector's status show it: without its password or parameters."""
    try:
        parts = urlsplit(url)
        user = f"{parts.username}@" if parts.username else ""
        port = f":{parts.port}" if parts.port else ""
    except ValueError:  # malformed: the connection says what is wrong; the address may hold a password
        return url.split("://", 1)[0] + "://(a malformed address)"
    return f"{parts.scheme}://{user}{parts.hostname or ''}{port}{parts.path}"


def archive_path(folder: str | Path) -> Path:
    """The SQLite archive's file in ``folder``."""
    return Path(folder) / ARCHIVE_NAME


def sqlite_file(spec: str | Path) -> Path:
    """The SQLite archive ``spec`` names: its folder (as ``floor collect --archive`` takes it), or the file itself."""
    path = Path(spec)
    return path if path.is_file() else archive_path(path)


def open_store(spec: str | Path, readonly: bool = False, venue: str | None = None) -> "Store":
    """The archive ``spec`` names, open: a PostgreSQL database (a ``postgresql://`` URL) or an SQLite file (a folder,
    or the file). A writer (``readonly`` False) creates and migrates it; a reader needs it there. A reader given a
    ``venue`` sees that venue's records only (a tour's database holds several): its ``events`` are a view of them.

    Raises :class:`~shotclock.errors.LogError` naming the archive when it cannot be opened."""
    store = PostgresStore(str(spec), readonly) if is_database_url(spec) else \
        SQLiteStore(sqlite_file(spec) if readonly else archive_path(spec), readonly)
    if venue is not None:
        try:
            store.only_venue(venue)
            store.venue = venue
        except store.errors as exc:
            store.close()
            raise LogError(f"cannot read the archive {store.name}: {_first_line(exc)}") from None
    return store


class Store:
    """One connection to the archive. ``execute(sql, params)`` takes SQL with ``?`` placeholders and returns a
    cursor (``fetchone``, ``fetchall``, iteration, ``rowcount``), each statement committed on its own.

    ``name`` names the archive in messages (a file's path, a URL without its password); ``spec`` is what opens
    it again (the Answerer's own connection); ``arrival`` is the column that orders records as they arrived;
    ``errors`` are every error of the store and ``refusals`` those that mean a value it cannot take (anything
    else is a fault of the store: a full disk, a lost server, retried).
    """

    kind = ""
    arrival = ""
    venue: str | None = None  # only this venue's records are read (only_venue), or every venue's
    errors: tuple[type[BaseException], ...] = ()
    refusals: tuple[type[BaseException], ...] = ()
    name: str | Path
    spec: str | Path

    def execute(self, sql: str, params=()):
        raise NotImplementedError

    def transaction(self):
        """A transaction: its statements are committed together when it ends, or none of them."""
        raise NotImplementedError

    def exclusive(self, lock: int = MIGRATION_LOCK):
        """A transaction no other writer of this archive runs beside while it holds ``lock`` (PostgreSQL: an advisory
        lock by that number; SQLite locks the whole file): its statements see what others committed before."""
        raise NotImplementedError

    def reading(self):
        """A transaction whose statements all read one snapshot of the archive (a report, a table's chains)."""
        raise NotImplementedError

    def instance(self) -> str:
        """The archive's identity in the collector's status: two collectors with the same write one archive."""
        raise NotImplementedError

    def integrity(self) -> str:
        """The store's own check of its files: ``ok``, or what is wrong."""
        raise NotImplementedError

    def only_venue(self, venue: str) -> None:
        """From now on this connection's ``events`` are ``venue``'s records only (a temporary view by that name)."""
        raise NotImplementedError

    def chain_db(self, table: str, boots: list[str]) -> sqlite3.Connection:
        """A read-only SQLite connection whose ``records`` are ``table``'s records of ``boots`` (one chain, the
        device's ids) and whose ``meta`` is empty: what :class:`~shotclock.adapters.log.DecisionLog` reads."""
        raise NotImplementedError

    def close(self) -> None:
        raise NotImplementedError

    # -- the schema --------------------------------------------------------------------------------

    def version(self) -> int:
        """The schema version of the archive: 0 when it has no ``schema_version`` (new, or from before versions)."""
        try:
            with self.reading():
                row = self.execute("SELECT MAX(version) FROM schema_version").fetchone()
        except self.errors:
            return 0
        return (row[0] or 0) if row else 0

    def migrate(self) -> None:
        """Apply the missing steps of :data:`MIGRATIONS` in order, each in a transaction of its own."""
        while True:
            with self.exclusive():
                self.execute(VERSION_TABLE)
                (version,) = self.execute("SELECT COALESCE(MAX(version), 0) FROM schema_version").fetchone()
                self.check_version(version)
                if version == SCHEMA_VERSION:
                    return
                for statement in MIGRATIONS[version + 1][self.kind]:
                    self.execute(statement)
                self.execute(f"INSERT INTO schema_version VALUES (?, {NOW_UTC[self.kind]})", (version + 1,))

    def check_version(self, version: int) -> None:
        """Refuse an archive a newer shotclock wrote (its schema has steps this one does not know)."""
        if version > SCHEMA_VERSION:
            raise LogError(f"the archive {self.name} was written by a newer shotclock (schema {version} > "
                           f"{SCHEMA_VERSION}); update this one")


class SQLiteStore(Store):
    """The archive in one SQLite file (WAL), for one collector on one machine."""

    kind = "sqlite"
    arrival = "rowid"
    errors = (sqlite3.Error,)
    refusals = (sqlite3.DataError, sqlite3.IntegrityError, sqlite3.InterfaceError)

    def __init__(self, path: Path, readonly: bool = False):
        self.path = self.name = self.spec = Path(path)
        self.readonly = readonly
        try:
            if readonly:
                if not self.path.exists():
                    raise LogError(f"no archive at {self.path} (see 'shotclock floor collect')")
                self.db = sqlite3.connect(f"file:{self.path}?mode=ro", uri=True, isolation_level=None,
                                          check_same_thread=False, timeout=5.0)
                self.check_version(self.version())
            else:
                self.path.parent.mkdir(parents=True, exist_ok=True)
                self.db = sqlite3.connect(self.path, isolation_level=None, check_same_thread=False,
                                          timeout=BUSY_TIMEOUT)
                self._set_up()
        except (sqlite3.Error, OSError) as exc:
            raise LogError(f"cannot open the archive {self.path}: {exc}") from None

    def _set_up(self) -> None:
        """WAL, the sync level and the schema. Two collectors that open a new file together both switch it to WAL,
        and SQLite answers the second "locked" at once, without waiting its busy timeout (a rollback journal's lock
        cannot wait there): so that is tried again, up to the busy timeout."""
        end = time.monotonic() + BUSY_TIMEOUT
        while True:
            try:
                self.db.execute("PRAGMA journal_mode=WAL")
                self.db.execute("PRAGMA synchronous=NORMAL")
                break
            except sqlite3.OperationalError as exc:
                if "locked" not in str(exc) or time.monotonic() > end:
                    raise
                time.sleep(0.05)
        self.migrate()

    def execute(self, sql: str, params=()):
        return self.db.execute(sql, params)

    def transaction(self):
        return self.exclusive()  # SQLite has one writer at a time anyway

    @contextlib.contextmanager
    def exclusive(self, lock: int = MIGRATION_LOCK):
        self.db.execute("BEGIN IMMEDIATE")
        try:
            yield
        except BaseException:
            self.db.execute("ROLLBACK")
            raise
        self.db.execute("COMMIT")

    @contextlib.contextmanager
    def reading(self):
        self.db.execute("BEGIN")
        try:
            yield
        finally:
            self.db.execute("COMMIT")

    def instance(self) -> str:
        import socket

        return f"{socket.gethostname()}:{self.path.resolve()}"

    def integrity(self) -> str:
        return self.db.execute("PRAGMA integrity_check").fetchone()[0]

    def only_venue(self, venue: str) -> None:
        if self.version() < 3:
            return  # an archive from before venues: one venue's
        # The view has no rowid of its own: the arrival order comes along as a column.
        self.db.execute(f"CREATE TEMP VIEW events AS SELECT rowid AS arrival, * FROM main.events "
                        f"WHERE venue = {_quote(venue)}")
        self.arrival = "arrival"

    def chain_db(self, table: str, boots: list[str]) -> sqlite3.Connection:
        db = sqlite3.connect(f"file:{self.path}?mode=ro", uri=True, isolation_level=None)
        quoted = ", ".join(_quote(boot) for boot in boots)
        db.execute("CREATE TEMP VIEW records AS SELECT seq AS id, session, clock, type, t, utc, data, prev, hash "
                   f"FROM events WHERE table_id = {_quote(table)} AND boot IN ({quoted})")
        db.execute("CREATE TEMP TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL)")
        return db

    def close(self) -> None:
        self.db.close()


class PostgresStore(Store):
    """The archive in a PostgreSQL database: several collectors (on several machines) write it, each record
    committed before the broker hears it is stored. A lost connection is opened again at the next statement."""

    kind = "postgresql"
    arrival = "arrival"

    def __init__(self, url: str, readonly: bool = False):
        try:
            import psycopg
        except ImportError:
            raise LogError("an archive in PostgreSQL needs psycopg: pip install 'shotclock[postgresql]' "
                           "(or Debian's python3-psycopg)") from None
        self._psycopg = psycopg
        self.errors = (psycopg.Error,)
        # A value the database cannot take (a NUL character in a text, a number out of range): refused, not retried.
        self.refusals = (psycopg.DataError, psycopg.IntegrityError)
        self.spec, self.name, self.readonly = url, shown_url(url), readonly
        self._lock = threading.RLock()  # a transaction's statements are never interleaved with another thread's
        self._venue: str | None = None  # only_venue's, made again on a new connection
        self.db = None
        try:
            self._connect()
            if readonly:
                if self.execute("SELECT to_regclass('events')").fetchone()[0] is None:
                    raise LogError(f"no archive in the database {self.name} (see 'shotclock floor collect')")
                self.check_version(self.version())
            else:
                self.migrate()
        except psycopg.Error as exc:  # libpq may quote the address, and with it a password: never shown
            raise LogError(f"cannot open the archive {self.name}: {_first_line(exc).replace(url, self.name)}") \
                from None

    def _connect(self) -> None:
        self.db = self._psycopg.connect(self.spec, autocommit=True, connect_timeout=CONNECT_TIMEOUT,
                                        application_name="shotclock-collector")
        if self.readonly:
            self.db.execute("SET default_transaction_read_only = on")

    def _connection(self):
        if self.db is None or self.db.closed or self.db.broken:
            if self.db is not None:
                self.db.close()
            self._connect()
            if self._venue is not None:
                self.only_venue(self._venue)
        return self.db

    def execute(self, sql: str, params=()):
        with self._lock:
            return self._connection().execute(sql.replace("?", "%s"), params)

    @contextlib.contextmanager
    def transaction(self):
        with self._lock, self._connection().transaction():
            yield

    @contextlib.contextmanager
    def exclusive(self, lock: int = MIGRATION_LOCK):
        with self._lock, self._connection().transaction():
            self.db.execute("SELECT pg_advisory_xact_lock(%s)", (lock,))
            yield

    @contextlib.contextmanager
    def reading(self):
        with self._lock:
            db = self._connection()
            db.execute("BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY")
            try:
                yield
            finally:
                if not db.closed:
                    db.execute("ROLLBACK")

    def instance(self) -> str:
        row = self.execute("SELECT value FROM archive WHERE key = 'id'").fetchone()
        (database,) = self.execute("SELECT current_database()").fetchone()
        return f"postgresql:{database}:{row[0] if row else '?'}"

    def integrity(self) -> str:
        return "ok"  # PostgreSQL checks its own pages; the records' hash chains are checked by verify

    def only_venue(self, venue: str) -> None:
        with self._lock:
            db = self._connection()
            if self.readonly:
                db.execute("SET default_transaction_read_only = off")
            # Temporary views come first in the search path: this connection's "events" are the venue's.
            db.execute(f"CREATE TEMP VIEW events AS SELECT * FROM events WHERE venue = {_quote(venue)}")
            if self.readonly:
                db.execute("SET default_transaction_read_only = on")
            self._venue = venue

    def chain_db(self, table: str, boots: list[str]) -> sqlite3.Connection:
        # The decision log's checks read SQLite: the chain's records are copied into one in memory.
        db = sqlite3.connect(":memory:", isolation_level=None)
        db.execute("CREATE TABLE records (id INTEGER, session INTEGER, clock INTEGER, type TEXT, t REAL, utc TEXT, "
                   "data TEXT, prev TEXT, hash TEXT)")  # no key: a record inserted twice must show in verify
        db.execute("CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL)")
        marks = ",".join("?" * len(boots))
        rows = self.execute("SELECT seq, session, clock, type, t, utc, data, prev, hash FROM events "
                            f"WHERE table_id = ? AND boot IN ({marks}) ORDER BY arrival", (table, *boots)).fetchall()
        db.executemany("INSERT INTO records VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)", rows)
        return db

    def close(self) -> None:
        if self.db is not None:
            self.db.close()


def _quote(text: str) -> str:
    return "'" + text.replace("'", "''") + "'"


def _first_line(exc: BaseException) -> str:
    return (str(exc).strip().splitlines() or [type(exc).__name__])[0]
