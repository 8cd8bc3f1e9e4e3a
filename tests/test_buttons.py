"""Debounce, gestures and stuck buttons from edge timestamps alone (virtual time)."""

from hypothesis import given, settings, strategies as st

from shotclock.core.buttons import ButtonFault, ButtonReader, Edge, Gesture
from shotclock.core.gestures import gesture_event
from shotclock.core.engine import Engine
from shotclock.core.events import (Action, Bet, Call, Cancel, Extend, Hand, Pause, ResetChips, Resume, Start, Stop,
                                   Street, Undo)
from shotclock.core.settings import Settings


def reader():
    return ButtonReader(debounce=0.03, hold=2.0, stuck_after=10.0)


def press(r, button, t, length=0.1, bounce=0):
    """Edges of one press with ``bounce`` extra bounces inside 5 ms of each edge; returns all outputs."""
    out = []
    for start, level in ((t, True), (t + length, False)):
        out += r.edge(Edge(start, button, level))
        for i in range(bounce):
            out += r.edge(Edge(start + 0.001 + i * 0.004 / max(bounce, 1), button, not level))
            out += r.edge(Edge(start + 0.0015 + i * 0.004 / max(bounce, 1), button, level))
    return out


def test_action_counts_on_the_press_edge_with_its_own_timestamp():
    r = reader()
    assert r.edge(Edge(5.123456, "action", True)) == [Gesture(5.123456, "action", "press")]
    assert r.edge(Edge(5.2, "action", False)) == [Gesture(5.123456, "action", "tap")]  # a tap means nothing more


def test_bounce_storm_counts_once():
    r = reader()
    out = press(r, "action", 1.0, bounce=20) + r.advance(3)
    assert out == [Gesture(1.0, "action", "press"), Gesture(1.0, "action", "tap")]


@given(st.integers(min_value=0, max_value=30), st.floats(min_value=0.05, max_value=1.9))
@settings(max_examples=100, deadline=None)
def test_any_bounce_count_gives_one_gesture_per_press(bounce, length):
    r = reader()
    out = press(r, "floor", 1.0, length=length, bounce=bounce) + r.advance(20)
    # the press at its edge, then the tap at release -- dated at the press edge too
    assert out == [Gesture(1.0, "floor", "press"), Gesture(1.0, "floor", "tap")]


def test_tap_shorter_than_debounce_is_settled_at_the_last_edge():
    r = reader()
    assert r.edge(Edge(1.0, "action", True)) == [Gesture(1.0, "action", "press")]
    assert r.edge(Edge(1.01, "action", False)) == []  # inside the bounce window
    assert r.next_wake() == 1.03
    assert r.advance(1.03) == [Gesture(1.0, "action", "tap")]  # the release is counted now, not left pending
    assert r.next_wake() is None
    assert r.edge(Edge(1.5, "action", True)) == [Gesture(1.5, "action", "press")]


def test_floor_press_is_dated_at_its_edge_and_its_tap_too():
    r = reader()
    assert r.edge(Edge(1.0, "floor", True)) == [Gesture(1.0, "floor", "press")]
    assert r.undecided_since() == 1.0  # tap or hold: not known yet
    assert r.edge(Edge(1.3, "floor", False)) == [Gesture(1.0, "floor", "tap")]
    assert r.undecided_since() is None


def test_hold_gesture_fires_at_the_hold_time_and_release_adds_nothing():
    r = reader()
    assert r.edge(Edge(1.0, "street", True)) == [Gesture(1.0, "street", "press")]
    assert r.next_wake() == 3.0
    assert r.advance(2.9) == []
    assert r.advance(3.5) == [Gesture(3.0, "street", "hold")]
    assert r.edge(Edge(4.0, "street", False)) == []


def test_stuck_button_is_reported_and_ignored_until_released():
    r = reader()
    assert r.edge(Edge(0, "action", True)) == [Gesture(0, "action", "press")]
    assert r.advance(10.5) == [Gesture(2, "action", "hold"), ButtonFault(10, "action", "stuck")]
    assert r.stuck() == {"action"}
    assert r.next_wake() is None  # nothing more to do for a stuck button
    assert r.edge(Edge(30, "action", False)) == [ButtonFault(30, "action", "released")]
    assert r.stuck() == set()
    assert r.edge(Edge(31, "action", True)) == [Gesture(31, "action", "press")]


def test_floor_held_until_stuck_cancels_once_then_is_stuck():
    r = reader()
    assert r.edge(Edge(0, "floor", True)) == [Gesture(0, "floor", "press")]
    assert r.advance(12) == [Gesture(2, "floor", "hold"), ButtonFault(10, "floor", "stuck")]
    assert r.edge(Edge(13, "floor", False)) == [ButtonFault(13, "floor", "released")]


