"""The pure table: edges and floor commands dated, ordered and read by the rules (virtual time)."""

import json

import pytest
from hypothesis import given, settings as hsettings, strategies as st

from shotclock.core.buttons import Edge as ButtonsEdge
from shotclock.core.events import Decision, Ignored
from shotclock.core.faults import StuckButton
from shotclock.core.inputs import Command, Edge
from shotclock.core.settings import ClockSettings, Settings, ShotSettings
from shotclock.core.table import Table

SHORT = Settings(clock=ClockSettings(seconds=2, countdown=1, tie_window=0.25))


def table(settings=SHORT, **kw):
    return Table(settings, **kw)


def tap(button, t, hold=0.1):
    return [Edge(t, button, True), Edge(t + hold, button, False)]


def names(r):
    return [i.event.NAME for i in r.inputs]


def test_edge_is_the_same_class_from_either_module():
    assert ButtonsEdge is Edge


def test_floor_call_is_dated_at_its_press_edge():
    # Measured before: a call pressed at 0.300 s with an 80 ms hold started the clock at 0.380 s.
    t = table()
    r = t.feed(tap("floor", 0.300, hold=0.080), now=0.4)
    assert [(i.event.NAME, i.event.t) for i in r.inputs] == [("call", 0.3)]
    assert [o.record() for o in r.outputs] == [{"t": 0.3, "type": "start", "seconds": 2}]


def test_floor_call_is_taken_at_the_press_before_the_release_arrives():
    t = table()
    r = t.feed([Edge(0.3, "floor", True)], now=0.31)
    assert names(r) == ["call"] and r.state.phase == "running"
    r = t.feed([Edge(1.5, "floor", False)], now=1.5)  # a long press (1.2 s): no second meaning
    assert r.inputs == [] and r.state.phase == "running"


def test_pause_is_dated_at_its_press_edge_and_a_hold_then_cancels():
    t = table()
    t.feed(tap("floor", 0.0), now=0.2)
    r = t.feed([Edge(0.9, "floor", True)], now=1.05)
    assert [(i.event.NAME, i.event.t) for i in r.inputs] == [("pause", 0.9)]
    assert r.outputs[0].record() == {"t": 0.9, "type": "pause", "remaining": 1.1}
    r = t.feed([], now=3.1)  # still held: 2 s after the press it is a hold
    assert [(i.event.NAME, i.event.t) for i in r.inputs] == [("cancel", 2.9)]
    assert r.outputs[-1].record()["outcome"] == "cancelled"


def test_resume_is_dated_at_its_press_edge_though_decided_at_release():
    t = table()
    t.feed(tap("floor", 0.0), now=0.2)
    t.feed(tap("floor", 0.5), now=0.7)  # paused with 1.5 s left
    t.feed([Edge(5.0, "floor", True)], now=5.0)
    r = t.feed([], now=5.9)  # the floor still holds the button: tap or hold is not known
    assert r.inputs == [] and r.state.phase == "paused"
    r = t.feed([Edge(6.0, "floor", False)], now=6.01)
    assert [(i.event.NAME, i.event.t) for i in r.inputs] == [("resume", 5.0)]
    assert r.state.deadline == pytest.approx(6.5)  # 1.5 s from the press, not from the release


def test_ruling_due_before_a_press_is_made_first_even_when_the_loop_wakes_late():
    # Before: a floor call made while a late ruling was pending became a 'pause' and was ignored.
    t = table()
    t.feed(tap("floor", 0.0), now=0.2)  # clock: expires at 2.25
    r = t.feed(tap("floor", 2.4), now=2.6)  # the loop woke late, after the floor's next press
    assert [o.TYPE for o in r.outputs] == ["beep", "beep", "decision", "start"]
    assert r.outputs[2].outcome == "check" and r.outputs[2].t == 2.25
    assert [(i.event.NAME, i.event.t) for i in r.inputs] == [("call", 2.4)]
    assert r.state.phase == "running" and r.state.deadline == pytest.approx(4.4)


