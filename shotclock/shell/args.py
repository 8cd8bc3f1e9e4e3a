"""What every command shares: the argument parser, the options every command takes, and the
configuration a command runs with (``shotclock config`` prints the defaults or checks a file)."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from shotclock.config import Config, load_config
from shotclock.errors import one_line

DEFAULT_CONFIG = Path("/etc/shotclock/config.toml")


def load_for(args) -> Config:
    """The configuration a command runs with: ``--config FILE``, else the system file, else defaults."""
    path = args.config
    if path is None and DEFAULT_CONFIG.exists():
        path = DEFAULT_CONFIG
    return load_config(path)


def cmd_config(args) -> int:
    """Print the documented default configuration, or check a file."""
    from shotclock.config import config_warnings, example_toml

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
