"""systemd's notify protocol: READY=1, STATUS= and watchdog pings from the main loop.

A dozen lines of socket code rather than a dependency: the protocol is one datagram per
message to the socket named in ``NOTIFY_SOCKET`` (``@`` means the abstract namespace).
Pings are sent from the main loop, so a hung loop stops pinging and systemd restarts it.
"""

from __future__ import annotations

import logging
import os
import socket

log = logging.getLogger("shotclock.systemd")


class SystemdNotifier:
    """Talks to systemd when started by it (``Type=notify``); does nothing otherwise.

    :param env: the environment to read ``NOTIFY_SOCKET``, ``WATCHDOG_USEC`` and ``WATCHDOG_PID`` from.
    """

    def __init__(self, env=None):
        env = os.environ if env is None else env
        self.address = env.get("NOTIFY_SOCKET") or None
        usec = env.get("WATCHDOG_USEC")
        pid = env.get("WATCHDOG_PID")
        watchdog_for_us = usec and (pid is None or pid == str(os.getpid()))
        # Ping at half the interval, as sd_watchdog_enabled(3) recommends.
        self.ping_every = int(usec) / 2e6 if watchdog_for_us else None
        self._next_ping = None
        self.dropped = 0  # messages dropped because the socket's queue was full
        self._sock = None
        if self.address:
            # Non-blocking: when systemd's queue is full a ping is dropped; the loop never waits on it.
            self._sock = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM | socket.SOCK_CLOEXEC | socket.SOCK_NONBLOCK)
            if self.address.startswith("@"):
                self.address = "\0" + self.address[1:]

    def notify(self, message: str) -> None:
        """Send one notify message (``READY=1``, ``STATUS=…``, ``WATCHDOG=1``)."""
        if self._sock is None:
            return
        try:
            self._sock.sendto(message.encode(), self.address)
        except BlockingIOError:
            self.dropped += 1
            log.debug("systemd's notify queue is full: %s dropped", message.split("=")[0])
        except OSError as exc:
            log.warning("cannot notify systemd (%s): %s", message.split("=")[0], exc)

    def ready(self, status: str, now: float) -> None:
        """Tell systemd the device is up, and start the watchdog pings."""
        self.notify(f"READY=1\nSTATUS={status}")
        if self.ping_every:
            self.notify("WATCHDOG=1")
            self._next_ping = now + self.ping_every

    def update(self, round) -> None:
        """Main-loop hook: ping the watchdog when a ping is due."""
        if self._next_ping is not None and round.now >= self._next_ping:
            self.notify("WATCHDOG=1")
            self._next_ping = round.now + self.ping_every

    def next_wake(self, now: float) -> float | None:
        """When the next watchdog ping is due."""
        return self._next_ping

    def stopping(self) -> None:
        """Tell systemd the device is shutting down."""
        self.notify("STOPPING=1")

    def close(self) -> None:
        """Close the socket."""
        if self._sock is not None:
            self._sock.close()
            self._sock = None
