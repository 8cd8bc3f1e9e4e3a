"""``shotclock levels FILE``: the level schedule, every line checked before anything is sent."""

import subprocess
import sys
from pathlib import Path

import pytest

from shotclock.errors import ShotclockError
from shotclock.floor.levelscmd import play
from shotclock.floor.schedule import Step, due, parse_schedule

GOOD = """# a day of levels
12:00  1
12:40  2            # comments after a level too
13:20  3  hands=0
20:30  14 hands=12  room=Final
20:30  14 room="Side Room" section=B
24:10  15
"""


def test_a_schedule_is_read_line_by_line():
    steps = parse_schedule(GOOD, "day1.txt")
    assert [(s.line, s.clock, s.level) for s in steps] == [(2, "12:00", 1), (3, "12:40", 2), (4, "13:20", 3),
                                                           (5, "20:30", 14), (6, "20:30", 14), (7, "24:10", 15)]
    assert steps[3].fields() == {"level": 14, "hands": 12, "room": "Final"}
    assert steps[4].fields() == {"level": 14, "room": "Side Room", "section": "B"}


@pytest.mark.parametrize("line, words", [
    ("12:00 0", "day.txt:2: 'level' must be a tournament level from 1 to 100, not 0"),
    ("12:00 101", "'level' must be a tournament level from 1 to 100, not 101"),
    ("12:00 two", "'level' must be a tournament level from 1 to 100, not \"two\""),
    ("12:61 2", "day.txt:2: the time '12:61' must be HH:MM"),
    ("12:00 2 hands=200", "'hands' must be a number of hands from 0 to 100, not 200"),
    ("12:00 2 tables=3", "'tables=3' is not one of hands=, room=, section="),
    ("12:00 2 room=" + "x" * 33, "'room': a room must be at most 32 characters"),
    ("11:00 2", "day.txt:2: 11:00 is before the line above (11:30)"),
    ("12:00", "a line is 'HH:MM LEVEL"),
    ("1\u00b2:00 2", "day.txt:2: the time '1\u00b2:00' must be HH:MM"),  # str.isdigit passes it, int refuses it
    ("012:00 2", "the time '012:00' must be HH:MM"),
    ("12:00 1_0", "'level' must be a tournament level from 1 to 100, not \"1_0\""),  # int reads it as 10
    ("12:00 +2", "not \"+2\""),
    ("12:00 \u0662", "'level' must be a tournament level from 1 to 100"),  # an Arabic-Indic 2
    ("12:00 2 " + "x" * 1001, "day.txt:2: a line must be at most 1000 characters"),
    ('12:00 2 room="open', "day.txt:2: No closing quotation"),
])
def test_a_bad_line_is_named_by_file_line_and_key(line, words):
    with pytest.raises(ShotclockError) as caught:
        parse_schedule(f"11:30 1\n{line}\n", "day.txt")
    assert words in str(caught.value)
    assert "\n" not in str(caught.value)


def test_an_empty_schedule_is_refused():
    with pytest.raises(ShotclockError, match="no level in the file"):
        parse_schedule("# nothing\n", "day.txt")


def test_started_late_the_last_level_begun_in_each_place_goes_at_once():
    steps = parse_schedule(GOOD, "day1.txt")
    now, ahead = due(steps, 20 * 60 + 45)
    assert [(s.level, s.room) for s in now] == [(3, None), (14, "Final"), (14, "Side Room")]
    assert [s.level for s in ahead] == [15]
    assert due([Step(1, 600, 1)], 0) == ([], [Step(1, 600, 1)])


class Clock:
    """The local wall clock for :func:`play`: a sleep moves it on."""

    def __init__(self, start):
        self.at = start
        self.sleeps = []

    def now(self):
        return self.at

    def sleep(self, seconds):
        from datetime import timedelta

        self.sleeps.append(round(seconds))
        self.at += timedelta(seconds=seconds)


NIGHT = "20:00 10\n24:10 11\n24:40 12\n"


