"""The appliance test's checks, run inside the booted VM as root (system Python, standard library only).

Usage: python3 checks.py OUT_DIR

Buttons are pressed through gpio-sim (the line's sysfs ``pull``), rulings are read back from
the decision log, the host takes screen dumps when asked (a ``NAME.request`` file in OUT_DIR,
answered by ``NAME.png``). Writes OUT_DIR/results.json: one entry per check and the figures.
"""

from __future__ import annotations

import json
import os
import pwd
import re
import shutil
import signal
import sqlite3
import subprocess
import sys
import time
import tomllib
import zipfile
from pathlib import Path

OUT = Path(sys.argv[1])
CONFIG = tomllib.loads(Path("/etc/shotclock/config.toml").read_text())
SECONDS = CONFIG["clock"]["seconds"]
TIE = CONFIG["clock"]["tie_window"]
PINS = {"floor": 17, "action": 27, "bet": 22, "extend": 23, "street": 24} | CONFIG.get("pins", {})
DB = "/var/lib/shotclock/shotclock.db"
SHOTCLOCK = "/opt/shotclock/current/venv/bin/shotclock"
SERVICE_ENV = ["env", "SDL_VIDEODRIVER=kmsdrm", "SDL_AUDIODRIVER=alsa", "LG_WD=/tmp"]
# install.sh waits for READY after a restart; an emulated start on a loaded host can take minutes.
INSTALL_ENV = dict(os.environ, SHOTCLOCK_READY_TIMEOUT="600")

results: list[dict] = []
figures: dict = {}


def say(text: str) -> None:
    print(f"[{time.monotonic():9.3f}] {text}", flush=True)


def check(name: str, ok: bool, detail: str = "") -> bool:
    results.append({"name": name, "ok": bool(ok), "detail": detail})
    say(f"{'PASS' if ok else 'FAIL'} {name}: {detail}")
    return ok


def unit() -> dict:
    props = ("ActiveState,SubState,MainPID,NRestarts,ActiveEnterTimestampMonotonic,ExecMainStartTimestampMonotonic,"
             "CPUUsageNSec")
    out = subprocess.run(["systemctl", "show", "shotclock.service", "-p", props], capture_output=True, text=True)
    return dict(line.split("=", 1) for line in out.stdout.splitlines() if "=" in line)


def wait_active(timeout: float, not_pid: str | None = None) -> dict | None:
    """Wait until the service is active (READY=1 sent) with a main PID other than ``not_pid``."""
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        u = unit()
        if u.get("ActiveState") == "active" and u.get("MainPID", "0") not in ("0", not_pid):
            return u
        time.sleep(0.1)
    return None


def journal(since_usec: int = 0) -> list[dict]:
    out = subprocess.run(["journalctl", "-u", "shotclock.service", "-b", "-o", "json", "--no-pager"],
                         capture_output=True, text=True)
    rows = [json.loads(line) for line in out.stdout.splitlines() if line.strip()]
    return [r for r in rows if int(r.get("__MONOTONIC_TIMESTAMP", 0)) >= since_usec]


def messages(since_usec: int = 0) -> list[str]:
    return [r.get("MESSAGE", "") if isinstance(r.get("MESSAGE"), str) else "" for r in journal(since_usec)]


def wait_message(since_usec: int, text: str, timeout: float = 30) -> list[str]:
    """The service's journal lines since ``since_usec`` holding ``text``, waiting up to ``timeout`` s for one:
    under load journald stores a line well after the service wrote it (seen: READY first)."""
    end = time.monotonic() + timeout
    while True:
        found = [m for m in messages(since_usec) if text in m]
        if found or time.monotonic() > end:
            return found
        time.sleep(0.5)


# -- the decision log ------------------------------------------------------------------------

