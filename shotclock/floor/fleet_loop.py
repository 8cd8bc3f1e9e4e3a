"""One thread for many simulated tables: an asyncio event loop over their MQTT sockets, their timers, calls
from other threads.

A device runs three threads of its own (its loop, its link's sender, paho's network thread). A thousand
simulated tables run that way are three thousand threads that each wake at least once a second: the
simulator, not the broker, then took the machine. The fleet's tables run on one :class:`FleetLoop` instead:
an asyncio event loop in a thread of its own sleeps until a socket can be read or written, a timer is due (a
table's next beep, ruling or heartbeat, a sender's round, a reconnect) or another thread hands it a call (the
dealer's pin edges, the log writer's written rows). What this module adds to asyncio is the fleet's order of
work:

* reading first: a call (a table's round, the work a command asked for) runs in the loop's next *turn*, after
  the sockets that are ready by then are read; while reading finds more (up to ``READ_PASSES`` times in a
  row) the loop reads again before the turn, and a turn gives the sockets their turn again after
  ``TURN_SLICE`` seconds of work. A command to 500 tables reaches the last one as the broker's fan-out does,
  not after the work the first ones' copies asked for.
* writes at the end of a turn: what a table's client queued during the turn leaves in one write.
* connecting off the loop: paho's ``reconnect`` waits for the TCP (and TLS) handshake; a few connector
  threads (``CONNECTORS``) do it, and a dropped handshake holds up neither the loop nor the other tables.
* a failing callback is logged once per place (with a count), and the loop goes on.

Example::

    >>> import threading
    >>> loop = FleetLoop(); loop.start()
    >>> done = threading.Event()
    >>> loop.call_soon(lambda: loop.call_later(0.01, done.set))
    >>> done.wait(5)
    True
    >>> loop.stop()
"""

from __future__ import annotations

import asyncio
import collections
import concurrent.futures
import logging
import threading
import time

log = logging.getLogger("shotclock.fleet")

READ_PASSES = 8  # rounds of reading in a row, while each finds a socket to read, before a turn's work
TURN_SLICE = 0.010  # seconds of calls in a turn before the loop reads the sockets that became ready meanwhile
MISC_EVERY = 1.0  # seconds between the MQTT clients' keep-alive checks (paho's loop_misc), as paho's own loop
CONNECTORS = 4  # threads that open connections (paho's reconnect waits for the handshake): handshakes at once


