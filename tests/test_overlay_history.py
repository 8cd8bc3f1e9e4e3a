"""The broadcast overlay's history in the archive (``{"what": "history"}``, shotclock/floor/history.py): what a
delayed overlay draws from, kept by the collector and answered in parts from either store."""

from __future__ import annotations

import json
import time
from datetime import datetime, timedelta, timezone

import pytest

from network_schemas import check
from shotclock.adapters.archive import Archive, open_store
from shotclock.core.codec import decode
from shotclock.core.inbound import check_heard, read_question
from shotclock.floor import history
from shotclock.floor.answers import answer

BOOT = "0123456789ab"
NOW = 1_796_072_400_000  # the collector's clock (Unix ms) when it answers
EPOCH = datetime(1970, 1, 1, tzinfo=timezone.utc)


def state(table: str, seq: int, t: float, **kw) -> bytes:
    return json.dumps({"table": table, "boot": BOOT, "seq": seq, "t": t, "phase": "running", "remaining_ms": 20000,
                       **kw}).encode()


def heard(archive: Archive, topic: str, payload: bytes, received_ms: int) -> None:
    archive.keep_heard([(check_heard(topic, payload), received_ms)])


def record(archive: Archive, table: str, seq: int, t: float, received_ms: int, kind: str = "input", **fields) -> None:
    archive.add_many([{"table": table, "boot": BOOT, "seq": seq, "record": {"t": t, "type": kind, **fields}}],
                     EPOCH + timedelta(milliseconds=received_ms))


def ask(db, question: dict, since_ms: int | None = NOW - 3_600_000, now_ms: int = NOW) -> dict:
    """Every part of the history's answer, as a page asks for them: the parts, checked against the documented
    schema."""
    parts = [history.answer_history(db, question, since_ms, clock=lambda: now_ms)]
    while "next_ms" in parts[-1]:
        assert len(parts) < 100
        parts.append(history.answer_history(db, dict(question, until_ms=parts[0]["until_ms"],
                                                     after_ms=parts[-1]["next_ms"], skip=parts[-1]["skip"]),
                                            since_ms, clock=lambda: now_ms))
    for part in parts:
        check("answer", part)
    return parts


def messages(parts: list[dict]) -> list[tuple[str, int, object]]:
    return [(m["topic"], m["age_ms"], decode(m["payload"])) for p in parts for m in p["messages"]]


@pytest.fixture
def archive(archive_spec):
    a = Archive(archive_spec, venue="test")
    yield a
    a.close()


def test_the_history_is_the_window_and_what_was_in_force_before_it(archive):
    # Table 7's states a second apart from 100 s ago; what came before the 30 s window is there once (its newest).
    for n in range(1, 101):
        heard(archive, "table/7/state", state("7", n, 1000.0 + n), NOW - (101 - n) * 1000)
    heard(archive, "table/7/status", b'{"online": true, "table": "7", "boot": "0123456789ab"}', NOW - 200_000)
    heard(archive, "table/8/state", state("8", 1, 5.0), NOW - 1000)  # another table's
    heard(archive, "feature", b'{"table": "7"}', NOW - 50_000)
    heard(archive, "bridge/east/state", b"1", NOW - 400_000)
    record(archive, "7", 41, 1090.5, NOW - 10_500, kind="decision", outcome="acted", remaining=3.5)
    record(archive, "7", 40, 1010.0, NOW - 90_000)  # before the window: not in it
    db = open_store(archive.db.spec, readonly=True, venue="test")
    try:
        parts = ask(db, {"what": "history", "delay": 30, "table": "7"})
    finally:
        db.close()
    assert len(parts) == 1 and parts[0]["covered"] == 30 and parts[0]["tables"] == ["7"]
    got = messages(parts)
    # In force at the window's start, oldest first: the bridge, the status, the feature, the state of 30 s ago.
    assert [(t, a) for t, a, _ in got[:4]] == [("bridge/east/state", 400_000), ("table/7/status", 200_000),
                                              ("feature", 50_000), ("table/7/state", 30_000)]
    states = [m for t, a, m in got[4:] if t == "table/7/state"]
    assert [s["seq"] for s in states] == list(range(72, 101))  # 29 s after the window began, 1 s apart
    events = [(a, m) for t, a, m in got if t == "table/7/event"]
    assert events == [(10_500, {"table": "7", "boot": BOOT, "seq": 41,
                                "record": {"t": 1090.5, "type": "decision", "outcome": "acted", "remaining": 3.5}})]
    assert [a for _, a, _ in got[4:]] == sorted((a for _, a, _ in got[4:]), reverse=True)  # in the order received
    assert not any(t.startswith("table/8/") for t, _, _ in got)


