"""Files from outside that are not files (issue 36): a FIFO, /dev/zero, a folder, a link, a huge file.

Each is refused in one line naming it, exit 2, before it is read: a FIFO with no writer, or /dev/zero, would
hang the command (or fill the memory). The commands run as processes with a time limit, so a hang is a failure,
not a stuck suite. The first-boot file is read as root at boot and then removed: a link is refused there too.
"""

from __future__ import annotations

import os
import subprocess
import sys
import threading
from pathlib import Path

import pytest

from shotclock.cli import main
from shotclock.input_files import INPUT_FILE_MAX, read_input_file
from shotclock.shell import firstboot
from shotclock.shell.seatingcmd import SEATING_MAX
from shotclock.shell.firstboot import FILENAME

TIMEOUT = 60  # seconds: a bound on a hang, never a measure of speed


def shotclock(*args) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "shotclock", *map(str, args)], capture_output=True, text=True,
                          timeout=TIMEOUT, stdin=subprocess.DEVNULL)


def one_line(proc: subprocess.CompletedProcess, *words: str) -> bool:
    err = proc.stderr
    return (proc.returncode == 2 and err.count("\n") == 1 and "Traceback" not in err and not proc.stdout
            and all(w in err for w in words))


@pytest.fixture(scope="module")
def broker(tmp_path_factory) -> Path:
    folder = tmp_path_factory.mktemp("venue") / "broker"
    assert main(["broker-config", str(folder), "--venue", "casino", "--tables", "1-2", "--listen", "0.0.0.0:8883",
                 "--make-certs", "floor.local"]) == 0
    return folder


@pytest.fixture(scope="module")
def good_file(broker, tmp_path_factory) -> Path:
    """A first-boot file as provision writes it."""
    out = tmp_path_factory.mktemp("cards")
    assert main(["provision", str(out), "--broker-dir", str(broker), "--venue", "casino", "--tables", "1",
                 "--broker", "floor.local:8883"]) == 0
    return out / "1" / FILENAME


def provision(broker: Path, out: Path, *args) -> subprocess.CompletedProcess:
    return shotclock("provision", out, "--broker-dir", broker, "--venue", "casino", "--tables", "1",
                     "--broker", "floor.local:8883", *args)


def special(tmp_path: Path, kind: str) -> Path:
    if kind == "zero":
        return Path("/dev/zero")
    path = tmp_path / kind
    if kind == "fifo":
        os.mkfifo(path)
    elif kind == "folder":
        path.mkdir()
    return path


WORDS = {"fifo": "a FIFO, not a regular file", "zero": "a character device, not a regular file",
         "folder": "a folder, not a"}


@pytest.mark.parametrize("kind", ["fifo", "zero", "folder"])
def test_provision_refuses_a_template_or_a_ca_that_is_not_a_file(broker, tmp_path, kind):
    # Before: a FIFO or /dev/zero as the template or the CA hung provision.
    path = special(tmp_path, kind)
    assert one_line(provision(broker, tmp_path / "cards", "--template", path), str(path), WORDS[kind])
    assert one_line(provision(broker, tmp_path / "cards", "--ca-file", path), str(path), WORDS[kind])
    assert not (tmp_path / "cards").exists()


def test_provision_refuses_a_huge_template(broker, tmp_path):
    template = tmp_path / "table.toml"
    template.write_text("# " + "x" * INPUT_FILE_MAX + '\nlanguage = "en"\n')  # valid TOML, a megabyte of it
    assert one_line(provision(broker, tmp_path / "cards", "--template", template), str(template), "more than")


@pytest.mark.parametrize("kind", ["fifo", "folder"])
def test_first_boot_refuses_a_file_that_is_not_a_file_and_says_so_on_the_screen(tmp_path, kind):
    # Before: a FIFO or a folder by the file's name booted as if there were no file ("nothing to do", exit 0).
    root = tmp_path / "root"
    boot = root / "boot" / "firmware"
    boot.mkdir(parents=True)
    path = special(boot, kind).rename(boot / FILENAME)
    proc = shotclock("firstboot", "--root", root)
    assert one_line(proc, str(path), WORDS[kind]), proc
    assert WORDS[kind] in firstboot.failure(root) and os.path.lexists(path)
    assert not (root / "etc" / "shotclock" / "config.toml").exists()


