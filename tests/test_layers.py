"""Dependencies point one way, and no two files import each other, however late the import.

Every module's imports are read with ``ast``: those at the top, those inside functions (a lazy
import that hides a cycle is still a cycle), and the commands the command line names as
``"module:function"`` strings (imported when the command runs). Where each part of the package
sits, bottom to top:

============ ===================================================================================
layer        what it is, and what it may import (besides itself)
============ ===================================================================================
root         ``shotclock/__init__.py``: the version only; imports nothing
errors       ``shotclock/errors.py``: the error hierarchy; every layer raises these
core         ``shotclock/core/``: the rules, pure -- root, errors
files        ``shotclock/input_files.py``: the one bounded reader of files from outside; no rules -- root,
             errors
config       ``shotclock/config/``: the configuration's schema, its loading, the levels and rule sets, the
             pin map; it reads the core's settings, and the adapters read it, never the reverse -- root,
             errors, core, files
adapters     ``shotclock/adapters/``: pins, screen, sound, log, archive, network -- the above and config
shell        ``shotclock/shell/``: the loop, the device's wiring, the shell's commands -- the above
             and adapters
web          ``shotclock/web/``: the floor's pages; their generator reads the core's texts only --
             root, errors, core
floor        ``shotclock/floor/``: broker configuration, collector, fleet, demo, the floor's
             commands -- everything above, web included
program      ``shotclock/cli.py``, ``shotclock/__main__.py``: the ``shotclock`` command, the one
             place that knows every layer's commands -- everything
============ ===================================================================================
"""

import ast
import graphlib
import re
from pathlib import Path

import pytest

import shotclock

PACKAGE = Path(shotclock.__file__).parent

ALLOWED = {
    "root": set(),
    "errors": {"root"},
    "core": {"root", "errors"},
    "files": {"root", "errors"},
    "config": {"root", "errors", "core", "files"},
    "adapters": {"root", "errors", "core", "files", "config"},
    "shell": {"root", "errors", "core", "files", "config", "adapters"},
    "web": {"root", "errors", "core"},
    "floor": {"root", "errors", "core", "files", "config", "adapters", "shell", "web"},
    "program": {"root", "errors", "core", "files", "config", "adapters", "shell", "web", "floor"},
}
FILE_LAYERS = {"__init__.py": "root", "errors.py": "errors", "input_files.py": "files", "cli.py": "program",
               "__main__.py": "program"}

COMMAND = re.compile(r"(shotclock(?:\.\w+)+):\w+")  # a command named as "module:function"


