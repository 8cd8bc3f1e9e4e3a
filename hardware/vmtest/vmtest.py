"""The appliance test: shotclock installed by hardware/install.sh on Debian, booted in QEMU, checked from outside.

Run it as ``./dev vmtest`` (as root: it uses debootstrap and chroot). Steps, each timed:

1. **image**: a Debian root file system (debootstrap; trixie, the base of today's Raspberry Pi OS,
   or ``--suite bookworm``), gpio-sim.ko built for its kernel, the packages install.sh asks for as a
   local apt repository, the Python wheels as a local folder. Cached in ``--cache`` (default
   /var/cache/shotclock-vmtest), keyed by what each stage is made from.
2. **install boot**: the VM runs ``sh hardware/install.sh`` from the offline bundle (``tools/bundle.py``
   made from this checkout), with no network device at all.
3. **check boot**: the VM boots the installed system; guest/checks.py presses buttons through
   gpio-sim and reads the rulings back; this script takes the screen dumps it asks for through the
   QEMU monitor, compares one with ``shotclock screenshot`` of the same moment, and looks at the WAV
   file the emulated sound card played into.

With ``--read-only`` the run is instead: an install boot that also gives the decision log a partition of its
own (``install.sh --data-partition``, a second virtual disk) and installs overlayroot as Raspberry Pi OS's
overlay file system option does, the table provisioned for a broker this script runs on the host
(floornet.py); a boot with the root read-only (``overlayroot=tmpfs``) that runs a clock and asks for a hard
reset in the middle of it (QEMU killed with SIGKILL); a boot after it that checks nothing written to the root
survived, the log verifies, and the clock comes back paused with its time, after which the host sends the
floor's seat commands and a top-up (``shotclock send``) and kills QEMU the moment the top-up's ack arrives;
and a boot that checks the log holds every acked seat, name and bank and the table restored them.

Prints a report with timings and writes it to OUT/report.json and OUT/report.md. Exit 0 when every
check passed, 1 when one failed, 2 for bad arguments or a missing tool.
"""

from __future__ import annotations

import argparse
import configparser
import contextlib
import fcntl
import hashlib
import json
import os
import shutil
import socket
import subprocess
import sys
import tempfile
import time
import wave
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
import floornet  # noqa: E402  (the read-only run's floor network: a broker on the host, a cut after an ack)

ROOT = HERE.parent.parent
INSTALL_SH = ROOT / "hardware" / "install.sh"
TOOLS = {"debootstrap": "debootstrap", "dpkg-scanpackages": "dpkg-dev", "mkfs.ext4": "e2fsprogs", "git": "git",
         "signify-openbsd": "signify-openbsd"}
# The emulated CPU: x86-64 (CI), or arm64, the Pi's own (a longer check: its first run builds its image
# through qemu-user; see "The appliance test" in README.md).
ARCHES = {
    "x86_64": {"debian": "amd64", "wheel": "x86_64", "qemu": "qemu-system-x86_64",
               "tools": {"qemu-system-x86_64": "qemu-system-x86"}},
    "arm64": {"debian": "arm64", "wheel": "aarch64", "qemu": "qemu-system-aarch64",
              "tools": {"qemu-system-aarch64": "qemu-system-arm", "qemu-aarch64-static": "qemu-user-static",
                        "update-binfmts": "binfmt-support", "depmod": "kmod"}},
}
SUITES = {"trixie": "3.13", "bookworm": "3.11"}
GLIBC = {"trixie": 41, "bookworm": 36}


def say(text: str) -> None:
    print(f"vmtest: {text}", flush=True)


class Fail(Exception):
    """A problem that stops the test (a missing tool, a failed build step)."""


def digest(*parts) -> str:
    h = hashlib.sha256()
    for p in parts:
        h.update(p.read_bytes() if isinstance(p, Path) else str(p).encode())
    return h.hexdigest()[:12]


def run(cmd, **kw) -> subprocess.CompletedProcess:
    proc = subprocess.run(cmd, capture_output=True, text=True, **kw)
    if proc.returncode != 0:
        raise Fail(f"{' '.join(map(str, cmd[:3]))} failed:\n{(proc.stdout + proc.stderr)[-3000:]}")
    return proc


