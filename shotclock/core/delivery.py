"""Which decision-log records go to the floor broker next, and how far the broker has them all.

The device sends every record of its decision log as an ``event``, in order, QoS 1, at most
``window`` unacknowledged at a time (docs/network.md, "The outbox"). :class:`Delivery` is
that bookkeeping and nothing else: no threads, no MQTT client, no clock, no disk. The link's
sender thread tells it what happened (records written, a connection made or lost, a send, a
PUBACK) and asks it what to send next; when the next record is no longer in memory it is told
to read it from the store (:class:`Read`), and hands the rows back with :meth:`Delivery.read`.

The **watermark** (``delivered``) is the highest record id up to which every record was
acknowledged, skipped as over the bound, or is gone from the store; it only grows. The link
keeps it in ``outbox.db``, so a restart sends what was never acknowledged.

Acknowledged by whom: with ``end_to_end`` (the venue runs a collector, which says so on its
retained status) a PUBACK only means the broker has the record -- and a broker that crashes
before saving it loses it. The record is delivered once the collector says the archive stored
it (:meth:`Delivery.stored`); until then it stays in the outbox and goes again after every
reconnect. Without a collector the broker's PUBACK is all there is.

Example::

    >>> d = Delivery(delivered=0, window=2)
    >>> d.written([{"id": 1}, {"id": 2}, {"id": 3}])
    0
    >>> d.next()  # not connected: nothing goes
    []
    >>> d.connected()
    >>> [row["id"] for row in d.next()]
    [1, 2]
    >>> d.sent(101, 1); d.sent(102, 2)
    >>> d.next()  # the window is full
    []
    >>> d.acked(102), d.delivered  # out of order: the watermark waits for record 1
    (2, 0)
    >>> d.acked(101), d.delivered, d.pending
    (1, 2, 1)

End to end, the broker's PUBACK frees the window and the archive's word moves the watermark::

    >>> d = Delivery(end_to_end=True)
    >>> d.written([{"id": 1}, {"id": 2}]); d.connected()
    0
    >>> [row["id"] for row in d.next()]
    [1, 2]
    >>> d.sent(7, 1); d.sent(8, 2); d.acked(7), d.acked(8), d.delivered, d.next()
    (1, 2, 0, [])
    >>> d.stored([1]); d.delivered
    1
    >>> d.connected(); [row["id"] for row in d.next()]  # the broker may have lost record 2: it goes again
    [2]
"""

from __future__ import annotations

from dataclasses import dataclass

WINDOW = 20  # unacknowledged events in flight (mosquitto's default receive maximum)
BATCH = 200  # records read from the store at a time while catching up
MEMORY = 10_000  # records kept in memory; older ones are read back from the store


@dataclass(frozen=True)
class Read:
    """Read up to ``limit`` records with an id above ``after`` from the store, and hand them to
    :meth:`Delivery.read`."""

    after: int
    limit: int


class Delivery:
    """The in-flight window and the watermark of one table's events (pure; one owner thread).

    :param delivered: the watermark to start from (the outbox's, kept across restarts).
    :param newest: the newest record id in the store at start.
    :param window: events that may be unacknowledged at once.
    :param bound: records that may wait; past it the oldest are skipped and counted in ``dropped``.
    :param batch: records asked of the store at a time.
    :param memory: records kept in memory (a record that fell out is read back from the store).
    :param end_to_end: a record is delivered when the archive stored it (:meth:`stored`), not on the PUBACK.
    """

    def __init__(self, delivered: int = 0, newest: int = 0, window: int = WINDOW, bound: int = 100_000,
                 batch: int = BATCH, memory: int = MEMORY, end_to_end: bool = False):
        self.delivered = delivered
        self.newest = max(newest, delivered)
        self.window = window
        self.bound = bound
        self.batch = batch
        self.memory = memory
        self.dropped = 0  # records skipped because more than ``bound`` waited
        self.online = False
        self._next = delivered + 1  # the next record id to send on this connection
        self._rows: dict[int, dict] = {}  # id → row, oldest first (insertion order)
        self._in_flight: dict[object, int] = {}  # send key (the MQTT message id) → record id
        self._done: set[int] = set()  # above the watermark: acknowledged, or gone from the store
        self.end_to_end = end_to_end
        self._published: set[int] = set()  # end to end: the broker has them (PUBACK), the archive not yet
        self._bound()

    # -- what happened --------------------------------------------------------------------------------

    def written(self, rows: list[dict], newest: int = 0) -> int:
        """Records just written to the store (each with an ``id``); ``newest`` may say that more were
        written than ``rows`` holds. Returns how many records were skipped now as over the bound."""
        for row in rows:
            record_id = row["id"]
            self.newest = max(self.newest, record_id)
            if record_id > self.delivered and record_id not in self._done:
                self._rows[record_id] = row
        self.newest = max(self.newest, newest)
        while len(self._rows) > self.memory:  # the oldest kept go first; the store still has them
            del self._rows[next(iter(self._rows))]
        return self._bound()

    def connected(self) -> None:
        """A new connection: what was in flight on the old one is unknown, so it goes again, in order."""
        self.online = True
        self._in_flight.clear()
        self._published.clear()  # the broker may have lost them (a crash): they go again
        self._next = self.delivered + 1

    def resend(self) -> None:
        """A collector came (back) online: it may have missed what was published and not yet stored (a venue
        broker that restarted behind a room broker's bridge, while this device's own connection held), so that
        goes again, in order, as after a reconnect. The archive keeps each record once."""
        if self.online:
            self.connected()

    def disconnected(self) -> None:
        """The connection is lost: nothing goes until the next one."""
        self.online = False

    def sent(self, key: object, record_id: int) -> None:
        """Record ``record_id`` was published; its PUBACK will come with ``key`` (the message id)."""
        self._in_flight[key] = record_id
        self._next = max(self._next, record_id + 1)

    def acked(self, key: object) -> int | None:
        """The broker acknowledged the send ``key``; returns its record id (None: not one of ours,
        e.g. a send from before the last reconnect). The watermark moves over every record acknowledged
        without a gap."""
        record_id = self._in_flight.pop(key, None)
        if record_id is not None and record_id > self.delivered and record_id not in self._done:
            if self.end_to_end:
                self._published.add(record_id)  # sent on this connection; delivered when the archive says so
            else:
                self._done.add(record_id)
                self._advance()
        return record_id

    def stored(self, record_ids) -> None:
        """The archive stored (or already had) these records: they are delivered."""
        for record_id in record_ids:
            if record_id > self.delivered:
                self._done.add(record_id)
                self._published.discard(record_id)
        self._advance()

    def set_end_to_end(self, on: bool) -> None:
        """A collector announced itself (on) or was removed (off: what the broker has is delivered)."""
        if self.end_to_end and not on:
            self._done |= self._published
            self._published.clear()
            self._advance()
        self.end_to_end = on

    def read(self, after: int, rows: list[dict]) -> None:
        """The store's answer to a :class:`Read`: the records after ``after``, in order. Ids it skips
        (archived, or never written) are gone: nothing to deliver, so the watermark may pass them."""
        expected = after + 1
        for row in rows:
            record_id = row["id"]
            self._gone(expected, record_id)
            expected = record_id + 1
            self.newest = max(self.newest, record_id)
            if record_id > self.delivered and record_id not in self._done:
                self._rows.setdefault(record_id, row)  # not trimmed here: next() sends them at once
        if not rows:  # nothing more in the store, up to what memory still holds
            self._gone(expected, min((i for i in self._rows if i > after), default=self.newest + 1))
        self._advance()
        self._next = max(self._next, self.delivered + 1)

    # -- what to do -----------------------------------------------------------------------------------

    def next(self) -> list[dict] | Read:
        """The records to publish now, in order (as many as the window has room for; ``[]``: none,
        offline, or the window is full), or the :class:`Read` that fetches the next one from the store."""
        if not self.online:
            return []
        while self._next in self._done or self._next in self._published:  # acknowledged already
            self._next += 1
        room = self.window - len(self._in_flight)
        if room <= 0 or self._next > self.newest:
            return []
        if self._next not in self._rows:
            return Read(self._next - 1, max(room, self.batch))
        rows, record_id = [], self._next
        while len(rows) < room and record_id in self._rows:
            rows.append(self._rows[record_id])
            record_id += 1
            while record_id in self._done or record_id in self._published:
                record_id += 1
        return rows

    @property
    def pending(self) -> int:
        """Records not delivered yet (the screen's "12 to send"; end to end: not yet in the archive)."""
        return self.newest - self.delivered

    @property
    def in_flight(self) -> int:
        """Events published and not yet acknowledged on this connection."""
        return len(self._in_flight)

    # -- inside ---------------------------------------------------------------------------------------

    def _gone(self, first: int, end: int) -> None:
        """Ids ``first`` … ``end - 1`` are not in the store: nothing to deliver."""
        self._done.update(i for i in range(max(first, self.delivered + 1), end))

    def _advance(self) -> None:
        while self.delivered + 1 in self._done:
            self.delivered += 1
            self._done.discard(self.delivered)
            self._published.discard(self.delivered)
            self._rows.pop(self.delivered, None)

    def _bound(self) -> int:
        over = self.newest - self.delivered - self.bound
        if over <= 0:
            return 0
        self.dropped += over
        self.delivered += over
        self._done = {i for i in self._done if i > self.delivered}
        self._published = {i for i in self._published if i > self.delivered}
        for record_id in [i for i in self._rows if i <= self.delivered]:
            del self._rows[record_id]
        self._advance()
        self._next = max(self._next, self.delivered + 1)
        return over
