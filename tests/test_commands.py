"""The screenshot, selftest and simulate commands as a user runs them."""

import os
import subprocess
import sys
from pathlib import Path

import pygame
import pytest

from helpers import run_device
from shotclock.cli import main
from shotclock.shell.selftest import Check, check_power, decode_throttled, held_by_service, service_running

EXAMPLES = Path(__file__).parent.parent / "docs" / "examples"


def test_screenshot_draws_the_scenario_at_t(tmp_path):
    out = tmp_path / "s.png"
    assert main(["screenshot", str(out), "--scenario", str(EXAMPLES / "clock-dead-hand.events.jsonl"),
                 "--at", "27.5", "--size", "1920x1080"]) == 0
    image = pygame.image.load(str(out))
    assert image.get_size() == (1920, 1080)
    assert tuple(image.get_at((2, 2)))[:3] == (150, 0, 0)  # the countdown's red


def test_screenshot_shows_the_visual_cues_flash_and_the_tempo_bank_and_fold(tmp_path):
    from shotclock.core.tones import TONES

    cues = str(EXAMPLES.parent / "screens" / "visual-cues.toml")
    scenario = str(EXAMPLES / "clock-dead-hand.events.jsonl")
    colour = lambda path: tuple(pygame.image.load(str(path)).get_at((2, 2)))[:3]
    for at, tone in (("27.1", "flash"), ("27.5", "urgent"), ("30.6", "flash"), ("30.9", "dead")):
        assert main(["screenshot", str(tmp_path / "c.png"), "--scenario", scenario, "--config", cues, "--at", at]) == 0
        assert colour(tmp_path / "c.png") == TONES[tone].background, at
    tempo = ["--scenario", str(EXAMPLES / "tempo-bank.events.jsonl"), "--config", str(EXAMPLES / "tempo-bank.toml")]
    assert main(["screenshot", str(tmp_path / "b.png"), *tempo, "--at", "55"]) == 0
    assert colour(tmp_path / "b.png") == TONES["bank"].background  # the bank runs: violet


def test_screenshot_of_an_interrupted_clock(tmp_path):
    out = tmp_path / "i.png"
    assert main(["screenshot", str(out), "--scenario", str(EXAMPLES / "clock-dead-hand.events.jsonl"),
                 "--at", "12.4", "--interrupted"]) == 0
    assert tuple(pygame.image.load(str(out)).get_at((2, 2)))[:3] == (24, 34, 64)  # the paused colours
    from shotclock.config.typed import Config
    from shotclock.core.replay import parse_events
    from shotclock.core.view import view_at
    from shotclock.shell.presenters import display_for
    from shotclock.shell.screenshot import state_at

    events = parse_events((EXAMPLES / "clock-dead-hand.events.jsonl").read_text().splitlines())
    view = view_at(state_at(events, Config().settings, 12.4, interrupted=True), 12.4, display_for(Config()))
    assert (view.screen, view.big, view.sub) == ("interrupted", "18", "Floor drukt: HERVAT")


def test_screenshot_bad_input_exit_2(tmp_path, capsys):
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"t":0,"event":"nope"}\n')
    assert main(["screenshot", str(tmp_path / "x.png"), "--scenario", str(bad), "--at", "1"]) == 2
    assert "line 1: unknown event 'nope'" in capsys.readouterr().err
    assert main(["screenshot", str(tmp_path / "x.png"), "--scenario", str(bad), "--at", "1", "--size", "big"]) == 2
    assert "--size 'big' is not WIDTHxHEIGHT" in capsys.readouterr().err


def test_decode_throttled():
    assert decode_throttled("throttled=0x0") == []
    assert decode_throttled("throttled=0x50005") == ["under-voltage now", "throttled now",
                                                      "under-voltage has occurred since boot",
                                                      "throttling has occurred"]


def test_power_check_skips_off_a_pi(monkeypatch):
    monkeypatch.setattr("shutil.which", lambda name: None)
    assert check_power().status == "SKIP"


