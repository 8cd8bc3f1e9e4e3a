"""The archive's two stores, SQLite and PostgreSQL: one schema with numbered steps, the same answers from both,
bad addresses said in one line (never a password)."""

import json
import sqlite3

import pytest

from report_archive import build_archive
from shotclock.adapters.archive import Archive, table_log, tables
from shotclock.adapters.archive_store import MIGRATIONS, SCHEMA_VERSION, open_store, shown_url
from shotclock.cli import main

# The archive as shotclock wrote it before its schema had versions.
UNVERSIONED = """
CREATE TABLE events (table_id TEXT NOT NULL, boot TEXT NOT NULL, seq INTEGER NOT NULL, session INTEGER, clock INTEGER,
    type TEXT NOT NULL, t REAL NOT NULL, utc TEXT NOT NULL, data TEXT NOT NULL, prev TEXT NOT NULL, hash TEXT NOT NULL,
    received_utc TEXT NOT NULL, PRIMARY KEY (table_id, boot, seq));
CREATE INDEX events_table_seq ON events (table_id, seq);
CREATE TABLE network (kind TEXT NOT NULL, name TEXT NOT NULL, up INTEGER NOT NULL, utc TEXT NOT NULL,
    detail TEXT NOT NULL);
INSERT INTO events VALUES ('7', '0123456789ab', 1, 1, NULL, 'beep', 1.0, '2026-11-30T01:00:00.000000Z',
    '{"remaining":1}', '', '', '2026-11-30T01:00:00.000000Z');
"""


def versions(db) -> list[int]:
    return [row[0] for row in db.execute("SELECT version FROM schema_version ORDER BY version")]


def test_every_step_of_the_schema_is_applied_in_order_in_both_stores(archive_spec):
    assert sorted(MIGRATIONS) == list(range(1, SCHEMA_VERSION + 1))
    assert all(set(step) == {"sqlite", "postgresql"} for step in MIGRATIONS.values())
    archive = Archive(archive_spec)
    assert versions(archive.db) == list(range(1, SCHEMA_VERSION + 1))
    assert archive.db.version() == SCHEMA_VERSION
    archive.close()
    again = Archive(archive_spec)  # opened again: nothing applied twice
    assert versions(again.db) == list(range(1, SCHEMA_VERSION + 1))
    (archive_id,) = again.db.execute("SELECT value FROM archive WHERE key = 'id'").fetchone()
    assert len(archive_id) == 16
    # The collectors' status names the archive: a file on its machine, or a database by its own id.
    if again.db.kind == "postgresql":
        assert again.db.instance().startswith("postgresql:test_") and again.db.instance().endswith(archive_id)
    else:
        assert again.db.instance().endswith(f":{again.path.resolve()}")
    again.close()


def test_an_archive_from_before_versions_is_migrated_and_keeps_its_records(tmp_path, capsys):
    db = sqlite3.connect(tmp_path / "collected.db")
    db.executescript(UNVERSIONED)
    db.close()
    archive = Archive(tmp_path)
    assert versions(archive.db) == list(range(1, SCHEMA_VERSION + 1)) and archive.count() == 1
    archive.close()
    assert main(["log", "--collected", str(tmp_path)]) == 0
    assert capsys.readouterr().out.splitlines()[1].split()[:2] == ["7", "1"]


def test_an_archive_a_newer_shotclock_wrote_is_refused_in_one_line(archive_spec, capsys):
    Archive(archive_spec).close()
    db = open_store(archive_spec)
    db.execute("INSERT INTO schema_version VALUES (?, '2030-01-01T00:00:00.000Z')", (SCHEMA_VERSION + 1,))
    name = db.name
    db.close()
    newer = f"the archive {name} was written by a newer shotclock (schema {SCHEMA_VERSION + 1} > {SCHEMA_VERSION})"
    with pytest.raises(Exception, match=r"newer shotclock"):
        Archive(archive_spec)
    assert main(["floor", "report", "--archive", archive_spec]) == 2
    assert capsys.readouterr().err.strip() == f"shotclock: {newer}; update this one"
    assert main(["log", "--collected", archive_spec]) == 2
    assert newer in capsys.readouterr().err


