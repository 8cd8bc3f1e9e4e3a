"""``shotclock floor report``: the slow-play report from a floor archive, as a table, CSV and JSON; bad input in
one line, exit 2."""

import csv
import io
import json

import pytest

from report_archive import build_archive, device_log
from shotclock.adapters.archive import Archive
from shotclock.cli import main


@pytest.fixture
def archive(tmp_path, monkeypatch, archive_spec):
    """The report's archive, in each store (SQLite, PostgreSQL): the same report from both."""
    monkeypatch.setenv("TZ", "UTC")  # the floor day is read in local time
    import time

    time.tzset()
    yield build_archive(archive_spec, tmp_path)
    monkeypatch.delenv("TZ")
    time.tzset()


def run(capsys, *argv):
    code = main(["floor", "report", *argv])
    out, err = capsys.readouterr()
    return code, out, err


def test_the_report_as_a_table_sorted_by_median(archive, capsys):
    code, out, err = run(capsys, "--archive", archive)
    assert code == 0, err
    lines = out.splitlines()
    assert lines[0] == "slow-play report: every table, every day; sorted by median_s"
    assert lines[1].split()[:6] == ["player", "tables", "decisions", "median", "s", "p95"]
    ana, bo = lines[2].split(), lines[3].split()
    assert ana[:5] == ["Ana", "1,", "2", "3", "28.0"]  # 8.5, 28, 50: median 28
    assert bo[:5] == ["=Bo", "1", "1", "1.0", "1.0"]


def test_the_csv_for_the_tournament_director(archive, capsys, tmp_path):
    path = tmp_path / "report.csv"
    code, out, _ = run(capsys, "--archive", archive, "--csv", str(path))
    assert code == 0 and out == f"2 players written to {path}\n"
    rows = list(csv.DictReader(io.StringIO(path.read_text(encoding="utf-8"), newline="")))
    assert rows[0] == {"player": "Ana", "tables": "1, 2", "decisions": "3", "median_s": "28.0", "p95_s": "47.8",
                       "max_s": "50.0", "clocks_called": "0", "extensions": "1", "bank_used_s": "0.0",
                       "rulings_against": "1", "hands_dead": "1", "checks": "0", "warnings": "0", "clock_marks": "1",
                       "marks": "clock 10 s by floor-anna 20:30"}
    assert rows[1]["player"] == "'=Bo" and rows[1]["marks"] == ""  # a formula-like name stays text
    code, out, _ = run(capsys, "--archive", archive, "--csv", "-", "--day", "2026-12-02")
    assert list(csv.reader(io.StringIO(out)))[1][:4] == ["Ana", "2", "1", "28.0"]
    code, out, _ = run(capsys, "--archive", archive, "--csv", "-", "--day", "2026-12-01")
    assert list(csv.reader(io.StringIO(out)))[1][-3:] == ["0", "0", ""]  # her mark was made the next day


def test_filters_by_floor_day_and_table(archive, capsys):
    code, out, _ = run(capsys, "--archive", archive, "--json", "--table", "1", "--day", "2026-12-01")
    got = json.loads(out)
    assert [(p["player"], p["decisions"], p["median_s"]) for p in got["players"]] == [("Ana", 2, 29.25),
                                                                                       ("=Bo", 1, 1.0)]
    assert got["days"] == ["2026-12-01"] and got["tables"] == ["1", "2"]  # the days of that table
    code, out, _ = run(capsys, "--archive", archive, "--day", "2026-12-03")
    assert code == 0 and "no decisions of a named player" in out


def test_a_floor_day_runs_from_six_to_six_local_time(archive, capsys, monkeypatch):
    import time

    monkeypatch.setenv("TZ", "Pacific/Kiritimati")  # UTC+14: 20:00 UTC is 10:00 the next day
    time.tzset()
    code, out, _ = run(capsys, "--archive", archive, "--json")
    assert json.loads(out)["days"] == ["2026-12-02", "2026-12-03"]
    monkeypatch.setenv("TZ", "America/Los_Angeles")  # UTC-8: 20:00 UTC is 12:00 the same day
    time.tzset()
    code, out, _ = run(capsys, "--archive", archive, "--json")
    assert json.loads(out)["days"] == ["2026-12-01", "2026-12-02"]
    monkeypatch.setenv("TZ", "<M15>+15")  # 20:00 UTC is 05:00 local: still the day before
    time.tzset()
    code, out, _ = run(capsys, "--archive", archive, "--json")
    assert json.loads(out)["days"] == ["2026-11-30", "2026-12-01"]


@pytest.mark.parametrize("argv, message", [
    (["--day", "1-12-2026"], "shotclock: --day '1-12-2026' is not a date as YYYY-MM-DD (for example 2026-12-01)"),
    (["--day", "2026-02-30"], "shotclock: --day '2026-02-30' is not a date as YYYY-MM-DD (for example 2026-12-01)"),
    (["--table", "9"], "shotclock: --table '9': no such table in the archive (tables: 1, 2)"),
    (["--level", "0"], "shotclock: --level: must be a tournament level from 1 to 100, not 0"),
])
def test_bad_input_is_one_line_and_exit_2(archive, capsys, argv, message):
    code, out, err = run(capsys, "--archive", archive, *argv)
    assert (code, out, err.strip()) == (2, "", message)


