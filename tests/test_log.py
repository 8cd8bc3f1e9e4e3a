"""The decision log: the hash chain against every kind of tampering, migration, archive, the CLI."""

import gzip
import json
import sqlite3
from pathlib import Path
from datetime import datetime, timedelta, timezone

import pytest

from shotclock.adapters.log import DecisionLog, MIGRATIONS, SCHEMA_VERSION, utc_iso
from shotclock.errors import LogError
from shotclock.cli import main

NOW = datetime(2026, 11, 29, 20, 0, tzinfo=timezone.utc)


def filled(tmp_path, n=10, when=NOW):
    log = DecisionLog(tmp_path)
    session = log.new_session(0.0, utc_iso(when), {"table": "T", "mode": "clock", "config": {}})
    for i in range(n):
        log.append([{"session": session, "clock": None, "type": "beep", "t": float(i), "utc": utc_iso(when),
                     "data": {"remaining": i}}])
    return log


def test_chain_verifies(tmp_path):
    log = filled(tmp_path)
    assert log.verify() == (True, "OK: 11 records, chain intact")
    assert log.integrity() == "ok"


def test_changed_record_is_named(tmp_path):
    log = filled(tmp_path)
    log.db.execute("UPDATE records SET data = ? WHERE id = 5", ('{"remaining":99}',))
    assert log.verify() == (False, "record 5 was changed (its content does not match its hash)")


def test_changed_record_with_recomputed_hash_breaks_the_next_link(tmp_path):
    from shotclock.adapters.log import record_hash

    log = filled(tmp_path)
    row = dict(log.db.execute("SELECT * FROM records WHERE id = 5").fetchone())
    row["data"] = '{"remaining":99}'
    row["hash"] = record_hash(row)
    log.db.execute("UPDATE records SET data = :data, hash = :hash WHERE id = :id", row)
    ok, message = log.verify()
    assert not ok and message.startswith("record 6 does not follow record 5")


def test_removed_record_is_named(tmp_path):
    log = filled(tmp_path)
    log.db.execute("DELETE FROM records WHERE id = 7")
    assert log.verify() == (False, "record 7 was removed")


def test_removed_newest_records_are_detected(tmp_path):
    log = filled(tmp_path)
    log.db.execute("DELETE FROM records WHERE id >= 10")
    assert log.verify() == (False, "the newest records after record 9 were removed (the head is record 11)")


def test_inserted_record_is_detected(tmp_path):
    from shotclock.adapters.log import record_hash

    log = filled(tmp_path)
    row = dict(log.db.execute("SELECT * FROM records WHERE id = 11").fetchone())
    row.update(id=12, prev=row["hash"], data='{"remaining":0}')
    row["hash"] = record_hash(row)
    log.db.execute("INSERT INTO records VALUES (:id, :session, :clock, :type, :t, :utc, :data, :prev, :hash)", row)
    ok, message = log.verify()
    assert not ok and "inserted or changed after the head" in message


def test_migrates_an_old_schema_without_losing_records(tmp_path):
    db = sqlite3.connect(tmp_path / "shotclock.db", isolation_level=None)
    for statement in MIGRATIONS[1]:
        db.execute(statement)
    db.execute("INSERT INTO meta VALUES ('schema_version', '1')")
    db.close()
    log = DecisionLog(tmp_path)
    assert log.schema_version() == SCHEMA_VERSION == 2
    indexes = {r[0] for r in log.db.execute("SELECT name FROM sqlite_master WHERE type = 'index'")}
    assert {"records_clock", "records_utc"} <= indexes
    log.new_session(0, utc_iso(NOW), {})
    assert log.verify()[0]


def test_newer_schema_is_refused(tmp_path):
    filled(tmp_path).db.execute("UPDATE meta SET value = '99' WHERE key = 'schema_version'")
    with pytest.raises(LogError, match="written by a newer shotclock"):
        DecisionLog(tmp_path)


def test_wal_and_durable_commits(tmp_path):
    log = filled(tmp_path)
    assert log.db.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    log.append([{"session": 1, "clock": 1, "type": "decision", "t": 1.0, "utc": utc_iso(NOW), "data": {}}])
    assert log.db.execute("PRAGMA synchronous").fetchone()[0] == 2  # FULL for a ruling
    log.append([{"session": 1, "clock": 1, "type": "beep", "t": 1.0, "utc": utc_iso(NOW), "data": {}}])
    assert log.db.execute("PRAGMA synchronous").fetchone()[0] == 1  # NORMAL for a beep