def outputs(spec, capsys) -> list:
    """What every reader of the archive says about it: the tables, a table's clocks, one clock, verify, the
    export, the report, the dashboard's answers."""
    from shotclock.floor.answers import answer

    said = []
    for argv in (["log", "--collected", spec], ["log", "--collected", spec, "--table", "1"],
                 ["log", "--collected", spec, "--table", "1", "show", "2"],
                 ["log", "--collected", spec, "--table", "2", "export", "--jsonl"],
                 ["log", "--collected", spec, "--table", "1", "stats", "--json"],
                 ["floor", "report", "--archive", spec, "--json"], ["floor", "report", "--archive", spec, "--csv", "-"]):
        code = main(argv)
        said.append(([a.replace(spec, "SPEC") for a in argv], code, capsys.readouterr().out.replace(spec, "SPEC")))
    code = main(["log", "--collected", spec, "--table", "1", "verify"])
    said.append(("verify", code, capsys.readouterr().out.split(": ", 1)[1]))  # after the archive's name
    db = open_store(spec, readonly=True)
    try:
        for question in ({"what": "rulings", "limit": 10}, {"what": "clock", "table": "1", "clock": 3},
                         {"what": "report", "day": "2026-12-02"}):
            got = answer(db, question)
            got.pop("as_of", None)
            said.append((question["what"], got))
    finally:
        db.close()
    return said


def test_both_stores_give_every_reader_the_same_answers(tmp_path, postgres, capsys, monkeypatch):
    import time

    monkeypatch.setenv("TZ", "UTC")
    time.tzset()
    try:
        folder = build_archive(tmp_path / "floor", tmp_path / "a")
        database = build_archive(postgres, tmp_path / "b")
        from_sqlite, from_postgresql = outputs(folder, capsys), outputs(database, capsys)
    finally:
        monkeypatch.delenv("TZ")
        time.tzset()
    assert [code for _, code, *_ in from_sqlite if isinstance(code, int)] == [0] * 8
    assert "Ana" in from_sqlite[5][2] and from_sqlite[-1][1]["players"]  # the report has its players
    for a, b in zip(from_sqlite, from_postgresql):
        assert a == b


def test_a_database_url_is_named_without_its_password_and_an_unreachable_one_in_one_line(capsys):
    from mqtt_broker import free_port

    url = f"postgresql://floor:s3cret@127.0.0.1:{free_port()}/rulings?sslmode=disable"
    assert shown_url(url) == url.split("?")[0].replace(":s3cret", "")
    for argv in (["floor", "report", "--archive", url], ["log", "--collected", url]):
        assert main(argv) == 2
        err = capsys.readouterr().err
        assert err.startswith(f"shotclock: cannot open the archive {shown_url(url)}: ") and err.count("\n") == 1, err
        assert "s3cret" not in err
    assert main(["floor", "report", "--archive", "postgresql://floor:s3cret@[::1/rulings"]) == 2  # malformed
    err = capsys.readouterr().err
    assert err.startswith("shotclock: cannot open the archive postgresql://(a malformed address): ") and "s3cret" not in err


def test_a_database_without_an_archive_is_said_so(postgres, capsys):
    assert main(["floor", "report", "--archive", postgres]) == 2
    assert capsys.readouterr().err.strip() == (f"shotclock: no archive in the database {shown_url(postgres)} "
                                              "(see 'shotclock floor collect')")


def test_two_writers_note_one_change_once(postgres):
    # Every member of a share group sees a bridge go down; the network table keeps the change once.
    one, two = Archive(postgres), Archive(postgres)
    try:
        assert [one.note("bridge", "west", False), two.note("bridge", "west", False)] == [True, False]
        assert [two.note("bridge", "west", True), one.note("bridge", "west", True)] == [True, False]
        assert [n[:3] for n in one.network()] == [("bridge", "west", False), ("bridge", "west", True)]
    finally:
        one.close()
        two.close()