@contextlib.contextmanager
def locked(path: Path, what: str):
    """Hold an exclusive lock on ``path`` (flock): runs side by side (CI builds the images in the background)
    build a stage or install the tools once, the second one waiting for the first."""
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path, "a") as f:
        try:
            fcntl.flock(f, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            say(f"{what}: waiting for another run that holds {path}")
            fcntl.flock(f, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(f, fcntl.LOCK_UN)


def ensure_tools(*arches: str) -> None:
    """Install qemu, debootstrap and dpkg-dev from Debian's packages when missing (and, for arm64,
    qemu-user with binfmt, so the image's arm64 programs run on this host)."""
    arches = arches or ("x86_64",)
    wanted = dict(TOOLS)
    for arch in arches:
        wanted.update(ARCHES[arch]["tools"])
    with locked(Path("/run/shotclock-vmtest-tools.lock"), "host tools"):
        missing = sorted({pkg for tool, pkg in wanted.items()
                          if shutil.which(tool) is None and not Path("/usr/sbin", tool).exists()})
        if missing:
            _apt_install(missing)
        if "arm64" in arches:
            enable_binfmt()


def enable_binfmt() -> None:
    """Run arm64 binaries through qemu-user (binfmt_misc, with the F flag: nothing to copy into a chroot)."""
    mount = Path("/proc/sys/fs/binfmt_misc")
    if not (mount / "register").exists():
        run(["mount", "-t", "binfmt_misc", "binfmt_misc", str(mount)])
    if not (mount / "qemu-aarch64").exists():
        run(["update-binfmts", "--enable", "qemu-aarch64"])


def _apt_install(missing: list[str]) -> None:
    if shutil.which("apt-get") is None:
        raise Fail(f"missing {', '.join(missing)} and no apt-get to install them")
    say(f"installing {' '.join(missing)}")
    env = dict(os.environ, DEBIAN_FRONTEND="noninteractive")
    run(["apt-get", "update", "-qq"], env=env)
    run(["apt-get", "-o", "DPkg::Lock::Timeout=600", "install", "-y", "-qq", "--no-install-recommends", *missing],
        env=env)


def apt_packages() -> str:
    """The packages hardware/install.sh installs (its APT_PACKAGES line)."""
    for line in INSTALL_SH.read_text().splitlines():
        if line.startswith("APT_PACKAGES="):
            return line.split("=", 1)[1].strip('"')
    raise Fail("hardware/install.sh has no APT_PACKAGES line")


def install_requires() -> list[str]:
    cfg = configparser.ConfigParser()
    cfg.read(ROOT / "setup.cfg")
    lines = (l.split("#", 1)[0].strip() for l in cfg["options"]["install_requires"].splitlines())
    return [l for l in lines if l]


def build_requires() -> list[str]:
    text = (ROOT / "pyproject.toml").read_text()
    start = text.index("requires") + text[text.index("requires"):].index("[")
    return json.loads(text[start:text.index("]", start) + 1])


class Image:
    """The cached stages of the VM's disk, and the disk itself."""

    def __init__(self, suite: str, cache: Path, out: Path, timings: dict, arch: str = "x86_64"):
        self.suite, self.out, self.timings, self.arch = suite, out, timings, arch
        self.cache = cache / (suite if arch == "x86_64" else f"{suite}-{arch}")
        self.cache.mkdir(parents=True, exist_ok=True)

    def stage(self, name: str, path: Path, build) -> Path:
        """The cached stage at ``path``, built by ``build(path)`` when missing. A stage another run is
        building (``--prepare`` in the background) is waited for, not built twice."""
        t = time.monotonic()
        with locked(path.parent / f".{path.name}.lock", name):
            if path.exists():
                waited = round(time.monotonic() - t, 1)
                say(f"{name}: cached ({path.name}){f', after waiting {waited} s' if waited >= 1 else ''}")
                self.timings[name] = {"seconds": waited, "cached": True}
                return path
            say(f"{name}: building")
            build(path)
        self.timings[name] = {"seconds": round(time.monotonic() - t, 1), "cached": False}
        say(f"{name}: built in {self.timings[name]['seconds']} s")
        return path

    def stages(self, read_only: bool = False) -> tuple[Path, Path, Path, Path | None]:
        """Every cached stage the run needs: base, extras, wheels, and overlayroot's packages for a read-only run."""
        base = self.base()
        overlay = self.overlay(base) if read_only else None
        return base, self.extras(base), self.wheels(), overlay

    def base(self) -> Path:
        script = HERE / "build-base.sh"
        debian = ARCHES[self.arch]["debian"]
        key = digest(script, self.suite) if self.arch == "x86_64" else digest(script, self.suite, debian)
        return self.stage("base", self.cache / f"base-{key}.tar",
                          lambda p: run(["sh", str(script), self.suite, str(p), debian]))

    def extras(self, base: Path) -> Path:
        sdist = self.lgpio_sdist()
        key = digest(base.name, HERE / "build-extras.sh", HERE / "gpio-sim" / "build.sh", HERE / "gpio-sim" / "Kbuild",
                     apt_packages(), sdist.name)
        return self.stage("extras", self.cache / f"extras-{key}", lambda p: run(
            ["sh", str(HERE / "build-extras.sh"), str(base), str(p), apt_packages()],
            env=dict(os.environ, LGPIO_SDIST=str(sdist))))

    def lgpio_sdist(self) -> Path:
        folder = self.cache.parent / "sources"
        with locked(self.cache.parent / ".sources.lock", "lgpio source"):  # shared by both architectures
            found = sorted(folder.glob("lgpio-*.tar.gz"))
            if not found:
                run([sys.executable, "-m", "pip", "download", "--quiet", "--no-deps", "--no-binary", ":all:",
                     "--dest", str(folder), "lgpio==0.2.2.0"])
                found = sorted(folder.glob("lgpio-*.tar.gz"))
        return found[-1]

    def wheels(self) -> Path:
        python = SUITES[self.suite]
        reqs = install_requires() + build_requires() + ["pip"]
        cpu = ARCHES[self.arch]["wheel"]
        platforms = [f"manylinux2014_{cpu}", *(f"manylinux_2_{m}_{cpu}" for m in range(17, GLIBC[self.suite] + 1))]

        def build(path: Path) -> None:
            tmp = Path(tempfile.mkdtemp(dir=self.cache))
            run([sys.executable, "-m", "pip", "download", "--quiet", "--dest", str(tmp), "--only-binary", ":all:",
                 *[a for p in platforms for a in ("--platform", p)], "--python-version", python,
                 "--implementation", "cp", *reqs])
            tmp.rename(path)

        return self.stage("wheels", self.cache / f"wheels-{digest(python, *reqs)}", build)

    def overlay(self, base: Path) -> Path:
        """overlayroot's packages as a local apt repository (the read-only-root run only)."""
        script = HERE / "build-overlay.sh"
        return self.stage("overlayroot", self.cache / f"overlayroot-{digest(base.name, script)}",
                          lambda p: run(["sh", str(script), str(base), str(p)]))

    def disk(self, base: Path, extras: Path, wheels: Path, overlay: Path | None = None) -> Path:
        def build(path: Path) -> None:
            path.mkdir(parents=True)
            files = run(["git", "ls-files", "-co", "--exclude-standard", "-z"], cwd=ROOT).stdout.split("\0")
            tar = path / "source.tar"
            listing = path / "files"
            listing.write_text("\n".join(f for f in files if f and (ROOT / f).is_file()))
            run(["tar", "-C", str(ROOT), "-cf", str(tar), "-T", str(listing)])
            # The offline bundle, as './dev bundle --sign' makes it for a Pi, here for this VM's CPU and
            # Python, from the cached wheels (no index), signed with a key made for this run: install.sh
            # checks it against the public half (--key) and installs from it with the VM's network off.
            cpu = ARCHES[self.arch]["wheel"]
            run(["signify-openbsd", "-G", "-n", "-c", "shotclock appliance test", "-p", str(path / "release.pub"),
                 "-s", str(path / "release.sec")])
            made = run([sys.executable, str(ROOT / "tools" / "bundle.py"), "--out", str(path), "--arch", cpu,
                        "--python", SUITES[self.suite], "--find-links", str(wheels), "--sign",
                        str(path / "release.sec")])
            bundle = sorted(path.glob(f"shotclock-*-{cpu}.tar.gz"))
            if not bundle:
                raise Fail(f"the bundle was not made: {made.stdout}")
            run(["sh", str(HERE / "build-disk.sh"), str(base), str(extras), str(wheels), str(tar), str(path),
                 str(bundle[-1]), *([str(overlay)] if overlay else [])])

        target = self.out / "disk"
        shutil.rmtree(target, ignore_errors=True)
        return self.stage("disk", target, build)


class Qmp:
    """A minimal QEMU monitor (QMP) client on a unix socket."""

    def __init__(self, path: Path, timeout: float = 30):
        end = time.monotonic() + timeout
        while True:
            try:
                self.sock = socket.socket(socket.AF_UNIX)
                self.sock.connect(str(path))
                break
            except OSError:
                if time.monotonic() > end:
                    raise Fail(f"QEMU's monitor socket {path} never opened")
                time.sleep(0.1)
        self.file = self.sock.makefile("rw")
        self.file.readline()  # greeting
        self.command("qmp_capabilities")

    def command(self, name: str, **arguments) -> dict:
        self.file.write(json.dumps({"execute": name, "arguments": arguments}) + "\n")
        self.file.flush()
        while True:
            reply = json.loads(self.file.readline())
            if "return" in reply or "error" in reply:
                return reply

    def close(self) -> None:
        self.sock.close()


def accel() -> list[str]:
    """TCG: nested KVM here hangs stock kernels at boot (see the README). AVX off: llvmpipe's JIT
    crashed under TCG with AVX2 exposed."""
    return ["-accel", "tcg", "-cpu", "max,-avx,-avx2"]


def machine(arch: str) -> tuple[list[str], str]:
    """QEMU's machine options and the kernel's console and extra arguments for ``arch``.

    arm64: the ``virt`` board with a Cortex-A72 (the Pi 4's core; plain ``max`` emulates pointer
    authentication's cipher in software, 3-4 times slower); its PL061 GPIO controller is kept from
    binding, so gpio-sim is gpiochip0 as on x86-64."""
    if arch == "arm64":
        return (["qemu-system-aarch64", "-machine", "virt", "-accel", "tcg", "-cpu", "cortex-a72"],
                "console=ttyAMA0 initcall_blacklist=pl061_gpio_driver_init")
    return (["qemu-system-x86_64", *accel(), "-machine", "q35", "-vga", "none"], "console=ttyS0")


def boot(phase: str, disk: Path, share: Path, timeout: float, timings: dict, arch: str = "x86_64",
         data: Path | None = None, initrd: Path | None = None, append: str = "", root: str = "root=/dev/vda rw",
         network: bool = False, floor=None) -> bool:
    """Boot the VM for one phase; answer its screen-dump requests; return when it powers off.

    ``data``: a second disk (the log's partition, /dev/vdb); ``initrd``: another initramfs than the
    image's (the one the guest rebuilt with overlayroot's hook); ``append``: more kernel arguments (what a
    Pi has in cmdline.txt); ``root``: how the root is named and mounted. When the guest writes ``reset.request`` to the share, QEMU is killed with
    SIGKILL at once, a power cut: returns True then, False after a power-off.

    ``network``: the VM gets a network device (QEMU's user networking: the host's loopback is 10.0.2.2 there);
    else it has none. ``floor``: when the guest writes ``floor.request``, ``floor(cut)`` sends the floor's commands and calls ``cut`` (QEMU's
    SIGKILL) right after the last ack; its result goes to ``floor.json`` in the share.

    The log's disk (``data``) is opened ``cache=writethrough``: a write the guest's kernel was told is done is on
    the host's disk, so a cut keeps exactly what the guest had written out, never what only a host cache held."""
    sock = share.parent / f"qmp-{phase}.sock"
    sock.unlink(missing_ok=True)
    qemu, kernel_args = machine(arch)
    cmd = [*qemu, "-smp", "2", "-m", "2048",
           "-kernel", str(disk / "vmlinuz"), "-initrd", str(initrd or disk / "initrd.img"),
           "-append", f"{append + ' ' if append else ''}{root} {kernel_args} shotclock.vmtest={phase} "
                      f"systemd.show_status=1",
           "-drive", f"file={disk / 'disk.img'},if=virtio,format=raw",
           *(["-drive", f"file={data},if=virtio,format=raw,cache=writethrough"] if data else []),
           "-device", "bochs-display,xres=800,yres=480",
           "-audiodev", f"wav,id=snd0,path={share / f'sound-{phase}.wav'}",
           "-device", "intel-hda", "-device", "hda-duplex,audiodev=snd0",
           "-virtfs", f"local,path={share},mount_tag=vmtest,security_model=none,id=vmtest",
           *(floornet.NIC if network else ["-nic", "none"]), "-display", "none", "-no-reboot",
           "-serial", f"file:{share / f'console-{phase}.log'}", "-qmp", f"unix:{sock},server=on,wait=off"]
    say(f"{phase} boot: {' '.join(cmd[:6])} ...")
    t = time.monotonic()
    qemu = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    qmp = None
    reset = False
    try:
        qmp = Qmp(sock)
        while qemu.poll() is None:
            if (share / "reset.request").exists():
                qemu.kill()  # SIGKILL: no flush, no shutdown, as when the power goes
                qemu.wait()
                reset = True
                (share / "reset.request").unlink()
                say(f"{phase} boot: hard reset (QEMU killed) as the guest asked")
                break
            if floor is not None and (share / "floor.request").exists():
                (share / "floor.request").unlink()
                say(f"{phase} boot: the floor's commands, then a power cut right after the last ack")
                result = floor(qemu.kill)  # SIGKILL the moment the ack is read
                (share / "floor.json").write_text(json.dumps(result, indent=2, ensure_ascii=False), encoding="utf-8")
                qemu.kill()  # (when a command failed: the guest would only wait)
                qemu.wait()
                reset = result["cut"]
                say(f"{phase} boot: {'hard reset ' + str(result['ack_to_cut_ms']) + ' ms after the ack' if reset else 'stopped: ' + result['problem']}")
                break
            if time.monotonic() - t > timeout:
                raise Fail(f"{phase} boot: no power-off after {timeout:.0f} s (see {share}/console-{phase}.log)")
            for request in sorted(share.glob("*.request")):
                name = request.stem
                reply = qmp.command("screendump", filename=str(share / f"{name}.png"), format="png")
                if "error" in reply:
                    raise Fail(f"screendump: {reply['error']}")
                request.unlink()
                (share / f"{name}.done").write_text("")
                say(f"screen dump '{name}'")
            time.sleep(0.1)
    finally:
        if qmp:
            qmp.close()
        if qemu.poll() is None:
            qemu.kill()
        qemu.wait()
    timings[f"{phase}_boot"] = {"seconds": round(time.monotonic() - t, 1)}
    if qemu.returncode != 0 and not reset:
        raise Fail(f"QEMU exited with {qemu.returncode}: {qemu.stdout.read()[-2000:]}")
    return reset


def compare_screens(guest_png: Path, replay: Path, at: float, config: Path, out: Path) -> dict:
    """The guest's screen against ``shotclock screenshot`` of the same moment: share of pixels
    that differ by more than 48 in any channel."""
    os.environ.setdefault("SDL_VIDEODRIVER", "dummy")
    os.environ.setdefault("PYGAME_HIDE_SUPPORT_PROMPT", "1")
    import pygame

    guest = pygame.image.load(str(guest_png))
    w, h = guest.get_size()
    expected = out / "acted.expected.png"
    run([sys.executable, "-m", "shotclock", "screenshot", str(expected), "--scenario", str(replay),
         "--at", f"{at:.3f}", "--size", f"{w}x{h}", "--config", str(config)], cwd=ROOT)
    mine = pygame.image.load(str(expected))
    step = 2  # every other pixel in each direction: enough, and quick without numpy
    differ = total = 0
    for x in range(0, w, step):
        for y in range(0, h, step):
            p, q = guest.get_at((x, y)), mine.get_at((x, y))
            total += 1
            if max(abs(p[0] - q[0]), abs(p[1] - q[1]), abs(p[2] - q[2])) > 48:
                differ += 1
    return {"size": f"{w}x{h}", "differing_share": round(differ / total, 4), "at": at}


def sound_level(path: Path) -> dict:
    """Peak and the share of non-silent 10 ms blocks of the WAV the emulated card played."""
    if not path.exists() or path.stat().st_size < 100:
        return {"seconds": 0, "peak": 0, "loud_share": 0}
    import array

    with wave.open(str(path)) as w:
        frames = w.readframes(w.getnframes())
        rate, channels, width = w.getframerate(), w.getnchannels(), w.getsampwidth()
    if width != 2:
        return {"seconds": 0, "peak": 0, "loud_share": 0, "note": f"{width}-byte samples"}
    samples = array.array("h", frames)
    block = max(1, rate * channels // 100)
    blocks = [samples[i:i + block] for i in range(0, len(samples), block)]
    loud = sum(1 for b in blocks if b and max(abs(s) for s in b) > 1000)
    return {"seconds": round(len(samples) / channels / rate, 1), "peak": max((abs(s) for s in samples), default=0),
            "loud_share": round(loud / max(1, len(blocks)), 4)}


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(prog="./dev vmtest", description=__doc__.split("\n\n")[0])
    parser.add_argument("--suite", choices=sorted(SUITES), default="trixie", help="Debian release (default trixie)")
    parser.add_argument("--arch", choices=sorted(ARCHES), default="x86_64",
                        help="the emulated CPU (default x86_64, as CI; arm64: the Pi's own, a longer check)")
    parser.add_argument("--cache", type=Path, default=Path(os.environ.get("SHOTCLOCK_VMTEST_CACHE",
                                                                          "/var/cache/shotclock-vmtest")))
    parser.add_argument("--out", type=Path, default=ROOT / "build" / "vmtest", help="results (default build/vmtest)")
    parser.add_argument("--build-only", action="store_true", help="build the image, boot nothing")
    parser.add_argument("--prepare", action="store_true",
                        help="build only the cached stages (base, extras, wheels; overlayroot with --read-only), "
                             "not the disk, and leave --out alone: CI runs it in the background while the suite runs")
    parser.add_argument("--tools-only", action="store_true",
                        help="install the host tools for every architecture, then stop (CI does it first, "
                             "so runs side by side never run apt-get at once)")
    parser.add_argument("--read-only", action="store_true",
                        help="the read-only-root run: the log on its own partition, the root an overlay "
                             "(Raspberry Pi OS's overlay file system), a hard reset in the middle of a clock and "
                             "one right after the floor's seat commands were acked (a broker on this host)")
    parser.add_argument("--timeout", type=float, default=2400,
                        help="seconds each boot may take (default 2400: an install boot under load took 1756)")
    args = parser.parse_args(argv)
    if os.geteuid() != 0:
        print("vmtest: run as root (debootstrap and chroot need it)", file=sys.stderr)
        return 2
    if args.tools_only:
        try:
            ensure_tools(*ARCHES)
        except Fail as exc:
            print(f"vmtest: {exc}", file=sys.stderr)
            return 1
        return 0
    if args.prepare:
        return prepare(args)
    t0 = time.monotonic()
    timings: dict = {}
    report: dict = {"suite": args.suite, "arch": args.arch, "timings": timings, "checks": [], "figures": {},
                    "read_only": args.read_only}
    try:
        ensure_tools(args.arch)
        share = args.out / "share"
        shutil.rmtree(args.out, ignore_errors=True)
        share.mkdir(parents=True)
        image = Image(args.suite, args.cache, args.out, timings, args.arch)
        base, extras, wheels, overlay = image.stages(args.read_only)
        disk = image.disk(base, extras, wheels, overlay)
        if args.read_only and not args.build_only:
            read_only_run(disk, share, args, timings, report)
        elif not args.build_only:
            boot("install", disk, share, args.timeout, timings, args.arch)
            rc = (share / "install.rc").read_text().strip() if (share / "install.rc").exists() else "?"
            report["checks"].append({"name": "install.sh on the booted system", "ok": rc == "0",
                                     "detail": f"exit {rc}; log: {share / 'install.log'}"})
            if rc == "0":
                start, end = (float(x) for x in (share / "install.uptime").read_text().split())
                timings["install_sh"] = {"seconds": round(end - start, 1)}
                boot("check", disk, share, args.timeout, timings, args.arch)
                results = json.loads((share / "results.json").read_text()) if (share / "results.json").exists() \
                    else {"checks": [{"name": "guest checks wrote results", "ok": False,
                                      "detail": f"see {share / 'checks.log'}"}], "figures": {}}
                report["checks"] += results["checks"]
                report["figures"].update(results["figures"])
                host_checks(share, report)
    except Fail as exc:
        report["checks"].append({"name": "vmtest ran", "ok": False, "detail": str(exc)})
    timings["total"] = {"seconds": round(time.monotonic() - t0, 1)}
    write_report(args.out, report)
    if args.build_only and not report["checks"]:
        return 0
    return 0 if report["checks"] and all(c["ok"] for c in report["checks"]) else 1


def prepare(args) -> int:
    """Build the cached stages and nothing else; print each one's time. Exit 0, or 1 when a stage failed."""
    t0 = time.monotonic()
    timings: dict = {}
    try:
        ensure_tools(args.arch)
        Image(args.suite, args.cache, args.out, timings, args.arch).stages(args.read_only)
    except Fail as exc:
        print(f"vmtest: prepare ({args.arch}): {exc}", file=sys.stderr)
        return 1
    steps = ", ".join(f"{name} {t['seconds']} s{' (cached)' if t['cached'] else ''}" for name, t in timings.items())
    say(f"prepared the {args.suite} {args.arch} stages in {time.monotonic() - t0:.0f} s: {steps}")
    return 0


def guest_results(share: Path, phase: str, report: dict) -> None:
    """Add a boot's checks and figures (results-PHASE.json) to the report, its figures prefixed by the phase."""
    path = share / f"results-{phase}.json"
    if not path.exists():
        report["checks"].append({"name": f"{phase} boot: guest checks wrote results", "ok": False,
                                 "detail": f"see {share / f'checks-{phase}.log'}"})
        return
    results = json.loads(path.read_text())
    report["checks"] += results["checks"]
    report["figures"].update({f"{phase}_{k}": v for k, v in results["figures"].items()})


# The seats the floor's commands change (seat tracking, a time bank to top up), added to the guest's config.
FLOOR_SEATS = "\n[seats]\ntrack = true\nbank = 30\n"
# What the floor sends before the power cut: the seat emptied, a player seated with a bank, a top-up.
FLOOR_PLAYER = {"seat": 4, "name": "Zoë Stroom", "bank": 20, "top_up": 45}


def floor_commands(floor: floornet.FloorBroker) -> list[tuple[str, list[str]]]:
    """The floor's commands of the power-cut step, as ``shotclock send`` command lines."""
    p = FLOOR_PLAYER
    return [("empty", floor.send("empty", "--seat", str(p["seat"]))),
            ("seat", floor.send("seat", "--seat", str(p["seat"]), "--player", p["name"], "--bank", str(p["bank"]))),
            ("top_up", floor.send("top_up", "--seconds", str(p["top_up"])))]


def read_only_run(disk: Path, share: Path, args, timings: dict, report: dict) -> None:
    """Install with the log on its own partition and overlayroot, provisioned for a broker on this host; boot
    read-only; hard reset; boot again, the floor's commands, a power cut right after their acks; boot again."""
    checks = report["checks"]
    data = args.out / "data.img"
    with open(data, "wb") as f:  # an empty partition, as a new card's third partition or a new stick
        f.truncate(512 * 1024 * 1024)
    # The floor network: the venue's broker on this host, the table provisioned for it at the install boot.
    floor = floornet.FloorBroker(args.out / "floor")
    template = args.out / "floor" / "template.toml"
    template.parent.mkdir(parents=True, exist_ok=True)
    template.write_text((HERE / "guest" / "config.toml").read_text() + FLOOR_SEATS)
    try:
        shutil.copy(floor.configure(template), share / "shotclock-firstboot.toml")
        floor.start()
    except RuntimeError as exc:
        raise Fail(f"the floor's broker: {exc}") from None
    try:
        _read_only_boots(disk, share, args, timings, report, data, floor)
    finally:
        floor.stop()


def _read_only_boots(disk: Path, share: Path, args, timings: dict, report: dict, data: Path,
                     floor: floornet.FloorBroker) -> None:
    checks = report["checks"]
    boot("install", disk, share, args.timeout, timings, args.arch, data=data, append="shotclock.data=/dev/vdb")
    rc = (share / "install.rc").read_text().strip() if (share / "install.rc").exists() else "?"
    log = (share / "install.log").read_text() if (share / "install.log").exists() else ""
    checks.append({"name": "install.sh --data-partition on the booted system", "ok": rc == "0"
                   and "the decision log's partition: /dev/vdb" in log,
                   "detail": f"exit {rc}; " + next((l for l in log.splitlines() if "partition" in l), "")})
    frc = (share / "firstboot.rc").read_text().strip() if (share / "firstboot.rc").exists() else "?"
    checks.append({"name": "the table provisioned for the floor's broker (shotclock provision, first boot)",
                   "ok": frc == "0", "detail": f"exit {frc}; log: {share / 'firstboot.log'}"})
    orc = (share / "overlayroot.rc").read_text().strip() if (share / "overlayroot.rc").exists() else "?"
    checks.append({"name": "overlayroot installed (raspi-config's step), initramfs rebuilt", "ok": orc == "0"
                   and (share / "initrd-overlay.img").exists(), "detail": f"exit {orc}; log: {share / 'overlayroot.log'}"})
    if rc != "0" or orc != "0" or frc != "0":
        return
    start, end = (float(x) for x in (share / "install.uptime").read_text().split())
    timings["install_sh"] = {"seconds": round(end - start, 1)}
    start, end = (float(x) for x in (share / "overlayroot.uptime").read_text().split())
    timings["overlayroot_install"] = {"seconds": round(end - start, 1)}
    # The kernel command line as raspi-config leaves cmdline.txt: 'overlayroot=tmpfs' in front, and the root
    # named without 'rw' (a Pi's cmdline.txt has none: the initramfs mounts it read-only, and overlayroot keeps
    # it so under the overlay; with 'rw' the lower root stayed writable).
    append = "overlayroot=tmpfs shotclock.data=/dev/vdb"
    initrd = share / "initrd-overlay.img"
    ro = {"data": data, "initrd": initrd, "append": append, "root": "root=/dev/vda", "network": True}
    reset = boot("readonly", disk, share, args.timeout, timings, args.arch, **ro)
    guest_results(share, "readonly", report)
    checks.append({"name": "hard reset (QEMU killed) in the middle of a running clock", "ok": reset,
                   "detail": (share / "reset.json").read_text() if (share / "reset.json").exists() else "no reset"})
    if not reset:
        return
    cut = boot("afterreset", disk, share, args.timeout, timings, args.arch, **ro,
               floor=lambda kill: floornet.send_then_cut(floor_commands(floor), kill, probe=floor.send("cancel")))
    guest_results(share, "afterreset", report)
    result = json.loads((share / "floor.json").read_text(encoding="utf-8")) if (share / "floor.json").exists() else {}
    checks.append({"name": "power cut (QEMU killed) right after the floor's seat commands and top-up were acked",
                   "ok": cut, "detail": (f"{result.get('ack_to_cut_ms')} ms after the top-up's ack" if cut
                                         else result.get("problem") or "the guest never asked")})
    if not cut:
        return
    report["figures"]["floor_ack_to_cut_ms"] = result["ack_to_cut_ms"]
    boot("afterfloor", disk, share, args.timeout, timings, args.arch, **ro)
    guest_results(share, "afterfloor", report)


def host_checks(share: Path, report: dict) -> None:
    """What is judged from outside: the screen against shotclock screenshot, the sound played."""
    checks = report["checks"]
    png, replay, at = share / "acted.png", share / "acted.replay.jsonl", share / "acted.at"
    if png.exists() and replay.exists() and at.exists():
        cmp = compare_screens(png, replay, float(at.read_text()), HERE / "guest" / "config.toml", share)
        report["figures"]["screen_differing_share"] = cmp["differing_share"]
        checks.append({"name": "guest screen matches 'shotclock screenshot' of the same moment",
                       "ok": cmp["differing_share"] < 0.02, "detail": json.dumps(cmp)})
    else:
        checks.append({"name": "guest screen matches 'shotclock screenshot'", "ok": False,
                       "detail": "no screen dump of the ruling"})
    level = sound_level(share / "sound-check.wav")
    report["figures"]["sound"] = level
    checks.append({"name": "the sound card played the countdown", "ok": level["loud_share"] > 0,
                   "detail": json.dumps(level)})


def write_report(out: Path, report: dict) -> None:
    out.mkdir(parents=True, exist_ok=True)
    (out / "report.json").write_text(json.dumps(report, indent=2))
    title = f"{report['suite']}, {report.get('arch', 'x86_64')}{', read-only root' if report.get('read_only') else ''}"
    lines = [f"# shotclock appliance test ({title})", "", "| check | result | detail |", "|---|---|---|"]
    for c in report["checks"]:
        detail = c["detail"].replace("|", "/").replace("\n", " ")[:200]
        lines.append(f"| {c['name']} | {'PASS' if c['ok'] else 'FAIL'} | {detail} |")
    lines += ["", "| step | seconds |", "|---|---|"]
    for name, t in report["timings"].items():
        lines.append(f"| {name} | {t['seconds']}{' (cached)' if t.get('cached') else ''} |")
    lines += ["", "| figure | value |", "|---|---|"]
    lines += [f"| {k} | {v} |" for k, v in report["figures"].items()]
    text = "\n".join(lines) + "\n"
    (out / "report.md").write_text(text)
    print(text, flush=True)
    passed = sum(c["ok"] for c in report["checks"])
    print(f"vmtest: {passed} passed, {len(report['checks']) - passed} failed", flush=True)


if __name__ == "__main__":
    sys.exit(main())
