"""``shotclock selftest``: one line per check, OK or FAIL with the reason (SKIP where it does not apply)."""

from __future__ import annotations

import os
import shutil
import subprocess
import time
from dataclasses import dataclass

from shotclock.errors import ConfigError, HardwareError, ShotclockError

THROTTLE_BITS = {
    0x1: "under-voltage now",
    0x2: "ARM frequency capped now",
    0x4: "throttled now",
    0x8: "soft temperature limit now",
    0x10000: "under-voltage has occurred since boot",
    0x20000: "frequency capping has occurred",
    0x40000: "throttling has occurred",
    0x80000: "soft temperature limit has occurred",
}


@dataclass(frozen=True)
class Check:
    """One self-test result: ``status`` is OK, FAIL, WARN (works, but worth mending; never fails the
    self-test) or SKIP."""

    status: str
    name: str
    detail: str

    def line(self) -> str:
        """The line printed for it."""
        return f"{self.status:<4} {self.name}: {self.detail}"


def decode_throttled(text: str) -> list[str]:
    """``vcgencmd get_throttled`` output (``throttled=0x50005``) → the problems it reports."""
    value = int(text.strip().split("=")[-1], 16)
    return [meaning for bit, meaning in THROTTLE_BITS.items() if value & bit]


def check_config(args) -> tuple[Check, object]:
    from shotclock.shell.args import load_for

    try:
        config = load_for(args)
    except ConfigError as exc:
        return Check("FAIL", "config", f"{exc.source}: " + "; ".join(exc.problems)), None
    return Check("OK", "config", f"{config.source}: {config['mode']} mode, table {config['table']!r}"), config


def check_pins(config, factory_name: str) -> Check:
    from shotclock.adapters.pins import TablePins, make_pin_factory

    try:
        pins = TablePins(config.pins, lambda edge: None, make_pin_factory(factory_name, config.section("gpio")))
    except ShotclockError as exc:
        return Check("FAIL", "pins", str(exc))
    try:
        pressed = [f"'{role}' (BCM {config.pins[role]})" for role, down in pins.pressed_now().items() if down]
        factory = type(pins.factory).__name__
    finally:
        pins.close()
    if pressed:
        return Check("FAIL", "pins", f"{', '.join(pressed)} read pressed at rest: stuck, or wired to the wrong pin")
    return Check("OK", "pins", f"{factory}, {len(config.pins)} pins set up, no button pressed")


def check_display() -> Check:
    from shotclock.adapters.screen import probe_display

    driver, size, problem = probe_display()
    if problem:
        return Check("FAIL", "display", problem)
    return Check("OK", "display", f"SDL video driver '{driver}', {size[0]}x{size[1]}")


def check_audio(device: str = "") -> Check:
    from shotclock.adapters.sound import output_devices, probe_audio

    driver, problem = probe_audio(device)
    if problem:
        return Check("FAIL", "audio", problem)
    outputs = ", ".join(repr(n) for n in output_devices()) or "none listed"
    using = repr(device) if device else "the default"
    return Check("OK", "audio", f"SDL audio driver '{driver}', output {using} (outputs here: {outputs})")


def check_backlight(config, root=None) -> Check:
    """Whether the display has a backlight shotclock can dim (``screen.brightness``)."""
    from shotclock.adapters.backlight import SYSFS, backlights

    devices = backlights(root or SYSFS)
    if not devices:
        return Check("SKIP", "backlight", "none in /sys/class/backlight (an HDMI monitor has its own menu)")
    writable = [d.name for d in devices if os.access(d / "brightness", os.W_OK)]
    if not writable:
        return Check("FAIL", "backlight", f"{', '.join(d.name for d in devices)}: brightness not writable "
                                          "(the service user needs the video group)")
    return Check("OK", "backlight", f"{', '.join(writable)}: set to {config['screen.brightness']:g} at start")


def play_countdown(player, countdown: int, sleep=time.sleep) -> list[str]:
    """Play the countdown as the device does (``countdown`` … 1 a second apart, the tone at 0, the ruling
    tone), so a floor can hear the speaker; returns what was played, in order."""
    played = []
    for n in range(countdown, -1, -1):
        player.beep(n)
        played.append(str(n))
        sleep(1.0)
    player.ruling()
    played.append("ruling")
    sleep(1.5)  # let the ruling tone finish before the mixer closes
    return played


def check_sound(config, sleep=time.sleep) -> Check:
    """Play the countdown through the configured output and volume."""
    from shotclock.adapters.sound import SoundPlayer

    try:
        player = SoundPlayer(config["language"], config["sound.voice"], config["sound.volume"],
                             device=config["sound.device"])
    except ShotclockError as exc:
        return Check("FAIL", "sound", str(exc))
    try:
        if player.driver == "dummy":
            return Check("FAIL", "sound", "SDL audio driver 'dummy' plays nothing (unset SDL_AUDIODRIVER)")
        print(f"sound: playing the countdown through {config['sound.device'] or 'the default output'}...",
              flush=True)
        played = play_countdown(player, config.settings.countdown, sleep)
    finally:
        player.close()
    return Check("OK", "sound", f"played {' '.join(played)} at volume {config['sound.volume']} "
                                f"({'voice' if config['sound.voice'] else 'ticks'}): did you hear it?")