def records_after(last_id: int) -> list[dict]:
    try:
        db = sqlite3.connect(f"file:{DB}?mode=ro", uri=True, timeout=2)
        try:
            rows = db.execute("SELECT id, clock, type, t, data FROM records WHERE id > ? ORDER BY id",
                              (last_id,)).fetchall()
        finally:
            db.close()
    except sqlite3.Error:
        return []
    out = []
    for rid, clock, kind, t, data in rows:
        rec = json.loads(data)
        rec.update(id=rid, clock=clock, type=kind, t=t)
        out.append(rec)
    return out


def last_id() -> int:
    recs = records_after(0)
    return recs[-1]["id"] if recs else 0


def wait_record(after: int, kind: str, timeout: float, **match) -> tuple[dict | None, float]:
    """The first record of ``kind`` after id ``after`` (matching ``match``), and when it was seen."""
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        for rec in records_after(after):
            if rec["type"] == kind and all(rec.get(k) == v for k, v in match.items()):
                return rec, time.monotonic()
        time.sleep(0.005)
    return None, time.monotonic()


# -- the simulated buttons -------------------------------------------------------------------

CHIP = Path(Path("/run/gpio-sim-table").read_text().strip())


def line(role: str) -> Path:
    return CHIP / f"sim_gpio{PINS[role]}"


def set_pull(role: str, pull: str) -> float:
    """Drive the button's line; returns CLOCK_MONOTONIC just before the write."""
    path = line(role) / "pull"
    t = time.monotonic()
    path.write_text(pull)
    return t


def press(role: str, hold: float = 0.15) -> tuple[float, float]:
    """Press and release a button: (monotonic before the press, before the release)."""
    down = set_pull(role, "pull-down")
    time.sleep(hold)
    up = set_pull(role, "pull-up")
    return down, up


def screendump(name: str, timeout: float = 60) -> float | None:
    """Ask the host for a screen dump; returns the guest's monotonic time it was taken around."""
    png = OUT / f"{name}.png"
    before = time.monotonic()
    for attempt in range(10):
        try:
            (OUT / f"{name}.request").write_text(str(before))
            break
        except OSError as exc:
            # Seen once on bookworm's 6.1 kernel: creating a file in the 9p share failed with ENOENT after
            # the host had removed an earlier request. Read the folder again and retry; if it keeps failing
            # the dump is missing (its check fails) and the other checks still run.
            say(f"screen dump '{name}': cannot write the request ({exc}); retrying")
            os.listdir(OUT)
            time.sleep(0.5)
    else:
        return None
    end = before + timeout
    while time.monotonic() < end:
        if png.exists() and (OUT / f"{name}.done").exists():
            return (before + time.monotonic()) / 2
        time.sleep(0.05)
    return None


# -- the checks ------------------------------------------------------------------------------

def check_ready() -> dict | None:
    u = wait_active(240)
    if not check("service READY under systemd", u is not None, json.dumps(u or unit())):
        return None
    ready = int(u["ActiveEnterTimestampMonotonic"]) / 1e6
    started = int(u["ExecMainStartTimestampMonotonic"]) / 1e6
    figures["boot_to_ready_s"] = round(ready, 2)
    figures["service_start_to_ready_s"] = round(ready - started, 2)
    uid = int(next(l.split()[1] for l in Path(f"/proc/{u['MainPID']}/status").read_text().splitlines()
                   if l.startswith("Uid:")))
    check("service runs as user shotclock", pwd.getpwuid(uid).pw_name == "shotclock", f"uid {uid}")
    lines = messages()
    # The device's own line ("shotclock.device: pins: floor=17, … on ChipLGPIOFactory"), not any line
    # of the logger shotclock.pins, which also ends in "pins:".
    pins_line = next((m for m in lines if re.search(r"(^|: )pins: ", m)), "")
    check("lgpio on the gpio-sim chip", "ChipLGPIOFactory" in pins_line, pins_line)
    dating = next((m for m in lines if "edges are dated by" in m), "")
    check("edges dated by the kernel", "kernel's timestamp" in dating, dating)
    video = next((m for m in lines if "video driver" in m), "")
    check("screen through KMSDRM", "kmsdrm" in video.lower(), video)
    audio = next((m for m in lines if "audio driver" in m or "running silently" in m), "")
    check("sound through ALSA", "audio driver 'alsa'" in audio, audio)
    return u