def test_button_pressed_at_start_is_stuck_until_released():
    r = reader()
    assert r.held_at_start(0, "bet") == [ButtonFault(0, "bet", "stuck")]
    assert r.edge(Edge(0.5, "bet", True)) == []
    assert r.edge(Edge(1, "bet", False)) == [ButtonFault(1, "bet", "released")]


def test_two_buttons_at_the_same_instant_both_count():
    r = reader()
    out = r.edge(Edge(2.0, "action", True)) + r.edge(Edge(2.0, "bet", True))
    assert out == [Gesture(2.0, "action", "press"), Gesture(2.0, "bet", "press")]


def test_gesture_map_clock_mode():
    engine = Engine(Settings(mode="clock"))
    g = lambda button, kind="press": gesture_event(Gesture(1, button, kind), engine.state)
    assert g("floor") == Call(1)
    assert g("floor", "hold") is None  # the press already called the clock: a long press does not cancel it
    assert g("action") == Action(1)
    assert (g("bet"), g("bet", "tap"), g("bet", "hold")) == (None, Bet(1, True), None)  # no dealer pause here
    assert g("extend", "tap") == Extend(1)  # the engine ignores it in clock mode, with the reason
    engine.handle(Call(0))
    assert g("floor") == Pause(1)  # at the press edge
    assert g("floor", "hold") == Cancel(1)
    assert g("floor", "tap") is None
    engine.handle(Pause(0.5))
    assert g("floor") is None  # tap or hold? decided at the release or the hold
    assert (g("floor", "tap"), g("floor", "hold")) == (Resume(1), Cancel(1))


def test_gesture_map_shot_mode():
    engine = Engine(Settings(mode="shot"))
    g = lambda button, kind="press": gesture_event(Gesture(1, button, kind), engine.state)
    assert g("action") == Start(1)
    assert (g("floor"), g("floor", "tap")) == (None, None)
    assert g("bet", "tap") == Bet(1, False)  # a new hand faces the blinds: the toggle clears it
    assert (g("street"), g("street", "hold"), g("extend", "tap")) == (Street(1), Hand(1), Extend(1))
    assert (g("street", "tap"), g("bet"), g("extend")) == (None, None, None)  # taps: known at the release
    assert g("floor", "hold") == ResetChips(1)  # idle: the floor gives every player their chips back
    engine.handle(Start(0))
    assert (g("action"), g("floor"), g("floor", "hold")) == (Action(1), Pause(1), Cancel(1))
    # the dealer: hold the bet button to pause while a bet is counted, hold it again to resume
    assert (g("bet", "hold"), g("extend", "hold"), g("action", "hold")) == (Pause(1), Undo(1), Stop(1))
    engine.handle(Pause(0.5))
    assert (g("bet", "hold"), g("floor", "tap")) == (Resume(1), Resume(1))


# -- the floor button on a long cable: a minimum press time -------------------------


def floor_reader(min_press=0.04):
    return ButtonReader(debounce=0.03, hold=2.0, stuck_after=10.0, min_press={"floor": min_press})


@given(st.floats(min_value=0.0001, max_value=0.039), st.integers(min_value=0, max_value=10))
@settings(max_examples=100, deadline=None)
def test_a_jack_plugged_in_shorts_the_floor_button_for_a_moment_and_nothing_counts(length, bounce):
    r = floor_reader()
    out = press(r, "floor", 1.0, length=length, bounce=bounce) + r.advance(20)
    assert out == []
    assert r.unsettled_press_since() is None and r.next_wake() is None


def test_a_real_floor_press_counts_dated_at_its_edge_once_closed_long_enough():
    r = floor_reader()
    assert r.edge(Edge(1.0, "floor", True)) == []
    assert r.unsettled_press_since() == 1.0  # the rulings wait for it
    assert r.next_wake() == 1.04
    assert r.advance(1.0399) == []
    assert r.advance(1.04) == [Gesture(1.0, "floor", "press")]
    assert r.unsettled_press_since() is None and r.undecided_since() == 1.0
    assert r.edge(Edge(1.2, "floor", False)) == [Gesture(1.0, "floor", "tap")]


def test_a_floor_press_with_bounce_counts_once_and_the_hold_still_works():
    r = floor_reader()
    out = press(r, "floor", 1.0, length=2.5, bounce=6) + r.advance(5)
    assert out == [Gesture(1.0, "floor", "press"), Gesture(3.0, "floor", "hold")]


def test_other_buttons_have_no_minimum_press_time():
    r = floor_reader()
    assert r.edge(Edge(1.0, "action", True)) == [Gesture(1.0, "action", "press")]