def test_selftest_prints_one_line_per_check_and_fails_on_dummy_drivers():
    env = dict(os.environ, SDL_VIDEODRIVER="dummy", SDL_AUDIODRIVER="dummy")
    proc = subprocess.run([sys.executable, "-m", "shotclock", "selftest", "--pins", "mock"],
                          capture_output=True, text=True, timeout=60, env=env)
    lines = proc.stdout.splitlines()
    assert [line.split()[1] for line in lines] == ["config:", "pins:", "display:", "audio:", "power:", "time:",
                                                      "firstboot:", "backlight:"]
    assert lines[0].startswith("OK") and lines[1].startswith("OK")
    assert lines[2].startswith("FAIL") and "'dummy' draws nowhere" in lines[2]
    assert lines[3].startswith("FAIL") and "'dummy' plays nothing" in lines[3]
    assert proc.returncode == 1


def test_selftest_reports_a_bad_config(tmp_path):
    config = tmp_path / "c.toml"
    config.write_text("[pins]\nfloor = 99\n")
    proc = subprocess.run([sys.executable, "-m", "shotclock", "selftest", "--config", str(config), "--pins", "mock"],
                          capture_output=True, text=True, timeout=60)
    lines = proc.stdout.splitlines()
    assert lines[0].startswith("FAIL config:") and "pins.floor" in proc.stdout
    # QA finding 13: the pins and backlight lines were missing; they say why they were not checked
    assert [line.split()[1] for line in lines] == ["config:", "pins:", "display:", "audio:", "power:", "time:",
                                                      "firstboot:", "backlight:"]
    assert lines[1] == lines[7].replace("backlight", "pins") == \
        "SKIP pins: the configuration is invalid (see the config line)"
    assert proc.returncode == 1  # a check failed (README, "Exit codes")


def test_run_refuses_a_display_that_draws_nowhere(tmp_path):
    env = dict(os.environ, SDL_VIDEODRIVER="dummy", SDL_AUDIODRIVER="dummy")
    proc = run_device(tmp_path, headless=False, env=env)
    assert proc.returncode == 2
    assert "draws nowhere" in proc.stderr and "--headless" in proc.stderr


def test_simulate_without_any_display_uses_the_terminal_not_sdls_offscreen_driver(tmp_path):
    # As on a server or over SSH: no DISPLAY, no SDL_VIDEODRIVER. SDL would quietly pick 'offscreen'.
    env = {k: v for k, v in os.environ.items() if k not in ("DISPLAY", "WAYLAND_DISPLAY", "SDL_VIDEODRIVER")}
    proc = subprocess.run([sys.executable, "-m", "shotclock", "simulate", "--state-dir", str(tmp_path)], input="q",
                          capture_output=True, text=True, timeout=60, env=env)
    assert proc.returncode == 0, proc.stderr
    assert "using the terminal view" in proc.stderr and "keys: f floor" in proc.stdout
    assert "ALSA lib" not in proc.stderr and "pygame-ce" not in proc.stdout + proc.stderr


def test_simulate_falls_back_to_the_terminal_without_a_display(tmp_path):
    env = dict(os.environ, SDL_VIDEODRIVER="x11", DISPLAY=":987654")  # no such display
    proc = subprocess.run([sys.executable, "-m", "shotclock", "simulate", "--state-dir", str(tmp_path)], input="q",
                          capture_output=True, text=True, timeout=60, env=env)
    assert proc.returncode == 0, proc.stderr
    assert "using the terminal view" in proc.stderr
    assert "Tafel 1" in proc.stdout and "keys: f floor" in proc.stdout


def test_selftest_names_the_running_service_as_the_holder_of_a_device():
    failed = held_by_service(Check("FAIL", "pins", "GPIO busy"))
    assert failed.status == "SKIP" and "running shotclock service (GPIO busy)" in failed.detail
    assert held_by_service(Check("OK", "display", "kmsdrm")) == Check("OK", "display", "kmsdrm")


def test_service_running_asks_systemd(monkeypatch):
    import shutil as shutil_module

    monkeypatch.setattr(shutil_module, "which", lambda name: "/bin/systemctl")
    calls = []

    def fake_run(cmd, timeout, **quiet):
        calls.append(cmd)
        return subprocess.CompletedProcess(cmd, 3)  # systemctl is-active: inactive

    assert service_running(fake_run) is False
    assert calls == [["systemctl", "is-active", "--quiet", "shotclock.service"]]
    assert service_running(lambda cmd, timeout, **quiet: subprocess.CompletedProcess(cmd, 0)) is True