def call_clock(label: str) -> tuple[int, float] | None:
    """The floor calls a clock: (the log's last id before it, the clock's 0 on CLOCK_MONOTONIC)."""
    mark = last_id()
    press("floor")
    start, _ = wait_record(mark, "start", 10)
    if start is None:
        check(f"{label}: clock called", False)
        return None
    return mark, start["t"] + SECONDS


def check_rulings() -> None:
    t0, cpu0 = time.monotonic(), int(unit().get("CPUUsageNSec", 0))
    try:
        rulings()
    finally:
        figures["service_cpu_during_rulings"] = cpu_share(t0, cpu0)


def rulings() -> None:
    # A bet, then a call (the floor's button acts on release).
    mark = last_id()
    press("bet")
    rec, _ = wait_record(mark, "input", 10, event="bet")
    check("bet press recorded", rec is not None and rec.get("facing_bet") is True, json.dumps(rec))

    mark = last_id()
    press("floor")
    start, _ = wait_record(mark, "start", 10)
    if not check("floor press calls the clock", start is not None, json.dumps(start)):
        return
    time.sleep(1.5)

    # An action in time: the ruling is dated at the action's kernel edge timestamp.
    mark = last_id()
    down, _ = press("action")
    decision, seen = wait_record(mark, "decision", 10)
    edge, _ = wait_record(mark, "input", 1, event="action")
    ok = decision is not None and decision.get("outcome") == "acted" and edge is not None
    check("action in time: acted", ok, json.dumps(decision))
    if ok:
        figures["sysfs_write_to_edge_ms"] = round((edge["t"] - down) * 1000, 3)
        figures["edge_to_ruling_readable_ms"] = round((seen - decision["t"]) * 1000, 1)
        check("ruling dated at the press edge", abs(decision["t"] - edge["t"]) < 1e-5,
              f"decision t {decision['t']:.6f}, edge t {edge['t']:.6f}")
        # The ruling fills the screen for 10 s; software rendering under emulation can lag a
        # second or two behind, so the dump is taken in the middle of those 10 s.
        time.sleep(max(0.0, decision["t"] + 4 - time.monotonic()))
        shot = screendump("acted")
        if shot is not None:
            # 'shotclock log' numbers clocks 1, 2, 3... in the order they started.
            number = [r["id"] for r in records_after(0) if r["type"] == "start"].index(decision["clock"]) + 1
            replay = subprocess.run([SHOTCLOCK, "log", "--config", "/etc/shotclock/config.toml", "--state-dir",
                                     "/var/lib/shotclock", "export", "--replay", str(number)],
                                    capture_output=True, text=True)
            if replay.returncode != 0:
                say(f"log export --replay failed: {replay.stderr.strip()}")
            (OUT / "acted.replay.jsonl").write_text(replay.stdout)
            (OUT / "acted.at").write_text(f"{shot - start['t']:.3f}\n")
        check("screen dump of the ruling", shot is not None)

    # No action: the clock runs out with a bet faced, the hand is dead.
    mark = last_id()
    press("floor")
    start, _ = wait_record(mark, "start", 10)
    decision, _ = wait_record(mark, "decision", SECONDS + TIE + 15)
    check("expiry facing a bet: hand dead", decision is not None and decision.get("outcome") == "hand_dead",
          json.dumps(decision))

    # A tie: an action whose kernel edge timestamp lies inside the tie window counts.
    called = call_clock("tie")
    if called is None:
        return
    mark, zero = called
    time.sleep(max(0.0, zero + TIE * 0.4 - time.monotonic()))
    press("action", hold=0.05)
    decision, _ = wait_record(mark, "decision", TIE + 10)
    edge, _ = wait_record(mark, "input", 1, event="action")
    after = edge["t"] - zero if edge else None
    check("tie: press dated inside the window counts", after is not None and 0 < after <= TIE and decision is not None
          and decision.get("outcome") == "acted" and decision.get("at_zero") is True,
          f"edge {after if after is None else round(after, 3)} s after 0; {json.dumps(decision)}")
    if after is not None:
        figures["tie_edge_after_zero_s"] = round(after, 4)
        figures["tie_window_s"] = TIE

    # And one dated after the window does not: the hand was already ruled dead at its end.
    called = call_clock("late press")
    if called is None:
        return
    mark, zero = called
    time.sleep(max(0.0, zero + TIE + 0.3 - time.monotonic()))
    press("action", hold=0.05)
    decision, _ = wait_record(mark, "decision", 10)
    time.sleep(0.5)
    decisions = [r for r in records_after(mark) if r["type"] == "decision"]
    check("late press: hand dead at the end of the tie window", len(decisions) == 1
          and decisions[0].get("outcome") == "hand_dead", json.dumps(decisions))
    late = [r for r in records_after(mark) if r["type"] == "input" and r.get("button") == "action"]
    if late:
        figures["late_press_after_zero_s"] = round(late[0]["t"] - zero, 3)


