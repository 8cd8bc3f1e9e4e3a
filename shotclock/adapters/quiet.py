"""Silence C libraries that write straight to file descriptor 2 (ALSA, SDL) while probing devices.

Their messages ("ALSA lib confmisc.c:855: cannot find card '0'") garble the terminal view and say
nothing our own error message does not: the probe's result is reported, clearly, by the caller.
"""

from __future__ import annotations

import contextlib
import os
import sys


@contextlib.contextmanager
def quiet_stderr():
    """Point fd 2 at /dev/null for the duration (Python's own sys.stderr is flushed first)."""
    try:
        sys.stderr.flush()
        saved = os.dup(2)
    except (OSError, ValueError):  # no real fd 2 (some test runners): nothing to silence
        yield
        return
    devnull = os.open(os.devnull, os.O_WRONLY)
    try:
        os.dup2(devnull, 2)
        yield
    finally:
        os.dup2(saved, 2)
        os.close(saved)
        os.close(devnull)
