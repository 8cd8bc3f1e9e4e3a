"""The ``shotclock`` command line.

Every subcommand loads the configuration the same way and turns shotclock's own errors
into one clear message and exit code 2 (never a traceback); a check that fails exits 1.
"""

from __future__ import annotations

import argparse
import contextlib
import errno
import logging
import os
import shutil
import sys
import tempfile
from pathlib import Path

from shotclock.config import Config, load_config
from shotclock.errors import ConfigError, ReplayFormatError, ShotclockError, one_line

DEFAULT_CONFIG = Path("/etc/shotclock/config.toml")
os.environ.setdefault("PYGAME_HIDE_SUPPORT_PROMPT", "1")  # before any command imports pygame
log = logging.getLogger("shotclock.cli")


def load_for(args) -> Config:
    """The configuration a command runs with: ``--config FILE``, else the system file, else defaults."""
    path = args.config
    if path is None and DEFAULT_CONFIG.exists():
        path = DEFAULT_CONFIG
    return load_config(path)


CHUNK = 1 << 20  # bytes read at a time: replay's memory stays bounded however long its input


class ReplayFile:
    """A replay-format file (``-`` or None: standard input) opened for reading, events streamed.

    ``settings`` are the rule settings to replay with: ``--config FILE`` when given, else the
    file's header line, else the system file or the defaults. Errors name the file and line.
    """

    def __init__(self, path: str | None, args):
        from shotclock.core.replay import ReplayInput

        self.name = "<stdin>" if path in (None, "-") else path
        if path in (None, "-"):
            # Bytes, to name a line that is not UTF-8; a stand-in stdin (tests) may have text only.
            stream = getattr(sys.stdin, "buffer", None) or _TextAsBytes(sys.stdin)
        else:
            try:
                stream = open(path, "rb")
            except OSError as exc:
                raise ShotclockError(f"cannot read {path}: {exc.strerror}") from None
        self.stream = stream
        with self.named():
            self.input = ReplayInput(iter(lambda: stream.read(CHUNK), b""))
            self.config = self._config(args)

    def _config(self, args) -> Config:
        from shotclock.config import config_from

        header = self.input.header
        if header is not None and args.config:
            print(f"shotclock: note: {one_line(self.name)}: --config {one_line(args.config)} replaces the settings "
                  f"in the file's header (line {self.input.header_line})", file=sys.stderr)
        if header is None or args.config:
            return load_for(args)
        try:
            return config_from(header, self.name)
        except ConfigError as exc:
            raise ReplayFormatError(self.input.header_line, "; ".join(exc.problems)) from None

    def events(self):
        """The events, read as they are needed; iterate inside :meth:`named`."""
        return self.input.events(self.config["mode"])

    @contextlib.contextmanager
    def named(self):
        """Errors while reading say which file (and line, as the reader found it)."""
        try:
            yield
        except ReplayFormatError as exc:
            raise ShotclockError(f"{self.name}: {exc}") from None
        except OSError as exc:
            raise ShotclockError(f"cannot read {self.name}: {exc.strerror}") from None

    def warn_foreign_mode(self) -> None:
        """One warning line when events of the other mode were ignored (a shot file replayed as clock)."""
        if self.input.foreign:
            line, name = self.input.foreign
            mode = self.config["mode"]
            other = "shot" if mode == "clock" else "clock"
            print(f"shotclock: warning: {one_line(self.name)}: line {line}: '{name}' is a {other}-mode event but the replay ran "
                  f"in {mode} mode, so such events were ignored (give --config FILE with mode = \"{other}\", or a first "
                  f"line {{\"config\":{{\"mode\":\"{other}\"}}}})",
                  file=sys.stderr)

    def close(self) -> None:
        """Close the file (not standard input)."""
        if self.stream is not getattr(sys.stdin, "buffer", None) and not isinstance(self.stream, _TextAsBytes):
            self.stream.close()


class _TextAsBytes:
    """A text stream read as UTF-8 bytes."""

    def __init__(self, text_stream):
        self.text_stream = text_stream

    def read(self, size: int) -> bytes:
        return self.text_stream.read(size).encode("utf-8", "surrogateescape")


def cmd_replay(args) -> int:
    """Replay JSON Lines input events; write JSON Lines output records.

    The output is held back (in memory, on disk past 16 MB) until the whole input has been read
    and checked, so a bad line leaves nothing on standard output.
    """
    from shotclock.core.replay import replay

    source = ReplayFile(args.file, args)
    if source.input.empty:  # 'log export --replay N | shotclock replay' after the export failed
        raise ShotclockError(f"{one_line(source.name)}: no events (an empty input; did the command before the pipe fail?)")
    with tempfile.SpooledTemporaryFile(max_size=16 << 20, mode="w+", encoding="utf-8") as held:
        batch: list[str] = []
        with source.named():
            events = source.events()
            for output in replay(events, source.config.settings):
                batch.append(output.to_json())
                if len(batch) >= 4096:  # one write per few thousand lines, not one per line
                    held.write("\n".join(batch) + "\n")
                    batch.clear()
            after_end = 0
            for _ in events:  # after an 'end', the rest must still be valid: a bad line is never passed over
                after_end += 1
        source.close()
        if batch:
            held.write("\n".join(batch) + "\n")
        held.seek(0)
        shutil.copyfileobj(held, sys.stdout, CHUNK)
    source.warn_foreign_mode()
    if after_end:
        print(f"shotclock: warning: {one_line(source.name)}: {after_end} event{'s' if after_end > 1 else ''} after "
              "'end' were checked but not replayed", file=sys.stderr)
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


class Parser(argparse.ArgumentParser):
    """argparse, with a usage mistake told in one line (and where to find help), exit code 2."""

    def error(self, message):
        self.exit(2, f"{self.prog}: {one_line(message)} (see '{self.prog} --help')\n")


def shared_options(p, *, config: bool = True, state_dir: bool = False) -> None:
    """Options every command takes, before or after its name (``shotclock log verify --state-dir D``).

    They are added at each level with no default of their own, so a level that does not see an
    option leaves what an earlier level set; :func:`build_parser` sets the defaults once.
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


def build_parser() -> Parser:
    """The argument parser with every subcommand."""
    parser = Parser(prog="shotclock", description="shotclock: the shot clock and clock-call device for poker "
                                                  "tables, and its tools.",
                    epilog="Exit codes: 0 ok, 1 a check failed (log verify, selftest), 2 a usage or input error.")
    shared_options(parser, state_dir=True)
    parser.set_defaults(verbose=False, config=None, state_dir=None)
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")

    def add(name, func, help_text, *, config=True, state_dir=False):
        p = sub.add_parser(name, help=help_text, description=help_text)
        p.set_defaults(func=func)
        shared_options(p, config=config, state_dir=state_dir)
        return p

    p = add("replay", cmd_replay, "replay JSON Lines input events and print the output records; uses no real time")
    p.add_argument("file", nargs="?", metavar="FILE", help="input events (default: standard input)")

    p = add("config", cmd_config, "print the default configuration with every key explained, or check a file",
            config=False)
    p.add_argument("--check", metavar="FILE", help="validate FILE and report every problem")

    for register in _extra_commands():
        register(add)
    return parser


def _extra_commands():
    """Subcommands that live in their own modules (device, screen, log)."""
    from shotclock.shell import commands

    return commands.REGISTER


def main(argv: list[str] | None = None) -> int:
    """Entry point of the ``shotclock`` console script: exit 0 ok, 1 a check failed, 2 a usage or input error."""
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