def cpu_share(since: float, cpu_ns_then: int) -> float:
    """The service's CPU use since ``since`` (one core = 1.0)."""
    return round((int(unit().get("CPUUsageNSec", 0)) - cpu_ns_then) / 1e9 / (time.monotonic() - since), 2)


def check_selftest() -> None:
    proc = subprocess.run(["runuser", "-u", "shotclock", "--", *SERVICE_ENV, SHOTCLOCK, "selftest", "--config",
                           "/etc/shotclock/config.toml"], capture_output=True, text=True, timeout=300)
    (OUT / "selftest.txt").write_text(proc.stdout + proc.stderr)
    check("selftest passes while the service runs", proc.returncode == 0,
          " | ".join(proc.stdout.strip().splitlines()))


def check_sound_card() -> None:
    status = Path("/proc/asound/card0/pcm0p/sub0/status")
    text = status.read_text() if status.exists() else "(no card 0)"
    hw = Path("/proc/asound/card0/pcm0p/sub0/hw_params")
    params = hw.read_text() if hw.exists() else ""
    check("sound card opened by the service", "closed" not in params and params.strip() != "",
          (text.strip().splitlines() or ["?"])[0] + " / " + " ".join(params.split()[:4]))


def check_kill_restart() -> None:
    mark = last_id()
    press("floor")
    start, _ = wait_record(mark, "start", 10)
    time.sleep(2)
    before = unit()
    t0 = time.monotonic()
    os.kill(int(before["MainPID"]), signal.SIGKILL)
    after = wait_active(60, not_pid=before["MainPID"])
    ok = after is not None and int(after["NRestarts"]) > int(before["NRestarts"])
    check("kill -9: systemd restarts the service", ok, f"{before['MainPID']} -> {after and after['MainPID']}")
    if ok:
        figures["kill9_to_ready_s"] = round(int(after["ActiveEnterTimestampMonotonic"]) / 1e6 - t0, 2)
        restored = wait_message(int(t0 * 1e6), "was interrupted")
        check("the clock comes back interrupted", bool(restored), restored[0] if restored else "no such log line")
        time.sleep(4)  # its first frame, drawn in software under emulation
        screendump("interrupted")


def check_watchdog() -> None:
    before = unit()
    t0 = time.monotonic()
    os.kill(int(before["MainPID"]), signal.SIGSTOP)
    after = wait_active(240, not_pid=before["MainPID"])  # the VM's 30 s watchdog, then a start in emulation
    check("a hung main loop (SIGSTOP) is restarted by the watchdog", after is not None,
          f"{before['MainPID']} -> {after and after['MainPID']}")
    if after:
        figures["sigstop_to_ready_s"] = round(int(after["ActiveEnterTimestampMonotonic"]) / 1e6 - t0, 2)
        watchdog = [m for m in messages(int(t0 * 1e6)) if "atchdog" in m]
        check("systemd names the watchdog", bool(watchdog), watchdog[0] if watchdog else "")


