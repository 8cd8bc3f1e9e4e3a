"""The device chain on fake pins: pin edge → timestamp → gesture → engine → ruling.

The pins are gpiozero's MockFactory, so the same input code runs as on a Pi. Edges carry
their real monotonic timestamps; the loop's own clock is virtual, so no test sleeps.
"""

import time

import pytest

from shotclock.config.loading import parse_config
from shotclock.config.typed import Config
from shotclock.shell.device import Device
from shotclock.core.buttons import Edge
from shotclock.core.faults import StuckButton


@pytest.fixture
def device(vclock, mock_factory):
    devices = []

    def make(text=""):
        config = parse_config(text) if text else Config()
        d = Device(config, mock_factory, clock=vclock)
        devices.append(d)
        return d

    yield make
    for d in devices:
        d.pins.close()


def tap(d, button, hold=0.1, bounce=0):
    """Press and release a fake pin for ``hold`` s, ``bounce`` extra bounces 0.5 ms apart on each edge.

    Returns the release time; the clock is left 1 ms after it.
    """
    pin, clock = d.pins.pin(button), d.loop.clock
    for level, wait in ((True, hold), (False, 0.001)):  # pulled up: low is pressed
        press, release = (pin.drive_low, pin.drive_high) if level else (pin.drive_high, pin.drive_low)
        press()
        edge = clock.now
        for _ in range(bounce):
            clock.now += 0.0005
            release()
            clock.now += 0.0005
            press()
        clock.now = edge + wait
    return edge


def records(rounds):
    return [o.record() for r in rounds for o in r.outputs]


def test_floor_call_then_expiry_rules_hand_dead_through_fake_pins(device):
    d = device()
    tap(d, "bet")
    release = tap(d, "floor", hold=0.08)
    first = d.loop.step()
    assert [i.event.NAME for i in first.inputs] == ["bet", "call"]
    call_t = first.inputs[1].event.t
    assert call_t == pytest.approx(release - 0.08, abs=1e-9)  # dated at the press edge, not the release
    d.loop.clock.now = call_t + 30.5 + d.loop.edge_grace
    out = records([d.loop.step()])
    assert out[-1]["outcome"] == "hand_dead" and out[-1]["t"] == pytest.approx(call_t + 30.5, abs=1e-6)
    assert [r["remaining"] for r in out if r["type"] == "beep"] == [5, 4, 3, 2, 1, 0]


def test_action_is_dated_at_its_press_edge_not_when_the_loop_runs(device):
    d = device()
    tap(d, "floor")
    call_t = d.loop.step().inputs[0].event.t
    pin = d.pins.pin("action")
    pin.drive_low()
    edge_t = pin._last_change
    # The loop only gets round to it long after the deadline: the edge's time still decides.
    d.loop.clock.now = edge_t + 100
    out = records([d.loop.step()])
    decision = [r for r in out if r["type"] == "decision"][0]
    assert decision["outcome"] == "acted"
    assert decision["remaining"] == pytest.approx(30 - (edge_t - call_t), abs=1e-6)


def test_bounce_storm_on_fake_pins_counts_once(device):
    d = device()
    tap(d, "bet", bounce=25)
    r = d.loop.step()
    assert [i.event.record() for i in r.inputs] == [{"t": r.inputs[0].event.t, "event": "bet", "facing_bet": True}]
    tap(d, "bet", bounce=25)
    d.loop.clock.now += 1
    r = d.loop.step()
    assert len(r.inputs) == 1 and d.engine.facing_bet is False  # toggled twice: on, off


def test_stuck_button_is_reported_shown_and_ignored(device, caplog):
    import re

    d = device()
    pin = d.pins.pin("action")
    pin.drive_low()
    d.loop.clock.now = pin._last_change + 11
    r = d.loop.step()
    assert [(f.button, f.kind) for f in r.button_faults] == [("action", "stuck")]
    # The log says when as a time of day a person can check, not monotonic seconds since boot.
    [warning] = [m for m in caplog.messages if "stuck" in m]
    assert re.fullmatch(r"button 'action' is stuck \(held down, reported at \d\d:\d\d:\d\d\); "
                        r"ignoring it until released", warning), warning
    assert r.faults == (StuckButton("action", pin._last_change + 10),)
    pin.drive_high()
    d.loop.clock.now += 1
    r = d.loop.step()
    assert [(f.button, f.kind) for f in r.button_faults] == [("action", "released")]
    assert r.faults == ()


