"""install.sh against a bundle it must refuse, and a version that never becomes ready.

The bundle's check runs in a dry run too (it only reads), so a bundle made here with the bundle's own
SHA256SUMS writer is checked by the real install.sh with nothing installed. The READY wait runs against a
fake ``systemctl`` on the PATH and a version folder under a temporary prefix (SHOTCLOCK_PREFIX).
"""

from __future__ import annotations

import importlib.util
import os
import re
import shutil
import subprocess
import zipfile
from pathlib import Path

import pytest

import shotclock
from helpers import load_tool

ROOT = Path(__file__).parent.parent
bundle = load_tool("bundle")
VERSION = shotclock.__version__
WHEEL = f"wheels/shotclock-{VERSION}-py3-none-any.whl"
SIGNIFY = shutil.which("signify-openbsd")
needs_signify = pytest.mark.skipif(SIGNIFY is None and not os.environ.get("CI"),
                                   reason="signify-openbsd not installed (apt-get install signify-openbsd)")


def make_wheel(path: Path, engine: str) -> None:
    """A wheel-shaped zip holding shotclock/core/engine.py with ``engine`` as its text."""
    path.parent.mkdir(parents=True, exist_ok=True)
    with zipfile.ZipFile(path, "w") as z:
        z.writestr("shotclock/__init__.py", f'__version__ = "{VERSION}"\n')
        z.writestr("shotclock/core/engine.py", engine)


@pytest.fixture
def made(tmp_path):
    """An unpacked bundle as ./dev bundle lays it out: install.sh, the unit files, a wheel, SHA256SUMS."""
    top = tmp_path / f"shotclock-{VERSION}"
    for name in bundle.HARDWARE_FILES:
        (top / "hardware").mkdir(parents=True, exist_ok=True)
        shutil.copy2(ROOT / "hardware" / name, top / "hardware" / name)
    shutil.copy2(ROOT / "README.md", top / "README.md")
    make_wheel(top / WHEEL, "RULE = 'the real one'\n")
    bundle.write_sums(top)
    return top


def install(top: Path, *args: str, release_key: Path | None = None) -> subprocess.CompletedProcess:
    env = dict(os.environ, DRY_RUN="1", SHOTCLOCK_RELEASE_KEY=str(release_key or top.parent / "no-such-key.pub"))
    return subprocess.run(["sh", str(top / "hardware" / "install.sh"), *args], env=env, capture_output=True,
                          text=True, timeout=60)


def refused(proc: subprocess.CompletedProcess, *words: str) -> bool:
    """Exit 3 with one line on stderr holding ``words``, and no installing step after it."""
    return (proc.returncode == 3 and proc.stderr.count("\n") == 1 and proc.stderr.endswith(": not installing\n")
            and all(w in proc.stderr for w in words) and "+ env DEBIAN_FRONTEND" not in proc.stdout
            and "pip install" not in proc.stdout)


def keys(tmp_path: Path, name: str = "release") -> tuple[Path, Path]:
    pub, sec = tmp_path / f"{name}.pub", tmp_path / f"{name}.sec"
    subprocess.run([SIGNIFY or "signify-openbsd", "-G", "-n", "-p", str(pub), "-s", str(sec)], check=True,
                   capture_output=True, timeout=60)
    return pub, sec


def test_an_intact_bundle_is_checked_and_installed(made):
    proc = install(made)
    assert proc.returncode == 0, proc.stderr
    assert "bundle checked against its SHA256SUMS (not signed)" in proc.stdout
    assert "pip install" in proc.stdout


def test_a_wheel_rebuilt_with_a_changed_engine_is_refused(made):
    make_wheel(made / WHEEL, "RULE = 'the player always loses'\n")  # a valid zip, another engine
    assert refused(install(made), WHEEL, "does not match its SHA256SUMS")


def test_a_file_added_beside_the_sums_is_refused(made):
    make_wheel(made / "wheels" / "shotclock-9.9.9-py3-none-any.whl", "RULE = 'newer, from nowhere'\n")
    assert refused(install(made), "wheels/shotclock-9.9.9-py3-none-any.whl", "not in its SHA256SUMS")


