"""What the tests share: waiting on a condition, and the real device as a process of its own.

``wait_until`` is the only way a test waits for something another thread or process does: it polls a
condition, and its timeout only bounds a hang (a loaded 2-core machine takes seconds for what takes
milliseconds on an idle one), so no test depends on how fast the machine is.

``start_device`` and ``run_device`` run ``shotclock run --pins mock --headless`` (fake pins, real time,
the real log writer) with its files in one folder: the configuration (``c.toml``), a script of presses
(``script.jsonl``) and its report (``report.jsonl``), and the state directory (``state/``).
"""

from __future__ import annotations

import json
import subprocess
import sys
import time
from pathlib import Path

WAIT = 60.0  # seconds: the default bound of a wait


def wait_until(predicate, timeout: float = WAIT, what: str = "", alive: subprocess.Popen | None = None,
               interval: float = 0.02):
    """Poll ``predicate`` until it returns something true, and return that.

    :param timeout: seconds before the wait fails (an ``AssertionError`` naming ``what``): only a bound
        on a hang, never a measure of speed.
    :param what: what is waited for, in the failure's message.
    :param alive: a process that must keep running meanwhile: its exit fails the wait at once, with its
        standard error when that is a pipe.

    Example::

        >>> wait_until(lambda: 2 + 2, what="arithmetic")
        4
    """
    deadline = time.monotonic() + timeout
    while True:
        value = predicate()
        if value:
            return value
        if alive is not None and alive.poll() is not None:
            err = alive.stderr.read() if alive.stderr and not alive.stderr.closed else ""
            raise AssertionError(f"the process exited ({alive.returncode}) while waiting for "
                                 f"{what or 'a condition'}: {err}")
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out after {timeout:g} s waiting for {what or 'a condition'}")
        time.sleep(interval)


def device_command(folder: Path, *, config: str | None = None, script: list[dict] | None = None,
                   report: Path | None = None, state: Path | None = None, extra=(), pins: str | None = "mock",
                   headless: bool = True) -> list[str]:
    """The command line of ``shotclock run --pins mock --headless``, its files written into ``folder``.

    :param config: the configuration's text (``--config folder/c.toml``); None: no ``--config``.
    :param script: presses to play (``--script folder/script.jsonl``, with ``--report``); None: no script.
    :param report: where the report goes (default ``folder/report.jsonl``); only with a script.
    :param state: the state directory (default ``folder/state``).
    :param extra: more arguments, appended.
    :param pins: the pin factory (None: no ``--pins``, the device chooses as on a Pi).
    :param headless: ``--headless`` (no screen, no sound).
    """
    folder.mkdir(parents=True, exist_ok=True)
    argv = [sys.executable, "-m", "shotclock", "run", "--state-dir", str(state or folder / "state")]
    argv += ["--pins", pins] if pins else []
    argv += ["--headless"] if headless else []
    if config is not None:
        (folder / "c.toml").write_text(config)
        argv += ["--config", str(folder / "c.toml")]
    if script is not None:
        (folder / "script.jsonl").write_text("\n".join(json.dumps(p) for p in script) + "\n")
        argv += ["--script", str(folder / "script.jsonl"), "--report", str(report or folder / "report.jsonl")]
    return argv + [str(a) for a in extra]


def start_device(folder: Path, *, log: Path | None = None, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                 env: dict | None = None, **files) -> subprocess.Popen:
    """Start the device (see :func:`device_command` for ``files``) and return its process.

    :param log: a file that takes its standard output and error (instead of ``stdout`` and ``stderr``).
    """
    argv = device_command(folder, **files)
    if log is None:
        return subprocess.Popen(argv, stdout=stdout, stderr=stderr, stdin=subprocess.DEVNULL, text=True, env=env)
    with open(log, "ab") as out:
        return subprocess.Popen(argv, stdout=out, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL, env=env)


def run_device(folder: Path, *, timeout: float = WAIT, env: dict | None = None, **files) -> subprocess.CompletedProcess:
    """Run the device to its end (a script played, or an error) and return what it printed and its exit code."""
    return subprocess.run(device_command(folder, **files), capture_output=True, text=True, timeout=timeout, env=env,
                          stdin=subprocess.DEVNULL)


def read_report(path: Path) -> list[dict]:
    """The records of a script's report, the complete lines only (a killed device may leave half a line);
    none when it was never written."""
    if not path.exists():
        return []
    return [json.loads(line) for line in path.read_text().splitlines() if line.endswith("}")]


def load_tool(name: str):
    """The module ``tools/<name>.py`` (the tools are scripts, not a package)."""
    import importlib.util
    from pathlib import Path

    spec = importlib.util.spec_from_file_location(name, Path(__file__).parent.parent / "tools" / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module
