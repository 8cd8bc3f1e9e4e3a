"""The ``shotclock`` command line: the commands of every layer in one program.

This module sits above all the layers (core <- adapters <- shell <- floor): the shell's commands
are declared in :mod:`shotclock.shell.commands`, the floor's in :mod:`shotclock.floor.commands`,
and only this module knows both. Every subcommand loads the configuration the same way and turns
shotclock's own errors into one clear message and exit code 2 (never a traceback); a check that
fails exits 1.
"""

from __future__ import annotations

import errno
import importlib
import logging
import os
import sys

from shotclock import __version__
from shotclock.errors import ConfigError, ShotclockError, one_line
from shotclock.floor import commands as floor_commands
from shotclock.shell import commands as shell_commands
from shotclock.shell.args import Parser, shared_options

os.environ.setdefault("PYGAME_HIDE_SUPPORT_PROMPT", "1")  # before any command imports pygame
log = logging.getLogger("shotclock.cli")


def build_parser() -> Parser:
    """The argument parser with every subcommand."""
    parser = Parser(prog="shotclock", description="shotclock: the shot clock and clock-call device for poker "
                                                  "tables, and its tools.",
                    epilog="Exit codes: 0 ok, 1 a check failed (log verify, selftest), 2 a usage or input error.")
    parser.add_argument("--version", action="version", version=f"shotclock {__version__}",
                        help="print the release (as in CHANGELOG.md and the device's status) and exit")
    shared_options(parser, state_dir=True)
    parser.set_defaults(verbose=False, config=None, state_dir=None)
    # Not required here: argparse would then name the missing COMMAND before an unknown option (``shotclock
    # --bogus``); main() asks for the command once every word is known.
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")

    def add(name, func, help_text, *, config=True, state_dir=False):
        p = sub.add_parser(name, help=help_text, description=help_text)
        p.set_defaults(func=func)
        shared_options(p, config=config, state_dir=state_dir)
        return p

    for register in shell_commands.REGISTER + floor_commands.REGISTER:
        register(add)
    return parser


def main(argv: list[str] | None = None) -> int:
    """Entry point of the ``shotclock`` console script: exit 0 ok, 1 a check failed, 2 a usage or input error."""
    parser = build_parser()
    args = parser.parse_args(argv)
    if args.command is None:
        parser.error("the following arguments are required: COMMAND")
    logging.basicConfig(level=logging.DEBUG if args.verbose else logging.INFO,
                        format="%(name)s: %(message)s", stream=sys.stderr)
    func = args.func
    if isinstance(func, str):  # "module:function", imported only now
        module, name = func.split(":")
        func = getattr(importlib.import_module(module), name)
    try:
        code = func(args) or 0
        sys.stdout.flush()  # here, not at exit, so a full disk or closed pipe is reported like any error
        return code
    except ConfigError as exc:
        print(exc.report(), file=sys.stderr)
        return 2
    except ShotclockError as exc:
        print(f"shotclock: {one_line(str(exc))}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:  # the reader went away (| head): not an error, and nothing more to say
        _drop_stdout()
        return 0
    except OSError as exc:
        # Every file shotclock writes by name reports its own errors; one with no name is standard output.
        if exc.filename is None and exc.errno in OUTPUT_ERRORS:
            _drop_stdout()
            print(f"shotclock: cannot write to standard output: {exc.strerror}", file=sys.stderr)
            return 2
        raise


OUTPUT_ERRORS = {errno.ENOSPC, errno.EIO, errno.EDQUOT, errno.EFBIG}


def _drop_stdout() -> None:
    """Point stdout at /dev/null so Python's flush at exit does not fail a second time."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
    except (OSError, ValueError):
        pass


if __name__ == "__main__":
    sys.exit(main())