def test_action_at_exactly_zero_plus_tie_window_goes_to_the_player():
    t = table()
    t.feed(tap("floor", 0.0), now=0.1)
    r = t.feed([Edge(2.25, "action", True)], now=3.0)
    decisions = [o for o in r.outputs if isinstance(o, Decision)]
    assert [(d.outcome, d.at_zero) for d in decisions] == [("acted", True)]


def test_late_edge_waits_for_the_grace_then_is_taken_at_the_engines_clock():
    t = table(edge_grace=0.001)
    t.feed(tap("floor", 0.0), now=0.1)
    r = t.feed([], now=2.2504)
    assert not [o for o in r.outputs if isinstance(o, Decision)]  # the ruling waits 1 ms
    assert t.next_wake() == pytest.approx(2.251)
    r = t.feed([Edge(2.2499, "action", True)], now=2.2506)  # delivered late, dated in time
    assert [(o.outcome, o.at_zero) for o in r.outputs if isinstance(o, Decision)] == [("acted", True)]
    t2 = table(edge_grace=0.001)
    t2.feed(tap("floor", 0.0), now=0.1)
    t2.feed([], now=3.0)  # ruled hand dead at 2.25
    r = t2.feed([Edge(2.2499, "action", True)], now=3.1)  # too late: taken at the engine's clock,
    # which stayed at the ruling (no clock ran since, so nothing moved it)
    assert r.inputs[0].event.t == pytest.approx(2.25) and r.outputs[0].TYPE == "ignored"


def test_while_no_clock_runs_a_late_edge_keeps_its_own_time():
    t = table(edge_grace=0.001)
    t.feed([], now=5.0)
    r = t.feed([Edge(4.2, "bet", True), Edge(4.3, "bet", False)], now=5.1)  # handed over 0.8 s late
    assert [(i.event.NAME, i.event.t) for i in r.inputs] == [("bet", 4.2)]


def test_future_dated_input_is_taken_as_now():
    t = table()
    r = t.feed([Edge(9.0, "action", True)], now=1.0)
    assert r.inputs[0].event.t == 1.0


def test_command_call_and_ack():
    t = table()
    r = t.feed([Command(1.0, "call", id="c1", sender="floor-a", facing_bet=True)], now=1.0)
    [ack] = r.acks
    assert (ack.command.id, ack.command.sender, ack.caused, ack.ignored) == ("c1", "floor-a", ["start"], None)
    assert r.state.facing_bet is True and r.state.deadline == 3.0
    assert r.inputs[0].record() == {"t": 1.0, "type": "input", "event": "call", "command": "call", "id": "c1",
                                    "sender": "floor-a", "set_bet": True}


def test_command_ignored_carries_the_reason():
    t = table()
    r = t.feed([Command(1.0, "resume", id="c2", sender="x")], now=1.0)
    assert r.acks[0].ignored == "no clock is running" and r.acks[0].caused == ["ignored"]
    r = t.feed([Command(2.0, "extend", id="c3", sender="x")], now=2.0)
    assert "shot mode" in r.acks[0].ignored


def test_unknown_command_is_ignored_and_recorded_with_its_id():
    t = table()
    r = t.feed([Command(1.0, "explode", id="c4", sender="x")], now=1.0)
    assert "unknown command 'explode'" in r.acks[0].ignored
    assert r.inputs[0].event is None and r.inputs[0].record()["id"] == "c4"


def test_command_is_read_against_the_state_at_its_own_time():
    t = table()
    t.feed([Command(0.0, "call", id="1", sender="a")], now=0.0)
    # Arrived at 2.4 (the clock had expired at 2.25); the loop only wakes at 2.6.
    r = t.feed([Command(2.4, "call", id="2", sender="a")], now=2.6)
    assert [o.TYPE for o in r.outputs] == ["beep", "beep", "decision", "start"]
    assert r.acks[0].caused == ["start"]


