"""The clock engine, rule by rule: sequences of events in, the whole output out."""

import pytest

from shotclock.core.engine import IDLE, PAUSED, RUNNING, Engine
from shotclock.core.events import Action, Bet, Call, Pause, Resume
from shotclock.core.settings import ClockSettings, Settings
from shotclock.errors import EventError

from conftest import run

BEEPS_AT_25 = [{"t": 25 + i, "type": "beep", "remaining": 5 - i} for i in range(6)]


def test_issue_example_hand_dead_after_tie_window():
    assert run([(0, "call", {"facing_bet": True})]) == [
        {"t": 0, "type": "start", "seconds": 30},
        *BEEPS_AT_25,
        {"t": 30.5, "type": "decision", "outcome": "hand_dead"},
    ]


def test_no_bet_is_a_check():
    out = run([(0, "call", {"facing_bet": False})])
    assert out[-1] == {"t": 30.5, "type": "decision", "outcome": "check"}


def test_call_without_facing_bet_uses_current_state_initially_false():
    assert run([(0, "call")])[-1]["outcome"] == "check"
    assert run([(0, "bet", {"facing_bet": True}), (1, "call")])[-1]["outcome"] == "hand_dead"


def test_action_in_time_reports_remaining():
    out = run([(0, "call", {"facing_bet": True}), (12.25, "action")])
    assert out == [
        {"t": 0, "type": "start", "seconds": 30},
        {"t": 12.25, "type": "decision", "outcome": "acted", "remaining": 17.75, "at_zero": False},
    ]


@pytest.mark.parametrize("t", [30, 30.2, 30.5])
def test_action_at_zero_or_inside_tie_window_goes_to_the_player(t):
    out = run([(0, "call", {"facing_bet": True}), (t, "action")])
    assert out[-1] == {"t": t, "type": "decision", "outcome": "acted", "remaining": 0, "at_zero": True}
    assert sum(1 for r in out if r["type"] == "decision") == 1


def test_action_just_after_tie_window_is_too_late():
    out = run([(0, "call", {"facing_bet": True}), (30.500001, "action")])
    assert out[-2] == {"t": 30.5, "type": "decision", "outcome": "hand_dead"}
    assert out[-1]["type"] == "ignored" and out[-1]["event"] == "action"
    assert "after the ruling" in out[-1]["reason"]


def test_tie_window_is_exact_with_inexact_decimal_times():
    # 0.1 + 30 + 0.5 is not 30.6 in binary floating point; the engine works in microseconds.
    out = run([(0.1, "call", {"facing_bet": True}), (30.6, "action")])
    assert out[-1]["outcome"] == "acted" and out[-1]["at_zero"] is True


def test_beep_and_action_at_the_same_instant_beep_first():
    out = run([(0, "call"), (27, "action")])
    assert [r["type"] for r in out[-2:]] == ["beep", "decision"]
    assert out[-2] == {"t": 27, "type": "beep", "remaining": 3}


def test_second_call_never_restarts_a_running_clock():
    out = run([(0, "call", {"facing_bet": True}), (10, "call")])
    assert out[1] == {"t": 10, "type": "ignored", "event": "call", "reason": "a clock is already running"}
    assert out[-1] == {"t": 30.5, "type": "decision", "outcome": "hand_dead"}


def test_bet_change_during_clock_changes_the_ruling():
    out = run([(0, "call", {"facing_bet": False}), (5, "bet", {"facing_bet": True})])
    assert out[-1]["outcome"] == "hand_dead"
    out = run([(0, "call", {"facing_bet": True}), (29.9, "bet", {"facing_bet": False})])
    assert out[-1]["outcome"] == "check"


def test_bet_that_changes_nothing_is_ignored():
    out = run([(0, "bet", {"facing_bet": False})])
    assert out == [{"t": 0, "type": "ignored", "event": "bet", "reason": "the player is already not facing a bet"}]


def test_action_while_paused_counts_with_frozen_remaining():
    out = run([(0, "call", {"facing_bet": True}), (10, "pause"), (100, "action")])
    assert out == [
        {"t": 0, "type": "start", "seconds": 30},
        {"t": 10, "type": "pause", "remaining": 20},
        {"t": 100, "type": "decision", "outcome": "acted", "remaining": 20, "at_zero": False},
    ]


