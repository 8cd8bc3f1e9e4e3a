"""The offline bundle (tools/bundle.py, './dev bundle'): every wheel a Pi needs, and install.sh, in one archive.

Building needs the package index (skipped without it, as test_install_deps is); installing from the
bundle needs nothing: the second test installs it into a fresh environment with pip's index off.
"""

from __future__ import annotations

import hashlib
import importlib.util
import os
import re
import subprocess
import sys
import tarfile
from pathlib import Path

import pytest

import shotclock
from helpers import load_tool

ROOT = Path(__file__).parent.parent
bundle = load_tool("bundle")
VERSION = shotclock.__version__
HOST_PYTHON = f"{sys.version_info.major}.{sys.version_info.minor}"


@pytest.fixture(scope="module")
def pypi_reachable(tmp_path_factory):
    probe = subprocess.run([sys.executable, "-m", "pip", "download", "--quiet", "--no-deps", "--only-binary",
                            ":all:", "--dest", str(tmp_path_factory.mktemp("probe")), "six"],
                           capture_output=True, text=True, timeout=300)
    if probe.returncode != 0:
        pytest.skip(f"cannot reach the package index: {probe.stderr.strip().splitlines()[-1:]}")


def unpack(archive: Path, into: Path) -> Path:
    with tarfile.open(archive) as tar:
        tar.extractall(into, filter="data")
    return into / f"shotclock-{VERSION}"


def test_the_bundle_holds_every_wheel_for_both_pi_pythons(tmp_path, pypi_reachable):
    archive = bundle.build(tmp_path / "dist", "aarch64", ["3.11", "3.13"])
    assert archive.name == f"shotclock-{VERSION}-aarch64.tar.gz"
    top = unpack(archive, tmp_path / "x")
    wheels = sorted(p.name for p in (top / "wheels").glob("*.whl"))
    assert f"shotclock-{VERSION}-py3-none-any.whl" in wheels
    for tag in ("cp311", "cp313"):  # pygame-ce and msgspec are the compiled dependencies
        for name in ("pygame_ce", "msgspec"):
            assert any(w.startswith(name + "-") and f"-{tag}-" in w and "aarch64" in w for w in wheels), (tag, wheels)
    for name in ("gpiozero", "paho_mqtt", "platformdirs"):
        assert any(w.startswith(name + "-") for w in wheels), name
    for f in bundle.HARDWARE_FILES:
        assert (top / "hardware" / f).read_bytes() == (ROOT / "hardware" / f).read_bytes()
    for line in (top / "SHA256SUMS").read_text().splitlines():
        digest, name = line.split("  ", 1)
        assert hashlib.sha256((top / name).read_bytes()).hexdigest() == digest, name


@pytest.mark.slow
def test_a_bundle_installs_with_no_index(tmp_path, pypi_reachable):
    archive = bundle.build(tmp_path / "dist", "x86_64", [HOST_PYTHON])
    top = unpack(archive, tmp_path / "x")
    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True, timeout=300)
    proc = subprocess.run([venv / "bin" / "python", "-m", "pip", "install", "--quiet", "--no-index", "--find-links",
                           top / "wheels", f"shotclock=={VERSION}"], capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stderr[-2000:]
    out = subprocess.run([venv / "bin" / "shotclock", "--version"], capture_output=True, text=True, timeout=60)
    assert out.stdout.strip() == f"shotclock {VERSION}"


def test_bad_python_list_is_one_line(capsys):
    assert bundle.main(["--python", "three"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "--python" in err


def test_an_unreachable_wheel_is_named_in_one_line(tmp_path, capsys):
    empty = tmp_path / "empty"
    empty.mkdir()
    assert bundle.main(["--out", str(tmp_path / "dist"), "--find-links", str(empty)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and err.startswith("bundle: ") and "failed" in err


def test_every_link_of_the_bundles_guides_resolves_inside_the_bundle(tmp_path):
    """The bundle's README and guide linked docs/rules.md, the screenshots, the examples…, none of them in it."""
    from test_readme import broken_links

    bundle.copy_documents(tmp_path)
    docs = sorted(tmp_path.rglob("*.md"))
    assert {"README.md", "hardware/README.md", "docs/rules.md", "docs/dealer-card-shot-seats.md"} <= \
        {str(p.relative_to(tmp_path)) for p in docs}
    assert (tmp_path / "docs" / "screens" / "seats-fold.png").exists()
    assert {str(p.relative_to(tmp_path)): broken_links(p, tmp_path) for p in docs if broken_links(p, tmp_path)} == {}


def test_a_linked_folder_brings_its_files_and_a_link_outside_is_left(tmp_path):
    (tmp_path / "ex").mkdir()
    (tmp_path / "ex" / "a.jsonl").write_text("{}\n")
    (tmp_path / "README.md").write_text("[examples](ex/) [guide](g.md#top) [web](https://x.org) [up](../x.md)\n")
    (tmp_path / "g.md").write_text("# top\n![pic](p.png)\n")
    (tmp_path / "p.png").write_bytes(b"png")
    assert [str(p) for p in bundle.linked_files(tmp_path, ["README.md"])] == ["README.md", "ex/a.jsonl", "g.md",
                                                                                "p.png"]


def test_the_bundles_plain_names_are_the_ones_install_sh_takes():
    install = (ROOT / "hardware" / "install.sh").read_text()
    assert f"PLAIN_NAME='{bundle.PLAIN_NAME}'" in install
    part = bundle.PLAIN_NAME.split("(")[0]
    assert f'PART = re.compile(r"{part}")' in install  # the archive's members, one part at a time
    assert all(re.fullmatch(bundle.PLAIN_NAME, str(p)) for p in bundle.linked_files())


@pytest.mark.parametrize("make, words", [
    (lambda top: (top / "docs" / "link.md").symlink_to("/etc/passwd"), "docs/link.md is not a regular file"),
    (lambda top: os.mkfifo(top / "docs" / "fifo"), "docs/fifo is not a regular file"),
    (lambda top: (top / "docs" / "a b.md").write_text("x"), "'docs/a b.md' is not a plain name"),
    (lambda top: (top / "docs" / ".hidden").write_text("x"), "'docs/.hidden' is not a plain name"),
])
def test_a_bundle_install_sh_would_refuse_is_not_made(tmp_path, make, words):
    (tmp_path / "docs").mkdir()
    (tmp_path / "docs" / "rules.md").write_text("# rules\n")
    make(tmp_path)
    with pytest.raises(bundle.Fail, match=re.escape(words)):
        bundle.write_sums(tmp_path)
    assert not (tmp_path / "SHA256SUMS").exists()
