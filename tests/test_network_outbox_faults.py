"""No thread of the device dies silently (issue 18, item 5), against a real mosquitto: an outbox that fails
(a lock held longer than SQLite waits, a damaged outbox.db) is logged, retried and shown, while the state and
the acks still go; once it mends, the events follow."""

import json
import sqlite3

from helpers import wait_until
from mqtt_broker import Inbox
from network_device import RunningDevice, network_config
from network_schemas import check
from shotclock.core.topics import table_topic


def watch(broker):
    return Inbox(broker.client("collector"), *[table_topic("test", "1", leaf) for leaf in ("status", "state", "event")])


def of(inbox, leaf, predicate=lambda m: True):
    return inbox.wait_for(lambda m: m.topic.endswith("/" + leaf) and predicate(json.loads(m.payload)))


def test_an_outbox_locked_for_long_is_shown_as_degraded_and_the_state_still_goes(broker, tmp_path):
    inbox = watch(broker)
    dev = RunningDevice(network_config(broker), tmp_path / "state")
    locker = None
    try:
        assert of(inbox, "event", lambda e: e["record"]["type"] == "session")
        wait_until(lambda: dev.link.status.pending == 0, what="the session delivered")
        locker = sqlite3.connect(tmp_path / "state" / "outbox.db", isolation_level=None, timeout=30)
        locker.execute("BEGIN EXCLUSIVE")  # held far longer than the 5 s that ended the sender before
        dev.tap("bet")
        dev.tap("floor")
        degraded = of(inbox, "status", lambda s: s["online"] and "outbox" in s.get("degraded", ""))
        assert degraded is not None and check("status", degraded.payload)
        wait_until(lambda: dev.link.status.fault == "outbox", what="the screen's fault")
        presenter = next(x for x in dev.device.loop.listeners if type(x).__name__ == "NetworkPresenter")
        assert "outbox" in presenter.mark()
        inbox.messages.clear()
        dev.tap("action")  # the clock's ruling: the state still goes out while the outbox is locked
        assert of(inbox, "state", lambda s: s["phase"] == "idle" and s["network"].get("fault") == "outbox")
        locker.rollback()
        locker.close()
        locker = None
        # Mended: the retained status says so, and the events held back follow, the ruling among them.
        assert of(inbox, "status", lambda s: s["online"] and "degraded" not in s)
        assert of(inbox, "event", lambda e: e["record"]["type"] == "decision")
        wait_until(lambda: not dev.link.status.fault and dev.link.status.pending == 0, what="all delivered")
    finally:
        if locker is not None:
            locker.close()
        dev.stop()


def test_a_damaged_outbox_at_start_is_moved_aside_and_everything_is_delivered(broker, tmp_path):
    state = tmp_path / "state"
    first = RunningDevice(network_config(broker), state)  # a log with a session in it
    first.stop()
    (state / "outbox.db").write_bytes(b"this is not an SQLite database" * 100)
    for leftover in ("outbox.db-wal", "outbox.db-shm"):
        (state / leftover).unlink(missing_ok=True)
    inbox = watch(broker)
    dev = RunningDevice(network_config(broker), state)
    try:
        dev.tap("floor")
        assert of(inbox, "state", lambda s: s["phase"] == "running")
        assert of(inbox, "event", lambda e: e["record"]["type"] == "session" and e["boot"] == dev.device.boot)
        wait_until(lambda: dev.link.status.pending == 0 and not dev.link.status.fault, what="all delivered")
        assert (state / "outbox.db.damaged").exists()
    finally:
        dev.stop()
    # And at the next start it is sound again: nothing left to mend.
    again = RunningDevice(network_config(broker), state)
    try:
        wait_until(lambda: again.link.status.connected and not again.link.status.fault, what="a clean start")
    finally:
        again.stop()