def modules(package: Path = PACKAGE) -> dict[str, Path]:
    """Every module of the package by dotted name (a package by its own name)."""
    found = {}
    for path in sorted(package.rglob("*.py")):
        parts = list(path.relative_to(package.parent).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts.pop()
        found[".".join(parts)] = path
    return found


def imports(name: str, source: str, known: dict) -> dict[str, int]:
    """The modules of ``known`` (dotted name -> file) that module ``name`` imports, each with the line
    of its first import.

    Counts imports anywhere in the file (inside functions too) and ``"module:function"`` strings.
    ``from package import module`` is an import of that module; ``from module import thing`` of the module.
    """
    is_package = Path(known[name]).name == "__init__.py"
    found: dict[str, int] = {}

    def add(target: str, line: int) -> None:
        while target and target not in known:  # 'import a.b.thing' -> a.b
            target = target.rpartition(".")[0]
        if target and target != name:
            found[target] = min(found.get(target, line), line)

    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            for alias in node.names:
                add(alias.name, node.lineno)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:  # relative: from the module's own package
                package = name.split(".") if is_package else name.split(".")[:-1]
                package = package[:len(package) - (node.level - 1)]
                base = ".".join(package + ([base] if base else []))
            for alias in node.names:
                add(f"{base}.{alias.name}" if f"{base}.{alias.name}" in known else base, node.lineno)
        elif isinstance(node, ast.Constant) and isinstance(node.value, str):
            match = COMMAND.fullmatch(node.value)
            if match:
                add(match.group(1), node.lineno)
    return found


def layer_of(name: str) -> str:
    """The layer of a module by its dotted name (see the table above)."""
    parts = name.split(".")
    if len(parts) == 1:
        return "root"
    if (PACKAGE / parts[1]).is_dir():
        return parts[1]
    file = parts[1] + ".py"
    assert file in FILE_LAYERS, f"{name}: put it in a layer (FILE_LAYERS in tests/test_layers.py and docs/architecture.md)"
    return FILE_LAYERS[file]


def graph() -> dict[str, dict[str, int]]:
    """Module -> {imported module: line}, for every module of the package."""
    known = modules()
    return {name: imports(name, path.read_text(), known) for name, path in known.items()}


def wrong_way(edges: dict[str, dict[str, int]]) -> list[str]:
    """Every import from one layer into a layer it may not import, as 'file:line imports module'."""
    problems = []
    for name, targets in edges.items():
        mine = layer_of(name)
        for target, line in sorted(targets.items()):
            theirs = layer_of(target)
            if theirs != mine and theirs not in ALLOWED[mine]:
                problems.append(f"{name} (line {line}, {mine}) imports {target} ({theirs})")
    return problems


def cycle(edges: dict[str, dict[str, int]]) -> list[str] | None:
    """One import cycle (its modules in order, the first repeated at the end), or None."""
    try:
        graphlib.TopologicalSorter({name: set(targets) for name, targets in edges.items()}).prepare()
    except graphlib.CycleError as exc:
        return exc.args[1]
    return None


def test_no_module_imports_a_layer_above_its_own():
    assert wrong_way(graph()) == []


def test_no_two_files_import_each_other_even_late():
    found = cycle(graph())
    assert found is None, "import cycle: " + " -> ".join(found)


def test_every_module_has_a_layer():
    names = modules()
    assert len(names) > 40
    layers = {layer_of(name) for name in names}
    assert layers == set(ALLOWED), f"layers with no module, or unknown: {layers ^ set(ALLOWED)}"


def test_the_layers_themselves_form_no_cycle():
    assert cycle({layer: dict.fromkeys(below, 0) for layer, below in ALLOWED.items()}) is None


# The checks must be able to fail: each is shown a case it has to catch.

KNOWN = {"shotclock": "__init__.py", "shotclock.core": "__init__.py", "shotclock.core.a": "a.py",
         "shotclock.core.b": "b.py", "shotclock.shell": "__init__.py", "shotclock.shell.c": "c.py",
         "shotclock.floor": "__init__.py", "shotclock.floor.d": "d.py"}


def test_an_import_inside_a_function_counts():
    source = "import json\n\ndef f():\n    from shotclock.core.b import thing\n    return thing\n"
    assert imports("shotclock.core.a", source, KNOWN) == {"shotclock.core.b": 4}


def test_a_command_named_by_string_counts_and_relative_imports_resolve():
    source = 'REGISTER = ["shotclock.floor.d:cmd_d"]\nfrom . import b\nfrom .b import x\nfrom .. import shell\n'
    assert imports("shotclock.core.a", source, KNOWN) == {
        "shotclock.floor.d": 1, "shotclock.core.b": 2, "shotclock.shell": 4}
    assert imports("shotclock.core", "from . import a\n", KNOWN) == {"shotclock.core.a": 1}


def test_a_lazy_cycle_is_found():
    edges = {"shotclock.core.a": {"shotclock.core.b": 3}, "shotclock.core.b": {"shotclock.core.a": 40}}
    assert set(cycle(edges)) == {"shotclock.core.a", "shotclock.core.b"}


@pytest.mark.parametrize("source, target", [
    ("shotclock.core.view", "shotclock.shell.loop"),
    ("shotclock.config.schema", "shotclock.adapters.boards"),
    ("shotclock.input_files", "shotclock.core.fields"),
    ("shotclock.shell.logcmd", "shotclock.floor.archive"),
    ("shotclock.web", "shotclock.adapters.mqtt"),
    ("shotclock.errors", "shotclock.core.engine"),
])
def test_an_import_the_wrong_way_is_named(source, target):
    assert wrong_way({source: {target: 7}}) == [
        f"{source} (line 7, {layer_of(source)}) imports {target} ({layer_of(target)})"]
