"""The real device process: script mode on fake pins, systemd notify, the unit and the installer."""

import os
import shutil
import socket
import subprocess
import sys
import threading
from pathlib import Path

import pytest

import shotclock
from helpers import read_report, run_device
from shotclock.adapters.log import DecisionLog

HARDWARE = Path(__file__).parent.parent / "hardware"


def run_script(tmp_path, lines, config="", env=None, timeout=60):
    proc = run_device(tmp_path, config=config or None, script=lines, env=env, timeout=timeout)
    assert proc.returncode == 0, proc.stderr
    return read_report(tmp_path / "report.jsonl")


SHORT = "[clock]\nseconds = 2\ncountdown = 1\ntie_window = 0.25\n"


@pytest.mark.slow
def test_script_mode_rules_with_inputs_dated_at_their_edges(tmp_path):
    # Presses held 0.3 s (the bet a 0.05 s tap, decided at its release): each dated at its press edge.
    script = [
        {"t": 0.1, "button": "bet", "hold": 0.05, "bounce": 4},
        {"t": 0.2, "button": "floor", "hold": 0.3, "bounce": 4},   # call at its press edge, 0.2
        {"t": 0.9, "button": "action", "hold": 0.3, "bounce": 6},  # acted, 1.3 s left
        {"t": 1.5, "button": "floor", "hold": 0.3, "bounce": 2},   # call at 1.5; expires at 3.75
    ]
    report = run_script(tmp_path, script, SHORT)
    inputs = [r for r in report if r["type"] == "input"]
    assert [(i["event"], i["button"]) for i in inputs] == [("bet", "bet"), ("call", "floor"), ("action", "action"),
                                                           ("call", "floor")]
    # The script player is a sleeping thread: on a loaded machine it drives a pin late. What the
    # device must do is date each input at the edge the pin really made -- the log holds those.
    scripted = [0.1, 0.2, 0.9, 1.5]
    for record, edge in zip(inputs, scripted):
        assert abs(record["t"] - edge) < 0.5, record  # the right press (the exact check is against the log)
    log = DecisionLog(tmp_path / "state", readonly=True)
    edges = log.rows("WHERE type = 'edge'")
    logged_inputs = log.rows("WHERE type = 'input'")
    presses = sorted(t for t in (e["t"] for e in edges if e["pressed"]))
    for record in logged_inputs:
        assert record["t"] in presses, record  # exactly a press edge's time (a release would not match)
        same = [e for e in edges if e["button"] == record["button"] and e["t"] < record["t"] and
                record["t"] - e["t"] < 0.05]
        assert not same, (record, same)  # the first edge of its press, not a bounce or the release
    decisions = [r for r in report if r["type"] == "decision"]
    assert [d["outcome"] for d in decisions] == ["acted", "hand_dead"]
    logged = log.rows("WHERE type = 'decision'")
    call, action, call2 = (r["t"] for r in logged_inputs[1:])
    assert logged[0]["remaining"] == pytest.approx(2 - (action - call), abs=1e-6)
    assert logged[1]["t"] == pytest.approx(call2 + 2.25, abs=1e-6)
    beeps = [r for r in report if r["type"] == "beep"]
    assert [b["remaining"] for b in beeps] == [1, 0]
    # The whole run again from the raw edges in the log: the same inputs and rulings.
    check = subprocess.run([sys.executable, "-m", "shotclock", "log", "--state-dir", str(tmp_path / "state"),
                            "replay", "--check"], capture_output=True, text=True, timeout=60)
    assert check.returncode == 0 and check.stdout.startswith("OK: session"), check.stdout + check.stderr
    for r in beeps + decisions[1:]:
        assert 0 <= r["t"] - r["due"] < 0.5  # acted on in time order, never early (figures: see bench/)


@pytest.mark.slow
def test_script_errors_name_the_line(tmp_path):
    proc = run_device(tmp_path, script=[{"t": 0.1, "button": "flor"}])
    assert proc.returncode == 2
    assert "line 1: 'button' must be one of floor, action, bet, extend, street, not 'flor'" in proc.stderr