class FleetLoop:
    """The fleet's event loop: one thread running an asyncio loop, with the fleet's order of work (see above).

    Only :meth:`call_soon`, :meth:`connect_soon`, :meth:`join`, :meth:`leave` and :meth:`stop` may be called
    from another thread; everything else (timers, sockets) belongs to the loop's thread, and so does every MQTT
    client registered with it (but for the connector's ``reconnect``).
    """

    def __init__(self):
        self.clock = time.monotonic  # asyncio's clock: the tables' pin edges and wakes are dated on it
        self.aio = asyncio.new_event_loop()
        self.aio.set_exception_handler(self._unhandled)
        self._calls: collections.deque = collections.deque()  # appended by any thread, run by the loop's turns
        self._woken = False  # another thread asked for a turn that has not begun
        self._turn = None  # the next turn's handle (the loop's thread)
        self._read = False  # a socket was read since the last turn
        self._passes = 0  # turns put off in a row for reading
        self._writes: set = set()  # owners with bytes to write: their ``flush()`` ends the turn
        self.misc: set = set()  # owners whose ``misc`` is called every MISC_EVERY s (keep-alive)
        self.failures: collections.Counter = collections.Counter()  # where callbacks raised, and how often
        self.turns = 0
        self.connector = concurrent.futures.ThreadPoolExecutor(CONNECTORS, thread_name_prefix="fleet-connect")
        self._members = 0
        self._members_lock = threading.Lock()
        self._ident: int | None = None
        self.thread = threading.Thread(target=self._run, name="fleet-loop", daemon=True)

    # -- any thread -----------------------------------------------------------------------------

    def start(self) -> None:
        """Run the loop in its thread."""
        self.thread.start()

    def call_soon(self, func) -> None:
        """Run ``func()`` on the loop's thread in its next turn (any thread; returns at once). After the loop
        ended, nothing runs."""
        self._calls.append(func)
        if threading.get_ident() == self._ident:
            self._schedule()
        elif not self._woken:
            self._woken = True
            try:
                self.aio.call_soon_threadsafe(self._schedule)
            except RuntimeError:  # the loop is closed: the fleet stopped
                pass

    def connect_soon(self, func) -> None:
        """Run ``func()`` on a connector thread (any thread): a call that waits for a connection."""
        try:
            self.connector.submit(self._guard, "opening a connection", func)
        except RuntimeError:  # the loop ended, and its connectors with it
            pass

    def stop(self, timeout: float = 10.0) -> None:
        """End the loop (what is still registered is left as it is) and wait for its thread."""
        if threading.get_ident() == self._ident:
            self.aio.stop()
            return
        try:
            self.aio.call_soon_threadsafe(self.aio.stop)
        except RuntimeError:
            pass  # closed: it ended already
        if self.thread.is_alive():
            self.thread.join(timeout)

    def join(self) -> None:
        """One more table runs on this loop (it starts with the first)."""
        with self._members_lock:
            self._members += 1
            if not self.thread.is_alive():
                self.start()

    def leave(self, count: int = 1) -> None:
        """``count`` tables stopped; the loop ends with the last."""
        with self._members_lock:
            self._members -= count
            last = self._members <= 0
        if last:
            self.stop()

    def in_loop(self) -> bool:
        """True on the loop's own thread."""
        return threading.get_ident() == self._ident

    # -- the loop's thread ----------------------------------------------------------------------

    def call_at(self, when: float, func) -> asyncio.TimerHandle:
        """Run ``func()`` at monotonic time ``when``; its :meth:`~asyncio.TimerHandle.cancel` keeps it from it.
        (What it raises reaches asyncio's exception handler: counted and logged like the rest.)"""
        return self.aio.call_at(when, func)

    def call_later(self, delay: float, func) -> asyncio.TimerHandle:
        """Run ``func()`` ``delay`` seconds from now."""
        return self.aio.call_later(delay, func)

    def add_reader(self, sock, func) -> None:
        """Call ``func()`` whenever ``sock`` can be read."""
        self.aio.add_reader(sock, self._reading, func)

    def add_writer(self, sock, func) -> None:
        """Call ``func()`` whenever ``sock`` can be written (until :meth:`remove_writer`)."""
        self.aio.add_writer(sock, func)

    def remove_reader(self, sock) -> None:
        """Stop watching ``sock`` for reading (it is being closed, or was)."""
        try:
            self.aio.remove_reader(sock)
        except ValueError:  # closed before it was ever watched
            pass

    def remove_writer(self, sock) -> None:
        """Stop watching ``sock`` for writing."""
        try:
            self.aio.remove_writer(sock)
        except ValueError:
            pass

    def want_write(self, owner) -> None:
        """``owner`` has bytes to send: its ``flush()`` is called at the end of this turn (it asks
        :meth:`add_writer` when the socket's buffer is full)."""
        self._writes.add(owner)
        self._schedule()

    def _schedule(self) -> None:
        """A turn after the sockets ready by then are read: a timer due now runs after them (asyncio runs the
        calls queued before it reads, the readers, then the timers that are due)."""
        if self._turn is None:
            self._turn = self.aio.call_at(self.aio.time(), self._run_turn)

    def _reading(self, func) -> None:
        self._read = True
        try:
            func()
        except Exception:
            self._failed("reading a socket")

    def _run_turn(self) -> None:
        self._turn = None
        if self._read and self._passes < READ_PASSES:  # copies are coming in: read what came meanwhile first
            self._read = False
            self._passes += 1
            self._schedule()
            return
        self._read, self._passes = False, 0
        self._woken = False  # before the calls are taken: a call handed over from now on asks for another turn
        self.turns += 1
        calls, clock = self._calls, self.clock
        end = clock() + TURN_SLICE
        for _ in range(len(calls)):  # what was asked before the turn: what these calls ask waits for the next
            self._guard("a call", calls.popleft())
            if clock() >= end:
                break
        writes, self._writes = self._writes, set()
        for owner in writes:
            self._guard("writing a socket", owner.flush)
        if calls or self._writes:
            self._schedule()  # the rest after the sockets' turn

    def _misc(self) -> None:
        for owner in list(self.misc):
            self._guard("a keep-alive check", owner.misc)
        self.aio.call_later(MISC_EVERY, self._misc)

    def _guard(self, where: str, func, *args) -> None:
        try:
            func(*args)
        except Exception:
            self._failed(where)

    def _failed(self, where: str, error: BaseException | None = None, what: str = "") -> None:
        """Count a failure at ``where``; log it the first time and every 1,000th (with the traceback)."""
        self.failures[where] += 1
        n = self.failures[where]
        if n == 1 or n % 1000 == 0:
            log.error("the fleet loop: %s failed%s (%d times so far); it goes on", where, what, n,
                      exc_info=error or True)

    def _unhandled(self, aio, context) -> None:
        """asyncio's exception handler: a timer or a writer that raised (the loop's other callbacks catch their
        own), counted and logged like the rest."""
        self._failed("a timer or a socket's callback", context.get("exception"), f": {context.get('message')}")

    def _run(self) -> None:
        self._ident = threading.get_ident()
        asyncio.set_event_loop(self.aio)
        try:
            self.aio.call_later(MISC_EVERY, self._misc)
            if self._calls:
                self._schedule()
            self.aio.run_forever()
        except Exception:  # the loop itself (not a callback): say so, loudly, once
            log.exception("the fleet loop stopped on an error: its tables stand still")
            raise
        finally:
            self.connector.shutdown(wait=False, cancel_futures=True)
            self.aio.close()
            self._ident = None
