"""Is the system clock synchronised? Asked of systemd (``timedatectl``) or, without it, the kernel (``adjtimex``).

Only ``shotclock selftest`` asks: the device never needs the answer (floor commands are fresh by the
broker's message expiry, not by the wall clock), but the ``utc`` of the log and the archive is only as
right as the clock it was read from.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import shutil
import subprocess
from dataclasses import dataclass

TIME_ERROR = 5  # adjtimex's return value when the clock is not synchronised
STA_UNSYNC = 0x0040


@dataclass(frozen=True)
class TimeSync:
    """``synchronised`` is True, False, or None (cannot tell here); ``how`` says where the answer came from."""

    synchronised: bool | None
    how: str


def time_sync(run=subprocess.run, adjtimex=None) -> TimeSync:
    """Ask ``timedatectl`` first, then the kernel; never raises.

    :param run: ``subprocess.run`` (tests pass a fake one).
    :param adjtimex: a function returning (return value, status bits) (tests pass one; default: libc's).
    """
    if shutil.which("timedatectl"):
        try:
            out = run(["timedatectl", "show", "-p", "NTPSynchronized", "--value"], capture_output=True, text=True,
                      timeout=5)
            answer = out.stdout.strip()
            if out.returncode == 0 and answer in ("yes", "no"):
                return TimeSync(answer == "yes", f"timedatectl: NTPSynchronized={answer}")
        except (OSError, subprocess.SubprocessError):
            pass  # no systemd running (a container): ask the kernel
    try:
        result, status = (adjtimex or _libc_adjtimex)()
    except (OSError, AttributeError, ValueError) as exc:
        return TimeSync(None, f"cannot tell: no timedatectl answer and no adjtimex ({exc})")
    synced = result != TIME_ERROR and not status & STA_UNSYNC
    return TimeSync(synced, f"adjtimex: {'synchronised' if synced else 'STA_UNSYNC'}")


class _Timex(ctypes.Structure):
    # struct timex (linux/timex.h): the fields up to status, then room for the rest.
    _fields_ = [("modes", ctypes.c_uint), ("offset", ctypes.c_long), ("freq", ctypes.c_long),
                ("maxerror", ctypes.c_long), ("esterror", ctypes.c_long), ("status", ctypes.c_int),
                ("rest", ctypes.c_char * 512)]


def _libc_adjtimex() -> tuple[int, int]:
    """adjtimex(2) reading only (modes 0: no privilege needed)."""
    libc = ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6", use_errno=True)
    timex = _Timex()
    result = libc.adjtimex(ctypes.byref(timex))
    if result < 0:
        raise OSError(ctypes.get_errno(), "adjtimex failed")
    return result, timex.status