def test_a_missing_archive_is_one_line_and_exit_2(tmp_path, capsys):
    code, out, err = run(capsys, "--archive", str(tmp_path / "nowhere"))
    assert code == 2 and out == ""
    assert err.strip() == f"shotclock: no archive at {tmp_path / 'nowhere' / 'collected.db'} (see 'shotclock floor " \
                          "collect')"
    (tmp_path / "collected.db").write_text("not a database")
    code, out, err = run(capsys, "--archive", str(tmp_path))
    assert (code, out, err.strip()) == (2, "", f"shotclock: cannot read the archive {tmp_path / 'collected.db'}: "
                                                "file is not a database")
    with pytest.raises(SystemExit) as exit_:
        main(["floor", "report", "--archive", str(tmp_path), "--sort", "speed"])
    assert exit_.value.code == 2 and "invalid choice: 'speed'" in capsys.readouterr().err


def test_the_dashboards_report_question_answers_from_the_archive(archive):
    from shotclock.floor.answers import answer
    from shotclock.floor.report import open_archive

    from network_schemas import check

    db = open_archive(archive)
    got = answer(db, {"what": "report"})
    check("answer", got)  # as docs/network.md says
    check("answer", answer(db, {"what": "report", "day": "2026-12-01", "table": "1"}))
    check("question", {"what": "report", "day": "2026-12-01", "table": "1"})
    assert got["ok"] and got["columns"][:4] == ["player", "tables", "decisions", "median_s"]
    assert [row[:4] for row in got["players"]] == [["Ana", "1, 2", 3, 28.0], ["=Bo", "1", 1, 1.0]]
    assert (got["total"], got["days"], got["tables"]) == (2, ["2026-12-01", "2026-12-02"], ["1", "2"])
    assert [row[:3] for row in answer(db, {"what": "report", "day": "2026-12-02"})["players"]] == [["Ana", "2", 1]]
    assert answer(db, {"what": "report", "day": "2026-13-01"}) == {
        "ok": False, "reason": "day '2026-13-01' is not a date as YYYY-MM-DD (for example 2026-12-01)"}
    assert answer(db, {"what": "report", "table": "9"}) == {"ok": False, "reason": "no table '9' in the archive"}
    check("question", {"what": "report", "level": 11})
    levelled = answer(db, {"what": "report", "level": 11})  # this archive's tables were never given a level
    check("answer", levelled)
    assert (levelled["ok"], levelled["players"], levelled["levels"], levelled["level"]) == (True, [], [], 11)
    db.close()


def test_a_report_answer_fits_one_message_and_says_how_many_players_it_left_out(tmp_path, monkeypatch):
    from shotclock.core.inbound import check_question
    from shotclock.floor import report as floor_report

    rows = []
    for n in range(2000):  # 2,000 players with 40-character names, one decision each
        rows += [{"table": "1", "chain": 1, "type": "seat", "seat": 1, "change": "seated", "name": f"{n:040d}"},
                 {"table": "1", "chain": 1, "clock": 2 * n, "type": "start", "seconds": 30, "seat": 1,
                  "street": "flop", "utc": "2026-12-01T20:00:00Z"},
                 {"table": "1", "chain": 1, "clock": 2 * n, "type": "decision", "outcome": "acted",
                  "remaining": n % 30, "seat": 1}]
    monkeypatch.setattr(floor_report, "archive_rows", lambda db: rows)
    Archive(tmp_path).close()
    db = floor_report.open_archive(tmp_path)
    got = floor_report.answer_report(db, {"what": "report", "table": "1"})
    db.close()
    body = json.dumps(got, ensure_ascii=False, separators=(",", ":")).encode()  # as the collector sends it
    assert got["total"] == 2000 and 300 < len(got["players"]) < 2000 and len(body) < 65_536 - 1024
    assert got["players"][0][3] == 30.0  # the slowest are the ones kept
    assert check_question({"what": "report", "day": "1.12.2026"}) == "a report question's day is a date as YYYY-MM-DD"
    assert check_question({"what": "report", "day": "2026-12-01", "table": "7"}) is None


def test_a_report_answer_is_reused_for_a_while_then_shows_what_arrived(archive, tmp_path):
    from shotclock.floor.report import REUSE_SECONDS, answer_report, open_archive

    db = open_archive(archive)
    first = answer_report(db, {"what": "report", "table": "2"}, now=1000.0)
    writer = Archive(archive)
    more = [("seat", {"seat": 3, "change": "seated", "name": "Cy"}), ("start", {"seconds": 30, "seat": 3}),
            ("decision", {"outcome": "hand_dead", "seat": 3})]
    for event in device_log(tmp_path / "three", "2", "cccccccccccc", more):
        writer.add(event)
    writer.close()
    assert answer_report(db, {"what": "report", "table": "2"}, now=1000.0 + REUSE_SECONDS / 2) is first
    later = answer_report(db, {"what": "report", "table": "2"}, now=1000.0 + REUSE_SECONDS)
    db.close()
    assert [row[0] for row in first["players"]] == ["Ana"]
    assert [row[0] for row in later["players"]] == ["Cy", "Ana"] and later["players"][0][6] == 1  # called on him