def test_commands_and_edges_are_taken_in_time_order():
    t = table(Settings(mode="shot", shot=ShotSettings(preflop=10)))
    r = t.feed([Command(1.5, "extend", id="e", sender="f"), Edge(1.0, "action", True),
                Command(2.0, "pause", id="p", sender="f")], now=2.5)
    assert names(r) == ["start", "extend", "pause"]
    assert [a.command.id for a in r.acks] == ["e", "p"]
    assert r.acks[0].caused == ["extended"]


def test_bet_command_sets_or_toggles():
    t = table()
    r = t.feed([Command(1.0, "bet", id="1", sender="a")], now=1.0)
    assert r.state.facing_bet is True
    r = t.feed([Command(2.0, "bet", id="2", sender="a", facing_bet=True)], now=2.0)
    assert r.acks[0].ignored == "the player is already facing a bet"


def test_stuck_button_is_a_typed_fault():
    t = table()
    r = t.feed([Edge(0.0, "action", True)], now=11.0)
    assert r.faults == (StuckButton("action", 10.0),)
    r = t.feed([Edge(12.0, "action", False)], now=12.0)
    assert r.faults == ()


def test_street_tap_and_hold_in_shot_mode():
    t = table(Settings(mode="shot"))
    r = t.feed(tap("street", 1.0), now=1.2)
    assert [(i.event.NAME, i.event.t) for i in r.inputs] == [("street", 1.0)]
    r = t.feed([Edge(3.0, "street", True)], now=5.5)
    assert names(r) == ["street", "hand"] and r.state.street == "preflop"


@given(st.lists(st.tuples(st.floats(0, 5), st.sampled_from(["floor", "action", "bet"]), st.booleans()),
                max_size=30),
       st.lists(st.floats(0, 6), min_size=1, max_size=6))
@hsettings(max_examples=150, deadline=None)
def test_batching_by_the_loop_does_not_change_what_is_ruled(edges, wakes):
    """However late or often the loop wakes, the same inputs rule the same way (given the grace)."""
    edges = [Edge(t, b, p) for t, b, p in sorted(edges)]
    end = 40.0

    def run(nows):
        t = table()
        out, i = [], 0
        for now in sorted(nows) + [end]:
            batch = [e for e in edges[i:] if e.t <= now]
            i += len(batch)
            r = t.feed(batch, now)
            out += [o.record() for o in r.outputs]
        return out

    assert run(wakes) == run([e.t for e in edges])


# -- issue 11: the floor's minimum press time and the dealer's gestures ----------------


def test_a_jack_short_on_the_floor_button_calls_no_clock():
    t = table(floor_min_press=0.04)
    r = t.feed([Edge(1.0, "floor", True), Edge(1.012, "floor", False), Edge(1.013, "floor", True),
                Edge(1.02, "floor", False)], now=1.5)
    assert r.inputs == [] and r.state.phase == "idle"


def test_a_floor_call_held_past_the_minimum_is_dated_at_its_press_edge():
    t = table(floor_min_press=0.04)
    r = t.feed([Edge(1.0, "floor", True)], now=1.03)
    assert r.inputs == []  # not yet known to be a press
    r = t.feed([Edge(1.1, "floor", False)], now=1.1)
    assert [(i.event.NAME, i.event.t) for i in r.inputs] == [("call", 1.0)]
    assert r.outputs[0].record() == {"t": 1.0, "type": "start", "seconds": 2}


def test_a_floor_pause_inside_the_tie_window_holds_the_ruling_until_it_is_confirmed():
    t = table(floor_min_press=0.04)
    t.feed(tap("floor", 0.0), now=0.2)
    # the clock reaches 0 at 2.0, the tie window closes at 2.25; the floor presses at 2.24
    r = t.feed([Edge(2.24, "floor", True)], now=2.26)
    assert not [o for o in r.outputs if isinstance(o, Decision)]  # the ruling waits for the press
    r = t.feed([], now=2.29)
    assert [(i.event.NAME, i.event.t) for i in r.inputs] == [("pause", 2.24)]
    assert r.state.phase == "paused"


