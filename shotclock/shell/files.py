"""Files the commands write: never half-written, never over one of shotclock's own inputs; who may read them."""

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


SERVICE_USER = "shotclock"  # the unit's User= (hardware/shotclock.service)


def service_user() -> str:
    """The user the service runs as: ``shotclock`` where that user exists, else whoever runs this."""
    import getpass
    import pwd

    try:
        pwd.getpwnam(SERVICE_USER)
        return SERVICE_USER
    except KeyError:
        return getpass.getuser()


def unreadable_by(path: str | Path, user: str) -> str | None:
    """Why ``user`` cannot read the file ``path`` (from its owner, group and mode bits, and those of each
    folder above it), or None when it can. Judged from the bits, so root can check for the service's user.

    Example::

        >>> unreadable_by("/etc/hostname", "root") is None
        True
    """
    import pwd
    import stat

    try:
        account = pwd.getpwnam(user)
    except KeyError:
        return f"there is no user {user}"
    path = Path(path).absolute()
    try:
        st = path.stat()
    except FileNotFoundError:
        return "it does not exist"
    except OSError as exc:
        return exc.strerror or str(exc)
    if not stat.S_ISREG(st.st_mode):
        return "it is not a file"
    closed = closed_folder(path, user)
    if closed is not None:
        return closed
    if not _may(account, st, stat.S_IRUSR):
        try:
            owner = pwd.getpwuid(st.st_uid).pw_name
        except KeyError:
            owner = str(st.st_uid)
        return f"user {user} cannot read it (owner {owner}, mode {stat.S_IMODE(st.st_mode):04o})"
    return None


def closed_folder(path: str | Path, user: str) -> str | None:
    """Why ``user`` cannot get through the folders above ``path`` to it (the first it may not enter, with its
    owner and mode), or None when it can, or when there is no such user here. Judged from the bits, as root can.

    Example::

        >>> closed_folder("/etc/hostname", "root") is None
        True
    """
    import pwd
    import stat

    try:
        account = pwd.getpwnam(user)
    except KeyError:
        return None
    for folder in reversed(Path(path).absolute().parents):
        try:
            st = folder.stat()
        except OSError:
            return None  # not there yet: nothing to judge
        if not _may(account, st, stat.S_IXUSR):
            try:
                owner = pwd.getpwuid(st.st_uid).pw_name
            except KeyError:
                owner = str(st.st_uid)
            return f"user {user} cannot enter the folder {folder} (owner {owner}, mode {stat.S_IMODE(st.st_mode):04o})"
    return None


def _may(account, st, owner_bit: int) -> bool:
    """Whether ``account`` has the permission ``owner_bit`` names (S_IRUSR, S_IXUSR) on what ``st`` describes."""
    import grp

    if account.pw_uid == 0:
        return True
    if st.st_uid == account.pw_uid:
        return bool(st.st_mode & owner_bit)
    groups = {account.pw_gid} | {g.gr_gid for g in grp.getgrall() if account.pw_name in g.gr_mem}
    if st.st_gid in groups:
        return bool(st.st_mode & (owner_bit >> 3))
    return bool(st.st_mode & (owner_bit >> 6))