def test_archive_moves_old_records_and_the_rest_still_verifies(tmp_path):
    log = filled(tmp_path, n=5, when=NOW - timedelta(days=100))
    session = log.new_session(10.0, utc_iso(NOW), {})
    log.append([{"session": session, "clock": None, "type": "beep", "t": 11.0, "utc": utc_iso(NOW), "data": {}}])
    path = log.archive(keep_days=90, now=NOW)
    assert path.name == "records-1-6.jsonl.gz"
    archived = [json.loads(x) for x in gzip.open(path, "rt")]
    assert [r["id"] for r in archived] == [1, 2, 3, 4, 5, 6]
    assert log.db.execute("SELECT MIN(id) FROM records").fetchone()[0] == 7
    assert log.verify() == (True, "OK: 2 records, chain intact from archived record 6 (1 archive(s) checked)")
    log.append([{"session": session, "clock": None, "type": "beep", "t": 12.0, "utc": utc_iso(NOW), "data": {}}])
    assert log.verify()[0]
    assert log.archive(keep_days=90, now=NOW) is None


def test_unopenable_state_dir_is_a_clear_error(tmp_path):
    blocker = tmp_path / "file"
    blocker.write_text("")
    with pytest.raises(LogError, match=str(blocker)):
        DecisionLog(blocker / "state")


def test_cli_on_a_missing_log(tmp_path, capsys):
    assert main(["log", "--state-dir", str(tmp_path / "none")]) == 2
    assert "no decision log at" in capsys.readouterr().err


def test_cli_verify_exit_codes(tmp_path, capsys):
    filled(tmp_path)
    assert main(["log", "--state-dir", str(tmp_path), "verify"]) == 0
    assert "OK: 11 records" in capsys.readouterr().out
    DecisionLog(tmp_path).db.execute("DELETE FROM records WHERE id = 3")
    assert main(["log", "--state-dir", str(tmp_path), "verify"]) == 1
    assert "FAIL" in capsys.readouterr().out and "record 3 was removed"


def test_verify_an_archive_and_its_link_to_the_live_log(tmp_path, capsys):
    log = filled(tmp_path, n=5, when=NOW - timedelta(days=100))
    log.new_session(10.0, utc_iso(NOW), {})
    path = log.archive(keep_days=90, now=NOW)
    assert main(["log", "--state-dir", str(tmp_path), "verify", "--archive", str(path)]) == 0
    assert "OK: records 1 to 6, chain intact; the live log continues from its last record" in capsys.readouterr().out
    rows = [json.loads(x) for x in gzip.open(path, "rt")]
    rows[2]["data"] = '{"remaining":99}'
    with gzip.open(path, "wt") as f:
        f.writelines(json.dumps(r) + "\n" for r in rows)
    assert main(["log", "--state-dir", str(tmp_path), "verify", "--archive", str(path)]) == 1
    assert "record 3 was changed" in capsys.readouterr().out


def test_a_forged_anchor_is_caught_without_an_archive(tmp_path):
    log = filled(tmp_path)
    rows = log.db.execute("SELECT id, hash FROM records ORDER BY id").fetchall()
    # Someone removes the first five records and claims they were archived.
    log.db.execute("DELETE FROM records WHERE id <= 5")
    log.db.execute("INSERT OR REPLACE INTO meta VALUES ('anchor', ?)", (f"{rows[4][0]}:{rows[4][1]}",))
    ok, message = log.verify()
    assert not ok and "no archive" in message and "holds record 1" in message


def test_verify_walks_the_real_archives_up_to_the_anchor(tmp_path):
    log = filled(tmp_path, n=5, when=NOW - timedelta(days=100))
    log.new_session(10.0, utc_iso(NOW), {})
    path = log.archive(keep_days=90, now=NOW)
    assert log.verify() == (True, "OK: 1 records, chain intact from archived record 6 (1 archive(s) checked)")
    rows = [json.loads(x) for x in gzip.open(path, "rt")]
    rows[1]["utc"] = "2000-01-01T00:00:00.000000Z"
    with gzip.open(path, "wt") as f:
        f.writelines(json.dumps(r) + "\n" for r in rows)
    ok, message = log.verify()
    assert not ok and "record 2 was changed" in message


def test_no_false_alarm_after_an_archive_that_removed_every_record(tmp_path):
    log = filled(tmp_path, n=5, when=NOW - timedelta(days=100))
    assert log.archive(keep_days=90, now=NOW) is not None
    assert log.db.execute("SELECT COUNT(*) FROM records").fetchone()[0] == 0
    ok, message = log.verify()
    assert ok, message
    reopened = DecisionLog(tmp_path)  # and the chain goes on from the anchor
    session = reopened.new_session(20.0, utc_iso(NOW), {})
    assert session == 7 and reopened.verify()[0]


def test_damaged_meta_head_is_reported_and_writing_goes_on(tmp_path):
    log = filled(tmp_path)
    log.db.execute("UPDATE meta SET value = 'garbage' WHERE key = 'head'")
    reopened = DecisionLog(tmp_path)  # no traceback: continues from the newest record
    assert reopened.next_id() == 12
    ok, message = reopened.verify()
    assert not ok and "head in meta is damaged" in message


def test_damaged_record_is_named_by_the_cli(tmp_path, capsys):
    log = filled(tmp_path)
    log.db.execute("UPDATE records SET data = '{not json' WHERE id = 4")
    assert main(["log", "--state-dir", str(tmp_path), "export", "--jsonl"]) == 2
    err = capsys.readouterr().err
    assert "record 4 is damaged" in err and "Traceback" not in err


