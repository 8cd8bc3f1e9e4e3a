"""The tournament clock's rules (core/tournament.py), on virtual time: stages end on the clock's own timeline, pauses
and hand-for-hand stop it, RP-8's minutes come off it, and nothing gains or loses time."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from shotclock.core.structure import Stage, Structure
from shotclock.core.tournament import (Adjust, GoToLevel, NextStage, Pause, Restored, Resume, RoomHandForHand, Start,
                                       TournamentClock)

SUNDAY = Structure("Sunday", (Stage(20, 25, 50), Stage(20, 50, 100), Stage(10, is_break=True, name="dinner"),
                              Stage(20, 100, 200, 200, big_blind_ante=True), Stage(0, 200, 400, hands=12),
                              Stage(20, 300, 600)))


def run(clock, *events):
    """Every change the events make, as (t, why, index, remaining)."""
    out = []
    for e in events:
        out += [(c.t, c.why, c.index, c.remaining) for c in clock.handle(e)]
    return out


def test_a_level_ends_on_the_clocks_time_and_the_next_begins_at_that_moment():
    c = TournamentClock(SUNDAY)
    assert run(c, Start(100.0, "floor")) == [(100.0, "started", 0, 1200.0)]
    assert c.next_wake == 1300.0
    # A late wake-up: the level ended at 1300 whatever the loop did; the overshoot is the next level's.
    assert [(x.t, x.why, x.index, x.level, x.by) for x in c.advance(1302.5)] == [(1300.0, "time", 1, 2, "clock")]
    assert c.view(1302.5).remaining == 1197.5 and c.next_wake == 2500.0


def test_pauses_never_count_and_a_resume_goes_on_with_the_time_left():
    c = TournamentClock(SUNDAY)
    run(c, Start(0.0, "floor"), Pause(600.0, "floor-anna"))
    assert c.next_wake is None and c.view(5000.0).remaining == 600.0 and c.view(5000.0).paused
    assert c.advance(99999.0) == []
    assert run(c, Resume(7000.0, "floor-anna")) == [(7000.0, "resumed", 0, 600.0)]
    assert c.next_wake == 7600.0


def test_the_floor_adds_and_takes_time_and_taking_more_than_is_left_ends_the_level():
    c = TournamentClock(SUNDAY)
    run(c, Start(0.0, "floor"))
    changes = c.handle(Adjust(100.0, "floor", seconds=60))
    assert [(x.why, x.remaining, x.seconds) for x in changes] == [("adjusted", 1160.0, 60.0)]
    changes = c.handle(Adjust(200.0, "floor", seconds=-5000))
    assert [(x.why, x.index, x.seconds) for x in changes] == [("adjusted", 0, -1060.0), ("time", 1, None)]
    assert c.view(200.0).remaining == 1200.0


def test_a_jump_to_a_level_gives_it_its_whole_time_and_breaks_are_not_counted_as_levels():
    c = TournamentClock(SUNDAY)
    run(c, Start(0.0, "floor"))
    assert [(x.why, x.index, x.level, x.by) for x in c.handle(GoToLevel(50.0, "floor-anna", level=3))] == [
        ("level", 3, 3, "floor-anna")]
    assert c.view(50.0).remaining == 1200.0 and c.view(50.0).stage.big_blind_ante
    assert c.handle(GoToLevel(60.0, "floor", level=99)) == []  # no such level: nothing changes


def test_a_break_is_a_stage_of_its_own_and_the_view_counts_to_it():
    c = TournamentClock(SUNDAY)
    run(c, Start(0.0, "floor"))
    assert c.view(100.0).to_break == 1100.0 + 1200.0
    c.advance(2400.0)
    view = c.view(2500.0)
    assert view.stage.is_break and view.level is None and view.remaining == 500.0 and view.to_break is None


def test_a_level_that_ends_by_hands_waits_for_the_floor_and_no_time_runs_on_it():
    c = TournamentClock(SUNDAY)
    run(c, Start(0.0, "floor"), GoToLevel(10.0, "floor", level=4))
    assert c.view(10.0).remaining is None and c.next_wake is None and not c.view(10.0).running
    assert c.advance(100000.0) == []
    assert c.handle(Adjust(20.0, "floor", seconds=60)) == []  # no time to adjust
    assert [(x.why, x.index, x.remaining) for x in c.handle(NextStage(30000.0, "floor"))] == [("next", 5, 1200.0)]
    assert c.next_wake == 31200.0


def test_hand_for_hand_stops_the_clock_and_each_released_hand_takes_its_minutes_off():
    c = TournamentClock(SUNDAY)
    run(c, Start(0.0, "floor"))
    on = run(c, RoomHandForHand(600.0, "floor-anna", on=True, hands=0, minutes=2, since_ms=1))
    assert on == [(600.0, "hand_for_hand", 0, 600.0)] and c.next_wake is None
    assert c.view(900.0).remaining == 600.0  # stood still
    released = c.handle(RoomHandForHand(900.0, "floor-anna", on=True, hands=1, minutes=2, since_ms=1))
    assert [(x.why, x.remaining, x.seconds) for x in released] == [("released", 480.0, 120.0)]
    # The same state again (a reconnect) takes nothing; two more hands at once take both.
    assert c.handle(RoomHandForHand(950.0, "floor", on=True, hands=1, minutes=2, since_ms=1)) == []
    both = c.handle(RoomHandForHand(1000.0, "floor", on=True, hands=3, minutes=2, since_ms=1))
    assert [(x.why, x.seconds) for x in both] == [("released", 240.0)] and c.view(1000.0).remaining == 240.0
    ended = c.handle(RoomHandForHand(1100.0, "floor", on=False, hands=3, minutes=2, since_ms=1))
    assert [x.why for x in ended] == ["hand_for_hand_ended"] and c.next_wake == 1340.0


def test_rp8_time_off_longer_than_the_level_goes_on_into_the_next():
    c = TournamentClock(SUNDAY)
    run(c, Start(0.0, "floor"), RoomHandForHand(1140.0, on=True, hands=0, minutes=3, since_ms=7))
    changes = c.handle(RoomHandForHand(1200.0, on=True, hands=1, minutes=3, since_ms=7))
    assert [(x.why, x.index, x.seconds) for x in changes] == [("time", 1, None), ("released", 1, 180.0)]
    assert c.view(1200.0).remaining == 1200.0 - 120.0


def test_a_clock_that_missed_a_whole_hand_for_hand_still_takes_its_hands_off():
    c = TournamentClock(SUNDAY)
    run(c, Start(0.0, "floor"))
    changes = c.handle(RoomHandForHand(500.0, on=False, hands=2, minutes=2, since_ms=3))
    assert [(x.why, x.seconds) for x in changes] == [("released", 240.0)] and c.view(500.0).remaining == 460.0
    # A new hand-for-hand counts its hands from 0 again.
    run(c, RoomHandForHand(600.0, on=True, hands=0, minutes=2, since_ms=4))
    assert [x.seconds for x in c.handle(RoomHandForHand(700.0, on=True, hands=1, since_ms=4))] == [120.0]


def test_the_last_stage_finishes_and_stays():
    c = TournamentClock(Structure("short", (Stage(1, 1, 2),)))
    run(c, Start(0.0, "floor"))
    assert [(x.t, x.why) for x in c.advance(100.0)] == [(60.0, "finished")]
    assert c.view(100.0).finished and c.next_wake is None and c.handle(NextStage(101.0)) == []


def test_a_restore_says_how_long_the_clock_was_away_and_changes_nothing_else():
    c = TournamentClock(SUNDAY)
    run(c, Start(0.0, "floor"))
    changes = c.handle(Restored(300.0, "clock", away=42.0))
    assert [(x.why, x.seconds, x.remaining) for x in changes] == [("restored", 42.0, 900.0)]


def test_commands_that_do_not_fit_change_nothing():
    c = TournamentClock(SUNDAY)
    assert c.handle(Pause(1.0)) == [] and c.handle(Resume(1.0)) == []
    run(c, Start(2.0))
    assert c.handle(Start(3.0)) == [] and c.handle(Resume(3.0)) == []


EVENTS = st.lists(st.tuples(st.floats(0.5, 900.0), st.sampled_from(["pause", "resume", "adjust", "h4h", "release",
                                                                     "end"]),
                            st.floats(-600.0, 600.0)), max_size=40)


@settings(max_examples=200, deadline=None)
@given(EVENTS)
def test_played_time_adds_up_to_the_running_time_with_the_adjustments_and_rp8(steps):
    """Whatever the floor does: the structure's time consumed equals the time the clock ran, less what was added,
    plus what RP-8 took off. Nothing is gained or lost."""
    stages = tuple(Stage(15, 10 * i, 20 * i) for i in range(1, 200))
    clock, t = TournamentClock(Structure("long", stages)), 0.0
    clock.handle(Start(t, "floor"))
    ran, added, taken, hands, on = 0.0, 0.0, 0.0, 0, False
    for gap, what, seconds in steps:
        ran += gap if clock.running else 0.0
        t += gap
        if what == "pause":
            event = Pause(t)
        elif what == "resume":
            event = Resume(t)
        elif what == "adjust":
            event = Adjust(t, seconds=round(seconds, 3))
        else:
            on = what != "end" and (on or what == "h4h")
            hands += what == "release"
            event = RoomHandForHand(t, on=on, hands=hands, minutes=2, since_ms=1)
        for change in clock.handle(event):
            if change.why == "adjusted":
                added += change.seconds
            elif change.why == "released":
                taken += change.seconds
    consumed = sum(s.seconds for s in stages[:clock.index]) + stages[clock.index].seconds - clock.remaining(t)
    assert consumed == pytest.approx(ran - added + taken, abs=1e-6)


def test_hands_released_before_the_start_are_not_this_tournaments():
    """Yesterday's hand-for-hand stays on the broker (its hands kept after the end): a new clock takes none of it."""
    c = TournamentClock(SUNDAY)
    assert run(c, RoomHandForHand(1.0, on=False, hands=9, minutes=2, since_ms=5)) == []
    run(c, Start(10.0, "floor"))
    assert c.view(10.0).remaining == 1200.0
    # The same hand-for-hand going on after the start: only the hands released from now on count.
    assert [(x.why, x.seconds) for x in c.handle(RoomHandForHand(20.0, on=True, hands=10, since_ms=5))] == [
        ("hand_for_hand", None), ("released", 120.0)]


