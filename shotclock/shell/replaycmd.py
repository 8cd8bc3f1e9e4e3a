"""``shotclock replay``: input events in, the engine's output records out, with no real time.

:class:`ReplayFile` reads a replay-format file for this command and for ``shotclock screenshot``.
"""

from __future__ import annotations

import contextlib
import shutil
import sys
import tempfile

from shotclock.config.typed import Config
from shotclock.errors import ConfigError, ReplayFormatError, ShotclockError, one_line
from shotclock.shell.args import load_for

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
        from shotclock.config.loading import config_from

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
        # A level may change the mode ([levels.N] mode): then either mode's events may belong to the file.
        modes = {v for rule in self.config.settings.levels for k, v in rule.changes if k == "mode"}
        return self.input.events(self.config.mode if modes <= {self.config.mode} else None)

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
            mode = self.config.mode
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
    from shotclock.core.events import json_lines
    from shotclock.core.replay import replay_steps

    source = ReplayFile(args.file, args)
    if source.input.empty:  # 'log export --replay N | shotclock replay' after the export failed
        raise ShotclockError(f"{one_line(source.name)}: no events (an empty input; did the command before the pipe fail?)")
    with tempfile.SpooledTemporaryFile(max_size=16 << 20, mode="w+", encoding="utf-8") as held:
        batch: list = []
        with source.named():
            events = source.events()
            for outputs in replay_steps(events, source.config.settings):
                batch += outputs
                if len(batch) >= 4096:  # one write per few thousand lines, not one per line
                    held.write(json_lines(batch).decode())
                    batch.clear()
            after_end = 0
            for _ in events:  # after an 'end', the rest must still be valid: a bad line is never passed over
                after_end += 1
        source.close()
        if batch:
            held.write(json_lines(batch).decode())
        held.seek(0)
        shutil.copyfileobj(held, sys.stdout, CHUNK)
    source.warn_foreign_mode()
    if after_end:
        print(f"shotclock: warning: {one_line(source.name)}: {after_end} event{'s' if after_end > 1 else ''} after "
              "'end' were checked but not replayed", file=sys.stderr)
    return 0
