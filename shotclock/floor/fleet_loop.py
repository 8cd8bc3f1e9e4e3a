"""One thread for many simulated tables: a selector over their MQTT sockets, their timers, calls from other threads.

A device runs three threads of its own (its loop, its link's sender, paho's network thread). A thousand
simulated tables run that way are three thousand threads that each wake at least once a second: the
simulator, not the broker, then took the machine. The fleet's tables run on one :class:`FleetLoop`
instead: it sleeps in one ``select`` (epoll: no limit of 1,024 file descriptors) until a socket can be
read or written, a timer is due (a table's next beep, ruling or heartbeat, a sender's round, a reconnect)
or another thread hands it a call (the dealer's pin edges, the log writer's written rows).

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

import collections
import heapq
import itertools
import logging
import os
import selectors
import threading
import time

log = logging.getLogger("shotclock.fleet")

READ_PASSES = 8  # selects in a row, reading sockets only, before the loop turns to its calls and timers
MISC_EVERY = 1.0  # seconds between the MQTT clients' keep-alive checks (paho's loop_misc), as paho's own loop


class Timer:
    """A call due at ``when`` (monotonic seconds); :meth:`cancel` keeps it from running."""

    __slots__ = ("when", "func", "cancelled")

    def __init__(self, when: float, func):
        self.when = when
        self.func = func
        self.cancelled = False

    def cancel(self) -> None:
        """Do not run it (it leaves the heap when it comes due)."""
        self.cancelled = True


class FleetLoop:
    """The fleet's event loop: one thread, one selector, one timer heap.

    Only :meth:`call_soon` and :meth:`stop` may be called from another thread; everything else (timers,
    sockets) belongs to the loop's thread, and so does every MQTT client registered with it.
    A callback that raises is logged (once per place it fails, with a count) and the loop goes on.
    """

    def __init__(self, clock=time.monotonic):
        self.clock = clock
        self.selector = selectors.DefaultSelector()
        self._timers: list[tuple[float, int, Timer]] = []
        self._order = itertools.count()
        self._calls: collections.deque = collections.deque()
        self._wake_r, self._wake_w = os.pipe()
        os.set_blocking(self._wake_r, False)
        os.set_blocking(self._wake_w, False)
        self.selector.register(self._wake_r, selectors.EVENT_READ, None)
        self._sleeping = False
        self._stopping = False
        self._writes: set = set()  # sockets' owners with bytes to write (flushed at the end of each turn)
        self.sockets: dict = {}  # the owner of each registered socket (its ``readable``/``writable`` are called)
        self.misc: set = set()  # owners whose ``misc`` is called every MISC_EVERY s (keep-alive)
        self.failures: collections.Counter = collections.Counter()  # where callbacks raised, and how often
        self.turns = 0
        self._members = 0
        self._members_lock = threading.Lock()
        self.thread = threading.Thread(target=self._run, name="fleet-loop", daemon=True)

    # -- any thread -----------------------------------------------------------------------------

    def start(self) -> None:
        """Run the loop in its thread."""
        self.thread.start()

    def call_soon(self, func) -> None:
        """Run ``func()`` on the loop's thread as soon as it can (thread-safe; returns at once)."""
        self._calls.append(func)
        if self._sleeping:
            self._wake()

    def stop(self, timeout: float = 10.0) -> None:
        """End the loop (what is still registered is left as it is) and wait for its thread."""
        self._stopping = True
        self._wake()
        if threading.current_thread() is not self.thread and self.thread.is_alive():
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
        return threading.current_thread() is self.thread

    # -- the loop's thread ----------------------------------------------------------------------

    def call_at(self, when: float, func) -> Timer:
        """Run ``func()`` at monotonic time ``when`` (the loop's thread)."""
        timer = Timer(when, func)
        heapq.heappush(self._timers, (when, next(self._order), timer))
        return timer

    def call_later(self, delay: float, func) -> Timer:
        """Run ``func()`` ``delay`` seconds from now (the loop's thread)."""
        return self.call_at(self.clock() + delay, func)

    def add_socket(self, sock, owner) -> None:
        """Watch ``sock`` for reading: ``owner.readable()`` is called when it can be read."""
        self.sockets[sock] = owner
        self.selector.register(sock, selectors.EVENT_READ, owner)

    def remove_socket(self, sock) -> None:
        """Stop watching ``sock`` (it is being closed)."""
        self.sockets.pop(sock, None)
        try:
            self.selector.unregister(sock)
        except (KeyError, ValueError):
            pass

    def want_write(self, owner) -> None:
        """``owner`` has bytes to send: its ``flush()`` is called at the end of this turn (it asks
        :meth:`watch_write` when the socket's buffer is full)."""
        self._writes.add(owner)

    def watch_write(self, sock, owner, on: bool) -> None:
        """Also wait until ``sock`` can be written (``owner.writable()``), or no longer."""
        events = selectors.EVENT_READ | (selectors.EVENT_WRITE if on else 0)
        try:
            if self.selector.get_key(sock).events != events:
                self.selector.modify(sock, events, owner)
        except (KeyError, ValueError):
            pass

    def _wake(self) -> None:
        try:
            os.write(self._wake_w, b"x")
        except (BlockingIOError, OSError):
            pass  # the pipe is full (the loop wakes anyway) or closed (it stopped)

    def _guard(self, where: str, func, *args) -> None:
        try:
            func(*args)
        except Exception:
            self.failures[where] += 1
            if self.failures[where] == 1 or self.failures[where] % 1000 == 0:
                log.exception("the fleet loop: %s failed (%d times so far); it goes on", where, self.failures[where])

    def _run(self) -> None:
        next_misc = self.clock() + MISC_EVERY
        try:
            while not self._stopping:
                self.turns += 1
                self._run_calls()
                now = self.clock()
                self._run_timers(now)
                if now >= next_misc:
                    next_misc = now + MISC_EVERY
                    for owner in list(self.misc):
                        self._guard("a keep-alive check", owner.misc)
                self._flush()
                timeout = next_misc - self.clock()
                if self._timers:
                    timeout = min(timeout, self._timers[0][0] - self.clock())
                self._sleeping = True
                if self._calls or self._writes or self._stopping:
                    timeout = 0
                events = self.selector.select(max(0.0, timeout))
                self._sleeping = False
                for _ in range(READ_PASSES):
                    if not events:
                        break
                    self._handle(events)
                    # Read what arrived meanwhile before any work: a command to 500 tables reaches the last one
                    # as the broker's fan-out does, not after the first ones' work.
                    events = self.selector.select(0)
        except Exception:  # the loop itself (not a callback): say so, loudly, once
            log.exception("the fleet loop stopped on an error: its tables stand still")
            raise
        finally:
            self._sleeping = False
            os.close(self._wake_r)
            os.close(self._wake_w)
            self.selector.close()

    def _handle(self, events) -> None:
        for key, mask in events:
            owner = key.data
            if owner is None:
                self._drain_wake()
                continue
            if mask & selectors.EVENT_READ:
                self._guard("reading a socket", owner.readable)
            if mask & selectors.EVENT_WRITE:
                self._guard("writing a socket", owner.writable)

    def _run_calls(self) -> None:
        for _ in range(len(self._calls)):
            self._guard("a call from another thread", self._calls.popleft())

    def _run_timers(self, now: float) -> None:
        timers = self._timers
        while timers and timers[0][0] <= now:
            timer = heapq.heappop(timers)[2]
            if not timer.cancelled:
                self._guard("a timer", timer.func)

    def _flush(self) -> None:
        writes, self._writes = self._writes, set()
        for owner in writes:
            self._guard("writing a socket", owner.flush)

    def _drain_wake(self) -> None:
        try:
            while os.read(self._wake_r, 4096):
                pass
        except BlockingIOError:
            pass