def test_a_bundle_without_sums_or_with_a_file_gone_is_refused(made):
    (made / "README.md").unlink()
    assert refused(install(made), "README.md", "is missing")
    (made / "SHA256SUMS").unlink()
    assert refused(install(made), "no SHA256SUMS")


@needs_signify
def test_a_signed_bundle_is_checked_against_the_key_and_the_key_is_kept(made, tmp_path):
    pub, sec = keys(tmp_path)
    bundle.sign(made / "SHA256SUMS", sec)
    kept = tmp_path / "etc" / "release.pub"
    proc = install(made, "--key", str(pub), release_key=kept)
    assert proc.returncode == 0, proc.stderr
    assert f"SHA256SUMS signed by {pub}" in proc.stdout and f"+ install -m 0644 {pub} {kept}" in proc.stdout


@needs_signify
def test_new_sums_for_a_changed_wheel_fail_the_signature(made, tmp_path):
    pub, sec = keys(tmp_path)
    bundle.sign(made / "SHA256SUMS", sec)
    make_wheel(made / WHEEL, "RULE = 'the player always loses'\n")
    bundle.write_sums(made)  # what someone who changed the wheel would do next
    assert refused(install(made, "--key", str(pub)), "signature does not match", str(pub))
    other, other_sec = keys(tmp_path, "other")
    bundle.sign(made / "SHA256SUMS", other_sec)  # signed, by another key
    assert refused(install(made, "--key", str(pub)), "signature does not match")


@needs_signify
def test_once_a_key_is_kept_an_unsigned_bundle_is_refused(made, tmp_path):
    pub, _ = keys(tmp_path)
    assert refused(install(made, release_key=pub), "not signed", str(pub))
    assert refused(install(made, "--key", str(pub)), "not signed")


def test_a_missing_key_file_is_one_line(made, tmp_path):
    proc = install(made, "--key", str(tmp_path / "nope.pub"))
    assert proc.returncode == 2 and proc.stderr.count("\n") == 1 and "nope.pub: no such file" in proc.stderr


