"""``shotclock floor collect --share GROUP --member NAME``: collectors that split a venue's events, one archive in
PostgreSQL (they may run on several machines); killed members and a killed database lose nothing, store nothing twice."""

import json
import sqlite3

import pytest

from helpers import wait_until
from mqtt_broker import Inbox, MosquittoBroker
from shotclock.adapters.archive import Archive, table_log
from shotclock.cli import main
from shotclock.core.topics import collector_topic
from shotclock.errors import ShotclockError
from shotclock.floor.collector import SHARE_NEEDS_POSTGRESQL, Collector
from shotclock.floor.fleet import Dealer, start_fleet, stop_all

FAST = "[clock]\nseconds = 1.5\ncountdown = 1\n"
TABLES = [str(n) for n in range(1, 7)]


def member(broker, spec, name):
    """A collector of share group ``g`` writing the archive ``spec`` (a PostgreSQL database)."""
    archive = Archive(spec)
    collector = Collector(archive, "127.0.0.1", broker.port, broker.venue, "collector", broker.passwords["collector"],
                          share="g", member=name)
    collector.start()
    assert collector.connected.wait(60)  # connected and subscribed
    return archive, collector


def device_records(state_dir):
    """(seq of every record) in a simulated table's own decision log."""
    db = sqlite3.connect(f"file:{state_dir / 'shotclock.db'}?mode=ro", uri=True)
    try:
        return {row[0] for row in db.execute("SELECT id FROM records")}
    finally:
        db.close()


def archived_records(spec, table):
    """(seq of every record of ``table``) in the archive, as many times as it is there."""
    from shotclock.adapters.archive_store import open_store

    db = open_store(spec, readonly=True)
    try:
        return [row[0] for row in db.execute("SELECT seq FROM events WHERE table_id = ?", (table,))]
    finally:
        db.close()


@pytest.mark.slow
def test_two_collectors_in_one_share_group_archive_every_record_once(tmp_path, postgres):
    folder = postgres
    with MosquittoBroker(tmp_path / "broker", tables=TABLES) as broker:
        status = Inbox(broker.client("floor"), collector_topic(broker.venue))
        # As from another machine: the same database by another name. The two know it is one archive (its id).
        one, two = member(broker, folder, "1"), member(broker, folder.replace("127.0.0.1", "localhost"), "2")
        assert one[1].instance == two[1].instance and one[1].role == two[1].role == "active"
        tables = start_fleet(len(TABLES), "127.0.0.1", broker.port, broker.venue, broker.folder / "credentials",
                             tmp_path / "fleet", extra=FAST)
        dealer = Dealer(tables, seed=5, pace=0.05)
        dealer.start()
        try:
            # Both members store a part (the broker deals the group's messages out one by one).
            wait_until(lambda: one[0].added >= 20 and two[0].added >= 20, what="both collectors storing")
            dealer.stop()

            def all_stored():
                return (all(t.link.status.connected and t.link.status.pending == 0 for t in tables)
                        and all(sorted(archived_records(folder, t.id)) == sorted(device_records(t.state_dir))
                                for t in tables))

            # Every table's records, each exactly once, and every table told each one is stored (its outbox
            # holds a record until the archive's word comes back: nothing pending).
            wait_until(all_stored, what="every record archived once and acknowledged to its table")
        finally:
            dealer.stop()
            stop_all(tables)
        # Each event went to one member: a plain subscription would hand every event to both (one of the two
        # storing it, the other finding it there already). A resend now and then is a duplicate too.
        total = sum(len(archived_records(folder, t.id)) for t in tables)
        assert one[0].duplicates + two[0].duplicates < total // 2, (one[0].duplicates, two[0].duplicates, total)
        for t in tables:
            records = archived_records(folder, t.id)
            assert len(records) == len(set(records)) and len(records) > 3
            log = table_log(folder, t.id)
            try:
                ok, message = log.verify()
            finally:
                log.close()
            assert ok, message
        # The dashboard's questions are answered from the database, by whichever member the broker hands them to.
        from test_collector import ask

        floor = broker.client("floor")
        answers = [ask(broker, floor, {"what": "rulings", "limit": 200}) for _ in range(2)]
        said = [sorted((r["table"], r["boot"], r["seq"]) for r in a["rulings"]) for a in answers]
        assert all(a["ok"] for a in answers) and said[0] and said[0] == said[1]
        # A member that leaves says "offline" for an archive the other still keeps: the other says online again.
        two[1].stop()
        two[0].close()
        last = lambda: json.loads(status.messages[-1].payload) if status.messages else {}
        wait_until(lambda: last().get("online") is True and len(status.messages) >= 3,
                   what="the remaining member's status online again")
        one[1].stop()
        one[0].close()


