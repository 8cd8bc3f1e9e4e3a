"""The collector's answers to the dashboard: recent rulings and one clock's timeline, from the archive."""

from network_schemas import check
from shotclock.floor.answers import answer
from shotclock.adapters.archive import Archive

BOOT = "0123456789ab"


def event(table, seq, clock, t, kind, utc, **fields):
    return {"table": table, "boot": BOOT, "seq": seq, "record": {"t": t, "type": kind, **fields},
            "log": {"session": 1, "clock": clock, "utc": utc, "prev": "0" * 64, "hash": "1" * 64}}


def archive_with_two_clocks(spec):
    archive = Archive(spec)
    for e in [
        event("7", 10, 10, 100.0, "start", "2026-11-30T21:00:00.000000Z", seconds=30),
        event("7", 11, 10, 125.0, "beep", "2026-11-30T21:00:25.000000Z", remaining=5),
        event("7", 12, 10, 130.5, "decision", "2026-11-30T21:00:30.500000Z", outcome="hand_dead"),
        event("3", 40, 38, 50.0, "start", "2026-11-30T21:01:00.000000Z", seconds=30),
        event("3", 41, 38, 62.25, "decision", "2026-11-30T21:01:12.250000Z", outcome="acted", remaining=17.75,
              at_zero=False),
    ]:
        archive.add(e)
    archive.add(event("7", 12, 10, 130.5, "decision", "2026-11-30T21:00:30.500000Z", outcome="hand_dead"))
    return archive


def test_recent_rulings_newest_first_without_duplicates(archive_spec):
    archive = archive_with_two_clocks(archive_spec)
    got = answer(archive.db, {"what": "rulings", "limit": 10})
    assert got == {"ok": True, "rulings": [
        {"table": "3", "boot": BOOT, "seq": 41, "clock": 38, "utc": "2026-11-30T21:01:12.250000Z",
         "outcome": "acted", "remaining": 17.75, "at_zero": False},
        {"table": "7", "boot": BOOT, "seq": 12, "clock": 10, "utc": "2026-11-30T21:00:30.500000Z",
         "outcome": "hand_dead", "remaining": None, "at_zero": None}]}
    assert len(answer(archive.db, {"what": "rulings", "limit": 1})["rulings"]) == 1
    check("answer", got)


def test_a_clocks_timeline_in_the_devices_order(archive_spec):
    archive = archive_with_two_clocks(archive_spec)
    got = answer(archive.db, {"what": "clock", "table": "7", "clock": 10})
    assert got["ok"] and [r["record"]["type"] for r in got["records"]] == ["start", "beep", "decision"]
    check("answer", got)
    assert got["records"][1] == {"seq": 11, "utc": "2026-11-30T21:00:25.000000Z",
                                 "record": {"t": 125.0, "type": "beep", "remaining": 5}}


def test_bad_questions_get_a_reason_not_an_exception(archive_spec):
    archive = archive_with_two_clocks(archive_spec)
    for question, words in [(None, "JSON object"), ({"what": "everything"}, "unknown question"),
                            ({"what": "rulings", "limit": 0}, "limit"), ({"what": "rulings", "limit": True}, "limit"),
                            ({"what": "clock", "table": 7, "clock": 10}, "names a table"),
                            ({"what": "clock", "table": "7", "clock": 99}, "no clock 99")]:
        got = answer(archive.db, question)
        assert got["ok"] is False and words in got["reason"], (question, got)
        check("answer", got)


def test_a_clocks_number_is_the_one_the_log_command_shows(archive_spec):
    # The dashboard's timeline tells the floor `shotclock log --collected DIR --table 7 show N`: N must be
    # the log command's 1, 2, 3... numbering of the table's clocks, not the device's id (its start's seq).
    from shotclock.adapters.archive import table_log
    from shotclock.shell.logcmd import _clocks

    archive = archive_with_two_clocks(archive_spec)
    for e in [event("7", 30, 30, 200.0, "start", "2026-11-30T21:05:00.000000Z", seconds=30),
              event("7", 31, 30, 212.0, "decision", "2026-11-30T21:05:12.000000Z", outcome="acted",
                    remaining=18.0, at_zero=False)]:
        archive.add(e)
    logged = {c.id: c.number for c in _clocks(table_log(archive_spec, "7"))[0]}
    assert logged == {10: 1, 30: 2}
    for clock, number in logged.items():
        got = answer(archive.db, {"what": "clock", "table": "7", "clock": clock})
        assert got["number"] == number, (clock, got)
        check("answer", got)


def test_a_ruling_says_who_on_the_floor_commanded_its_clock(archive_spec):
    # Issue 18, 9: the rulings feed records the name the broker proved (the command's sender as the device logged it).
    archive = Archive(archive_spec)
    for e in [
        event("5", 19, None, 99.0, "input", "2026-11-30T21:00:00.000000Z", command="call", id="c1",
              sender="floor-anna"),
        event("5", 20, 20, 100.0, "start", "2026-11-30T21:00:00.000000Z", seconds=30),
        event("5", 21, 20, 104.0, "input", "2026-11-30T21:00:04.000000Z", command="pause", id="c2",
              sender="floor-ben"),
        event("5", 22, 20, 130.0, "decision", "2026-11-30T21:00:30.000000Z", outcome="hand_dead"),
        event("5", 30, 30, 200.0, "start", "2026-11-30T21:01:00.000000Z", seconds=30),
        event("5", 31, 30, 210.0, "decision", "2026-11-30T21:01:10.000000Z", outcome="acted"),
    ]:
        archive.add(e)
    got = answer(archive.db, {"what": "rulings", "limit": 5})
    check("answer", got)
    assert [r.get("by") for r in got["rulings"]] == [None, ["floor-anna", "floor-ben"]]
    archive.close()
