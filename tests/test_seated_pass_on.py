"""SeatedEngine._pass_on (a decision on a shot clock, written out for speed) gives what the general path gives.

Random seat-aware sessions run twice, once with the written-out path and once through the engine's transition
table; every output line, every wake-up time and the state after each event must be the same.
"""

from hypothesis import given, settings as hsettings, strategies as st

from shotclock.core import events as ev
from shotclock.core.seated import SeatedEngine
from shotclock.core.settings import ClockSettings, SeatSettings, Settings, ShotSettings
from shotclock.errors import EventError

# Decisions, clocks, pauses and extensions often; the floor's seat commands now and then.
COMMON = ["action"] * 6 + ["fold"] * 3 + ["all_in", "start", "start", "start", "hand", "hand", "street", "pause",
                                          "resume", "resume", "extend", "undo", "bet", "last_action", "stop", "cancel"]
RARE = ["seat", "empty", "button", "rename", "top_up", "turn_back", "turn_forward", "reset_chips"]


def _event(t: float, name: str, seat: int, flag: bool) -> ev.Event:
    cls = ev.EVENT_TYPES[name]
    if name == "bet":
        return cls(t, flag)
    if name in ("seat", "empty", "button"):
        return cls(t, seat)
    if name == "rename":
        return cls(t, seat, "Ana")
    if name == "top_up":
        return cls(t, 1 if flag else None, 7.5)
    if name in ("fold", "all_in", "extend") and flag:
        return cls(t, seat)  # a mark on a named seat (maybe not the one on turn)
    return cls(t)


steps = st.lists(st.tuples(st.sampled_from([0, 0, 0.25, 0.7, 3, 12.5, 40]), st.sampled_from(COMMON + RARE),
                           st.integers(1, 6), st.booleans()), max_size=60)
tables = st.builds(
    lambda count, bank, allowance, countdown, tie, preflop: Settings(
        mode="shot", shot=ShotSettings(preflop=preflop, flop=9.5, turn=10, river=12, countdown=countdown,
                                       extension=5, tie_window=tie, allowance=allowance),
        seats=SeatSettings(track=True, count=count, bank=bank)),
    st.integers(2, 6), st.sampled_from([0, 6, 20.5]), st.sampled_from([0, 2]), st.sampled_from([0, 3]),
    st.sampled_from([0, 0.25]), st.sampled_from([3, 8]))  # 3 s: a countdown as long as the clock beeps at its start


def _session(settings: Settings, items, passes_on: bool) -> list[str]:
    engine = SeatedEngine(settings)
    engine._passes_on = passes_on
    lines, t = [], 0.0
    for dt, name, seat, flag in items:
        t = round(t + dt, 6)
        try:
            lines += [o.to_json() for o in engine.handle(_event(t, name, seat, flag))]
        except EventError as exc:
            lines.append(f"refused: {exc}")
        lines += [repr(engine.next_wake()), repr(engine.state)]
    while (wake := engine.next_wake()) is not None:
        lines += [o.to_json() for o in engine.advance(wake)]
    return lines + [repr(engine.state)]


def test_a_shot_table_with_seats_takes_the_written_out_path():
    assert SeatedEngine(Settings(mode="shot", seats=SeatSettings(track=True)))._passes_on
    assert not SeatedEngine(Settings(mode="clock", clock=ClockSettings(), seats=SeatSettings(track=True)))._passes_on


def test_a_beep_due_at_the_decisions_own_time_comes_before_it():
    """A 5 s shot clock with a 5 s countdown beeps 5 at its start; a decision at that same time (the written-out
    path) sounds it first, as the engine does for any event."""
    engine = SeatedEngine(Settings(mode="shot", shot=ShotSettings(preflop=5, countdown=5),
                                   seats=SeatSettings(track=True, count=3)))
    engine.handle(ev.Hand(0))
    started = engine.handle(ev.Start(0))
    out = [o.to_json() for o in engine.handle(ev.Action(0))]
    assert [o.TYPE for o in started] == ["start"]
    assert out[0] == '{"t":0,"type":"beep","remaining":5}'
    assert [line.split('"type":"')[1].split('"')[0] for line in out] == ["beep", "decision", "turn", "start"]


@given(tables, steps)
@hsettings(max_examples=300, deadline=None)
def test_the_written_out_decision_gives_what_the_transition_table_gives(settings, items):
    assert _session(settings, items, True) == _session(settings, items, False)