def test_share_and_member_go_together(tmp_path, capsys):
    args = ["floor", "collect", "--venue", "v", "--credentials", str(tmp_path / "c.toml"), "--archive", str(tmp_path)]
    assert main(args + ["--share", "g"]) == 2
    assert "--member" in capsys.readouterr().err
    assert main(args + ["--share", "a/b", "--member", "1"]) == 2
    assert "--share" in capsys.readouterr().err


def test_a_share_group_needs_postgresql_not_one_sqlite_file(tmp_path, capsys):
    # One SQLite file lets one writer in at a time: two members stored no more than one (7,900 records/s against
    # 8,000), so a share group writes a PostgreSQL database.
    args = ["floor", "collect", "--venue", "v", "--credentials", str(tmp_path / "c.toml"), "--archive",
            str(tmp_path / "archive"), "--share", "g", "--member", "1"]
    assert main(args) == 2
    assert capsys.readouterr().err.strip() == f"shotclock: {SHARE_NEEDS_POSTGRESQL}"
    assert not (tmp_path / "archive").exists()  # refused before anything was made
    archive = Archive(tmp_path / "archive")
    with pytest.raises(ShotclockError, match="--share needs an archive in PostgreSQL"):
        Collector(archive, "127.0.0.1", 1, "v", "collector", "x", share="g", member="1")
    archive.close()


def member_process(broker, spec, name, log, expiry):
    """``shotclock floor collect --share g --member NAME`` as a process of its own (kill -9 needs one)."""
    import sys

    from shotclock.floor.demo import spawn

    return spawn([sys.executable, "-m", "shotclock", "floor", "collect", "--venue", broker.venue, "--broker",
                  f"127.0.0.1:{broker.port}", "--credentials", str(broker.credentials_file("collector")),
                  "--archive", spec, "--share", "g", "--member", name, "--member-expiry", str(expiry)], log)