def version_of(link: str) -> str:
    return os.readlink(f"/opt/shotclock/{link}") if os.path.islink(f"/opt/shotclock/{link}") else ""


def run_version() -> str:
    proc = subprocess.run([SHOTCLOCK, "--version"], capture_output=True, text=True, timeout=120)
    return proc.stdout.strip().removeprefix("shotclock ")


def check_installed_from_bundle() -> str:
    """The install boot ran install.sh from the offline bundle: its version is the current one."""
    bundled = sorted(Path("/srv/offline").glob("shotclock-*/wheels/shotclock-*.whl"))
    version = bundled[-1].name.split("-")[1] if bundled else "?"
    shown = run_version()
    check("installed from the offline bundle (network off): its version runs", version_of("current") == version
          and shown == version, f"bundle {version}, current -> {version_of('current')}, --version {shown}")
    log = (OUT / "install.log").read_text() if (OUT / "install.log").exists() else ""
    checked = next((l for l in log.splitlines() if "bundle checked" in l), "")
    left = [p.name for p in sorted(Path("/srv/offline").glob("shotclock-*/"))[-1].iterdir() if p.name.startswith(".")]
    check("install.sh leaves nothing in the bundle's folder", not left, ", ".join(left))
    check("the bundle's signature and SHA256SUMS were checked, the key kept", "signed by /srv/offline/release.pub"
          in checked and Path("/etc/shotclock/release.pub").read_bytes() == Path("/srv/offline/release.pub").read_bytes()
          and "is READY under systemd" in log, checked)
    return version


def tampered_bundle(new_sums: bool) -> Path:
    """A copy of the offline bundle whose shotclock wheel was rebuilt with a changed core/engine.py (a valid
    zip); with ``new_sums`` SHA256SUMS is made anew to match it, as someone who changed it would."""
    src = sorted(Path("/srv/offline").glob("shotclock-*/"))[-1]
    dst = Path("/tmp/tampered") / src.name
    shutil.rmtree(dst.parent, ignore_errors=True)
    shutil.copytree(src, dst, ignore=lambda folder, names: [n for n in names if not (Path(folder, n).is_file()
                                                                                 or Path(folder, n).is_dir())])
    wheel = sorted(dst.glob("wheels/shotclock-*.whl"))[-1]
    with zipfile.ZipFile(wheel) as z:
        entries = [(info, z.read(info)) for info in z.infolist()]
    with zipfile.ZipFile(wheel, "w", zipfile.ZIP_DEFLATED) as z:
        for info, data in entries:
            if info.filename == "shotclock/core/engine.py":
                data += b"\nTIE_WINDOW_FOR_THE_HOUSE = True\n"
            z.writestr(info, data)
    if new_sums:
        files = sorted(p for p in dst.rglob("*") if p.is_file() and p.name not in ("SHA256SUMS", "SHA256SUMS.sig"))
        sums = subprocess.run(["sha256sum", *[str(p.relative_to(dst)) for p in files]], cwd=dst, capture_output=True,
                              text=True, check=True).stdout
        (dst / "SHA256SUMS").write_text(sums)
    return dst


def check_tampered_bundle() -> None:
    """A bundle whose wheel was changed is refused before anything changes: by SHA256SUMS, and by the signature
    when SHA256SUMS was made anew."""
    for new_sums, words, name in ((False, "does not match its SHA256SUMS", "a bundle with a changed wheel"),
                                  (True, "signature does not match", "a changed wheel with new SHA256SUMS")):
        before, current = unit(), version_of("current")
        top = tampered_bundle(new_sums)
        proc = subprocess.run(["sh", "hardware/install.sh"], cwd=top, capture_output=True, text=True, timeout=300)
        (OUT / f"tampered{'-sums' if new_sums else ''}.log").write_text(proc.stdout + proc.stderr)
        after = unit()
        check(f"{name} is refused (exit 3, one line), nothing changed", proc.returncode == 3
              and proc.stderr.count("\n") == 1 and words in proc.stderr and version_of("current") == current
              and after.get("MainPID") == before.get("MainPID") and after.get("ActiveState") == "active",
              f"exit {proc.returncode}: {proc.stderr.strip()}")


