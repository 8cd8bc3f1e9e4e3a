"""The screen's backlight, where the display exposes one in sysfs (the official 7" DSI display does).

Linux puts every dimmable backlight under ``/sys/class/backlight/<name>/`` with ``max_brightness``
and ``brightness``; writing a number between 0 and the maximum dims it. HDMI monitors have none
there (their brightness is the monitor's own menu), so :func:`set_brightness` then does nothing.
"""

from __future__ import annotations

import logging
from pathlib import Path

log = logging.getLogger("shotclock.backlight")

SYSFS = Path("/sys/class/backlight")


def backlights(root: Path = SYSFS) -> list[Path]:
    """The backlight devices under ``root`` (none on a desktop or behind HDMI)."""
    try:
        return sorted(p for p in root.iterdir() if (p / "max_brightness").exists())
    except OSError:
        return []


def set_brightness(fraction: float, root: Path = SYSFS) -> tuple[list[str], str | None]:
    """Set every backlight under ``root`` to ``fraction`` (0.1 to 1) of its maximum.

    Returns (the devices set, as ``name=value/max``; the problem, or None). A device that cannot
    be written (permissions, a read-only sysfs) is named in the problem; the others are still set.

    Example::

        >>> set_brightness(0.8, Path("/nonexistent"))
        ([], None)
    """
    done, problems = [], []
    for device in backlights(root):
        try:
            top = int((device / "max_brightness").read_text().split()[0])
            value = max(1, round(top * fraction))  # never fully dark: 0 would look like a dead screen
            (device / "brightness").write_text(f"{value}\n")
        except (OSError, ValueError, IndexError) as exc:
            problems.append(f"{device.name}: {getattr(exc, 'strerror', None) or exc}")
            continue
        done.append(f"{device.name}={value}/{top}")
    if done:
        log.info("backlight: %s", ", ".join(done))
    problem = "cannot set the backlight (" + "; ".join(problems) + ")" if problems else None
    if problem:
        log.warning("%s", problem)
    return done, problem
