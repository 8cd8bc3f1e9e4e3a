"""Floor commands the network may bring, however malformed or many (issue 18, items 7 and 8), against a real
mosquitto: every command gets an ack, every refusal is in the log, no log record is dropped, a flood is
bounded, and freshness needs no agreement between wall clocks."""

import json
import logging
import sqlite3
import time

import pytest

from helpers import wait_until
from mqtt_broker import Inbox
from network_device import RunningDevice, network_config
from network_schemas import check
from shotclock.core.flood import FloodGuard
from shotclock.core.topics import table_topic

# A command the guard lets through writes its input record and what it starts or ends (a start, a pause, a
# decision or a refusal): at most three records.
RECORDS_PER_COMMAND = 3
from shotclock.core.wire import RecentIds, Refusal, check_command

CMD = table_topic("test", "1", "cmd")


def publish(floor, payload: bytes):
    """A raw command payload with a 5 s message expiry, as the dashboard sends."""
    from paho.mqtt.packettypes import PacketTypes
    from paho.mqtt.properties import Properties

    props = Properties(PacketTypes.PUBLISH)
    props.MessageExpiryInterval = 5
    floor.publish(CMD, payload, qos=1, properties=props)


def command(**fields) -> bytes:
    return json.dumps({"sender": "floor/test", "sent_ms": int(time.time() * 1000), **fields}).encode()


def acks(inbox):
    return [json.loads(m.payload) for m in list(inbox.messages) if m.topic.endswith("/cmd/ack")]


def records(state_dir, kind=None):
    db = sqlite3.connect(state_dir / "shotclock.db")
    try:
        sql = "SELECT type, data FROM records" + (" WHERE type = ?" if kind else "") + " ORDER BY id"
        return [(t, json.loads(d)) for t, d in db.execute(sql, (kind,) if kind else ())]
    finally:
        db.close()


@pytest.fixture
def table(broker, tmp_path, caplog):
    caplog.set_level(logging.WARNING)
    floor = broker.client("floor")
    inbox = Inbox(floor, table_topic("test", "1", "cmd/ack"), table_topic("test", "1", "status"),
                  table_topic("test", "1", "state"))
    dev = RunningDevice(network_config(broker), tmp_path / "state")
    assert inbox.wait_for(lambda m: m.topic.endswith("/status") and json.loads(m.payload)["online"])
    yield floor, inbox, dev
    if dev.thread.is_alive():
        dev.stop()


MALFORMED = {
    # A valid pause whose sender holds an encoded surrogate: json.loads takes it, the log could not store it.
    "surrogate-sender": b'{"id":"s1","name":"pause","sender":"floor/\xed\xa0\x80","sent_ms":1}',
    "escaped-surrogate": b'{"id":"s2","name":"pause","sender":"floor/\\ud800","sent_ms":1}',
    "invalid-utf8": b'{"id":"s3","name":"pause","sender":"floor/\xff","sent_ms":1}',
    "400-digit-sent_ms": b'{"id":"s4","name":"pause","sender":"floor/x","sent_ms":' + b"9" * 400 + b"}",
    "65-bit-sent_ms": b'{"id":"s5","name":"pause","sender":"floor/x","sent_ms":' + str(2 ** 64).encode() + b"}",
    "deep": b'{"id":"s6","name":"pause","sender":"floor/x","sent_ms":1,"x":' + b"[" * 30_000 + b"]" * 30_000 + b"}",
    "big": b'{"id":"s7","name":"pause","sender":"floor/x","sent_ms":1,"pad":"' + b"a" * 5000 + b'"}',
    "nul-id": b'{"id":"s\\u0000","name":"pause","sender":"floor/x","sent_ms":1}',
}


@pytest.mark.parametrize("payload", MALFORMED.values(), ids=MALFORMED.keys())
def test_check_command_refuses_every_malformed_payload_without_raising(payload):
    result = check_command(payload, 1.0, RecentIds(60))
    assert isinstance(result, Refusal) and result.reason == "malformed", result
    for text in (result.id, result.sender, result.name, result.detail):
        text.encode("utf-8")  # whatever is kept of it can be logged and acked


