"""The simulator: keys and clicks drive the fake pins; the same input code reaches a ruling."""

import io
import time

import pygame
import pytest

from shotclock.config.loading import parse_config
from shotclock.config.typed import Config
from shotclock.core.faults import NoSound
from shotclock.shell.presenters import ScreenPresenter
from shotclock.shell.simulator import Simulator, TerminalPresenter, TerminalSimulator



@pytest.fixture
def sim(vclock, mock_factory):
    s = Simulator(Config(), clock=vclock, pin_factory=mock_factory)
    yield s
    s.device.pins.close()
    pygame.display.quit()


def key(sim, name, down):
    k = pygame.key.key_code(name)
    sim.handle_event(pygame.event.Event(pygame.KEYDOWN if down else pygame.KEYUP, key=k, mod=0))


def test_key_presses_reach_a_ruling_through_the_fake_pins(sim, vclock):
    key(sim, "b", True)
    vclock.now += 0.1
    key(sim, "b", False)
    vclock.now += 0.1
    key(sim, "f", True)
    vclock.now += 0.2
    key(sim, "f", False)  # the floor acts on release: call
    vclock.now += 0.01
    r = sim.device.loop.run_once()
    assert [i.event.NAME for i in r.inputs] == ["bet", "call"]
    assert sim.device.pins.pin("floor").state  # released: pulled up again
    vclock.now += 31
    r = sim.device.loop.run_once()
    assert r.outputs[-1].record()["outcome"] == "hand_dead"
    # The window shows the ruling: a red background in the screen area.
    assert tuple(sim.screen.surface.get_at((3, 3)))[:3] == (150, 0, 0)


def test_a_quick_key_tap_on_the_floor_key_still_calls_the_clock(sim, vclock):
    # QA finding 17: a 1 ms key tap was shorter than the floor's 40 ms minimum press and did nothing.
    held_back = []
    sim.later = lambda delay, fn: held_back.append((delay, fn))
    key(sim, "f", True)
    key(sim, "f", False)  # the same moment: a tap of a few ms
    assert "floor" not in sim.down  # the panel shows it released at once
    assert not sim.device.pins.pin("floor").state  # the contact stays closed a little longer
    [(delay, release)] = held_back
    assert delay >= sim.config["device.floor_min_press"]
    vclock.now += delay
    release()
    vclock.now += 0.01
    assert [i.event.NAME for i in sim.device.loop.run_once().inputs] == ["call"]


def test_events_through_pygames_queue_and_the_waker(sim, vclock):
    for name, down in (("a", True),):
        pygame.event.post(pygame.event.Event(pygame.KEYDOWN, key=pygame.key.key_code("f"), mod=0))
    sim.waker.wait(0.05)
    assert "floor" in sim.down
    vclock.now += 0.3
    pygame.event.post(pygame.event.Event(pygame.KEYUP, key=pygame.key.key_code("f"), mod=0))
    sim.waker.wait(0.05)
    vclock.now += 0.01
    assert [i.event.NAME for i in sim.device.loop.run_once().inputs] == ["call"]


def test_mouse_on_a_panel_button_presses_it(sim, vclock):
    rect = sim.buttons["action"]
    sim.handle_event(pygame.event.Event(pygame.MOUSEBUTTONDOWN, pos=rect.center, button=1))
    assert not sim.device.pins.pin("action").state  # pressed: pulled low
    assert tuple(sim.screen.surface.get_at((rect.centerx, rect.top + 3)))[:3] == (240, 200, 40)
    vclock.now += 0.2
    sim.handle_event(pygame.event.Event(pygame.MOUSEBUTTONUP, pos=rect.center, button=1))
    assert sim.device.pins.pin("action").state


def test_escape_quits(sim):
    key(sim, "escape", True)
    assert sim.quit


def test_window_is_the_device_screen_plus_panel(sim):
    w, h = sim.screen.surface.get_size()
    assert (w, h) == (800, 480 + sim.panel_height)


def test_screen_redraws_only_when_the_view_changes(sim, vclock):
    presenter = next(l for l in sim.device.loop.listeners if isinstance(l, ScreenPresenter))
    sim.device.loop.run_once()
    idle_frames = presenter.frames
    for _ in range(5):
        vclock.now += 1
        sim.device.loop.run_once()
    assert presenter.frames == idle_frames  # idle: nothing to redraw


def test_terminal_view_renders_states():
    out = io.StringIO()
    from shotclock.core.engine import Engine
    from shotclock.core.events import Call
    from shotclock.core.settings import Settings
    from shotclock.core.view import Display, view_at

    e = Engine(Settings())
    e.handle(Call(0, facing_bet=True))
    text = TerminalPresenter(out, Display()).render(view_at(e.state, 5, Display()))
    assert "25" in text and "bij 0: HAND DOOD" in text and "[" in text and "q quit" in text
    import dataclasses

    seated = dataclasses.replace(view_at(e.state, 5, Display()), seat="Stoel 4 · Ana Costa")
    assert TerminalPresenter(out, Display()).render(seated).splitlines()[0].endswith(" · Stoel 4 · Ana Costa")


