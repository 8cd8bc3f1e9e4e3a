"""The one bounded reader of files given from outside (a configuration, a template, a credential, a CA, a
first-boot file, a script, a seating export, a schedule, a tournament's structure): what is not a regular file is
refused before it is read, and no more than a limit is ever read."""

from __future__ import annotations

import errno
import os
import stat
from pathlib import Path


INPUT_FILE_MAX = 1_000_000  # bytes: a configuration, template, credential, CA or first-boot file is a few kB
_KINDS = ((stat.S_ISFIFO, "a FIFO"), (stat.S_ISCHR, "a character device"), (stat.S_ISBLK, "a block device"),
          (stat.S_ISSOCK, "a socket"), (stat.S_ISLNK, "a symbolic link"))


def read_input_file(path: str | Path, limit: int = INPUT_FILE_MAX, *, follow_links: bool = True,
                    streams: bool = False) -> bytes:
    """The bytes of a file given from outside: a regular file of at most ``limit`` bytes.

    What is not a file is refused before it is read, with an :class:`OSError` whose ``strerror`` says what it is
    (``"a FIFO, not a regular file"``), so each caller's own ``except OSError`` names it in its one line: a FIFO
    with no writer, or ``/dev/zero``, would hang the reader or fill the memory. A folder raises
    :class:`IsADirectoryError`; more than ``limit`` bytes, ``OSError`` (``EFBIG``).

    :param follow_links: False: a symbolic link is refused too (a file that is read and then removed, such as
        the first-boot file).
    :param streams: a FIFO or a character device is read as well (``<(program)``, ``/dev/stdin``), to at most
        ``limit`` bytes.

    Example::

        >>> read_input_file("/dev/zero")
        Traceback (most recent call last):
        ...
        OSError: [Errno 22] a character device, not a regular file: '/dev/zero'
    """
    path = str(path)
    mode = os.stat(path) if follow_links else os.lstat(path)
    _check_kind(path, mode.st_mode, limit, streams)
    stream = not stat.S_ISREG(mode.st_mode)  # a FIFO's open waits for its writer, as a reader expects
    flags = os.O_RDONLY | os.O_NOCTTY | os.O_CLOEXEC | (0 if follow_links else os.O_NOFOLLOW) | \
        (0 if stream else os.O_NONBLOCK)
    fd = os.open(path, flags)
    try:
        opened = os.fstat(fd)
        _check_kind(path, opened.st_mode, limit, streams)  # the entry opened is the one looked at
        if opened.st_size > limit and stat.S_ISREG(opened.st_mode):
            raise OSError(errno.EFBIG, f"more than {limit:,} bytes ({opened.st_size:,})", path)
        chunks, total = [], 0
        while chunk := os.read(fd, min(1 << 16, limit + 1 - total)):
            chunks.append(chunk)
            total += len(chunk)
            if total > limit:
                raise OSError(errno.EFBIG, f"more than {limit:,} bytes", path)
    finally:
        os.close(fd)
    return b"".join(chunks)


def _check_kind(path: str, mode: int, limit: int, streams: bool) -> None:
    if stat.S_ISDIR(mode):
        raise IsADirectoryError(errno.EISDIR, "is a directory, not a file", path)
    if stat.S_ISREG(mode) or (streams and (stat.S_ISFIFO(mode) or stat.S_ISCHR(mode))):
        return
    kind = next((name for test, name in _KINDS if test(mode)), "not a file")
    raise OSError(errno.ELOOP if stat.S_ISLNK(mode) else errno.EINVAL, f"{kind}, not a regular file", path)


def read_input_text(path: str | Path, limit: int = INPUT_FILE_MAX, *, follow_links: bool = True) -> str:
    """:func:`read_input_file` as UTF-8 text (:class:`UnicodeDecodeError` when it is not)."""
    return read_input_file(path, limit, follow_links=follow_links).decode("utf-8")