@pytest.mark.slow
def test_a_killed_member_and_a_killed_database_lose_nothing_and_store_nothing_twice(tmp_path, capsys, postgres,
                                                                                    postgres_server):
    import signal
    import time

    from shotclock.core.topics import member_topic
    from shotclock.floor.demo import end

    folder = postgres
    expiry = 4
    with MosquittoBroker(tmp_path / "broker", tables=TABLES[:3]) as broker:
        members = Inbox(broker.client("floor"), member_topic(broker.venue, "+", "+"))

        def said(name, online):
            return members.wait_for(lambda m: m.topic.endswith(f"/g/{name}")
                                    and json.loads(m.payload)["online"] is online, timeout=60)

        live = member_process(broker, folder, "1", tmp_path / "m1.log", expiry)
        doomed = member_process(broker, folder, "2", tmp_path / "m2.log", expiry)
        tables = []
        try:
            assert said("1", True) and said("2", True), (tmp_path / "m1.log").read_text()
            tables = start_fleet(3, "127.0.0.1", broker.port, broker.venue, broker.folder / "credentials",
                                 tmp_path / "fleet", extra=FAST)
            dealer = Dealer(tables, seed=7, pace=0.05)
            dealer.start()
            wait_until(lambda: all(len(device_records(t.state_dir)) > 10 for t in tables), what="records written")
            doomed.send_signal(signal.SIGKILL)  # its session, and the events the broker deals it, stay behind
            doomed.wait()
            killed = time.monotonic()
            # The database crashes too, mid-stream: the live member keeps the event it holds unacknowledged and
            # tries again until the server is back (a record it had sent may or may not have been committed).
            postgres_server.kill()
            wait_until(lambda: "cannot store" in (tmp_path / "m1.log").read_text(), timeout=60,
                       what="the live member finding the database gone")
            postgres_server.start()
            time.sleep(1.5)  # records go on being written while the broker still deals some to the dead member
            dealer.stop()

            def all_stored():
                return all(sorted(archived_records(folder, t.id)) == sorted(device_records(t.state_dir))
                           and t.link.status.pending == 0 for t in tables)

            # Everything, each record once, through the live member alone: the records the dead member's session
            # held were dropped with it, and the tables sent them again (they keep every record until the archive's
            # word); the one the database crash interrupted was sent again and committed once.
            wait_until(all_stored, timeout=60, what="every record archived once by the live member")
            assert "storing again" in (tmp_path / "m1.log").read_text()
            gone = said("2", False)
            assert json.loads(gone.payload)["clean"] is False and json.loads(gone.payload)["member"] == "2"
            # Said when the broker ended its session (its Will Delay Interval), not when it dropped.
            assert members.arrivals[members.messages.index(gone)] - killed >= expiry - 1
            capsys.readouterr()
            code = main(["floor", "status", "--venue", broker.venue, "--broker", f"127.0.0.1:{broker.port}",
                         "--credentials", str(broker.credentials_file("floor"))])
            out = capsys.readouterr().out
            assert code == 1 and "share group g: member 2 GONE since" in out and "member 1 online" in out, out
            archive = Archive(folder, venue=broker.venue)
            try:
                assert ("member", "g/2", False) in [n[:3] for n in archive.network()]
            finally:
                archive.close()
            assert "collector 2 of share group g is gone" in (tmp_path / "m1.log").read_text()
        finally:
            stop_all(tables)
            end(live)
            end(doomed)


def test_a_member_that_stops_says_so_and_its_will_says_gone_when_its_session_ends(tmp_path, postgres):
    from shotclock.core.topics import member_topic

    with MosquittoBroker(tmp_path / "broker", tables=TABLES[:1]) as broker:
        members = Inbox(broker.client("floor"), member_topic(broker.venue, "g", "+"))
        archive = Archive(postgres)
        collector = Collector(archive, "127.0.0.1", broker.port, broker.venue, "collector",
                              broker.passwords["collector"], share="g", member="1", member_expiry=2)
        collector.start()
        assert collector.connected.wait(60)
        collector.stop()  # a clean stop keeps its Will: its session may still be taken back by a restart
        said = lambda clean: members.wait_for(lambda m: json.loads(m.payload) == {**json.loads(m.payload),
                                                                                  "online": False, "clean": clean})
        assert said(True) is not None, "the stop was not said"
        assert said(False) is not None, "the Will did not say the session ended"
        archive.close()


def test_an_archive_switched_to_wal_by_another_collector_at_the_same_moment_is_opened_after_a_wait(tmp_path,
                                                                                                   monkeypatch):
    # Two collectors starting together on a new archive (a share group's members did, before a share group needed
    # PostgreSQL): SQLite answered the second one's switch to WAL "database is locked" at once (no busy wait), and
    # that collector stopped with "cannot open the archive".
    import sqlite3

    import shotclock.adapters.archive as archive_module

    real, refused = sqlite3.connect, []

    class Busy:
        def __init__(self, db):
            self._db = db

        def execute(self, sql, *args):
            if sql.startswith("PRAGMA journal_mode") and not refused:
                refused.append(sql)
                raise sqlite3.OperationalError("database is locked")
            return self._db.execute(sql, *args)

        def __getattr__(self, name):
            return getattr(self._db, name)

    monkeypatch.setattr(archive_module.sqlite3, "connect", lambda *a, **k: Busy(real(*a, **k)))
    archive = archive_module.Archive(tmp_path / "archive")
    assert refused and archive.count() == 0
    archive.close()