def test_log_show_prints_times_and_seconds_as_a_person_reads_them(tmp_path, capsys):
    # Issue 17: 'log show' printed raw floats: round=823.240132124, remaining=27.84956, remaining=25.479114.
    log = DecisionLog(tmp_path)
    session = log.new_session(820.0, utc_iso(NOW), {"table": "T", "mode": "clock", "config": {}})
    at = lambda t: utc_iso(NOW + timedelta(seconds=t - 820))
    rows = [("input", 823.240131, {"event": "call", "button": "floor", "gesture": "press", "facing_bet": False,
                                   "round": 823.240132124}),
            ("start", 823.240131, {"seconds": 30, "facing_bet": False}),
            ("pause", 825.390571, {"remaining": 27.84956}),
            ("resume", 826.35, {"remaining": 27.84956}),
            ("decision", 828.720577, {"outcome": "acted", "remaining": 25.479114, "at_zero": False})]
    start = log.next_id() + 1
    for kind, t, data in rows:
        log.append([{"session": session, "clock": start if kind != "input" else start, "type": kind, "t": t,
                     "utc": at(t), "data": data}])
    log.close()
    assert main(["log", "--state-dir", str(tmp_path), "show", "1"]) == 0
    out = capsys.readouterr().out
    assert "remaining=27.85 s" in out and "remaining=25.479 s" in out and "seconds=30 s" in out
    assert "round=+0.000 s" in out  # a moment, on the clock's own timeline like the first column
    assert 'event="call"' in out and "at_zero=false" in out
    import re

    assert not re.search(r"=[-+]?\d+\.\d{4,}", out), out  # no raw float in any field


def record_kinds_made_by_the_code() -> set[str]:
    """Every record kind the device writes: the engine's outputs and inputs, and the kinds the shell adds."""
    import inspect
    import re

    import shotclock
    from shotclock.core import events

    kinds = {cls.TYPE for _, cls in inspect.getmembers(events, inspect.isclass) if getattr(cls, "TYPE", "")}
    kinds.add("input")
    source = Path(shotclock.__file__).parent
    for path in [*source.glob("core/*.py"), *source.glob("shell/*.py")]:
        text = "\n".join(line for line in path.read_text().splitlines() if ">>>" not in line)  # not the examples
        kinds |= set(re.findall(r'add\([\w.]+, "([a-z_]+)"', text))
        kinds |= set(re.findall(r'"type": "([a-z_]+)"', text))
        kinds |= set(re.findall(r'self\.message\([\w.]+, "([a-z_]+)"', text))
    return kinds - {"object", "string", "array", "boolean", "integer", "number", "null"}  # JSON Schema's types


def test_every_record_kind_says_how_it_is_committed():
    from shotclock.adapters.log import SYNCHRONOUS

    kinds = record_kinds_made_by_the_code()
    assert {"start", "decision", "seat", "top_up", "seats", "command", "beep", "edge"} <= kinds
    assert kinds - set(SYNCHRONOUS) == set(), "name each new kind's commit in adapters/log.py SYNCHRONOUS"


def test_what_the_floor_relies_on_about_a_player_survives_a_power_cut(tmp_path):
    """A floor command and the seat, bank, top-up, mark and seats records it makes are committed with a synced WAL."""
    log = filled(tmp_path)
    for kind in ("command", "seat", "bank", "top_up", "seats", "refused", "mark", "a_kind_not_named_yet"):
        log.append([{"session": 1, "clock": None, "type": "beep", "t": 1.0, "utc": utc_iso(NOW), "data": {}}])
        assert log.db.execute("PRAGMA synchronous").fetchone()[0] == 1
        log.append([{"session": 1, "clock": None, "type": "edge", "t": 1.0, "utc": utc_iso(NOW), "data": {}},
                    {"session": 1, "clock": None, "type": kind, "t": 1.0, "utc": utc_iso(NOW), "data": {}}])
        assert log.db.execute("PRAGMA synchronous").fetchone()[0] == 2, kind  # FULL


def test_log_stats_heading_counts_a_cancel_apart_from_rulings_and_open_clocks():
    """'0 without a decision' above a listed cancel read as a contradiction: each clock is counted once, as
    ruled, cancelled by the floor, ended quietly or still open."""
    from shotclock.core.clocks import Clock, stats
    from shotclock.shell.logcmd import stats_heading, utc_seconds

    kinds = [("acted", None), ("hand_dead", None), ("cancelled", "floor"), ("cancelled", "street"), (None, None)]
    clocks = [Clock(i, 1, "clock", 0.0, f"2026-11-30T01:0{i}:00.000000Z", 30, None, True, outcome=o, by=by,
                    running_seconds=5) for i, (o, by) in enumerate(kinds)]
    heading = stats_heading(stats(clocks, utc_seconds))
    assert heading == ("clocks called: 5 (2 ruled, 1 cancelled by the floor, 1 ended quietly by the hand's flow, "
                       "1 still open)")
