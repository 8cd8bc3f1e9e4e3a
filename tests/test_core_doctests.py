"""The examples in the core's docstrings run, and say what the code does.

Each module of ``shotclock/core`` has its doctests run here, one test per module, so an example that
no longer holds fails the suite with the example's own report.
"""

import doctest
import importlib
import types
from pathlib import Path

import pytest

import shotclock.core

CORE = Path(shotclock.core.__file__).parent
MODULES = sorted(f"shotclock.core.{p.stem}" for p in CORE.glob("*.py") if p.stem != "__init__")


def run_doctests(module: types.ModuleType) -> tuple[doctest.TestResults, str]:
    """Run every docstring example of ``module``: (failed, attempted) and the runner's report."""
    report: list[str] = []
    runner = doctest.DocTestRunner(optionflags=doctest.ELLIPSIS)
    for test in doctest.DocTestFinder().find(module, module.__name__):
        runner.run(test, out=report.append)
    return doctest.TestResults(runner.failures, runner.tries), "".join(report)


@pytest.mark.parametrize("name", MODULES)
def test_the_examples_in_the_docstrings_hold(name):
    results, report = run_doctests(importlib.import_module(name))
    assert results.failed == 0, report


def test_the_core_has_examples_to_run():
    attempted = {name: run_doctests(importlib.import_module(name))[0].attempted for name in MODULES}
    # buttons, engine, gestures, inputs, replay, table, view had 21 examples when this test was written.
    assert sum(attempted.values()) >= 21, attempted
    assert {"shotclock.core.engine", "shotclock.core.table", "shotclock.core.buttons"} <= \
        {name for name, n in attempted.items() if n}


def test_a_wrong_example_fails():
    module = types.ModuleType("wrong", ">>> 1 + 1\n3\n>>> 2 * 2\n4\n")
    results, report = run_doctests(module)
    assert (results.failed, results.attempted) == (1, 2)
    assert "Expected:\n    3\nGot:\n    2" in report