def check_power(run=subprocess.run) -> Check:
    if shutil.which("vcgencmd") is None:
        return Check("SKIP", "power", "no vcgencmd here (not a Raspberry Pi)")
    try:
        out = run(["vcgencmd", "get_throttled"], capture_output=True, text=True, timeout=5).stdout
        problems = decode_throttled(out)
    except (OSError, ValueError, subprocess.SubprocessError) as exc:
        return Check("FAIL", "power", f"cannot read vcgencmd get_throttled: {exc}")
    if problems:
        return Check("FAIL", "power", "; ".join(problems) + " (use the official power supply)")
    return Check("OK", "power", "no under-voltage or throttling since boot")


def service_running(run=subprocess.run) -> bool:
    """Whether systemd runs the shotclock service here (it then holds the pins, screen and sound)."""
    if shutil.which("systemctl") is None:
        return False
    try:
        # Quiet: without systemd as init (a container), systemctl explains so on stderr.
        return run(["systemctl", "is-active", "--quiet", "shotclock.service"], timeout=10,
                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL).returncode == 0
    except (OSError, subprocess.SubprocessError):
        return False


def held_by_service(check: Check) -> Check:
    """A device check that failed while the service runs: the service holds that device."""
    if check.status != "FAIL":
        return check
    return Check("SKIP", check.name, f"in use by the running shotclock service ({check.detail}); "
                                     "'systemctl stop shotclock' to test it alone")


def check_time(sync=None) -> Check:
    """Whether the system clock is synchronised (systemd's answer, or the kernel's without systemd)."""
    from shotclock.adapters.timesync import time_sync

    answer = sync if sync is not None else time_sync()
    if answer.synchronised is None:
        return Check("SKIP", "time", answer.how)
    if not answer.synchronised:
        # A warning, not a failure: the table's clock and the floor's commands need no time server.
        return Check("WARN", "time", f"the clock is not synchronised ({answer.how}): floor commands still work, "
                                     "but the log's and the archive's times may be wrong; point NTP at the floor "
                                     "laptop (hardware/README.md)")
    return Check("OK", "time", f"synchronised ({answer.how})")


def check_dealer(config, pin_factory, clock=time.monotonic, waker=None, show=None, sound=None, out=print,
                 seed=None) -> Check:
    """The dealer check (``--dealer``): a dozen cues at random moments, the dealer presses ACTION at each; the
    reaction time's median and spread against the tie window. OK when every answered press came within the
    tie window and none was missed; WARN otherwise (a floor's decision, not a fault); FAIL when the action
    button never answered (or the pins cannot be opened)."""
    from shotclock.adapters.pins import make_pin_factory
    from shotclock.shell.dealer import DealerCheckRun, new_check, open_pins, reader_for

    factory = make_pin_factory(pin_factory, config.section("gpio"), clock=clock) \
        if isinstance(pin_factory, str) else pin_factory
    run = DealerCheckRun(new_check(config, clock, seed), reader_for(config), clock, waker, show, sound, out,
                         config["language"])
    try:
        open_pins(run, config, factory)
    except ShotclockError as exc:
        return Check("FAIL", "dealer", str(exc))
    tie = config.settings.tie_window
    out(f"dealer: {len(run.check.cues)} cues at random moments: press ACTION as soon as the screen, the running "
        f"LED or the strobe lights up (or the tone sounds)")
    try:
        result = run.run()
    finally:
        run.pins.close()
    if not result.times:
        return Check("FAIL", "dealer", result.summary(tie) + " (is the action button wired?)")
    good = result.covered_by(tie) == len(result.times) and not result.missed
    return Check("OK" if good else "WARN", "dealer", result.summary(tie))


def _dealer_outputs(config):
    """The screen and the speaker for the dealer check, where they open (else the LEDs and the buzzer alone)."""
    from shotclock.adapters.screen import Screen
    from shotclock.shell.presenters import make_sound

    screen = None
    try:
        screen = Screen(config.screen_size, config["screen.fullscreen"], caption="shotclock dealer check")
    except HardwareError as exc:
        print(f"dealer: no screen ({exc}): the LEDs, the strobe and the sound give the cues")
    player, problem = make_sound(config)
    if problem:
        print(f"dealer: no sound ({problem})")
    return screen, player


def cmd_selftest(args) -> int:
    """Run every check and print one line each; exit 1 when any failed (an invalid configuration too:
    its check fails and the checks that need it say SKIP); a WARN (an unsynchronised clock) does not.

    While the shotclock service runs it owns the pins, the screen and the sound card: a check
    that cannot open one of them then says so (SKIP) instead of failing.
    """
    checks = []
    config_check, config = check_config(args)
    checks.append(config_check)
    skip = lambda name: Check("SKIP", name, "the configuration is invalid (see the config line)")
    devices = [check_pins(config, args.pins) if config is not None else skip("pins")]
    devices += [check_display(), check_audio(config["sound.device"] if config is not None else "")]
    if args.pins != "mock" and any(c.status == "FAIL" for c in devices) and service_running():
        devices = [held_by_service(c) for c in devices]
    checks += devices
    checks.append(check_power())
    checks.append(check_time())
    checks.append(check_backlight(config) if config is not None else skip("backlight"))
    if getattr(args, "sound", False):
        checks.append(check_sound(config) if config is not None else skip("sound"))
    for check in checks:
        print(check.line(), flush=True)
    if getattr(args, "dealer", False):
        if config is None:
            dealer = skip("dealer")
        else:
            screen, player = _dealer_outputs(config)
            try:
                dealer = check_dealer(config, args.pins, show=screen.show if screen else None, sound=player)
            finally:
                for part in (screen, player):
                    if part is not None:
                        part.close()
        print(dealer.line(), flush=True)
        checks.append(dealer)
    return 1 if any(c.status == "FAIL" for c in checks) else 0