def test_first_boot_refuses_a_link_and_leaves_what_it_points_at(tmp_path, good_file):
    # Before: the link was followed, its target taken as the table's identity, and the link removed.
    root = tmp_path / "root"
    (root / "boot" / "firmware").mkdir(parents=True)
    link = root / "boot" / "firmware" / FILENAME
    link.symlink_to(good_file)
    proc = shotclock("firstboot", "--root", root)
    assert one_line(proc, str(link), "a symbolic link"), proc
    assert link.is_symlink() and good_file.exists() and not (root / "etc" / "shotclock" / "credentials.toml").exists()


def test_first_boot_refuses_a_huge_file(tmp_path, good_file):
    root = tmp_path / "root"
    (root / "boot" / "firmware").mkdir(parents=True)
    path = root / "boot" / "firmware" / FILENAME
    path.write_text(good_file.read_text() + "# " + "x" * INPUT_FILE_MAX + "\n")  # a good file, a megabyte longer
    proc = shotclock("firstboot", "--root", root)
    assert one_line(proc, str(path), "more than"), proc
    assert path.exists() and not (root / "etc" / "shotclock" / "credentials.toml").exists()


@pytest.mark.parametrize("kind", ["fifo", "zero"])
def test_config_check_and_send_refuse_a_file_that_is_not_a_file(tmp_path, kind):
    # Before: 'config --check' and 'send --credentials' hung on a FIFO and on /dev/zero.
    path = special(tmp_path, kind)
    assert one_line(shotclock("config", "--check", path), str(path), WORDS[kind])
    proc = shotclock("send", "--venue", "v", "--credentials", path, "--table", "1", "pause")
    assert one_line(proc, str(path), WORDS[kind]), proc


def test_seating_reads_a_pipe_but_never_more_than_a_seating_export(tmp_path):
    # An export may come through a pipe (<(program)); /dev/zero never ends, and hung the command before.
    proc = shotclock("seating", "/dev/zero")
    assert one_line(proc, "/dev/zero", f"more than {SEATING_MAX:,} bytes"), proc
    fifo = special(tmp_path, "fifo")
    writer = threading.Thread(target=lambda: Path(fifo).write_text("1,Ann\n2,Bob\n"))
    writer.start()
    proc = shotclock("seating", fifo)
    writer.join(TIMEOUT)
    assert proc.returncode == 0 and '"Ann"' in proc.stdout and '"Bob"' in proc.stdout, proc.stderr


def test_read_input_file_takes_a_regular_file_and_follows_a_link_only_when_asked(tmp_path):
    target = tmp_path / "a.toml"
    target.write_bytes(b"x = 1\n")
    link = tmp_path / "link.toml"
    link.symlink_to(target)
    assert read_input_file(target) == read_input_file(link) == b"x = 1\n"
    with pytest.raises(OSError, match="a symbolic link, not a regular file"):
        read_input_file(link, follow_links=False)
    with pytest.raises(OSError, match="more than 5 bytes"):
        read_input_file(target, limit=5)


@pytest.mark.parametrize("where", ["file", "folder"])
def test_provision_writes_no_first_boot_file_through_a_link(broker, tmp_path, where):
    # provision runs as root: a link planted in its output folder had it write a table's password over any file.
    victim = tmp_path / "victim.txt"
    victim.write_text("precious\n")
    cards = tmp_path / "cards"
    if where == "file":
        (cards / "1").mkdir(parents=True)
        (cards / "1" / FILENAME).symlink_to(victim)
        named = cards / "1" / FILENAME
    else:
        (tmp_path / "elsewhere").mkdir()
        cards.mkdir()
        (cards / "1").symlink_to(tmp_path / "elsewhere")
        named = cards / "1"
    assert one_line(provision(broker, cards), str(named), "a symbolic link")
    assert victim.read_text() == "precious\n" and list((tmp_path / "elsewhere").glob("*")) == []