SHOT = Settings(mode="shot", shot=ShotSettings(preflop=10, extension=30, undo_seconds=5))


def test_an_extension_pressed_before_the_window_closes_counts_though_released_after():
    t = table(SHOT)
    t.feed(tap("action", 0.0), now=0.2)  # start
    r = t.feed([Edge(10.4, "extend", True)], now=11.0)  # still down past the tie window's end (10.5)
    assert not [o for o in r.outputs if isinstance(o, Decision)]
    r = t.feed([Edge(11.2, "extend", False)], now=11.3)
    assert [(i.event.NAME, i.event.t) for i in r.inputs] == [("extend", 10.4)]
    assert r.outputs[0].record() == {"t": 10.4, "type": "extended", "seconds": 30, "remaining": 29.6}


def test_the_dealer_holds_bet_to_pause_while_a_bet_is_counted_and_again_to_resume():
    t = table(SHOT, hold=1.0)
    t.feed(tap("action", 0.0), now=0.2)
    r = t.feed([Edge(3.0, "bet", True)], now=4.1)
    assert [(i.event.NAME, i.event.t) for i in r.inputs] == [("pause", 4.0)]
    assert r.outputs[0].record() == {"t": 4, "type": "pause", "remaining": 6}
    r = t.feed([Edge(4.5, "bet", False), Edge(20.0, "bet", True)], now=21.2)
    assert [(i.event.NAME, i.event.t) for i in r.inputs] == [("resume", 21.0)]
    assert r.state.facing_bet is True  # the holds never toggled the bet


def test_the_dealer_holds_action_when_nobody_is_left_to_act_and_the_next_clock_ends_quietly():
    t = table(SHOT, hold=1.0)
    t.feed(tap("action", 0.0), now=0.2)  # start
    r = t.feed([Edge(4.0, "action", True)], now=5.5)  # the all-in is called
    assert names(r) == ["action", "stop"]
    assert [o.record() for o in r.outputs if isinstance(o, Decision)] == [
        {"t": 4, "type": "decision", "outcome": "acted", "remaining": 6, "at_zero": False},
        {"t": 5, "type": "decision", "outcome": "cancelled", "by": "stop"}]
    assert r.state.phase == "idle"


def test_the_dealer_holds_extend_to_take_back_a_mis_pressed_chip():
    t = table(SHOT, hold=1.0)
    t.feed(tap("action", 0.0), now=0.2)
    t.feed(tap("extend", 1.0) + tap("extend", 1.5), now=1.7)
    r = t.feed([Edge(2.0, "extend", True), Edge(3.2, "extend", False)], now=3.3)
    assert names(r) == ["undo"]
    assert r.state.extensions == 1 and r.outputs[0].record()["remaining"] == 37  # 10 + 30 - 3


def test_the_floor_holds_its_button_at_an_idle_shot_table_to_give_chips_back():
    t = table(Settings(mode="shot", shot=ShotSettings(allowance=3)), hold=1.0)
    r = t.feed([Edge(1.0, "floor", True), Edge(2.5, "floor", False)], now=2.6)
    assert names(r) == ["reset_chips"]
    assert r.outputs[0].record() == {"t": 2, "type": "chips_reset", "allowance": 3}


def test_the_floors_hold_in_shot_mode_is_a_cancel_that_shows():
    t = table(SHOT, hold=1.0)
    t.feed(tap("action", 0.0), now=0.2)
    r = t.feed([Edge(3.0, "floor", True)], now=4.2)
    assert names(r) == ["pause", "cancel"]
    assert r.outputs[-1].record() == {"t": 4, "type": "decision", "outcome": "cancelled", "by": "floor"}


