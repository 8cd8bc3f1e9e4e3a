"""The outbox: bounded, in order, and only what the broker acknowledged leaves it."""

import json

from helpers import wait_until
from mqtt_broker import Inbox
from shotclock.adapters.mqtt import MqttLink
from shotclock.adapters.mqtt_login import LinkSettings
from shotclock.adapters.outbox import LogOutbox, MemoryOutbox
from shotclock.core.topics import table_topic


def rows(outbox, n, boot="00000000000a"):
    return [outbox.add({"type": "beep", "t": float(i), "data": {"remaining": 0}, "boot": boot}) for i in range(n)]


def test_memory_outbox_keeps_what_is_not_delivered():
    outbox = MemoryOutbox(limit=10)
    added = rows(outbox, 4)
    assert [r["id"] for r in added] == [1, 2, 3, 4] and outbox.newest() == 4
    outbox.set_delivered(2)
    assert [r["id"] for r in outbox.rows_after(outbox.delivered(), 10)] == [3, 4]


def test_a_full_outbox_skips_the_oldest_and_says_so(broker):
    # The collector's session outlives the broker's clean stop (persistence): what the link sends once the
    # broker is back is queued for it, whether the link or the collector reconnects first.
    inbox = Inbox(broker.client("collector", session="outbox-collector"), table_topic("test", "1", "event"))
    broker.stop()  # the broker is away from the start
    settings = LinkSettings("127.0.0.1", broker.port, "test", "1", "table-1", broker.passwords["table-1"])
    outbox = MemoryOutbox()
    link = MqttLink(settings, "00000000000a", outbox_max=5)
    link.start(outbox)
    try:
        link.offer_records(rows(outbox, 12))
        wait_until(lambda: link.status.dropped == 7, what="7 records dropped")
        assert link.status.pending == 5 and not link.status.connected
        broker.start()
        wait_until(lambda: link.status.connected and link.status.pending == 0, what="everything sent")
        wait_until(lambda: len(inbox.messages) >= 5, what="5 messages")
        assert [json.loads(m.payload)["seq"] for m in inbox.messages] == [8, 9, 10, 11, 12]
    finally:
        link.stop()


def test_log_outbox_starts_at_the_session_and_remembers_its_watermark(tmp_path):
    from shotclock.adapters.log import DecisionLog

    log = DecisionLog(tmp_path)
    log.append([{"session": 1, "clock": None, "type": "beep", "t": 0.0, "utc": "2026-11-30T00:00:00.000000Z",
                 "data": {"remaining": 0}}])
    session = log.new_session(1.0, "2026-11-30T00:00:01.000000Z", {"table": "T", "boot": "0123456789ab"})
    outbox = LogOutbox(tmp_path, start_after=session - 1)
    assert outbox.delivered() == 1  # the history before the network was switched on is not sent
    pending = outbox.rows_after(outbox.delivered(), 10)
    assert [(r["id"], r["type"], r["boot"]) for r in pending] == [(2, "session", "0123456789ab")]
    outbox.set_delivered(2)
    outbox.close()
    assert LogOutbox(tmp_path, start_after=0).delivered() == 2  # kept across restarts