def test_malformed_commands_are_each_acked_refused_and_logged_and_the_log_loses_nothing(table, tmp_path, caplog):
    floor, inbox, dev = table
    publish(floor, command(id="go", name="call"))
    assert inbox.wait_for(lambda m: m.topic.endswith("/cmd/ack") and json.loads(m.payload)["id"] == "go")
    for payload in MALFORMED.values():
        publish(floor, payload)
    wait_until(lambda: len(acks(inbox)) >= 1 + len(MALFORMED), what="an ack for every command")
    publish(floor, command(id="after", name="pause"))
    assert inbox.wait_for(lambda m: m.topic.endswith("/cmd/ack") and json.loads(m.payload)["id"] == "after")
    all_acks = [check("ack", json.dumps(a).encode()) for a in acks(inbox)]
    assert [a["outcome"] for a in all_acks] == ["done"] + ["refused"] * len(MALFORMED) + ["done"]
    assert all(a["reason"].startswith("malformed") for a in all_acks[1:-1])
    dev.stop()
    refused = [d for _, d in records(tmp_path / "state", "refused")]
    assert len(refused) == len(MALFORMED) and all(r["reason"] == "malformed" for r in refused)
    inputs = [d["id"] for _, d in records(tmp_path / "state", "input")]
    assert inputs == ["go", "after"]  # the pause after the flood of junk is in the log, with its input
    assert not [r for r in caplog.records if "Recorder" in r.getMessage() or r.levelno >= logging.ERROR]


def test_a_flood_of_2000_commands_gets_2000_acks_and_a_bounded_log(table, tmp_path):
    floor, inbox, dev = table
    before = len(records(tmp_path / "state"))
    began = time.monotonic()
    for n in range(2000):
        publish(floor, command(id=f"f{n}", name="pause" if n % 2 else "call") if n % 3 else b"junk")
    wait_until(lambda: len({a["id"] for a in acks(inbox)} | {i for i, a in enumerate(acks(inbox)) if not a["id"]})
               >= 2000, what="2000 acks")
    lasted = time.monotonic() - began
    dev.stop()
    rows = records(tmp_path / "state")
    grown = len(rows) - before
    summaries = [d for t, d in rows if t == "refused" and d["reason"] == "rate_limited"]
    assert summaries and sum(s["count"] for s in summaries) > 1000
    # The bound of docs/network.md: the guard lets a sender's burst and then its rate through, so the log grows
    # by what the flood's length allows (a loaded machine takes longer to ack 2,000), never by the flood's size.
    print("log growth", grown, "records in", round(lasted, 1), "s;",
          sum(len(json.dumps(d)) for _, d in rows[before:]), "bytes of data")
    guard = FloodGuard()  # two senders: the floor's commands and the junk, which names none
    let_through = min(guard.total_burst + guard.total_rate * lasted, 2 * (guard.burst + guard.rate * lasted))
    assert grown <= RECORDS_PER_COMMAND * let_through + 2 * (lasted / guard.window + 1), (grown, lasted)


def test_a_floor_clock_a_minute_off_does_not_stop_commands(table, tmp_path):
    floor, inbox, dev = table
    publish(floor, command(id="late", name="call", sent_ms=int(time.time() * 1000) - 60_000))
    publish(floor, command(id="early", name="pause", sent_ms=int(time.time() * 1000) + 3_600_000))
    wait_until(lambda: len(acks(inbox)) >= 2, what="two acks")
    assert [(a["id"], a["outcome"]) for a in acks(inbox)] == [("late", "done"), ("early", "done")]
    publish(floor, command(id="late", name="call"))  # the same id again: still a replay
    wait_until(lambda: len(acks(inbox)) >= 3, what="the replay's ack")
    assert acks(inbox)[2]["outcome"] == "refused" and acks(inbox)[2]["reason"].startswith("replayed")


def test_the_flood_guard_limits_each_sender_and_summarises_the_rest():
    guard = FloodGuard(rate=5, burst=20, total_rate=20, total_burst=60, window=10)
    allowed = sum(guard.allow("mallory", t / 1000) for t in range(2000))  # 2000 commands in 2 s
    assert 20 <= allowed <= 31
    assert guard.allow("anna", 2.0)  # another sender still gets through
    assert guard.summaries(5.0) == []  # not due yet
    (summary,) = guard.summaries(10.5)
    assert summary.sender == "mallory" and summary.count == 2000 - allowed
    assert guard.summaries(11.0, final=True) == []  # each counted once