def test_the_table_says_which_held_button_will_do_what():
    t = table(SHOT, hold=1.0)
    t.feed(tap("action", 0.0), now=0.2)
    r = t.feed([Edge(3.0, "bet", True), Edge(3.1, "extend", True)], now=3.5)
    assert [(h.button, h.since, h.event) for h in r.holds] == [("bet", 3.0, "pause"), ("extend", 3.1, "undo")]
    r = t.feed([Edge(3.6, "extend", False)], now=3.7)
    assert [h.button for h in r.holds] == ["bet"]
    r = t.feed([], now=4.1)  # the hold is done: nothing left to fill
    assert r.holds == ()
    r = t.feed([Edge(5, "street", True)], now=5.2)  # a street press: its hold means a new hand
    assert [h.event for h in r.holds] == ["hand"]


def test_an_input_is_never_moved_by_the_engines_microsecond_rounding():
    # The engine keeps whole microseconds; an edge a fraction of one before its clock is not late.
    t = table()
    t.feed([], now=0.9999996)  # the engine's clock: 1.000000 s
    r = t.feed([Edge(0.9999996, "floor", True)], now=1.1)
    assert r.inputs[0].event.t == 0.9999996


def test_a_floor_tablet_names_the_seat_of_an_extension_and_gives_chips_back():
    from shotclock.core.wire import CommandRequest, RecentIds, check_command
    from shotclock.shell.network import make_command

    def command(name, n, **fields):
        payload = json.dumps({"id": f"c{n}", "name": name, "sender": "floor", "sent_ms": 1000, **fields}).encode()
        request = check_command(payload, now=n, recent=recent)
        assert isinstance(request, CommandRequest), request
        return make_command(float(n), request)

    recent = RecentIds(60)
    t = table(Settings(mode="shot", shot=ShotSettings(allowance=1)))
    r = t.feed([command("start", 1), command("extend", 2, seat=7), command("extend", 3, seat=7)], now=3.5)
    assert [a.ignored for a in r.acks] == [None, None, "seat 7 has used all 1 of its extension chips"]
    r = t.feed([command("undo", 4), command("last_action", 5), command("reset_chips", 6)], now=6.5)
    assert [a.caused for a in r.acks] == [["undo"], ["decision"], ["chips_reset"]]


@pytest.mark.parametrize("fields", [{"name": "extend", "seat": 0}, {"name": "extend", "seat": 11},
                                    {"name": "extend", "seat": True}, {"name": "pause", "seat": 3}])
def test_a_bad_seat_in_a_floor_command_is_refused_with_the_reason(fields):
    from shotclock.core.wire import Refusal, RecentIds, check_command

    payload = json.dumps({"id": "x", "sender": "floor", "sent_ms": 1000, **fields}).encode()
    refusal = check_command(payload, now=1, recent=RecentIds(60))
    assert isinstance(refusal, Refusal) and "'seat'" in refusal.detail


def test_clock_mode_street_hold_shows_no_hold_bar_while_the_floors_clock_runs():
    # QA finding 4: "Hold: NEW HAND" filled up on a running clock, then the engine ignored the hand.
    t = table()
    t.feed(tap("floor", 0.0), now=0.2)
    t.feed([Edge(0.5, "street", True)], now=0.6)
    assert t.holds() == ()
    idle = table()
    idle.feed([Edge(0.5, "street", True)], now=0.6)
    assert [h.event for h in idle.holds()] == ["hand"]  # idle: the same hold starts a new hand


def test_the_panels_hold_words_name_only_holds_the_engine_takes():
    from shotclock.core.gestures import hold_meanings

    assert hold_meanings("street", "clock") == ["hand"]  # idle only
    assert hold_meanings("floor", "clock") == ["cancel"]
    assert hold_meanings("extend", "shot") == ["undo"]