def test_button_pressed_at_start_is_stuck(vclock, mock_factory, monkeypatch):
    # MockFactory's pull-up would lift a pin driven low beforehand, so the read is faked here.
    from shotclock.adapters.pins import TablePins

    monkeypatch.setattr(TablePins, "pressed_now", lambda self: {"action": True, "floor": False})
    d = Device(Config(), mock_factory, clock=vclock)
    try:
        r = d.loop.step()
        assert [(type(f), f.button) for f in r.faults] == [(StuckButton, "action")] and r.inputs == []
    finally:
        d.pins.close()


def test_hold_gesture_cancels_the_clock(device):
    d = device()
    tap(d, "floor")
    d.loop.step()
    pin = d.pins.pin("floor")
    pin.drive_low()
    d.loop.clock.now = pin._last_change + 2.5
    r = d.loop.step()
    # the press pauses at once (the floor's hand is on the clock); the hold then cancels it
    assert [(i.event.NAME, i.event.t - pin._last_change) for i in r.inputs] == [("pause", 0), ("cancel", 2.0)]
    assert r.outputs[-1].record()["outcome"] == "cancelled"
    pin.drive_high()
    d.loop.clock.now += 0.1
    assert d.loop.step().inputs == []  # the release after a hold adds nothing


def test_two_buttons_at_the_same_instant(device):
    d = device('mode = "shot"')
    t = time.monotonic()
    d.loop.clock.now = t + 0.5
    d.loop.post(Edge(t, "action", True))  # shot mode, idle: start
    d.loop.post(Edge(t, "extend", True))
    d.loop.post(Edge(t + 0.1, "extend", False))  # a chip is a tap: known at the release, dated at the press
    r = d.loop.step()
    assert [i.event.NAME for i in r.inputs] == ["start", "extend"]
    assert [o.TYPE for o in r.outputs] == ["start", "extended"]


def test_leds_follow_the_clock(device):
    d = device()
    tap(d, "bet")
    tap(d, "floor")
    d.loop.run_once()
    assert d.pins.led_running.is_lit and d.pins.led_bet.is_lit
    d.loop.clock.now = d.engine.state.deadline - 3
    d.loop.run_once()
    assert d.pins.led_running._blink_thread is not None  # blinking in the countdown
    d.loop.clock.now += 10
    d.loop.run_once()
    assert not d.pins.led_running.is_lit


def test_buzzer_beeps_with_the_countdown_when_configured(device):
    d = device("[pins]\nbuzzer = 12\n")
    tap(d, "floor")
    d.loop.run_once()
    pin = d.pins.buzzer.pin
    pin.clear_states()
    d.loop.clock.now = d.engine.state.deadline - 4.9
    d.loop.run_once()
    d.pins.buzzer._blink_thread.join(2) if d.pins.buzzer._blink_thread else None
    assert any(s.state for s in pin.states)  # the buzzer sounded for beep 5


def test_a_press_in_time_that_reaches_the_loop_late_still_counts(device):
    d = device()
    tap(d, "floor")
    call_t = d.loop.step().inputs[0].event.t
    expiry = call_t + 30.5
    d.loop.clock.now = call_t + 30  # the countdown has sounded
    d.loop.step()
    assert d.loop.next_wake(d.loop.clock.now) == pytest.approx(expiry + 0.001)  # the ruling waits 1 ms
    d.loop.clock.now = expiry + 0.0004
    assert not [o for o in d.loop.step().outputs if o.TYPE == "decision"]  # woken early by something else
    # The dealer pressed 0.1 ms before the end; the driver hands the edge over 0.5 ms later.
    d.loop.post(Edge(expiry - 0.0001, "action", True))
    d.loop.clock.now = expiry + 0.0006
    decisions = [o.record() for o in d.loop.step().outputs if o.TYPE == "decision"]
    assert [(r["outcome"], r["at_zero"]) for r in decisions] == [("acted", True)]