def test_terminal_simulator_keys_drive_the_pins(mock_factory):
    out = io.StringIO()
    sim = TerminalSimulator(Config(), out=out, inp=io.StringIO(""), pin_factory=mock_factory)
    try:
        sim.TAP = 0.05
        sim.key("f")
        time.sleep(0.2)  # a real tap on a real clock: the terminal view has no virtual time
        r = sim.device.loop.run_once()
        assert [i.event.NAME for i in r.inputs] == ["call"]
        assert "bij 0: CHECK" in out.getvalue()
        assert ("Geen geluid" in out.getvalue()) == any(isinstance(f, NoSound) for f in sim.device.table.faults)
        sim.key("q")
        assert sim.quit
    finally:
        sim.device.pins.close()


def test_the_panel_shows_only_the_modes_buttons_and_its_hints(vclock, mock_factory):
    clock_sim = Simulator(Config(), clock=vclock, pin_factory=mock_factory)
    try:
        assert list(clock_sim.buttons) == ["floor", "action", "bet", "street"]  # no extension chips
        drawn = [text for text, _ in clock_sim.screen.renderer.drawn]
        assert "houd: nieuwe hand" in drawn and "houd: annuleer" in drawn
        assert any(text.startswith("F: klok") for text in drawn) and not any("E:" in text for text in drawn)
        key(clock_sim, "e", True)
        assert "extend" not in clock_sim.down
    finally:
        clock_sim.device.pins.close()
        pygame.display.quit()
    shot_sim = Simulator(parse_config('mode = "shot"\nlanguage = "en"\n'), clock=vclock, pin_factory=mock_factory)
    try:
        assert list(shot_sim.buttons) == ["floor", "action", "bet", "extend", "street"]
        drawn = [text for text, _ in shot_sim.screen.renderer.drawn]
        assert {"hold: pause / resume", "hold: chip back", "hold: no more action", "hold: cancel / chips back"} \
            <= set(drawn)
        assert any(text.startswith("A: start") for text in drawn)
    finally:
        shot_sim.device.pins.close()
        pygame.display.quit()


def test_with_seats_the_simulator_plays_a_fold_and_an_all_in_with_its_keys(vclock, mock_factory):
    sim = Simulator(parse_config('mode = "shot"\nlanguage = "en"\n[seats]\ntrack = true\ncount = 6\n[device]\nhold = 0.5\n'),
                    clock=vclock, pin_factory=mock_factory)
    try:
        drawn = [text for text, _ in sim.screen.renderer.drawn]
        assert "hold: fold" in drawn and any(text.startswith("A: action (hold: fold)") for text in drawn)
        steps = [("s", True, 0.7), ("s", False, 0.1),  # street held: a new hand (button 1: seat 4 first)
                 ("a", True, 0.1), ("a", False, 0.1),  # start: seat 4's clock
                 ("a", True, 0.7), ("a", False, 0.1),  # seat 4 acted, held: folded
                 ("b", True, 0.1), ("a", True, 0.1), ("a", False, 0.1), ("b", False, 0.1)]  # bet + action: all-in
        names = []
        for name, down, wait in steps:
            key(sim, name, down)
            vclock.now += wait
            names += [i.event.NAME for i in sim.device.loop.run_once().inputs]
        assert names == ["street", "hand", "start", "action", "fold", "all_in"]
        seats = sim.device.loop.table.state.seats
        assert 4 not in seats.in_hand and seats.all_in == {5} and seats.turn == 6
    finally:
        sim.device.pins.close()
        pygame.display.quit()


def test_with_visual_cues_the_window_flashes_and_the_panel_shows_the_lights(vclock, mock_factory):
    from shotclock.core.tones import TONES
    from shotclock.shell.simulator import LED_STROBE

    config = parse_config("[screen]\nvisual_cues = true\n[pins]\nstrobe = 13\n")
    s = Simulator(config, clock=vclock, pin_factory=mock_factory)
    try:
        key(s, "f", True)
        vclock.now += 0.2
        key(s, "f", False)
        s.device.loop.run_once()
        call = s.device.engine.state.deadline - 30
        vclock.now = call + 25.1  # the first countdown second's pulse
        s.device.loop.run_once()
        assert tuple(s.screen.surface.get_at((3, 3)))[:3] == TONES["flash"].background
        assert (LED_STROBE, True) in s.lights() and s.device.pins.led_running.is_lit
        lit = s.screen.surface.get_at(_strobe_dot(s))[:3]
        vclock.now = call + 25.5  # between pulses
        s.device.loop.run_once()
        assert tuple(s.screen.surface.get_at((3, 3)))[:3] == TONES["urgent"].background
        assert (LED_STROBE, False) in s.lights() and not s.device.pins.led_running.is_lit
        assert s.screen.surface.get_at(_strobe_dot(s))[:3] != lit  # the panel's dot went dark
    finally:
        s.device.pins.close()
        pygame.display.quit()


def _strobe_dot(s):
    r = max(4, int(s.panel_height * 0.05))
    return (int(s.panel_area.width * 0.02) + r + 6 * r, int(s.panel_area.top + s.panel_height * 0.88))


