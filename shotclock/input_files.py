"""The one bounded reader of files given from outside (a configuration, a template, a credential, a CA, a
first-boot file, a script, a seating export, a tournament's structure): what is not a regular file is
refused before it is read, and no more than a limit is ever read.

:func:`read_input_file` raises the :class:`OSError` (its ``strerror`` says what the file is); :func:`read_input`
and :func:`read_input_text` say what is wrong in one line naming the file (:class:`ShotclockError`), in the words of
:func:`input_problem`, which a caller that reports in its own form (a configuration's error) uses too.
"""

from __future__ import annotations

import errno
import os
import stat
from pathlib import Path

from shotclock.errors import ShotclockError, one_line

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
            raise OSError(errno.EFBIG, f"more than {limit:,} bytes", path)
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


def input_problem(exc: OSError | UnicodeDecodeError, what: str = "file") -> str:
    """What :func:`read_input_file` (or decoding its bytes as UTF-8) found wrong with a file, in words, without the
    file's name: ``"file not found"``, ``"a folder, not a structure"``, ``"a FIFO, not a regular file (a structure is a
    file of text)"``, ``"more than 1,000,000 bytes: is it a structure?"``, ``"not UTF-8 text (byte 7)"``.

    :param what: what the file should be (``"structure"``, ``"seating export"``).

    Example::

        >>> input_problem(FileNotFoundError(2, "No such file or directory"))
        'file not found'
    """
    if isinstance(exc, UnicodeDecodeError):
        return f"not UTF-8 text (byte {exc.start})"
    if isinstance(exc, FileNotFoundError):
        return "file not found" if what == "file" else f"file not found (the {what})"
    if isinstance(exc, IsADirectoryError):
        return f"a folder, not a {what}"
    if exc.errno == errno.EFBIG:
        return f"{exc.strerror}: is it a {what}?"
    if exc.errno in (errno.EINVAL, errno.ELOOP) and exc.strerror and exc.strerror.endswith(", not a regular file"):
        return f"{exc.strerror} (a {what} is a file of text)"
    return f"cannot read it: {exc.strerror or exc}"


def read_input(path: str | Path, limit: int = INPUT_FILE_MAX, what: str = "file", *, streams: bool = False,
               follow_links: bool = True, advice: str = "") -> bytes:
    """:func:`read_input_file`, whose every refusal is one line naming the file and what is wrong with it
    (:func:`input_problem`).

    :param what: what the file should be, for the message (``"structure file"``).
    :param advice: said after a file that is too big (``"(export its rounds as CSV)"``).
    :raises ShotclockError: ``"<path>: <problem>"``.
    """
    try:
        return read_input_file(path, limit, follow_links=follow_links, streams=streams)
    except OSError as exc:
        problem = input_problem(exc, what)
        if advice and exc.errno == errno.EFBIG:
            problem += f" {advice}"
        raise ShotclockError(f"{one_line(str(path))}: {problem}") from None


def read_input_text(path: str | Path, limit: int = INPUT_FILE_MAX, what: str = "file", *, streams: bool = False,
                    follow_links: bool = True) -> str:
    """:func:`read_input` as UTF-8 text (a byte order mark at the start is kept: TOML refuses it, a caller that
    takes it strips it).

    :raises ShotclockError: ``"<path>: not UTF-8 text (byte N)"``, or any refusal of :func:`read_input`.
    """
    data = read_input(path, limit, what, streams=streams, follow_links=follow_links)
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise ShotclockError(f"{one_line(str(path))}: {input_problem(exc, what)}") from None