def test_a_value_the_database_cannot_take_is_refused_and_a_record_type_of_its_own_is_kept(postgres):
    from test_collector import chained_events

    archive = Archive(postgres)
    try:
        event = chained_events(1)[0]
        with pytest.raises(archive.db.refusals):  # PostgreSQL takes no NUL in a text (SQLite did)
            archive.add(dict(event, log=dict(event["log"], utc="2026\x00")))
        tournament = dict(chained_events(2)[1], record={"t": 2.0, "type": "level_started", "level": 4})
        assert archive.add(event) and archive.add(tournament)  # any record type, as the tournament clock's
        assert archive.db.execute("SELECT type, data FROM events WHERE seq = 2").fetchone() == (
            "level_started", json.dumps({"level": 4}, separators=(",", ":")))
    finally:
        archive.close()
    log = table_log(postgres, "7")
    try:
        assert log.verify()[0] is False  # the second record's hash was made for a beep
    finally:
        log.close()


def test_a_tours_database_holds_its_venues_apart_and_reports_a_player_across_them(tmp_path, postgres, capsys):
    # Two venues' collectors write one database; each has a table "1". A player slow at both is one line of the
    # tour's report; each venue's dashboard hears of its own records only.
    from report_archive import device_log
    from shotclock.floor.answering import Answerer

    play = lambda: [("seat", {"seat": 2, "change": "seated", "name": "Ana"}), ("start", {"seconds": 30, "seat": 2}),
                    ("decision", {"outcome": "acted", "remaining": 10, "at_zero": False, "seat": 2})]
    for venue, boot in (("casino", "0123456789ab"), ("harbour", "ba9876543210")):
        archive = Archive(postgres, venue=venue)
        for event in device_log(tmp_path / venue, "1", boot, play()):
            assert archive.add(event)
        archive.close()
    tour = json.loads(report(capsys, "--archive", postgres, "--json"))
    casino = json.loads(report(capsys, "--archive", postgres, "--json", "--venue", "casino"))
    assert [(p["player"], p["decisions"]) for p in tour["players"]] == [("Ana", 2)]
    assert [(p["player"], p["decisions"]) for p in casino["players"]] == [("Ana", 1)]
    assert main(["log", "--collected", postgres]) == 0
    assert "venues: casino, harbour (one venue's tables: --venue NAME)" in capsys.readouterr().out
    assert main(["log", "--collected", postgres, "--table", "1", "--venue", "harbour", "verify"]) == 0
    assert "OK: 4 records, chain intact" in capsys.readouterr().out
    assert main(["log", "--collected", postgres, "--table", "1", "verify"]) == 0  # the tour: a chain a venue
    assert "OK: 2 chains" in capsys.readouterr().out
    assert main(["floor", "report", "--archive", postgres, "--venue", "no place"]) == 2
    assert "--venue" in capsys.readouterr().err
    answers = {}
    for venue in ("casino", "harbour"):
        answerer = Answerer(postgres, venue=venue)
        answerer.ask({"what": "rulings", "limit": 10}, lambda got, venue=venue: answers.setdefault(venue, got))
        answerer.stop(30)
    assert [[r["boot"] for r in answers[v]["rulings"]] for v in ("casino", "harbour")] == [["0123456789ab"],
                                                                                           ["ba9876543210"]]


def report(capsys, *argv):
    assert main(["floor", "report", *argv]) == 0
    return capsys.readouterr().out


def test_an_archive_from_before_venues_becomes_its_collectors_venues(tmp_path):
    db = sqlite3.connect(tmp_path / "collected.db")
    db.executescript(UNVERSIONED)
    db.close()
    archive = Archive(tmp_path)
    archive.adopt("casino")
    archive.close()
    assert [t[0] for t in tables(tmp_path, "casino")] == ["7"] and tables(tmp_path, "harbour") == []


def test_without_psycopg_a_database_archive_says_what_to_install(monkeypatch, capsys):
    import sys

    monkeypatch.setitem(sys.modules, "psycopg", None)  # as on a machine without it: the import fails
    assert main(["floor", "report", "--archive", "postgresql://collector@127.0.0.1/rulings"]) == 2
    assert capsys.readouterr().err.strip() == ("shotclock: an archive in PostgreSQL needs psycopg: pip install "
                                              "'shotclock[postgresql]' (or Debian's python3-psycopg)")