def test_shot_action_while_paused_rules_the_frozen_remaining_and_starts_the_next_clock(shot):
    out = run([(0, "start"), (2.5, "pause"), (60, "action")], shot)
    assert out[2] == {"t": 60, "type": "decision", "outcome": "acted", "remaining": 12.5, "at_zero": False}
    assert out[3] == {"t": 60, "type": "start", "seconds": 15, "street": "preflop"}


def test_a_beep_due_at_an_events_own_time_sounds_before_the_next_event_at_that_time():
    """A 5 s clock with a 5 s countdown beeps 5 at its start; a second event at that same time finds the beep
    first (the engine's clock is already there: the timers must still be looked at)."""
    five = Settings(mode="clock", clock=ClockSettings(seconds=5, countdown=5))
    out = run([(0, "call"), (0, "pause"), (10, "resume"), (11, "action")], five)
    assert [(r["t"], r["type"]) for r in out] == [(0, "start"), (0, "beep"), (0, "pause"), (10, "resume"),
                                                  (11, "beep"), (11, "decision")]
    out = run([(0, "call"), (0, "call")], five)
    assert [r["type"] for r in out[:3]] == ["start", "beep", "ignored"]


def test_a_beep_due_at_an_undo_sounds_before_an_action_at_the_same_time(shot):
    out = run([(0, "start"), (12, "extend"), (12, "undo"), (12, "action")], shot)
    at = [r["type"] for r in out].index("undo")
    assert [r["type"] for r in out[at:at + 4]] == ["undo", "beep", "decision", "start"]
    assert out[at + 1] == {"t": 12, "type": "beep", "remaining": 3}


def test_pause_in_countdown_shifts_the_remaining_beeps():
    out = run([(0, "call", {"facing_bet": True}), (26.5, "pause"), (40, "resume")])
    assert out == [
        {"t": 0, "type": "start", "seconds": 30},
        {"t": 25, "type": "beep", "remaining": 5},
        {"t": 26, "type": "beep", "remaining": 4},
        {"t": 26.5, "type": "pause", "remaining": 3.5},
        {"t": 40, "type": "resume", "remaining": 3.5},
        {"t": 40.5, "type": "beep", "remaining": 3},
        {"t": 41.5, "type": "beep", "remaining": 2},
        {"t": 42.5, "type": "beep", "remaining": 1},
        {"t": 43.5, "type": "beep", "remaining": 0},
        {"t": 44, "type": "decision", "outcome": "hand_dead"},
    ]


def test_pause_exactly_on_a_beep_does_not_repeat_it():
    out = run([(0, "call"), (27, "pause"), (50, "resume")])
    beeps = [r["remaining"] for r in out if r["type"] == "beep"]
    assert beeps == [5, 4, 3, 2, 1, 0]
    assert out[-1] == {"t": 53.5, "type": "decision", "outcome": "check"}


def test_pause_and_resume_when_not_applicable_are_ignored():
    out = run([(0, "call"), (1, "resume"), (2, "pause"), (3, "pause"), (4, "cancel")])
    reasons = [(r["event"], r["reason"]) for r in out if r["type"] == "ignored"]
    assert reasons == [("resume", "the clock is not paused"), ("pause", "the clock is already paused")]
    assert out[-1] == {"t": 4, "type": "decision", "outcome": "cancelled", "by": "floor"}


@pytest.mark.parametrize("stopper", [(10, "cancel")])
def test_cancel_rules_nothing(stopper):
    out = run([(0, "call", {"facing_bet": True}), stopper])
    assert out[-1] == {"t": 10, "type": "decision", "outcome": "cancelled", "by": "floor"}
    assert not [r for r in out if r["type"] == "beep"]


def test_action_with_no_clock_is_ignored():
    assert run([(3, "action")]) == [{"t": 3, "type": "ignored", "event": "action", "reason": "no clock is running"}]


def test_events_of_the_other_mode_are_ignored(shot):
    out = run([(0, "extend"), (1, "undo"), (2, "start")])
    assert [r["type"] for r in out] == ["ignored"] * 3
    assert "shot mode" in out[0]["reason"]
    out = run([(0, "call"), (1, "cancel")], shot)
    assert [r["type"] for r in out] == ["ignored"] * 2
    assert "clock mode" in out[0]["reason"]


def test_end_stops_time_at_t():
    out = run([(0, "call"), (27, "end")])
    assert out[-1] == {"t": 27, "type": "beep", "remaining": 3}