FLOOR = st.lists(st.tuples(st.floats(0.5, 1500.0),
                           st.sampled_from(["pause", "resume", "adjust", "h4h", "release", "end", "level", "next"]),
                           st.integers(-600, 600)), max_size=30)


def floor_event(t: float, what: str, n: int, room: dict):
    """One of the floor's events at ``t`` (``room`` keeps the hand-for-hand's count between calls)."""
    if what in ("h4h", "release", "end"):
        room["on"] = what != "end" and (room["on"] or what == "h4h")
        room["hands"] += what == "release"
        return RoomHandForHand(t, "floor", on=room["on"], hands=room["hands"], minutes=2, since_ms=1)
    return {"pause": lambda: Pause(t, "floor"), "resume": lambda: Resume(t, "floor"),
            "adjust": lambda: Adjust(t, "floor", seconds=float(n)),
            "level": lambda: GoToLevel(t, "floor", level=abs(n) % 6 + 1), "next": lambda: NextStage(t, "floor")}[what]()


@settings(max_examples=150, deadline=None)
@given(FLOOR, st.lists(st.floats(0.0, 1.0), min_size=1, max_size=30))
def test_a_late_or_early_wake_up_changes_nothing_and_a_replay_of_the_events_gives_the_same_clock(steps, wakes):
    """Time never jumps: a clock woken at odd moments (a busy loop, a late timer) makes the same changes at the same
    times as one woken only by the floor's events, and a new clock handed the same events (a restart replaying its
    journal) is the same clock."""
    lazy, eager, t = TournamentClock(SUNDAY), TournamentClock(SUNDAY), 0.0
    events, room = [Start(0.0, "floor")], {"on": False, "hands": 0}
    for gap, what, n in steps:
        t += gap
        events.append(floor_event(t, what, n, room))
    lazy_out, eager_out, before = [], [], 0.0
    for i, event in enumerate(events):
        lazy_out += lazy.handle(event)
        for fraction in wakes[i % len(wakes):][:3]:  # wake-ups between the last event and this one
            eager_out += eager.advance(before + (event.t - before) * fraction)
        eager_out += eager.handle(event)
        before = event.t
    end = t + 100000.0
    lazy_out += lazy.advance(end)
    eager_out += eager.advance(end)
    assert eager_out == lazy_out
    again = TournamentClock(SUNDAY)
    for event in events:
        again.handle(event)
    again.advance(end)
    assert again.view(end) == lazy.view(end) == eager.view(end)


@settings(max_examples=150, deadline=None)
@given(FLOOR)
def test_the_time_left_runs_down_one_second_a_second_only_while_the_clock_runs(steps):
    """Between two events the time left falls exactly by the time the clock ran (none while paused, in hand-for-hand,
    on a level that ends by hands or finished), and it is never below 0."""
    clock, t, room = TournamentClock(SUNDAY), 0.0, {"on": False, "hands": 0}
    clock.handle(Start(t, "floor"))
    for gap, what, n in steps:
        wake = clock.next_wake
        mid = t + gap / 2
        if wake is None or wake > t + gap:  # no stage ends in this gap: the time left is a straight line
            left = clock.remaining(t)
            if left is not None:
                ran = gap / 2 if clock.running else 0.0
                assert clock.remaining(mid) == pytest.approx(left - ran, abs=1e-9)
        t += gap
        clock.handle(floor_event(t, what, n, room))
        left = clock.remaining(t)
        assert left is None or 0.0 <= left