@needs_signify
def test_bundle_sign_writes_a_signature_signify_accepts(tmp_path, capsys):
    pub, sec = keys(tmp_path)
    top = tmp_path / "top"
    top.mkdir()
    (top / "a.txt").write_text("a\n")
    sums = bundle.write_sums(top)
    sig = bundle.sign(sums, sec)
    assert subprocess.run([SIGNIFY, "-V", "-q", "-p", str(pub), "-m", str(sums), "-x", str(sig)]).returncode == 0
    assert bundle.main(["--sign", str(tmp_path / "missing.sec")]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "missing.sec: no such file" in err


# -- the READY wait after a restart ------------------------------------------------------------------

FAKE_SYSTEMCTL = """#!/bin/sh
# The service as systemd would show it: a version with a 'bad' file in its folder never becomes READY;
# every restart gives the next process id.
state="$SHOTCLOCK_PREFIX/.fake"
case "$1" in
    show)
        v="$(readlink "$SHOTCLOCK_PREFIX/current")"
        n="$(cat "$state/restarts" 2>/dev/null || echo 0)"
        if [ -e "$state/stopped" ]; then s="inactive dead 0"
        elif [ -e "$SHOTCLOCK_PREFIX/$v/bad" ]; then s="activating auto-restart 0"
        else s="active running $((4000 + n))"; fi
        # A version that exits at once: systemd restarts it every time it is looked at.
        if [ -e "$SHOTCLOCK_PREFIX/$v/crashes" ]; then echo x >>"$state/crashes"; fi
        set -- $s "$@"
        case "$*" in
            *NRestarts*) cat "$state/crashes" 2>/dev/null | wc -l ;;
            *--value*) echo "$3" ;;
            *) printf 'ActiveState=%s\\nSubState=%s\\nMainPID=%s\\n' "$1" "$2" "$3" ;;
        esac ;;
    stop) touch "$state/stopped" ;;
    restart)
        rm -f "$state/stopped"
        echo $(($(cat "$state/restarts" 2>/dev/null || echo 0) + 1)) >"$state/restarts"
        echo "restart -> $(readlink "$SHOTCLOCK_PREFIX/current")" >>"$state/log" ;;
esac
exit 0
"""


@pytest.fixture
def prefix(tmp_path):
    """/opt/shotclock with versions 1.0 (runs) and 2.0, current 2.0 and previous 1.0; a fake systemctl."""
    opt = tmp_path / "opt"
    for version in ("1.0", "2.0"):
        exe = opt / version / "venv" / "bin" / "shotclock"
        exe.parent.mkdir(parents=True)
        exe.write_text("#!/bin/sh\n")
        exe.chmod(0o755)
    (opt / "current").symlink_to("2.0")
    (opt / "previous").symlink_to("1.0")
    (opt / ".fake").mkdir()
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    (bin_dir / "systemctl").write_text(FAKE_SYSTEMCTL)
    (bin_dir / "id").write_text('#!/bin/sh\n[ "$1" = -u ] && { echo 0; exit 0; }\nexec /usr/bin/id "$@"\n')
    for f in bin_dir.iterdir():
        f.chmod(0o755)
    return opt


def rollback(opt: Path) -> subprocess.CompletedProcess:
    env = dict(os.environ, SHOTCLOCK_PREFIX=str(opt), SHOTCLOCK_READY_TIMEOUT="3", SHOTCLOCK_READY_HOLD="0.2",
               PATH=f"{opt.parent / 'bin'}:{os.environ['PATH']}")
    env.pop("DRY_RUN", None)
    return subprocess.run(["sh", str(ROOT / "hardware" / "install.sh"), "--rollback"], env=env, capture_output=True,
                          text=True, timeout=60)


def test_a_rollback_to_a_version_that_never_gets_ready_switches_back(prefix):
    (prefix / "1.0" / "bad").write_text("")
    proc = rollback(prefix)
    assert proc.returncode == 4, proc.stdout + proc.stderr
    assert proc.stderr.count("\n") == 1 and "shotclock 1.0 did not become ready (no READY within 3 s)" in proc.stderr
    assert "switched back to shotclock 2.0, which runs" in proc.stderr and "done:" not in proc.stdout
    assert os.readlink(prefix / "current") == "2.0" and os.readlink(prefix / "previous") == "1.0"
    assert (prefix / ".fake" / "log").read_text() == "restart -> 1.0\nrestart -> 2.0\n"


def test_a_rollback_that_gets_ready_says_so(prefix):
    proc = rollback(prefix)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "done: shotclock 1.0 runs, READY" in proc.stdout
    assert os.readlink(prefix / "current") == "1.0" and os.readlink(prefix / "previous") == "2.0"


def test_when_neither_version_gets_ready_it_says_that_too(prefix):
    (prefix / "1.0" / "bad").write_text("")
    (prefix / "2.0" / "bad").write_text("")
    proc = rollback(prefix)
    assert proc.returncode == 4 and "which did not become ready either" in proc.stderr, proc.stderr
    assert os.readlink(prefix / "current") == "2.0"


def test_a_version_systemd_keeps_restarting_is_given_up_early(prefix):
    (prefix / "1.0" / "bad").write_text("")
    (prefix / "1.0" / "crashes").write_text("")
    # The wait ends at the third restart, long before the 600 s.
    env = dict(os.environ, SHOTCLOCK_PREFIX=str(prefix), SHOTCLOCK_READY_TIMEOUT="600",
               SHOTCLOCK_READY_HOLD="0.2", PATH=f"{prefix.parent / 'bin'}:{os.environ['PATH']}")
    proc = subprocess.run(["sh", str(ROOT / "hardware" / "install.sh"), "--rollback"], env=env, capture_output=True,
                          text=True, timeout=60)
    assert proc.returncode == 4 and re.search(r"shotclock 1\.0 did not become ready \(it stopped \d+ times\)",
                                              proc.stderr), proc.stderr
    assert "switched back to shotclock 2.0, which runs" in proc.stderr and os.readlink(prefix / "current") == "2.0"