def test_end_at_the_exact_ruling_time_includes_it():
    out = run([(0, "call"), (30.5, "end")])
    assert out[-1]["type"] == "decision"


def test_paused_clock_at_end_of_input_stays_paused():
    out = run([(0, "call"), (3, "pause")])
    assert out[-1] == {"t": 3, "type": "pause", "remaining": 27}


def test_short_clock_only_beeps_what_fits():
    out = run([(0, "call")], Settings(clock=ClockSettings(seconds=3, countdown=2)))
    assert [(r["t"], r["remaining"]) for r in out if r["type"] == "beep"] == [(1, 2), (2, 1), (3, 0)]


def test_zero_tie_window_beep_zero_then_ruling_same_instant():
    out = run([(0, "call")], Settings(clock=ClockSettings(tie_window=0)))
    assert out[-2:] == [{"t": 30, "type": "beep", "remaining": 0},
                        {"t": 30, "type": "decision", "outcome": "check"}]


# -- shot mode -------------------------------------------------------------------


def test_shot_start_uses_street_time_and_names_street(shot):
    out = run([(0, "start"), (1, "action")], shot)
    assert out[0] == {"t": 0, "type": "start", "seconds": 15, "street": "preflop"}


def test_shot_action_starts_next_players_clock_at_once(shot):
    out = run([(0, "start"), (4, "action"), (6, "stop")], shot)
    assert out == [
        {"t": 0, "type": "start", "seconds": 15, "street": "preflop"},
        {"t": 4, "type": "decision", "outcome": "acted", "remaining": 11, "at_zero": False},
        {"t": 4, "type": "start", "seconds": 15, "street": "preflop"},
        {"t": 6, "type": "decision", "outcome": "cancelled", "by": "stop"},
    ]


def test_per_street_times(shot):
    out = run([(0, "street"), (1, "start"), (2, "street"), (3, "start"), (4, "street"), (5, "start"),
               (6, "stop")], shot)
    starts = [(r["street"], r["seconds"]) for r in out if r["type"] == "start"]
    assert starts == [("flop", 20), ("turn", 25), ("river", 30)]


def test_street_after_river_is_refused(shot):
    out = run([(0, "street"), (1, "street"), (2, "street"), (3, "street")], shot)
    assert out == [{"t": 3, "type": "ignored", "event": "street",
                    "reason": "there is no street after the river; start a new hand"}]


def test_new_hand_faces_the_blinds_new_street_does_not(shot):
    # preflop faces the blinds: expiry kills the hand
    assert run([(0, "start")], shot)[-1]["outcome"] == "hand_dead"
    # after a street, no bet: expiry is a check
    assert run([(0, "street"), (1, "start")], shot)[-1]["outcome"] == "check"
    assert run([(0, "street"), (1, "hand"), (2, "start")], shot)[-1]["outcome"] == "hand_dead"


@pytest.mark.parametrize("interrupt", ["hand", "street", "stop"])
def test_shot_clock_cancelled_by_hand_street_or_stop(shot, interrupt):
    out = run([(0, "start"), (5, interrupt)], shot)
    assert out[-1] == {"t": 5, "type": "decision", "outcome": "cancelled", "by": interrupt}
    assert [r["outcome"] for r in out if r["type"] == "decision"] == ["cancelled"]


def test_floor_cancel_in_shot_mode_says_by_floor(shot):
    out = run([(0, "start"), (5, "pause"), (6, "cancel")], shot)
    assert out[-1] == {"t": 6, "type": "decision", "outcome": "cancelled", "by": "floor"}


def test_last_action_rules_acted_and_starts_no_new_clock(shot):
    out = run([(0, "start"), (4, "action"), (9, "last_action"), (100, "end")], shot)
    assert out == [
        {"t": 0, "type": "start", "seconds": 15, "street": "preflop"},
        {"t": 4, "type": "decision", "outcome": "acted", "remaining": 11, "at_zero": False},
        {"t": 4, "type": "start", "seconds": 15, "street": "preflop"},
        {"t": 9, "type": "decision", "outcome": "acted", "remaining": 10, "at_zero": False},
    ]


def test_all_in_and_call_then_the_runout_starts_no_clock(shot):
    # all-in (action), the call is the last action; the dealer deals the flop, turn and river
    out = run([(0, "start"), (3, "action"), (8, "last_action"), (10, "street"), (12, "street"), (14, "street"),
               (16, "hand"), (200, "end")], shot)
    assert [r["type"] for r in out] == ["start", "decision", "start", "decision"]
    assert not [r for r in out if r.get("outcome") == "cancelled"]


