"""The core reads no clock and touches no device: it imports none of the shell's modules."""

import ast
import subprocess
import sys
from pathlib import Path

import shotclock.core

FORBIDDEN = {"time", "threading", "_thread", "asyncio", "gpiozero", "pygame", "sqlite3", "socket",
             "subprocess", "datetime", "os", "signal", "selectors"}
CORE = Path(shotclock.core.__file__).parent


def imported_modules(path):
    tree = ast.parse(path.read_text())
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            yield from (a.name.split(".")[0] for a in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            yield node.module.split(".")[0]


def test_core_modules_import_nothing_impure():
    files = sorted(CORE.glob("*.py"))
    assert len(files) >= 4
    for path in files:
        bad = FORBIDDEN & set(imported_modules(path))
        assert not bad, f"{path.name} imports {bad}"


def test_core_imports_cleanly_without_device_libraries():
    # A fresh interpreter imports the whole core; none of the device libraries may come along.
    modules = " ".join(f"shotclock.core.{p.stem}" for p in sorted(CORE.glob("*.py")) if p.stem != "__init__")
    # Only what importing the core adds counts (site may load threading for its own reasons).
    code = (f"import sys, importlib; before = set(sys.modules); "
            f"[importlib.import_module(m) for m in {modules.split()!r}]; "
            "added = {m.split('.')[0] for m in set(sys.modules) - before}; "
            "print(sorted({'gpiozero', 'pygame', 'sqlite3', 'threading', 'time', 'socket'} & added))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


def test_engine_runs_with_time_module_poisoned(monkeypatch):
    """If the engine read the clock, these would blow up."""
    import time

    def boom(*a):
        raise AssertionError("the core read the clock")

    for name in ("time", "monotonic", "perf_counter", "time_ns", "monotonic_ns", "sleep"):
        monkeypatch.setattr(time, name, boom)
    from conftest import run

    out = run([(0, "call", {"facing_bet": True}), (10, "pause"), (20, "resume"), (45, "end")])
    assert out[-1] == {"t": 40.5, "type": "decision", "outcome": "hand_dead"}