@pytest.mark.slow
def test_ready_and_watchdog_arrive_on_notify_socket(tmp_path):
    path = str(tmp_path / "notify.sock")
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
    sock.bind(path)
    sock.settimeout(0.2)
    env = dict(os.environ, NOTIFY_SOCKET=path, WATCHDOG_USEC="200000")
    env.pop("WATCHDOG_PID", None)
    # Read as systemd does, while the device runs: the socket's queue holds only a few datagrams
    # (net.unix.max_dgram_qlen, 10 by default), and the device drops a message rather than wait.
    messages, done = [], threading.Event()

    def read():
        while True:
            try:
                messages.append(sock.recv(4096).decode())
            except (socket.timeout, BlockingIOError):
                if done.is_set():
                    return

    reader = threading.Thread(target=read, daemon=True)
    reader.start()
    try:
        run_script(tmp_path, [{"t": 0.8, "button": "bet", "hold": 0.05}], env=env)
    finally:
        done.set()
        reader.join(30)
    assert messages[0].startswith("READY=1\nSTATUS=clock mode")
    pings = [m for m in messages if m == "WATCHDOG=1"]
    assert len(pings) >= 5  # every 0.1 s over a run of about a second: the loop pings, it does not hang
    assert messages[-1] == "STOPPING=1"


@pytest.mark.slow
def test_device_runs_on_when_the_log_cannot_be_opened(tmp_path):
    blocker = tmp_path / "not-a-dir"
    blocker.write_text("")
    proc = run_device(tmp_path, script=[{"t": 0.1, "button": "floor"}, {"t": 0.5, "button": "action"}],
                      state=blocker / "state")
    assert proc.returncode == 0
    assert "the device runs on and keeps trying" in proc.stderr and str(blocker) in proc.stderr
    report = read_report(tmp_path / "report.jsonl")
    assert [r["outcome"] for r in report if r["type"] == "decision"] == ["acted"]


def test_notifier_is_silent_without_systemd():
    from shotclock.adapters.systemd import SystemdNotifier

    n = SystemdNotifier(env={})
    n.ready("x", 0)  # no socket: nothing happens, nothing fails
    assert n.next_wake(0) is None


def test_unit_file_has_what_the_service_needs():
    unit = (HARDWARE / "shotclock.service").read_text()
    for line in ("Type=notify", "WatchdogSec=", "Restart=always", "User=shotclock",
                 "RuntimeDirectory=shotclock",
                 "Environment=LG_WD=%t/shotclock", "StateDirectory=shotclock", "Environment=SDL_VIDEODRIVER=kmsdrm"):
        assert line in unit


def unit_directives(text: str) -> dict[str, list[str]]:
    """The unit's directives, each with every value it is given."""
    found: dict[str, list[str]] = {}
    for line in text.splitlines():
        if "=" in line and not line.startswith(("#", "[")):
            key, value = line.split("=", 1)
            found.setdefault(key.strip(), []).append(value.strip())
    return found


def test_unit_is_sandboxed_to_what_the_device_uses():
    unit = unit_directives((HARDWARE / "shotclock.service").read_text())
    for key, value in (("NoNewPrivileges", "yes"), ("ProtectSystem", "strict"), ("PrivateTmp", "yes"),
                       ("ProtectHome", "yes"), ("DevicePolicy", "closed"), ("CapabilityBoundingSet", "")):
        assert unit.get(key) == [value], key
    # Only the devices it opens: the GPIO chip, the screen, the sound card, input devices read-only.
    assert sorted(unit["DeviceAllow"]) == ["char-alsa rw", "char-drm rw", "char-gpiochip r" + "w", "char-input r"]
    assert unit["ReadWritePaths"] == ["-/var/lib/shotclock"] and unit["StateDirectory"] == ["shotclock"]
    assert set(unit["RestrictAddressFamilies"][0].split()) == {"AF_UNIX", "AF_INET", "AF_INET6", "AF_NETLINK"}
    # The backlight is written in /sys: ProtectKernelTunables would make it read-only.
    assert "ProtectKernelTunables" not in unit and "PrivateDevices" not in unit
    # Ordered after time is set and synchronised, without pulling time-sync.target in (an offline table starts).
    assert "time-sync.target" in " ".join(unit["After"]) and "time-set.target" in " ".join(unit["After"])
    assert "time-sync.target" not in " ".join(unit.get("Wants", []) + unit.get("Requires", []))


