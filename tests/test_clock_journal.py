"""The tournament clock's journal and its process's restart (adapters/clock_journal.py, floor/tournament.py), with the
machine's and the wall clock in the test's hands: where a restart puts the clock, how long it says it was away, and
that no wall-clock step moves it."""

from __future__ import annotations

import pytest

from shotclock.adapters.clock_journal import ClockJournal, JournalError
from shotclock.core import tournament as tc
from shotclock.core.structure import Stage, Structure
from shotclock.errors import ShotclockError
from shotclock.floor.tournament import ClockProcess

SUNDAY = Structure("Sunday", (Stage(20, 25, 50), Stage(20, 50, 100), Stage(10, is_break=True, name="dinner")))
WALL0 = 1_796_000_000.0  # a wall clock in 2026


class Machine:
    """A floor machine's clocks: ``since_boot`` (stops at a power cut: a new boot starts it again) and ``wall``."""

    def __init__(self):
        self.since_boot, self.wall, self.boot = 100.0, WALL0, "boot-1"

    def run(self, seconds: float) -> None:
        self.since_boot += seconds
        self.wall += seconds

    def reboot(self, outage: float) -> None:
        self.since_boot, self.wall, self.boot = 20.0, self.wall + outage, self.boot + "'"


def process(journal, machine: Machine) -> ClockProcess:
    return ClockProcess(journal, "v", "main", clock=lambda: machine.since_boot, wall=lambda: machine.wall,
                        boot=machine.boot)


@pytest.fixture
def journal(tmp_path):
    j = ClockJournal(tmp_path / "main.journal")
    j.set_structure(SUNDAY)
    yield j
    j.close()


def started(journal, machine: Machine, played: float = 300.0) -> ClockProcess:
    """A clock started and run ``played`` seconds, its last sign of life then (the loop's beat)."""
    p = process(journal, machine)
    p._take(tc.Start(p.now(), "floor-anna"))
    machine.run(played)
    p.seq = 7
    journal.beat(p.alive())
    return p


def test_a_crash_is_measured_on_the_machines_clock_whatever_the_wall_clock_did(journal):
    machine = Machine()
    before = started(journal, machine)
    left = before.clock.remaining(before.now())
    machine.run(42.0)
    machine.wall += 3600.0  # NTP (or a person) set the wall clock an hour on while the process was down
    back = process(journal, machine)
    assert back.away == pytest.approx(42.0) and back.away_measured == "the machine's clock"
    assert back.clock.remaining(back.now()) == pytest.approx(left - 42.0)  # counted as played, and no more
    assert [c.why for c in back.clock.handle(tc.Adjust(back.now(), "floor", seconds=back.away))] == ["adjusted"]
    assert back.clock.remaining(back.now()) == pytest.approx(left)  # the floor gave the outage back


def test_a_power_cut_is_measured_on_the_wall_clock_and_a_wall_clock_behind_counts_nothing(journal):
    machine = Machine()
    before = started(journal, machine)
    left = before.clock.remaining(before.now())
    machine.reboot(outage=90.0)
    back = process(journal, machine)
    assert back.away == pytest.approx(90.0) and back.away_measured.startswith("the wall clock")
    assert back.clock.remaining(back.now()) == pytest.approx(left - 90.0)
    journal.beat(back.alive())
    machine.reboot(outage=-5000.0)  # a machine with no real-time clock boots in the past
    again = process(journal, machine)
    assert again.away == 0.0 and again.clock.remaining(again.now()) == pytest.approx(left - 90.0)


def test_the_state_numbers_go_on_after_a_restart_even_with_the_wall_clock_in_the_past(journal):
    machine = Machine()
    started(journal, machine)
    machine.reboot(outage=-10 ** 6)
    back = process(journal, machine)
    assert back.seq == 7  # the next state is numbered above every state the tables took (not by the wall clock)
    assert back.state().seq == 7 and back.state().at_ms < WALL0 * 1000


def test_a_clock_that_stood_still_lost_nothing_and_offers_nothing_back(journal):
    machine = Machine()
    before = started(journal, machine)
    before._take(tc.Pause(before.now(), "floor"))
    journal.beat(before.alive())
    left = before.clock.remaining(before.now())
    machine.run(600.0)
    back = process(journal, machine)
    assert back.away is None and back.clock.remaining(back.now()) == left
    assert [type(e).__name__ for e in journal.events()][-1] == "Restored"  # said in the journal all the same


def test_a_second_process_on_the_same_journal_is_refused(journal):
    with pytest.raises(JournalError, match="another clock's process holds this journal"):
        ClockJournal(journal.path)


def test_a_journal_with_no_structure_is_said_in_one_line(tmp_path):
    j = ClockJournal(tmp_path / "empty.journal")
    try:
        with pytest.raises(ShotclockError, match="no structure yet"):
            process(j, Machine())
    finally:
        j.close()


def test_a_file_that_is_no_journal_is_said_in_one_line(tmp_path):
    other = tmp_path / "notes.txt"
    other.write_bytes(b"not a database, just some notes " * 100)
    with pytest.raises(JournalError, match="cannot be used as the tournament's journal"):
        ClockJournal(other)


def test_a_started_tournament_keeps_its_structure_whatever_file_a_restart_names(journal, caplog):
    """A service restarting the clock with the file it first had, after the floor loaded another before the start,
    goes on with the tournament (said in one line) instead of failing at every attempt."""
    from shotclock.floor.tournament import _take_structure

    other = Structure("Monday", (Stage(30, 50, 100),))
    assert _take_structure(journal, other, "monday.toml") is True  # not started: the new one is taken
    p = process(journal, Machine())
    p._take(tc.Start(p.now(), "floor"))
    with caplog.at_level("WARNING", logger="shotclock.tournament"):
        assert _take_structure(journal, SUNDAY, "sunday.toml") is False
    assert journal.structure() == other and "keeps its own structure" in caplog.text
