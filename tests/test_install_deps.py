"""The install's dependencies resolve to real wheels on the Raspberry Pi's platforms.

PyPI can serve a Pi something that installs and does nothing: for Python 3.13 on aarch64 the
only lgpio wheel is an empty placeholder (lgpio 0.0.0.2). This check downloads what pip would
install from setup.cfg's ``install_requires`` for Raspberry Pi OS bookworm (Python 3.11) and
trixie (Python 3.13) on aarch64, binary wheels only, and opens every wheel.
"""

from __future__ import annotations

import configparser
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

ROOT = Path(__file__).parent.parent
# Raspberry Pi OS releases: Python → glibc minor version, of bookworm and trixie.
PI_PYTHONS = {"3.11": 36, "3.13": 41}


def install_requires() -> list[str]:
    """setup.cfg's install_requires, one requirement each, comments dropped."""
    cfg = configparser.ConfigParser()
    cfg.read(ROOT / "setup.cfg")
    lines = (line.split("#", 1)[0].strip() for line in cfg["options"]["install_requires"].splitlines())
    return [line for line in lines if line]


def empty_wheels(folder: Path) -> list[str]:
    """The wheels in ``folder`` whose files, besides their own metadata, hold zero bytes
    (lgpio 0.0.0.2 ships one empty ``lgpio.py``)."""
    empty = []
    for wheel in sorted(folder.glob("*.whl")):
        with zipfile.ZipFile(wheel) as z:
            payload = sum(i.file_size for i in z.infolist() if ".dist-info/" not in i.filename)
        if payload == 0:
            empty.append(wheel.name)
    return empty


def aarch64_platforms(glibc: int) -> list[str]:
    """Every manylinux tag a system with glibc 2.<glibc> accepts (pip does not expand --platform)."""
    return ["manylinux2014_aarch64", *(f"manylinux_2_{minor}_aarch64" for minor in range(17, glibc + 1))]


def pip_download(dest: Path, python: str, glibc: int, requirements: list[str]):
    platforms = [arg for tag in aarch64_platforms(glibc) for arg in ("--platform", tag)]
    return subprocess.run(
        [sys.executable, "-m", "pip", "download", "--quiet", "--dest", str(dest), "--only-binary", ":all:",
         *platforms, "--python-version", python, "--implementation", "cp", *requirements],
        capture_output=True, text=True, timeout=600)


def test_install_requires_are_read_from_setup_cfg():
    reqs = install_requires()
    assert any(r.startswith("gpiozero") for r in reqs) and any(r.startswith("pygame-ce") for r in reqs)
    assert not any(r.startswith("#") or not r for r in reqs)


def test_empty_wheel_detector(tmp_path):
    def wheel(name, files):
        with zipfile.ZipFile(tmp_path / name, "w") as z:
            for f, text in files.items():
                z.writestr(f, text)

    # As on PyPI: one zero-byte module beside its metadata.
    wheel("lgpio-0.0.0.2-py3-none-any.whl", {"lgpio.py": "", "lgpio-0.0.0.2.dist-info/METADATA": "Name: lgpio"})
    wheel("nothing-1.0-py3-none-any.whl", {"nothing-1.0.dist-info/METADATA": "Name: nothing"})
    wheel("real-1.0-py3-none-any.whl", {"real/__init__.py": "x = 1", "real/empty.py": "",
                                         "real-1.0.dist-info/METADATA": "Name: real"})
    assert empty_wheels(tmp_path) == ["lgpio-0.0.0.2-py3-none-any.whl", "nothing-1.0-py3-none-any.whl"]


@pytest.fixture(scope="module")
def pypi_reachable(tmp_path_factory):
    probe = subprocess.run([sys.executable, "-m", "pip", "download", "--quiet", "--no-deps", "--only-binary",
                            ":all:", "--dest", str(tmp_path_factory.mktemp("probe")), "six"],
                           capture_output=True, text=True, timeout=300)
    if probe.returncode != 0:
        pytest.skip(f"cannot reach the package index: {probe.stderr.strip().splitlines()[-1:]}")


@pytest.mark.parametrize("python", sorted(PI_PYTHONS))
def test_dependencies_resolve_to_real_aarch64_wheels(python, tmp_path, pypi_reachable):
    proc = pip_download(tmp_path, python, PI_PYTHONS[python], install_requires())
    assert proc.returncode == 0, f"Python {python} aarch64: {proc.stderr[-2000:]}"
    wheels = sorted(p.name for p in tmp_path.glob("*.whl"))
    assert len(wheels) >= len(install_requires()), wheels
    assert empty_wheels(tmp_path) == [], f"Python {python} aarch64 gets empty wheels"