class FakePlayer:
    def __init__(self):
        self.played = []

    def beep(self, remaining):
        self.played.append(remaining)

    def ruling(self):
        self.played.append("ruling")


def test_the_sound_check_plays_the_countdown_as_the_device_does():
    from shotclock.shell.selftest import play_countdown

    player, slept = FakePlayer(), []
    assert play_countdown(player, 5, slept.append) == ["5", "4", "3", "2", "1", "0", "ruling"]
    assert player.played == [5, 4, 3, 2, 1, 0, "ruling"]
    assert slept[:6] == [1.0] * 6  # a second apart, as at the table


def test_selftest_sound_on_a_dummy_driver_fails_with_the_reason():
    env = dict(os.environ, SDL_VIDEODRIVER="dummy", SDL_AUDIODRIVER="dummy")
    proc = subprocess.run([sys.executable, "-m", "shotclock", "selftest", "--pins", "mock", "--sound"],
                          capture_output=True, text=True, timeout=60, env=env)
    sound = [line for line in proc.stdout.splitlines() if " sound:" in line]
    assert sound and sound[0].startswith("FAIL") and "plays nothing" in sound[0]
    assert proc.returncode == 1


def test_an_audio_output_that_is_not_there_is_named_with_the_ones_that_are(monkeypatch):
    from shotclock.config.loading import parse_config
    from shotclock.shell.selftest import check_audio, check_sound

    import pygame

    pygame.mixer.init()  # another part of this process opened the default output first: the name still counts
    config = parse_config('[sound]\ndevice = "No Such Speaker"\n')
    check = check_sound(config, sleep=lambda s: None)
    assert check.status == "FAIL" and "'No Such Speaker'" in check.detail
    assert check_audio("No Such Speaker").status == "FAIL"


def test_backlight_check(tmp_path):
    from shotclock.config.typed import Config
    from shotclock.shell.selftest import check_backlight

    assert check_backlight(Config(), tmp_path).status == "SKIP"
    device = tmp_path / "rpi_backlight"
    device.mkdir()
    (device / "max_brightness").write_text("255\n")
    (device / "brightness").write_text("255\n")
    assert check_backlight(Config(), tmp_path).line() == "OK   backlight: rpi_backlight: set to 1 at start"


