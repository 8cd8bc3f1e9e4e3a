"""The ``shotclock`` command line.

Every subcommand loads the configuration the same way and turns shotclock's own errors
into one clear message and exit code 2 (never a traceback).
"""

from __future__ import annotations

import argparse
import json
import logging
import os
import sys
from pathlib import Path

from shotclock.config import Config, load_config
from shotclock.errors import ConfigError, ShotclockError

DEFAULT_CONFIG = Path("/etc/shotclock/config.toml")
os.environ.setdefault("PYGAME_HIDE_SUPPORT_PROMPT", "1")  # before any command imports pygame
log = logging.getLogger("shotclock.cli")
NO_CONFIG = {"config", "broker-config"}  # commands that read no device configuration


def load_for(args) -> Config:
    """The configuration a command runs with: ``--config FILE``, else the system file, else defaults."""
    path = args.config
    if path is None and DEFAULT_CONFIG.exists():
        path = DEFAULT_CONFIG
    return load_config(path)


def read_events(path: str | None) -> list:
    """The events of a replay-format file (``-`` or None: standard input); errors name the file and line."""
    from shotclock.core.replay import parse_events

    if path in (None, "-"):
        name, lines = "<stdin>", sys.stdin.read().splitlines()
    else:
        name = path
        try:
            lines = Path(path).read_text(encoding="utf-8").splitlines()
        except OSError as exc:
            raise ShotclockError(f"cannot read {path}: {exc.strerror}") from None
    try:
        return parse_events(lines)
    except ShotclockError as exc:
        raise ShotclockError(f"{name}: {exc}") from None


def cmd_replay(args) -> int:
    """Replay JSON Lines input events; write JSON Lines output records."""
    from shotclock.core.replay import replay

    config = load_for(args)
    events = read_events(args.file)
    batch: list[str] = []
    for output in replay(events, config.settings):
        batch.append(output.to_json())
        if len(batch) >= 4096:  # one write per few thousand lines, not one per line
            sys.stdout.write("\n".join(batch) + "\n")
            batch.clear()
    if batch:
        sys.stdout.write("\n".join(batch) + "\n")
    return 0


def cmd_config(args) -> int:
    """Print the documented default configuration, or check a file."""
    from shotclock.config import example_toml

    if args.check:
        config = load_config(args.check)
        print(f"{config.source}: OK ({config['mode']} mode, table {config['table']!r})")
        return 0
    sys.stdout.write(example_toml())
    return 0


def build_parser() -> argparse.ArgumentParser:
    """The argument parser with every subcommand."""
    parser = argparse.ArgumentParser(prog="shotclock", description=__doc__.splitlines()[0])
    parser.add_argument("-v", "--verbose", action="store_true", help="log debug messages")
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")

    def add(name, func, help_text):
        p = sub.add_parser(name, help=help_text, description=help_text)
        p.set_defaults(func=func)
        if name not in NO_CONFIG:
            p.add_argument("--config", metavar="FILE",
                           help=f"configuration file (default: {DEFAULT_CONFIG} when present)")
        return p

    p = add("replay", cmd_replay, "replay JSON Lines input events and print the output records; uses no real time")
    p.add_argument("file", nargs="?", metavar="FILE", help="input events (default: standard input)")

    p = add("config", cmd_config, "print the default configuration with every key explained, or check a file")
    p.add_argument("--check", metavar="FILE", help="validate FILE and report every problem")

    for register in _extra_commands():
        register(add)
    return parser


def _extra_commands():
    """Subcommands that live in their own modules (device, screen, log)."""
    from shotclock.shell import commands

    return commands.REGISTER


def main(argv: list[str] | None = None) -> int:
    """Entry point of the ``shotclock`` console script."""
    parser = build_parser()
    args = parser.parse_args(argv)
    logging.basicConfig(level=logging.DEBUG if args.verbose else logging.INFO,
                        format="%(name)s: %(message)s", stream=sys.stderr)
    func = args.func
    if isinstance(func, str):  # "module:function", imported only now
        import importlib

        module, name = func.split(":")
        func = getattr(importlib.import_module(module), name)
    try:
        return func(args) or 0
    except ConfigError as exc:
        print(exc.report(), file=sys.stderr)
        return 2
    except ShotclockError as exc:
        print(f"shotclock: {exc}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:
        return 0


if __name__ == "__main__":
    sys.exit(main())