def test_a_long_history_comes_in_parts_each_inside_a_packet_every_message_once(archive):
    # 20 minutes of a seated table's heartbeats (about 1 kB each) and a record every 2 s: many parts.
    seats = [{"seat": n, "player": f"Player {n}", "in_hand": True, "all_in": False, "chips": 2, "bank_ms": 60000}
             for n in range(1, 9)]
    for n in range(1, 1201):
        heard(archive, "table/7/state", state("7", n, float(n), seats=seats), NOW - (1201 - n) * 1000)
        if n % 2 == 0:
            record(archive, "7", n // 2, float(n) + 0.25, NOW - (1201 - n) * 1000, kind="beep", remaining=1)
    db = open_store(archive.db.spec, readonly=True, venue="test")
    try:
        parts = ask(db, {"what": "history", "delay": 1200, "table": "7"})
    finally:
        db.close()
    assert len(parts) > 10
    assert all(len(json.dumps(p).encode()) < 60_000 for p in parts)
    got = messages(parts)
    assert [m["seq"] for t, _, m in got if t == "table/7/state"] == list(range(1, 1201))
    assert [m["seq"] for t, _, m in got if t == "table/7/event"] == list(range(1, 601))


@pytest.mark.parametrize("rows, part_bytes", [(7, 2_000), (500, 1_500), (3, 60_000)])
def test_a_millisecond_with_more_messages_than_a_part_is_given_whole_and_once(archive, monkeypatch, rows,
                                                                              part_bytes):
    # A batch of records stored together shares one millisecond, as do states heard in it: smaller parts and
    # reads than a millisecond holds still give each message once, in the order received.
    monkeypatch.setattr(history, "MAX_ROWS", rows)
    monkeypatch.setattr(history, "MAX_PART_BYTES", part_bytes)
    at = NOW - 5_000
    for n in range(1, 41):
        record(archive, "7", n, 100.0 + n, at, kind="beep", remaining=1)
    for n in range(1, 16):
        heard(archive, "table/7/state", state("7", n, 100.0 + n), at)
    heard(archive, "table/7/state", state("7", 16, 120.0), at + 1)
    db = open_store(archive.db.spec, readonly=True, venue="test")
    try:
        parts = ask(db, {"what": "history", "delay": 30, "table": "7"})
    finally:
        db.close()
    got = messages(parts)
    assert [m["seq"] for t, _, m in got if t == "table/7/event"] == list(range(1, 41))
    assert [m["seq"] for t, _, m in got if t == "table/7/state"] == list(range(1, 17))
    assert [t for t, _, _ in got][:15] == ["table/7/state"] * 15  # at one millisecond, what was heard first
    if part_bytes < 5_000:
        assert len(parts) > 2


def test_without_a_table_the_history_follows_the_feature_table(archive):
    heard(archive, "feature", b'{"table": "3"}', NOW - 100_000)
    heard(archive, "table/3/state", state("3", 1, 1.0), NOW - 90_000)
    heard(archive, "table/5/state", state("5", 1, 1.0), NOW - 20_000)
    heard(archive, "feature", b'{"table": "5"}', NOW - 10_000)
    heard(archive, "table/9/state", state("9", 1, 1.0), NOW - 5_000)  # never the feature table
    db = open_store(archive.db.spec, readonly=True, venue="test")
    try:
        parts = ask(db, {"what": "history", "delay": 60})
    finally:
        db.close()
    assert parts[0]["tables"] == ["3", "5"]
    assert [(t, a) for t, a, _ in messages(parts)] == [("feature", 100_000), ("table/3/state", 90_000),
                                                      ("table/5/state", 20_000), ("feature", 10_000)]


def test_the_archive_says_how_much_it_holds_whole_and_a_table_it_does_not_know_is_empty(archive):
    heard(archive, "table/7/state", state("7", 1, 1.0), NOW - 5_000)
    db = open_store(archive.db.spec, readonly=True, venue="test")
    try:
        since_10_min = ask(db, {"what": "history", "delay": 1800, "table": "7"}, since_ms=NOW - 600_000)
        never = ask(db, {"what": "history", "delay": 1800, "table": "7"}, since_ms=None)
        unknown = ask(db, {"what": "history", "delay": 1800, "table": "99"})
        twenty_s_ago = round(time.time() * 1000) - 20_000
        through_the_floor = answer(db, {"what": "history", "delay": 60, "table": "7"}, twenty_s_ago)
    finally:
        db.close()
    assert since_10_min[0]["covered"] == 600 and never[0]["covered"] == 0
    assert unknown[0]["messages"] == [] and unknown[0]["covered"] == 1800
    assert through_the_floor["ok"] and 19.9 < through_the_floor["covered"] < 60  # its clock, not the test's NOW


def test_the_history_of_another_venue_is_not_given(archive_spec):
    ours, theirs = Archive(archive_spec, venue="test"), Archive(archive_spec, venue="other")
    try:
        heard(ours, "table/7/state", state("7", 1, 1.0), NOW - 5_000)
        heard(theirs, "table/7/state", state("7", 2, 1.0), NOW - 4_000)
        db = open_store(archive_spec, readonly=True, venue="test")
        try:
            got = messages(ask(db, {"what": "history", "delay": 60, "table": "7"}))
        finally:
            db.close()
        assert [m["seq"] for _, _, m in got] == [1]
    finally:
        ours.close()
        theirs.close()


def test_an_hour_old_history_is_forgotten_but_what_is_in_force_stays(archive):
    for n, ago in enumerate((7200, 5000, 4000, 10), start=1):
        heard(archive, "table/7/state", state("7", n, float(n)), NOW - ago * 1000)
    heard(archive, "table/8/status", b'{"online": false, "table": "8"}', NOW - 9000 * 1000)
    assert archive.forget_heard(NOW - 3660 * 1000) == 3  # table 7's three old states; table 8's only status stays
    rows = archive.db.execute("SELECT topic, seq FROM heard ORDER BY received_ms").fetchall()
    assert [tuple(r) for r in rows] == [("table/8/status", 0), ("table/7/state", 4)]


@pytest.mark.parametrize("question, words", [
    ({"what": "history"}, "names its delay"),
    ({"what": "history", "delay": 3601}, "'delay' must be a number of seconds from 0 to 3600, not 3601"),
    ({"what": "history", "delay": -1}, "'delay' must be"),
    ({"what": "history", "delay": 60, "after_ms": 1.5}, "'after_ms' must be a whole number of milliseconds"),
    ({"what": "history", "delay": 60, "table": "7/#"}, "table id"),
])
def test_a_history_question_out_of_its_bounds_gets_one_line(archive, question, words):
    read = read_question(json.dumps(question).encode())
    reason = read.detail if hasattr(read, "detail") else answer(archive.db, read)["reason"]
    assert words in reason, reason


def test_what_the_history_keeps_is_checked_as_the_pages_read_it():
    assert check_heard("table/7/state", b'{"table": "7", "boot": "xyz", "seq": 1}').reason == "malformed"
    assert check_heard("table/7/state", b'{"table": "7", "boot": "0123456789ab", "seq": 0}').reason == "malformed"
    assert check_heard("table/7/status", b'{"online": "yes"}').reason == "malformed"
    assert check_heard("feature", b'{"table": "a/b"}').reason == "malformed"
    assert check_heard("bridge/east/state", b"2").reason == "malformed"
    assert check_heard("table/7/cmd", b"{}").reason == "topic"
    assert check_heard("table/7/state", b'{"seq": 1, "seq": 2}').reason == "duplicate"
    assert check_heard("table/7/status", b'{"online": true}').table == "7"


# -- through the broker: the collector keeps the history and answers the overlay's login ---------------------------


def ask_on(broker, client, leaf: str, question: dict) -> dict | None:
    """Ask the collector on ``…/archive/<leaf>`` as a page does (its answer on the matching reply topic): the answer,
    or None when none came within a few seconds."""
    from paho.mqtt.packettypes import PacketTypes
    from paho.mqtt.properties import Properties

    from mqtt_broker import Inbox

    base = f"shotclock/v1/test/archive/{leaf.rsplit('get', 1)[0]}"
    inbox = getattr(client, "inbox", None) or Inbox(client, f"{base}reply/{client._client_id.decode()}")
    client.inbox = inbox
    props = Properties(PacketTypes.PUBLISH)
    props.ResponseTopic = f"{base}reply/{client._client_id.decode()}"
    props.CorrelationData = token = f"q{time.monotonic_ns()}".encode()
    client.publish(f"shotclock/v1/test/archive/{leaf}", json.dumps(question), qos=1, properties=props)
    got = inbox.wait_for(lambda m: getattr(m.properties, "CorrelationData", None) == token, timeout=5)
    return json.loads(got.payload) if got is not None else None


def test_the_collector_keeps_the_overlays_history_and_answers_its_login_that_question_only(broker, tmp_path):
    from helpers import wait_until
    from mqtt_broker import Inbox
    from shotclock.core.topics import feature_topic, table_topic
    from shotclock.floor.collector import ONLY_HISTORY, Collector
    from test_broker_config import NOT_AUTHORIZED, publish_rc

    archive = Archive(tmp_path / "floor")
    collector = Collector(archive, "127.0.0.1", broker.port, broker.venue, "collector", broker.passwords["collector"])
    collector.start()
    try:
        assert collector.connected.wait(60)
        since = collector.answerer.history_since_ms
        assert since is not None and abs(since - time.time() * 1000) < 60_000
        table, floor, overlay = broker.client("table-1"), broker.client("floor"), broker.client("overlay")
        for n in (1, 2, 2):  # the second seq 2 again (QoS 1 may deliver twice): kept once
            table.publish(table_topic("test", "1", "state"), state("1", n, float(n)), qos=1,
                          retain=True).wait_for_publish(10)
        table.publish(table_topic("test", "1", "state"), state("2", 3, 3.0), qos=1).wait_for_publish(10)  # forged
        floor.publish(feature_topic("test"), b'{"table": "1"}', qos=1, retain=True).wait_for_publish(10)
        rows = lambda: archive.db.execute("SELECT topic, seq FROM heard ORDER BY received_ms").fetchall()  # noqa
        wait_until(lambda: len(rows()) == 3, what="the states and the feature table kept")
        assert [tuple(r) for r in rows()] == [("table/1/state", 1), ("table/1/state", 2), ("feature", 0)]
        wait_until(lambda: collector.refused["table"] == 1, what="the state naming another table refused")
        # The overlay's login asks on its own topic and gets the table's history.
        got = ask_on(broker, overlay, "history/get", {"what": "history", "delay": 60, "table": "1"})
        assert got["ok"] and got["covered"] > 0 and got["tables"] == ["1"]
        assert [(m["topic"], decode(m["payload"]).get("seq")) for m in got["messages"]] == [
            ("table/1/state", 1), ("table/1/state", 2), ("feature", None)]
        # Nothing else there: a rulings question on its topic is refused; the floor's topic it may not write, nor
        # read the floor's answers.
        assert ask_on(broker, overlay, "history/get", {"what": "rulings", "limit": 5}) == {"ok": False,
                                                                                           "reason": ONLY_HISTORY}
        assert publish_rc(overlay, "shotclock/v1/test/archive/get", b'{"what": "rulings"}') == NOT_AUTHORIZED
        spy = Inbox(broker.client("overlay"), "shotclock/v1/test/archive/reply/#")
        assert ask_on(broker, floor, "get", {"what": "rulings", "limit": 5})["ok"] is True
        assert ask_on(broker, floor, "get", {"what": "history", "delay": 60, "table": "1"})["ok"] is True
        time.sleep(0.5)
        assert spy.messages == []
        # A collector cut off from the broker keeps no history meanwhile: it is whole again from its return.
        broker.stop()
        wait_until(lambda: collector.answerer.history_since_ms is None, what="the gap seen")
        broker.start()
        assert collector.connected.wait(60)
        wait_until(lambda: collector.answerer.history_since_ms is not None, what="the history whole again")
        assert collector.answerer.history_since_ms > since
    finally:
        collector.stop()
        archive.close()


def test_the_collector_forgets_the_history_older_than_the_longest_delay(broker, tmp_path, monkeypatch):
    from helpers import wait_until
    from shotclock.core.topics import table_topic
    from shotclock.floor import collector as collector_module

    monkeypatch.setattr(collector_module, "FORGET_EVERY", 0.2)
    monkeypatch.setattr(collector_module, "HEARD_KEPT_MS", 1000)
    archive = Archive(tmp_path / "floor")
    collector = collector_module.Collector(archive, "127.0.0.1", broker.port, broker.venue, "collector",
                                           broker.passwords["collector"])
    collector.start()
    try:
        assert collector.connected.wait(60)
        table = broker.client("table-1")
        for n in (1, 2, 3):
            table.publish(table_topic("test", "1", "state"), state("1", n, float(n)), qos=1).wait_for_publish(10)
            time.sleep(0.05)  # each in a millisecond of its own (two of the newest millisecond would both stay)
        seqs = lambda: [r[0] for r in archive.db.execute("SELECT seq FROM heard ORDER BY seq")]  # noqa: E731
        wait_until(lambda: seqs() == [3], what="the old states forgotten, the one in force kept")
    finally:
        collector.stop()
        archive.close()
