"""The dealer check: cues at seeded random moments, presses dated at the pin edge, on fake pins and virtual time."""

import random
import statistics

import pytest

from shotclock.config.loading import parse_config
from shotclock.config.typed import Config
from shotclock.core.dealer_check import GAP, ROUNDS, TIMEOUT, DealerCheck, Result, schedule
from shotclock.core.view import dealer_check_view
from shotclock.shell.selftest import check_dealer


class DealerAtTheTable:
    """A waker that plays the dealer: sleeps on virtual time, and presses the action pin at scripted moments.

    ``reply(i, cue)`` gives how long after cue ``i`` (at ``cue``) the dealer presses (None: no press), and
    ``early`` the moments of presses before any cue. Each press lasts 80 ms; the loop sees it at its release."""

    def __init__(self, clock, reply, early=()):
        self.clock, self.reply, self.early = clock, reply, sorted(early)
        self.run = None
        self.presses = []  # (edge time) of each press made

    def wake(self):
        pass

    def _due_press(self):
        check = self.run.check
        due = list(self.early)
        if check.waiting:
            i = len(check.reactions)
            after = self.reply(i, check.cues[i])
            if after is not None:
                due.append(check.cues[i] + after)
        due = [t for t in due if t >= self.clock.now - 1e-9 and t not in self.presses]
        return min(due) if due else None

    def wait(self, timeout):
        target = self.clock.now + (timeout if timeout is not None else 3600)
        press = self._due_press()
        if press is not None and press <= target:
            pin = self.run.pins.pin("action")
            self.clock.now = press
            pin.drive_low()
            self.presses.append(press)
            self.clock.now = press + 0.08
            pin.drive_high()
        else:
            self.clock.now = target


def run_check(vclock, mock_factory, reply, early=(), config=None, seed=7):
    lines, views = [], []
    waker = DealerAtTheTable(vclock, reply, early)
    import shotclock.shell.dealer as dealer

    made = dealer.DealerCheckRun.__init__

    def init(self, *a, **kw):  # hand the waker the run it plays against
        made(self, *a, **kw)
        waker.run = self

    dealer.DealerCheckRun.__init__ = init
    try:
        check = check_dealer(config or Config(), mock_factory, clock=vclock, waker=waker, show=views.append,
                             out=lines.append, seed=seed)
    finally:
        dealer.DealerCheckRun.__init__ = made
    return check, lines, views, waker


def test_a_dozen_cues_give_the_reaction_times_median_and_spread(vclock, mock_factory):
    reactions = [0.21, 0.25, 0.31, 0.28, 0.33, 0.42, 0.26, 0.30, 0.27, 0.35, 0.29, 0.24]
    check, lines, views, waker = run_check(vclock, mock_factory, lambda i, cue: reactions[i])
    assert check.status == "OK", check.line()
    median, (q1, _, q3) = statistics.median(reactions), statistics.quantiles(reactions, n=4, method="inclusive")
    import re

    shown = re.match(r"median ([\d.]+) s, middle half ([\d.]+)-([\d.]+) s", check.detail).groups()
    assert [float(x) for x in shown] == pytest.approx([median, q1, q3], abs=0.0006)  # to the millisecond
    assert "slowest 0.420 s" in check.detail and "12 of 12 cues answered, 0 missed, 0 too early" in check.detail
    assert len([l for l in lines if " ms" in l]) == 12 and lines[1] == "cue  1 of 12: 210 ms"  # dated at the edge
    assert views[-1].big == "mediaan: 285 ms"


def test_a_press_before_the_cue_is_too_early_not_a_reaction(vclock, mock_factory):
    start = vclock.now
    cues = schedule(random.Random(7), start=start + 2.0)
    early = [cues[2] - 0.5, cues[5] - 0.05]  # the second one 50 ms before its cue: still early, not -50 ms
    check, lines, _, _ = run_check(vclock, mock_factory, lambda i, cue: 0.3, early=early)
    assert "12 of 12 cues answered, 0 missed, 2 too early" in check.detail and "median 0.300 s" in check.detail
    assert sum("too early" in l for l in lines) == 2


def test_a_cue_with_no_press_is_missed_and_a_slow_dealer_is_a_warning(vclock, mock_factory):
    reply = lambda i, cue: None if i == 3 else 0.7  # slower than the 0.5 s tie window
    check, lines, _, _ = run_check(vclock, mock_factory, reply)
    assert check.status == "WARN" and "11 of 12 cues answered, 1 missed" in check.detail
    assert "the tie window (0.5 s) covers 0 of 11" in check.detail
    assert any("missed" in l for l in lines)


def test_no_press_at_all_fails(vclock, mock_factory):
    check, _, _, _ = run_check(vclock, mock_factory, lambda i, cue: None)
    assert check.status == "FAIL" and "is the action button wired?" in check.detail


def test_the_schedule_is_seeded_and_bounded():
    a, b = schedule(random.Random(3), 10.0), schedule(random.Random(3), 10.0)
    assert a == b and len(a) == ROUNDS
    gaps = [y - x for x, y in zip((10.0,) + a, a)]
    assert all(GAP[0] <= g <= GAP[1] for g in gaps) and GAP[0] > TIMEOUT  # a cue never waits on the one before


def test_the_check_in_pure_code():
    check = DealerCheck((5.0, 10.0, 15.0))
    assert check.next_wake() == 5.0 and check.press(4.0) == "early"
    assert check.advance(5.0) == [("cue", 0, 5.0)] and check.next_wake() == 5.0 + TIMEOUT
    cue = dealer_check_view(check, "en")
    assert cue.tone == "flash" and cue.big == "NOW" and cue.info == "Cue 1 of 3"
    assert check.press(5.25) == "reaction"
    assert check.advance(12.5) == [("cue", 1, 10.0), ("missed", 1, 12.0)]
    check.advance(15.0)
    assert check.press(15.4) == "reaction" and check.done and check.press(16) == "ignored"
    result = check.result()
    assert result.reactions == (0.25, None, pytest.approx(0.4)) and result.early == 1 and result.missed == 1
    assert dealer_check_view(check, "en").big == "median: 325 ms"
    assert Result((), 0).median is None and Result((0.3,), 0).spread is None


def test_selftest_dealer_is_a_documented_option(capsys):
    from shotclock.cli import main

    with pytest.raises(SystemExit):
        main(["selftest", "--help"])
    assert "--dealer" in capsys.readouterr().out
