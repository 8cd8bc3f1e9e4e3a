"""``shotclock floor idle``: wait until a table may be updated -- online, and no clock open.

A fleet update goes one table at a time (hardware/README.md, "Updating a fleet"): prepare the new
version on every table while they play, then for each table wait here until its retained ``state``
says no clock is open, switch it (seconds), and wait here again with ``--version`` until it is back
online running the new version before moving to the next. The decision is :func:`blocker`, pure.
"""

from __future__ import annotations

import threading
import time

from shotclock.core.codec import JsonProblem, decode
from shotclock.core.inbound import MAX_PAYLOAD
from shotclock.core.topics import table_topic
from shotclock.errors import ShotclockError


def blocker(status: dict | None, state: dict | None, version: str | None = None) -> str | None:
    """None when the table is online with no clock open (and runs ``version``, if given); else why not.

    :param status: the table's retained ``status`` message (None: none received).
    :param state: its retained ``state`` message (None: none received).
    :param version: the version it must run, or None for any.
    """
    if status is None:
        return "no status from it yet (is the table id right?)"
    if not status.get("online"):
        return "it is offline"
    if version is not None and status.get("version") != version:
        return f"it runs {status.get('version') or 'an unknown version'}, not {version}"
    if state is None or state.get("boot") != status.get("boot"):
        return "no state from its current run yet"
    if state.get("phase") != "idle":
        return f"a clock is open ({state.get('phase')})"
    if state.get("interrupted"):
        return "a clock interrupted by a restart waits for the floor"
    return None


class Watch:
    """The newest retained status and state of one table, kept by paho's thread."""

    def __init__(self, venue: str, table: str):
        self.topics = {table_topic(venue, table, "status"): "status", table_topic(venue, table, "state"): "state"}
        self.latest: dict = {"status": None, "state": None}
        self.changed = threading.Condition()

    def on_message(self, client, userdata, msg) -> None:
        try:
            value = decode(msg.payload, max_bytes=MAX_PAYLOAD)
        except JsonProblem:
            return
        with self.changed:
            self.latest[self.topics[msg.topic]] = value
            self.changed.notify_all()

    def wait(self, version: str | None, seconds: float) -> str | None:
        """Block until :func:`blocker` says nothing, or ``seconds`` pass; the last reason, or None."""
        end = time.monotonic() + seconds
        with self.changed:
            while True:
                reason = blocker(self.latest["status"], self.latest["state"], version)
                left = end - time.monotonic()
                if reason is None or left <= 0:
                    return reason
                self.changed.wait(min(left, 1.0))


def cmd_idle(args) -> int:
    """``shotclock floor idle``: exit 0 once the table is online with no clock open, 1 after --wait seconds."""
    from shotclock.floor.client import connect, floor_client

    client, _ = floor_client(args)
    watch = Watch(args.venue, args.table)
    client.on_message = watch.on_message
    client.on_connect = lambda c, u, f, rc, p: c.subscribe([(t, 1) for t in watch.topics]) if not rc.is_failure \
        else None
    connect(client, args, keepalive=30)
    try:
        reason = watch.wait(args.version, args.wait)
    finally:
        client.disconnect()
        client.loop_stop()
    status = watch.latest["status"] or {}
    if reason is None:
        print(f"table {args.table}: online, no clock open (shotclock {status.get('version', '?')})")
        return 0
    print(f"table {args.table}: not ready after {args.wait:g} s: {reason}")
    return 1