@pytest.mark.skipif(shutil.which("systemd-analyze") is None, reason="systemd-analyze not installed")
def test_unit_exposure_stays_low(tmp_path):
    """systemd-analyze's exposure score (0 to 10, 9.2 for the unit with no sandboxing) stays at 2.5 or below."""
    path = tmp_path / "shotclock.service"
    path.write_text((HARDWARE / "shotclock.service").read_text().replace(
        "/opt/shotclock/current/venv/bin/shotclock", shutil.which("true")))
    proc = subprocess.run(["systemd-analyze", "security", "--offline=true", "--threshold=25", str(path)],
                          capture_output=True, text=True, timeout=60)
    if "--offline" in proc.stderr and "unrecognized" in proc.stderr:
        pytest.skip("this systemd-analyze has no --offline (systemd 250 added it)")
    score = next((line for line in proc.stdout.splitlines() if "Overall exposure level" in line), proc.stderr)
    assert proc.returncode == 0, score


@pytest.mark.skipif(shutil.which("systemd-analyze") is None, reason="systemd-analyze not installed")
def test_unit_passes_systemd_analyze_verify(tmp_path):
    unit = (HARDWARE / "shotclock.service").read_text()
    # verify checks that ExecStart exists; point it at a binary that does.
    unit = unit.replace("/opt/shotclock/current/venv/bin/shotclock", shutil.which("true"))
    path = tmp_path / "shotclock.service"
    path.write_text(unit)
    proc = subprocess.run(["systemd-analyze", "verify", str(path)], capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0, proc.stderr
    assert "shotclock.service" not in proc.stderr, proc.stderr


def test_install_script_dry_run_does_every_step():
    # sh, not bash: 'sudo sh install.sh' is how people run it (dash on Debian).
    proc = subprocess.run(["sh", str(HARDWARE / "install.sh")], env=dict(os.environ, DRY_RUN="1"),
                          capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0, proc.stderr
    out = proc.stdout
    version = shotclock.__version__
    for step in ("apt-get install", "python3-lgpio", "libopengl0",
                 f"venv --system-site-packages /opt/shotclock/{version}/venv", f"ln -sfn {version} /opt/shotclock/current",
                 "shotclock-firstboot.service", "systemd-timesyncd",
                 "config.example.toml",
                 "/etc/systemd/system/shotclock.service", "systemctl enable shotclock.service",
                 "systemctl restart --no-block shotclock.service",
                 "shotclock selftest", "config --check"):
        assert step in out, step
    # lgpio's notify pipe goes to /tmp, not into the folder install.sh runs from (a bundle's is checked).
    assert f"+ env LG_WD=/tmp /opt/shotclock/{version}/venv/bin/python -c import lgpio" in out


def test_install_script_uninstall_keeps_the_log_unless_purged():
    def dry(*args):
        return subprocess.run(["sh", str(HARDWARE / "install.sh"), *args], env=dict(os.environ, DRY_RUN="1"),
                              capture_output=True, text=True, timeout=60)

    keep = dry("--uninstall")
    assert keep.returncode == 0, keep.stderr
    assert "systemctl disable --now shotclock.service" in keep.stdout or "/etc/systemd/system" not in keep.stdout
    assert "rm -rf /opt/shotclock" in keep.stdout and "/var/lib/shotclock" not in keep.stdout.replace(
        "kept the decision log in /var/lib/shotclock", "")
    purge = dry("--uninstall", "--purge")
    assert "rm -rf /var/lib/shotclock /etc/shotclock" in purge.stdout
    wrong = dry("--purge")
    assert wrong.returncode == 2 and wrong.stderr.count("\n") == 1 and "--uninstall" in wrong.stderr


def test_run_on_a_machine_without_gpio_says_what_to_do(tmp_path):
    # Make every real backend unavailable, as on a desktop.
    env = {k: v for k, v in os.environ.items() if k != "GPIOZERO_PIN_FACTORY"}
    env["PYTHONPATH"] = str(tmp_path)
    for name in ("lgpio", "RPi", "pigpio"):
        (tmp_path / f"{name}.py").write_text("raise ImportError('not on this machine')\n")
    proc = run_device(tmp_path, pins=None, extra=["--no-log"], env=env)
    assert proc.returncode == 2
    assert "no GPIO here (" in proc.stderr and "shotclock simulate" in proc.stderr
    assert "Traceback" not in proc.stderr and "warnings.warn" not in proc.stderr


def test_install_script_options_are_checked_in_one_line():
    def dry(*args):
        return subprocess.run(["sh", str(HARDWARE / "install.sh"), *args], env=dict(os.environ, DRY_RUN="1"),
                              capture_output=True, text=True, timeout=60)

    for args, words in ((("--version",), "--version needs a value"), (("--rollback", "--uninstall"), "alone"),
                        (("--version", "9.9.9"), "not 9.9.9"), (("--frobnicate",), "unknown option")):
        proc = dry(*args)
        assert proc.returncode in (1, 2) and words in proc.stderr and proc.stderr.count("\n") == 1, (args, proc)


def test_install_script_dry_run_puts_the_log_on_its_own_partition():
    def dry(*args):
        return subprocess.run(["sh", str(HARDWARE / "install.sh"), *args], env=dict(os.environ, DRY_RUN="1"),
                              capture_output=True, text=True, timeout=60)

    proc = dry("--data-partition", "/dev/mmcblk0p3")
    assert proc.returncode == 0, proc.stderr
    step = next(line for line in proc.stdout.splitlines() if line.startswith("+ /dev/mmcblk0p3:"))
    # A mount unit, not an fstab line: overlayroot would put an fstab mount in RAM too.
    assert "/etc/systemd/system/var-lib-shotclock.mount" in step and "mkfs.ext4 -L shotlog" in step
    # Before the service starts again, so the log is written onto the partition from the first record.
    assert proc.stdout.index(step) < proc.stdout.index("systemctl restart --no-block shotclock.service")
    assert "mount" not in dry().stdout.replace("mountpoint", "")
    for args in (("--data-partition",), ("--data-partition", "/dev/sda1", "--rollback"),
                 ("--data-partition", "/dev/sda1", "--uninstall"), ("--data-partition", "/dev/sda1", "--prepare")):
        wrong = dry(*args)
        assert wrong.returncode == 2 and wrong.stderr.count("\n") == 1 and "--data-partition" in wrong.stderr, args


def test_install_script_data_partition_unit_is_kept_on_uninstall_and_removed_on_purge():
    install = (HARDWARE / "install.sh").read_text()
    purge = install[install.index('if [ -n "$purge" ]; then'):install.index('say "uninstalled"')]
    # Emptied while mounted, then unmounted: 'rm -rf' on a mount point would stop at the busy directory.
    assert purge.index('find "$STATE_DIR" -mindepth 1 -delete') < purge.index('disable --now') \
        < purge.index('rm -f "$DATA_UNIT"') < purge.index('rm -rf "$STATE_DIR"')
    assert "WantedBy=local-fs.target" in install and "/etc/fstab" not in install.replace("an /etc/fstab line", "")


def test_install_script_dry_run_points_time_sync_at_the_floor():
    proc = subprocess.run(["sh", str(HARDWARE / "install.sh"), "--time-server", "floor.local"],
                          env=dict(os.environ, DRY_RUN="1"), capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0, proc.stderr
    assert "NTP=floor.local" in proc.stdout and "systemctl restart systemd-timesyncd.service" in proc.stdout


@pytest.mark.skipif(shutil.which("systemd-analyze") is None, reason="systemd-analyze not installed")
def test_firstboot_unit_passes_systemd_analyze_verify(tmp_path):
    unit = (HARDWARE / "shotclock-firstboot.service").read_text()
    assert "Before=shotclock.service" in unit and "Type=oneshot" in unit
    path = tmp_path / "shotclock-firstboot.service"
    path.write_text(unit.replace("/opt/shotclock/current/venv/bin/shotclock", shutil.which("true")))
    proc = subprocess.run(["systemd-analyze", "verify", str(path)], capture_output=True, text=True, timeout=60)
    assert "shotclock-firstboot.service" not in proc.stderr, proc.stderr
