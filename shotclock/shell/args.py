"""What every command shares: the argument parser, the options every command takes, and the
configuration a command runs with (``shotclock config`` prints the defaults or checks a file)."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from shotclock.config.loading import load_config
from shotclock.config.typed import Config
from shotclock.core.fields import T_LIMIT, as_decimal, as_whole
from shotclock.errors import one_line

DEFAULT_CONFIG = Path("/etc/shotclock/config.toml")


def whole(text: str) -> int:
    """An argparse type: a whole number in plain ASCII digits, by the one rule for numbers from outside
    (:func:`shotclock.core.fields.as_whole`: ``١``, ``５``, ``1_0``, ``+1`` and ``1²`` are refused, not read as 1,
    5, 10, 1 or a traceback)."""
    value = as_whole(text)
    if value.__class__ is not int:
        raise argparse.ArgumentTypeError(f"{one_line(text)!r} is not a whole number in plain digits (0-9)")
    return value


def decimal(text: str) -> float:
    """An argparse type: a number in plain ASCII digits with at most one decimal point (``2.5``), by the one rule
    (:func:`shotclock.core.fields.as_decimal`: ``1e309``, ``nan``, ``inf``, ``-0`` and ``٢`` are refused)."""
    value = as_decimal(text)
    if value.__class__ not in (int, float):
        raise argparse.ArgumentTypeError(f"{one_line(text)!r} is not a number in plain digits (0-9, a decimal point)")
    return float(value)


def positive_int(text: str) -> int:
    """An argparse type: a whole number of at least 1, in plain digits."""
    value = whole(text)
    if value < 1:
        raise argparse.ArgumentTypeError(f"{text!r} must be 1 or more")
    return value


def seconds(text: str) -> float:
    """An argparse type: a time in seconds, from 0 up to 10^9, in plain digits."""
    try:
        value = decimal(text)
    except argparse.ArgumentTypeError:
        raise argparse.ArgumentTypeError(f"{one_line(text)!r} is not a number of seconds (plain digits, a decimal "
                                         "point)") from None
    if not value < T_LIMIT:
        raise argparse.ArgumentTypeError(f"{text!r} must be a time from 0 up to 10^9 seconds")
    return float(value)


def load_for(args) -> Config:
    """The configuration a command runs with: ``--config FILE``, else the system file, else defaults."""
    path = args.config
    if path is None and DEFAULT_CONFIG.exists():
        path = DEFAULT_CONFIG
    return load_config(path)


def log_dir_for(args):
    """The state directory the command's log goes in, or None with ``--no-log``."""
    if getattr(args, "no_log", False):
        return None
    from shotclock.adapters.log import default_state_dir

    return Path(args.state_dir) if getattr(args, "state_dir", None) else default_state_dir()


def cmd_config(args) -> int:
    """Print the documented default configuration, or check a file."""
    from shotclock.config.loading import config_warnings
    from shotclock.config.schema import example_toml

    if args.check:
        config = load_config(args.check)
        if config.network.enabled:
            from shotclock.errors import ConfigError
            from shotclock.shell.files import service_user
            from shotclock.shell.network import login_file_problems

            problems = login_file_problems(config, getattr(args, "user", None) or service_user())
            if problems:
                raise ConfigError(str(config.source), problems)
        for warning in config_warnings(config):
            print(f"shotclock: warning: {one_line(str(config.source))}: {warning}", file=sys.stderr)
        levels = config.settings.levels  # the rules that change by level, said so a typo in a level shows
        by_level = f"; rules change at level {', '.join(str(r.level) for r in levels)}" if levels else ""
        print(f"{config.source}: OK ({config.mode} mode, table {config.table!r}{by_level})")
        return 0
    sys.stdout.write(example_toml())
    return 0


class Parser(argparse.ArgumentParser):
    """argparse, with a usage mistake told in one line (and where to find help), exit code 2."""

    def error(self, message):
        self.exit(2, f"{self.prog}: {one_line(message)} (see '{self.prog} --help')\n")


def shared_options(p, *, config: bool = True, state_dir: bool = False) -> None:
    """Options every command takes, before or after its name (``shotclock log verify --state-dir D``).

    They are added at each level with no default of their own, so a level that does not see an
    option leaves what an earlier level set; ``shotclock.cli.build_parser`` sets the defaults once.
    """
    quiet = argparse.SUPPRESS
    p.add_argument("-v", "--verbose", action="store_true", default=quiet, help="log debug messages")
    if config:
        p.add_argument("--config", metavar="FILE", default=quiet,
                       help=f"configuration file (default: {DEFAULT_CONFIG} when present)")
    if state_dir:
        p.add_argument("--state-dir", metavar="DIR", default=quiet,
                       help="where the decision log lives (default: $STATE_DIRECTORY, as the service sets it; "
                            "else, for 'log', the service's /var/lib/shotclock when it holds a log; else the "
                            "user state directory)")
