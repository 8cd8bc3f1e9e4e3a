"""``shotclock floor collect`` and ``shotclock log --collected``: one archive of every table's rulings."""

import json
import sqlite3
import time

import pytest

from helpers import wait_until
from mqtt_broker import Inbox
from network_device import RunningDevice, network_config
from shotclock.core.topics import table_topic
from shotclock.adapters.archive import Archive, table_log
from shotclock.floor.collector import Collector
from shotclock.cli import main


def start_collector(broker, folder):
    archive = Archive(folder)
    collector = Collector(archive, "127.0.0.1", broker.port, broker.venue, "collector",
                          broker.passwords["collector"])
    collector.start()
    assert collector.connected.wait(60)  # connected and subscribed
    return archive, collector


@pytest.mark.slow
def test_collector_archives_two_tables_and_log_reads_each(broker, tmp_path, capsys):
    archive, collector = start_collector(broker, tmp_path / "floor")
    devices = [RunningDevice(network_config(broker, table=t), tmp_path / f"state{t}") for t in ("1", "2")]
    try:
        for d in devices:
            d.tap("bet")
            d.tap("floor")
        time.sleep(0.3)
        devices[0].tap("action")
        logs = [sqlite3.connect(tmp_path / f"state{t}" / "shotclock.db") for t in ("1", "2")]
        total = lambda: sum(db.execute("SELECT COUNT(*) FROM records").fetchone()[0] for db in logs)
        wait_until(lambda: archive.count() == total() and total() > 6, what="every record in the archive")
    finally:
        for d in devices:
            d.stop()
        collector.stop()
    assert archive.duplicates == 0 or archive.count() == archive.added
    archive.close()
    folder = str(tmp_path / "floor")
    assert main(["log", "--collected", folder]) == 0
    out = capsys.readouterr().out
    assert out.splitlines()[1].startswith("1 ") and out.splitlines()[2].startswith("2 ")
    assert main(["log", "--collected", folder, "--table", "1"]) == 0
    listing = capsys.readouterr().out
    assert "Tafel 1" in listing and "acted" in listing
    assert main(["log", "--collected", folder, "--table", "2", "show", "1"]) == 0
    assert "Tafel 2" in capsys.readouterr().out
    assert main(["log", "verify", "--collected", folder, "--table", "1"]) == 0
    assert "chain intact" in capsys.readouterr().out
    assert main(["log", "--collected", folder, "--table", "1", "stats", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["clocks"] == 1


def chained_events(count):
    """``count`` events whose log fields chain as a device's log does."""
    from shotclock.adapters.log import GENESIS, record_hash

    events, prev = [], GENESIS
    for n in range(1, count + 1):
        row = {"id": n, "session": 1, "clock": None, "type": "beep", "t": float(n), "utc": "2026-11-30T01:00:00.000000Z",
               "data": json.dumps({"remaining": 1}, separators=(",", ":")), "prev": prev}
        row["hash"] = prev = record_hash(row)
        events.append({"table": "7", "boot": "0123456789ab", "seq": n,
                       "record": {"t": float(n), "type": "beep", "remaining": 1},
                       "log": {k: row[k] for k in ("session", "clock", "utc", "prev", "hash")}})
    return events


def test_archive_drops_duplicates_and_verify_names_a_gap(archive_spec, capsys):
    archive = Archive(archive_spec)
    e = chained_events(4)
    assert [archive.add(x) for x in (e[0], e[1], e[1], e[3])] == [True, True, False, True]
    assert archive.duplicates == 1 and archive.count() == 3
    archive.close()
    assert main(["log", "verify", "--collected", archive_spec, "--table", "7"]) == 1
    assert "record 3 was removed" in capsys.readouterr().out
    archive = Archive(archive_spec)
    archive.add(e[2])  # the late one arrives: the chain is whole
    archive.close()
    assert main(["log", "verify", "--collected", archive_spec, "--table", "7"]) == 0
    assert "chain intact" in capsys.readouterr().out


def test_log_collected_needs_a_known_table(tmp_path, capsys):
    Archive(tmp_path).close()
    assert main(["log", "--collected", str(tmp_path), "--table", "9", "stats"]) == 2
    assert "no table '9'" in capsys.readouterr().err
    assert main(["log", "--collected", str(tmp_path / "nowhere"), "--table", "1"]) == 2


def test_collect_cli_refuses_bad_arguments(tmp_path, capsys):
    assert main(["floor", "collect", "--venue", "a b", "--credentials", "x", "--archive", str(tmp_path)]) == 2
    assert "venue" in capsys.readouterr().err
    assert main(["floor", "collect", "--venue", "v", "--credentials", str(tmp_path / "none.toml"),
                 "--archive", str(tmp_path)]) == 2
    assert "credentials" in capsys.readouterr().err


def device_run(state_dir, boot, clocks, t0=0.0, table="8"):
    """One run (boot) of a table's device: ``clocks`` clocks written to its decision log in ``state_dir`` (a log
    there already goes on, as after a restart), as the ``event`` messages it sends the collector."""
    from datetime import datetime, timedelta, timezone

    from shotclock.adapters.log import DecisionLog, utc_iso
    from shotclock.core.wire import event_message

    when = lambda t: utc_iso(datetime(2026, 12, 1, 20, tzinfo=timezone.utc) + timedelta(seconds=t))
    log = DecisionLog(state_dir)
    session = log.new_session(t0, when(t0), {"table": f"Sim {table}", "mode": "clock", "config": {}, "boot": boot})
    rows = list(log.last_written)
    for n in range(clocks):
        t = t0 + 10 * n + 1
        start = log.next_id()
        log.append([{"session": session, "clock": start, "type": "start", "t": t, "utc": when(t),
                     "data": {"seconds": 30, "facing_bet": True}}])
        rows += log.last_written
        log.append([{"session": session, "clock": start, "type": "decision", "t": t + 2 + n, "utc": when(t + 2 + n),
                     "data": {"outcome": "acted", "remaining": 28.0 - n, "at_zero": False}}])
        rows += log.last_written
    log.close()
    return [event_message(table, boot, row) for row in rows]


def archived(folder, *runs):
    archive = Archive(folder)
    for run in runs:
        for e in run:
            archive.add(e)
    archive.close()
    return str(folder)


def cli(capsys, *args):
    code = main(["log", *map(str, args)])
    captured = capsys.readouterr()
    return code, captured.out + captured.err


def named(spec):
    """How messages name the archive ``spec``: the SQLite file, or the database's URL without a password."""
    from shotclock.adapters.archive_store import is_database_url, shown_url

    return shown_url(spec) if is_database_url(spec) else f"{spec}/collected.db"


def test_a_replaced_device_or_a_wiped_log_starts_a_new_chain_and_every_clock_keeps_its_number(tmp_path, capsys,
                                                                                              archive_spec):
    # Issue 17: after './dev floor' ran twice on one folder, '--table 8 verify' said "record 1 is out of order
    # (inserted)" (exit 1), and '--table 8 show 3' showed another clock than the list had printed.
    first, restart = device_run(tmp_path / "a", "a1", 2), device_run(tmp_path / "a", "a2", 1, t0=100)
    folder = archived(archive_spec, first, restart)
    assert restart[0]["seq"] == 6  # a restart goes on with the device's log
    code, before = cli(capsys, "--collected", folder, "--table", "8", "show", 3)
    assert code == 0 and "remaining=28 s" in before and "started 2026-12-01 2" in before
    replaced = device_run(tmp_path / "b", "b1", 2, t0=500)  # a new device (or its state dir wiped)
    assert replaced[0]["seq"] == 1
    archived(folder, replaced)
    code, out = cli(capsys, "--collected", folder, "--table", "8", "verify")
    assert code == 0 and out.startswith(f"{named(folder)}: OK: 2 chains"), out
    assert "chain 1 (records 1 to 8, since " in out and "chain 2 (records 1 to 5, since " in out
    assert cli(capsys, "--collected", folder, "--table", "8", "show", 3) == (0, before)  # the same clock
    code, listing = cli(capsys, "--collected", folder, "--table", "8")
    assert code == 0 and [line.split()[0] for line in listing.splitlines()[1:]] == ["1", "2", "3", "4", "5"]
    assert [line.split()[-5] for line in listing.splitlines()[1:]] == ["28.00", "27.00", "28.00", "28.00", "27.00"]
    code, shown = cli(capsys, "--collected", folder, "--table", "8", "show", 5)
    assert code == 0 and "remaining=27 s" in shown and "warning" not in shown
    code, out = cli(capsys, "--collected", folder, "--table", "8", "stats", "--json")
    assert code == 0 and json.loads(out)["clocks"] == 5
    code, out = cli(capsys, "--collected", folder, "--table", "8", "export", "--jsonl")
    assert [(r["chain"], r["id"]) for r in map(json.loads, out.splitlines())][7:10] == [(1, 8), (2, 1), (2, 2)]
    # A late record of the first device (its backlog, after the new one began) changes no clock's number.
    late = device_run(tmp_path / "a", "a3", 1, t0=900)
    archived(folder, late)
    assert cli(capsys, "--collected", folder, "--table", "8", "show", 3) == (0, before)
    code, out = cli(capsys, "--collected", folder, "--table", "8", "show", 6)
    assert code == 0 and "#10 " in out and "chain 1" not in out


def tampered(tmp_path, spec, change):
    """An archive of two device logs for table 8 at ``spec``, changed by ``change(store)``: verify's exit code."""
    from shotclock.adapters.archive_store import open_store

    archived(spec, device_run(tmp_path / "a", "a1", 2), device_run(tmp_path / "a", "a2", 2, t0=100),
             device_run(tmp_path / "a", "a3", 2, t0=200), device_run(tmp_path / "b", "b1", 2, t0=500))
    db = open_store(spec)
    change(db)
    db.close()
    return main(["log", "--collected", spec, "--table", "8", "verify"])


@pytest.mark.parametrize("store", ["sqlite", "postgresql"])
def test_a_genuine_tamper_inside_a_chain_still_fails_verify(tmp_path, capsys, store, request):
    from shotclock.adapters.archive import EVENT_COLUMNS
    from shotclock.adapters.log import GENESIS, record_hash

    server = request.getfixturevalue("postgres_server") if store == "postgresql" else None
    where = lambda name: server.database() if server else str(tmp_path / name / "floor")

    def forged(db):  # a record 4 of a made-up boot, hashed right, from the genesis hash
        row = {"id": 4, "session": 1, "clock": 2, "type": "decision", "t": 5.0, "utc": "2026-12-01T20:00:05.000000Z",
               "data": '{"outcome":"hand_dead"}', "prev": GENESIS}
        db.execute(f"INSERT INTO events ({EVENT_COLUMNS}) VALUES ('8', 'ffff', 4, 1, 2, 'decision', 5.0, ?, ?, ?, ?, ?)",
                   (row["utc"], row["data"], GENESIS, record_hash(row), row["utc"]))

    cases = [
        (lambda db: db.execute("UPDATE events SET data = '{\"outcome\":\"hand_dead\"}' WHERE boot = 'b1' AND seq = 3"),
         "chain 2 (records 1 to 5, since", "record 3 was changed"),
        (lambda db: db.execute("DELETE FROM events WHERE boot = 'a1' AND seq = 3"), "chain 1", "record 3 was removed"),
        # The last record of a run removed: the next run follows nothing the archive holds.
        (lambda db: db.execute("DELETE FROM events WHERE boot = 'a1' AND seq = 5"), "chain 1", "record 5 was removed"),
        (lambda db: db.execute("DELETE FROM events WHERE boot = 'a2'"), "chain 1", "records 6 to 10 were removed"),
        (forged, "chain", "record 4 is out of order (inserted)"),
    ]
    for n, (change, chain, words) in enumerate(cases):
        assert tampered(tmp_path / str(n), where(str(n)), change) == 1, words
        out = capsys.readouterr().out
        assert "FAIL: " in out and chain in out and words in out, (words, out)
    assert tampered(tmp_path / "none", where("none"), lambda db: None) == 0
    assert "OK: 2 chains" in capsys.readouterr().out


def test_the_dashboards_clock_question_names_the_device_log_by_a_boot(tmp_path, archive_spec):
    from shotclock.floor.answers import answer
    from shotclock.adapters.archive import Archive

    archived(archive_spec, device_run(tmp_path / "a", "a1", 2), device_run(tmp_path / "b", "b1", 2, t0=500))
    archive = Archive(archive_spec)
    # Clock 2 (the start record's id) is in both device logs: the ruling's boot tells which.
    old = answer(archive.db, {"what": "clock", "table": "8", "clock": 2, "boot": "a1"})
    new = answer(archive.db, {"what": "clock", "table": "8", "clock": 2, "boot": "b1"})
    assert (old["number"], new["number"]) == (1, 3)
    assert old["records"][0]["utc"] < new["records"][0]["utc"]
    assert answer(archive.db, {"what": "clock", "table": "8", "clock": 2})["number"] == 3  # the latest
    assert answer(archive.db, {"what": "clock", "table": "8", "clock": 2, "boot": 7})["ok"] is False
    archive.close()


# -- issue 18: nothing a table publishes can forge another table's records or stop the archive ---------------


def events_of(table, count, boot="0123456789ab", remaining=1):
    """``count`` chained events of ``table`` (``remaining`` tells a forgery from the genuine records)."""
    events = chained_events(count) if remaining == 1 else forged_events(count, remaining)
    return [dict(e, table=table, boot=boot) for e in events]


def forged_events(count, remaining):
    from shotclock.adapters.log import GENESIS, record_hash

    events, prev = [], GENESIS
    for n in range(1, count + 1):
        row = {"id": n, "session": 1, "clock": None, "type": "beep", "t": float(n), "utc": "2026-11-30T01:00:00.000000Z",
               "data": json.dumps({"remaining": remaining}, separators=(",", ":")), "prev": prev}
        row["hash"] = prev = record_hash(row)
        events.append({"table": "7", "boot": "0123456789ab", "seq": n,
                       "record": {"t": float(n), "type": "beep", "remaining": remaining},
                       "log": {k: row[k] for k in ("session", "clock", "utc", "prev", "hash")}})
    return events


def publish_all(client, topic, payloads):
    """Publish each payload (bytes, or a dict as JSON) at QoS 1 and wait for the broker's PUBACKs."""
    infos = [client.publish(topic, p if isinstance(p, bytes) else json.dumps(p), qos=1) for p in payloads]
    for info in infos:
        info.wait_for_publish(30)


def stored(archive, table):
    return [tuple(r) for r in archive.db.execute(
        "SELECT seq, data FROM events WHERE table_id = ? ORDER BY seq", (table,))]


def test_a_table_cannot_plant_records_under_another_tables_name(broker, tmp_path, capsys):
    # Issue 18, 2: with table 1's credential, on table 1's own topic, events that say "table": "2" were filed
    # under table 2, and table 2's genuine records were then dropped as duplicates; verify said OK.
    archive, collector = start_collector(broker, tmp_path / "floor")
    try:
        forger, genuine = broker.client("table-1"), broker.client("table-2")
        publish_all(forger, table_topic("test", "1", "event"), events_of("2", 3, remaining=99))
        wait_until(lambda: collector.refused["table"] == 3, what="the forged events refused")
        publish_all(genuine, table_topic("test", "2", "event"), events_of("2", 3))
        wait_until(lambda: len(stored(archive, "2")) == 3, what="table 2's genuine records stored")
    finally:
        collector.stop()
    assert [data for _, data in stored(archive, "2")] == ['{"remaining":1}'] * 3
    assert stored(archive, "1") == [] and archive.duplicates == 0
    archive.close()
    assert main(["log", "verify", "--collected", str(tmp_path / "floor"), "--table", "2"]) == 0


def ask(broker, client, question):
    """Ask the collector ``question`` (a dict, or raw bytes) as the dashboard does; its answer (a dict)."""
    from paho.mqtt.packettypes import PacketTypes
    from paho.mqtt.properties import Properties

    reply = f"shotclock/v1/test/archive/reply/{client._client_id.decode()}"
    inbox = getattr(client, "inbox", None) or Inbox(client, reply)
    client.inbox = inbox
    props = Properties(PacketTypes.PUBLISH)
    props.ResponseTopic = reply
    token = f"q{len(inbox.messages)}-{time.monotonic_ns()}".encode()
    props.CorrelationData = token
    body = question if isinstance(question, bytes) else json.dumps(question)
    client.publish("shotclock/v1/test/archive/get", body, qos=1, properties=props).wait_for_publish(30)
    got = inbox.wait_for(lambda m: getattr(m.properties, "CorrelationData", None) == token)
    assert got is not None, f"no answer to {question!r}"
    return json.loads(got.payload)


POISON = [
    {"boot": "0123456789ab", "seq": 10 ** 20, "record": {"t": 1.0, "type": "beep"}},  # SQLite: OverflowError
    {"boot": "0123456789ab", "seq": 5, "record": {"t": 1.0, "type": "beep", "n": -(10 ** 30)}},
    {"boot": "0123456789ab", "seq": 6, "record": {"t": 1e400, "type": "beep"}},
    {"boot": "0123456789ab", "seq": 7, "record": {"t": 1.0, "type": "beep", "who": "\ud800"}},
    {"boot": "0123456789ab", "seq": 8, "record": "a record"},
    {"boot": "../../etc", "seq": 9, "record": {"t": 1.0, "type": "beep"}},
    {"boot": "0123456789ab", "seq": 10, "record": {"t": 1.0, "type": "beep"},
     "log": {"session": 10 ** 25, "clock": None, "utc": "x", "prev": "0" * 64, "hash": "1" * 64}},
    b'{"boot": "0123456789ab", "seq": 11, "record": {"t": 1.0, "type": "beep", "who": "\xff\xfe"}}',
    b'{"seq": ' + b'[' * 30000 + b']' * 30000 + b'}',
    b'{"boot": "0123456789ab", "seq": 12, "record": {"t": NaN, "type": "beep"}}',
    b"not json",
]


def test_poisoned_events_and_questions_never_stop_the_archive(broker, tmp_path):
    # Issue 18, 3: 20 events with seq = 10**20 made SQLite raise OverflowError; never acked, they blocked the
    # collector's queue for every table, again after a restart. A 23-digit clock in an archive question killed
    # the collector's MQTT thread.
    archive, collector = start_collector(broker, tmp_path / "floor")
    floor = broker.client("floor")
    try:
        bad = broker.client("table-1")
        words = Inbox(bad, table_topic("test", "1", "stored"))
        publish_all(bad, table_topic("test", "1", "event"), [POISON[0]] * 20 + POISON[1:])
        answer = ask(broker, floor, {"what": "clock", "table": "1", "clock": 10 ** 22})
        assert answer["ok"] is False and "64 bits" in answer["reason"]
        assert ask(broker, floor, {"what": "clock", "table": "1", "clock": 1, "boot": "\ud800"})["ok"] is False
        assert ask(broker, floor, b"\xff")["ok"] is False
        publish_all(broker.client("table-2"), table_topic("test", "2", "event"), events_of("2", 4))
        wait_until(lambda: len(stored(archive, "2")) == 4, what="table 2's records stored after the poison")
        wait_until(lambda: sum(collector.refused.values()) >= 20 + len(POISON) - 1 + 3,
                   what="every bad message refused and counted")
        assert collector.refused["number"] >= 20 + 4 and collector.refused["question"] == 3
        assert ask(broker, floor, {"what": "rulings", "limit": 5})["ok"] is True  # the thread lives on
        # A refused record whose boot and seq are sound is answered too: it never holds up the table's outbox.
        word = words.wait_for(lambda m: json.loads(m.payload)["seq"] == 10)
        assert word is not None and json.loads(word.payload) == {"boot": "0123456789ab", "seq": 10, "refused": "number"}
    finally:
        collector.stop()
    assert stored(archive, "1") == []
    archive.close()
    # Acknowledged: after a restart nothing is stuck and nothing comes again.
    archive, collector = start_collector(broker, tmp_path / "floor")
    try:
        publish_all(broker.client("table-1"), table_topic("test", "1", "event"), events_of("1", 2))
        wait_until(lambda: len(stored(archive, "1")) == 2, what="table 1's genuine records after a restart")
        assert sum(collector.refused.values()) == 0
    finally:
        collector.stop()
        archive.close()


def test_a_full_disk_is_retried_and_nothing_is_lost(broker, tmp_path, monkeypatch):
    # A fault of the archive's disk is not the message's: it is retried (with backoff), never acknowledged unstored.
    archive, collector = start_collector(broker, tmp_path / "floor")
    real_add, failures = archive.add_many, []

    def flaky_add(events):
        if len(failures) < 3:
            failures.append(events[0]["seq"])
            raise sqlite3.OperationalError("database or disk is full")
        return real_add(events)

    monkeypatch.setattr(archive, "add_many", flaky_add)
    try:
        publish_all(broker.client("table-2"), table_topic("test", "2", "event"), events_of("2", 3))
        wait_until(lambda: len(stored(archive, "2")) == 3, what="every record stored once the disk is back")
    finally:
        collector.stop()
    assert failures == [1, 1, 1] and collector.storage_fault == "" and sum(collector.refused.values()) == 0
    archive.close()


def test_two_collectors_on_one_broker_keep_one_archive_and_say_which(broker, tmp_path):
    # Issue 18, 4: two collectors on one broker kicked each other and split the archive 2/17 and 15/17 unsaid.
    from network_schemas import check
    from shotclock.core.topics import collector_topic

    said = Inbox(broker.client("floor"), collector_topic("test"), table_topic("test", "2", "stored"))
    first_archive, first = start_collector(broker, tmp_path / "a")
    second_archive = Archive(tmp_path / "b")
    second = Collector(second_archive, "127.0.0.1", broker.port, broker.venue, "collector",
                       broker.passwords["collector"])
    second.start()
    table = broker.client("table-2")
    events = events_of("2", 6)
    try:
        assert second.standing_by.wait(60)
        assert (first.role, second.role) == ("active", "standby")
        publish_all(table, table_topic("test", "2", "event"), events[:3])
        wait_until(lambda: len(stored(first_archive, "2")) == 3, what="the active collector stores them")
        first.stop()  # the active one goes: the one standing by takes over the venue's session
        wait_until(lambda: second.role == "active" and second.connected.is_set(), what="the second takes over")
        publish_all(table, table_topic("test", "2", "event"), events[3:])
        wait_until(lambda: len(stored(second_archive, "2")) == 3, what="the second stores what came after")
    finally:
        first.stop()
        second.stop()
    assert [seq for seq, _ in stored(first_archive, "2")] == [1, 2, 3]
    assert [seq for seq, _ in stored(second_archive, "2")] == [4, 5, 6]
    assert first_archive.duplicates == second_archive.duplicates == 0
    stored_said = [check("stored", m.payload)["seq"] for m in list(said.messages) if m.topic.endswith("/stored")]
    assert sorted(stored_said) == [1, 2, 3, 4, 5, 6]  # each table hears the archive's word for each record
    statuses = [check("collector", m.payload) for m in list(said.messages) if m.topic.endswith("/collector/status")]
    assert [s["online"] for s in statuses][:1] == [True] and statuses[-1]["instance"].endswith("collected.db")


@pytest.mark.slow
def test_a_broker_crash_loses_nothing_it_acknowledged(tmp_path):
    # Issue 18, 6: collector offline, a table rules 2 clocks, broker kill -9 and restart: 17/17 records were never
    # archived (mosquitto had acknowledged them, not saved them) and the device's watermark said delivered.
    from mqtt_broker import MosquittoBroker

    with MosquittoBroker(tmp_path / "broker", autosave=3600) as broker:
        archive, collector = start_collector(broker, tmp_path / "floor")
        collector.stop()  # offline: the broker keeps its session and queues the events
        broker.stop()
        broker.start()  # a clean restart saves the session; with autosave 3600 nothing after it is saved
        watcher = broker.client("floor")
        seen = Inbox(watcher, table_topic("test", "1", "event"))
        device = RunningDevice(network_config(broker, table="1"), tmp_path / "state")
        log = sqlite3.connect(tmp_path / "state" / "shotclock.db")
        ids = lambda: {r[0] for r in log.execute("SELECT id FROM records")}
        try:
            wait_until(lambda: device.link.status.connected, what="the table online")
            decisions = lambda: sum('"decision"' in m.payload.decode() for m in list(seen.messages))
            for n in range(2):
                device.tap("bet")
                device.tap("floor")
                wait_until(lambda: any("start" in m.payload.decode() for m in seen.messages[-3:]),
                           what="the clock started")
                device.tap("action")
                # Counted, not the last message: a record written after the ruling may have come in behind it.
                wait_until(lambda: decisions() > n, what="the ruling sent")
            before = ids()
            wait_until(lambda: before <= {json.loads(m.payload)["seq"] for m in list(seen.messages)},
                       what="the broker has every record (it forwarded each)")
            broker.kill()  # nothing it queued for the collector was saved
            broker.start()
            collector = Collector(archive, "127.0.0.1", broker.port, broker.venue, "collector",
                                  broker.passwords["collector"])
            collector.start()
            held = lambda: {seq for seq, _ in stored(archive, "1")}
            wait_until(lambda: before <= held(), what="every record the broker had acknowledged, archived")
            wait_until(lambda: device.link.status.pending == 0, what="the device delivered all")
        finally:
            device.stop()
            collector.stop()
            log.close()
    assert before <= {seq for seq, _ in stored(archive, "1")} and len(before) >= 10
    archive.close()


def test_an_unexpected_error_never_ends_the_collectors_thread(broker, tmp_path, monkeypatch, caplog):
    # Issue 18, 3: no thread of the collector dies silently. Whatever goes wrong with one message is logged,
    # counted and acknowledged; the next message is handled on the same thread.
    import shotclock.floor.collector as collector_module

    archive, collector = start_collector(broker, tmp_path / "floor")
    real, calls = collector_module.check_event, []

    def broken_once(payload, table):
        calls.append(table)
        if len(calls) == 1:
            raise RuntimeError("a bug")
        return real(payload, table)

    monkeypatch.setattr(collector_module, "check_event", broken_once)
    try:
        thread = collector.loops[collector.client]
        publish_all(broker.client("table-2"), table_topic("test", "2", "event"), events_of("2", 3))
        wait_until(lambda: len(stored(archive, "2")) == 2, what="the messages after the bad one stored")
        assert collector.refused["error"] == 1 and thread.is_alive() and collector.loops[collector.client] is thread
    finally:
        collector.stop()
    assert "could not be handled" in caplog.text and "a bug" in caplog.text
    archive.close()


def test_a_collectors_network_thread_that_ended_is_started_again(broker, tmp_path, caplog):
    # paho's loop thread of each client is known by its connection attempts (on_pre_connect), not by paho's privates.
    archive, collector = start_collector(broker, tmp_path / "floor")
    try:
        thread = collector.loops[collector.client]
        collector.check_threads()
        assert "thread ended" not in caplog.text  # alive: left alone
        collector.client.loop_stop()  # the thread ends, as an error paho did not catch would end it
        assert not thread.is_alive()
        collector.check_threads()
        assert "the collector's network thread ended; starting it again" in caplog.text
        publish_all(broker.client("table-2"), table_topic("test", "2", "event"), events_of("2", 3))
        wait_until(lambda: len(stored(archive, "2")) == 3, what="the events stored by the new thread")
        assert collector.loops[collector.client] is not thread and collector.loops[collector.client].is_alive()
    finally:
        collector.stop()
    archive.close()


@pytest.mark.slow
def test_nothing_is_lost_when_the_device_restarts_between_a_broker_crash_and_the_collectors_return(tmp_path):
    # Issue 18, 6, another order: collector offline, the table rules, the device stops (its outbox still holds
    # every record: the archive never said it had them), the broker crashes, the device starts again, the
    # collector comes back: all archived.
    from mqtt_broker import MosquittoBroker

    with MosquittoBroker(tmp_path / "broker", autosave=3600) as broker:
        archive, collector = start_collector(broker, tmp_path / "floor")
        collector.stop()
        broker.stop()
        broker.start()
        seen = Inbox(broker.client("floor"), table_topic("test", "1", "event"))
        device = RunningDevice(network_config(broker, table="1"), tmp_path / "state")
        try:
            wait_until(lambda: device.link.status.connected, what="the table online")
            device.tap("bet")
            device.tap("floor")
            wait_until(lambda: any(b'"start"' in m.payload for m in list(seen.messages)), what="the clock started")
            device.tap("action")
            wait_until(lambda: any(b'"decision"' in m.payload for m in list(seen.messages)), what="the ruling sent")
        finally:
            device.stop()
        log = sqlite3.connect(tmp_path / "state" / "shotclock.db")
        before = {r[0] for r in log.execute("SELECT id FROM records")}
        log.close()
        outbox = sqlite3.connect(tmp_path / "state" / "outbox.db")
        assert outbox.execute("SELECT value FROM outbox WHERE key = 'delivered'").fetchone()[0] < min(before)
        outbox.close()
        broker.kill()
        broker.start()
        device = RunningDevice(network_config(broker, table="1"), tmp_path / "state")
        collector = Collector(archive, "127.0.0.1", broker.port, broker.venue, "collector",
                              broker.passwords["collector"])
        collector.start()
        try:
            wait_until(lambda: before <= {seq for seq, _ in stored(archive, "1")}, what="every record archived")
            wait_until(lambda: device.link.status.pending == 0, what="the device delivered all")
        finally:
            device.stop()
            collector.stop()
    archive.close()


def _event(seq: int) -> dict:
    return {"table": "1", "boot": "0123456789ab", "seq": seq, "record": {"t": 1.0, "type": "note", "text": "x" * 400},
            "log": {"session": 1, "clock": None, "utc": "2026-12-01T00:00:00.000Z", "prev": "0" * 64, "hash": "1" * 64}}


def test_no_store_copies_the_wal_into_the_archive_a_thread_of_its_own_does(tmp_path):
    # Issue 30, item 9: SQLite's own checkpoint ran inside the store that filled the WAL past 1000 pages, copying
    # and syncing them all while the collector's one message thread waited: the archive latency's p99 (149 ms
    # against a median of 3 ms).
    archive = Archive(tmp_path)
    archive.checkpoint_apart(every=3600)  # its thread waits: only the stores run
    page = archive.db.execute("PRAGMA page_size").fetchone()[0]
    for seq in range(1, 2501):
        archive.add(_event(seq))
    wal = tmp_path / "collected.db-wal"
    assert wal.stat().st_size > 1200 * page, "a store checkpointed the WAL (it would stay near 1000 pages)"
    assert (tmp_path / "collected.db").stat().st_size < 100 * page  # every record still in the WAL only
    archive.close()
    archive = Archive(tmp_path)
    archive.checkpoint_apart(every=0.05)
    archive.add(_event(2501))
    # Its thread copies the WAL into the file, while the stores go on.
    wait_until(lambda: (tmp_path / "collected.db").stat().st_size > 100 * page, what="the WAL copied into the file")
    archive.close()
    assert Archive(tmp_path).count() == 2501



def test_a_slow_question_never_holds_the_tables_records_back(broker, tmp_path, monkeypatch):
    # Issue 30, 9: the report over a big archive took ~2 s on the collector's network thread, and every table's
    # records waited behind it (the archive's latency tail). Questions are answered on a thread of their own.
    import threading

    import shotclock.floor.answers as answers_module

    archive, collector = start_collector(broker, tmp_path / "floor")
    release, asked = threading.Event(), threading.Event()
    real = answers_module.answer

    def slow(db, question, *since):
        asked.set()
        release.wait(60)
        return real(db, question, *since)

    monkeypatch.setattr(answers_module, "answer", slow)
    floor = broker.client("floor")
    answer = {}
    try:
        asking = threading.Thread(target=lambda: answer.update(ask(broker, floor, {"what": "rulings", "limit": 5})))
        asking.start()
        assert asked.wait(30), "the question never reached the answering thread"
        publish_all(broker.client("table-2"), table_topic("test", "2", "event"), events_of("2", 5))
        wait_until(lambda: len(stored(archive, "2")) == 5, what="records stored while a question is answered")
        assert not answer, "the question was answered before it was let go"
        release.set()
        asking.join(60)
        assert answer.get("ok") is True
    finally:
        release.set()
        collector.stop()
        archive.close()


def test_the_answering_thread_says_busy_when_questions_pile_up_and_comes_back_when_it_ends(tmp_path, caplog):
    import threading

    from shotclock.floor.answering import BUSY, WAITING, Answerer

    Archive(tmp_path / "floor").close()
    gate, replies = threading.Event(), []
    answerer = Answerer(Archive(tmp_path / "floor").path, answer=lambda db, q: (gate.wait(30), {"ok": True, "q": q})[1])
    for n in range(WAITING + 3):
        answerer.ask(n, replies.append)
    busy = [r for r in replies if r == BUSY]
    assert 1 <= len(busy) <= 3  # the first may be taken off the queue before the others come
    gate.set()
    wait_until(lambda: len(replies) == WAITING + 3, what="every question answered or refused")
    answerer.stop()
    assert not answerer._thread.is_alive()
    answerer.check()  # ended: started again, and said so
    assert answerer._thread.is_alive() and "answering thread ended" in caplog.text
    got = []
    answerer.ask("again", got.append)
    wait_until(lambda: got, what="an answer after the restart")
    assert got == [{"ok": True, "q": "again"}]
    answerer.stop()