def test_last_action_in_clock_mode_is_an_action():
    out = run([(0, "call"), (12, "last_action")])
    assert out[-1] == {"t": 12, "type": "decision", "outcome": "acted", "remaining": 18, "at_zero": False}


def test_clock_mode_new_hand_resets_to_facing_the_blinds_and_a_street_to_no_bet():
    assert run([(0, "hand"), (1, "call")])[-1]["outcome"] == "hand_dead"
    assert run([(0, "bet", {"facing_bet": True}), (1, "street"), (2, "call")])[-1]["outcome"] == "check"
    assert run([(0, "hand"), (1, "street"), (2, "hand"), (3, "call")])[-1]["outcome"] == "hand_dead"


def test_clock_mode_street_never_ends_the_floors_clock():
    out = run([(0, "call", {"facing_bet": True}), (5, "street"), (6, "hand")])
    assert [r["event"] for r in out if r["type"] == "ignored"] == ["street", "hand"]
    assert "floor's cancel" in out[1]["reason"]
    assert out[-1] == {"t": 30.5, "type": "decision", "outcome": "hand_dead"}


# -- extension limit, allowance, undo --------------------------------------------


def _shot(**shot):
    from shotclock.core.settings import ShotSettings

    return Settings(mode="shot", shot=ShotSettings(**{"preflop": 15, **shot}))


def test_extension_limit_per_decision_refuses_the_next_chip():
    out = run([(0, "start"), (1, "extend"), (2, "extend"), (3, "extend"), (4, "stop")], _shot(extension_limit=2))
    assert [r["type"] for r in out[1:4]] == ["extended", "extended", "ignored"]
    assert "its 2 extensions" in out[3]["reason"]


def test_extension_limit_counts_per_decision_not_per_hand():
    out = run([(0, "start"), (1, "extend"), (2, "action"), (3, "extend"), (4, "stop")], _shot(extension_limit=1))
    assert [r["type"] for r in out if r["type"] in ("extended", "ignored")] == ["extended", "extended"]


def test_no_extension_limit_when_zero():
    out = run([(0, "start")] + [(1 + i * 0.1, "extend") for i in range(12)] + [(5, "stop")],
              _shot(extension_limit=0))
    assert sum(r["type"] == "extended" for r in out) == 12


def test_allowance_per_seat_and_reset_by_the_floor():
    settings = _shot(allowance=2, extension_limit=0)
    out = run([(0, "start"), (1, "extend", {"seat": 3}), (2, "extend", {"seat": 3}), (3, "extend", {"seat": 3}),
               (4, "extend", {"seat": 5}), (5, "stop"), (6, "hand"), (7, "start"), (8, "extend", {"seat": 3}),
               (9, "stop"), (10, "reset_chips"), (11, "start"), (12, "extend", {"seat": 3}), (13, "stop")],
              settings)
    chips = [(r["t"], r.get("chips_left"), r["type"]) for r in out if r["type"] in ("extended", "ignored")]
    assert chips == [(1, 1, "extended"), (2, 0, "extended"), (3, None, "ignored"), (4, 1, "extended"),
                     (8, None, "ignored"), (12, 1, "extended")]
    assert {"t": 10, "type": "chips_reset", "allowance": 2} in out
    assert "seat 3 has used all 2" in out[3]["reason"]


def test_allowance_given_back_at_every_hand_when_so_configured():
    settings = _shot(allowance=1, allowance_reset="hand")
    out = run([(0, "start"), (1, "extend", {"seat": 2}), (2, "stop"), (3, "hand"), (4, "start"),
               (5, "extend", {"seat": 2}), (6, "stop")], settings)
    assert [r["chips_left"] for r in out if r["type"] == "extended"] == [0, 0]


def test_a_seat_restored_with_more_chips_used_than_a_lowered_allowance_gets_none_and_is_shown_none():
    # Issue 17: 5 chips used under an allowance of 6, the allowance lowered to 3, the device restarted:
    # the seat had -2 chips left, and "== 0" let a chip through.
    from shotclock.core.events import Extend, Start

    engine = Engine(_shot(allowance=3, extension_limit=0))
    engine.restore_chips({4: 5})
    engine.handle(Start(0))
    out = engine.handle(Extend(1, seat=4))
    assert [o.record()["type"] for o in out] == ["ignored"]
    assert "seat 4 has used all 3" in out[0].record()["reason"]
    assert engine.extensions == 0 and engine.state.deadline == 15
    out = engine.handle(Extend(2, seat=5))  # another seat still has its chips
    assert out[0].record()["chips_left"] == 2


