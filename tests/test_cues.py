"""Visual cues (TDA Rule 9): pulses dated at the engine's outputs, each bounded, on the screen and the pins."""

import pytest

from shotclock.config.loading import parse_config
from shotclock.config.typed import Config
from shotclock.core.cues import PULSES, RULING, TICK, Cues, cue_of
from shotclock.core.engine import Engine
from shotclock.core.events import Call, Decision
from shotclock.core.settings import Settings
from shotclock.core.view import view_at
from shotclock.shell.device import Device


def engine_outputs(until):
    """A called clock facing a bet (30 s, countdown 5, tie window 0.5) run to ``until``: its outputs."""
    e = Engine(Settings())
    out = e.handle(Call(0, facing_bet=True))
    out += e.advance(until)
    return out


def test_each_countdown_second_and_the_ruling_give_a_cue_at_their_own_time():
    outputs = engine_outputs(40)
    cues = [(o.t, cue_of(o)) for o in outputs if cue_of(o)]
    assert cues == [(25.0, TICK), (26.0, TICK), (27.0, TICK), (28.0, TICK), (29.0, TICK), (30.0, TICK),
                    (30.5, RULING)]
    assert cue_of(Decision(3, "acted", remaining=2.0, at_zero=False)) is None  # an action in time is no alarm


def test_pulses_are_bounded_and_dated_at_the_output_not_at_the_round():
    e = Engine(Settings())
    e.handle(Call(0, facing_bet=True))
    cues = Cues()
    cues.take(e.advance(25.2))  # a round late by 0.2 s: the pulse still began at the beep
    assert cues.lit(25.2) == TICK and cues.next_change(25.2) == pytest.approx(25.3)
    assert cues.lit(25.3) == ""
    cues.take(e.advance(30.6))  # five outputs in one round: the last ones' pulses
    assert cues.lit(30.6) == RULING
    assert cues.lit(31.85) == "" and cues.next_change(31.85) is None  # nothing is left on
    assert all(0 < round(end - start, 6) <= 0.3 for pulses in PULSES.values() for start, end in pulses)


def test_next_change_walks_every_pulse_edge():
    e = Engine(Settings())
    e.handle(Call(0, facing_bet=True))
    cues, edges, now = Cues(), [], 24.0
    while True:  # as the loop runs: a round at each wake, the engine's or a pulse's
        cues.take(e.advance(now))
        edges.append((round(now, 6), cues.lit(now)))
        wakes = [w for w in (cues.next_change(now), e.next_wake()) if w is not None]
        if not wakes:
            break
        now = min(wakes)
    assert edges[1:4] == [(25.0, TICK), (25.3, ""), (26.0, TICK)]
    assert edges[-2:] == [(31.5, RULING), (31.8, "")]


def test_a_pulse_flashes_the_screen():
    e = Engine(Settings())
    e.handle(Call(0, facing_bet=True))
    e.advance(25.1)
    assert view_at(e.state, 25.1).tone == "urgent"
    flashed = view_at(e.state, 25.1, cue=TICK)
    assert flashed.tone == "flash" and flashed.big == "5"


def run_until(d, end):
    """The device loop on virtual time: each round, then straight to the next wake (as the loop sleeps)."""
    clock = d.loop.clock
    while True:
        r = d.loop.run_once()
        wake = d.loop.next_wake(r.now)
        if wake is None or wake > end:
            clock.now = end
            d.loop.run_once()
            return
        clock.now = max(wake, clock.now)


def high_intervals(pin, cleared, origin):
    """(start, end) of each time a fake pin was high since its states were ``cleared`` (each state's timestamp
    is the time since the one before), relative to ``origin``."""
    t, out, since = cleared, [], None
    for s in pin.states:
        t += s.timestamp
        if s.state and since is None:
            since = t
        elif not s.state and since is not None:
            out.append((round(since - origin, 6), round(t - origin, 6)))
            since = None
    return out


@pytest.fixture
def cue_device(vclock, mock_factory):
    d = Device(parse_config("[screen]\nvisual_cues = true\n[pins]\nstrobe = 13\n"), mock_factory, clock=vclock)
    yield d
    d.pins.close()


def test_the_strobe_pin_pulses_on_each_countdown_second_and_the_ruling(cue_device, vclock):
    d = cue_device
    strobe = d.pins.strobe.pin
    strobe.clear_states()
    start = vclock.now
    d.pins.pin("bet").drive_low()
    vclock.now += 0.1
    d.pins.pin("bet").drive_high()
    vclock.now += 0.1
    d.pins.pin("floor").drive_low()
    call = vclock.now
    vclock.now += 0.1
    d.pins.pin("floor").drive_high()
    run_until(d, start + 40)
    pulses = high_intervals(strobe, start, call)
    # Each pulse as long as the core says, from the output's time (the ruling is known edge_grace later).
    expected = [(25.0, 25.3), (26.0, 26.3), (27.0, 27.3), (28.0, 28.3), (29.0, 29.3), (30.0, 30.3),
                (30.5, 30.8), (31.0, 31.3), (31.5, 31.8)]
    assert [t for p in pulses for t in p] == pytest.approx([t for p in expected for t in p], abs=0.002)
    assert not d.pins.strobe.is_active  # never left high


def test_the_running_led_blinks_with_the_seconds_in_the_countdown(cue_device, vclock):
    d = cue_device
    d.pins.pin("floor").drive_low()
    call = vclock.now
    vclock.now += 0.1
    d.pins.pin("floor").drive_high()
    run_until(d, call + 10)
    assert d.pins.led_running.is_lit  # steady before the countdown
    run_until(d, call + 26.1)
    assert d.pins.led_running.is_lit and d.pins.led_running._blink_thread is None  # lit by the pulse, no timer
    run_until(d, call + 26.5)
    assert not d.pins.led_running.is_lit


def test_without_visual_cues_no_pulse_and_no_strobe(vclock, mock_factory):
    d = Device(Config(), mock_factory, clock=vclock)
    try:
        assert d.lights.cues is None and d.pins.strobe is None and d.lights.next_wake(0) is None
    finally:
        d.pins.close()


def test_a_strobe_pin_without_visual_cues_is_refused_in_one_line():
    from shotclock.errors import ConfigError

    with pytest.raises(ConfigError) as err:
        parse_config("[pins]\nstrobe = 13\n")
    assert err.value.errors == {"pins.strobe": "needs screen.visual_cues = true (the strobe pulses with the visual cues)"}
    with pytest.raises(ConfigError) as err:
        parse_config("[screen]\nvisual_cues = true\n[pins]\nstrobe = 17\n")
    assert "pins.floor" in str(err.value.errors["pins.strobe"])