def check_rollback_to_a_broken_version(bundled: str) -> None:
    """--rollback to a version that never becomes ready: install.sh sees systemd restart it, switches back, exits 4."""
    broken = f"{bundled}+update"
    exe = Path(f"/opt/shotclock/{broken}/venv/bin/shotclock")
    if version_of("current") != bundled or version_of("previous") != broken or not exe.exists():
        check("--rollback to a version that does not start switches back", False,
              f"current -> {version_of('current')}, previous -> {version_of('previous')}")
        return
    kept = exe.with_name("shotclock.kept")
    exe.rename(kept)
    exe.write_text("#!/bin/sh\necho 'shotclock: broken on purpose by the appliance test' >&2\nexit 1\n")
    exe.chmod(0o755)
    try:
        t0 = time.monotonic()
        proc = subprocess.run(["sh", "hardware/install.sh", "--rollback"], cwd="/root/shotclock", capture_output=True,
                              text=True, timeout=1500, env=INSTALL_ENV)
        (OUT / "rollback-broken.log").write_text(proc.stdout + proc.stderr)
        figures["rollback_to_broken_s"] = round(time.monotonic() - t0, 1)
        after = wait_active(120)
        check("--rollback to a version that does not start switches back (exit 4, says so)", proc.returncode == 4
              and f"switched back to shotclock {bundled}, which runs" in proc.stderr and after is not None
              and version_of("current") == bundled and version_of("previous") == broken,
              f"exit {proc.returncode}: {proc.stderr.strip()}; current -> {version_of('current')}")
    finally:
        kept.replace(exe)


def check_update_and_rollback(bundled: str) -> None:
    before = unit()
    t0 = time.monotonic()
    proc = subprocess.run(["sh", "hardware/install.sh"], cwd="/root/shotclock", capture_output=True, text=True,
                          timeout=1500, env=INSTALL_ENV)
    (OUT / "reinstall.log").write_text(proc.stdout + proc.stderr)
    after = wait_active(120, not_pid=before["MainPID"])
    figures["reinstall_s"] = round(time.monotonic() - t0, 1)
    check("re-running install.sh updates and restarts", proc.returncode == 0 and after is not None,
          (proc.stdout.strip().splitlines() or [""])[-1])
    log_kept = Path(DB).exists() and last_id() > 0
    check("the decision log survives the update", log_kept)
    new = run_version()
    check("the update runs beside the version before it", new == f"{bundled}+update"
          and version_of("current") == new and version_of("previous") == bundled
          and Path(f"/opt/shotclock/{bundled}/venv/bin/shotclock").exists(),
          f"current -> {version_of('current')}, previous -> {version_of('previous')}, --version {new}")
    before = after or unit()
    t0 = time.monotonic()
    proc = subprocess.run(["sh", "hardware/install.sh", "--rollback"], cwd="/root/shotclock", capture_output=True,
                          text=True, timeout=900, env=INSTALL_ENV)
    (OUT / "rollback.log").write_text(proc.stdout + proc.stderr)
    after = wait_active(120, not_pid=before["MainPID"])
    figures["rollback_s"] = round(time.monotonic() - t0, 1)
    exe = os.readlink(f"/proc/{after['MainPID']}/exe") if after else ""
    cmdline = Path(f"/proc/{after['MainPID']}/cmdline").read_bytes().replace(b"\0", b" ").decode() if after else ""
    check("--rollback returns to the previous version and restarts", proc.returncode == 0 and after is not None
          and run_version() == bundled and version_of("previous") == f"{bundled}+update",
          f"{(proc.stdout.strip().splitlines() or [''])[-1]}; runs {cmdline or exe}")