def test_dev_shotclock_reads_relative_paths_from_where_it_was_run(tmp_path):
    # Issue 17: ./dev cd's into the repository for its venv, so 'dev shotclock config --check c.toml' run in
    # another folder read the repository's c.toml (or none).
    root = Path(__file__).parent.parent
    if not (root / ".venv" / "bin" / "shotclock").exists():
        pytest.skip("no .venv: run the tests with ./dev test")
    (tmp_path / "c.toml").write_text('table = "From here"\n')
    proc = subprocess.run([str(root / "dev"), "shotclock", "config", "--check", "c.toml"], cwd=tmp_path,
                          capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip() == "c.toml: OK (clock mode, table 'From here')"


def _background(args, tmp_path):
    out = tmp_path / "h.png"
    assert main(["screenshot", str(out), *map(str, args)]) == 0
    return tuple(pygame.image.load(str(out)).get_at((2, 2)))[:3]


def test_screenshot_hold_draws_what_the_table_shows_with_the_button_down(tmp_path):
    # Issue 17: --hold drew the running clock under a "cancel" bar, a screen the device never shows: the
    # floor's press pauses a running clock at once, and its hold then cancels it.
    from shotclock.adapters.screen import PALETTE
    from shotclock.config.typed import Config
    from shotclock.core.replay import parse_events
    from shotclock.shell.screenshot import held_screen, state_at

    dead_hand = EXAMPLES / "clock-dead-hand.events.jsonl"
    assert _background(["--scenario", dead_hand, "--at", 8, "--hold", "floor=1.2"], tmp_path) == PALETTE["paused"][0]
    events = parse_events(dead_hand.read_text().splitlines())
    state, holds = held_screen("floor=1.2", events, Config(), 8, state_at(events, Config().settings, 8))
    assert (state.phase, state.left, [h.event for h in holds]) == ("paused", 23.2, ["cancel"])
    # The street button: its press ends the shot clock quietly on the next street; its hold will deal a new hand.
    shot = ["--scenario", EXAMPLES / "shot-hand.events.jsonl", "--config", EXAMPLES / "shot-hand.toml", "--at", 30]
    assert _background(shot, tmp_path) == PALETTE["calm"][0]
    assert _background(shot + ["--hold", "street=1"], tmp_path) == PALETTE["neutral"][0]


def test_screenshot_hold_of_a_floor_button_on_a_paused_clock_is_the_readme_picture(tmp_path):
    from shotclock.config.typed import Config
    from shotclock.core.replay import parse_events
    from shotclock.shell.screenshot import held_screen, state_at

    scenario = EXAMPLES / "clock-paused-then-acted.events.jsonl"
    events = parse_events(scenario.read_text().splitlines())
    state, holds = held_screen("floor=1.2", events, Config(), 30, state_at(events, Config().settings, 30))
    assert (state.phase, [(h.event, h.since) for h in holds]) == ("paused", [("cancel", 28.8)])
    state, holds = held_screen("street=1", events, Config(), 8, state_at(events, Config().settings, 8))
    assert (state.phase, holds) == ("running", ())  # a called clock ignores the street: no bar
    interrupted = state_at(events, Config().settings, 8, interrupted=True)
    state, holds = held_screen("floor=0.5", events, Config(), 8, interrupted, interrupted=True)
    assert (state.phase, state.interrupted, [h.event for h in holds]) == ("paused", True, ["cancel"])


def test_screenshot_hold_on_a_clock_restored_after_a_power_cut_keeps_the_seats_as_the_device_does():
    # The held screen of a restored clock is the restarted device's (Table.restore_seats, then Table.restore):
    # the seats, names and banks come back with the clock, and the seat on the clock with them.
    from shotclock.config.loading import config_from
    from shotclock.core.replay import parse_events
    from shotclock.shell.screenshot import held_screen, state_at

    config = config_from({"mode": "shot", "preset": "tempo", "seats.count": 6, "seats.bank": 60}, "test")
    events = parse_events(['{"t":0,"event":"seating","players":[[2,"Ana"],[4,"Bo"],[6,"Cy"]]}',
                           '{"t":0.5,"event":"button","seat":6}', '{"t":1,"event":"hand"}',
                           '{"t":2,"event":"start"}'])
    restored = state_at(events, config.settings, 8, interrupted=True)
    assert restored.interrupted and restored.on_clock is not None and restored.seats.players
    state, holds = held_screen("floor=0.5", events, config, 8, restored, interrupted=True)
    assert (state.phase, state.interrupted, [h.event for h in holds]) == ("paused", True, ["cancel"])
    assert (state.on_clock, state.seats) == (restored.on_clock, restored.seats)
    assert state.remaining(8) == restored.remaining(8)


def test_selftest_says_whether_the_clock_is_synchronised_with_or_without_systemd(monkeypatch):
    import subprocess as sp

    from shotclock.adapters import timesync
    from shotclock.shell.selftest import check_time

    here = timesync.time_sync()  # this machine, whatever it has: an answer, never an exception
    assert here.synchronised in (True, False, None) and here.how
    monkeypatch.setattr(timesync.shutil, "which", lambda name: "/usr/bin/timedatectl")
    said = lambda out, code=0: (lambda *a, **k: sp.CompletedProcess(a, code, stdout=out, stderr=""))  # noqa: E731
    assert timesync.time_sync(run=said("yes\n")) == timesync.TimeSync(True, "timedatectl: NTPSynchronized=yes")
    assert check_time(timesync.time_sync(run=said("no\n"))).status == "WARN"  # the device works without NTP
    # No systemd (a container): timedatectl fails, the kernel answers; and where neither can, SKIP.
    no_systemd = said("", 1)
    assert timesync.time_sync(run=no_systemd, adjtimex=lambda: (0, 0)).synchronised is True
    assert timesync.time_sync(run=no_systemd, adjtimex=lambda: (5, 0x40)).synchronised is False

    def broken():
        raise OSError("no adjtimex")
    assert check_time(timesync.time_sync(run=no_systemd, adjtimex=broken)).status == "SKIP"