def test_the_dealer_check_runs_in_the_window_with_the_action_key(vclock, mock_factory):
    from shotclock.core.tones import TONES
    from shotclock.shell.simulator import DealerCheckSimulator

    lines = []
    s = DealerCheckSimulator(Config(), clock=vclock, pin_factory=mock_factory, seed=5, out=lines.append)
    run = s.run_check
    try:
        assert list(s.buttons) == ["action"]
        for i, cue in enumerate(run.check.cues):
            vclock.now = cue
            run.step()  # the cue: the screen lights up
            assert tuple(s.screen.surface.get_at((3, 3)))[:3] == TONES["flash"].background
            vclock.now = cue + 0.2 + i * 0.01
            key(s, "space", True)
            vclock.now += 0.1
            key(s, "space", False)
            run.step()
        result = s.run()
    finally:
        s.close()
    assert result.missed == 0 and result.early == 0
    assert result.median == pytest.approx(0.255, abs=1e-6) and len(lines) == 12


def test_the_terminal_view_marks_a_visual_cues_pulse_and_names_a_fold():
    from shotclock.core.engine import Engine
    from shotclock.core.events import Call, SeatChanged
    from shotclock.core.settings import Settings
    from shotclock.core.table import Round
    from shotclock.core.view import Display

    e = Engine(Settings())
    outputs = e.handle(Call(0, facing_bet=True)) + e.advance(25.1)
    out = io.StringIO()
    presenter = TerminalPresenter(out, Display(language="en"), visual_cues=True)
    presenter.update(Round(now=25.1, state=e.state, outputs=outputs))
    assert out.getvalue().splitlines()[1].startswith("*** shotclock")
    assert presenter.next_wake(25.1) == pytest.approx(25.25)  # a ring step, then the pulse's end at 25.3
    presenter.update(Round(now=25.3, state=e.state, outputs=e.advance(25.3)))
    titles = [line for line in out.getvalue().splitlines() if "shotclock · " in line]
    assert len(titles) == 2 and titles[0].startswith("*** ") and not titles[1].startswith("*** ")


def test_the_dealer_check_without_a_window_says_where_to_run_it(monkeypatch, capsys):
    import shotclock.shell.simulator as simulator
    from shotclock.cli import main
    from shotclock.errors import HardwareError

    def no_window(*a, **kw):
        raise HardwareError("no display found")

    monkeypatch.setattr(simulator, "DealerCheckSimulator", no_window)
    assert main(["simulate", "--dealer-check", "--no-log"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "--dealer-check needs a window" in err and "selftest --dealer" in err


def test_simulate_seating_names_the_players_at_the_start_and_the_seat_on_the_clock(vclock, mock_factory, tmp_path):
    from shotclock.shell.simulator import seat_players, seating_for

    csv = tmp_path / "players.csv"
    csv.write_text('seat,name\n1,Ana Costa\n4,"Okafor, Ben"\n5,Eva Jansen\n', encoding="utf-8")
    config = parse_config('preset = "tempo"\nlanguage = "en"\n[seats]\ncount = 6\n[device]\nhold = 0.5\n')
    sim = Simulator(config, clock=vclock, pin_factory=mock_factory)
    try:
        seat_players(sim.device, seating_for(config, str(csv)))
        assert [i.command.name for i in sim.device.loop.run_once().inputs] == ["seating"]
        seats = sim.device.loop.table.state.seats
        assert dict(seats.players) == {1: "Ana Costa", 4: "Okafor, Ben", 5: "Eva Jansen"}  # the rest emptied
        for name, down, wait in [("s", True, 0.7), ("s", False, 0.1), ("a", True, 0.1), ("a", False, 0.1)]:
            key(sim, name, down)
            vclock.now += wait
            sim.device.loop.run_once()
        assert sim.device.loop.table.state.on_clock == 1  # button 1, blinds 4 and 5: seat 1 acts first
        drawn = [text for text, _ in sim.screen.renderer.drawn]
        assert any("Ana Costa" in text for text in drawn)
    finally:
        sim.device.pins.close()
        pygame.display.quit()


def test_simulate_seating_refuses_a_table_without_seats_and_a_bad_file_in_one_line(tmp_path, capsys):
    from shotclock.cli import main

    csv = tmp_path / "players.csv"
    csv.write_text("1,Ana\n1,Bo\n", encoding="utf-8")
    assert main(["simulate", "--terminal", "--no-log", "--seating", str(csv)]) == 2
    assert capsys.readouterr().err.strip() == ("shotclock: --seating needs seat tracking: a configuration with "
                                               "[seats] track = true (try --config docs/examples/tempo-bank.toml)")
    config = tmp_path / "t.toml"
    config.write_text('preset = "tempo"\n', encoding="utf-8")
    assert main(["simulate", "--terminal", "--no-log", "--config", str(config), "--seating", str(csv)]) == 2
    assert capsys.readouterr().err.strip() == f"shotclock: {csv}: line 2: seat 1 is given twice (line 1 too)"