def check_firstboot() -> None:
    """A first-boot file from 'shotclock provision' on the boot partition: the unit takes it, the table starts."""
    work = Path("/tmp/provision")
    steps = [[SHOTCLOCK, "broker-config", str(work / "broker"), "--venue", "vm", "--tables", "1"],
             [SHOTCLOCK, "provision", str(work / "cards"), "--broker-dir", str(work / "broker"), "--venue", "vm",
              "--tables", "1", "--broker", "127.0.0.1:1883", "--names", "VM {id}", "--time-server", "127.0.0.1",
              "--template", "/etc/shotclock/config.toml"]]
    for step in steps:
        proc = subprocess.run(step, capture_output=True, text=True, timeout=300)
        if proc.returncode != 0:
            check("first-boot provisioning", False, f"{step[1]}: {proc.stderr.strip()}")
            return
    boot = Path("/boot/firmware")
    boot.mkdir(parents=True, exist_ok=True)
    card = boot / "shotclock-firstboot.toml"
    card.write_bytes((work / "cards" / "1" / "shotclock-firstboot.toml").read_bytes())
    before = unit()
    proc = subprocess.run(["systemctl", "start", "shotclock-firstboot.service"], capture_output=True, text=True,
                          timeout=300)
    secret = Path("/etc/shotclock/credentials.toml")
    st = secret.stat() if secret.exists() else None
    config = tomllib.loads(Path("/etc/shotclock/config.toml").read_text())
    network = config.get("network", {})
    check("first boot takes the file into /etc/shotclock and deletes it from the boot partition",
          proc.returncode == 0 and not card.exists() and st is not None and oct(st.st_mode & 0o777) == "0o600"
          and pwd.getpwuid(st.st_uid).pw_name == "shotclock" and network.get("table_id") == "1"
          and network.get("enabled") is True and config.get("time", {}).get("server") == "127.0.0.1",
          f"rc {proc.returncode}, file left: {card.exists()}, secret {st and oct(st.st_mode & 0o777)} "
          f"{st and pwd.getpwuid(st.st_uid).pw_name}, network {json.dumps(network)}")
    subprocess.run(["systemctl", "restart", "shotclock.service"], capture_output=True, timeout=300)
    after = wait_active(120, not_pid=before["MainPID"])
    since = int(before.get("ExecMainStartTimestampMonotonic", "0") or 0)
    told = wait_message(since, "venue 'vm'") if after is not None else []
    check("the device starts as the provisioned table", after is not None and bool(told),
          told[0] if told else json.dumps(after))


def check_uninstall() -> None:
    proc = subprocess.run(["sh", "hardware/install.sh", "--uninstall"], cwd="/root/shotclock", capture_output=True,
                          text=True, timeout=300)
    (OUT / "uninstall.log").write_text(proc.stdout + proc.stderr)
    gone = unit().get("ActiveState") != "active" and not Path("/opt/shotclock").exists()
    check("uninstall removes the service and keeps the log", proc.returncode == 0 and gone and Path(DB).exists(),
          (proc.stdout.strip().splitlines() or [""])[-1])


def main() -> int:
    try:
        if check_ready() is not None:
            bundled = check_installed_from_bundle()
            time.sleep(3)
            screendump("ready")
            check_rulings()
            check_sound_card()
            check_selftest()
            check_kill_restart()
            check_watchdog()
            if os.environ.get("VMTEST_SKIP_REINSTALL") != "1":
                check_update_and_rollback(bundled)
                check_tampered_bundle()
                check_rollback_to_a_broken_version(bundled)
                check_firstboot()
                check_uninstall()
    except Exception as exc:  # a broken check must still leave its results
        check("checks ran to the end", False, f"{type(exc).__name__}: {exc}")
    (OUT / "results.json").write_text(json.dumps({"checks": results, "figures": figures}, indent=2))
    return 0 if results and all(r["ok"] for r in results) else 1


if __name__ == "__main__":
    sys.exit(main())
