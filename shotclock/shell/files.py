"""Files the commands write: never half-written, never over one of shotclock's own inputs."""

from __future__ import annotations

import contextlib
import os
import tempfile
from pathlib import Path

from shotclock.errors import ShotclockError


def same_file(a: str | Path, b: str | Path) -> bool:
    """True when ``a`` and ``b`` name the same file (through links and relative paths)."""
    try:
        return os.path.samefile(a, b)
    except OSError:  # one of them does not exist (yet): compare where they would be
        return Path(a).resolve() == Path(b).resolve()


def refuse_overwrite(option: str, path: str | Path, protected: dict[str, Path]) -> None:
    """Raise a one-line error when ``path`` is one of the ``protected`` files (what → path)."""
    for what, other in protected.items():
        if other is not None and same_file(path, other):
            raise ShotclockError(f"{option} {path} is {what}: choose another file")


@contextlib.contextmanager
def output_file(option: str, path: str | Path, newline: str | None = None):
    """A text file written whole or not at all: into a temporary file beside it, renamed at the end.

    ``option`` names the command-line option in errors (``--out``).
    """
    path = Path(path)
    if path.is_dir():
        raise ShotclockError(f"{option} {path} is a directory, not a file")
    try:
        fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", dir=path.parent or ".")
    except OSError as exc:
        raise ShotclockError(f"cannot write {option} {path}: {exc.strerror}") from None
    try:
        with os.fdopen(fd, "w", encoding="utf-8", newline=newline) as f:
            yield f
        os.chmod(tmp, 0o666 & ~_umask())
        os.replace(tmp, path)
    except OSError as exc:
        raise ShotclockError(f"cannot write {option} {path}: {exc.strerror}") from None
    finally:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(tmp)


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask
