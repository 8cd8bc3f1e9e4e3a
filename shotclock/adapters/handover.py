"""The link's hand-over: everything other threads give a table's sender thread, behind one lock."""

from __future__ import annotations

import collections
import threading
from dataclasses import dataclass

from shotclock.core.uplink import ACKS_KEPT


@dataclass
class Taken:
    """What the sender thread took from the :class:`Handover` in one go."""

    signals: list[tuple]
    state: bytes | None
    acks: list[bytes]
    rows: list[dict]
    newest: int
    state_expiry: int | None = None


class Handover:
    """Everything other threads give the sender thread, behind one lock.

    Any thread puts (holding the lock only to append) and wakes the taker; only the sender thread
    takes, everything at once. Nothing is lost: the newest state replaces one not yet taken (only
    the newest matters: it is retained), signals keep their order, and past ``rows_kept`` waiting
    records the oldest leave only their ids behind (the sender reads them back from the outbox).

    Example::

        >>> h = Handover()
        >>> h.put_state(b"1"); h.put_state(b"2"); h.put_rows([{"id": 7}]); h.signal("connected")
        >>> t = h.take(0)
        >>> t.state, t.rows, t.newest, t.signals
        (b'2', [{'id': 7}], 7, [('connected',)])
    """

    def __init__(self, rows_kept: int = 10_000, acks_kept: int = ACKS_KEPT, on_put=None):
        """``on_put``: also called (from the putting thread) after each put, for a taker that waits on
        something else than :meth:`take` (the fleet simulator's loop, :mod:`shotclock.floor.fleet_link`)."""
        self._lock = threading.Lock()
        self._wake = threading.Event()
        self._on_put = on_put
        self._rows_kept = rows_kept
        self._signals: list[tuple] = []
        self._state: bytes | None = None
        self._state_expiry: int | None = None
        self._acks: collections.deque[bytes] = collections.deque(maxlen=acks_kept)
        self._rows: collections.deque[dict] = collections.deque()
        self._newest = 0

    def put_state(self, payload: bytes, expiry: int | None = None) -> None:
        """The newest state (replaces one not yet taken), and how long the broker may keep it (None: for good)."""
        with self._lock:
            self._state = payload
            self._state_expiry = expiry
        self._woken()

    def put_rows(self, rows: list[dict]) -> None:
        """Records just written (each with ``id``)."""
        with self._lock:
            for row in rows:
                self._rows.append(row)
                self._newest = max(self._newest, row["id"])
            while len(self._rows) > self._rows_kept:
                self._rows.popleft()
        self._woken()

    def put_ack(self, payload: bytes) -> None:
        """A command's ack."""
        with self._lock:
            self._acks.append(payload)
        self._woken()

    def signal(self, *signal) -> None:
        """Something the sender must act on, in order: ``("connected",)``, ``("disconnected", why)``,
        ``("refused", why)``, ``("puback", mid, reason code)``, ``("stop",)``."""
        with self._lock:
            self._signals.append(signal)
        self._woken()

    def _woken(self) -> None:
        self._wake.set()
        if self._on_put is not None:
            self._on_put()

    def take(self, timeout: float | None) -> Taken:
        """Wait up to ``timeout`` seconds for something to be put (None: until it is), then take all of it."""
        self._wake.wait(timeout)
        self._wake.clear()  # before taking: whatever is put from now on wakes the next take
        with self._lock:
            taken = Taken(self._signals, self._state, list(self._acks), list(self._rows), self._newest,
                          self._state_expiry)
            self._signals, self._state = [], None
            self._acks.clear()
            self._rows.clear()
        return taken