@pytest.mark.parametrize("start, sent, sleeps", [
    ((2026, 12, 1, 20, 5), [10, 11, 12], [245 * 60, 30 * 60]),  # through midnight: 00:10 waits 30 min, not a day
    ((2026, 12, 2, 0, 30), [11, 12], [10 * 60]),  # started again after midnight: the schedule's 24:30
    ((2026, 12, 2, 1, 0), [12], []),  # past the last line: the last level goes on
    ((2026, 12, 2, 19, 0), [10, 11, 12], [60 * 60, 250 * 60, 30 * 60]),  # before the start: today's schedule
])
def test_a_schedule_past_midnight_sends_each_level_at_its_time(start, sent, sleeps, capsys):
    from datetime import datetime

    clock = Clock(datetime(*start))
    levels = []
    assert play(parse_schedule(NIGHT, "night.txt"), lambda step: levels.append(step.level) or 0, clock.now,
                clock.sleep) == 0
    assert levels == sent and clock.sleeps == sleeps
    if sleeps:
        assert "waiting for 24:40: level 12" in capsys.readouterr().out


def test_check_prints_the_plan_and_a_bad_file_exits_2_with_one_line(tmp_path):
    good, bad = tmp_path / "day.txt", tmp_path / "bad.txt"
    good.write_text(GOOD)
    bad.write_text("12:00 1\n12:40 0\n")
    run = lambda path: subprocess.run(  # noqa: E731
        [sys.executable, "-m", "shotclock", "levels", str(path), "--check", "--venue", "v", "--credentials", "x"],
        capture_output=True, text=True)
    ok = run(good)
    assert ok.returncode == 0 and ok.stdout.splitlines()[3] == "20:30  level 14  hands=12 room=Final"
    failed = run(bad)
    assert failed.returncode == 2 and failed.stdout == ""
    assert failed.stderr.strip().endswith("bad.txt:2: 'level' must be a tournament level from 1 to 100, not 0")
    assert len(failed.stderr.strip().splitlines()) == 1


def test_check_needs_no_broker_and_sending_names_what_is_missing(tmp_path):
    good = tmp_path / "day.txt"
    good.write_text(GOOD)
    run = lambda *argv: subprocess.run([sys.executable, "-m", "shotclock", "levels", str(good), *argv],  # noqa: E731
                                       capture_output=True, text=True)
    checked = run("--check")  # a floor checks its schedule before it has the venue's credentials at hand
    assert checked.returncode == 0 and "level 14" in checked.stdout
    sent = run("--venue", "v")
    assert (sent.returncode, sent.stdout) == (2, "")
    assert sent.stderr.strip() == "shotclock: --credentials is needed to send the levels (only --check sends nothing)"


def test_a_schedule_that_is_no_regular_file_is_refused_in_one_line(tmp_path):
    from shotclock.floor.schedule import FILE_MAX, read_schedule

    for path, words in ((tmp_path, "a folder, not a schedule"), (Path("/dev/zero"), "not a regular file"),
                        (tmp_path / "none.txt", "file not found")):
        with pytest.raises(ShotclockError, match=words):
            read_schedule(path)
    big = tmp_path / "big.txt"
    big.write_text("# " + "x" * FILE_MAX + "\n12:00 1\n")
    with pytest.raises(ShotclockError, match="is it a schedule"):
        read_schedule(big)


def test_levels_logs_in_at_its_start_and_says_a_broker_it_cannot_reach(tmp_path, capsys):
    from mqtt_broker import MosquittoBroker, free_port
    from shotclock.cli import main

    begun = tmp_path / "begun.txt"
    begun.write_text("00:00 3\n")  # begun at any time of day: sent at once, no wait
    with MosquittoBroker(tmp_path / "broker", tables=["1"], websockets=False) as broker:
        wrong = tmp_path / "wrong.toml"
        wrong.write_text(broker.credentials_file("floor").read_text().replace(broker.passwords["floor"], "not-it"))
        argv = ["levels", str(begun), "--venue", broker.venue, "--broker", f"127.0.0.1:{broker.port}"]
        assert main(argv + ["--credentials", str(wrong)]) == 2  # said at the start, nothing sent
        said = capsys.readouterr()
        assert "refused the login 'floor'" in said.err and "level 3" not in said.out
    # No broker there now: the start says so and the level is still tried at its time (here at once).
    argv = ["levels", str(begun), "--venue", "v", "--broker", f"127.0.0.1:{free_port()}", "--wait", "1",
            "--credentials", str(broker.credentials_file("floor"))]
    assert main(argv) == 1
    out = capsys.readouterr().out.splitlines()
    assert out[0].startswith("warning: cannot reach the broker") and out[1] == "00:00: level 3"
    assert out[2].startswith("00:00: level 3 not sent")
