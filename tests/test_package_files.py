"""The installed package holds every file the source tree ships: setuptools builds it from the committed
files, as a wheel is built, and each non-Python file under shotclock/ must come out (a template missing from
the wheel once stopped ``broker-config`` on an installed device while every test from the source tree passed)."""

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
BUILD = """
import sys
from setuptools.dist import Distribution
dist = Distribution()
dist.script_name = "setup.py"
dist.parse_config_files(["setup.cfg"])
build = dist.get_command_obj("build_py")
build.build_lib = sys.argv[1]
build.ensure_finalized()
build.run()
"""


def _committed() -> list[str]:
    if shutil.which("git") is None or not (ROOT / ".git").exists():
        pytest.skip("not a git checkout: the committed files are unknown")
    done = subprocess.run(["git", "ls-files", "-z", "shotclock", "setup.cfg", "pyproject.toml", "README.md"], cwd=ROOT,
                          capture_output=True, text=True, check=True)
    return [name for name in done.stdout.split("\0") if name]


def test_the_built_package_holds_every_committed_file(tmp_path):
    source = tmp_path / "source"
    files = _committed()
    for name in files:
        (source / name).parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(ROOT / name, source / name)
    out = tmp_path / "lib"
    done = subprocess.run([sys.executable, "-c", BUILD, str(out)], cwd=source, capture_output=True, text=True,
                          timeout=300)
    assert done.returncode == 0, done.stderr[-2000:]
    built = {p.relative_to(out).as_posix() for p in out.rglob("*") if p.is_file()}
    wanted = {name for name in files if name.startswith("shotclock/")}
    assert wanted - built == set(), "committed but not installed: add them to setup.cfg's package_data"