def test_edge_time_uses_the_factorys_own_ticks_arithmetic_even_across_a_wrap():
    from gpiozero.pins.mock import MockFactory

    from shotclock.adapters.pins import TablePins
    from shotclock.config.typed import Config

    class WrappingFactory(MockFactory):  # ticks as a 32-bit microsecond counter, as pigpio's
        now_ticks = 5

        def ticks(self):
            return self.now_ticks

        def ticks_diff(self, later, earlier):
            return ((later - earlier) % 2 ** 32) / 1e6

    edges = []
    pins = TablePins(Config().pins, edges.append, WrappingFactory(), clock=lambda: 100.0)
    try:
        pins._callbacks["action"](2 ** 32 - 995, False)  # 1000 µs ago, before the counter wrapped
        assert edges[0].t == pytest.approx(99.999) and edges[0].pressed
        pins._callbacks["action"](None, True)  # no ticks: dated now
        assert edges[1].t == 100.0
    finally:
        pins.close()


def test_a_backend_that_dates_edges_in_its_callback_is_named_at_start(caplog):
    from gpiozero.pins.mock import MockFactory

    from shotclock.adapters.pins import TablePins, edge_dating
    from shotclock.config.typed import Config

    class RPiGPIOFactory(MockFactory):  # named as gpiozero's RPi.GPIO backend
        pass

    assert edge_dating(MockFactory())[1] and not edge_dating(RPiGPIOFactory())[1]
    with caplog.at_level("WARNING", logger="shotclock.pins"):
        TablePins(Config().pins, lambda e: None, RPiGPIOFactory()).close()
    assert "use the lgpio backend" in caplog.text


def test_the_tests_fake_pins_are_the_devices_own(vclock, mock_factory):
    # The factory '--pins mock' makes (simulator, script mode) is the very class the tests drive.
    own = Device(Config(), "mock", clock=vclock)
    try:
        assert type(own.pins.factory) is type(mock_factory)
        assert own.pins.factory.clock is vclock  # 'mock' runs on the device's own clock
    finally:
        own.pins.close()
    d = Device(Config(), mock_factory, clock=vclock)
    try:
        assert d.pins.factory is mock_factory and d.pins.pin("floor") is mock_factory.pin(17)
    finally:
        d.pins.close()


def test_fake_pins_date_an_edge_on_the_devices_clock(vclock, mock_factory):
    # The edge's date is the moment the pin was driven on the virtual clock, not time.monotonic().
    edges = []
    from shotclock.adapters.pins import TablePins

    pins = TablePins(Config().pins, edges.append, mock_factory, clock=vclock)
    pins.pin("bet").clear_states()
    start = vclock.now
    try:
        vclock.now += 1234.5  # far from the real monotonic clock: a real-clock stamp would be caught
        pins.pin("bet").drive_low()
        pressed_at = vclock.now
        assert pins.pin("bet").states[-1] == (pressed_at - start, False)  # the pin's own stamp: virtual
        vclock.now += 0.25  # the callback's own time does not move the edge
        pins.pin("bet").drive_high()
        assert [(e.t, e.button, e.pressed) for e in edges] == [(pressed_at, "bet", True),
                                                                 (pressed_at + 0.25, "bet", False)]
    finally:
        pins.close()


def test_closing_the_device_closes_the_pin_factory_it_made(vclock, mock_factory, monkeypatch):
    from shotclock.adapters.fake_pins import FakePinFactory

    closed = []
    original = FakePinFactory.close
    monkeypatch.setattr(FakePinFactory, "close", lambda self: (closed.append(self), original(self)))
    own = Device(Config(), "mock", clock=vclock)
    own.close()
    own.close()  # twice is safe
    assert closed == [own.pins.factory]
    lent = Device(Config(), mock_factory, clock=vclock)
    lent.close()
    assert closed == [own.pins.factory]  # the tests' factory is theirs to close