def test_reset_chips_without_an_allowance_is_ignored(shot):
    out = run([(0, "reset_chips")], shot)
    assert out[0]["type"] == "ignored" and "shot.allowance" in out[0]["reason"]


def test_undo_takes_back_the_last_extension_within_undo_seconds():
    out = run([(0, "start"), (2, "extend"), (3, "extend"), (5, "undo"), (6, "action"), (7, "stop")],
              _shot(undo_seconds=5))
    assert out[3] == {"t": 5, "type": "undo", "seconds": 30, "remaining": 40}
    assert out[4] == {"t": 6, "type": "decision", "outcome": "acted", "remaining": 39, "at_zero": False}


def test_undo_too_late_or_with_nothing_to_undo_is_ignored():
    out = run([(0, "start"), (1, "undo"), (2, "extend"), (7.5, "undo"), (8, "stop")], _shot(undo_seconds=5))
    reasons = [r["reason"] for r in out if r["type"] == "ignored"]
    assert reasons[0] == "this decision has no extension to take back"
    assert reasons[1].startswith("the last extension was 5.5 s ago")


def test_undo_never_takes_the_clock_past_zero():
    # the chip came at 14.9 with 0.1 s left; taking it back at 16 would rule retroactively
    out = run([(0, "start"), (14.9, "extend"), (16, "undo"), (17, "last_action")], _shot())
    assert out[-2]["type"] == "ignored" and "no time" in out[-2]["reason"]
    assert out[-1]["outcome"] == "acted" and out[-1]["at_zero"] is False


def test_undo_restores_the_countdown_of_the_shorter_clock():
    out = run([(0, "start"), (8, "extend"), (9, "undo")], _shot())
    beeps = [(r["t"], r["remaining"]) for r in out if r["type"] == "beep"]
    assert beeps == [(10, 5), (11, 4), (12, 3), (13, 2), (14, 1), (15, 0)]
    assert out[-1] == {"t": 15.5, "type": "decision", "outcome": "hand_dead"}


def test_undo_gives_the_seat_its_chip_back():
    out = run([(0, "start"), (1, "extend", {"seat": 4}), (2, "undo"), (3, "extend", {"seat": 4}), (4, "stop")],
              _shot(allowance=1))
    assert [r.get("chips_left") for r in out if r["type"] == "extended"] == [0, 0]


def test_extensions_stack_in_one_decision(shot):
    out = run([(0, "start"), (5, "extend"), (6, "extend"), (70, "action"), (71, "stop")], shot)
    assert out[1] == {"t": 5, "type": "extended", "seconds": 30, "remaining": 40}
    assert out[2] == {"t": 6, "type": "extended", "seconds": 30, "remaining": 69}
    decisions = [r for r in out if r["type"] == "decision"]
    assert decisions[0] == {"t": 70, "type": "decision", "outcome": "acted", "remaining": 5, "at_zero": False}


def test_extension_restarts_the_countdown(shot):
    out = run([(0, "start"), (12.5, "extend")], shot)
    beeps = [(r["t"], r["remaining"]) for r in out if r["type"] == "beep"]
    assert beeps == [(10, 5), (11, 4), (12, 3), (40, 5), (41, 4), (42, 3), (43, 2), (44, 1), (45, 0)]
    assert out[-1] == {"t": 45.5, "type": "decision", "outcome": "hand_dead"}


def test_extension_inside_tie_window_counts_after_it_does_not(shot):
    out = run([(0, "start"), (15.5, "extend")], shot)
    assert out[7] == {"t": 15.5, "type": "extended", "seconds": 30, "remaining": 29.5}
    out = run([(0, "start"), (15.6, "extend")], shot)
    assert out[-1]["type"] == "ignored" and "after the tie window" in out[-1]["reason"]


def test_extension_while_paused_adds_to_frozen_time(shot):
    out = run([(0, "start"), (5, "pause"), (6, "extend"), (7, "resume"), (8, "action")], shot)
    assert out[2] == {"t": 6, "type": "extended", "seconds": 30, "remaining": 40}
    assert out[3] == {"t": 7, "type": "resume", "remaining": 40}
    assert out[4]["remaining"] == 39


