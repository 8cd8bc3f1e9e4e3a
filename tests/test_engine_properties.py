"""Properties of the engine over random event sequences (hypothesis)."""

from hypothesis import given, settings as hsettings, strategies as st

from shotclock.core.events import EVENT_TYPES, RHYTHM_EVENTS
from shotclock.core.settings import ClockSettings, Settings, ShotSettings

from conftest import run

# The engine's own events: a level and hands per level are the table's (core/levels.py, tests/test_levels.py).
NAMES = [n for n in EVENT_TYPES if n not in ("end", "level", "hands")]


def sequences(names=NAMES):
    step = st.integers(min_value=0, max_value=40_000_000).map(lambda us: us / 1e6)  # 0-40 s in µs
    item = st.tuples(step, st.sampled_from(names), st.booleans())
    return st.lists(item, max_size=25).map(_to_events)


def _to_events(items):
    t, out = 0.0, []
    for dt, name, flag in items:
        t = round(t + dt, 6)
        fields = {"facing_bet": flag} if name in ("bet", "call") else {}
        out.append((t, name, fields))
    return out


MODES = st.sampled_from([
    Settings(mode="clock", clock=ClockSettings(seconds=10, countdown=3, tie_window=0.5)),
    Settings(mode="shot", shot=ShotSettings(preflop=8, flop=9, turn=10, river=12, countdown=4,
                                            extension=5, tie_window=0.25)),
])


def _clocks(records):
    """Split the records into clocks: each from a start to its decision (or the end)."""
    clocks, current = [], None
    for r in records:
        if r["type"] == "decision":
            assert current is not None, "a decision without a running clock"
            current.append(r)
            clocks.append(current)
            current = None
        if r["type"] == "start":
            assert current is None, "a clock started while another was running"
            current = [r]
        elif current is not None and r["type"] != "decision":
            current.append(r)
    return clocks, current


@given(sequences(), MODES)
@hsettings(max_examples=300, deadline=None)
def test_exactly_one_decision_per_clock_and_time_order(events, settings):
    records = run(events, settings)
    times = [r["t"] for r in records]
    assert times == sorted(times)
    clocks, open_clock = _clocks(records)
    # A clock still open at the end must be paused (replay runs until no clock runs).
    if open_clock is not None:
        assert [r for r in open_clock if r["type"] in ("pause", "resume")][-1]["type"] == "pause"


@given(sequences(), MODES)
@hsettings(max_examples=300, deadline=None)
def test_beeps_at_deadline_minus_n_and_paused_time_never_counts(events, settings):
    clocks, open_clock = _clocks(run(events, settings))
    for clock in clocks + ([open_clock] if open_clock else []):
        length = clock[0]["seconds"]
        running_since, used = clock[0]["t"], 0.0
        for r in clock[1:]:
            if running_since is not None:
                elapsed = used + (r["t"] - running_since)
            else:
                elapsed = used
            if r["type"] == "pause":
                used, running_since = elapsed, None
            elif r["type"] == "resume":
                running_since = r["t"]
            elif r["type"] == "extended":
                length += r["seconds"]
            elif r["type"] == "undo":
                length -= r["seconds"]
            elif r["type"] == "beep":
                assert abs(elapsed - (length - r["remaining"])) < 1e-6, (r, elapsed, length)
            elif r["type"] == "decision" and r["outcome"] in ("hand_dead", "check"):
                assert abs(elapsed - (length + settings.tie_window)) < 1e-6
            elif r["type"] == "decision" and r["outcome"] == "acted":
                assert abs(r["remaining"] - max(0.0, length - elapsed)) < 1e-6


@given(sequences(), MODES)
@hsettings(max_examples=200, deadline=None)
def test_remaining_never_negative(events, settings):
    for r in run(events, settings):
        if "remaining" in r:
            assert r["remaining"] >= 0


@given(sequences(), MODES)
@hsettings(max_examples=100, deadline=None)
def test_replay_is_deterministic(events, settings):
    assert run(events, settings) == run(events, settings)


@given(sequences(), MODES)
@hsettings(max_examples=200, deadline=None)
def test_countdown_beeps_descend_to_zero_before_any_expiry_ruling(events, settings):
    clocks, _ = _clocks(run(events, settings))
    for clock in clocks:
        if clock[-1]["outcome"] in ("hand_dead", "check"):
            beeps = [r for r in clock if r["type"] == "beep"]
            assert beeps and beeps[-1]["remaining"] == 0


@given(sequences(), MODES, st.lists(st.floats(min_value=0, max_value=1), min_size=25, max_size=25))
@hsettings(max_examples=200, deadline=None)
def test_inputs_up_to_settle_late_give_the_same_rulings_as_on_time(events, settings, lateness):
    """The device's edge grace: an input the driver hands over late (≤ settle) is ruled as if on time."""
    from shotclock.core.engine import Engine
    from shotclock.core.events import EVENT_TYPES, RHYTHM_EVENTS

    settle = 0.002
    engine, late_out = Engine(settings), []
    for (t, name, fields), late in zip(events, lateness):
        late_out += engine.advance(t + late * settle, settle=settle)  # the loop ran before the edge arrived
        late_out += engine.handle(EVENT_TYPES[name](t, **fields))
    while (wake := engine.next_wake(settle)) is not None:
        late_out += engine.advance(wake, settle=settle)
    on_time = [r for r in run(events, settings) if r["type"] != "beep"]
    assert sorted(map(str, (o.record() for o in late_out if o.TYPE != "beep"))) == sorted(map(str, on_time))