# -- the engine object -----------------------------------------------------------


def test_event_before_the_engines_clock_raises_and_leaves_state_untouched():
    engine = Engine(Settings())
    engine.handle(Call(10))
    before = engine.state
    with pytest.raises(EventError, match="before the engine's clock"):
        engine.handle(Action(9))
    assert engine.state == before


def test_next_wake_follows_beeps_then_ruling():
    engine = Engine(Settings())
    assert engine.next_wake() is None
    engine.handle(Call(0))
    wakes = []
    while (w := engine.next_wake()) is not None:
        wakes.append(w)
        engine.advance(w)
    assert wakes == [25, 26, 27, 28, 29, 30, 30.5]


def test_snapshot_phases_and_remaining():
    engine = Engine(Settings())
    engine.handle(Bet(0, True))
    engine.handle(Call(1))
    snap = engine.state
    assert (snap.phase, snap.remaining(11), snap.consequence) == (RUNNING, 20, "hand_dead")
    engine.handle(Pause(11))
    assert (engine.state.phase, engine.state.remaining(99)) == (PAUSED, 20)
    engine.handle(Resume(20))
    engine.handle(Action(25))
    assert engine.state.phase == IDLE and engine.state.last.outcome == "acted"


def test_restore_paused_never_rules_by_itself():
    engine = Engine(Settings())
    engine.restore_paused(100, remaining=12.5, facing_bet=True, street=None)
    assert engine.next_wake() is None and engine.advance(1000) == []
    engine.handle(Resume(1000))
    out = engine.advance(2000)
    assert out[-1].record() == {"t": 1013, "type": "decision", "outcome": "hand_dead"}


# -- waiting for an input still on its way (the device's edge grace) ---------------


def test_settle_holds_the_ruling_but_not_the_beeps():
    engine = Engine(Settings())
    engine.handle(Call(0))
    assert engine.next_wake(settle=0.001) == 25  # beeps do not wait
    engine.advance(30, settle=0.001)
    assert engine.next_wake(settle=0.001) == 30.501
    assert engine.advance(30.5005, settle=0.001) == []  # inside the grace: no ruling yet
    assert engine.now == 30.4995  # inputs dated from here on are still taken
    out = engine.advance(30.501, settle=0.001)
    assert [o.record() for o in out] == [{"t": 30.5, "type": "decision", "outcome": "check"}]


def test_an_action_dated_inside_the_window_that_arrives_during_the_grace_counts():
    engine = Engine(Settings())
    engine.handle(Call(0))
    engine.advance(30.5004, settle=0.001)  # the loop woke; the press at 30.4999 is still on its way
    out = engine.handle(Action(30.4999))
    assert out[-1].record() == {"t": 30.4999, "type": "decision", "outcome": "acted", "remaining": 0,
                                "at_zero": True}


def test_the_state_machine_is_keyed_by_phase_and_event_class():
    # h11 style: each row of the table maps an event class to a transition; the targets are phases.
    from shotclock.core.engine import INTERNAL, TRANSITIONS, Phase
    from shotclock.core.events import EVENT_TYPES, Event

    for mode, phases in TRANSITIONS.items():
        assert set(phases) == set(Phase)
        engine = Engine(Settings(mode=mode))
        for row in phases.values():
            for event, transition in row.items():
                assert issubclass(event, Event) and isinstance(transition.to, Phase)
                assert callable(getattr(engine, transition.method))
                assert event.NAME in INTERNAL or EVENT_TYPES[event.NAME] is event  # a replay line names the same class
    assert "expire" not in EVENT_TYPES  # the engine's own timer is never an input


def test_a_phase_is_an_enum_that_reads_as_its_old_string():
    import json

    from shotclock.core.engine import Phase

    e = Engine(Settings())
    e.handle(Call(0))
    assert e.state.phase is Phase.RUNNING
    assert json.dumps({"phase": e.state.phase}) == '{"phase": "running"}' and f"{e.state.phase}" == "running"


def test_mode_only_events_come_from_the_table():
    from shotclock.core.engine import MODE_EVENTS

    assert MODE_EVENTS == {"clock": {"call"}, "shot": {"start", "stop", "extend", "undo", "reset_chips"}}
